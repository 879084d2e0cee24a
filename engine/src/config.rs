//! Per-request settings: sampling, limits, stop strings, the tool-call grammar.

use std::time::Duration;

use porfiry_seam::{ArgKind, CallLine, CallSpec};

/// How the next token is chosen. Plain data; see the presets.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct SamplingConfig {
    /// Softmax temperature; `<= 0` means greedy (always the most likely token).
    pub temperature: f32,
    /// Keep only the `top_k` most likely tokens (0 = off).
    pub top_k: i32,
    /// Nucleus sampling: keep the smallest set with cumulative probability `top_p` (1 = off).
    pub top_p: f32,
    /// Drop tokens less likely than `min_p` × the most likely one (0 = off).
    pub min_p: f32,
    /// Penalty for tokens among the last `repeat_last_n` (1 = off).
    pub repeat_penalty: f32,
    /// How many recent tokens the repeat penalty looks at.
    pub repeat_last_n: i32,
    /// Seed of the random choice (ignored when greedy).
    pub seed: u32,
}

impl SamplingConfig {
    /// Deterministic: the most likely token every time. For tests, benchmarks and tool use.
    pub fn greedy() -> Self {
        Self {
            temperature: 0.0,
            top_k: 0,
            top_p: 1.0,
            min_p: 0.0,
            repeat_penalty: 1.0,
            repeat_last_n: 64,
            seed: 0,
        }
    }

    /// Conversational defaults (temperature 0.7, top-k 40, top-p 0.95, min-p 0.05, a light
    /// repeat penalty against the loops small models fall into).
    pub fn balanced() -> Self {
        Self {
            temperature: 0.7,
            top_k: 40,
            top_p: 0.95,
            min_p: 0.05,
            repeat_penalty: 1.1,
            repeat_last_n: 64,
            seed: 42,
        }
    }

    /// Whether this configuration is greedy.
    pub fn is_greedy(&self) -> bool {
        self.temperature <= 0.0
    }
}

impl Default for SamplingConfig {
    /// [`SamplingConfig::balanced`].
    fn default() -> Self {
        Self::balanced()
    }
}

/// The lazy grammar that makes call lines well-formed.
///
/// It stays idle (costing one regular-expression check per token) until the output starts a
/// line with the call line's marker ([`ToolCallGrammar::line`], from the request); from then
/// on every token must continue `MARKER name|args`.
/// A name is ASCII letters and digits in `_`-separated parts, starting with a letter (so no
/// runs of underscores, which a tiny model otherwise loves); every repetition is bounded.
/// Once a call is complete the model may end its turn (or start another call line, up to
/// `max_calls`); until then end-of-generation is masked.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct ToolCallGrammar {
    /// Most `_`-separated parts of a tool name. Default 6.
    pub max_name_parts: u32,
    /// Longest part of a tool name, in characters. Default 24.
    pub max_part_len: u32,
    /// Longest argument string, in characters. Default 256.
    pub max_args_len: u32,
    /// Most call lines in one reply. Default 1: the model ends its turn after a call, the
    /// agent runs it and asks again (a tiny model's second call is mostly a repetition).
    pub max_calls: u32,
    /// The words of the call line: its marker and its yes/no words. The engine spells none of
    /// them: they come with each request ([`porfiry_seam::ReplyGuide::call_line`]); the
    /// default is the seam's ([`CallLine::default`]). Not part of a configuration file.
    #[serde(skip)]
    pub line: CallLine,
}

impl Default for ToolCallGrammar {
    fn default() -> Self {
        Self {
            max_name_parts: 6,
            max_part_len: 24,
            max_args_len: 256,
            max_calls: 1,
            line: CallLine::default(),
        }
    }
}

impl ToolCallGrammar {
    /// The GBNF text. Every repetition is bounded (an unbounded one let a tiny model emit
    /// endless underscores).
    pub fn gbnf(&self) -> String {
        let part_tail = self.max_part_len.max(1) - 1;
        let more_parts = self.max_name_parts.max(1) - 1;
        let more_calls = self.max_calls.max(1) - 1;
        let part_len = self.max_part_len.max(1);
        let marker = gbnf_escape(self.line.marker);
        format!(
            "root ::= call (\"\\n\" call){{0,{more_calls}}} \"\\n\"?\n\
             call ::= \"{marker}\" \" \"? name (\"|\" args)?\n\
             name ::= [a-zA-Z] [a-zA-Z0-9]{{0,{part_tail}}} (\"_\" [a-zA-Z0-9]{{1,{part_len}}}){{0,{more_parts}}}\n\
             args ::= [^\\n]{{0,{}}}\n",
            self.max_args_len
        )
    }

