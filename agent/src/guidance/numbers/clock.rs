//! Times of day a text says, Russian or English: "6:30", «21:00», "half past six",
//! "quarter to eight", "ten to seven", "six thirty", "seven am", "9 in the evening",
//! "noon", "midnight", «в половине седьмого», «без четверти восемь», «без десяти семь»,
//! «десять минут восьмого», «в девять вечера», «в 7 утра», «в шесть тридцать», «в пять
//! часов», «полдень», «полночь».
//!
//! A [`ClockTime`] is read in 24-hour terms: a part of the day said after it ("pm", "in the
//! evening", «вечера», «ночи») moves an hour of the 12-hour clock into the afternoon or
//! night; without one the hour is as said ("half past six" is 6:30). A number alone ("at
//! 7", «в семь») is no clock time here: it is a number like any other. A duration is none
//! either: «через пять часов», "in 20 minutes", "five hours".

use super::{joined, number, number_word, tokens, unit_at, word, Kind, TimeUnit, Token};

/// A time of day a text says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ClockTime {
    /// The hour, 0 to 23.
    pub(crate) hour: u32,
    /// The minute, 0 to 59, when said ("6:30", "half past", «шесть сорок»); `None` for an
    /// hour said alone ("seven am", «в пять часов», "noon").
    pub(crate) minute: Option<u32>,
    /// The index of its first word in `lower_words(text)`.
    pub(crate) start: usize,
    /// One past the index of its last word, the part of the day included.
    pub(crate) end: usize,
}

/// The clock times `text` says, in order of appearance and not overlapping.
pub(crate) fn clock_times_said(text: &str) -> Vec<ClockTime> {
    let toks = tokens(text);
    let mut out: Vec<ClockTime> = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        match clock_at(&toks, i) {
            Some(t) if t.end > i => {
                i = t.end;
                out.push(t);
            }
            _ => i += 1,
        }
    }
    out
}

/// A time read before its part of the day: the hour as said (0 to 24), the minute, the
/// index past it, and whether its words alone make it a time of day (a minute or "o'clock"
/// said) rather than a number that needs a part of the day after it.
#[derive(Debug, Clone, Copy)]
struct Reading {
    hour: u32,
    minute: Option<u32>,
    end: usize,
    sure: bool,
}

impl Reading {
    fn sure(hour: u32, minute: Option<u32>, end: usize) -> Reading {
        Reading {
            hour,
            minute,
            end,
            sure: true,
        }
    }
}

/// A part of the day said after an hour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DayPart {
    /// "am", "in the morning", «утра».
    Morning,
    /// "pm", "in the afternoon", "in the evening", «дня», «вечера».
    Afternoon,
    /// "at night", "tonight", «ночи».
    Night,
}

/// The clock time said from `i`, if one starts there.
fn clock_at(toks: &[Token], i: usize) -> Option<ClockTime> {
    let r = noon(toks, i)
        .or_else(|| relative(toks, i))
        .or_else(|| ru_half(toks, i))
        .or_else(|| ru_without(toks, i))
        .or_else(|| ru_past(toks, i))
        .or_else(|| digital(toks, i))
        .or_else(|| hour_first(toks, i))?;
    let (part, end) = match day_part(toks, r.end) {
        Some((p, e)) => (Some(p), e),
        None => (None, r.end),
    };
    if !r.sure && part.is_none() {
        return None;
    }
    Some(ClockTime {
        hour: in_day(r.hour, part)?,
        minute: r.minute,
        start: i,
        end,
    })
}

/// The hour of the day `hour` (0 to 24, as said) is with `part` of the day said after it:
/// "7 pm" 19, "12 am" 0, "10 at night" 22, «три ночи» 3.
fn in_day(hour: u32, part: Option<DayPart>) -> Option<u32> {
    if hour > 24 {
        return None;
    }
    let h = hour % 24;
    Some(match part {
        None => h,
        Some(DayPart::Morning) if h == 12 => 0,
        Some(DayPart::Morning) => h,
        Some(DayPart::Afternoon) if (1..12).contains(&h) => h + 12,
        Some(DayPart::Afternoon) => h,
        Some(DayPart::Night) if (6..12).contains(&h) => h + 12,
        Some(DayPart::Night) if h == 12 => 0,
        Some(DayPart::Night) => h,
    })
}

