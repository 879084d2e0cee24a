//! The soak benchmark (`porfiry bench soak`): a long scripted, teacher-forced conversation
//! (the built-in dialogue's turns over and over: tool calls with long results, toolset
//! switches, plain chat) through the real agent and engine on a small context, so the
//! session outgrows it many times. It measures what a user talking all day would meet:
//! failures, compactions, tokens prefilled and time to first token per turn, and memory.

use std::time::Instant;

use porfiry_agent::scenario::StandIn;
use porfiry_agent::{CancelToken, PromptLayout};
use porfiry_engine::{EngineModel, EngineParams, GenerateConfig};
use porfiry_runtime::TurnStats;
use serde::Serialize;

use crate::dialogue::Dialogue;
use crate::engine::{load_engine, resolve_model};
use crate::error::BenchError;
use crate::forced::ForcedModel;

/// Median, 95th percentile and maximum of a figure over turns.
#[derive(Debug, Clone, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct Spread {
    /// How many turns the figure covers.
    pub n: usize,
    /// Median.
    pub median: f64,
    /// 95th percentile (nearest rank).
    pub p95: f64,
    /// Maximum.
    pub max: f64,
}

/// The nearest-rank `q` quantile of `sorted` (ascending, not empty).
pub(crate) fn nearest_rank(sorted: &[f64], q: f64) -> f64 {
    let n = sorted.len();
    sorted[((q * n as f64).ceil() as usize).clamp(1, n) - 1]
}

impl Spread {
    /// The spread of `values`.
    pub fn of(mut values: Vec<f64>) -> Self {
        if values.is_empty() {
            return Self::default();
        }
        values.sort_by(f64::total_cmp);
        let n = values.len();
        let rank = |q: f64| nearest_rank(&values, q);
        Spread {
            n,
            median: if n % 2 == 1 {
                values[n / 2]
            } else {
                (values[n / 2 - 1] + values[n / 2]) / 2.0
            },
            p95: rank(0.95),
            max: values[n - 1],
        }
    }
}

/// One turn of the soak.
#[derive(Debug, Clone, Serialize)]
pub struct SoakTurn {
    /// 1-based turn number.
    pub turn: usize,
    /// How the turn ended (`answered`, `model_error`, ...).
    pub stop: String,
    /// Whether the turn took as many model calls as the script has replies.
    pub in_step: bool,
    /// The turn's figures.
    #[serde(flatten)]
    pub stats: TurnStats,
}

/// What the soak measured.
#[derive(Debug, Clone, Serialize)]
pub struct SoakReport {
    /// The model file.
    pub model: String,
    /// The context size.
    pub n_ctx: u32,
    /// Turns asked for.
    pub turns: usize,
    /// Turns that ended answered.
    pub answered: usize,
    /// Turns the model failed (context full, decode failure): must be 0.
    pub failures: usize,
    /// Turns whose number of model calls differed from the script (the agent and the script
    /// disagreed; the run goes on).
    pub out_of_step: usize,
    /// Turns that compacted the request.
    pub compacting_turns: usize,
    /// Compactions in all.
    pub compactions: usize,
    /// Tokens prefilled per turn, every turn.
    pub prefilled: Spread,
    /// Tokens prefilled per turn, turns without a compaction (should be only their new tokens).
    pub prefilled_without_compaction: Spread,
    /// Tokens prefilled per turn, turns with a compaction (the re-prefill a compaction costs).
    pub prefilled_with_compaction: Spread,
    /// Time to first token per turn, ms.
    pub ttft_ms: Spread,
    /// Resident memory before the first turn, KB.
    pub rss_start_kb: u64,
    /// Resident memory right after the first compacting turn, KB (0 if none compacted).
    pub rss_after_first_compaction_kb: u64,
    /// Resident memory at the middle turn, KB.
    pub rss_middle_kb: u64,
    /// Resident memory after the last turn, KB.
    pub rss_end_kb: u64,
    /// rss_end / rss_after_first_compaction (target ≤ 1.05).
    pub rss_growth_after_compaction: f64,
    /// Wall time of the whole soak, s.
    pub seconds: f64,
    /// Every turn.
    pub rows: Vec<SoakTurn>,
}

/// Resident memory of this process in KB (Linux `/proc/self/status`; 0 elsewhere).
pub fn rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

