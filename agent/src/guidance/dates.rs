//! Questions of the day before or after today («А завтра какой день?», "What date was it
//! yesterday?"), answered from the agent's clock ([`crate::Technique::DayQuestions`]): what
//! the clock knows is computed, never guessed. Today's date stays the clock tool's.

use super::words::lower_words;
use crate::clock::Timestamp;
use crate::messages::{Lang, Texts};
use crate::time_text::day_and_date;

/// Days from today each relative-day word means (either language).
const RELATIVE_DAYS: &[(&str, i64)] = &[
    ("завтра", 1),
    ("послезавтра", 2),
    ("вчера", -1),
    ("позавчера", -2),
    ("tomorrow", 1),
    ("yesterday", -1),
];

/// Words that ask for a day or a date.
const DAY_WORDS: &[&str] = &[
    "день",
    "дня",
    "число",
    "числа",
    "дата",
    "дату",
    "недели",
    "day",
    "date",
    "weekday",
];

/// The other words such a question may have (question and filler words, both languages).
const FILLER: &[&str] = &[
    "а",
    "и",
    "ну",
    "так",
    "тогда",
    "какой",
    "какое",
    "какая",
    "какого",
    "будет",
    "был",
    "было",
    "была",
    "это",
    "у",
    "нас",
    "же",
    "скажи",
    "подскажи",
    "мне",
    "пожалуйста",
    "and",
    "so",
    "then",
    "what",
    "which",
    "s",
    "is",
    "was",
    "will",
    "it",
    "be",
    "the",
    "of",
    "week",
    "tell",
    "me",
    "please",
    "after",
    "before",
    "going",
    "to",
];

/// Days from today a question of the day or date asks about («А завтра какой день недели
/// будет?» → 1, "What was the date yesterday?" → −1), when it asks nothing else; `None`
/// for anything else, and for today (the clock tool answers that).
pub(crate) fn day_question(text: &str) -> Option<i64> {
    let words = lower_words(text);
    if words.is_empty() || words.len() > 10 {
        return None;
    }
    let mut offset: Option<i64> = None;
    let mut asks_day = false;
    for w in &words {
        if let Some((_, days)) = RELATIVE_DAYS.iter().find(|(r, _)| r == w) {
            if offset.is_some() {
                return None;
            }
            offset = Some(*days);
        } else if DAY_WORDS.contains(&w.as_str()) {
            asks_day = true;
        } else if !FILLER.contains(&w.as_str()) {
            return None;
        }
    }
    let has = |w: &str| words.iter().any(|x| x == w);
    let offset = match offset? {
        // "the day after tomorrow", "the day before yesterday".
        1 if has("after") => 2,
        -1 if has("before") => -2,
        d => d,
    };
    asks_day.then_some(offset)
}

/// The answer to a question of the day `offset` days from `now`: «Завтра — воскресенье,
/// 23 августа.», "Tomorrow is Sunday, August 23."
pub(crate) fn say_day(lang: Lang, now: &Timestamp, offset: i64) -> String {
    let day = now
        .checked_add_signed(chrono::Duration::days(offset))
        .unwrap_or(*now);
    let (weekday, date) = day_and_date(lang, &day);
    Texts::new(lang).day_answer(offset, &weekday, &date)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn questions_of_another_day_and_nothing_else() {
        assert_eq!(day_question("А завтра какой день недели будет?"), Some(1));
        assert_eq!(day_question("Какое число было вчера?"), Some(-1));
        assert_eq!(day_question("Послезавтра какое число?"), Some(2));
        assert_eq!(day_question("And what day will it be tomorrow?"), Some(1));
        assert_eq!(day_question("What was the date yesterday?"), Some(-1));
        assert_eq!(day_question("What day is the day after tomorrow?"), Some(2));
        // Today is the clock tool's; other requests that name a day are no such question.
        assert_eq!(day_question("Какое сегодня число?"), None);
        assert_eq!(day_question("Запиши: завтра к девяти в офис"), None);
        assert_eq!(day_question("Напомни завтра про день рождения"), None);
        assert_eq!(day_question("Tomorrow"), None);
        assert_eq!(day_question("What's the weather tomorrow?"), None);
        assert_eq!(day_question("завтра вчера день"), None);
    }

    #[test]
    fn the_day_is_computed_from_the_clock() {
        let now = chrono::DateTime::parse_from_rfc3339("2026-08-22T10:00:00+03:00").unwrap();
        assert_eq!(
            say_day(Lang::Ru, &now, 1),
            "Завтра — воскресенье, 23 августа."
        );
        assert_eq!(say_day(Lang::Ru, &now, -1), "Вчера — пятница, 21 августа.");
        assert_eq!(say_day(Lang::En, &now, 1), "Tomorrow is Sunday, August 23.");
        assert_eq!(
            say_day(Lang::En, &now, -2),
            "The day before yesterday was Thursday, August 20."
        );
        let new_year = chrono::DateTime::parse_from_rfc3339("2026-12-31T23:00:00+03:00").unwrap();
        assert_eq!(
            say_day(Lang::En, &new_year, 1),
            "Tomorrow is Friday, January 1."
        );
    }
}
