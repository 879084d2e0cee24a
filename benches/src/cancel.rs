//! The cancel benchmark (`porfiry bench cancel`): cancels at random moments of prefill and
//! of decode on the real engine, and how long each took to end the stream.
//!
//! Runs come in pairs on one random prompt (by default 300–1500 tokens of words drawn from a
//! fixed list, so it shares only the system text with the one before and its prefill takes
//! up to three 512-token batches; [`CancelBench::prompt_tokens`]):
//! 1. **prefill**: the prompt is submitted and cancelled after a random delay within its
//!    expected prefill time (from the prefill speed measured so far); the next request is
//!    the same prompt again, which must complete and reuse exactly what the cancelled one
//!    left in the cache (`reused_tokens == reused + prefilled` of the cancelled one); it
//!    also measures the run's prefill and decode speed.
//! 2. **decode**: the same prompt (now cached), cancelled at a random moment within the
//!    first ~24 tokens of the reply; the next request is a short one, which must complete.
//!
//! Latency is the time from `CancelToken::cancel` to the arrival of `Event::Done`, in ms and
//! in token times: the run's decode ms per token, and for prefill also its prefill ms per
//! token. A cancel that lands after the prefill ended counts as a decode cancel. A stream
//! that does not end within [`HANG_AFTER`] of its cancel is a hang. Memory is the process's
//! resident set at the start, the middle and the end, and its two parts at the start and
//! the end: anonymous memory (heap, KV cache) and file pages (the mapped model: its pages
//! count once touched, e.g. the embedding rows of tokens seen for the first time).

use std::time::{Duration, Instant};

use porfiry_engine::{
    Completion, Engine, EngineParams, Event, GenerateConfig, GenerateRequest, Message, StopReason,
};
use serde::Serialize;

use crate::engine::{load_engine, resolve_model};
use crate::error::BenchError;
use crate::soak::rss_kb;

/// A stream that has not ended this long after its cancel is a hang.
pub const HANG_AFTER: Duration = Duration::from_secs(5);

/// How long the bench waits for any stream before it gives up on the engine.
const GIVE_UP_AFTER: Duration = Duration::from_secs(300);

const SESSION: &str = "cancel";
const SYSTEM: &str = "You are Porfiry, a voice assistant. Read the notes and answer briefly.";
const WORDS: &[&str] = &[
    "river",
    "stone",
    "lamp",
    "garden",
    "north",
    "violin",
    "bread",
    "window",
    "summer",
    "letter",
    "кошка",
    "дорога",
    "музыка",
    "вечер",
    "окно",
    "поезд",
    "тетрадь",
    "метро",
    "42",
    "1917",
    "yellow",
    "quiet",
    "market",
    "engine",
];

/// Which part of a generation a cancel landed in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Before the reply's first token (prompt prefill).
    Prefill,
    /// While the reply was being decoded.
    Decode,
}

/// One cancel.
#[derive(Debug, Clone, Serialize)]
pub struct CancelRun {
    /// 1-based run number.
    pub run: usize,
    /// Where the cancel was aimed.
    pub aimed: Phase,
    /// Where it landed (a cancel aimed at the prefill may land after it).
    pub landed: Phase,
    /// Prompt tokens of the cancelled request.
    pub prompt_tokens: usize,
    /// Prompt tokens it had decoded (and llama.cpp still held) when it stopped.
    pub prefilled_tokens: usize,
    /// Reply tokens it had generated.
    pub generated_tokens: usize,
    /// Cancel → `Event::Done`, ms (for a hang: until it did end).
    pub latency_ms: f64,
    /// The run's decode time per token, ms.
    pub token_ms: f64,
    /// The run's prefill time per token, ms.
    pub prefill_token_ms: f64,
    /// The stream took longer than [`HANG_AFTER`] to end.
    pub hang: bool,
    /// The next request failed, was cancelled, or reused other than what was kept.
    pub next_failed: bool,
    /// What went wrong with the next request, if anything.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_problem: Option<String>,
}

/// p50, p99 and maximum of a figure (nearest rank).
#[derive(Debug, Clone, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct Quantiles {
    /// How many values.
    pub n: usize,
    /// Median (nearest rank).
    pub p50: f64,
    /// 99th percentile (nearest rank).
    pub p99: f64,
    /// Maximum.
    pub max: f64,
}

