//! One number read from the words at a place: digits (thousands groups, decimals, ordinal
//! and case endings, a unit glued to them), number words below a million, "a couple",
//! «полтора», dozens and thousands after a number.

use super::{
    glued_unit, joined, number_word, place_at, word, NumberWord, Place, TimeUnit, Token, ARTICLES,
    DURATION_NOUNS, LONE_THOUSANDS,
};

/// A number below a thousand said in words from `i` ("one hundred and five", «сто
/// двадцать пять», "twenty-first"): its value, whether it ends in an ordinal, and the
/// index past it.
pub(super) fn group(toks: &[Token], i: usize) -> Option<(f64, bool, usize)> {
    // 0: nothing yet; 1: hundreds said; 2: tens said; 3: a unit or a teen said.
    let mut phase = 0u8;
    let mut value = 0.0;
    let mut j = i;
    let mut end = i;
    loop {
        if j > i && !joined(toks, j) {
            break;
        }
        let w = word(toks, j);
        // "one hundred and five", after the hundreds only.
        if w == "and" && phase == 1 && joined(toks, j + 1) {
            let next = place_at(toks, j + 1);
            if matches!(next, Some(Place::Unit | Place::Teen | Place::Tens)) {
                j += 1;
                continue;
            }
            break;
        }
        let hundred_next = joined(toks, j + 1)
            && number_word(word(toks, j + 1)).is_some_and(|n| n.place == Place::Hundred);
        let n = if j == i && ARTICLES.contains(&w) && hundred_next {
            // "a hundred".
            NumberWord {
                place: Place::Unit,
                value: 1.0,
                ordinal: false,
            }
        } else {
            match number_word(w) {
                Some(n) => n,
                None => break,
            }
        };
        match n.place {
            Place::Zero if phase == 0 => return Some((0.0, n.ordinal, j + 1)),
            Place::Unit | Place::Teen if phase == 0 && !n.ordinal && hundred_next => {
                // "two hundred", "twelve hundred", "a hundredth".
                let ordinal = number_word(word(toks, j + 1)).is_some_and(|h| h.ordinal);
                value = n.value * 100.0;
                j += 2;
                end = j;
                if ordinal {
                    return Some((value, true, end));
                }
                phase = 1;
                continue;
            }
            Place::Hundred if phase == 0 && n.ordinal => return Some((100.0, true, j + 1)),
            Place::Hundreds if phase == 0 => phase = 1,
            Place::Tens if phase <= 1 => phase = 2,
            Place::Teen if phase <= 1 => phase = 3,
            Place::Unit if phase <= 2 => {
                // "a thirty second timer": the unit of a duration, not "thirty-second".
                let duration = w == "second"
                    && phase > 0
                    && joined(toks, j + 1)
                    && DURATION_NOUNS.contains(&word(toks, j + 1));
                if duration {
                    break;
                }
                phase = 3;
            }
            _ => break,
        }
        value += n.value;
        j += 1;
        end = j;
        if n.ordinal {
            return Some((value, true, end));
        }
    }
    (end > i).then_some((value, false, end))
}

/// What a number is, for what may come after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// A count.
    Cardinal,
    /// A position.
    Ordinal,
    /// "a", "an": one, only before a unit.
    Article,
    /// "a couple of", «пару»: two, only before a unit.
    Couple,
    /// The word "one" alone: a pronoun after "that", "the" ("that one").
    One,
}

/// A number read from the words, before its unit.
#[derive(Debug, Clone, Copy)]
pub(super) struct Num {
    pub(super) value: f64,
    pub(super) kind: Kind,
    /// The index past its words.
    pub(super) end: usize,
    /// A unit glued to its digits ("25min").
    pub(super) unit: Option<TimeUnit>,
}

impl Num {
    fn new(value: f64, kind: Kind, end: usize) -> Num {
        Num {
            value,
            kind,
            end,
            unit: None,
        }
    }
}

