//! Where a request goes: the route of its first action, and the rules that route a
//! request again when its nearest examples mislead (`Planner::route`).

use super::said::asks_rather_than_requests;
use super::sets::{closing_clause, is_free_text, mostly_ask, points_back_at, tells_a_clause};
use super::*;

/// `history` with its last user message (the request being routed) read as `request`.
fn with_last_request(history: &[Message], request: &str) -> Vec<Message> {
    let mut out = history.to_vec();
    if let Some(m) = out.iter_mut().rev().find(|m| m.role == Role::User) {
        m.content = request.to_owned();
    }
    out
}

impl Planner<'_> {
    /// Route the turn's request (`user_text`, the last of `history`) of a session with
    /// `active` sets, when the guidance asks and the model can embed. A model that fails to
    /// embed only loses the route (the model then chooses freely).
    pub(crate) fn route(
        &self,
        router: &mut Router,
        active: &[String],
        history: &[Message],
        user_text: &str,
        model: &mut dyn Model,
    ) -> Option<Route> {
        if !self.on(Technique::Route) {
            return None;
        }
        // Routing reads the head of a long message (the history's copy of the request
        // too): the rest of it is content, never a different request.
        let head = routed_head(user_text);
        let bounded;
        let history = if head.len() < user_text.len() {
            bounded = with_last_request(history, head);
            bounded.as_slice()
        } else {
            history
        };
        let user_text = head;
        let mut examples = self.examples_for(active, Some(history));
        // A message without a word (emoji, punctuation) names no tool and no content: it
        // is a reaction, answered as an acknowledgement; a wordless question ("?") is left
        // to the model. Its embedding is no request's, so nothing else is compared.
        if !has_word(user_text) {
            if !self.on(Technique::TalkIntents) || user_text.contains('?') {
                return None;
            }
            let ack = Intent::Acknowledgement.target();
            examples.retain(|e| e.target.as_deref() == Some(ack.as_str()));
            return router
                .route(model, user_text, &examples, self.guidance)
                .ok()
                .flatten();
        }
        // A no said when nothing was asked ("nevermind", «не надо») dismisses: it is
        // acknowledged, whatever its embedding is near ("never mind" is no note to add).
        if self.on(Technique::TalkIntents) && only_no(user_text) {
            let ack = Intent::Acknowledgement.target();
            let example = examples
                .iter()
                .find(|e| e.target.as_deref() == Some(ack.as_str()))
                .map(|e| e.text.clone())
                .unwrap_or_default();
            return Some(Route {
                target: Some(ack),
                score: 1.0,
                margin: 1.0,
                example,
            });
        }
        if self.on(Technique::RouteWords) {
            examples.retain(|e| {
                e.target
                    .as_deref()
                    .and_then(|t| self.toolsets.owner_set(t))
                    .is_none_or(|set| set.routes(user_text))
            });
        }
        if self.on(Technique::References) {
            self.narrow_to_referring(&mut examples, history, user_text);
            // An id said aloud names an item: the request is for a tool that takes one.
            if said_id(user_text).is_some() {
                let takes_id = |name: &str| {
                    self.arg_decls(name)
                        .iter()
                        .any(|a| a.ty == ArgType::String && is_id_arg(&a.name))
                };
                if examples
                    .iter()
                    .any(|e| e.target.as_deref().is_some_and(takes_id))
                {
                    examples.retain(|e| e.target.as_deref().is_some_and(takes_id));
                }
            }
        }
        // What the router compares: the request without its preamble and politeness, its
        // recognizer slips put right.
        let heard;
        let heard_as;
        let compared = if self.on(Technique::LeadWords) {
            heard_as = self.heard_as();
            heard = heard_right(user_text, &heard_as);
            without_lead(&heard)
        } else {
            user_text
        };
        let mut route = router.route(model, compared, &examples, self.guidance);
        // A message routed to an intent it is no small talk for (a long one, one that sets a
        // text apart: «И ещё запиши: позвонить маме», one without the words the intent
        // needs: «Расскажи подробнее про этот фильм» is no request for a joke) is routed
        // again among the rest: the tools, a plain reply and the intents it may be (a route
        // elsewhere stays as it is).
        let not_small_talk = matches!(&route, Ok(Some(r)) if r
            .target
            .as_deref()
            .and_then(Intent::from_target)
            .is_some_and(|intent| !is_small_talk(intent, user_text)));
        if self.on(Technique::TalkIntents) && not_small_talk {
            // Nor is it a farewell unless it takes leave: a farewell needs no words of its
            // own to be routed to, so "Hello, I hope you are doing well today" would be one.
            examples.retain(|e| {
                e.target
                    .as_deref()
                    .and_then(Intent::from_target)
                    .is_none_or(|intent| {
                        is_small_talk(intent, user_text)
                            && (intent != Intent::Farewell || thanks_or_farewell(user_text))
                    })
            });
            route = router.route(model, compared, &examples, self.guidance);
        }
        // A question of the assistant's own taste ("do you like films") is talked about: no
        // tool answers it, however near a tool's examples came.
        let tool_routed = matches!(&route, Ok(Some(r)) if r
            .target
            .as_deref()
            .is_some_and(|t| Intent::from_target(t).is_none()));
        if self.on(Technique::TalkIntents) && tool_routed && asks_opinion(user_text) {
            examples.retain(|e| {
                e.target
                    .as_deref()
                    .is_none_or(|t| Intent::from_target(t).is_some())
            });
            route = router.route(model, compared, &examples, self.guidance);
        }
        // Nor does a statement of the user's own that asks for nothing ("I love dinosaurs",
        // "I'm so tired today"): the model replies to it (no formula answers a feeling).
        let tool_routed = matches!(&route, Ok(Some(r)) if r.target.as_deref().is_some_and(is_tool));
        // Nor a question of what a word means ("what is a note in music").
        // A statement of the user's own that names a set's subject and says a value one of
        // its tools takes asks that tool ("I'm cold, bump the heating up to twenty-four").
        // Nor a remark that asks for nothing, a feeling about a set's subject or a story of
        // the past ("Calendars make me anxious", «Мама вчера звонила насчёт отпуска»), unless
        // it opens as the routed set's examples do.
        // A story of the past is one whatever names it says («Мама вчера звонила»), unless
        // it says a word the routed set's tools are asked by ("…, add it back").
        // (A closing clause that points back asks: "…, delete it".)
        let remark = || {
            remarks(user_text)
                && closing_clause(user_text).is_none()
                && (!self.says_a_set_value(user_text)
                    || (tells_of_past(user_text) && !self.says_its_sets_verb(&route, user_text)))
                && !self.opens_as_its_set(&route, user_text)
        };
        let plain = (tells_of_self(user_text) && !self.says_a_set_value(user_text))
            || asks_meaning(user_text)
            || (self.on(Technique::Remarks) && tool_routed && remark());
        if self.on(Technique::TalkIntents) && tool_routed && plain {
            examples.retain(|e| e.target.as_deref().is_none_or(str::is_empty));
            route = router.route(model, compared, &examples, self.guidance);
        }
        // Nor does a question of advice, cause, price or of who, routed to a set's tool that
        // does not ask ("how much does milk cost?" is no item to add, «кто поёт «Группу
        // крови»?» no song to play).
        // A tool whose examples ask (a reader) too, while the question speaks of nobody's own
        // ("what's the best day of the week to have a meeting?" reads no calendar).
        // (The clock and the glasses are tools too: their routing examples say whether
        // they mostly ask.)
        // (A question whether the user should do something asks advice of a reader or a
        // core tool too: "Should I take an umbrella today?" reads no clock.)
        let asks_tool = match &route {
            Ok(Some(r)) => r.target.as_deref().and_then(|t| {
                match self.toolsets.owner_set(t).and_then(|set| set.tool(t)) {
                    Some(tool) => Some(self.asks_mostly(tool)),
                    None if ["get_current_time", "show_text"].contains(&t) => Some(mostly_ask(
                        examples
                            .iter()
                            .filter(|e| e.target.as_deref() == Some(t))
                            .map(|e| e.text.as_str()),
                    )),
                    None => None,
                }
            }),
            _ => None,
        };
        // (The clock is nobody's own: "What should I cook tonight?" asks advice of it
        // however much it speaks of the user.)
        let clock =
            matches!(&route, Ok(Some(r)) if r.target.as_deref() == Some("get_current_time"));
        let doer = asks_tool.is_some_and(|asks| !asks || clock || !speaks_of_self(user_text));
        let core = matches!(&route, Ok(Some(r)) if r.target.as_deref().is_some_and(|t| ["get_current_time", "show_text"].contains(&t)));
        let should = (asks_tool == Some(true) || core) && asks_should(user_text);
        // Nor is a question opening with a question word a text to show ("How do you say
        // thank you in Spanish?" came nearest to "Let the screen say").
        let shown = matches!(&route, Ok(Some(r)) if r.target.as_deref() == Some("show_text"))
            && asks_with_question_word(user_text);
        // Nor a question of what anyone needs, routed to any tool whose examples say no need
        // ("how many hours of sleep does an adult need?" is no question of the clock).
        let needless = match &route {
            Ok(Some(r)) => r.target.as_deref().is_some_and(|t| {
                is_tool(t)
                    && !examples
                        .iter()
                        .filter(|e| e.target.as_deref() == Some(t))
                        .any(|e| says_need(&e.text))
            }),
            _ => false,
        };
        let of_need = needless && asks_of_need(user_text);
        if self.on(Technique::AdviceQuestions)
            && (of_need || should || shown || (doer && asks_worth_or_cause(user_text)))
        {
            examples.retain(|e| e.target.as_deref().is_none_or(str::is_empty));
            route = router.route(model, compared, &examples, self.guidance);
        }
        // A question of how a skill's subject works, or one naming a skill: its instructions;
        // and nothing else is (the rest is routed again without them: "start it" is no
        // request to read a skill).
        let read = matches!(&route, Ok(Some(r)) if r.target.as_deref() == Some("read_skill"));
        let how_to = asks_how_to(user_text);
        if self.on(Technique::SkillQuestions) && read && !how_to {
            examples.retain(|e| e.target.as_deref() != Some("read_skill"));
            route = router.route(model, compared, &examples, self.guidance);
        }
        let elsewhere = matches!(&route, Ok(Some(r)) if r.target.as_deref() != Some("read_skill"));
        if self.on(Technique::SkillQuestions) && elsewhere && how_to {
            let subjects = self.skill_subjects();
            let named = best_named(user_text, subjects.iter().map(|(n, d)| (n, d)));
            if named.is_some() {
                examples.retain(|e| e.target.as_deref() == Some("read_skill"));
                if let Ok(Some(r)) = router.route(model, compared, &examples, self.guidance) {
                    route = Ok(Some(r));
                }
            }
        }
        // A question of what is there, routed to a tool that keeps a text, keeps none: it is
        // routed again without that tool (its set's lister, or whatever else it asks).
        if self.on(Technique::QuestionLists) {
            let keeper = match &route {
                Ok(Some(r)) => r.target.clone().filter(|t| self.lister_for(t).is_some()),
                _ => None,
            };
            if let Some(keeper) = keeper.filter(|_| asks_what_is(user_text)) {
                // Nor is any later routing of the turn's ("remind me what I wrote down" is no
                // text to keep once a showing tool it said no word of is set aside); and a
                // question of the user's own that came nearest to a keeper asks about what
                // it keeps: no plain reply, the lister ("what's two plus two" may be one).
                let kept = examples.clone();
                examples.retain(|e| e.target.as_deref() != Some(keeper.as_str()));
                match router.route(model, compared, &examples, self.guidance) {
                    Ok(Some(r)) => route = Ok(Some(r)),
                    _ => examples = kept,
                }
                // A core tool it says no word of ("write" is no "write on the glasses") is
                // none either.
                let toolless = match &route {
                    Ok(Some(r)) => r.target.as_deref().is_none_or(|t| {
                        t.is_empty()
                            || Intent::from_target(t).is_some()
                            || (CoreTool::from_name(t).is_some() && !says_needed(t, user_text))
                    }),
                    _ => true,
                };
                let lister = self.lister_for(&keeper);
                if let Some(lister) = lister.filter(|_| toolless && speaks_of_self(user_text)) {
                    if let Some(r) = self.route_to(router, model, compared, &examples, &lister) {
                        route = Ok(Some(r));
                    }
                }
            }
        }
        // A question of how things stand ("did I leave the bathroom light on?", «какая
        // температура сейчас на отоплении?»), routed to a set's tool that takes a value or to
        // a plain reply while it names a set's subject, is for that set's reader: its one
        // tool that takes no argument and whose examples ask ("which lights are on?").
        if self.on(Technique::StateQuestions) && asks_what_is(user_text) && !asks_advice(user_text)
        {
            if let Some(reader) = self.reader_asked(&route, user_text) {
                if let Some(r) = self.route_to(router, model, compared, &examples, &reader) {
                    route = Ok(Some(r));
                }
            }
        }
        // A request to read out what a set keeps, naming nothing but the set («Зачитай
        // покупки», "read me my timers"), is for that set's reader too.
        if self.on(Technique::StateQuestions) {
            if let Some(reader) = self.reader_read_out(&route, user_text) {
                if let Some(r) = self.route_to(router, model, compared, &examples, &reader) {
                    route = Ok(Some(r));
                }
            }
        }
        // A request that opens as one tool's examples alone open ("make a note …", "note
        // that …"), routed to another tool, is for that tool: its opening verb says the
        // action its content may pull elsewhere. A question asks; a route to no tool stays.
        let to_a_tool = matches!(&route, Ok(Some(r)) if r.target.as_deref().is_some_and(is_tool));
        let asks = is_question(user_text) || asks_what_is(user_text);
        if self.on(Technique::OpeningWords) && to_a_tool && !asks {
            let opening = opening_stems(compared);
            // An opening several sets' tools share ("read me …": the notes' and a shopping
            // list's) still tells the tools of the set the request names apart, when it is
            // routed within that set ("read me the shopping list" → its lister, not its adder).
            let within_named = || {
                if !self.on(Technique::SaidArgs) {
                    return None;
                }
                let subjects = self.set_subjects();
                let named = best_named(user_text, subjects.iter().map(|(n, d)| (n, d)))?;
                let routed = match &route {
                    Ok(Some(r)) => r.target.clone()?,
                    _ => return None,
                };
                if self.toolsets.owner_set(&routed)?.name != named {
                    return None;
                }
                let own: Vec<RouteExample> = examples
                    .iter()
                    .filter(|e| {
                        e.target
                            .as_deref()
                            .and_then(|t| self.toolsets.owner_set(t))
                            .is_some_and(|set| set.name == named)
                    })
                    .cloned()
                    .collect();
                self.opening_tool(&own, &opening)
            };
            if let Some(tool) = self.opening_tool(&examples, &opening).or_else(within_named) {
                let routed = match &route {
                    Ok(Some(r)) => r.target.clone(),
                    _ => None,
                };
                // An opening verb any subject may take ("search", «прочитай») does not
                // carry a request that names the routed tool's set and not its own away
                // from that set: "search my notes for the dentist" lists the notes.
                // The opening verb itself names nothing ("search" is in the media set's
                // words).
                let rest: Vec<String> = stems(user_text)
                    .into_iter()
                    .filter(|s| opening.first() != Some(s))
                    .collect();
                let subjects = self.set_subjects();
                let named = best_named(&rest.join(" "), subjects.iter().map(|(n, d)| (n, d)));
                let set_of = |t: &str| self.toolsets.owner_set(t).map(|s| s.name.clone());
                let held = named.is_some()
                    && routed.as_deref().and_then(set_of) == named
                    && set_of(&tool) != named;
                let there = routed.as_deref() == Some(tool.as_str());
                if !there && !held {
                    if let Some(r) = self.route_to(router, model, compared, &examples, &tool) {
                        route = Ok(Some(r));
                    }
                }
            }
        }
        if self.on(Technique::SaidAction) {
            // A core tool whose request always says so (closing a set, showing a text) is no
            // route for a request that does not ([`says_needed`]).
            let unsaid = match &route {
                Ok(Some(r)) => r.target.clone().filter(|t| !says_needed(t, user_text)),
                _ => None,
            };
            if let Some(tool) = unsaid {
                examples.retain(|e| e.target.as_deref() != Some(tool.as_str()));
                route = router.route(model, compared, &examples, self.guidance);
            }
            // Nor is closing a set a request that says a value an active set's tool takes
            // ("now turn it off" with the lights' `off`): it is for that tool.
            let closes = matches!(&route, Ok(Some(r))
                if r.target.as_deref() == Some(CoreTool::DisableToolset.name()));
            let names_a_set = || {
                let subjects = self.set_subjects();
                best_named(user_text, subjects.iter().map(|(n, d)| (n, d))).is_some()
            };
            if self.on(Technique::SetsOverScope)
                && closes
                && self.says_a_tool_value(active, user_text)
                && !names_a_set()
            {
                let close = CoreTool::DisableToolset.name();
                examples.retain(|e| e.target.as_deref() != Some(close));
                route = router.route(model, compared, &examples, self.guidance);
            }
            // A text to show names where it goes when the request names a set's subject: "can
            // you show me some films with penguins" asks for films, "show me my notes" for the
            // notes; "show 'films' on my glasses" shows a text.
            let show = CoreTool::ShowText.name();
            let shows = matches!(&route, Ok(Some(r)) if r.target.as_deref() == Some(show));
            let says_where =
                says_action(user_text, core_said(show)) || says_action(user_text, SHOWN_HOW);
            if shows && !says_where {
                let subjects = self.set_subjects();
                if best_named(user_text, subjects.iter().map(|(n, d)| (n, d))).is_some() {
                    examples.retain(|e| e.target.as_deref() != Some(show));
                    route = router.route(model, compared, &examples, self.guidance);
                }
            }
            // A request that says one tool's action by a word its set gives for it is for that
            // tool, however near another route came — unless a set's verb stands in a request
            // that opens as another tool's examples alone open: then the word is the content,
            // not the action ("write down take out the trash", "make a note to put the bin
            // out" deleted a note). A core tool's word says where ("… on the glasses") and
            // holds whatever the opening.
            if let Some(tool) = self.action_said(&examples, user_text) {
                let settled = matches!(&route, Ok(Some(r)) if r.target.as_deref()
                    == Some(tool.as_str()) && r.margin >= self.guidance.ask_margin);
                let opens_other = self.on(Technique::OpeningWords)
                    && self.toolsets.owner_set(&tool).is_some()
                    && self
                        .opening_tool(&examples, &opening_stems(compared))
                        .is_some_and(|opened| opened != tool);
                if !settled && !opens_other {
                    examples.retain(|e| e.target.as_deref() == Some(tool.as_str()));
                    if let Ok(Some(r)) = router.route(model, compared, &examples, self.guidance) {
                        route = Ok(Some(r));
                    }
                }
            }
        }
        // A place in a list only the list tells ("bin the last one"), asked of a set's tool
        // that takes an item while no list of that set is known: the set's list is read
        // first, not a guessed item acted on.
        if self.on(Technique::References) {
            let target = match &route {
                Ok(Some(r)) => r.target.clone(),
                _ => None,
            };
            if let Some(lister) = target.and_then(|t| self.list_first(&t, history, user_text)) {
                let all = self.examples_for(active, Some(history));
                if let Some(r) = self.route_to(router, model, compared, &all, &lister) {
                    route = Ok(Some(r));
                }
            }
        }
        // A question whether there is any of something ("got anything with dinosaurs in
        // it"), routed to no tool, asks for what a tool finds or lists: it is routed again
        // among the tools alone.
        let asks_any = asks_for_any(user_text) || asks_if_available(user_text);
        if self.on(Technique::QuestionLists) && asks_any {
            let small_talk = [
                Intent::OutOfScope,
                Intent::Acknowledgement,
                Intent::Joke,
                Intent::Greeting,
            ];
            if to_no_tool(&route, &small_talk) {
                let tools: Vec<RouteExample> = examples
                    .iter()
                    .filter(|e| {
                        e.target.as_deref().is_some_and(|t| {
                            is_tool(t)
                                && (CoreTool::from_name(t).is_none() || says_needed(t, user_text))
                        })
                    })
                    .cloned()
                    .collect();
                if let Ok(Some(r)) = router.route(model, compared, &tools, self.guidance) {
                    route = Ok(Some(r));
                }
            }
        }
        // A request going on with the previous turn's ("and also buy cat food"), routed to
        // no tool, is for the tool that turn called; with no call before it, for the one
        // set active ("oh and also the car wash tokens" in a session with the notes on).
        // So is one that points back at what that call acted on and says another value of
        // its tool ("turn them both on", «а теперь выключи их»).
        let points_back = || {
            let tool = self.previous_call(history)?;
            let decl = self.toolsets.owner_set(&tool)?.tool(&tool)?;
            (points_back_at(user_text) && decl.args.iter().any(|a| says_enum_value(a, user_text)))
                .then_some(())
        };
        let goes_on =
            continues(user_text) || (self.on(Technique::SaidArgs) && points_back().is_some());
        if self.on(Technique::Continuation) && goes_on && !is_question(user_text) {
            let toolless = to_no_tool(&route, &[Intent::OutOfScope, Intent::Acknowledgement]);
            let goes_on = match self.previous_call(history) {
                Some(tool) => Some(vec![tool]),
                None => self.one_active_set(active),
            };
            if let Some(tools) = goes_on.filter(|_| toolless) {
                let again = self.examples_of(active, history, &tools);
                if let Ok(Some(r)) = router.route(model, compared, &again, self.guidance) {
                    route = Ok(Some(r));
                }
            }
        }
        // A place pointed at ("what's in there now") is the one set active: a route outside
        // it is routed again among that set's tools.
        if self.on(Technique::References) && points_there(user_text) {
            let outside = |tools: &Vec<String>| match &route {
                Ok(Some(r)) => r.target.as_ref().is_none_or(|t| !tools.contains(t)),
                _ => true,
            };
            if let Some(tools) = self.one_active_set(active).filter(outside) {
                let again = self.examples_of(active, history, &tools);
                if let Ok(Some(r)) = router.route(model, compared, &again, self.guidance) {
                    // A question of what is there is for the set's lister, not its keeper.
                    let lister = r
                        .target
                        .as_deref()
                        .and_then(|t| self.lister_for(t))
                        .filter(|_| asks_what_is(user_text));
                    route = Ok(Some(r));
                    if let Some(lister) = lister {
                        if let Some(r) = self.route_to(router, model, compared, &again, &lister) {
                            route = Ok(Some(r));
                        }
                    }
                }
            }
        }
        // A request routed to a set's tool that names another set's subject, more than the
        // routed one's ("put six eggs on the shopping list" routed to the notes), is for the
        // named set's tools.
        if self.on(Technique::SetsOverScope) {
            let routed_set = match &route {
                Ok(Some(r)) => r
                    .target
                    .as_deref()
                    .and_then(|t| self.toolsets.owner_set(t))
                    .map(|s| s.name.clone()),
                _ => None,
            };
            if let Some(named) = routed_set.and_then(|set| self.names_another_set(user_text, &set))
            {
                let again: Vec<RouteExample> = examples
                    .iter()
                    .filter(|e| {
                        e.target
                            .as_deref()
                            .and_then(|t| self.toolsets.owner_set(t))
                            .is_some_and(|s| s.name == named)
                    })
                    .cloned()
                    .collect();
                if let Ok(Some(r)) = router.route(model, compared, &again, self.guidance) {
                    route = Ok(Some(r));
                }
            }
        }
        // A request that goes on in the set the previous turn acted in, routed outside it, is
        // for that set's tools ("make it 20" after the volume, "skip this one" after a song).
        if self.on(Technique::StayInSet) {
            if let Some(tool) = self.stays_in_set(&route, active, history, user_text) {
                let again = self.examples_of(active, history, std::slice::from_ref(&tool));
                if let Ok(Some(r)) = router.route(model, compared, &again, self.guidance) {
                    route = Ok(Some(r));
                }
            }
        }
        // A set's tool lacking a value the request does not give, while another tool of its
        // set takes the values it says ("set a timer for two hours" routed to cancelling one), is the
        // wrong tool: the request is routed again among the tools that take them.
        if self.on(Technique::SaidArgs) {
            let lacking = match &route {
                Ok(Some(r)) => r.target.clone().filter(|t| self.lacks_values(t, user_text)),
                _ => None,
            };
            if let Some(lacking) = lacking {
                // Each other tool of the lacking one's set, once.
                let mut takers: Vec<String> = Vec::new();
                let set_of = |t: &str| self.toolsets.owner_set(t).map(|s| s.name.clone());
                for t in examples.iter().filter_map(|e| e.target.as_deref()) {
                    if t != lacking
                        && set_of(t) == set_of(&lacking)
                        && !takers.iter().any(|k| k == t)
                    {
                        takers.push(t.to_owned());
                    }
                }
                takers.retain(|t| self.takes_said_values(t, user_text));
                // Else a tool of another set that takes them, one a word it declares for a
                // value or an entry of its host's list names ("Add a yoga session, forty-five
                // minutes" near the calendar's adder: the workout log's `yoga`; "Give Sarah
                // Connor a ring" near a timer), while the request names no subject of the
                // lacking tool's set. Not a question, nor a request pointing at an item ("…,
                // delete it": the lacking tool's).
                // (A number said is one it takes too: «Переведи сто евро» is no station.)
                let numbers = crate::guidance::numbers::numbers_said(user_text)
                    .iter()
                    .any(|n| !n.ordinal);
                let takes_numbers = |t: &str| {
                    !numbers
                        || self
                            .arg_decls(t)
                            .iter()
                            .any(|a| matches!(a.ty, ArgType::Integer | ArgType::Number))
                };
                if takers.is_empty()
                    && !asks_rather_than_requests(user_text)
                    && !points_back_at(user_text)
                    && !self.names_subject_of(&lacking, user_text)
                {
                    for t in examples.iter().filter_map(|e| e.target.as_deref()) {
                        let other = set_of(t).is_some() && set_of(t) != set_of(&lacking);
                        if other
                            && takes_numbers(t)
                            && !takers.iter().any(|k| k == t)
                            && self.names_a_declared_value(t, user_text)
                            && self.takes_said_values(t, user_text)
                        {
                            takers.push(t.to_owned());
                        }
                    }
                }
                if let Some(r) = self.route_among(router, model, compared, &examples, &takers) {
                    route = Ok(Some(r));
                }
            }
        }
        // A set's tool that takes no value at all, routed while the request says values
        // another tool takes ("turn the radio all the way up", «радио на полную» routed to
        // switching it off; "turn off the bedroom light" to the radio's off), is the wrong
        // tool: the request is routed again among the tools that take them — a tool of
        // another set only by a word it declares for a value, and only while the request
        // names no subject of the routed tool's set. A question asks; it stays.
        if self.on(Technique::SaidArgs) && !is_question(user_text) && !asks_what_is(user_text) {
            let idle = match &route {
                Ok(Some(r)) => r
                    .target
                    .clone()
                    .filter(|t| self.takes_no_value(t, user_text)),
                _ => None,
            };
            if let Some(idle) = idle {
                let set_of = |t: &str| self.toolsets.owner_set(t).map(|s| s.name.clone());
                let own_set = set_of(&idle);
                // Its subject: the set's name and the head of its description ("radio",
                // «радио»), not every word its phrases share with a request ("turn off").
                let names_own = self.names_subject_of(&idle, user_text);
                // A place said ("the fourth item") or a pointer ("this one", "the last
                // one", "the ferns one": English "one" is a pronoun too) is an item's, never
                // a sibling's quantity.
                let places = points_back_at(user_text)
                    || lower_words(user_text).iter().any(|w| w == "one")
                    || crate::guidance::numbers::numbers_said(user_text)
                        .iter()
                        .any(|n| n.ordinal);
                let mut takers: Vec<String> = Vec::new();
                for t in examples.iter().filter_map(|e| e.target.as_deref()) {
                    if t == idle || set_of(t).is_none() || takers.iter().any(|k| k == t) {
                        continue;
                    }
                    let same = set_of(t) == own_set;
                    let declared = || {
                        self.arg_decls(t)
                            .iter()
                            .any(|a| says_enum_value(a, user_text))
                    };
                    // A place said is an item's of an active set's list, while the routed
                    // tool's set is not active ("Scratch the fourth item off" with the
                    // shopping list open, not the radio's off).
                    let placed = || {
                        let active_set = |s: Option<String>| {
                            s.is_some_and(|s| active.iter().any(|a| a.eq_ignore_ascii_case(&s)))
                        };
                        places
                            && !names_own
                            && active_set(set_of(t))
                            && !active_set(own_set.clone())
                            && self
                                .arg_decls(t)
                                .iter()
                                .any(|a| a.required && a.ty == ArgType::Integer && a.unit.is_none())
                    };
                    if ((same && !places) || (!names_own && declared()) || placed())
                        && self.takes_said_values(t, user_text)
                    {
                        takers.push(t.to_owned());
                    }
                }
                if let Some(r) = self.route_among(router, model, compared, &examples, &takers) {
                    route = Ok(Some(r));
                }
            }
        }
        // A request that quotes a title («Поставь «Богемскую рапсодию» Queen»), routed to a
        // set's tool that takes no free text and lacks a value the quote does not give (an
        // alarm's time), is for a tool that takes a text: routed again among those that
        // lack no value.
        if self.on(Technique::SaidArgs) && quotes(user_text) {
            let textless = match &route {
                Ok(Some(r)) => r.target.clone().filter(|t| {
                    self.toolsets.owner_set(t).is_some()
                        && !self.arg_decls(t).iter().any(is_free_text)
                        && self.lacks_values(t, user_text)
                }),
                _ => None,
            };
            if textless.is_some() {
                let all = self.examples_for(active, Some(history));
                let mut writers: Vec<String> = Vec::new();
                for t in all.iter().filter_map(|e| e.target.as_deref()) {
                    let writes = self.toolsets.owner_set(t).is_some()
                        && self
                            .arg_decls(t)
                            .iter()
                            .any(|a| a.required && is_free_text(a))
                        && !self.lacks_values(t, user_text);
                    if writes && !writers.iter().any(|k| k == t) {
                        writers.push(t.to_owned());
                    }
                }
                // The one whose examples open as the request does («Поставь …»), else the
                // nearest.
                let theirs: Vec<RouteExample> = all
                    .iter()
                    .filter(|e| {
                        e.target
                            .as_deref()
                            .is_some_and(|t| writers.iter().any(|w| w == t))
                    })
                    .cloned()
                    .collect();
                let opening = opening_stems(compared);
                let r = match self.opening_tool(&theirs, &opening) {
                    Some(tool) => self.route_to(router, model, compared, &all, &tool),
                    None => self.route_among(router, model, compared, &all, &writers),
                };
                if let Some(r) = r {
                    route = Ok(Some(r));
                }
            }
        }
        // A request that says what to tell after the values ("Передай Борису, *что напитки с
        // меня*", "tell Bob *that* dinner is at eight"), routed to a tool of its set that
        // takes no text, is for the one tool of the set that takes those values and a text.
        if self.on(Technique::SaidArgs) && tells_a_clause(user_text) {
            let textless = match &route {
                Ok(Some(r)) => r.target.clone().filter(|t| {
                    self.toolsets.owner_set(t).is_some()
                        && !self.arg_decls(t).iter().any(is_free_text)
                }),
                _ => None,
            };
            if let Some(routed) = textless {
                let set = self.toolsets.owner_set(&routed);
                let writers: Vec<String> = set
                    .iter()
                    .flat_map(|s| s.tools.iter())
                    .filter(|t| t.name != routed)
                    .filter(|t| t.args.iter().any(|a| a.required && is_free_text(a)))
                    .filter(|t| self.takes_said_values(&t.name, user_text))
                    .map(|t| t.name.clone())
                    .collect();
                if let [one] = writers.as_slice() {
                    let all = self.examples_for(active, Some(history));
                    if let Some(r) = self.route_to(router, model, compared, &all, one) {
                        route = Ok(Some(r));
                    }
                }
            }
        }
        // A request left to a plain reply that gives one set tool every value it needs, a
        // word it declares for a value among them («Сколько будет семьдесят пять долларов в
        // евро?» near an arithmetic question), is that tool's. Not a question of advice.
        let plain_route =
            matches!(&route, Ok(Some(r)) if r.target.as_deref().is_none_or(str::is_empty));
        let remark = self.on(Technique::Remarks) && remarks(user_text);
        if self.on(Technique::SaidArgs) && plain_route && !asks_worth_or_cause(user_text) && !remark
        {
            // (Among every example: the rules above may have set the sets' aside.)
            let all = self.examples_for(active, Some(history));
            let mut takers: Vec<String> = Vec::new();
            for t in all.iter().filter_map(|e| e.target.as_deref()) {
                if self.toolsets.owner_set(t).is_none() || takers.iter().any(|k| k == t) {
                    continue;
                }
                let declared = self
                    .arg_decls(t)
                    .iter()
                    .any(|a| says_enum_value(a, user_text));
                if declared && self.takes_said_values(t, user_text) {
                    takers.push(t.to_owned());
                }
            }
            // The one that takes the most values said (the converter's amount and two
            // currencies, not a station named by one word).
            let taken = |t: &String| {
                self.fills_of(t, user_text).map_or(0, |f| {
                    f.iter().filter(|f| matches!(f, Fill::Values(_))).count()
                })
            };
            let most = takers.iter().map(taken).max().unwrap_or(0);
            takers.retain(|t| taken(t) == most);
            if let [one] = takers.as_slice() {
                if let Some(r) = self.route_to(router, model, compared, &all, one) {
                    route = Ok(Some(r));
                }
            }
        }
        // A request that closes with a short clause of its own pointing back ("the team
        // meeting got cancelled, *delete it*", «макароны сварились, *этот убери*», "ok, that's
        // enough, *turn it off*") asks what that clause asks: it is routed again, alone, among
        // the tools of the set the request went to.
        if self.on(Technique::SaidAction) && !is_question(user_text) {
            let routed = match &route {
                Ok(Some(r)) => r.target.clone(),
                _ => None,
            };
            let set = routed.as_deref().and_then(|t| self.toolsets.owner_set(t));
            // (Not when what comes before it asks for an action itself: «Выкинь мои заметки,
            // покажи их».)
            let tail = closing_clause(user_text).filter(|tail| {
                let head = user_text.strip_suffix(tail.as_str()).unwrap_or(user_text);
                !self.opens_as_its_set(&route, head) && !self.opens_with_said_word(&route, head)
            });
            if let (Some(set), Some(tail)) = (set, tail) {
                let tools: Vec<String> = set.tools.iter().map(|t| t.name.clone()).collect();
                let all = self.examples_for(active, Some(history));
                if let Some(r) = self.route_among(router, model, &tail, &all, &tools) {
                    if r.target != routed {
                        route = Ok(Some(r));
                    }
                }
            }
        }
        // Within the routed set, an opening verb only one tool's declaration says, and none
        // of the routed tool's examples, is that tool's («Поставь таймер»: the start's
        // description, not the cancel's examples).
        // (Not a request about an item of the latest list: what it points at decides.)
        if self.on(Technique::DeclaredWords) {
            let about_item = || {
                pointer(user_text).is_some()
                    || referents(history, "").named(&stems(user_text)).is_some()
            };
            let declared = match &route {
                Ok(Some(r)) => r
                    .target
                    .as_deref()
                    .and_then(|t| self.declared_opening(t, &examples, compared))
                    .filter(|_| !about_item()),
                _ => None,
            };
            if let Some(tool) = declared {
                if let Some(r) = self.route_to(router, model, compared, &examples, &tool) {
                    route = Ok(Some(r));
                }
            }
            // A request for the whole of what a set keeps ("wipe the whole list", «сотри
            // весь список») is for the one tool of the set that takes no value and whose
            // declaration says the whole: not one item's removal, nor an addition.
            // (Among every example: the rules above may have set the tool's aside.)
            if let Some(tool) = self.whole_tool(&route, user_text) {
                let all = self.examples_for(active, Some(history));
                if let Some(r) = self.route_to(router, model, compared, &all, &tool) {
                    route = Ok(Some(r));
                }
            }
        }
        // None of these: a conversational intent that wins only narrowly (over the best
        // tool, plain reply or other intent) takes nothing; the request goes on as a
        // question or a statement ("It's my birthday!" came nearest to a farewell).
        if self.on(Technique::TalkIntents) && self.on(Technique::IntentMargin) {
            if let Ok(Some(r)) = &mut route {
                let intent = r.target.as_deref().and_then(Intent::from_target);
                // (A formula the message says in its words — thanks, a leave-taking — wins
                // however narrowly: «Понятно, спасибо» between an acknowledgement and thanks
                // is one of them, never none.)
                let formula = matches!(
                    intent,
                    Some(Intent::Acknowledgement | Intent::Thanks | Intent::Farewell)
                ) && thanks_or_farewell(user_text)
                    && !is_question(user_text);
                if intent.is_some() && !formula && r.margin < self.guidance.intent_margin {
                    r.target = None;
                }
            }
        }
        // More of a story told after a feeling or good news is that mood again
        // ([`told_sequel`]); else what is a conversational intent by its form (a choice
        // offered, a trouble or good news told of oneself, a rude word) is that intent's,
        // routed to a plain reply or a formula it is not ([`told_over`]).
        if self.on(Technique::TalkIntents) {
            let previous = history
                .iter()
                .rev()
                .find(|m| m.role == Role::Assistant)
                .map(|m| m.content.as_str());
            if let Ok(Some(r)) = &mut route {
                // An intent the message lacks the words for, reached by a later stage, is no
                // answer: a plain reply, as its turn would give.
                let lacking = r
                    .target
                    .as_deref()
                    .and_then(Intent::from_target)
                    .is_some_and(|intent| !is_small_talk(intent, user_text));
                if lacking {
                    r.target = None;
                }
                let target = r.target.as_deref();
                let told = told_sequel(previous, target, user_text)
                    .or_else(|| told_over(target, user_text));
                if let Some(intent) = told {
                    r.target = Some(intent.target());
                }
            }
        }
        match route {
            Ok(Some(r)) if r.score >= self.guidance.min_route_score => Some(r),
            Ok(_) | Err(_) => None,
        }
    }
}
