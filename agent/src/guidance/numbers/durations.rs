//! Durations: the units of time and their words, a half or a quarter of a unit, a unit
//! alone said as one of it («через час», "a minute"), and a duration said in two units
//! summed in the smaller.

use super::{joined, number, word, Kind, Said, TimeUnit, Token, ARTICLES};

/// The next smaller unit: hours for days, minutes for hours, seconds for minutes.
pub(super) fn smaller(unit: TimeUnit) -> Option<TimeUnit> {
    match unit {
        TimeUnit::Days => Some(TimeUnit::Hours),
        TimeUnit::Hours => Some(TimeUnit::Minutes),
        TimeUnit::Minutes => Some(TimeUnit::Seconds),
        TimeUnit::Seconds => None,
    }
}

/// The words of each unit of time: every form said after a number, both languages.
const UNIT_WORDS: &[(&str, TimeUnit)] = &[
    ("seconds", TimeUnit::Seconds),
    ("second", TimeUnit::Seconds),
    ("secs", TimeUnit::Seconds),
    ("sec", TimeUnit::Seconds),
    ("секунд", TimeUnit::Seconds),
    ("секунды", TimeUnit::Seconds),
    ("секунду", TimeUnit::Seconds),
    ("секунда", TimeUnit::Seconds),
    ("секунде", TimeUnit::Seconds),
    ("секундой", TimeUnit::Seconds),
    ("секундам", TimeUnit::Seconds),
    ("секундами", TimeUnit::Seconds),
    ("секундах", TimeUnit::Seconds),
    ("секундочку", TimeUnit::Seconds),
    ("секундочки", TimeUnit::Seconds),
    ("секундочек", TimeUnit::Seconds),
    ("сек", TimeUnit::Seconds),
    ("minutes", TimeUnit::Minutes),
    ("minute", TimeUnit::Minutes),
    ("mins", TimeUnit::Minutes),
    ("min", TimeUnit::Minutes),
    ("минут", TimeUnit::Minutes),
    ("минуты", TimeUnit::Minutes),
    ("минуту", TimeUnit::Minutes),
    ("минута", TimeUnit::Minutes),
    ("минуте", TimeUnit::Minutes),
    ("минутой", TimeUnit::Minutes),
    ("минутам", TimeUnit::Minutes),
    ("минутами", TimeUnit::Minutes),
    ("минутах", TimeUnit::Minutes),
    ("минутку", TimeUnit::Minutes),
    ("минутки", TimeUnit::Minutes),
    ("минуток", TimeUnit::Minutes),
    ("минуточку", TimeUnit::Minutes),
    ("мин", TimeUnit::Minutes),
    ("hours", TimeUnit::Hours),
    ("hour", TimeUnit::Hours),
    ("hrs", TimeUnit::Hours),
    ("hr", TimeUnit::Hours),
    ("h", TimeUnit::Hours),
    ("час", TimeUnit::Hours),
    ("часа", TimeUnit::Hours),
    ("часов", TimeUnit::Hours),
    ("часу", TimeUnit::Hours),
    ("часе", TimeUnit::Hours),
    ("часом", TimeUnit::Hours),
    ("часам", TimeUnit::Hours),
    ("часами", TimeUnit::Hours),
    ("часах", TimeUnit::Hours),
    ("часик", TimeUnit::Hours),
    ("часика", TimeUnit::Hours),
    ("часиков", TimeUnit::Hours),
    ("часок", TimeUnit::Hours),
    ("ч", TimeUnit::Hours),
    ("days", TimeUnit::Days),
    ("day", TimeUnit::Days),
    ("сутки", TimeUnit::Days),
    ("суток", TimeUnit::Days),
    ("суткам", TimeUnit::Days),
    ("сутками", TimeUnit::Days),
    ("сутках", TimeUnit::Days),
];

/// The unit word `w` is, if any.
pub(super) fn unit_word(w: &str) -> Option<TimeUnit> {
    UNIT_WORDS.iter().find(|(s, _)| *s == w).map(|(_, u)| *u)
}

/// A unit glued to digits ("25min", «8мин», "2h"): a unit word, no single letter but "h"
/// and «ч» ("5m" may be metres, "90s" a decade).
pub(super) fn glued_unit(rest: &str) -> Option<TimeUnit> {
    if rest.chars().count() == 1 && rest != "h" && rest != "ч" {
        return None;
    }
    unit_word(rest)
}

