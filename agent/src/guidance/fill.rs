//! Arguments from what the user said ([`crate::Technique::SaidArgs`]): before the model
//! writes a routed call, every argument of the tool gets its candidates from the request —
//! the numbers it says (digits and number words, a duration converted into the argument's
//! `unit`), an enum's values it names, a yes or no, an entry of a host list, a run of its
//! words for a text. The planner then lets each argument be only one of its candidates,
//! decides the call outright when each has one, and asks for a required argument nobody
//! said or answers a value outside its declared range.
//!
//! The rule it serves: the model chooses; it never writes a value the user did not say.

use std::collections::{BTreeMap, BTreeSet};

use super::ask::yes_or_no;
use super::numbers::{clock_times_said, in_unit, numbers_said, ClockTime, Said};
use super::words::{lower_words, said_number, says_run, STOP_WORDS};
use crate::args::{ArgDecl, ArgType, DurationUnit};
use crate::messages::Lang;

/// The lists a host supplies at run time, by name (`values_from:` of an argument).
pub(crate) type HostValues = BTreeMap<String, Vec<String>>;

/// What a request gives one argument.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Fill {
    /// One of these values (one: decided), in the declared spelling.
    Values(Vec<String>),
    /// A text: a run of the request's words, this part of the request (the planner makes
    /// its words the tail the model may start anywhere in).
    Text(String),
    /// Not said, and optional: left out.
    Absent,
    /// Not said, and required: asked for.
    Missing,
    /// Said, but outside the declared `min`/`max`: the value said.
    OutOfRange(f64),
    /// A host list's entry was asked for and none matched: the entries to ask among.
    Unmatched(Vec<String>),
}

impl Fill {
    /// The one value decided, when there is exactly one.
    pub(crate) fn decided(&self) -> Option<&str> {
        match self {
            Fill::Values(v) if v.len() == 1 => v.first().map(String::as_str),
            _ => None,
        }
    }
}

/// Whether two words are one word in other forms: equal, or (both of four letters or more,
/// their lengths two letters apart at most) sharing all but at most the last two letters of
/// the shorter one, three at least («кухня» / «кухне», «Анна» / «Анне», «гостиная» /
/// «гостиной», "light" / "lights"; "work" is no "workout", «спорт» no «спортзала»). An
/// ending is letters: "hdmi" is no "hdmi1", "mp3" no "mp4".
pub(crate) fn same_word(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let shorter = a.len().min(b.len());
    if shorter < 4 || a.len().abs_diff(b.len()) > 2 {
        return false;
    }
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let letters = |w: &[char]| w.iter().skip(common).all(|c| c.is_alphabetic());
    common >= 3 && common + 2 >= shorter && letters(&a) && letters(&b)
}

/// The indices of `request` words (lower case) that say `phrase`: all its words, each
/// found by [`same_word`], the words of a phrase next to each other. Words of `phrase`
/// too common to tell anything ([`STOP_WORDS`]) are skipped unless the phrase is only
/// those. `None` when the request does not say it.
fn says_phrase(request: &[String], phrase: &str) -> Option<Vec<usize>> {
    let words: Vec<String> = lower_words(&phrase.replace('_', " "));
    let telling: Vec<&String> = words
        .iter()
        .filter(|w| !STOP_WORDS.contains(&w.as_str()))
        .collect();
    let want: Vec<&String> = if telling.is_empty() {
        words.iter().collect()
    } else {
        telling
    };
    let first = want.first()?;
    (0..request.len()).find_map(|start| {
        if !same_word(&request[start], first) {
            return None;
        }
        let mut at = vec![start];
        let mut i = start + 1;
        for w in want.iter().skip(1) {
            // The words of a phrase follow each other, a common word between them allowed
            // ("living room" in "the living and dining room" is no match; "turn the light
            // off" says "turn off").
            let next = (i..request.len().min(i + 3)).find(|&j| same_word(&request[j], w))?;
            at.push(next);
            i = next + 1;
        }
        Some(at)
    })
}

/// The enum values `request` names, each with the words that name it: by the value's own
/// words or by a word `decl` says for it (`said:`).
fn named_values(
    decl: &ArgDecl,
    values: &[String],
    request: &[String],
) -> Vec<(String, Vec<usize>)> {
    let mut out = Vec::new();
    for v in values {
        let own = says_phrase(request, v);
        let said = decl
            .said
            .iter()
            .filter(|(value, _)| value == v)
            .flat_map(|(_, words)| words)
            .find_map(|w| says_phrase(request, w));
        if let Some(at) = own.or(said) {
            out.push((v.clone(), at));
        }
    }
    // A value whose words lie inside another's ("on" in "turn on" said for `on` and a
    // longer phrase of another value) stays; two values named by one word are both kept:
    // the model chooses.
    out
}

/// Whether `request` names a value of the enum argument `decl` (by its words or a word
/// said for it).
pub(crate) fn says_enum_value(decl: &ArgDecl, request: &str) -> bool {
    match &decl.ty {
        ArgType::Enum(values) => !named_values(decl, values, &lower_words(request)).is_empty(),
        _ => false,
    }
}

