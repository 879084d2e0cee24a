//! What a turn reports to the host: events as they happen, the outcome at the end, and the
//! errors of the host-facing calls.

use super::compact::ContextReport;
use crate::args::Args;
use crate::guidance::Route;
use crate::intent::Intent;
use crate::judge::Rule;
use crate::model::{Confidence, GenerationStats, ModelErrorKind, StopReason};

/// Something the host hears about during a turn, in order. Closed: match it exhaustively.
///
/// Serializes as `{"type": "text", "data": ...}` (snake_case type names) for hosts across the FFI.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(tag = "type", content = "data", rename_all = "snake_case")]
pub enum AgentEvent {
    /// Visible text to show or speak. Never contains a `TOOL_CALL:` line or a piece of one,
    /// and never repeats the preamble of a discarded generation.
    Text(String),
    /// A tool is about to run (core or host tool).
    ToolStarted {
        /// The tool.
        name: String,
        /// Its validated arguments.
        args: Args,
    },
    /// A tool ran.
    ToolFinished {
        /// The tool.
        name: String,
        /// Its reply, as the model will see it.
        result: String,
        /// Whether it succeeded.
        ok: bool,
    },
    /// `show_text` asked the host to display this text (glasses, screen).
    ShowText(String),
    /// A toolset became active for this session.
    ToolsetEnabled {
        /// The set.
        name: String,
    },
    /// A toolset stopped being active for this session.
    ToolsetDisabled {
        /// The set.
        name: String,
        /// True when its timeout passed; false when the model disabled it.
        expired: bool,
    },
    /// A model call finished.
    Generation {
        /// Why it stopped.
        stop: StopReason,
        /// Token accounting, when the model measures it.
        stats: Option<GenerationStats>,
        /// True when the generation was thrown away and generated again (it only
        /// enabled/disabled toolsets).
        discarded: bool,
    },
}

/// Why a turn ended. Serializes as `{"kind": "answered"}` / `{"kind": "model_error", "message": ...}`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "kind", content = "message", rename_all = "snake_case")]
pub enum TurnStop {
    /// The model answered without calling a tool.
    Answered,
    /// The iteration limit was reached while the model was still calling tools.
    MaxIterations,
    /// The cancel token was set (the host stopped the turn, or the user spoke over it).
    Cancelled,
    /// The turn's time budget ([`AgentConfig::turn_budget`](super::AgentConfig::turn_budget))
    /// ran out.
    Deadline,
    /// The model failed; the message says why. The history is intact.
    ModelError(String),
}

impl TurnStop {
    /// The stop's name as hosts and scenarios report it (`answered`, `max_iterations`,
    /// `cancelled`, `deadline`, `model_error`).
    pub fn name(&self) -> &'static str {
        match self {
            TurnStop::Answered => "answered",
            TurnStop::MaxIterations => "max_iterations",
            TurnStop::Cancelled => "cancelled",
            TurnStop::Deadline => "deadline",
            TurnStop::ModelError(_) => "model_error",
        }
    }
}

/// What happened to one tool call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ReplyKind {
    /// The tool ran (a core tool or a host executor); see `ok`.
    Executed,
    /// The call was not run: unknown tool, invalid arguments or no executor on this host.
    Rejected,
    /// The tool's set was inactive and the call was answered by activating it
    /// ("the call was NOT executed yet").
    Substituted,
    /// `enable_toolset` / `disable_toolset`; `changed` tells whether the active sets changed.
    ToolsetChange {
        /// Whether the session's active sets changed.
        changed: bool,
    },
}

/// One tool reply produced during a turn.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ToolReply {
    /// The tool called.
    pub name: String,
    /// The reply text.
    pub text: String,
    /// False for errors.
    pub ok: bool,
    /// What happened.
    pub kind: ReplyKind,
    /// Whether the reply was written to the history (enable/disable replies usually are not).
    pub in_history: bool,
}

/// One execution of a tool during a turn.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ExecutedTool {
    /// The tool.
    pub name: String,
    /// Its validated arguments.
    pub args: Args,
    /// Its reply.
    pub result: String,
    /// Whether it succeeded.
    pub ok: bool,
    /// How long it ran, ms, by the agent's clock.
    pub ms: u64,
}

/// One model call of a turn.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct GenerationRecord {
    /// Why it stopped.
    pub stop: StopReason,
    /// Token accounting, when measured.
    pub stats: Option<GenerationStats>,
    /// Whether it was discarded and generated again.
    pub discarded: bool,
}

