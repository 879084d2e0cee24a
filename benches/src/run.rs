//! Playing a dialogue through the agent loop, and the per-turn token report.

use std::fmt::Write as _;
use std::time::Instant;

use porfiry_agent::{Agent, AgentEvent, CancelToken, GenerationStats, Model, TurnStop};
use porfiry_runtime::{TurnStats, TurnTotals};
use serde::Serialize;

use crate::dialogue::Dialogue;
use crate::error::BenchError;

/// One model call.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GenerationRow {
    /// 1-based turn number.
    pub turn: usize,
    /// Whether the agent discarded it (it only switched toolsets) and generated again.
    pub discarded: bool,
    /// The tokens appended since the previous request of the session: what a perfect cache
    /// would prefill (new messages + chat framing; at least 1). 0 when the model reports no
    /// token counts.
    pub appended_tokens: usize,
    /// The model's accounting (zeros when the model measures nothing).
    pub stats: GenerationStats,
}

/// One user turn: its figures ([`TurnStats`], the one definition every host reports —
/// serialized flat, under the same names as the CLI's `--json` and the bridge's `onDone`) and
/// what only the benchmark knows.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TurnRow {
    /// 1-based turn number.
    pub turn: usize,
    /// The user's text.
    pub user: String,
    /// Whether the session's active toolsets changed during the turn.
    pub toolset_change: bool,
    /// Σ tokens appended since each previous request (the ideal prefill):
    /// appended = prefilled + anticipated when the cache is exact.
    pub appended_tokens: usize,
    /// The turn's figures (`prompt_tokens` etc. are sums over its requests; `ttft_ms` is the
    /// first request's, `ttft_sum_ms` all prefill waits; `turn_ms` the whole turn).
    #[serde(flatten)]
    pub stats: TurnStats,
}

/// Sums over the dialogue: the turns' figures summed by the runtime's [`TurnTotals`] (the
/// one definition of every per-turn figure and of its sum), and what only the benchmark knows.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Totals {
    /// Σ of every turn's figures (`turns`, `generations`, `prompt_tokens`, …, `ttft_ms`: the
    /// first requests' TTFT summed over turns, `turn_ms`), serialized flat.
    #[serde(flatten)]
    pub sums: TurnTotals,
    /// Σ appended tokens (the ideal prefill).
    pub appended_tokens: usize,
    /// reused / prompt tokens (0 when nothing was counted): [`TurnTotals::reuse_ratio`].
    pub reuse_ratio: f64,
}

/// The result of playing a dialogue.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DialogueReport {
    /// The dialogue's name.
    pub dialogue: String,
    /// The prompt layout the agent used.
    pub layout: String,
    /// Whether the KV cache was kept between requests (false: cleared before each).
    pub reuse: bool,
    /// Free-form facts about the model and engine, filled in by the host.
    pub model: serde_json::Value,
    /// The head prepared before the dialogue (tokens, source, time), filled in by the host;
    /// null when none was.
    pub head: serde_json::Value,
    /// One row per turn.
    pub turns: Vec<TurnRow>,
    /// One row per model call.
    pub generations: Vec<GenerationRow>,
    /// Sums.
    pub totals: Totals,
}

/// Play `dialogue` on `agent` with `model` (which must force the dialogue's replies in
/// order, e.g. a [`crate::ForcedModel`]). Every turn must answer with exactly as many model
/// calls as the script has replies, and end with the expected active toolsets.
///
/// # Errors
/// [`BenchError::OutOfStep`] when the agent and the script disagree, [`BenchError::Model`]
/// when the model fails.
pub fn run_dialogue(
    dialogue: &Dialogue,
    agent: &mut Agent,
    model: &mut dyn Model,
    reuse: bool,
) -> Result<DialogueReport, BenchError> {
    run_dialogue_with_head(dialogue, agent, model, reuse, 0, Speaking::Typed)
}

/// The words a voice user has said just before finishing `text`: all but the last word
/// (`None` for a one-word message).
pub fn heard_before_the_end(text: &str) -> Option<&str> {
    text.trim()
        .rsplit_once(char::is_whitespace)
        .map(|(before, _)| before.trim_end())
        .filter(|s| !s.is_empty())
}

/// How the user of a played dialogue speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Speaking {
    /// Typed: each message arrives whole, nothing is heard before it.
    #[default]
    Typed,
    /// A voice user whose recognizer's last partial transcript holds the words before the
    /// last one ([`heard_before_the_end`]): the request brings the last word.
    LastWordLate,
    /// A voice user whose recognizer's partials hold the words before the last one, then
    /// the whole message (as a recognizer's last partial usually does before the final
    /// result after the end-of-speech pause): the request brings nothing new.
    AllHeard,
}