    /// The GBNF text for a request that may call only `calls`: each name spelled out,
    /// followed by its positional arguments in their declared shapes (`|`-separated; enum
    /// values listed, integers as digits; optional arguments only at the end, nested).
    /// `None` when `calls` is empty: no call is allowed, so no grammar either (the caller
    /// stops the reply at the marker instead).
    pub fn gbnf_for(&self, calls: &[CallSpec]) -> Option<String> {
        if calls.is_empty() {
            return None;
        }
        let more_calls = self.max_calls.max(1) - 1;
        let len = self.max_args_len.max(1);
        let mut rules = String::new();
        let mut alternatives = Vec::new();
        for (i, call) in calls.iter().enumerate() {
            let mut body = format!("\"{}\"", gbnf_escape(&call.name));
            let mut open = 0;
            for (j, arg) in call.args.iter().enumerate() {
                let last = j + 1 == call.args.len();
                let value = match &arg.kind {
                    // The last text argument may hold `|` (positional parsing keeps it).
                    ArgKind::Text if last => "text-last".to_owned(),
                    ArgKind::Text => "text".to_owned(),
                    ArgKind::Integer => "int".to_owned(),
                    ArgKind::Number => "num".to_owned(),
                    ArgKind::Boolean => "bool".to_owned(),
                    ArgKind::OneOf(values) | ArgKind::TailOf(values) if values.is_empty() => {
                        "text".to_owned()
                    }
                    ArgKind::TailOf(words) => {
                        let name = format!("c{i}-w{j}");
                        rules.push_str(&span_rules(&name, words, Span::Tail));
                        name
                    }
                    ArgKind::OneOf(values) => {
                        let name = format!("c{i}-a{j}");
                        let alts: Vec<String> = values
                            .iter()
                            .map(|v| format!("\"{}\"", gbnf_escape(v)))
                            .collect();
                        rules.push_str(&format!("{name} ::= {}\n", alts.join(" | ")));
                        name
                    }
                };
                if arg.required && open == 0 {
                    body.push_str(&format!(" \"|\" {value}"));
                } else {
                    body.push_str(&format!(" (\"|\" {value}"));
                    open += 1;
                }
            }
            body.push_str(&")?".repeat(open));
            rules.push_str(&format!("c{i} ::= {body}\n"));
            alternatives.push(format!("c{i}"));
        }
        let marker = gbnf_escape(self.line.marker);
        let booleans = match self.line.booleans {
            [] => "text".to_owned(),
            words => words
                .iter()
                .map(|w| format!("\"{}\"", gbnf_escape(w)))
                .collect::<Vec<_>>()
                .join(" | "),
        };
        Some(format!(
            "root ::= call (\"\\n\" call){{0,{more_calls}}} \"\\n\"?\n\
             call ::= \"{marker}\" \" \"? ({})\n\
             {rules}\
             text ::= [^|\\n]{{1,{len}}}\n\
             text-last ::= [^\\n]{{1,{len}}}\n\
             int ::= \"-\"? [0-9]{{1,18}}\n\
             num ::= \"-\"? [0-9]{{1,15}} ([.,] [0-9]{{1,15}})?\n\
             bool ::= {booleans}\n",
            alternatives.join(" | ")
        ))
    }

    /// The GBNF text of a reply made of `words` from the first on, as many as the model
    /// writes (separated by spaces), with an optional full stop. Not lazy: it
    /// holds from the first token.
    pub fn gbnf_words(words: &[String]) -> String {
        format!(
            "root ::= span \".\"?\n{}",
            span_rules("span", words, Span::Head)
        )
    }

    /// The trigger: the marker, exactly, at the start of the output or of a line. The grammar
    /// is fed the output from the captured marker on.
    pub fn trigger_pattern(&self) -> String {
        format!(r"(?:^|\n)({})", regex_escape(self.line.marker))
    }
}

