//! Calendar facts, computed from the agent's clock ([`super::Technique::CalendarQuestions`]):
//! how many days a month has («Сколько дней в феврале?»: the clock's year decides a leap
//! February) or a leap year, how many weeks a year has, how many days are left until a date
//! or a holiday ("How many days until New Year?"), the date and weekday of a holiday or a
//! date («Какой день недели будет первого сентября?», "What day is Christmas?"), the month
//! after or before another. What a calendar knows is not left to a tiny model.

use super::words::lower_words;
use crate::clock::Timestamp;
use crate::messages::Lang;
use crate::time_text::{day_and_date, EN_WEEKDAYS, RU_WEEKDAYS};
use chrono::{Datelike, NaiveDate};

/// A day of the year a question names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Day {
    /// New Year's Day, January 1.
    NewYear,
    /// Christmas: December 25 (in Russian, also the Orthodox January 7).
    Christmas,
    /// A month (1–12) and a day of it.
    Date(u32, u32),
}

/// A calendar question the agent computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CalendarQuestion {
    /// How many days a month (1–12) has, this year.
    MonthDays(u32),
    /// How many days a leap year has.
    LeapYearDays,
    /// How many weeks a year has.
    YearWeeks,
    /// How many days are left until a day (its next coming).
    DaysUntil(Day),
    /// The date and weekday of a day: its next coming, or next year's (`true`).
    DateOf(Day, bool),
    /// The month (1–12) `offset` months after another (−1: before).
    MonthNext(u32, i32),
    /// The weekday `days` days after (before, when negative) a weekday said (0: Monday) or
    /// today (`None`: the date too).
    DaysAfter(Option<u32>, i64),
}

/// Month stems (either language), 1–12, by a word's beginning; «мае», «мая», «май» whole.
const MONTHS: &[(&str, u32)] = &[
    ("январ", 1),
    ("феврал", 2),
    ("март", 3),
    ("апрел", 4),
    ("июн", 6),
    ("июл", 7),
    ("август", 8),
    ("сентябр", 9),
    ("октябр", 10),
    ("ноябр", 11),
    ("декабр", 12),
    ("january", 1),
    ("february", 2),
    ("march", 3),
    ("april", 4),
    ("june", 6),
    ("july", 7),
    ("august", 8),
    ("september", 9),
    ("october", 10),
    ("november", 11),
    ("december", 12),
];

/// The month a word names (1–12).
fn month_of(word: &str) -> Option<u32> {
    if ["май", "мая", "мае", "may"].contains(&word) {
        return Some(5);
    }
    MONTHS
        .iter()
        .find(|(stem, _)| word.starts_with(stem))
        .map(|(_, m)| *m)
}

/// Ordinal stems of a day of the month (either language), longest first where one starts
/// another («девятнадцат» before «девят»).
const ORDINALS: &[(&str, u32)] = &[
    ("одиннадцат", 11),
    ("двенадцат", 12),
    ("тринадцат", 13),
    ("четырнадцат", 14),
    ("пятнадцат", 15),
    ("шестнадцат", 16),
    ("семнадцат", 17),
    ("восемнадцат", 18),
    ("девятнадцат", 19),
    ("двадцат", 20),
    ("тридцат", 30),
    ("перв", 1),
    ("втор", 2),
    ("трет", 3),
    ("четвёрт", 4),
    ("четверт", 4),
    ("пят", 5),
    ("шест", 6),
    ("седьм", 7),
    ("восьм", 8),
    ("девят", 9),
    ("десят", 10),
    ("first", 1),
    ("second", 2),
    ("third", 3),
    ("fourth", 4),
    ("fifth", 5),
    ("sixth", 6),
    ("seventh", 7),
    ("eighth", 8),
    ("ninth", 9),
    ("tenth", 10),
    ("eleventh", 11),
    ("twelfth", 12),
    ("thirteenth", 13),
    ("fourteenth", 14),
    ("fifteenth", 15),
    ("sixteenth", 16),
    ("seventeenth", 17),
    ("eighteenth", 18),
    ("nineteenth", 19),
    ("twentieth", 20),
    ("thirtieth", 30),
];

