//! The agent: configuration, registries, executors and sessions, one file per concern.
//!
//! - `mod.rs` (here): [`Agent`] and [`AgentConfig`] — construction, registries, executors and
//!   the host's calls on sessions (history, toolsets, prompt).
//! - `outcome`: what a turn reports — [`AgentEvent`], [`TurnStop`], [`ToolReply`],
//!   [`TurnOutcome`] — and [`AgentError`].
//! - `session`: one session's state (append-only history, active toolsets with deadlines,
//!   the state anchor), its expiry and [`render_history`].
//! - `layout`: what a model request carries for a session ([`RequestView`], by
//!   [`PromptLayout`]).
//! - `compact`: keeping every request inside the model's context ([`ContextBudget`], the
//!   compaction of the request's view of the history).
//! - `turn`: the turn loop and the hints ahead of it ([`Agent::warm_up`],
//!   [`Agent::hear_partial`]).
//! - `dispatch`: answering one tool call — core tools, toolset switches, host tools.
//! - `hook`: what a host tells the agent about a session between calls ([`HostHook`]: the
//!   reminder of a running protocol, hidden notes, extra skills index lines).
//!
//! What every session shares (configuration, registries, executors, clock) is kept apart
//! from the sessions, so a turn borrows its session once, mutably, beside it.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use crate::clock::{Clock, Timestamp};
use crate::diag::Loaded;
use crate::guidance::{
    FillQuestion, Guidance, HostValues, Planner, ReplyPlan, Route, Router, Technique,
};
use crate::messages::{Lang, Texts};
use crate::model::{CallSyntax, Message, Model, ModelError};
use crate::prompt::{build_prompt_for, Prompt, PromptLayout};
use crate::skill::SkillRegistry;
use crate::tools::{ExecutorTarget, ToolExecutor};
use crate::toolset::{Toolset, ToolsetRegistry};

mod answer;
mod compact;
mod dispatch;
mod gate;
mod hints;
mod hook;
mod layout;
mod outcome;
mod session;
mod talk;
#[cfg(test)]
mod tests;
mod turn;

pub use compact::{estimate_tokens, ContextBudget, ContextReport, LOW_WATER_PERCENT};
pub use hook::{HostHook, HostNote, RunReminder, SharedHook};
pub use layout::RequestView;
pub use outcome::{
    AgentError, AgentEvent, ExecutedTool, GenerationRecord, ReplyKind, ToolReply, TurnOutcome,
    TurnStop,
};
pub use session::render_history;
pub use turn::merged_input;

use session::{session_entry, Session};

/// Settings of an [`Agent`]; `Default` gives the documented defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentConfig {
    /// The language of the prompt and the tool replies. Default: Russian.
    pub lang: Lang,
    /// The most model calls in one turn (including discarded, regenerated ones). Default: 8.
    pub max_iterations: usize,
    /// How long a toolset stays active after the last call of one of its tools (or
    /// `enable_toolset`). Default: 10 minutes.
    pub toolset_timeout: Duration,
    /// A call of a tool of an inactive set whose arguments validate is executed at once
    /// (activating the set) instead of being substituted by an activation. Default: on.
    pub direct_execution: bool,
    /// Where the dynamic prompt sections go in a model request ([`PromptLayout`]).
    /// Default: [`PromptLayout::default`].
    pub layout: PromptLayout,
    /// How the agent helps a small model act right: the guidance techniques on
    /// ([`Guidance`], [`Technique`]).
    pub guidance: Guidance,
    /// The time one turn may take, by the agent's clock: checked before every model call
    /// and handed to the model as the generation's deadline
    /// ([`ModelRequest::time_left`](crate::ModelRequest::time_left)). When it runs out the
    /// turn ends with [`TurnStop::Deadline`] and a spoken phrase ([`crate::Texts`]). `None`:
    /// no limit. Default 20 s (a voice turn).
    pub turn_budget: Option<Duration>,
    /// After this many model calls in one turn, every further request carries a short
    /// reminder (the user's question, the active sets) at the end of its latest tool result
    /// — in the request only, never in the history or the system part. `None`: never.
    /// Default 4.
    pub reminder_after: Option<usize>,
}

