//! The case file format.
//!
//! ```yaml
//! lang: ru                                  # prompt and reply language (default ru)
//! clock: 2026-08-22T10:00:00+03:00          # the manual clock (default 2026-01-01T00:00:00+00:00)
//! skills: [my/skills]                       # optional, relative to the file (default: built-in)
//! toolsets: [my/toolsets]                   # optional, relative to the file (default: built-in)
//! tool_results: {media_search: "1. Tomb Raider (2018) id=tt1365519", notes_add: "ok"}
//! cases:
//!   - user: "Который час?"
//!     expect: [{call: get_current_time}]
//!     reply_contains: ["10:00"]             # optional: the whole turn's final reply
//!   - user: "Запиши, что надо купить хлеб"
//!     expect: [{call: enable_toolset, args: {name: notes}}, {call: notes_add, args_contain: {text: хлеб}}]
//!   - user: "Найди фильм про Лару Крофт"
//!     active: [media]                       # toolsets active before the turn
//!     expect: [{call: media_search, args_contain: {query: Лар}}]
//!   - user: "Привет! Как дела?"
//!     expect: [{text: true}]                # a plain reply the judge accepts, no tool call
//!   - user: "Закажи пиццу"
//!     expect: [{refuse: true}]              # no call; the refusal or a sane reply declining
//!   - turns:                                # a conversation: one session, history kept
//!       - user: "Найди фильм про Лару Крофт"
//!         expect: [{call: enable_toolset, args: {name: media}}, {call: media_search}]
//!       - user: "Включи первый"
//!         expect: [{call: media_play, args: {id: tt1365519}}]
//!         reply_matches: "tomb|запущ"       # optional: a regex over the turn's reply
//! ```
//!
//! A case gives either `user` (one turn: its `expect`, `reply_contains`, `reply_matches`
//! beside it) or `turns` (a list of them). The turns of a conversation run whole, one after
//! another in one session, stand-ins answering the calls; each turn is scored.
//! `reply_matches` is a regular expression, matched case-insensitively (checked when the
//! plan is made).
//!
//! `expect` may also say `{ask_for: TOOL}` (no call: the assistant asks for a required
//! argument of TOOL the request did not say) or `{out_of_range: TOOL}` (no call: a value
//! said is outside its declared range, the reply says the range). A turn's `calls:` lists
//! every call the whole turn must execute, in order (switches not counted). A file's
//! `values: {NAME: [..]}` gives the host's lists for `values_from: NAME` arguments.
//!
//! `expect` lists alternatives; any one matching scores. `args` are exact values (trimmed),
//! `args_contain` substrings (case-insensitive), both per argument name. `tool_results` are
//! the scenarios' stand-ins (a text, or `{error: text}`); a declared tool without one answers
//! "no executor on this host", as on a host without it. Unknown keys anywhere are errors.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use porfiry_agent::scenario::StandIn;
use porfiry_agent::{Lang, ManualClock};
use serde::Deserialize;
use serde_norway::Value;

use super::error::EvalError;

/// The clock of a file without `clock:` (the scenarios' default).
const DEFAULT_CLOCK: &str = "2026-01-01T00:00:00+00:00";

/// One case file, parsed and checked (paths resolved against its folder).
#[derive(Debug, Clone, PartialEq)]
pub struct EvalFile {
    /// Where it came from.
    pub path: PathBuf,
    /// The prompt and reply language.
    pub lang: Lang,
    /// The manual clock's time (valid: it parsed).
    pub clock: String,
    /// Skill folders (resolved); `None`: the built-in ones.
    pub skills: Option<Vec<PathBuf>>,
    /// Toolset folders (resolved); `None`: the built-in ones.
    pub toolsets: Option<Vec<PathBuf>>,
    /// Stand-ins for host executors, by tool name.
    pub tool_results: BTreeMap<String, StandIn>,
    /// The host's lists of argument values (`values: {contacts: [..]}`), as a host gives
    /// them at run time (`values_from:` of an argument).
    pub values: BTreeMap<String, Vec<String>>,
    /// The cases, in file order.
    pub cases: Vec<EvalCase>,
}

