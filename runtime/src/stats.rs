//! One definition of every per-turn figure, shared by every host: the CLI's stats line and
//! `--json`, the bridge's `onDone` JSON and the benchmark rows.
//!
//! A turn makes one or more requests (a tool call means a follow-up request). Figures that
//! add up over the requests are sums (`prompt_tokens` = Σ prompt tokens, so `prompt_tokens
//! == reused_tokens + prefilled_tokens` always holds); the figures of one request say which
//! (`last_prompt_tokens`: the last request's prompt, i.e. how full the context is;
//! `ttft_ms`: the first request's time to first token). Over several turns, [`TurnTotals`]
//! sums them field by field.

use porfiry_agent::{GenerationStats, TurnOutcome, TurnStop};

/// Token and time accounting of one turn, summed over its generations.
#[derive(Debug, Default, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TurnStats {
    /// Model calls in the turn (discarded ones included).
    pub generations: usize,
    /// Of those, generations thrown away and generated again (they only switched toolsets).
    pub discarded: usize,
    /// Σ prompt tokens over the turn's requests (= `reused_tokens + prefilled_tokens`).
    pub prompt_tokens: usize,
    /// Prompt tokens of the turn's last request (the conversation's size in the context).
    pub last_prompt_tokens: usize,
    /// Σ prompt tokens served from the KV cache.
    pub reused_tokens: usize,
    /// Σ prompt tokens decoded for the requests.
    pub prefilled_tokens: usize,
    /// Σ reused tokens the model decoded ahead while idle (the framing after the previous
    /// reply, the words of a partial transcript).
    pub anticipated_tokens: usize,
    /// Σ reused tokens restored from the static head's snapshot.
    pub head_tokens: usize,
    /// Σ reply tokens generated (or teacher-forced).
    pub generated_tokens: usize,
    /// Time to the first token of the turn's first request, ms.
    pub ttft_ms: f64,
    /// Σ time to the first token over the turn's requests (every prefill wait), ms.
    pub ttft_sum_ms: f64,
    /// Prefill speed over all the turn's requests, tokens/s (0 when nothing was prefilled).
    pub prefill_tps: f64,
    /// Decode speed over all the turn's requests, tokens/s (0 when nothing was generated).
    pub decode_tps: f64,
    /// Σ wall time of the generations, ms.
    pub generation_ms: f64,
    /// Wall time of the whole turn (agent loop and tools included), ms; 0 when not measured.
    pub turn_ms: f64,
    /// Requests whose prompt had to be prefilled in full (the KV cache refused a trim).
    pub full_reprefills: usize,
    /// Times this turn's request was compacted to fit the context (0 on an unbounded model
    /// and on most turns of a bounded one: one compaction makes room for many turns).
    pub compactions: usize,
    /// Tokens the compactions took out of the request.
    pub tokens_dropped: usize,
    /// Of `prefilled_tokens`, those prefilled because of a compaction (the turn's prefill
    /// when it compacted; 0 otherwise).
    pub compaction_prefilled: usize,
    /// Tokens of the turn's last request as the agent measured them against the context.
    pub request_tokens: usize,
    /// Whether the reply was cut short because the context ran out under it.
    pub reply_cut_by_context: bool,
    /// Why the turn ended: `answered`, `max_iterations`, `cancelled`, `deadline`,
    /// `model_error` (empty for a turn that never ran).
    #[serde(default)]
    pub stop_reason: String,
    /// Whether the user interrupted the reply.
    #[serde(default)]
    pub interrupted: bool,
    /// The tools the turn ran, in order, with how long each took.
    #[serde(default)]
    pub tools: Vec<ToolTime>,
    /// Requests of the turn that carried a reminder (a long turn).
    #[serde(default)]
    pub reminders: usize,
}

/// One tool run of a turn ([`TurnStats::tools`]).
#[derive(Debug, Default, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ToolTime {
    /// The tool.
    pub name: String,
    /// How long it ran, ms.
    pub ms: u64,
    /// Whether it succeeded.
    pub ok: bool,
}

/// The name of a turn's stop as hosts report it ([`TurnStop::name`]).
pub fn stop_name(stop: &TurnStop) -> &'static str {
    stop.name()
}