/// [`run_dialogue`] on a model that already holds the session's head of `head_tokens`
/// tokens (prepared before the dialogue, e.g. restored from a snapshot): the first request's
/// ideal prefill is what follows the head. With `speaking` other than [`Speaking::Typed`],
/// the user is modelled as a voice user: before each turn the words said before the last one
/// (and with [`Speaking::AllHeard`] then all of them) reach the agent as partial transcripts
/// ([`Agent::hear_partial`], as a voice host forwards speech recognition's partial results)
/// and the model decodes them while the user "speaks".
///
/// # Errors
/// As [`run_dialogue`].
pub fn run_dialogue_with_head(
    dialogue: &Dialogue,
    agent: &mut Agent,
    model: &mut dyn Model,
    reuse: bool,
    head_tokens: usize,
    speaking: Speaking,
) -> Result<DialogueReport, BenchError> {
    let session = dialogue.session.as_str();
    let cancel = CancelToken::new();
    let mut turns = Vec::new();
    let mut generations: Vec<GenerationRow> = Vec::new();
    // KV length after the previous request of the session (prompt + reply tokens).
    let mut kv_after: Option<usize> = (head_tokens > 0).then_some(head_tokens);
    for (i, t) in dialogue.turns.iter().enumerate() {
        let n = i + 1;
        let out_of_step = |reason: String| BenchError::OutOfStep {
            turn: n,
            user: t.user.clone(),
            reason,
        };
        let mut partials: Vec<&str> = Vec::new();
        if speaking != Speaking::Typed {
            partials.extend(heard_before_the_end(&t.user));
        }
        if speaking == Speaking::AllHeard {
            partials.push(&t.user);
        }
        for partial in partials {
            agent
                .hear_partial(session, partial, model)
                .map_err(|e| BenchError::Model(format!("turn {n}: {e}")))?;
        }
        // The user's pause before speaking: the model finishes its idle-time work (the
        // framing of the next message), as it would while a real user talks.
        model
            .settle()
            .map_err(|e| BenchError::Model(format!("turn {n}: {e}")))?;
        let mut changed = false;
        let started = Instant::now();
        let out = agent
            .turn(session, &t.user, model, &cancel, &mut |e| {
                if matches!(
                    e,
                    AgentEvent::ToolsetEnabled { .. } | AgentEvent::ToolsetDisabled { .. }
                ) {
                    changed = true;
                }
            })
            .map_err(|e| out_of_step(e.to_string()))?;
        let turn_ms = started.elapsed().as_secs_f64() * 1e3;
        match &out.stop {
            TurnStop::Answered => {}
            TurnStop::ModelError(e) => return Err(BenchError::Model(format!("turn {n}: {e}"))),
            other => return Err(out_of_step(format!("the turn ended with {other:?}"))),
        }
        if out.generations.len() != t.replies.len() {
            return Err(out_of_step(format!(
                "{} model calls, the script has {} replies",
                out.generations.len(),
                t.replies.len()
            )));
        }
        if let Some(expected) = &t.expect_active {
            let active = agent.active_toolsets(session);
            if &active != expected {
                return Err(out_of_step(format!(
                    "active toolsets {active:?}, expected {expected:?}"
                )));
            }
        }
        let mut row = TurnRow {
            turn: n,
            user: t.user.clone(),
            toolset_change: changed,
            appended_tokens: 0,
            stats: TurnStats::of(&out, turn_ms),
        };
        for g in &out.generations {
            let stats = g.stats.clone().unwrap_or_default();
            let appended = if stats.prompt_tokens == 0 {
                0
            } else {
                stats
                    .prompt_tokens
                    .saturating_sub(kv_after.unwrap_or(0))
                    .max(1)
            };
            if stats.prompt_tokens > 0 {
                kv_after = Some(stats.prompt_tokens + stats.generated_tokens);
            }
            row.appended_tokens += appended;
            generations.push(GenerationRow {
                turn: n,
                discarded: g.discarded,
                appended_tokens: appended,
                stats,
            });
        }
        turns.push(row);
    }
    let totals = totals(&turns);
    Ok(DialogueReport {
        dialogue: dialogue.name.clone(),
        layout: agent.config().layout.to_string(),
        reuse,
        model: serde_json::Value::Null,
        head: serde_json::Value::Null,
        turns,
        generations,
        totals,
    })
}