/// Most words a span grammar takes (a head keeps the first ones, a tail the last).
pub const MAX_SPAN_WORDS: usize = 96;

/// Which runs of words a span rule allows.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Span {
    /// From the first word on, stopping anywhere.
    Head,
    /// From any word on, to the last.
    Tail,
}

/// Rules for `name`: a run of `words` in order, separated by spaces — from the
/// first word ([`Span::Head`]) or to the last ([`Span::Tail`]). Rule `name-k` is the run
/// from word `k`; linear in the number of words.
fn span_rules(name: &str, words: &[String], span: Span) -> String {
    // The words a run can reach: the first ones for a head, the last ones for a tail.
    let keep = words.len().min(MAX_SPAN_WORDS);
    let words = match span {
        Span::Head => &words[..keep],
        Span::Tail => &words[words.len() - keep..],
    };
    let n = words.len();
    let starts: Vec<String> = match span {
        Span::Head => vec![format!("{name}-0")],
        Span::Tail => (0..n).map(|k| format!("{name}-{k}")).collect(),
    };
    let mut rules = format!("{name} ::= {}\n", starts.join(" | "));
    for (k, w) in words.iter().enumerate() {
        let word = format!("\"{}\"", gbnf_escape(w));
        let rest = format!("\" \" {name}-{}", k + 1);
        let rule = match (k + 1 < n, span) {
            (false, _) => word,
            (true, Span::Head) => format!("{word} ({rest})?"),
            (true, Span::Tail) => format!("{word} {rest}"),
        };
        rules.push_str(&format!("{name}-{k} ::= {rule}\n"));
    }
    rules
}

/// `s` as a regular expression matching exactly `s`.
fn regex_escape(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if "\\.+*?()|[]{}^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// `s` as the inside of a GBNF string literal.
fn gbnf_escape(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out
}

/// Limits and sampling of one generation.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct GenerateConfig {
    /// Most tokens to generate. Default 512.
    pub max_tokens: usize,
    /// Wall-clock budget from the moment the request is submitted (prefill included).
    /// Default `None`.
    pub deadline: Option<Duration>,
    /// Generation stops before any of these strings; they are not part of the output.
    pub stop: Vec<String>,
    /// Token choice.
    pub sampling: SamplingConfig,
    /// The tool-call grammar, or `None` for free text. Default on.
    pub tool_call_grammar: Option<ToolCallGrammar>,
    /// The calls this request may make ([`ToolCallGrammar::gbnf_for`]); `None`: any
    /// well-formed call ([`ToolCallGrammar::gbnf`]). Only with a grammar.
    pub allowed_calls: Option<Vec<CallSpec>>,
    /// Stop after this many sentences of visible text (the seam's rule,
    /// [`porfiry_seam::wire::sentence_ends`]: a call line is not one).
    pub max_sentences: Option<usize>,
    /// The reply is made of these words only ([`ToolCallGrammar::gbnf_words`]), no call.
    pub reply_words: Option<Vec<String>>,
}

impl Default for GenerateConfig {
    fn default() -> Self {
        Self {
            max_tokens: 512,
            deadline: None,
            stop: Vec::new(),
            sampling: SamplingConfig::default(),
            tool_call_grammar: Some(ToolCallGrammar::default()),
            allowed_calls: None,
            max_sentences: None,
            reply_words: None,
        }
    }
}

