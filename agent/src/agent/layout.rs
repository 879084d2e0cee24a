//! What a model request carries for a session, by [`PromptLayout`]: the system text and the
//! message view — the history as far as the session is compacted, plus the state message in
//! layouts that place the dynamic prompt sections there.

use super::compact::{fit, Refused, ViewParts};
use super::session::Session;
use super::turn::Extras;
use super::{Agent, ContextReport, Shared};
use crate::messages::Texts;
use crate::model::{CallSyntax, Message, Model, Role};
use crate::prompt::PromptLayout;

/// What a model request carries for a session: the system text and the message view (the
/// history, plus the state message in layouts that place the dynamic sections there).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestView {
    /// The system text.
    pub system: String,
    /// The messages, oldest first.
    pub messages: Vec<Message>,
}

impl Agent {
    /// What every new session's first request begins with, before the user's message: the
    /// system text and, in layouts that carry the toolset state as a message, the fresh state
    /// (no active toolsets). Identical for every session of this agent, so a model may
    /// compute it once ([`Model::prepare_head`](crate::Model::prepare_head)).
    pub fn head_view(&self) -> RequestView {
        let prompt = self.shared.prompt(&[]);
        match self.shared.layout_kind() {
            PromptLayout::SystemFirst => RequestView {
                system: prompt.text().to_string(),
                messages: Vec::new(),
            },
            // The state follows the history: only the static system text is common.
            PromptLayout::DynamicTail => RequestView {
                system: prompt.static_prefix().to_string(),
                messages: Vec::new(),
            },
            PromptLayout::AnchoredState => state_view(
                prompt.static_prefix().to_string(),
                Vec::new(),
                0,
                prompt.dynamic_part().to_string(),
            ),
        }
    }

    /// What the session's next model request carries, laid out by
    /// [`AgentConfig::layout`](super::AgentConfig::layout). The prompt is rebuilt here
    /// (expired sets dropped first); in [`PromptLayout::AnchoredState`] a changed state moves
    /// the state message to the end. The history is shown as far as the session's earlier
    /// turns compacted it; a turn may compact further to fit its model's context.
    pub fn request(&mut self, session: &str) -> RequestView {
        let Agent { shared, sessions } = self;
        match sessions.get_mut(session) {
            Some(s) => shared.request(s),
            // No session yet: a fresh one's view (the fresh state at the start), and no
            // session is created.
            None => shared.request(&mut Session::default()),
        }
    }
}

impl Shared {
    /// The layout requests use: [`AgentConfig::layout`](super::AgentConfig::layout), except
    /// for a model with FunctionGemma's call syntax, whose tool declarations must be in the
    /// system text (its `developer` turn, the only place the engine renders their markers as
    /// the special tokens they are): [`PromptLayout::SystemFirst`].
    pub(super) fn layout_kind(&self) -> PromptLayout {
        match self.syntax {
            CallSyntax::ToolCallLine => self.config.layout,
            CallSyntax::FunctionGemma => PromptLayout::SystemFirst,
        }
    }

    /// [`Agent::request`] for a session at hand: drops its expired sets (silently; a turn
    /// reports them before), moves its state anchor when the state changed and shows the
    /// history as far as the session is compacted (no new compaction: that needs a model,
    /// [`Shared::fitted_request`]).
    pub(super) fn request(&self, s: &mut Session) -> RequestView {
        let (system, state) = self.layout(s);
        let parts = ViewParts {
            history: &s.history,
            state: state.as_ref().map(|(at, text)| (*at, text.as_str())),
            texts: Texts::new(self.config.lang),
        };
        RequestView {
            messages: parts.render(&s.compacted),
            system,
        }
    }

    /// The request of the turn that began at history index `turn_start`, fitted to
    /// `model`'s context: compacted (the session's record advanced) when it would not fit,
    /// with the figures in `report`; `reserve` tokens after the messages (a reply prefix's
    /// bound) count as part of it.
    ///
    /// # Errors
    /// [`Refused`] when even the system text, the state and the current turn do not fit.
    pub(super) fn fitted_request(
        &self,
        s: &mut Session,
        turn_start: usize,
        model: &mut dyn Model,
        report: &mut ContextReport,
        reserve: usize,
    ) -> Result<RequestView, Refused> {
        let (system, state) = self.layout(s);
        let Session {
            history, compacted, ..
        } = s;
        let parts = ViewParts {
            history,
            state: state.as_ref().map(|(at, text)| (*at, text.as_str())),
            texts: Texts::new(self.config.lang),
        };
        let messages = fit(
            &system, &parts, turn_start, compacted, model, report, reserve,
        )?;
        Ok(RequestView { system, messages })
    }