/// Words that may stand between a number and its unit ("five more minutes", «две целых
/// минуты»).
const UNIT_FILLERS: &[&str] = &[
    "more",
    "extra",
    "additional",
    "whole",
    "full",
    "long",
    "целых",
    "лишних",
    "лишние",
];

/// The unit of time said at `j` (after a filler word, if any), and the index past it.
pub(super) fn unit_at(toks: &[Token], j: usize) -> Option<(TimeUnit, usize)> {
    if !joined(toks, j) {
        return None;
    }
    if let Some(u) = unit_word(word(toks, j)) {
        return Some((u, j + 1));
    }
    if UNIT_FILLERS.contains(&word(toks, j)) && joined(toks, j + 1) {
        return unit_word(word(toks, j + 1)).map(|u| (u, j + 2));
    }
    None
}

/// "and a half", "and half", «с половиной» at `j`: the index past it.
pub(super) fn half_after(toks: &[Token], j: usize) -> Option<usize> {
    if !joined(toks, j) || !joined(toks, j + 1) {
        return None;
    }
    match word(toks, j) {
        "and" => {
            let k = if matches!(word(toks, j + 1), "a" | "one") && joined(toks, j + 2) {
                j + 2
            } else {
                j + 1
            };
            (word(toks, k) == "half").then_some(k + 1)
        }
        "с" | "со" => word(toks, j + 1).starts_with("половин").then_some(j + 2),
        _ => None,
    }
}

/// A half or a quarter of a unit from `i`: «полчаса», «пол часа», «полминуты», «четверть
/// часа», «три четверти часа», "half an hour", "half hour", "a half hour", "a quarter of an
/// hour", "three quarters of an hour": its value in
/// the unit, the unit, and the index past it.
pub(super) fn fraction(toks: &[Token], i: usize) -> Option<(f64, TimeUnit, usize)> {
    match word(toks, i) {
        "полчаса" | "полчасика" | "получаса" => {
            return Some((0.5, TimeUnit::Hours, i + 1))
        }
        "полминуты" | "полминутки" | "полминуточки" => {
            return Some((0.5, TimeUnit::Minutes, i + 1))
        }
        "полсекунды" => return Some((0.5, TimeUnit::Seconds, i + 1)),
        "пол" => return unit_word_at(toks, i + 1).map(|(u, e)| (0.5, u, e)),
        "четверть" => return unit_word_at(toks, i + 1).map(|(u, e)| (0.25, u, e)),
        "три" | "3" if word(toks, i + 1) == "четверти" && joined(toks, i + 1) => {
            return unit_word_at(toks, i + 2).map(|(u, e)| (0.75, u, e))
        }
        _ => {}
    }
    let mut j = i;
    if ARTICLES.contains(&word(toks, j)) {
        j += 1;
        if !joined(toks, j) {
            return None;
        }
    }
    let part = match word(toks, j) {
        "half" => 0.5,
        "quarter" => 0.25,
        "three" | "3" if word(toks, j + 1) == "quarters" && joined(toks, j + 1) => {
            j += 1;
            0.75
        }
        _ => return None,
    };
    j += 1;
    if part != 0.5 && word(toks, j) == "of" && joined(toks, j) {
        j += 1;
    }
    if ARTICLES.contains(&word(toks, j)) && joined(toks, j) {
        j += 1;
    }
    unit_word_at(toks, j).map(|(u, e)| (part, u, e))
}

/// The unit word at `j` with no filler before it, and the index past it.
pub(super) fn unit_word_at(toks: &[Token], j: usize) -> Option<(TimeUnit, usize)> {
    joined(toks, j)
        .then(|| unit_word(word(toks, j)))
        .flatten()
        .map(|u| (u, j + 1))
}

/// Unit words that say one of their unit alone: «подожди минуту», «на секунду».
const LONE_ONES: &[(&str, TimeUnit)] = &[
    ("минуту", TimeUnit::Minutes),
    ("минута", TimeUnit::Minutes),
    ("минутку", TimeUnit::Minutes),
    ("минуточку", TimeUnit::Minutes),
    ("секунду", TimeUnit::Seconds),
    ("секунда", TimeUnit::Seconds),
    ("секундочку", TimeUnit::Seconds),
    ("сутки", TimeUnit::Days),
];

