//! The call-line protocol: parsing model output and filtering what the host may hear.
//!
//! The model writes a call on a line of its own: `TOOL_CALL: name|args`. What counts as a
//! call line is the seam's one rule ([`porfiry_seam::wire::line_start`]): any case of
//! `TOOL_CALL`, spaces around tokens, backticks, markdown emphasis or a list dash before
//! it. Parsing is forgiving beyond that — a code fence around a call, several calls in one
//! output — and total: every input parses, nothing panics. Every other line is text.
//!
//! **Visible text** is what the host may show or speak: the text lines *before the first
//! call line*, minus the code-fence lines directly around it. Text after a call was written
//! before the tool answered, so it is a guess and never reaches the host. The streaming
//! [`VisibleTextFilter`] releases exactly [`ParsedOutput::visible`], incrementally: it holds
//! the current line back while it could still become a call line and releases it as soon
//! as it clearly cannot.

use porfiry_seam::wire::{self, LineStart};

use crate::args::RawArgs;
use crate::function_gemma;
use crate::model::CallSyntax;
use crate::output::{ParsedOutput, Segment, ToolCall};

/// What a (possibly partial) line can still be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Prefix {
    Undecided,
    Call,
    Text,
}

fn prefix_state(partial: &str) -> Prefix {
    let start = wire::line_start(partial);
    if partial.trim_start().starts_with("```") {
        // A fence or a fenced call: decided only at the end of the line.
        return match start {
            LineStart::Call { .. } => Prefix::Call,
            LineStart::Text | LineStart::Undecided => Prefix::Undecided,
        };
    }
    match start {
        LineStart::Call { .. } => Prefix::Call,
        LineStart::Text => Prefix::Text,
        LineStart::Undecided => Prefix::Undecided,
    }
}

fn is_fence(line: &str) -> bool {
    let t = line.trim();
    match t.strip_prefix("```") {
        Some(info) => {
            let info = info.trim_start_matches('`');
            !info.contains(char::is_whitespace)
        }
        None => false,
    }
}

fn split_parts(text: &str) -> RawArgs {
    let parts: Vec<String> = text.split('|').map(|p| p.trim().to_string()).collect();
    if parts.iter().all(|p| p.is_empty()) {
        RawArgs::Parts(Vec::new())
    } else {
        RawArgs::Parts(parts)
    }
}

fn parse_args(text: &str) -> RawArgs {
    let text = text.trim();
    if text.starts_with('{') {
        if let Ok(serde_json::Value::Object(map)) = serde_json::from_str(text) {
            return RawArgs::Json(map);
        }
    }
    split_parts(text)
}

fn parse_call(line: &str, after: &str) -> ToolCall {
    let body = after
        .trim()
        .trim_end_matches(|c: char| c.is_whitespace() || c == '`' || c == '*')
        .trim_start_matches(|c: char| c.is_whitespace() || c == '*' || c == '`');
    let name_end = body
        .find(|c: char| c == '|' || c == '{' || c == '(' || c.is_whitespace())
        .unwrap_or(body.len());
    let name = body[..name_end].trim().to_lowercase();
    let rest = body[name_end..].trim_start();
    let args = if let Some(r) = rest.strip_prefix('|') {
        parse_args(r)
    } else if let Some(inner) = rest
        .strip_prefix('(')
        .and_then(|r| r.trim_end().strip_suffix(')'))
    {
        // `name(a|b)`, `name(key=v, key2=w)` or `name({...})`.
        let inner = inner.trim();
        let pieces: Vec<&str> = inner.split(',').collect();
        if !inner.contains('|') && pieces.len() > 1 && pieces.iter().all(|p| p.contains('=')) {
            RawArgs::Parts(pieces.iter().map(|p| p.trim().to_string()).collect())
        } else {
            parse_args(inner)
        }
    } else {
        parse_args(rest)
    };
    ToolCall {
        name,
        args,
        line: line.to_string(),
    }
}

/// Parse a complete model output. Never fails: what is not a call is text.
pub fn parse_output(text: &str) -> ParsedOutput {
    let mut segments = Vec::new();
    for raw in text.split_inclusive('\n') {
        let line = raw.trim_end_matches(['\n', '\r']);
        if let Some(after) = wire::call_body(line) {
            segments.push(Segment::Call(parse_call(line, after)));
        } else if is_fence(line) {
            segments.push(Segment::Fence(raw.to_string()));
        } else {
            segments.push(Segment::Text(raw.to_string()));
        }
    }
    ParsedOutput { segments }
}

