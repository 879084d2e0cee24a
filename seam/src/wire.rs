//! What travels on the wire between the agent and a model, defined once: what counts as a
//! call line, the header of a tool's result, where a sentence ends, what numbers a list
//! item, and FunctionGemma's markers ([`function_gemma`]).
//!
//! Everything that reads or writes these uses this module: the agent's parser and
//! visible-text filter, its scripted model, the engine's stop scanner (the sentence cap),
//! its tool-call grammar and chat rendering (through [`CallLine`], which the agent passes
//! with each request and [`CallSyntax::call_line`](crate::CallSyntax::call_line) names for
//! a chat format), and the runtime's sentence splitter for text-to-speech.
//!
//! # Call lines
//!
//! A model writes a call on a line of its own: `TOOL_CALL: name|args` ([`CALL_MARKER`]).
//! Reading is forgiving: any case of the marker, spaces or `*` before its colon, and
//! decoration before it (whitespace, backticks, markdown emphasis, a quote mark, a list
//! dash) still make a call line ([`line_start`]). The tool-call grammar engages on the exact
//! marker at the start of a line and then lets only that spelling through, so a model
//! under the grammar writes the marker exactly; the forgiving reading is for output written
//! without it. A tool's result is rendered as a turn whose first line is [`RESULT_HEADER`]
//! and the tool's name.
//!
//! # Sentences
//!
//! One rule ([`sentence_ends`]) for the sentence cap of a spoken reply (where a reply is
//! cut) and for the text-to-speech splitter (where speech pauses):
//! - a sentence ends after a terminator (`.`, `!`, `?`, `…`, or a run of them) and the
//!   closing quotes and brackets right after it (`«нет.»`, `(вот так!)`), once whitespace
//!   follows; at the very end of the text the next character is still to come, so it is not
//!   an end yet;
//! - a dot after a list number or an ordinal ([`is_list_number`]: `1.`, `12.`) is no end, so
//!   a list said back is not cut to `1.`; nor is a dot after a single letter: an initial or
//!   a one-letter abbreviation (`А. С. Пушкин`, `т. е.`), at the cost of a sentence that
//!   ends in a one-letter word running on to the next end;
//! - a line break is not a sentence end: a list on lines is one sentence until its
//!   terminator, so a cap of three sentences does not cut it to its first three lines.
//!   Speech pauses at a line break all the same: the splitter ends an utterance at a
//!   sentence end or a line break ([`utterance_ends`]);
//! - call lines hold no sentences.

/// What opens a call line: `TOOL_CALL:` (then a space, the tool's name, `|` and the
/// arguments).
pub const CALL_MARKER: &str = "TOOL_CALL:";

/// What a tool's result begins with, followed by the tool's name on the first line of the
/// result's turn: `TOOL_RESULT: get_current_time`.
pub const RESULT_HEADER: &str = "TOOL_RESULT: ";

/// The words a yes/no argument of a call line is written with (the grammar offers exactly
/// these, in this order).
pub const BOOLEAN_WORDS: &[&str] = &["true", "false", "yes", "no", "да", "нет"];

/// The words of the call-line protocol, as the agent passes them with a request
/// ([`ReplyGuide::call_line`](crate::ReplyGuide::call_line)) and as a model renders its
/// chat format with ([`CallSyntax::call_line`](crate::CallSyntax::call_line)). A model that
/// constrains call lines with a grammar builds it from these words; it spells none itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallLine {
    /// What opens a call line ([`CALL_MARKER`]).
    pub marker: &'static str,
    /// What a tool result's turn opens with, before the tool's name ([`RESULT_HEADER`]).
    pub result_header: &'static str,
    /// The words of a yes/no argument ([`BOOLEAN_WORDS`]).
    pub booleans: &'static [&'static str],
}

impl CallLine {
    /// Porfiry's call line: `TOOL_CALL: name|args`, results headed `TOOL_RESULT: name`.
    pub const PORFIRY: CallLine = CallLine {
        marker: CALL_MARKER,
        result_header: RESULT_HEADER,
        booleans: BOOLEAN_WORDS,
    };

    /// The start of a call of `name`: the marker, a space, the name (`TOOL_CALL: name`).
    pub fn call(&self, name: &str) -> String {
        format!("{} {name}", self.marker)
    }
}

impl Default for CallLine {
    /// [`CallLine::PORFIRY`].
    fn default() -> Self {
        Self::PORFIRY
    }
}

