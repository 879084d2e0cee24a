//! The routed call's arguments from what the user said ([`Technique::SaidArgs`]): the
//! call decided or narrowed to its candidates, a missing value asked for, a value out of
//! range answered, several targets one call each (the candidates: `guidance/fill.rs`).

use super::*;

/// Most calls one request's several targets make.
const MAX_TARGETS: usize = 4;

/// Whether `request` joins several targets: "and", «и», a comma, "both", «оба», "all".
fn joins_targets(request: &str) -> bool {
    request.contains(',')
        || lower_words(request)
            .iter()
            .any(|w| ["and", "both", "all", "и", "оба", "обе", "все", "всё"].contains(&w.as_str()))
}

/// Whether `text` asks a question rather than requests an action: a question
/// ([`is_question`]) that does not open as a polite request ("can you …", «можешь …»).
pub(super) fn asks_rather_than_requests(text: &str) -> bool {
    const POLITE: &[&str] = &[
        "can",
        "could",
        "would",
        "will",
        "please",
        "можешь",
        "можете",
        "сможешь",
        "не",
        "пожалуйста",
    ];
    is_question(text)
        && lower_words(text)
            .first()
            .is_none_or(|w| !POLITE.contains(&w.as_str()))
}

/// A routed call planned from what the user said ([`Planner::said_args_plan`]).
pub(super) enum SaidPlan {
    /// The whole call, every argument decided.
    Forced(String),
    /// The call's spec, each argument narrowed to its candidates.
    Guided(CallSpec),
}

/// What the assistant says instead of acting on a routed call whose arguments the request
/// does not give right ([`Planner::fill_question`]).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum FillQuestion {
    /// A required argument nobody said: the question asking for it. The call waits for
    /// the answer.
    Ask(String),
    /// A value said outside its declared range: the range, said.
    Range(String),
    /// A name said that the host's list for the argument lacks ("Call Dmitry" with no
    /// Dmitry among the contacts): the list's entries, said. The call waits for one.
    NotListed(String),
    /// A question that names the call's subject but gives none of the values it needs
    /// ("what's a good temperature for a bedroom?"): no request for the call, a plain
    /// reply.
    NoCall,
}

