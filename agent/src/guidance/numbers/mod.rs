//! The numbers a text says, in digits or in words, Russian or English: cardinals up to
//! 999,999 («сто двадцать пять», "two thousand and twelve", "1 500", «2,5»), ordinals
//! kept apart («третью», "25th", "twenty-first"), and durations with their unit of time
//! («полтора часа», "an hour and twenty minutes", "25min", «через час»).
//!
//! Pure text rules, no language switch: the words of both languages never collide. Which
//! number a request means is the caller's to choose: a year («2026 года») or a temperature
//! is a number here like any other.
//!
//! A [`Said`] spans word indices of [`super::words::lower_words`] of the same text (runs of
//! letters and digits), so a caller can cut the words around it. A duration said in two
//! units ("an hour and twenty minutes", «1 час 30 минут») is one [`Said`] in the smaller
//! unit (80 minutes, 90 minutes); a half or a quarter keeps the unit it is said in
//! ("an hour and a half": 1.5 hours, «полчаса»: 0.5 hours).
//!
//! Not numbers here: "one" as a pronoun ("that one", "the one about", "no one"), "a"
//! without a unit after it, «раз», the words a recognizer writes for a number word ("to",
//! "too", "for": [`super::words::said_number`] reads those where an item is numbered).
//! A number after "minus" («минус») is below zero; "20 million" («двадцать миллионов») is
//! a round amount. Not handled: fractions but a half, a quarter and three quarters of a
//! unit of time, years said in pairs ("twenty twenty-six": 20 and 26), weeks.
//!
//! Times of day ("half past six", «без четверти восемь», "9 pm") are read apart, in
//! `clock` ([`clock_times_said`]): here "6:30" is two numbers.

mod clock;
mod durations;
mod reader;
mod vocab;

/// A time unit a duration is said in: the declarations' own unit.
pub(crate) use crate::args::DurationUnit as TimeUnit;
pub(crate) use clock::{clock_times_said, ClockTime};
use durations::{duration, fraction, glued_unit, go_on, half_after, lone_unit, unit_at};
use reader::{number, Kind, Num};
use vocab::{
    number_word, place_at, NumberWord, Place, ARTICLES, DURATION_NOUNS, LONE_THOUSANDS,
    ORDINAL_NOUNS,
};

/// One number a text says.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Said {
    /// The number: a count, a position ([`Said::ordinal`]), or a duration in
    /// [`Said::unit`].
    pub(crate) value: f64,
    /// Whether it says a position («третью», "25th"): an ordinal is never a quantity and
    /// never has a unit.
    pub(crate) ordinal: bool,
    /// The unit of time said after it, if any: a duration in two units is in the smaller.
    pub(crate) unit: Option<TimeUnit>,
    /// The index of its first word in `lower_words(text)`.
    pub(crate) start: usize,
    /// One past the index of its last word, unit words included.
    pub(crate) end: usize,
}

/// The numbers `text` says, in order of appearance and not overlapping.
pub(crate) fn numbers_said(text: &str) -> Vec<Said> {
    let toks = tokens(text);
    let mut out: Vec<Said> = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let after_said = out.last().is_some_and(|s| s.end == i);
        match said_at(&toks, i, after_said) {
            Some(mut s) if s.end > i => {
                i = s.end;
                // "minus ten", «минус пятьсот»: below zero.
                let minus = s.start > 0
                    && matches!(word(&toks, s.start - 1), "minus" | "минус")
                    && joined(&toks, s.start)
                    && !s.ordinal
                    && s.unit.is_none();
                if minus {
                    s.value = -s.value;
                    s.start -= 1;
                }
                // "one for five minutes and one for ten": "one" before what it is said of is
                // a pronoun, no number.
                let pronoun = s.end == s.start + 1
                    && word(&toks, s.start) == "one"
                    && matches!(
                        word(&toks, s.end),
                        "for" | "with" | "about" | "that" | "which"
                    );
                if !pronoun {
                    out.push(s);
                }
            }
            _ => i += 1,
        }
    }
    out
}

/// A duration converted to `unit`; `None` when `said` has no unit.
pub(crate) fn in_unit(said: &Said, unit: TimeUnit) -> Option<f64> {
    said.unit.map(|u| said.value * u.seconds() / unit.seconds())
}

/// One word of a text: lowercased with «ё» read as «е», and the text before it since the
/// previous word (its separator: "-" in "twenty-five", "." in "2.5").
struct Token {
    word: String,
    sep: String,
}