/// The result of [`Agent::turn`](super::Agent::turn) (serializable for hosts across the FFI).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct TurnOutcome {
    /// The final visible reply (trimmed): the last generation's visible text.
    pub reply: String,
    /// Why the turn ended.
    pub stop: TurnStop,
    /// Executed tools in order (core and host tools; not enable/disable, not substituted calls).
    pub executed: Vec<ExecutedTool>,
    /// Texts passed to `show_text`, in order.
    pub shown: Vec<String>,
    /// Every tool reply of the turn, including the ones kept out of the history.
    pub tool_replies: Vec<ToolReply>,
    /// Every model call, in order.
    pub generations: Vec<GenerationRecord>,
    /// Everything streamed to the host as [`AgentEvent::Text`], concatenated.
    pub streamed: String,
    /// With [`TurnStop::ModelError`]: what kind of failure the model reported, so a host can
    /// act on it (the stop's message is for people).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_error: Option<ModelErrorKind>,
    /// How the turn's requests were kept inside the model's context.
    pub context: ContextReport,
    /// Where routing sent the turn's first action ([`crate::Technique::Route`]); `None` when
    /// it did not route (off, the model cannot embed, no examples).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub route: Option<Route>,
    /// A turn that ended without an answer says so: the phrase for its stop
    /// (iteration limit, deadline, model error, cancel). Except for a cancel it was also
    /// streamed as [`AgentEvent::Text`] (the user hears it) and is the turn's `reply`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notice: Option<String>,
    /// Whether the user interrupted the reply: the history keeps it as far as it was
    /// delivered, marked as interrupted.
    pub interrupted: bool,
    /// Generations after which a reminder was added to the request
    /// ([`AgentConfig::reminder_after`](super::AgentConfig::reminder_after)).
    pub reminders: usize,
    /// Requests of the turn that carried the reminder of the session's running protocol
    /// ([`super::HostHook::reminder`]).
    pub run_reminders: usize,
    /// Generations added because the turn answered while its protocol ran with no open
    /// step (0 or 1).
    pub finish_reminders: usize,
    /// Hidden notes of the host that entered the history at the turn's start
    /// ([`super::HostHook::take_notes`]).
    pub notes: usize,
    /// The conversational intent the turn was answered for from the message texts,
    /// without a model call ([`crate::Technique::TalkIntents`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub talk: Option<Intent>,
    /// The judge's rule for which the reply gate held a generated reply back
    /// ([`crate::Technique::ReplyGate`]): the user got what passed before it, else the
    /// no-reply phrase.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gated: Option<Rule>,
    /// The turn asked an arithmetic question and was answered with the computed result,
    /// without a model call ([`crate::Technique::Arithmetic`]).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub computed: bool,
    /// The model's reply was empty, held back or rejected by the judge, and the turn
    /// declined honestly instead, naming what the assistant can do
    /// ([`crate::Technique::HonestDecline`]).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub declined: bool,
    /// The turn declined because the model was unsure of a reply the judge accepted
    /// ([`crate::Technique::ConfidenceGate`]); `declined` is set too.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub unsure: bool,
    /// How probable the model found the tokens of the turn's generated plain reply, the one
    /// the honest decline judged (a turn that called no tool), when the model reports it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confidence: Option<Confidence>,
    /// The tool the turn asked about instead of acting, its route being narrow
    /// ([`crate::Technique::AskWhenUnsure`]): the reply is the question.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub asked: Option<String>,
    /// The turn was a yes to the question of the turn before, and ran the action asked
    /// about for the request then ([`crate::Technique::AskWhenUnsure`]).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub confirmed: bool,
    /// The tool whose required argument the turn asked for instead of acting: the request
    /// did not say it ([`crate::Technique::SaidArgs`]); the reply is the question and the
    /// next turn's answer fills it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub asked_for: Option<String>,
    /// The tool a value was said for outside its declared range: not called, the reply says
    /// the range ([`crate::Technique::SaidArgs`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub out_of_range: Option<String>,
    /// The turn's answer gave the value a call asked for the turn before, and ran it.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub filled: bool,
}

impl Default for TurnOutcome {
    fn default() -> Self {
        Self::new()
    }
}

impl TurnOutcome {
    /// An outcome with nothing in it yet (a turn that ends without a stop of its own ran
    /// out of iterations).
    pub fn new() -> Self {
        TurnOutcome {
            reply: String::new(),
            stop: TurnStop::MaxIterations,
            executed: Vec::new(),
            shown: Vec::new(),
            tool_replies: Vec::new(),
            generations: Vec::new(),
            streamed: String::new(),
            model_error: None,
            context: ContextReport::default(),
            route: None,
            notice: None,
            interrupted: false,
            reminders: 0,
            run_reminders: 0,
            finish_reminders: 0,
            notes: 0,
            talk: None,
            gated: None,
            computed: false,
            declined: false,
            unsure: false,
            confidence: None,
            asked: None,
            confirmed: false,
            asked_for: None,
            out_of_range: None,
            filled: false,
        }
    }
}

/// Errors of the agent's host-facing calls (a turn's own failures are in [`TurnStop`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AgentError {
    /// Session names must not be empty.
    #[error("empty session name")]
    EmptySession,
    /// No toolset of that name is declared.
    #[error("no toolset {name:?}; available: {available:?}")]
    UnknownToolset {
        /// The name asked for.
        name: String,
        /// The declared sets.
        available: Vec<String>,
    },
    /// The model refused a request outside a turn
    /// ([`Agent::hear_partial`](super::Agent::hear_partial)).
    #[error("model: {0}")]
    Model(String),
}
