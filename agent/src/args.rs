//! Tool arguments: the raw forms the model writes, the declared schema, and validation.
//!
//! The model may write arguments three ways after `TOOL_CALL: name|`:
//! positional values separated by `|` in declaration order (`media_play|tt1|pause`),
//! `key=value` pairs (`media_play|id=tt1|action=pause`) or one JSON object
//! (`media_play|{"id": "tt1"}`). Validation against an [`ArgDecl`] list turns any of them
//! into typed [`Args`] or an [`ArgProblem`] that the dispatcher answers with the schema.

use std::fmt;

use crate::messages::{ArgProblem, Texts};

/// The type of a declared argument.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ArgType {
    /// Any non-empty text.
    #[default]
    String,
    /// A whole number (i64).
    Integer,
    /// A number (f64; a decimal comma is accepted).
    Number,
    /// true/false (also yes/no, да/нет, 1/0, on/off).
    Boolean,
    /// One of the listed values (matched ignoring case; the declared spelling is kept).
    Enum(Vec<String>),
}

impl ArgType {
    /// The type's name as written in declarations.
    pub fn name(&self) -> &'static str {
        match self {
            ArgType::String => "string",
            ArgType::Integer => "integer",
            ArgType::Number => "number",
            ArgType::Boolean => "boolean",
            ArgType::Enum(_) => "enum",
        }
    }
}

/// One declared argument of a tool.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ArgDecl {
    /// Its name (an identifier).
    pub name: String,
    /// Its type.
    pub ty: ArgType,
    /// Whether a call without it is invalid.
    pub required: bool,
    /// A short note for the model, if any.
    pub description: Option<String>,
    /// For an enum: words a user says for a value beside the value itself, e.g. `stop` ←
    /// «останови», «стоп» (`said:` in a toolset's YAML). Never shown to the model; the
    /// guidance reads them to fix the value a request names
    /// ([`crate::Technique::SaidValue`]).
    pub said: Vec<(String, Vec<String>)>,
    /// For an integer or number: the smallest value a call may carry (`min:`). A value
    /// below it is never executed ([`ArgProblem::OutOfRange`]).
    pub min: Option<f64>,
    /// For an integer or number: the largest value a call may carry (`max:`).
    pub max: Option<f64>,
    /// For an integer or number that is a duration: its unit (`unit: seconds | minutes |
    /// hours`); a duration the user says in another unit is converted into it.
    pub unit: Option<DurationUnit>,
    /// The question asked when a required argument is missing from a request, per
    /// language (`ask_for: {ru: …, en: …}`). Optional: a question is built from the
    /// argument's description otherwise.
    pub ask_for: Vec<(crate::messages::Lang, String)>,
    /// For a string: the name of the list the host supplies its values from at run time
    /// (`values_from: contacts`, [`crate::Agent::set_values`]); what the user says is
    /// matched to an entry of it.
    pub values_from: Option<String>,
}

/// Declarations hold only finite bounds (checked when a toolset is read), so equality is
/// total.
impl Eq for ArgDecl {}

impl ArgDecl {
    /// An argument of `name` and type `ty`, nothing else declared.
    pub fn new(name: impl Into<String>, ty: ArgType, required: bool) -> Self {
        ArgDecl {
            name: name.into(),
            ty,
            required,
            ..ArgDecl::default()
        }
    }

    /// Whether `value` lies within the declared `min`/`max` (always, without them).
    pub fn in_range(&self, value: f64) -> bool {
        self.min.is_none_or(|m| value >= m) && self.max.is_none_or(|m| value <= m)
    }

    /// The question to ask for this argument when it is missing, in `lang`: its `ask_for`
    /// phrase, else `None` (the caller builds one from the description).
    pub fn ask_for_in(&self, lang: crate::messages::Lang) -> Option<&str> {
        self.ask_for
            .iter()
            .find(|(l, _)| *l == lang)
            .map(|(_, t)| t.as_str())
    }
}

