//! The agent: sessions, the dispatcher and the turn loop.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use crate::args::{tool_line, validate_args, Args};
use crate::catalog::{Lang, Texts};
use crate::clock::{iso8601, Clock, Timestamp};
use crate::diag::Loaded;
use crate::model::{
    CancelToken, GenerationStats, Message, Model, ModelError, ModelRequest, Role, StopReason,
};
use crate::prompt::{build_prompt, Prompt, PromptLayout};
use crate::protocol::{parse_output, RepeatGuard, Segment, ToolCall, VisibleTextFilter};
use crate::skill::SkillRegistry;
use crate::tools::{CoreTool, ExecutorTarget, ToolExecutor, ToolInvocation, CORE_TOOL_NAMES};
use crate::toolset::{Toolset, ToolsetRegistry};

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
}

impl Default for AgentConfig {
    fn default() -> Self {
        AgentConfig {
            lang: Lang::Ru,
            max_iterations: 8,
            toolset_timeout: Duration::from_secs(600),
            direct_execution: true,
            layout: PromptLayout::default(),
        }
    }
}

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
    /// The cancel token was set.
    Cancelled,
    /// The model failed; the message says why. The history is intact.
    ModelError(String),
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

/// The result of [`Agent::turn`] (serializable for hosts across the FFI).
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
}

impl TurnOutcome {
    fn new() -> Self {
        TurnOutcome {
            reply: String::new(),
            stop: TurnStop::MaxIterations,
            executed: Vec::new(),
            shown: Vec::new(),
            tool_replies: Vec::new(),
            generations: Vec::new(),
            streamed: String::new(),
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
    /// The model refused a request outside a turn ([`Agent::prepare_turn`]).
    #[error("model: {0}")]
    Model(String),
}

#[derive(Debug, Clone, Default)]
struct Session {
    /// Append-only.
    history: Vec<Message>,
    /// set → deadline.
    active: BTreeMap<String, Timestamp>,
    /// [`PromptLayout::AnchoredState`]: the history index where the state message sits and
    /// its text (the dynamic sections when the state began).
    anchor: Option<(usize, String)>,
}

/// What a model request carries for a session: the system text and the message view (the
/// history, plus the state message in layouts that place the dynamic sections there).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestView {
    /// The system text.
    pub system: String,
    /// The messages, oldest first.
    pub messages: Vec<Message>,
}

/// The agent: configuration, skills, toolsets, executors, clock and sessions.
///
/// It owns no thread and no lock; a turn runs on the caller's thread. It is `Send`, so a
/// host may move it to a worker thread.
pub struct Agent {
    config: AgentConfig,
    skills: SkillRegistry,
    toolsets: ToolsetRegistry,
    clock: Arc<dyn Clock>,
    executors: HashMap<ExecutorTarget, Arc<dyn ToolExecutor>>,
    sessions: BTreeMap<String, Session>,
}

impl std::fmt::Debug for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Agent")
            .field("config", &self.config)
            .field("skills", &self.skills.names())
            .field("toolsets", &self.toolsets.names())
            .field("executors", &self.executors.keys().collect::<Vec<_>>())
            .field("sessions", &self.sessions.keys().collect::<Vec<_>>())
            .finish()
    }
}

/// What the dispatcher did with one call (internal).
struct Dispatched {
    reply: ToolReply,
    executed: Option<ExecutedTool>,
}

