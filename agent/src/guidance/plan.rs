//! What a request may produce ([`ReplyPlan`]), planned from the session's state, the
//! turn's route and the techniques on: the calls the state offers in the shape of their
//! declarations, the routed call (decided outright, or its prefix and argument words), and
//! the stops that keep a spoken reply short.

use super::answers::is_question;
use super::ask::only_no;
use super::continuation::continues;
use super::examples::{core_said, route_examples, says_needed, PLAIN_REPLY, SHOWN_HOW};
use super::fill::{fill_args, says_enum_value, Fill, HostValues};
use super::howto::asks_how_to;
use super::refer::{is_id_arg, pointer, points_surely, referents, said_id, Pointer, Referents};
use super::route::{Route, RouteExample, Router};
use super::talk::{is_small_talk, talk_examples, thanks_or_farewell};
use super::text::{
    asks_for_any, asks_if_available, asks_meaning, asks_opinion, asks_what_is, delimited_text,
    echo_stop, from_content_start, has_word, heard_right, intro_sentences, number_groups,
    opening_stems, points_there, routed_head, says_action, speaks_of_self, tells_of_self,
    without_frame_end, without_lead, words_of,
};
use super::words::{lower_words, said_number, stems, turn_openers};
use super::{Guidance, Technique};
use crate::args::{validate_args, ArgDecl, ArgType, RawArgs};
use crate::call_line::parse_output_as;
use crate::function_gemma;
use crate::intent::Intent;
use crate::judge::user_lang;
use crate::messages::{Lang, Texts};
use crate::model::{
    ArgKind, ArgSpec, CallLine, CallSpec, CallSyntax, Message, Model, ModelError, ReplyGuide, Role,
};
use crate::output::{Segment, ToolCall};
use crate::skill::SkillRegistry;
use crate::tools::CoreTool;
use crate::toolset::ToolsetRegistry;

/// How many times the user may have spoken since a list for an ordinal to point into it
/// ([`Planner::narrow_to_referring`]; the current request counts).
const RECENT_TURNS: usize = 3;

/// Words that say an item named by its words is done with («про папоротник уже сделал»,
/// "the gas bill is paid now"): they point at it, as "one" does
/// ([`Planner::narrow_to_referring`]).
const DONE_WORDS: &[&str] = &[
    "done",
    "finished",
    "paid",
    "сделал",
    "сделала",
    "сделано",
    "готово",
    "выполнил",
    "выполнила",
    "выполнено",
    "оплатил",
    "оплатила",
    "оплачено",
];

/// `history` with its last user message (the request being routed) read as `request`.
fn with_last_request(history: &[Message], request: &str) -> Vec<Message> {
    let mut out = history.to_vec();
    if let Some(m) = out.iter_mut().rev().find(|m| m.role == Role::User) {
        m.content = request.to_owned();
    }
    out
}

/// What one request may produce, owned: a forced reply, or the guide
/// [`ReplyPlan::reply_guide`] lends to the request.
#[derive(Debug, Clone, Default)]
pub(crate) struct ReplyPlan {
    /// The whole reply, decided already (a routed call without arguments).
    pub(crate) forced: Option<String>,
    prefix: Option<String>,
    stop: Vec<String>,
    calls: Option<Vec<CallSpec>>,
    max_sentences: Option<usize>,
    words: Option<Vec<String>>,
    call_line: CallLine,
}

impl ReplyPlan {
    /// Take the toolset switches out of the calls this reply may make (after a switch that
    /// changed nothing: asking again would loop). Only where the calls are constrained.
    pub(crate) fn forbid_switches(&mut self) {
        if let Some(calls) = &mut self.calls {
            calls.retain(|c| CoreTool::from_name(&c.name).is_none_or(|core| !core.is_invisible()));
        }
    }