/// The tens said before an ordinal («двадцать пятого», "twenty fifth").
const TENS: &[(&str, u32)] = &[
    ("двадцать", 20),
    ("тридцать", 30),
    ("twenty", 20),
    ("thirty", 30),
];

/// The day of the month `words` say (digits, `25th`, an ordinal, tens and an ordinal).
fn day_of_month(words: &[String]) -> Option<u32> {
    for (i, w) in words.iter().enumerate() {
        let digits = w.trim_end_matches(|c: char| c.is_alphabetic());
        if !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()) {
            return digits.parse().ok().filter(|d| (1..=31).contains(d));
        }
        if let Some((_, tens)) = TENS.iter().find(|(t, _)| t == w) {
            let unit = words
                .get(i + 1)
                .and_then(|n| ORDINALS.iter().find(|(s, _)| n.starts_with(s)))
                .map(|(_, d)| *d)
                .filter(|d| *d < 10);
            return unit.map(|u| tens + u);
        }
        if let Some((_, d)) = ORDINALS.iter().find(|(s, _)| w.starts_with(s)) {
            return Some(*d);
        }
    }
    None
}

/// The day `words` name: a holiday, or a month with a day of it.
fn named_day(words: &[String]) -> Option<Day> {
    let has = |w: &str| words.iter().any(|x| x == w);
    let starts = |p: &str| words.iter().any(|x| x.starts_with(p));
    if starts("рождеств") || starts("christmas") || starts("xmas") {
        return Some(Day::Christmas);
    }
    if (starts("нов") && starts("год")) || (has("new") && (starts("year"))) {
        return Some(Day::NewYear);
    }
    let month = words.iter().find_map(|w| month_of(w))?;
    let day = day_of_month(words)?;
    Some(Day::Date(month, day))
}

/// The calendar question `text` asks, when it asks one (at most 14 words).
pub(crate) fn calendar_question(text: &str) -> Option<CalendarQuestion> {
    let words = lower_words(&text.replace(['’', '\''], " "));
    if words.is_empty() || words.len() > 14 {
        return None;
    }
    let has = |w: &str| words.iter().any(|x| x == w);
    let starts = |p: &str| words.iter().any(|x| x.starts_with(p));
    let how_many = has("сколько") || (has("how") && has("many"));
    let days = starts("дн") || has("день") || has("days");
    let until = has("до") || has("until") || has("till") || has("before") || has("to");
    if how_many && days && until {
        return named_day(&words).map(CalendarQuestion::DaysUntil);
    }
    if how_many && days {
        if starts("високосн") || has("leap") {
            return Some(CalendarQuestion::LeapYearDays);
        }
        let mut months = words.iter().filter_map(|w| month_of(w));
        return match (months.next(), months.next()) {
            (Some(m), None) => Some(CalendarQuestion::MonthDays(m)),
            _ => None,
        };
    }
    if how_many && (starts("недел") || has("weeks")) && (starts("год") || has("year")) {
        return Some(CalendarQuestion::YearWeeks);
    }
    // The month after or before another.
    if starts("месяц") || has("month") {
        let offset = if has("после") || has("after") {
            1
        } else if has("перед") || has("before") {
            -1
        } else {
            0
        };
        let mut months = words.iter().filter_map(|w| month_of(w));
        if let (Some(m), None, true) = (months.next(), months.next(), offset != 0) {
            return Some(CalendarQuestion::MonthNext(m, offset));
        }
    }
    // The weekday some days from a weekday said or from today: "If today is Saturday,
    // what day is it in three days?", «Какой день будет через две недели?».
    if let Some(q) = days_after(text, &words) {
        return Some(q);
    }
    // The date or weekday of a day: "what day is …", «какого числа …», "when is …".
    let asks_when = has("когда")
        || has("числа")
        || has("число")
        || (starts("какой") && (has("день") || starts("недел")))
        || has("when")
        || (has("what") && (has("day") || has("date")));
    if asks_when {
        let next_year = (has("next") && has("year")) || (has("следующем") && starts("год"));
        return named_day(&words).map(|d| CalendarQuestion::DateOf(d, next_year));
    }
    None
}

