//! The turn loop — infer, run every call, write back, infer again until the model answers.

use super::dispatch::{Control, Dispatched};
use super::gate::ReplyGate;
use super::session::{session_entry, Asked, Filling, Session};
use super::{
    Agent, AgentError, AgentEvent, ContextReport, GenerationRecord, ReplyKind, TurnOutcome,
    TurnStop,
};
use crate::call_line::{parse_output_as, RepeatGuard, VisibleTextFilter};
use crate::guidance::{
    arithmetic_question, calendar_question, day_question, only_no, routed_head, say_arithmetic,
    say_calendar, say_day, say_units, tells_user_who_they_are, unit_follow_up, unit_question,
    yes_or_no, FillQuestion, Route, Technique,
};
use crate::judge::{judge_reply, user_lang, JudgeContext};
use crate::messages::Texts;
use crate::model::{
    CallSyntax, CancelToken, Generation, Message, Model, ModelError, ModelErrorKind, ModelRequest,
    Role, StopReason,
};
use crate::output::{Segment, ToolCall};
use crate::tools::CoreTool;

impl Agent {
    /// Run one user turn: append the user's text, then call the model until it answers
    /// without a tool call, the iteration limit is reached, the turn's time budget runs out,
    /// `cancel` is set or the model fails. Events stream to `on_event` as they happen.
    ///
    /// Guarantees: the history is only appended to (tool results stay) and every turn
    /// leaves it ending with an assistant message — the answer; the part of a reply the
    /// user got before interrupting it ([`CancelToken::interrupt`]), marked as interrupted;
    /// or the phrase a turn without an answer says ([`TurnOutcome::notice`], also
    /// streamed except on a cancel) — so two user messages never follow each other.
    /// Enable/disable generations are generated again without entering the history: one
    /// that changed the toolsets under the new prompt, one that changed nothing with its
    /// reply shown to the next generation only. Tool errors go back to the model; `cancel`
    /// is checked before every model call and passed into the model, which checks it per
    /// token; so is what is left of [`AgentConfig::turn_budget`](super::AgentConfig)
    /// ([`ModelRequest::time_left`]). After [`AgentConfig::reminder_after`](super::AgentConfig)
    /// model calls the latest tool result of each request carries a reminder (in the request
    /// only). For a model with a bounded context ([`Model::context_window`]) every request
    /// is measured before it is sent and, when it would not fit, compacted (older tool
    /// results shortened, older exchanges left out — in the request only; the history keeps
    /// everything). A turn that cannot fit even so stops with [`TurnStop::ModelError`] and
    /// [`ModelErrorKind::ContextFull`]; the session goes on. The figures are in
    /// [`TurnOutcome::context`].
    ///
    /// A set a call ran directly opened shows in the prompt from the turn's end: the turn's
    /// requests keep the state as anchored, and the new state message goes after the turn's
    /// last message, where the model decodes it ahead ([`Model::decode_ahead`]) while the
    /// user reads or listens.
    pub fn turn(
        &mut self,
        session: &str,
        user_text: &str,
        model: &mut dyn Model,
        cancel: &CancelToken,
        on_event: &mut dyn FnMut(AgentEvent),
    ) -> Result<TurnOutcome, AgentError> {
        // Work the model does for the turn outside a generation (embedding the request to
        // route it) stops with the turn's cancel too.
        model.bind_cancel(Some(cancel));
        let outcome = self.run_turn(session, user_text, model, cancel, on_event);
        model.bind_cancel(None);
        self.release_held_state(session, model);
        outcome
    }

