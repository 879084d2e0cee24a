//! `porfiry bench contention`: the runtime on a busy machine. The scripted dialogue, a
//! burst of cancels (generations and embeddings) and a burst of closes (an engine dropped in
//! the middle of a generation or an embedding), each under one [`Condition`]: quiet, with
//! other CPU-bound processes busy on the cores, or with the process narrowed to fewer CPUs
//! than it has threads. One process measures one thread setting (its thread count, and the
//! OpenMP waiting its environment chose); `porfiry bench contention --settings` runs several
//! settings side by side in child processes and reports every figure as a ratio to quiet.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use porfiry_agent::PromptLayout;
use porfiry_engine::{CancelToken, Engine, EngineParams, Event, GenerateRequest, Message};
use serde::{Deserialize, Serialize};

use crate::cancel::{Quantiles, Rng};
use crate::engine::{load_engine, play_on_engine_with, resolve_model};
use crate::error::BenchError;
use crate::run::Speaking;
use crate::soak::Spread;
use crate::Dialogue;

/// A close or cancel that has not ended this long after it was asked for is a hang.
pub const CONTENTION_HANG_AFTER: Duration = Duration::from_secs(60);

/// What else runs while the runtime works.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Condition {
    /// Nothing else.
    Quiet,
    /// This many CPU-bound processes per core (`busy1`, `busy2`).
    Busy(u32),
    /// The process may run on this many CPUs only (`cpus1`): its scheduler affinity, as a
    /// phone narrows an app that leaves the foreground.
    Cpus(u32),
}

impl Condition {
    /// `quiet`, `busyN` (N CPU-bound processes per core), `cpusN` (N CPUs allowed).
    ///
    /// # Errors
    /// A message naming the accepted forms.
    pub fn parse(text: &str) -> Result<Self, String> {
        let t = text.trim();
        let number = |rest: &str| rest.parse::<u32>().ok().filter(|n| *n > 0);
        if t == "quiet" {
            Ok(Self::Quiet)
        } else if let Some(n) = t.strip_prefix("busy").and_then(number) {
            Ok(Self::Busy(n))
        } else if let Some(n) = t.strip_prefix("cpus").and_then(number) {
            Ok(Self::Cpus(n))
        } else {
            Err(format!(
                "unknown condition {t:?}: quiet, busyN (N CPU-bound processes per core) or cpusN \
                 (the process narrowed to N CPUs)"
            ))
        }
    }

    /// The name [`Condition::parse`] reads.
    pub fn name(self) -> String {
        match self {
            Self::Quiet => "quiet".into(),
            Self::Busy(n) => format!("busy{n}"),
            Self::Cpus(n) => format!("cpus{n}"),
        }
    }
}

/// The default conditions: quiet, one and two CPU-bound processes per core, one CPU.
pub const DEFAULT_CONDITIONS: [Condition; 4] = [
    Condition::Quiet,
    Condition::Busy(1),
    Condition::Busy(2),
    Condition::Cpus(1),
];

/// What `porfiry bench contention` measures in one process.
#[derive(Debug, Clone)]
pub struct ContentionBench {
    /// Model id or path (default: the manifest's default).
    pub model: Option<String>,
    /// Engine threads (`None`: the engine's default).
    pub threads: Option<u32>,
    /// The nice value the compute threads ask for (`None`: the engine's default,
    /// `EngineParams::nice`).
    pub nice: Option<i32>,
    /// Turns of the scripted dialogue played per condition.
    pub turns: usize,
    /// Sampled answers per condition (greedy, short questions, fresh sessions).
    pub answers: usize,
    /// Cancels per condition (generations in prefill, in decode, embeddings).
    pub cancels: usize,
    /// Closes per condition (during a generation, during an embedding).
    pub closes: usize,
    /// The conditions, in order.
    pub conditions: Vec<Condition>,
    /// Seed of the delays before each cancel and close.
    pub seed: u64,
}