/// Weekday words (either language) by their beginning, 0 for Monday; «сред» only whole
/// forms («среди» is "among").
const WEEKDAYS: &[(&str, u32)] = &[
    ("понедельник", 0),
    ("вторник", 1),
    ("четверг", 3),
    ("пятниц", 4),
    ("суббот", 5),
    ("воскресень", 6),
    ("monday", 0),
    ("tuesday", 1),
    ("wednesday", 2),
    ("thursday", 3),
    ("friday", 4),
    ("saturday", 5),
    ("sunday", 6),
];

/// The weekday a word names (0: Monday).
fn weekday_of(word: &str) -> Option<u32> {
    if matches!(word, "среда" | "среду" | "среды" | "среде") {
        return Some(2);
    }
    WEEKDAYS
        .iter()
        .find(|(stem, _)| word.starts_with(stem))
        .map(|(_, d)| *d)
}

/// The question of the weekday some days from another that `text` (its lower-case `words`)
/// asks: a question of the day («какой день», "what day", "which weekday") with a count of
/// days or weeks said after "in", «через», "after", "from" or before "ago", «назад» ("in
/// three days", «через две недели», "a week ago"); the weekday it counts from is the one
/// said, else today.
fn days_after(text: &str, words: &[String]) -> Option<CalendarQuestion> {
    let has = |w: &str| words.iter().any(|x| x == w);
    let asks_day = (has("what") || has("which") || has("какой") || has("какое"))
        && (has("day") || has("weekday") || has("день") || has("date") || has("число"));
    let counted = has("in")
        || has("after")
        || has("from")
        || has("later")
        || has("через")
        || has("спустя")
        || has("после");
    let back = has("ago") || has("назад") || has("before");
    if !asks_day || !(counted || back) {
        return None;
    }
    let said = super::numbers::numbers_said(text);
    let lower = lower_words(text);
    let week =
        |w: Option<&String>| w.is_some_and(|w| w.starts_with("week") || w.starts_with("недел"));
    let mut days: Option<i64> = None;
    for n in said
        .iter()
        .filter(|n| !n.ordinal && n.value.fract() == 0.0 && n.value > 0.0)
    {
        let value = n.value as i64;
        let count = match n.unit {
            Some(super::numbers::TimeUnit::Days) => value,
            // «пять дней»: «день» is no unit of the reader («в час дня» is a time).
            None if lower
                .get(n.end)
                .is_some_and(|w| w == "день" || w.starts_with("дн")) =>
            {
                value
            }
            None if week(lower.get(n.end)) => value * 7,
            _ => continue,
        };
        if days.replace(count).is_some() {
            return None;
        }
    }
    // "in a week", «через неделю».
    let days = days.or_else(|| {
        lower
            .iter()
            .any(|w| matches!(w.as_str(), "week" | "неделю"))
            .then_some(7)
    })?;
    let mut weekdays = words.iter().filter_map(|w| weekday_of(w));
    let from = weekdays.next();
    if weekdays.next().is_some() {
        return None;
    }
    let days = if back { -days } else { days };
    Some(CalendarQuestion::DaysAfter(from, days))
}

/// A weekday's name (0: Monday): nominative, or in Russian the genitive («субботы») too.
fn weekday_name(lang: Lang, day: u32, genitive: bool) -> &'static str {
    const RU_GENITIVE: [&str; 7] = [
        "понедельника",
        "вторника",
        "среды",
        "четверга",
        "пятницы",
        "субботы",
        "воскресенья",
    ];
    let i = (day % 7) as usize;
    match (lang, genitive) {
        (Lang::Ru, false) => RU_WEEKDAYS[i],
        (Lang::Ru, true) => RU_GENITIVE[i],
        (Lang::En, _) => EN_WEEKDAYS[i],
    }
}