/// The part of the day said at `j` ("pm", "a.m.", "in the evening", "at night", «утра»),
/// and the index past it.
fn day_part(toks: &[Token], j: usize) -> Option<(DayPart, usize)> {
    if !joined(toks, j) {
        return None;
    }
    let w = word(toks, j);
    let one = match w {
        "am" | "утра" => Some(DayPart::Morning),
        "pm" | "дня" | "вечера" => Some(DayPart::Afternoon),
        "tonight" | "ночи" => Some(DayPart::Night),
        _ => None,
    };
    if let Some(p) = one {
        return Some((p, j + 1));
    }
    // "a.m.", "p.m.": two words with a dot between.
    let dotted = toks
        .get(j + 1)
        .is_some_and(|t| t.sep == "." && t.word == "m");
    match w {
        "a" if dotted => return Some((DayPart::Morning, j + 2)),
        "p" if dotted => return Some((DayPart::Afternoon, j + 2)),
        _ => {}
    }
    let next = |k: usize| if joined(toks, k) { word(toks, k) } else { "" };
    let part = |w: &str| match w {
        "morning" => Some(DayPart::Morning),
        "afternoon" | "evening" => Some(DayPart::Afternoon),
        "night" => Some(DayPart::Night),
        _ => None,
    };
    match (w, next(j + 1)) {
        ("in", "the") => part(next(j + 2)).map(|p| (p, j + 3)),
        ("at", "night") => Some((DayPart::Night, j + 2)),
        ("this", w) => part(w).filter(|p| *p != DayPart::Night).map(|p| (p, j + 2)),
        _ => None,
    }
}

/// A whole number said at `i` in `0..=max`, no ordinal and no unit glued to it, and the
/// index past it.
fn whole(toks: &[Token], i: usize, max: u32) -> Option<(u32, usize)> {
    let n = number(toks, i)?;
    let fits = matches!(n.kind, Kind::Cardinal | Kind::One)
        && n.unit.is_none()
        && n.value.fract() == 0.0
        && (0.0..=f64::from(max)).contains(&n.value);
    fits.then_some((n.value as u32, n.end))
}

/// The hour of a clock at `i`, not a duration's number: a whole number to 24 with no
/// unit of time after it, or "noon", "midnight", «час» (one). Its value and the index
/// past it.
fn clock_hour(toks: &[Token], i: usize) -> Option<(u32, usize)> {
    if !joined(toks, i) {
        return None;
    }
    match word(toks, i) {
        "noon" | "midday" | "полдень" => return Some((12, i + 1)),
        "midnight" | "полночь" => return Some((0, i + 1)),
        "час" => return Some((1, i + 1)),
        _ => {}
    }
    let (h, end) = whole(toks, i, 24)?;
    (unit_at(toks, end).is_none()).then_some((h, end))
}

/// The hour before `hour` on the 12-hour clock, the hour a time "to" it is in ("quarter
/// to one" is 12:45, "ten to midnight" 23:50).
fn hour_before(hour: u32) -> u32 {
    match hour {
        0 => 23,
        1 => 12,
        h => h - 1,
    }
}

/// Minute words after a number of minutes ("ten minutes to seven", «десять минут
/// восьмого»): the index past them.
fn minute_word(toks: &[Token], j: usize) -> Option<usize> {
    unit_at(toks, j)
        .filter(|(u, _)| *u == TimeUnit::Minutes)
        .map(|(_, e)| e)
}

/// "noon", "midday", "midnight", «полдень», «полночь».
fn noon(toks: &[Token], i: usize) -> Option<Reading> {
    match word(toks, i) {
        "noon" | "midday" | "полдень" => Some(Reading::sure(12, None, i + 1)),
        "midnight" | "полночь" => Some(Reading::sure(0, None, i + 1)),
        _ => None,
    }
}

/// "half past six", "quarter past eight", "a quarter to eight", "ten to seven", "twenty
/// five minutes past 6".
fn relative(toks: &[Token], i: usize) -> Option<Reading> {
    let mut j = i;
    if word(toks, j) == "a" && joined(toks, j + 1) {
        j += 1;
    }
    let (minutes, k) = match word(toks, j) {
        "quarter" => (15, j + 1),
        "half" => (30, j + 1),
        _ if j == i => {
            let (m, e) = whole(toks, j, 59).filter(|(m, _)| *m > 0)?;
            (m, minute_word(toks, e).unwrap_or(e))
        }
        _ => return None,
    };
    if !joined(toks, k) {
        return None;
    }
    let past = match word(toks, k) {
        "past" | "after" => true,
        "to" | "till" | "til" | "before" | "of" if minutes != 30 => false,
        _ => return None,
    };
    let (h, end) = clock_hour(toks, k + 1)?;
    Some(if past {
        Reading::sure(h, Some(minutes), end)
    } else {
        Reading::sure(hour_before(h), Some(60 - minutes), end)
    })
}

