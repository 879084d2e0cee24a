//! The queue between the handle side ([`super::Service`]) and the worker thread: the jobs,
//! the turns queued or running (so `cancel`, `close` and a newer message of their session
//! can reach them), the counters and the state both sides share.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use crossbeam_channel::Sender;
use porfiry_agent::CancelToken;
use serde_json::Value;

use crate::host_tools::{HostCall, ToolCounters};

use super::events::EventSink;

/// Counters shared by the worker and [`Service::stats`](super::Service::stats).
#[derive(Debug, Default)]
pub(super) struct Counters {
    pub(super) turns: AtomicU64,
    pub(super) cancelled: AtomicU64,
    pub(super) failed: AtomicU64,
    pub(super) listener_errors: AtomicU64,
    pub(super) sessions_ended: AtomicU64,
    pub(super) end_session_failures: AtomicU64,
    pub(super) merged: AtomicU64,
}

/// One queued or running turn, so `cancel`, `close` and a newer message of its session can
/// reach it.
pub(super) struct QueuedTurn {
    pub(super) id: u64,
    pub(super) session: String,
    pub(super) cancel: CancelToken,
    /// The user's text (merged into a newer message's while the turn has not started).
    pub(super) text: String,
    /// Set by the worker (under the pending lock) when the turn starts.
    pub(super) started: bool,
    /// How much of its streamed text the user got, as the host last said
    /// ([`Service::delivered`](super::Service::delivered)).
    pub(super) delivered: Option<usize>,
    /// The newer turn this one's text went into ([`ServicePolicy::barge_in`](super::ServicePolicy::barge_in)).
    pub(super) merged_into: Option<u64>,
    /// The end of its session was queued after it: it belongs to the conversation that
    /// ends, so a newer message neither interrupts it nor takes its text.
    pub(super) sealed: bool,
}

/// A job for the worker thread, served in the order queued.
pub(super) enum ServiceJob {
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
    HearPartial {
        session: String,
        text: String,
        /// Its place among the hints (`Shared::latest_hint` when it is the newest).
        seq: u64,
    },
    EndSession {
        session: String,
    },
    CacheReport {
        reply: Sender<Option<Value>>,
    },
    Trim {
        level: porfiry_engine::TrimLevel,
        reply: Sender<Option<Value>>,
    },
    Shutdown,
}

/// State shared between the handle side and the worker thread.
pub(super) struct Shared {
    pub(super) pending: Mutex<Vec<QueuedTurn>>,
    pub(super) counters: Counters,
    pub(super) tool_counters: Arc<ToolCounters>,
    pub(super) closing: AtomicBool,
    /// The place of the newest hint queued: an older one is stale when the worker takes it.
    pub(super) latest_hint: AtomicU64,
    pub(super) last_turn: Mutex<Value>,
    pub(super) prompts: Mutex<HashMap<String, String>>,
    pub(super) info: Value,
}

/// Locks a mutex, recovering the data if a panic poisoned it (the data is plain bookkeeping).
pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
