//! [`Runtime`]: an agent and a model wired together, with what every host does around a turn
//! (timed host tools, statistics, ending sessions).

use std::sync::Arc;
use std::time::{Duration, Instant};

use porfiry_agent::{
    Agent, AgentEvent, CancelToken, ExecutorTarget, Model, Prompt, Texts, ToolExecutor, TurnOutcome,
};
use porfiry_engine::{
    CacheReport, Engine, EngineModel, EngineStopper, HeadReport, TrimLevel, TrimReport,
};

use crate::error::RuntimeError;
use crate::host_tools::{HostCall, TimedExecutor, ToolCounters};
use crate::stats::TurnStats;

/// The model behind a runtime: the llama.cpp engine, or any other [`Model`] (a scripted model
/// in tests, a paced one in the bridge's JVM tests).
pub enum Backend {
    /// The engine (the product).
    Engine(EngineModel),
    /// Anything else.
    Other(Box<dyn Model + Send>),
}

impl Backend {
    /// The model seam.
    pub fn model(&mut self) -> &mut (dyn Model + Send) {
        match self {
            Backend::Engine(m) => m,
            Backend::Other(m) => m.as_mut(),
        }
    }

    /// The engine, when the backend is one.
    pub fn engine(&self) -> Option<&Engine> {
        match self {
            Backend::Engine(m) => Some(m.engine()),
            Backend::Other(_) => None,
        }
    }
}

/// One turn's result: the agent's account of it and its figures.
#[derive(Debug, Clone)]
pub struct Turn {
    /// What the agent did and said.
    pub outcome: TurnOutcome,
    /// The turn's figures (one definition for every host).
    pub stats: TurnStats,
}

/// An agent and a model, wired once for every host. Every call runs on the caller's thread;
/// [`crate::Service`] puts one on a worker thread for hosts that need that (the bridge).
pub struct Runtime {
    agent: Agent,
    backend: Backend,
    tool_timeout: Duration,
    tool_counters: Arc<ToolCounters>,
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtime")
            .field("agent", &self.agent)
            .field(
                "engine",
                &self.backend.engine().map(|e| e.info().path.clone()),
            )
            .finish_non_exhaustive()
    }
}

impl Runtime {
    /// A runtime over an agent and a backend; host tools registered through it get
    /// `tool_timeout`. [`crate::Runtime::open`] is the usual way to get one.
    pub fn from_parts(agent: Agent, backend: Backend, tool_timeout: Duration) -> Self {
        Self {
            agent,
            backend,
            tool_timeout,
            tool_counters: Arc::new(ToolCounters::default()),
        }
    }

    /// The agent (skills, toolsets, sessions).
    pub fn agent(&self) -> &Agent {
        &self.agent
    }

    /// The agent, mutably (registering executors, enabling toolsets in tests).
    pub fn agent_mut(&mut self) -> &mut Agent {
        &mut self.agent
    }

    /// The engine, when the backend is one.
    pub fn engine(&self) -> Option<&Engine> {
        self.backend.engine()
    }

    /// The agent and the model seam at once (benchmarks drive the agent themselves).
    pub fn parts(&mut self) -> (&mut Agent, &mut (dyn Model + Send)) {
        (&mut self.agent, self.backend.model())
    }

    /// The backend, given back.
    pub fn into_backend(self) -> Backend {
        self.backend
    }

    /// Host tool trouble so far (timeouts, failures).
    pub fn tool_counters(&self) -> &Arc<ToolCounters> {
        &self.tool_counters
    }

    /// Registers a host executor for `target`, run with the runtime's tool timeout.
    pub fn register_executor(&mut self, target: ExecutorTarget, executor: Arc<dyn ToolExecutor>) {
        let texts = Texts::new(self.agent.config().lang);
        let timed = TimedExecutor::tool(
            executor,
            self.tool_timeout,
            texts,
            self.tool_counters.clone(),
        );
        self.agent.register_executor(target, Arc::new(timed));
    }

    /// Registers a positional host call (the app's Java executors) for every tool of
    /// `toolset`, run with `timeout`.
    pub fn register_host_toolset(
        &mut self,
        toolset: &str,
        host: Arc<dyn HostCall>,
        timeout: Duration,
    ) {
        let texts = Texts::new(self.agent.config().lang);
        let timed = TimedExecutor::host(host, timeout, texts, self.tool_counters.clone());
        self.agent.register_executor(
            ExecutorTarget::Toolset(toolset.to_string()),
            Arc::new(timed),
        );
    }

