//! The scenario file's YAML: [`Scenario`], its [`Step`]s and their [`Expect`]ations (the
//! format is described in the [module above](super)).

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Deserialize;

use crate::messages::Lang;
#[cfg(doc)]
use {
    super::ScenarioDefaults,
    crate::{merged_input, AgentConfig, ScriptedModel},
};

/// A host tool stand-in: the reply text, or an error.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum StandIn {
    /// The tool succeeds with this text.
    Text(String),
    /// The tool fails with this text.
    Error {
        /// The error text.
        error: String,
    },
}

impl StandIn {
    /// What the stand-in executor returns: the text, or the error.
    ///
    /// # Errors
    /// The stand-in's error text, for [`StandIn::Error`].
    pub fn reply(&self) -> Result<String, String> {
        match self {
            StandIn::Text(t) => Ok(t.clone()),
            StandIn::Error { error } => Err(error.clone()),
        }
    }
}

/// One scenario file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// What it checks.
    pub name: String,
    /// Prompt and reply language.
    #[serde(default)]
    pub lang: Lang,
    /// Skill folders, relative to the file; `None`: the defaults.
    #[serde(default)]
    pub skills: Option<Vec<PathBuf>>,
    /// Toolset folders, relative to the file; `None`: the defaults.
    #[serde(default)]
    pub toolsets: Option<Vec<PathBuf>>,
    /// The manual clock's start.
    #[serde(default)]
    pub clock: Option<String>,
    /// [`AgentConfig::direct_execution`].
    #[serde(default = "yes")]
    pub direct_execution: bool,
    /// [`AgentConfig::max_iterations`].
    #[serde(default)]
    pub max_iterations: Option<usize>,
    /// [`AgentConfig::toolset_timeout`], as a duration (`10m`).
    #[serde(default)]
    pub toolset_timeout: Option<String>,
    /// Stand-ins for host executors, by tool name.
    #[serde(default)]
    pub tool_results: BTreeMap<String, StandIn>,
    /// [`crate::Technique::HideUnexecutable`]: sets without a stand-in are left out of the
    /// prompt. Default off: a scenario's prompt shows every declared set.
    #[serde(default)]
    pub hide_unexecutable: bool,
    /// The scripted model's context in tokens ([`ScriptedModel::with_context`]); `None`:
    /// unbounded.
    #[serde(default)]
    pub context: Option<usize>,
    /// With `context`: the scripted model's reply limit. Default: a quarter of the context.
    #[serde(default)]
    pub reply_tokens: Option<usize>,
    /// Host tools that never return (their stand-ins block for good). Runs only with a host
    /// that times its tools ([`ScenarioDefaults::timed_tools`]); the agent alone refuses it.
    #[serde(default)]
    pub tool_hangs: Vec<String>,
    /// [`AgentConfig::reminder_after`]; default as the agent's.
    #[serde(default)]
    pub reminder_after: Option<usize>,
    /// Catalog documents (files or folders, relative to the file) imported as shared entries
    /// into a fresh temporary catalog. Runs only with a host that has a catalog
    /// ([`ScenarioDefaults::catalog`]); the agent alone refuses it.
    #[serde(default)]
    pub catalog: Option<Vec<PathBuf>>,
    /// The steps.
    pub steps: Vec<Step>,
}

fn yes() -> bool {
    true
}

/// One step; its keys run in the order session, advance, decide, user/model, expect.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// Switch to this session (created on first use).
    #[serde(default)]
    pub session: Option<String>,
    /// Move the clock forward (`9m59s`).
    #[serde(default)]
    pub advance: Option<String>,
    /// The user decides a proposal of the scenario's catalog (before the step's turn).
    #[serde(default)]
    pub decide: Option<Decide>,
    /// Run a user turn with this text.
    #[serde(default)]
    pub user: Option<String>,
    /// Several user messages that arrived at once: one turn with their texts merged
    /// ([`merged_input`], the runtime's policy for queued messages).
    #[serde(default)]
    pub queue: Option<Vec<String>>,
    /// The model's outputs for that turn, one per generation.
    #[serde(default)]
    pub model: Option<Vec<String>>,
    /// The user speaks over the reply: the turn is interrupted once this much was streamed.
    #[serde(default)]
    pub interrupt: Option<Interrupt>,
    /// The turn's time budget ([`AgentConfig::turn_budget`]), e.g. `5s`; `off` for none.
    /// Default: the agent's.
    #[serde(default)]
    pub deadline: Option<String>,
    /// How long each generation of the turn takes on the manual clock (`3s`,
    /// [`ScriptedModel::taking`]). Default: no time.
    #[serde(default)]
    pub takes: Option<String>,
    /// Checks.
    #[serde(default)]
    pub expect: Option<Expect>,
}