/// The hour a Russian ordinal in the genitive names («седьмого»: of the seventh hour, 1
/// to 12): «половина седьмого» is 6:30.
fn ru_hour_ordinal(toks: &[Token], i: usize) -> Option<u32> {
    if !joined(toks, i) {
        return None;
    }
    ordinal_of(word(toks, i))
}

/// The value of `w` as a Russian ordinal in the genitive, 1 to 12.
fn ordinal_of(w: &str) -> Option<u32> {
    let n = number_word(w).filter(|n| n.ordinal && w.ends_with("ого"))?;
    (1.0..=12.0).contains(&n.value).then_some(n.value as u32)
}

/// «половина седьмого», «в половине седьмого», «пол седьмого», «полседьмого»: 6:30.
fn ru_half(toks: &[Token], i: usize) -> Option<Reading> {
    let w = word(toks, i);
    let (n, end) = match w {
        "половина" | "половину" | "половине" | "пол" => {
            (ru_hour_ordinal(toks, i + 1)?, i + 2)
        }
        _ => (ordinal_of(w.strip_prefix("пол")?)?, i + 1),
    };
    Some(Reading::sure(hour_before(n), Some(30), end))
}

/// «без четверти восемь» (7:45), «без десяти семь» (6:50), «без пяти минут час» (12:55).
fn ru_without(toks: &[Token], i: usize) -> Option<Reading> {
    if word(toks, i) != "без" || !joined(toks, i + 1) {
        return None;
    }
    let (minutes, k) = match word(toks, i + 1) {
        "четверти" => (15, i + 2),
        _ => {
            let (m, e) = whole(toks, i + 1, 59).filter(|(m, _)| *m > 0)?;
            (m, minute_word(toks, e).unwrap_or(e))
        }
    };
    let (h, end) = clock_hour(toks, k)?;
    Some(Reading::sure(hour_before(h), Some(60 - minutes), end))
}

/// «четверть восьмого» (7:15), «десять минут восьмого» (7:10).
fn ru_past(toks: &[Token], i: usize) -> Option<Reading> {
    let (minutes, k) = match word(toks, i) {
        "четверть" => (15, i + 1),
        _ => {
            let (m, e) = whole(toks, i, 59).filter(|(m, _)| *m > 0)?;
            (m, minute_word(toks, e)?)
        }
    };
    let n = ru_hour_ordinal(toks, k)?;
    Some(Reading::sure(hour_before(n), Some(minutes), k + 1))
}

/// "am" or "pm" glued to the end of `w` ("7am", "30pm"): the digits before it, and the
/// part of the day.
fn glued_part(w: &str) -> Option<(&str, DayPart)> {
    if let Some(d) = w.strip_suffix("am") {
        return Some((d, DayPart::Morning));
    }
    w.strip_suffix("pm").map(|d| (d, DayPart::Afternoon))
}

/// One or two digits that are a number up to `max`.
fn small_digits(w: &str, max: u32) -> Option<u32> {
    let ok = (1..=2).contains(&w.len()) && w.bytes().all(|b| b.is_ascii_digit());
    ok.then(|| w.parse::<u32>().ok())
        .flatten()
        .filter(|n| *n <= max)
}

/// "6:30", «21:00», «7.30», "7:30pm", "7am": an hour in digits, with its minute after a
/// colon or a dot.
fn digital(toks: &[Token], i: usize) -> Option<Reading> {
    let w = word(toks, i);
    if let Some((d, part)) = glued_part(w) {
        let h = small_digits(d, 12)?;
        return Some(Reading::sure(in_day(h, Some(part))?, None, i + 1));
    }
    let h = small_digits(w, 24)?;
    let next = toks.get(i + 1)?;
    if next.sep != ":" && next.sep != "." {
        return None;
    }
    let (m, part) = match glued_part(&next.word) {
        Some((d, part)) => (d, Some(part)),
        None => (next.word.as_str(), None),
    };
    if m.len() != 2 {
        return None;
    }
    let m = small_digits(m, 59)?;
    let hour = match part {
        Some(p) => in_day(h, Some(p))?,
        None => h,
    };
    Some(Reading::sure(hour, Some(m), i + 2))
}

