//! The bridge's core, free of JNI: an agent and a model on one worker thread, a job queue,
//! per-turn cancel tokens, sentence splitting, timed host tools and statistics.
//!
//! The JNI layer ([`crate::jni_api`]) only converts values and implements [`EventSink`] and
//! [`HostCall`] with Java objects.

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{bounded, unbounded, Receiver, RecvTimeoutError, Sender};
use porfiry_agent::{
    Agent, AgentEvent, CancelToken, ExecutorTarget, GenerationStats, Model, Texts, ToolExecutor,
    ToolInvocation, TurnOutcome, TurnStop,
};
use serde_json::{json, Value};

use crate::error::BridgeError;
use crate::sentences::SentenceSplitter;

/// What a listener hears during one turn. Every turn ends with exactly one `Done` or `Error`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum BridgeEvent {
    /// A piece of visible reply text.
    Text(String),
    /// A completed sentence of the visible reply (for text-to-speech).
    Sentence(String),
    /// `show_text` output.
    ShowText(String),
    /// A tool is about to run; `args` as `key=value|...`.
    ToolStarted { name: String, args: String },
    /// A tool ran.
    ToolFinished {
        name: String,
        result: String,
        ok: bool,
    },
    /// The turn ended; a JSON object (see [`done_json`]).
    Done(Value),
    /// The turn failed.
    Error(String),
}

/// Where a turn's events go (a Java listener in production, a channel in unit tests).
pub(crate) trait EventSink: Send {
    /// Delivers one event. Returns false when the receiver failed (a Java listener threw);
    /// the turn goes on either way.
    fn deliver(&mut self, event: BridgeEvent) -> bool;
}

/// A host's tool implementation (a Java `ToolExecutor` in production). Runs on a helper
/// thread; may block, throw (→ `Err`) or never return.
pub(crate) trait HostCall: Send + Sync + 'static {
    /// Runs `tool` with the positional argument text.
    fn call(&self, tool: &str, args: &str) -> Result<String, HostFailure>;
}

/// Why a host tool gave no result. [`TimedExecutor`] turns it into the tool reply the model
/// reads, through the agent's message catalog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum HostFailure {
    /// The tool reported an error (a Java exception): its text, passed on as written.
    Threw(String),
    /// The tool returned nothing (a Java `null`).
    NoResult,
    /// The call itself failed in the bridge's machinery (a JNI error).
    Broken(String),
    /// The tool panicked (the panic message).
    Panicked(String),
}

/// Counters shared by the worker, the tool adapters and [`Assistant::stats`].
#[derive(Debug, Default)]
struct Counters {
    turns: AtomicU64,
    cancelled: AtomicU64,
    failed: AtomicU64,
    listener_errors: AtomicU64,
    tool_timeouts: AtomicU64,
    tool_failures: AtomicU64,
}

/// One queued or running turn, so `cancel` and `close` can reach it.
struct Pending {
    id: u64,
    session: String,
    cancel: CancelToken,
}

enum Job {
    Turn {
        id: u64,
        session: String,
        text: String,
        sink: Box<dyn EventSink>,
        cancel: CancelToken,
    },
    Register {
        toolset: String,
        executor: Arc<dyn ToolExecutor>,
    },
    Prompt {
        session: String,
        reply: Sender<String>,
    },
    Prepare {
        session: String,
        text: String,
    },
    Shutdown,
}

/// State shared between the handle side and the worker thread.
struct Shared {
    pending: Mutex<Vec<Pending>>,
    counters: Arc<Counters>,
    closing: AtomicBool,
    last_turn: Mutex<Value>,
    prompts: Mutex<HashMap<String, String>>,
    info: Value,
}

/// Locks a mutex, recovering the data if a panic poisoned it (the data is plain bookkeeping).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// How long [`Assistant::prompt`] waits for a busy worker before answering from its cache.
const PROMPT_WAIT: Duration = Duration::from_millis(500);

/// An agent + model served by one worker thread. All methods are thread-safe.
pub(crate) struct Assistant {
    jobs: Mutex<Option<Sender<Job>>>,
    worker: Mutex<Option<JoinHandle<()>>>,
    shared: Arc<Shared>,
    next_turn: AtomicU64,
    texts: Texts,
}