/// What a line, or the start of one still being written, is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineStart<'a> {
    /// A call line; `body` is the text after the marker's colon.
    Call {
        /// What follows the marker (the tool's name and arguments, as written).
        body: &'a str,
    },
    /// A text line: it can no longer become a call line.
    Text,
    /// Not decided yet: what has been written could still begin a call line.
    Undecided,
}

/// Whether `c` may decorate the start of a call line: whitespace, backticks, markdown
/// emphasis, a quote mark, a list dash or bullet.
fn is_decoration(c: char) -> bool {
    c.is_whitespace() || matches!(c, '`' | '*' | '>' | '-' | '•')
}

/// What `line` (without its line break, or the start of a line) is: a call line when, after
/// decoration, it starts with the marker's word in any case and a colon (spaces, tabs or
/// `*` may stand before the colon).
pub fn line_start(line: &str) -> LineStart<'_> {
    let word = CALL_MARKER.trim_end_matches(':');
    let s = line.trim_start_matches(is_decoration);
    if s.is_empty() {
        return LineStart::Undecided;
    }
    let mut chars = s.char_indices();
    for m in word.chars() {
        match chars.next() {
            None => return LineStart::Undecided,
            Some((_, c)) if c.eq_ignore_ascii_case(&m) => {}
            Some(_) => return LineStart::Text,
        }
    }
    // The marker's word is ASCII and matched character by character: a boundary.
    let rest = s.get(word.len()..).unwrap_or_default();
    let rest = rest.trim_start_matches([' ', '\t', '*']);
    match rest.strip_prefix(':') {
        Some(body) => LineStart::Call { body },
        None if rest.is_empty() => LineStart::Undecided,
        None => LineStart::Text,
    }
}

/// The text after the marker when `line` is a call line ([`line_start`]).
pub fn call_body(line: &str) -> Option<&str> {
    match line_start(line) {
        LineStart::Call { body } => Some(body),
        LineStart::Text | LineStart::Undecided => None,
    }
}

/// Whether `line` is a call line ([`line_start`]).
pub fn is_call_line(line: &str) -> bool {
    call_body(line).is_some()
}

/// What ends a sentence.
const TERMINATORS: [char; 4] = ['.', '!', '?', '…'];
/// What may close a sentence after its terminator (quotes, brackets).
const CLOSERS: [char; 7] = ['"', '\'', '»', '”', ')', ']', '’'];

/// Where the sentences of `text` end, in order: each the byte just after its terminator
/// run and closers (see the module documentation for the rule).
pub fn sentence_ends(text: &str) -> impl Iterator<Item = usize> + '_ {
    let mut line_start = 0;
    text.split_inclusive('\n').flat_map(move |line| {
        let start = line_start;
        line_start += line.len();
        line_ends(line).map(move |end| start + end)
    })
}

/// The sentence ends of one line (with its line break, if it has one).
fn line_ends(line: &str) -> impl Iterator<Item = usize> + '_ {
    let call = is_call_line(line);
    let mut chars = line.char_indices().peekable();
    std::iter::from_fn(move || {
        if call {
            return None;
        }
        while let Some((i, c)) = chars.next() {
            if !TERMINATORS.contains(&c) {
                continue;
            }
            let mut run_end = i + c.len_utf8();
            while let Some(&(j, d)) = chars.peek().filter(|(_, d)| TERMINATORS.contains(d)) {
                run_end = j + d.len_utf8();
                chars.next();
            }
            let mut end = run_end;
            while let Some(&(j, d)) = chars.peek().filter(|(_, d)| CLOSERS.contains(d)) {
                end = j + d.len_utf8();
                chars.next();
            }
            if !chars.peek().is_some_and(|&(_, d)| d.is_whitespace()) {
                continue;
            }
            // `1. купить хлеб 2. позвонить`, `А. С. Пушкин`: a list number, an ordinal or
            // an initial, not an end.
            let word_start = line[..i].rfind(char::is_whitespace).map_or(0, |w| {
                w + line[w..].chars().next().map_or(1, char::len_utf8)
            });
            let numbered = is_list_number(&line[word_start..run_end]);
            let mut stem = line[word_start..i].chars();
            let initial = run_end == i + 1
                && stem.next().is_some_and(char::is_alphabetic)
                && stem.next().is_none();
            if c == '.' && (numbered || initial) {
                continue;
            }
            return Some(end);
        }
        None
    })
}

