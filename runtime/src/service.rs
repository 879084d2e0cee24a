//! [`Service`]: a [`Runtime`] on its own worker thread, for hosts whose callers may not
//! block (the phone bridge: Java's UI thread, recognizer callbacks, listeners).
//!
//! One worker thread serves a FIFO job queue: turns, host toolset registrations, prompt
//! requests, partial-transcript hints, session ends and the shutdown. Turns run one at a
//! time in send order, whatever session they belong to (the engine is one llama.cpp context
//! anyway), and each has its own cancel token, so [`Service::cancel`] reaches the running turn
//! and the queued ones of that session only.
//!
//! A turn's events go to its [`EventSink`] from the worker thread: text pieces, completed
//! sentences ([`SentenceSplitter`], for text-to-speech), `show_text`, tool started/finished,
//! then exactly one [`ServiceEvent::Done`] (the `onDone` JSON: the turn's [`TurnStats`] under
//! their own names, plus `stop`, `text`, `streamed`, `executed`, `shown`) or
//! [`ServiceEvent::Error`].
//!
//! Close rules: [`Service::close`] cancels the running and queued turns, queues the shutdown
//! behind every job already queued (jobs are queued under the lock `close` takes first), so
//! each queued turn still ends — with an error saying the service was closed — and waits for
//! the worker unless called from the worker itself (a listener closing the service).

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

use crossbeam_channel::{bounded, unbounded, Receiver, Sender};
use porfiry_agent::{AgentEvent, CancelToken, TurnOutcome, TurnStop};
use serde_json::{json, Value};

use crate::host_tools::{panic_message, HostCall, ToolCounters};
use crate::runtime::Runtime;
use crate::sentences::SentenceSplitter;
use crate::stats::TurnStats;

/// What a [`Service`] call can fail with.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// The service was closed (before or while the call ran).
    #[error("the assistant is closed")]
    Closed,
    /// An invalid argument (an empty session or toolset name).
    #[error("{0}")]
    InvalidArgument(String),
    /// Anything else (the worker thread could not be started, ...).
    #[error("{0}")]
    Internal(String),
}

/// What a sink hears during one turn. Every turn ends with exactly one `Done` or `Error`.
#[derive(Debug, Clone, PartialEq)]
pub enum ServiceEvent {
    /// A piece of visible reply text.
    Text(String),
    /// A completed sentence of the visible reply (for text-to-speech).
    Sentence(String),
    /// `show_text` output.
    ShowText(String),
    /// A tool is about to run.
    ToolStarted {
        /// The tool.
        name: String,
        /// Its arguments as `key=value|...`.
        args: String,
    },
    /// A tool ran.
    ToolFinished {
        /// The tool.
        name: String,
        /// Its reply, as the model reads it.
        result: String,
        /// Whether it succeeded.
        ok: bool,
    },
    /// The turn ended: a JSON object, the turn's [`TurnStats`] fields under their own names
    /// plus `stop` (`answered`, `max_iterations`, `cancelled`), `text` (the reply), `streamed`
    /// (the visible text streamed), `executed` (tool names run) and `shown` (`show_text`
    /// texts).
    Done(Value),
    /// The turn failed (a model error, a panic, the service closed before it ran).
    Error(String),
}

/// Where a turn's events go (a Java listener in the bridge, a channel in tests). Called on
/// the worker thread and dropped there once the turn has ended.
pub trait EventSink: Send {
    /// Delivers one event. Returns false when the receiver failed (a Java listener threw);
    /// the turn goes on either way and the failure is counted (`listener_errors`).
    fn deliver(&mut self, event: ServiceEvent) -> bool;
}

/// Counters shared by the worker and [`Service::stats`].
#[derive(Debug, Default)]
struct Counters {
    turns: AtomicU64,
    cancelled: AtomicU64,
    failed: AtomicU64,
    listener_errors: AtomicU64,
    sessions_ended: AtomicU64,
    end_session_failures: AtomicU64,
    merged: AtomicU64,
}

/// One queued or running turn, so `cancel`, `close` and a newer message of its session can
/// reach it.
struct QueuedTurn {
    id: u64,
    session: String,
    cancel: CancelToken,
    /// The user's text (merged into a newer message's while the turn has not started).
    text: String,
    /// Set by the worker (under the pending lock) when the turn starts.
    started: bool,
    /// How much of its streamed text the user got, as the host last said
    /// ([`Service::delivered`]).
    delivered: Option<usize>,
    /// The newer turn this one's text went into ([`ServicePolicy::barge_in`]).
    merged_into: Option<u64>,
    /// The end of its session was queued after it: it belongs to the conversation that
    /// ends, so a newer message neither interrupts it nor takes its text.
    sealed: bool,
}

/// How a [`Service`] treats a new user message for a session that already has a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServicePolicy {
    /// Barge-in (default on): a new message interrupts the session's running turn — it
    /// stops within a token, and its history keeps the reply as far as it was delivered
    /// ([`Service::delivered`]; default everything streamed), marked as interrupted — and
    /// takes in the session's turns still queued: their texts and its own become one user
    /// message ([`porfiry_agent::merged_input`]), their listeners get `Done` with `stop:
    /// "merged"` and `merged_into`. Off: every message is answered in order.
    pub barge_in: bool,
}

impl Default for ServicePolicy {
    fn default() -> Self {
        Self { barge_in: true }
    }
}

enum ServiceJob {
    Turn {
        id: u64,
        session: String,
        text: String,
        sink: Box<dyn EventSink>,
        cancel: CancelToken,
    },
    Register {
        toolset: String,
        host: Arc<dyn HostCall>,
        timeout: Duration,
    },
    Prompt {
        session: String,
        reply: Sender<String>,
    },
    Prepare {
        session: String,
        text: String,
    },
    EndSession {
        session: String,
    },
    CacheReport {
        reply: Sender<Option<Value>>,
    },
    Shutdown,
}

/// State shared between the handle side and the worker thread.
struct Shared {
    pending: Mutex<Vec<QueuedTurn>>,
    counters: Counters,
    tool_counters: Arc<ToolCounters>,
    closing: AtomicBool,
    last_turn: Mutex<Value>,
    prompts: Mutex<HashMap<String, String>>,
    info: Value,
}