impl Quantiles {
    /// The quantiles of `values`.
    pub fn of(mut values: Vec<f64>) -> Self {
        if values.is_empty() {
            return Self::default();
        }
        values.sort_by(f64::total_cmp);
        let n = values.len();
        let rank = |q: f64| crate::soak::nearest_rank(&values, q);
        Self {
            n,
            p50: rank(0.5),
            p99: rank(0.99),
            max: values[n - 1],
        }
    }
}

/// The figures of the cancels that landed in one phase.
#[derive(Debug, Clone, Default, Serialize)]
pub struct PhaseReport {
    /// Cancel → Done, ms.
    pub latency_ms: Quantiles,
    /// Cancel → Done in decode token times (each run's own).
    pub token_times: Quantiles,
    /// Cancel → Done in prefill token times (each run's own).
    pub prefill_token_times: Quantiles,
    /// Median decode ms per token over these runs.
    pub token_ms: f64,
    /// Median prefill ms per token over these runs.
    pub prefill_token_ms: f64,
}

impl PhaseReport {
    fn of(runs: &[&CancelRun]) -> Self {
        let q = |f: &dyn Fn(&CancelRun) -> f64| Quantiles::of(runs.iter().map(|r| f(r)).collect());
        Self {
            latency_ms: q(&|r| r.latency_ms),
            token_times: q(&|r| ratio(r.latency_ms, r.token_ms)),
            prefill_token_times: q(&|r| ratio(r.latency_ms, r.prefill_token_ms)),
            token_ms: q(&|r| r.token_ms).p50,
            prefill_token_ms: q(&|r| r.prefill_token_ms).p50,
        }
    }
}

/// What `porfiry bench cancel` measured.
#[derive(Debug, Clone, Serialize)]
pub struct CancelReport {
    /// The model file.
    pub model: String,
    /// CPU threads.
    pub threads: u32,
    /// Cancels asked for.
    pub runs: usize,
    /// Cancels that landed in the prefill.
    pub prefill: PhaseReport,
    /// Cancels that landed in the decode.
    pub decode: PhaseReport,
    /// Streams that did not end within [`HANG_AFTER`] of their cancel (target 0).
    pub hangs: usize,
    /// Next requests that failed (target 0).
    pub failed_next: usize,
    /// Generations that ended by themselves before the cancel came (not counted above).
    pub ended_before_cancel: usize,
    /// Resident memory after loading and warming up, KB.
    pub rss_start_kb: u64,
    /// Resident memory at the middle run, KB.
    pub rss_middle_kb: u64,
    /// Resident memory after the last run, KB.
    pub rss_end_kb: u64,
    /// Anonymous resident memory (heap, KV cache) at the start and the end, KB.
    pub rss_anon_kb: (u64, u64),
    /// Resident file pages (the mapped model) at the start and the end, KB.
    pub rss_file_kb: (u64, u64),
    /// Anonymous resident memory (KB) after every tenth of the runs: `(runs done, KB)`, the
    /// start first — flat memory is a level line here, growth a slope.
    pub rss_anon_trace_kb: Vec<(usize, u64)>,
    /// Wall time, s.
    pub seconds: f64,
    /// Every cancel.
    pub rows: Vec<CancelRun>,
}

/// Settings of [`run_cancel`].
#[derive(Debug, Clone)]
pub struct CancelBench {
    /// Model id or path (default: the manifest's default model).
    pub model: Option<String>,
    /// Cancels in all (half aimed at the prefill, half at the decode).
    pub runs: usize,
    /// CPU threads (default: the performance cores, else the physical cores).
    pub threads: Option<u32>,
    /// Seed of the prompts and delays.
    pub seed: u64,
    /// The random prompts' length range in tokens, both ends included ([`PROMPT_TOKENS`]
    /// by default; the low end at least 16).
    pub prompt_tokens: (usize, usize),
}

/// The default length range of the random prompts, tokens.
pub const PROMPT_TOKENS: (usize, usize) = (300, 1500);

/// A small deterministic generator (SplitMix64): the prompts and delays of a seed are
/// the same on every run.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0.0..1.0`.
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `lo..=hi`.
    pub(crate) fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.next() % (hi - lo + 1) as u64) as usize
    }
}