/// The days of `month` in `year`.
fn days_in(year: i32, month: u32) -> u32 {
    let (y, m) = if month == 12 {
        (year + 1, 1)
    } else {
        (year, month + 1)
    };
    NaiveDate::from_ymd_opt(y, m, 1)
        .and_then(|next| next.pred_opt())
        .map_or(30, |last| last.day())
}

/// The next coming of `(month, day)` from `today` (today itself counts), or in `year` when
/// given; `None` for a date no year has (February 30).
fn coming(today: NaiveDate, month: u32, day: u32, year: Option<i32>) -> Option<NaiveDate> {
    if let Some(y) = year {
        return NaiveDate::from_ymd_opt(y, month, day);
    }
    let this = NaiveDate::from_ymd_opt(today.year(), month, day);
    match this {
        Some(d) if d >= today => Some(d),
        _ => (1..=8).find_map(|k| NaiveDate::from_ymd_opt(today.year() + k, month, day)),
    }
}

/// The month and day a [`Day`] falls on (Christmas: December 25).
fn month_day(day: Day) -> (u32, u32) {
    match day {
        Day::NewYear => (1, 1),
        Day::Christmas => (12, 25),
        Day::Date(m, d) => (m, d),
    }
}

/// A count of days with its noun: «293 дня», "293 days".
fn days_said(lang: Lang, n: i64) -> String {
    match lang {
        Lang::Ru => {
            let noun = match (n % 10, n % 100) {
                (_, 11..=14) => "дней",
                (1, _) => "день",
                (2..=4, _) => "дня",
                _ => "дней",
            };
            format!("{n} {noun}")
        }
        Lang::En if n == 1 => "1 day".to_string(),
        Lang::En => format!("{n} days"),
    }
}

/// `text` with its first letter in upper case.
fn capital(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
}

/// The name of a month in the nominative («ноябрь», "November").
fn month_name(lang: Lang, month: u32) -> &'static str {
    const RU: [&str; 12] = [
        "январь",
        "февраль",
        "март",
        "апрель",
        "май",
        "июнь",
        "июль",
        "август",
        "сентябрь",
        "октябрь",
        "ноябрь",
        "декабрь",
    ];
    const EN: [&str; 12] = [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ];
    let i = (month.clamp(1, 12) - 1) as usize;
    match lang {
        Lang::Ru => RU[i],
        Lang::En => EN[i],
    }
}

/// The month (1–12) `offset` months from `month`.
fn month_plus(month: u32, offset: i32) -> u32 {
    ((month as i32 - 1 + offset).rem_euclid(12) + 1) as u32
}

/// A date as said with its weekday: («пятница», «25 декабря»), ("Friday", "December 25").
fn said_date(lang: Lang, date: NaiveDate, now: &Timestamp) -> (String, String) {
    let at = date
        .and_hms_opt(12, 0, 0)
        .and_then(|d| d.and_local_timezone(now.timezone()).single())
        .unwrap_or(*now);
    day_and_date(lang, &at)
}