impl GenerateConfig {
    /// Greedy, with the tool-call grammar and at most `max_tokens` tokens.
    pub fn greedy(max_tokens: usize) -> Self {
        Self {
            max_tokens,
            sampling: SamplingConfig::greedy(),
            ..Self::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_requests_calls_spell_out_names_and_argument_shapes() {
        use porfiry_seam::ArgSpec;
        let arg = |kind: ArgKind, required: bool| ArgSpec { kind, required };
        let calls = vec![
            CallSpec {
                name: "get_current_time".into(),
                args: vec![],
            },
            CallSpec {
                name: "media_play".into(),
                args: vec![
                    arg(ArgKind::Text, true),
                    arg(ArgKind::OneOf(vec!["play".into(), "pa\"use".into()]), false),
                ],
            },
            CallSpec {
                name: "notes_delete".into(),
                args: vec![arg(ArgKind::Integer, true)],
            },
            CallSpec {
                name: "notes_add".into(),
                args: vec![arg(
                    ArgKind::TailOf(vec!["купить".into(), "хлеб".into()]),
                    true,
                )],
            },
        ];
        let g = ToolCallGrammar::default().gbnf_for(&calls).unwrap();
        let marker = CallLine::default().marker;
        assert!(
            g.contains(&format!("call ::= \"{marker}\" \" \"? (c0 | c1 | c2 | c3)")),
            "{g}"
        );
        assert!(g.contains("c0 ::= \"get_current_time\"\n"), "{g}");
        assert!(
            g.contains("c1 ::= \"media_play\" \"|\" text (\"|\" c1-a1)?\n"),
            "{g}"
        );
        assert!(g.contains("c1-a1 ::= \"play\" | \"pa\\\"use\""), "{g}");
        assert!(g.contains("c2 ::= \"notes_delete\" \"|\" int\n"), "{g}");
        assert!(g.contains("c3-w0 ::= c3-w0-0 | c3-w0-1\n"), "{g}");
        assert!(g.contains("c3-w0-0 ::= \"купить\" \" \" c3-w0-1\n"), "{g}");
        assert!(g.contains("c3-w0-1 ::= \"хлеб\"\n"), "{g}");
        assert!(
            !g.contains('+') && !g.contains('*'),
            "unbounded repetition in {g}"
        );
        // No calls: no grammar.
        assert_eq!(ToolCallGrammar::default().gbnf_for(&[]), None);
        let w = ToolCallGrammar::gbnf_words(&["10:00".into(), "суббота".into()]);
        assert!(
            w.starts_with("root ::= span \".\"?\nspan ::= span-0\n"),
            "{w}"
        );
        assert!(w.contains("span-0 ::= \"10:00\" (\" \" span-1)?\n"), "{w}");
    }

    #[test]
    fn the_grammar_and_its_trigger_spell_the_request_s_call_line() {
        let line = CallLine {
            marker: "CALL:",
            result_header: "RESULT: ",
            booleans: &["ja", "nein"],
        };
        let g = ToolCallGrammar {
            line,
            ..ToolCallGrammar::default()
        };
        let calls = [CallSpec {
            name: "lamp".into(),
            args: vec![porfiry_seam::ArgSpec {
                kind: ArgKind::Boolean,
                required: true,
            }],
        }];
        let text = g.gbnf_for(&calls).unwrap();
        assert!(text.contains("call ::= \"CALL:\" \" \"? (c0)\n"), "{text}");
        assert!(text.contains("bool ::= \"ja\" | \"nein\"\n"), "{text}");
        assert!(g.gbnf().contains("call ::= \"CALL:\" \" \"? name"));
        assert_eq!(g.trigger_pattern(), r"(?:^|\n)(CALL:)");
        // The default is the seam's call line, its marker matched exactly.
        let marker = CallLine::default().marker;
        assert_eq!(
            ToolCallGrammar::default().trigger_pattern(),
            format!(r"(?:^|\n)({marker})")
        );
        let booleans = CallLine::default().booleans;
        let want: Vec<String> = booleans.iter().map(|w| format!("\"{w}\"")).collect();
        let default = ToolCallGrammar::default().gbnf_for(&calls).unwrap();
        assert!(default.contains(&format!("bool ::= {}\n", want.join(" | "))));
        assert_eq!(regex_escape("a.b*(c)"), r"a\.b\*\(c\)");
    }

    #[test]
    fn grammar_text_bounds_every_repetition() {
        let g = ToolCallGrammar {
            max_name_parts: 3,
            max_part_len: 10,
            max_args_len: 20,
            max_calls: 2,
            ..ToolCallGrammar::default()
        }
        .gbnf();
        assert!(g.contains("[a-zA-Z0-9]{0,9}"), "{g}");
        assert!(g.contains("[a-zA-Z0-9]{1,10}){0,2}"), "{g}");
        assert!(g.contains("[^\\n]{0,20}"), "{g}");
        assert!(g.contains("call){0,1}"), "{g}");
        assert!(
            !g.contains('+') && !g.contains('*'),
            "unbounded repetition in {g}"
        );
    }
}