impl EvalFile {
    /// The file's name in reports: its path as given.
    pub fn label(&self) -> String {
        self.path.display().to_string()
    }
}

/// One case: one turn, or a conversation of several in one session.
#[derive(Debug, Clone, PartialEq)]
pub struct EvalCase {
    /// Its 1-based position in the file.
    pub index: usize,
    /// Toolsets enabled in the fresh session before the first turn.
    pub active: Vec<String>,
    /// The turns, in order (at least one).
    pub turns: Vec<EvalTurn>,
    /// Given as `turns:`: every turn runs whole, the history carried over.
    pub conversation: bool,
}

impl EvalCase {
    /// What the user says first (how the case is named in errors and reports).
    pub fn user(&self) -> &str {
        self.turns.first().map_or("", |t| t.user.as_str())
    }

    /// Whether turn `i` (0-based) is a follow-up: a turn of a conversation, after its first,
    /// that expects (among its right actions) a call of a toolset (or a core tool) an
    /// earlier turn of it expected a call of — it goes on with what an earlier tool turn left («включи первый» after a
    /// search, «удали её» after a note, «а завтра?» after the time). A toolset switch is no
    /// call of its set.
    pub fn follow_up(&self, i: usize) -> bool {
        fn owners(t: &EvalTurn) -> impl Iterator<Item = &str> {
            t.expect.iter().filter_map(|e| match e {
                Expected::Call { name, .. }
                    if !matches!(name.as_str(), "enable_toolset" | "disable_toolset") =>
                {
                    Some(owner(name))
                }
                _ => None,
            })
        }
        if !self.conversation || i == 0 {
            return false;
        }
        let Some(turn) = self.turns.get(i) else {
            return false;
        };
        let earlier: Vec<&str> = self.turns[..i].iter().flat_map(owners).collect();
        owners(turn).any(|o| earlier.contains(&o))
    }
}

/// One turn of a case: what the user says and what is right.
#[derive(Debug, Clone, PartialEq)]
pub struct EvalTurn {
    /// What the user says.
    pub user: String,
    /// The right first actions (any one scores).
    pub expect: Vec<Expected>,
    /// Substrings the whole turn's final reply must contain (case-insensitive); empty: the
    /// whole turn is not scored by them.
    pub reply_contains: Vec<String>,
    /// A regular expression the turn's final reply must match (case-insensitive).
    pub reply_matches: Option<String>,
    /// Every call the whole turn must execute, in order (`calls:`; toolset switches not
    /// counted): one per target of a request that names several. Empty: not checked.
    pub calls: Vec<Expected>,
}

impl EvalTurn {
    /// Whether a plain reply (`text` or `refuse`) is among the right first actions.
    pub fn expects_text(&self) -> bool {
        self.expect
            .iter()
            .any(|e| matches!(e, Expected::Text | Expected::Refuse))
    }

    /// Whether the turn's reply is checked beyond its first action (`reply_contains` or
    /// `reply_matches`): it runs whole.
    pub fn checks_reply(&self) -> bool {
        !self.reply_contains.is_empty() || self.reply_matches.is_some() || !self.calls.is_empty()
    }

    /// The label of the first alternative (`text`, `refuse` or the tool's name): how turns
    /// are grouped in [`super::Totals::by_expected`].
    pub fn kind(&self) -> String {
        match self.expect.first() {
            Some(Expected::Call { name, .. }) => name.clone(),
            Some(Expected::AskFor(name)) => format!("ask_for {name}"),
            Some(Expected::OutOfRange(name)) => format!("out_of_range {name}"),
            Some(Expected::Refuse) => "refuse".to_string(),
            _ => "text".to_string(),
        }
    }
}

/// Who a tool belongs to: a set's tool its set (the name before its first `_`), a core
/// tool itself.
fn owner(name: &str) -> &str {
    if porfiry_agent::CORE_TOOL_NAMES.contains(&name) {
        return name;
    }
    name.split('_').next().unwrap_or(name)
}