impl Assistant {
    /// Starts the worker thread. `on_thread_exit` runs on the worker right before it ends
    /// (the JNI layer has nothing to do there: attachments end with the thread).
    pub(crate) fn start(
        agent: Agent,
        model: Box<dyn Model + Send>,
        info: Value,
    ) -> Result<Self, BridgeError> {
        let texts = Texts::new(agent.config().lang);
        let (tx, rx) = unbounded();
        let shared = Arc::new(Shared {
            pending: Mutex::new(Vec::new()),
            counters: Arc::new(Counters::default()),
            closing: AtomicBool::new(false),
            last_turn: Mutex::new(Value::Null),
            prompts: Mutex::new(HashMap::new()),
            info,
        });
        let worker_shared = shared.clone();
        let worker = std::thread::Builder::new()
            .name("porfiry-worker".into())
            .spawn(move || worker_loop(agent, model, rx, worker_shared))
            .map_err(|e| BridgeError::Internal(format!("cannot start the worker thread: {e}")))?;
        Ok(Self {
            jobs: Mutex::new(Some(tx)),
            worker: Mutex::new(Some(worker)),
            shared,
            next_turn: AtomicU64::new(1),
            texts,
        })
    }

    fn enqueue(&self, job: Job) -> Result<(), BridgeError> {
        let jobs = lock(&self.jobs);
        let tx = jobs.as_ref().ok_or(BridgeError::Closed)?;
        tx.send(job).map_err(|_| BridgeError::Closed)
    }

    /// Queues a hint: the user is speaking in `session` and `partial` is what was heard so
    /// far. The worker has the model decode the turn's prompt up to those words
    /// ([`Agent::prepare_turn`]), so the turn sent when the user finishes prefills only the
    /// last words. Returns at once; hints are cheap to send often (the engine does only the
    /// newest when it gets to them).
    pub(crate) fn prepare(&self, session: &str, partial: &str) -> Result<(), BridgeError> {
        check_session(session)?;
        self.enqueue(Job::Prepare {
            session: session.to_string(),
            text: partial.to_string(),
        })
    }

    /// Queues a turn. Events go to `sink` from the worker thread.
    pub(crate) fn send(
        &self,
        session: &str,
        text: &str,
        sink: Box<dyn EventSink>,
    ) -> Result<(), BridgeError> {
        check_session(session)?;
        let id = self.next_turn.fetch_add(1, Ordering::Relaxed);
        let cancel = CancelToken::new();
        // Holding the jobs lock while registering keeps `close` from slipping in between.
        let jobs = lock(&self.jobs);
        let tx = jobs.as_ref().ok_or(BridgeError::Closed)?;
        lock(&self.shared.pending).push(Pending {
            id,
            session: session.to_string(),
            cancel: cancel.clone(),
        });
        let job = Job::Turn {
            id,
            session: session.to_string(),
            text: text.to_string(),
            sink,
            cancel,
        };
        if tx.send(job).is_err() {
            lock(&self.shared.pending).retain(|p| p.id != id);
            return Err(BridgeError::Closed);
        }
        Ok(())
    }

    /// Cancels the running and queued turns of `session`; whether there were any.
    pub(crate) fn cancel(&self, session: &str) -> Result<bool, BridgeError> {
        check_session(session)?;
        if lock(&self.jobs).is_none() {
            return Err(BridgeError::Closed);
        }
        let pending = lock(&self.shared.pending);
        let mut any = false;
        for p in pending.iter().filter(|p| p.session == session) {
            p.cancel.cancel();
            any = true;
        }
        Ok(any)
    }

    /// Registers a host toolset executor, wrapped with a timeout.
    pub(crate) fn register_toolset(
        &self,
        toolset: &str,
        host: Arc<dyn HostCall>,
        timeout: Duration,
    ) -> Result<(), BridgeError> {
        if toolset.trim().is_empty() {
            return Err(BridgeError::InvalidArgument("empty toolset name".into()));
        }
        let executor = Arc::new(TimedExecutor {
            host,
            timeout,
            texts: self.texts,
            counters: self.shared.counters.clone(),
        });
        self.enqueue(Job::Register {
            toolset: toolset.to_string(),
            executor,
        })
    }

    /// The system prompt of `session` for its next request. Waits briefly for the worker;
    /// while a long turn runs, answers with the prompt recorded at the end of the session's
    /// last turn.
    pub(crate) fn prompt(&self, session: &str) -> Result<String, BridgeError> {
        check_session(session)?;
        let (tx, rx) = bounded(1);
        self.enqueue(Job::Prompt {
            session: session.to_string(),
            reply: tx,
        })?;
        match rx.recv_timeout(PROMPT_WAIT) {
            Ok(p) => Ok(p),
            Err(_) => Ok(lock(&self.shared.prompts)
                .get(session)
                .cloned()
                .unwrap_or_else(|| {
                    "(busy: the prompt is available when the current turn ends)".to_string()
                })),
        }
    }

