//! `porfiry bench dialogue`: the scripted, teacher-forced dialogue on the real engine;
//! `soak`, `head` and `cancel` beside it.

use std::fmt::Write as _;
use std::process::ExitCode;

use anyhow::Context;
use porfiry_agent::PromptLayout;
use porfiry_bench::{load_engine, play_on_engine_with, resolve_model, Dialogue, DialogueReport};
use porfiry_engine::EngineParams;

/// Arguments of `porfiry bench`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    action: Action,
}

#[derive(Debug, clap::Subcommand)]
enum Action {
    /// Play the built-in scripted dialogue (teacher-forced replies) through the agent loop and
    /// the engine; print one row per turn (prompt, reused, prefilled, appended, forced tokens,
    /// TTFT, turn time), the totals and the reuse ratio.
    Dialogue(DialogueArgs),
    /// A new session's first turn with vs without the static head's KV snapshot: the first
    /// request after a restart (snapshot restored from disk) against a cold prefill, N runs
    /// side by side; then the KV memory each session costs.
    Head(HeadArgs),
    /// A long teacher-forced conversation (the dialogue's turns over and over, long tool
    /// results) on a small context: failures, compactions, tokens prefilled and TTFT per
    /// turn, memory at the start, after the first compaction, in the middle and at the end.
    Soak(SoakArgs),
    /// Cancels at random moments of prefill and decode on random long prompts: cancel →
    /// end-of-stream latency (p50, p99, max; in ms and in token times), hangs, failed next
    /// requests, memory at the start and the end.
    Cancel(CancelArgs),
    /// A hostile caller for minutes on the real runtime behind its service (the worker the
    /// phone bridge uses): random turns from a pool of ru/en requests over a few sessions,
    /// barge-ins, cancels at random moments, partial transcripts, session ends. Reports turns
    /// served, errors by kind, cancel → end latency (p50, p99, max), hangs, RSS and threads
    /// at the start, the end and after close; a progress line every minute on stderr.
    /// Not a CI test: e.g. `porfiry bench storm --minutes 60`.
    Storm(StormArgs),
    /// What an approximate engine setting costs in behaviour (`--candidate kv-shift`:
    /// a toolset switch moves the conversation left instead of prefilling it; `kv-q8_0`,
    /// `kv-q4_0`: a quantized KV cache; `swa-window`: sliding-window layers without their
    /// full cache): the eval case files played as long conversations, greedy generations on
    /// the base settings (a reference, and a control through the same probe-then-force
    /// procedure) and with the candidate; agreement of the generations and of their first
    /// actions, and the tokens shifting saved.
    Agreement(ShiftArgs),
    /// The KV cache's settings side by side (key/value types, sliding-window layers with or
    /// without their full cache): KV bytes per token and per full session, anonymous memory
    /// the engine adds, prefill and decode speed; interleaved rounds, medians and ratios to
    /// the first configuration.
    Kv(KvArgs),
    /// The product's voice turn, free-running on the real runtime: from the final words to
    /// the first visible text, typed against spoken (partial transcripts forwarded while the
    /// user speaks, as the phone does); routing, tool calls and follow-ups included.
    Voice(super::bench_voice::VoiceArgs),
    /// The runtime on a busy machine: the scripted dialogue, cancels and closes, quiet, with
    /// other CPU-bound processes on the cores (one and two per core) and with the process
    /// narrowed to fewer CPUs; per condition the median and p95 turn, TTFT, decode speed,
    /// cancel and close latency, as ratios to quiet. `--settings 2,2-passive,1` compares
    /// thread settings side by side (each in a child process), `--build LABEL=PATH` another
    /// build (llama.cpp without OpenMP).
    Contention(super::bench_contention::ContentionArgs),
    /// The cold start, one fresh `porfiry ask` process per row, quiet and under load: model
    /// loaded, head prepared, routing's examples ready, first answer, counted from the
    /// process's start; the first run on an empty data folder (the first run ever), the
    /// others on what it kept.
    Cold(super::bench_cold::ColdArgs),
}