/// One right first action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expected {
    /// A plain reply: no tool call in the first generation (`{text: true}`); judged, it must
    /// pass the judge of replies and not be the catch-all refusal.
    Text,
    /// A plain reply declining (`{refuse: true}`): no tool call; judged, the catch-all
    /// refusal or a reply the judge accepts that declines.
    Refuse,
    /// A call of `name` (lower case).
    Call {
        /// The tool.
        name: String,
        /// Arguments that must have exactly these values (trimmed).
        args: BTreeMap<String, String>,
        /// Arguments that must contain these substrings (case-insensitive).
        args_contain: BTreeMap<String, String>,
    },
    /// No call: the assistant asks for a required argument of this tool the request did
    /// not say (`{ask_for: TOOL}`).
    AskFor(String),
    /// No call: a value said for this tool is outside its declared range, and the reply
    /// says the range (`{out_of_range: TOOL}`).
    OutOfRange(String),
}

impl std::fmt::Display for Expected {
    /// `text`, `name`, `name{key=value, key~part}`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Expected::Text => f.write_str("text"),
            Expected::Refuse => f.write_str("refuse"),
            Expected::AskFor(name) => write!(f, "ask_for:{name}"),
            Expected::OutOfRange(name) => write!(f, "out_of_range:{name}"),
            Expected::Call {
                name,
                args,
                args_contain,
            } => {
                f.write_str(name)?;
                let parts: Vec<String> = args
                    .iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .chain(args_contain.iter().map(|(k, v)| format!("{k}~{v}")))
                    .collect();
                if !parts.is_empty() {
                    write!(f, "{{{}}}", parts.join(", "))?;
                }
                Ok(())
            }
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    #[serde(default)]
    lang: Lang,
    #[serde(default)]
    clock: Option<String>,
    #[serde(default)]
    skills: Option<Vec<PathBuf>>,
    #[serde(default)]
    toolsets: Option<Vec<PathBuf>>,
    #[serde(default)]
    tool_results: BTreeMap<String, StandIn>,
    #[serde(default)]
    values: BTreeMap<String, Vec<String>>,
    cases: Vec<Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCase {
    #[serde(default)]
    user: Option<String>,
    #[serde(default)]
    expect: Option<Vec<RawExpected>>,
    #[serde(default)]
    active: Vec<String>,
    #[serde(default)]
    reply_contains: Option<Vec<String>>,
    #[serde(default)]
    reply_matches: Option<String>,
    #[serde(default)]
    turns: Option<Vec<RawTurn>>,
    #[serde(default)]
    calls: Option<Vec<RawExpected>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTurn {
    user: String,
    expect: Vec<RawExpected>,
    #[serde(default)]
    reply_contains: Vec<String>,
    #[serde(default)]
    reply_matches: Option<String>,
    #[serde(default)]
    calls: Vec<RawExpected>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawExpected {
    #[serde(default)]
    call: Option<String>,
    #[serde(default)]
    ask_for: Option<String>,
    #[serde(default)]
    out_of_range: Option<String>,
    #[serde(default)]
    text: Option<bool>,
    #[serde(default)]
    refuse: Option<bool>,
    #[serde(default)]
    args: Option<BTreeMap<String, Value>>,
    #[serde(default)]
    args_contain: Option<BTreeMap<String, Value>>,
}

/// Read and parse a case file.
///
/// # Errors
/// [`EvalError::BadFile`] (unreadable, bad YAML, unknown top-level key, bad clock, no
/// cases) or [`EvalError::BadCase`] naming the case.
pub fn load_eval_file(path: &Path) -> Result<EvalFile, EvalError> {
    let text = std::fs::read_to_string(path).map_err(|e| EvalError::BadFile {
        path: path.to_path_buf(),
        reason: format!("cannot read: {e}"),
    })?;
    parse_eval_file(&text, path)
}

/// Parse a case file's text; `path` names it in errors and resolves its folders.
///
/// # Errors
/// As [`load_eval_file`].
pub fn parse_eval_file(text: &str, path: &Path) -> Result<EvalFile, EvalError> {
    let bad_file = |reason: String| EvalError::BadFile {
        path: path.to_path_buf(),
        reason,
    };
    let raw: RawFile =
        serde_norway::from_str(text).map_err(|e| bad_file(format!("bad case file YAML: {e}")))?;
    let clock = raw.clock.unwrap_or_else(|| DEFAULT_CLOCK.to_string());
    ManualClock::parse(&clock).map_err(|e| bad_file(format!("bad clock {clock:?}: {e}")))?;
    if raw.cases.is_empty() {
        return Err(bad_file("no cases".into()));
    }
    let base = path.parent().unwrap_or(Path::new("."));
    let resolve =
        |dirs: Option<Vec<PathBuf>>| dirs.map(|d| d.iter().map(|p| base.join(p)).collect());
    let cases = raw
        .cases
        .into_iter()
        .enumerate()
        .map(|(i, v)| parse_case(v, i + 1, path))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(EvalFile {
        path: path.to_path_buf(),
        lang: raw.lang,
        clock,
        skills: resolve(raw.skills),
        toolsets: resolve(raw.toolsets),
        tool_results: raw.tool_results,
        values: raw.values,
        cases,
    })
}

fn parse_case(value: Value, index: usize, path: &Path) -> Result<EvalCase, EvalError> {
    let user = value
        .get("user")
        .or_else(|| {
            value
                .get("turns")
                .and_then(|t| t.get(0))
                .and_then(|t| t.get("user"))
        })
        .and_then(Value::as_str)
        .map(str::to_string);
    let bad = |reason: String| EvalError::BadCase {
        path: path.to_path_buf(),
        case: index,
        user: user.clone(),
        reason,
    };
    let raw: RawCase = serde_norway::from_value(value).map_err(|e| bad(e.to_string()))?;
    let (turns, conversation) = match (raw.user, raw.turns) {
        (Some(_), Some(_)) => {
            return Err(bad(
                "`user` and `turns` together; a conversation's words go in its turns".into(),
            ))
        }
        (Some(user), None) => {
            let Some(expect) = raw.expect else {
                return Err(bad("missing field `expect`".into()));
            };
            let turn = RawTurn {
                user,
                expect,
                reply_contains: raw.reply_contains.unwrap_or_default(),
                reply_matches: raw.reply_matches,
                calls: raw.calls.unwrap_or_default(),
            };
            (vec![parse_turn(turn).map_err(bad)?], false)
        }
        (None, Some(turns)) => {
            if raw.expect.is_some()
                || raw.reply_contains.is_some()
                || raw.reply_matches.is_some()
                || raw.calls.is_some()
            {
                return Err(bad(
                    "`expect`, `reply_contains`, `reply_matches` and `calls` belong to each turn"
                        .into(),
                ));
            }
            if turns.is_empty() {
                return Err(bad("empty `turns`".into()));
            }
            let turns = turns
                .into_iter()
                .enumerate()
                .map(|(i, t)| parse_turn(t).map_err(|why| bad(format!("turn {}: {why}", i + 1))))
                .collect::<Result<Vec<_>, _>>()?;
            (turns, true)
        }
        (None, None) => return Err(bad("needs `user` (one turn) or `turns`".into())),
    };
    let mut active = Vec::new();
    for a in raw.active {
        let a = a.trim().to_lowercase();
        if a.is_empty() {
            return Err(bad("`active` has an empty name".into()));
        }
        if !active.contains(&a) {
            active.push(a);
        }
    }
    Ok(EvalCase {
        index,
        active,
        turns,
        conversation,
    })
}

fn parse_turn(raw: RawTurn) -> Result<EvalTurn, String> {
    if raw.user.trim().is_empty() {
        return Err("empty `user`".into());
    }
    if raw.expect.is_empty() {
        return Err("empty `expect`: give at least one right first action".into());
    }
    let expect = raw
        .expect
        .into_iter()
        .enumerate()
        .map(|(i, e)| parse_expected(e).map_err(|why| format!("expect[{i}]: {why}")))
        .collect::<Result<Vec<_>, _>>()?;
    if raw.reply_contains.iter().any(|s| s.trim().is_empty()) {
        return Err("`reply_contains` has an empty entry".into());
    }
    if raw
        .reply_matches
        .as_ref()
        .is_some_and(|r| r.trim().is_empty())
    {
        return Err("empty `reply_matches`".into());
    }
    let calls = raw
        .calls
        .into_iter()
        .enumerate()
        .map(|(i, e)| match parse_expected(e) {
            Ok(c @ Expected::Call { .. }) => Ok(c),
            Ok(_) => Err(format!("calls[{i}]: only `call` entries")),
            Err(why) => Err(format!("calls[{i}]: {why}")),
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(EvalTurn {
        user: raw.user,
        expect,
        reply_contains: raw.reply_contains,
        reply_matches: raw.reply_matches,
        calls,
    })
}

fn parse_expected(e: RawExpected) -> Result<Expected, String> {
    let plain = match (e.text, e.refuse) {
        (Some(_), Some(_)) => {
            return Err("`text` and `refuse` together; write two alternatives".into())
        }
        (Some(false), None) => {
            return Err("`text: false` means nothing; write `text: true` or a call".into())
        }
        (None, Some(false)) => {
            return Err("`refuse: false` means nothing; write `refuse: true` or a call".into())
        }
        (Some(true), None) => Some(Expected::Text),
        (None, Some(true)) => Some(Expected::Refuse),
        (None, None) => None,
    };
    let no_call = match (e.ask_for, e.out_of_range) {
        (Some(_), Some(_)) => {
            return Err("`ask_for` and `out_of_range` together; write two alternatives".into())
        }
        (Some(t), None) => Some(Expected::AskFor(t.trim().to_lowercase())),
        (None, Some(t)) => Some(Expected::OutOfRange(t.trim().to_lowercase())),
        (None, None) => None,
    };
    if let Some(e2) = no_call {
        if e.call.is_some() || plain.is_some() || e.args.is_some() || e.args_contain.is_some() {
            return Err("`ask_for`/`out_of_range` stand alone; write two alternatives".into());
        }
        return match &e2 {
            Expected::AskFor(t) | Expected::OutOfRange(t) if t.is_empty() => {
                Err("empty tool name".into())
            }
            _ => Ok(e2),
        };
    }
    match (e.call, plain) {
        (Some(_), Some(_)) => Err("`call` and `text` together; write two alternatives".into()),
        (None, None) => Err(
            "needs `call: TOOL`, `text: true`, `refuse: true`, `ask_for: TOOL` or `out_of_range: TOOL`"
                .into(),
        ),
        (None, Some(plain)) => {
            if e.args.is_some() || e.args_contain.is_some() {
                return Err("`args`/`args_contain` belong to a `call`".into());
            }
            Ok(plain)
        }
        (Some(name), None) => {
            let name = name.trim().to_lowercase();
            if name.is_empty() {
                return Err("empty `call`".into());
            }
            Ok(Expected::Call {
                name,
                args: scalars(e.args, "args")?,
                args_contain: scalars(e.args_contain, "args_contain")?,
            })
        }
    }
}

/// Argument expectations as text: keys lower-cased, values scalars (strings, numbers, bools).
fn scalars(
    map: Option<BTreeMap<String, Value>>,
    what: &str,
) -> Result<BTreeMap<String, String>, String> {
    let mut out = BTreeMap::new();
    for (k, v) in map.unwrap_or_default() {
        let text = match &v {
            Value::String(s) => s.trim().to_string(),
            Value::Number(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
            _ => return Err(format!("`{what}.{k}` must be a string, number or boolean")),
        };
        if text.is_empty() {
            return Err(format!("`{what}.{k}` is empty"));
        }
        let key = k.trim().to_lowercase();
        if key.is_empty() {
            return Err(format!("`{what}` has an empty argument name"));
        }
        out.insert(key, text);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<EvalFile, EvalError> {
        parse_eval_file(text, Path::new("evals/x.yaml"))
    }

    fn err(text: &str) -> String {
        parse(text).unwrap_err().to_string()
    }

    #[test]
    fn the_documented_example_parses() {
        let f = parse(
            r#"
lang: ru
clock: 2026-08-22T10:00:00+03:00
skills: [s]
tool_results: {media_search: "1. Tomb Raider (2018) id=tt1365519", notes_add: "ok", media_play: {error: off}}
cases:
  - user: "Который час?"
    expect: [{call: get_current_time}]
    reply_contains: ["10:00"]
  - user: "Запиши, что надо купить хлеб"
    expect: [{call: enable_toolset, args: {name: notes}}, {call: Notes_Add, args_contain: {text: хлеб}}]
  - user: "Найди фильм про Лару Крофт"
    active: [Media]
    expect: [{call: media_search, args_contain: {query: Лар}}]
  - user: "Удали вторую"
    expect: [{call: notes_delete, args: {number: 2}}]
  - user: "Привет! Как дела?"
    expect: [{text: true}]
  - user: "Закажи пиццу"
    expect: [{refuse: true}]
  - turns:
      - user: "Найди фильм про Лару Крофт"
        expect: [{call: enable_toolset, args: {name: media}}, {call: media_search}]
      - user: "Включи первый"
        expect: [{call: media_play, args: {id: tt1365519}}]
        reply_matches: "tomb|запущ"
"#,
        )
        .unwrap();
        assert_eq!(f.lang, Lang::Ru);
        let pizza = &f.cases[5];
        assert_eq!(
            (pizza.turns[0].kind(), pizza.conversation),
            ("refuse".into(), false)
        );
        assert!(pizza.turns[0].expects_text());
        let talk = &f.cases[6];
        assert!(talk.conversation);
        assert_eq!(talk.user(), "Найди фильм про Лару Крофт");
        assert_eq!(talk.turns.len(), 2);
        assert_eq!(talk.turns[1].reply_matches.as_deref(), Some("tomb|запущ"));
        assert!(talk.turns[1].checks_reply() && !talk.turns[0].checks_reply());
        // «Включи первый» goes on with the search; a first turn or a one-turn case never does.
        assert_eq!(
            (talk.follow_up(0), talk.follow_up(1), talk.follow_up(2)),
            (false, true, false)
        );
        assert!(!f.cases[3].follow_up(0));
        assert_eq!(f.skills, Some(vec![PathBuf::from("evals/s")]));
        assert_eq!(f.toolsets, None);
        assert_eq!(f.cases.len(), 7);
        assert_eq!(f.cases[0].turns[0].reply_contains, ["10:00"]);
        assert_eq!(
            f.cases[1].turns[0].expect[1].to_string(),
            "notes_add{text~хлеб}"
        );
        assert_eq!(
            f.cases[1].turns[0].expect[0].to_string(),
            "enable_toolset{name=notes}"
        );
        assert_eq!(f.cases[2].active, ["media"]);
        assert_eq!(
            f.cases[3].turns[0].expect[0].to_string(),
            "notes_delete{number=2}"
        );
        assert!(f.cases[4].turns[0].expects_text());
        assert_eq!(f.cases[4].turns[0].kind(), "text");
        assert_eq!(f.cases[3].index, 4);
        assert_eq!(f.clock, "2026-08-22T10:00:00+03:00");
        assert_eq!(
            parse("cases: [{user: a, expect: [{text: true}]}]")
                .unwrap()
                .clock,
            DEFAULT_CLOCK
        );
    }

    #[test]
    fn unknown_keys_name_the_file_and_the_case() {
        let e = err("cases: [{user: a, expect: [{text: true}]}]\nmodel: x\n");
        assert!(
            e.starts_with("evals/x.yaml: ") && e.contains("model"),
            "{e}"
        );
        let e = err("cases:\n  - {user: a, expect: [{text: true}]}\n  - {user: Привет, expext: [{text: true}]}\n");
        assert!(e.starts_with("evals/x.yaml: case 2 (\"Привет\"): "), "{e}");
        assert!(e.contains("expext"), "{e}");
        let e = err("cases:\n  - {user: a, expect: [{call: x, arg: {a: b}}]}\n");
        assert!(e.contains("case 1") && e.contains("arg"), "{e}");
    }

    #[test]
    fn malformed_cases_are_errors() {
        for (text, needle) in [
            ("cases: []", "no cases"),
            ("cases: [{user: a, expect: []}]", "empty `expect`"),
            (
                "cases: [{user: ' ', expect: [{text: true}]}]",
                "empty `user`",
            ),
            ("cases: [{user: a}]", "expect"),
            ("cases: [{user: a, expect: [{}]}]", "needs `call"),
            ("cases: [{user: a, expect: [{text: false}]}]", "text: false"),
            (
                "cases: [{user: a, expect: [{text: true, call: x}]}]",
                "together",
            ),
            (
                "cases: [{user: a, expect: [{text: true, args: {a: b}}]}]",
                "belong",
            ),
            (
                "cases: [{user: a, expect: [{call: x, args: {a: [1]}}]}]",
                "args.a",
            ),
            ("cases: [{user: a, expect: [{call: ' '}]}]", "empty `call`"),
            (
                "cases: [{user: a, expect: [{text: true}], reply_contains: ['']}]",
                "reply_contains",
            ),
            (
                "clock: yesterday\ncases: [{user: a, expect: [{text: true}]}]",
                "clock",
            ),
            ("lang: fr\ncases: [{user: a, expect: [{text: true}]}]", "fr"),
            (
                "cases: [{user: a, expect: [{text: true}], active: ['']}]",
                "active",
            ),
            (": : :", "YAML"),
            (
                "cases: [{user: a, expect: [{refuse: false}]}]",
                "refuse: false",
            ),
            (
                "cases: [{user: a, expect: [{refuse: true, text: true}]}]",
                "together",
            ),
            (
                "cases: [{user: a, expect: [{text: true}], reply_matches: ' '}]",
                "reply_matches",
            ),
            ("cases: [{active: [notes]}]", "needs `user`"),
            (
                "cases: [{user: a, turns: [{user: b, expect: [{text: true}]}]}]",
                "together",
            ),
            ("cases: [{turns: []}]", "empty `turns`"),
            (
                "cases: [{turns: [{user: b, expect: [{text: true}]}], expect: [{text: true}]}]",
                "belong to each turn",
            ),
            (
                "cases: [{turns: [{user: b, expect: [{text: true}]}, {user: c, expect: []}]}]",
                "turn 2: empty `expect`",
            ),
            (
                "cases: [{turns: [{user: b, expect: [{text: true}], active: [x]}]}]",
                "active",
            ),
        ] {
            let e = err(text);
            assert!(e.contains(needle), "{text:?} → {e}");
        }
    }

    #[test]
    fn a_follow_up_calls_the_set_or_the_core_tool_of_an_earlier_turn() {
        let f = parse(
            r#"
lang: ru
clock: 2026-08-22T10:00:00+03:00
cases:
  - turns:
      - user: "Покажи заметки"
        expect: [{call: enable_toolset, args: {name: notes}}, {call: notes_list}]
      - user: "Который час?"
        expect: [{call: get_current_time}]
      - user: "Удали последнюю"
        expect: [{call: notes_delete, args: {number: 2}}]
      - user: "А завтра какой день?"
        expect: [{call: get_current_time}, {text: true}]
      - user: "Включи музыку"
        expect: [{call: enable_toolset, args: {name: media}}]
"#,
        )
        .unwrap();
        let c = &f.cases[0];
        let follow: Vec<bool> = (0..c.turns.len()).map(|i| c.follow_up(i)).collect();
        // The time after notes is new; the delete goes on with the list, the second time
        // question with the first; a switch alone is no follow-up.
        assert_eq!(follow, [false, false, true, true, false]);
    }
}