/// A random prompt of about `lo..=hi` tokens (the words are cut to the drawn length after
/// one count with the engine's own tokenizer).
fn prompt(
    engine: &Engine,
    rng: &mut Rng,
    (lo, hi): (usize, usize),
) -> Result<Vec<Message>, BenchError> {
    let target = rng.range(lo.max(16), hi.max(lo.max(16)));
    let words: Vec<&str> = (0..target)
        .map(|_| WORDS[rng.range(0, WORDS.len() - 1)])
        .collect();
    let messages = |n: usize| {
        vec![Message::user(format!(
            "Notes: {}\nWhat do the notes say?",
            words[..n].join(" ")
        ))]
    };
    let tokens = engine
        .render(SYSTEM, &messages(words.len()))
        .map_err(|e| BenchError::Engine(e.to_string()))?
        .tokens
        .len();
    Ok(messages(words.len() * target / tokens.max(target)))
}

fn request(messages: Vec<Message>, max_tokens: usize) -> GenerateRequest {
    let mut config = GenerateConfig::greedy(max_tokens);
    config.tool_call_grammar = None;
    GenerateRequest::new(SESSION, SYSTEM, messages).with_config(config)
}

/// How a cancelled stream went.
struct Cancelled {
    /// None: it ended before the cancel came.
    latency: Option<Duration>,
    hang: bool,
    done: Completion,
}

/// Submit `req` and cancel it `delay` after the moment `after_first_text` picks (submission,
/// or the first text piece); wait for its end.
fn cancel_at(
    engine: &Engine,
    req: GenerateRequest,
    delay: Duration,
    after_first_text: bool,
) -> Result<Cancelled, BenchError> {
    let cancel = req.cancel.clone();
    let rx = engine
        .submit(req)
        .map_err(|e| BenchError::Engine(e.to_string()))?;
    let mut cancel_at = (!after_first_text).then(|| Instant::now() + delay);
    let mut cancelled_at: Option<Instant> = None;
    let given_up = Instant::now() + GIVE_UP_AFTER;
    loop {
        let wait = match (cancelled_at, cancel_at) {
            (Some(_), _) => given_up.saturating_duration_since(Instant::now()),
            (None, Some(at)) => at.saturating_duration_since(Instant::now()),
            (None, None) => given_up.saturating_duration_since(Instant::now()),
        };
        match rx.recv_timeout(wait) {
            Ok(Event::Text(_)) => {
                if cancel_at.is_none() {
                    cancel_at = Some(Instant::now() + delay);
                }
            }
            Ok(Event::Done(done)) => {
                let arrived = Instant::now();
                let latency = cancelled_at.map(|c| arrived - c);
                return Ok(Cancelled {
                    hang: latency.is_some_and(|l| l > HANG_AFTER),
                    latency,
                    done,
                });
            }
            Ok(Event::Error(e)) => return Err(BenchError::Engine(e.to_string())),
            Err(_) if cancelled_at.is_none() && Instant::now() < given_up => {
                cancel.cancel();
                cancelled_at = Some(Instant::now());
            }
            Err(_) => {
                return Err(BenchError::Engine(format!(
                    "no end of the stream {GIVE_UP_AFTER:?} after it started"
                )))
            }
        }
    }
}

/// Run a request to its end; a problem with it as text.
fn next_request(engine: &Engine, req: GenerateRequest) -> Result<Completion, String> {
    let done = engine
        .generate(req, &mut |_| {})
        .map_err(|e| format!("error: {e}"))?;
    match done.stop {
        StopReason::EndOfTurn | StopReason::MaxTokens | StopReason::StopString => Ok(done),
        other => Err(format!("ended {other:?}")),
    }
}

/// A `/proc/self/status` figure in KB (0 where there is none).
/// A field of `/proc/self/status` in KiB (`RssAnon:`, `VmHWM:`, …); 0 when unreadable.
pub fn status_kb(key: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(key))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

fn ms_per_token(tps: f64) -> f64 {
    if tps > 0.0 {
        1e3 / tps
    } else {
        0.0
    }
}

fn ratio(a: f64, b: f64) -> f64 {
    if b > 0.0 {
        a / b
    } else {
        0.0
    }
}

