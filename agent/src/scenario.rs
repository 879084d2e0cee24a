//! Scripted scenarios: YAML files that drive an [`Agent`] with a [`ScriptedModel`] and check
//! what happened. `porfiry scenario FILE...` and the crate's integration tests run them.
//!
//! ```yaml
//! name: media via substitution
//! lang: ru                         # default ru
//! skills: [fixtures/skills]        # default: the built-in skills (paths relative to the file)
//! toolsets: [fixtures/toolsets]    # default: the built-in toolsets
//! clock: 2026-08-22T10:00:00+03:00 # manual clock start (default 2026-01-01T00:00:00+00:00)
//! direct_execution: true           # default true
//! max_iterations: 8                # default 8
//! toolset_timeout: 10m             # default 10m
//! tool_results: {media_search: "1. Tomb Raider (2018) id=tt1365519", media_play: {error: "TV off"}}
//! context: 300                     # the scripted model's context in tokens (default: unbounded)
//! reply_tokens: 60                 # its reply limit (default: a quarter of `context`)
//! steps:
//!   - session: s1                  # switch session (default "default")
//!   - advance: 9m59s               # move the clock
//!   - user: "Найди фильм про Лару Крофт"
//!     model: ["TOOL_CALL: media_search|Лара Крофт", "Нашёл: Tomb Raider (2018)"]
//!   - expect:
//!       active: [media]            # exactly the active sets of the current session
//!       prompt_contains: [media_search]
//!       prompt_excludes: []
//!       history_contains: [Tomb Raider]
//!       history_excludes: [enable_toolset]
//!       tool_results_contains: []  # all tool replies of the last turn, incl. ones kept out of history
//!       reply_contains: [Tomb Raider]
//!       reply_excludes: []
//!       streamed_excludes: [TOOL_CALL]   # what the host received as text
//!       executed: [media_search]   # executions of the last turn, in order
//!       shown: []                  # show_text texts of the last turn
//!       stop: answered             # answered | max_iterations | cancelled | model_error
//!       request_contains: [Tomb Raider]  # the last request the model received, as text
//!       request_excludes: []
//!       compactions: 0             # compactions of the request in the last turn
//!       request_as_in_step: 4      # the last request is identical to step 4's last one
//!       request_extends_step: 4    # ... begins with all of step 4's last request
//! ```
//!
//! **A catalog** (needs a host that has one, [`ScenarioDefaults::catalog`]: the runtime's
//! tests and `porfiry scenario`):
//!
//! ```yaml
//! catalog: [fixtures/catalog]      # documents (files or folders) imported as shared entries
//!                                  # into a fresh temporary catalog; the skills and protocol
//!                                  # toolsets are added and executed over it
//! steps:
//!   - decide: {proposal: last, action: accept}   # the user decides (last, or #N)
//!   - decide: {proposal: "#2", action: accept, refused: "already exists"}  # must be refused
//!   - expect:
//!       run: {status: running, open_steps: 1}    # the session's newest run (status none: no run)
//!       proposals: {pending: 1, accepted: 0, rejected: 0, error_contains: "already exists"}
//!       notes: 1                                 # hidden host notes the last turn began with
//!       run_reminders: 2                         # requests of the last turn with the run's reminder
//!       finish_reminders: 1                      # finish reminders of the last turn
//! ```
//!
//! Within one step the keys run in the order session → advance → decide → user/model → expect.
//! A `user` step fails if the loop needs more model outputs than given or leaves some unused,
//! and when the turn stops with a model error — unless that step's own `expect` says
//! `stop: model_error` (a turn the agent refuses because it cannot fit the context).
//!
//! **Requests.** `request_*` keys look at the last request a model received in the scenario
//! so far (of the last turn that made one), rendered as `system: <system text>` and then
//! [`render_history`] of its messages — the state message and the compaction marker
//! included. `request_as_in_step` / `request_extends_step` compare it with the last request
//! of an earlier `user` step (1-based; the session name is not compared): the same history
//! and budget must give the same request, and a request made before the next compaction
//! must begin with the previous one (so a model's KV cache reuses it).
//!
//! **A bounded context.** With `context: N` every turn's model is
//! [`ScriptedModel::with_context`]`(N, reply_tokens)`: it reports an N-token context and counts
//! a request as ONE token per whitespace-separated word of each message's text plus 4 per
//! message, the system text counted as a message ([`ScriptedModel::tokens_of`]); a reply is
//! one token per word and stops at the reply limit or where the context is full. A request
//! over N tokens fails the step (`the agent sent a request that does not fit`), even with
//! `stop: model_error`: scenarios prove the agent never sends one.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;

