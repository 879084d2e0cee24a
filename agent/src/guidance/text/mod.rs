//! The text rules of guidance: the words of a turn (what a routed call's text and the
//! answer after its reply are made of), number groups, the text a request sets apart, and
//! the stops that cut an echo of the request or a recital of the prompt; how a request
//! opens and what it asks (`lead`), what a message says beside a request and the
//! recognizer's slips (`asks`).

use super::words::{stems, STOP_WORDS};
use super::{Guidance, Technique};
use crate::model::{is_list_number, Message, Role};
use std::collections::HashMap;

mod asks;
mod lead;
#[cfg(test)]
mod tests;

pub(crate) use asks::{
    asks_advice, asks_meaning, asks_of_need, asks_opinion, asks_should, asks_worth_or_cause,
    heard_right, remarks, says_need, tells_of_past, tells_of_self,
};
pub(crate) use lead::{
    asks_for_any, asks_if_available, asks_what_is, opening_stems, points_there, read_out,
    says_action, speaks_of_self, without_lead,
};
use lead::{is_lead, spoken};

/// The words of `messages` (the turn so far), in order — without quotes and final stops;
/// under [`Technique::DropAsides`] without words that open a parenthesis, and in a tool's
/// reply without words that hold a `=` (`(2018)`, `id=tt0146316`: asides for machines);
/// under [`Technique::ListAsItems`] with a tool's list numbers (`1.`, `2)`) turned into
/// commas between its items (`купить хлеб, позвонить врачу`): a routed call's text
/// arguments and the answer after its reply are a stretch of them.
pub(crate) fn words_of(messages: &[Message], guidance: &Guidance) -> Vec<String> {
    let asides = guidance.is_on(Technique::DropAsides);
    let items = guidance.is_on(Technique::ListAsItems);
    let mut out: Vec<String> = Vec::new();
    let words = messages
        .iter()
        .flat_map(|m| m.content.split_whitespace().map(move |w| (m.role, w)));
    for (role, w) in words {
        let tool = role == Role::Tool;
        if asides && (w.starts_with('(') || (tool && w.contains('='))) {
            continue;
        }
        if items && tool && is_list_number(w) {
            if let Some(prev) = out.last_mut() {
                if !prev.ends_with([',', ':', ';']) {
                    prev.push(',');
                }
            }
            continue;
        }
        // Quotes go; commas and colons inside the text stay with their words.
        let w = w
            .trim_matches(|c: char| "«»\"'“”„()[]".contains(c))
            .trim_end_matches(['.', '?', '!', '…']);
        if !w.is_empty() && w.chars().count() <= 40 {
            out.push(w.to_owned());
        }
    }
    out
}

/// Words that end a request without being its argument (beside the common words of
/// [`STOP_WORDS`]): places, pronouns, time and hedges ("… are there", "… maybe", «… уже»).
const CLOSING_WORDS: &[&str] = &[
    "there",
    "got",
    "you've",
    "too",
    "across",
    "onto",
    "here",
    "now",
    "then",
    "them",
    "maybe",
    "already",
    "anyway",
    "again",
    "okay",
    "thanks",
    "тут",
    "здесь",
    "там",
    "его",
    "её",
    "их",
    "нам",
    "уже",
    "сейчас",
    "теперь",
    "ладно",
    "спасибо",
    "плиз",
];

/// `words` without the words that close a request around its argument ("put room two oh
/// five *on my screen*", "find jurassic park *to*"): from the end, each word shorter than
/// three letters, a common or closing word ([`CLOSING_WORDS`]), or one whose stem ([`stems`])
/// closes at least two of `examples` (is among their last two words: the routed tool's
/// shared frame, "on my *screen*" — never a title one example names, nor a word of the middle,
/// "the *address* on the display") goes, until a word that is none of these — and never a word with a digit,
/// nor the first word, nor a title after a naming word ([`NAMING_WORDS`]).
/// [`Technique::FrameWords`].
pub(crate) fn without_frame_end(mut words: Vec<String>, examples: &[&str]) -> Vec<String> {
    // The stems that close an example: among its last two words.
    let mut counts: HashMap<String, usize> = HashMap::new();
    for example in examples {
        let words: Vec<&str> = example.split_whitespace().collect();
        let tail = words[words.len().saturating_sub(2)..].join(" ");
        for stem in stems(&tail) {
            *counts.entry(stem).or_default() += 1;
        }
    }
    while words.len() > 1 {
        let Some(last) = words.last() else { break };
        let w: String = last
            .chars()
            .filter(|c| c.is_alphanumeric())
            .collect::<String>()
            .to_lowercase();
        // A word with a digit, or one right after a word naming a title ("a movie called
        // up"), is content.
        let named =
            words.len() >= 2 && NAMING_WORDS.contains(&spoken(&words[words.len() - 2]).as_str());
        if named || w.chars().any(|c| c.is_ascii_digit()) {
            break;
        }
        let framing = w.chars().count() < 3
            || STOP_WORDS.contains(&w.as_str())
            || CLOSING_WORDS.contains(&w.as_str())
            || stems(&w)
                .first()
                .is_some_and(|s| counts.get(s).is_some_and(|n| *n >= 2));
        if !framing {
            break;
        }
        words.pop();
    }
    words
}