impl Planner<'_> {
    /// Whether [`Technique::SaidArgs`] fills the arguments of tool `name`: a set's tool
    /// (core tools decide theirs) with arguments, but not one whose only argument is a text
    /// (its words are the request's, as they always were).
    pub(super) fn fills_said_args(&self, name: &str) -> bool {
        if !self.on(Technique::SaidArgs) || self.toolsets.owner_set(name).is_none() {
            return false;
        }
        let decls = self.arg_decls(name);
        match decls.as_slice() {
            [] => false,
            [only] => only.ty != ArgType::String || only.values_from.is_some(),
            _ => true,
        }
    }

    /// The candidates of every argument of the call `spec` from `request` (or `filled`:
    /// the request and the answer that gave a value it lacked), the values a list the
    /// request points into decided (`referred`).
    pub(super) fn said_fills(
        &self,
        spec: &CallSpec,
        request: &str,
        referred: Option<&CallSpec>,
        before: &[Message],
    ) -> (Vec<ArgDecl>, Vec<Fill>) {
        let decls = self.arg_decls(&spec.name);
        let fixed: Vec<Option<String>> = match referred {
            Some(r) => r
                .args
                .iter()
                .map(|a| match &a.kind {
                    ArgKind::OneOf(v) if v.len() == 1 => v.first().cloned(),
                    _ => None,
                })
                .collect(),
            None => vec![None; decls.len()],
        };
        // A number that counts the set's own things ("*two* timers", «*два* таймера») says how
        // many calls, never a value of one.
        let uncounted = self.without_counts(&spec.name, request);
        let request = uncounted.as_str();
        let mut fills = fill_args(&decls, request, self.lang, self.values, &fixed);
        // An optional text whose run is only the tool's frame ("set a timer") is unsaid; a
        // required one that says nothing but the tool's and its set's own words and a
        // placeholder ("add something to the shopping list", "send a message to Bob") is
        // asked for.
        for (i, (decl, fill)) in decls.iter().zip(fills.iter_mut()).enumerate() {
            if let Fill::Text(span) = fill {
                if !decl.required && self.text_words(&spec.name, span).is_empty() {
                    *fill = Fill::Absent;
                } else if decl.required && self.frame_or_opening(&spec.name, span) {
                    // A run of the frame alone after the values ("…, *put that in*", «…,
                    // *внеси в календарь*»): the text is the run before them, if it names
                    // anything; else it is asked for.
                    let strict = self.only_frame(&spec.name, span);
                    let before_it = request
                        .rfind(span.as_str())
                        .map(|at| format!("{}{}", &request[..at], &request[at + span.len()..]));
                    let other = before_it
                        .map(|r| fill_args(&decls, &r, self.lang, self.values, &fixed))
                        .and_then(|f| f.into_iter().nth(i))
                        .and_then(|f| match f {
                            Fill::Text(t)
                                if !self.text_words(&spec.name, &t).is_empty()
                                    && !self.only_frame(&spec.name, &t) =>
                            {
                                Some(t)
                            }
                            _ => None,
                        });
                    match other {
                        Some(t) => *fill = Fill::Text(t),
                        None if strict => *fill = Fill::Missing,
                        None => {}
                    }
                }
            }
        }
        // A follow-up that points back ("and now switch it off", "make it fifteen") keeps
        // the values of the call it goes on with: a value it does not say is that call's.
        let words = lower_words(request);
        let all = words
            .iter()
            .any(|w| POINTS_BACK.contains(&w.as_str()) || ALL_WORDS.contains(&w.as_str()));
        let refers = pointer(request).is_some() || continues(request) || all;
        for (decl, fill) in decls.iter().zip(fills.iter_mut()) {
            // A place or state the request leaves out is the call's before («а теперь
            // выключи» after the kitchen light); a number only when the request points back.
            let enum_like = matches!(decl.ty, ArgType::Enum(_)) || decl.values_from.is_some();
            if (refers || enum_like) && *fill == Fill::Missing {
                let mut values = self.previous_values(before, &spec.name, &decl.name);
                if !all {
                    values = values.pop().into_iter().collect();
                }
                if !values.is_empty() {
                    *fill = Fill::Values(values);
                }
            }
        }
        (decls, fills)
    }

    /// The values argument `arg` had in the calls of a tool of `tool`'s set in the latest
    /// turn of `history` (within the last [`RECENT_TURNS`] requests) that made any, the
    /// latest first.
    pub(super) fn previous_values(
        &self,
        history: &[Message],
        tool: &str,
        arg: &str,
    ) -> Vec<String> {
        let Some(set) = self.toolsets.owner_set(tool) else {
            return Vec::new();
        };
        let mut users = 0;
        let mut found: Vec<String> = Vec::new();
        for m in history.iter().rev() {
            match m.role {
                Role::User => {
                    if !found.is_empty() {
                        break;
                    }
                    users += 1;
                    if users > RECENT_TURNS {
                        break;
                    }
                }
                Role::Assistant => {
                    let parsed = parse_output_as(self.syntax, &m.content);
                    for call in parsed.calls().collect::<Vec<_>>().into_iter().rev() {
                        let Some(decl) = set.tool(&call.name) else {
                            continue;
                        };
                        let Ok(args) = validate_args(&decl.args, &call.args) else {
                            continue;
                        };
                        if let Some(v) = args.get(arg).map(ToString::to_string) {
                            if !found.contains(&v) {
                                found.push(v);
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        found.reverse();
        found
    }

    /// The plan of a routed call whose arguments come from what the user said
    /// ([`Technique::SaidArgs`]): decided outright when every argument has one value (or
    /// is optional and unsaid), else the call's spec with each argument narrowed to its
    /// candidates (a text to a run of the request's words). `None`: the technique does not
    /// fill this tool, or an argument is missing or out of range (asked or answered before
    /// the turn's first request: [`Planner::fill_question`]; the model is then left to
    /// write it as without the technique).
    pub(super) fn said_args_plan(
        &self,
        spec: &CallSpec,
        request: &str,
        filled: Option<&str>,
        referred: Option<&CallSpec>,
        before: &[Message],
    ) -> Option<SaidPlan> {
        if !self.fills_said_args(&spec.name) {
            return None;
        }
        let answer = request;
        let request = filled.unwrap_or(request);
        let (decls, mut fills) = self.said_fills(spec, request, referred, before);
        // A call filled by an answer ("Set a timer for the rice" — "twenty minutes") keeps
        // the optional text the first request said: there it came before the value the
        // answer gave, where a text is otherwise the request's frame.
        if let Some(first) = filled
            .and_then(|f| f.strip_suffix(answer))
            .filter(|first| !first.trim().is_empty())
        {
            if let Some(tail) = self.after_own_words(&spec.name, first) {
                for (decl, fill) in decls.iter().zip(fills.iter_mut()) {
                    let text =
                        !decl.required && decl.ty == ArgType::String && !is_id_arg(&decl.name);
                    if text && *fill == Fill::Absent {
                        *fill = Fill::Text(tail);
                        break;
                    }
                }
            }
        }
        if fills
            .iter()
            .any(|f| matches!(f, Fill::Missing | Fill::OutOfRange(_) | Fill::Unmatched(_)))
        {
            return None;
        }
        // Several targets joined in one request ("the kitchen and the hallway lights",
        // «удали первую и третью», "turn them both off"): one call per target, in order,
        // every other value decided.
        let several: Vec<usize> = fills
            .iter()
            .enumerate()
            .filter(|(_, f)| matches!(f, Fill::Values(v) if v.len() > 1))
            .map(|(i, _)| i)
            .collect();
        // A text said beside them is every call's: "text Bob and Sarah that dinner is at
        // eight" sends both the words after the names. (Read only for several targets.)
        let texts: Vec<Option<String>> = if several.len() == 1 && joins_targets(request) {
            decls
                .iter()
                .zip(&fills)
                .map(|(d, f)| match f {
                    Fill::Text(span) if !is_id_arg(&d.name) => {
                        let words = self.text_words(&spec.name, span);
                        (!words.is_empty()).then(|| words.join(" "))
                    }
                    _ => None,
                })
                .collect()
        } else {
            vec![None; decls.len()]
        };
        let rest_decided = fills.iter().enumerate().all(|(i, f)| {
            several.contains(&i)
                || f.decided().is_some()
                || *f == Fill::Absent
                || texts[i].is_some()
        });
        if let ([at], true) = (several.as_slice(), rest_decided) {
            if joins_targets(request) {
                if let Some(Fill::Values(targets)) = fills.get(*at) {
                    let lines: Vec<String> = targets
                        .iter()
                        .take(MAX_TARGETS)
                        .map(|target| {
                            let values: Vec<(&ArgDecl, Option<&str>)> = decls
                                .iter()
                                .zip(&fills)
                                .enumerate()
                                .map(|(i, (d, f))| {
                                    (
                                        d,
                                        if i == *at {
                                            Some(target.as_str())
                                        } else {
                                            f.decided().or(texts[i].as_deref())
                                        },
                                    )
                                })
                                .collect();
                            self.call_with(&spec.name, &values)
                        })
                        .collect();
                    return Some(SaidPlan::Forced(lines.join("\n")));
                }
            }
        }
        if fills
            .iter()
            .all(|f| f.decided().is_some() || *f == Fill::Absent)
        {
            let values: Vec<(&ArgDecl, Option<&str>)> =
                decls.iter().zip(fills.iter().map(Fill::decided)).collect();
            return Some(SaidPlan::Forced(self.call_with(&spec.name, &values)));
        }
        let mut out = spec.clone();
        // Trailing arguments left out are no part of the call; one left out before a
        // value is written empty (`name||value`), which validation reads as absent.
        let last = fills.iter().rposition(|f| *f != Fill::Absent).unwrap_or(0);
        out.args.truncate(last + 1);
        for ((arg, decl), fill) in out.args.iter_mut().zip(&decls).zip(&fills) {
            match fill {
                Fill::Values(v) => {
                    // A value said is written, even for an optional argument.
                    arg.kind = ArgKind::OneOf(v.clone());
                    arg.required = true;
                }
                Fill::Text(span) => {
                    let words = if is_id_arg(&decl.name) {
                        self.text_words(&spec.name, request)
                    } else {
                        self.text_words(&spec.name, span)
                    };
                    // A text said is written, even for an optional argument: "set a 12
                    // minute pasta timer" labels the timer (the frame's words are gone).
                    if !words.is_empty() {
                        arg.kind = ArgKind::TailOf(words);
                        arg.required = true;
                    }
                }
                Fill::Absent => arg.kind = ArgKind::OneOf(vec![String::new()]),
                Fill::Missing | Fill::OutOfRange(_) | Fill::Unmatched(_) => {}
            }
        }
        Some(SaidPlan::Guided(out))
    }

    /// What `text` says after the last word of set tool `tool`'s own declaration (its
    /// description, `ask`, `said:`, its set's words): "set a timer *for the rice*", «поставь
    /// таймер *на рис*». `None` when no such word is said, or nothing of content follows it.
    fn after_own_words(&self, tool: &str, text: &str) -> Option<String> {
        let set = self.toolsets.owner_set(tool)?;
        let own = own_stems(set, set.tool(tool)?);
        let parts: Vec<&str> = text.split_whitespace().collect();
        let last = parts.iter().rposition(|w| {
            let st = stems(w);
            !st.is_empty() && st.iter().all(|s| own.contains(s))
        })?;
        let tail = parts[last + 1..].join(" ");
        (!self.text_words(tool, &tail).is_empty()).then_some(tail)
    }

    /// Whether `text` says nothing but the frame of set tool `tool` ([`Planner::only_frame`])
    /// and the verbs its examples open with ("*put* that in", «*внеси* в календарь»).
    fn frame_or_opening(&self, tool: &str, text: &str) -> bool {
        if self.only_frame(tool, text) {
            return true;
        }
        let Some(decl) = self.toolsets.owner_set(tool).and_then(|s| s.tool(tool)) else {
            return false;
        };
        let openings: Vec<String> = decl
            .examples_in(self.lang)
            .filter_map(|e| opening_stems(e).into_iter().next())
            .collect();
        let words = lower_words(text);
        let frame = |w: &String| {
            stems(w).iter().all(|st| openings.contains(st)) || self.only_frame(tool, w)
        };
        words
            .iter()
            .any(|w| !stems(w).is_empty() && openings.contains(&stems(w)[0]))
            && words.iter().all(frame)
    }

    /// Whether `text` (a run of the request) names nothing for a text argument of set tool
    /// `tool`: each of its words is a common word, a placeholder ([`PLACEHOLDERS`]), or a
    /// stem of the tool's declaration (description, `ask`, `said:`) or of its set's
    /// description and spoken phrases.
    pub(super) fn only_frame(&self, tool: &str, text: &str) -> bool {
        let Some(set) = self.toolsets.owner_set(tool) else {
            return false;
        };
        let Some(decl) = set.tool(tool) else {
            return false;
        };
        let own = own_stems(set, decl);
        let words = lower_words(text);
        !words.is_empty()
            && words.iter().all(|w| {
                PLACEHOLDERS.contains(&w.as_str()) || stems(w).iter().all(|st| own.contains(st))
            })
    }

    /// The words a text argument of `tool` is made of from `text` (a run of the request):
    /// its words, a number said in groups one word, the routed tool's frame at either end
    /// left out ([`Technique::FrameWords`], [`Technique::ContentStart`]).
    pub(super) fn text_words(&self, tool: &str, text: &str) -> Vec<String> {
        let mut words = words_of(&[Message::user(text)], self.guidance);
        if self.on(Technique::NumberGroups) {
            words = number_groups(words);
        }
        let examples = self.tool_examples(tool);
        if self.on(Technique::FrameWords) {
            words = without_frame_end(words, &examples);
            // The declaration's own words at either end are its frame too ("*добавь в
            // список* апельсины", "a pasta *timer*"), while a word of content is left.
            let decl = self.toolsets.owner_set(tool).and_then(|set| {
                let decl = set.tool(tool)?;
                Some(own_stems(set, decl))
            });
            if let Some(own) = decl {
                let framing = |w: &String| stems(w).iter().all(|st| own.contains(st));
                while words.len() > 1 && words.first().is_some_and(framing) {
                    words.remove(0);
                }
                while words.len() > 1 && words.last().is_some_and(framing) {
                    words.pop();
                }
            }
        }
        if self.on(Technique::ContentStart) {
            words = from_content_start(words, &examples);
        }
        words
    }

    /// A whole call of `name` with these values (`None`: left out), in the model's syntax.
    pub(super) fn call_with(&self, name: &str, values: &[(&ArgDecl, Option<&str>)]) -> String {
        match self.syntax {
            CallSyntax::ToolCallLine => {
                let last = values.iter().rposition(|(_, v)| v.is_some());
                let parts: Vec<&str> = values
                    .iter()
                    .take(last.map_or(0, |l| l + 1))
                    .map(|(_, v)| v.unwrap_or(""))
                    .collect();
                if parts.is_empty() {
                    call_line(name)
                } else {
                    format!("{}|{}", call_line(name), parts.join("|"))
                }
            }
            CallSyntax::FunctionGemma => {
                let mut map = serde_json::Map::new();
                for (decl, value) in values {
                    let Some(v) = value else { continue };
                    let v = match (&decl.ty, v.parse::<i64>(), v.parse::<f64>()) {
                        (ArgType::Integer, Ok(n), _) => serde_json::Value::from(n),
                        (ArgType::Number, _, Ok(n)) => serde_json::Value::from(n),
                        _ => serde_json::Value::from(*v),
                    };
                    map.insert(decl.name.clone(), v);
                }
                function_gemma::render_call(&ToolCall {
                    name: name.to_owned(),
                    args: RawArgs::Json(map),
                    line: String::new(),
                })
            }
        }
    }

    /// What to say instead of acting on `route` for `request`, in `lang`, when the
    /// request does not give its call right ([`Technique::SaidArgs`]): a required argument
    /// nobody said is asked for (its `ask_for` phrase, else a question made of its
    /// description, else of its name; a host list's entries when none was named); a value
    /// said outside its `min`/`max` is answered with the range. `None`: act.
    pub(crate) fn fill_question(
        &self,
        history: &[Message],
        route: &Route,
        request: &str,
        lang: Lang,
    ) -> Option<FillQuestion> {
        let name = route.target.as_deref()?;
        if !self.fills_said_args(name) {
            return None;
        }
        let spec = CallSpec {
            name: name.to_owned(),
            args: self.arg_decls(name).iter().map(arg_spec).collect(),
        };
        let before = history
            .iter()
            .rposition(|m| m.role == Role::User)
            .and_then(|at| history.get(..at))
            .unwrap_or_default();
        let referred = self.referred_spec(&spec, request, before);
        let (decls, fills) = self.said_fills(&spec, request, referred.as_ref(), before);
        let texts = Texts::new(lang);
        // A question that lacks a value the call needs asks about its subject ("why does my
        // kitchen light keep flickering?"), and one offering a choice weighs it ("is it
        // better to cook pasta for ten minutes or twelve?"): no call.
        let missing = fills.contains(&Fill::Missing);
        let choice = lower_words(request).iter().any(|w| w == "or" || w == "или");
        if (missing || choice) && asks_rather_than_requests(request) {
            return Some(FillQuestion::NoCall);
        }
        for (decl, fill) in decls.iter().zip(&fills) {
            if let Fill::OutOfRange(_) = fill {
                return Some(FillQuestion::Range(
                    texts.value_out_of_range(decl.min, decl.max),
                ));
            }
        }
        for (decl, fill) in decls.iter().zip(&fills) {
            match fill {
                Fill::Missing => {
                    let question = match decl.ask_for_in(lang) {
                        Some(q) => q.to_owned(),
                        None => {
                            let described =
                                decl.description.as_deref().filter(|d| written_in(d, lang));
                            match described {
                                Some(d) => texts.ask_for_value(d, false),
                                None => texts.ask_for_value(&decl.name.replace('_', " "), true),
                            }
                        }
                    };
                    return Some(FillQuestion::Ask(question));
                }
                Fill::Unmatched(entries) if !entries.is_empty() => {
                    let shown: Vec<String> = entries.iter().take(6).cloned().collect();
                    if says_a_name(request) {
                        return Some(FillQuestion::NotListed(texts.not_in_list(&shown)));
                    }
                    return Some(FillQuestion::Ask(texts.ask_which_of(&shown)));
                }
                Fill::Unmatched(_) => {
                    let what = decl
                        .ask_for_in(lang)
                        .map(str::to_owned)
                        .unwrap_or_else(|| texts.ask_for_value(&decl.name.replace('_', " "), true));
                    return Some(FillQuestion::Ask(what));
                }
                _ => {}
            }
        }
        None
    }

    /// Whether `answer` gives a value the call of `route` lacked for `request`: a
    /// required argument missing from the request alone is said in the two together.
    pub(crate) fn fills_missing(&self, route: &Route, request: &str, answer: &str) -> bool {
        let Some(name) = route.target.as_deref() else {
            return false;
        };
        let fills = |text: &str| self.fills_of(name, text).unwrap_or_default();
        let (before, after, alone) = (
            fills(request),
            fills(&format!("{request} {answer}")),
            fills(answer),
        );
        before
            .iter()
            .zip(after.iter().zip(&alone))
            .any(|(b, (a, only))| {
                matches!(b, Fill::Missing | Fill::Unmatched(_))
                    && !matches!(a, Fill::Missing | Fill::Unmatched(_))
                    && !matches!(only, Fill::Missing | Fill::Unmatched(_) | Fill::Absent)
            })
    }

    /// `request` without the numbers said right before a word of the subject of `tool`'s
    /// set (its name, description and spoken phrases): "Set *two* timers: five minutes and ten" counts the
    /// timers, a count no argument of a timer takes. Ordinals and durations stay.
    fn without_counts(&self, tool: &str, request: &str) -> String {
        let Some(set) = self.toolsets.owner_set(tool) else {
            return request.to_owned();
        };
        // Words the tool's numbers declare (a measure: "degrees", «треков»: their descriptions
        // and `said:` words) are a value's.
        let mut declared = String::new();
        let numeric = |a: &&ArgDecl| matches!(a.ty, ArgType::Integer | ArgType::Number);
        for a in self.arg_decls(tool).iter().filter(numeric) {
            declared.push_str(a.description.as_deref().unwrap_or_default());
            for (value, words) in &a.said {
                declared.push(' ');
                declared.push_str(value);
                declared.push(' ');
                declared.push_str(&words.join(" "));
            }
        }
        let declared = stems(&declared);
        let spoken = [Lang::Ru, Lang::En].map(|l| set.spoken_in(l).unwrap_or_default());
        let subject: Vec<String> = stems(&format!(
            "{} {} {}",
            set.name,
            set.description,
            spoken.join(" ")
        ))
        .into_iter()
        .filter(|st| !declared.iter().any(|d| same_stem(st, d)))
        .collect();
        let spans = word_spans(request);
        let words = lower_words(request);
        let counted: Vec<(usize, usize)> = crate::guidance::numbers::numbers_said(request)
            .into_iter()
            .filter(|n| !n.ordinal && n.unit.is_none())
            .filter(|n| {
                words.get(n.end).is_some_and(|w| {
                    stems(w)
                        .iter()
                        .any(|st| subject.iter().any(|o| same_stem(st, o)))
                })
            })
            .filter_map(|n| Some((spans.get(n.start)?.0, spans.get(n.end - 1)?.1)))
            .collect();
        let mut out = request.to_owned();
        for (start, end) in counted.into_iter().rev() {
            out.replace_range(start..end, "");
        }
        out
    }

    /// The candidates `request` gives each argument of set tool `tool`, on its own (no
    /// list pointed into, no call before); `None` when [`Technique::SaidArgs`] does not
    /// fill the tool.
    pub(super) fn fills_of(&self, tool: &str, request: &str) -> Option<Vec<Fill>> {
        if !self.fills_said_args(tool) {
            return None;
        }
        let spec = CallSpec {
            name: tool.to_owned(),
            args: self.arg_decls(tool).iter().map(arg_spec).collect(),
        };
        Some(self.said_fills(&spec, request, None, &[]).1)
    }

    /// Whether the call of set tool `tool` lacks a value `request` does not give (a
    /// required argument unsaid; a value said out of range is given, and answered)
    /// ([`Technique::SaidArgs`]).
    pub(super) fn lacks_values(&self, tool: &str, request: &str) -> bool {
        self.fills_of(tool, request)
            .is_some_and(|fills| lacking(&fills))
    }

    /// Whether set tool `tool` takes no value at all from `request`: it has no required
    /// argument, and `request` says a value for none of its arguments.
    pub(super) fn takes_no_value(&self, tool: &str, request: &str) -> bool {
        if self.toolsets.owner_set(tool).is_none() {
            return false;
        }
        let decls = self.arg_decls(tool);
        if decls.iter().any(|a| a.required) {
            return false;
        }
        // A tool of one optional text (or of none) takes no value by its nature.
        self.fills_of(tool, request).is_none_or(|fills| {
            !fills
                .iter()
                .any(|f| matches!(f, Fill::Values(_) | Fill::OutOfRange(_)))
        })
    }

    /// Whether set tool `tool` takes values `request` says: every required argument given,
    /// none out of range, and a value (a number, an enum's, a list entry) among them.
    pub(super) fn takes_said_values(&self, tool: &str, request: &str) -> bool {
        self.fills_of(tool, request).is_some_and(|fills| {
            !lacking(&fills)
                && !fills.iter().any(|f| matches!(f, Fill::OutOfRange(_)))
                && fills.iter().any(|f| matches!(f, Fill::Values(_)))
        })
    }
}

/// Whether `request` says a name: a word after its first that opens with a capital letter
/// ("Call *Dmitry*", «Позвони *Дмитрию*»), not the English "I".
fn says_a_name(request: &str) -> bool {
    request.split_whitespace().skip(1).any(|w| {
        let w = w.trim_matches(|c: char| !c.is_alphanumeric());
        let first = w.chars().next();
        first.is_some_and(char::is_uppercase) && w != "I" && !w.starts_with("I'")
    })
}

/// The byte ranges of the words of `text`, as [`lower_words`] splits them.
fn word_spans(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (at, c) in text.char_indices() {
        match (c.is_alphanumeric(), start) {
            (true, None) => start = Some(at),
            (false, Some(s)) => {
                out.push((s, at));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, text.len()));
    }
    out
}

/// Whether `fills` lack a required value (unsaid, or a host list's entry not named).
fn lacking(fills: &[Fill]) -> bool {
    fills
        .iter()
        .any(|f| matches!(f, Fill::Missing | Fill::Unmatched(_)))
}

/// Whether `text` is written in `lang`'s script: Russian has a Cyrillic letter, English none
/// ("номер из notes_list" is no English description, whatever its Latin name says).
fn written_in(text: &str, lang: Lang) -> bool {
    let cyrillic = text.chars().any(|c| ('\u{400}'..='\u{4ff}').contains(&c));
    match lang {
        Lang::Ru => cyrillic,
        Lang::En => !cyrillic && text.chars().any(|c| c.is_ascii_alphabetic()),
    }
}

/// The stems of `decl`'s own words and its set's: the tool's description, `ask` questions and
/// `said:` words, the set's description and spoken phrases ([`set_words`]).
fn own_stems(set: &crate::toolset::Toolset, decl: &crate::toolset::ToolDecl) -> Vec<String> {
    let mut own = stems(&set_words(set));
    own.extend(stems(&decl.description));
    for (_, q) in &decl.ask {
        own.extend(stems(q));
    }
    for w in &decl.said {
        own.extend(stems(w));
    }
    own
}
