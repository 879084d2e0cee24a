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

mod barge_in;
mod events;
mod queue;
mod worker;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use crossbeam_channel::{bounded, unbounded, Sender};
use porfiry_agent::CancelToken;
use serde_json::{json, Value};

use crate::host_tools::HostCall;
use crate::runtime::Runtime;

pub use barge_in::ServicePolicy;
pub use events::{EventSink, ServiceEvent};

use barge_in::{barge_in, stop_turn};
use queue::{lock, Counters, QueuedTurn, ServiceJob, Shared};
use worker::worker_loop;

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
    /// Stops the engine's decodes at close (a hint's embedding, idle work), when the model
    /// is the engine.
    stopper: Option<porfiry_engine::EngineStopper>,
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
        let stopper = runtime.stopper();
        let shared = Arc::new(Shared {
            pending: Mutex::new(Vec::new()),
            counters: Counters::default(),
            tool_counters: runtime.tool_counters().clone(),
            closing: AtomicBool::new(false),
            latest_hint: AtomicU64::new(0),
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
            stopper,
        })
    }

    fn enqueue(&self, job: ServiceJob) -> Result<(), ServiceError> {
        let jobs = lock(&self.jobs);
        let tx = jobs.as_ref().ok_or(ServiceError::Closed)?;
        tx.send(job).map_err(|_| ServiceError::Closed)
    }

    /// Queues a hint: the user is speaking in `session` and `partial` is what was heard so
    /// far. The worker has the model decode the turn's prompt up to those words
    /// ([`Runtime::hear_partial`]), so the turn sent when the user finishes prefills only the last
    /// words. Hints are cheap to send often: the worker takes up only the newest one queued,
    /// and none while a turn waits in the queue (a reply someone waits for comes first; a
    /// turn of the same session does the hint's work itself) or once `close` began.
    ///
    /// # Errors
    /// [`ServiceError::InvalidArgument`] for an empty session, [`ServiceError::Closed`].
    pub fn hear_partial(&self, session: &str, partial: &str) -> Result<(), ServiceError> {
        check_session(session)?;
        let seq = self.shared.latest_hint.fetch_add(1, Ordering::SeqCst) + 1;
        self.enqueue(ServiceJob::HearPartial {
            session: session.to_string(),
            text: partial.to_string(),
            seq,
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

    /// Give memory back when the system asks ([`porfiry_engine::TrimLevel`]; Android's
    /// `onTrimMemory` through [`porfiry_engine::TrimLevel::from_android`]). Queued like the
    /// other jobs (after the turns queued before it); waits for it at most `wait` and returns
    /// what was released as JSON (`sessions`, `context`, `embedder`, `heads`), `None` when
    /// the model is not the engine or the wait ran out (the trim still happens).
    ///
    /// # Errors
    /// [`ServiceError::Closed`].
    pub fn trim(
        &self,
        level: porfiry_engine::TrimLevel,
        wait: Duration,
    ) -> Result<Option<Value>, ServiceError> {
        let (tx, rx) = bounded(1);
        self.enqueue(ServiceJob::Trim { level, reply: tx })?;
        Ok(rx.recv_timeout(wait).ok().flatten())
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
        // Every decode in flight stops now (a hint's embedding or idle-time work is armed by no
        // turn's cancel), and every one the queued jobs would start.
        if let Some(stopper) = &self.stopper {
            stopper.stop();
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

fn check_session(session: &str) -> Result<(), ServiceError> {
    if session.is_empty() {
        return Err(ServiceError::InvalidArgument("empty session name".into()));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
