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
    asks_advice, asks_for_any, asks_if_available, asks_meaning, asks_of_need, asks_opinion,
    asks_should, asks_what_is, asks_worth_or_cause, delimited_text, echo_stop, from_content_start,
    has_word, heard_right, intro_sentences, number_groups, opening_stems, points_there, quotes,
    read_out, remarks, routed_head, says_action, says_need, speaks_of_self, tells_of_past,
    tells_of_self, without_frame_end, without_lead, words_of,
};
use super::told::{asks_with_question_word, told_over, told_sequel};
use super::words::{
    lower_words, said_number, stems, turn_openers, ALL_WORDS, NOW_WORDS, PLACEHOLDERS, POINTS_BACK,
    WHOLE_WORDS,
};
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

mod follow;
mod naming;
mod routing;
mod said;
mod sets;

use naming::{best_named, covered_by_a_set, same_stem, set_words};

pub(crate) use said::FillQuestion;
use said::SaidPlan;

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
            let subjects: Vec<(String, Vec<String>)> = self
                .set_subjects()
                .into_iter()
                .map(|(n, words)| {
                    let st = stems(&format!("{n} {words}"));
                    (n, st)
                })
                .collect();
            out.retain(|e| {
                e.target.as_deref() != Some(out_of_scope.as_str())
                    || !covered_by_a_set(&stems(&e.text), &set_examples, &subjects)
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

    /// Whether `request` opens as examples of set tool `tool` do and as no other set tool's
    /// example does («Запиши, что сантехник придёт в пять» and the notes' «Запиши: …»): its
    /// opening verb tells the action, however near another tool's examples came.
    fn opens_only_as(&self, tool: &str, request: &str) -> bool {
        let Some(first) = opening_stems(&without_lead(request)).into_iter().next() else {
            return false;
        };
        let mut openers = self
            .toolsets
            .iter()
            .flat_map(|s| s.tools.iter())
            .filter(|t| {
                t.examples_in(self.lang)
                    .any(|e| opening_stems(e).first() == Some(&first))
            });
        matches!((openers.next(), openers.next()), (Some(t), None) if t.name == tool)
    }

    /// The question to ask before acting on `route` ([`Technique::AskWhenUnsure`]), in
    /// `lang`: the routed tool's question when the route is ahead of the next by less than
    /// [`Guidance::ask_margin`]; `None` to act (a clear route, a plain reply or a
    /// conversational intent, or a tool without a question: a skill read, a switch). A set
    /// tool `request` says a value for (a number, in its range or not, an enum's word, a
    /// list entry: [`Technique::SaidArgs`]) is not asked about: what was said tells the
    /// tool ("set a timer for 24 hours").
    pub(crate) fn ask(&self, route: &Route, request: &str, lang: Lang) -> Option<String> {
        if !self.on(Technique::AskWhenUnsure) || route.margin >= self.guidance.ask_margin {
            return None;
        }
        let name = route.target.as_deref()?;
        if Intent::from_target(name).is_some() {
            return None;
        }
        let says_value = self.fills_of(name, request).is_some_and(|fills| {
            fills
                .iter()
                .any(|f| matches!(f, Fill::Values(_) | Fill::OutOfRange(_)))
        });
        if says_value || (self.on(Technique::OpeningWords) && self.opens_only_as(name, request)) {
            return None;
        }
        if CoreTool::from_name(name).is_some() {
            return Texts::new(lang).core_ask(name).map(str::to_owned);
        }
        let tool = self.toolsets.owner_set(name)?.tool(name)?;
        tool.ask_in(lang).map(str::to_owned)
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
