//! FunctionGemma's own function-calling format, rendered from and parsed into the agent's
//! types (for a chat-format adapter; this module is pure text, no I/O).
//!
//! - Declarations: `<start_function_declaration>declaration:NAME{description:<escape>…<escape>,
//!   parameters:{properties:{…},required:[…],type:<escape>OBJECT<escape>}}<end_function_declaration>`,
//!   after the fixed [`DEVELOPER_TURN`] sentence.
//! - Calls the model writes: `<start_function_call>call:NAME{key:<escape>text<escape>,n:42}<end_function_call>`.
//! - Tool results fed back: `<start_function_response>response:NAME{value:<escape>…<escape>}<end_function_response>`.
//!
//! Strings are always wrapped in `<escape>…<escape>`; numbers, booleans and `null` are bare.
//! A string cannot contain a marker (`<escape>` or a block marker) itself, so rendering
//! drops markers from text ([`strip_markers`]).
//!
//! For a model whose [`CallSyntax`](crate::CallSyntax) is FunctionGemma the agent reads
//! generations with [`parse_output`] (the same [`ParsedOutput`] the `TOOL_CALL:` protocol
//! gives, so dispatch and validation are shared) and streams them through
//! [`VisibleFilter`]: text before the first block, never a block.
//!
//! Parsed calls are the same [`ToolCall`]s the `TOOL_CALL:` protocol produces: the name
//! trimmed and lower-cased, the named arguments as [`RawArgs::Json`] (typed values, which
//! [`crate::validate_args`] coerces to the declaration), `line` the block as written.

use serde_json::{Map, Number, Value};

use crate::args::{ArgDecl, ArgType, ArgValue, Args, RawArgs};
use crate::protocol::{ParsedOutput, Segment, ToolCall};
use crate::toolset::ToolDecl;

/// The developer sentence that switches FunctionGemma to function calling; the
/// declarations follow it directly.
pub const DEVELOPER_TURN: &str =
    "You are a model that can do function calling with the following functions";

const ESC: &str = "<escape>";
const DECL_START: &str = "<start_function_declaration>";
const DECL_END: &str = "<end_function_declaration>";
/// The marker that opens a call block (where a reply that may not call stops).
pub const CALL_START: &str = "<start_function_call>";
const CALL_END: &str = "<end_function_call>";
const RESP_START: &str = "<start_function_response>";
const RESP_END: &str = "<end_function_response>";
/// Deepest nesting of `{…}`/`[…]` values accepted in a call.
const MAX_DEPTH: usize = 16;

/// Why a `<start_function_call>` block did not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FunctionCallError {
    /// No `<end_function_call>` before the end of the text or the next block.
    #[error("function call without <end_function_call>: {text:?}")]
    Unterminated {
        /// The block as written, from `<start_function_call>`.
        text: String,
    },
    /// The name is empty or not an identifier.
    #[error("function call with a bad name {name:?} (expected call:NAME{{…}}, NAME of ASCII letters, digits, '_', '-' or '.')")]
    BadName {
        /// The name as written.
        name: String,
        /// The block as written.
        text: String,
    },
    /// The arguments between `{` and `}` do not follow the format.
    #[error("function call {name}: bad argument syntax: {why}")]
    BadArguments {
        /// The tool's name, lower-cased.
        name: String,
        /// What is wrong.
        why: String,
        /// The block as written.
        text: String,
    },
}

impl FunctionCallError {
    /// The block as the model wrote it.
    pub fn text(&self) -> &str {
        match self {
            Self::Unterminated { text }
            | Self::BadName { text, .. }
            | Self::BadArguments { text, .. } => text,
        }
    }
}

/// Every marker of the format: special tokens in FunctionGemma's vocabulary.
pub const MARKERS: [&str; 7] = [
    ESC, DECL_START, DECL_END, CALL_START, CALL_END, RESP_START, RESP_END,
];

/// `text` without any of the format's [`MARKERS`]: what text the agent writes into a
/// FunctionGemma prompt (descriptions, skill lines) may hold, so only the agent's own
/// rendering puts markers there.
pub fn strip_markers(text: &str) -> String {
    let mut out = text.to_string();
    // Removing one marker can join the halves of another: repeat until none is left.
    while let Some(m) = MARKERS.iter().find(|m| out.contains(*m)) {
        out = out.replace(m, "");
    }
    out
}

fn esc(s: &str) -> String {
    format!("{ESC}{}{ESC}", strip_markers(s))
}

fn type_name(ty: &ArgType) -> &'static str {
    match ty {
        ArgType::String | ArgType::Enum(_) => "STRING",
        ArgType::Integer => "INTEGER",
        ArgType::Number => "NUMBER",
        ArgType::Boolean => "BOOLEAN",
    }
}

