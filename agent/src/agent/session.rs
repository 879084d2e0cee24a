//! One session's state: its append-only history, its active toolsets with their deadlines,
//! where its toolset state sits in the request
//! ([`PromptLayout::AnchoredState`](crate::PromptLayout::AnchoredState)) and how far the
//! request's view of the history is compacted ([`Compacted`]).

use std::collections::BTreeMap;

use super::{AgentError, AgentEvent, Shared};
use crate::clock::Timestamp;
use crate::guidance::Route;
use crate::model::{Message, Role};

/// One conversation.
#[derive(Debug, Clone, Default)]
pub(super) struct Session {
    /// Append-only.
    pub(super) history: Vec<Message>,
    /// set → deadline.
    pub(super) active: BTreeMap<String, Timestamp>,
    /// [`PromptLayout::AnchoredState`](crate::PromptLayout::AnchoredState): the history
    /// index where the state message sits and its text (the dynamic sections when the state
    /// began).
    pub(super) anchor: Option<(usize, String)>,
    /// A set a call ran directly opened this turn: until the turn ends the request shows
    /// the state as anchored (the set's tools are not needed to answer after a call it has
    /// made), and the new state moves after the turn's last message at its end — prefilled
    /// while the user is silent, not while they wait.
    pub(super) state_held: bool,
    /// How far the model's view of the history is compacted (moves forward only; the
    /// history itself is untouched).
    pub(super) compacted: Compacted,
    /// The action the assistant asked about at the end of the last turn
    /// ([`crate::Technique::AskWhenUnsure`]): the next turn's yes runs it.
    pub(super) asked: Option<Asked>,
    /// A call waiting for a value the request did not give
    /// ([`crate::Technique::SaidArgs`]): the next turn's answer fills it, a no drops it,
    /// anything else is a new request.
    pub(super) filling: Option<Filling>,
    /// What the current turn's routed call is filled from when it is not the request
    /// alone: the request that lacked a value and the answer that gave it.
    pub(super) filled: Option<String>,
}

/// A routed call waiting for a value the user did not say.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Filling {
    /// The route of the call.
    pub(super) route: Route,
    /// What its values are taken from so far (the request, and any answer before).
    pub(super) request: String,
}

/// An action the assistant asked about instead of acting on a narrow route.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Asked {
    /// The route asked about.
    pub(super) route: Route,
    /// The history index of the request it serves.
    pub(super) request_at: usize,
}

/// How far a session's request view is compacted: a record that only moves forward, so
/// every request until the next compaction begins with the same compacted prefix (the
/// model's KV cache reuses it). Applied by the layout, advanced by `compact`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Compacted {
    /// Tool results before this history index are shown as a one-line placeholder.
    pub(super) shortened_to: usize,
    /// History messages before this index (always the start of an exchange) are left out;
    /// one marker line stands for them.
    pub(super) dropped_to: usize,
    /// Messages shown cut (too long for the context alone): history index → bytes of the
    /// content kept (on a character boundary).
    pub(super) cuts: BTreeMap<usize, usize>,
}

impl Session {
    /// Drop the sets whose deadline is before `now`; returns their names, sorted.
    pub(super) fn expire(&mut self, now: Timestamp) -> Vec<String> {
        let mut gone = Vec::new();
        self.active.retain(|name, deadline| {
            let expired = now > *deadline;
            if expired {
                gone.push(name.clone());
            }
            !expired
        });
        gone
    }

    /// The names of the active sets, sorted (expired ones included: call
    /// [`Session::expire`] first).
    pub(super) fn active_names(&self) -> Vec<String> {
        self.active.keys().cloned().collect()
    }
}

/// The session called `name`, created on first use.
///
/// # Errors
/// [`AgentError::EmptySession`] for a blank name.
pub(super) fn session_entry<'a>(
    sessions: &'a mut BTreeMap<String, Session>,
    name: &str,
) -> Result<&'a mut Session, AgentError> {
    if name.trim().is_empty() {
        return Err(AgentError::EmptySession);
    }
    Ok(sessions.entry(name.to_string()).or_default())
}

impl Shared {
    /// Drop the session's sets whose deadline has passed, telling the host about each.
    pub(super) fn expire(&self, s: &mut Session, on_event: &mut dyn FnMut(AgentEvent)) {
        for name in s.expire(self.clock.now()) {
            on_event(AgentEvent::ToolsetDisabled {
                name,
                expired: true,
            });
        }
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