/// `words` from the first word that says what the request is about, as one word: the
/// tail of them ([`Technique::TailOfWords`]) a text argument is then has one start, that word.
/// A word says nothing of it when it is shorter than three letters, common ([`STOP_WORDS`],
/// [`CLOSING_WORDS`]), a preamble or politeness word ([`LEAD_WORDS`]), or the routed tool's
/// frame: a stem among the first two words of one of `examples` ("*look up* the movie
/// Inception") or in at least two of them ("save a *note*"). A word with a digit always says
/// something; a word right after a naming word ([`NAMING_WORDS`]: "a movie called *up*")
/// starts the argument whatever comes before it. `words` unchanged when every word is frame (the model chooses). The failure:
/// the model starting the tail at the last word ("right down that i need to pick up the dry
/// cleaning on friday" → `friday`, "Could you save a note saying the garage code is 4417" →
/// `4417`), or at the first (`look up the new dune movie`).
/// [`Technique::ContentStart`].
pub(crate) fn from_content_start(words: Vec<String>, examples: &[&str]) -> Vec<String> {
    let mut counts: HashMap<String, usize> = HashMap::new();
    let mut opening: Vec<String> = Vec::new();
    for example in examples {
        for stem in stems(example) {
            *counts.entry(stem).or_default() += 1;
        }
        let head: Vec<&str> = example.split_whitespace().take(2).collect();
        opening.extend(stems(&head.join(" ")));
    }
    let says = |word: &str| {
        let w = spoken(word);
        if w.chars().any(|c| c.is_ascii_digit()) {
            return true;
        }
        let bare: String = w.chars().filter(|c| c.is_alphanumeric()).collect();
        !(bare.chars().count() < 3
            || STOP_WORDS.contains(&bare.as_str())
            || CLOSING_WORDS.contains(&bare.as_str())
            || NAMING_WORDS.contains(&bare.as_str())
            || is_lead(&w)
            || stems(&w)
                .iter()
                .any(|s| opening.contains(s) || counts.get(s).is_some_and(|n| *n >= 2)))
    };
    // A title starts right after the word that names it, however short ("a movie called
    // up"): what comes before it frames the title.
    let named = (1..words.len()).find(|&i| NAMING_WORDS.contains(&spoken(&words[i - 1]).as_str()));
    let Some(k) = named.or_else(|| words.iter().position(|w| says(w))) else {
        return words;
    };
    vec![words[k..].join(" ")]
}

/// Words after which a title follows ("a film called Up", «фильм под названием Вверх»).
const NAMING_WORDS: &[&str] = &[
    "called",
    "named",
    "titled",
    "entitled",
    "названием",
    "называется",
    "называемый",
];

/// `words` with each run of number groups joined into one word (`8 800 555 35 35`): a
/// number said in groups is one number, so a text argument never starts inside it.
pub(crate) fn number_groups(words: Vec<String>) -> Vec<String> {
    let numeric = |w: &str| {
        w.chars().any(|c| c.is_ascii_digit())
            && w.chars().all(|c| c.is_ascii_digit() || "+-()".contains(c))
    };
    let mut out: Vec<String> = Vec::with_capacity(words.len());
    let mut last_numeric = false;
    for w in words {
        let is_numeric = numeric(&w);
        match out.last_mut() {
            Some(prev) if is_numeric && last_numeric => {
                prev.push(' ');
                prev.push_str(&w);
            }
            _ => out.push(w),
        }
        last_numeric = is_numeric;
    }
    out
}

/// The stop that keeps a plain reply from repeating `request`: its first
/// [`ECHO_STOP_CHARS`] characters, trimmed — for a request of at least three words (a
/// greeting answered by the same greeting is a reply, not an echo).
pub(crate) fn echo_stop(request: &str) -> Option<String> {
    let request = request.trim();
    request.split_whitespace().nth(2)?;
    Some(
        request
            .chars()
            .take(ECHO_STOP_CHARS)
            .collect::<String>()
            .trim_end()
            .to_owned(),
    )
}

/// How much of a request its echo stop holds: an echo begins with the request's start.
const ECHO_STOP_CHARS: usize = 120;

