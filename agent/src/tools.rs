//! The core tools (always in the prompt) and the host executor seam for toolset tools.

use crate::args::{ArgDecl, ArgType, Args};
use crate::model::CancelToken;
use std::time::Duration;

/// The names of the core tools, in prompt order.
pub const CORE_TOOL_NAMES: [&str; 5] = [
    "get_current_time",
    "show_text",
    "read_skill",
    "enable_toolset",
    "disable_toolset",
];

/// The five core tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CoreTool {
    GetCurrentTime,
    ShowText,
    ReadSkill,
    EnableToolset,
    DisableToolset,
}

impl CoreTool {
    pub(crate) const ALL: [CoreTool; 5] = [
        CoreTool::GetCurrentTime,
        CoreTool::ShowText,
        CoreTool::ReadSkill,
        CoreTool::EnableToolset,
        CoreTool::DisableToolset,
    ];

    pub(crate) fn name(self) -> &'static str {
        match self {
            CoreTool::GetCurrentTime => CORE_TOOL_NAMES[0],
            CoreTool::ShowText => CORE_TOOL_NAMES[1],
            CoreTool::ReadSkill => CORE_TOOL_NAMES[2],
            CoreTool::EnableToolset => CORE_TOOL_NAMES[3],
            CoreTool::DisableToolset => CORE_TOOL_NAMES[4],
        }
    }

    pub(crate) fn from_name(name: &str) -> Option<CoreTool> {
        CoreTool::ALL.into_iter().find(|t| t.name() == name)
    }

    /// enable/disable change the session's toolsets; their calls stay out of the history.
    pub(crate) fn is_invisible(self) -> bool {
        matches!(self, CoreTool::EnableToolset | CoreTool::DisableToolset)
    }

    pub(crate) fn args(self) -> Vec<ArgDecl> {
        let text = |name: &str, required: bool| ArgDecl {
            name: name.to_string(),
            ty: ArgType::String,
            required,
            description: None,
            said: Vec::new(),
            ..Default::default()
        };
        match self {
            CoreTool::GetCurrentTime => vec![],
            CoreTool::ShowText => vec![text("text", true)],
            CoreTool::ReadSkill => vec![text("name", true)],
            // Forgiving: a missing name gets a helpful answer (see the dispatcher).
            CoreTool::EnableToolset => vec![text("name", true)],
            // Without a name: disable every active set.
            CoreTool::DisableToolset => vec![text("name", false)],
        }
    }
}

/// One call of a toolset tool, as handed to its host executor.
#[derive(Debug, Clone, Copy)]
pub struct ToolInvocation<'a> {
    /// The session the call belongs to.
    pub session: &'a str,
    /// The toolset of the tool.
    pub toolset: &'a str,
    /// The tool's name.
    pub tool: &'a str,
    /// The arguments, validated against the declaration.
    pub args: &'a Args,
    /// The turn's cancel token: an executor that waits (a host's timed tool) stops waiting
    /// once it is set — the user interrupted the turn.
    pub cancel: &'a CancelToken,
    /// What is left of the turn's time budget; an executor that waits waits at most this
    /// long. `None`: no budget.
    pub time_left: Option<Duration>,
}

/// A host's implementation of toolset tools (the Android app, a test, a scenario).
///
/// Register one per tool name or per toolset with [`crate::Agent::register_executor`].
/// `Ok(text)` and `Err(text)` both go back to the model as the tool's reply (an error is
/// marked as such); neither ends the turn. Executors run on the agent's caller thread,
/// in call order; keep them quick or make them return "started" and finish elsewhere.
pub trait ToolExecutor: Send + Sync {
    /// Run the call.
    fn execute(&self, call: &ToolInvocation<'_>) -> Result<String, String>;
}

impl<F> ToolExecutor for F
where
    F: Fn(&ToolInvocation<'_>) -> Result<String, String> + Send + Sync,
{
    fn execute(&self, call: &ToolInvocation<'_>) -> Result<String, String> {
        self(call)
    }
}

/// What an executor is registered for.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ExecutorTarget {
    /// Exactly this tool (takes precedence over a toolset registration).
    Tool(String),
    /// Every tool of this toolset (prefix routing).
    Toolset(String),
}