/// A barge-in ([`Step::interrupt`]).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Interrupt {
    /// Interrupt once the turn streamed at least this many characters.
    pub after_chars: usize,
    /// How many of them the user got (spoken or shown); default `after_chars`.
    #[serde(default)]
    pub delivered_chars: Option<usize>,
}

/// The user's decision on a proposal ([`Step::decide`]).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Decide {
    /// `last` (the newest proposal) or its id, `#N`.
    pub proposal: String,
    /// What the user does.
    pub action: DecideAction,
    /// The store must refuse the decision with a reason containing this text (the
    /// proposal stays pending). Without it the decision must succeed.
    #[serde(default)]
    pub refused: Option<String>,
}

/// Accept or reject ([`Decide::action`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DecideAction {
    /// Write the proposed protocol into the catalog.
    Accept,
    /// Leave the catalog as it is.
    Reject,
}

/// Expected state of the session's newest protocol run ([`Expect::run`]).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunExpect {
    /// `running`, `done`, `failed`, `cancelled`, or `none` (the session has no run).
    #[serde(default)]
    pub status: Option<String>,
    /// How many of its steps are open.
    #[serde(default)]
    pub open_steps: Option<usize>,
}

/// Expected proposals of the catalog ([`Expect::proposals`]).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProposalsExpect {
    /// Exactly this many pending.
    #[serde(default)]
    pub pending: Option<usize>,
    /// Exactly this many accepted.
    #[serde(default)]
    pub accepted: Option<usize>,
    /// Exactly this many rejected.
    #[serde(default)]
    pub rejected: Option<usize>,
    /// The newest pending proposal's refusal reason contains this.
    #[serde(default)]
    pub error_contains: Option<String>,
}

/// Checks against the current state and the last user turn.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// Exactly the active sets of the current session.
    #[serde(default)]
    pub active: Option<Vec<String>>,
    /// Substrings the current session's next prompt must contain.
    #[serde(default)]
    pub prompt_contains: Vec<String>,
    /// Substrings it must not contain.
    #[serde(default)]
    pub prompt_excludes: Vec<String>,
    /// Substrings of the current session's history (all roles, rendered as text).
    #[serde(default)]
    pub history_contains: Vec<String>,
    /// Substrings the history must not contain.
    #[serde(default)]
    pub history_excludes: Vec<String>,
    /// Substrings each found in some tool reply of the last turn.
    #[serde(default)]
    pub tool_results_contains: Vec<String>,
    /// Substrings of the last turn's final reply.
    #[serde(default)]
    pub reply_contains: Vec<String>,
    /// Substrings the final reply must not contain.
    #[serde(default)]
    pub reply_excludes: Vec<String>,
    /// Substrings of the text streamed to the host in the last turn.
    #[serde(default)]
    pub streamed_contains: Vec<String>,
    /// Substrings the streamed text must not contain (case-insensitive).
    #[serde(default)]
    pub streamed_excludes: Vec<String>,
    /// Exactly the executed tools of the last turn, in order.
    #[serde(default)]
    pub executed: Option<Vec<String>>,
    /// Exactly the show_text texts of the last turn.
    #[serde(default)]
    pub shown: Option<Vec<String>>,
    /// How the last turn stopped: answered, max_iterations, cancelled, model_error.
    #[serde(default)]
    pub stop: Option<String>,
    /// Substrings of the last request a model received, rendered as text (system included).
    #[serde(default)]
    pub request_contains: Vec<String>,
    /// Substrings that request must not contain.
    #[serde(default)]
    pub request_excludes: Vec<String>,
    /// Exactly how many compactions the last turn made.
    #[serde(default)]
    pub compactions: Option<usize>,
    /// Whether the last turn was interrupted by the user.
    #[serde(default)]
    pub interrupted: Option<bool>,
    /// Substrings of the last turn's notice (what a turn without an answer says).
    #[serde(default)]
    pub notice_contains: Vec<String>,
    /// Exactly how many requests of the last turn carried a reminder.
    #[serde(default)]
    pub reminders: Option<usize>,
    /// Exactly how many requests of the last turn carried the running protocol's reminder.
    #[serde(default)]
    pub run_reminders: Option<usize>,
    /// Exactly how many finish reminders the last turn had.
    #[serde(default)]
    pub finish_reminders: Option<usize>,
    /// Exactly how many hidden host notes the last turn began with.
    #[serde(default)]
    pub notes: Option<usize>,
    /// The session's newest protocol run (needs a catalog).
    #[serde(default)]
    pub run: Option<RunExpect>,
    /// The catalog's proposals (needs a catalog).
    #[serde(default)]
    pub proposals: Option<ProposalsExpect>,
    /// The last request is identical (system and messages) to the last request of this
    /// earlier step (1-based).
    #[serde(default)]
    pub request_as_in_step: Option<usize>,
    /// The last request has the same system text as the last request of this earlier step
    /// (1-based) and begins with all of its messages.
    #[serde(default)]
    pub request_extends_step: Option<usize>,
}