/// Parse a complete model output written in `syntax`: [`parse_output`] for `TOOL_CALL:`
/// lines, [`function_gemma::parse_output`] for FunctionGemma's call blocks. Never fails.
pub fn parse_output_as(syntax: CallSyntax, text: &str) -> ParsedOutput {
    match syntax {
        CallSyntax::ToolCallLine => parse_output(text),
        CallSyntax::FunctionGemma => function_gemma::parse_output(text),
    }
}

/// Streams the visible part of a model output as it is generated.
///
/// Feed every text piece to [`VisibleTextFilter::push`] and send what it returns to the
/// host; call [`VisibleTextFilter::finish`] at the end of the generation. The
/// concatenation of the returned pieces equals [`ParsedOutput::visible`] of the whole
/// output, and no piece ever contains a call line or a fragment of one.
#[derive(Debug, Default, Clone)]
pub struct VisibleTextFilter {
    line: String,
    state: Option<Prefix>,
    held_fences: String,
    done: bool,
    /// For FunctionGemma's syntax: its own filter ([`VisibleTextFilter::for_syntax`]).
    blocks: Option<function_gemma::VisibleFilter>,
}

impl VisibleTextFilter {
    /// A filter at the start of a generation (`TOOL_CALL:` lines).
    pub fn new() -> Self {
        Self::default()
    }

    /// A filter for output written in `syntax`: what it releases is
    /// [`ParsedOutput::visible`] of [`parse_output_as`] with the same syntax.
    pub fn for_syntax(syntax: CallSyntax) -> Self {
        match syntax {
            CallSyntax::ToolCallLine => Self::new(),
            CallSyntax::FunctionGemma => Self {
                blocks: Some(function_gemma::VisibleFilter::new()),
                ..Self::default()
            },
        }
    }

    /// Feed a piece of generated text; returns what may be released now (possibly empty).
    pub fn push(&mut self, piece: &str) -> String {
        if let Some(blocks) = &mut self.blocks {
            return blocks.push(piece);
        }
        let mut out = String::new();
        for ch in piece.chars() {
            if self.done {
                break;
            }
            if ch == '\n' {
                self.end_line(&mut out);
                continue;
            }
            self.line.push(ch);
            match self.state {
                Some(Prefix::Text) => out.push(ch),
                _ => match prefix_state(&self.line) {
                    Prefix::Text => {
                        self.state = Some(Prefix::Text);
                        out.push_str(&self.held_fences);
                        self.held_fences.clear();
                        out.push_str(&self.line);
                    }
                    Prefix::Call => {
                        self.done = true;
                        self.held_fences.clear();
                    }
                    Prefix::Undecided => {}
                },
            }
        }
        out
    }

    fn end_line(&mut self, out: &mut String) {
        match self.state {
            Some(Prefix::Text) => out.push('\n'),
            _ => {
                if wire::is_call_line(&self.line) {
                    self.done = true;
                    self.held_fences.clear();
                } else if is_fence(&self.line) {
                    self.held_fences.push_str(&self.line);
                    self.held_fences.push('\n');
                } else {
                    out.push_str(&self.held_fences);
                    self.held_fences.clear();
                    out.push_str(&self.line);
                    out.push('\n');
                }
            }
        }
        self.line.clear();
        self.state = None;
    }

    /// The end of the generation: releases a held last line that turned out to be text.
    pub fn finish(&mut self) -> String {
        if let Some(blocks) = &mut self.blocks {
            return blocks.finish();
        }
        if self.done {
            return String::new();
        }
        self.done = true;
        if self.state == Some(Prefix::Text) {
            return String::new();
        }
        if wire::is_call_line(&self.line) {
            return String::new();
        }
        let mut out = std::mem::take(&mut self.held_fences);
        out.push_str(&self.line);
        out
    }
}

/// Keeps a regenerated preamble from being heard twice.
///
/// When a generation is discarded and generated again (an invisible `enable_toolset`), the
/// host has already heard the discarded generation's visible text. The guard swallows the
/// new visible text while it repeats what was heard, passes the rest once it goes further,
/// and — when it says something different — restarts at the beginning of the line where
/// it diverges (a line is a natural utterance for text-to-speech).
#[derive(Debug, Clone, Default)]
pub struct RepeatGuard {
    heard: String,
    buf: String,
    passing: bool,
}

