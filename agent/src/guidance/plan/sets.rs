//! What a request says of the declared sets, for the router's rules (`Planner::route`):
//! the set it stays in, the tool its opening or its values name, a set's reader and lister.

use super::*;

impl Planner<'_> {
    /// The tool of the set the previous turn of `history` called a tool of that `request`
    /// goes on with, when `route` left that set ([`Technique::StayInSet`]): the tool whose
    /// `said:` word it says; else the previous call's tool when it takes a value the request
    /// says (a number in range, an enum's word, a list entry), or another tool of the set
    /// that does; else, when the request goes on ("and …", "… too") or points back, the
    /// previous call's tool. `None` when the request names another set's subject, asks a
    /// question, is small talk that thanks or takes leave, or says none of these.
    pub(super) fn stays_in_set(
        &self,
        route: &Result<Option<Route>, ModelError>,
        active: &[String],
        history: &[Message],
        request: &str,
    ) -> Option<String> {
        let previous = self.previous_call(history)?;
        let set = self.toolsets.owner_set(&previous)?;
        let routed = match route {
            Ok(Some(r)) => r.target.clone(),
            _ => None,
        };
        let inside = routed.as_deref().is_some_and(|t| set.tool(t).is_some());
        // "and fifteen?", «а пятнадцать?»: the previous call again with another number, put
        // as a question.
        let words = lower_words(request);
        let elliptic = words.len() <= 3
            && words
                .first()
                .is_some_and(|w| ["and", "what", "а", "и", "ну"].contains(&w.as_str()))
            && !crate::guidance::numbers::numbers_said(request).is_empty();
        // "make it fourteen" after a channel: a short request that points back at what the
        // previous call acted on and says a value it takes is that call again, wherever in
        // the set it was routed (the volume's "make it 20" is nearest), unless it says
        // another tool's word.
        let points = elliptic
            || points_back_at(request)
            || words
                .iter()
                .any(|w| ["it", "that", "его", "её", "ее", "это"].contains(&w.as_str()));
        // Whether the request names set tool `other` by its own declared words: a `said:`
        // word of it, or a stem of its declaration that the previous call's lacks.
        let said_stems = stems(request);
        let own = set
            .tool(&previous)
            .map(|p| stems(&declared(p).collect::<Vec<_>>().join(" ")))
            .unwrap_or_default();
        let names_tool = |other: &str| {
            let Some(tool) = set.tool(other) else {
                return false;
            };
            let theirs = stems(&declared(tool).collect::<Vec<_>>().join(" "));
            says_action(request, &tool.said)
                || said_stems
                    .iter()
                    .any(|s| theirs.contains(s) && !own.contains(s))
        };
        let again = inside
            && routed.as_deref() != Some(previous.as_str())
            && words.len() <= 5
            && points
            && !routed.as_deref().is_some_and(names_tool)
            && self.takes_said_values(&previous, request);
        if again {
            return Some(previous);
        }
        if inside
            || (is_question(request) && !elliptic)
            || thanks_or_farewell(request)
            || self.names_another_set(request, &set.name).is_some()
            || !active.iter().any(|a| a.eq_ignore_ascii_case(&set.name))
        {
            return None;
        }
        let tools: Vec<&str> = set.tools.iter().map(|t| t.name.as_str()).collect();
        let said: Vec<&str> = set
            .tools
            .iter()
            .filter(|t| says_action(request, &t.said))
            .map(|t| t.name.as_str())
            .collect();
        if let [one] = said.as_slice() {
            return Some((*one).to_owned());
        }
        // A value said: a number, an enum's word or a list entry, not a text alone.
        let takes = |tool: &str| self.takes_said_values(tool, request);
        // Another tool of the set named by its own declared words and taking the value goes
        // before the previous call ("and a bit quieter, volume ten" after a channel).
        let mut named = tools
            .iter()
            .filter(|t| **t != previous && names_tool(t) && takes(t));
        if let (Some(one), None) = (named.next(), named.next()) {
            return Some((*one).to_owned());
        }
        if takes(&previous) {
            return Some(previous);
        }
        let mut takers = tools.iter().filter(|t| takes(t));
        if let (Some(one), None) = (takers.next(), takers.next()) {
            return Some((*one).to_owned());
        }
        (elliptic || continues(request) || points_back_at(request)).then_some(previous)
    }

    /// The tool of `routed`'s set whose declaration alone says the opening word of
    /// `request` (a stem of its description or `ask` questions that no other
    /// tool of the set declares), when it is not `routed` and none of `routed`'s `examples`
    /// has that stem ([`Technique::DeclaredWords`]).
    pub(super) fn declared_opening(
        &self,
        routed: &str,
        examples: &[RouteExample],
        request: &str,
    ) -> Option<String> {
        let set = self.toolsets.owner_set(routed)?;
        let opening = opening_stems(request).into_iter().next()?;
        let declares = |t: &crate::toolset::ToolDecl| {
            let text = declared(t).collect::<Vec<_>>().join(" ");
            stems(&text).contains(&opening)
        };
        let mut declaring = set.tools.iter().filter(|t| declares(t));
        let (Some(tool), None) = (declaring.next(), declaring.next()) else {
            return None;
        };
        let in_routed_examples = examples
            .iter()
            .filter(|e| e.target.as_deref() == Some(routed))
            .any(|e| stems(&e.text).contains(&opening));
        (tool.name != routed && !in_routed_examples).then(|| tool.name.clone())
    }

    /// The set `request` names by its subject's words more than it names `routed` (a tie
    /// keeps `routed`); `None` when that is `routed` or none.
    pub(super) fn names_another_set(&self, request: &str, routed: &str) -> Option<String> {
        let subjects = self.set_subjects();
        let named = best_named(request, subjects.iter().map(|(n, d)| (n, d)))?;
        if named == routed {
            return None;
        }
        let pair: Vec<&(String, String)> = subjects
            .iter()
            .filter(|(n, _)| n == routed)
            .chain(subjects.iter().filter(|(n, _)| *n == named))
            .collect();
        let again = best_named(request, pair.iter().map(|(n, d)| (n, d)))?;
        (again == named).then_some(named)
    }

    /// The set of the tool `route` goes to, if it goes to a set's tool.
    fn routed_set(
        &self,
        route: &Result<Option<Route>, ModelError>,
    ) -> Option<&crate::toolset::Toolset> {
        let Ok(Some(r)) = route else {
            return None;
        };
        r.target.as_deref().and_then(|t| self.toolsets.owner_set(t))
    }

    /// Whether `request` opens as an example of the set `route` goes to does (its first
    /// word's stem is an example's opening stem: «Переведи …», "Add …").
    pub(super) fn opens_as_its_set(
        &self,
        route: &Result<Option<Route>, ModelError>,
        request: &str,
    ) -> bool {
        let Some(set) = self.routed_set(route) else {
            return false;
        };
        let Some(first) = opening_stems(request).into_iter().next() else {
            return false;
        };
        set.tools
            .iter()
            .flat_map(|t| t.examples_in(self.lang))
            .any(|e| opening_stems(e).first() == Some(&first))
    }

    /// Whether `request` says a value of an enum argument of a tool of an `active` set, by
    /// the value's own word or a word said for it ([`super::fill`]),
    /// and either points at what it acts on ("now turn *it* off", "turn *them both* off")
    /// or says values of two of the tool's arguments ("the kitchen light off"): one value
    /// word alone («закрывай») may close the set.
    pub(super) fn says_a_tool_value(&self, active: &[String], request: &str) -> bool {
        let points = points_back_at(request);
        self.toolsets
            .iter()
            .filter(|set| active.iter().any(|a| a.eq_ignore_ascii_case(&set.name)))
            .flat_map(|set| set.tools.iter())
            .any(|t| {
                let said = t
                    .args
                    .iter()
                    .filter(|a| says_enum_value(a, request))
                    .count();
                said >= 2 || (said == 1 && points)
            })
    }

    /// The examples routable now ([`Planner::examples_for`]) of `tools` alone.
    pub(super) fn examples_of(
        &self,
        active: &[String],
        history: &[Message],
        tools: &[String],
    ) -> Vec<RouteExample> {
        let mut examples = self.examples_for(active, Some(history));
        examples.retain(|e| e.target.as_ref().is_some_and(|t| tools.contains(t)));
        examples
    }

    /// The one tool among the targets of `examples` whose action `request` says by a word
    /// of the tool's `said:` (a core tool's: [`core_said`]; [`says_action`]), a set's tool
    /// before a core tool; `None` when no tool's or several tools'.
    pub(super) fn action_said(&self, examples: &[RouteExample], request: &str) -> Option<String> {
        let mut said: Vec<&str> = Vec::new();
        let mut seen: Vec<&str> = Vec::new();
        for name in examples.iter().filter_map(|e| e.target.as_deref()) {
            if seen.contains(&name) {
                continue;
            }
            seen.push(name);
            let decl = self.toolsets.owner_set(name).and_then(|set| set.tool(name));
            let says = match decl {
                Some(t) => says_action(request, &t.said),
                None => says_action(request, core_said(name)),
            };
            if says {
                said.push(name);
            }
        }
        // A set's verb says its action only about the set's own things: "get rid of the
        // first timer" names another set, whose tools the request is for.
        let subjects = self.set_subjects();
        let named = best_named(request, subjects.iter().map(|(n, d)| (n, d)));
        said.retain(|name| match (self.toolsets.owner_set(name), &named) {
            (Some(set), Some(named)) => &set.name == named,
            _ => true,
        });
        // A set's verb is more telling than a core tool's word: "the first note's done, you
        // can scrap it" deletes the note ("scrap") rather than closes the set ("done").
        if said.len() > 1 {
            said.retain(|name| self.toolsets.owner_set(name).is_some());
        }
        match said.as_slice() {
            [one] => Some((*one).to_owned()),
            _ => None,
        }
    }

    /// `request` routed among `tool`'s examples alone: how near it is to that tool (`None`
    /// when the tool has none or the model cannot embed).
    pub(super) fn route_to(
        &self,
        router: &mut Router,
        model: &mut dyn Model,
        request: &str,
        examples: &[RouteExample],
        tool: &str,
    ) -> Option<Route> {
        self.route_among(router, model, request, examples, &[tool.to_owned()])
    }

    /// `request` routed among `tools` alone, by their `examples`; `None` when `tools` is
    /// empty or none of them has an example.
    pub(super) fn route_among(
        &self,
        router: &mut Router,
        model: &mut dyn Model,
        request: &str,
        examples: &[RouteExample],
        tools: &[String],
    ) -> Option<Route> {
        let only: Vec<RouteExample> = examples
            .iter()
            .filter(|e| e.target.as_ref().is_some_and(|t| tools.contains(t)))
            .cloned()
            .collect();
        if only.is_empty() {
            return None;
        }
        router
            .route(model, request, &only, self.guidance)
            .ok()
            .flatten()
    }

    /// The one tool among `examples`' targets whose examples open as a request does, by its
    /// `opening` ([`opening_stems`]: the first word's stem, and the next one's when several
    /// targets share the first) — `None` when none does, several do, or the one is no tool (a plain
    /// reply, an intent). [`Technique::OpeningWords`].
    pub(super) fn opening_tool(
        &self,
        examples: &[RouteExample],
        opening: &[String],
    ) -> Option<String> {
        let openings: Vec<(Option<&str>, Vec<String>)> = examples
            .iter()
            .map(|e| (e.target.as_deref(), opening_stems(&e.text)))
            .collect();
        for k in 1..=opening.len() {
            let mut targets: Vec<Option<&str>> = Vec::new();
            for (target, stems) in &openings {
                if stems.get(..k) == opening.get(..k) && !targets.contains(target) {
                    targets.push(*target);
                }
            }
            match targets.as_slice() {
                [] => return None,
                [Some(t)] if is_tool(t) => return Some((*t).to_owned()),
                [_] => return None,
                _ => {}
            }
        }
        None
    }

    /// The tool a request for the whole of a set's things asks for ([`WHOLE_WORDS`]: "the
    /// whole list", «весь список», «целиком»; [`Technique::DeclaredWords`]): of the set the
    /// route went to (or, routed elsewhere, the set the request names), its one tool without
    /// a required argument whose description or `ask` questions say a whole word too. `None`
    /// when the request says none, or the route is that tool already.
    pub(super) fn whole_tool(
        &self,
        route: &Result<Option<Route>, ModelError>,
        request: &str,
    ) -> Option<String> {
        let words = lower_words(request);
        if !words.iter().any(|w| WHOLE_WORDS.contains(&w.as_str())) || asks_what_is(request) {
            return None;
        }
        let routed = match route {
            Ok(Some(r)) => r.target.as_deref(),
            _ => None,
        };
        let set = match routed.and_then(|t| self.toolsets.owner_set(t)) {
            Some(set) => set,
            None => {
                let subjects = self.set_subjects();
                let named = best_named(request, subjects.iter().map(|(n, d)| (n, d)))?;
                self.toolsets.iter().find(|s| s.name == named)?
            }
        };
        let says_whole = |t: &crate::toolset::ToolDecl| {
            declared(t)
                .flat_map(lower_words)
                .any(|w| WHOLE_WORDS.contains(&w.as_str()))
        };
        let mut whole = set
            .tools
            .iter()
            .filter(|t| !t.args.iter().any(|a| a.required) && says_whole(t));
        match (whole.next(), whole.next()) {
            (Some(one), None) if routed != Some(one.name.as_str()) => Some(one.name.clone()),
            _ => None,
        }
    }

    /// Every declared set's `heard_as:` phrases, in declaration order.
    pub(super) fn heard_as(&self) -> Vec<(&str, &str)> {
        self.toolsets
            .iter()
            .flat_map(|s| s.heard_as.iter())
            .map(|(said, meant)| (said.as_str(), meant.as_str()))
            .collect()
    }

    /// Whether `request` names a set's subject by its words ([`best_named`]) and says a
    /// value one of that set's tools takes (a number in range, an enum's word, a list entry).
    pub(super) fn says_a_set_value(&self, request: &str) -> bool {
        let subjects = self.set_subjects();
        let Some(named) = best_named(request, subjects.iter().map(|(n, d)| (n, d))) else {
            return false;
        };
        self.toolsets
            .iter()
            .filter(|s| s.name == named)
            .flat_map(|s| s.tools.iter())
            .any(|t| self.takes_said_values(&t.name, request))
    }

    /// The reader a question of how things stand asks for ([`Technique::StateQuestions`]):
    /// when `route` goes to a set's tool that takes a required value, that set's reader; when
    /// it goes to a plain reply (or nowhere), the reader of the set `request` names by its
    /// subject's words. `None` when the routed tool is the reader or its own examples ask.
    pub(super) fn reader_asked(
        &self,
        route: &Result<Option<Route>, ModelError>,
        request: &str,
    ) -> Option<String> {
        let target = match route {
            Ok(Some(r)) => r.target.as_deref().filter(|t| !t.is_empty()),
            _ => None,
        };
        let set = match target {
            Some(tool) => {
                let set = self.toolsets.owner_set(tool)?;
                let decl = set.tool(tool)?;
                if !decl.args.iter().any(|a| a.required) || self.asks_mostly(decl) {
                    return None;
                }
                set
            }
            None => {
                // Left to a plain reply, a question is one of state only when it speaks of
                // now ("still", «сейчас»), of the speaker, or of a value the set holds.
                let words = lower_words(request);
                let present = words.iter().any(|w| NOW_WORDS.contains(&w.as_str()));
                if !present && !speaks_of_self(request) && !self.says_a_held_value(request) {
                    return None;
                }
                let subjects = self.set_subjects();
                let named = best_named(request, subjects.iter().map(|(n, d)| (n, d)))?;
                self.toolsets.iter().find(|s| s.name == named)?
            }
        };
        let mut readers = set
            .tools
            .iter()
            .filter(|t| !t.args.iter().any(|a| a.required) && self.asks_mostly(t));
        match (readers.next(), readers.next()) {
            (Some(one), None) if target != Some(one.name.as_str()) => Some(one.name.clone()),
            _ => None,
        }
    }

    /// The reader of the set a request to read out names ([`read_out`]: every word after
    /// the reading verb is a word of that one set's subject, [`set_words`]), when `route`
    /// goes elsewhere: «Зачитай покупки» routed to the list's clearing tool.
    pub(super) fn reader_read_out(
        &self,
        route: &Result<Option<Route>, ModelError>,
        request: &str,
    ) -> Option<String> {
        let rest = stems(&read_out(request)?.join(" "));
        if rest.is_empty() {
            return None;
        }
        let mut naming = self.toolsets.iter().filter(|set| {
            let own = stems(&format!("{} {}", set.name, set_words(set)));
            rest.iter().all(|w| own.iter().any(|o| same_stem(w, o)))
        });
        let (Some(set), None) = (naming.next(), naming.next()) else {
            return None;
        };
        let mut readers = set
            .tools
            .iter()
            .filter(|t| !t.args.iter().any(|a| a.required) && self.asks_mostly(t));
        let (Some(reader), None) = (readers.next(), readers.next()) else {
            return None;
        };
        let routed = match route {
            Ok(Some(r)) => r.target.as_deref(),
            _ => None,
        };
        (routed != Some(reader.name.as_str())).then(|| reader.name.clone())
    }

    /// Whether `request` names the subject of `tool`'s set: a stem of the set's name or of
    /// its description's head ("radio", «радио»), not any word its phrases share.
    pub(super) fn names_subject_of(&self, tool: &str, request: &str) -> bool {
        let said = stems(request);
        self.toolsets.owner_set(tool).is_some_and(|set| {
            let head = set.description.split(['(', ',', ':']).next().unwrap_or("");
            stems(&format!("{} {head}", set.name))
                .iter()
                .any(|st| said.contains(st))
        })
    }

    /// Whether `request` names a value `tool` declares: an enum value by its word or a
    /// `said:` word, or an entry of a host's list one of its arguments draws from.
    pub(super) fn names_a_declared_value(&self, tool: &str, request: &str) -> bool {
        let decls = self.arg_decls(tool);
        if decls.iter().any(|a| says_enum_value(a, request)) {
            return true;
        }
        let Some(fills) = self.fills_of(tool, request) else {
            return false;
        };
        decls
            .iter()
            .zip(&fills)
            .any(|(d, f)| d.values_from.is_some() && matches!(f, Fill::Values(_)))
    }

    /// Whether `request` opens (after lead words) with a `said:` word of a tool of the set
    /// `route` goes to («*Выкинь* мои заметки» with the deletion's «выкинуть»).
    pub(super) fn opens_with_said_word(
        &self,
        route: &Result<Option<Route>, ModelError>,
        request: &str,
    ) -> bool {
        let Some(set) = self.routed_set(route) else {
            return false;
        };
        let Some(first) = opening_stems(&without_lead(request)).into_iter().next() else {
            return false;
        };
        set.tools
            .iter()
            .flat_map(|t| t.said.iter())
            .flat_map(|w| stems(w))
            .any(|s| same_stem(&s, &first))
    }

    /// Whether `request` says a word the tools of the set `route` goes to are asked by: an
    /// opening stem of their examples, or a `said:` word's.
    pub(super) fn says_its_sets_verb(
        &self,
        route: &Result<Option<Route>, ModelError>,
        request: &str,
    ) -> bool {
        let Some(set) = self.routed_set(route) else {
            return false;
        };
        let said = stems(request);
        set.tools.iter().any(|t| {
            t.examples_in(self.lang)
                .filter_map(|e| opening_stems(e).into_iter().next())
                .chain(t.said.iter().flat_map(|w| stems(w)))
                .any(|verb| said.contains(&verb))
        })
    }

    /// Whether `request` says an enum value of a tool of a declared set, by its own word or
    /// a word said for it ("on", «ванной»).
    fn says_a_held_value(&self, request: &str) -> bool {
        self.toolsets
            .iter()
            .flat_map(|s| s.tools.iter())
            .flat_map(|t| t.args.iter())
            .any(|a| says_enum_value(a, request))
    }

    /// Whether most of `tool`'s examples in the session's language (half or more, and one
    /// at least) ask a question ([`asks_what_is`]).
    pub(super) fn asks_mostly(&self, tool: &crate::toolset::ToolDecl) -> bool {
        mostly_ask(tool.examples_in(self.lang))
    }

    /// The tool that lists what `tool` keeps ([`Technique::QuestionLists`]): when `tool`
    /// takes a required text, the one tool of its set that needs no argument; else `None`.
    pub(super) fn lister_for(&self, tool: &str) -> Option<String> {
        let set = self.toolsets.owner_set(tool)?;
        let keeps = set
            .tool(tool)?
            .args
            .iter()
            .any(|a| a.required && a.ty == ArgType::String);
        if !keeps {
            return None;
        }
        let mut listers = set
            .tools
            .iter()
            .filter(|t| t.name != tool && !t.args.iter().any(|a| a.required));
        match (listers.next(), listers.next()) {
            (Some(one), None) => Some(one.name.clone()),
            _ => None,
        }
    }
}