impl Default for AgentConfig {
    fn default() -> Self {
        AgentConfig {
            lang: Lang::Ru,
            max_iterations: 8,
            toolset_timeout: Duration::from_secs(600),
            direct_execution: true,
            layout: PromptLayout::default(),
            guidance: Guidance::default(),
            turn_budget: Some(Duration::from_secs(20)),
            reminder_after: Some(4),
        }
    }
}

/// The agent: configuration, skills, toolsets, executors, clock and sessions.
///
/// It owns no thread and no lock; a turn runs on the caller's thread. It is `Send`, so a
/// host may move it to a worker thread.
pub struct Agent {
    shared: Shared,
    sessions: BTreeMap<String, Session>,
}

/// Everything of an agent its sessions share. Apart from the sessions, so that a turn (or
/// the dispatcher) reads it while it holds one session mutably.
struct Shared {
    config: AgentConfig,
    skills: SkillRegistry,
    toolsets: ToolsetRegistry,
    clock: Arc<dyn Clock>,
    executors: HashMap<ExecutorTarget, Arc<dyn ToolExecutor>>,
    /// The sets and skills the prompt shows ([`Technique::HideUnexecutable`]), kept in step
    /// with the executors.
    advertised: Advertised,
    /// Example embeddings for routing.
    router: Router,
    /// The host's hook into sessions ([`Agent::set_host_hook`]); `None`: no host notes.
    hook: Option<SharedHook>,
    /// How the model writes calls ([`crate::Model::call_syntax`]), as the last call that
    /// got a model ([`Agent::turn`], [`Agent::warm_up`], [`Agent::hear_partial`]) found it;
    /// the prompt, the request layout and the guide follow it.
    syntax: CallSyntax,
    /// The lists the host supplies argument values from ([`Agent::set_values`]).
    values: HostValues,
}

/// What guidance plans a request with: the configuration, the model's call syntax and what
/// the prompt advertises.
fn planner<'a>(
    config: &'a AgentConfig,
    syntax: CallSyntax,
    advertised: &'a Advertised,
    values: &'a HostValues,
) -> Planner<'a> {
    Planner {
        values,
        guidance: &config.guidance,
        lang: config.lang,
        syntax,
        toolsets: &advertised.toolsets,
        skills: &advertised.skills,
        direct_execution: config.direct_execution,
    }
}

/// What the prompt advertises: the declared toolsets and skills, less the ones that cannot
/// run on this host.
#[derive(Debug, Clone, Default)]
struct Advertised {
    toolsets: ToolsetRegistry,
    skills: SkillRegistry,
}