/// The number said from `i`, if one starts there.
pub(super) fn number(toks: &[Token], i: usize) -> Option<Num> {
    digits(toks, i)
        .or_else(|| one_and_a_half(toks, i))
        .or_else(|| couple(toks, i))
        .or_else(|| spoken(toks, i))
        .or_else(|| {
            ARTICLES
                .contains(&word(toks, i))
                .then(|| Num::new(1.0, Kind::Article, i + 1))
        })
}

/// English ordinal endings of digits ("1st", "25th").
const EN_DIGIT_ORDINALS: &[&str] = &["st", "nd", "rd", "th"];

/// Russian ordinal endings of digits, after a hyphen or glued («2-й», «3-ю», «25-го»).
const RU_DIGIT_ORDINALS: &[&str] = &[
    "й", "я", "ю", "е", "го", "му", "м", "ой", "ый", "ий", "ая", "ую", "ое", "ые", "ого", "ому",
    "ым", "ом", "ых",
];

/// Russian case endings of cardinal digits after a hyphen («2-х минут», «5-ти»).
const RU_DIGIT_CASES: &[&str] = &["х", "ух", "ех", "ти", "ми", "и", "ум", "ем"];

/// Separators of thousands groups besides a comma ("1 500", a no-break or thin space).
const GROUP_SPACES: &[&str] = &[" ", "\u{a0}", "\u{202f}", "\u{2009}"];

/// A number in digits from `i`: "25", "2.5", «2,5», "1,500", "1 500", "25th", «2-й»,
/// «2-х», "25min", then "thousand" or "dozen" («2 тысячи», "5 thousand").
pub(super) fn digits(toks: &[Token], i: usize) -> Option<Num> {
    let w = word(toks, i);
    let split = w.find(|c: char| !c.is_ascii_digit()).unwrap_or(w.len());
    if split == 0 {
        return None;
    }
    let (int, rest) = w.split_at(split);
    let value = int.parse::<f64>().ok().filter(|v| v.is_finite())?;
    if !rest.is_empty() {
        if EN_DIGIT_ORDINALS.contains(&rest) || RU_DIGIT_ORDINALS.contains(&rest) {
            return Some(Num::new(value, Kind::Ordinal, i + 1));
        }
        let unit = glued_unit(rest)?;
        return Some(Num {
            unit: Some(unit),
            ..Num::new(value, Kind::Cardinal, i + 1)
        });
    }
    let mut text = int.to_string();
    let mut grouped: Option<&str> = None;
    let mut j = i + 1;
    while let Some(t) = toks.get(j) {
        if !t.word.bytes().all(|b| b.is_ascii_digit()) {
            break;
        }
        let sep = t.sep.as_str();
        let group = t.word.len() == 3
            && (sep == "," || GROUP_SPACES.contains(&sep))
            && grouped.is_none_or(|g| g == sep)
            && (grouped.is_some() || int.len() <= 3);
        if group {
            grouped = Some(sep);
            text.push_str(&t.word);
            j += 1;
            continue;
        }
        if sep == "." || (sep == "," && grouped != Some(",")) {
            text.push('.');
            text.push_str(&t.word);
            j += 1;
        }
        break;
    }
    let value = text.parse::<f64>().ok().filter(|v| v.is_finite())?;
    if toks.get(j).is_some_and(|t| t.sep == "-") {
        let suffix = word(toks, j);
        if RU_DIGIT_ORDINALS.contains(&suffix) && value.fract() == 0.0 {
            return Some(Num::new(value, Kind::Ordinal, j + 1));
        }
        if RU_DIGIT_CASES.contains(&suffix) {
            return Some(Num::new(value, Kind::Cardinal, j + 1));
        }
    }
    Some(multiplied(toks, value, j))
}

/// «полтора», «полторы», «полутора»: one and a half; «полтораста»: 150.
pub(super) fn one_and_a_half(toks: &[Token], i: usize) -> Option<Num> {
    match word(toks, i) {
        "полтора" | "полторы" | "полутора" => {
            Some(Num::new(1.5, Kind::Cardinal, i + 1))
        }
        "полтораста" => Some(Num::new(150.0, Kind::Cardinal, i + 1)),
        _ => None,
    }
}