/// The unit of a duration argument (`unit:` in a toolset's YAML).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DurationUnit {
    /// Seconds.
    Seconds,
    /// Minutes.
    Minutes,
    /// Hours.
    Hours,
    /// Days (24 hours: «сутки», "a day").
    Days,
}

impl DurationUnit {
    /// The unit a declaration names (`seconds`, `minutes`, `hours`, `days`).
    pub fn from_name(name: &str) -> Option<Self> {
        match name.trim() {
            "seconds" => Some(DurationUnit::Seconds),
            "minutes" => Some(DurationUnit::Minutes),
            "hours" => Some(DurationUnit::Hours),
            "days" => Some(DurationUnit::Days),
            _ => None,
        }
    }

    /// How many seconds one of it lasts.
    pub fn seconds(self) -> f64 {
        match self {
            DurationUnit::Seconds => 1.0,
            DurationUnit::Minutes => 60.0,
            DurationUnit::Hours => 3600.0,
            DurationUnit::Days => 86_400.0,
        }
    }
}

/// A validated argument value.
#[derive(Debug, Clone, PartialEq)]
pub enum ArgValue {
    /// Text.
    Str(String),
    /// A whole number.
    Int(i64),
    /// A number.
    Num(f64),
    /// A flag.
    Bool(bool),
    /// One of an enum's declared values, in its declared spelling.
    Enum(String),
}

impl ArgValue {
    /// The value as JSON.
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            ArgValue::Str(s) | ArgValue::Enum(s) => serde_json::Value::from(s.as_str()),
            ArgValue::Int(i) => serde_json::Value::from(*i),
            ArgValue::Num(n) => serde_json::Value::from(*n),
            ArgValue::Bool(b) => serde_json::Value::from(*b),
        }
    }
}

impl fmt::Display for ArgValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArgValue::Str(s) | ArgValue::Enum(s) => f.write_str(s),
            ArgValue::Int(i) => write!(f, "{i}"),
            ArgValue::Num(n) => write!(f, "{n}"),
            ArgValue::Bool(b) => write!(f, "{b}"),
        }
    }
}

/// Validated arguments, in declaration order; absent optional arguments are left out.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Args(Vec<(String, ArgValue)>);

/// Serializes as one JSON object, like [`Args::to_json`].
impl serde::Serialize for Args {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(serializer)
    }
}

impl Args {
    /// The value of `name`, if given.
    pub fn get(&self, name: &str) -> Option<&ArgValue> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }
    /// The text of a string or enum argument.
    pub fn str(&self, name: &str) -> Option<&str> {
        match self.get(name) {
            Some(ArgValue::Str(s)) | Some(ArgValue::Enum(s)) => Some(s),
            _ => None,
        }
    }
    /// All (name, value) pairs in declaration order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &ArgValue)> {
        self.0.iter().map(|(n, v)| (n.as_str(), v))
    }
    /// Whether no argument was given.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    /// The arguments as one JSON object (for hosts across the FFI).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::Value::Object(
            self.0
                .iter()
                .map(|(n, v)| (n.clone(), v.to_json()))
                .collect(),
        )
    }
}

/// `key=value|key=value`, the form used in events and logs.
impl fmt::Display for Args {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (n, v)) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("|")?;
            }
            write!(f, "{n}={v}")?;
        }
        Ok(())
    }
}

/// Arguments as the model wrote them, before validation.
#[derive(Debug, Clone, PartialEq)]
pub enum RawArgs {
    /// The `|`-separated parts after the tool name (positional values or `key=value` pairs).
    Parts(Vec<String>),
    /// A JSON object.
    Json(serde_json::Map<String, serde_json::Value>),
}

impl RawArgs {
    /// Whether nothing was written.
    pub fn is_empty(&self) -> bool {
        match self {
            RawArgs::Parts(p) => p.is_empty(),
            RawArgs::Json(m) => m.is_empty(),
        }
    }
}

