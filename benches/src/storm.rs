//! The storm soak (`porfiry bench storm`): the real runtime behind its [`Service`] (the worker
//! thread the phone bridge uses), opened as the CLI opens it (built-in skills and toolsets,
//! the notes host tool, the head prepared), driven for minutes by a hostile, seeded caller:
//! random turns from a small pool of realistic requests (ru/en, tool requests and
//! chit-chat) over a few sessions, barge-ins (a new message for the session whose turn is
//! running), cancels at random moments, partial transcripts, delivery reports and session
//! ends.
//!
//! Figures: turns sent and how each ended (answered, cancelled, merged, deadline, iteration
//! limit), errors by kind (turn errors, failed calls, failed tools), cancel latency — from
//! [`Service::cancel`] (or the barge-in's [`Service::send`]) to the turn's end event — p50,
//! p99 and max, split by whether the turn was already streaming text when the cancel came;
//! hangs (a turn still running [`HANG_AFTER`] after its cancel); resident memory (VmRSS and
//! its anonymous part, as `bench cancel` reports it) and the process's thread count
//! (`/proc/self/task`) at the start, the end and after the service closed. A progress line
//! goes to the caller every minute.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use porfiry_runtime::{EventSink, Runtime, RuntimeConfig, Service, ServiceEvent};
use serde::Serialize;
use serde_json::{json, Value};

use crate::cancel::{Quantiles, HANG_AFTER};
use crate::engine::resolve_model;
use crate::error::BenchError;

/// What the storm asks the user to have said: Russian and English, tool requests (notes,
/// time, films) and chit-chat.
const REQUESTS: &[&str] = &[
    "Привет! Как дела?",
    "Запиши, что надо купить хлеб",
    "Какие у меня заметки?",
    "Сколько сейчас времени?",
    "Найди фильм про Лару Крофт",
    "Включи что-нибудь весёлое",
    "Расскажи коротко, почему небо голубое.",
    "Стоп, не надо.",
    "Спасибо, пока!",
    "Hello! What can you do?",
    "Add a note: call mom at six",
    "What time is it?",
    "Tell me a short story about a cat.",
    "Never mind.",
];

/// How long the storm waits, at the end, for the turns still queued to end.
const DRAIN: Duration = Duration::from_secs(180);

/// What `porfiry bench storm` runs.
#[derive(Debug, Clone)]
pub struct StormBench {
    /// Model id from the manifest or a GGUF path (default: the manifest's default).
    pub model: Option<String>,
    /// How long to storm.
    pub minutes: f64,
    /// Stop after this many turns sent (a bound for short runs), if set.
    pub turns: Option<usize>,
    /// Seed of every random choice (requests, sessions, actions, delays).
    pub seed: u64,
    /// Sessions the turns go to.
    pub sessions: usize,
    /// Sessions whose KV cache the engine keeps at once.
    pub kv_sessions: u32,
    /// CPU threads (default: the engine's choice).
    pub threads: Option<u32>,
    /// Context size in tokens.
    pub ctx: u32,
    /// Most tokens per generation.
    pub max_tokens: usize,
}

/// A progress line: the figures so far.
#[derive(Debug, Clone, Serialize)]
pub struct StormMinute {
    /// Minutes since the storm began.
    pub minute: f64,
    /// Turns sent so far.
    pub sent: usize,
    /// Turns ended so far.
    pub ended: usize,
    /// Turns answered so far.
    pub answered: usize,
    /// Cancels and barge-ins so far.
    pub cancels: usize,
    /// Errors of every kind so far.
    pub errors: usize,
    /// p99 of the cancel latency of streaming turns so far, ms.
    pub cancel_p99_ms: f64,
    /// VmRSS, KB.
    pub rss_kb: u64,
    /// Anonymous RSS, KB.
    pub rss_anon_kb: u64,
    /// Threads of the process.
    pub threads: usize,
}

/// Process figures at one moment.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct ProcessFigures {
    /// VmRSS, KB.
    pub rss_kb: u64,
    /// RssAnon (heap, KV cache), KB.
    pub rss_anon_kb: u64,
    /// RssFile (the mapped model), KB.
    pub rss_file_kb: u64,
    /// Threads (`/proc/self/task`).
    pub threads: usize,
}

