//! The hints a host gives a model ahead of turns: the head new sessions start from, the
//! routing examples embedded at start-up, a partial transcript decoded ahead, the route a
//! text would take, and the state a turn held decoded ahead after it.

use super::session::Session;
use super::{Agent, AgentError, ContextReport, Shared};
use crate::args::validate_args;
use crate::call_line::parse_output_as;
use crate::guidance::{FillQuestion, Route};
use crate::judge::user_lang;
use crate::model::{CancelToken, Message, Model, ModelError, ModelRequest};
use crate::tools::CoreTool;

impl Agent {
    /// Tell `model` about [`Agent::head_view`] so it can prepare the head new sessions start
    /// from (a host calls this once at start-up, e.g. while the microphone opens).
    ///
    /// # Errors
    /// What the model reports; the agent works the same without a prepared head.
    pub fn warm_up(&mut self, model: &mut dyn Model) -> Result<(), ModelError> {
        self.shared.syntax = model.call_syntax();
        let view = self.head_view();
        let head = model.prepare_head(&view.system, &view.messages);
        self.embed_routes(model)?;
        head
    }

    /// Embed the example requests routing compares with ([`crate::Technique::Route`]) now, so
    /// the first turn pays only for its own request (a host calls this at start-up;
    /// [`Agent::warm_up`] does).
    ///
    /// # Errors
    /// What the model reports when embedding fails; routing then tries again per turn.
    pub fn embed_routes(&mut self, model: &mut dyn Model) -> Result<(), ModelError> {
        self.shared.embed_routes(model)
    }

    /// Let `model` decode the session's next request ahead of the turn while the user is
    /// still speaking: `partial_text` is what was heard so far (a partial transcript; call
    /// again as it grows — each call supersedes the last). The request is the one
    /// [`Agent::turn`] would make now for that text, laid out the same way; the model
    /// decodes it up to the end of the text ([`Model::decode_ahead`]), and the turn made with the
    /// final text reuses everything its prompt shares with it. When the guidance routes, the
    /// text is routed too (after the hint, so the model decodes while it embeds), and a turn
    /// whose final text is the same finds the request's embedding ready. Nothing in the
    /// session changes: no history, no toolset expiry, no events.
    ///
    /// # Errors
    /// [`AgentError::EmptySession`], or what the model reports.
    pub fn hear_partial(
        &mut self,
        session: &str,
        partial_text: &str,
        model: &mut dyn Model,
    ) -> Result<(), AgentError> {
        if session.trim().is_empty() {
            return Err(AgentError::EmptySession);
        }
        self.shared.syntax = model.call_syntax();
        // The turn's request is computed on a copy: the turn does its own expiry (with its
        // events) and layout, and a session that does not exist yet is not created.
        let mut s = self.sessions.get(session).cloned().unwrap_or_default();
        s.expire(self.shared.clock.now());
        let turn_start = s.history.len();
        s.history.push(Message::user(partial_text));
        // A partial routed to a decided switch: the turn will switch without a model call, so
        // the request to prepare is the one after the switch. (A decided call run directly
        // leaves the state as it is until the turn ends: its request is this one.)
        let route = self.shared.route(&s, partial_text, model);
        let plan = self.shared.plan(&s, route.as_ref(), turn_start, turn_start);
        if let Some(forced) = plan.forced.as_deref() {
            let opens = self.shared.sets_switched_on_by(&s, forced);
            self.shared.open_sets(&mut s, &opens);
        }
        self.shared
            .decode_ahead_of(session, &mut s, turn_start, model)
            .map_err(|e| AgentError::Model(e.to_string()))?;
        // The route itself is decided again by the turn (its session may change before); only
        // the embedding of the text is kept. A model that cannot embed loses nothing here.
        Ok(())
    }

    /// Where routing would send `text` as the session's next turn ([`crate::Technique::Route`]),
    /// without running the turn: nothing in the session changes. `None` when the guidance
    /// does not route, the model cannot embed or there is nothing to route among.
    pub fn route(&mut self, session: &str, text: &str, model: &mut dyn Model) -> Option<Route> {
        let mut s = self.sessions.get(session).cloned().unwrap_or_default();
        s.expire(self.shared.clock.now());
        s.history.push(Message::user(text));
        self.shared.route(&s, text, model)
    }