/// One tool declaration: properties in declaration order (`description` when the argument
/// has one, `enum` for an enum argument, then `type`), `required` listing the required
/// arguments in order.
pub fn render_declaration(name: &str, description: &str, args: &[ArgDecl]) -> String {
    let props: Vec<String> = args
        .iter()
        .map(|a| {
            let mut fields = Vec::new();
            if let Some(d) = &a.description {
                fields.push(format!("description:{}", esc(d)));
            }
            if let ArgType::Enum(values) = &a.ty {
                let values: Vec<String> = values.iter().map(|v| esc(v)).collect();
                fields.push(format!("enum:[{}]", values.join(",")));
            }
            fields.push(format!("type:{}", esc(type_name(&a.ty))));
            format!("{}:{{{}}}", a.name, fields.join(","))
        })
        .collect();
    let required: Vec<String> = args
        .iter()
        .filter(|a| a.required)
        .map(|a| esc(&a.name))
        .collect();
    format!(
        "{DECL_START}declaration:{name}{{description:{},parameters:{{properties:{{{}}},required:[{}],type:{}}}}}{DECL_END}",
        esc(description),
        props.join(","),
        required.join(","),
        esc("OBJECT"),
    )
}

/// The declarations of `tools`, concatenated in order.
pub fn render_declarations(tools: &[ToolDecl]) -> String {
    tools
        .iter()
        .map(|t| render_declaration(&t.name, &t.description, &t.args))
        .collect()
}

/// The developer turn's content: [`DEVELOPER_TURN`] directly followed by the declarations.
pub fn render_developer_turn(tools: &[ToolDecl]) -> String {
    format!("{DEVELOPER_TURN}{}", render_declarations(tools))
}

fn render_value(v: &Value) -> String {
    match v {
        Value::String(s) => esc(s),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(render_value).collect();
            format!("[{}]", items.join(","))
        }
        Value::Object(map) => format!("{{{}}}", render_fields(map)),
        other => other.to_string(),
    }
}

fn render_fields(map: &Map<String, Value>) -> String {
    let fields: Vec<String> = map
        .iter()
        .map(|(k, v)| format!("{k}:{}", render_value(v)))
        .collect();
    fields.join(",")
}

fn call_block(name: &str, fields: &str) -> String {
    format!("{CALL_START}call:{name}{{{fields}}}{CALL_END}")
}

/// A call as FunctionGemma writes it (for rendering a history back in this format).
///
/// JSON arguments keep their types (in the map's key order); `key=value` parts become
/// escaped strings; a positional part has no name here and is written as `argN` (1-based) —
/// render validated arguments with [`render_args`] to get the declared names.
pub fn render_call(call: &ToolCall) -> String {
    let fields = match &call.args {
        RawArgs::Json(map) => render_fields(map),
        RawArgs::Parts(parts) => {
            let fields: Vec<String> = parts
                .iter()
                .enumerate()
                .map(|(i, p)| match p.split_once('=') {
                    Some((k, v)) if is_key(k.trim()) => format!("{}:{}", k.trim(), esc(v.trim())),
                    _ => format!("arg{}:{}", i + 1, esc(p)),
                })
                .collect();
            fields.join(",")
        }
    };
    call_block(&call.name, &fields)
}

/// A call of `name` with validated arguments, in declaration order, typed.
pub fn render_args(name: &str, args: &Args) -> String {
    let fields: Vec<String> = args
        .iter()
        .map(|(k, v)| match v {
            ArgValue::Str(s) | ArgValue::Enum(s) => format!("{k}:{}", esc(s)),
            other => format!("{k}:{other}"),
        })
        .collect();
    call_block(name, &fields.join(","))
}

/// A tool's reply fed back to the model: `response:NAME{value:<escape>TEXT<escape>}`.
pub fn render_response(name: &str, text: &str) -> String {
    format!(
        "{RESP_START}response:{name}{{value:{}}}{RESP_END}",
        esc(text)
    )
}

/// The marked blocks of model output, in order: `(is_call, start, end, inner)`, byte
/// offsets of the whole block and the text between its markers (`None`: unterminated —
/// the block runs to the end of the text or to the next opening marker).
fn blocks(text: &str) -> Vec<(bool, usize, usize, Option<&str>)> {
    fn earliest_open(text: &str) -> Option<(usize, bool)> {
        let call = text.find(CALL_START).map(|i| (i, true));
        let resp = text.find(RESP_START).map(|i| (i, false));
        [call, resp].into_iter().flatten().min()
    }
    let mut out = Vec::new();
    let mut from = 0;
    while let Some((rel, is_call)) = text.get(from..).and_then(earliest_open) {
        let start = from + rel;
        let (open, close) = match is_call {
            true => (CALL_START, CALL_END),
            false => (RESP_START, RESP_END),
        };
        let body_start = start + open.len();
        let body = text.get(body_start..).unwrap_or("");
        let next = earliest_open(body).map(|(i, _)| i);
        let (end, inner) = match body.find(close) {
            Some(c) if next.is_none_or(|n| c < n) => (body_start + c + close.len(), body.get(..c)),
            _ => (next.map_or(text.len(), |n| body_start + n), None),
        };
        out.push((is_call, start, end, inner));
        from = end;
    }
    out
}

