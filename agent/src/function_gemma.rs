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

use porfiry_seam::wire::function_gemma::{
    CALL_END, DECLARATION_END as DECL_END, DECLARATION_START as DECL_START, ESCAPE as ESC,
    RESPONSE_END as RESP_END, RESPONSE_START as RESP_START,
};
/// The markers, defined once by the model seam ([`porfiry_seam::wire::function_gemma`]).
pub use porfiry_seam::wire::function_gemma::{CALL_START, MARKERS};

use crate::args::{ArgDecl, ArgType, ArgValue, Args, RawArgs};
use crate::output::{ParsedOutput, Segment, ToolCall};
use crate::toolset::ToolDecl;

/// The developer sentence that switches FunctionGemma to function calling; the
/// declarations follow it directly.
pub const DEVELOPER_TURN: &str =
    "You are a model that can do function calling with the following functions";

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
mod tests;