impl std::fmt::Debug for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let shared = &self.shared;
        f.debug_struct("Agent")
            .field("config", &shared.config)
            .field("skills", &shared.skills.names())
            .field("toolsets", &shared.toolsets.names())
            .field("executors", &shared.executors.keys().collect::<Vec<_>>())
            .field("sessions", &self.sessions.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl Agent {
    /// An agent over these registries.
    pub fn new(
        config: AgentConfig,
        skills: SkillRegistry,
        toolsets: ToolsetRegistry,
        clock: Arc<dyn Clock>,
    ) -> Self {
        let mut shared = Shared {
            config,
            skills,
            toolsets,
            clock,
            executors: HashMap::new(),
            advertised: Advertised::default(),
            router: Router::default(),
            hook: None,
            syntax: CallSyntax::default(),
            values: HostValues::new(),
        };
        shared.advertise();
        Agent {
            shared,
            sessions: BTreeMap::new(),
        }
    }

    /// Load skills and toolsets from folders (in override order) and build an agent; the
    /// diagnostics of both loads come back with it.
    pub fn load<P: AsRef<Path>>(
        config: AgentConfig,
        skill_dirs: &[P],
        toolset_dirs: &[P],
        clock: Arc<dyn Clock>,
    ) -> Loaded<Agent> {
        let skills = SkillRegistry::load(skill_dirs);
        let toolsets = ToolsetRegistry::load(toolset_dirs);
        let mut diagnostics = skills.diagnostics;
        diagnostics.extend(toolsets.diagnostics);
        Loaded {
            value: Agent::new(config, skills.value, toolsets.value, clock),
            diagnostics,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &AgentConfig {
        &self.shared.config
    }
    /// The skills.
    pub fn skills(&self) -> &SkillRegistry {
        &self.shared.skills
    }
    /// The toolset declarations.
    pub fn toolsets(&self) -> &ToolsetRegistry {
        &self.shared.toolsets
    }

    /// Change [`AgentConfig::turn_budget`] for the turns from now on (a host whose voice
    /// and text turns want different limits).
    pub fn set_turn_budget(&mut self, budget: Option<Duration>) {
        self.shared.config.turn_budget = budget;
    }

    /// Register a host executor for one tool or for every tool of a toolset. A tool
    /// registration wins over its set's. Replaces an earlier registration of the same target.
    pub fn register_executor(&mut self, target: ExecutorTarget, executor: Arc<dyn ToolExecutor>) {
        let target = match target {
            ExecutorTarget::Tool(t) => ExecutorTarget::Tool(t.trim().to_lowercase()),
            ExecutorTarget::Toolset(s) => ExecutorTarget::Toolset(s.trim().to_lowercase()),
        };
        self.shared.executors.insert(target, executor);
        self.shared.advertise();
    }

    /// Set the values of the host's list `name` (`values_from: name` on a string argument:
    /// contacts, playlists, rooms, the catalog's protocols): what a user says for such an
    /// argument is matched to one of them, and a call may carry only those. Replaces the
    /// list given before; an empty list clears it.
    pub fn set_values(&mut self, name: &str, values: Vec<String>) {
        let name = name.trim().to_lowercase();
        if values.is_empty() {
            self.shared.values.remove(&name);
        } else {
            self.shared.values.insert(name, values);
        }
    }

    /// Set (or clear) the host's hook into sessions ([`HostHook`]): while it says a
    /// session runs a protocol, every request of that session carries its reminder (in the
    /// request only), a turn ending with a bare reply while the run has no open step gets one
    /// reminder to finish it, the notes it has for a session enter that session's next turn
    /// as hidden tool messages, and its index lines join the skills index. Without a hook
    /// (the default) nothing of this happens and the prompt is as it was.
    pub fn set_host_hook(&mut self, hook: Option<SharedHook>) {
        self.shared.hook = hook;
    }

    /// Declared toolsets the prompt leaves out because no tool of theirs has an executor on
    /// this host ([`Technique::HideUnexecutable`]; empty when that is off).
    pub fn hidden_toolsets(&self) -> Vec<String> {
        let shown = self.shared.advertised.toolsets.names();
        self.shared
            .toolsets
            .names()
            .into_iter()
            .filter(|n| !shown.contains(n))
            .collect()
    }

    /// Declared toolset tools that have no executor on this host (check at start-up: a call
    /// to one of them answers "no executor on this host").
    pub fn missing_executors(&self) -> Vec<String> {
        let shared = &self.shared;
        shared
            .toolsets
            .iter()
            .flat_map(|s| s.tools.iter().map(move |t| (s, t)))
            .filter(|(s, t)| shared.executor_for(&s.name, &t.name).is_none())
            .map(|(_, t)| t.name.clone())
            .collect()
    }

    /// The names of the sessions that exist.
    pub fn sessions(&self) -> impl Iterator<Item = &str> {
        self.sessions.keys().map(String::as_str)
    }

    /// A session's history, oldest first (empty for an unknown session).
    pub fn history(&self, session: &str) -> &[Message] {
        self.sessions
            .get(session)
            .map_or(&[][..], |s| s.history.as_slice())
    }

    /// Forget a session entirely (history and toolsets). Only the host calls this — e.g.
    /// when the user starts a new conversation; the agent's mechanics never wipe history.
    pub fn end_session(&mut self, session: &str) -> bool {
        self.sessions.remove(session).is_some()
    }

    /// Close a turn that did not close itself (a host caught a panic inside
    /// [`Agent::turn`]): when the session's history ends with a user or tool message, the
    /// phrase of a failed turn ([`crate::Texts`]) is appended as the assistant's, so the
    /// next request never has two user messages in a row. Returns whether it appended one.
    pub fn close_open_turn(&mut self, session: &str) -> bool {
        let texts = Texts::new(self.shared.config.lang);
        match self.sessions.get_mut(session) {
            Some(s)
                if s.history
                    .last()
                    .is_some_and(|m| m.role != crate::model::Role::Assistant) =>
            {
                s.history
                    .push(Message::assistant(texts.turn_model_failed()));
                true
            }
            _ => false,
        }
    }

    /// The session's active toolsets now (expired ones are dropped first), sorted.
    pub fn active_toolsets(&mut self, session: &str) -> Vec<String> {
        match self.sessions.get_mut(session) {
            Some(s) => {
                s.expire(self.shared.clock.now());
                s.active_names()
            }
            None => Vec::new(),
        }
    }

    /// The system prompt for the session's next request.
    pub fn prompt(&mut self, session: &str) -> Prompt {
        let active = self.active_toolsets(session);
        self.shared.prompt(&active)
    }

    /// Activate (or extend) a toolset for a session, as the host (e.g. a UI switch).
    pub fn enable_toolset(&mut self, session: &str, name: &str) -> Result<(), AgentError> {
        let set = self.shared.known_set(name)?;
        let deadline = self.shared.deadline();
        session_entry(&mut self.sessions, session)?
            .active
            .insert(set, deadline);
        Ok(())
    }

    /// Deactivate a toolset for a session, as the host; returns whether it was active.
    pub fn disable_toolset(&mut self, session: &str, name: &str) -> Result<bool, AgentError> {
        let set = self.shared.known_set(name)?;
        Ok(session_entry(&mut self.sessions, session)?
            .active
            .remove(&set)
            .is_some())
    }
}

impl Shared {
    /// The system prompt with these sets active: the advertised sets and skills, in the
    /// model's call syntax ([`build_prompt_for`]), the worked examples when the guidance
    /// asks for them (they are written as `TOOL_CALL:` lines: for that syntax only).
    fn prompt(&self, active: &[String]) -> Prompt {
        let a = &self.advertised;
        let extra = self
            .hook
            .as_ref()
            .map(|h| h.index_lines())
            .unwrap_or_default();
        let lang = self.config.lang;
        let prompt = build_prompt_for(self.syntax, lang, &a.toolsets, &a.skills, active, &extra);
        if self.config.guidance.is_on(Technique::FewShot) && self.syntax == CallSyntax::ToolCallLine
        {
            prompt.with_examples(Texts::new(self.config.lang).few_shot())
        } else {
            prompt
        }
    }

    /// Recompute what the prompt advertises (after the executors changed): with
    /// [`Technique::HideUnexecutable`], a set none of whose tools has an executor is left
    /// out, and so are the skills bound to it.
    fn advertise(&mut self) {
        if !self.config.guidance.is_on(Technique::HideUnexecutable) {
            self.advertised = Advertised {
                toolsets: self.toolsets.clone(),
                skills: self.skills.clone(),
            };
            return;
        }
        let runs = |set: &Toolset| {
            set.tools
                .iter()
                .any(|t| self.executor_for(&set.name, &t.name).is_some())
        };
        let hidden: Vec<String> = self
            .toolsets
            .iter()
            .filter(|s| !runs(s))
            .map(|s| s.name.clone())
            .collect();
        let toolsets = ToolsetRegistry::from_toolsets(
            self.toolsets
                .iter()
                .filter(|s| !hidden.contains(&s.name))
                .cloned(),
        );
        let skills = SkillRegistry::from_skills(
            self.skills
                .iter()
                .filter(|k| !hidden.iter().any(|set| self.skills.is_bound(k, set)))
                .cloned(),
        );
        self.advertised = Advertised { toolsets, skills };
    }

    /// Embed every example request routing compares with now ([`Planner::embed_routes`]).
    ///
    /// # Errors
    /// What the model reports when embedding fails.
    fn embed_routes(&mut self, model: &mut dyn Model) -> Result<(), ModelError> {
        let Shared {
            config,
            advertised,
            syntax,
            router,
            values,
            ..
        } = self;
        planner(config, *syntax, advertised, values).embed_routes(router, model)
    }

    /// Where routing sends the turn `user_text` of session `s` (whose history ends with
    /// it), or `None` ([`Planner::route`]).
    fn route(&mut self, s: &Session, user_text: &str, model: &mut dyn Model) -> Option<Route> {
        let Shared {
            config,
            advertised,
            syntax,
            router,
            values,
            ..
        } = self;
        planner(config, *syntax, advertised, values).route(
            router,
            &s.active_names(),
            &s.history,
            user_text,
            model,
        )
    }

    /// The plan of the session's next request in a turn that began at history index
    /// `turn_start`, its first action serving the request at `request_at`
    /// ([`Planner::plan`]).
    fn plan(
        &self,
        s: &Session,
        route: Option<&Route>,
        turn_start: usize,
        request_at: usize,
    ) -> ReplyPlan {
        self.planner().plan(
            &s.active_names(),
            &s.history,
            route,
            turn_start,
            request_at,
            s.filled.as_deref(),
        )
    }

    /// The planner of this agent's requests.
    fn planner(&self) -> Planner<'_> {
        planner(&self.config, self.syntax, &self.advertised, &self.values)
    }

    /// The question to ask before acting on `route`, in `lang` ([`Planner::ask`]).
    fn ask(&self, route: &Route, request: &str, lang: Lang) -> Option<String> {
        self.planner().ask(route, request, lang)
    }

    /// What to say instead of acting on `route` for `request` ([`Planner::fill_question`]):
    /// a question for a missing value, or the range a value said lies outside.
    fn fill_question(
        &self,
        s: &Session,
        route: &Route,
        request: &str,
        lang: Lang,
    ) -> Option<FillQuestion> {
        self.planner()
            .fill_question(&s.history, route, request, lang)
    }

    /// The executor of `tool` of `set`: its own registration, else its set's.
    fn executor_for(&self, set: &str, tool: &str) -> Option<&dyn ToolExecutor> {
        self.executors
            .get(&ExecutorTarget::Tool(tool.to_string()))
            .or_else(|| {
                self.executors
                    .get(&ExecutorTarget::Toolset(set.to_string()))
            })
            .map(|e| &**e)
    }

    /// What is left of the time budget of a turn that began at `started`; `None`: no budget.
    fn time_left(&self, started: Timestamp) -> Option<Duration> {
        let budget = self.config.turn_budget?;
        let spent = (self.clock.now() - started).to_std().unwrap_or_default();
        Some(budget.saturating_sub(spent))
    }

    /// When a set activated (or extended) now stops being active.
    fn deadline(&self) -> Timestamp {
        let now = self.clock.now();
        let by = chrono::Duration::from_std(self.config.toolset_timeout)
            .unwrap_or(chrono::Duration::MAX);
        now.checked_add_signed(by).unwrap_or(now)
    }

    /// The declared name of the set `name` (any case), or the host's error.
    fn known_set(&self, name: &str) -> Result<String, AgentError> {
        self.toolsets
            .get(name)
            .map(|s| s.name.clone())
            .ok_or_else(|| AgentError::UnknownToolset {
                name: name.to_string(),
                available: self.toolsets.names(),
            })
    }
}
