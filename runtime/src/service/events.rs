//! What a turn's listener hears ([`ServiceEvent`], through an [`EventSink`]) and the JSON
//! its ending `Done` carries: the turn's [`TurnStats`] under their own names, plus why it
//! stopped and what it said, ran and showed.

use porfiry_agent::TurnOutcome;
use serde_json::{json, Value};

use crate::stats::TurnStats;

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

/// The `onDone` JSON: the turn's figures ([`TurnStats`], under their own names), why it
/// stopped, the reply, the visible text streamed, the tools run and the texts shown.
pub(super) fn done_json(outcome: &TurnOutcome, cancelled: bool, stats: &TurnStats) -> Value {
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
pub(super) fn merged_json(into: u64) -> Value {
    with_stats(
        &TurnStats::default(),
        json!({"stop": "merged", "merged_into": into, "text": "", "streamed": "", "executed": [], "shown": []}),
    )
}

/// The `onDone` JSON of a turn cancelled while it was queued: nothing ran.
pub(super) fn cancelled_before_start_json() -> Value {
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