/// Every `<start_function_call>…<end_function_call>` block of `text`, in order, parsed.
///
/// Text outside the blocks is ignored. A block without `<end_function_call>` before the
/// end of the text (or before the next `<start_function_call>`/`<start_function_response>`)
/// is [`FunctionCallError::Unterminated`]. The `call:` prefix may be missing; a block
/// without `{…}` has no arguments. Never panics.
pub fn parse_calls(text: &str) -> Vec<Result<ToolCall, FunctionCallError>> {
    blocks(text)
        .into_iter()
        .filter(|b| b.0)
        .map(|(_, start, end, inner)| {
            let written = text.get(start..end).unwrap_or("").to_string();
            match inner {
                Some(inner) => parse_block(written, inner),
                None => Err(FunctionCallError::Unterminated { text: written }),
            }
        })
        .collect()
}

/// The output without its function-call blocks (and any response block the model wrote):
/// what a user would hear. An unterminated block is removed to its end; the text around
/// the blocks is kept as it is.
pub fn visible_text(text: &str) -> String {
    let mut out = String::new();
    let mut from = 0;
    for (_, start, end, _) in blocks(text) {
        out.push_str(text.get(from..start).unwrap_or(""));
        from = end;
    }
    out.push_str(text.get(from..).unwrap_or(""));
    out
}

/// A generation read as [`ParsedOutput`]: the text before, between and after the call
/// blocks as [`Segment::Text`], each call block as a [`Segment::Call`]. Total, like the
/// `TOOL_CALL:` parser:
/// - a block cut short (no `<end_function_call>`: the reply ran out of tokens) is the call
///   it would be once closed (with the `}` it was about to write, if need be), when that
///   parses; otherwise a call with no name;
/// - a block with a bad name is a call of that name (the dispatcher answers it as an unknown
///   tool), one with bad argument syntax a call of its tool without arguments (validation
///   names what is missing);
/// - a response block (the model inventing a tool's result) ends the output: nothing after
///   it is text or a call.
pub fn parse_output(text: &str) -> ParsedOutput {
    let mut segments = Vec::new();
    let mut from = 0;
    for (is_call, start, end, inner) in blocks(text) {
        let before = text.get(from..start).unwrap_or("");
        if !before.is_empty() {
            segments.push(Segment::Text(before.to_string()));
        }
        from = end;
        if !is_call {
            return ParsedOutput { segments };
        }
        let written = text.get(start..end).unwrap_or("").to_string();
        segments.push(Segment::Call(lenient_call(written, inner)));
    }
    let rest = text.get(from..).unwrap_or("");
    if !rest.is_empty() {
        segments.push(Segment::Text(rest.to_string()));
    }
    ParsedOutput { segments }
}

/// The call a block stands for, whatever its shape (see [`parse_output`]).
fn lenient_call(written: String, inner: Option<&str>) -> ToolCall {
    let parsed = match inner {
        Some(inner) => parse_block(written.clone(), inner),
        // Closed as written, or with the `}` it was about to write.
        None => ["", "}"]
            .iter()
            .find_map(|close| {
                let inner = written.get(CALL_START.len()..)?;
                let inner = format!("{inner}{close}");
                parse_block(format!("{CALL_START}{inner}{CALL_END}"), &inner).ok()
            })
            .ok_or(FunctionCallError::Unterminated { text: written }),
    };
    let nameless = |name: String, line: String| ToolCall {
        name,
        args: RawArgs::Parts(Vec::new()),
        line,
    };
    match parsed {
        Ok(call) => call,
        Err(FunctionCallError::Unterminated { text }) => nameless(String::new(), text),
        Err(FunctionCallError::BadName { name, text }) => nameless(name.to_lowercase(), text),
        Err(FunctionCallError::BadArguments { name, text, .. }) => nameless(name, text),
    }
}

/// Streams the visible part of a FunctionGemma generation: the text before its first
/// block (a call, or an invented response), exactly [`ParsedOutput::visible`] of
/// [`parse_output`]. It holds back a tail that could still begin a block marker and
/// releases it as soon as it cannot; nothing of a block is ever released.
#[derive(Debug, Default, Clone)]
pub struct VisibleFilter {
    held: String,
    done: bool,
}

impl VisibleFilter {
    /// A filter at the start of a generation.
    pub fn new() -> Self {
        Self::default()
    }