/// The figures of one condition.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ConditionReport {
    /// [`Condition::name`].
    pub condition: String,
    /// Threads the engine was loaded with (decode).
    pub threads: u32,
    /// The nice value its compute threads ran at (`ModelInfo::nice`).
    #[serde(default)]
    pub nice: Option<i32>,
    /// Model load, ms (the first of the condition's loads).
    pub load_ms: f64,
    /// Dialogue turns: wall time, ms.
    pub turn_ms: Spread,
    /// Dialogue turns: time to the first token, ms.
    pub ttft_ms: Spread,
    /// Dialogue turns: decode speed, tokens/s.
    pub decode_tps: Spread,
    /// Sampled answers: wall time, ms.
    pub answer_ms: Spread,
    /// Sampled answers: decode speed, tokens/s.
    pub answer_tps: Spread,
    /// Cancel → end of the stream (or the embedding's return), ms.
    pub cancel_ms: Quantiles,
    /// Close (stop asked) → the engine dropped and its worker joined, ms.
    pub close_ms: Quantiles,
    /// Cancels and closes that took longer than [`CONTENTION_HANG_AFTER`] (or never ended).
    pub hangs: usize,
}

/// The figures of one thread setting under every condition.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ContentionReport {
    /// The setting's label (thread count, OpenMP waiting, build).
    pub setting: String,
    /// One per condition, in order.
    pub conditions: Vec<ConditionReport>,
}

/// CPU-bound processes (`sh` loops), stopped when dropped.
pub struct Busy(Vec<Child>);

impl Busy {
    /// Start `n` of them.
    ///
    /// # Errors
    /// A process cannot be started.
    pub fn start(n: usize) -> Result<Self, BenchError> {
        let mut children = Vec::with_capacity(n);
        for _ in 0..n {
            let child = Command::new("sh")
                .args(["-c", "while :; do :; done"])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .map_err(|e| BenchError::Engine(format!("cannot start a busy process: {e}")))?;
            children.push(child);
        }
        Ok(Self(children))
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// The calling thread's CPU affinity, narrowed to its first `n` CPUs for as long as the
/// guard lives; threads started meanwhile (the engine's) inherit it.
struct Narrowed(Option<libc::cpu_set_t>);

impl Narrowed {
    fn to(n: u32) -> Self {
        // SAFETY: zeroed cpu_set_t values filled and read by the libc macros and calls on
        // this thread (pid 0).
        unsafe {
            let mut old: libc::cpu_set_t = std::mem::zeroed();
            let size = std::mem::size_of::<libc::cpu_set_t>();
            if libc::sched_getaffinity(0, size, &mut old) != 0 {
                return Self(None);
            }
            let mut new: libc::cpu_set_t = std::mem::zeroed();
            let mut taken = 0;
            for cpu in 0..libc::CPU_SETSIZE as usize {
                if taken < n && libc::CPU_ISSET(cpu, &old) {
                    libc::CPU_SET(cpu, &mut new);
                    taken += 1;
                }
            }
            if libc::sched_setaffinity(0, size, &new) != 0 {
                return Self(None);
            }
            Self(Some(old))
        }
    }
}

impl Drop for Narrowed {
    fn drop(&mut self) {
        if let Some(old) = &self.0 {
            // SAFETY: restores the set read in `to`, on the same thread.
            unsafe {
                libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), old);
            }
        }
    }
}

/// A delay in `0..max_ms` milliseconds.
fn delay(rng: &mut Rng, max_ms: u64) -> Duration {
    Duration::from_millis(rng.range(0, max_ms.max(1) as usize - 1) as u64)
}

/// A long prompt (about 600 tokens), different for every `i` from its first words so no
/// request reuses another's cache.
fn long_prompt(i: usize) -> Vec<Message> {
    let mut text = format!("Request {i}. ");
    for k in 0..40 {
        text.push_str(&format!(
            "Line {k}: the quick brown fox jumps over the lazy dog near the river bank. "
        ));
    }
    vec![Message::user(text)]
}

/// Texts for an embedding long enough to be stopped (several decodes), new for every `i`.
fn embed_texts(i: usize) -> Vec<String> {
    (0..64)
        .map(|k| format!("request {i}-{k}: set a timer for {k} minutes and remind me to call mum"))
        .collect()
}