#[derive(Debug, clap::Args)]
struct KvArgs {
    /// Model id from the manifest or a path to a GGUF file. Default: the manifest's default.
    #[arg(long, value_name = "ID|PATH")]
    model: Option<String>,
    /// Configurations, comma-separated: f16, q8_0, q4_0, f32, each optionally `/window`
    /// (sliding-window layers keep only their window). The first is the yardstick.
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_value = "f16,q8_0,q4_0,f16/window,q8_0/window", value_parser = porfiry_bench::KvConfig::parse)]
    configs: Vec<porfiry_bench::KvConfig>,
    /// Rounds (each loads every configuration once).
    #[arg(long, value_name = "N", default_value_t = 3)]
    rounds: usize,
    /// Context size in tokens.
    #[arg(long, value_name = "N", default_value_t = 4096)]
    ctx: u32,
    /// CPU threads (default: the performance cores, else the physical cores).
    #[arg(long, value_name = "N")]
    threads: Option<u32>,
    /// Prompt length in tokens (about).
    #[arg(long, value_name = "N", default_value_t = 2048)]
    prompt_tokens: usize,
    /// Tokens decoded after the prompt.
    #[arg(long, value_name = "N", default_value_t = 64)]
    decode_tokens: usize,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, clap::Args)]
struct ShiftArgs {
    /// Model id from the manifest or a path to a GGUF file. Default: the manifest's default.
    #[arg(long, value_name = "ID|PATH")]
    model: Option<String>,
    /// CPU threads (default: the performance cores, else the physical cores).
    #[arg(long, value_name = "N")]
    threads: Option<u32>,
    /// Context size in tokens.
    #[arg(long, value_name = "N", default_value_t = 4096)]
    ctx: u32,
    /// The setting judged: kv-shift, kv-q8_0, kv-q4_0, kv-f32 or swa-window.
    #[arg(long, value_name = "NAME", default_value = "kv-shift", value_parser = porfiry_bench::Candidate::parse)]
    candidate: porfiry_bench::Candidate,
    /// Most tokens per generation (the agreement compares whole generations).
    #[arg(long, value_name = "N", default_value_t = porfiry_bench::SHIFT_MAX_TOKENS)]
    max_tokens: usize,
    /// Print the report as JSON (every model call included).
    #[arg(long)]
    json: bool,
    /// Eval case files (`porfiry eval tools` format); each is played as one conversation.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<std::path::PathBuf>,
}

#[derive(Debug, clap::Args)]
struct StormArgs {
    /// Model id from the manifest or a path to a GGUF file. Default: the manifest's default.
    #[arg(long, value_name = "ID|PATH")]
    model: Option<String>,
    /// How long to storm, in minutes (fractions allowed).
    #[arg(long, value_name = "N", default_value_t = 10.0)]
    minutes: f64,
    /// Stop once this many turns were sent (whichever of --minutes and --turns comes first).
    #[arg(long, value_name = "N")]
    turns: Option<usize>,
    /// Seed of every random choice (requests, sessions, actions, delays).
    #[arg(long, value_name = "N", default_value_t = 15)]
    seed: u64,
    /// Sessions the turns go to.
    #[arg(long, value_name = "K", default_value_t = 4)]
    sessions: usize,
    /// Sessions whose KV cache the engine keeps at once (the rest are evicted and re-prefilled).
    #[arg(long, value_name = "N", default_value_t = 2)]
    kv_sessions: u32,
    /// CPU threads (default: the performance cores, else the physical cores).
    #[arg(long, value_name = "N")]
    threads: Option<u32>,
    /// Context size in tokens.
    #[arg(long, value_name = "N", default_value_t = 2048)]
    ctx: u32,
    /// Most tokens per generation.
    #[arg(long, value_name = "N", default_value_t = 64)]
    max_tokens: usize,
    /// Print the report as JSON (the minute lines included).
    #[arg(long)]
    json: bool,
}

#[derive(Debug, clap::Args)]
struct CancelArgs {
    /// Model id from the manifest or a path to a GGUF file. Default: the manifest's default.
    #[arg(long, value_name = "ID|PATH")]
    model: Option<String>,
    /// Cancels in all, half aimed at the prefill, half at the decode.
    #[arg(long, value_name = "N", default_value_t = 1000)]
    runs: usize,
    /// CPU threads (default: the performance cores, else the physical cores).
    #[arg(long, value_name = "N")]
    threads: Option<u32>,
    /// Seed of the random prompts and delays.
    #[arg(long, value_name = "N", default_value_t = 13)]
    seed: u64,
    /// Length range of the random prompts in tokens, e.g. 200-900 (default 300-1500).
    #[arg(long, value_name = "MIN-MAX", value_parser = parse_range)]
    prompt_tokens: Option<(usize, usize)>,
    /// Print the report as JSON (every cancel included).
    #[arg(long)]
    json: bool,
}