    /// Statistics as JSON.
    pub(crate) fn stats(&self) -> Result<Value, BridgeError> {
        if lock(&self.jobs).is_none() {
            return Err(BridgeError::Closed);
        }
        let c = &self.shared.counters;
        let get = |a: &AtomicU64| a.load(Ordering::Relaxed);
        Ok(json!({
            "model": self.shared.info,
            "turns": get(&c.turns),
            "cancelled": get(&c.cancelled),
            "failed": get(&c.failed),
            "listener_errors": get(&c.listener_errors),
            "tool_timeouts": get(&c.tool_timeouts),
            "tool_failures": get(&c.tool_failures),
            "queued": lock(&self.shared.pending).len(),
            "last_turn": *lock(&self.shared.last_turn),
        }))
    }

    /// Cancels everything, lets queued turns end with an error, stops the worker and waits
    /// for it (unless called from the worker itself, e.g. inside a listener).
    pub(crate) fn close(&self) -> Result<(), BridgeError> {
        let tx = lock(&self.jobs).take().ok_or(BridgeError::Closed)?;
        self.shared.closing.store(true, Ordering::SeqCst);
        for p in lock(&self.shared.pending).iter() {
            p.cancel.cancel();
        }
        // Every job was queued before this point, so Shutdown comes after all of them.
        let _ = tx.send(Job::Shutdown);
        drop(tx);
        let worker = lock(&self.worker).take();
        if let Some(handle) = worker {
            if handle.thread().id() != std::thread::current().id() {
                let _ = handle.join();
            }
        }
        Ok(())
    }
}

impl Drop for Assistant {
    fn drop(&mut self) {
        let _ = self.close();
    }
}

fn check_session(session: &str) -> Result<(), BridgeError> {
    if session.is_empty() {
        return Err(BridgeError::InvalidArgument("empty session name".into()));
    }
    Ok(())
}

fn worker_loop(
    mut agent: Agent,
    mut model: Box<dyn Model + Send>,
    rx: Receiver<Job>,
    shared: Arc<Shared>,
) {
    // Before the first turn: the static head every session starts with (restored from its
    // KV snapshot when the engine keeps one), so the first utterance prefills only itself.
    // A model that cannot prepare it works the same without.
    let _ = agent.warm_up(model.as_mut());
    for job in rx {
        match job {
            Job::Shutdown => break,
            Job::Register { toolset, executor } => {
                agent.register_executor(ExecutorTarget::Toolset(toolset), executor);
            }
            Job::Prepare { session, text } => {
                // Not behind a queued turn of the session: its own request does the work.
                let queued_turn = lock(&shared.pending).iter().any(|p| p.session == session);
                if !queued_turn {
                    let _ = catch_unwind(AssertUnwindSafe(|| {
                        agent.prepare_turn(&session, &text, model.as_mut())
                    }));
                }
            }
            Job::Prompt { session, reply } => {
                let text = prompt_text(&mut agent, &session);
                lock(&shared.prompts).insert(session, text.clone());
                let _ = reply.send(text);
            }
            Job::Turn {
                id,
                session,
                text,
                mut sink,
                cancel,
            } => {
                run_turn(
                    &mut agent,
                    model.as_mut(),
                    &shared,
                    &session,
                    &text,
                    sink.as_mut(),
                    &cancel,
                );
                lock(&shared.pending).retain(|p| p.id != id);
                // The sink (a Java global reference) is released here, on this attached thread.
                drop(sink);
            }
        }
    }
}

fn prompt_text(agent: &mut Agent, session: &str) -> String {
    catch_unwind(AssertUnwindSafe(|| {
        agent.prompt(session).text().to_string()
    }))
    .unwrap_or_else(|_| "(internal error while building the prompt)".to_string())
}