/// Run `bench` in this process; `progress` gets a line per step.
///
/// # Errors
/// The model cannot be resolved or loaded, the dialogue does not run, a busy process cannot
/// be started.
pub fn run_contention(
    bench: &ContentionBench,
    setting: &str,
    progress: &mut dyn FnMut(&str),
) -> Result<ContentionReport, BenchError> {
    let model = resolve_model(bench.model.as_deref())?;
    let dialogue = Dialogue::builtin()?.take(Some(bench.turns))?;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut rng = Rng(bench.seed);
    let mut report = ContentionReport {
        setting: setting.to_owned(),
        conditions: Vec::new(),
    };
    for &condition in &bench.conditions {
        let _busy = match condition {
            Condition::Busy(n) => Some(Busy::start(cores * n as usize)?),
            _ => None,
        };
        let _narrowed = match condition {
            Condition::Cpus(n) => Some(Narrowed::to(n)),
            _ => None,
        };
        // Let the scheduler spread the busy processes before measuring.
        std::thread::sleep(Duration::from_millis(300));
        let name = condition.name();
        progress(&format!("{setting} {name}: dialogue"));
        let mut c = ConditionReport {
            condition: name.clone(),
            ..ConditionReport::default()
        };
        let defaults = EngineParams::default();
        let params = EngineParams {
            threads: bench.threads,
            nice: bench.nice.or(defaults.nice),
            ..defaults
        };
        let started = Instant::now();
        let engine = load_engine(&model, params.clone())?;
        c.load_ms = started.elapsed().as_secs_f64() * 1e3;
        c.threads = engine.info().threads;
        c.nice = engine.info().nice;
        let (dialogue_report, _, engine) = play_on_engine_with(
            &dialogue,
            PromptLayout::default(),
            engine,
            true,
            true,
            Speaking::Typed,
            false,
        )?;
        let turns = &dialogue_report.turns;
        c.turn_ms = Spread::of(turns.iter().map(|t| t.stats.turn_ms).collect());
        c.ttft_ms = Spread::of(turns.iter().map(|t| t.stats.ttft_ms).collect());
        c.decode_tps = Spread::of(
            turns
                .iter()
                .map(|t| t.stats.decode_tps)
                .filter(|v| *v > 0.0)
                .collect(),
        );
        progress(&format!("{setting} {name}: answers"));
        let mut answer_ms = Vec::new();
        let mut answer_tps = Vec::new();
        for i in 0..bench.answers {
            if let Some(stats) = answer(&engine, i) {
                answer_ms.push(stats.total_ms);
                if stats.decode_tps > 0.0 {
                    answer_tps.push(stats.decode_tps);
                }
            }
        }
        c.answer_ms = Spread::of(answer_ms);
        c.answer_tps = Spread::of(answer_tps);
        progress(&format!("{setting} {name}: cancels"));
        let mut cancel_ms = Vec::new();
        for i in 0..bench.cancels {
            let waited = match i % 3 {
                0 => cancel_generation(&engine, i, false, &mut rng),
                1 => cancel_generation(&engine, i, true, &mut rng),
                _ => cancel_embedding(&engine, i, &mut rng),
            };
            match waited {
                Some(ms) if ms < CONTENTION_HANG_AFTER.as_secs_f64() * 1e3 => cancel_ms.push(ms),
                Some(ms) => {
                    cancel_ms.push(ms);
                    c.hangs += 1;
                }
                None => c.hangs += 1,
            }
        }
        drop(engine);
        progress(&format!("{setting} {name}: closes"));
        let mut close_ms = Vec::new();
        for i in 0..bench.closes {
            let engine = load_engine(&model, params.clone())?;
            let ms = if i % 2 == 0 {
                close_during_generation(engine, i, &mut rng)
            } else {
                close_during_embedding(engine, i, &mut rng)
            };
            if ms >= CONTENTION_HANG_AFTER.as_secs_f64() * 1e3 {
                c.hangs += 1;
            }
            close_ms.push(ms);
        }
        c.cancel_ms = Quantiles::of(cancel_ms);
        c.close_ms = Quantiles::of(close_ms);
        report.conditions.push(c);
    }
    Ok(report)
}

/// Short questions answered greedily (the voice assistant's usual turn), in both languages.
const QUESTIONS: [&str; 6] = [
    "Расскажи коротко про море",
    "Tell me briefly about the sea",
    "Что такое радуга?",
    "What is a rainbow?",
    "Расскажи коротко про горы",
    "Tell me briefly about the mountains",
];