/// The entries of a host list `request` names, best first: those sharing the most words
/// with it ([`same_word`]: «Анне» names «Анна Петрова», "Sarah" names "Sarah Connor").
fn named_entries(entries: &[String], request: &[String]) -> (Vec<String>, BTreeSet<usize>) {
    let mut best = 0;
    // Each entry named with where the request first names it.
    let mut named: Vec<(usize, String)> = Vec::new();
    let mut used = BTreeSet::new();
    for e in entries {
        let mut at = BTreeSet::new();
        for w in lower_words(e) {
            if let Some(i) = request.iter().position(|r| same_word(r, &w)) {
                at.insert(i);
            }
        }
        let score = at.len();
        if score == 0 || score < best {
            continue;
        }
        if score > best {
            best = score;
            named.clear();
            used.clear();
        }
        named.push((at.first().copied().unwrap_or(0), e.clone()));
        used.extend(at);
    }
    // In the order said ("text Bob and Sarah": Bob first), not the list's.
    named.sort_by_key(|(at, _)| *at);
    (named.into_iter().map(|(_, e)| e).collect(), used)
}

/// A number said as an argument value: a whole number for an integer argument, else its
/// shortest decimal form; `None` when an integer argument cannot take it.
fn as_value(ty: &ArgType, n: f64) -> Option<String> {
    match ty {
        ArgType::Integer if n.fract() == 0.0 && n.abs() < 9.0e15 => Some(format!("{}", n as i64)),
        ArgType::Integer => None,
        _ => Some(crate::messages::number_text(n)),
    }
}

/// The value of a number said for an argument of `unit`: a duration converted into it,
/// a bare number taken as it is; `None` for a duration said to an argument that is none.
fn value_for(said: &Said, unit: Option<DurationUnit>) -> Option<f64> {
    match (said.unit, unit) {
        (None, _) => Some(said.value),
        (Some(_), None) => None,
        (Some(_), Some(to)) => in_unit(said, to),
    }
}

/// The arguments that take a clock time, when `decls` has both and neither is decided
/// yet: the integer arguments named `hour` (0 to 23) and `minute` (docs/toolsets.md).
fn clock_args(decls: &[ArgDecl], out: &[Option<Fill>]) -> Option<(usize, usize)> {
    let find = |name: &str| {
        decls
            .iter()
            .position(|d| d.name == name && d.ty == ArgType::Integer && d.unit.is_none())
    };
    let (hour, minute) = (find("hour")?, find("minute")?);
    (out.get(hour)?.is_none() && out.get(minute)?.is_none()).then_some((hour, minute))
}

/// What the clock times said give one of the clock's arguments: the values `part` reads
/// from them. A minute not said, or said as 0 ("21:00", "seven o'clock"), is left out of
/// an optional argument and is 0 in a required one.
fn clock_fill(
    decl: &ArgDecl,
    times: &[ClockTime],
    part: impl Fn(&ClockTime) -> Option<u32>,
) -> Fill {
    let mut inside: Vec<String> = Vec::new();
    let mut outside: Option<f64> = None;
    for n in times.iter().filter_map(&part) {
        let v = f64::from(n);
        if !decl.in_range(v) {
            outside.get_or_insert(v);
        } else if !inside.contains(&n.to_string()) {
            inside.push(n.to_string());
        }
    }
    match (inside.is_empty(), outside) {
        (false, _) => Fill::Values(inside),
        (true, Some(v)) => Fill::OutOfRange(v),
        (true, None) if decl.required => Fill::Values(vec!["0".to_owned()]),
        (true, None) => Fill::Absent,
    }
}