/// Locks a mutex, recovering the data if a panic poisoned it (the data is plain bookkeeping).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// How long [`Service::prompt`] waits for a busy worker before answering from its cache.
const PROMPT_WAIT: Duration = Duration::from_millis(500);

/// A [`Runtime`] served by one worker thread (see the module docs). All methods are
/// thread-safe and return without waiting for the worker, except [`Service::prompt`] (briefly)
/// and [`Service::close`].
pub struct Service {
    jobs: Mutex<Option<Sender<ServiceJob>>>,
    worker: Mutex<Option<JoinHandle<()>>>,
    shared: Arc<Shared>,
    next_turn: AtomicU64,
    policy: ServicePolicy,
}

impl std::fmt::Debug for Service {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Service")
            .field("info", &self.shared.info)
            .finish_non_exhaustive()
    }
}

impl Service {
    /// Starts the worker thread (`porfiry-worker`) serving `runtime`. Before its first job it
    /// warms the runtime up ([`Runtime::warm_up`]: the static head every session starts
    /// with). `info` (a JSON value) is reported as `model` by [`Service::stats`].
    ///
    /// # Errors
    /// [`ServiceError::Internal`] when the thread cannot be started.
    pub fn start(runtime: Runtime, info: Value) -> Result<Self, ServiceError> {
        Self::start_with(runtime, info, ServicePolicy::default())
    }

    /// [`Service::start`] with a [`ServicePolicy`] other than the default.
    ///
    /// # Errors
    /// [`ServiceError::Internal`] when the thread cannot be started.
    pub fn start_with(
        runtime: Runtime,
        info: Value,
        policy: ServicePolicy,
    ) -> Result<Self, ServiceError> {
        let (tx, rx) = unbounded();
        let shared = Arc::new(Shared {
            pending: Mutex::new(Vec::new()),
            counters: Counters::default(),
            tool_counters: runtime.tool_counters().clone(),
            closing: AtomicBool::new(false),
            last_turn: Mutex::new(Value::Null),
            prompts: Mutex::new(HashMap::new()),
            info,
        });
        let worker_shared = shared.clone();
        let worker = std::thread::Builder::new()
            .name("porfiry-worker".into())
            .spawn(move || worker_loop(runtime, rx, worker_shared))
            .map_err(|e| ServiceError::Internal(format!("cannot start the worker thread: {e}")))?;
        Ok(Self {
            jobs: Mutex::new(Some(tx)),
            worker: Mutex::new(Some(worker)),
            shared,
            next_turn: AtomicU64::new(1),
            policy,
        })
    }

    fn enqueue(&self, job: ServiceJob) -> Result<(), ServiceError> {
        let jobs = lock(&self.jobs);
        let tx = jobs.as_ref().ok_or(ServiceError::Closed)?;
        tx.send(job).map_err(|_| ServiceError::Closed)
    }

    /// Queues a hint: the user is speaking in `session` and `partial` is what was heard so
    /// far. The worker has the model decode the turn's prompt up to those words
    /// ([`Runtime::prepare`]), so the turn sent when the user finishes prefills only the last
    /// words; skipped when a turn of the session is already queued (its own request does the
    /// work). Hints are cheap to send often (the engine does only the newest).
    ///
    /// # Errors
    /// [`ServiceError::InvalidArgument`] for an empty session, [`ServiceError::Closed`].
    pub fn prepare(&self, session: &str, partial: &str) -> Result<(), ServiceError> {
        check_session(session)?;
        self.enqueue(ServiceJob::Prepare {
            session: session.to_string(),
            text: partial.to_string(),
        })
    }

    /// Queues a turn: `text` from the user in `session`. Events go to `sink` from the worker
    /// thread. With barge-in ([`ServicePolicy`], the default) a turn of the session that is
    /// running is interrupted and the ones still queued are merged into this one.
    ///
    /// # Errors
    /// [`ServiceError::InvalidArgument`] for an empty session, [`ServiceError::Closed`].
    pub fn send(
        &self,
        session: &str,
        text: &str,
        sink: Box<dyn EventSink>,
    ) -> Result<(), ServiceError> {
        check_session(session)?;
        let id = self.next_turn.fetch_add(1, Ordering::Relaxed);
        let cancel = CancelToken::new();
        // Holding the jobs lock while registering keeps `close` from slipping in between.
        let jobs = lock(&self.jobs);
        let tx = jobs.as_ref().ok_or(ServiceError::Closed)?;
        let mut text = text.to_string();
        {
            let mut pending = lock(&self.shared.pending);
            if self.policy.barge_in {
                text = barge_in(&mut pending, session, id, text);
            }
            pending.push(QueuedTurn {
                id,
                session: session.to_string(),
                cancel: cancel.clone(),
                text: text.clone(),
                started: false,
                delivered: None,
                merged_into: None,
                sealed: false,
            });
        }
        let job = ServiceJob::Turn {
            id,
            session: session.to_string(),
            text,
            sink,
            cancel,
        };
        if tx.send(job).is_err() {
            lock(&self.shared.pending).retain(|p| p.id != id);
            return Err(ServiceError::Closed);
        }
        Ok(())
    }

    /// Cancels the running and queued turns of `session`; returns whether there were any.
    /// The running turn's history keeps its reply as far as it was delivered
    /// ([`Service::delivered`]), marked as interrupted.
    ///
    /// # Errors
    /// [`ServiceError::InvalidArgument`] for an empty session, [`ServiceError::Closed`].
    pub fn cancel(&self, session: &str) -> Result<bool, ServiceError> {
        check_session(session)?;
        if lock(&self.jobs).is_none() {
            return Err(ServiceError::Closed);
        }
        let pending = lock(&self.shared.pending);
        let mut any = false;
        for p in pending.iter().filter(|p| p.session == session) {
            stop_turn(p);
            any = true;
        }
        Ok(any)
    }

