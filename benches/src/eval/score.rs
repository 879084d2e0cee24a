//! What the model did first, how it compares with a turn, and what the judge of replies says
//! of the turn's reply. Pure logic: no model.

use porfiry_agent::{
    declines, is_refusal, judge_reply, parse_output, validate_args, Agent, ArgDecl, ArgProblem,
    ArgType, Args, JudgeContext, Lang, ToolCall, Verdict,
};

use super::case::{EvalTurn, Expected};

/// The first action of a turn: the first tool call of its first generation, or a plain reply.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FirstAction {
    /// The first generation made no tool call.
    Text,
    /// The first generation's first call.
    Call {
        /// The tool's name as parsed (lower case).
        name: String,
        /// The call line as written.
        line: String,
        /// The validated arguments (`null` when they do not validate or the tool is unknown).
        args: Option<serde_json::Value>,
        /// Whether the dispatcher could take the call as it is.
        verdict: CallVerdict,
        /// Why not, when it could not.
        #[serde(skip_serializing_if = "Option::is_none")]
        problem: Option<String>,
    },
    /// No call and no model call: the turn asked for a required argument of this tool the
    /// request did not say.
    AskedFor {
        /// The tool.
        name: String,
    },
    /// No call and no model call: a value said for this tool is outside its range.
    OutOfRange {
        /// The tool.
        name: String,
    },
    /// The model produced nothing (it failed before its first generation finished).
    NoOutput {
        /// What the model reported.
        error: String,
    },
}

impl FirstAction {
    /// `text`, `name`, `name?` (unknown tool), `name!` (bad arguments), `none`.
    pub fn label(&self) -> String {
        match self {
            FirstAction::Text => "text".into(),
            FirstAction::Call { name, verdict, .. } => match verdict {
                CallVerdict::Valid => name.clone(),
                CallVerdict::UnknownTool => format!("{name}?"),
                CallVerdict::BadArgs => format!("{name}!"),
            },
            FirstAction::AskedFor { name } => format!("ask_for:{name}"),
            FirstAction::OutOfRange { name } => format!("out_of_range:{name}"),
            FirstAction::NoOutput { .. } => "none".into(),
        }
    }

    /// Whether it is a call the dispatcher cannot take (unknown tool or bad arguments).
    pub fn is_malformed(&self) -> bool {
        matches!(self, FirstAction::Call { verdict, .. } if *verdict != CallVerdict::Valid)
    }
}

/// How the dispatcher would take a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CallVerdict {
    /// A known tool with valid arguments.
    Valid,
    /// No core tool and no declared toolset tool of that name.
    UnknownTool,
    /// A known tool whose arguments do not validate (or name no existing skill / toolset).
    BadArgs,
}

/// The first action of a generation's `output` for `agent` (its skills and toolsets).
pub fn first_action(output: &str, agent: &Agent) -> FirstAction {
    let parsed = parse_output(output);
    let first = parsed.calls().next();
    match first {
        None => FirstAction::Text,
        Some(call) => {
            let (verdict, args, problem) = match classify_call(call, agent) {
                Ok(args) => (CallVerdict::Valid, Some(args.to_json()), None),
                Err((verdict, why)) => (verdict, None, Some(why)),
            };
            FirstAction::Call {
                name: call.name.clone(),
                line: call.line.clone(),
                args,
                verdict,
                problem,
            }
        }
    }
}

/// Validate `call` as the dispatcher would: its validated arguments, or the verdict and why.
///
/// Known tools are the five core tools and every declared tool of `agent`'s toolsets, active
/// or not (the dispatcher routes a call of an inactive set's tool by activating the set).
/// `get_current_time` takes anything (the dispatcher ignores its arguments); `read_skill`,
/// `enable_toolset` and a named `disable_toolset` must name a skill or set that exists.
///
/// # Errors
/// `(CallVerdict::UnknownTool | CallVerdict::BadArgs, reason)`.
pub fn classify_call(call: &ToolCall, agent: &Agent) -> Result<Args, (CallVerdict, String)> {
    let bad = |why: String| (CallVerdict::BadArgs, why);
    let valid = |decls: &[ArgDecl]| validate_args(decls, &call.args).map_err(|p| bad(problem(&p)));
    match call.name.as_str() {
        "get_current_time" => Ok(Args::default()),
        "show_text" => valid(&[text_arg("text", true)]),
        "read_skill" => {
            let args = valid(&[text_arg("name", true)])?;
            let name = args.str("name").unwrap_or_default();
            match agent.skills().get(name) {
                Some(_) => Ok(args),
                None => Err(bad(format!("no skill {name:?}"))),
            }
        }
        "enable_toolset" | "disable_toolset" => {
            let required = call.name == "enable_toolset";
            let args = valid(&[text_arg("name", required)])?;
            match args.str("name") {
                Some(name) if agent.toolsets().get(name).is_none() => {
                    Err(bad(format!("no toolset {name:?}")))
                }
                _ => Ok(args),
            }
        }
        name => {
            let decl = agent
                .toolsets()
                .owner_set(name)
                .and_then(|set| set.tool(name))
                .ok_or_else(|| (CallVerdict::UnknownTool, format!("no tool {name:?}")))?;
            valid(&decl.args)
        }
    }
}