/// A long listing: what a search tool returns on a real catalogue.
fn long_listing() -> String {
    (1..=30)
        .map(|i| {
            format!(
                "{i}. Лара Крофт: часть {i} ({}) id=tt{:07} — приключения, {} мин, рейтинг {}.{}",
                1990 + i,
                1_000_000 + i * 37,
                90 + i,
                5 + i % 4,
                i % 10
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Runs the soak: `turns` turns of the built-in dialogue's turns over and over (the user's
/// words numbered by round, so no two rounds are the same text) on a `ctx`-token context,
/// teacher-forced, with a long search result. `progress` hears one line per turn.
///
/// # Errors
/// [`BenchError`] when the model is missing or cannot be loaded. Failed turns are counted,
/// not errors: the soak goes on.
pub fn run_soak(
    model: Option<&str>,
    turns: usize,
    ctx: u32,
    threads: Option<u32>,
    progress: &mut dyn FnMut(&SoakTurn),
) -> Result<SoakReport, BenchError> {
    let started = Instant::now();
    let choice = resolve_model(model)?;
    let mut dialogue = Dialogue::builtin()?;
    dialogue
        .tool_results
        .insert("media_search".into(), StandIn::Text(long_listing()));
    let engine = load_engine(
        &choice,
        EngineParams {
            n_ctx: ctx,
            threads,
            ..EngineParams::default()
        },
    )?;
    let mut agent = dialogue.agent(PromptLayout::default())?;
    let view = agent.head_view();
    engine
        .prepare_head(&view.system, &view.messages)
        .map_err(|e| BenchError::Engine(e.to_string()))?;
    let longest = dialogue.replies().map(str::len).max().unwrap_or(0);
    let mut model = Some(EngineModel::new(
        engine,
        GenerateConfig::greedy(longest + 16),
    ));
    let cancel = CancelToken::new();
    let rss_start_kb = rss_kb();
    let mut rss_after_first_compaction_kb = 0;
    let mut rss_middle_kb = 0;
    let mut rows = Vec::new();
    let base = dialogue.turns.len().max(1);
    for i in 0..turns {
        let t = &dialogue.turns[i % base];
        let round = i / base + 1;
        let user = if round == 1 {
            t.user.clone()
        } else {
            format!("{} (круг {round})", t.user)
        };
        let inner = model
            .take()
            .ok_or_else(|| BenchError::Engine("the engine was lost".into()))?;
        let mut forced = ForcedModel::new(inner, t.replies.iter().cloned());
        let turn_started = Instant::now();
        let out = agent.turn(&dialogue.session, &user, &mut forced, &cancel, &mut |_| {});
        let turn_ms = turn_started.elapsed().as_secs_f64() * 1e3;
        let in_step = forced.remaining() == 0;
        model = Some(forced.into_inner());
        let out = out.map_err(|e| BenchError::Model(e.to_string()))?;
        let stop = porfiry_runtime::stop_name(&out.stop);
        let row = SoakTurn {
            turn: i + 1,
            stop: stop.to_string(),
            in_step: in_step && out.generations.len() == t.replies.len(),
            stats: TurnStats::of(&out, turn_ms),
        };
        if row.stats.compactions > 0 && rss_after_first_compaction_kb == 0 {
            rss_after_first_compaction_kb = rss_kb();
        }
        if i + 1 == turns.div_ceil(2) {
            rss_middle_kb = rss_kb();
        }
        progress(&row);
        rows.push(row);
    }
    let rss_end_kb = rss_kb();
    let spread =
        |f: &dyn Fn(&SoakTurn) -> Option<f64>| Spread::of(rows.iter().filter_map(f).collect());
    let prefilled = spread(&|r| Some(r.stats.prefilled_tokens as f64));
    let prefilled_without_compaction =
        spread(&|r| (r.stats.compactions == 0).then_some(r.stats.prefilled_tokens as f64));
    let prefilled_with_compaction =
        spread(&|r| (r.stats.compactions > 0).then_some(r.stats.prefilled_tokens as f64));
    let ttft_ms = spread(&|r| Some(r.stats.ttft_ms));
    Ok(SoakReport {
        model: choice.path.display().to_string(),
        n_ctx: ctx,
        turns,
        answered: rows.iter().filter(|r| r.stop == "answered").count(),
        failures: rows.iter().filter(|r| r.stop == "model_error").count(),
        out_of_step: rows.iter().filter(|r| !r.in_step).count(),
        compacting_turns: rows.iter().filter(|r| r.stats.compactions > 0).count(),
        compactions: rows.iter().map(|r| r.stats.compactions).sum(),
        prefilled,
        prefilled_without_compaction,
        prefilled_with_compaction,
        ttft_ms,
        rss_start_kb,
        rss_after_first_compaction_kb,
        rss_middle_kb,
        rss_end_kb,
        rss_growth_after_compaction: if rss_after_first_compaction_kb > 0 {
            rss_end_kb as f64 / rss_after_first_compaction_kb as f64
        } else {
            0.0
        },
        seconds: started.elapsed().as_secs_f64(),
        rows,
    })
}

impl SoakReport {
    /// The summary as text.
    pub fn table(&self) -> String {
        let s = |x: &Spread| {
            format!(
                "median {:.0}, p95 {:.0}, max {:.0} (n {})",
                x.median, x.p95, x.max, x.n
            )
        };
        format!(
            "model: {} | ctx {} | {} turns in {:.0} s\n\
             answered {} | failures {} | out of step {} | compacting turns {} ({} compactions)\n\
             prefilled per turn: {}\n\
             \x20 without a compaction: {}\n\
             \x20 with a compaction:    {}\n\
             TTFT ms: median {:.1}, p95 {:.1}, max {:.1}\n\
             RSS KB: start {}, after the first compaction {}, middle {}, end {} (end / after first compaction {:.3})\n",
            self.model,
            self.n_ctx,
            self.turns,
            self.seconds,
            self.answered,
            self.failures,
            self.out_of_step,
            self.compacting_turns,
            self.compactions,
            s(&self.prefilled),
            s(&self.prefilled_without_compaction),
            s(&self.prefilled_with_compaction),
            self.ttft_ms.median,
            self.ttft_ms.p95,
            self.ttft_ms.max,
            self.rss_start_kb,
            self.rss_after_first_compaction_kb,
            self.rss_middle_kb,
            self.rss_end_kb,
            self.rss_growth_after_compaction,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spreads() {
        let s = Spread::of((1..=20).map(f64::from).collect());
        assert_eq!((s.n, s.median, s.p95, s.max), (20, 10.5, 19.0, 20.0));
        let s = Spread::of(vec![3.0]);
        assert_eq!((s.median, s.p95, s.max), (3.0, 3.0, 3.0));
        assert_eq!(Spread::of(vec![]), Spread::default());
    }
}