/// The candidates of every argument of a tool declared as `decls`, from `request` (the
/// words of the request the call serves) in `lang`, with the host's lists `values`. An
/// argument already decided (`fixed`, by a list the request points into) keeps its value.
pub(crate) fn fill_args(
    decls: &[ArgDecl],
    request: &str,
    lang: Lang,
    values: &HostValues,
    fixed: &[Option<String>],
) -> Vec<Fill> {
    let words = lower_words(request);
    let mut said = numbers_said(request);
    let mut used: BTreeSet<usize> = BTreeSet::new();
    let mut out: Vec<Option<Fill>> = vec![None; decls.len()];
    for (i, f) in fixed.iter().enumerate() {
        if let (Some(v), Some(slot)) = (f, out.get_mut(i)) {
            *slot = Some(Fill::Values(vec![v.clone()]));
            // The words that name a decided enum value are no text's.
            if let Some(ArgType::Enum(vals)) = decls.get(i).map(|d| &d.ty) {
                for (named, at) in named_values(&decls[i], vals, &words) {
                    if named == *v {
                        used.extend(at);
                    }
                }
            }
        }
    }
    // A clock time said goes to the `hour` and `minute` arguments, and its numbers to no
    // other ("half past six": 6 and 30, never a 30 elsewhere).
    let mut clocked = false;
    if let Some((hour, minute)) = clock_args(decls, &out) {
        let times = clock_times_said(request);
        if !times.is_empty() {
            clocked = true;
            out[hour] = Some(clock_fill(&decls[hour], &times, |t| Some(t.hour)));
            out[minute] = Some(clock_fill(&decls[minute], &times, |t| {
                t.minute.filter(|m| *m != 0)
            }));
            for t in &times {
                used.extend(t.start..t.end);
            }
            said.retain(|s| !times.iter().any(|t| s.start < t.end && t.start < s.end));
        }
    }
    // Numbers: quantities and durations to the numeric arguments (a duration only to one
    // with a unit), ordinals only to one without a unit (a place in a list).
    let numeric: Vec<usize> = (0..decls.len())
        .filter(|&i| out[i].is_none())
        .filter(|&i| matches!(decls[i].ty, ArgType::Integer | ArgType::Number))
        .collect();
    let usable = |s: &Said, d: &ArgDecl| -> Option<f64> {
        if s.ordinal && d.unit.is_some() {
            return None;
        }
        value_for(s, d.unit)
    };
    // No more numbers than numeric arguments, each usable by its own: one each, in order
    // (an alarm's hour and minute: "at 7" is the hour, never the minute too).
    let paired = numeric.len() > 1
        && !said.is_empty()
        && said.len() <= numeric.len()
        && numeric
            .iter()
            .zip(&said)
            .all(|(&i, s)| usable(s, &decls[i]).is_some());
    for (k, &i) in numeric.iter().enumerate() {
        let d = &decls[i];
        let mine: Vec<&Said> = if paired {
            said.get(k).into_iter().collect()
        } else {
            // An ordinal says a place: where one is said, an argument without a unit takes
            // the place, not a quantity said beside it.
            let ordinals: Vec<&Said> = said.iter().filter(|s| s.ordinal).collect();
            // A duration said is what an argument of a unit takes, while another numeric
            // argument without one is there for a bare number said beside it ("a ten
            // kilometre run, fifty-two minutes": 52 minutes and 10 km; "5 and 10 minutes"
            // to a timer alone are two durations).
            let durations: Vec<&Said> = said.iter().filter(|s| s.unit.is_some()).collect();
            let bare_taker = numeric.iter().any(|&j| j != i && decls[j].unit.is_none());
            if d.unit.is_none() && !ordinals.is_empty() {
                ordinals
            } else if d.unit.is_some() && bare_taker && !durations.is_empty() {
                durations
            } else {
                said.iter()
                    .filter(|s| !s.ordinal || d.unit.is_none())
                    .collect()
            }
        };
        let mut inside = Vec::new();
        let mut outside = Vec::new();
        for s in mine {
            let Some(n) = usable(s, d) else { continue };
            let Some(v) = as_value(&d.ty, n) else {
                continue;
            };
            used.extend(s.start..s.end);
            if d.in_range(n) {
                if !inside.contains(&v) {
                    inside.push(v);
                }
            } else {
                outside.push(n);
            }
        }
        // A recognizer's homophone of a number after a word that numbers an item ("delete
        // note to"): the one reading of a number the words above do not know — never a
        // number they read and left out (the "two" of "two hours" is no item's place), nor
        // where a clock time was said (its numbers are the clock's).
        if inside.is_empty()
            && outside.is_empty()
            && d.unit.is_none()
            && said.is_empty()
            && !clocked
        {
            if let Some(n) = said_number(lang, request) {
                if let Some(v) = as_value(&d.ty, n as f64) {
                    if d.in_range(n as f64) {
                        inside.push(v);
                    } else {
                        outside.push(n as f64);
                    }
                }
            }
        }
        // No number, but the end of the declared range said ("all the way up", «на
        // максимум», "to the minimum"): that end.
        if inside.is_empty() && outside.is_empty() && d.unit.is_none() {
            let end = match says_range_end(request) {
                Some(RangeEnd::Top) => d.max,
                Some(RangeEnd::Bottom) => d.min,
                None => None,
            };
            if let Some(v) = end.and_then(|n| as_value(&d.ty, n)) {
                inside.push(v);
            }
        }
        out[i] = Some(match (inside.is_empty(), outside.first()) {
            (false, _) => Fill::Values(inside),
            (true, Some(n)) => Fill::OutOfRange(*n),
            (true, None) if d.required => Fill::Missing,
            (true, None) => Fill::Absent,
        });
    }
    for (i, d) in decls.iter().enumerate() {
        if out[i].is_some() {
            continue;
        }
        let fill = match &d.ty {
            ArgType::Enum(vals) => {
                // A word a number or a clock time took is no value's («без *четверти* восемь»
                // names no Thursday).
                let mut named = named_values(d, vals, &words);
                named.retain(|(_, at)| !at.iter().any(|i| used.contains(i)));
                for (_, at) in &named {
                    used.extend(at.iter().copied());
                }
                let mut named: Vec<String> = named.into_iter().map(|(v, _)| v).collect();
                named.dedup();
                match (named.is_empty(), d.required) {
                    (false, _) => Fill::Values(named),
                    (true, true) => Fill::Missing,
                    (true, false) => Fill::Absent,
                }
            }
            ArgType::Boolean => match yes_or_no(request) {
                Some(b) => Fill::Values(vec![b.to_string()]),
                None if d.required => Fill::Missing,
                None => Fill::Absent,
            },
            ArgType::String => match d.values_from.as_ref() {
                Some(list) => {
                    let entries = values.get(list).map(Vec::as_slice).unwrap_or_default();
                    let (named, at) = named_entries(entries, &words);
                    used.extend(at);
                    // An entry's number said as the host writes it (`#12`) is one too.
                    let number = request.split_whitespace().find(|w| {
                        w.strip_prefix('#')
                            .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
                    });
                    match (named.is_empty(), d.required) {
                        (true, _) if number.is_some() => {
                            Fill::Values(number.into_iter().map(str::to_owned).collect())
                        }
                        (false, _) => Fill::Values(named),
                        (true, true) => Fill::Unmatched(entries.to_vec()),
                        (true, false) => Fill::Absent,
                    }
                }
                None => continue,
            },
            // Numbers were filled above.
            ArgType::Integer | ArgType::Number => continue,
        };
        out[i] = Some(fill);
    }
    // Two enum arguments over the same values (a converter's `from` and `to`): each value
    // said goes to one of them, not to both.
    pair_same_enums(decls, &words, &numbers_said(request), &mut out);
    // Texts: the run of the request's words the other arguments left, the longest one
    // after the last word they took, else before the first.
    // An optional text is only ever said after the values ("a 12 minute timer *for the
    // pasta*"); what comes before them is the request's frame ("set a timer for …").
    let texts: Vec<usize> = (0..decls.len()).filter(|&i| out[i].is_none()).collect();
    let (after, rest) = free_runs(request, &used);
    let mut after = after.into_iter();
    let mut rest = rest.into_iter();
    for i in texts {
        let d = &decls[i];
        let run = match after.next() {
            Some(run) => Some(run),
            None if d.required => rest.next(),
            None => None,
        };
        out[i] = Some(match run {
            Some(run) => Fill::Text(run),
            None if d.required => Fill::Missing,
            None => Fill::Absent,
        });
    }
    out.into_iter().map(|f| f.unwrap_or(Fill::Absent)).collect()
}