impl Agent {
    /// An agent over these registries.
    pub fn new(
        config: AgentConfig,
        skills: SkillRegistry,
        toolsets: ToolsetRegistry,
        clock: Arc<dyn Clock>,
    ) -> Self {
        Agent {
            config,
            skills,
            toolsets,
            clock,
            executors: HashMap::new(),
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
        &self.config
    }
    /// The skills.
    pub fn skills(&self) -> &SkillRegistry {
        &self.skills
    }
    /// The toolset declarations.
    pub fn toolsets(&self) -> &ToolsetRegistry {
        &self.toolsets
    }

    /// Register a host executor for one tool or for every tool of a toolset. A tool
    /// registration wins over its set's. Replaces an earlier registration of the same target.
    pub fn register_executor(&mut self, target: ExecutorTarget, executor: Arc<dyn ToolExecutor>) {
        let target = match target {
            ExecutorTarget::Tool(t) => ExecutorTarget::Tool(t.trim().to_lowercase()),
            ExecutorTarget::Toolset(s) => ExecutorTarget::Toolset(s.trim().to_lowercase()),
        };
        self.executors.insert(target, executor);
    }

    /// Declared toolset tools that have no executor on this host (check at start-up: a call
    /// to one of them answers "no executor on this host").
    pub fn missing_executors(&self) -> Vec<String> {
        self.toolsets
            .iter()
            .flat_map(|s| s.tools.iter().map(move |t| (s, t)))
            .filter(|(s, t)| self.executor_for(&s.name, &t.name).is_none())
            .map(|(_, t)| t.name.clone())
            .collect()
    }

    fn executor_for(&self, set: &str, tool: &str) -> Option<Arc<dyn ToolExecutor>> {
        self.executors
            .get(&ExecutorTarget::Tool(tool.to_string()))
            .or_else(|| {
                self.executors
                    .get(&ExecutorTarget::Toolset(set.to_string()))
            })
            .cloned()
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

    fn session_mut(&mut self, session: &str) -> Result<&mut Session, AgentError> {
        if session.trim().is_empty() {
            return Err(AgentError::EmptySession);
        }
        Ok(self.sessions.entry(session.to_string()).or_default())
    }

    /// Drop the session's sets whose deadline has passed; returns their names.
    fn expire(&mut self, session: &str) -> Vec<String> {
        let now = self.clock.now();
        let Some(s) = self.sessions.get_mut(session) else {
            return Vec::new();
        };
        let gone: Vec<String> = s
            .active
            .iter()
            .filter(|(_, deadline)| now > **deadline)
            .map(|(n, _)| n.clone())
            .collect();
        for n in &gone {
            s.active.remove(n);
        }
        gone
    }

    /// The session's active toolsets now (expired ones are dropped first), sorted.
    pub fn active_toolsets(&mut self, session: &str) -> Vec<String> {
        self.expire(session);
        self.sessions
            .get(session)
            .map(|s| s.active.keys().cloned().collect())
            .unwrap_or_default()
    }

    /// The system prompt for the session's next request.
    pub fn prompt(&mut self, session: &str) -> Prompt {
        let active = self.active_toolsets(session);
        build_prompt(self.config.lang, &self.toolsets, &self.skills, &active)
    }

    /// What every new session's first request begins with, before the user's message: the
    /// system text and, in layouts that carry the toolset state as a message, the fresh state
    /// (no active toolsets). Identical for every session of this agent, so a model may
    /// compute it once ([`Model::prepare_head`]).
    pub fn head_view(&self) -> RequestView {
        let prompt = build_prompt(self.config.lang, &self.toolsets, &self.skills, &[]);
        match self.config.layout {
            PromptLayout::SystemFirst => {
                return RequestView {
                    system: prompt.text().to_string(),
                    messages: Vec::new(),
                }
            }
            // The state follows the history: only the static system text is common.
            PromptLayout::DynamicTail => {
                return RequestView {
                    system: prompt.static_prefix().to_string(),
                    messages: Vec::new(),
                }
            }
            PromptLayout::AnchoredState => {}
        }
        state_view(
            prompt.static_prefix().to_string(),
            Vec::new(),
            0,
            prompt.dynamic_part().to_string(),
        )
    }

    /// Tell `model` about [`Agent::head_view`] so it can prepare the head new sessions start
    /// from (a host calls this once at start-up, e.g. while the microphone opens).
    ///
    /// # Errors
    /// What the model reports; the agent works the same without a prepared head.
    pub fn warm_up(&self, model: &mut dyn Model) -> Result<(), ModelError> {
        let view = self.head_view();
        model.prepare_head(&view.system, &view.messages)
    }

    /// Let `model` decode the session's next request ahead of the turn while the user is
    /// still speaking: `partial_text` is what was heard so far (a partial transcript; call
    /// again as it grows — each call supersedes the last). The request is the one
    /// [`Agent::turn`] would make now for that text, laid out the same way; the model
    /// decodes it up to the end of the text ([`Model::prefill`]), and the turn made with the
    /// final text reuses everything its prompt shares with it. Nothing in the session
    /// changes: no history, no toolset expiry, no events.
    ///
    /// # Errors
    /// [`AgentError::EmptySession`], or what the model reports.
    pub fn prepare_turn(
        &mut self,
        session: &str,
        partial_text: &str,
        model: &mut dyn Model,
    ) -> Result<(), AgentError> {
        if session.trim().is_empty() {
            return Err(AgentError::EmptySession);
        }
        let saved = self.sessions.get(session).cloned();
        self.expire(session);
        self.session_mut(session)?
            .history
            .push(Message::user(partial_text));
        let view = self.request(session);
        // Everything as it was: the turn does its own expiry (with its events) and layout.
        match saved {
            Some(s) => {
                self.sessions.insert(session.to_string(), s);
            }
            None => {
                self.sessions.remove(session);
            }
        }
        model
            .prefill(&ModelRequest {
                session,
                system: &view.system,
                messages: &view.messages,
                cancel: &CancelToken::new(),
                forced_reply: None,
            })
            .map_err(|e| AgentError::Model(e.to_string()))
    }

    /// What the session's next model request carries, laid out by
    /// [`AgentConfig::layout`]. The prompt is rebuilt here (expired sets dropped first); in
    /// [`PromptLayout::AnchoredState`] a changed state moves the state message to the end.
    pub fn request(&mut self, session: &str) -> RequestView {
        let prompt = self.prompt(session);
        let layout = self.config.layout;
        let history = self.history(session).to_vec();
        if layout == PromptLayout::SystemFirst {
            return RequestView {
                system: prompt.text().to_string(),
                messages: history,
            };
        }
        let system = prompt.static_prefix().to_string();
        let dynamic = prompt.dynamic_part().to_string();
        let at = match layout {
            PromptLayout::DynamicTail => history.len(),
            _ => {
                let Some(s) = self.sessions.get_mut(session) else {
                    // No session yet: the fresh state sits at the start.
                    return state_view(system, history, 0, dynamic);
                };
                match &s.anchor {
                    Some((at, text)) if *text == dynamic && *at <= history.len() => *at,
                    Some(_) => {
                        s.anchor = Some((history.len(), dynamic.clone()));
                        history.len()
                    }
                    None => {
                        s.anchor = Some((0, dynamic.clone()));
                        0
                    }
                }
            }
        };
        state_view(system, history, at, dynamic)
    }

    fn deadline(&self) -> Timestamp {
        let now = self.clock.now();
        let by = chrono::Duration::from_std(self.config.toolset_timeout)
            .unwrap_or(chrono::Duration::MAX);
        now.checked_add_signed(by).unwrap_or(now)
    }

    /// Activate (or extend) a toolset for a session, as the host (e.g. a UI switch).
    pub fn enable_toolset(&mut self, session: &str, name: &str) -> Result<(), AgentError> {
        let set = self.known_set(name)?;
        let deadline = self.deadline();
        self.session_mut(session)?.active.insert(set, deadline);
        Ok(())
    }

    /// Deactivate a toolset for a session, as the host; returns whether it was active.
    pub fn disable_toolset(&mut self, session: &str, name: &str) -> Result<bool, AgentError> {
        let set = self.known_set(name)?;
        Ok(self.session_mut(session)?.active.remove(&set).is_some())
    }

    fn known_set(&self, name: &str) -> Result<String, AgentError> {
        self.toolsets
            .get(name)
            .map(|s| s.name.clone())
            .ok_or_else(|| AgentError::UnknownToolset {
                name: name.to_string(),
                available: self.toolsets.names(),
            })
    }

    /// Run one user turn: append the user's text, then call the model until it answers
    /// without a tool call, the iteration limit is reached, `cancel` is set or the model
    /// fails. Events stream to `on_event` as they happen.
    ///
    /// Guarantees: the history is only appended to (tool results stay); enable/disable
    /// generations that changed the toolsets are generated again without entering the
    /// history; tool errors go back to the model; `cancel` is checked before every model
    /// call and passed into the model, which checks it per token.
    pub fn turn(
        &mut self,
        session: &str,
        user_text: &str,
        model: &mut dyn Model,
        cancel: &CancelToken,
        on_event: &mut dyn FnMut(AgentEvent),
    ) -> Result<TurnOutcome, AgentError> {
        self.session_mut(session)?
            .history
            .push(Message::user(user_text));
        let mut out = TurnOutcome::new();
        // The visible text of the last discarded generation: the host heard it already.
        let mut heard = String::new();
        for _ in 0..self.config.max_iterations.max(1) {
            if cancel.is_cancelled() {
                out.stop = TurnStop::Cancelled;
                return Ok(out);
            }
            for name in self.expire(session) {
                on_event(AgentEvent::ToolsetDisabled {
                    name,
                    expired: true,
                });
            }
            let view = self.request(session);
            let mut filter = VisibleTextFilter::new();
            let mut guard = RepeatGuard::new(heard.clone());
            let mut streamed = String::new();
            let result = {
                let request = ModelRequest {
                    session,
                    system: &view.system,
                    messages: &view.messages,
                    cancel,
                    forced_reply: None,
                };
                let mut on_text = |piece: &str| {
                    let visible = guard.push(&filter.push(piece));
                    if !visible.is_empty() {
                        streamed.push_str(&visible);
                        on_event(AgentEvent::Text(visible));
                    }
                };
                model.generate(&request, &mut on_text)
            };
            let generation = match result {
                Ok(g) => g,
                Err(e) => {
                    out.streamed.push_str(&streamed);
                    out.stop = TurnStop::ModelError(e.to_string());
                    return Ok(out);
                }
            };
            if generation.stop == StopReason::Cancelled {
                out.streamed.push_str(&streamed);
                out.generations.push(GenerationRecord {
                    stop: generation.stop,
                    stats: generation.stats.clone(),
                    discarded: true,
                });
                on_event(AgentEvent::Generation {
                    stop: generation.stop,
                    stats: generation.stats,
                    discarded: true,
                });
                out.stop = TurnStop::Cancelled;
                return Ok(out);
            }
            let tail = guard.push(&filter.finish());
            if !tail.is_empty() {
                streamed.push_str(&tail);
                on_event(AgentEvent::Text(tail));
            }
            out.streamed.push_str(&streamed);

            let parsed = parse_output(&generation.text);
            let visible = parsed.visible();
            if !parsed.has_calls() {
                self.push_history(session, Message::assistant(generation.text.clone()));
                self.record_generation(&mut out, on_event, &generation, false);
                out.reply = visible.trim().to_string();
                out.stop = TurnStop::Answered;
                return Ok(out);
            }

            // Run every call in order.
            let mut results: Vec<(ToolCall, bool, Dispatched)> = Vec::new();
            for call in parsed.calls() {
                let invisible = CoreTool::from_name(&call.name).is_some_and(CoreTool::is_invisible);
                let d = self.dispatch(session, call, &mut out, on_event);
                results.push((call.clone(), invisible, d));
            }
            let any_visible = results.iter().any(|(_, inv, _)| !inv);
            let changed = results.iter().any(|(_, _, d)| {
                matches!(d.reply.kind, ReplyKind::ToolsetChange { changed: true })
            });
            // A generation that only switched toolsets is generated again under the new
            // prompt. One whose switches changed nothing is kept, so the model reads the
            // replies (an identical request would get an identical answer: a loop).
            let discard = !any_visible && changed;
            self.record_generation(&mut out, on_event, &generation, discard);
            if discard {
                heard = visible;
                for (_, _, d) in results {
                    out.tool_replies.push(d.reply);
                }
                continue;
            }
            heard.clear();
            let keep = |inv: bool| !any_visible || !inv;
            let last_kept = results
                .iter()
                .rposition(|(_, inv, _)| keep(*inv))
                .unwrap_or(0);
            let mut text = String::new();
            let mut call_index = 0;
            for seg in &parsed.segments {
                match seg {
                    Segment::Text(t) | Segment::Fence(t) => text.push_str(t),
                    Segment::Call(c) => {
                        let inv = results[call_index].1;
                        if keep(inv) {
                            text.push_str(&c.line);
                            text.push('\n');
                        }
                        if call_index == last_kept {
                            break;
                        }
                        call_index += 1;
                    }
                }
            }
            self.push_history(session, Message::assistant(text.trim_end().to_string()));
            for (call, inv, mut d) in results {
                if keep(inv) {
                    self.push_history(
                        session,
                        Message::tool(call.name.clone(), d.reply.text.clone()),
                    );
                    d.reply.in_history = true;
                }
                out.tool_replies.push(d.reply);
            }
            out.reply = visible.trim().to_string();
        }
        out.stop = TurnStop::MaxIterations;
        Ok(out)
    }

    fn record_generation(
        &self,
        out: &mut TurnOutcome,
        on_event: &mut dyn FnMut(AgentEvent),
        generation: &crate::model::Generation,
        discarded: bool,
    ) {
        out.generations.push(GenerationRecord {
            stop: generation.stop,
            stats: generation.stats.clone(),
            discarded,
        });
        on_event(AgentEvent::Generation {
            stop: generation.stop,
            stats: generation.stats.clone(),
            discarded,
        });
    }

    fn push_history(&mut self, session: &str, message: Message) {
        if let Some(s) = self.sessions.get_mut(session) {
            s.history.push(message);
        }
    }

    /// Answer one call outside a turn (a host debugging tool, a test): the same dispatcher
    /// the turn uses, without touching the history.
    pub fn call_tool(
        &mut self,
        session: &str,
        call: &ToolCall,
        on_event: &mut dyn FnMut(AgentEvent),
    ) -> Result<ToolReply, AgentError> {
        self.session_mut(session)?;
        let mut out = TurnOutcome::new();
        Ok(self.dispatch(session, call, &mut out, on_event).reply)
    }

    fn dispatch(
        &mut self,
        session: &str,
        call: &ToolCall,
        out: &mut TurnOutcome,
        on_event: &mut dyn FnMut(AgentEvent),
    ) -> Dispatched {
        for name in self.expire(session) {
            on_event(AgentEvent::ToolsetDisabled {
                name,
                expired: true,
            });
        }
        let d = if let Some(core) = CoreTool::from_name(&call.name) {
            self.dispatch_core(session, core, call, out, on_event)
        } else if let Some(set) = self.toolsets.route(&call.name).cloned() {
            self.dispatch_set(session, &set, call, on_event)
        } else {
            let texts = Texts::new(self.config.lang);
            let core: Vec<String> = CORE_TOOL_NAMES.iter().map(|s| s.to_string()).collect();
            let catalog = self.toolsets.catalog_lines().join("\n");
            rejected(&call.name, texts.unknown_tool(&call.name, &core, &catalog))
        };
        if let Some(e) = &d.executed {
            out.executed.push(e.clone());
        }
        d
    }

    fn run(
        &self,
        name: &str,
        args: Args,
        on_event: &mut dyn FnMut(AgentEvent),
        body: impl FnOnce(&Args) -> Result<String, String>,
    ) -> Dispatched {
        on_event(AgentEvent::ToolStarted {
            name: name.to_string(),
            args: args.clone(),
        });
        let (text, ok) = match body(&args) {
            Ok(t) => (t, true),
            Err(t) => (t, false),
        };
        on_event(AgentEvent::ToolFinished {
            name: name.to_string(),
            result: text.clone(),
            ok,
        });
        Dispatched {
            reply: ToolReply {
                name: name.to_string(),
                text: text.clone(),
                ok,
                kind: ReplyKind::Executed,
                in_history: false,
            },
            executed: Some(ExecutedTool {
                name: name.to_string(),
                args,
                result: text,
                ok,
            }),
        }
    }

    fn dispatch_core(
        &mut self,
        session: &str,
        core: CoreTool,
        call: &ToolCall,
        out: &mut TurnOutcome,
        on_event: &mut dyn FnMut(AgentEvent),
    ) -> Dispatched {
        let texts = Texts::new(self.config.lang);
        let decls = core.args();
        let args = if core == CoreTool::GetCurrentTime
            || (core == CoreTool::EnableToolset && call.args.is_empty())
        {
            // Forgiving: whatever the model passes, the time is the time; an enable without
            // a name gets the list of sets instead of a schema error.
            Ok(Args::default())
        } else {
            validate_args(&decls, &call.args)
        };
        let args = match args {
            Ok(a) => a,
            Err(problem) => {
                let schema = tool_line(texts, core.name(), texts.core_tool(core.name()), &decls);
                return rejected(core.name(), texts.bad_args(core.name(), &problem, &schema));
            }
        };
        match core {
            CoreTool::GetCurrentTime => {
                let now = iso8601(&self.clock.now());
                self.run(core.name(), args, on_event, |_| Ok(now))
            }
            CoreTool::ShowText => {
                let text = args.str("text").unwrap_or_default().to_string();
                on_event(AgentEvent::ShowText(text.clone()));
                out.shown.push(text);
                self.run(core.name(), args, on_event, |_| Ok(texts.shown()))
            }
            CoreTool::ReadSkill => {
                let name = args.str("name").unwrap_or_default();
                let reply = match self.skills.get(name) {
                    Some(s) => Ok(texts.skill_body(&s.name, &s.body)),
                    None => Err(texts.unknown_skill(name, &self.skills.names())),
                };
                self.run(core.name(), args, on_event, |_| reply)
            }
            CoreTool::EnableToolset => self.enable_call(session, &args, on_event),
            CoreTool::DisableToolset => self.disable_call(session, &args, on_event),
        }
    }

    fn set_change(name: &str, text: String, ok: bool, changed: bool) -> Dispatched {
        Dispatched {
            reply: ToolReply {
                name: name.to_string(),
                text,
                ok,
                kind: ReplyKind::ToolsetChange { changed },
                in_history: false,
            },
            executed: None,
        }
    }

    fn enable_call(
        &mut self,
        session: &str,
        args: &Args,
        on_event: &mut dyn FnMut(AgentEvent),
    ) -> Dispatched {
        let texts = Texts::new(self.config.lang);
        let tool = CoreTool::EnableToolset.name();
        let available = self.toolsets.names();
        let Some(name) = args.str("name") else {
            return Self::set_change(tool, texts.toolset_name_needed(&available), false, false);
        };
        let Some(set) = self.toolsets.get(name).cloned() else {
            return Self::set_change(tool, texts.unknown_toolset(name, &available), false, false);
        };
        let deadline = self.deadline();
        let Some(s) = self.sessions.get_mut(session) else {
            return Self::set_change(tool, texts.unknown_toolset(name, &available), false, false);
        };
        if s.active.insert(set.name.clone(), deadline).is_some() {
            return Self::set_change(tool, texts.toolset_already_active(&set.name), true, false);
        }
        on_event(AgentEvent::ToolsetEnabled {
            name: set.name.clone(),
        });
        let registry = self.toolsets.registry_text(texts, &set);
        Self::set_change(
            tool,
            texts.toolset_enabled(&set.name, &registry),
            true,
            true,
        )
    }

    fn disable_call(
        &mut self,
        session: &str,
        args: &Args,
        on_event: &mut dyn FnMut(AgentEvent),
    ) -> Dispatched {
        let texts = Texts::new(self.config.lang);
        let tool = CoreTool::DisableToolset.name();
        let available = self.toolsets.names();
        let wanted = match args.str("name") {
            Some(n) => match self.toolsets.get(n) {
                Some(set) => Some(set.name.clone()),
                None => {
                    return Self::set_change(
                        tool,
                        texts.unknown_toolset(n, &available),
                        false,
                        false,
                    )
                }
            },
            None => None,
        };
        let Some(s) = self.sessions.get_mut(session) else {
            return Self::set_change(tool, texts.nothing_active(), true, false);
        };
        let active: Vec<String> = s.active.keys().cloned().collect();
        if active.is_empty() {
            return Self::set_change(tool, texts.nothing_active(), true, false);
        }
        let targets = match wanted {
            Some(set) if active.contains(&set) => vec![set],
            Some(set) => {
                return Self::set_change(tool, texts.toolset_not_active(&set, &active), true, false)
            }
            None => active,
        };
        let mut lines = Vec::new();
        for set in targets {
            s.active.remove(&set);
            lines.push(texts.toolset_disabled(&set));
            on_event(AgentEvent::ToolsetDisabled {
                name: set,
                expired: false,
            });
        }
        Self::set_change(tool, lines.join("\n"), true, true)
    }

    fn dispatch_set(
        &mut self,
        session: &str,
        set: &Toolset,
        call: &ToolCall,
        on_event: &mut dyn FnMut(AgentEvent),
    ) -> Dispatched {
        let texts = Texts::new(self.config.lang);
        let Some(tool) = set.tool(&call.name) else {
            let names: Vec<String> = set.tools.iter().map(|t| t.name.clone()).collect();
            return rejected(
                &call.name,
                texts.unknown_tool_in_set(&call.name, &set.name, &names),
            );
        };
        let schema = tool_line(texts, &tool.name, &tool.description, &tool.args);
        let validated = validate_args(&tool.args, &call.args);
        let deadline = self.deadline();
        let Some(s) = self.sessions.get_mut(session) else {
            return rejected(&tool.name, texts.no_executor(&tool.name));
        };
        // Any call of one of the set's tools extends (or starts) its activity.
        let was_active = s.active.insert(set.name.clone(), deadline).is_some();
        if !was_active {
            on_event(AgentEvent::ToolsetEnabled {
                name: set.name.clone(),
            });
        }
        let args = match (validated, was_active) {
            (Ok(args), true) => args,
            (Ok(args), false) if self.config.direct_execution => args,
            (_, false) => {
                let registry = self.toolsets.registry_text(texts, set);
                return Dispatched {
                    reply: ToolReply {
                        name: tool.name.clone(),
                        text: texts.substituted(&set.name, &registry, &schema),
                        ok: true,
                        kind: ReplyKind::Substituted,
                        in_history: false,
                    },
                    executed: None,
                };
            }
            (Err(problem), true) => {
                return rejected(&tool.name, texts.bad_args(&tool.name, &problem, &schema));
            }
        };
        let Some(executor) = self.executor_for(&set.name, &tool.name) else {
            return rejected(&tool.name, texts.no_executor(&tool.name));
        };
        self.run(&tool.name, args, on_event, |args| {
            let invocation = ToolInvocation {
                session,
                toolset: &set.name,
                tool: &tool.name,
                args,
            };
            executor
                .execute(&invocation)
                .map_err(|e| texts.tool_failed(&tool.name, &e))
        })
    }
}

/// The history with the state message inserted at `at` (no message when the state is empty).
fn state_view(system: String, mut messages: Vec<Message>, at: usize, state: String) -> RequestView {
    if !state.is_empty() {
        messages.insert(at.min(messages.len()), Message::user(state));
    }
    RequestView { system, messages }
}

fn rejected(name: &str, text: String) -> Dispatched {
    Dispatched {
        reply: ToolReply {
            name: name.to_string(),
            text,
            ok: false,
            kind: ReplyKind::Rejected,
            in_history: false,
        },
        executed: None,
    }
}

/// The history rendered as text, one message per block: `user: …`, `assistant: …`,
/// `tool(name): …`. For scenario checks and logs.
pub fn render_history(messages: &[Message]) -> String {
    messages
        .iter()
        .map(|m| match (m.role, &m.name) {
            (Role::User, _) => format!("user: {}", m.content),
            (Role::Assistant, _) => format!("assistant: {}", m.content),
            (Role::Tool, Some(n)) => format!("tool({n}): {}", m.content),
            (Role::Tool, None) => format!("tool: {}", m.content),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::ManualClock;
    use crate::prompt::SectionKind;
    use crate::scripted::ScriptedModel;
    use crate::skill::parse_skill;
    use crate::toolset::{parse_toolset, MEDIA_FIXTURE as MEDIA};
    use std::sync::Mutex;

    const WEB: &str = "\
name: web
description: работа в вебе
tools:
  - name: web_open
    description: открыть адрес
    args:
      - {name: url, type: string, required: true}
";

    fn skill(text: &str) -> crate::skill::Skill {
        parse_skill(text, Path::new("fixture.md")).unwrap().0
    }

    fn fixture_with(config: AgentConfig) -> (Agent, ManualClock) {
        let clock = ManualClock::parse("2026-08-22T10:00:00+03:00").unwrap();
        let skills = SkillRegistry::from_skills([
            skill("---\nname: media\ndescription: фильмы; вызови enable_toolset|media\ntoolset: media\n---\nШаги."),
            skill("---\nname: web\ndescription: сайты\n---\nВеб."),
            skill("---\nname: Корректное выключение\ndescription: как выключаться\n---\nТело."),
        ]);
        let toolsets = ToolsetRegistry::from_toolsets([
            parse_toolset(MEDIA, Path::new("media.yaml")).unwrap(),
            parse_toolset(WEB, Path::new("web.yaml")).unwrap(),
        ]);
        let mut agent = Agent::new(config, skills, toolsets, Arc::new(clock.clone()));
        agent.register_executor(
            ExecutorTarget::Tool("media_search".into()),
            Arc::new(|c: &ToolInvocation<'_>| {
                Ok(format!(
                    "1. Tomb Raider (2018) id=tt1365519 [{}]",
                    c.args.str("query").unwrap_or("")
                ))
            }),
        );
        agent.register_executor(
            ExecutorTarget::Toolset("media".into()),
            Arc::new(|c: &ToolInvocation<'_>| match c.args.str("action") {
                Some("stop") => Err("nothing is playing".to_string()),
                _ => Ok(format!("{} {}", c.tool, c.args)),
            }),
        );
        (agent, clock)
    }

    fn fixture() -> (Agent, ManualClock) {
        fixture_with(AgentConfig::default())
    }

    struct Run {
        out: TurnOutcome,
        events: Vec<AgentEvent>,
        model: ScriptedModel,
    }

    fn turn(agent: &mut Agent, session: &str, user: &str, outputs: &[&str]) -> Run {
        let mut model = ScriptedModel::new(outputs.iter().copied());
        let mut events = Vec::new();
        let out = agent
            .turn(session, user, &mut model, &CancelToken::new(), &mut |e| {
                events.push(e)
            })
            .unwrap();
        Run { out, events, model }
    }

    fn call(line: &str) -> ToolCall {
        parse_output(line).calls().next().cloned().unwrap()
    }

    fn reply(agent: &mut Agent, session: &str, line: &str) -> ToolReply {
        agent.call_tool(session, &call(line), &mut |_| {}).unwrap()
    }

    fn history(agent: &Agent, session: &str) -> String {
        render_history(agent.history(session))
    }

    fn executed(out: &TurnOutcome) -> Vec<&str> {
        out.executed.iter().map(|e| e.name.as_str()).collect()
    }

    #[test]
    fn events_and_outcomes_serialize_for_hosts() {
        let (mut agent, _) = fixture();
        let r = turn(
            &mut agent,
            "s",
            "x",
            &["Ищу.\nTOOL_CALL: media_search|Лара", "Нашёл."],
        );
        let events: Vec<serde_json::Value> = r
            .events
            .iter()
            .map(|e| serde_json::to_value(e).unwrap())
            .collect();
        assert_eq!(
            events[0],
            serde_json::json!({"type": "text", "data": "Ищу"}),
            "3-char pieces"
        );
        assert!(events.contains(&serde_json::json!({
            "type": "tool_started", "data": {"name": "media_search", "args": {"query": "Лара"}}
        })));
        assert!(events
            .contains(&serde_json::json!({"type": "toolset_enabled", "data": {"name": "media"}})));
        let out = serde_json::to_value(&r.out).unwrap();
        assert_eq!(out["stop"], serde_json::json!({"kind": "answered"}));
        assert_eq!(
            out["tool_replies"][0]["kind"],
            serde_json::json!({"kind": "executed"})
        );
        let err = serde_json::to_value(TurnStop::ModelError("boom".into())).unwrap();
        assert_eq!(
            err,
            serde_json::json!({"kind": "model_error", "message": "boom"})
        );
    }

    #[test]
    fn agent_is_send() {
        fn send<T: Send>() {}
        send::<Agent>();
    }

    #[test]
    fn three_prompt_states() {
        // The design's order, where the whole prompt is the system text.
        let (mut agent, _) = fixture_with(AgentConfig {
            layout: PromptLayout::SystemFirst,
            ..AgentConfig::default()
        });
        // State 1: core + catalog + skills index (with the media skill).
        let p1 = agent.prompt("s");
        let kinds: Vec<_> = p1.sections().iter().map(|s| s.kind).collect();
        assert_eq!(
            kinds,
            [SectionKind::Core, SectionKind::Catalog, SectionKind::Skills]
        );
        assert!(p1.text().contains("media — управление медиа"));
        assert!(p1
            .text()
            .contains("media — фильмы; вызови enable_toolset|media"));
        assert!(!p1.text().contains("media_search"));
        assert!(!p1.text().contains("Активные тулсеты"));
        // State 2: the model enables media; the call is not written to the history.
        let r = turn(
            &mut agent,
            "s",
            "Включи фильм",
            &["TOOL_CALL: enable_toolset|media", "Готово."],
        );
        assert_eq!(r.out.stop, TurnStop::Answered);
        assert!(!history(&agent, "s").contains("enable_toolset"));
        assert_ne!(r.model.requests()[0].system, r.model.requests()[1].system);
        // State 3: core + media tools + «Активные тулсеты: media», the media skill gone.
        let p3 = agent.prompt("s");
        assert_eq!(r.model.requests()[1].system, p3.text());
        let kinds: Vec<_> = p3.sections().iter().map(|s| s.kind).collect();
        assert_eq!(
            kinds,
            [
                SectionKind::Core,
                SectionKind::Catalog,
                SectionKind::ActiveToolsets,
                SectionKind::Skills
            ]
        );
        let active = &p3.sections()[2].text;
        assert!(active.starts_with("Активные тулсеты: media\n"));
        assert!(active.contains("media_search|query — поиск по названию"));
        assert!(active.contains(
            "media_play|id|action? — запуск/управление просмотром (action: play/pause/stop)"
        ));
        assert!(!p3.sections()[3].text.contains("фильмы; вызови"));
        assert!(p3.sections()[3].text.contains("web — сайты"));
        // The static prefix is the same in every state.
        assert_eq!(p1.static_prefix(), p3.static_prefix());
        assert!(p3.text().starts_with(p3.static_prefix()));
    }

    #[test]
    fn prompt_is_byte_identical_when_only_the_clock_changes() {
        let (mut agent, clock) = fixture();
        agent.enable_toolset("s", "media").unwrap();
        let before = agent.prompt("s").text().to_string();
        clock.advance(Duration::from_secs(5 * 60));
        assert_eq!(agent.prompt("s").text(), before);
        clock.advance(Duration::from_secs(3600 * 5));
        assert_ne!(agent.prompt("s").text(), before, "expired: state changed");
        // Order of activation does not matter.
        agent.enable_toolset("a", "web").unwrap();
        agent.enable_toolset("a", "media").unwrap();
        agent.enable_toolset("b", "media").unwrap();
        agent.enable_toolset("b", "web").unwrap();
        assert_eq!(agent.prompt("a"), agent.prompt("b"));
    }

    #[test]
    fn english_prompt_and_replies() {
        let (mut agent, _) = fixture_with(AgentConfig {
            lang: Lang::En,
            ..AgentConfig::default()
        });
        let p = agent.prompt("s");
        assert!(p
            .text()
            .contains("Call a tool on a line of its own: TOOL_CALL: name|arguments"));
        agent.enable_toolset("s", "media").unwrap();
        assert!(agent.prompt("s").text().contains("Active toolsets: media"));
        let r = reply(&mut agent, "s", "TOOL_CALL: enable_toolset|media");
        assert!(r.text.contains("already active, timeout extended"));
        let r = reply(&mut agent, "s", "TOOL_CALL: web_open|{}");
        assert!(r.text.contains("Toolset web activated. Registry:"));
        assert!(r.text.contains("The call was NOT executed yet."));
    }

    #[test]
    fn enable_and_disable_are_idempotent() {
        let (mut agent, _) = fixture();
        let table: &[(&str, &str, bool, bool)] = &[
            // (call, reply contains, ok, changed)
            (
                "TOOL_CALL: disable_toolset|media",
                "нет активных наборов",
                true,
                false,
            ),
            (
                "TOOL_CALL: disable_toolset",
                "нет активных наборов",
                true,
                false,
            ),
            (
                "TOOL_CALL: enable_toolset|media",
                "Тулсет media активирован. Реестр:\nmedia_search|query",
                true,
                true,
            ),
            (
                "TOOL_CALL: enable_toolset|MEDIA",
                "уже активен, продлеваю таймаут",
                true,
                false,
            ),
            (
                "TOOL_CALL: enable_toolset|кино",
                "набора кино нет, доступны: media, web",
                false,
                false,
            ),
            ("TOOL_CALL: enable_toolset", "укажи набор", false, false),
            (
                "TOOL_CALL: disable_toolset|web",
                "Тулсет web не активен; активны: media",
                true,
                false,
            ),
            (
                "TOOL_CALL: disable_toolset|кино",
                "набора кино нет, доступны: media, web",
                false,
                false,
            ),
            (
                "TOOL_CALL: disable_toolset|media",
                "Тулсет media выключен",
                true,
                true,
            ),
            (
                "TOOL_CALL: disable_toolset|media",
                "нет активных наборов",
                true,
                false,
            ),
            (
                "TOOL_CALL: enable_toolset|web",
                "Тулсет web активирован",
                true,
                true,
            ),
            (
                "TOOL_CALL: enable_toolset|media",
                "Тулсет media активирован",
                true,
                true,
            ),
            (
                "TOOL_CALL: disable_toolset",
                "Тулсет media выключен.\nТулсет web выключен.",
                true,
                true,
            ),
        ];
        for (line, want, ok, changed) in table {
            let r = reply(&mut agent, "s", line);
            assert!(r.text.contains(want), "{line}: {:?}", r.text);
            assert_eq!(
                (r.ok, r.kind),
                (*ok, ReplyKind::ToolsetChange { changed: *changed }),
                "{line}"
            );
        }
        assert!(agent.active_toolsets("s").is_empty());
    }

    #[test]
    fn toolset_timeout_with_a_manual_clock() {
        let (mut agent, clock) = fixture();
        agent.enable_toolset("s", "media").unwrap();
        clock.advance(Duration::from_secs(9 * 60 + 59));
        assert_eq!(agent.active_toolsets("s"), ["media"], "active at 9:59");
        clock.advance(Duration::from_secs(62));
        assert!(agent.active_toolsets("s").is_empty(), "gone at 10:01");

        // enable_toolset extends.
        reply(&mut agent, "s", "TOOL_CALL: enable_toolset|media");
        clock.advance(Duration::from_secs(9 * 60));
        reply(&mut agent, "s", "TOOL_CALL: enable_toolset|media");
        clock.advance(Duration::from_secs(9 * 60));
        assert_eq!(
            agent.active_toolsets("s"),
            ["media"],
            "18 minutes after the first enable"
        );

        // Any tool call of the set extends, a failed one included.
        reply(&mut agent, "s", "TOOL_CALL: media_search|x");
        clock.advance(Duration::from_secs(9 * 60));
        reply(&mut agent, "s", "TOOL_CALL: media_play|tt1|stop");
        clock.advance(Duration::from_secs(9 * 60));
        assert_eq!(agent.active_toolsets("s"), ["media"]);
        clock.advance(Duration::from_secs(62));
        assert!(agent.active_toolsets("s").is_empty());

        // The timeout is configurable.
        let (mut short, clock) = fixture_with(AgentConfig {
            toolset_timeout: Duration::from_secs(30),
            ..AgentConfig::default()
        });
        short.enable_toolset("s", "web").unwrap();
        clock.advance(Duration::from_secs(31));
        assert!(short.active_toolsets("s").is_empty());
    }

    #[test]
    fn expiry_is_reported_during_a_turn() {
        let (mut agent, clock) = fixture();
        agent.enable_toolset("s", "media").unwrap();
        clock.advance(Duration::from_secs(11 * 60));
        let r = turn(&mut agent, "s", "привет", &["Привет!"]);
        assert!(r.events.contains(&AgentEvent::ToolsetDisabled {
            name: "media".into(),
            expired: true
        }));
        assert!(!r.model.requests()[0].system.contains("media_search"));
    }

    #[test]
    fn sessions_are_isolated_and_switchable() {
        let (mut agent, _) = fixture();
        turn(
            &mut agent,
            "kitchen",
            "включи кино",
            &["TOOL_CALL: enable_toolset|media", "Ок."],
        );
        turn(
            &mut agent,
            "car",
            "который час",
            &["TOOL_CALL: get_current_time", "Десять."],
        );
        assert_eq!(agent.active_toolsets("kitchen"), ["media"]);
        assert!(agent.active_toolsets("car").is_empty());
        assert!(agent.prompt("kitchen").text().contains("media_search"));
        assert!(!agent.prompt("car").text().contains("media_search"));
        assert!(history(&agent, "kitchen").contains("включи кино"));
        assert!(!history(&agent, "kitchen").contains("который час"));
        assert!(
            history(&agent, "car").contains("tool(get_current_time): 2026-08-22T10:00:00+03:00")
        );
        // Back to the first session: its state is intact.
        let r = turn(
            &mut agent,
            "kitchen",
            "найди Лару Крофт",
            &["TOOL_CALL: media_search|Лара Крофт", "Нашёл."],
        );
        assert_eq!(executed(&r.out), ["media_search"]);
        assert_eq!(r.model.requests()[0].messages[0].content, "включи кино");
        let names: Vec<&str> = agent.sessions().collect();
        assert_eq!(names, ["car", "kitchen"]);
        assert!(agent.end_session("car"));
        assert!(agent.history("car").is_empty());
        assert!(matches!(
            agent.turn(
                "  ",
                "x",
                &mut ScriptedModel::new(["x"]),
                &CancelToken::new(),
                &mut |_| {}
            ),
            Err(AgentError::EmptySession)
        ));
    }

    #[test]
    fn substitution_says_not_executed() {
        // Invalid arguments on an inactive set: activate, do not execute, say so.
        let (mut agent, _) = fixture();
        let r = reply(&mut agent, "s", "TOOL_CALL: media_play|tt1|rewind");
        assert_eq!(r.kind, ReplyKind::Substituted);
        assert!(
            r.text
                .starts_with("Тулсет media активирован. Реестр:\nmedia_search|query"),
            "{}",
            r.text
        );
        assert!(r.text.contains("Вызов ещё НЕ выполнялся."));
        assert!(r.text.contains("media_play|id|action?"));
        assert_eq!(agent.active_toolsets("s"), ["media"]);

        // direct_execution off: even valid arguments are substituted.
        let (mut agent, _) = fixture_with(AgentConfig {
            direct_execution: false,
            ..AgentConfig::default()
        });
        let r = turn(
            &mut agent,
            "s",
            "найди",
            &[
                "TOOL_CALL: media_search|Лара",
                "TOOL_CALL: media_search|Лара",
                "Нашёл Tomb Raider.",
            ],
        );
        assert!(
            executed(&r.out) == ["media_search"],
            "only the second call ran"
        );
        assert_eq!(r.out.tool_replies[0].kind, ReplyKind::Substituted);
        assert!(
            r.out.tool_replies[0].in_history,
            "the model sees the activation reply"
        );
        let h = history(&agent, "s");
        assert!(h.contains("tool(media_search): Тулсет media активирован"));
        assert!(h.contains("Вызов ещё НЕ выполнялся"));
        assert!(h.contains("Tomb Raider (2018)"));
    }

    #[test]
    fn direct_execution_activates_and_runs() {
        let (mut agent, _) = fixture();
        let r = turn(
            &mut agent,
            "s",
            "Найди фильм про Лару Крофт",
            &[
                "TOOL_CALL: media_search|Лара Крофт",
                "Нашёл: Tomb Raider (2018)",
            ],
        );
        assert_eq!(executed(&r.out), ["media_search"]);
        assert_eq!(r.out.reply, "Нашёл: Tomb Raider (2018)");
        assert!(r.events.contains(&AgentEvent::ToolsetEnabled {
            name: "media".into()
        }));
        assert_eq!(agent.active_toolsets("s"), ["media"]);
        assert!(!history(&agent, "s").contains("enable_toolset"));
    }

    #[test]
    fn dispatch_table() {
        let (mut agent, _) = fixture();
        agent.enable_toolset("s", "media").unwrap();
        // (call, kind, ok, reply contains)
        let table: &[(&str, ReplyKind, bool, &str)] = &[
            ("TOOL_CALL: get_current_time", ReplyKind::Executed, true, "2026-08-22T10:00:00+03:00"),
            ("TOOL_CALL: get_current_time|now please", ReplyKind::Executed, true, "+03:00"),
            ("TOOL_CALL: show_text|Привет | мир", ReplyKind::Executed, true, "Показано"),
            ("TOOL_CALL: show_text", ReplyKind::Rejected, false, "нет аргумента text. Схема: show_text|text"),
            ("TOOL_CALL: read_skill|корректное  выключение", ReplyKind::Executed, true, "Скилл Корректное выключение:\nТело."),
            ("TOOL_CALL: read_skill|кино", ReplyKind::Executed, false, "скилла кино нет, доступны: media, web, Корректное выключение"),
            ("TOOL_CALL: media_search|query=Лара", ReplyKind::Executed, true, "Tomb Raider (2018) id=tt1365519 [Лара]"),
            ("TOOL_CALL: media_play|{\"id\": \"tt1\", \"action\": \"PAUSE\"}", ReplyKind::Executed, true, "media_play id=tt1|action=pause"),
            ("TOOL_CALL: media_play|tt1|stop", ReplyKind::Executed, false, "Ошибка media_play: nothing is playing"),
            ("TOOL_CALL: media_play|tt1|rewind", ReplyKind::Rejected, false, "action должен быть одним из: play/pause/stop. Схема: media_play|id|action?"),
            ("TOOL_CALL: media_play", ReplyKind::Rejected, false, "нет аргумента id"),
            ("TOOL_CALL: media_delete|x", ReplyKind::Rejected, false, "инструмента media_delete нет. В наборе media: media_search, media_play"),
            ("TOOL_CALL: weather_now", ReplyKind::Rejected, false, "инструмента weather_now нет. Ядро: get_current_time, show_text, read_skill, enable_toolset, disable_toolset.\nНаборы:\nmedia — "),
            ("TOOL_CALL: web_open|https://x", ReplyKind::Rejected, false, "для web_open нет исполнителя на этом устройстве"),
        ];
        for (line, kind, ok, want) in table {
            let r = reply(&mut agent, "s", line);
            assert_eq!((r.kind, r.ok), (*kind, *ok), "{line}: {}", r.text);
            assert!(r.text.contains(want), "{line}: {:?}", r.text);
        }
        assert_eq!(agent.missing_executors(), ["web_open"]);
    }

    #[test]
    fn tool_errors_go_back_to_the_model_and_the_loop_continues() {
        let (mut agent, _) = fixture();
        agent.enable_toolset("s", "media").unwrap();
        let r = turn(
            &mut agent,
            "s",
            "стоп",
            &[
                "TOOL_CALL: media_play|tt1|stop",
                "TOOL_CALL: weather_now",
                "Ничего не играет.",
            ],
        );
        assert_eq!(r.out.stop, TurnStop::Answered);
        assert_eq!(r.out.reply, "Ничего не играет.");
        let h = history(&agent, "s");
        assert!(h.contains("tool(media_play): Ошибка media_play: nothing is playing"));
        assert!(h.contains("tool(weather_now): Ошибка: инструмента weather_now нет"));
        assert!(r.events.contains(&AgentEvent::ToolFinished {
            name: "media_play".into(),
            result: "Ошибка media_play: nothing is playing".into(),
            ok: false
        }));
        // The second request saw the first error.
        let seen = &r.model.requests()[1].messages;
        assert_eq!(seen.last().unwrap().role, Role::Tool);
    }

    #[test]
    fn several_calls_in_one_output_run_in_order() {
        let (mut agent, _) = fixture();
        let r = turn(
            &mut agent,
            "s",
            "покажи время",
            &["Секунду.\n```\nTOOL_CALL: get_current_time\nTOOL_CALL: show_text|10:00\n```\nГотово (выдумка)", "Показал."],
        );
        assert_eq!(executed(&r.out), ["get_current_time", "show_text"]);
        assert_eq!(r.out.shown, ["10:00"]);
        assert!(r.events.contains(&AgentEvent::ShowText("10:00".into())));
        assert_eq!(r.out.streamed, "Секунду.\nПоказал.");
        let msgs = agent.history("s");
        assert_eq!(msgs.len(), 5, "{msgs:?}");
        assert_eq!(
            msgs[1].content,
            "Секунду.\n```\nTOOL_CALL: get_current_time\nTOOL_CALL: show_text|10:00"
        );
        assert!(
            !history(&agent, "s").contains("выдумка"),
            "text after the calls is a guess"
        );
    }

    #[test]
    fn the_host_never_hears_a_tool_call_line() {
        let outputs = [
            "Ищу.\n`TOOL_CALL: media_search|x`",
            "  tool_call : media_play|tt1",
            "```\nTOOL_CALL: show_text|a\n```",
            "Готово.",
        ];
        for piece in [1, 2, 5, 64] {
            let (mut agent, _) = fixture();
            let mut model = ScriptedModel::new(outputs).with_piece_chars(piece);
            let mut texts = Vec::new();
            let out = agent
                .turn("s", "x", &mut model, &CancelToken::new(), &mut |e| {
                    if let AgentEvent::Text(t) = e {
                        texts.push(t)
                    }
                })
                .unwrap();
            let all = texts.concat();
            assert_eq!(all, "Ищу.\nГотово.", "piece {piece}");
            for t in &texts {
                assert!(!t.to_lowercase().contains("tool"), "{t:?}");
                assert!(!t.contains('`'), "{t:?}");
            }
            assert_eq!(out.streamed, all);
        }
    }

    #[test]
    fn a_regenerated_preamble_is_not_heard_twice() {
        let (mut agent, _) = fixture();
        let r = turn(
            &mut agent,
            "s",
            "найди Лару Крофт",
            &[
                "Сейчас найду.\nTOOL_CALL: enable_toolset|media",
                "Сейчас найду.\nTOOL_CALL: media_search|Лара Крофт",
                "Нашёл Tomb Raider.",
            ],
        );
        assert_eq!(r.out.streamed, "Сейчас найду.\nНашёл Tomb Raider.");
        assert_eq!(
            r.out
                .generations
                .iter()
                .map(|g| g.discarded)
                .collect::<Vec<_>>(),
            [true, false, false]
        );
        let h = history(&agent, "s");
        assert!(!h.contains("enable_toolset"));
        assert_eq!(h.matches("Сейчас найду.").count(), 1);
        assert!(r.out.tool_replies[0]
            .text
            .starts_with("Тулсет media активирован"));
        assert!(!r.out.tool_replies[0].in_history);
        // A different preamble after the discard is spoken in full.
        let (mut agent, _) = fixture();
        let r = turn(
            &mut agent,
            "s",
            "x",
            &[
                "Включаю.\nTOOL_CALL: enable_toolset|web",
                "Открываю.\nTOOL_CALL: disable_toolset|web",
                "Ладно.",
            ],
        );
        assert_eq!(r.out.streamed, "Включаю.\nОткрываю.\nЛадно.");
        assert!(!history(&agent, "s").contains("toolset"));
    }

    #[test]
    fn a_switch_that_changes_nothing_is_answered_in_the_history() {
        let (mut agent, _) = fixture();
        agent.enable_toolset("s", "media").unwrap();
        let r = turn(
            &mut agent,
            "s",
            "x",
            &[
                "TOOL_CALL: enable_toolset|media",
                "TOOL_CALL: enable_toolset|кино",
                "Ок.",
            ],
        );
        assert_eq!(r.out.generations.iter().filter(|g| g.discarded).count(), 0);
        let h = history(&agent, "s");
        assert!(h.contains("tool(enable_toolset): Тулсет media уже активен, продлеваю таймаут."));
        assert!(h.contains("набора кино нет, доступны: media, web"));
        assert!(r.out.tool_replies.iter().all(|t| t.in_history));
    }

    #[test]
    fn mixed_output_keeps_visible_calls_and_drops_switches_from_history() {
        let (mut agent, _) = fixture();
        let r = turn(
            &mut agent,
            "s",
            "x",
            &[
                "TOOL_CALL: enable_toolset|media\nTOOL_CALL: media_search|Лара",
                "Ок.",
            ],
        );
        assert_eq!(executed(&r.out), ["media_search"]);
        let h = history(&agent, "s");
        assert!(!h.contains("enable_toolset"), "{h}");
        assert!(h.contains("assistant: TOOL_CALL: media_search|Лара"));
        assert_eq!(
            r.out
                .tool_replies
                .iter()
                .map(|t| t.in_history)
                .collect::<Vec<_>>(),
            [false, true]
        );
    }

    #[test]
    fn max_iterations_bounds_the_loop() {
        let (mut agent, _) = fixture_with(AgentConfig {
            max_iterations: 3,
            ..AgentConfig::default()
        });
        let outputs = ["TOOL_CALL: get_current_time"; 3];
        let r = turn(&mut agent, "s", "x", &outputs);
        assert_eq!(r.out.stop, TurnStop::MaxIterations);
        assert_eq!(r.out.generations.len(), 3);
        assert_eq!(r.model.remaining(), 0);
        // Discarded generations count too: enable/disable ping-pong ends.
        let (mut agent, _) = fixture_with(AgentConfig {
            max_iterations: 4,
            ..AgentConfig::default()
        });
        let r = turn(
            &mut agent,
            "s",
            "x",
            &[
                "TOOL_CALL: enable_toolset|web",
                "TOOL_CALL: disable_toolset|web",
                "TOOL_CALL: enable_toolset|web",
                "TOOL_CALL: disable_toolset|web",
            ],
        );
        assert_eq!(r.out.stop, TurnStop::MaxIterations);
        assert_eq!(agent.history("s").len(), 1, "only the user message");
    }

    #[test]
    fn cancellation_between_iterations_and_inside_a_generation() {
        let (mut agent, _) = fixture();
        let cancel = CancelToken::new();
        cancel.cancel();
        let mut model = ScriptedModel::new(["never"]);
        let out = agent
            .turn("s", "x", &mut model, &cancel, &mut |_| {})
            .unwrap();
        assert_eq!(out.stop, TurnStop::Cancelled);
        assert_eq!(model.remaining(), 1, "no model call after cancel");

        // Cancelled while the tool runs: the call completes (its result is kept), no new request.
        let (mut agent, _) = fixture();
        let cancel = CancelToken::new();
        let flag = cancel.clone();
        agent.register_executor(
            ExecutorTarget::Tool("media_search".into()),
            Arc::new(move |_: &ToolInvocation<'_>| {
                flag.cancel();
                Ok("found".to_string())
            }),
        );
        let mut model = ScriptedModel::new(["TOOL_CALL: media_search|x", "never"]);
        let out = agent
            .turn("s", "x", &mut model, &cancel, &mut |_| {})
            .unwrap();
        assert_eq!(out.stop, TurnStop::Cancelled);
        assert_eq!(model.remaining(), 1);
        assert!(history(&agent, "s").contains("tool(media_search): found"));

        // Cancelled mid-generation: the partial output stays out of the history.
        let (mut agent, _) = fixture();
        let cancel = CancelToken::new();
        let flag = cancel.clone();
        let mut model = ScriptedModel::new(["Очень длинный ответ"]).with_piece_chars(1);
        let mut n = 0;
        let out = agent
            .turn("s", "x", &mut model, &cancel, &mut |e| {
                if matches!(e, AgentEvent::Text(_)) {
                    n += 1;
                    if n == 3 {
                        flag.cancel();
                    }
                }
            })
            .unwrap();
        assert_eq!(out.stop, TurnStop::Cancelled);
        assert_eq!(agent.history("s").len(), 1);
    }

    #[test]
    fn model_errors_end_the_turn_and_keep_the_history() {
        let (mut agent, _) = fixture();
        turn(&mut agent, "s", "first", &["Привет."]);
        let r = turn(&mut agent, "s", "second", &["TOOL_CALL: get_current_time"]);
        assert_eq!(
            r.out.stop,
            TurnStop::ModelError(ModelErrorText::exhausted())
        );
        let h = history(&agent, "s");
        for want in [
            "user: first",
            "assistant: Привет.",
            "user: second",
            "tool(get_current_time)",
        ] {
            assert!(h.contains(want), "{h}");
        }
    }

    struct ModelErrorText;
    impl ModelErrorText {
        fn exhausted() -> String {
            crate::model::ModelError::ScriptExhausted.to_string()
        }
    }

    #[test]
    fn history_is_append_only_across_turns() {
        let (mut agent, _) = fixture();
        let mut seen: Vec<Message> = Vec::new();
        let script: &[(&str, &[&str])] = &[
            (
                "a",
                &[
                    "TOOL_CALL: enable_toolset|media",
                    "TOOL_CALL: media_search|x",
                    "A",
                ],
            ),
            ("b", &["TOOL_CALL: disable_toolset|media", "B"]),
            ("c", &["TOOL_CALL: media_play|tt1|rewind", "C"]),
        ];
        for (user, outputs) in script {
            turn(&mut agent, "s", user, outputs);
            let now = agent.history("s").to_vec();
            assert_eq!(&now[..seen.len()], &seen[..], "history was rewritten");
            seen = now;
        }
        assert!(
            history(&agent, "s").contains("Tomb Raider"),
            "tool results stay"
        );
    }

    #[test]
    fn executors_by_tool_win_over_toolset() {
        let (mut agent, _) = fixture();
        let calls = Arc::new(Mutex::new(Vec::new()));
        let log = calls.clone();
        agent.register_executor(
            ExecutorTarget::Toolset("WEB".into()),
            Arc::new(move |c: &ToolInvocation<'_>| {
                log.lock()
                    .unwrap()
                    .push(format!("{}:{}:{}", c.session, c.toolset, c.tool));
                Ok("opened".to_string())
            }),
        );
        let r = reply(&mut agent, "s", "TOOL_CALL: web_open|https://example.org");
        assert_eq!((r.kind, r.text.as_str()), (ReplyKind::Executed, "opened"));
        assert_eq!(calls.lock().unwrap().as_slice(), ["s:web:web_open"]);
        assert!(agent.missing_executors().is_empty());
    }

