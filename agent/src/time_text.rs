//! How the agent says a time: the reply of `get_current_time`, in the agent's language.

use crate::clock::{iso8601, Timestamp};
use crate::messages::Lang;

/// The reply of `get_current_time`: the time as it is said first (`10:00, суббота,
/// 22 августа 2026`), then the exact timestamp in parentheses.
pub(crate) fn current_time(lang: Lang, t: &Timestamp) -> String {
    use chrono::{Datelike, Timelike};
    let (day, date) = day_and_date(lang, t);
    let exact = iso8601(t);
    let (h, m, y) = (t.hour(), t.minute(), t.year());
    match lang {
        Lang::Ru => format!("{h:02}:{m:02}, {day}, {date} {y} ({exact})"),
        Lang::En => format!("{h:02}:{m:02}, {day}, {date}, {y} ({exact})"),
    }
}

/// The days of the week in Russian, Monday first (nominative).
pub(crate) const RU_WEEKDAYS: [&str; 7] = [
    "понедельник",
    "вторник",
    "среда",
    "четверг",
    "пятница",
    "суббота",
    "воскресенье",
];

/// The days of the week in English, Monday first.
pub(crate) const EN_WEEKDAYS: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];

/// The day of the week and the date without the year, as said: (`суббота`, `22 августа`),
/// (`Saturday`, `August 22`).
pub(crate) fn day_and_date(lang: Lang, t: &Timestamp) -> (String, String) {
    use chrono::Datelike;
    let (days, months): (&[&str; 7], &[&str; 12]) = match lang {
        Lang::Ru => (
            &RU_WEEKDAYS,
            &[
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
        ),
        Lang::En => (
            &EN_WEEKDAYS,
            &[
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
            ],
        ),
    };
    let day = days[t.weekday().num_days_from_monday() as usize];
    let month = months[t.month0() as usize];
    let d = t.day();
    let date = match lang {
        Lang::Ru => format!("{d} {month}"),
        Lang::En => format!("{month} {d}"),
    };
    (day.to_string(), date)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_time_is_said_first_then_exact() {
        let t = chrono::DateTime::parse_from_rfc3339("2026-08-22T10:05:00+03:00").unwrap();
        assert_eq!(
            current_time(Lang::Ru, &t),
            "10:05, суббота, 22 августа 2026 (2026-08-22T10:05:00+03:00)"
        );
        assert_eq!(
            current_time(Lang::En, &t),
            "10:05, Saturday, August 22, 2026 (2026-08-22T10:05:00+03:00)"
        );
    }
}