    /// The guide of the request (borrowed from the plan).
    pub(crate) fn reply_guide(&self) -> ReplyGuide<'_> {
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

/// Whether a request of `request_stems` says a word `decl` gives for `value` (`said:`; any
/// value's when `None`), by stem.
fn says_a_value(decl: &ArgDecl, value: Option<&str>, request_stems: &[String]) -> bool {
    decl.said
        .iter()
        .filter(|(v, _)| value.is_none_or(|want| v == want))
        .flat_map(|(_, words)| words)
        .any(|w| stems(w).iter().any(|s| request_stems.contains(s)))
}

/// Whether a request of `request_stems` says `value` by its own word ("pause that":
/// `pause`), by stem.
fn names_value(value: &str, request_stems: &[String]) -> bool {
    stems(value).iter().any(|s| request_stems.contains(s))
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

/// The name among `named` (name, description) whose words share the most stems with
/// `request`; `None` when none shares any. A stem shorter than the stems' five letters is
/// shared by the longer stem it starts (four letters at least): "film" names "films".
fn best_named<'a>(
    request: &str,
    named: impl Iterator<Item = (&'a String, &'a String)>,
) -> Option<String> {
    let want = stems(request);
    let mut best: Option<(f32, &String)> = None;
    for (name, description) in named {
        let have = stems(&format!("{name} {description}"));
        let shares = |a: &String, b: &String| {
            let (short, long) = if a.chars().count() <= b.chars().count() {
                (a, b)
            } else {
                (b, a)
            };
            short == long || (short.chars().count() >= 4 && long.starts_with(short.as_str()))
        };
        let shared = want
            .iter()
            .filter(|w| have.iter().any(|h| shares(w, h)))
            .count();
        let score = if want.is_empty() {
            0.0
        } else {
            shared as f32 / want.len() as f32
        };
        if score > 0.0 && best.is_none_or(|(b, _)| score > b) {
            best = Some((score, name));
        }
    }
    best.map(|(_, n)| n.clone())
}

/// A toolset's words a request names it by: its description and spoken phrases.
fn set_words(set: &crate::toolset::Toolset) -> String {
    let mut words = set.description.clone();
    for lang in [Lang::Ru, Lang::En] {
        if let Some(spoken) = set.spoken_in(lang) {
            words.push(' ');
            words.push_str(spoken);
        }
    }
    words
}

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
fn asks_rather_than_requests(text: &str) -> bool {
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

/// Whether a request of `request` stems is one a declared set's examples cover
/// (`set_examples`: each example's set and stems): it shares two stems or more with one
/// set's examples, one of them the set's own (in two of its examples at least, and in no
/// other set's: "timer", "weather").
fn covered_by_a_set(request: &[String], set_examples: &[(String, Vec<String>)]) -> bool {
    let mut sets: Vec<&str> = set_examples.iter().map(|(t, _)| t.as_str()).collect();
    sets.sort_unstable();
    sets.dedup();
    sets.iter().any(|set| {
        let own: Vec<&Vec<String>> = set_examples
            .iter()
            .filter(|(t, _)| t == set)
            .map(|(_, s)| s)
            .collect();
        let shared: Vec<&String> = request
            .iter()
            .filter(|s| own.iter().any(|e| e.contains(s)))
            .collect();
        let its_own = |stem: &String| {
            own.iter().filter(|e| e.contains(stem)).count() >= 2
                && !set_examples
                    .iter()
                    .any(|(t, e)| t != set && e.contains(stem))
        };
        shared.len() >= 2 && shared.iter().any(|s| its_own(s))
    })
}

/// Whether a route's `target` is a tool: no plain reply, no conversational intent.
fn is_tool(target: &str) -> bool {
    !target.is_empty() && Intent::from_target(target).is_none()
}

/// Whether `route` goes to no tool: no route, a plain reply, or one of `intents`.
fn to_no_tool(route: &Result<Option<Route>, ModelError>, intents: &[Intent]) -> bool {
    match route {
        Ok(Some(r)) => r
            .target
            .as_deref()
            .is_none_or(|t| Intent::from_target(t).is_some_and(|i| intents.contains(&i))),
        _ => true,
    }
}

/// `TOOL_CALL: name` — the line a routed call starts with.
fn call_line(name: &str) -> String {
    CallLine::PORFIRY.call(name)
}

/// What guidance knows of an agent when it plans a request: its guidance, language and the
/// model's call syntax, and what the prompt advertises.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Planner<'a> {
    /// The techniques on.
    pub(crate) guidance: &'a Guidance,
    /// The agent's language.
    pub(crate) lang: Lang,
    /// How the model writes calls.
    pub(crate) syntax: CallSyntax,
    /// The toolsets the prompt advertises.
    pub(crate) toolsets: &'a ToolsetRegistry,
    /// The skills the prompt advertises.
    pub(crate) skills: &'a SkillRegistry,
    /// A tool of an inactive set may be called directly
    /// ([`crate::AgentConfig::direct_execution`]).
    pub(crate) direct_execution: bool,
    /// The host's lists of argument values (`values_from:`).
    pub(crate) values: &'a HostValues,
}

/// A routed call planned from what the user said ([`Planner::said_args_plan`]).
enum SaidPlan {
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
    /// A question that names the call's subject but gives none of the values it needs
    /// ("what's a good temperature for a bedroom?"): no request for the call, a plain
    /// reply.
    NoCall,
}

impl Planner<'_> {
    fn on(&self, t: Technique) -> bool {
        self.guidance.is_on(t)
    }