/// The argument names `tool` declares for `agent`; `None` for an unknown tool.
pub(super) fn declared_args(tool: &str, agent: &Agent) -> Option<Vec<String>> {
    match tool {
        "get_current_time" => Some(Vec::new()),
        "show_text" => Some(vec!["text".into()]),
        "read_skill" | "enable_toolset" | "disable_toolset" => Some(vec!["name".into()]),
        name => agent
            .toolsets()
            .owner_set(name)
            .and_then(|set| set.tool(name))
            .map(|t| t.args.iter().map(|a| a.name.to_lowercase()).collect()),
    }
}

/// An argument of a core tool (as `porfiry-agent` declares them; the prompt shows the same,
/// see the tests).
fn text_arg(name: &str, required: bool) -> ArgDecl {
    ArgDecl {
        name: name.to_string(),
        ty: ArgType::String,
        required,
        description: None,
        said: Vec::new(),
        ..Default::default()
    }
}

fn problem(p: &ArgProblem) -> String {
    match p {
        ArgProblem::Missing(a) => format!("missing argument {a:?}"),
        ArgProblem::Unknown(a) => format!("unknown argument {a:?}"),
        ArgProblem::TooMany(n) => format!("{n} positional values, more than declared"),
        ArgProblem::NotA(a, ty) => format!("argument {a:?} is not a {ty}"),
        ArgProblem::NotOneOf(a, values) => format!("argument {a:?} is not one of {values:?}"),
        ArgProblem::Repeated(a) => format!("argument {a:?} given twice"),
        ArgProblem::OutOfRange { arg, value, .. } => {
            format!("argument {arg:?} = {value} is outside its declared range")
        }
    }
}

/// How a first action compares with a case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Score {
    /// A valid call matching an expected call (name and the arguments the case names), or a
    /// plain reply where one is expected.
    pub correct: bool,
    /// The first action's tool name matches an expected call (or it is a plain reply where
    /// one is expected), whatever its arguments.
    pub name_correct: bool,
    /// The case accepts a plain reply and the model called a tool no alternative accepts.
    pub false_call: bool,
    /// The first action is a call the dispatcher cannot take (unknown tool, bad arguments).
    pub malformed: bool,
}

/// Score `action` against `turn`.
pub fn score_turn(turn: &EvalTurn, action: &FirstAction) -> Score {
    let mut score = Score {
        malformed: action.is_malformed(),
        ..Score::default()
    };
    for e in &turn.expect {
        let (name_ok, ok) = matches(e, action);
        score.name_correct |= name_ok;
        score.correct |= ok;
    }
    score.false_call =
        turn.expects_text() && matches!(action, FirstAction::Call { .. }) && !score.correct;
    score
}

/// What the reply of a turn is worth, beyond its first action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplyScore {
    /// The judge's verdict on the final reply; `None` when there is no reply to judge (the
    /// turn was stopped after its first generation's call).
    pub verdict: Option<Verdict>,
    /// With `reply_contains`: the reply contains every substring (case-insensitive).
    pub reply_ok: Option<bool>,
    /// With `reply_matches`: the reply matches the expression (case-insensitive).
    pub matches_ok: Option<bool>,
    /// The turn is right judged as a person would: the first action is right, the reply
    /// passes the judge (a `text` turn's reply is not the refusal; a `refuse` turn's reply is
    /// the refusal or an acceptable reply that declines), and `reply_contains` /
    /// `reply_matches` hold where given.
    pub judged: bool,
}