fn unquote(s: &str) -> &str {
    let s = s.trim();
    for (open, close) in [('"', '"'), ('\'', '\''), ('«', '»')] {
        if s.len() >= open.len_utf8() + close.len_utf8()
            && s.starts_with(open)
            && s.ends_with(close)
        {
            return s[open.len_utf8()..s.len() - close.len_utf8()].trim();
        }
    }
    s
}

fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Coerce one written value to the declared type. `None`: the value is empty (absent).
fn coerce(decl: &ArgDecl, text: &str) -> Result<Option<ArgValue>, ArgProblem> {
    let s = unquote(text);
    if s.is_empty() {
        return Ok(None);
    }
    let not_a = || ArgProblem::NotA(decl.name.clone(), decl.ty.name());
    let value = match &decl.ty {
        ArgType::String => ArgValue::Str(s.to_string()),
        ArgType::Integer => ArgValue::Int(s.parse().map_err(|_| not_a())?),
        ArgType::Number => {
            let n: f64 = s.replace(',', ".").parse().map_err(|_| not_a())?;
            if !n.is_finite() {
                return Err(not_a());
            }
            ArgValue::Num(n)
        }
        ArgType::Boolean => ArgValue::Bool(match s.to_lowercase().as_str() {
            "true" | "yes" | "1" | "on" | "да" => true,
            "false" | "no" | "0" | "off" | "нет" => false,
            _ => return Err(not_a()),
        }),
        ArgType::Enum(values) => ArgValue::Enum(
            values
                .iter()
                .find(|v| v.to_lowercase() == s.to_lowercase())
                .cloned()
                .ok_or_else(|| ArgProblem::NotOneOf(decl.name.clone(), values.clone()))?,
        ),
    };
    Ok(Some(value))
}

fn coerce_json(decl: &ArgDecl, v: &serde_json::Value) -> Result<Option<ArgValue>, ArgProblem> {
    use serde_json::Value as J;
    match (v, &decl.ty) {
        (J::Null, _) => Ok(None),
        (J::String(s), _) => coerce(decl, s),
        (J::Number(n), ArgType::String) => Ok(Some(ArgValue::Str(n.to_string()))),
        (J::Number(_) | J::Bool(_), _) => coerce(decl, &v.to_string()),
        _ => Err(ArgProblem::NotA(decl.name.clone(), decl.ty.name())),
    }
}