/// What a tool's declaration says of its action for people: its description and its `ask`
/// questions.
pub(super) fn declared(t: &crate::toolset::ToolDecl) -> impl Iterator<Item = &str> {
    std::iter::once(t.description.as_str()).chain(t.ask.iter().map(|(_, q)| q.as_str()))
}

/// Whether `request` points back at what was just acted on: a place in a list ([`pointer`])
/// or a word that points back ("it", "them", «их»: [`POINTS_BACK`]).
pub(super) fn points_back_at(request: &str) -> bool {
    pointer(request).is_some()
        || lower_words(request)
            .iter()
            .any(|w| POINTS_BACK.contains(&w.as_str()))
}

/// Whether `arg` takes free text: a string not drawn from a host's list.
pub(super) fn is_free_text(arg: &ArgDecl) -> bool {
    arg.ty == ArgType::String && arg.values_from.is_none()
}

/// Whether `request` goes on, after its first words, with a clause of what to say: «…, что
/// …», "… that …" followed by two words or more.
pub(super) fn tells_a_clause(request: &str) -> bool {
    let words = lower_words(request);
    words
        .iter()
        .enumerate()
        .any(|(i, w)| i >= 1 && (w == "что" || w == "that") && words.len() >= i + 3)
}

/// The closing clause of `request` when it is one of its own that points back: after the last
/// comma, two or three words, one of them pointing back ([`points_back_at`]: "delete it",
/// «этот убери», "turn it off"), and something said before it. `None` otherwise.
pub(super) fn closing_clause(request: &str) -> Option<String> {
    let (head, tail) = request.rsplit_once(',')?;
    let words = lower_words(tail);
    let short = (2..=3).contains(&words.len());
    // (Said before it: more than a filler — "hmm, make it fourteen" is one request.)
    let said_before = without_lead(request).trim_start().len() > tail.trim().len();
    (short && !lower_words(head).is_empty() && said_before && points_back_at(tail))
        .then(|| tail.trim().to_owned())
}