    /// Prepares the static head every new session starts with (restored from its snapshot
    /// when the engine keeps one). With the engine, says what it did; other models get the
    /// hint and report nothing. Loads the judge's dictionary of the default language too.
    ///
    /// # Errors
    /// What the model reports; the runtime works the same without a prepared head.
    pub fn warm_up(&mut self) -> Result<Option<HeadReport>, RuntimeError> {
        // The judge's dictionary of the default language (the reply gate's rules), loaded
        // now rather than by the first reply it judges, and beside the head rather than
        // before it: parsing it takes a while, and a reply judged meanwhile waits for it.
        let lang = self.agent.config().lang;
        let _ = std::thread::Builder::new()
            .name("porfiry-dictionary".into())
            .spawn(move || porfiry_agent::prepare_dictionary(lang));
        match &mut self.backend {
            Backend::Engine(m) => {
                let view = self.agent.head_view();
                let head = m.engine().prepare_head(&view.system, &view.messages)?;
                // Routing's example requests, embedded once (kept beside the snapshots).
                let _ = self.agent.embed_routes(m);
                Ok(Some(head))
            }
            Backend::Other(_) => {
                let model = self.backend.model();
                let _ = self.agent.warm_up(model);
                Ok(None)
            }
        }
    }

    /// One user turn: events stream to `on_event`; the result carries the outcome and its
    /// figures.
    ///
    /// # Errors
    /// [`RuntimeError::Agent`] for an empty session name. A model failure is the turn's stop.
    pub fn turn(
        &mut self,
        session: &str,
        text: &str,
        cancel: &CancelToken,
        on_event: &mut dyn FnMut(AgentEvent),
    ) -> Result<Turn, RuntimeError> {
        let started = Instant::now();
        let model = self.backend.model();
        let outcome = self.agent.turn(session, text, model, cancel, on_event)?;
        let stats = TurnStats::of(&outcome, started.elapsed().as_secs_f64() * 1000.0);
        Ok(Turn { outcome, stats })
    }

    /// The user is speaking in `session` and `partial` is what was heard so far: the model
    /// decodes the coming turn's prompt up to those words, in the background.
    ///
    /// # Errors
    /// [`RuntimeError::Agent`] for an empty session name or what the model reports.
    pub fn hear_partial(&mut self, session: &str, partial: &str) -> Result<(), RuntimeError> {
        let model = self.backend.model();
        self.agent.hear_partial(session, partial, model)?;
        Ok(())
    }

    /// The session's next request as the model will see it (system text, then every message
    /// with its role, after any compaction), for people: `chat`'s `/request`.
    pub fn request_text(&mut self, session: &str) -> String {
        let view = self.agent.request(session);
        let mut out = format!("system: {}", view.system);
        out.push_str("\n");
        out.push_str(&porfiry_agent::render_history(&view.messages));
        out
    }

    /// The system prompt of `session` for its next request.
    pub fn prompt(&mut self, session: &str) -> Prompt {
        self.agent.prompt(session)
    }

    /// Ends `session`: its history and toolset state are removed and the model frees what it
    /// keeps for it (the engine: its KV sequence). A next turn in that session starts fresh
    /// from the static head. Returns whether the agent knew the session.
    ///
    /// # Errors
    /// What the model reports when it cannot free the session's cache (the history is gone
    /// either way).
    pub fn end_session(&mut self, session: &str) -> Result<bool, RuntimeError> {
        let known = self.agent.end_session(session);
        self.backend
            .model()
            .end_session(session)
            .map_err(|e| RuntimeError::Model(e.to_string()))?;
        Ok(known)
    }

    /// The KV cache per session (engine only).
    ///
    /// # Errors
    /// What the engine reports.
    pub fn cache_report(&self) -> Result<Option<CacheReport>, RuntimeError> {
        match self.backend.engine() {
            Some(e) => Ok(Some(e.cache_report()?)),
            None => Ok(None),
        }
    }

    /// Give memory back ([`TrimLevel`]): the engine's caches, or its whole chat context
    /// (every session's KV; a session's next turn prefills its history again, the static
    /// head restored from its snapshot). `None` when the model is not the engine.
    ///
    /// # Errors
    /// What the engine reports (its worker is gone).
    pub fn trim(&self, level: TrimLevel) -> Result<Option<TrimReport>, RuntimeError> {
        match self.backend.engine() {
            Some(e) => Ok(Some(e.trim(level)?)),
            None => Ok(None),
        }
    }

    /// A handle that stops the engine's work from another thread (a closing host), when the
    /// model is the engine.
    pub fn stopper(&self) -> Option<EngineStopper> {
        self.backend.engine().map(Engine::stopper)
    }
}