/// Where the `n`th sentence of `text` ends ([`sentence_ends`]): the rule of a sentence cap
/// ([`ReplyGuide::max_sentences`](crate::ReplyGuide::max_sentences)). `None` while fewer than
/// `n` sentences have ended (or `n` is 0).
pub fn sentence_end(text: &str, n: usize) -> Option<usize> {
    n.checked_sub(1).and_then(|k| sentence_ends(text).nth(k))
}

/// Where the utterances of `text` end, in order: its sentence ends ([`sentence_ends`]) and
/// its line breaks (the byte after each `\n`) where the text since the previous end holds
/// more than whitespace. What the text-to-speech splitter hands out one by one.
pub fn utterance_ends(text: &str) -> impl Iterator<Item = usize> + '_ {
    let mut line_start = 0;
    let mut last = 0;
    text.split_inclusive('\n').flat_map(move |line| {
        let start = line_start;
        line_start += line.len();
        let mut ends: Vec<usize> = line_ends(line).map(|e| start + e).collect();
        let break_at = start + line.len();
        let said = ends.last().copied().unwrap_or(last);
        if line.ends_with('\n') && !text[said..break_at].trim().is_empty() {
            ends.push(break_at);
        }
        if let Some(&e) = ends.last() {
            last = e;
        }
        ends
    })
}

/// Whether `word` numbers a list item (or is an ordinal): one to three ASCII digits, not
/// starting with `0`, and a `.` or `)` — `1.`, `12)`. No list starts at zero and no ordinal
/// is written `0.` or `07.`: `номер 0.` ends a sentence. The one rule of [`sentence_ends`]
/// (no end after it) and of the agent's answers made of a tool's words (said as commas
/// between the items).
pub fn is_list_number(word: &str) -> bool {
    let digits = word.trim_end_matches(['.', ')']);
    digits.len() + 1 == word.len()
        && (1..=3).contains(&digits.len())
        && !digits.starts_with('0')
        && digits.bytes().all(|b| b.is_ascii_digit())
}

/// FunctionGemma's markers: special tokens in its vocabulary, written by the agent (tool
/// declarations, its own decided calls) and by the engine's renderer (the turn's
/// scaffolding), read by the agent's parser.
pub mod function_gemma {
    /// Opens a tool declaration.
    pub const DECLARATION_START: &str = "<start_function_declaration>";
    /// Closes a tool declaration.
    pub const DECLARATION_END: &str = "<end_function_declaration>";
    /// Opens a call block (where a reply that may not call stops).
    pub const CALL_START: &str = "<start_function_call>";
    /// Closes a call block.
    pub const CALL_END: &str = "<end_function_call>";
    /// Opens a tool's response (where a reply after a call would invent the result: the
    /// format's stop).
    pub const RESPONSE_START: &str = "<start_function_response>";
    /// Closes a tool's response.
    pub const RESPONSE_END: &str = "<end_function_response>";
    /// Wraps every string value.
    pub const ESCAPE: &str = "<escape>";
    /// Every marker of the format.
    pub const MARKERS: [&str; 7] = [
        ESCAPE,
        DECLARATION_START,
        DECLARATION_END,
        CALL_START,
        CALL_END,
        RESPONSE_START,
        RESPONSE_END,
    ];
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentence_ends_of_the_cap() {
        let cases: &[(&str, usize, Option<usize>)] = &[
            ("Сейчас 10:00. Хорошего дня! Ещё", 1, Some(19)),
            ("Сейчас 10:00. Хорошего дня! Ещё", 2, Some(44)),
            ("Сейчас 10:00. Хорошего дня! Ещё", 3, None),
            // A terminator at the very end is not yet an end: the next character decides.
            ("Сейчас 10.00", 1, None),
            ("Done.", 1, None),
            ("Done.\n", 1, Some(5)),
            // Runs of terminators are one end; decimals are none.
            ("Really?! Yes.", 1, Some(8)),
            ("Pi is 3.14 today. Ok", 1, Some(17)),
            // Call lines are not sentences.
            ("TOOL_CALL: show_text|Hi. There. \nOk. Fine.", 1, Some(36)),
            ("Hi. There.", 0, None),
            // List numbers and ordinals are no ends; a year or a time is.
            ("1. купить хлеб\n2. позвонить. Всё", 1, Some(47)),
            ("1. купить хлеб 2. позвонить врачу. Ещё", 1, Some(58)),
            ("Am 3. Mai. Gut", 1, Some(10)),
            ("Это было в 2026. Потом", 1, Some(24)),
            ("Сейчас 10:00. Ок", 1, Some(19)),
            ("Их 12! Ок", 1, Some(8)),
        ];
        for (text, n, want) in cases {
            assert_eq!(sentence_end(text, *n), *want, "{text:?} {n}");
        }
    }