#[derive(Debug, clap::Args)]
struct SoakArgs {
    /// Model id from the manifest or a path to a GGUF file. Default: the manifest's default.
    #[arg(long, value_name = "ID|PATH")]
    model: Option<String>,
    /// Turns to play.
    #[arg(long, value_name = "N", default_value_t = 500)]
    turns: usize,
    /// Context size in tokens.
    #[arg(long, value_name = "N", default_value_t = 1024)]
    ctx: u32,
    /// CPU threads (default: the performance cores, else the physical cores).
    #[arg(long, value_name = "N")]
    threads: Option<u32>,
    /// Print the report as JSON (every turn included).
    #[arg(long)]
    json: bool,
}

#[derive(Debug, clap::Args)]
struct HeadArgs {
    /// Model id from the manifest or a path to a GGUF file. Default: the manifest's default.
    #[arg(long, value_name = "ID|PATH")]
    model: Option<String>,
    /// Runs of each side.
    #[arg(long, value_name = "N", default_value_t = 5)]
    runs: usize,
    /// CPU threads (default: the performance cores, else the physical cores).
    #[arg(long, value_name = "N")]
    threads: Option<u32>,
    /// Context size in tokens.
    #[arg(long, value_name = "N", default_value_t = 4096)]
    ctx: u32,
    /// Where the snapshot goes (default: a fresh temporary directory, removed afterwards).
    #[arg(long, value_name = "DIR")]
    snapshot_dir: Option<std::path::PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, clap::Args)]
struct DialogueArgs {
    /// Model id from the manifest or a path to a GGUF file. Default: the manifest's default.
    #[arg(long, value_name = "ID|PATH")]
    model: Option<String>,
    /// Play only the first N turns.
    #[arg(long, value_name = "N")]
    turns: Option<usize>,
    /// Clear the KV cache before every request (the baseline).
    #[arg(long)]
    no_reuse: bool,
    /// Run with and without reuse in one process and print both side by side with ratios.
    #[arg(long, conflicts_with = "no_reuse")]
    compare: bool,
    /// Prompt layout: system_first, anchored_state, dynamic_tail, or `all` to compare them.
    #[arg(long, value_name = "LAYOUT", default_value = "default")]
    layout: String,
    /// CPU threads (default: the performance cores, else the physical cores).
    #[arg(long, value_name = "N")]
    threads: Option<u32>,
    /// CPU threads for prompt batches (prefill), when they should differ from `--threads`.
    #[arg(long, value_name = "N")]
    threads_batch: Option<u32>,
    /// Start ggml's compute threads for every graph instead of keeping thread pools
    /// attached to the context (the engine's way before pools; for comparison).
    #[arg(long)]
    no_thread_pool: bool,
    /// Context size in tokens.
    #[arg(long, value_name = "N", default_value_t = 4096)]
    ctx: u32,
    /// Print the report(s) as JSON.
    #[arg(long)]
    json: bool,
    /// Do not prepare the agent's static head before a run with reuse (by default it is, as
    /// the app does at start-up, so the first turn prefills only what follows the head).
    #[arg(long)]
    no_head: bool,
    /// Keep the head's KV snapshot in DIR (restored from there when valid).
    #[arg(long, value_name = "DIR")]
    head_snapshots: Option<std::path::PathBuf>,
    /// Model a voice user: before each turn the user's words but the last reach the agent as
    /// a partial transcript (`Agent::hear_partial`) and are decoded while they "speak"; the
    /// turn then prefills only the last word and the framing that closes the message.
    #[arg(long)]
    speaking: bool,
    /// With `--speaking`: the recognizer's last partial holds all the words (as it usually
    /// does before the final result), so the turn finds its whole prompt decoded ahead but
    /// the last token.
    #[arg(long, requires = "speaking")]
    all_heard: bool,
    /// Reuse the cache across a removed span (a toolset switch moves the conversation left
    /// instead of prefilling it again), where llama.cpp can shift the model's cache.
    #[arg(long)]
    kv_shift: bool,
    /// Write the token ids of every request of the (first) run to FILE as JSON lines
    /// (`{"prompt":[..],"reply":[..]}`): the same sequence replayed against llama-server.
    #[arg(long, value_name = "FILE")]
    trace: Option<std::path::PathBuf>,
}