use crate::agent::{merged_input, render_history, Agent, AgentConfig, TurnOutcome, TurnStop};
use crate::clock::{parse_duration, Clock, ManualClock};
use crate::messages::Lang;
use crate::model::CancelToken;
use crate::scripted::{RecordedRequest, ScriptedModel};
use crate::tools::{ExecutorTarget, ToolExecutor, ToolInvocation};

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

/// One step; its keys run in the order session, advance, user/model, expect.
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

/// Where scenarios without `skills:` / `toolsets:` get them, and what the host adds.
#[derive(Debug, Clone, Default)]
pub struct ScenarioDefaults {
    /// Default skill folders.
    pub skills: Vec<PathBuf>,
    /// Default toolset folders.
    pub toolsets: Vec<PathBuf>,
    /// How the host times its tools: every stand-in executor is registered through it.
    /// Needed by scenarios with `tool_hangs` (the agent starts no threads; a host such as
    /// the runtime gives its timed executor here).
    pub timed_tools: Option<TimedTools>,
    /// How the host opens a catalog of skills and protocols for a scenario with `catalog:`
    /// (the agent has none; the runtime gives its own here).
    pub catalog: Option<CatalogFactory>,
}

/// How the host wraps an executor ([`ScenarioDefaults::timed_tools`], or as it is).
pub type Wrap<'a> = &'a dyn Fn(Arc<dyn ToolExecutor>) -> Arc<dyn ToolExecutor>;

/// A host's catalog for one scenario ([`ScenarioDefaults::catalog`]), fresh and temporary.
pub trait ScenarioCatalog {
    /// Toolset folders the agent loads after the scenario's (the catalog's sets).
    fn toolset_dirs(&self) -> Vec<PathBuf>;
    /// Puts the catalog behind `agent`: its executors (each through `wrap`) and its
    /// [`crate::HostHook`].
    fn attach(&self, agent: &mut Agent, wrap: Wrap<'_>);
    /// The user accepts or rejects proposal `which` (`last` or `#N`). `Err`: the store's
    /// refusal (or no such proposal).
    fn decide(&self, which: &str, action: DecideAction) -> Result<(), String>;
    /// The status (`running`, `done`, …) and the number of open steps of the session's
    /// newest run; `None`: it has none.
    fn run(&self, session: &str) -> Option<(String, usize)>;
    /// The proposals by status.
    fn proposals(&self) -> ProposalCounts;
}

/// The catalog's proposals ([`ScenarioCatalog::proposals`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProposalCounts {
    /// Pending ones.
    pub pending: usize,
    /// Accepted ones.
    pub accepted: usize,
    /// Rejected ones.
    pub rejected: usize,
    /// The newest pending one's refusal reason, if it has one.
    pub error: Option<String>,
}

/// Opens a fresh catalog with these documents (files or folders, as shared entries) for a
/// scenario in this language ([`ScenarioDefaults::catalog`]).
#[derive(Clone)]
#[allow(clippy::type_complexity)]
pub struct CatalogFactory(
    /// Opens the catalog; `Err` says why it could not.
    pub Arc<dyn Fn(&[PathBuf], Lang) -> Result<Box<dyn ScenarioCatalog>, String> + Send + Sync>,
);