impl ProcessFigures {
    /// Now (zeros off Linux).
    pub fn now() -> Self {
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        let kb = |key: &str| {
            status
                .lines()
                .find(|l| l.starts_with(key))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
                .unwrap_or(0)
        };
        Self {
            rss_kb: kb("VmRSS:"),
            rss_anon_kb: kb("RssAnon:"),
            rss_file_kb: kb("RssFile:"),
            threads: std::fs::read_dir("/proc/self/task").map_or(0, |d| d.count()),
        }
    }
}

/// What the storm measured.
#[derive(Debug, Clone, Serialize)]
pub struct StormReport {
    /// The model file.
    pub model: String,
    /// The seed.
    pub seed: u64,
    /// Sessions used.
    pub sessions: usize,
    /// Wall time of the storm (without the final drain), s.
    pub seconds: f64,
    /// Turns sent.
    pub sent: usize,
    /// Turns that ended answered.
    pub answered: usize,
    /// Turns that ended cancelled (by a cancel or a barge-in).
    pub cancelled: usize,
    /// Turns merged into a newer message of their session (barge-in while queued).
    pub merged: usize,
    /// Turns out of their time budget.
    pub deadline: usize,
    /// Turns at the iteration limit.
    pub max_iterations: usize,
    /// Turns that ended with an error event.
    pub failed: usize,
    /// Turns that had not ended after the drain (must be 0).
    pub unfinished: usize,
    /// Cancels sent (`Service::cancel` on the session of the running turn).
    pub cancels: usize,
    /// Barge-ins sent (a new message for the session of the running turn).
    pub barge_ins: usize,
    /// Partial transcripts sent.
    pub prepares: usize,
    /// Session ends sent.
    pub session_ends: usize,
    /// Errors by kind: `turn: …` (error events), `call: …` (a service call refused),
    /// `tool: <name>` (a tool reply marked failed), `hang` (a turn still running
    /// [`HANG_AFTER`] after its cancel).
    pub errors: BTreeMap<String, usize>,
    /// Cancel (or barge-in) → the turn's end event, turns that were streaming text, ms.
    pub cancel_latency_ms: Quantiles,
    /// The same for turns not streaming yet (prefill, a tool, or still queued), ms.
    pub cancel_latency_before_text_ms: Quantiles,
    /// Turns still running [`HANG_AFTER`] after their cancel.
    pub hangs: usize,
    /// After open and the head, before the first turn.
    pub start: ProcessFigures,
    /// After the last turn ended, the service still open.
    pub end: ProcessFigures,
    /// After the service closed (the runtime and its model dropped).
    pub after_close: ProcessFigures,
    /// The service's own counters at the end (`Service::stats`).
    pub service_stats: Value,
    /// The progress lines, one a minute.
    pub minutes: Vec<StormMinute>,
}

/// A small deterministic generator (SplitMix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// One turn as the storm saw it.
#[derive(Debug)]
struct TurnRecord {
    session: String,
    first_text: Option<Instant>,
    cancelled_at: Option<Instant>,
    ended: Option<Instant>,
}

/// What the sinks and the driver share.
#[derive(Debug, Default)]
struct Ledger {
    turns: Vec<TurnRecord>,
    ends: BTreeMap<String, usize>,
    errors: BTreeMap<String, usize>,
    streaming_latency: Vec<f64>,
    other_latency: Vec<f64>,
    hangs: usize,
}

impl Ledger {
    /// The oldest turn not ended: the running one (turns run one at a time in send order),
    /// or the next to run.
    fn running(&self) -> Option<usize> {
        self.turns.iter().position(|t| t.ended.is_none())
    }

    fn unended(&self) -> usize {
        self.turns.iter().filter(|t| t.ended.is_none()).count()
    }

    fn error(&mut self, kind: String) {
        *self.errors.entry(kind).or_default() += 1;
    }

    fn end(&mut self, turn: usize, kind: &str) {
        let now = Instant::now();
        let t = &mut self.turns[turn];
        if t.ended.is_some() {
            self.error("turn: a second end event".into());
            return;
        }
        t.ended = Some(now);
        if let Some(at) = t.cancelled_at {
            let ms = now.duration_since(at).as_secs_f64() * 1e3;
            if t.first_text.is_some_and(|f| f <= at) {
                self.streaming_latency.push(ms);
            } else {
                self.other_latency.push(ms);
            }
            if now.duration_since(at) > HANG_AFTER {
                self.hangs += 1;
                self.error("hang".into());
            }
        }
        *self.ends.entry(kind.to_string()).or_default() += 1;
    }
}

