//! What the agent asks of each reply ([`Guidance`]): the calls the session's state offers
//! in the shape of their declarations, where routing sends a turn's first action, and the
//! stops that keep a spoken reply short.

use super::session::Session;
use super::{Guidance, Shared};
use crate::args::{ArgDecl, ArgType, RawArgs};
use crate::catalog::{Texts, PLAIN_REPLY};
use crate::function_gemma;
use crate::model::{
    ArgKind, ArgSpec, CallLine, CallSpec, CallSyntax, Message, Model, ModelError, ReplyGuide, Role,
};
use crate::output::ToolCall;
use crate::route::{stems, word_overlap, Route, RouteExample};
use crate::tools::CoreTool;

/// One request's guide, owned; [`Guide::reply_guide`] lends it to a request.
#[derive(Debug, Clone, Default)]
pub(super) struct Guide {
    /// The whole reply, decided already (a routed call without arguments).
    pub(super) forced: Option<String>,
    prefix: Option<String>,
    stop: Vec<String>,
    calls: Option<Vec<CallSpec>>,
    max_sentences: Option<usize>,
    words: Option<Vec<String>>,
    call_line: CallLine,
}

impl Guide {
    /// Take the toolset switches out of the calls this reply may make (after a switch that
    /// changed nothing: asking again would loop). Only where the calls are constrained.
    pub(super) fn forbid_switches(&mut self) {
        if let Some(calls) = &mut self.calls {
            calls.retain(|c| CoreTool::from_name(&c.name).is_none_or(|core| !core.is_invisible()));
        }
    }

    pub(super) fn reply_guide(&self) -> ReplyGuide<'_> {
        ReplyGuide {
            prefix: self.prefix.as_deref(),
            stop: &self.stop,
            calls: self.calls.as_deref(),
            max_sentences: self.max_sentences,
            words: self.words.as_deref(),
            call_line: self.call_line,
        }
    }
}

/// The argument shape of a declared argument.
fn arg_spec(a: &ArgDecl) -> ArgSpec {
    ArgSpec {
        kind: match &a.ty {
            ArgType::String => ArgKind::Text,
            ArgType::Integer => ArgKind::Integer,
            ArgType::Number => ArgKind::Number,
            ArgType::Boolean => ArgKind::Boolean,
            ArgType::Enum(values) => ArgKind::OneOf(values.clone()),
        },
        required: a.required,
    }
}

/// The words of `messages` (the turn so far), in order — without quotes and final stops,
/// without words that open a parenthesis, and in a tool's reply without words that hold a
/// `=` (`(2018)`, `id=tt0146316`: asides for machines) and with a list's numbers (`1.`,
/// `2)`) turned into commas between its items (`купить хлеб, позвонить врачу`): a routed
/// call's text arguments and the answer after its reply are a stretch of them.
fn words_of(messages: &[crate::model::Message]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let words = messages
        .iter()
        .flat_map(|m| m.content.split_whitespace().map(move |w| (m.role, w)));
    for (role, w) in words {
        let tool = role == Role::Tool;
        if w.starts_with('(') || (tool && w.contains('=')) {
            continue;
        }
        if tool && crate::model::is_list_number(w) {
            if let Some(prev) = out.last_mut() {
                if !prev.ends_with([',', ':', ';']) {
                    prev.push(',');
                }
            }
            continue;
        }
        // Quotes go; commas and colons inside the text stay with their words.
        let w = w
            .trim_matches(|c: char| "«»\"'“”„()[]".contains(c))
            .trim_end_matches(['.', '?', '!', '…']);
        if !w.is_empty() && w.chars().count() <= 40 {
            out.push(w.to_owned());
        }
    }
    out
}

/// `words` with each run of number groups joined into one word (`8 800 555 35 35`): a
/// number said in groups is one number, so a text argument never starts inside it.
pub(super) fn number_groups(words: Vec<String>) -> Vec<String> {
    let numeric = |w: &str| {
        w.chars().any(|c| c.is_ascii_digit())
            && w.chars().all(|c| c.is_ascii_digit() || "+-()".contains(c))
    };
    let mut out: Vec<String> = Vec::with_capacity(words.len());
    let mut last_numeric = false;
    for w in words {
        let is_numeric = numeric(&w);
        match out.last_mut() {
            Some(prev) if is_numeric && last_numeric => {
                prev.push(' ');
                prev.push_str(&w);
            }
            _ => out.push(w),
        }
        last_numeric = is_numeric;
    }
    out
}