/// "a couple of", "couple", «пару», «пара», «парочку»: two, before a unit only.
pub(super) fn couple(toks: &[Token], i: usize) -> Option<Num> {
    let mut j = i;
    match word(toks, j) {
        "пару" | "пара" | "парочку" => {
            return Some(Num::new(2.0, Kind::Couple, j + 1))
        }
        "a" if word(toks, j + 1) == "couple" && joined(toks, j + 1) => j += 1,
        _ => {}
    }
    if word(toks, j) != "couple" {
        return None;
    }
    j += 1;
    if word(toks, j) == "of" && joined(toks, j) {
        j += 1;
    }
    Some(Num::new(2.0, Kind::Couple, j))
}

/// A number said in words from `i`: a number below a thousand, then thousands and what
/// follows them ("two thousand and twelve", «тысяча двести», "a thousand"), or dozens
/// ("a dozen", "two dozen").
pub(super) fn spoken(toks: &[Token], i: usize) -> Option<Num> {
    let w = word(toks, i);
    let (value, end) = match group(toks, i) {
        Some((value, true, end)) => return Some(Num::new(value, Kind::Ordinal, end)),
        Some((value, false, end)) => (value, end),
        None if LONE_THOUSANDS.contains(&w) => (1.0, i),
        None if number_word(w).is_some_and(|n| n.place == Place::Thousand && n.ordinal) => {
            return Some(Num::new(1000.0, Kind::Ordinal, i + 1));
        }
        None if ARTICLES.contains(&w) && joined(toks, i + 1) => {
            let next = word(toks, i + 1);
            if next != "dozen" && place_at(toks, i + 1) != Some(Place::Thousand) {
                return None;
            }
            (1.0, i + 1)
        }
        None => return None,
    };
    let num = multiplied(toks, value, end);
    if num.end == i + 1 && w == "one" {
        return Some(Num {
            kind: Kind::One,
            ..num
        });
    }
    Some(num)
}

/// Words of a million after a number ("20 million", «двадцать миллионов»): a round amount,
/// nothing below it read.
const MILLION: &[&str] = &[
    "million",
    "millions",
    "миллион",
    "миллиона",
    "миллионов",
    "млн",
];

/// `value` said up to `j`, times what follows: "dozen", a million word, or a thousand word and the number
/// below a thousand after it («две тысячи двадцать», "5 thousand and five").
pub(super) fn multiplied(toks: &[Token], value: f64, j: usize) -> Num {
    if !joined(toks, j) {
        return Num::new(value, Kind::Cardinal, j);
    }
    if word(toks, j) == "dozen" {
        return Num::new(value * 12.0, Kind::Cardinal, j + 1);
    }
    if MILLION.contains(&word(toks, j)) {
        return Num::new(value * 1.0e6, Kind::Cardinal, j + 1);
    }
    let thousand = match number_word(word(toks, j)) {
        Some(n) if n.place == Place::Thousand => n,
        _ => return Num::new(value, Kind::Cardinal, j),
    };
    let value = value * 1000.0;
    if thousand.ordinal {
        return Num::new(value, Kind::Ordinal, j + 1);
    }
    let mut k = j + 1;
    let below = |k: usize| {
        joined(toks, k)
            && place_at(toks, k).is_some_and(|p| !matches!(p, Place::Thousand | Place::Zero))
    };
    if word(toks, k) == "and" && joined(toks, k) && below(k + 1) {
        k += 1;
    }
    match group(toks, k).filter(|_| below(k)) {
        Some((rest, ordinal, end)) => {
            let kind = if ordinal {
                Kind::Ordinal
            } else {
                Kind::Cardinal
            };
            Num::new(value + rest, kind, end)
        }
        None => Num::new(value, Kind::Cardinal, j + 1),
    }
}