/// Run the cancel benchmark. `progress` hears every cancel.
///
/// # Errors
/// [`BenchError`] when the model is missing or cannot be loaded, or the engine stops
/// answering (no end of a stream for minutes). Hangs and failed next requests are counted,
/// not errors.
pub fn run_cancel(
    bench: &CancelBench,
    progress: &mut dyn FnMut(&CancelRun),
) -> Result<CancelReport, BenchError> {
    let started = Instant::now();
    let choice = resolve_model(bench.model.as_deref())?;
    let engine = load_engine(
        &choice,
        EngineParams {
            threads: bench.threads,
            ..EngineParams::default()
        },
    )?;
    let mut rng = Rng(bench.seed);
    // Warm-up: one whole request gives the first prefill and decode speeds.
    let warm = next_request(
        &engine,
        request(prompt(&engine, &mut rng, bench.prompt_tokens)?, 16),
    )
    .map_err(BenchError::Engine)?;
    let mut prefill_ms = ms_per_token(warm.stats.prefill_tps).max(0.1);
    let mut token_ms = ms_per_token(warm.stats.decode_tps).max(1.0);
    let rss_start_kb = rss_kb();
    let (anon_start, file_start) = (status_kb("RssAnon:"), status_kb("RssFile:"));
    let mut rss_middle_kb = 0;
    let mut anon_trace = vec![(0, anon_start)];
    let every = bench.runs.div_ceil(10).max(1);
    let mut rows = Vec::new();
    let mut ended_before_cancel = 0;
    let short = || vec![Message::user("Hi, what time is it?")];
    let mut run = 0;
    while run < bench.runs {
        let messages = prompt(&engine, &mut rng, bench.prompt_tokens)?;

        // 1. A cancel aimed at the prefill.
        run += 1;
        let expected = engine
            .render(SYSTEM, &messages)
            .map_err(|e| BenchError::Engine(e.to_string()))?
            .tokens
            .len() as f64
            * prefill_ms;
        let delay = Duration::from_secs_f64(expected * rng.unit() / 1e3);
        let c = cancel_at(&engine, request(messages.clone(), 64), delay, false)?;
        let kept = c.done.stats.reused_tokens + c.done.stats.prefilled_tokens;
        let next = next_request(&engine, request(messages.clone(), 8));
        let mut problem = next.as_ref().err().cloned();
        if let Ok(n) = &next {
            if n.stats.prefill_tps > 0.0 && n.stats.prefilled_tokens >= 64 {
                prefill_ms = ms_per_token(n.stats.prefill_tps);
            }
            if n.stats.decode_tps > 0.0 {
                token_ms = ms_per_token(n.stats.decode_tps);
            }
            let landed_in_prefill = c.done.stats.generated_tokens == 0;
            let expect = kept.min(n.stats.prompt_tokens.saturating_sub(1));
            if landed_in_prefill && c.latency.is_some() && n.stats.reused_tokens != expect {
                problem = Some(format!(
                    "reused {} where the cancelled request kept {kept}",
                    n.stats.reused_tokens
                ));
            }
        }
        // The run's own prefill speed when it finished a batch, else the next request's.
        let run_prefill_ms = match c.done.stats.prefill_tps {
            tps if tps > 0.0 => ms_per_token(tps),
            _ => prefill_ms,
        };
        match c.latency {
            None => ended_before_cancel += 1,
            Some(latency) => {
                let row = CancelRun {
                    run,
                    aimed: Phase::Prefill,
                    landed: if c.done.stats.generated_tokens == 0 {
                        Phase::Prefill
                    } else {
                        Phase::Decode
                    },
                    prompt_tokens: c.done.stats.prompt_tokens,
                    prefilled_tokens: c.done.stats.prefilled_tokens,
                    generated_tokens: c.done.stats.generated_tokens,
                    latency_ms: latency.as_secs_f64() * 1e3,
                    token_ms,
                    prefill_token_ms: run_prefill_ms,
                    hang: c.hang,
                    next_failed: problem.is_some(),
                    next_problem: problem,
                };
                progress(&row);
                rows.push(row);
            }
        }
        if run == bench.runs.div_ceil(2) {
            rss_middle_kb = rss_kb();
        }
        if run >= bench.runs {
            break;
        }

        // 2. A cancel aimed at the decode: the same prompt, cached now.
        run += 1;
        let delay = Duration::from_secs_f64(token_ms * 24.0 * rng.unit() / 1e3);
        let c = cancel_at(&engine, request(messages, 256), delay, true)?;
        let s = &c.done.stats;
        let run_token_ms = if s.generated_tokens >= 3 && s.decode_tps > 0.0 {
            ms_per_token(s.decode_tps)
        } else {
            token_ms
        };
        let problem = next_request(&engine, request(short(), 8)).err();
        match c.latency {
            None => ended_before_cancel += 1,
            Some(latency) => {
                let row = CancelRun {
                    run,
                    aimed: Phase::Decode,
                    landed: if s.generated_tokens == 0 {
                        Phase::Prefill
                    } else {
                        Phase::Decode
                    },
                    prompt_tokens: s.prompt_tokens,
                    prefilled_tokens: s.prefilled_tokens,
                    generated_tokens: s.generated_tokens,
                    latency_ms: latency.as_secs_f64() * 1e3,
                    token_ms: run_token_ms,
                    prefill_token_ms: prefill_ms,
                    hang: c.hang,
                    next_failed: problem.is_some(),
                    next_problem: problem,
                };
                progress(&row);
                rows.push(row);
            }
        }
        if run == bench.runs.div_ceil(2) {
            rss_middle_kb = rss_kb();
        }
        if run / every > anon_trace.len() - 1 {
            anon_trace.push((run, status_kb("RssAnon:")));
        }
    }
    if anon_trace.last().is_some_and(|&(done, _)| done < run) {
        anon_trace.push((run, status_kb("RssAnon:")));
    }
    let rss_end_kb = rss_kb();
    let landed = |p: Phase| rows.iter().filter(|r| r.landed == p).collect::<Vec<_>>();
    Ok(CancelReport {
        model: choice.path.display().to_string(),
        threads: engine.info().threads,
        runs: bench.runs,
        prefill: PhaseReport::of(&landed(Phase::Prefill)),
        decode: PhaseReport::of(&landed(Phase::Decode)),
        hangs: rows.iter().filter(|r| r.hang).count(),
        failed_next: rows.iter().filter(|r| r.next_failed).count(),
        ended_before_cancel,
        rss_start_kb,
        rss_middle_kb,
        rss_end_kb,
        rss_anon_kb: (anon_start, status_kb("RssAnon:")),
        rss_file_kb: (file_start, status_kb("RssFile:")),
        rss_anon_trace_kb: anon_trace,
        seconds: started.elapsed().as_secs_f64(),
        rows,
    })
}

