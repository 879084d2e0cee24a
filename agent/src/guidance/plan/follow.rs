//! Following the conversation while routing: what a request points at in the latest
//! list, the call it goes on with, and the set it acts in.

use super::*;

impl Planner<'_> {
    /// The tool the previous turn of `history` (which ends with the request being routed)
    /// called last, when it is one a request may go on with: a set's tool or a core tool
    /// that acts (no switch, no skill read). `None` when that turn called none.
    pub(super) fn previous_call(&self, history: &[Message]) -> Option<String> {
        let mut users = history
            .iter()
            .enumerate()
            .rev()
            .filter(|(_, m)| m.role == Role::User)
            .map(|(i, _)| i);
        let now = users.next()?;
        let before = users.next()?;
        let turn = history.get(before + 1..now)?;
        turn.iter()
            .rev()
            .filter(|m| m.role == Role::Assistant)
            .flat_map(|m| {
                parse_output_as(self.syntax, &m.content)
                    .segments
                    .into_iter()
                    .rev()
            })
            .filter_map(|seg| match seg {
                Segment::Call(call) => Some(call.name),
                _ => None,
            })
            .find(|name| match CoreTool::from_name(name) {
                Some(core) => !core.is_invisible() && core != CoreTool::ReadSkill,
                None => self.toolsets.owner_set(name).is_some(),
            })
    }

    /// The tools of the one advertised set among `active`; `None` when no set or several
    /// are active.
    pub(super) fn one_active_set(&self, active: &[String]) -> Option<Vec<String>> {
        let mut sets = self
            .toolsets
            .iter()
            .filter(|s| active.iter().any(|a| a.eq_ignore_ascii_case(&s.name)));
        match (sets.next(), sets.next()) {
            (Some(one), None) => Some(one.tools.iter().map(|t| t.name.clone()).collect()),
            _ => None,
        }
    }

    /// The tool to call before `target` when `request` points at a place in a list only
    /// the list tells (the last item, the oldest, the newest: [`Pointer`]) and `target` takes
    /// an item (a required number or id) while `history` holds no list of its set: the one
    /// tool of that set that needs no argument. `None` otherwise (a number said is a place
    /// without a list: "delete note two").
    pub(super) fn list_first(
        &self,
        target: &str,
        history: &[Message],
        request: &str,
    ) -> Option<String> {
        let place = matches!(
            pointer(request),
            Some(Pointer::Last | Pointer::Oldest | Pointer::Newest)
        );
        if !place {
            return None;
        }
        let set = self.toolsets.owner_set(target)?;
        let takes_item = set.tool(target)?.args.iter().any(|a| {
            a.required
                && (a.ty == ArgType::Integer || (a.ty == ArgType::String && is_id_arg(&a.name)))
        });
        let known = referents(history, "")
            .list_tool
            .is_some_and(|t| set.tool(&t).is_some());
        if !takes_item || known {
            return None;
        }
        let mut listers = set
            .tools
            .iter()
            .filter(|t| !t.args.iter().any(|a| a.required));
        match (listers.next(), listers.next()) {
            (Some(one), None) => Some(one.name.clone()),
            _ => None,
        }
    }

    /// The tools of the set of `list_tool` (other than it) with a value `request` says by a
    /// word the set gives for it (`said:`), or, with `own_words`, by its own word ("play it":
    /// `play`), by stem.
    pub(super) fn tools_said_in(
        &self,
        list_tool: &str,
        request: &str,
        own_words: bool,
    ) -> Vec<String> {
        let Some(set) = self.toolsets.owner_set(list_tool) else {
            return Vec::new();
        };
        let request_stems = stems(request);
        set.tools
            .iter()
            .filter(|t| t.name != list_tool)
            .filter(|t| {
                t.args.iter().any(|a| {
                    says_a_value(a, None, &request_stems)
                        || (own_words
                            && matches!(&a.ty, ArgType::Enum(values) if values
                                .iter()
                                .any(|v| names_value(v, &request_stems))))
                })
            })
            .map(|t| t.name.clone())
            .collect()
    }

    /// Narrow the routing `examples` of a request that points at an item of a list
    /// ([`Technique::References`]): it acts on the item, so it is no new call of the tool
    /// that listed it («включи первый» after a search is no new search); while the list is
    /// recent (the user spoke at most [`RECENT_TURNS`] times since) it is no toolset switch
    /// and no small talk (unless it thanks or says goodbye), and an ordinal («второй», "the last one")
    /// goes to a tool of the list's set that takes an item (an id or a number), whichever is
    /// nearest.
    pub(super) fn narrow_to_referring(
        &self,
        examples: &mut Vec<RouteExample>,
        history: &[Message],
        request: &str,
    ) {
        let refs = referents(history, "");
        let Some(tool) = refs.list_tool.clone() else {
            return;
        };
        let named = refs.named(&stems(request)).is_some();
        let points = pointer(request);
        // A word the list's set says for a value of one of its tools («пауза», «включай»)
        // points at the item the conversation is about, and names the tool; so does the
        // value's own word in a request that points or names an item ("ok play it", "play
        // jurassic world").
        let saying = if self.on(Technique::SaidValue) {
            self.tools_said_in(&tool, request, points.is_some() || named)
        } else {
            Vec::new()
        };
        // An item named by its words points at it when the request says what to do with it
        // (above), calls it "one" ("what's the lost world one like") or says it is done
        // ([`DONE_WORDS`]); named alone it may be a new search ("search for jurassic world").
        let one = named
            && lower_words(request)
                .iter()
                .any(|w| w == "one" || (DONE_WORDS.contains(&w.as_str()) && !is_question(request)));
        let Some(pointed) = points
            .or((!saying.is_empty()).then_some(Pointer::This))
            .or(one.then_some(Pointer::This))
        else {
            return;
        };
        examples.retain(|e| e.target.as_deref() != Some(tool.as_str()));
        let spoken_since = history
            .get(refs.list_at..)
            .unwrap_or_default()
            .iter()
            .filter(|m| m.role == Role::User)
            .count();
        if spoken_since > RECENT_TURNS {
            return;
        }
        if examples
            .iter()
            .any(|e| e.target.as_ref().is_some_and(|t| saying.contains(t)))
        {
            examples.retain(|e| e.target.as_ref().is_some_and(|t| saying.contains(t)));
            return;
        }
        // About an item just listed: no toolset switch (its set is on), and no small talk
        // («включай его» is no acknowledgement, "tell me about the second one" no joke)
        // unless it thanks or says goodbye.
        let talk_too = !thanks_or_farewell(request);
        examples.retain(|e| {
            e.target.as_deref().is_none_or(|t| {
                !CoreTool::from_name(t).is_some_and(CoreTool::is_invisible)
                    && !(talk_too && Intent::from_target(t).is_some())
            })
        });
        let Some(set) = self.toolsets.owner_set(&tool) else {
            return;
        };
        // "It" may be the item for any of the set's tools, and the "it" of "what time is it"
        // points at nothing; «она», «его», "that one" point at the item for sure: «сколько
        // она идёт» asks about the film, not the clock (a core tool stays when the request
        // says its word: «покажи его на очках»), and no plain reply knows the item.
        if pointed == Pointer::This && !named {
            if points_surely(request) {
                examples.retain(|e| {
                    e.target.as_deref().is_some_and(|t| {
                        set.tool(t).is_some()
                            || Intent::from_target(t).is_some()
                            || (CoreTool::from_name(t).is_some()
                                && says_action(request, core_said(t)))
                    })
                });
            }
            return;
        }
        let takes_item = |name: &str| {
            set.tools.iter().any(|t| {
                t.name == name
                    && t.args.iter().any(|a| {
                        a.ty == ArgType::Integer || (a.ty == ArgType::String && is_id_arg(&a.name))
                    })
            })
        };
        if examples
            .iter()
            .any(|e| e.target.as_deref().is_some_and(takes_item))
        {
            examples.retain(|e| e.target.as_deref().is_some_and(takes_item));
        }
    }
}