/// The answer to `question` asked at `now`, in `lang`; `None` when a date it names does not
/// exist (February 30).
pub(crate) fn say(lang: Lang, now: &Timestamp, question: CalendarQuestion) -> Option<String> {
    let today = now.date_naive();
    let year = today.year();
    let ru = lang == Lang::Ru;
    Some(match question {
        CalendarQuestion::DaysAfter(Some(from), days) => {
            let to = (i64::from(from) + days).rem_euclid(7) as u32;
            let n = days_said(lang, days.abs());
            let (from_name, to_name) = (
                weekday_name(lang, from, true),
                weekday_name(lang, to, false),
            );
            match (lang, days >= 0) {
                (Lang::Ru, true) => format!("Через {n} после {from_name} — {to_name}."),
                (Lang::Ru, false) => format!("За {n} до {from_name} — {to_name}."),
                (Lang::En, true) => format!("{} after {from_name} is {to_name}.", capital(&n)),
                (Lang::En, false) => format!("{} before {from_name} is {to_name}.", capital(&n)),
            }
        }
        CalendarQuestion::DaysAfter(None, days) => {
            let date = today.checked_add_signed(chrono::Duration::days(days))?;
            let (weekday, said) = said_date(lang, date, now);
            let n = days_said(lang, days.abs());
            match (lang, days >= 0) {
                (Lang::Ru, true) => format!("Через {n} будет {weekday}, {said}."),
                (Lang::Ru, false) => format!("{n} назад — {weekday}, {said}."),
                (Lang::En, true) => format!("In {n} it will be {weekday}, {said}."),
                (Lang::En, false) => format!("{} ago it was {weekday}, {said}.", capital(&n)),
            }
        }
        CalendarQuestion::MonthDays(m) => {
            let n = days_in(year, m);
            let leap = m == 2 && n == 29;
            match (lang, leap, m == 2) {
                (Lang::Ru, true, _) => format!(
                    "В феврале {year} года {}: год високосный.",
                    days_said(lang, 29)
                ),
                (Lang::Ru, false, true) => format!(
                    "В феврале {year} года {}, в високосный год — 29.",
                    days_said(lang, 28)
                ),
                (Lang::Ru, ..) => format!("В {} {}.", month_form(m, 1), days_said(lang, n.into())),
                (Lang::En, true, _) => format!("February {year} has 29 days: it's a leap year."),
                (Lang::En, false, true) => {
                    format!("February {year} has 28 days, 29 in a leap year.")
                }
                (Lang::En, ..) => format!("{} has {n} days.", month_name(lang, m)),
            }
        }
        CalendarQuestion::LeapYearDays if ru => "В високосном году 366 дней.".to_string(),
        CalendarQuestion::LeapYearDays => "A leap year has 366 days.".to_string(),
        CalendarQuestion::YearWeeks if ru => "В году 52 недели и ещё один-два дня.".to_string(),
        CalendarQuestion::YearWeeks => "A year has 52 weeks and a day or two.".to_string(),
        CalendarQuestion::DaysUntil(day) => {
            let (m, d) = month_day(day);
            // In Russian, Christmas is the Orthodox one, January 7.
            let (m, d) = if ru && day == Day::Christmas {
                (1, 7)
            } else {
                (m, d)
            };
            let date = coming(today, m, d, None)?;
            let n = (date - today).num_days();
            let what = match (lang, day) {
                (Lang::Ru, Day::NewYear) => "Нового года".to_string(),
                (Lang::Ru, Day::Christmas) => "Рождества".to_string(),
                (Lang::Ru, Day::Date(..)) => said_date(lang, date, now).1,
                (Lang::En, Day::NewYear) => "New Year".to_string(),
                (Lang::En, Day::Christmas) => "Christmas".to_string(),
                (Lang::En, Day::Date(..)) => said_date(lang, date, now).1,
            };
            match (lang, n) {
                (Lang::Ru, 0) => format!("Это сегодня: {what} — сегодня."),
                (Lang::Ru, _) => format!("До {what} {}.", days_said(lang, n)),
                (Lang::En, 0) => format!("It's today: {what} is today."),
                (Lang::En, _) => format!("There are {} until {what}.", days_said(lang, n)),
            }
        }
        CalendarQuestion::DateOf(day, next_year) => {
            let (m, d) = month_day(day);
            let year_of = next_year.then_some(year + 1);
            let date = coming(today, m, d, year_of)?;
            let (weekday, said) = said_date(lang, date, now);
            let y = date.year();
            match (lang, day) {
                (Lang::Ru, Day::Christmas) => {
                    let orthodox = coming(today, 1, 7, year_of)?;
                    let (o_weekday, o_said) = said_date(lang, orthodox, now);
                    format!(
                        "Православное Рождество — {o_said}, {o_weekday}; католическое — {said}, {weekday}."
                    )
                }
                (Lang::Ru, Day::NewYear) => format!("Новый год, 1 января {y} года, — {weekday}."),
                (Lang::Ru, Day::Date(..)) => format!("{said} {y} года — {weekday}."),
                (Lang::En, Day::Christmas) => format!("Christmas is on {weekday}, {said}, {y}."),
                (Lang::En, Day::NewYear) => {
                    format!("New Year's Day, January 1, {y}, is a {weekday}.")
                }
                (Lang::En, Day::Date(..)) => format!("{said}, {y}, is a {weekday}."),
            }
        }
        CalendarQuestion::MonthNext(m, offset) => {
            let next = month_plus(m, offset);
            match (lang, offset > 0) {
                (Lang::Ru, true) => format!(
                    "После {} идёт {}.",
                    month_form(m, 0),
                    month_name(lang, next)
                ),
                (Lang::Ru, false) => format!(
                    "Перед {} идёт {}.",
                    month_form(m, 2),
                    month_name(lang, next)
                ),
                (Lang::En, true) => format!(
                    "{} comes after {}.",
                    month_name(lang, next),
                    month_name(lang, m)
                ),
                (Lang::En, false) => format!(
                    "{} comes before {}.",
                    month_name(lang, next),
                    month_name(lang, m)
                ),
            }
        }
    })
}