    fn run_turn(
        &mut self,
        session: &str,
        user_text: &str,
        model: &mut dyn Model,
        cancel: &CancelToken,
        on_event: &mut dyn FnMut(AgentEvent),
    ) -> Result<TurnOutcome, AgentError> {
        let Agent { shared, sessions } = self;
        // How this model writes calls: the prompt, the guide and the parser follow it.
        let syntax = model.call_syntax();
        shared.syntax = syntax;
        let mut out_notes = 0;
        // Looked up once: nothing else can reach the sessions while the turn runs.
        let s = session_entry(sessions, session)?;
        // The host's notes for the session (the user's decisions on its proposals): hidden
        // tool messages before the user's words, in the history from now on.
        if let Some(hook) = &shared.hook {
            for (name, list) in hook.value_lists() {
                shared.values.insert(name, list);
            }
            for note in hook.take_notes(session) {
                s.history.push(Message::tool(note.tool, note.text));
                out_notes += 1;
            }
        }
        let turn_start = s.history.len();
        let started = shared.clock.now();
        s.history.push(Message::user(user_text));
        let mut out = TurnOutcome::new();
        out.notes = out_notes;
        let texts = Texts::new(shared.config.lang);
        // What decides what the message asks and in which language: its head (a question
        // computed from the clock or by arithmetic is a short one).
        let head = routed_head(user_text);
        let short = head.len() == user_text.len();
        // The action asked about at the end of the last turn: a yes runs it for the request
        // asked about, a no is acknowledged, anything else is a new request.
        let mut request_at = turn_start;
        let mut confirmed = None;
        // A call that waited for a value: an answer that gives it runs the call, a no
        // drops it, anything else is a new request.
        s.filled = None;
        if let Some(filling) = s.filling.take() {
            if only_no(user_text) {
                let lang = user_lang(head, shared.config.lang);
                let reply = Texts::new(lang).fill_dropped().to_string();
                return Ok(answered(s, out, reply, on_event));
            }
            if shared
                .planner()
                .fills_missing(&filling.route, &filling.request, user_text)
            {
                s.filled = Some(format!("{} {}", filling.request, user_text));
                out.filled = true;
                confirmed = Some(filling.route);
            }
        }
        if let Some(asked) = s.asked.take() {
            match yes_or_no(user_text) {
                Some(true) => {
                    request_at = asked.request_at;
                    confirmed = Some(asked.route);
                }
                Some(false) => {
                    let lang = user_lang(head, shared.config.lang);
                    let reply = Texts::new(lang).ask_declined().to_string();
                    return Ok(answered(s, out, reply, on_event));
                }
                None => {}
            }
        }
        out.confirmed = confirmed.is_some();
        // An arithmetic question: computed, never guessed.
        let arithmetic = short && shared.config.guidance.is_on(Technique::Arithmetic);
        let question = arithmetic
            .then(|| arithmetic_question(user_text))
            .flatten()
            .filter(|_| confirmed.is_none());
        // A question of the day tomorrow or yesterday: from the clock.
        let day = || {
            let on = short && shared.config.guidance.is_on(Technique::DayQuestions);
            let offset = on.then(|| day_question(user_text)).flatten()?;
            Some(say_day(
                user_lang(head, shared.config.lang),
                &shared.clock.now(),
                offset,
            ))
        };
        // How many of one unit of time make another: computed.
        let units = || {
            let on = short && shared.config.guidance.is_on(Technique::UnitQuestions);
            // Or one going on with the user's question before ("And in two weeks?").
            let previous = || {
                s.history[..turn_start]
                    .iter()
                    .rev()
                    .find(|m| m.role == Role::User)
                    .and_then(|m| unit_follow_up(&m.content, user_text))
            };
            let question = on
                .then(|| unit_question(user_text).or_else(previous))
                .flatten()?;
            Some(say_units(user_lang(head, shared.config.lang), &question))
        };
        // A calendar fact (the days of a month, the days until a date): computed.
        let calendar = || {
            let on = short && shared.config.guidance.is_on(Technique::CalendarQuestions);
            let question = on.then(|| calendar_question(user_text)).flatten()?;
            let now = shared.clock.now();
            say_calendar(user_lang(head, shared.config.lang), &now, question)
        };
        let computed = match question {
            Some(question) => Some(say_arithmetic(
                user_lang(head, shared.config.lang),
                &question,
            )),
            None if confirmed.is_none() => day().or_else(calendar).or_else(units),
            None => None,
        };
        if let Some(reply) = computed {
            out.computed = true;
            return Ok(answered(s, out, reply, on_event));
        }
        // Where the first action goes, decided once per turn (guidance permitting); on a
        // yes, where it was going when the assistant asked.
        shared.expire(s, on_event);
        let was_confirmed = confirmed.is_some();
        out.route = match confirmed {
            Some(route) => Some(route),
            None => shared.route(s, user_text, model),
        };
        // A conversational message routed to its intent: answered from the message texts.
        if let Some((intent, reply)) = shared
            .talk_answer(session, s, out.route.as_ref(), user_text)
            .filter(|_| !was_confirmed)
        {
            out.talk = Some(intent);
            return Ok(answered(s, out, reply, on_event));
        }
        // A narrow route to a tool: asked about before it is acted on (not while a protocol
        // runs: its steps are the user's decisions already).
        let running = shared
            .hook
            .as_ref()
            .and_then(|h| h.reminder(session))
            .is_some();
        let lang = user_lang(head, shared.config.lang);
        let question = match &out.route {
            Some(route) if !was_confirmed && !running => {
                shared.ask(route, head, lang).map(|q| (route.clone(), q))
            }
            _ => None,
        };
        if let Some((route, question)) = question {
            out.asked = route.target.clone();
            s.asked = Some(Asked {
                route,
                request_at: turn_start,
            });
            return Ok(answered(s, out, question, on_event));
        }
        // A call whose required value the request does not say is asked for; a value said
        // outside its range is answered with the range: neither is ever executed.
        let served = match &s.filled {
            Some(text) => text.clone(),
            None => s
                .history
                .get(request_at)
                .map_or_else(|| user_text.to_owned(), |m| m.content.clone()),
        };
        let fill = match &out.route {
            Some(route) if !running => shared
                .fill_question(s, route, &served, lang)
                .map(|q| (route.clone(), q)),
            _ => None,
        };
        match fill {
            Some((route, FillQuestion::Ask(question))) => {
                out.asked_for = route.target.clone();
                s.filling = Some(Filling {
                    route,
                    request: served,
                });
                return Ok(answered(s, out, question, on_event));
            }
            Some((route, FillQuestion::Range(reply))) => {
                out.out_of_range = route.target.clone();
                return Ok(answered(s, out, reply, on_event));
            }
            Some((route, FillQuestion::NotListed(reply))) => {
                out.out_of_range = route.target.clone();
                s.filling = Some(Filling {
                    route,
                    request: served,
                });
                return Ok(answered(s, out, reply, on_event));
            }
            Some((route, FillQuestion::NoCall)) => {
                out.route = Some(Route {
                    target: None,
                    ..route
                });
            }
            None => {}
        }
        // A question no tool serves: asked in a question-and-answer transcript.
        let route = out.route.clone().filter(|_| !was_confirmed);
        if let Some(reply) = shared.transcript_answer(
            session,
            s,
            route.as_ref(),
            user_text,
            model,
            cancel,
            &mut out,
            on_event,
        ) {
            return Ok(answered(s, out, reply, on_event));
        }
        // The visible text of the last discarded generation: the host heard it already.
        let mut heard = String::new();
        // A switch that changed nothing: its call and reply, for the next request only.
        let mut transient: Vec<Message> = Vec::new();
        // The reminder to finish a protocol whose steps are all closed: once per turn.
        let mut nudged = false;
        let mut nudging = false;
        let iterations = shared.config.max_iterations.max(1);
        for iteration in 0..iterations {
            if cancel.is_cancelled() {
                interrupted(s, &mut out, texts, cancel, None);
                return Ok(out);
            }
            let time_left = shared.time_left(started);
            if time_left.is_some_and(|t| t.is_zero()) {
                unanswered(s, &mut out, TurnStop::Deadline, texts, on_event, "");
                return Ok(out);
            }
            shared.expire(s, on_event);
            let reminder = shared
                .config
                .reminder_after
                .filter(|n| out.generations.len() >= *n)
                .map(|_| texts.turn_reminder(user_text, &s.active_names()));
            out.reminders += usize::from(reminder.is_some());
            // While the session runs a protocol, every request carries its reminder.
            let run = shared
                .hook
                .as_ref()
                .and_then(|h| h.reminder(session))
                .map(|r| r.text);
            out.run_reminders += usize::from(run.is_some());
            // The reminder to finish asks for a call the route did not plan: unrouted.
            let route = if nudging { None } else { out.route.as_ref() };
            nudging = false;
            let mut plan = shared.plan(s, route, turn_start, request_at);
            let shown_once = std::mem::take(&mut transient);
            if !shown_once.is_empty() && shared.config.guidance.is_on(Technique::NoRepeatSwitch) {
                plan.forbid_switches();
            }
            // Measured against the model's context (the reply prefix too: the engine decodes
            // it with the prompt) and compacted before it is sent.
            let extras = Extras {
                transient: shown_once,
                reminder,
                run,
                reply_prefix: plan.reply_guide().prefix.map(str::to_owned),
            };
            let view = match shared.fitted_with(s, turn_start, model, &mut out.context, &extras) {
                Ok(view) => view,
                Err(refused) => {
                    out.model_error = Some(ModelErrorKind::ContextFull);
                    let stop =
                        TurnStop::ModelError(texts.message_too_long(refused.tokens, refused.limit));
                    unanswered(s, &mut out, stop, texts, on_event, "");
                    return Ok(out);
                }
            };
            let request = ModelRequest {
                session,
                system: &view.system,
                messages: &view.messages,
                cancel,
                forced_reply: plan.forced.as_deref(),
                guide: plan.reply_guide(),
                time_left,
            };
            let streamed_before = out.streamed.chars().count();
            // After a finish reminder the host already has the turn's answer: what follows
            // is set apart from it by a space.
            let lead = if nudged && !out.streamed.is_empty() && !out.streamed.ends_with(' ') {
                " "
            } else {
                ""
            };
            // A plain reply passes the reply gate unless a tool of the user's has replied
            // (the answer is then made of its words): after nothing, or only after a skill
            // read or a toolset switch (whose words are the model's, never the user's).
            // Text beside a call is not gated.
            let gate_on = shared.config.guidance.is_on(Technique::ReplyGate)
                && plan.reply_guide().calls.is_some_and(<[_]>::is_empty)
                && out.tool_replies.iter().all(|r| {
                    CoreTool::from_name(&r.name)
                        .is_some_and(|c| c.is_invisible() || c == CoreTool::ReadSkill)
                })
                && !nudged;
            let mut gate = gate_on.then(|| ReplyGate::new(user_text, shared.config.lang));
            // A plain reply of a turn that called no tool is held until it ends and judged
            // whole (`honest-decline`): a reply the judge rejects is never heard.
            let hold = gate.is_some()
                && out.tool_replies.is_empty()
                && shared.config.guidance.is_on(Technique::HonestDecline);
            let mut held: Vec<AgentEvent> = Vec::new();
            // A decided toolset switch asks nothing of the model: its request would be
            // prefilled only to be thrown away (the switch changes the prompt's state).
            let (streamed, result) = match plan.forced.as_deref() {
                Some(forced) if only_switches_in(syntax, forced) => (
                    String::new(),
                    Ok(Generation {
                        text: forced.to_owned(),
                        stop: StopReason::EndOfTurn,
                        stats: None,
                        confidence: None,
                    }),
                ),
                _ => {
                    let mut collect = |e: AgentEvent| held.push(e);
                    let sink: &mut dyn FnMut(AgentEvent) =
                        if hold { &mut collect } else { &mut *on_event };
                    generate_streaming(model, &request, syntax, &heard, lead, gate.as_mut(), sink)
                }
            };
            // A reply held whole is judged whole (`honest-decline`): given when the judge
            // accepts it as an answer and the model was sure enough of it
            // (`confidence-gate`), else the honest decline is given instead.
            let mut declined: Option<String> = None;
            if hold {
                let plain = matches!(&result, Ok(g) if matches!(
                    g.stop,
                    StopReason::EndOfTurn | StopReason::StopString | StopReason::MaxTokens
                ) && !parse_output_as(syntax, &g.text).has_calls());
                let confidence = match &result {
                    Ok(g) if plain => g.confidence,
                    _ => None,
                };
                out.confidence = confidence;
                let lang = user_lang(head, shared.config.lang);
                let judged_out = plain
                    && (!judge_reply(streamed.trim(), user_text, lang, JudgeContext::default())
                        .is_acceptable()
                        || tells_user_who_they_are(streamed.trim(), user_text));
                let unsure = plain
                    && !judged_out
                    && !streamed.trim().is_empty()
                    && shared.config.guidance.doubts(confidence.as_ref());
                if judged_out || unsure {
                    declined = shared.honest_decline(s, user_text);
                }
                out.unsure = unsure && declined.is_some();
                if declined.is_none() {
                    held.drain(..).for_each(&mut *on_event);
                }
            }
            let refused = gate.as_ref().and_then(ReplyGate::refused);
            out.gated = out.gated.or(refused);
            if let Some(decline) = declined {
                if let Ok(generation) = &result {
                    record_generation(&mut out, on_event, generation, false);
                }
                on_event(AgentEvent::Text(decline.clone()));
                out.streamed.push_str(&decline);
                s.history.push(Message::assistant(decline.clone()));
                out.reply = decline;
                out.declined = true;
                out.stop = TurnStop::Answered;
                return Ok(out);
            }
            out.streamed.push_str(&streamed);
            let generation = match result {
                Ok(g) => g,
                Err(e) => {
                    out.model_error = Some(e.kind());
                    let stop = TurnStop::ModelError(e.to_string());
                    unanswered(s, &mut out, stop, texts, on_event, "");
                    return Ok(out);
                }
            };
            out.context.reply_cut_by_context |= cut_by_context(&out.context, &generation);
            if generation.stop == StopReason::Cancelled {
                record_generation(&mut out, on_event, &generation, true);
                let here = Heard {
                    visible: parse_output_as(syntax, &generation.text).visible(),
                    streamed: &streamed,
                    streamed_before,
                };
                interrupted(s, &mut out, texts, cancel, Some(here));
                return Ok(out);
            }
            if generation.stop == StopReason::Deadline {
                // Whatever it was writing is not acted on: its calls are guesses cut short.
                record_generation(&mut out, on_event, &generation, true);
                unanswered(s, &mut out, TurnStop::Deadline, texts, on_event, &streamed);
                return Ok(out);
            }

            let parsed = parse_output_as(syntax, &generation.text);
            let visible = parsed.visible();
            if !parsed.has_calls() {
                record_generation(&mut out, on_event, &generation, false);
                // A turn that called no tool and has no reply to give declines honestly,
                // naming what the assistant can do (`honest-decline`).
                let decline = if out.tool_replies.is_empty() {
                    shared.honest_decline(s, user_text)
                } else {
                    None
                };
                if let (Some(_), Some(g)) = (refused, gate.as_ref()) {
                    // The gate held back debris: the user gets what passed, else the
                    // honest decline or the no-reply phrase in their language; the history
                    // keeps what they got.
                    let mut given = g.released().trim().to_string();
                    if given.is_empty() {
                        let lang = user_lang(head, shared.config.lang);
                        out.declined = decline.is_some();
                        let phrase = decline
                            .clone()
                            .unwrap_or_else(|| Texts::new(lang).turn_no_reply().to_string());
                        on_event(AgentEvent::Text(phrase.clone()));
                        out.streamed.push_str(&phrase);
                        given = phrase;
                    }
                    s.history.push(Message::assistant(given.clone()));
                    out.reply = given;
                    out.stop = TurnStop::Answered;
                    return Ok(out);
                }
                if visible.trim().is_empty()
                    && out.streamed.trim().is_empty()
                    && shared.config.guidance.is_on(Technique::NoReplyPhrase)
                {
                    // Nothing to say (the model ended at once, or its reply only repeated
                    // the request or the prompt, which the stops cut): the honest decline
                    // or the no-reply phrase, never silence.
                    out.declined = decline.is_some();
                    let phrase = decline.unwrap_or_else(|| texts.turn_no_reply().to_string());
                    on_event(AgentEvent::Text(phrase.clone()));
                    out.streamed.push_str(&phrase);
                    s.history.push(Message::assistant(phrase.clone()));
                    out.reply = phrase;
                    out.stop = TurnStop::Answered;
                    return Ok(out);
                }
                s.history.push(Message::assistant(generation.text));
                out.reply = visible.trim().to_string();
                // A bare reply while the protocol runs with no step open: one more
                // generation, told (in that request only) to finish it.
                let unfinished = (!nudged && iteration + 1 < iterations)
                    .then(|| shared.hook.as_ref().and_then(|h| h.reminder(session)))
                    .flatten()
                    .and_then(|r| r.unfinished);
                if let Some(nudge) = unfinished {
                    nudged = true;
                    nudging = true;
                    out.finish_reminders += 1;
                    heard.clear();
                    transient = vec![Message::user(nudge)];
                    continue;
                }
                out.stop = TurnStop::Answered;
                return Ok(out);
            }

            // Run every call in order, until the turn is stopped (the calls not run are
            // left out; the next iteration ends the turn).
            let mut answers = Vec::new();
            for call in parsed.calls() {
                if cancel.is_cancelled() || shared.time_left(started).is_some_and(|t| t.is_zero()) {
                    break;
                }
                let control = Control {
                    cancel,
                    time_left: shared.time_left(started),
                };
                answers.push(Answer {
                    call,
                    switch: CoreTool::from_name(&call.name).is_some_and(CoreTool::is_invisible),
                    dispatched: shared.dispatch(session, s, call, control, &mut out, on_event),
                });
            }
            if answers.is_empty() {
                // Stopped before its first call ran: the calls are not acted on, what was
                // heard of the generation closes the turn.
                record_generation(&mut out, on_event, &generation, true);
                if cancel.is_cancelled() {
                    let here = Heard {
                        visible: visible.clone(),
                        streamed: &streamed,
                        streamed_before,
                    };
                    interrupted(s, &mut out, texts, cancel, Some(here));
                } else {
                    unanswered(s, &mut out, TurnStop::Deadline, texts, on_event, &streamed);
                }
                return Ok(out);
            }
            let only_switches = answers.iter().all(|a| a.switch);
            // A generation that only switched toolsets is generated again, never entering
            // the history (docs/design.md): under the new prompt when the sets changed;
            // when they did not (a set already active, an unknown one), with its calls and
            // replies shown to the next request only, so the model reads them and does not
            // ask again (the next request also offers no switch).
            record_generation(&mut out, on_event, &generation, only_switches);
            if only_switches {
                let changed = answers.iter().any(|a| {
                    matches!(
                        a.dispatched.reply.kind,
                        ReplyKind::ToolsetChange { changed: true }
                    )
                });
                heard = visible;
                if !changed {
                    transient = transient_messages(syntax, &parsed.segments, &answers);
                }
                out.tool_replies
                    .extend(answers.into_iter().map(|a| a.dispatched.reply));
                continue;
            }
            heard.clear();
            write_back(s, syntax, &parsed.segments, answers, &mut out);
            out.reply = visible.trim().to_string();
        }
        unanswered(s, &mut out, TurnStop::MaxIterations, texts, on_event, "");
        Ok(out)
    }
}