fn run_turn(
    agent: &mut Agent,
    model: &mut (dyn Model + Send),
    shared: &Shared,
    session: &str,
    text: &str,
    sink: &mut dyn EventSink,
    cancel: &CancelToken,
) {
    let counters = &shared.counters;
    let deliver = |sink: &mut dyn EventSink, event: BridgeEvent| {
        if !sink.deliver(event) {
            counters.listener_errors.fetch_add(1, Ordering::Relaxed);
        }
    };
    counters.turns.fetch_add(1, Ordering::Relaxed);
    if shared.closing.load(Ordering::SeqCst) {
        counters.failed.fetch_add(1, Ordering::Relaxed);
        deliver(
            sink,
            BridgeEvent::Error("the assistant was closed before this turn ran".into()),
        );
        return;
    }
    let started = Instant::now();
    if cancel.is_cancelled() {
        // Cancelled while queued: the turn never reaches the history.
        counters.cancelled.fetch_add(1, Ordering::Relaxed);
        deliver(
            sink,
            BridgeEvent::Done(json!({"stop": "cancelled", "text": "", "generations": 0})),
        );
        return;
    }
    let mut splitter = SentenceSplitter::new();
    let mut generations: Vec<(Option<GenerationStats>, bool)> = Vec::new();
    let result = {
        let mut on_event = |event: AgentEvent| match event {
            AgentEvent::Text(t) => {
                let sentences = splitter.push(&t);
                deliver(sink, BridgeEvent::Text(t));
                for s in sentences {
                    deliver(sink, BridgeEvent::Sentence(s));
                }
            }
            AgentEvent::ToolStarted { name, args } => {
                // Whatever was said before a tool call is spoken now, not after the tool.
                if let Some(rest) = splitter.finish() {
                    deliver(sink, BridgeEvent::Sentence(rest));
                }
                deliver(
                    sink,
                    BridgeEvent::ToolStarted {
                        name,
                        args: args.to_string(),
                    },
                );
            }
            AgentEvent::ToolFinished { name, result, ok } => {
                deliver(sink, BridgeEvent::ToolFinished { name, result, ok });
            }
            AgentEvent::ShowText(t) => deliver(sink, BridgeEvent::ShowText(t)),
            AgentEvent::Generation {
                stats, discarded, ..
            } => generations.push((stats, discarded)),
            AgentEvent::ToolsetEnabled { .. } | AgentEvent::ToolsetDisabled { .. } => {}
        };
        catch_unwind(AssertUnwindSafe(|| {
            agent.turn(session, text, model, cancel, &mut on_event)
        }))
    };
    if let Some(rest) = splitter.finish() {
        deliver(sink, BridgeEvent::Sentence(rest));
    }
    lock(&shared.prompts).insert(session.to_string(), prompt_text(agent, session));
    let turn_ms = started.elapsed().as_secs_f64() * 1000.0;
    let final_event = match result {
        Ok(Ok(outcome)) => match &outcome.stop {
            TurnStop::ModelError(msg) => {
                counters.failed.fetch_add(1, Ordering::Relaxed);
                BridgeEvent::Error(format!("model error: {msg}"))
            }
            stop => {
                if *stop == TurnStop::Cancelled || cancel.is_cancelled() {
                    counters.cancelled.fetch_add(1, Ordering::Relaxed);
                }
                let done = done_json(&outcome, cancel.is_cancelled(), &generations, turn_ms);
                *lock(&shared.last_turn) = done.clone();
                BridgeEvent::Done(done)
            }
        },
        Ok(Err(e)) => {
            counters.failed.fetch_add(1, Ordering::Relaxed);
            BridgeEvent::Error(e.to_string())
        }
        Err(panic) => {
            counters.failed.fetch_add(1, Ordering::Relaxed);
            BridgeEvent::Error(format!("internal error: {}", panic_message(&panic)))
        }
    };
    deliver(sink, final_event);
}

/// The `onDone` JSON: why the turn stopped, the reply, tools, and token accounting.
fn done_json(
    outcome: &TurnOutcome,
    cancelled: bool,
    generations: &[(Option<GenerationStats>, bool)],
    turn_ms: f64,
) -> Value {
    let stop = match outcome.stop {
        _ if cancelled => "cancelled",
        TurnStop::Answered => "answered",
        TurnStop::MaxIterations => "max_iterations",
        TurnStop::Cancelled => "cancelled",
        TurnStop::ModelError(_) => "model_error",
    };
    let measured: Vec<&GenerationStats> =
        generations.iter().filter_map(|(s, _)| s.as_ref()).collect();
    let sum = |f: fn(&GenerationStats) -> usize| measured.iter().map(|s| f(s)).sum::<usize>();
    let mut v = json!({
        "stop": stop,
        "text": outcome.reply,
        "streamed": outcome.streamed,
        "executed": outcome.executed.iter().map(|e| e.name.clone()).collect::<Vec<_>>(),
        "shown": outcome.shown,
        "generations": generations.len(),
        "discarded": generations.iter().filter(|(_, d)| *d).count(),
        "turn_ms": turn_ms,
    });
    if let (Some(first), Some(last)) = (measured.first(), measured.last()) {
        let extra = json!({
            "prompt_tokens": last.prompt_tokens,
            "reused_tokens": sum(|s| s.reused_tokens),
            "prefilled_tokens": sum(|s| s.prefilled_tokens),
            "anticipated_tokens": sum(|s| s.anticipated_tokens),
            "head_tokens": sum(|s| s.head_tokens),
            "generated_tokens": sum(|s| s.generated_tokens),
            "ttft_ms": first.ttft_ms,
            "prefill_tps": last.prefill_tps,
            "decode_tps": last.decode_tps,
            "full_reprefill": measured.iter().any(|s| s.full_reprefill),
        });
        if let (Value::Object(m), Value::Object(e)) = (&mut v, extra) {
            m.extend(e);
        }
    }
    v
}