impl RepeatGuard {
    /// A guard against repeating `heard` (empty: passes everything).
    pub fn new(heard: impl Into<String>) -> Self {
        RepeatGuard {
            heard: heard.into(),
            buf: String::new(),
            passing: false,
        }
    }

    /// Feed visible text; returns what the host has not heard yet.
    pub fn push(&mut self, visible: &str) -> String {
        if self.passing {
            return visible.to_string();
        }
        self.buf.push_str(visible);
        if self.heard.starts_with(&self.buf) {
            return String::new();
        }
        self.passing = true;
        if let Some(rest) = self.buf.strip_prefix(self.heard.as_str()) {
            return rest.to_string();
        }
        let common = self
            .buf
            .char_indices()
            .zip(self.heard.chars())
            .find(|((_, a), b)| a != b)
            .map(|((i, _), _)| i)
            .unwrap_or(0);
        let start = self.buf[..common].rfind('\n').map_or(0, |p| p + 1);
        self.buf[start..].to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(p: &[&str]) -> RawArgs {
        RawArgs::Parts(p.iter().map(|s| s.to_string()).collect())
    }

    fn calls(text: &str) -> Vec<(String, RawArgs)> {
        parse_output(text)
            .calls()
            .map(|c| (c.name.clone(), c.args.clone()))
            .collect()
    }

    #[test]
    fn call_forms() {
        let table: Vec<(&str, Vec<(&str, RawArgs)>)> = vec![
            (
                "TOOL_CALL: media_search|Лара Крофт",
                vec![("media_search", parts(&["Лара Крофт"]))],
            ),
            (
                "tool_call:media_search | Лара ",
                vec![("media_search", parts(&["Лара"]))],
            ),
            (
                "  Tool_Call :  Get_Current_Time",
                vec![("get_current_time", parts(&[]))],
            ),
            (
                "`TOOL_CALL: get_current_time`",
                vec![("get_current_time", parts(&[]))],
            ),
            (
                "**TOOL_CALL:** show_text|hi",
                vec![("show_text", parts(&["hi"]))],
            ),
            (
                "- TOOL_CALL: show_text|hi",
                vec![("show_text", parts(&["hi"]))],
            ),
            (
                "```\nTOOL_CALL: media_play|tt1|pause\n```",
                vec![("media_play", parts(&["tt1", "pause"]))],
            ),
            (
                "```TOOL_CALL: read_skill|media```",
                vec![("read_skill", parts(&["media"]))],
            ),
            (
                "TOOL_CALL: media_play|id=tt1|action=stop",
                vec![("media_play", parts(&["id=tt1", "action=stop"]))],
            ),
            (
                "TOOL_CALL: media_play|{\"id\": \"tt1\"}",
                vec![(
                    "media_play",
                    RawArgs::Json(serde_json::from_str("{\"id\": \"tt1\"}").unwrap()),
                )],
            ),
            (
                "TOOL_CALL: media_play {\"id\": 1}",
                vec![(
                    "media_play",
                    RawArgs::Json(serde_json::from_str("{\"id\": 1}").unwrap()),
                )],
            ),
            (
                "TOOL_CALL: media_play|{broken",
                vec![("media_play", parts(&["{broken"]))],
            ),
            (
                "TOOL_CALL: media_play(id=tt1, action=play)",
                vec![("media_play", parts(&["id=tt1", "action=play"]))],
            ),
            (
                "TOOL_CALL: read_skill(media)",
                vec![("read_skill", parts(&["media"]))],
            ),
            (
                "Ищу.\nTOOL_CALL: a_x|1\nTOOL_CALL: b_y|2\n",
                vec![("a_x", parts(&["1"])), ("b_y", parts(&["2"]))],
            ),
            ("TOOL_CALL:", vec![("", parts(&[]))]),
            // Not calls:
            ("Я вызову TOOL_CALL: x позже", vec![]),
            ("TOOL_CALLS: x", vec![]),
            ("TOOL_CALL x", vec![]),
            ("tool", vec![]),
            ("", vec![]),
        ];
        for (text, want) in table {
            let want: Vec<(String, RawArgs)> =
                want.into_iter().map(|(n, a)| (n.to_string(), a)).collect();
            assert_eq!(calls(text), want, "{text:?}");
        }
    }

    #[test]
    fn parser_never_panics_on_odd_input() {
        let odd = [
            "TOOL_CALL: \u{0}|\u{ffff}",
            "TOOL_CALL: я|ё|",
            "```",
            "`````` ```",
            "TOOL_CALL: x(",
            "TOOL_CALL: x()",
            "TOOL_CALL: ((((",
            "\r\n\r\n",
            "TOOL_CALL: {\"a\":",
            "ТOOL_CALL: cyrillic T",
        ];
        for t in odd {
            let p = parse_output(t);
            let _ = p.visible();
            let mut f = VisibleTextFilter::new();
            let mut s = f.push(t);
            s.push_str(&f.finish());
            assert_eq!(s, p.visible(), "{t:?}");
        }
    }

    fn stream(text: &str, chunk: usize) -> (String, Vec<String>) {
        let mut f = VisibleTextFilter::new();
        let mut pieces = Vec::new();
        let chars: Vec<char> = text.chars().collect();
        for c in chars.chunks(chunk) {
            pieces.push(f.push(&c.iter().collect::<String>()));
        }
        pieces.push(f.finish());
        (pieces.concat(), pieces)
    }

    #[test]
    fn visible_text_table() {
        let table: &[(&str, &str)] = &[
            ("Привет!", "Привет!"),
            ("Ищу фильм.\nTOOL_CALL: media_search|x", "Ищу фильм.\n"),
            (
                "Ищу.\n```\ntool_call: media_search|x\n```\nНашёл (выдумка)",
                "Ищу.\n",
            ),
            ("```\nprint(1)\n```", "```\nprint(1)\n```"),
            ("```python\nx\n```\nTOOL_CALL: a_b", "```python\nx\n"),
            ("TOOL_CALL: get_current_time\nСейчас 10:00", ""),
            ("  tool_call : get_current_time", ""),
            ("Tool calls are fun\nok", "Tool calls are fun\nok"),
            ("TOOL", "TOOL"),
            ("TOOL_CALL", "TOOL_CALL"),
            ("a\n\nTOOL_CALL: x", "a\n\n"),
            ("- пункт\n- TOOL_CALL: x", "- пункт\n"),
            ("`код`", "`код`"),
        ];
        for (text, want) in table {
            assert_eq!(parse_output(text).visible(), *want, "parse {text:?}");
            for chunk in [1, 2, 3, 7, 100] {
                let (got, pieces) = stream(text, chunk);
                assert_eq!(got, *want, "stream {text:?} by {chunk}");
                for p in pieces {
                    assert!(!p.to_lowercase().contains("tool_call:"), "{p:?}");
                }
            }
        }
    }

    #[test]
    fn text_is_released_as_soon_as_it_cannot_be_a_call() {
        let mut f = VisibleTextFilter::new();
        assert_eq!(f.push("To"), "");
        assert_eq!(f.push("m"), "Tom");
        assert_eq!(f.push(" Raider"), " Raider");
        assert_eq!(f.push("\n  `"), "\n");
        assert_eq!(f.push("TOOL_C"), "");
        assert_eq!(f.push("ALL: x|y\nпосле"), "");
        assert_eq!(f.finish(), "");
        let mut g = VisibleTextFilter::new();
        assert_eq!(g.push("Привет"), "Привет");
    }

    #[test]
    fn repeat_guard_table() {
        // (heard, new visible pieces, what passes)
        let table: &[(&str, &[&str], &str)] = &[
            ("Сейчас найду.\n", &["Сейчас ", "найду.\n"], ""),
            ("Сейчас найду.\n", &["Сейчас найду.\n", "Нашёл!"], "Нашёл!"),
            ("Сейчас найду.\n", &["Сейчас най", "ду.\nНашёл"], "Нашёл"),
            ("Сейчас найду.\n", &["Минутку."], "Минутку."),
            ("A.\nB найду.\n", &["A.\nB ищу"], "B ищу"),
            ("", &["x", "y"], "xy"),
            ("Сейчас найду.\n", &["Сейчас"], ""),
        ];
        for (heard, pieces, want) in table {
            let mut g = RepeatGuard::new(*heard);
            let got: String = pieces.iter().map(|p| g.push(p)).collect();
            assert_eq!(got, *want, "{heard:?} {pieces:?}");
        }
    }
}