/// An hour said first: "six thirty", "seven o'clock", "seven oh five", «шесть сорок», «в
/// пять часов», «в пять часов тридцать минут», «в час»; or a number alone that the part of
/// the day after it makes an hour ("9 in the evening", «в девять вечера»).
fn hour_first(toks: &[Token], i: usize) -> Option<Reading> {
    let lead = i
        .checked_sub(1)
        .filter(|_| joined(toks, i))
        .map_or("", |p| word(toks, p));
    let at = matches!(lead, "в" | "во" | "к" | "на");
    let (h, mut end, mut sure) = match word(toks, i) {
        "час" if matches!(lead, "в" | "во" | "к") => (1, i + 1, true),
        _ => {
            let (h, e) = whole(toks, i, 24)?;
            (h, e, false)
        }
    };
    // "o'clock", «часов»: an hour of the clock, not of a duration, after «в», «к», «на».
    let hours_word = matches!(word(toks, end), "час" | "часа" | "часов") && joined(toks, end);
    if joined(toks, end) && word(toks, end) == "o" && word(toks, end + 1) == "clock" {
        end += 2;
        sure = true;
    } else if joined(toks, end) && word(toks, end) == "oclock" {
        end += 1;
        sure = true;
    } else if hours_word {
        end += 1;
        sure |= at || day_part(toks, end).is_some();
        if !sure {
            return None;
        }
    } else if unit_at(toks, end).is_some() {
        return None;
    }
    let minute = minute_after(toks, end, hours_word);
    if let Some((m, e)) = minute {
        return Some(Reading::sure(h, Some(m), e));
    }
    Some(Reading {
        hour: h,
        minute: None,
        end,
        sure,
    })
}