/// The stop that keeps a plain reply from repeating `request`: its first
/// [`ECHO_STOP_CHARS`] characters, trimmed — for a request of at least three words (a
/// greeting answered by the same greeting is a reply, not an echo).
pub(super) fn echo_stop(request: &str) -> Option<String> {
    let request = request.trim();
    request.split_whitespace().nth(2)?;
    Some(
        request
            .chars()
            .take(ECHO_STOP_CHARS)
            .collect::<String>()
            .trim_end()
            .to_owned(),
    )
}

/// How much of a request its echo stop holds: an echo begins with the request's start.
const ECHO_STOP_CHARS: usize = 120;

/// The text a request sets apart for a tool: what follows its first colon (`Запиши: купить
/// хлеб`; a colon between digits, as in `9:15`, is part of a time), else its first quoted
/// span (`«Шрек»`, `"…"`, `“…”`, `„…“`, `'…'` — an apostrophe inside a word opens nothing),
/// its enclosing quotes and final stops taken off, on one line. `None` when the request sets
/// nothing apart, or more than [`MAX_DELIMITED_CHARS`]. A tiny model asked to pick where a
/// text argument starts often starts it late (`show_text|on the screen` for "Write 'Be
/// right back' on the screen"); what the user set apart is the argument.
pub(super) fn delimited_text(request: &str) -> Option<String> {
    let chars: Vec<char> = request.chars().collect();
    let colon = (0..chars.len()).find(|&i| {
        chars[i] == ':'
            && !(i > 0
                && chars[i - 1].is_ascii_digit()
                && chars.get(i + 1).is_some_and(char::is_ascii_digit))
    });
    let span: String = match colon {
        Some(i) => chars[i + 1..].iter().collect(),
        None => quoted_span(&chars)?,
    };
    let one_line = span.split_whitespace().collect::<Vec<_>>().join(" ");
    let quotes = |c: char| "«»\"'“”„".contains(c);
    let mut text = one_line.trim_end_matches(['.', '!', '?', '…', ' ']);
    // Quotes around the whole text go; quotes inside it stay.
    if text.chars().next().is_some_and(quotes) && text.chars().last().is_some_and(quotes) {
        let first = text.chars().next().map_or(0, char::len_utf8);
        let last = text.chars().last().map_or(0, char::len_utf8);
        text = text
            .get(first..text.len().saturating_sub(last))
            .unwrap_or("");
        text = text.trim_end_matches(['.', '!', '?', '…', ' ']).trim();
    }
    let text = text.trim();
    (!text.is_empty() && text.chars().count() <= MAX_DELIMITED_CHARS).then(|| text.to_owned())
}

/// The longest text [`delimited_text`] decides: a decided call is decoded token by token
/// like a reply, so a longer one is left to the model (under the grammar and the reply's
/// token limit).
const MAX_DELIMITED_CHARS: usize = 400;

/// The first quoted span of `chars`: between `«` and `»`, `“` and `”`, `„` and `“`, two `"`,
/// or two `'` that stand at a word's edge (so `What's` and `don't` quote nothing).
fn quoted_span(chars: &[char]) -> Option<String> {
    let edge = |i: usize| i == 0 || i >= chars.len() || !chars[i].is_alphanumeric();
    for (i, &open) in chars.iter().enumerate() {
        let close = match open {
            '«' => '»',
            '“' => '”',
            '„' => '“',
            '"' => '"',
            '\'' if i == 0 || edge(i - 1) => '\'',
            _ => continue,
        };
        let end =
            (i + 1..chars.len()).find(|&j| chars[j] == close && (close != '\'' || edge(j + 1)));
        if let Some(j) = end {
            let inner: String = chars[i + 1..j].iter().collect();
            if !inner.trim().is_empty() {
                return Some(inner);
            }
        }
    }
    None
}

/// The name among `named` (name, description) whose words share the most stems with
/// `request`; `None` when none shares any.
fn best_named<'a>(
    request: &str,
    named: impl Iterator<Item = (&'a String, &'a String)>,
) -> Option<String> {
    let want = stems(request);
    let mut best: Option<(f32, &String)> = None;
    for (name, description) in named {
        let score = word_overlap(&want, &stems(&format!("{name} {description}")));
        if score > 0.0 && best.is_none_or(|(b, _)| score > b) {
            best = Some((score, name));
        }
    }
    best.map(|(_, n)| n.clone())
}

