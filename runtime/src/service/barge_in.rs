//! Barge-in: what a new user message does to its session's turns already running or
//! queued ([`ServicePolicy`]), and how a turn is stopped.

use super::queue::QueuedTurn;

/// How a [`Service`](super::Service) treats a new user message for a session that already has a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServicePolicy {
    /// Barge-in (default on): a new message interrupts the session's running turn — it
    /// stops within a token, and its history keeps the reply as far as it was delivered
    /// ([`Service::delivered`](super::Service::delivered); default everything streamed), marked as interrupted — and
    /// takes in the session's turns still queued: their texts and its own become one user
    /// message ([`porfiry_agent::merged_input`]), their listeners get `Done` with `stop:
    /// "merged"` and `merged_into`. Off: every message is answered in order.
    pub barge_in: bool,
}

impl Default for ServicePolicy {
    fn default() -> Self {
        Self { barge_in: true }
    }
}

/// Stop a queued or running turn: a running one as far as the host said it was delivered.
pub(super) fn stop_turn(p: &QueuedTurn) {
    match (p.started, p.delivered) {
        (true, Some(chars)) => p.cancel.interrupt(chars),
        _ => p.cancel.cancel(),
    }
}

/// Barge-in for a new message (turn `id`, `text`) of `session`: its running turn is
/// interrupted, its queued ones are merged into this one. Returns the new turn's text.
pub(super) fn barge_in(pending: &mut [QueuedTurn], session: &str, id: u64, text: String) -> String {
    let mut texts = Vec::new();
    for p in pending
        .iter_mut()
        .filter(|p| p.session == session && !p.sealed && !p.cancel.is_cancelled())
    {
        if !p.started {
            texts.push(std::mem::take(&mut p.text));
            p.merged_into = Some(id);
        }
        stop_turn(p);
    }
    if texts.is_empty() {
        return text;
    }
    texts.push(text);
    porfiry_agent::merged_input(&texts)
}