fn panic_message(payload: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic".to_string()
    }
}

/// A host tool with a deadline: the call runs on its own thread; if it does not answer in
/// time, the model gets a tool error and the turn goes on (the late answer is dropped).
/// Every error text the model reads comes from the agent's catalog, in the agent's language.
struct TimedExecutor {
    host: Arc<dyn HostCall>,
    timeout: Duration,
    texts: Texts,
    counters: Arc<Counters>,
}

impl TimedExecutor {
    /// The tool reply for a failure of `tool`.
    fn failure_text(&self, tool: &str, failure: HostFailure) -> String {
        match failure {
            HostFailure::Threw(text) => text,
            HostFailure::NoResult => self.texts.host_tool_no_result(tool),
            HostFailure::Broken(why) => self.texts.host_tool_call_failed(tool, &why),
            HostFailure::Panicked(msg) => self.texts.host_tool_panicked(&msg),
        }
    }
}

impl ToolExecutor for TimedExecutor {
    fn execute(&self, call: &ToolInvocation<'_>) -> Result<String, String> {
        // Positional: values in declaration order, `|`-separated, as the model wrote them.
        let args = call
            .args
            .iter()
            .map(|(_, v)| v.to_string())
            .collect::<Vec<_>>()
            .join("|");
        let tool = call.tool.to_string();
        let host = self.host.clone();
        let (tx, rx) = bounded(1);
        let spawned = std::thread::Builder::new()
            .name("porfiry-tool".into())
            .spawn(move || {
                let result = catch_unwind(AssertUnwindSafe(|| host.call(&tool, &args)))
                    .unwrap_or_else(|p| Err(HostFailure::Panicked(panic_message(&p))));
                let _ = tx.send(result);
            });
        if let Err(e) = spawned {
            self.counters.tool_failures.fetch_add(1, Ordering::Relaxed);
            return Err(self.texts.host_tool_not_started(&e.to_string()));
        }
        match rx.recv_timeout(self.timeout) {
            Ok(Ok(text)) => Ok(text),
            Ok(Err(failure)) => {
                self.counters.tool_failures.fetch_add(1, Ordering::Relaxed);
                Err(self.failure_text(call.tool, failure))
            }
            Err(RecvTimeoutError::Timeout) => {
                self.counters.tool_timeouts.fetch_add(1, Ordering::Relaxed);
                Err(self.texts.host_tool_timeout(self.timeout.as_millis()))
            }
            Err(RecvTimeoutError::Disconnected) => {
                self.counters.tool_failures.fetch_add(1, Ordering::Relaxed);
                Err(self.texts.host_tool_vanished())
            }
        }
    }
}

/// Environment variable naming where the head's KV snapshots go (the app may set it to its
/// cache directory).
pub(crate) const KV_DIR_ENV: &str = "PORFIRY_KV_DIR";

/// Where the head's KV snapshots (and the model's cached hash) live: `$PORFIRY_KV_DIR`, else
/// `kv/` beside the model when that can be created, else `porfiry-kv` in the temporary
/// directory. A writable place matters on a phone: without one the model (250 MB) would be
/// hashed again at every start.
pub(crate) fn snapshot_dir(model_path: &std::path::Path) -> std::path::PathBuf {
    if let Some(dir) = std::env::var_os(KV_DIR_ENV).filter(|d| !d.is_empty()) {
        return dir.into();
    }
    // Only beside a model file that exists, and never creating more than `kv` itself: a
    // mistyped model path must not leave folders behind.
    let beside = model_path
        .parent()
        .filter(|_| model_path.is_file())
        .map(|p| p.join("kv"))
        .filter(|dir| (dir.is_dir() || std::fs::create_dir(dir).is_ok()) && tempfile_probe(dir));
    beside.unwrap_or_else(|| std::env::temp_dir().join("porfiry-kv"))
}

/// Whether a file can be created (and removed) in `dir`.
fn tempfile_probe(dir: &std::path::Path) -> bool {
    let probe = dir.join(format!(".probe-{}", std::process::id()));
    let ok = std::fs::write(&probe, b"").is_ok();
    let _ = std::fs::remove_file(&probe);
    ok
}