    /// The declared arguments of tool `name` (a core tool or an advertised set's), in order.
    fn arg_decls(&self, name: &str) -> Vec<ArgDecl> {
        if let Some(core) = CoreTool::from_name(name) {
            return core.args();
        }
        self.toolsets
            .iter()
            .flat_map(|s| s.tools.iter())
            .find(|t| t.name == name)
            .map(|t| t.args.clone())
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
                let first = self.arg_decls(name).into_iter().next().map(|a| a.name);
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
    pub(crate) fn call_specs(&self, active: &[String]) -> Vec<CallSpec> {
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
        let inactive: Vec<String> = self
            .toolsets
            .names()
            .into_iter()
            .filter(|n| !active.iter().any(|a| a.eq_ignore_ascii_case(n)))
            .collect();
        let all_active = inactive.is_empty() && !self.toolsets.names().is_empty();
        let mut specs: Vec<CallSpec> = CoreTool::ALL
            .into_iter()
            .filter(|core| !(all_active && *core == CoreTool::EnableToolset))
            .map(|core| CallSpec {
                name: core.name().to_owned(),
                args: match core {
                    CoreTool::ReadSkill => vec![one_of(self.skills.names(), true)],
                    CoreTool::EnableToolset => vec![one_of(inactive.clone(), true)],
                    CoreTool::DisableToolset => vec![one_of(active.to_vec(), false)],
                    _ => core.args().iter().map(arg_spec).collect(),
                },
            })
            .collect();
        for set in self.toolsets.iter() {
            let on = active.iter().any(|n| n.eq_ignore_ascii_case(&set.name));
            if on || self.direct_execution {
                specs.extend(set.tools.iter().map(|t| CallSpec {
                    name: t.name.clone(),
                    args: t.args.iter().map(arg_spec).collect(),
                }));
            }
        }
        specs
    }

    /// The example requests routing compares with for a session with `active` sets and
    /// `history`: the core tools' and plain replies' ([`route_examples`]) and every
    /// advertised tool's, in the agent's language. Core tools that need something to work
    /// on (skills, active sets) come only when there is some. Under
    /// [`Technique::IdAfterReply`], with `history`, a tool that needs an id (a required
    /// argument `id` or `…_id`, which only a tool's reply gives) is routable only once a
    /// tool of its set has replied in it, or the request says an id aloud ([`said_id`]:
    /// "tell me more about tt3659388") — before that, a request naming a title is a search.
    pub(crate) fn examples_for(
        &self,
        active: &[String],
        history: Option<&[Message]>,
    ) -> Vec<RouteExample> {
        let lang = self.lang;
        // Conversational examples route to their intents, else to a plain reply.
        let talk = self.on(Technique::TalkIntents);
        let mut out: Vec<RouteExample> = route_examples(lang)
            .iter()
            .filter(|(target, _)| match *target {
                "read_skill" => !self.skills.is_empty(),
                "disable_toolset" => !active.is_empty(),
                _ => true,
            })
            .map(|(target, text)| RouteExample {
                target: (*target != PLAIN_REPLY && (talk || Intent::from_target(target).is_none()))
                    .then(|| (*target).to_owned()),
                text: (*text).to_owned(),
            })
            .collect();
        if talk {
            out.extend(
                talk_examples(lang)
                    .iter()
                    .map(|(intent, text)| RouteExample {
                        target: Some(intent.target()),
                        text: (*text).to_owned(),
                    }),
            );
        }
        let id_after_reply = self.on(Technique::IdAfterReply);
        let request = history
            .and_then(|h| h.iter().rev().find(|m| m.role == Role::User))
            .map(|m| m.content.as_str());
        let id_said = request.and_then(said_id).is_some();
        for set in self.toolsets.iter() {
            let prefix = format!("{}_", set.name);
            let replied = id_said
                || history.is_none_or(|h| {
                    h.iter().any(|m| {
                        m.role == Role::Tool
                            && m.name.as_deref().is_some_and(|n| n.starts_with(&prefix))
                    })
                });
            for t in &set.tools {
                let needs_id = t.args.iter().any(|a| a.required && is_id_arg(&a.name));
                if id_after_reply && needs_id && !replied {
                    continue;
                }
                out.extend(t.examples_in(lang).map(|text| RouteExample {
                    target: Some(t.name.clone()),
                    text: text.to_owned(),
                }));
            }
        }
        // What a declared set does is no request "this host cannot do": an out-of-scope
        // example a set's examples cover ("set a timer for ten minutes" beside a timer set)
        // is left out, so it never shadows the set.
        let out_of_scope = Intent::OutOfScope.target();
        let set_examples: Vec<(String, Vec<String>)> = out
            .iter()
            .filter_map(|e| {
                let set = self.toolsets.owner_set(e.target.as_deref()?)?;
                Some((set.name.clone(), stems(&e.text)))
            })
            .collect();
        if self.on(Technique::SetsOverScope) {
            out.retain(|e| {
                e.target.as_deref() != Some(out_of_scope.as_str())
                    || !covered_by_a_set(&stems(&e.text), &set_examples)
            });
        }
        out
    }

    /// A routed call whose one required argument the request itself decides: a skill or a
    /// toolset named by its words ([`Technique::NamedChoice`]: the most stems shared with
    /// the name and description), a number said in digits or as a word, «вторую»
    /// ([`Technique::SpokenNumbers`]), a text the request sets apart, after a colon or in
    /// quotes ([`Technique::DelimitedText`]). `None`: the model fills it in.
    fn decided_call(&self, spec: &CallSpec, request: &str) -> Option<String> {
        let [arg] = spec.args.as_slice() else {
            return None;
        };
        let integer = arg.kind == ArgKind::Integer;
        let value = match (&arg.kind, spec.name.as_str()) {
            (ArgKind::OneOf(_), "read_skill") if self.on(Technique::NamedChoice) => {
                let subjects = self.skill_subjects();
                best_named(request, subjects.iter().map(|(n, d)| (n, d)))?
            }
            (ArgKind::OneOf(_), "enable_toolset") if self.on(Technique::NamedChoice) => best_named(
                request,
                self.toolsets.iter().map(|t| (&t.name, &t.description)),
            )?,
            (ArgKind::Text, _) if self.on(Technique::DelimitedText) => delimited_text(request)?,
            (ArgKind::Integer, _) if self.on(Technique::SpokenNumbers) => {
                said_number(self.lang, request)?.to_string()
            }
            _ => return None,
        };
        Some(self.call_text(&spec.name, Some((&value, integer))))
    }

    /// `spec` with the arguments the request decides fixed to one value each. Under
    /// [`Technique::References`] an id argument (text named `id` or `…_id`) gets the id the
    /// request says aloud ([`said_id`]), else the id of the item pointed at («включи
    /// второй»; without a position, the item the request names by its words ("the one with
    /// Tom Hanks", [`Referents::named`]), else the item the conversation is about: "pause
    /// it" needs the film playing), an integer argument its number («удали последнюю»,
    /// «удали её», "delete the one about the card"); items are those of the latest list of
    /// the tool's set in the history `before` the turn. Under [`Technique::SaidValue`] an argument of a few values
    /// gets the one the request says ("pause that": `pause`). `None`: nothing to fix.
    fn referred_spec(
        &self,
        spec: &CallSpec,
        request: &str,
        before: &[Message],
    ) -> Option<CallSpec> {
        let references = self.on(Technique::References);
        let said = self.on(Technique::SaidValue);
        if !references && !said {
            return None;
        }
        let refs = match self.toolsets.owner_set(&spec.name) {
            Some(set) if references => referents(before, &format!("{}_", set.name)),
            _ => Referents::default(),
        };
        let pointed = pointer(request);
        let request_stems = stems(request);
        // Without a position, an item the request names by its words ("the one about the
        // card", «ту, что про врача») is the one meant.
        let named = match pointed {
            None | Some(Pointer::This) => refs.named(&request_stems),
            Some(_) => None,
        };
        let decls = self.arg_decls(&spec.name);
        let mut out = spec.clone();
        let mut fixed = false;
        for (arg, decl) in out.args.iter_mut().zip(&decls) {
            let name = &decl.name;
            let item = match (named, pointed) {
                (Some(item), _) => Some(item),
                (None, Some(p)) => refs.resolve(p),
                (None, None) => refs.focus.as_ref().or(refs.items.first()),
            };
            let value = match &arg.kind {
                ArgKind::Text if is_id_arg(name) => said_id(request)
                    .map(str::to_owned)
                    .or_else(|| item.and_then(|i| i.id.clone())),
                ArgKind::Integer if pointed.is_some() || named.is_some() => {
                    item.and_then(|i| i.number).map(|n| n.to_string())
                }
                ArgKind::OneOf(values) if said && values.len() > 1 => {
                    // The value by its own stem, or by one of the words said for it.
                    let mut named = values.iter().filter(|v| {
                        names_value(v, &request_stems)
                            || says_a_value(decl, Some(v), &request_stems)
                    });
                    match (named.next(), named.next()) {
                        (Some(v), None) => Some(v.clone()),
                        _ => None,
                    }
                }
                _ => None,
            };
            if let Some(v) = value {
                arg.kind = ArgKind::OneOf(vec![v]);
                fixed = true;
            }
        }
        fixed.then_some(out)
    }

    /// The whole call of a spec whose every argument is fixed to one value
    /// ([`Planner::referred_spec`]); `None` when any is left for the model to write.
    fn fixed_call(&self, spec: &CallSpec) -> Option<String> {
        let values: Vec<&String> = spec
            .args
            .iter()
            .map(|a| match &a.kind {
                ArgKind::OneOf(values) if values.len() == 1 => values.first(),
                _ => None,
            })
            .collect::<Option<_>>()?;
        match values.as_slice() {
            [value] => {
                let integer = value.parse::<i64>().is_ok()
                    && self
                        .toolsets
                        .iter()
                        .flat_map(|s| s.tools.iter())
                        .find(|t| t.name == spec.name)
                        .and_then(|t| t.args.first())
                        .is_some_and(|a| a.ty == ArgType::Integer);
                Some(self.call_text(&spec.name, Some((value, integer))))
            }
            // Positional values in declaration order (a FunctionGemma block names one).
            [_, _, ..] if self.syntax == CallSyntax::ToolCallLine => {
                let joined: Vec<&str> = values.iter().map(|v| v.as_str()).collect();
                Some(format!("{}|{}", call_line(&spec.name), joined.join("|")))
            }
            _ => None,
        }
    }

    /// Embed every example request now (once per model: they are kept), so the first turn
    /// routes at the cost of its own request only. Nothing to do when the guidance does not
    /// route or the model cannot embed.
    ///
    /// # Errors
    /// What the model reports when embedding fails.
    pub(crate) fn embed_routes(
        &self,
        router: &mut Router,
        model: &mut dyn Model,
    ) -> Result<(), ModelError> {
        if !self.on(Technique::Route) {
            return Ok(());
        }
        // With every advertised set active, every example is in the list.
        let all = self.toolsets.names();
        let examples = self.examples_for(&all, None);
        router.prepare(model, &examples)
    }

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
        let compared = if self.on(Technique::LeadWords) {
            heard = heard_right(user_text);
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
        let plain = tells_of_self(user_text) || asks_meaning(user_text);
        if self.on(Technique::TalkIntents) && tool_routed && plain {
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
            let words = lower_words(user_text);
            let points = pointer(user_text).is_some()
                || words
                    .iter()
                    .any(|w| ["them", "both", "оба", "обе", "их"].contains(&w.as_str()));
            (points && decl.args.iter().any(|a| says_enum_value(a, user_text))).then_some(())
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
        match route {
            Ok(Some(r)) if r.score >= self.guidance.min_route_score => Some(r),
            Ok(_) | Err(_) => None,
        }
    }

    /// Whether `request` says a value of an enum argument of a tool of an `active` set, by
    /// the value's own word or a word said for it ([`super::fill`]),
    /// and either points at what it acts on ("now turn *it* off", "turn *them both* off")
    /// or says values of two of the tool's arguments ("the kitchen light off"): one value
    /// word alone («закрывай») may close the set.
    fn says_a_tool_value(&self, active: &[String], request: &str) -> bool {
        let words = lower_words(request);
        let points = pointer(request).is_some()
            || words
                .iter()
                .any(|w| ["them", "both", "оба", "обе", "их"].contains(&w.as_str()));
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
    fn examples_of(
        &self,
        active: &[String],
        history: &[Message],
        tools: &[String],
    ) -> Vec<RouteExample> {
        let mut examples = self.examples_for(active, Some(history));
        examples.retain(|e| e.target.as_ref().is_some_and(|t| tools.contains(t)));
        examples
    }

    /// The tool the previous turn of `history` (which ends with the request being routed)
    /// called last, when it is one a request may go on with: a set's tool or a core tool
    /// that acts (no switch, no skill read). `None` when that turn called none.
    fn previous_call(&self, history: &[Message]) -> Option<String> {
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
    fn one_active_set(&self, active: &[String]) -> Option<Vec<String>> {
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
    fn list_first(&self, target: &str, history: &[Message], request: &str) -> Option<String> {
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

    /// The tool that lists what `tool` keeps ([`Technique::QuestionLists`]): when `tool`
    /// takes a required text, the one tool of its set that needs no argument; else `None`.
    fn lister_for(&self, tool: &str) -> Option<String> {
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

    /// The one tool among the targets of `examples` whose action `request` says by a word
    /// of the tool's `said:` (a core tool's: [`core_said`]; [`says_action`]), a set's tool
    /// before a core tool; `None` when no tool's or several tools'.
    fn action_said(&self, examples: &[RouteExample], request: &str) -> Option<String> {
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
    fn route_to(
        &self,
        router: &mut Router,
        model: &mut dyn Model,
        request: &str,
        examples: &[RouteExample],
        tool: &str,
    ) -> Option<Route> {
        let only: Vec<RouteExample> = examples
            .iter()
            .filter(|e| e.target.as_deref() == Some(tool))
            .cloned()
            .collect();
        router
            .route(model, request, &only, self.guidance)
            .ok()
            .flatten()
    }

    /// The one tool among `examples`' targets whose examples open as a request does, by its
    /// `opening` ([`opening_stems`]: the first word's stem, and the next one's when several
    /// targets share the first) — `None` when none does, several do, or the one is no tool (a plain
    /// reply, an intent). [`Technique::OpeningWords`].
    fn opening_tool(&self, examples: &[RouteExample], opening: &[String]) -> Option<String> {
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

    /// The reply after the skill read in `turn` ([`Technique::SkillSummary`]), in the
    /// language of `request`: what the assistant does with the skill's toolset (its spoken
    /// phrase) and the set's first example request. `None` when the technique is off, the
    /// turn read no skill, or the skill's set has no `spoken:` phrase in that language.
    fn skill_summary(&self, turn: &[Message], request: &str) -> Option<String> {
        if !self.on(Technique::SkillSummary) {
            return None;
        }
        let read = CoreTool::ReadSkill;
        // The skill's name as the dispatcher binds it (positional, `name=…` or JSON).
        let name = turn
            .iter()
            .filter(|m| m.role == Role::Assistant)
            .flat_map(|m| parse_output_as(self.syntax, &m.content).segments)
            .find_map(|seg| match seg {
                Segment::Call(call) if call.name == read.name() => {
                    let args = validate_args(&read.args(), &call.args).ok()?;
                    args.str("name").map(str::to_owned)
                }
                _ => None,
            })?;
        let skill = self.skills.get(&name)?;
        let set = self.toolsets.get(skill.toolset.as_deref()?)?;
        let lang = user_lang(request, self.lang);
        // Only a phrase written to be said: a description is no answer.
        let can = set.spoken.iter().find(|(l, _)| *l == lang)?.1.as_str();
        let example = set.tools.iter().find_map(|t| t.examples_in(lang).next())?;
        let example = example.trim().trim_end_matches(['.', '!']);
        Some(Texts::new(lang).skill_summary(can, example))
    }

    /// The example requests of tool `name` in every language: a core tool's
    /// ([`route_examples`]) or its set's `examples:`.
    fn tool_examples(&self, name: &str) -> Vec<&str> {
        if CoreTool::from_name(name).is_some() {
            return [Lang::Ru, Lang::En]
                .into_iter()
                .flat_map(route_examples)
                .filter(|(target, _)| *target == name)
                .map(|(_, text)| *text)
                .collect();
        }
        self.toolsets
            .owner_set(name)
            .and_then(|set| set.tool(name))
            .map(|t| t.examples.iter().map(|(_, text)| text.as_str()).collect())
            .unwrap_or_default()
    }

    /// Each advertised skill's name and what names its subject: its description, and its
    /// toolset's description and spoken phrases (either language: "films" names `media`
    /// whose description is in Russian).
    fn skill_subjects(&self) -> Vec<(String, String)> {
        self.skills
            .iter()
            .map(|k| {
                let mut words = k.description.clone();
                if let Some(set) = k.toolset.as_deref().and_then(|t| self.toolsets.get(t)) {
                    words.push(' ');
                    words.push_str(&set_words(set));
                }
                (k.name.clone(), words)
            })
            .collect()
    }

    /// Every toolset with its words: its name, description and spoken phrases (the
    /// subjects a request may name, [`best_named`]).
    fn set_subjects(&self) -> Vec<(String, String)> {
        self.toolsets
            .iter()
            .map(|set| (set.name.clone(), set_words(set)))
            .collect()
    }

    /// The question to ask before acting on `route` ([`Technique::AskWhenUnsure`]), in
    /// `lang`: the routed tool's question when the route is ahead of the next by less than
    /// [`Guidance::ask_margin`]; `None` to act (a clear route, a plain reply or a
    /// conversational intent, or a tool without a question: a skill read, a switch).
    pub(crate) fn ask(&self, route: &Route, lang: Lang) -> Option<String> {
        if !self.on(Technique::AskWhenUnsure) || route.margin >= self.guidance.ask_margin {
            return None;
        }
        let name = route.target.as_deref()?;
        if Intent::from_target(name).is_some() {
            return None;
        }
        if CoreTool::from_name(name).is_some() {
            return Texts::new(lang).core_ask(name).map(str::to_owned);
        }
        let tool = self.toolsets.owner_set(name)?.tool(name)?;
        tool.ask_in(lang).map(str::to_owned)
    }

    /// The tools of the set of `list_tool` (other than it) with a value `request` says by a
    /// word the set gives for it (`said:`), or, with `own_words`, by its own word ("play it":
    /// `play`), by stem.
    fn tools_said_in(&self, list_tool: &str, request: &str, own_words: bool) -> Vec<String> {
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
    fn narrow_to_referring(
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

    /// Whether [`Technique::SaidArgs`] fills the arguments of tool `name`: a set's tool
    /// (core tools decide theirs) with arguments, but not one whose only argument is a text
    /// (its words are the request's, as they always were).
    fn fills_said_args(&self, name: &str) -> bool {
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
    fn said_fills(
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
        let mut fills = fill_args(&decls, request, self.lang, self.values, &fixed);
        // A follow-up that points back ("and now switch it off", "make it fifteen") keeps
        // the values of the call it goes on with: a value it does not say is that call's.
        let words = lower_words(request);
        let all = words
            .iter()
            .any(|w| ["both", "them", "all", "оба", "обе", "их", "все"].contains(&w.as_str()));
        if pointer(request).is_some() || continues(request) || all {
            for (decl, fill) in decls.iter().zip(fills.iter_mut()) {
                if *fill == Fill::Missing {
                    let mut values = self.previous_values(before, &spec.name, &decl.name);
                    if !all {
                        values = values.pop().into_iter().collect();
                    }
                    if !values.is_empty() {
                        *fill = Fill::Values(values);
                    }
                }
            }
        }
        (decls, fills)
    }

    /// The values argument `arg` had in the calls of a tool of `tool`'s set in the latest
    /// turn of `history` (within the last [`RECENT_TURNS`] requests) that made any, the
    /// latest first.
    fn previous_values(&self, history: &[Message], tool: &str, arg: &str) -> Vec<String> {
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
    fn said_args_plan(
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
        let request = filled.unwrap_or(request);
        let (decls, mut fills) = self.said_fills(spec, request, referred, before);
        // An optional text whose run is only the tool's frame ("set a timer") is unsaid.
        for (decl, fill) in decls.iter().zip(fills.iter_mut()) {
            if let Fill::Text(span) = fill {
                if !decl.required && self.text_words(&spec.name, span).is_empty() {
                    *fill = Fill::Absent;
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
        let rest_decided = fills
            .iter()
            .enumerate()
            .all(|(i, f)| several.contains(&i) || f.decided().is_some() || *f == Fill::Absent);
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
                                            f.decided()
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
                    if !words.is_empty() {
                        arg.kind = ArgKind::TailOf(words);
                    }
                }
                Fill::Absent => arg.kind = ArgKind::OneOf(vec![String::new()]),
                Fill::Missing | Fill::OutOfRange(_) | Fill::Unmatched(_) => {}
            }
        }
        Some(SaidPlan::Guided(out))
    }

    /// The words a text argument of `tool` is made of from `text` (a run of the request):
    /// its words, a number said in groups one word, the routed tool's frame at either end
    /// left out ([`Technique::FrameWords`], [`Technique::ContentStart`]).
    fn text_words(&self, tool: &str, text: &str) -> Vec<String> {
        let mut words = words_of(&[Message::user(text)], self.guidance);
        if self.on(Technique::NumberGroups) {
            words = number_groups(words);
        }
        let examples = self.tool_examples(tool);
        if self.on(Technique::FrameWords) {
            words = without_frame_end(words, &examples);
        }
        if self.on(Technique::ContentStart) {
            words = from_content_start(words, &examples);
        }
        words
    }

    /// A whole call of `name` with these values (`None`: left out), in the model's syntax.
    fn call_with(&self, name: &str, values: &[(&ArgDecl, Option<&str>)]) -> String {
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
        // kitchen light keep flickering?"): no call.
        let missing = fills.contains(&Fill::Missing);
        if missing && asks_rather_than_requests(request) {
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
                            let described = decl
                                .description
                                .as_deref()
                                .filter(|d| user_lang(d, lang) == lang);
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
        let spec = CallSpec {
            name: name.to_owned(),
            args: self.arg_decls(name).iter().map(arg_spec).collect(),
        };
        let (_, before) = self.said_fills(&spec, request, None, &[]);
        let (_, after) = self.said_fills(&spec, &format!("{request} {answer}"), None, &[]);
        let (_, alone) = self.said_fills(&spec, answer, None, &[]);
        before
            .iter()
            .zip(after.iter().zip(&alone))
            .any(|(b, (a, only))| {
                matches!(b, Fill::Missing | Fill::Unmatched(_))
                    && !matches!(a, Fill::Missing | Fill::Unmatched(_))
                    && !matches!(only, Fill::Missing | Fill::Unmatched(_) | Fill::Absent)
            })
    }

    /// The plan of a request of a session with `active` sets and `history`, in a turn that
    /// began at history index `turn_start`. A routed turn's first action follows `route`:
    /// the chosen call (its text arguments made of the words of the turn so far: the
    /// request, tool replies) or plain text; once that action is answered, the reply is
    /// plain text ([`Technique::OneAction`]: a tiny model otherwise calls again and again).
    /// Otherwise the state's calls constrain the grammar. Stops and the sentence cap apply
    /// to every reply. `request_at` is the history index of the request the first action
    /// serves: `turn_start`, or the earlier request a yes confirms
    /// ([`Technique::AskWhenUnsure`]), whose words the call's arguments are then made of.
    pub(crate) fn plan(
        &self,
        active: &[String],
        history: &[Message],
        route: Option<&Route>,
        turn_start: usize,
        request_at: usize,
        filled: Option<&str>,
    ) -> ReplyPlan {
        let g = self.guidance;
        let specs = self.call_specs(active);
        let mut plan = ReplyPlan {
            max_sentences: g.sentence_cap(),
            call_line: self.syntax.call_line().unwrap_or_default(),
            ..ReplyPlan::default()
        };
        let turn_end = self.on(Technique::TurnEndStops);
        if turn_end {
            plan.stop
                .extend(turn_openers(self.lang).iter().map(|t| (*t).to_owned()));
            plan.stop.push("\n\n".to_owned());
        }
        if self.on(Technique::ConstrainCalls) {
            plan.calls = Some(specs.clone());
        }
        let Some(route) = route else {
            return plan;
        };
        let first_action = history.len() == turn_start + 1;
        if !first_action && !self.on(Technique::OneAction) {
            // The routed action is answered: the rest of the turn is unrouted.
            return plan;
        }
        let request_at = request_at.min(turn_start);
        let request = history.get(request_at).map_or("", |m| m.content.as_str());
        let turn = history.get(turn_start..).unwrap_or_default();
        // A conversational intent the turn did not answer itself is a plain reply.
        let target = match &route.target {
            Some(t) if first_action && Intent::from_target(t).is_none() => &route.target,
            _ => &None,
        };
        if !first_action && route.target.as_deref() == Some(CoreTool::ReadSkill.name()) {
            if let Some(summary) = self.skill_summary(turn, request) {
                plan.forced = Some(summary);
                return plan;
            }
        }
        match target {
            None => {
                // Plain text: no call at all. After the routed call's reply, an answer made
                // of that reply's words (a tiny model otherwise invents what it says).
                plan.calls = Some(Vec::new());
                plan.stop.push(self.call_opening().to_owned());
                // A spoken reply is one line; a tiny model's next lines are an invented
                // dialogue.
                if turn_end {
                    plan.stop.push("\n".to_owned());
                    if first_action {
                        // A tiny model repeats the request or recites its prompt: neither is
                        // said (cut before a word of it is released; an empty reply then
                        // says the no-reply phrase).
                        if self.on(Technique::EchoStop) {
                            plan.stop.extend(echo_stop(request));
                        }
                        if self.on(Technique::IntroStop) {
                            let header = Texts::new(self.lang).core_header();
                            plan.stop
                                .extend(intro_sentences(header).into_iter().map(str::to_owned));
                        }
                    }
                }
                if !first_action && self.on(Technique::ReplyWords) {
                    let tools: Vec<_> = turn
                        .iter()
                        .filter(|m| m.role == Role::Tool)
                        .cloned()
                        .collect();
                    let words = words_of(&tools, g);
                    if !words.is_empty() {
                        plan.words = Some(words);
                        plan.max_sentences = Some(1);
                    }
                }
            }
            Some(name) => {
                let Some(spec) = specs.iter().find(|c| &c.name == name) else {
                    // A tool of an inactive set without direct execution: enable its set.
                    if let Some(set) = self.toolsets.owner_set(name) {
                        let enable = CoreTool::EnableToolset.name();
                        plan.forced = Some(self.call_text(enable, Some((&set.name, false))));
                    }
                    return plan;
                };
                let before = history.get(..request_at).unwrap_or_default();
                let referred = self.referred_spec(spec, request, before);
                let said = self.said_args_plan(spec, request, filled, referred.as_ref(), before);
                if let Some(said) = said {
                    match said {
                        SaidPlan::Forced(line) => plan.forced = Some(line),
                        SaidPlan::Guided(spec) => {
                            plan.prefix = Some(self.call_prefix(name));
                            plan.stop = match self.syntax {
                                CallSyntax::ToolCallLine => vec!["\n".to_owned()],
                                CallSyntax::FunctionGemma => Vec::new(),
                            };
                            plan.calls = Some(vec![spec]);
                        }
                    }
                    return plan;
                }
                let decided = match &referred {
                    Some(r) => self.fixed_call(r),
                    None => self.decided_call(spec, request),
                };
                if let Some(line) = decided {
                    plan.forced = Some(line);
                } else if spec.args.iter().any(|a| a.required) {
                    let mut spec = referred.unwrap_or_else(|| spec.clone());
                    if self.on(Technique::TailOfWords) {
                        // A first action's: the words of the request it serves (the turn's
                        // own, or the earlier one a yes confirms).
                        let served = history.get(request_at..=request_at).unwrap_or_default();
                        let mut words = words_of(served, g);
                        if self.on(Technique::NumberGroups) {
                            words = number_groups(words);
                        }
                        let examples = self.tool_examples(name);
                        if self.on(Technique::FrameWords) {
                            words = without_frame_end(words, &examples);
                        }
                        if self.on(Technique::ContentStart) {
                            words = from_content_start(words, &examples);
                        }
                        for a in &mut spec.args {
                            if a.kind == ArgKind::Text && !words.is_empty() {
                                a.kind = ArgKind::TailOf(words.clone());
                            }
                        }
                    }
                    plan.prefix = Some(self.call_prefix(name));
                    // A call line ends at its line break; a FunctionGemma block ends with its
                    // own marker (and the format's stop after it).
                    plan.stop = match self.syntax {
                        CallSyntax::ToolCallLine => vec!["\n".to_owned()],
                        CallSyntax::FunctionGemma => Vec::new(),
                    };
                    plan.calls = Some(vec![spec]);
                } else {
                    plan.forced = Some(self.call_text(name, None));
                }
            }
        }
        plan
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_subject_is_named_by_its_words_and_by_a_short_stem_of_them() {
        let named = [
            ("media".to_string(), "find and play films".to_string()),
            (
                "notes".to_string(),
                "take, list and delete notes".to_string(),
            ),
        ];
        let best = |request: &str| best_named(request, named.iter().map(|(n, d)| (n, d)));
        assert_eq!(
            best("walk me through the film feature").as_deref(),
            Some("media")
        );
        assert_eq!(best("how do my notes work").as_deref(), Some("notes"));
        // Nothing shared, no subject; a three-letter word starts no longer one ("fil" is no "films").
        assert_eq!(best("fil the tank"), None);
        assert_eq!(best("what about the weather"), None);
    }
}