impl fmt::Debug for CatalogFactory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("CatalogFactory(..)")
    }
}

/// A host's wrapping of a tool executor in a timeout ([`ScenarioDefaults::timed_tools`]).
#[derive(Clone)]
#[allow(clippy::type_complexity)]
pub struct TimedTools(
    /// Wraps an executor for a scenario in this language (the timeout's reply is worded in it).
    pub Arc<dyn Fn(Arc<dyn ToolExecutor>, Lang) -> Arc<dyn ToolExecutor> + Send + Sync>,
);

impl fmt::Debug for TimedTools {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("TimedTools(..)")
    }
}

/// The result of one scenario file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioResult {
    /// The scenario's name (the file path when it did not parse).
    pub name: String,
    /// The file.
    pub path: PathBuf,
    /// Why it failed; `None` when it passed.
    pub failure: Option<String>,
}

impl ScenarioResult {
    /// Whether it passed.
    pub fn passed(&self) -> bool {
        self.failure.is_none()
    }
}

/// `PASS <name>` or `FAIL <name>: <why>`, always on one line.
impl fmt::Display for ScenarioResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.failure {
            None => write!(f, "PASS {}", self.name),
            // One line per scenario, whatever the reason contains.
            Some(why) => write!(f, "FAIL {}: {}", self.name, why.replace('\n', "\\n")),
        }
    }
}

/// Parse a scenario file.
pub fn load_scenario(path: &Path) -> Result<Scenario, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read: {e}"))?;
    parse_scenario(&text)
}

/// Parse a scenario file's text.
pub fn parse_scenario(text: &str) -> Result<Scenario, String> {
    crate::load::check_flow(text).map_err(|e| format!("bad scenario YAML: {e}"))?;
    serde_norway::from_str(text).map_err(|e| format!("bad scenario YAML: {e}"))
}

/// Load and run one scenario file.
pub fn run_scenario_file(path: &Path, defaults: &ScenarioDefaults) -> ScenarioResult {
    match load_scenario(path) {
        Err(why) => ScenarioResult {
            name: path.display().to_string(),
            path: path.to_path_buf(),
            failure: Some(why),
        },
        Ok(sc) => {
            let base = path.parent().unwrap_or(Path::new("."));
            ScenarioResult {
                name: sc.name.clone(),
                path: path.to_path_buf(),
                failure: run_scenario(&sc, base, defaults).err(),
            }
        }
    }
}

/// Run several files; the summary line is [`summary`].
pub fn run_scenario_files<P: AsRef<Path>>(
    paths: &[P],
    defaults: &ScenarioDefaults,
) -> Vec<ScenarioResult> {
    paths
        .iter()
        .map(|p| run_scenario_file(p.as_ref(), defaults))
        .collect()
}

/// `N passed, M failed`.
pub fn summary(results: &[ScenarioResult]) -> String {
    let passed = results.iter().filter(|r| r.passed()).count();
    format!("{passed} passed, {} failed", results.len() - passed)
}

fn stop_name(stop: &TurnStop) -> &'static str {
    match stop {
        TurnStop::Answered => "answered",
        TurnStop::MaxIterations => "max_iterations",
        TurnStop::Cancelled => "cancelled",
        TurnStop::Deadline => "deadline",
        TurnStop::ModelError(_) => "model_error",
    }
}

/// What every turn must leave: a history whose last message is the assistant's and in
/// which no two user messages follow each other.
fn check_turn_shape(history: &[crate::model::Message]) -> Result<(), String> {
    use crate::model::Role;
    if let Some(i) = history
        .windows(2)
        .position(|w| w[0].role == Role::User && w[1].role == Role::User)
    {
        return Err(format!(
            "two user messages in a row at {i}:\n{}",
            render_history(history)
        ));
    }
    match history.last() {
        Some(m) if m.role == Role::Assistant => Ok(()),
        _ => Err(format!(
            "the turn left no assistant message at the end:\n{}",
            render_history(history)
        )),
    }
}