#[cfg(test)]
mod tests {
    #[test]
    fn snapshots_go_beside_the_model_or_to_a_writable_fallback() {
        let base = std::env::temp_dir().join(format!("porfiry-ffi-kv-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        std::fs::create_dir_all(&base).unwrap();
        let model = base.join("m.gguf");
        // No model file there: nothing is created beside it.
        assert_eq!(
            super::snapshot_dir(&model),
            std::env::temp_dir().join("porfiry-kv")
        );
        assert!(!base.join("kv").exists());
        std::fs::write(&model, b"GGUF").unwrap();
        assert_eq!(super::snapshot_dir(&model), base.join("kv"));
        // A missing folder is never created.
        let missing = base.join("no-such-dir").join("m.gguf");
        super::snapshot_dir(&missing);
        assert!(!base.join("no-such-dir").exists());
        // A model in a place where nothing can be created: the temporary directory.
        let nowhere = std::path::Path::new("/proc/porfiry-no-such-dir/m.gguf");
        assert_eq!(
            super::snapshot_dir(nowhere),
            std::env::temp_dir().join("porfiry-kv")
        );
        let _ = std::fs::remove_dir_all(&base);
    }

    use super::*;
    use crate::paced::PacedModel;
    use porfiry_agent::{
        parse_toolset, AgentConfig, Lang, ScriptedModel, SkillRegistry, SystemClock,
        ToolsetRegistry,
    };

    struct ChannelSink(Sender<BridgeEvent>);

    impl EventSink for ChannelSink {
        fn deliver(&mut self, event: BridgeEvent) -> bool {
            self.0.send(event).is_ok()
        }
    }

    /// An agent in `lang` with these toolsets (YAML) and no skills.
    fn agent(lang: Lang, toolsets: &[&str]) -> Agent {
        let sets = toolsets.iter().map(|yaml| {
            parse_toolset(yaml, std::path::Path::new("test.yaml")).expect("a valid toolset")
        });
        Agent::new(
            AgentConfig {
                lang,
                ..AgentConfig::default()
            },
            SkillRegistry::default(),
            ToolsetRegistry::from_toolsets(sets),
            Arc::new(SystemClock),
        )
    }

    /// A scripted model whose pieces come `delay_ms` apart.
    fn scripted(outputs: &[&str], delay_ms: u64) -> Box<PacedModel<ScriptedModel>> {
        Box::new(PacedModel::new(
            ScriptedModel::new(outputs.iter().copied()),
            Duration::from_millis(delay_ms),
        ))
    }

    fn assistant(outputs: &[&str], delay_ms: u64) -> Assistant {
        let model = scripted(outputs, delay_ms);
        Assistant::start(agent(Lang::Ru, &[]), model, json!({"kind": "test"})).unwrap()
    }

    /// Sends a turn and collects its events up to the ending one.
    fn turn(a: &Assistant, session: &str, text: &str) -> Receiver<BridgeEvent> {
        let (tx, rx) = unbounded();
        a.send(session, text, Box::new(ChannelSink(tx))).unwrap();
        rx
    }

    fn until_end(rx: &Receiver<BridgeEvent>) -> Vec<BridgeEvent> {
        let mut out = Vec::new();
        loop {
            let e = rx
                .recv_timeout(Duration::from_secs(10))
                .expect("turn ended");
            let last = matches!(e, BridgeEvent::Done(_) | BridgeEvent::Error(_));
            out.push(e);
            if last {
                return out;
            }
        }
    }

    #[test]
    fn a_turn_streams_sentences_then_done() {
        let a = assistant(&["Да. Нет!"], 0);
        let events = until_end(&turn(&a, "s", "вопрос"));
        let sentences: Vec<&BridgeEvent> = events
            .iter()
            .filter(|e| matches!(e, BridgeEvent::Sentence(_)))
            .collect();
        assert_eq!(
            sentences,
            vec![
                &BridgeEvent::Sentence("Да.".into()),
                &BridgeEvent::Sentence("Нет!".into())
            ]
        );
        let BridgeEvent::Done(done) = events.last().unwrap() else {
            panic!("{events:?}")
        };
        assert_eq!(done["stop"], "answered");
        assert_eq!(done["text"], "Да. Нет!");
        a.close().unwrap();
        assert!(matches!(a.close(), Err(BridgeError::Closed)));
        assert!(matches!(a.stats(), Err(BridgeError::Closed)));
    }

    /// A scripted model that shares what it was asked: generated requests' user messages,
    /// and prefill hints' last user message.
    struct Recording {
        inner: ScriptedModel,
        seen: Arc<Mutex<(Vec<Vec<String>>, Vec<String>)>>,
    }

    fn users(messages: &[porfiry_agent::Message]) -> Vec<String> {
        messages
            .iter()
            .filter(|m| m.role == porfiry_agent::Role::User && !m.content.starts_with("Скиллы"))
            .map(|m| m.content.clone())
            .collect()
    }

    impl Model for Recording {
        fn generate(
            &mut self,
            request: &porfiry_agent::ModelRequest<'_>,
            on_text: &mut dyn FnMut(&str),
        ) -> Result<porfiry_agent::Generation, porfiry_agent::ModelError> {
            lock(&self.seen).0.push(users(request.messages));
            self.inner.generate(request, on_text)
        }
        fn prefill(
            &mut self,
            request: &porfiry_agent::ModelRequest<'_>,
        ) -> Result<(), porfiry_agent::ModelError> {
            let last = users(request.messages).pop().unwrap_or_default();
            lock(&self.seen).1.push(last);
            Ok(())
        }
    }

    #[test]
    fn prepare_is_a_hint_that_changes_no_turn() {
        let seen = Arc::new(Mutex::new((Vec::new(), Vec::new())));
        let model = Box::new(Recording {
            inner: ScriptedModel::new(["Да."]),
            seen: seen.clone(),
        });
        let a = Assistant::start(agent(Lang::Ru, &[]), model, json!({})).unwrap();
        a.prepare("s", "вопр").unwrap();
        a.prepare("s", "вопрос").unwrap();
        assert!(matches!(
            a.prepare("", "x"),
            Err(BridgeError::InvalidArgument(_))
        ));
        // The prompt job queues behind the hints: when it answers, they have run.
        a.prompt("s").unwrap();
        let events = until_end(&turn(&a, "s", "вопрос"));
        let BridgeEvent::Done(done) = events.last().unwrap() else {
            panic!("{events:?}")
        };
        assert_eq!(done["text"], "Да.");
        // Both hints reached the model; they left no trace in the session: the turn's
        // request holds one user message.
        let (turns, hints) = lock(&seen).clone();
        assert_eq!(hints, vec!["вопр".to_string(), "вопрос".to_string()]);
        assert_eq!(turns, vec![vec!["вопрос".to_string()]]);
        a.close().unwrap();
        assert!(matches!(a.prepare("s", "x"), Err(BridgeError::Closed)));
    }

    #[test]
    fn an_exhausted_script_is_an_error_event_and_the_worker_keeps_serving() {
        let a = assistant(&["Один."], 0);
        until_end(&turn(&a, "s", "1"));
        let events = until_end(&turn(&a, "s", "2"));
        assert!(
            matches!(events.last(), Some(BridgeEvent::Error(m)) if m.contains("model error")),
            "{events:?}"
        );
        let stats = a.stats().unwrap();
        assert_eq!(stats["turns"], 2);
        assert_eq!(stats["failed"], 1);
    }

    #[test]
    fn close_ends_the_running_turn_and_fails_the_queued_ones() {
        let a = assistant(
            &["Длинный ответ из многих слов, очень длинный.", "Второй."],
            20,
        );
        let first = turn(&a, "s", "1");
        let second = turn(&a, "t", "2");
        assert!(matches!(
            first.recv_timeout(Duration::from_secs(10)),
            Ok(BridgeEvent::Text(_))
        ));
        a.close().unwrap();
        let e1 = until_end(&first);
        assert!(
            matches!(e1.last(), Some(BridgeEvent::Done(d)) if d["stop"] == "cancelled"),
            "{e1:?}"
        );
        let e2 = until_end(&second);
        assert!(
            matches!(e2.last(), Some(BridgeEvent::Error(m)) if m.contains("closed")),
            "{e2:?}"
        );
        assert!(matches!(
            a.send("s", "x", Box::new(ChannelSink(unbounded().0))),
            Err(BridgeError::Closed)
        ));
    }

    /// A model that panics on its first generation and answers afterwards.
    struct Explosive(bool);

    impl Model for Explosive {
        fn generate(
            &mut self,
            _request: &porfiry_agent::ModelRequest<'_>,
            on_text: &mut dyn FnMut(&str),
        ) -> Result<porfiry_agent::Generation, porfiry_agent::ModelError> {
            if !self.0 {
                self.0 = true;
                panic!("model bug");
            }
            on_text("Цел.");
            Ok(porfiry_agent::Generation {
                text: "Цел.".into(),
                stop: porfiry_agent::StopReason::EndOfTurn,
                stats: None,
            })
        }
    }

    #[test]
    fn a_panic_inside_a_turn_is_an_error_event_and_the_worker_survives() {
        let model = Box::new(Explosive(false));
        let a = Assistant::start(agent(Lang::Ru, &[]), model, json!({})).unwrap();
        let events = until_end(&turn(&a, "s", "1"));
        assert!(
            matches!(events.last(), Some(BridgeEvent::Error(m)) if m == "internal error: model bug"),
            "{events:?}"
        );
        let events = until_end(&turn(&a, "s", "2"));
        assert!(
            matches!(events.last(), Some(BridgeEvent::Done(d)) if d["text"] == "Цел."),
            "{events:?}"
        );
        assert!(a.prompt("s").unwrap().contains("show_text"));
        a.close().unwrap();
    }

    struct Sleepy(Duration);

    impl HostCall for Sleepy {
        fn call(&self, _tool: &str, args: &str) -> Result<String, HostFailure> {
            std::thread::sleep(self.0);
            match args {
                "panic" => panic!("executor bug"),
                "fail" => Err(HostFailure::Threw("boom".into())),
                "null" => Err(HostFailure::NoResult),
                "jni" => Err(HostFailure::Broken("JNI error".into())),
                _ => Ok(format!("got {args}")),
            }
        }
    }

    fn invoke(exec: &TimedExecutor, args: &porfiry_agent::Args) -> Result<String, String> {
        exec.execute(&ToolInvocation {
            session: "s",
            toolset: "media",
            tool: "media_search",
            args,
        })
    }

    #[test]
    fn timed_executor_answers_fails_and_times_out() {
        let counters = Arc::new(Counters::default());
        let decl = vec![porfiry_agent::ArgDecl {
            name: "query".into(),
            ty: porfiry_agent::ArgType::String,
            required: true,
            description: None,
        }];
        let args = |v: &str| {
            porfiry_agent::validate_args(&decl, &porfiry_agent::RawArgs::Parts(vec![v.to_string()]))
                .unwrap()
        };
        let quick = TimedExecutor {
            host: Arc::new(Sleepy(Duration::ZERO)),
            timeout: Duration::from_secs(5),
            texts: Texts::new(Lang::En),
            counters: counters.clone(),
        };
        assert_eq!(
            invoke(&quick, &args("кот 🐈")),
            Ok("got кот 🐈".to_string())
        );
        assert_eq!(invoke(&quick, &args("fail")), Err("boom".to_string()));
        assert_eq!(
            invoke(&quick, &args("panic")),
            Err("internal error: executor bug".to_string())
        );
        assert_eq!(
            invoke(&quick, &args("null")),
            Err("media_search returned no result".to_string())
        );
        assert_eq!(
            invoke(&quick, &args("jni")),
            Err("media_search failed: JNI error".to_string())
        );
        let slow = TimedExecutor {
            host: Arc::new(Sleepy(Duration::from_secs(2))),
            timeout: Duration::from_millis(50),
            texts: Texts::new(Lang::Ru),
            counters: counters.clone(),
        };
        let started = Instant::now();
        assert_eq!(
            invoke(&slow, &args("x")),
            Err("инструмент не ответил за 50 мс".to_string())
        );
        // The timeout fired: the reply came before the 2 s tool could have answered.
        assert!(started.elapsed() < Duration::from_millis(1900));
        assert_eq!(counters.tool_timeouts.load(Ordering::Relaxed), 1);
        assert_eq!(counters.tool_failures.load(Ordering::Relaxed), 4);
    }

    const SEARCH: &str = "\
name: media
description: media
tools:
  - name: media_search
    description: search
    args:
      - {name: query, type: string, required: true}
";

    /// The reply the model got for a slow host tool, in an assistant of `lang`.
    fn timeout_reply(lang: Lang) -> String {
        let a = Assistant::start(
            agent(lang, &[SEARCH]),
            scripted(&["TOOL_CALL: media_search|x", "ok"], 0),
            json!({}),
        )
        .unwrap();
        let slow = Arc::new(Sleepy(Duration::from_secs(2)));
        a.register_toolset("media", slow, Duration::from_millis(50))
            .unwrap();
        let events = until_end(&turn(&a, "s", "q"));
        a.close().unwrap();
        events
            .into_iter()
            .find_map(|e| match e {
                BridgeEvent::ToolFinished { result, ok, .. } => {
                    assert!(!ok, "{result}");
                    Some(result)
                }
                _ => None,
            })
            .expect("the tool ran")
    }

    #[test]
    fn tool_timeouts_speak_the_agent_language() {
        assert_eq!(
            timeout_reply(Lang::En),
            "Error in media_search: the tool did not answer within 50 ms"
        );
        assert_eq!(
            timeout_reply(Lang::Ru),
            "Ошибка media_search: инструмент не ответил за 50 мс"
        );
    }
}