    /// [`Shared::fitted_request`] with `extras` in the request: its transient messages after
    /// the history, its reminder at the end of the turn's latest tool result, its run
    /// reminder at the end of the request's last message, its reply prefix after them
    /// (counted by [`prefix_tokens`](super::compact::prefix_tokens)). They are measured and
    /// compacted with the rest; the history is left exactly as it was.
    pub(super) fn fitted_with(
        &self,
        s: &mut Session,
        turn_start: usize,
        model: &mut dyn Model,
        report: &mut ContextReport,
        extras: &Extras,
    ) -> Result<RequestView, Refused> {
        let len = s.history.len();
        // Messages of the history changed for this request, with their own text.
        let mut restore: Vec<(usize, String)> = Vec::new();
        if let Some(reminder) = &extras.reminder {
            let latest = s.history[turn_start.min(len)..]
                .iter()
                .rposition(|m| m.role == Role::Tool)
                .map(|i| turn_start + i);
            if let Some(i) = latest {
                let m = &mut s.history[i];
                restore.push((i, m.content.clone()));
                m.content = format!("{}\n\n{reminder}", m.content);
            }
        }
        s.history.extend(extras.transient.iter().cloned());
        // After everything the next requests keep (the system text, the state message and
        // the history before it): the request's last message, which is the turn's own.
        if let Some(run) = &extras.run {
            let last = s.history.len().checked_sub(1).filter(|i| *i >= turn_start);
            if let Some(i) = last {
                let m = &mut s.history[i];
                if i < len {
                    restore.push((i, m.content.clone()));
                }
                m.content = format!("{}\n\n{run}", m.content);
            }
        }
        let reserve = extras
            .reply_prefix
            .as_deref()
            .map_or(0, super::compact::prefix_tokens);
        let view = self.fitted_request(s, turn_start, model, report, reserve);
        s.history.truncate(len);
        for (i, content) in restore.into_iter().rev() {
            s.history[i].content = content;
        }
        // A cut recorded for a transient message must not apply to a later one.
        s.compacted.cuts.retain(|at, _| *at < len);
        view
    }

    /// The system text and the state message (the history index it goes before, its text)
    /// for the session's next request, by layout. Drops expired sets first and moves the
    /// state anchor when the state changed.
    pub(super) fn layout(&self, s: &mut Session) -> (String, Option<(usize, String)>) {
        s.expire(self.clock.now());
        let prompt = self.prompt(&s.active_names());
        let at = match self.layout_kind() {
            PromptLayout::SystemFirst => return (prompt.text().to_string(), None),
            PromptLayout::DynamicTail => s.history.len(),
            PromptLayout::AnchoredState => match &s.anchor {
                // The state as anchored until the turn ends (see `Session::state_held`).
                Some((at, held)) if s.state_held && *at <= s.history.len() => {
                    let held = (!held.is_empty()).then(|| (*at, held.clone()));
                    return (prompt.static_prefix().to_string(), held);
                }
                _ => s.state_anchor(prompt.dynamic_part()),
            },
        };
        let state = prompt.dynamic_part();
        let state = (!state.is_empty()).then(|| (at, state.to_string()));
        (prompt.static_prefix().to_string(), state)
    }
}

impl Session {
    /// [`PromptLayout::AnchoredState`]: where the state message goes. It stays where the
    /// current state began while the state is unchanged; a changed state moves it after the
    /// last message; a session's first state opens the conversation.
    fn state_anchor(&mut self, state: &str) -> usize {
        let len = self.history.len();
        let at = match &self.anchor {
            Some((at, text)) if text == state && *at <= len => return *at,
            Some(_) => len,
            None => 0,
        };
        self.anchor = Some((at, state.to_string()));
        at
    }
}

/// The history with the state message inserted at `at` (no message when the state is empty).
fn state_view(system: String, mut messages: Vec<Message>, at: usize, state: String) -> RequestView {
    if !state.is_empty() {
        messages.insert(at.min(messages.len()), Message::user(state));
    }
    RequestView { system, messages }
}