/// A month's Russian name in a case: 0 the genitive («после октября»), 1 the prepositional
/// («в сентябре»), 2 the instrumental («перед январём»).
fn month_form(month: u32, case: usize) -> &'static str {
    const FORMS: [[&str; 12]; 3] = [
        [
            "января",
            "февраля",
            "марта",
            "апреля",
            "мая",
            "июня",
            "июля",
            "августа",
            "сентября",
            "октября",
            "ноября",
            "декабря",
        ],
        [
            "январе",
            "феврале",
            "марте",
            "апреле",
            "мае",
            "июне",
            "июле",
            "августе",
            "сентябре",
            "октябре",
            "ноябре",
            "декабре",
        ],
        [
            "январём",
            "февралём",
            "мартом",
            "апрелем",
            "маем",
            "июнем",
            "июлем",
            "августом",
            "сентябрём",
            "октябрём",
            "ноябрём",
            "декабрём",
        ],
    ];
    FORMS[case.min(2)][(month.clamp(1, 12) - 1) as usize]
}

#[cfg(test)]
mod tests {
    use super::*;
    use CalendarQuestion::*;

    fn at(text: &str) -> Timestamp {
        chrono::DateTime::parse_from_rfc3339(text).expect("a test timestamp")
    }

    #[test]
    fn calendar_questions_are_told_from_other_requests() {
        for (text, q) in [
            ("Сколько дней в феврале?", MonthDays(2)),
            ("How many days does April have?", MonthDays(4)),
            ("How many days are in a leap year?", LeapYearDays),
            ("Сколько недель в году?", YearWeeks),
            ("Сколько дней до Нового года?", DaysUntil(Day::NewYear)),
            ("How many days until Christmas?", DaysUntil(Day::Christmas)),
            (
                "how many days till the 1st of june",
                DaysUntil(Day::Date(6, 1)),
            ),
            ("Какого числа Рождество?", DateOf(Day::Christmas, false)),
            ("What day is Christmas?", DateOf(Day::Christmas, false)),
            (
                "Какой день недели будет первого сентября?",
                DateOf(Day::Date(9, 1), false),
            ),
            (
                "What day of the week will New Year's Day be next year?",
                DateOf(Day::NewYear, true),
            ),
            (
                "What day is December twenty fifth?",
                DateOf(Day::Date(12, 25), false),
            ),
            ("Какой месяц идёт после октября?", MonthNext(10, 1)),
            ("Which month comes before March?", MonthNext(3, -1)),
            (
                "Suppose it's Friday today: which day will it be in four days?",
                DaysAfter(Some(4), 4),
            ),
            (
                "Если сегодня вторник, какой день будет через пять дней?",
                DaysAfter(Some(1), 5),
            ),
            (
                "Какой день недели будет через две недели?",
                DaysAfter(None, 14),
            ),
            ("What day was it ten days ago?", DaysAfter(None, -10)),
            ("What's the date in a week?", DaysAfter(None, 7)),
            (
                "What day is two days before Wednesday?",
                DaysAfter(Some(2), -2),
            ),
        ] {
            assert_eq!(calendar_question(text), Some(q), "{text}");
        }
        for text in [
            "Сколько дней осталось до выходных?",
            "Какое сегодня число?",
            "What's the date today?",
            "Запиши: первого сентября в школу",
            "How many days are there in a week?",
            "Remind me about the party on the fifth of May and buy a cake for it",
            "What day is it in Paris?",
            "Which day is the meeting after lunch?",
            "Среди дней недели какой самый длинный?",
        ] {
            assert_eq!(calendar_question(text), None, "{text}");
        }
    }