/// Validate what the model wrote against the declared arguments.
pub fn validate_args(decls: &[ArgDecl], raw: &RawArgs) -> Result<Args, ArgProblem> {
    let find = |key: &str| {
        let key = key.trim().to_lowercase();
        decls.iter().position(|d| d.name.to_lowercase() == key)
    };
    let mut slots: Vec<Option<ArgValue>> = vec![None; decls.len()];
    let mut given = vec![false; decls.len()];
    let mut put = |i: usize, v: Option<ArgValue>| -> Result<(), ArgProblem> {
        if given[i] {
            return Err(ArgProblem::Repeated(decls[i].name.clone()));
        }
        given[i] = true;
        slots[i] = v;
        Ok(())
    };
    match raw {
        RawArgs::Json(map) => {
            for (k, v) in map {
                let i = find(k).ok_or_else(|| ArgProblem::Unknown(k.clone()))?;
                put(i, coerce_json(&decls[i], v)?)?;
            }
        }
        RawArgs::Parts(parts) => {
            let named: Option<Vec<(usize, &str)>> = parts
                .iter()
                .map(|p| {
                    let (k, v) = p.split_once('=')?;
                    let k = k.trim();
                    if !is_ident(k) {
                        return None;
                    }
                    Some((find(k)?, v))
                })
                .collect();
            match named {
                Some(pairs) if !pairs.is_empty() => {
                    for (i, v) in pairs {
                        put(i, coerce(&decls[i], v)?)?;
                    }
                }
                _ => {
                    let last_is_text = decls.last().is_some_and(|d| d.ty == ArgType::String);
                    if parts.len() > decls.len() && !last_is_text {
                        return Err(ArgProblem::TooMany(parts.len()));
                    }
                    for (i, decl) in decls.iter().enumerate() {
                        let text = if i + 1 == decls.len() && parts.len() > decls.len() {
                            // The last text argument absorbs the rest: `show_text|a | b`.
                            parts[i..].join("|")
                        } else if let Some(p) = parts.get(i) {
                            p.clone()
                        } else {
                            break;
                        };
                        put(i, coerce(decl, &text)?)?;
                    }
                }
            }
        }
    }
    let mut out = Vec::new();
    for (decl, slot) in decls.iter().zip(slots) {
        let number = match &slot {
            Some(ArgValue::Int(i)) => Some(*i as f64),
            Some(ArgValue::Num(n)) => Some(*n),
            _ => None,
        };
        if let Some(n) = number.filter(|n| !decl.in_range(*n)) {
            return Err(ArgProblem::OutOfRange {
                arg: decl.name.clone(),
                value: n,
                min: decl.min,
                max: decl.max,
            });
        }
        match slot {
            Some(v) => out.push((decl.name.clone(), v)),
            None if decl.required => return Err(ArgProblem::Missing(decl.name.clone())),
            None => {}
        }
    }
    Ok(Args(out))
}