    /// Where a turn of `session` would send `text` and what it would decide before the
    /// model writes anything: the question it asks about a narrow route, the question for
    /// a missing value or the range of a value said outside it, else the reply its plan
    /// decides outright (the call lines of a call whose every argument was said, a
    /// switch); `None` beside the route when the model writes the first action. Nothing in
    /// the session changes. What `eval tools --routes-only` reports, and how a test shows
    /// that routing and filling read declarations, not names.
    pub fn decide(
        &mut self,
        session: &str,
        text: &str,
        model: &mut dyn Model,
    ) -> (Option<Route>, Option<String>) {
        self.shared.syntax = model.call_syntax();
        let mut s = self.sessions.get(session).cloned().unwrap_or_default();
        s.expire(self.shared.clock.now());
        let turn_start = s.history.len();
        s.history.push(Message::user(text));
        let mut route = self.shared.route(&s, text, model);
        let Some(routed) = route.clone() else {
            return (None, None);
        };
        let lang = user_lang(text, self.shared.config.lang);
        if let Some(question) = self.shared.ask(&routed, text, lang) {
            return (route, Some(question));
        }
        match self.shared.fill_question(&s, &routed, text, lang) {
            Some(
                FillQuestion::Ask(reply)
                | FillQuestion::Range(reply)
                | FillQuestion::NotListed(reply),
            ) => {
                return (route, Some(reply));
            }
            Some(FillQuestion::NoCall) => {
                route = Some(Route {
                    target: None,
                    ..routed
                });
            }
            None => {}
        }
        let plan = self.shared.plan(&s, route.as_ref(), turn_start, turn_start);
        (route, plan.forced)
    }

    /// The end of a turn that held its state ([`Session::state_held`]): the new state moves
    /// after the last message, and `model` decodes the next request's head — the state and
    /// the framing that opens the user's next message — ahead.
    pub(super) fn release_held_state(&mut self, session: &str, model: &mut dyn Model) {
        let Some(s) = self.sessions.get_mut(session).filter(|s| s.state_held) else {
            return;
        };
        s.state_held = false;
        let _ = self.shared.layout(s);
        // The next request as far as it is known: the user's message is still to come.
        let mut next = s.clone();
        let turn_start = next.history.len();
        next.history.push(Message::user(""));
        // A hint: a model that cannot take it prefills the state with the next request.
        let _ = self
            .shared
            .decode_ahead_of(session, &mut next, turn_start, model);
    }
}

impl Shared {
    /// Hint `model` with the request a turn of `session` that began at `turn_start` would
    /// make now from `s` (a copy whose last message is the user's words, heard so far or
    /// still to come): fitted and laid out as the turn does, decoded ahead up to the end of
    /// those words ([`Model::decode_ahead`]). Nothing that fits: nothing to hint.
    fn decode_ahead_of(
        &self,
        session: &str,
        s: &mut Session,
        turn_start: usize,
        model: &mut dyn Model,
    ) -> Result<(), ModelError> {
        let mut report = ContextReport::default();
        let Ok(view) = self.fitted_request(s, turn_start, model, &mut report, 0) else {
            // The turn will say it does not fit.
            return Ok(());
        };
        model.decode_ahead(&ModelRequest {
            session,
            system: &view.system,
            messages: &view.messages,
            cancel: &CancelToken::new(),
            forced_reply: None,
            guide: Default::default(),
            time_left: None,
        })
    }

    /// The inactive sets a decided reply `forced` switches on: the sets its `enable_toolset`
    /// calls name that are not active in `s`.
    fn sets_switched_on_by(&self, s: &Session, forced: &str) -> Vec<String> {
        let enable = CoreTool::EnableToolset;
        let mut out: Vec<String> = Vec::new();
        for call in parse_output_as(self.syntax, forced).calls() {
            if call.name != enable.name() {
                continue;
            }
            let set = validate_args(&enable.args(), &call.args)
                .ok()
                .and_then(|args| args.str("name").and_then(|n| self.toolsets.get(n)));
            if let Some(set) = set {
                if !s.active.contains_key(&set.name) && !out.contains(&set.name) {
                    out.push(set.name.clone());
                }
            }
        }
        out
    }

    /// Open `sets` in `s` before a request, the state before them anchored first (as the
    /// turn's first request anchors it).
    fn open_sets(&self, s: &mut Session, sets: &[String]) {
        if sets.is_empty() {
            return;
        }
        let _ = self.layout(s);
        for set in sets {
            s.active.insert(set.clone(), self.deadline());
        }
    }
}