    /// Plays a short conversation (plain turn, enable + search, plain turn, disable) in a
    /// layout and returns every request the model saw.
    fn layout_requests(layout: PromptLayout) -> Vec<crate::scripted::RecordedRequest> {
        let (mut agent, _) = fixture_with(AgentConfig {
            layout,
            ..AgentConfig::default()
        });
        let mut all = Vec::new();
        for (user, outputs) in [
            ("Привет", vec!["Привет!"]),
            (
                "Найди Лару Крофт",
                vec![
                    "TOOL_CALL: enable_toolset|media",
                    "TOOL_CALL: media_search|Лара",
                    "Нашёл.",
                ],
            ),
            ("Спасибо", vec!["Пожалуйста."]),
            (
                "Хватит кино",
                vec!["TOOL_CALL: disable_toolset|media", "Ок."],
            ),
            ("Пока", vec!["Пока!"]),
        ] {
            let r = turn(&mut agent, "s", user, &outputs);
            assert_eq!(r.out.stop, TurnStop::Answered, "{layout}: {user}");
            all.extend(r.model.requests().iter().cloned());
        }
        all
    }

    /// The whole prompt of a request as a flat list of (role, text) blocks.
    fn blocks(r: &crate::scripted::RecordedRequest) -> Vec<String> {
        std::iter::once(format!("system: {}", r.system))
            .chain(
                r.messages
                    .iter()
                    .map(|m| format!("{:?}: {}", m.role, m.content)),
            )
            .collect()
    }