/// The one-line form of a tool for the prompt and for error replies:
/// `media_play|id|action? — запуск/управление просмотром (action: play/pause/stop)`.
pub(crate) fn tool_line(texts: Texts, name: &str, description: &str, args: &[ArgDecl]) -> String {
    let mut line = name.to_string();
    let mut notes = Vec::new();
    for a in args {
        line.push('|');
        line.push_str(&a.name);
        if !a.required {
            line.push('?');
        }
        let ty = match &a.ty {
            ArgType::String => None,
            ArgType::Enum(values) => Some(values.join("/")),
            other => Some(texts.type_name(other.name()).to_string()),
        };
        let note: Vec<String> = ty.into_iter().chain(a.description.clone()).collect();
        if !note.is_empty() {
            notes.push(format!("{}: {}", a.name, note.join(", ")));
        }
    }
    if !description.is_empty() {
        line.push_str(" — ");
        line.push_str(description);
    }
    if !notes.is_empty() {
        line.push_str(&format!(" ({})", notes.join("; ")));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::messages::Lang;

    fn decl(name: &str, ty: ArgType, required: bool) -> ArgDecl {
        ArgDecl::new(name, ty, required)
    }

    fn play() -> Vec<ArgDecl> {
        vec![
            decl("id", ArgType::String, true),
            decl(
                "action",
                ArgType::Enum(vec!["play".into(), "pause".into(), "stop".into()]),
                false,
            ),
        ]
    }

    fn parts(p: &[&str]) -> RawArgs {
        RawArgs::Parts(p.iter().map(|s| s.to_string()).collect())
    }

    fn check(decls: &[ArgDecl], raw: RawArgs, want: Result<&str, ArgProblem>) {
        let got = validate_args(decls, &raw).map(|a| a.to_string());
        assert_eq!(got.as_deref().map_err(Clone::clone), want, "{raw:?}");
    }

    #[test]
    fn validation_table() {
        let p = play();
        check(&p, parts(&["tt1"]), Ok("id=tt1"));
        check(&p, parts(&[" tt1 ", "PAUSE"]), Ok("id=tt1|action=pause"));
        check(
            &p,
            parts(&["id=tt1", "action=stop"]),
            Ok("id=tt1|action=stop"),
        );
        check(
            &p,
            parts(&["action = play", " id=tt1"]),
            Ok("id=tt1|action=play"),
        );
        check(&p, parts(&["\"tt1\"", ""]), Ok("id=tt1"));
        check(&p, parts(&[]), Err(ArgProblem::Missing("id".into())));
        check(
            &p,
            parts(&["", "play"]),
            Err(ArgProblem::Missing("id".into())),
        );
        check(
            &p,
            parts(&["tt1", "rewind"]),
            Err(ArgProblem::NotOneOf(
                "action".into(),
                vec!["play".into(), "pause".into(), "stop".into()],
            )),
        );
        check(
            &p,
            parts(&["tt1", "play", "x"]),
            Err(ArgProblem::TooMany(3)),
        );
        check(
            &p,
            parts(&["id=a", "id=b"]),
            Err(ArgProblem::Repeated("id".into())),
        );
        // A part with '=' whose key is not declared is a positional value.
        check(&p, parts(&["q=1"]), Ok("id=q=1"));
        let json = |s: &str| RawArgs::Json(serde_json::from_str(s).unwrap());
        check(
            &p,
            json(r#"{"id":"tt1","action":"play"}"#),
            Ok("id=tt1|action=play"),
        );
        check(&p, json(r#"{"id":42}"#), Ok("id=42"));
        check(
            &p,
            json(r#"{"id":"a","extra":1}"#),
            Err(ArgProblem::Unknown("extra".into())),
        );
        check(
            &p,
            json(r#"{"id":["a"]}"#),
            Err(ArgProblem::NotA("id".into(), "string")),
        );
    }

    #[test]
    fn types() {
        let n = [decl("n", ArgType::Integer, true)];
        check(&n, parts(&["42"]), Ok("n=42"));
        check(
            &n,
            parts(&["4.2"]),
            Err(ArgProblem::NotA("n".into(), "integer")),
        );
        let x = [decl("x", ArgType::Number, true)];
        check(&x, parts(&["3,5"]), Ok("x=3.5"));
        check(
            &x,
            parts(&["inf"]),
            Err(ArgProblem::NotA("x".into(), "number")),
        );
        let b = [decl("b", ArgType::Boolean, true)];
        check(&b, parts(&["Да"]), Ok("b=true"));
        check(&b, parts(&["off"]), Ok("b=false"));
        check(
            &b,
            parts(&["maybe"]),
            Err(ArgProblem::NotA("b".into(), "boolean")),
        );
        let json = |s: &str| RawArgs::Json(serde_json::from_str(s).unwrap());
        check(&b, json(r#"{"b":true}"#), Ok("b=true"));
        check(&x, json(r#"{"x":1.5}"#), Ok("x=1.5"));
        // The last text argument absorbs extra parts.
        let t = [decl("text", ArgType::String, true)];
        check(&t, parts(&["a ", " b"]), Ok("text=a | b"));
        check(&t, parts(&["«Привет»"]), Ok("text=Привет"));
    }

    #[test]
    fn args_to_json() {
        let a = validate_args(&play(), &parts(&["tt1", "play"])).unwrap();
        assert_eq!(
            a.to_json(),
            serde_json::json!({"id": "tt1", "action": "play"})
        );
        assert_eq!(a.str("action"), Some("play"));
        assert!(a.get("nope").is_none());
    }

    #[test]
    fn tool_lines() {
        let t = Texts::new(Lang::Ru);
        let mut p = play();
        p[0].description = Some("из media_search".into());
        assert_eq!(
            tool_line(t, "media_play", "запуск", &p),
            "media_play|id|action? — запуск (id: из media_search; action: play/pause/stop)"
        );
        assert_eq!(
            tool_line(t, "get_current_time", "время", &[]),
            "get_current_time — время"
        );
        let n = [decl("n", ArgType::Integer, true)];
        assert_eq!(
            tool_line(Texts::new(Lang::En), "x_n", "", &n),
            "x_n|n (n: integer)"
        );
    }
}