/// Run `porfiry bench`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    match args.action {
        Action::Dialogue(a) => dialogue(a),
        Action::Voice(a) => super::bench_voice::run(a),
        Action::Contention(a) => super::bench_contention::run(a),
        Action::Cold(a) => super::bench_cold::run(a),
        Action::Soak(a) => {
            let report =
                porfiry_bench::run_soak(a.model.as_deref(), a.turns, a.ctx, a.threads, &mut |t| {
                    eprintln!(
                        "turn {:>4}: {} | prefilled {:>5} | TTFT {:>7.1} ms{}",
                        t.turn,
                        t.stop,
                        t.stats.prefilled_tokens,
                        t.stats.ttft_ms,
                        if t.stats.compactions > 0 {
                            " | compacted"
                        } else {
                            ""
                        }
                    )
                })?;
            if a.json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                print!("{}", report.table());
            }
            Ok(if report.failures == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        Action::Storm(a) => storm(a),
        Action::Cancel(a) => {
            let bench = porfiry_bench::CancelBench {
                model: a.model,
                runs: a.runs,
                threads: a.threads,
                seed: a.seed,
                prompt_tokens: a.prompt_tokens.unwrap_or(porfiry_bench::PROMPT_TOKENS),
            };
            let report = porfiry_bench::run_cancel(&bench, &mut |r| {
                eprintln!(
                    "cancel {:>4}: {:?} → {:?} | prompt {:>5} prefilled {:>5} generated {:>3} | {:>7.2} ms = {:.2} token times{}{}",
                    r.run,
                    r.aimed,
                    r.landed,
                    r.prompt_tokens,
                    r.prefilled_tokens,
                    r.generated_tokens,
                    r.latency_ms,
                    r.latency_ms / r.token_ms.max(f64::MIN_POSITIVE),
                    if r.hang { " | HANG" } else { "" },
                    r.next_problem
                        .as_deref()
                        .map_or(String::new(), |p| format!(" | next request: {p}")),
                )
            })?;
            if a.json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                print!("{}", report.table());
            }
            Ok(if report.hangs == 0 && report.failed_next == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        Action::Agreement(a) => agreement(a),
        Action::Kv(a) => {
            let bench = porfiry_bench::KvBench {
                model: resolve_model(a.model.as_deref())?,
                params: EngineParams {
                    n_ctx: a.ctx,
                    threads: a.threads,
                    ..EngineParams::default()
                },
                configs: a.configs,
                rounds: a.rounds,
                prompt_tokens: a.prompt_tokens,
                decode_tokens: a.decode_tokens,
            };
            let report = porfiry_bench::run_kv(&bench, &mut |line| eprintln!("{line}"))?;
            if a.json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                print!("{}", report.table());
            }
            Ok(ExitCode::SUCCESS)
        }
        Action::Head(a) => {
            let report = porfiry_bench::run_head(
                a.model.as_deref(),
                a.runs,
                a.threads,
                a.ctx,
                a.snapshot_dir,
            )?;
            if a.json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                print!("{}", report.table());
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn agreement(a: ShiftArgs) -> anyhow::Result<ExitCode> {
    let mut files = Vec::new();
    for path in &a.files {
        files.push(porfiry_bench::eval::load_eval_file(path)?);
    }
    let bench = porfiry_bench::ShiftBench {
        model: resolve_model(a.model.as_deref())?,
        params: EngineParams {
            n_ctx: a.ctx,
            threads: a.threads,
            ..EngineParams::default()
        },
        candidate: a.candidate,
        files,
        defaults: porfiry_bench::eval::EvalPlan::builtin_folders()?,
        max_tokens: a.max_tokens,
    };
    let report = porfiry_bench::run_shift(&bench, &mut |line| eprintln!("{line}"))?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", report.text());
    }
    Ok(ExitCode::SUCCESS)
}

/// `porfiry bench storm`: exits 1 unless the storm went clean (no unfinished turn, no
/// hang, no turn error, no refused call).
fn storm(a: StormArgs) -> anyhow::Result<ExitCode> {
    let bench = porfiry_bench::StormBench {
        model: a.model,
        minutes: a.minutes,
        turns: a.turns,
        seed: a.seed,
        sessions: a.sessions,
        kv_sessions: a.kv_sessions,
        threads: a.threads,
        ctx: a.ctx,
        max_tokens: a.max_tokens,
    };
    let report = porfiry_bench::run_storm(&bench, &mut |m| {
        eprintln!(
            "storm {:>5.1} min: sent {} ended {} answered {} | cancels {} | errors {} | cancel p99 {:.1} ms | RSS {} MB (anon {} MB) | {} threads",
            m.minute,
            m.sent,
            m.ended,
            m.answered,
            m.cancels,
            m.errors,
            m.cancel_p99_ms,
            m.rss_kb / 1024,
            m.rss_anon_kb / 1024,
            m.threads
        )
    })?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", report.table());
    }
    Ok(if report.clean() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn layouts(name: &str) -> anyhow::Result<Vec<PromptLayout>> {
    Ok(match name {
        "all" => PromptLayout::ALL.to_vec(),
        "default" => vec![PromptLayout::default()],
        other => vec![other.parse::<PromptLayout>().map_err(anyhow::Error::msg)?],
    })
}

fn dialogue(a: DialogueArgs) -> anyhow::Result<ExitCode> {
    let dialogue = Dialogue::builtin()?.take(a.turns)?;
    let layouts = layouts(&a.layout)?;
    let model = resolve_model(a.model.as_deref())?;
    let params = EngineParams {
        n_ctx: a.ctx,
        threads: a.threads,
        threads_batch: a.threads_batch,
        thread_pool: !a.no_thread_pool,
        snapshot_dir: a.head_snapshots.clone(),
        kv_shift: a.kv_shift,
        ..EngineParams::default()
    };
    let mut engine =
        load_engine(&model, params).with_context(|| format!("loading {}", model.path.display()))?;
    let modes: Vec<bool> = if a.compare {
        vec![true, false]
    } else {
        vec![!a.no_reuse]
    };
    let speaking = match (a.speaking, a.all_heard) {
        (false, _) => porfiry_bench::Speaking::Typed,
        (true, false) => porfiry_bench::Speaking::LastWordLate,
        (true, true) => porfiry_bench::Speaking::AllHeard,
    };
    let mut reports = Vec::new();
    for layout in &layouts {
        for reuse in &modes {
            let first = reports.is_empty();
            let t = first && a.trace.is_some();
            let (report, trace, back) =
                play_on_engine_with(&dialogue, *layout, engine, *reuse, !a.no_head, speaking, t)?;
            engine = back;
            if let (true, Some(path)) = (first, &a.trace) {
                let mut lines = String::new();
                for entry in &trace {
                    lines.push_str(&serde_json::to_string(entry)?);
                    lines.push('\n');
                }
                std::fs::write(path, lines)
                    .with_context(|| format!("writing {}", path.display()))?;
            }
            reports.push(report);
        }
    }
    if a.json {
        let mut value = if reports.len() == 1 {
            serde_json::to_value(&reports[0])?
        } else {
            serde_json::json!({ "runs": reports })
        };
        // The process's memory after the dialogue (as `ps` counts it) and at its peak, to
        // set beside llama-server's after the same tokens (`benches/llama-tools.sh`).
        if let Some(map) = value.as_object_mut() {
            map.insert(
                "process".into(),
                serde_json::json!({
                    "rss_kb": porfiry_bench::status_kb("VmRSS:"),
                    "rss_anon_kb": porfiry_bench::status_kb("RssAnon:"),
                    "peak_rss_kb": porfiry_bench::status_kb("VmHWM:"),
                }),
            );
        }
        println!("{}", serde_json::to_string_pretty(&value)?);
        return Ok(ExitCode::SUCCESS);
    }
    let info = engine.info();
    println!(
        "model: {} ({} threads, {} for batches, thread pool {}, n_ctx {}, swa_full {}, kv_shift {})",
        info.path.display(),
        info.threads,
        info.threads_batch,
        info.thread_pool,
        info.n_ctx,
        info.swa_full,
        info.kv_shift
    );
    for r in &reports {
        if let Some(h) = r.head.as_object() {
            println!(
                "\nhead prepared before the dialogue: {} tokens, {} in {:.1} ms",
                h.get("tokens")
                    .and_then(serde_json::Value::as_u64)
                    .unwrap_or(0),
                h.get("source")
                    .and_then(serde_json::Value::as_str)
                    .unwrap_or("?"),
                h.get("ms")
                    .and_then(serde_json::Value::as_f64)
                    .unwrap_or(0.0)
            );
        }
        println!("\n{}", r.table());
    }
    if a.compare {
        for pair in reports.chunks(2) {
            println!("\n{}", side_by_side(&pair[0], &pair[1]));
        }
    }
    if reports.len() > 1 {
        println!("\n{}", summary(&reports));
    }
    Ok(ExitCode::SUCCESS)
}

/// Per turn: TTFT and prefill with reuse vs without, and their ratios.
fn side_by_side(with: &DialogueReport, without: &DialogueReport) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "layout {}: with reuse vs without (cache cleared before every request)",
        with.layout
    );
    let _ = writeln!(
        s,
        "{:>4} {:>10} {:>10} {:>7} {:>9} {:>9} {:>7}",
        "turn", "prefill", "prefill/0", "ratio", "TTFT ms", "TTFT/0", "ratio"
    );
    let mut row = |label: &dyn std::fmt::Display, pw: usize, po: usize, tw: f64, to: f64| {
        let _ = writeln!(
            s,
            "{label:>4} {pw:>10} {po:>10} {:>7.3} {tw:>9.1} {to:>9.1} {:>7.3}",
            ratio(pw as f64, po as f64),
            ratio(tw, to)
        );
    };
    for (w, o) in with.turns.iter().zip(&without.turns) {
        row(
            &w.turn,
            w.stats.prefilled_tokens,
            o.stats.prefilled_tokens,
            w.stats.ttft_ms,
            o.stats.ttft_ms,
        );
    }
    let (w, o) = (&with.totals.sums, &without.totals.sums);
    row(
        &"all",
        w.prefilled_tokens,
        o.prefilled_tokens,
        w.ttft_ms,
        o.ttft_ms,
    );
    s
}