    fn is_prefix(a: &[String], b: &[String]) -> bool {
        a.len() <= b.len() && a == &b[..a.len()]
    }

    #[test]
    fn layouts_carry_the_same_prompt_and_history() {
        let first = layout_requests(PromptLayout::SystemFirst);
        for layout in PromptLayout::ALL {
            let reqs = layout_requests(layout);
            assert_eq!(reqs.len(), first.len(), "{layout}");
            for (r, f) in reqs.iter().zip(&first) {
                let state: Vec<&Message> = r
                    .messages
                    .iter()
                    .filter(|m| !f.messages.contains(m))
                    .collect();
                if layout == PromptLayout::SystemFirst {
                    assert_eq!(r, f);
                    continue;
                }
                // The system text is the static part; the dynamic part is one user message;
                // together they are the design's prompt, and the history is untouched.
                assert_eq!(state.len(), 1, "{layout}: {:?}", r.messages);
                assert_eq!(format!("{}\n\n{}", r.system, state[0].content), f.system);
                let history: Vec<Message> = r
                    .messages
                    .iter()
                    .filter(|m| *m != state[0])
                    .cloned()
                    .collect();
                assert_eq!(history, f.messages, "{layout}");
            }
        }
    }

    #[test]
    fn head_view_is_what_every_new_session_starts_with() {
        for layout in PromptLayout::ALL {
            let requests = layout_requests(layout);
            let first = &requests[0];
            let (agent, _) = fixture_with(AgentConfig {
                layout,
                ..AgentConfig::default()
            });
            let head = agent.head_view();
            assert_eq!(head.system, first.system, "{layout}");
            assert!(
                first.messages.starts_with(&head.messages),
                "{layout}: {:?} vs {:?}",
                head.messages,
                first.messages
            );
            // The user's message follows the head directly.
            assert_eq!(
                first.messages[head.messages.len()].content,
                "Привет",
                "{layout}"
            );
        }
    }