fn totals(turns: &[TurnRow]) -> Totals {
    let sums: TurnTotals = turns.iter().map(|r| &r.stats).collect();
    Totals {
        appended_tokens: turns.iter().map(|r| r.appended_tokens).sum(),
        reuse_ratio: sums.reuse_ratio(),
        sums,
    }
}

impl DialogueReport {
    /// The report as a text table: one row per turn, then the totals.
    pub fn table(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "dialogue: {} | layout: {} | reuse: {}",
            self.dialogue,
            self.layout,
            if self.reuse {
                "on"
            } else {
                "off (cache cleared before every request)"
            }
        );
        let _ = writeln!(
            s,
            "{:>4} {:>4} {:>3} {:>7} {:>7} {:>9} {:>5} {:>8} {:>6} {:>9} {:>9}  user",
            "turn",
            "gens",
            "ts",
            "prompt",
            "reused",
            "prefilled",
            "ahead",
            "appended",
            "forced",
            "TTFT ms",
            "turn ms"
        );
        for r in &self.turns {
            let st = &r.stats;
            let _ = writeln!(
                s,
                "{:>4} {:>4} {:>3} {:>7} {:>7} {:>9} {:>5} {:>8} {:>6} {:>9.1} {:>9.1}  {}{}",
                r.turn,
                st.generations,
                if r.toolset_change { "*" } else { "" },
                st.prompt_tokens,
                st.reused_tokens,
                st.prefilled_tokens,
                st.anticipated_tokens,
                r.appended_tokens,
                st.generated_tokens,
                st.ttft_ms,
                st.turn_ms,
                r.user,
                if st.full_reprefills > 0 {
                    "  [full re-prefill]"
                } else {
                    ""
                }
            );
        }
        let (t, sums) = (&self.totals, &self.totals.sums);
        let _ = writeln!(
            s,
            "{:>4} {:>4} {:>3} {:>7} {:>7} {:>9} {:>5} {:>8} {:>6} {:>9.1} {:>9.1}  total",
            sums.turns,
            sums.generations,
            "",
            sums.prompt_tokens,
            sums.reused_tokens,
            sums.prefilled_tokens,
            sums.anticipated_tokens,
            t.appended_tokens,
            sums.generated_tokens,
            sums.ttft_ms,
            sums.turn_ms
        );
        let _ = writeln!(
            s,
            "reuse ratio (reused / prompt tokens): {:.3}   (ts *: the turn changed the active toolsets; \
             appended: tokens new since the previous request = the ideal prefill; \
             ahead: of the reused, decoded ahead while idle: the framing after the previous reply, and \
             with --speaking the words heard before the last one)",
            t.reuse_ratio
        );
        s
    }
}

/// One model request of the dialogue, as the agent makes it, with its forced reply.
#[derive(Debug, Clone, PartialEq)]
pub struct ScriptedRequest {
    /// 1-based turn number.
    pub turn: usize,
    /// The system text.
    pub system: String,
    /// The messages.
    pub messages: Vec<porfiry_agent::Message>,
    /// The reply forced for it.
    pub reply: String,
}

/// Every request the agent makes while playing `dialogue` in `layout` (no model involved:
/// a scripted model records them). Benchmarks replay single requests from this list.
///
/// # Errors
/// What [`run_dialogue`] reports.
pub fn scripted_requests(
    dialogue: &Dialogue,
    layout: porfiry_agent::PromptLayout,
) -> Result<Vec<ScriptedRequest>, BenchError> {
    let mut agent = dialogue.agent(layout)?;
    let mut model = crate::ForcedModel::new(
        porfiry_agent::ScriptedModel::new(Vec::<String>::new()),
        dialogue.replies(),
    );
    let report = run_dialogue(dialogue, &mut agent, &mut model, true)?;
    let recorded = model.into_inner().requests().to_vec();
    Ok(recorded
        .into_iter()
        .zip(dialogue.replies())
        .zip(&report.generations)
        .map(|((r, reply), g)| ScriptedRequest {
            turn: g.turn,
            system: r.system,
            messages: r.messages,
            reply: reply.to_string(),
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::heard_before_the_end;

    #[test]
    fn the_words_before_the_last_one() {
        assert_eq!(
            heard_before_the_end("Найди фильм про Лару Крофт."),
            Some("Найди фильм про Лару")
        );
        assert_eq!(heard_before_the_end("Пока!"), None);
        assert_eq!(heard_before_the_end("  Включи   его.  "), Some("Включи"));
        assert_eq!(heard_before_the_end(""), None);
    }
}