/// «час» and its fond forms: one hour alone after [`HOUR_LEADS`] or before more of the
/// duration («час двадцать минут», «час с половиной»).
const LONE_HOURS: &[&str] = &["час", "часик", "часок"];

/// Words after which «час» alone is a duration: «через час», «на час», «ещё час».
const HOUR_LEADS: &[&str] = &[
    "через",
    "на",
    "за",
    "целый",
    "еще",
    "около",
    "примерно",
    "почти",
    "всего",
    "лишь",
    "только",
    "ровно",
];

/// Words after which «час» is a time of day, never a duration: «который час», «в час».
const HOUR_NOT: &[&str] = &["в", "во", "который", "котором", "какой", "каком"];

/// A unit word alone said as one of its unit at `i` («минуту», «через час»); none right
/// after another number («вторая минута»).
pub(super) fn lone_unit(toks: &[Token], i: usize, after_said: bool) -> Option<Said> {
    if after_said {
        return None;
    }
    let w = word(toks, i);
    if let Some((_, u)) = LONE_ONES.iter().find(|(s, _)| *s == w) {
        let (value, unit, end) = go_on(toks, 1.0, *u, i + 1);
        return Some(duration(value, unit, i, end));
    }
    if !LONE_HOURS.contains(&w) {
        return None;
    }
    let prev = i
        .checked_sub(1)
        .filter(|_| joined(toks, i))
        .map_or("", |p| word(toks, p));
    if HOUR_NOT.contains(&prev) {
        return None;
    }
    let (value, end) = half_after(toks, i + 1).map_or((1.0, i + 1), |e| (1.5, e));
    let (value, unit, end) = go_on(toks, value, TimeUnit::Hours, end);
    (HOUR_LEADS.contains(&prev) || end > i + 1).then(|| duration(value, unit, i, end))
}

/// A duration [`Said`].
pub(super) fn duration(value: f64, unit: TimeUnit, start: usize, end: usize) -> Said {
    Said {
        value,
        ordinal: false,
        unit: Some(unit),
        start,
        end,
    }
}

/// A number with a smaller unit at `j` ("twenty minutes" after "an hour and"): its value,
/// unit and the index past it.
pub(super) fn part(toks: &[Token], j: usize) -> Option<(f64, TimeUnit, usize)> {
    if !joined(toks, j) {
        return None;
    }
    let num = number(toks, j).filter(|n| n.kind != Kind::Ordinal)?;
    let (value, end) = match half_after(toks, num.end) {
        Some(e) if num.unit.is_none() => (num.value + 0.5, e),
        _ => (num.value, num.end),
    };
    let (unit, end) = num.unit.map(|u| (u, end)).or_else(|| unit_at(toks, end))?;
    Some((value, unit, end))
}

/// A duration `value` in `unit` said up to `end`, with what goes on from it in smaller
/// units: "an hour *and twenty minutes*", «1 час *30 минут*», «на час *двадцать*» (a
/// number alone closing the text is in the next smaller unit). The sum is in the smallest
/// unit said.
pub(super) fn go_on(
    toks: &[Token],
    mut value: f64,
    mut unit: TimeUnit,
    mut end: usize,
) -> (f64, TimeUnit, usize) {
    loop {
        let and = joined(toks, end) && matches!(word(toks, end), "and" | "и");
        let j = if and { end + 1 } else { end };
        if let Some((v, u, e)) = part(toks, j) {
            if u.seconds() < unit.seconds() {
                value = value * unit.seconds() / u.seconds() + v;
                unit = u;
                end = e;
                continue;
            }
            break;
        }
        let implied = (!and && joined(toks, end))
            .then(|| number(toks, end))
            .flatten()
            .filter(|n| {
                matches!(n.kind, Kind::Cardinal)
                    && n.unit.is_none()
                    && n.end == toks.len()
                    && n.value.fract() == 0.0
                    && n.value < 60.0
            });
        if let (Some(n), Some(u)) = (implied, smaller(unit)) {
            value = value * unit.seconds() / u.seconds() + n.value;
            unit = u;
            end = n.end;
        }
        break;
    }
    (value, unit, end)
}