fn locked(ledger: &Mutex<Ledger>) -> MutexGuard<'_, Ledger> {
    ledger.lock().unwrap_or_else(|p| p.into_inner())
}

/// The sink of one storm turn.
struct StormSink {
    ledger: Arc<Mutex<Ledger>>,
    turn: usize,
}

/// The kind of a turn's error text: its first words (numbers and quoted parts vary).
fn error_kind(text: &str) -> String {
    let head: String = text
        .split(|c: char| c == ':' || c == '(' || c == '"')
        .next()
        .unwrap_or(text)
        .chars()
        .take(60)
        .collect();
    format!("turn: {}", head.trim())
}

impl EventSink for StormSink {
    fn deliver(&mut self, event: ServiceEvent) -> bool {
        let mut l = locked(&self.ledger);
        match event {
            ServiceEvent::Text(_) => {
                let t = &mut l.turns[self.turn];
                t.first_text.get_or_insert_with(Instant::now);
            }
            ServiceEvent::ToolFinished {
                name, ok: false, ..
            } => l.error(format!("tool: {name}")),
            ServiceEvent::Done(v) => {
                let stop = v
                    .get("stop")
                    .and_then(Value::as_str)
                    .unwrap_or("?")
                    .to_string();
                l.end(self.turn, &stop);
            }
            ServiceEvent::Error(text) => {
                l.error(error_kind(&text));
                l.end(self.turn, "error");
            }
            _ => {}
        }
        true
    }
}