/// One line per run: totals.
fn summary(reports: &[DialogueReport]) -> String {
    let mut s = String::from("summary:\n");
    let _ = writeln!(
        s,
        "{:<16} {:>6} {:>8} {:>9} {:>9} {:>7} {:>10} {:>10}",
        "layout", "reuse", "prompt", "prefilled", "appended", "ratio", "TTFT Σ ms", "turns Σ ms"
    );
    for r in reports {
        let t = &r.totals;
        let _ = writeln!(
            s,
            "{:<16} {:>6} {:>8} {:>9} {:>9} {:>7.3} {:>10.1} {:>10.1}",
            r.layout,
            if r.reuse { "on" } else { "off" },
            t.sums.prompt_tokens,
            t.sums.prefilled_tokens,
            t.appended_tokens,
            t.reuse_ratio,
            t.sums.ttft_ms,
            t.sums.turn_ms
        );
    }
    s
}

fn ratio(a: f64, b: f64) -> f64 {
    if b > 0.0 {
        a / b
    } else {
        0.0
    }
}

/// `MIN-MAX` (two token counts, MIN ≥ 16, MIN ≤ MAX).
fn parse_range(text: &str) -> Result<(usize, usize), String> {
    let bad = || format!("'{text}': expected MIN-MAX, two token counts such as 200-900");
    let (lo, hi) = text.split_once('-').ok_or_else(bad)?;
    let lo: usize = lo.trim().parse().map_err(|_| bad())?;
    let hi: usize = hi.trim().parse().map_err(|_| bad())?;
    if lo < 16 || lo > hi {
        return Err(format!(
            "'{text}': MIN must be at least 16 and not above MAX"
        ));
    }
    Ok((lo, hi))
}

#[cfg(test)]
mod tests {
    use super::parse_range;

    #[test]
    fn a_prompt_range_is_two_ordered_counts() {
        assert_eq!(parse_range("200-900"), Ok((200, 900)));
        assert_eq!(parse_range(" 16 - 16 "), Ok((16, 16)));
        for bad in ["900-200", "8-100", "200", "a-b", "-5", "200-"] {
            assert!(parse_range(bad).is_err(), "{bad} was accepted");
        }
    }
}