/// Words before a value that make it the one converted into ("to miles", "in Celsius",
/// «в мили», «на евро»).
const INTO: &[&str] = &["to", "into", "in", "в", "во", "на"];

/// Words before a value that make it the one converted from ("from miles", «из миль»).
const FROM: &[&str] = &["from", "из", "с", "со"];

/// Two enum arguments of one tool that take the same values (a converter's `from` and `to`,
/// docs/toolsets.md): the values `request` (`words`, numbers `said`) names are shared out,
/// each to one argument. The first declared takes the value said with the quantity ("*26
/// miles* in kilometres", «в двадцати шести *милях*», "425 *Fahrenheit* in Celsius") or after
/// a word of [`FROM`], else the first one said that no word of [`INTO`] leads; the second,
/// the rest in the order said (several: one call each). One value said alone is the
/// first's, unless a word of [`INTO`] leads it ("convert it to miles"); the other is then
/// asked for.
fn pair_same_enums(decls: &[ArgDecl], words: &[String], said: &[Said], out: &mut [Option<Fill>]) {
    let enum_values = |d: &ArgDecl| match &d.ty {
        ArgType::Enum(v) => Some(v.clone()),
        _ => None,
    };
    for i in 0..decls.len() {
        let Some(vals) = enum_values(&decls[i]) else {
            continue;
        };
        let Some(j) =
            (i + 1..decls.len()).find(|&j| enum_values(&decls[j]).as_ref() == Some(&vals))
        else {
            continue;
        };
        // Each value named, where first, by either argument's words.
        let mut named: Vec<(String, usize)> = Vec::new();
        for (v, at) in named_values(&decls[i], &vals, words)
            .into_iter()
            .chain(named_values(&decls[j], &vals, words))
        {
            let Some(&first) = at.iter().min() else {
                continue;
            };
            match named.iter_mut().find(|(n, _)| *n == v) {
                Some(slot) => slot.1 = slot.1.min(first),
                None => named.push((v, first)),
            }
        }
        if named.is_empty() {
            continue;
        }
        named.sort_by_key(|(_, at)| *at);
        let before = |at: usize, list: &[&str]| {
            (at >= 1 && list.contains(&words[at - 1].as_str()))
                || (at >= 2 && list.contains(&words[at - 2].as_str()))
        };
        // Said with a quantity: right after a number, one word between at most ("425
        // degrees Fahrenheit", «425 по Фаренгейту»).
        let with_quantity = |at: usize| said.iter().any(|n| at >= n.end && at <= n.end + 1);
        let source = named
            .iter()
            .position(|(_, at)| with_quantity(*at) && !before(*at, INTO))
            .or_else(|| named.iter().position(|(_, at)| before(*at, FROM)))
            .or_else(|| named.iter().position(|(_, at)| !before(*at, INTO)));
        let missing = |d: &ArgDecl| {
            if d.required {
                Fill::Missing
            } else {
                Fill::Absent
            }
        };
        out[i] = Some(match source {
            Some(at) => Fill::Values(vec![named.remove(at).0]),
            None => missing(&decls[i]),
        });
        out[j] = Some(match (named.is_empty(), decls[j].required) {
            (false, _) => Fill::Values(named.into_iter().map(|(v, _)| v).collect()),
            (true, true) => Fill::Missing,
            (true, false) => Fill::Absent,
        });
    }
}