/// Answer question `i` in a fresh session (greedy, at most 48 tokens): its figures.
fn answer(engine: &Engine, i: usize) -> Option<porfiry_engine::GenerationStats> {
    let question = QUESTIONS[i % QUESTIONS.len()];
    let mut req = GenerateRequest::new(
        format!("answer-{i}"),
        "You are Porfiry, a voice assistant. Answer in one or two short sentences.",
        vec![Message::user(question)],
    );
    req.config.max_tokens = 48;
    req.config.sampling.temperature = 0.0;
    let rx = engine.submit(req).ok()?;
    let stats = loop {
        match rx.recv_timeout(CONTENTION_HANG_AFTER) {
            Ok(Event::Text(_)) => {}
            Ok(Event::Done(c)) => break Some(c.stats),
            Ok(Event::Error(_)) | Err(_) => break None,
        }
    };
    let _ = engine.end_session(&format!("answer-{i}"));
    stats
}

/// A generation of a long prompt cancelled after a random delay (`in_decode`: once the
/// first text has come); cancel → end of the stream in ms, `None` when it never ended.
fn cancel_generation(engine: &Engine, i: usize, in_decode: bool, rng: &mut Rng) -> Option<f64> {
    let mut req = GenerateRequest::new(format!("cancel-{i}"), "You are terse.", long_prompt(i));
    req.config.max_tokens = 256;
    req.config.sampling.temperature = 0.0;
    let cancel = req.cancel.clone();
    let rx = engine.submit(req).ok()?;
    if in_decode {
        match rx.recv_timeout(CONTENTION_HANG_AFTER) {
            Ok(Event::Text(_)) => {}
            Ok(_) => return Some(0.0),
            Err(_) => return None,
        }
        std::thread::sleep(delay(rng, 100));
    } else {
        std::thread::sleep(delay(rng, 300));
    }
    let asked = Instant::now();
    cancel.cancel();
    let end = Instant::now() + CONTENTION_HANG_AFTER;
    loop {
        match rx.recv_timeout(end.saturating_duration_since(Instant::now())) {
            Ok(Event::Text(_)) => {}
            Ok(_) => return Some(asked.elapsed().as_secs_f64() * 1e3),
            Err(_) => return None,
        }
    }
}

/// An embedding of many texts cancelled after a random delay; cancel → return in ms.
fn cancel_embedding(engine: &Engine, i: usize, rng: &mut Rng) -> Option<f64> {
    let texts = embed_texts(i);
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let cancel = CancelToken::new();
    let wait = delay(rng, 300);
    std::thread::scope(|s| {
        let worker = s.spawn(|| engine.embed_until(&refs, Some(&cancel)));
        std::thread::sleep(wait);
        let asked = Instant::now();
        cancel.cancel();
        let _ = worker.join().ok()?;
        Some(asked.elapsed().as_secs_f64() * 1e3)
    })
}

/// Drop `engine` a random moment into a generation: close → dropped, ms.
fn close_during_generation(engine: Engine, i: usize, rng: &mut Rng) -> f64 {
    let mut req = GenerateRequest::new(format!("close-{i}"), "You are terse.", long_prompt(i));
    req.config.max_tokens = 256;
    let rx = engine.submit(req).ok();
    std::thread::sleep(delay(rng, 600));
    let asked = Instant::now();
    drop(engine);
    drop(rx);
    asked.elapsed().as_secs_f64() * 1e3
}

/// Stop and drop `engine` a random moment into an embedding, as a closing host does (the
/// stop from its own thread, the drop once the call returned): close → dropped, ms.
fn close_during_embedding(engine: Engine, i: usize, rng: &mut Rng) -> f64 {
    let texts = embed_texts(1_000 + i);
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let stopper = engine.stopper();
    let wait = delay(rng, 300);
    let asked = std::thread::scope(|s| {
        let worker = s.spawn(|| engine.embed(&refs));
        std::thread::sleep(wait);
        let asked = Instant::now();
        stopper.stop();
        let _ = worker.join();
        asked
    });
    drop(engine);
    asked.elapsed().as_secs_f64() * 1e3
}