    /// The host tells how much of the running turn's streamed text of `session` reached the
    /// user so far (`chars`: characters spoken or shown). When the turn is then interrupted
    /// or cancelled, the history keeps exactly that much of the reply. Returns whether a
    /// turn of the session was running.
    ///
    /// # Errors
    /// [`ServiceError::InvalidArgument`] for an empty session, [`ServiceError::Closed`].
    pub fn delivered(&self, session: &str, chars: usize) -> Result<bool, ServiceError> {
        check_session(session)?;
        if lock(&self.jobs).is_none() {
            return Err(ServiceError::Closed);
        }
        let mut pending = lock(&self.shared.pending);
        let mut any = false;
        for p in pending
            .iter_mut()
            .filter(|p| p.session == session && p.started)
        {
            p.delivered = Some(chars);
            any = true;
        }
        Ok(any)
    }

    /// Queues the end of `session` behind the jobs already queued (turns of that session
    /// sent before still run): its history and toolset state go, and the model frees what it
    /// keeps for it ([`Runtime::end_session`]). The session's next turn starts fresh from the
    /// static head.
    ///
    /// # Errors
    /// [`ServiceError::InvalidArgument`] for an empty session, [`ServiceError::Closed`].
    pub fn end_session(&self, session: &str) -> Result<(), ServiceError> {
        check_session(session)?;
        let jobs = lock(&self.jobs);
        let tx = jobs.as_ref().ok_or(ServiceError::Closed)?;
        for p in lock(&self.shared.pending)
            .iter_mut()
            .filter(|p| p.session == session)
        {
            p.sealed = true;
        }
        tx.send(ServiceJob::EndSession {
            session: session.to_string(),
        })
        .map_err(|_| ServiceError::Closed)
    }

    /// Queues the registration of a host toolset: every tool of `toolset` runs through
    /// `host` with a deadline of `timeout` ([`Runtime::register_host_toolset`]).
    ///
    /// # Errors
    /// [`ServiceError::InvalidArgument`] for an empty toolset name, [`ServiceError::Closed`].
    pub fn register_toolset(
        &self,
        toolset: &str,
        host: Arc<dyn HostCall>,
        timeout: Duration,
    ) -> Result<(), ServiceError> {
        if toolset.trim().is_empty() {
            return Err(ServiceError::InvalidArgument("empty toolset name".into()));
        }
        self.enqueue(ServiceJob::Register {
            toolset: toolset.to_string(),
            host,
            timeout,
        })
    }

