//! Playing a dialogue through the agent loop, and the per-turn token report.

use std::fmt::Write as _;
use std::time::Instant;

use porfiry_agent::{Agent, AgentEvent, CancelToken, GenerationStats, Model, TurnStop};
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

/// One user turn: the sums over its model calls.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TurnRow {
    /// 1-based turn number.
    pub turn: usize,
    /// The user's text.
    pub user: String,
    /// Model calls in the turn.
    pub generations: usize,
    /// Whether the session's active toolsets changed during the turn.
    pub toolset_change: bool,
    /// Σ prompt tokens of the turn's requests.
    pub prompt_tokens: usize,
    /// Σ prompt tokens served from the KV cache.
    pub reused_tokens: usize,
    /// Σ prompt tokens decoded.
    pub prefilled_tokens: usize,
    /// Σ reused tokens the model decoded ahead, while idle after the previous reply
    /// (`GenerationStats::anticipated_tokens`): appended = prefilled + anticipated.
    pub anticipated_tokens: usize,
    /// Σ tokens appended since each previous request (the ideal prefill).
    pub appended_tokens: usize,
    /// Σ reply tokens (forced or sampled).
    pub generated_tokens: usize,
    /// Time to the first token of the turn's first request, ms.
    pub ttft_ms: f64,
    /// Σ time to first token over the turn's requests (all prefill waits), ms.
    pub ttft_sum_ms: f64,
    /// Wall time of the whole turn (agent loop included), ms.
    pub turn_ms: f64,
    /// Whether any request had to re-prefill in full (llama.cpp refused a partial removal).
    pub full_reprefill: bool,
}

/// Sums over the dialogue.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Totals {
    /// User turns.
    pub turns: usize,
    /// Model calls.
    pub generations: usize,
    /// Σ prompt tokens.
    pub prompt_tokens: usize,
    /// Σ reused tokens.
    pub reused_tokens: usize,
    /// Σ prefilled tokens.
    pub prefilled_tokens: usize,
    /// Σ tokens decoded ahead while idle (part of the reused ones).
    pub anticipated_tokens: usize,
    /// Σ appended tokens (the ideal prefill).
    pub appended_tokens: usize,
    /// Σ generated (forced) tokens.
    pub generated_tokens: usize,
    /// Σ first-request TTFT over turns, ms.
    pub ttft_ms: f64,
    /// Σ turn wall time, ms.
    pub turn_ms: f64,
    /// reused / prompt tokens (0 when nothing was counted).
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
    run_dialogue_with_head(dialogue, agent, model, reuse, 0, false)
}

/// The words a voice user has said just before finishing `text`: all but the last word
/// (`None` for a one-word message).
pub fn heard_before_the_end(text: &str) -> Option<&str> {
    text.trim()
        .rsplit_once(char::is_whitespace)
        .map(|(before, _)| before.trim_end())
        .filter(|s| !s.is_empty())
}

/// [`run_dialogue`] on a model that already holds the session's head of `head_tokens`
/// tokens (prepared before the dialogue, e.g. restored from a snapshot): the first request's
/// ideal prefill is what follows the head. With `speaking`, the user is modelled as a voice
/// user: before each turn the words said before the last one reach the agent as a partial
/// transcript ([`Agent::prepare_turn`], as a voice host forwards speech recognition's partial
/// results) and the model decodes them while the user "speaks".
///
/// # Errors
/// As [`run_dialogue`].
pub fn run_dialogue_with_head(
    dialogue: &Dialogue,
    agent: &mut Agent,
    model: &mut dyn Model,
    reuse: bool,
    head_tokens: usize,
    speaking: bool,
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
        if speaking {
            if let Some(partial) = heard_before_the_end(&t.user) {
                agent
                    .prepare_turn(session, partial, model)
                    .map_err(|e| BenchError::Model(format!("turn {n}: {e}")))?;
            }
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
            generations: out.generations.len(),
            toolset_change: changed,
            prompt_tokens: 0,
            reused_tokens: 0,
            prefilled_tokens: 0,
            anticipated_tokens: 0,
            appended_tokens: 0,
            generated_tokens: 0,
            ttft_ms: 0.0,
            ttft_sum_ms: 0.0,
            turn_ms,
            full_reprefill: false,
        };
        for (k, g) in out.generations.iter().enumerate() {
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
            row.prompt_tokens += stats.prompt_tokens;
            row.reused_tokens += stats.reused_tokens;
            row.prefilled_tokens += stats.prefilled_tokens;
            row.anticipated_tokens += stats.anticipated_tokens;
            row.appended_tokens += appended;
            row.generated_tokens += stats.generated_tokens;
            row.ttft_sum_ms += stats.ttft_ms;
            if k == 0 {
                row.ttft_ms = stats.ttft_ms;
            }
            row.full_reprefill |= stats.full_reprefill;
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
    let mut t = Totals {
        turns: turns.len(),
        ..Totals::default()
    };
    for r in turns {
        t.generations += r.generations;
        t.prompt_tokens += r.prompt_tokens;
        t.reused_tokens += r.reused_tokens;
        t.prefilled_tokens += r.prefilled_tokens;
        t.anticipated_tokens += r.anticipated_tokens;
        t.appended_tokens += r.appended_tokens;
        t.generated_tokens += r.generated_tokens;
        t.ttft_ms += r.ttft_ms;
        t.turn_ms += r.turn_ms;
    }
    if t.prompt_tokens > 0 {
        t.reuse_ratio = t.reused_tokens as f64 / t.prompt_tokens as f64;
    }
    t
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
            let _ = writeln!(
                s,
                "{:>4} {:>4} {:>3} {:>7} {:>7} {:>9} {:>5} {:>8} {:>6} {:>9.1} {:>9.1}  {}{}",
                r.turn,
                r.generations,
                if r.toolset_change { "*" } else { "" },
                r.prompt_tokens,
                r.reused_tokens,
                r.prefilled_tokens,
                r.anticipated_tokens,
                r.appended_tokens,
                r.generated_tokens,
                r.ttft_ms,
                r.turn_ms,
                r.user,
                if r.full_reprefill {
                    "  [full re-prefill]"
                } else {
                    ""
                }
            );
        }
        let t = &self.totals;
        let _ = writeln!(
            s,
            "{:>4} {:>4} {:>3} {:>7} {:>7} {:>9} {:>5} {:>8} {:>6} {:>9.1} {:>9.1}  total",
            t.turns,
            t.generations,
            "",
            t.prompt_tokens,
            t.reused_tokens,
            t.prefilled_tokens,
            t.anticipated_tokens,
            t.appended_tokens,
            t.generated_tokens,
            t.ttft_ms,
            t.turn_ms
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