/// `TOOL_CALL: name` — the line a routed call starts with.
fn call_line(name: &str) -> String {
    CallLine::PORFIRY.call(name)
}

impl Shared {
    /// The argument names of tool `name` (a core tool or an advertised set's), in order.
    fn arg_names(&self, name: &str) -> Vec<String> {
        if let Some(core) = CoreTool::from_name(name) {
            return core.args().into_iter().map(|a| a.name).collect();
        }
        self.advertised
            .toolsets
            .iter()
            .flat_map(|s| s.tools.iter())
            .find(|t| t.name == name)
            .map(|t| t.args.iter().map(|a| a.name.clone()).collect())
            .unwrap_or_default()
    }

    /// A whole call of `name` with its first argument `value` (`integer`: a number) or
    /// none, written in the model's syntax: `TOOL_CALL: name|value`, or FunctionGemma's
    /// `<start_function_call>call:name{arg:<escape>value<escape>}<end_function_call>`.
    fn call_text(&self, name: &str, value: Option<(&str, bool)>) -> String {
        match self.syntax {
            CallSyntax::ToolCallLine => match value {
                Some((v, _)) => format!("{}|{v}", call_line(name)),
                None => call_line(name),
            },
            CallSyntax::FunctionGemma => {
                let mut map = serde_json::Map::new();
                let first = self.arg_names(name).into_iter().next();
                if let (Some((v, integer)), Some(arg)) = (value, first) {
                    let v = match v.parse::<i64>() {
                        Ok(n) if integer => serde_json::Value::from(n),
                        _ => serde_json::Value::from(v),
                    };
                    map.insert(arg, v);
                }
                function_gemma::render_call(&ToolCall {
                    name: name.to_owned(),
                    args: RawArgs::Json(map),
                    line: String::new(),
                })
            }
        }
    }

    /// The start of a call of `name` whose arguments the model writes: `TOOL_CALL: name|`,
    /// or `<start_function_call>call:name{`.
    fn call_prefix(&self, name: &str) -> String {
        match self.syntax {
            CallSyntax::ToolCallLine => format!("{}|", call_line(name)),
            CallSyntax::FunctionGemma => format!("{}call:{name}{{", function_gemma::CALL_START),
        }
    }