/// An end of a declared range, said in words.
#[derive(Debug, Clone, Copy, PartialEq)]
enum RangeEnd {
    /// The maximum: "all the way up", "full", «на максимум», «на полную».
    Top,
    /// The minimum: "to the minimum", «на минимум».
    Bottom,
}

/// Word runs that say the top of a range.
const TOP_WORDS: &[&[&str]] = &[
    &["max"],
    &["maximum"],
    &["all", "the", "way", "up"],
    &["full", "blast"],
    &["максимум"],
    &["максимальную"],
    &["максимальный"],
    &["на", "полную"],
];

/// Word runs that say the bottom of a range.
const BOTTOM_WORDS: &[&[&str]] = &[
    &["min"],
    &["minimum"],
    &["all", "the", "way", "down"],
    &["минимум"],
    &["минимальную"],
    &["минимальный"],
];

/// The end of a range `request` says in words ([`TOP_WORDS`], [`BOTTOM_WORDS`]), if one.
fn says_range_end(request: &str) -> Option<RangeEnd> {
    let words = lower_words(request);
    let says = |runs: &[&[&str]]| runs.iter().any(|r| says_run(&words, r));
    match (says(TOP_WORDS), says(BOTTOM_WORDS)) {
        (true, false) => Some(RangeEnd::Top),
        (false, true) => Some(RangeEnd::Bottom),
        _ => None,
    }
}

/// Words that only count what a number said ("five *of them*", «пять *штук*»): no text.
const COUNTING: &[&str] = &[
    "them",
    "those",
    "these",
    "pieces",
    "piece",
    "pcs",
    "items",
    "штук",
    "штуки",
    "штука",
    "шт",
];