/// Run a parsed scenario; `base` resolves its relative paths. `Err` says why it failed.
pub fn run_scenario(sc: &Scenario, base: &Path, defaults: &ScenarioDefaults) -> Result<(), String> {
    let resolve = |dirs: &Option<Vec<PathBuf>>, default: &Vec<PathBuf>| match dirs {
        Some(d) => d.iter().map(|p| base.join(p)).collect::<Vec<_>>(),
        None => default.clone(),
    };
    let skills = resolve(&sc.skills, &defaults.skills);
    let mut toolsets = resolve(&sc.toolsets, &defaults.toolsets);
    let catalog = match (&sc.catalog, &defaults.catalog) {
        (None, _) => None,
        (Some(_), None) => {
            return Err(
                "`catalog` needs a host with a catalog (run it from the runtime's tests)".into(),
            )
        }
        (Some(docs), Some(CatalogFactory(open))) => {
            let docs: Vec<PathBuf> = docs.iter().map(|p| base.join(p)).collect();
            let catalog = open(&docs, sc.lang).map_err(|e| format!("catalog: {e}"))?;
            toolsets.extend(catalog.toolset_dirs());
            Some(catalog)
        }
    };
    let clock = ManualClock::parse(sc.clock.as_deref().unwrap_or("2026-01-01T00:00:00+00:00"))
        .map_err(|e| format!("bad clock: {e}"))?;
    let mut config = AgentConfig {
        lang: sc.lang,
        direct_execution: sc.direct_execution,
        ..AgentConfig::default()
    };
    config
        .guidance
        .set(crate::Technique::HideUnexecutable, sc.hide_unexecutable);
    if let Some(n) = sc.max_iterations {
        config.max_iterations = n;
    }
    if let Some(n) = sc.reminder_after {
        config.reminder_after = Some(n);
    }
    if !sc.tool_hangs.is_empty() && defaults.timed_tools.is_none() {
        return Err(
            "`tool_hangs` needs a host that times its tools (run it from the runtime's tests)"
                .into(),
        );
    }
    let default_budget = config.turn_budget;
    if let Some(t) = &sc.toolset_timeout {
        config.toolset_timeout = parse_duration(t).map_err(|e| e.to_string())?;
    }
    let shared: Arc<dyn Clock> = Arc::new(clock.clone());
    let loaded = Agent::load(config, &skills, &toolsets, shared);
    if loaded.has_errors() {
        let errors: Vec<String> = loaded
            .diagnostics
            .iter()
            .filter(|d| d.severity() == crate::diag::Severity::Error)
            .map(|d| d.to_string())
            .collect();
        return Err(format!("loading failed: {}", errors.join("; ")));
    }
    let mut agent = loaded.value;
    let timed = |e: Arc<dyn ToolExecutor>| match &defaults.timed_tools {
        Some(TimedTools(wrap)) => wrap(e, sc.lang),
        None => e,
    };
    for (tool, stand_in) in &sc.tool_results {
        let reply = stand_in.clone();
        agent.register_executor(
            ExecutorTarget::Tool(tool.clone()),
            timed(Arc::new(move |_: &ToolInvocation<'_>| reply.reply())),
        );
    }
    if let Some(c) = &catalog {
        c.attach(&mut agent, &timed);
    }
    for tool in &sc.tool_hangs {
        agent.register_executor(
            ExecutorTarget::Tool(tool.clone()),
            timed(Arc::new(|_: &ToolInvocation<'_>| loop {
                // Never returns: the host's timeout must answer for it.
                std::thread::park();
            })),
        );
    }

    let mut session = "default".to_string();
    let mut last: Option<TurnOutcome> = None;
    let mut requests = Requests::default();
    for (i, step) in sc.steps.iter().enumerate() {
        let at = |msg: String| format!("step {}: {msg}", i + 1);
        if let Some(s) = &step.session {
            if s.trim().is_empty() {
                return Err(at("empty session name".into()));
            }
            session = s.clone();
        }
        if let Some(a) = &step.advance {
            clock.advance(parse_duration(a).map_err(|e| at(e.to_string()))?);
        }
        if let Some(d) = &step.decide {
            let c = catalog
                .as_ref()
                .ok_or_else(|| at("`decide` needs `catalog:`".into()))?;
            match (c.decide(&d.proposal, d.action), &d.refused) {
                (Ok(()), None) => {}
                (Err(e), Some(want)) if e.contains(want.as_str()) => {}
                (Ok(()), Some(want)) => {
                    return Err(at(format!(
                        "the decision was not refused ({want:?} expected)"
                    )))
                }
                (Err(e), _) => return Err(at(format!("the decision was refused: {e}"))),
            }
        }
        let user = match (&step.user, &step.queue) {
            (Some(_), Some(_)) => return Err(at("`user` and `queue` in one step".into())),
            (Some(u), None) => Some(u.clone()),
            (None, Some(q)) => Some(merged_input(q)),
            (None, None) => None,
        };
        match (&user, &step.model) {
            (Some(user), outputs) => {
                let outputs = outputs.clone().unwrap_or_default();
                let given = outputs.len();
                let mut model = ScriptedModel::new(outputs);
                if let Some(n) = sc.context {
                    model = model.with_context(n, sc.reply_tokens.unwrap_or(n / 4));
                }
                if let Some(t) = &step.takes {
                    let each = parse_duration(t).map_err(|e| at(e.to_string()))?;
                    model = model.taking(clock.clone(), each);
                }
                let budget = match step.deadline.as_deref().map(str::trim) {
                    None => default_budget,
                    Some("off") => None,
                    Some(d) => Some(parse_duration(d).map_err(|e| at(e.to_string()))?),
                };
                agent.set_turn_budget(budget);
                let cancel = CancelToken::new();
                let mut streamed = 0usize;
                let interrupt = step.interrupt.clone();
                let out = agent
                    .turn(&session, user, &mut model, &cancel, &mut |event| {
                        if let (Some(i), crate::agent::AgentEvent::Text(t)) = (&interrupt, &event) {
                            streamed += t.chars().count();
                            if streamed >= i.after_chars && !cancel.is_cancelled() {
                                cancel.interrupt(i.delivered_chars.unwrap_or(i.after_chars));
                            }
                        }
                    })
                    .map_err(|e| at(e.to_string()))?;
                agent.set_turn_budget(default_budget);
                check_turn_shape(agent.history(&session)).map_err(at)?;
                let step_request = model.requests().last().cloned();
                if step_request.is_some() {
                    requests.last = step_request.clone();
                }
                requests.by_step.insert(i + 1, step_request);
                if let TurnStop::ModelError(e) = &out.stop {
                    if *e == ScriptedModel::exhausted_error().to_string() {
                        return Err(at(format!(
                            "the turn needed more than the {given} model output(s) given"
                        )));
                    }
                    if e.contains("scripted model:") {
                        return Err(at(format!(
                            "the agent sent a request that does not fit: {e}"
                        )));
                    }
                    let expected = step
                        .expect
                        .as_ref()
                        .and_then(|x| x.stop.as_deref())
                        .is_some_and(|stop| stop.trim() == "model_error");
                    if !expected {
                        return Err(at(format!("model error: {e}")));
                    }
                }
                if model.remaining() > 0 {
                    return Err(at(format!(
                        "{} of {given} model output(s) left unused (turn stopped: {})",
                        model.remaining(),
                        stop_name(&out.stop)
                    )));
                }
                last = Some(out);
            }
            (None, Some(_)) => return Err(at("`model` without `user`".into())),
            (None, None) => {}
        }
        if let Some(e) = &step.expect {
            check(&mut agent, &session, last.as_ref(), &requests, e).map_err(at)?;
            check_catalog(catalog.as_deref(), &session, e).map_err(at)?;
        }
    }
    Ok(())
}

/// The requests models received in a scenario: the last one, and each `user` step's last
/// (by 1-based step number; `None` for a turn that sent none).
#[derive(Default)]
struct Requests {
    last: Option<RecordedRequest>,
    by_step: BTreeMap<usize, Option<RecordedRequest>>,
}

impl Requests {
    /// The last request of step `n`.
    fn of_step(&self, n: usize) -> Result<&RecordedRequest, String> {
        match self.by_step.get(&n) {
            Some(Some(r)) => Ok(r),
            Some(None) => Err(format!("step {n} sent no request")),
            None => Err(format!("step {n} is not an earlier `user` step")),
        }
    }
}

/// A request as text: `system: …` and then its messages as [`render_history`] shows them.
fn render_request(r: &RecordedRequest) -> String {
    format!("system: {}\n{}", r.system, render_history(&r.messages))
}

/// The checks of one expectation on the last request (`request_*`).
fn check_request(requests: &Requests, e: &Expect) -> Result<(), String> {
    let asks = !e.request_contains.is_empty()
        || !e.request_excludes.is_empty()
        || e.request_as_in_step.is_some()
        || e.request_extends_step.is_some();
    if !asks {
        return Ok(());
    }
    let last = requests
        .last
        .as_ref()
        .ok_or("no request was made yet".to_string())?;
    let text = render_request(last);
    contains_all("request", &text, &e.request_contains)?;
    excludes_all("request", &text, &e.request_excludes)?;
    if let Some(n) = e.request_as_in_step {
        let earlier = requests.of_step(n)?;
        if (&earlier.system, &earlier.messages) != (&last.system, &last.messages) {
            return Err(format!(
                "the request differs from step {n}'s:\n{}\n--- vs ---\n{text}",
                render_request(earlier)
            ));
        }
    }
    if let Some(n) = e.request_extends_step {
        let earlier = requests.of_step(n)?;
        if earlier.system != last.system || !last.messages.starts_with(&earlier.messages) {
            return Err(format!(
                "the request does not begin with step {n}'s:\n{}\n--- vs ---\n{text}",
                render_request(earlier)
            ));
        }
    }
    Ok(())
}

fn contains_all(what: &str, text: &str, wanted: &[String]) -> Result<(), String> {
    for w in wanted {
        if !text.contains(w.as_str()) {
            return Err(format!("{what} lacks {w:?}; it is {text:?}"));
        }
    }
    Ok(())
}

fn excludes_all(what: &str, text: &str, unwanted: &[String]) -> Result<(), String> {
    for w in unwanted {
        if text.contains(w.as_str()) {
            return Err(format!("{what} contains {w:?}; it is {text:?}"));
        }
    }
    Ok(())
}

fn check(
    agent: &mut Agent,
    session: &str,
    last: Option<&TurnOutcome>,
    requests: &Requests,
    e: &Expect,
) -> Result<(), String> {
    if let Some(want) = &e.active {
        let mut want: Vec<String> = want.iter().map(|s| s.trim().to_lowercase()).collect();
        want.sort();
        let got = agent.active_toolsets(session);
        if got != want {
            return Err(format!("active toolsets are {got:?}, expected {want:?}"));
        }
    }
    let prompt = agent.prompt(session);
    contains_all("prompt", prompt.text(), &e.prompt_contains)?;
    excludes_all("prompt", prompt.text(), &e.prompt_excludes)?;
    let history = render_history(agent.history(session));
    contains_all("history", &history, &e.history_contains)?;
    excludes_all("history", &history, &e.history_excludes)?;
    let empty = TurnOutcome {
        stop: TurnStop::Answered,
        ..TurnOutcome::new()
    };
    let last = last.unwrap_or(&empty);
    for w in &e.tool_results_contains {
        if !last
            .tool_replies
            .iter()
            .any(|r| r.text.contains(w.as_str()))
        {
            let all: Vec<&str> = last.tool_replies.iter().map(|r| r.text.as_str()).collect();
            return Err(format!("no tool reply contains {w:?}; replies: {all:?}"));
        }
    }
    contains_all("reply", &last.reply, &e.reply_contains)?;
    excludes_all("reply", &last.reply, &e.reply_excludes)?;
    contains_all("streamed text", &last.streamed, &e.streamed_contains)?;
    let lower = last.streamed.to_lowercase();
    for w in &e.streamed_excludes {
        if lower.contains(&w.to_lowercase()) {
            return Err(format!("streamed text contains {w:?}: {:?}", last.streamed));
        }
    }
    if let Some(want) = &e.executed {
        let got: Vec<&str> = last.executed.iter().map(|x| x.name.as_str()).collect();
        if got != want.iter().map(String::as_str).collect::<Vec<_>>() {
            return Err(format!("executed {got:?}, expected {want:?}"));
        }
    }
    if let Some(want) = &e.shown {
        if &last.shown != want {
            return Err(format!("shown {:?}, expected {want:?}", last.shown));
        }
    }
    if let Some(want) = &e.stop {
        let got = stop_name(&last.stop);
        if got != want.trim() {
            return Err(format!("the turn stopped as {got}, expected {want}"));
        }
    }
    if let Some(want) = e.interrupted {
        if last.interrupted != want {
            return Err(format!(
                "interrupted is {}, expected {want}",
                last.interrupted
            ));
        }
    }
    contains_all(
        "notice",
        last.notice.as_deref().unwrap_or_default(),
        &e.notice_contains,
    )?;
    if let Some(want) = e.reminders {
        if last.reminders != want {
            return Err(format!("{} reminder(s), expected {want}", last.reminders));
        }
    }
    for (what, want, got) in [
        ("run reminder(s)", e.run_reminders, last.run_reminders),
        (
            "finish reminder(s)",
            e.finish_reminders,
            last.finish_reminders,
        ),
        ("host note(s)", e.notes, last.notes),
    ] {
        if want.is_some_and(|w| w != got) {
            return Err(format!("{got} {what}, expected {}", want.unwrap_or(0)));
        }
    }
    if let Some(want) = e.compactions {
        let got = last.context.compactions;
        if got != want {
            return Err(format!(
                "the last turn compacted {got} time(s), expected {want}; {:?}",
                last.context
            ));
        }
    }
    check_request(requests, e)
}

/// The catalog checks of one expectation (`run`, `proposals`).
fn check_catalog(
    catalog: Option<&dyn ScenarioCatalog>,
    session: &str,
    e: &Expect,
) -> Result<(), String> {
    if e.run.is_none() && e.proposals.is_none() {
        return Ok(());
    }
    let c = catalog.ok_or("`run` and `proposals` need `catalog:`".to_string())?;
    if let Some(want) = &e.run {
        let got = c.run(session);
        if let Some(status) = &want.status {
            let got_status = got.as_ref().map_or("none", |(s, _)| s.as_str());
            if got_status != status.trim() {
                return Err(format!("the run is {got_status}, expected {status}"));
            }
        }
        if let Some(open) = want.open_steps {
            let got_open = got.as_ref().map(|(_, n)| *n);
            if got_open != Some(open) {
                return Err(format!("open steps {got_open:?}, expected {open}"));
            }
        }
    }
    if let Some(want) = &e.proposals {
        let got = c.proposals();
        for (what, w, g) in [
            ("pending", want.pending, got.pending),
            ("accepted", want.accepted, got.accepted),
            ("rejected", want.rejected, got.rejected),
        ] {
            if w.is_some_and(|w| w != g) {
                return Err(format!(
                    "{g} {what} proposal(s), expected {}; {got:?}",
                    w.unwrap_or(0)
                ));
            }
        }
        if let Some(part) = &want.error_contains {
            let error = got.error.as_deref().unwrap_or_default();
            if !error.contains(part.as_str()) {
                return Err(format!(
                    "the pending proposal's error is {error:?}, expected {part:?}"
                ));
            }
        }
    }
    Ok(())
}
