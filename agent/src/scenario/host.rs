//! What a host gives the scenario runner: default folders, how it times its tools, and a
//! catalog of skills and protocols for scenarios with `catalog:`.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use super::schema::DecideAction;
use crate::agent::Agent;
use crate::messages::Lang;
use crate::tools::ToolExecutor;

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