    /// Feed a piece of generated text; returns what may be released now (possibly empty).
    pub fn push(&mut self, piece: &str) -> String {
        if self.done {
            return String::new();
        }
        self.held.push_str(piece);
        let first = [CALL_START, RESP_START]
            .iter()
            .filter_map(|m| self.held.find(m))
            .min();
        if let Some(at) = first {
            self.done = true;
            let mut out = std::mem::take(&mut self.held);
            out.truncate(at);
            return out;
        }
        // The longest tail that is a proper prefix of a block marker stays held.
        let keep = self
            .held
            .char_indices()
            .map(|(i, _)| i)
            .find(|&i| {
                let tail = &self.held[i..];
                [CALL_START, RESP_START].iter().any(|m| m.starts_with(tail))
            })
            .unwrap_or(self.held.len());
        let rest = self.held.split_off(keep);
        std::mem::replace(&mut self.held, rest)
    }

    /// The end of the generation: releases a held tail that turned out to be text.
    pub fn finish(&mut self) -> String {
        if self.done {
            return String::new();
        }
        self.done = true;
        std::mem::take(&mut self.held)
    }
}

fn is_key_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')
}

fn is_key(s: &str) -> bool {
    !s.is_empty() && s.chars().all(is_key_char)
}

fn parse_block(written: String, inner: &str) -> Result<ToolCall, FunctionCallError> {
    let body = inner.trim_start();
    let body = body
        .strip_prefix("call")
        .and_then(|r| r.trim_start().strip_prefix(':'))
        .unwrap_or(body);
    let brace = body.find('{').unwrap_or(body.len());
    let raw_name = body.get(..brace).unwrap_or("").trim();
    if !is_key(raw_name) || !raw_name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        let name = raw_name.to_string();
        return Err(FunctionCallError::BadName {
            name,
            text: written,
        });
    }
    let name = raw_name.to_lowercase();
    let mut p = Parser {
        s: body,
        pos: brace,
    };
    let args = match p.eat("{") {
        false => Ok(Map::new()),
        true => p.object(0).and_then(|map| {
            p.ws();
            match p.rest() {
                "" => Ok(map),
                _ => Err(p.expected("the end of the call")),
            }
        }),
    };
    match args {
        Ok(map) => Ok(ToolCall {
            name,
            args: RawArgs::Json(map),
            line: written,
        }),
        Err(why) => Err(FunctionCallError::BadArguments {
            name,
            why,
            text: written,
        }),
    }
}

/// A cursor over the call text; `pos` always sits on a char boundary.
struct Parser<'a> {
    s: &'a str,
    pos: usize,
}

impl<'a> Parser<'a> {
    fn rest(&self) -> &'a str {
        self.s.get(self.pos..).unwrap_or("")
    }

    fn ws(&mut self) {
        let r = self.rest();
        self.pos += r.len() - r.trim_start().len();
    }

    fn eat(&mut self, token: &str) -> bool {
        let found = self.rest().starts_with(token);
        if found {
            self.pos += token.len();
        }
        found
    }

    fn expected(&self, what: &str) -> String {
        match self.rest() {
            "" => format!("expected {what}, found the end"),
            rest => format!(
                "expected {what} at {:?}",
                rest.chars().take(24).collect::<String>()
            ),
        }
    }

    /// The comma-separated items of a `{…}` or `[…]` after its opening bracket.
    fn items(
        &mut self,
        close: &str,
        mut item: impl FnMut(&mut Self) -> Result<(), String>,
    ) -> Result<(), String> {
        loop {
            self.ws();
            if self.eat(close) {
                return Ok(());
            }
            item(self)?;
            self.ws();
            if !self.eat(",") && !self.rest().starts_with(close) {
                return Err(self.expected(&format!("',' or '{close}'")));
            }
        }
    }

    /// `key:value, …}` after a `{`.
    fn object(&mut self, depth: usize) -> Result<Map<String, Value>, String> {
        let mut map = Map::new();
        self.items("}", |p| {
            let r = p.rest();
            let key = r
                .get(..r.find(|c| !is_key_char(c)).unwrap_or(r.len()))
                .unwrap_or("");
            if key.is_empty() {
                return Err(p.expected("an argument name"));
            }
            p.pos += key.len();
            p.ws();
            if !p.eat(":") {
                return Err(p.expected(&format!("':' after {key:?}")));
            }
            p.ws();
            let value = p.value(depth)?;
            match map.insert(key.to_string(), value) {
                Some(_) => Err(format!("argument {key:?} given twice")),
                None => Ok(()),
            }
        })?;
        Ok(map)
    }

    fn value(&mut self, depth: usize) -> Result<Value, String> {
        if depth >= MAX_DEPTH {
            return Err("values nested too deep".into());
        }
        if self.eat(ESC) {
            let r = self.rest();
            let end = r.find(ESC).ok_or("a string without its closing <escape>")?;
            self.pos += end + ESC.len();
            return Ok(Value::String(r.get(..end).unwrap_or("").to_string()));
        }
        if self.eat("{") {
            return self.object(depth + 1).map(Value::Object);
        }
        if self.eat("[") {
            let mut items = Vec::new();
            self.items("]", |p| p.value(depth + 1).map(|v| items.push(v)))?;
            return Ok(Value::Array(items));
        }
        let r = self.rest();
        let len = r.find([',', '}', ']']).unwrap_or(r.len());
        let bare = r.get(..len).unwrap_or("").trim();
        if bare.is_empty() || bare.contains(ESC) || bare.contains(['{', '[', ':']) {
            return Err(self.expected("a value (<escape>text<escape>, a number, true or false)"));
        }
        self.pos += len;
        Ok(bare_value(bare))
    }
}