/// `report`'s figures as ratios to its own quiet condition (and to `reference`'s quiet, when
/// given), one line per condition.
pub fn contention_table(reports: &[ContentionReport]) -> String {
    let mut out = String::new();
    let reference = reports
        .first()
        .and_then(|r| r.conditions.iter().find(|c| c.condition == "quiet"));
    out.push_str(&format!(
        "{:<22} {:<7} {:>3} {:>4} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>8} {:>9} {:>9} {:>9} {:>5}\n",
        "setting",
        "load",
        "thr",
        "nice",
        "turn p50",
        "turn p95",
        "ttft p50",
        "tok/s",
        "ans p50",
        "ans p95",
        "ans tok/s",
        "vs ref",
        "cancel99",
        "close99",
        "close max",
        "hangs"
    ));
    for r in reports {
        let quiet = r.conditions.iter().find(|c| c.condition == "quiet");
        for c in &r.conditions {
            let ratio = |v: f64, q: Option<f64>| match q {
                Some(q) if q > 0.0 => format!("{:.2}x", v / q),
                _ => "-".into(),
            };
            let (turn50, turn95, ttft, tps, ans50, ans95, ans_tps) = match quiet {
                Some(q) if q.condition != c.condition => (
                    ratio(c.turn_ms.median, Some(q.turn_ms.median)),
                    ratio(c.turn_ms.p95, Some(q.turn_ms.p95)),
                    ratio(c.ttft_ms.median, Some(q.ttft_ms.median)),
                    ratio(c.decode_tps.median, Some(q.decode_tps.median)),
                    ratio(c.answer_ms.median, Some(q.answer_ms.median)),
                    ratio(c.answer_ms.p95, Some(q.answer_ms.p95)),
                    ratio(c.answer_tps.median, Some(q.answer_tps.median)),
                ),
                _ => (
                    format!("{:.0}ms", c.turn_ms.median),
                    format!("{:.0}ms", c.turn_ms.p95),
                    format!("{:.0}ms", c.ttft_ms.median),
                    format!("{:.1}", c.decode_tps.median),
                    format!("{:.0}ms", c.answer_ms.median),
                    format!("{:.0}ms", c.answer_ms.p95),
                    format!("{:.1}", c.answer_tps.median),
                ),
            };
            out.push_str(&format!(
                "{:<22} {:<7} {:>3} {:>4} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>8} {:>7.0}ms {:>7.0}ms {:>7.0}ms {:>5}\n",
                r.setting,
                c.condition,
                c.threads,
                c.nice.map_or_else(|| "-".to_owned(), |n| n.to_string()),
                turn50,
                turn95,
                ttft,
                tps,
                ans50,
                ans95,
                ans_tps,
                ratio(c.turn_ms.median, reference.map(|q| q.turn_ms.median)),
                c.cancel_ms.p99,
                c.close_ms.p99,
                c.close_ms.max,
                c.hangs
            ));
        }
    }
    out.push_str(
        "(turn: the scripted dialogue's turns (teacher-forced); ans: short questions answered \
         greedily; quiet rows: absolute figures; other rows: ratio to the setting's own quiet row \
         (tok/s: busy / quiet); vs ref: median turn against the first setting's quiet median; cancel99, \
         close99: p99 latency of cancels (generations in prefill and decode, embeddings) and \
         closes (during a generation, during an embedding))\n",
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conditions_parse_and_name_themselves() {
        for c in DEFAULT_CONDITIONS {
            assert_eq!(Condition::parse(&c.name()), Ok(c));
        }
        assert_eq!(Condition::parse("busy3"), Ok(Condition::Busy(3)));
        assert!(Condition::parse("busy0").is_err());
        assert!(Condition::parse("loud").unwrap_err().contains("quiet"));
    }

    #[test]
    fn a_narrowed_thread_runs_on_fewer_cpus_and_gets_them_back() {
        let before = porfiry_engine::allowed_cpus();
        {
            let _n = Narrowed::to(1);
            assert_eq!(porfiry_engine::allowed_cpus(), Some(1));
        }
        assert_eq!(porfiry_engine::allowed_cpus(), before);
    }

    #[test]
    fn the_table_gives_ratios_to_quiet() {
        let row = |name: &str, turn: f64| ConditionReport {
            condition: name.into(),
            turn_ms: Spread {
                n: 1,
                median: turn,
                p95: turn,
                max: turn,
            },
            ..ConditionReport::default()
        };
        let report = ContentionReport {
            setting: "2".into(),
            conditions: vec![row("quiet", 100.0), row("busy1", 250.0)],
        };
        let table = contention_table(&[report]);
        assert!(table.contains("100ms"), "{table}");
        assert!(table.contains("2.50x"), "{table}");
    }
}