/// Runs the storm; `progress` hears a line every minute.
///
/// # Errors
/// [`BenchError`] when the model is missing or the runtime cannot be opened. What goes wrong
/// during the storm is counted, not an error.
pub fn run_storm(
    bench: &StormBench,
    progress: &mut dyn FnMut(&StormMinute),
) -> Result<StormReport, BenchError> {
    let choice = resolve_model(bench.model.as_deref())?;
    let data = std::env::temp_dir().join(format!("porfiry-storm-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&data);
    std::fs::create_dir_all(&data)
        .map_err(|e| BenchError::Engine(format!("creating {}: {e}", data.display())))?;
    let mut config = RuntimeConfig {
        model: Some(choice.path.display().to_string()),
        fetch: false,
        n_ctx: Some(bench.ctx),
        threads: bench.threads,
        n_seq: bench.kv_sessions.max(1),
        data_dir: Some(data.clone()),
        notes: true,
        ..RuntimeConfig::default()
    };
    config.generate.max_tokens = bench.max_tokens;
    let (runtime, _report) = Runtime::open(&config, &porfiry_runtime::NoProgress)
        .map_err(|e| BenchError::Engine(e.to_string()))?;
    let service = Service::start(runtime, json!({ "kind": "storm" }))
        .map_err(|e| BenchError::Engine(e.to_string()))?;
    // The worker warms the head up before its first job: a prompt request answered by the
    // worker (not from the busy fallback) means it is done.
    let warming = Instant::now();
    while service.prompt("s0").is_ok_and(|p| p.starts_with("(busy"))
        && warming.elapsed() < Duration::from_secs(300)
    {}
    let start = ProcessFigures::now();

    let sessions: Vec<String> = (0..bench.sessions.max(1))
        .map(|i| format!("s{i}"))
        .collect();
    let ledger = Arc::new(Mutex::new(Ledger::default()));
    let mut rng = Rng(bench.seed);
    let began = Instant::now();
    let length = Duration::from_secs_f64(bench.minutes.max(0.0) * 60.0);
    let mut next_minute = Duration::from_secs(60);
    let (mut cancels, mut barge_ins, mut prepares, mut ends) = (0, 0, 0, 0);
    let mut minutes = Vec::new();
    let call_error = |l: &Arc<Mutex<Ledger>>, e: porfiry_runtime::ServiceError| {
        locked(l).error(format!("call: {e}"));
    };
    let send = |session: &str, text: &str| {
        let turn = {
            let mut l = locked(&ledger);
            l.turns.push(TurnRecord {
                session: session.to_string(),
                first_text: None,
                cancelled_at: None,
                ended: None,
            });
            l.turns.len() - 1
        };
        let sink = StormSink {
            ledger: ledger.clone(),
            turn,
        };
        if let Err(e) = service.send(session, text, Box::new(sink)) {
            let mut l = locked(&ledger);
            l.turns[turn].ended = Some(Instant::now());
            l.error(format!("call: {e}"));
        }
    };
    loop {
        let elapsed = began.elapsed();
        let sent = locked(&ledger).turns.len();
        if elapsed >= length || bench.turns.is_some_and(|n| sent >= n) {
            break;
        }
        if elapsed >= next_minute {
            next_minute += Duration::from_secs(60);
            let line = minute(&ledger, elapsed, cancels + barge_ins);
            progress(&line);
            minutes.push(line);
        }
        let (running, backlog) = {
            let l = locked(&ledger);
            (l.running().map(|i| l.turns[i].session.clone()), l.unended())
        };
        let roll = rng.below(100);
        let session = sessions[rng.below(sessions.len())].clone();
        match (roll, running) {
            // A barge-in: the user speaks again while the reply runs.
            (0..=14, Some(target)) => {
                mark_cancel(&ledger, &target);
                barge_ins += 1;
                send(&target, rng.pick(REQUESTS));
            }
            // A cancel at a random moment of the running turn.
            (15..=29, Some(target)) => {
                mark_cancel(&ledger, &target);
                cancels += 1;
                if let Err(e) = service.cancel(&target) {
                    call_error(&ledger, e);
                }
            }
            // The host reports how much of the reply was heard.
            (30..=34, Some(target)) => {
                if let Err(e) = service.delivered(&target, rng.below(40)) {
                    call_error(&ledger, e);
                }
            }
            // A partial transcript, then (often) the whole request.
            (35..=46, _) => {
                let text = rng.pick(REQUESTS);
                let cut: String = text
                    .chars()
                    .take(1 + rng.below(text.chars().count()))
                    .collect();
                prepares += 1;
                if let Err(e) = service.hear_partial(&session, &cut) {
                    call_error(&ledger, e);
                }
                if rng.below(2) == 0 && backlog < 2 * sessions.len() {
                    std::thread::sleep(Duration::from_millis(rng.below(400) as u64));
                    send(&session, text);
                }
            }
            // The conversation ends.
            (47..=53, _) => {
                ends += 1;
                if let Err(e) = service.end_session(&session) {
                    call_error(&ledger, e);
                }
            }
            // A new turn (unless the queue is already long: the caller is hostile, not
            // unbounded).
            _ => {
                if backlog < 2 * sessions.len() {
                    send(&session, rng.pick(REQUESTS));
                }
            }
        }
        std::thread::sleep(Duration::from_millis(100 + rng.below(2400) as u64));
    }
    let seconds = began.elapsed().as_secs_f64();
    // Drain: the turns still queued end on their own.
    let drained = Instant::now();
    while locked(&ledger).unended() > 0 && drained.elapsed() < DRAIN {
        std::thread::sleep(Duration::from_millis(50));
    }
    let end = ProcessFigures::now();
    let service_stats = service.stats().unwrap_or(Value::Null);
    if let Err(e) = service.close() {
        call_error(&ledger, e);
    }
    drop(service);
    let after_close = ProcessFigures::now();
    let _ = std::fs::remove_dir_all(&data);

    let l = locked(&ledger);
    let count = |k: &str| l.ends.get(k).copied().unwrap_or(0);
    let unfinished = l.unended();
    Ok(StormReport {
        model: choice.path.display().to_string(),
        seed: bench.seed,
        sessions: sessions.len(),
        seconds,
        sent: l.turns.len(),
        answered: count("answered"),
        cancelled: count("cancelled"),
        merged: count("merged"),
        deadline: count("deadline"),
        max_iterations: count("max_iterations"),
        failed: count("error"),
        unfinished,
        cancels,
        barge_ins,
        prepares,
        session_ends: ends,
        errors: l.errors.clone(),
        cancel_latency_ms: Quantiles::of(l.streaming_latency.clone()),
        cancel_latency_before_text_ms: Quantiles::of(l.other_latency.clone()),
        hangs: l.hangs,
        start,
        end,
        after_close,
        service_stats,
        minutes,
    })
}

/// Marks the running turn of `session` (the oldest not ended) as cancelled now, for its
/// latency (only its first cancel counts).
fn mark_cancel(ledger: &Mutex<Ledger>, session: &str) {
    let mut l = locked(ledger);
    if let Some(i) = l.running() {
        let t = &mut l.turns[i];
        if t.session == session && t.cancelled_at.is_none() {
            t.cancelled_at = Some(Instant::now());
        }
    }
}

fn minute(ledger: &Mutex<Ledger>, elapsed: Duration, cancels: usize) -> StormMinute {
    let l = locked(ledger);
    let p = ProcessFigures::now();
    StormMinute {
        minute: elapsed.as_secs_f64() / 60.0,
        sent: l.turns.len(),
        ended: l.turns.iter().filter(|t| t.ended.is_some()).count(),
        answered: l.ends.get("answered").copied().unwrap_or(0),
        cancels,
        errors: l.errors.values().sum(),
        cancel_p99_ms: Quantiles::of(l.streaming_latency.clone()).p99,
        rss_kb: p.rss_kb,
        rss_anon_kb: p.rss_anon_kb,
        threads: p.threads,
    }
}

impl StormReport {
    /// The summary as text.
    pub fn table(&self) -> String {
        let q = |x: &Quantiles| {
            format!(
                "p50 {:.1}, p99 {:.1}, max {:.1} (n {})",
                x.p50, x.p99, x.max, x.n
            )
        };
        let errors = if self.errors.is_empty() {
            "none".to_string()
        } else {
            self.errors
                .iter()
                .map(|(k, n)| format!("{k} ×{n}"))
                .collect::<Vec<_>>()
                .join("; ")
        };
        let fig = |f: &ProcessFigures| {
            format!(
                "RSS {} MB (anon {} MB, file {} MB), {} threads",
                f.rss_kb / 1024,
                f.rss_anon_kb / 1024,
                f.rss_file_kb / 1024,
                f.threads
            )
        };
        format!(
            "model: {} | seed {} | {} sessions | {:.1} min\n\
             turns sent {} | answered {} | cancelled {} | merged {} | deadline {} | iteration limit {} | failed {} | unfinished {}\n\
             cancels {} | barge-ins {} | partial transcripts {} | session ends {}\n\
             errors by kind: {}\n\
             cancel → end ms, streaming turns: {}\n\
             cancel → end ms, turns not streaming yet: {}\n\
             hangs (> {} s after the cancel): {}\n\
             start:       {}\n\
             end:         {}\n\
             after close: {}\n",
            self.model,
            self.seed,
            self.sessions,
            self.seconds / 60.0,
            self.sent,
            self.answered,
            self.cancelled,
            self.merged,
            self.deadline,
            self.max_iterations,
            self.failed,
            self.unfinished,
            self.cancels,
            self.barge_ins,
            self.prepares,
            self.session_ends,
            errors,
            q(&self.cancel_latency_ms),
            q(&self.cancel_latency_before_text_ms),
            HANG_AFTER.as_secs(),
            self.hangs,
            fig(&self.start),
            fig(&self.end),
            fig(&self.after_close),
        )
    }

    /// Whether the storm went clean: no unfinished turn, no hang, no turn error, no refused
    /// call. Failed tools are not counted against it (a tool may fail; the turn goes on).
    pub fn clean(&self) -> bool {
        self.unfinished == 0
            && self.hangs == 0
            && self.errors.keys().all(|k| k.starts_with("tool: "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_kinds_drop_the_varying_part() {
        assert_eq!(
            error_kind("model error: decode failed (ret -1)"),
            "turn: model error"
        );
        assert_eq!(
            error_kind("the assistant was closed before this turn ran"),
            "turn: the assistant was closed before this turn ran"
        );
    }

    #[test]
    fn the_ledger_times_cancels_from_the_mark_to_the_end() {
        let ledger = Mutex::new(Ledger::default());
        for s in ["a", "b"] {
            locked(&ledger).turns.push(TurnRecord {
                session: s.into(),
                first_text: Some(Instant::now()),
                cancelled_at: None,
                ended: None,
            });
        }
        // Only the running turn (the oldest not ended) of the named session is marked.
        mark_cancel(&ledger, "b");
        assert!(locked(&ledger).turns[1].cancelled_at.is_none());
        mark_cancel(&ledger, "a");
        let mut l = locked(&ledger);
        assert!(l.turns[0].cancelled_at.is_some());
        l.end(0, "cancelled");
        assert_eq!(l.streaming_latency.len(), 1);
        assert_eq!(l.running(), Some(1));
        l.end(0, "cancelled");
        assert_eq!(l.errors.get("turn: a second end event"), Some(&1));
        l.end(1, "answered");
        assert_eq!(l.unended(), 0);
        assert_eq!(
            l.streaming_latency.len(),
            1,
            "an uncancelled turn has no latency"
        );
    }
}