impl CancelReport {
    /// The summary as text.
    pub fn table(&self) -> String {
        let phase = |name: &str, p: &PhaseReport| {
            let q = |x: &Quantiles, unit: &str| {
                format!(
                    "p50 {:.2}, p99 {:.2}, max {:.2} {unit}",
                    x.p50, x.p99, x.max
                )
            };
            format!(
                "{name} ({} cancels; token {:.1} ms, prefill {:.2} ms/token):\n\
                 \x20 {}\n\x20 {}\n\x20 {}\n",
                p.latency_ms.n,
                p.token_ms,
                p.prefill_token_ms,
                q(&p.latency_ms, "ms"),
                q(&p.token_times, "token times"),
                q(&p.prefill_token_times, "prefill token times"),
            )
        };
        format!(
            "model: {} | {} threads | {} cancels in {:.0} s\n{}{}\
             hangs (> {:?}) {} | failed next requests {} | ended before the cancel {}\n\
             RSS KB: start {}, middle {}, end {} (anonymous {} → {}, file {} → {})\n\
             anonymous KB by runs done: {}\n",
            self.model,
            self.threads,
            self.runs,
            self.seconds,
            phase("prefill", &self.prefill),
            phase("decode", &self.decode),
            HANG_AFTER,
            self.hangs,
            self.failed_next,
            self.ended_before_cancel,
            self.rss_start_kb,
            self.rss_middle_kb,
            self.rss_end_kb,
            self.rss_anon_kb.0,
            self.rss_anon_kb.1,
            self.rss_file_kb.0,
            self.rss_file_kb.1,
            self.rss_anon_trace_kb
                .iter()
                .map(|(run, kb)| format!("{run}: {kb}"))
                .collect::<Vec<_>>()
                .join(", "),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_by_nearest_rank() {
        let q = Quantiles::of((1..=200).map(f64::from).collect());
        assert_eq!((q.n, q.p50, q.p99, q.max), (200, 100.0, 198.0, 200.0));
        let q = Quantiles::of(vec![3.0]);
        assert_eq!((q.p50, q.p99, q.max), (3.0, 3.0, 3.0));
        assert_eq!(Quantiles::of(vec![]), Quantiles::default());
    }

    #[test]
    fn the_generator_is_deterministic_and_in_range() {
        let (mut a, mut b) = (Rng(7), Rng(7));
        for _ in 0..1000 {
            let x = a.range(300, 1500);
            assert_eq!(x, b.range(300, 1500));
            assert!((300..=1500).contains(&x));
            let u = a.unit();
            assert_eq!(u, b.unit());
            assert!((0.0..1.0).contains(&u));
        }
    }
}