    #[test]
    fn prepare_turn_hints_the_turns_request_and_changes_nothing() {
        struct Hinted {
            inner: ScriptedModel,
            prefills: Vec<(String, String, Vec<Message>)>,
        }
        impl Model for Hinted {
            fn generate(
                &mut self,
                request: &ModelRequest<'_>,
                on_text: &mut dyn FnMut(&str),
            ) -> Result<crate::model::Generation, ModelError> {
                self.inner.generate(request, on_text)
            }
            fn prefill(&mut self, r: &ModelRequest<'_>) -> Result<(), ModelError> {
                self.prefills.push((
                    r.session.to_owned(),
                    r.system.to_owned(),
                    r.messages.to_vec(),
                ));
                Ok(())
            }
        }
        let (mut agent, clock) = fixture();
        turn(&mut agent, "s", "Привет", &["Здравствуйте!"]);
        agent.enable_toolset("s", "media").unwrap();
        turn(&mut agent, "s", "Что в кино?", &["Не знаю."]);
        // The set expires while the user speaks: the hint must not drop it silently.
        clock.advance(Duration::from_secs(11 * 60));
        let history = agent.history("s").to_vec();
        let mut model = Hinted {
            inner: ScriptedModel::new(["Сейчас десять."]),
            prefills: Vec::new(),
        };
        agent.prepare_turn("s", "Который", &mut model).unwrap();
        agent.prepare_turn("s", "Который час?", &mut model).unwrap();
        assert_eq!(agent.history("s"), history.as_slice());
        assert_eq!(agent.sessions.get("s").map(|s| s.active.len()), Some(1));
        assert_eq!(model.prefills.len(), 2);
        // (After a state change the state message follows the user's words.)
        assert!(model.prefills[0].2.iter().any(|m| m.content == "Который"));

        let mut events = Vec::new();
        let out = agent
            .turn(
                "s",
                "Который час?",
                &mut model,
                &CancelToken::new(),
                &mut |e| events.push(e),
            )
            .unwrap();
        assert_eq!(out.stop, TurnStop::Answered);
        assert!(
            events
                .iter()
                .any(|e| matches!(e, AgentEvent::ToolsetDisabled { expired: true, .. })),
            "{events:?}"
        );
        // The hint was exactly the turn's first request.
        let first = &model.inner.requests()[0];
        let (session, system, messages) = &model.prefills[1];
        assert_eq!(session, "s");
        assert_eq!(system, &first.system);
        assert_eq!(messages, &first.messages);

        // A hint for a session that does not exist yet does not create it.
        agent.prepare_turn("new", "Привет", &mut model).unwrap();
        assert!(!agent.sessions().any(|s| s == "new"));
        assert_eq!(
            model.prefills[2].2.last().map(|m| m.content.as_str()),
            Some("Привет")
        );
        assert_eq!(
            agent.prepare_turn(" ", "x", &mut model),
            Err(AgentError::EmptySession)
        );
        // A model without prefill support accepts the hint and does nothing.
        let mut scripted = ScriptedModel::new(Vec::<String>::new());
        agent.prepare_turn("s", "Ещё", &mut scripted).unwrap();
    }