/// The minute said after an hour at `j`: "thirty", "forty-five", "oh five", «ноль пять»,
/// «тридцать минут» (after «часов» only: "six thirty minutes" is a duration), and the
/// index past it. A number below ten said alone is no minute ("six five").
fn minute_after(toks: &[Token], j: usize, hours_word: bool) -> Option<(u32, usize)> {
    if !joined(toks, j) {
        return None;
    }
    let (m, e) = match word(toks, j) {
        "oh" | "o" | "ноль" => whole(toks, j + 1, 9).filter(|_| joined(toks, j + 1))?,
        _ => whole(toks, j, 59).filter(|(m, _)| *m >= 10 || hours_word)?,
    };
    match unit_at(toks, e) {
        None => Some((m, e)),
        Some((TimeUnit::Minutes, after)) if hours_word => Some((m, after)),
        Some(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The clock times of `text` as (hour, minute).
    fn times(text: &str) -> Vec<(u32, Option<u32>)> {
        clock_times_said(text)
            .into_iter()
            .map(|t| (t.hour, t.minute))
            .collect()
    }

    /// The one clock time `text` says.
    fn one(text: &str) -> (u32, Option<u32>) {
        match times(text).as_slice() {
            [t] => *t,
            other => panic!("{text}: {other:?}"),
        }
    }

    #[test]
    fn digits_with_a_colon_or_a_dot() {
        assert_eq!(one("set an alarm for 6:30"), (6, Some(30)));
        assert_eq!(one("Заведи будильник на 21:00"), (21, Some(0)));
        assert_eq!(one("разбуди в 7.15"), (7, Some(15)));
        assert_eq!(one("at 7:30pm"), (19, Some(30)));
        assert_eq!(one("at 7:30 pm"), (19, Some(30)));
        assert_eq!(one("I need to get up at 5:45 tomorrow"), (5, Some(45)));
        assert!(times("at 25:00").is_empty());
        assert!(times("at 7:75").is_empty());
    }

    #[test]
    fn english_half_quarter_past_and_to() {
        assert_eq!(one("Set an alarm for half past six"), (6, Some(30)));
        assert_eq!(one("Alarm for quarter to eight tomorrow"), (7, Some(45)));
        assert_eq!(one("a quarter past eight"), (8, Some(15)));
        assert_eq!(one("ten to seven"), (6, Some(50)));
        assert_eq!(one("twenty five minutes past 6"), (6, Some(25)));
        assert_eq!(one("quarter to one"), (12, Some(45)));
        assert_eq!(one("ten to midnight"), (23, Some(50)));
        assert_eq!(one("half past seven in the evening"), (19, Some(30)));
        // "half to" says nothing.
        assert!(times("half to seven").is_empty());
    }

    #[test]
    fn english_hours_minutes_and_parts_of_the_day() {
        assert_eq!(one("Wake me up at six thirty"), (6, Some(30)));
        assert_eq!(one("Alarm at ten fifteen, please"), (10, Some(15)));
        assert_eq!(one("six forty-five"), (6, Some(45)));
        assert_eq!(one("seven oh five"), (7, Some(5)));
        assert_eq!(one("Set an alarm for 7 am"), (7, None));
        assert_eq!(one("seven pm"), (19, None));
        assert_eq!(one("at 7pm"), (19, None));
        assert_eq!(one("at 6 a.m."), (6, None));
        assert_eq!(one("12 am"), (0, None));
        assert_eq!(one("12 pm"), (12, None));
        assert_eq!(one("Alarm at 9 in the evening"), (21, None));
        assert_eq!(one("Set an alarm for ten at night"), (22, None));
        assert_eq!(one("7 in the morning"), (7, None));
        assert_eq!(one("at 9 tonight"), (21, None));
        assert_eq!(one("seven o'clock"), (7, None));
        assert_eq!(one("wake me at noon"), (12, None));
        assert_eq!(one("midnight"), (0, None));
    }

    #[test]
    fn russian_halves_quarters_and_without() {
        assert_eq!(one("в половине седьмого"), (6, Some(30)));
        assert_eq!(one("Поставь будильник на половину седьмого"), (6, Some(30)));
        assert_eq!(one("полвосьмого"), (7, Some(30)));
        assert_eq!(one("половина первого"), (12, Some(30)));
        assert_eq!(one("без четверти восемь"), (7, Some(45)));
        assert_eq!(one("Будильник на без четверти восемь"), (7, Some(45)));
        assert_eq!(one("без десяти семь"), (6, Some(50)));
        assert_eq!(one("без двадцати пяти девять"), (8, Some(35)));
        assert_eq!(one("без пяти минут час"), (12, Some(55)));
        assert_eq!(one("четверть восьмого"), (7, Some(15)));
        assert_eq!(one("десять минут восьмого"), (7, Some(10)));
        assert_eq!(one("в половине восьмого вечера"), (19, Some(30)));
    }

    #[test]
    fn russian_hours_minutes_and_parts_of_the_day() {
        assert_eq!(one("в девять вечера"), (21, None));
        assert_eq!(one("в 7 утра"), (7, None));
        assert_eq!(one("Поставь будильник на десять вечера"), (22, None));
        assert_eq!(one("в три ночи"), (3, None));
        assert_eq!(one("в одиннадцать ночи"), (23, None));
        assert_eq!(one("в два часа дня"), (14, None));
        assert_eq!(one("в шесть тридцать"), (6, Some(30)));
        assert_eq!(one("Будильник на шесть сорок, пожалуйста"), (6, Some(40)));
        assert_eq!(one("на пять пятнадцать"), (5, Some(15)));
        assert_eq!(one("в пять часов"), (5, None));
        assert_eq!(one("в пять часов тридцать минут"), (5, Some(30)));
        assert_eq!(one("в час дня"), (13, None));
        assert_eq!(one("в час"), (1, None));
        assert_eq!(one("в полдень"), (12, None));
        assert_eq!(one("в полночь"), (0, None));
        assert_eq!(one("шесть ноль пять"), (6, Some(5)));
    }

    #[test]
    fn durations_and_plain_numbers_are_no_clock_times() {
        for text in [
            "in 20 minutes",
            "set a timer for five hours",
            "через пять часов",
            "пять часов",
            "таймер на 20 минут",
            "six thirty minutes",
            "at 7",
            "в семь",
            "Wake me up at 7",
            "Разбуди меня завтра в семь",
            "час пик",
            "который час",
            "half an hour",
            "полчаса",
            "a quarter of an hour",
            "четверть часа",
            "в 2026 году",
            "the second one",
            "",
            "без",
            "half past",
            ":30",
        ] {
            assert!(times(text).is_empty(), "{text}: {:?}", times(text));
        }
    }

    #[test]
    fn spans_and_several_times() {
        let t = clock_times_said("alarm at half past six and at 7:15");
        assert_eq!(t.len(), 2);
        assert_eq!((t[0].start, t[0].end), (2, 5));
        assert_eq!(
            (t[1].hour, t[1].minute, t[1].start, t[1].end),
            (7, Some(15), 7, 9)
        );
        let t = clock_times_said("Alarm at 9 in the evening");
        assert_eq!((t[0].start, t[0].end), (2, 6));
    }
}