/// The words of `text` as [`super::words::lower_words`] splits them (same indices), with
/// their separators.
fn tokens(text: &str) -> Vec<Token> {
    fn push(out: &mut Vec<Token>, word: &mut String, sep: &mut String) {
        if !word.is_empty() {
            out.push(Token {
                word: word.to_lowercase().replace('ё', "е"),
                sep: std::mem::take(sep),
            });
            word.clear();
        }
    }
    let mut out = Vec::new();
    let mut word = String::new();
    let mut sep = String::new();
    for c in text.chars() {
        if c.is_alphanumeric() {
            word.push(c);
        } else {
            push(&mut out, &mut word, &mut sep);
            sep.push(c);
        }
    }
    push(&mut out, &mut word, &mut sep);
    out
}

/// The word at `i`, "" past the end.
fn word(toks: &[Token], i: usize) -> &str {
    toks.get(i).map_or("", |t| t.word.as_str())
}

/// Whether the word at `i` goes on from the previous one: there is a word at `i`, and no
/// sentence ends between them ("1 час. 30 минут" is two).
fn joined(toks: &[Token], i: usize) -> bool {
    toks.get(i).is_some_and(|t| {
        !t.sep
            .chars()
            .any(|c| matches!(c, '.' | '!' | '?' | ';' | ':' | '\n' | '…'))
    })
}

/// Words before a lone "one" that make it a pronoun ("that one", "the one about", "no
/// one").
const ONE_PRONOUN_LEADS: &[&str] = &[
    "the", "that", "this", "no", "any", "every", "each", "which", "some", "another", "other",
    "last", "next", "same", "little", "big", "new", "old", "right", "wrong",
];

/// Words two before a lone "one" that make it a pronoun ("the big one", "my last one").
const ONE_DETERMINERS: &[&str] = &[
    "the", "that", "this", "a", "an", "which", "each", "every", "my", "your", "his", "her", "our",
    "their", "its",
];

/// Whether the lone "one" at `i` is a pronoun.
fn pronoun(toks: &[Token], i: usize) -> bool {
    let before = |k: usize| i.checked_sub(k).map_or("", |p| word(toks, p));
    ONE_PRONOUN_LEADS.contains(&before(1))
        || ONE_DETERMINERS.contains(&before(2))
        || number_word(before(1)).is_some_and(|n| n.ordinal)
        || word(toks, i + 1) == "another"
}

/// The number said from `i`, if one starts there.
fn said_at(toks: &[Token], i: usize, after_said: bool) -> Option<Said> {
    if let Some((value, unit, end)) = fraction(toks, i) {
        let (value, unit, end) = go_on(toks, value, unit, end);
        return Some(duration(value, unit, i, end));
    }
    number(toks, i)
        .and_then(|num| from_number(toks, i, num))
        .or_else(|| lone_unit(toks, i, after_said))
}

/// The [`Said`] of `num` read from `i`: with its half and unit after it, if any.
fn from_number(toks: &[Token], i: usize, num: Num) -> Option<Said> {
    if num.kind == Kind::Ordinal {
        // «во-первых», «в-третьих»: "firstly", "thirdly", no position.
        let adverb = toks.get(i).is_some_and(|t| t.sep == "-")
            && i.checked_sub(1)
                .is_some_and(|p| matches!(word(toks, p), "в" | "во"));
        if adverb {
            return None;
        }
        return Some(Said {
            value: num.value,
            ordinal: true,
            unit: None,
            start: i,
            end: num.end,
        });
    }
    let counts = matches!(num.kind, Kind::Cardinal | Kind::One) && num.unit.is_none();
    let halved = half_after(toks, num.end).filter(|_| counts);
    let (value, end) = halved.map_or((num.value, num.end), |e| (num.value + 0.5, e));
    let Some((unit, unit_end)) = num.unit.map(|u| (u, end)).or_else(|| unit_at(toks, end)) else {
        return match num.kind {
            Kind::Article | Kind::Couple => None,
            Kind::One if halved.is_none() && pronoun(toks, i) => None,
            _ => Some(Said {
                value,
                ordinal: false,
                unit: None,
                start: i,
                end,
            }),
        };
    };
    // "set a second timer": the ordinal, said in its own right.
    let second_noun = word(toks, unit_end - 1) == "second"
        && joined(toks, unit_end)
        && ORDINAL_NOUNS.contains(&word(toks, unit_end));
    if num.kind == Kind::Article && second_noun {
        return None;
    }
    let (value, end) = match half_after(toks, unit_end) {
        Some(e) if halved.is_none() => (value + 0.5, e),
        _ => (value, unit_end),
    };
    let (value, unit, end) = go_on(toks, value, unit, end);
    Some(duration(value, unit, i, end))
}

#[cfg(test)]
mod tests;