    #[test]
    fn warm_up_hands_the_head_to_the_model() {
        struct Recorder(Vec<(String, Vec<Message>)>);
        impl Model for Recorder {
            fn generate(
                &mut self,
                _: &ModelRequest<'_>,
                _: &mut dyn FnMut(&str),
            ) -> Result<crate::model::Generation, ModelError> {
                Err(ModelError::Failed("not used".into()))
            }
            fn prepare_head(
                &mut self,
                system: &str,
                messages: &[Message],
            ) -> Result<(), ModelError> {
                self.0.push((system.to_owned(), messages.to_vec()));
                Ok(())
            }
        }
        let (agent, _) = fixture();
        let mut model = Recorder(Vec::new());
        agent.warm_up(&mut model).unwrap();
        let head = agent.head_view();
        assert_eq!(model.0, vec![(head.system, head.messages)]);
        // A model without head support accepts the hint and does nothing.
        let mut scripted = ScriptedModel::new(Vec::<String>::new());
        agent.warm_up(&mut scripted).unwrap();
    }

    #[test]
    fn anchored_state_moves_only_when_the_state_changes() {
        let reqs = layout_requests(PromptLayout::AnchoredState);
        // Fresh session: the state message opens the conversation (the same for every
        // session, so it can belong to a shared head).
        assert_eq!(reqs[0].messages.len(), 2);
        assert!(reqs[0].messages[0].content.starts_with("Скиллы"));
        let mut changes = 0;
        for pair in reqs.windows(2) {
            let (a, b) = (blocks(&pair[0]), blocks(&pair[1]));
            if !is_prefix(&a[..a.len() - 1], &b) {
                changes += 1;
                // A change keeps everything before the old state message.
                let old = a
                    .iter()
                    .position(|x| x.contains("Скиллы") || x.contains("Активные"))
                    .unwrap();
                assert_eq!(a[..old], b[..old]);
                // ... and puts the new one last.
                let last = b.last().unwrap();
                assert!(
                    last.contains("Активные") || last.contains("Скиллы"),
                    "{last}"
                );
            }
        }
        assert_eq!(changes, 2, "enable and disable");
        // While media is active its skill is hidden; after disable it is back.
        let active = &reqs[2];
        let state = active.messages.last().unwrap();
        assert!(state.content.contains("Активные тулсеты: media"));
        assert!(!state.content.contains("вызови enable_toolset|media"));
        assert!(reqs
            .last()
            .unwrap()
            .messages
            .iter()
            .any(|m| m.content.contains("вызови enable_toolset|media")));
    }

    #[test]
    fn design_order_re_renders_history_on_a_change_and_tail_on_every_request() {
        let first = layout_requests(PromptLayout::SystemFirst);
        // The enable changes the system text: everything after it is new.
        assert_ne!(first[1].system, first[2].system);
        let tail = layout_requests(PromptLayout::DynamicTail);
        for r in &tail {
            let last = r.messages.last().unwrap();
            assert!(last.content.starts_with("Скиллы") || last.content.starts_with("Активные"));
        }
        // The tail layout never changes its system text.
        assert!(tail.iter().all(|r| r.system == tail[0].system));
    }
}
