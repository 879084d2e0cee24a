//! The host's hook into a session between calls ([`HostHook`]): what a host that tracks
//! protocol runs and proposals (the runtime, over its catalog) tells the agent, so the agent
//! needs no catalog of its own.

use std::sync::Arc;

/// The reminder of a session's running protocol ([`HostHook::reminder`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunReminder {
    /// Carried by every request of the session while the run is running: appended to the
    /// request's last message, in the request only (never the history, the system text or
    /// the state message).
    pub text: String,
    /// When the run has no open step but is not closed: what a turn that ends with a bare
    /// reply is told, once, before one more generation. `None` while steps are open.
    pub unfinished: Option<String>,
}

/// A note the host has for a session ([`HostHook::take_notes`]): a hidden message of the
/// session's next turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostNote {
    /// The tool whose outcome it reports (its name in the tool message, e.g.
    /// `skills_propose` for the user's decision on a proposal).
    pub tool: String,
    /// What it says (worded by the host from the messages, [`crate::Texts`]).
    pub text: String,
}

/// What a host tells the agent about its sessions between calls. The agent asks, on the
/// caller's thread, at these points only: [`HostHook::take_notes`] once at the start of a
/// turn, [`HostHook::reminder`] before every model request of a turn and after a bare reply,
/// [`HostHook::index_lines`] whenever it builds a prompt. Keep them quick.
pub trait HostHook: Send + Sync {
    /// The reminder of the session's running protocol; `None` when none runs.
    fn reminder(&self, session: &str) -> Option<RunReminder>;

    /// The notes for `session` not delivered yet (each is delivered once): they enter the
    /// history as tool messages right before the turn's user message — heard by the model,
    /// never spoken, never a user message.
    fn take_notes(&self, session: &str) -> Vec<HostNote>;

    /// Lines the prompt's skills index lists after the skill files' (e.g. the personal
    /// entries of a catalog). Default: none.
    fn index_lines(&self) -> Vec<String> {
        Vec::new()
    }

    /// The host's lists of argument values it keeps itself (`values_from: NAME` of an
    /// argument: the catalog's protocols, say), asked at the start of every turn; a list
    /// named here replaces one given by [`crate::Agent::set_values`]. Default: none.
    fn value_lists(&self) -> Vec<(String, Vec<String>)> {
        Vec::new()
    }
}

/// The hook of an agent ([`crate::Agent::set_host_hook`]).
pub type SharedHook = Arc<dyn HostHook>;