/// The text a request sets apart for a tool: what follows its first colon (`Запиши: купить
/// хлеб`; a colon between digits, as in `9:15`, is part of a time), else its first quoted
/// span (`«Шрек»`, `"…"`, `“…”`, `„…“`, `'…'` — an apostrophe inside a word opens nothing),
/// its enclosing quotes and final stops taken off, on one line. `None` when the request sets
/// nothing apart, or more than [`MAX_DELIMITED_CHARS`]. A tiny model asked to pick where a
/// text argument starts often starts it late (`show_text|on the screen` for "Write 'Be
/// right back' on the screen"); what the user set apart is the argument.
/// Whether `request` quotes something (`«Шрек»`, `"…"`): a title or a name it sets apart.
pub(crate) fn quotes(request: &str) -> bool {
    let chars: Vec<char> = request.chars().collect();
    quoted_span(&chars).is_some()
}

pub(crate) fn delimited_text(request: &str) -> Option<String> {
    let chars: Vec<char> = request.chars().collect();
    let colon = (0..chars.len()).find(|&i| {
        chars[i] == ':'
            && !(i > 0
                && chars[i - 1].is_ascii_digit()
                && chars.get(i + 1).is_some_and(char::is_ascii_digit))
    });
    let span: String = match colon {
        Some(i) => chars[i + 1..].iter().collect(),
        None => quoted_span(&chars)?,
    };
    let one_line = span.split_whitespace().collect::<Vec<_>>().join(" ");
    let quotes = |c: char| "«»\"'“”„".contains(c);
    let mut text = one_line.trim_end_matches(['.', '!', '?', '…', ' ']);
    // Quotes around the whole text go; quotes inside it stay.
    if text.chars().next().is_some_and(quotes) && text.chars().last().is_some_and(quotes) {
        let first = text.chars().next().map_or(0, char::len_utf8);
        let last = text.chars().last().map_or(0, char::len_utf8);
        text = text
            .get(first..text.len().saturating_sub(last))
            .unwrap_or("");
        text = text.trim_end_matches(['.', '!', '?', '…', ' ']).trim();
    }
    let text = text.trim();
    (!text.is_empty() && text.chars().count() <= MAX_DELIMITED_CHARS).then(|| text.to_owned())
}

/// The most chars of a request routing reads ([`routed_head`]): a spoken request is a
/// sentence or two; a longer message is routed by its head, so a pasted book costs routing
/// no more than a paragraph does.
pub(crate) const ROUTED_CHARS: usize = 1_000;

/// The part of `text` routing reads: all of it up to [`ROUTED_CHARS`] chars, else its first
/// [`ROUTED_CHARS`] chars cut back to their last whitespace (no word cut in two).
pub(crate) fn routed_head(text: &str) -> &str {
    let Some((end, _)) = text.char_indices().nth(ROUTED_CHARS) else {
        return text;
    };
    let head = &text[..end];
    match head.rfind(char::is_whitespace) {
        Some(i) if i > 0 => &head[..i],
        _ => head,
    }
}

/// Whether `text` has a word at all: a letter or a digit (a message of emoji or
/// punctuation has none).
pub(crate) fn has_word(text: &str) -> bool {
    text.chars().any(char::is_alphanumeric)
}

/// The longest text [`delimited_text`] decides: a decided call is decoded token by token
/// like a reply, so a longer one is left to the model (under the grammar and the reply's
/// token limit).
const MAX_DELIMITED_CHARS: usize = 400;

/// The first quoted span of `chars`: between `«` and `»`, `“` and `”`, `„` and `“`, two `"`,
/// or two `'` that stand at a word's edge (so `What's` and `don't` quote nothing).
fn quoted_span(chars: &[char]) -> Option<String> {
    let edge = |i: usize| i == 0 || i >= chars.len() || !chars[i].is_alphanumeric();
    for (i, &open) in chars.iter().enumerate() {
        let close = match open {
            '«' => '»',
            '“' => '”',
            '„' => '“',
            '"' => '"',
            '\'' if i == 0 || edge(i - 1) => '\'',
            _ => continue,
        };
        let end =
            (i + 1..chars.len()).find(|&j| chars[j] == close && (close != '\'' || edge(j + 1)));
        if let Some(j) = end {
            let inner: String = chars[i + 1..j].iter().collect();
            if !inner.trim().is_empty() {
                return Some(inner);
            }
        }
    }
    None
}

/// The sentences of the prompt's opening (who the assistant is, how it answers): a
/// plain reply stops before any of them, so a tiny model reciting its prompt says
/// nothing of it.
pub(crate) fn intro_sentences(core_header: &str) -> Vec<&str> {
    let intro = core_header.lines().next().unwrap_or("");
    intro
        .split_inclusive(['.', '!', '?'])
        .map(str::trim)
        .filter(|s| s.chars().filter(|c| c.is_alphanumeric()).count() >= 6)
        .collect()
}