/// The one user message that stands for several that arrived while the assistant was busy
/// (the runtime's policy: messages queued behind a running turn are merged, not answered
/// one by one): their texts in order, one per line, blank ones left out.
pub fn merged_input<S: AsRef<str>>(texts: &[S]) -> String {
    texts
        .iter()
        .map(|t| t.as_ref().trim())
        .filter(|t| !t.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// What a request carries beside the session's view, for this request only.
pub(super) struct Extras {
    /// Messages after the history (the calls and replies of a switch that changed nothing).
    pub(super) transient: Vec<Message>,
    /// Appended to the latest tool result of the turn ([`AgentConfig::reminder_after`]
    /// (super::AgentConfig::reminder_after)).
    pub(super) reminder: Option<String>,
    /// Appended to the request's last message: the reminder of the session's running
    /// protocol ([`super::HostHook::reminder`]).
    pub(super) run: Option<String>,
    /// The start of the reply the request decodes with its prompt (the guide's prefix:
    /// `TOOL_CALL: name|` of a routed call): it takes room in the context like the prompt.
    pub(super) reply_prefix: Option<String>,
}

/// The call lines of a generation of switches and their replies, as messages.
fn transient_messages(
    syntax: CallSyntax,
    segments: &[Segment],
    answers: &[Answer<'_>],
) -> Vec<Message> {
    let kept = vec![true; answers.len()];
    let mut messages = vec![Message::assistant(assistant_text(syntax, segments, &kept))];
    messages.extend(
        answers
            .iter()
            .map(|a| Message::tool(a.call.name.clone(), a.dispatched.reply.text.clone())),
    );
    messages
}

/// What the user got of the generation a cancel stopped.
struct Heard<'a> {
    /// The generation's visible text.
    visible: String,
    /// What of it was streamed (less a preamble heard before, see [`RepeatGuard`]).
    streamed: &'a str,
    /// Characters the turn had streamed before this generation.
    streamed_before: usize,
}

/// End a cancelled turn: the history gets what the user heard of the cancelled
/// generation (all of what was streamed, or as much as the host says was delivered),
/// marked as interrupted — only the marker when nothing of it was heard.
fn interrupted(
    s: &mut Session,
    out: &mut TurnOutcome,
    texts: Texts,
    cancel: &CancelToken,
    here: Option<Heard<'_>>,
) {
    out.stop = TurnStop::Cancelled;
    out.interrupted = true;
    out.notice = Some(texts.turn_cancelled().to_string());
    let delivered = match here {
        Some(h) => {
            let streamed = h.streamed.chars().count();
            let total = h.streamed_before + streamed;
            let got = cancel.delivered().unwrap_or(total).min(total);
            // Characters of this generation the user got: the preamble heard before it
            // (not streamed again), then the part of the stream delivered.
            let before = h.visible.chars().count().saturating_sub(streamed);
            let n = before + got.saturating_sub(h.streamed_before);
            h.visible.chars().take(n).collect::<String>()
        }
        None => String::new(),
    };
    let delivered = delivered.trim_end();
    out.reply = delivered.trim_start().to_string();
    let marker = texts.turn_interrupted();
    s.history.push(Message::assistant(if delivered.is_empty() {
        marker.to_string()
    } else {
        format!("{delivered}\n{marker}")
    }));
}

/// End a turn that has no answer with its phrase: streamed to the host (after
/// `said`, the part of a cut generation the user heard), the turn's reply and notice, and
/// the assistant message closing the turn in the history.
fn unanswered(
    s: &mut Session,
    out: &mut TurnOutcome,
    stop: TurnStop,
    texts: Texts,
    on_event: &mut dyn FnMut(AgentEvent),
    said: &str,
) {
    let phrase = match (&stop, out.model_error) {
        (TurnStop::Deadline, _) => texts.turn_out_of_time(),
        (TurnStop::MaxIterations, _) => texts.turn_too_many_steps(),
        (_, Some(ModelErrorKind::ContextFull)) => texts.turn_too_long(),
        _ => texts.turn_model_failed(),
    };
    let said = said.trim();
    let spoken = if said.is_empty() {
        phrase.to_string()
    } else {
        format!(" {phrase}")
    };
    on_event(AgentEvent::Text(spoken.clone()));
    out.streamed.push_str(&spoken);
    let text = if said.is_empty() {
        phrase.to_string()
    } else {
        format!("{said} {phrase}")
    };
    s.history.push(Message::assistant(text.clone()));
    out.reply = text;
    out.notice = Some(phrase.to_string());
    out.stop = stop;
}

/// Whether `generation` ended for want of context: stopped by [`StopReason::MaxTokens`]
/// with fewer tokens than the model's reply limit (so the limit did not stop it). Needs the
/// model's stats.
fn cut_by_context(report: &ContextReport, generation: &Generation) -> bool {
    match (&report.budget, &generation.stats) {
        (Some(budget), Some(stats)) => {
            generation.stop == StopReason::MaxTokens
                && stats.generated_tokens < budget.window.reply_tokens
        }
        _ => false,
    }
}

/// One model call, its visible text streamed to the host as it comes, less the part the
/// host `heard` already, `lead` before its first visible piece: returns what was streamed
/// and the model's result.
/// Whether `text` is calls of toolset switches only (at least one, no words beside them).
fn only_switches_in(syntax: CallSyntax, text: &str) -> bool {
    let parsed = parse_output_as(syntax, text);
    parsed.visible().trim().is_empty()
        && parsed.has_calls()
        && parsed
            .calls()
            .all(|c| CoreTool::from_name(&c.name).is_some_and(CoreTool::is_invisible))
}

fn generate_streaming(
    model: &mut dyn Model,
    request: &ModelRequest<'_>,
    syntax: CallSyntax,
    heard: &str,
    lead: &str,
    mut gate: Option<&mut ReplyGate<'_>>,
    on_event: &mut dyn FnMut(AgentEvent),
) -> (String, Result<Generation, ModelError>) {
    let mut filter = VisibleTextFilter::for_syntax(syntax);
    let mut guard = RepeatGuard::new(heard);
    // Through the reply gate, when there is one.
    let mut gated = |visible: String| match gate.as_deref_mut() {
        Some(g) => g.push(&visible),
        None => visible,
    };
    let mut streamed = String::new();
    let mut send = |visible: String, streamed: &mut String| {
        if visible.is_empty() {
            return;
        }
        let visible = if streamed.is_empty() && !lead.is_empty() {
            format!("{lead}{visible}")
        } else {
            visible
        };
        streamed.push_str(&visible);
        on_event(AgentEvent::Text(visible));
    };
    let result = model.generate(request, &mut |piece: &str| {
        send(gated(guard.push(&filter.push(piece))), &mut streamed);
    });
    // A finished generation releases what the filter and the gate held back.
    if matches!(&result, Ok(g) if g.stop != StopReason::Cancelled) {
        let rest = gated(guard.push(&filter.finish()));
        send(rest, &mut streamed);
        if let Some(g) = gate.as_deref_mut() {
            send(g.finish(), &mut streamed);
        }
    }
    (streamed, result)
}

/// End a turn answered without the chat loop (computed, from the message texts, or from the
/// transcript): the reply streamed whole, kept in the history, the turn answered.
fn answered(
    s: &mut Session,
    mut out: TurnOutcome,
    reply: String,
    on_event: &mut dyn FnMut(AgentEvent),
) -> TurnOutcome {
    on_event(AgentEvent::Text(reply.clone()));
    out.streamed.push_str(&reply);
    s.history.push(Message::assistant(reply.clone()));
    out.reply = reply;
    out.stop = TurnStop::Answered;
    out
}

/// Note a model call in the outcome and tell the host.
pub(super) fn record_generation(
    out: &mut TurnOutcome,
    on_event: &mut dyn FnMut(AgentEvent),
    generation: &Generation,
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

/// One call of a generation and the dispatcher's answer.
struct Answer<'a> {
    call: &'a ToolCall,
    /// `enable_toolset` / `disable_toolset`: beside other calls, kept out of the history.
    switch: bool,
    dispatched: Dispatched,
}

/// Write a generation with calls into the history — its text up to the last kept call,
/// then the kept calls' replies — and every reply into the outcome. Switches are never
/// kept (the generation has other calls).
fn write_back(
    s: &mut Session,
    syntax: CallSyntax,
    segments: &[Segment],
    answers: Vec<Answer<'_>>,
    out: &mut TurnOutcome,
) {
    let kept: Vec<bool> = answers.iter().map(|a| !a.switch).collect();
    s.history
        .push(Message::assistant(assistant_text(syntax, segments, &kept)));
    for (a, keep) in answers.into_iter().zip(kept) {
        let mut reply = a.dispatched.reply;
        if keep {
            s.history
                .push(Message::tool(a.call.name.clone(), reply.text.clone()));
            reply.in_history = true;
        }
        out.tool_replies.push(reply);
    }
}

/// The assistant message of a generation with calls: its text up to the last kept call,
/// without the lines of the calls not kept. Text after the last call is dropped: the model
/// guessing at results it has not seen. A `TOOL_CALL:` line gets its line break back; a
/// FunctionGemma block is written as it was (its blocks follow each other directly).
fn assistant_text(syntax: CallSyntax, segments: &[Segment], kept: &[bool]) -> String {
    let last_kept = kept.iter().rposition(|k| *k).unwrap_or(0);
    let mut calls = kept.iter().enumerate();
    let mut text = String::new();
    for seg in segments {
        match seg {
            Segment::Text(t) | Segment::Fence(t) => text.push_str(t),
            Segment::Call(c) => {
                let Some((i, keep)) = calls.next() else {
                    break;
                };
                if *keep {
                    text.push_str(&c.line);
                    if syntax == CallSyntax::ToolCallLine {
                        text.push('\n');
                    }
                }
                if i == last_kept {
                    break;
                }
            }
        }
    }
    text.trim_end().to_string()
}