impl TurnStats {
    /// The figures of `outcome`, with `turn_ms` the turn's measured wall time (0 if unknown).
    /// Generations the model did not measure count in `generations` only.
    pub fn of(outcome: &TurnOutcome, turn_ms: f64) -> Self {
        let mut s = TurnStats {
            generations: outcome.generations.len(),
            discarded: outcome.generations.iter().filter(|g| g.discarded).count(),
            turn_ms,
            stop_reason: stop_name(&outcome.stop).to_string(),
            interrupted: outcome.interrupted,
            tools: outcome
                .executed
                .iter()
                .map(|e| ToolTime {
                    name: e.name.clone(),
                    ms: e.ms,
                    ok: e.ok,
                })
                .collect(),
            reminders: outcome.reminders,
            ..TurnStats::default()
        };
        let measured: Vec<&GenerationStats> = outcome
            .generations
            .iter()
            .filter_map(|g| g.stats.as_ref())
            .collect();
        let (mut prefill_s, mut decode_s) = (0.0, 0.0);
        for (i, g) in measured.iter().enumerate() {
            if i == 0 {
                s.ttft_ms = g.ttft_ms;
            }
            s.last_prompt_tokens = g.prompt_tokens;
            s.prompt_tokens += g.prompt_tokens;
            s.reused_tokens += g.reused_tokens;
            s.prefilled_tokens += g.prefilled_tokens;
            s.anticipated_tokens += g.anticipated_tokens;
            s.head_tokens += g.head_tokens;
            s.generated_tokens += g.generated_tokens;
            s.ttft_sum_ms += g.ttft_ms;
            s.generation_ms += g.total_ms;
            s.full_reprefills += usize::from(g.full_reprefill);
            if g.prefill_tps > 0.0 {
                prefill_s += g.prefilled_tokens as f64 / g.prefill_tps;
            }
            if g.decode_tps > 0.0 {
                decode_s += g.generated_tokens as f64 / g.decode_tps;
            }
        }
        if prefill_s > 0.0 {
            s.prefill_tps = s.prefilled_tokens as f64 / prefill_s;
        }
        let c = &outcome.context;
        s.compactions = c.compactions;
        s.tokens_dropped = c.tokens_dropped;
        s.request_tokens = c.request_tokens;
        s.reply_cut_by_context = c.reply_cut_by_context;
        if c.compactions > 0 {
            s.compaction_prefilled = s.prefilled_tokens;
        }
        if decode_s > 0.0 {
            s.decode_tps = s.generated_tokens as f64 / decode_s;
        }
        s
    }

    /// Whether any generation of the turn was measured (a scripted model measures nothing).
    pub fn measured(&self) -> bool {
        self.prompt_tokens > 0 || self.generated_tokens > 0
    }

    /// The one-line summary hosts print after a reply (the CLI's stats line).
    pub fn line(&self) -> String {
        let mut line = format!(
            "[{} generation{}: prompt {} tok (last request {}), reused {}{}, prefilled {}, generated {} | TTFT {:.0} ms | prefill {:.0} tok/s, decode {:.1} tok/s | {:.2} s",
            self.generations,
            if self.generations == 1 { "" } else { "s" },
            self.prompt_tokens,
            self.last_prompt_tokens,
            self.reused_tokens,
            if self.anticipated_tokens > 0 {
                format!(" ({} decoded ahead)", self.anticipated_tokens)
            } else {
                String::new()
            },
            self.prefilled_tokens,
            self.generated_tokens,
            self.ttft_ms,
            self.prefill_tps,
            self.decode_tps,
            if self.turn_ms > 0.0 {
                self.turn_ms
            } else {
                self.generation_ms
            } / 1000.0
        );
        if self.full_reprefills > 0 {
            line.push_str(&format!(" | {} full re-prefill(s)", self.full_reprefills));
        }
        if self.compactions > 0 {
            line.push_str(&format!(
                " | compacted: {} tokens left out, {} re-prefilled",
                self.tokens_dropped, self.compaction_prefilled
            ));
        }
        if self.reply_cut_by_context {
            line.push_str(" | reply cut short by the context");
        }
        if !self.tools.is_empty() {
            let tools: Vec<String> = self
                .tools
                .iter()
                .map(|t| {
                    format!(
                        "{} {} ms{}",
                        t.name,
                        t.ms,
                        if t.ok { "" } else { " (failed)" }
                    )
                })
                .collect();
            line.push_str(&format!(" | tools: {}", tools.join(", ")));
        }
        if !self.stop_reason.is_empty() && self.stop_reason != "answered" {
            line.push_str(&format!(" | stop: {}", self.stop_reason));
        }
        line.push(']');
        line
    }
}

/// Sums of per-turn figures over several turns (a played dialogue, a soak run): each field
/// is the Σ over the turns of the [`TurnStats`] field of the same name, so a total means what
/// the per-turn figure means. Built with [`TurnTotals::add`] or collected from an iterator
/// of [`TurnStats`].
#[derive(Debug, Default, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TurnTotals {
    /// Turns summed.
    pub turns: usize,
    /// Σ [`TurnStats::generations`] (model calls).
    pub generations: usize,
    /// Σ [`TurnStats::prompt_tokens`].
    pub prompt_tokens: usize,
    /// Σ [`TurnStats::reused_tokens`].
    pub reused_tokens: usize,
    /// Σ [`TurnStats::prefilled_tokens`].
    pub prefilled_tokens: usize,
    /// Σ [`TurnStats::anticipated_tokens`] (decoded ahead while idle; part of the reused).
    pub anticipated_tokens: usize,
    /// Σ [`TurnStats::generated_tokens`].
    pub generated_tokens: usize,
    /// Σ [`TurnStats::ttft_ms`]: each turn's first-request time to first token, ms.
    pub ttft_ms: f64,
    /// Σ [`TurnStats::turn_ms`], ms.
    pub turn_ms: f64,
}