/// Whether most of `examples` (half or more, and one at least) ask a question
/// ([`asks_what_is`]).
pub(super) fn mostly_ask<'a>(examples: impl Iterator<Item = &'a str>) -> bool {
    let (asking, all) = examples.fold((0, 0), |(a, n), e| {
        (a + usize::from(asks_what_is(e)), n + 1)
    });
    asking > 0 && asking * 2 >= all
}

#[cfg(test)]
mod tests {
    use super::closing_clause;

    #[test]
    fn a_short_closing_clause_that_points_back_is_read_alone() {
        assert_eq!(
            closing_clause("the team meeting on Wednesday got cancelled, delete it").as_deref(),
            Some("delete it")
        );
        assert_eq!(
            closing_clause("макароны уже сварились, этот убери").as_deref(),
            Some("этот убери")
        );
        assert_eq!(
            closing_clause("ok, that's enough, turn it off").as_deref(),
            Some("turn it off")
        );
        // No pointer, a long tail, or nothing before the comma: no closing clause.
        assert_eq!(closing_clause("milk, eggs, bread"), None);
        assert_eq!(
            closing_clause("by the way, delete the note about the plumber please"),
            None
        );
        assert_eq!(closing_clause(", delete it"), None);
        assert_eq!(closing_clause("delete it"), None);
    }
}