/// The runs of `request` free of the word indices `used` (indices into
/// [`lower_words`]), as parts of the request's own text, those with a word that is no
/// common word only: the run after the last used word (a text is said after the values:
/// "remind me in 10 minutes *to call mum*"), and the runs before it. With nothing used,
/// the whole request is the run after.
fn free_runs(request: &str, used: &BTreeSet<usize>) -> (Option<String>, Vec<String>) {
    if used.is_empty() {
        return (Some(request.trim().to_owned()), Vec::new());
    }
    // Each whitespace-separated word of the request and the lower-case words it holds.
    let mut parts: Vec<(&str, Vec<usize>)> = Vec::new();
    let mut next = 0;
    for w in request.split_whitespace() {
        let n = lower_words(w).len();
        parts.push((w, (next..next + n).collect()));
        next += n;
    }
    let taken = |idx: &Vec<usize>| idx.iter().any(|i| used.contains(i));
    let mut runs: Vec<Vec<&str>> = vec![Vec::new()];
    for (w, idx) in &parts {
        if taken(idx) {
            if runs.last().is_some_and(|r| !r.is_empty()) {
                runs.push(Vec::new());
            }
        } else if let Some(r) = runs.last_mut() {
            r.push(w);
        }
    }
    let telling = |r: &Vec<&str>| {
        lower_words(&r.join(" ")).iter().any(|w| {
            w.chars().count() >= 3
                && !STOP_WORDS.contains(&w.as_str())
                && !COUNTING.contains(&w.as_str())
        })
    };
    // The last run is after the values only when the request does not end with one.
    let ends_taken = parts.last().is_some_and(|(_, idx)| taken(idx));
    let last = if ends_taken { None } else { runs.pop() };
    let after = last.filter(|r| telling(r)).map(|r| r.join(" "));
    let before = runs
        .into_iter()
        .filter(|r| telling(r))
        .map(|r| r.join(" "))
        .collect();
    (after, before)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_end_of_a_declared_range_said_in_words_is_its_value() {
        let mut level = int("level", true);
        level.min = Some(0.0);
        level.max = Some(100.0);
        let decls = [level];
        for (request, lang, want) in [
            ("Turn the music all the way up", Lang::En, "100"),
            ("Громкость на максимум", Lang::Ru, "100"),
            ("volume to the minimum", Lang::En, "0"),
        ] {
            assert_eq!(
                fill(&decls, request, lang),
                [Fill::Values(vec![want.into()])],
                "{request}"
            );
        }
        // No range declared: nothing to take; a number said wins.
        let bare = [int("level", true)];
        assert_eq!(fill(&bare, "all the way up", Lang::En), [Fill::Missing]);
        assert_eq!(
            fill(&decls, "max it out at 80", Lang::En),
            [Fill::Values(vec!["80".into()])]
        );
    }

    #[test]
    fn words_that_only_count_are_no_text() {
        let mut count = int("count", false);
        count.min = Some(1.0);
        count.max = Some(99.0);
        let decls = [ArgDecl::new("item", ArgType::String, true), count];
        for (request, lang, item) in [
            ("oranges, five of them", Lang::En, "oranges,"),
            ("апельсины, пять штук", Lang::Ru, "апельсины,"),
        ] {
            let got = fill(&decls, request, lang);
            assert_eq!(got[0], Fill::Text(item.into()), "{request}");
            assert_eq!(got[1], Fill::Values(vec!["5".into()]), "{request}");
        }
    }

    fn int(name: &str, required: bool) -> ArgDecl {
        ArgDecl::new(name, ArgType::Integer, required)
    }

    fn timer() -> Vec<ArgDecl> {
        let mut minutes = int("minutes", true);
        minutes.min = Some(1.0);
        minutes.max = Some(1440.0);
        minutes.unit = Some(DurationUnit::Minutes);
        vec![minutes, ArgDecl::new("label", ArgType::String, false)]
    }

    fn fill(decls: &[ArgDecl], request: &str, lang: Lang) -> Vec<Fill> {
        fill_args(
            decls,
            request,
            lang,
            &HostValues::new(),
            &vec![None; decls.len()],
        )
    }

    fn values(v: &[&str]) -> Fill {
        Fill::Values(v.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn a_duration_is_taken_in_the_argument_s_unit_and_the_text_is_what_is_left() {
        let t = timer();
        let got = fill(&t, "can you time 8 minutes for the eggs please", Lang::En);
        assert_eq!(got[0], values(&["8"]));
        assert_eq!(got[1], Fill::Text("for the eggs please".into()));
        assert_eq!(
            fill(&t, "ok so i need a timer 25 minutes", Lang::En)[0],
            values(&["25"])
        );
        assert_eq!(
            fill(&t, "засеки пожалуйста восемь минут для яиц", Lang::Ru)[0],
            values(&["8"])
        );
        assert_eq!(
            fill(&t, "поставь таймер на полтора часа", Lang::Ru)[0],
            values(&["90"])
        );
        assert_eq!(
            fill(&t, "a timer for half an hour", Lang::En)[0],
            values(&["30"])
        );
        // Nothing said: the required minutes are asked for (the label's run is the whole
        // request; the planner leaves out what the tool's frame words alone make).
        assert_eq!(
            fill(&t, "set a timer", Lang::En),
            vec![Fill::Missing, Fill::Text("set a timer".into())]
        );
        // Out of range: never a value, the range is said.
        assert_eq!(
            fill(&t, "a timer for 2000 minutes", Lang::En)[0],
            Fill::OutOfRange(2000.0)
        );
    }

    #[test]
    fn numbers_in_words_compounds_and_ranges() {
        let mut degrees = int("degrees", true);
        degrees.min = Some(10.0);
        degrees.max = Some(30.0);
        let d = vec![degrees];
        assert_eq!(
            fill(&d, "поставь отопление на двадцать два", Lang::Ru)[0],
            values(&["22"])
        );
        assert_eq!(
            fill(&d, "девятнадцать градусов", Lang::Ru)[0],
            values(&["19"])
        );
        assert_eq!(
            fill(&d, "heating to forty please", Lang::En)[0],
            Fill::OutOfRange(40.0)
        );
        let n = vec![int("number", true)];
        // A place said by an ordinal; a homophone after a word that numbers an item.
        assert_eq!(
            fill(&n, "cancel the second timer", Lang::En)[0],
            values(&["2"])
        );
        assert_eq!(fill(&n, "delete note to", Lang::En)[0], values(&["2"]));
        assert_eq!(fill(&n, "удали третью", Lang::Ru)[0], values(&["3"]));
    }

    #[test]
    fn fewer_numbers_than_numeric_arguments_go_one_each_in_order() {
        let mut hour = int("hour", true);
        hour.max = Some(23.0);
        let mut minute = int("minute", false);
        minute.max = Some(59.0);
        let alarm = vec![hour, minute];
        assert_eq!(
            fill(&alarm, "wake me at 7", Lang::En),
            vec![values(&["7"]), Fill::Absent]
        );
        assert_eq!(
            fill(&alarm, "alarm at 6 45", Lang::En),
            vec![values(&["6"]), values(&["45"])]
        );
    }

    #[test]
    fn a_clock_time_said_fills_the_hour_and_the_minute() {
        let mut hour = int("hour", true);
        hour.min = Some(0.0);
        hour.max = Some(23.0);
        let mut minute = int("minute", false);
        minute.min = Some(0.0);
        minute.max = Some(59.0);
        let alarm = vec![hour, minute];
        for (text, lang, h, m) in [
            ("Set an alarm for half past six", Lang::En, "6", Some("30")),
            (
                "Alarm for quarter to eight tomorrow",
                Lang::En,
                "7",
                Some("45"),
            ),
            ("Alarm at 9 in the evening", Lang::En, "21", None),
            ("Alarm at ten fifteen, please", Lang::En, "10", Some("15")),
            ("Set an alarm for 7 am", Lang::En, "7", None),
            (
                "Поставь будильник на половину седьмого",
                Lang::Ru,
                "6",
                Some("30"),
            ),
            (
                "Будильник на без четверти восемь",
                Lang::Ru,
                "7",
                Some("45"),
            ),
            ("Заведи будильник на 21:00", Lang::Ru, "21", None),
            (
                "Будильник на шесть сорок, пожалуйста",
                Lang::Ru,
                "6",
                Some("40"),
            ),
            ("Поставь будильник на десять вечера", Lang::Ru, "22", None),
            ("в пять часов", Lang::Ru, "5", None),
        ] {
            let want = vec![values(&[h]), m.map_or(Fill::Absent, |m| values(&[m]))];
            assert_eq!(fill(&alarm, text, lang), want, "{text}");
        }
        // No clock time: the numbers, one each in order, as before.
        assert_eq!(
            fill(&alarm, "Разбуди меня завтра в семь", Lang::Ru),
            vec![values(&["7"]), Fill::Absent]
        );
        // A required minute not said is 0.
        let mut required = alarm.clone();
        required[1].required = true;
        assert_eq!(
            fill(&required, "at 9 pm", Lang::En),
            vec![values(&["21"]), values(&["0"])]
        );
        // The clock's numbers go to no other argument; the label is what is left.
        let mut labelled = alarm.clone();
        labelled.push(int("repeat", false));
        labelled.push(ArgDecl::new("label", ArgType::String, false));
        let got = fill(&labelled, "alarm for half past six for the gym", Lang::En);
        assert_eq!(got[0], values(&["6"]));
        assert_eq!(got[1], values(&["30"]));
        assert_eq!(got[2], Fill::Absent);
        assert_eq!(got[3], Fill::Text("for the gym".into()));
    }

    #[test]
    fn two_enums_over_the_same_values_share_out_the_values_said() {
        let unit = |name: &str| ArgDecl {
            said: vec![
                (
                    "mile".into(),
                    vec!["miles".into(), "милях".into(), "миль".into()],
                ),
                (
                    "kilometer".into(),
                    vec!["kilometres".into(), "километров".into()],
                ),
                ("foot".into(), vec!["feet".into()]),
                ("inch".into(), vec!["inches".into()]),
            ],
            ..ArgDecl::new(
                name,
                ArgType::Enum(vec![
                    "kilometer".into(),
                    "mile".into(),
                    "foot".into(),
                    "inch".into(),
                ]),
                true,
            )
        };
        let decls = vec![
            ArgDecl::new("amount", ArgType::Number, true),
            unit("from"),
            unit("to"),
        ];
        for (request, amount, from, to) in [
            (
                "how many kilometres is twenty-six miles",
                "26",
                "mile",
                "kilometer",
            ),
            (
                "сколько километров в двадцати шести милях",
                "26",
                "mile",
                "kilometer",
            ),
            (
                "How many inches are there in two and a half feet?",
                "2.5",
                "foot",
                "inch",
            ),
            ("convert 5 kilometres to miles", "5", "kilometer", "mile"),
            (
                "from miles to kilometres, 3 of them",
                "3",
                "mile",
                "kilometer",
            ),
        ] {
            let got = fill(&decls, request, Lang::En);
            assert_eq!(got[0], values(&[amount]), "{request}");
            assert_eq!(got[1], values(&[from]), "{request}");
            assert_eq!(got[2], values(&[to]), "{request}");
        }
        // One unit said: the one converted from, the other asked for; led by "to", the
        // other way round.
        let got = fill(&decls, "convert 30 miles", Lang::En);
        assert_eq!((&got[1], &got[2]), (&values(&["mile"]), &Fill::Missing));
        let got = fill(&decls, "convert 30 to miles", Lang::En);
        assert_eq!((&got[1], &got[2]), (&Fill::Missing, &values(&["mile"])));
        // Several units converted into: each one a target.
        let got = fill(&decls, "convert 10 miles to feet and to inches", Lang::En);
        assert_eq!(got[2], values(&["foot", "inch"]));
    }

    #[test]
    fn a_duration_said_goes_to_the_argument_of_a_unit_and_a_bare_number_to_the_other() {
        let minutes = ArgDecl {
            unit: Some(DurationUnit::Minutes),
            ..ArgDecl::new("minutes", ArgType::Integer, true)
        };
        let km = ArgDecl::new("distance_km", ArgType::Number, false);
        let decls = vec![minutes, km];
        assert_eq!(
            fill(
                &decls,
                "Log a ten kilometre run, it took me fifty-two minutes",
                Lang::En
            ),
            vec![values(&["52"]), values(&["10"])]
        );
        assert_eq!(
            fill(
                &decls,
                "запиши пробежку на десять километров, бежал пятьдесят две минуты",
                Lang::Ru
            ),
            vec![values(&["52"]), values(&["10"])]
        );
    }

    #[test]
    fn a_value_numbered_by_a_digit_is_told_from_its_neighbours() {
        let source = ArgDecl {
            said: vec![
                ("hdmi1".into(), vec!["hdmi 1".into(), "hdmi one".into()]),
                ("hdmi2".into(), vec!["hdmi 2".into(), "hdmi two".into()]),
            ],
            ..ArgDecl::new(
                "source",
                ArgType::Enum(vec!["hdmi1".into(), "hdmi2".into(), "antenna".into()]),
                true,
            )
        };
        let one = std::slice::from_ref(&source);
        assert_eq!(fill(one, "HDMI 2", Lang::En), vec![values(&["hdmi2"])]);
        assert_eq!(
            fill(one, "switch to hdmi one", Lang::En),
            vec![values(&["hdmi1"])]
        );
        assert_eq!(
            fill(one, "hdmi2 please", Lang::En),
            vec![values(&["hdmi2"])]
        );
        assert!(!same_word("hdmi", "hdmi1"));
        assert!(same_word("lights", "light"));
    }

    #[test]
    fn enum_values_by_their_words_or_said_words_two_letter_values_included() {
        let room = ArgDecl {
            said: vec![
                ("kitchen".into(), vec!["кухня".into()]),
                (
                    "living_room".into(),
                    vec!["гостиная".into(), "lounge".into()],
                ),
            ],
            ..ArgDecl::new(
                "room",
                ArgType::Enum(vec![
                    "kitchen".into(),
                    "hallway".into(),
                    "living_room".into(),
                ]),
                true,
            )
        };
        let state = ArgDecl {
            said: vec![
                ("on".into(), vec!["включи".into()]),
                ("off".into(), vec!["выключи".into()]),
            ],
            ..ArgDecl::new(
                "state",
                ArgType::Enum(vec!["on".into(), "off".into()]),
                true,
            )
        };
        let light = vec![room, state];
        assert_eq!(
            fill(&light, "turn off the kitchen light", Lang::En),
            vec![values(&["kitchen"]), values(&["off"])]
        );
        assert_eq!(
            fill(&light, "включи свет на кухне", Lang::Ru),
            vec![values(&["kitchen"]), values(&["on"])]
        );
        assert_eq!(
            fill(&light, "lights on in the living room", Lang::En),
            vec![values(&["living_room"]), values(&["on"])]
        );
        assert_eq!(
            fill(&light, "выключи в гостиной", Lang::Ru),
            vec![values(&["living_room"]), values(&["off"])]
        );
        // Two rooms said: both are candidates; no state said: asked for.
        assert_eq!(
            fill(&light, "the kitchen and the hallway lights", Lang::En),
            vec![values(&["kitchen", "hallway"]), Fill::Missing]
        );
    }

    #[test]
    fn a_host_list_entry_is_matched_across_inflections_and_partial_names() {
        let mut lists = HostValues::new();
        lists.insert(
            "contacts".into(),
            vec!["Анна Петрова".into(), "Борис".into(), "Sarah Connor".into()],
        );
        let contact = ArgDecl {
            values_from: Some("contacts".into()),
            ..ArgDecl::new("contact", ArgType::String, true)
        };
        let d = vec![contact, ArgDecl::new("text", ArgType::String, true)];
        let got = fill_args(
            &d,
            "напиши Анне что я опоздаю",
            Lang::Ru,
            &lists,
            &[None, None],
        );
        assert_eq!(got[0], values(&["Анна Петрова"]));
        assert_eq!(got[1], Fill::Text("что я опоздаю".into()));
        let got = fill_args(&d, "call sarah", Lang::En, &lists, &[None, None]);
        assert_eq!(got[0], values(&["Sarah Connor"]));
        let got = fill_args(&d, "call the plumber", Lang::En, &lists, &[None, None]);
        assert!(matches!(&got[0], Fill::Unmatched(all) if all.len() == 3));
    }

    #[test]
    fn words_are_one_word_in_other_forms() {
        assert!(same_word("кухня", "кухне"));
        assert!(same_word("анна", "анне"));
        assert!(same_word("гостиная", "гостиной"));
        assert!(same_word("light", "lights"));
        assert!(!same_word("off", "office"));
        assert!(!same_word("bed", "bedroom"));
        assert!(!same_word("work", "workout"));
        assert!(!same_word("спорт", "спортзала"));
        assert!(same_word("борис", "борисом"));
        assert!(!same_word("on", "one"));
    }
}