    #[test]
    fn answers_are_computed_from_the_clock() {
        let now = at("2026-03-14T09:15:00+00:00");
        let en = |q| say(Lang::En, &now, q).unwrap_or_default();
        let ru = |q| say(Lang::Ru, &now, q).unwrap_or_default();
        assert_eq!(
            en(MonthDays(2)),
            "February 2026 has 28 days, 29 in a leap year."
        );
        assert_eq!(
            say(Lang::Ru, &at("2028-01-10T10:00:00+03:00"), MonthDays(2)).unwrap_or_default(),
            "В феврале 2028 года 29 дней: год високосный."
        );
        assert_eq!(ru(MonthDays(9)), "В сентябре 30 дней.");
        assert_eq!(
            en(DaysUntil(Day::NewYear)),
            "There are 293 days until New Year."
        );
        assert_eq!(ru(DaysUntil(Day::NewYear)), "До Нового года 293 дня.");
        assert_eq!(
            en(DateOf(Day::Christmas, false)),
            "Christmas is on Friday, December 25, 2026."
        );
        assert_eq!(
            en(DateOf(Day::NewYear, true)),
            "New Year's Day, January 1, 2027, is a Friday."
        );
        assert_eq!(
            ru(DateOf(Day::Date(9, 1), false)),
            "1 сентября 2026 года — вторник."
        );
        assert_eq!(en(MonthNext(10, 1)), "November comes after October.");
        assert_eq!(ru(MonthNext(1, -1)), "Перед январём идёт декабрь.");
        assert_eq!(ru(MonthNext(10, 1)), "После октября идёт ноябрь.");
        assert_eq!(say(Lang::En, &now, DaysUntil(Day::Date(2, 30))), None);
        assert_eq!(
            en(DaysUntil(Day::Date(3, 14))),
            "It's today: March 14 is today."
        );
        // Counted from a weekday said (March 14, 2026 is a Saturday: unused then).
        assert_eq!(en(DaysAfter(Some(4), 4)), "4 days after Friday is Tuesday.");
        assert_eq!(
            en(DaysAfter(Some(2), -2)),
            "2 days before Wednesday is Monday."
        );
        assert_eq!(
            ru(DaysAfter(Some(1), 5)),
            "Через 5 дней после вторника — воскресенье."
        );
        // Counted from today, the date said too.
        assert_eq!(
            ru(DaysAfter(None, 14)),
            "Через 14 дней будет суббота, 28 марта."
        );
        assert_eq!(
            en(DaysAfter(None, -10)),
            "10 days ago it was Wednesday, March 4."
        );
    }
}