impl TurnTotals {
    /// Adds one turn's figures.
    pub fn add(&mut self, turn: &TurnStats) {
        self.turns += 1;
        self.generations += turn.generations;
        self.prompt_tokens += turn.prompt_tokens;
        self.reused_tokens += turn.reused_tokens;
        self.prefilled_tokens += turn.prefilled_tokens;
        self.anticipated_tokens += turn.anticipated_tokens;
        self.generated_tokens += turn.generated_tokens;
        self.ttft_ms += turn.ttft_ms;
        self.turn_ms += turn.turn_ms;
    }

    /// reused / prompt tokens: the share of the prompts the KV cache served (0 when nothing
    /// was counted).
    pub fn reuse_ratio(&self) -> f64 {
        if self.prompt_tokens > 0 {
            self.reused_tokens as f64 / self.prompt_tokens as f64
        } else {
            0.0
        }
    }
}

impl<'a> FromIterator<&'a TurnStats> for TurnTotals {
    fn from_iter<I: IntoIterator<Item = &'a TurnStats>>(turns: I) -> Self {
        let mut totals = TurnTotals::default();
        for t in turns {
            totals.add(t);
        }
        totals
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use porfiry_agent::{GenerationRecord, StopReason, TurnStop};

    fn gen(prompt: usize, reused: usize, generated: usize, ttft: f64) -> GenerationRecord {
        GenerationRecord {
            stop: StopReason::EndOfTurn,
            stats: Some(GenerationStats {
                prompt_tokens: prompt,
                reused_tokens: reused,
                prefilled_tokens: prompt - reused,
                generated_tokens: generated,
                ttft_ms: ttft,
                prefill_tps: 100.0,
                decode_tps: 10.0,
                total_ms: 50.0,
                anticipated_tokens: 2,
                head_tokens: 1,
                ..GenerationStats::default()
            }),
            discarded: false,
        }
    }

    fn outcome(generations: Vec<GenerationRecord>) -> TurnOutcome {
        TurnOutcome {
            stop: TurnStop::Answered,
            generations,
            ..TurnOutcome::new()
        }
    }

    #[test]
    fn sums_and_last_request_figures_are_named_apart() {
        let s = TurnStats::of(
            &outcome(vec![gen(200, 190, 5, 30.0), gen(230, 205, 7, 20.0)]),
            400.0,
        );
        assert_eq!(s.generations, 2);
        assert_eq!(s.prompt_tokens, 430);
        assert_eq!(s.last_prompt_tokens, 230);
        assert_eq!(s.prompt_tokens, s.reused_tokens + s.prefilled_tokens);
        assert_eq!(s.prefilled_tokens, 35);
        assert_eq!(s.generated_tokens, 12);
        assert_eq!(s.anticipated_tokens, 4);
        assert_eq!(s.head_tokens, 2);
        assert_eq!(s.ttft_ms, 30.0);
        assert_eq!(s.ttft_sum_ms, 50.0);
        assert_eq!(s.generation_ms, 100.0);
        assert!((s.prefill_tps - 100.0).abs() < 1e-9);
        assert!((s.decode_tps - 10.0).abs() < 1e-9);
        assert!(
            s.line().contains("prompt 430 tok (last request 230)"),
            "{}",
            s.line()
        );
        assert!(s.line().contains("0.40 s"), "{}", s.line());
    }

    #[test]
    fn unmeasured_generations_only_count() {
        let mut g = gen(10, 0, 1, 1.0);
        g.stats = None;
        g.discarded = true;
        let s = TurnStats::of(&outcome(vec![g]), 0.0);
        assert_eq!((s.generations, s.discarded), (1, 1));
        assert!(!s.measured());
        assert_eq!(s.prompt_tokens, 0);
    }

    #[test]
    fn totals_are_the_sums_of_the_turn_figures() {
        let a = TurnStats::of(
            &outcome(vec![gen(200, 190, 5, 30.0), gen(230, 205, 7, 20.0)]),
            400.0,
        );
        let b = TurnStats::of(&outcome(vec![gen(300, 100, 3, 50.0)]), 100.0);
        let t: TurnTotals = [&a, &b].into_iter().collect();
        assert_eq!((t.turns, t.generations), (2, 3));
        assert_eq!(t.prompt_tokens, a.prompt_tokens + b.prompt_tokens);
        assert_eq!(t.reused_tokens, 495);
        assert_eq!(t.prefilled_tokens, 235);
        assert_eq!(t.prompt_tokens, t.reused_tokens + t.prefilled_tokens);
        assert_eq!(t.anticipated_tokens, 6);
        assert_eq!(t.generated_tokens, 15);
        assert_eq!(t.ttft_ms, 80.0, "the first request's of each turn");
        assert_eq!(t.turn_ms, 500.0);
        assert!((t.reuse_ratio() - 495.0 / 730.0).abs() < 1e-12);
        assert_eq!(TurnTotals::default().reuse_ratio(), 0.0);
    }
}
