//! `porfiry bench voice`: the product's voice turn, free-running, on the real runtime — the
//! time from the user's final words to the first word the assistant says, typed against
//! spoken (partial transcripts forwarded while the user speaks, as the phone does).
//!
//! Each round plays the utterances twice as a new session each: typed (each message arrives
//! whole) and spoken (before each message the words but the last, then all of them, reach the
//! runtime as partial transcripts — `Runtime::hear_partial` — and the model finishes its idle-time
//! work, as it would while the user talks). A turn is timed from the call with the final text
//! to its first visible text (`AgentEvent::Text`): routing, the first request, any tool call
//! and its follow-up included — what the user waits for.

use std::process::ExitCode;
use std::time::Instant;

use porfiry_agent::{AgentEvent, CancelToken};

use super::ask::{AgentArgs, Host, ModelArgs};

/// The built-in utterances (Russian): tools with and without arguments, a switch-free plain
/// reply the model writes (small talk is answered from the message texts, without the
/// model), a list.
const UTTERANCES_RU: &[&str] = &[
    "Который час?",
    "Запиши заметку: купить хлеб и молоко",
    "Какие у меня заметки?",
    "Покажи на экране: встреча в пять",
    "Расскажи, почему небо голубое",
    "Какое сегодня число?",
];

/// The built-in utterances (English).
const UTTERANCES_EN: &[&str] = &[
    "What time is it?",
    "Take a note: buy bread and milk",
    "What notes do I have?",
    "Show on the screen: meeting at five",
    "Tell me why the sky is blue",
    "What is today's date?",
];

/// Arguments of `porfiry bench voice`.
#[derive(Debug, clap::Args)]
pub struct VoiceArgs {
    #[command(flatten)]
    pub model: ModelArgs,
    #[command(flatten)]
    pub agent: AgentArgs,
    /// Rounds; each plays every utterance typed, then spoken, in new sessions.
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub rounds: usize,
    /// Print the figures as JSON.
    #[arg(long)]
    pub json: bool,
}

/// One turn's times, ms.
#[derive(Debug, Clone, Copy, serde::Serialize)]
struct Timed {
    /// From the final text to the first visible text (the whole turn when it said nothing).
    first_text_ms: f64,
    /// The turn's first request's time to first token (engine only).
    ttft_ms: f64,
    /// Tokens the turn's requests prefilled.
    prefilled: usize,
    /// Tool calls the turn ran.
    tools: usize,
}

/// Run `porfiry bench voice`.
pub fn run(a: VoiceArgs) -> anyhow::Result<ExitCode> {
    let utterances = match a.agent.lang {
        porfiry_agent::Lang::En => UTTERANCES_EN,
        _ => UTTERANCES_RU,
    };
    let mut host = Host::open(&a.model, &a.agent, !a.json)?;
    let rounds = a.rounds.max(1);
    // [utterance][round] for each mode.
    let mut typed: Vec<Vec<Timed>> = vec![Vec::new(); utterances.len()];
    let mut spoken: Vec<Vec<Timed>> = vec![Vec::new(); utterances.len()];
    for round in 1..=rounds {
        for (mode, rows) in [("typed", &mut typed), ("spoken", &mut spoken)] {
            let session = format!("{mode}-{round}");
            for (i, u) in utterances.iter().enumerate() {
                if mode == "spoken" {
                    if let Some((before, _)) = u.trim().rsplit_once(char::is_whitespace) {
                        host.runtime.hear_partial(&session, before)?;
                    }
                    host.runtime.hear_partial(&session, u)?;
                }
                // The user's pause: idle-time work finishes (the framing after the last
                // reply, the words heard).
                if let Some(engine) = host.runtime.engine() {
                    engine.settle()?;
                }
                let started = Instant::now();
                let mut first: Option<f64> = None;
                let turn = host
                    .runtime
                    .turn(&session, u, &CancelToken::new(), &mut |e| {
                        if let AgentEvent::Text(t) = &e {
                            if first.is_none() && !t.trim().is_empty() {
                                first = Some(started.elapsed().as_secs_f64() * 1e3);
                            }
                        }
                    })?;
                let whole = started.elapsed().as_secs_f64() * 1e3;
                rows[i].push(Timed {
                    first_text_ms: first.unwrap_or(whole),
                    ttft_ms: turn.stats.ttft_ms,
                    prefilled: turn.stats.prefilled_tokens,
                    tools: turn.outcome.executed.len(),
                });
            }
            host.runtime.end_session(&session)?;
        }
        if !a.json {
            eprintln!("round {round} of {rounds} done");
        }
    }
    let med = porfiry_bench::median;
    let mut rows = Vec::new();
    for (i, u) in utterances.iter().enumerate() {
        let t = med(typed[i].iter().map(|x| x.first_text_ms).collect());
        let s = med(spoken[i].iter().map(|x| x.first_text_ms).collect());
        rows.push(serde_json::json!({
            "utterance": u,
            "typed_first_text_ms": t,
            "spoken_first_text_ms": s,
            "ratio": if t > 0.0 { s / t } else { 0.0 },
            "typed_ttft_ms": med(typed[i].iter().map(|x| x.ttft_ms).collect()),
            "spoken_ttft_ms": med(spoken[i].iter().map(|x| x.ttft_ms).collect()),
            "typed_prefilled": typed[i].first().map_or(0, |x| x.prefilled),
            "spoken_prefilled": spoken[i].first().map_or(0, |x| x.prefilled),
            "tools": typed[i].first().map_or(0, |x| x.tools),
            "typed": typed[i],
            "spoken": spoken[i],
        }));
    }
    let sum = |k: &str| rows.iter().filter_map(|r| r[k].as_f64()).sum::<f64>();
    let (st, ss) = (sum("typed_first_text_ms"), sum("spoken_first_text_ms"));
    if a.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({
                "rounds": rounds,
                "utterances": rows,
                "typed_first_text_sum_ms": st,
                "spoken_first_text_sum_ms": ss,
                "ratio": if st > 0.0 { ss / st } else { 0.0 },
            }))?
        );
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "first visible text after the final words, median of {rounds} rounds (ms); \
         prefilled: tokens the turn's requests prefilled (first round); tools: calls run"
    );
    println!(
        "{:<40} {:>8} {:>8} {:>6} | {:>7} {:>7} | {:>5} {:>5} | tools",
        "utterance", "typed", "spoken", "ratio", "ttft t", "ttft s", "pf t", "pf s"
    );
    for r in &rows {
        let f = |k: &str| r[k].as_f64().unwrap_or(0.0);
        println!(
            "{:<40} {:>8.1} {:>8.1} {:>6.3} | {:>7.1} {:>7.1} | {:>5} {:>5} | {}",
            r["utterance"].as_str().unwrap_or(""),
            f("typed_first_text_ms"),
            f("spoken_first_text_ms"),
            f("ratio"),
            f("typed_ttft_ms"),
            f("spoken_ttft_ms"),
            r["typed_prefilled"],
            r["spoken_prefilled"],
            r["tools"]
        );
    }
    println!(
        "Σ typed {st:.1} ms, spoken {ss:.1} ms, ratio {:.3}",
        if st > 0.0 { ss / st } else { 0.0 }
    );
    Ok(ExitCode::SUCCESS)
}