    /// Where a reply that may not call stops: where a call would begin.
    fn call_opening(&self) -> &'static str {
        match self.syntax {
            CallSyntax::ToolCallLine => CallLine::PORFIRY.marker,
            CallSyntax::FunctionGemma => function_gemma::CALL_START,
        }
    }

    /// The calls a request of a session with `active` sets may make: the core tools (skill
    /// and set names as their enum values), the active sets' tools and, with direct
    /// execution, the tools of every advertised set.
    pub(super) fn call_specs(&self, active: &[String]) -> Vec<CallSpec> {
        let a = &self.advertised;
        let one_of = |names: Vec<String>, required: bool| ArgSpec {
            kind: if names.is_empty() {
                ArgKind::Text
            } else {
                ArgKind::OneOf(names)
            },
            required,
        };
        // An active set needs no enabling: only the others are offered, and no enable at
        // all once every set is active.
        let inactive: Vec<String> = a
            .toolsets
            .names()
            .into_iter()
            .filter(|n| !active.iter().any(|a| a.eq_ignore_ascii_case(n)))
            .collect();
        let all_active = inactive.is_empty() && !a.toolsets.names().is_empty();
        let mut specs: Vec<CallSpec> = CoreTool::ALL
            .into_iter()
            .filter(|core| !(all_active && *core == CoreTool::EnableToolset))
            .map(|core| CallSpec {
                name: core.name().to_owned(),
                args: match core {
                    CoreTool::ReadSkill => vec![one_of(a.skills.names(), true)],
                    CoreTool::EnableToolset => vec![one_of(inactive.clone(), true)],
                    CoreTool::DisableToolset => vec![one_of(active.to_vec(), false)],
                    _ => core.args().iter().map(arg_spec).collect(),
                },
            })
            .collect();
        for set in a.toolsets.iter() {
            let on = active.iter().any(|n| n.eq_ignore_ascii_case(&set.name));
            if on || self.config.direct_execution {
                specs.extend(set.tools.iter().map(|t| CallSpec {
                    name: t.name.clone(),
                    args: t.args.iter().map(arg_spec).collect(),
                }));
            }
        }
        specs
    }

    /// The example requests routing compares with: the catalog's (core tools, plain
    /// replies) and every advertised tool's, in the agent's language. Core tools that need
    /// something to work on (skills, active sets) come only when there is some.
    pub(super) fn route_examples(&self, s: &Session) -> Vec<RouteExample> {
        self.examples_for(&s.active_names(), Some(&s.history))
    }

    /// The examples with `active` sets; with `history`, a tool that needs an id (a required
    /// argument `id` or `…_id`, which only a tool's reply gives) is routable only once a
    /// tool of its set has replied in it — before that, a request naming a title is a search.
    fn examples_for(&self, active: &[String], history: Option<&[Message]>) -> Vec<RouteExample> {
        let lang = self.config.lang;
        let a = &self.advertised;
        let mut out: Vec<RouteExample> = Texts::new(lang)
            .route_examples()
            .iter()
            .filter(|(target, _)| match *target {
                "read_skill" => !a.skills.is_empty(),
                "disable_toolset" => !active.is_empty(),
                _ => true,
            })
            .map(|(target, text)| RouteExample {
                target: (*target != PLAIN_REPLY).then(|| (*target).to_owned()),
                text: (*text).to_owned(),
            })
            .collect();
        for set in a.toolsets.iter() {
            let prefix = format!("{}_", set.name);
            let replied = history.is_none_or(|h| {
                h.iter().any(|m| {
                    m.role == Role::Tool
                        && m.name.as_deref().is_some_and(|n| n.starts_with(&prefix))
                })
            });
            for t in &set.tools {
                let needs_id = t
                    .args
                    .iter()
                    .any(|a| a.required && (a.name == "id" || a.name.ends_with("_id")));
                if needs_id && !replied {
                    continue;
                }
                out.extend(t.examples_in(lang).map(|text| RouteExample {
                    target: Some(t.name.clone()),
                    text: text.to_owned(),
                }));
            }
        }
        out
    }

    /// A routed call whose one required argument the request itself decides: a skill or a
    /// toolset named by its words (the most stems shared with the name and description), a
    /// number said in digits or as a word («вторую»), a text the request sets apart (after a
    /// colon, or in quotes: [`delimited_text`]). `None`: the model fills it in.
    fn decided_call(&self, spec: &CallSpec, request: &str) -> Option<String> {
        let [arg] = spec.args.as_slice() else {
            return None;
        };
        let texts = Texts::new(self.config.lang);
        let integer = arg.kind == ArgKind::Integer;
        let value = match (&arg.kind, spec.name.as_str()) {
            (ArgKind::OneOf(_), "read_skill") => best_named(
                request,
                self.advertised
                    .skills
                    .iter()
                    .map(|k| (&k.name, &k.description)),
            )?,
            (ArgKind::OneOf(_), "enable_toolset") => best_named(
                request,
                self.advertised
                    .toolsets
                    .iter()
                    .map(|t| (&t.name, &t.description)),
            )?,
            (ArgKind::Text, _) => delimited_text(request)?,
            (ArgKind::Integer, _) => request
                .split(|c: char| !c.is_alphanumeric())
                .find_map(|w| w.parse::<i64>().ok().or_else(|| texts.spoken_number(w)))?
                .to_string(),
            _ => return None,
        };
        Some(self.call_text(&spec.name, Some((&value, integer))))
    }

    /// Embed every example request now (once per model: they are kept), so the first turn
    /// routes at the cost of its own request only. Nothing to do when the guidance does not
    /// route or the model cannot embed.
    ///
    /// # Errors
    /// What the model reports when embedding fails.
    pub(super) fn prepare_routes(&mut self, model: &mut dyn Model) -> Result<(), ModelError> {
        if !self.config.guidance.route {
            return Ok(());
        }
        // With every advertised set active, every example is in the list.
        let all = self.advertised.toolsets.names();
        let examples = self.examples_for(&all, None);
        self.router.prepare(model, &examples)
    }

    /// Route the turn's request, when the guidance asks and the model can embed. A model
    /// that fails to embed only loses the route (the model then chooses freely).
    pub(super) fn route(
        &mut self,
        s: &Session,
        user_text: &str,
        model: &mut dyn Model,
    ) -> Option<Route> {
        if !self.config.guidance.route {
            return None;
        }
        let examples = self.route_examples(s);
        match self.router.route(model, user_text, &examples) {
            Ok(Some(r)) if r.score >= self.config.guidance.min_route_score => Some(r),
            Ok(_) | Err(_) => None,
        }
    }

    /// The guide of a request in a turn that began at history index `turn_start`. A routed
    /// turn's first action follows `route`: the chosen call (its text arguments made of the
    /// words of the turn so far: the request, tool replies) or plain text; once that action
    /// is answered, the reply is plain text (one action per routed turn: a tiny model
    /// otherwise calls again and again). Otherwise the state's calls constrain the grammar.
    /// Stops and the sentence cap apply to every reply.
    pub(super) fn guide(&self, s: &Session, route: Option<&Route>, turn_start: usize) -> Guide {
        let g: &Guidance = &self.config.guidance;
        let texts = Texts::new(self.config.lang);
        let active = s.active_names();
        let specs = self.call_specs(&active);
        let mut guide = Guide {
            max_sentences: g.max_sentences,
            call_line: self.syntax.call_line().unwrap_or_default(),
            ..Guide::default()
        };
        if g.stop_at_turn_end {
            guide
                .stop
                .extend(texts.turn_openers().iter().map(|t| (*t).to_owned()));
            guide.stop.push("\n\n".to_owned());
        }
        if g.constrain_calls {
            guide.calls = Some(specs.clone());
        }
        let Some(route) = route else {
            return guide;
        };
        let first_action = s.history.len() == turn_start + 1;
        let target = if first_action { &route.target } else { &None };
        match target {
            None => {
                // Plain text: no call at all. After the routed call's reply, an answer made
                // of that reply's words (a tiny model otherwise invents what it says).
                guide.calls = Some(Vec::new());
                guide.stop.push(self.call_opening().to_owned());
                // A spoken reply is one line; a tiny model's next lines are an invented
                // dialogue.
                if g.stop_at_turn_end {
                    guide.stop.push("\n".to_owned());
                    if first_action {
                        // A tiny model repeats the request or recites its prompt: neither is
                        // said (cut before a word of it is released; an empty reply then
                        // says the catalog's phrase).
                        let request = s.history.get(turn_start).map_or("", |m| m.content.as_str());
                        guide.stop.extend(echo_stop(request));
                        guide
                            .stop
                            .extend(texts.intro_sentences().into_iter().map(str::to_owned));
                    }
                }
                if !first_action {
                    let turn = s.history.get(turn_start..).unwrap_or_default();
                    let tools: Vec<_> = turn
                        .iter()
                        .filter(|m| m.role == Role::Tool)
                        .cloned()
                        .collect();
                    let words = words_of(&tools);
                    if !words.is_empty() {
                        guide.words = Some(words);
                        guide.max_sentences = Some(1);
                    }
                }
            }
            Some(name) => {
                let Some(spec) = specs.iter().find(|c| &c.name == name) else {
                    // A tool of an inactive set without direct execution: enable its set.
                    if let Some(set) = self.advertised.toolsets.route(name) {
                        let enable = CoreTool::EnableToolset.name();
                        guide.forced = Some(self.call_text(enable, Some((&set.name, false))));
                    }
                    return guide;
                };
                let request = s.history.get(turn_start).map_or("", |m| m.content.as_str());
                if let Some(line) = self.decided_call(spec, request) {
                    guide.forced = Some(line);
                } else if spec.args.iter().any(|a| a.required) {
                    let words =
                        number_groups(words_of(s.history.get(turn_start..).unwrap_or_default()));
                    let mut spec = spec.clone();
                    for a in &mut spec.args {
                        if a.kind == ArgKind::Text && !words.is_empty() {
                            a.kind = ArgKind::TailOf(words.clone());
                        }
                    }
                    guide.prefix = Some(self.call_prefix(name));
                    // A call line ends at its line break; a FunctionGemma block ends with its
                    // own marker (and the format's stop after it).
                    guide.stop = match self.syntax {
                        CallSyntax::ToolCallLine => vec!["\n".to_owned()],
                        CallSyntax::FunctionGemma => Vec::new(),
                    };
                    guide.calls = Some(vec![spec]);
                } else {
                    guide.forced = Some(self.call_text(name, None));
                }
            }
        }
        guide
    }
}