    /// The sentences of `text` by [`sentence_ends`], trimmed, and its rest.
    fn sentences(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        let mut from = 0;
        for end in sentence_ends(text) {
            out.push(text[from..end].trim());
            from = end;
        }
        out.push(text[from..].trim());
        out
    }

    #[test]
    fn closers_initials_zero_and_forgiven_call_lines() {
        let cases: &[(&str, &[&str])] = &[
            // Closers after the terminator belong to the sentence.
            ("Он сказал «нет.» Потом", &["Он сказал «нет.»", "Потом"]),
            ("(Так и есть.) Да", &["(Так и есть.)", "Да"]),
            ("Он сказал «нет». Потом", &["Он сказал «нет».", "Потом"]),
            // Initials and one-letter abbreviations are no ends; an ellipsis after a letter is.
            ("A. S. Pushkin wrote. End", &["A. S. Pushkin wrote.", "End"]),
            ("То есть т. е. так. Ну", &["То есть т. е. так.", "Ну"]),
            ("Буква Б... Потом", &["Буква Б...", "Потом"]),
            // Zero numbers no list.
            (
                "Ответ номер 0. Готово. ",
                &["Ответ номер 0.", "Готово.", ""],
            ),
            // Any spelling of a call line holds no sentences.
            (
                "`tool_call: x|a. b. c.` \nOk. Fine",
                &["`tool_call: x|a. b. c.` \nOk.", "Fine"],
            ),
        ];
        for (text, want) in cases {
            assert_eq!(sentences(text), *want, "{text:?}");
        }
    }

    #[test]
    fn utterances_end_at_sentences_and_at_line_breaks_after_text() {
        let ends = |t: &str| utterance_ends(t).collect::<Vec<_>>();
        assert_eq!(ends("1. Tomb Raider\n2. Solaris\n"), [15, 26]);
        assert_eq!(ends("\n\nFirst line\nSecond"), [13]);
        // A sentence end before the line break leaves nothing for the break to end.
        assert_eq!(ends("Hi.\nThere. Ok"), [3, 10]);
        assert_eq!(ends("Hi. \n \nThere"), [3]);
        assert_eq!(ends("Hi. x\n"), [3, 6]);
    }

    #[test]
    fn call_lines_are_read_forgivingly() {
        let table: &[(&str, Option<&str>)] = &[
            ("TOOL_CALL: a|b", Some(" a|b")),
            ("  Tool_Call :  x", Some("  x")),
            ("**TOOL_CALL:** x", Some("** x")),
            ("- TOOL_CALL: x", Some(" x")),
            ("`TOOL_CALL: x`", Some(" x`")),
            ("TOOL_CALL:", Some("")),
            ("Я вызову TOOL_CALL: x", None),
            ("TOOL_CALLS: x", None),
            ("TOOL_CALL x", None),
            ("ТOOL_CALL: cyrillic T", None),
        ];
        for (line, body) in table {
            assert_eq!(call_body(line), *body, "{line:?}");
        }
        assert_eq!(line_start("  tool_c"), LineStart::Undecided);
        assert_eq!(line_start("TOOL_CALL *"), LineStart::Undecided);
        assert_eq!(line_start("To"), LineStart::Undecided);
        assert_eq!(line_start("Tom"), LineStart::Text);
        assert_eq!(line_start(""), LineStart::Undecided);
        assert_eq!(CallLine::default().call("x"), "TOOL_CALL: x");
    }

    #[test]
    fn list_numbers() {
        for (word, want) in [
            ("1.", true),
            ("12)", true),
            ("999.", true),
            ("1000.", false),
            ("0.", false),
            ("07.", false),
            ("1..", false),
            ("1", false),
            ("a.", false),
        ] {
            assert_eq!(is_list_number(word), want, "{word:?}");
        }
    }
}