/// Judge `reply` (the turn's final reply; `None` when the turn stopped after a call) of
/// `turn` whose first action scored `score`; `lang` is the default language.
pub fn judge_turn(
    turn: &EvalTurn,
    action: &FirstAction,
    score: &Score,
    reply: Option<&str>,
    lang: Lang,
) -> ReplyScore {
    let refuse = turn.expect.contains(&Expected::Refuse);
    let text = turn.expect.contains(&Expected::Text);
    // After a show on the screen, its confirmation is the answer.
    let shown = matches!(action, FirstAction::Call { name, .. } if name == "show_text");
    let context = JudgeContext {
        answer_due: !refuse,
        shown,
    };
    let verdict = reply.map(|r| judge_reply(r, &turn.user, lang, context));
    let acceptable = verdict.is_none_or(Verdict::is_acceptable);
    let reply_ok = (!turn.reply_contains.is_empty()).then(|| {
        let r = reply.unwrap_or_default().to_lowercase();
        turn.reply_contains
            .iter()
            .all(|w| r.contains(&w.to_lowercase()))
    });
    let matches_ok = turn
        .reply_matches
        .as_deref()
        .map(|pattern| reply_regex(pattern).is_ok_and(|re| re.is_match(reply.unwrap_or_default())));
    let reply_right = match action {
        FirstAction::Text => {
            let r = reply.unwrap_or_default();
            let declined = is_refusal(r) || (acceptable && declines(r));
            (text && acceptable && !is_refusal(r)) || (refuse && declined)
        }
        _ => acceptable,
    };
    ReplyScore {
        verdict,
        reply_ok,
        matches_ok,
        judged: score.correct
            && reply_right
            && reply_ok != Some(false)
            && matches_ok != Some(false),
    }
}

/// `reply_matches` compiled: case-insensitive.
///
/// # Errors
/// The regex crate's reason when the expression does not compile.
pub fn reply_regex(pattern: &str) -> Result<regex::Regex, String> {
    regex::RegexBuilder::new(pattern)
        .case_insensitive(true)
        .size_limit(1 << 20)
        .build()
        .map_err(|e| e.to_string())
}

/// (name right, all right) of one alternative.
fn matches(e: &Expected, action: &FirstAction) -> (bool, bool) {
    match (e, action) {
        (Expected::Text | Expected::Refuse, FirstAction::Text) => (true, true),
        (Expected::AskFor(want), FirstAction::AskedFor { name })
        | (Expected::OutOfRange(want), FirstAction::OutOfRange { name })
            if want == name =>
        {
            (true, true)
        }
        (
            Expected::Call {
                name,
                args,
                args_contain,
            },
            FirstAction::Call {
                name: got,
                args: got_args,
                verdict,
                ..
            },
        ) if name == got => {
            let ok = *verdict == CallVerdict::Valid
                && args.iter().all(|(k, want)| {
                    arg_text(got_args.as_ref(), k).is_some_and(|v| same_value(v.trim(), want))
                })
                && args_contain.iter().all(|(k, part)| {
                    arg_text(got_args.as_ref(), k)
                        .is_some_and(|v| v.to_lowercase().contains(&part.to_lowercase()))
                });
            (true, ok)
        }
        _ => (false, false),
    }
}

/// Whether `executed` (the whole turn's calls, by name and validated arguments as JSON) are
/// exactly `want` in order, switches left out.
pub fn calls_match(want: &[Expected], executed: &[(String, serde_json::Value)]) -> bool {
    let got: Vec<&(String, serde_json::Value)> = executed
        .iter()
        .filter(|(n, _)| !matches!(n.as_str(), "enable_toolset" | "disable_toolset"))
        .collect();
    got.len() == want.len()
        && want.iter().zip(got).all(|(e, (name, args))| {
            let action = FirstAction::Call {
                name: name.clone(),
                line: String::new(),
                args: Some(args.clone()),
                verdict: CallVerdict::Valid,
                problem: None,
            };
            matches(e, &action).1
        })
}

/// Whether an argument written `got` is the value `want` a case expects: the same text, or
/// the same number (a `number` argument validated as `26.0` is the `26` said).
fn same_value(got: &str, want: &str) -> bool {
    got == want
        || matches!((got.parse::<f64>(), want.trim().parse::<f64>()), (Ok(a), Ok(b)) if a == b)
}