/// `true`/`false`/`null`, a number, or else (forgiving) the word as a string.
fn bare_value(s: &str) -> Value {
    match s {
        "true" => return Value::Bool(true),
        "false" => return Value::Bool(false),
        "null" => return Value::Null,
        _ => {}
    }
    let numeric = s.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '+')
        && s.chars().all(|c| c.is_ascii_digit() || "+-.eE".contains(c));
    let number = match s.parse::<i64>() {
        _ if !numeric => None,
        Ok(i) => Some(Number::from(i)),
        Err(_) => s.parse::<f64>().ok().and_then(Number::from_f64),
    };
    number.map_or_else(|| Value::String(s.to_string()), Value::Number)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::validate_args;
    use crate::protocol::Segment;
    use serde_json::json;

    fn decl(name: &str, ty: ArgType, required: bool, description: Option<&str>) -> ArgDecl {
        let description = description.map(Into::into);
        ArgDecl {
            name: name.into(),
            ty,
            required,
            description,
        }
    }

    fn enum_of(values: &[&str]) -> ArgType {
        ArgType::Enum(values.iter().map(|v| v.to_string()).collect())
    }

    fn w(body: &str) -> String {
        format!("{CALL_START}{body}{CALL_END}")
    }

    fn call(name: &str, args: Value) -> ToolCall {
        let Value::Object(map) = args else {
            panic!("not an object")
        };
        ToolCall {
            name: name.into(),
            args: RawArgs::Json(map),
            line: String::new(),
        }
    }

    /// The calls of `text`, all of which must parse, as (name, arguments as JSON).
    fn ok(text: &str) -> Vec<(String, Value)> {
        let calls = parse_calls(text).into_iter().map(|r| r.expect(text));
        calls
            .map(|c| match c.args {
                RawArgs::Json(map) => (c.name, Value::Object(map)),
                other => panic!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn declaration_golden_string_enum_integer() {
        let args = [
            decl("id", ArgType::String, true, Some("из media_search")),
            decl("action", enum_of(&["play", "pause", "stop"]), false, None),
            decl("position", ArgType::Integer, true, Some("секунды")),
        ];
        assert_eq!(
            render_declaration("media_play", "запуск/управление просмотром", &args),
            "<start_function_declaration>declaration:media_play{description:<escape>запуск/управление просмотром<escape>,\
parameters:{properties:{id:{description:<escape>из media_search<escape>,type:<escape>STRING<escape>},\
action:{enum:[<escape>play<escape>,<escape>pause<escape>,<escape>stop<escape>],type:<escape>STRING<escape>},\
position:{description:<escape>секунды<escape>,type:<escape>INTEGER<escape>}},\
required:[<escape>id<escape>,<escape>position<escape>],type:<escape>OBJECT<escape>}}<end_function_declaration>"
        );
    }

    #[test]
    fn developer_turn_matches_the_documented_weather_example() {
        let location = "The city and state, e.g. \"San Francisco, CA\" or \"Tokyo, JP\"";
        let unit = "The unit to return the temperature in.";
        let tool = ToolDecl {
            name: "get_current_weather".into(),
            description: "Gets the current weather in a given location.".into(),
            args: vec![
                decl("location", ArgType::String, true, Some(location)),
                decl(
                    "unit",
                    enum_of(&["celsius", "fahrenheit"]),
                    false,
                    Some(unit),
                ),
            ],
            examples: vec![],
        };
        assert_eq!(
            render_developer_turn(&[tool]),
            "You are a model that can do function calling with the following functions\
<start_function_declaration>declaration:get_current_weather{description:<escape>Gets the current weather in a given location.<escape>,\
parameters:{properties:{location:{description:<escape>The city and state, e.g. \"San Francisco, CA\" or \"Tokyo, JP\"<escape>,type:<escape>STRING<escape>},\
unit:{description:<escape>The unit to return the temperature in.<escape>,enum:[<escape>celsius<escape>,<escape>fahrenheit<escape>],type:<escape>STRING<escape>}},\
required:[<escape>location<escape>],type:<escape>OBJECT<escape>}}<end_function_declaration>"
        );
    }

    #[test]
    fn declarations_without_args() {
        let one = "<start_function_declaration>declaration:get_current_time{description:<escape>время<escape>,\
parameters:{properties:{},required:[],type:<escape>OBJECT<escape>}}<end_function_declaration>";
        assert_eq!(render_declaration("get_current_time", "время", &[]), one);
        let tool = |n: &str| ToolDecl {
            name: n.into(),
            description: "время".into(),
            args: vec![],
            examples: vec![],
        };
        let two = render_declarations(&[tool("get_current_time"), tool("x_b")]);
        assert_eq!(
            two,
            format!("{one}{}", one.replace("get_current_time", "x_b"))
        );
    }

    #[test]
    fn call_and_response_goldens() {
        let c = call(
            "media_play",
            json!({"id": "tt1", "position": 42, "loop": true, "x": 2.5}),
        );
        assert_eq!(
            render_call(&c),
            w("call:media_play{id:<escape>tt1<escape>,loop:true,position:42,x:2.5}")
        );
        let parts = |p: &[&str]| ToolCall {
            args: RawArgs::Parts(p.iter().map(|s| s.to_string()).collect()),
            ..call("media_play", json!({}))
        };
        assert_eq!(
            render_call(&parts(&["id=tt1", "action = pause"])),
            w("call:media_play{id:<escape>tt1<escape>,action:<escape>pause<escape>}")
        );
        assert_eq!(
            render_call(&parts(&["Лара", "q=1"])),
            w("call:media_play{arg1:<escape>Лара<escape>,q:<escape>1<escape>}")
        );
        assert_eq!(render_call(&parts(&[])), w("call:media_play{}"));
        let decls = [
            decl("id", ArgType::String, true, None),
            decl("action", enum_of(&["play", "pause"]), false, None),
            decl("n", ArgType::Integer, false, None),
        ];
        let raw = RawArgs::Parts(vec!["tt 1".into(), "PAUSE".into(), "7".into()]);
        assert_eq!(
            render_args("media_play", &validate_args(&decls, &raw).unwrap()),
            w("call:media_play{id:<escape>tt 1<escape>,action:<escape>pause<escape>,n:7}")
        );
        assert_eq!(
            render_response("get_current_time", "10:00, суббота {x}"),
            "<start_function_response>response:get_current_time{value:<escape>10:00, суббота {x}<escape>}<end_function_response>"
        );
        // `<escape>` cannot appear inside a string: it is dropped.
        assert_eq!(
            render_response("t", "a<escape>b"),
            "<start_function_response>response:t{value:<escape>ab<escape>}<end_function_response>"
        );
    }

    #[test]
    fn round_trip() {
        let args =
            json!({"text": "a, b: {c} [d]", "n": -3, "ok": false, "l": ["x", 1], "o": {"k": "v"}});
        let text = render_call(&call("show_text", args.clone()));
        assert_eq!(ok(&text), [("show_text".to_string(), args)]);
        let parsed = parse_calls(&text).remove(0).unwrap();
        assert_eq!(
            (parsed.line.as_str(), render_call(&parsed)),
            (text.as_str(), text.clone())
        );
    }

    #[test]
    fn tricky_escaped_values() {
        let text = w("call:Show_Text{text:<escape>a, b: {c}<escape>, n: 3,\n  e:<escape><escape>}");
        let want = json!({"text": "a, b: {c}", "n": 3, "e": ""});
        assert_eq!(ok(&text), [("show_text".into(), want)]);
        let text = w(" call : x_y { q : <escape> ]«}»: <escape> } ");
        assert_eq!(ok(&text), [("x_y".into(), json!({"q": " ]«}»: "}))]);
    }

    #[test]
    fn numbers_booleans_and_empty_args() {
        let text = w("call:t{i:42,neg:-7,x:3.5,e:1e3,t:true,f:false,z:null,w:pause,big:1e999}");
        let want = json!({"i": 42, "neg": -7, "x": 3.5, "e": 1000.0, "t": true, "f": false,
                          "z": null, "w": "pause", "big": "1e999"});
        assert_eq!(ok(&text), [("t".into(), want)]);
        // What the dispatcher makes of them.
        let decls = [
            decl("i", ArgType::Integer, true, None),
            decl("x", ArgType::Number, true, None),
            decl("t", ArgType::Boolean, true, None),
            decl("w", enum_of(&["play", "pause"]), true, None),
        ];
        let c = parse_calls(&w("call:t{i:42,x:3.5,t:true,w:<escape>Pause<escape>}")).remove(0);
        let args = validate_args(&decls, &c.unwrap().args).unwrap();
        assert_eq!(args.to_string(), "i=42|x=3.5|t=true|w=pause");
        for body in [
            "call:get_time{}",
            "call:get_time{ }",
            "call:get_time",
            "get_time{}",
        ] {
            assert_eq!(ok(&w(body)), [("get_time".into(), json!({}))], "{body}");
        }
    }

    #[test]
    fn several_calls_with_text_and_garbage_between() {
        let text = format!(
            "Сейчас. {} мусор }}{{ {CALL_END} <escape>\n{}хвост",
            w("call:a_x{q:<escape>1<escape>}"),
            w("call:b_y{}")
        );
        let want = [("a_x".into(), json!({"q": "1"})), ("b_y".into(), json!({}))];
        assert_eq!(ok(&text), want);
        assert!(parse_calls("no calls here <end_function_call> {a:1}").is_empty());
    }

    #[test]
    fn unterminated_calls() {
        let tail = "<start_function_call>call:b{q:<escape>x";
        let got = parse_calls(&format!("{} и {tail}", w("call:a{}")));
        assert!(got[0].is_ok());
        assert_eq!(
            got[1],
            Err(FunctionCallError::Unterminated { text: tail.into() })
        );
        assert!(got[1]
            .as_ref()
            .unwrap_err()
            .to_string()
            .contains("without <end_function_call>"));
        let got = parse_calls(&format!("{CALL_START}call:a{{{}", w("call:b{}")));
        let first = FunctionCallError::Unterminated {
            text: "<start_function_call>call:a{".into(),
        };
        assert_eq!(got[0], Err(first));
        assert_eq!(got[1].as_ref().map(|c| c.name.as_str()), Ok("b"));
    }

    #[test]
    fn bad_names_and_bad_arguments() {
        let names = [
            ("call:{a:1}", ""),
            ("call:get weather{}", "get weather"),
            ("call:погода{}", "погода"),
            ("call:", ""),
            ("call:1x{}", "1x"),
            ("response:x{}", "response:x"),
        ];
        for (body, name) in names {
            let text = w(body);
            let want = FunctionCallError::BadName {
                name: name.into(),
                text: text.clone(),
            };
            assert_eq!(parse_calls(&text), [Err(want)], "{body}");
        }
        let deep = format!("call:x{{a:{}1{}}}", "[".repeat(200), "]".repeat(200));
        let table = [
            ("call:x{a}", "expected ':' after \"a\" at \"}\""),
            ("call:x{a:1 b:2}", "expected a value"),
            ("call:x{a:<escape>oops}", "closing <escape>"),
            ("call:x{a:1,a:2}", "\"a\" given twice"),
            ("call:x{a:1}}", "expected the end of the call at \"}\""),
            ("call:x{a:}", "expected a value"),
            ("call:x{:1}", "expected an argument name"),
            ("call:x{a:[1,2}", "expected ',' or ']' at \"}\""),
            ("call:x{a:1", "expected ',' or '}', found the end"),
            (deep.as_str(), "nested too deep"),
        ];
        for (body, why) in table {
            let text = w(body);
            let got = parse_calls(&text).remove(0).unwrap_err();
            assert!(
                matches!(got, FunctionCallError::BadArguments { .. }),
                "{body}: {got:?}"
            );
            let message = got.to_string();
            assert!(
                message.starts_with("function call x: bad argument syntax: "),
                "{message}"
            );
            assert!(message.contains(why), "{body}: {message}");
            assert_eq!(got.text(), text);
        }
    }

    #[test]
    fn visible_text_removes_blocks() {
        let c = w("call:a{q:<escape>}<escape>}");
        assert_eq!(visible_text(&format!("Ищу.{c}")), "Ищу.");
        assert_eq!(visible_text(&format!("A {c} B {c}C")), "A  B C");
        assert_eq!(visible_text(&format!("A{c}{RESP_START}")), "A");
        let response = render_response("a", "1");
        assert_eq!(visible_text(&format!("A{response}B")), "AB");
        assert_eq!(
            visible_text("Ищу.<start_function_call>call:a{q:<escape>неза"),
            "Ищу."
        );
        let plain = "Просто текст {a:1} <end_function_call>";
        assert_eq!(visible_text(plain), plain);
    }

    #[test]
    fn the_documented_calls_parse() {
        // The model outputs shown in Google's FunctionGemma guides.
        let table = [
            (
                "<start_function_call>call:get_current_weather{location:<escape>Tokyo, Japan<escape>}<end_function_call>",
                "get_current_weather",
                json!({"location": "Tokyo, Japan"}),
            ),
            (
                "<start_function_call>call:get_current_temperature{location:<escape>Paris<escape>,unit:<escape>celsius<escape>}<end_function_call>",
                "get_current_temperature",
                json!({"location": "Paris", "unit": "celsius"}),
            ),
            (
                "<start_function_call>call:get_current_temperature{location:<escape>London<escape>}<end_function_call>",
                "get_current_temperature",
                json!({"location": "London"}),
            ),
        ];
        for (text, name, args) in table {
            assert_eq!(ok(text), [(name.to_string(), args.clone())], "{text}");
            let parsed = parse_output(text);
            let calls: Vec<&ToolCall> = parsed.calls().collect();
            assert_eq!((calls.len(), calls[0].line.as_str()), (1, text));
            assert_eq!(parsed.visible(), "");
        }
    }

    #[test]
    fn parse_output_reads_a_generation_like_the_tool_call_parser() {
        let call = w("call:get_current_time{}");
        let parsed = parse_output(&format!("Сейчас. {call}{call} после"));
        assert_eq!(
            parsed.segments,
            [
                Segment::Text("Сейчас. ".into()),
                Segment::Call(parse_calls(&call).remove(0).unwrap()),
                Segment::Call(parse_calls(&call).remove(0).unwrap()),
                Segment::Text(" после".into()),
            ]
        );
        assert_eq!(parsed.visible(), "Сейчас. ");
        // A response block the model invented ends the output.
        let invented = format!("А{call}{}Б{call}", render_response("get_current_time", "1"));
        let parsed = parse_output(&invented);
        assert_eq!(parsed.calls().count(), 1);
        assert!(!parsed
            .segments
            .iter()
            .any(|s| matches!(s, Segment::Text(t) if t.contains('Б'))));
        // Cut short: closed when that parses; bad blocks still name their tool.
        let cut = |text: &str| parse_output(text).calls().next().cloned().unwrap();
        let c = cut("<start_function_call>call:media_search{query:<escape>Лара<escape>");
        assert_eq!(
            (c.name.as_str(), c.line.ends_with(CALL_END)),
            ("media_search", true)
        );
        assert_eq!(
            c.args,
            RawArgs::Json(json!({"query": "Лара"}).as_object().unwrap().clone())
        );
        let c = cut("<start_function_call>call:media_search{query:<escape>Лар");
        assert_eq!(
            (c.name.as_str(), c.args.clone()),
            ("", RawArgs::Parts(vec![]))
        );
        let c = cut(&w("call:Get Time{}"));
        assert_eq!(c.name, "get time");
        let c = cut(&w("call:media_play{id:}"));
        assert_eq!(
            (c.name.as_str(), c.args),
            ("media_play", RawArgs::Parts(vec![]))
        );
        assert!(parse_output("просто текст").segments == [Segment::Text("просто текст".into())]);
    }

    #[test]
    fn the_filter_streams_exactly_the_visible_text() {
        let call = w("call:show_text{text:<escape>Привет<escape>}");
        let outputs = [
            format!("Сейчас покажу. {call} потом"),
            format!("{call}"),
            "Просто ответ <start_of_turn> и <start_func".to_string(),
            format!("Текст{}выдумка{call}", render_response("t", "1")),
            "Без вызова.".to_string(),
        ];
        for output in &outputs {
            let want = parse_output(output).visible();
            for size in [1, 2, 5, 64] {
                let chars: Vec<char> = output.chars().collect();
                let mut filter = VisibleFilter::new();
                let mut got = String::new();
                for piece in chars.chunks(size) {
                    let piece: String = piece.iter().collect();
                    let out = filter.push(&piece);
                    assert!(
                        !out.contains('<') || !out.contains("<start_function"),
                        "{out}"
                    );
                    got.push_str(&out);
                }
                got.push_str(&filter.finish());
                assert_eq!(got, want, "{output:?} in pieces of {size}");
            }
        }
    }

    #[test]
    fn markers_are_stripped_from_text() {
        assert_eq!(strip_markers("a<escape>b<start_function_call>c"), "abc");
        assert_eq!(strip_markers("<start_<escape>function_call>x"), "x");
        assert_eq!(
            render_declaration("t", "d<end_function_declaration>", &[]),
            render_declaration("t", "d", &[])
        );
    }

    #[test]
    fn prefixes_never_panic() {
        let c = w("call:media_search{query:<escape>Лара, «Крофт» {1}<escape>, n: 4.5, ok:true, l:[<escape>я<escape>]}");
        let full = format!("Ищу… {c} потом {c}");
        let ends = full.char_indices().map(|(i, _)| i).chain([full.len()]);
        for prefix in ends.map(|i| &full[..i]) {
            let got = parse_calls(prefix);
            assert_eq!(got.len(), prefix.matches(CALL_START).count(), "{prefix}");
            let complete = prefix.matches(CALL_END).count();
            for (k, r) in got.iter().enumerate() {
                match r {
                    Ok(c) => assert!(k < complete && c.name == "media_search", "{prefix}"),
                    Err(e) => assert!(
                        k >= complete && matches!(e, FunctionCallError::Unterminated { .. }),
                        "{prefix}: {e:?}"
                    ),
                }
            }
            assert!(!visible_text(prefix).contains(CALL_START), "{prefix}");
        }
        // Every prefix of the inside, closed early, is one call or one error.
        let inner = c
            .strip_prefix(CALL_START)
            .and_then(|c| c.strip_suffix(CALL_END))
            .unwrap();
        for i in inner.char_indices().map(|(i, _)| i) {
            assert_eq!(parse_calls(&w(&inner[..i])).len(), 1, "{}", &inner[..i]);
        }
    }
}