    /// The system prompt of `session` for its next request. Waits briefly for the worker;
    /// while a long turn runs, answers with the prompt recorded at the end of the session's
    /// last turn.
    ///
    /// # Errors
    /// [`ServiceError::InvalidArgument`] for an empty session, [`ServiceError::Closed`].
    pub fn prompt(&self, session: &str) -> Result<String, ServiceError> {
        check_session(session)?;
        let (tx, rx) = bounded(1);
        self.enqueue(ServiceJob::Prompt {
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

    /// The KV cache as the engine sees it ([`porfiry_engine::CacheReport`] as JSON: context
    /// size, cells used, tokens and bytes per sequence with the session using it, prepared
    /// heads), for debug screens and tests. Queued like the other jobs and waited for briefly;
    /// `None` when the model is not the engine or the worker is busy with a turn.
    ///
    /// # Errors
    /// [`ServiceError::Closed`].
    pub fn cache_report(&self) -> Result<Option<Value>, ServiceError> {
        let (tx, rx) = bounded(1);
        self.enqueue(ServiceJob::CacheReport { reply: tx })?;
        Ok(rx.recv_timeout(PROMPT_WAIT).ok().flatten())
    }

    /// Statistics as JSON: `model` (the `info` given to [`Service::start`]), `turns`,
    /// `cancelled`, `failed`, `listener_errors`, `tool_timeouts`, `tool_failures`,
    /// `sessions_ended`, `end_session_failures`, `queued` (turns queued or running) and
    /// `last_turn` (the last `Done` JSON).
    ///
    /// # Errors
    /// [`ServiceError::Closed`].
    pub fn stats(&self) -> Result<Value, ServiceError> {
        if lock(&self.jobs).is_none() {
            return Err(ServiceError::Closed);
        }
        let c = &self.shared.counters;
        let get = |a: &AtomicU64| a.load(Ordering::Relaxed);
        let (tool_timeouts, tool_failures) = self.shared.tool_counters.get();
        Ok(json!({
            "model": self.shared.info,
            "turns": get(&c.turns),
            "cancelled": get(&c.cancelled),
            "failed": get(&c.failed),
            "listener_errors": get(&c.listener_errors),
            "tool_timeouts": tool_timeouts,
            "tool_failures": tool_failures,
            "sessions_ended": get(&c.sessions_ended),
            "merged": get(&c.merged),
            "end_session_failures": get(&c.end_session_failures),
            "queued": lock(&self.shared.pending).len(),
            "last_turn": *lock(&self.shared.last_turn),
        }))
    }

    /// Cancels everything, lets queued turns end with an error, stops the worker and waits
    /// for it (unless called from the worker itself, e.g. inside a listener).
    ///
    /// # Errors
    /// [`ServiceError::Closed`] when already closed.
    pub fn close(&self) -> Result<(), ServiceError> {
        let tx = lock(&self.jobs).take().ok_or(ServiceError::Closed)?;
        self.shared.closing.store(true, Ordering::SeqCst);
        for p in lock(&self.shared.pending).iter() {
            p.cancel.cancel();
        }
        // Every job was queued before this point, so Shutdown comes after all of them.
        let _ = tx.send(ServiceJob::Shutdown);
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

impl Drop for Service {
    fn drop(&mut self) {
        let _ = self.close();
    }
}

/// Stop a queued or running turn: a running one as far as the host said it was delivered.
fn stop_turn(p: &QueuedTurn) {
    match (p.started, p.delivered) {
        (true, Some(chars)) => p.cancel.interrupt(chars),
        _ => p.cancel.cancel(),
    }
}

/// Barge-in for a new message (turn `id`, `text`) of `session`: its running turn is
/// interrupted, its queued ones are merged into this one. Returns the new turn's text.
fn barge_in(pending: &mut [QueuedTurn], session: &str, id: u64, text: String) -> String {
    let mut texts = Vec::new();
    for p in pending
        .iter_mut()
        .filter(|p| p.session == session && !p.sealed && !p.cancel.is_cancelled())
    {
        if !p.started {
            texts.push(std::mem::take(&mut p.text));
            p.merged_into = Some(id);
        }
        stop_turn(p);
    }
    if texts.is_empty() {
        return text;
    }
    texts.push(text);
    porfiry_agent::merged_input(&texts)
}

fn check_session(session: &str) -> Result<(), ServiceError> {
    if session.is_empty() {
        return Err(ServiceError::InvalidArgument("empty session name".into()));
    }
    Ok(())
}

fn worker_loop(mut runtime: Runtime, rx: Receiver<ServiceJob>, shared: Arc<Shared>) {
    // Before the first job: the static head every session starts with (restored from its
    // KV snapshot when the engine keeps one), so the first utterance prefills only itself.
    // A model that cannot prepare it works the same without.
    let _ = catch_unwind(AssertUnwindSafe(|| runtime.warm_up()));
    for job in rx {
        match job {
            ServiceJob::Shutdown => break,
            ServiceJob::Register {
                toolset,
                host,
                timeout,
            } => {
                // A set with an executor now shows in the prompt: the head changed with it.
                let hidden = runtime.agent().hidden_toolsets();
                runtime.register_host_toolset(&toolset, host, timeout);
                if runtime.agent().hidden_toolsets() != hidden {
                    let _ = catch_unwind(AssertUnwindSafe(|| runtime.warm_up()));
                }
            }
            ServiceJob::Prepare { session, text } => {
                let queued_turn = lock(&shared.pending).iter().any(|p| p.session == session);
                if !queued_turn {
                    let _ = catch_unwind(AssertUnwindSafe(|| runtime.prepare(&session, &text)));
                }
            }
            ServiceJob::Prompt { session, reply } => {
                let text = prompt_text(&mut runtime, &session);
                lock(&shared.prompts).insert(session, text.clone());
                let _ = reply.send(text);
            }
            ServiceJob::EndSession { session } => {
                lock(&shared.prompts).remove(&session);
                let ended = catch_unwind(AssertUnwindSafe(|| runtime.end_session(&session)));
                let counter = match ended {
                    Ok(Ok(_)) => &shared.counters.sessions_ended,
                    _ => &shared.counters.end_session_failures,
                };
                counter.fetch_add(1, Ordering::Relaxed);
            }
            ServiceJob::CacheReport { reply } => {
                let report = catch_unwind(AssertUnwindSafe(|| runtime.cache_report()))
                    .ok()
                    .and_then(Result::ok)
                    .flatten()
                    .and_then(|r| serde_json::to_value(r).ok());
                let _ = reply.send(report);
            }
            ServiceJob::Turn {
                id,
                session,
                text,
                mut sink,
                cancel,
            } => {
                let merged_into = {
                    let mut pending = lock(&shared.pending);
                    let me = pending.iter_mut().find(|p| p.id == id);
                    me.and_then(|p| {
                        p.started = true;
                        p.merged_into
                    })
                };
                if let Some(into) = merged_into {
                    shared.counters.turns.fetch_add(1, Ordering::Relaxed);
                    shared.counters.merged.fetch_add(1, Ordering::Relaxed);
                    if !sink.deliver(ServiceEvent::Done(merged_json(into))) {
                        shared
                            .counters
                            .listener_errors
                            .fetch_add(1, Ordering::Relaxed);
                    }
                    lock(&shared.pending).retain(|p| p.id != id);
                    drop(sink);
                    continue;
                }
                run_turn(
                    &mut runtime,
                    &shared,
                    &session,
                    &text,
                    sink.as_mut(),
                    &cancel,
                );
                lock(&shared.pending).retain(|p| p.id != id);
                // The sink (a Java global reference in the bridge) is released here, on the
                // worker thread.
                drop(sink);
            }
        }
    }
}

fn prompt_text(runtime: &mut Runtime, session: &str) -> String {
    catch_unwind(AssertUnwindSafe(|| {
        runtime.prompt(session).text().to_string()
    }))
    .unwrap_or_else(|_| "(internal error while building the prompt)".to_string())
}

fn run_turn(
    runtime: &mut Runtime,
    shared: &Shared,
    session: &str,
    text: &str,
    sink: &mut dyn EventSink,
    cancel: &CancelToken,
) {
    let counters = &shared.counters;
    let deliver = |sink: &mut dyn EventSink, event: ServiceEvent| {
        if !sink.deliver(event) {
            counters.listener_errors.fetch_add(1, Ordering::Relaxed);
        }
    };
    counters.turns.fetch_add(1, Ordering::Relaxed);
    if shared.closing.load(Ordering::SeqCst) {
        counters.failed.fetch_add(1, Ordering::Relaxed);
        deliver(
            sink,
            ServiceEvent::Error("the assistant was closed before this turn ran".into()),
        );
        return;
    }
    if cancel.is_cancelled() {
        // Cancelled while queued: the turn never reaches the history.
        counters.cancelled.fetch_add(1, Ordering::Relaxed);
        deliver(sink, ServiceEvent::Done(cancelled_before_start_json()));
        return;
    }
    let mut splitter = SentenceSplitter::new();
    let result = {
        let mut on_event = |event: AgentEvent| match event {
            AgentEvent::Text(t) => {
                let sentences = splitter.push(&t);
                deliver(sink, ServiceEvent::Text(t));
                for s in sentences {
                    deliver(sink, ServiceEvent::Sentence(s));
                }
            }
            AgentEvent::ToolStarted { name, args } => {
                // Whatever was said before a tool call is spoken now, not after the tool.
                if let Some(rest) = splitter.finish() {
                    deliver(sink, ServiceEvent::Sentence(rest));
                }
                deliver(
                    sink,
                    ServiceEvent::ToolStarted {
                        name,
                        args: args.to_string(),
                    },
                );
            }
            AgentEvent::ToolFinished { name, result, ok } => {
                deliver(sink, ServiceEvent::ToolFinished { name, result, ok });
            }
            AgentEvent::ShowText(t) => deliver(sink, ServiceEvent::ShowText(t)),
            AgentEvent::Generation { .. }
            | AgentEvent::ToolsetEnabled { .. }
            | AgentEvent::ToolsetDisabled { .. } => {}
        };
        catch_unwind(AssertUnwindSafe(|| {
            runtime.turn(session, text, cancel, &mut on_event)
        }))
    };
    if let Some(rest) = splitter.finish() {
        deliver(sink, ServiceEvent::Sentence(rest));
    }
    lock(&shared.prompts).insert(session.to_string(), prompt_text(runtime, session));
    let final_event = match result {
        Ok(Ok(turn)) => match &turn.outcome.stop {
            TurnStop::ModelError(msg) => {
                counters.failed.fetch_add(1, Ordering::Relaxed);
                ServiceEvent::Error(format!("model error: {msg}"))
            }
            stop => {
                if *stop == TurnStop::Cancelled || cancel.is_cancelled() {
                    counters.cancelled.fetch_add(1, Ordering::Relaxed);
                }
                let done = done_json(&turn.outcome, cancel.is_cancelled(), &turn.stats);
                *lock(&shared.last_turn) = done.clone();
                ServiceEvent::Done(done)
            }
        },
        Ok(Err(e)) => {
            counters.failed.fetch_add(1, Ordering::Relaxed);
            ServiceEvent::Error(e.to_string())
        }
        Err(panic) => {
            counters.failed.fetch_add(1, Ordering::Relaxed);
            // The turn could not close itself: close it, so the session goes on without
            // two user messages in a row.
            let _ = catch_unwind(AssertUnwindSafe(|| {
                runtime.agent_mut().close_open_turn(session)
            }));
            ServiceEvent::Error(format!("internal error: {}", panic_message(&panic)))
        }
    };
    deliver(sink, final_event);
}

/// The `onDone` JSON: the turn's figures ([`TurnStats`], under their own names), why it
/// stopped, the reply, the visible text streamed, the tools run and the texts shown.
fn done_json(outcome: &TurnOutcome, cancelled: bool, stats: &TurnStats) -> Value {
    let stop = if cancelled {
        "cancelled"
    } else {
        stats.stop_reason.as_str()
    };
    with_stats(
        stats,
        json!({
            "stop": stop,
            "text": outcome.reply,
            "streamed": outcome.streamed,
            "executed": outcome.executed.iter().map(|e| e.name.clone()).collect::<Vec<_>>(),
            "shown": outcome.shown,
            "notice": outcome.notice,
            "interrupted": outcome.interrupted,
        }),
    )
}

/// The `onDone` JSON of a queued turn whose text went into the newer turn `into`.
fn merged_json(into: u64) -> Value {
    with_stats(
        &TurnStats::default(),
        json!({"stop": "merged", "merged_into": into, "text": "", "streamed": "", "executed": [], "shown": []}),
    )
}

/// The `onDone` JSON of a turn cancelled while it was queued: nothing ran.
fn cancelled_before_start_json() -> Value {
    with_stats(
        &TurnStats::default(),
        json!({"stop": "cancelled", "text": "", "streamed": "", "executed": [], "shown": []}),
    )
}

/// `stats`' fields with the keys of `rest` added.
fn with_stats(stats: &TurnStats, rest: Value) -> Value {
    let mut v = serde_json::to_value(stats).unwrap_or_else(|_| json!({}));
    if let (Value::Object(m), Value::Object(r)) = (&mut v, rest) {
        m.extend(r);
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host_tools::{HostFailure, TimedExecutor};
    use crate::runtime::Backend;
    use crate::DEFAULT_TOOL_TIMEOUT;
    use porfiry_agent::{
        parse_toolset, Agent, AgentConfig, Generation, GenerationStats, Lang, Model, ModelError,
        ModelRequest, ScriptedModel, SkillRegistry, StopReason, SystemClock, Texts, ToolExecutor,
        ToolInvocation, ToolsetRegistry,
    };
    use std::time::Instant;

    struct ChannelSink(Sender<ServiceEvent>);

    impl EventSink for ChannelSink {
        fn deliver(&mut self, event: ServiceEvent) -> bool {
            self.0.send(event).is_ok()
        }
    }

    /// Sleeps `delay` before passing on each piece of the inner model (in short slices, so a
    /// cancel is noticed within a few milliseconds): deterministic cancel and close tests.
    struct Paced<M> {
        inner: M,
        delay: Duration,
    }

    impl<M: Model> Model for Paced<M> {
        fn generate(
            &mut self,
            request: &ModelRequest<'_>,
            on_text: &mut dyn FnMut(&str),
        ) -> Result<Generation, ModelError> {
            let delay = self.delay;
            let cancel = request.cancel.clone();
            self.inner.generate(request, &mut |piece| {
                let mut left = delay;
                while !left.is_zero() && !cancel.is_cancelled() {
                    let step = left.min(Duration::from_millis(5));
                    std::thread::sleep(step);
                    left -= step;
                }
                on_text(piece);
            })
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

    /// A service over `agent` and `model`.
    fn service_of(agent: Agent, model: Box<dyn Model + Send>, info: Value) -> Service {
        let runtime = Runtime::from_parts(agent, Backend::Other(model), DEFAULT_TOOL_TIMEOUT);
        Service::start(runtime, info).unwrap()
    }

    /// A service answering every message in order (no barge-in).
    fn in_order(agent: Agent, model: Box<dyn Model + Send>) -> Service {
        let runtime = Runtime::from_parts(agent, Backend::Other(model), DEFAULT_TOOL_TIMEOUT);
        Service::start_with(runtime, json!({}), ServicePolicy { barge_in: false }).unwrap()
    }

    /// A scripted model whose pieces come `delay_ms` apart.
    fn scripted(outputs: &[&str], delay_ms: u64) -> Box<Paced<ScriptedModel>> {
        Box::new(Paced {
            inner: ScriptedModel::new(outputs.iter().copied()),
            delay: Duration::from_millis(delay_ms),
        })
    }

    fn service(outputs: &[&str], delay_ms: u64) -> Service {
        let model = scripted(outputs, delay_ms);
        service_of(agent(Lang::Ru, &[]), model, json!({"kind": "test"}))
    }

    /// Sends a turn and collects its events up to the ending one.
    fn turn(a: &Service, session: &str, text: &str) -> Receiver<ServiceEvent> {
        let (tx, rx) = unbounded();
        a.send(session, text, Box::new(ChannelSink(tx))).unwrap();
        rx
    }

    fn until_end(rx: &Receiver<ServiceEvent>) -> Vec<ServiceEvent> {
        let mut out = Vec::new();
        loop {
            let e = rx
                .recv_timeout(Duration::from_secs(10))
                .expect("turn ended");
            let last = matches!(e, ServiceEvent::Done(_) | ServiceEvent::Error(_));
            out.push(e);
            if last {
                return out;
            }
        }
    }

    #[test]
    fn a_turn_streams_sentences_then_done() {
        let a = service(&["Да. Нет!"], 0);
        let events = until_end(&turn(&a, "s", "вопрос"));
        let sentences: Vec<&ServiceEvent> = events
            .iter()
            .filter(|e| matches!(e, ServiceEvent::Sentence(_)))
            .collect();
        assert_eq!(
            sentences,
            vec![
                &ServiceEvent::Sentence("Да.".into()),
                &ServiceEvent::Sentence("Нет!".into())
            ]
        );
        let ServiceEvent::Done(done) = events.last().unwrap() else {
            panic!("{events:?}")
        };
        assert_eq!(done["stop"], "answered");
        assert_eq!(done["text"], "Да. Нет!");
        a.close().unwrap();
        assert!(matches!(a.close(), Err(ServiceError::Closed)));
        assert!(matches!(a.stats(), Err(ServiceError::Closed)));
    }

    /// A scripted model that shares what it was asked: generated requests' user messages,
    /// prefill hints' last user message, and the sessions it was told are over.
    struct Recording {
        inner: ScriptedModel,
        seen: Arc<Mutex<Seen>>,
    }

    type Seen = (Vec<Vec<String>>, Vec<String>, Vec<String>);

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
            request: &ModelRequest<'_>,
            on_text: &mut dyn FnMut(&str),
        ) -> Result<Generation, ModelError> {
            lock(&self.seen).0.push(users(request.messages));
            self.inner.generate(request, on_text)
        }
        fn prefill(&mut self, request: &ModelRequest<'_>) -> Result<(), ModelError> {
            let last = users(request.messages).pop().unwrap_or_default();
            lock(&self.seen).1.push(last);
            Ok(())
        }
        fn end_session(&mut self, session: &str) -> Result<(), ModelError> {
            lock(&self.seen).2.push(session.to_string());
            Ok(())
        }
    }

    fn recording(outputs: &[&str]) -> (Service, Arc<Mutex<Seen>>) {
        let seen = Arc::new(Mutex::new((Vec::new(), Vec::new(), Vec::new())));
        let model = Box::new(Recording {
            inner: ScriptedModel::new(outputs.iter().copied()),
            seen: seen.clone(),
        });
        (service_of(agent(Lang::Ru, &[]), model, json!({})), seen)
    }

    /// [`recording`] answering in order (no barge-in).
    fn recording_in_order(outputs: &[&str]) -> (Service, Arc<Mutex<Seen>>) {
        let seen = Arc::new(Mutex::new((Vec::new(), Vec::new(), Vec::new())));
        let model = Box::new(Recording {
            inner: ScriptedModel::new(outputs.iter().copied()),
            seen: seen.clone(),
        });
        (in_order(agent(Lang::Ru, &[]), model), seen)
    }

    /// A scripted model that keeps every request's messages as text.
    struct Transcript {
        inner: ScriptedModel,
        requests: Arc<Mutex<Vec<String>>>,
    }

    impl Model for Transcript {
        fn generate(
            &mut self,
            request: &ModelRequest<'_>,
            on_text: &mut dyn FnMut(&str),
        ) -> Result<Generation, ModelError> {
            let text = porfiry_agent::render_history(request.messages);
            lock(&self.requests).push(text);
            self.inner.generate(request, on_text)
        }
    }

    fn done_of(rx: &Receiver<ServiceEvent>) -> Value {
        let events = until_end(rx);
        match events.last() {
            Some(ServiceEvent::Done(d)) => d.clone(),
            other => panic!("{other:?} in {events:?}"),
        }
    }

    #[test]
    fn barge_in_interrupts_the_running_turn_and_merges_the_queued_ones() {
        let requests = Arc::new(Mutex::new(Vec::new()));
        let model = Box::new(Paced {
            inner: Transcript {
                inner: ScriptedModel::new([
                    "Первый длинный ответ, который никто не дослушал.",
                    "Ответ на оба.",
                ]),
                requests: requests.clone(),
            },
            delay: Duration::from_millis(20),
        });
        let a = service_of(agent(Lang::Ru, &[]), model, json!({}));
        let (tx, first) = unbounded();
        a.send("s", "раз", Box::new(ChannelSink(tx))).unwrap();
        // Wait for the reply to stream 9 characters; the host says 6 of them were spoken.
        let mut streamed = 0;
        while streamed < 9 {
            match first
                .recv_timeout(Duration::from_secs(10))
                .expect("streaming")
            {
                ServiceEvent::Text(t) => streamed += t.chars().count(),
                ServiceEvent::Done(d) => panic!("ended early: {d}"),
                _ => {}
            }
        }
        assert!(a.delivered("s", 6).unwrap(), "a turn of s is running");
        assert!(
            !a.delivered("other", 6).unwrap(),
            "nothing runs in another session"
        );
        // The user speaks twice: the first message is queued behind the interrupted turn
        // and merged into the second.
        let second = turn(&a, "s", "два");
        let third = turn(&a, "s", "три");
        let d1 = done_of(&first);
        assert_eq!(d1["stop"], "cancelled", "{d1}");
        assert_eq!(d1["interrupted"], true, "{d1}");
        let d2 = done_of(&second);
        assert_eq!(d2["stop"], "merged", "{d2}");
        let d3 = done_of(&third);
        assert_eq!(d3["stop"], "answered", "{d3}");
        assert_eq!(d2["merged_into"], 3, "{d2}");
        assert_eq!(d3["text"], "Ответ на оба.");
        // The model saw what the user heard, marked, then one message with both texts:
        // never two user messages in a row.
        let seen = lock(&requests).clone();
        assert_eq!(seen.len(), 2, "{seen:?}");
        assert!(
            seen[1]
                .ends_with("user: раз\nassistant: Первый\n[перебит пользователем]\nuser: два\nтри"),
            "{}",
            seen[1]
        );
        let stats = a.stats().unwrap();
        assert_eq!(stats["merged"], 1, "{stats}");
        a.close().unwrap();
    }

    #[test]
    fn a_newer_message_does_not_reach_across_an_ended_session() {
        let (a, seen) = recording(&["Раз.", "Два.", "Три."]);
        // Nothing runs yet for "s" beyond the first turn; "два" is queued before the end.
        let first = turn(&a, "s", "один");
        let second = turn(&a, "s", "два");
        a.end_session("s").unwrap();
        let third = turn(&a, "s", "три");
        let stops: Vec<Value> = [&first, &second, &third]
            .iter()
            .map(|rx| done_of(rx)["stop"].clone())
            .collect();
        // "один" was merged into "два" (or interrupted, had it started); "три" starts the
        // new conversation alone.
        assert_eq!(stops[2], "answered");
        let (turns, _, _) = lock(&seen).clone();
        assert_eq!(turns.last().unwrap(), &vec!["три".to_string()], "{turns:?}");
        assert!(!turns
            .iter()
            .flatten()
            .any(|u| u.contains("два") && u.contains("три")));
        a.close().unwrap();
    }

    #[test]
    fn prepare_is_a_hint_that_changes_no_turn() {
        let (a, seen) = recording(&["Да."]);
        a.prepare("s", "вопр").unwrap();
        a.prepare("s", "вопрос").unwrap();
        assert!(matches!(
            a.prepare("", "x"),
            Err(ServiceError::InvalidArgument(_))
        ));
        // The prompt job queues behind the hints: when it answers, they have run.
        a.prompt("s").unwrap();
        let events = until_end(&turn(&a, "s", "вопрос"));
        let ServiceEvent::Done(done) = events.last().unwrap() else {
            panic!("{events:?}")
        };
        assert_eq!(done["text"], "Да.");
        // Both hints reached the model; they left no trace in the session: the turn's
        // request holds one user message.
        let (turns, hints, _) = lock(&seen).clone();
        assert_eq!(hints, vec!["вопр".to_string(), "вопрос".to_string()]);
        assert_eq!(turns, vec![vec!["вопрос".to_string()]]);
        a.close().unwrap();
        assert!(matches!(a.prepare("s", "x"), Err(ServiceError::Closed)));
    }

    #[test]
    fn end_session_forgets_the_history_after_the_queued_turns() {
        let (a, seen) = recording_in_order(&["Раз.", "Два.", "Три.", "Четыре."]);
        let first = turn(&a, "s", "один");
        let other = turn(&a, "t", "чужой");
        // Queued behind the turns already sent: the first turn still runs in the session.
        a.end_session("s").unwrap();
        let second = turn(&a, "s", "два");
        let third = turn(&a, "s", "три");
        for rx in [&first, &other, &second, &third] {
            let events = until_end(rx);
            assert!(
                matches!(events.last(), Some(ServiceEvent::Done(d)) if d["stop"] == "answered"),
                "{events:?}"
            );
        }
        let (turns, _, ended) = lock(&seen).clone();
        assert_eq!(
            turns,
            vec![
                vec!["один".to_string()],
                vec!["чужой".to_string()],
                // A fresh start: nothing of the first turn is left.
                vec!["два".to_string()],
                vec!["два".to_string(), "три".to_string()],
            ]
        );
        assert_eq!(ended, vec!["s".to_string()], "the model heard the end");
        assert_eq!(
            a.cache_report().unwrap(),
            None,
            "no engine, no cache report"
        );
        let stats = a.stats().unwrap();
        assert_eq!(stats["sessions_ended"], 1);
        assert_eq!(stats["end_session_failures"], 0);
        assert!(matches!(
            a.end_session(""),
            Err(ServiceError::InvalidArgument(_))
        ));
        a.close().unwrap();
        assert!(matches!(a.end_session("s"), Err(ServiceError::Closed)));
    }

    /// A model that answers `TOOL_CALL: show_text|x` first and `Готово.` second, each with
    /// its own figures.
    struct Measured(usize);

    impl Model for Measured {
        fn generate(
            &mut self,
            _request: &ModelRequest<'_>,
            on_text: &mut dyn FnMut(&str),
        ) -> Result<Generation, ModelError> {
            self.0 += 1;
            let (text, prompt, reused) = if self.0 == 1 {
                ("TOOL_CALL: show_text|x", 200, 150)
            } else {
                ("Готово.", 230, 215)
            };
            on_text(text);
            Ok(Generation {
                text: text.into(),
                stop: StopReason::EndOfTurn,
                stats: Some(GenerationStats {
                    prompt_tokens: prompt,
                    reused_tokens: reused,
                    prefilled_tokens: prompt - reused,
                    generated_tokens: 4,
                    head_tokens: if self.0 == 1 { 150 } else { 0 },
                    ttft_ms: 10.0 * self.0 as f64,
                    ..GenerationStats::default()
                }),
            })
        }
    }

    #[test]
    fn done_carries_the_turn_stats_under_their_own_names() {
        let a = service_of(agent(Lang::Ru, &[]), Box::new(Measured(0)), json!({}));
        let events = until_end(&turn(&a, "s", "покажи"));
        let Some(ServiceEvent::Done(done)) = events.last() else {
            panic!("{events:?}")
        };
        // Sums over the turn's two requests, and the last request's prompt apart.
        assert_eq!(done["generations"], 2);
        assert_eq!(done["prompt_tokens"], 430);
        assert_eq!(done["last_prompt_tokens"], 230);
        assert_eq!(done["reused_tokens"], 365);
        assert_eq!(done["prefilled_tokens"], 65);
        assert_eq!(done["head_tokens"], 150);
        assert_eq!(done["generated_tokens"], 8);
        assert_eq!(done["ttft_ms"], 10.0);
        assert_eq!(done["full_reprefills"], 0);
        assert_eq!(done["shown"], json!(["x"]));
        assert_eq!(done["executed"], json!(["show_text"]));
        assert_eq!(done["stop"], "answered");
        // Every TurnStats field is there, under the struct's own name.
        let stats: TurnStats = serde_json::from_value(done.clone()).unwrap();
        assert_eq!(stats.prompt_tokens, 430);
        assert!(stats.turn_ms > 0.0);
        assert_eq!(a.stats().unwrap()["last_turn"], *done);
        a.close().unwrap();
    }

    #[test]
    fn an_exhausted_script_is_an_error_event_and_the_worker_keeps_serving() {
        let a = service(&["Один."], 0);
        until_end(&turn(&a, "s", "1"));
        let events = until_end(&turn(&a, "s", "2"));
        assert!(
            matches!(events.last(), Some(ServiceEvent::Error(m)) if m.contains("model error")),
            "{events:?}"
        );
        let stats = a.stats().unwrap();
        assert_eq!(stats["turns"], 2);
        assert_eq!(stats["failed"], 1);
    }

    #[test]
    fn close_ends_the_running_turn_and_fails_the_queued_ones() {
        let a = service(
            &["Длинный ответ из многих слов, очень длинный.", "Второй."],
            20,
        );
        let first = turn(&a, "s", "1");
        let second = turn(&a, "t", "2");
        assert!(matches!(
            first.recv_timeout(Duration::from_secs(10)),
            Ok(ServiceEvent::Text(_))
        ));
        a.close().unwrap();
        let e1 = until_end(&first);
        assert!(
            matches!(e1.last(), Some(ServiceEvent::Done(d)) if d["stop"] == "cancelled"),
            "{e1:?}"
        );
        let e2 = until_end(&second);
        assert!(
            matches!(e2.last(), Some(ServiceEvent::Error(m)) if m.contains("closed")),
            "{e2:?}"
        );
        assert!(matches!(
            a.send("s", "x", Box::new(ChannelSink(unbounded().0))),
            Err(ServiceError::Closed)
        ));
    }

    /// A model that panics on its first generation and answers afterwards, keeping the
    /// last request it answered as text.
    struct Explosive(bool, Arc<Mutex<String>>);

    impl Model for Explosive {
        fn generate(
            &mut self,
            request: &ModelRequest<'_>,
            on_text: &mut dyn FnMut(&str),
        ) -> Result<Generation, ModelError> {
            if !self.0 {
                self.0 = true;
                panic!("model bug");
            }
            *lock(&self.1) = porfiry_agent::render_history(request.messages);
            on_text("Цел.");
            Ok(Generation {
                text: "Цел.".into(),
                stop: StopReason::EndOfTurn,
                stats: None,
            })
        }
    }

    #[test]
    fn a_panic_inside_a_turn_is_an_error_event_and_the_worker_survives() {
        let seen = Arc::new(Mutex::new(String::new()));
        let model = Box::new(Explosive(false, seen.clone()));
        let a = service_of(agent(Lang::Ru, &[]), model, json!({}));
        let events = until_end(&turn(&a, "s", "1"));
        assert!(
            matches!(events.last(), Some(ServiceEvent::Error(m)) if m == "internal error: model bug"),
            "{events:?}"
        );
        let events = until_end(&turn(&a, "s", "2"));
        assert!(
            matches!(events.last(), Some(ServiceEvent::Done(d)) if d["text"] == "Цел."),
            "{events:?}"
        );
        // The turn that panicked was closed for it: never two user messages in a row.
        let said = Texts::new(Lang::Ru).turn_model_failed();
        let request = lock(&seen).clone();
        assert!(
            request.ends_with(&format!("user: 1\nassistant: {said}\nuser: 2")),
            "{request}"
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
            cancel: &CancelToken::new(),
            time_left: None,
        })
    }

    #[test]
    fn timed_executor_answers_fails_and_times_out() {
        let counters = Arc::new(ToolCounters::default());
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
        let quick = TimedExecutor::host(
            Arc::new(Sleepy(Duration::ZERO)),
            Duration::from_secs(5),
            Texts::new(Lang::En),
            counters.clone(),
        );
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
        let slow = TimedExecutor::host(
            Arc::new(Sleepy(Duration::from_secs(2))),
            Duration::from_millis(50),
            Texts::new(Lang::Ru),
            counters.clone(),
        );
        let started = Instant::now();
        assert_eq!(
            invoke(&slow, &args("x")),
            Err("инструмент не ответил за 50 мс".to_string())
        );
        // The timeout fired: the reply came before the 2 s tool could have answered.
        assert!(started.elapsed() < Duration::from_millis(1900));
        assert_eq!(counters.timeouts.load(Ordering::Relaxed), 1);
        assert_eq!(counters.failures.load(Ordering::Relaxed), 4);
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

    /// The reply the model got for a slow host tool, in a service of `lang`.
    fn timeout_reply(lang: Lang) -> String {
        let a = service_of(
            agent(lang, &[SEARCH]),
            scripted(&["TOOL_CALL: media_search|x", "ok"], 0),
            json!({}),
        );
        let slow = Arc::new(Sleepy(Duration::from_secs(2)));
        a.register_toolset("media", slow, Duration::from_millis(50))
            .unwrap();
        let events = until_end(&turn(&a, "s", "q"));
        let timeouts = a.stats().unwrap()["tool_timeouts"].clone();
        a.close().unwrap();
        assert_eq!(timeouts, 1, "counted by the runtime's tool counters");
        events
            .into_iter()
            .find_map(|e| match e {
                ServiceEvent::ToolFinished { result, ok, .. } => {
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