/// A validated argument as text (strings unquoted, numbers and flags as written by JSON).
fn arg_text(args: Option<&serde_json::Value>, key: &str) -> Option<String> {
    match args?.get(key)? {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Null => None,
        other => Some(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use porfiry_agent::{AgentConfig, ManualClock};

    use super::*;
    use crate::eval::case::parse_eval_file;

    fn agent() -> Agent {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let loaded = Agent::load(
            AgentConfig::default(),
            &[dir.join("skills")],
            &[dir.join("toolsets")],
            Arc::new(ManualClock::parse("2026-08-22T10:00:00+03:00").unwrap()),
        );
        assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
        loaded.value
    }

    fn turn(expect: &str) -> EvalTurn {
        turn_of(&format!("{{user: u, expect: {expect}}}"))
    }

    fn turn_of(case: &str) -> EvalTurn {
        let text = format!("cases: [{case}]");
        parse_eval_file(&text, std::path::Path::new("x.yaml"))
            .unwrap()
            .cases
            .remove(0)
            .turns
            .remove(0)
    }

    /// `want` = (correct, name_correct, false_call, malformed).
    fn check(output: &str, expect: &str, want: (bool, bool, bool, bool)) {
        let a = agent();
        let action = first_action(output, &a);
        let s = score_turn(&turn(expect), &action);
        assert_eq!(
            (s.correct, s.name_correct, s.false_call, s.malformed),
            want,
            "{output:?} vs {expect}: {action:?}"
        );
    }

    #[test]
    fn a_number_is_its_value_however_written() {
        assert!(same_value("26.0", "26"));
        assert!(same_value("-10", "-10.0"));
        assert!(same_value("2.5", "2.5"));
        assert!(!same_value("2.5", "25"));
        assert!(same_value("kitchen", "kitchen"));
        assert!(!same_value("kitchen", "hallway"));
    }

    #[test]
    fn first_actions_are_scored() {
        let time = "[{call: get_current_time}]";
        check(
            "TOOL_CALL: get_current_time",
            time,
            (true, true, false, false),
        );
        check("Сейчас 10 утра.", time, (false, false, false, false));
        check(
            "Сейчас...\nTOOL_CALL: get_current_time|Moscow",
            time,
            (true, true, false, false),
        );
        check("TOOL_CALL: get_time", time, (false, false, false, true));

        let notes = "[{call: enable_toolset, args: {name: notes}}, {call: notes_add, args_contain: {text: хлеб}}]";
        check(
            "TOOL_CALL: enable_toolset|notes",
            notes,
            (true, true, false, false),
        );
        check(
            "TOOL_CALL: enable_toolset|name=notes",
            notes,
            (true, true, false, false),
        );
        check(
            "TOOL_CALL: enable_toolset|media",
            notes,
            (false, true, false, false),
        );
        check(
            "TOOL_CALL: enable_toolset|weather",
            notes,
            (false, true, false, true),
        );
        check(
            "TOOL_CALL: enable_toolset",
            notes,
            (false, true, false, true),
        );
        check(
            "TOOL_CALL: notes_add|Купить ХЛЕБ",
            notes,
            (true, true, false, false),
        );
        check(
            "TOOL_CALL: notes_add|молоко",
            notes,
            (false, true, false, false),
        );
        check("TOOL_CALL: notes_add", notes, (false, true, false, true));
        // Only the first call counts.
        check(
            "TOOL_CALL: notes_list\nTOOL_CALL: notes_add|хлеб",
            notes,
            (false, false, false, false),
        );

        let plain = "[{text: true}]";
        check("Привет! Всё хорошо.", plain, (true, true, false, false));
        check(
            "TOOL_CALL: get_current_time",
            plain,
            (false, false, true, false),
        );
        check(
            "TOOL_CALL: weather_get|Москва",
            plain,
            (false, false, true, true),
        );
        check(
            "TOOL_CALL: show_text|Привет",
            "[{text: true}, {call: show_text}]",
            (true, true, false, false),
        );

        check(
            "TOOL_CALL: read_skill|media",
            "[{call: read_skill, args: {name: media}}]",
            (true, true, false, false),
        );
        check(
            "TOOL_CALL: read_skill|cooking",
            "[{call: read_skill}]",
            (false, true, false, true),
        );
        check(
            "TOOL_CALL: notes_delete|2",
            "[{call: notes_delete, args: {number: 2}}]",
            (true, true, false, false),
        );
        check(
            "TOOL_CALL: notes_delete|два",
            "[{call: notes_delete}]",
            (false, true, false, true),
        );
        check(
            "TOOL_CALL: media_play|tt1|pause",
            "[{call: media_play, args: {action: pause}}]",
            (true, true, false, false),
        );
        check(
            "TOOL_CALL: disable_toolset",
            "[{call: disable_toolset}]",
            (true, true, false, false),
        );
        check(
            "TOOL_CALL: media_foo|x",
            "[{call: media_search}]",
            (false, false, false, true),
        );
    }

    /// (judged, verdict's rule) of `reply` to a turn whose first action was `output`.
    fn judged(case: &str, output: &str, reply: Option<&str>) -> (bool, Option<&'static str>) {
        let a = agent();
        let t = turn_of(case);
        let action = first_action(output, &a);
        let s = score_turn(&t, &action);
        let r = judge_turn(&t, &action, &s, reply, Lang::Ru);
        (
            r.judged,
            r.verdict.and_then(Verdict::rule).map(|r| r.name()),
        )
    }

    #[test]
    fn replies_are_judged() {
        let hello = "{user: Привет!, expect: [{text: true}]}";
        assert_eq!(judged(hello, "Привет!", Some("Привет!")), (true, None));
        assert_eq!(
            judged(hello, "Hi there", Some("Hi there")),
            (false, Some("wrong_language"))
        );
        // The catch-all refusal is no answer to a greeting.
        let refusal = porfiry_agent::Texts::new(Lang::Ru).turn_no_reply();
        assert_eq!(
            judged(hello, refusal, Some(refusal)),
            (false, Some("refusal"))
        );
        let pizza = "{user: Закажи пиццу, expect: [{refuse: true}]}";
        assert_eq!(judged(pizza, refusal, Some(refusal)), (true, None));
        let declining = "Простите, пиццу я заказать не могу.";
        assert_eq!(judged(pizza, declining, Some(declining)), (true, None));
        assert_eq!(
            judged(pizza, "Пицца едет!", Some("Пицца едет!")),
            (false, None)
        );
        assert_eq!(
            judged(pizza, "TOOL_CALL: get_current_time", None),
            (false, None)
        );
        // After a call: the final reply is judged where there is one.
        let time =
            "{user: Который час?, expect: [{call: get_current_time}], reply_matches: '10[:.]00'}";
        assert_eq!(
            judged(time, "TOOL_CALL: get_current_time", Some("Сейчас 10:00.")),
            (true, None)
        );
        assert_eq!(
            judged(time, "TOOL_CALL: get_current_time", Some("Сейчас десять.")),
            (false, None)
        );
        assert_eq!(
            judged(
                time,
                "TOOL_CALL: get_current_time",
                Some("Сейчас 10:00 | ok")
            ),
            (false, Some("pipe"))
        );
        let cut = "{user: Который час?, expect: [{call: get_current_time}]}";
        assert_eq!(
            judged(cut, "TOOL_CALL: get_current_time", None),
            (true, None)
        );
        assert_eq!(
            judged(cut, "Сейчас 10:00.", Some("Сейчас 10:00.")),
            (false, None)
        );
        assert!(reply_regex("(").is_err());
        assert!(reply_regex("ТОМБ").unwrap().is_match("томб"));
    }

    #[test]
    fn first_action_labels() {
        let a = agent();
        assert_eq!(first_action("hi", &a).label(), "text");
        assert_eq!(first_action("TOOL_CALL: x_y", &a).label(), "x_y?");
        assert_eq!(
            first_action("TOOL_CALL: show_text", &a).label(),
            "show_text!"
        );
        let FirstAction::Call { args, .. } = first_action("TOOL_CALL: show_text|a | b", &a) else {
            panic!()
        };
        assert_eq!(args, Some(serde_json::json!({"text": "a|b"})));
    }

    #[test]
    fn the_core_declarations_match_the_agents() {
        // The prompt's core lines show the same arguments (required, optional `?`).
        let mut a = agent();
        let prompt = a.prompt("s");
        for line in [
            "show_text|text ",
            "read_skill|name ",
            "enable_toolset|name ",
            "disable_toolset|name? ",
        ] {
            assert!(
                prompt.text().contains(line),
                "{line:?} in {}",
                prompt.text()
            );
        }
    }
}
