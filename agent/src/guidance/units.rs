//! Questions of how many of one unit of time make another («Сколько минут в часе?», "How
//! many days are there in a week?", «А сколько секунд в двух минутах?»), computed, never
//! guessed ([`super::Technique::UnitQuestions`]): what a calculator knows is not left to a
//! tiny model. Only whole answers are given; anything else (a month in days, a year in
//! weeks) is not such a question.

use super::arithmetic::number_word;
use crate::messages::Lang;

/// A unit of time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unit {
    Second,
    Minute,
    Hour,
    Day,
    Week,
    Month,
    Year,
}

use Unit::*;

/// The words of each unit, either language, in any case and number.
const UNIT_WORDS: &[(Unit, &[&str])] = &[
    (
        Second,
        &[
            "секунда",
            "секунды",
            "секунд",
            "секунду",
            "секунде",
            "секундах",
            "second",
            "seconds",
        ],
    ),
    (
        Minute,
        &[
            "минута",
            "минуты",
            "минут",
            "минуту",
            "минуте",
            "минутах",
            "minute",
            "minutes",
        ],
    ),
    (
        Hour,
        &[
            "час",
            "часа",
            "часов",
            "часе",
            "часах",
            "часу",
            "hour",
            "hours",
        ],
    ),
    (
        Day,
        &[
            "день",
            "дня",
            "дней",
            "дне",
            "днях",
            "сутки",
            "суток",
            "сутках",
            "day",
            "days",
        ],
    ),
    (
        Week,
        &[
            "неделя",
            "недели",
            "недель",
            "неделе",
            "неделях",
            "неделю",
            "week",
            "weeks",
        ],
    ),
    (
        Month,
        &[
            "месяц",
            "месяца",
            "месяцев",
            "месяце",
            "месяцах",
            "month",
            "months",
        ],
    ),
    (
        Year,
        &["год", "года", "лет", "году", "годах", "year", "years"],
    ),
];

/// Counts said in the oblique case («в двух часах»), beside the arithmetic's number words.
const OBLIQUE_NUMBERS: &[(&str, f64)] = &[
    ("одном", 1.0),
    ("одной", 1.0),
    ("одних", 1.0),
    ("двух", 2.0),
    ("трёх", 3.0),
    ("трех", 3.0),
    ("четырёх", 4.0),
    ("четырех", 4.0),
    ("пяти", 5.0),
    ("шести", 6.0),
    ("семи", 7.0),
    ("восьми", 8.0),
    ("девяти", 9.0),
    ("десяти", 10.0),
    ("двенадцати", 12.0),
    ("a", 1.0),
    ("an", 1.0),
];

/// Words that ask how many.
const ASKING: &[&str] = &["сколько", "many"];

/// The words that say which unit holds the other: «в», "in".
const INSIDE: &[&str] = &["в", "во", "in"];

/// The other words such a question may have (question and filler words, both languages).
const FILLER: &[&str] = &[
    "а",
    "и",
    "ну",
    "так",
    "всего",
    "будет",
    "есть",
    "бывает",
    "это",
    "скажи",
    "подскажи",
    "мне",
    "пожалуйста",
    "целых",
    "целом",
    "целой",
    "and",
    "so",
    "how",
    "are",
    "is",
    "there",
    "the",
    "does",
    "do",
    "have",
    "has",
    "tell",
    "me",
    "please",
    "one",
    "single",
    "whole",
];

impl Unit {
    fn of(word: &str) -> Option<Unit> {
        UNIT_WORDS
            .iter()
            .find(|(_, forms)| forms.contains(&word))
            .map(|(u, _)| *u)
    }

    /// The unit's length in seconds (a year: 365 days); `None` for a month (not fixed).
    fn seconds(self) -> Option<u64> {
        Some(match self {
            Second => 1,
            Minute => 60,
            Hour => 3_600,
            Day => 86_400,
            Week => 604_800,
            Month => return None,
            Year => 365 * 86_400,
        })
    }

    /// The unit's length in months (a month and a year only).
    fn months(self) -> Option<u64> {
        match self {
            Month => Some(1),
            Year => Some(12),
            _ => None,
        }
    }

    /// How `n` of the unit is said in `lang`: the Russian noun agreeing with the number.
    fn count(self, lang: Lang, n: u64) -> String {
        let (one, few, many, en) = match self {
            Second => ("секунда", "секунды", "секунд", "second"),
            Minute => ("минута", "минуты", "минут", "minute"),
            Hour => ("час", "часа", "часов", "hour"),
            Day => ("день", "дня", "дней", "day"),
            Week => ("неделя", "недели", "недель", "week"),
            Month => ("месяц", "месяца", "месяцев", "month"),
            Year => ("год", "года", "лет", "year"),
        };
        match lang {
            Lang::Ru => {
                let word = match (n % 10, n % 100) {
                    (_, 11..=14) => many,
                    (1, _) => one,
                    (2..=4, _) => few,
                    _ => many,
                };
                format!("{n} {word}")
            }
            Lang::En if n == 1 => format!("1 {en}"),
            Lang::En => format!("{n} {en}s"),
        }
    }

    /// Where the answer says the holding unit is: «в неделе», «в 2 часах», "in a week",
    /// "in 2 hours".
    fn inside(self, lang: Lang, n: u64) -> String {
        match lang {
            Lang::Ru if n == 1 => {
                let word = match self {
                    Second => "секунде",
                    Minute => "минуте",
                    Hour => "часе",
                    Day => "сутках",
                    Week => "неделе",
                    Month => "месяце",
                    Year => "году",
                };
                format!("В {word}")
            }
            Lang::Ru => {
                let word = match self {
                    Second => "секундах",
                    Minute => "минутах",
                    Hour => "часах",
                    Day => "днях",
                    Week => "неделях",
                    Month => "месяцах",
                    Year => "годах",
                };
                format!("В {n} {word}")
            }
            Lang::En if n == 1 => {
                let article = if self == Hour { "an" } else { "a" };
                format!(
                    "in {article} {}",
                    self.count(lang, 1).trim_start_matches("1 ")
                )
            }
            Lang::En => format!("in {}", self.count(lang, n)),
        }
    }
}

/// A question of how many `asked` units make `count` of `holder`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct UnitQuestion {
    asked: Unit,
    holder: Unit,
    count: u64,
}

impl UnitQuestion {
    /// The whole answer, if there is one.
    fn answer(&self) -> Option<u64> {
        let ratio = |big: u64, small: u64| {
            let total = big.checked_mul(self.count)?;
            (small > 0 && total % small == 0).then(|| total / small)
        };
        match (self.holder.seconds(), self.asked.seconds()) {
            (Some(big), Some(small)) => ratio(big, small),
            _ => ratio(self.holder.months()?, self.asked.months()?),
        }
    }
}

/// The words of a question of units (lower case, apostrophes kept: "what's").
fn question_words(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// The count a word says, in digits or words («трёх», "two"): `Some(None)` for a number
/// that counts no whole units (zero, a fraction), `None` for no number.
fn count_said(word: &str) -> Option<Option<u64>> {
    let n = OBLIQUE_NUMBERS
        .iter()
        .find(|(x, _)| *x == word)
        .map(|(_, n)| *n)
        .or_else(|| number_word(word))
        .or_else(|| word.parse::<u32>().ok().map(f64::from))?;
    Some((n >= 1.0 && n.fract() == 0.0).then_some(n as u64))
}

/// The question of units of time `text` asks, if it asks one with a whole answer and
/// nothing else: «Сколько минут в часе?», "How many hours are in two days?".
pub(crate) fn unit_question(text: &str) -> Option<UnitQuestion> {
    let words = question_words(text);
    if words.is_empty() || words.len() > 12 {
        return None;
    }
    let mut asked: Option<Unit> = None;
    let mut holder: Option<(Unit, u64)> = None;
    let mut asking = false;
    let mut inside = false;
    let mut count: Option<u64> = None;
    for w in &words {
        let w = w.as_str();
        if let Some(unit) = Unit::of(w) {
            if asking && asked.is_none() && !inside {
                asked = Some(unit);
            } else if holder.is_none() {
                holder = Some((unit, count.take().unwrap_or(1)));
            } else {
                return None;
            }
            inside = false;
        } else if ASKING.contains(&w) {
            asking = true;
        } else if INSIDE.contains(&w) {
            inside = true;
        } else if let Some(n) = count_said(w) {
            // Only a count of the holding unit; "one" in "how many … in one day".
            if count.replace(n?).is_some() {
                return None;
            }
        } else if !FILLER.contains(&w) {
            return None;
        }
    }
    // "How many seconds does a minute have": the unit after the asking word is asked.
    let (asked, (holder, n)) = (asked?, holder?);
    if count.is_some() || asked == holder {
        return None;
    }
    let question = UnitQuestion {
        asked,
        holder,
        count: n,
    };
    question.answer().filter(|a| *a > 0).map(|_| question)
}

/// The question of units of time that `text` asks going on with `previous`, the question
/// before it, when that one was a question of units of time and this one names only
/// another holder: "And in two weeks?" after "How many hours are in a week?", «А в
/// сутках?» after «Сколько секунд в часе?».
pub(crate) fn unit_follow_up(previous: &str, text: &str) -> Option<UnitQuestion> {
    let before = unit_question(previous)?;
    let words = question_words(text);
    if words.is_empty() || words.len() > 6 {
        return None;
    }
    let mut holder: Option<Unit> = None;
    let mut count: Option<u64> = None;
    for w in &words {
        let w = w.as_str();
        if let Some(unit) = Unit::of(w) {
            if holder.replace(unit).is_some() {
                return None;
            }
        } else if let Some(n) = count_said(w) {
            if count.replace(n?).is_some() {
                return None;
            }
        } else if !FILLER.contains(&w) && !INSIDE.contains(&w) && !FOLLOW_UP.contains(&w) {
            return None;
        }
    }
    let question = UnitQuestion {
        asked: before.asked,
        holder: holder?,
        count: count.unwrap_or(1),
    };
    (question.holder != question.asked && question.answer().is_some_and(|a| a > 0))
        .then_some(question)
}

/// Words a question going on with the one before may say besides a holder: "what about",
/// "for", «а за».
const FOLLOW_UP: &[&str] = &["what", "about", "for", "за", "насчёт", "насчет", "про"];

/// The answer to `question` in `lang`: «В неделе 7 дней.», "There are 120 minutes in 2
/// hours." A year counts 365 days, and says so where that is the question.
pub(crate) fn say(lang: Lang, question: &UnitQuestion) -> String {
    let answer = question.answer().unwrap_or(0);
    let (asked, holder, n) = (question.asked, question.holder, question.count);
    let leap = holder == Year && n == 1 && asked == Day;
    match lang {
        Lang::Ru => {
            let tail = if leap {
                ", в високосном — 366"
            } else {
                ""
            };
            format!(
                "{} {}{tail}.",
                holder.inside(lang, n),
                asked.count(lang, answer)
            )
        }
        Lang::En => {
            let tail = if leap { ", 366 in a leap year" } else { "" };
            format!(
                "There are {} {}{tail}.",
                asked.count(lang, answer),
                holder.inside(lang, n)
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn said(lang: Lang, text: &str) -> Option<String> {
        unit_question(text).map(|q| say(lang, &q))
    }

    #[test]
    fn questions_of_units_of_time_are_computed() {
        let ru = |t: &str| said(Lang::Ru, t);
        let en = |t: &str| said(Lang::En, t);
        assert_eq!(
            ru("Сколько дней в неделе?").as_deref(),
            Some("В неделе 7 дней.")
        );
        assert_eq!(
            ru("А сколько минут в часе?").as_deref(),
            Some("В часе 60 минут.")
        );
        assert_eq!(
            ru("Сколько часов в сутках").as_deref(),
            Some("В сутках 24 часа.")
        );
        assert_eq!(
            ru("Сколько секунд в двух минутах?").as_deref(),
            Some("В 2 минутах 120 секунд.")
        );
        assert_eq!(
            ru("В году сколько месяцев?").as_deref(),
            Some("В году 12 месяцев.")
        );
        assert_eq!(
            ru("Сколько дней в году?").as_deref(),
            Some("В году 365 дней, в високосном — 366.")
        );
        assert_eq!(
            ru("сколько минут в одних сутках").as_deref(),
            Some("В сутках 1440 минут.")
        );
        assert_eq!(
            en("How many days are there in a week?").as_deref(),
            Some("There are 7 days in a week.")
        );
        assert_eq!(
            en("And how many hours in a day?").as_deref(),
            Some("There are 24 hours in a day.")
        );
        assert_eq!(
            en("How many minutes are in an hour").as_deref(),
            Some("There are 60 minutes in an hour.")
        );
        assert_eq!(
            en("how many seconds in 3 minutes").as_deref(),
            Some("There are 180 seconds in 3 minutes.")
        );
        assert_eq!(
            en("How many seconds does a minute have?").as_deref(),
            Some("There are 60 seconds in a minute.")
        );
        assert_eq!(
            en("How many months in a year?").as_deref(),
            Some("There are 12 months in a year.")
        );
    }

    #[test]
    fn anything_else_is_no_such_question() {
        for text in [
            // No whole answer, or no fixed one.
            "Сколько дней в месяце?",
            "How many weeks are in a year?",
            "Сколько часов в 90 минутах?",
            // Not a question of units, or more than one.
            "Сколько сейчас времени?",
            "Поставь таймер на пять минут",
            "Сколько минут до полуночи?",
            "Запиши: через час позвонить маме",
            "How many minutes in an hour and a day?",
            "Сколько дней в неделе и часов в сутках?",
            "Сколько минут в минуте?",
            "What time is it?",
            "",
        ] {
            assert_eq!(unit_question(text), None, "{text}");
        }
    }

    #[test]
    fn a_question_going_on_with_the_last_takes_its_asked_unit() {
        let follow =
            |before: &str, text: &str| unit_follow_up(before, text).map(|q| say(Lang::En, &q));
        assert_eq!(
            follow("How many minutes are in an hour?", "And in three hours?").as_deref(),
            Some("There are 180 minutes in 3 hours.")
        );
        assert_eq!(
            unit_follow_up("Сколько минут в часе?", "А в сутках?").map(|q| say(Lang::Ru, &q)),
            Some("В сутках 1440 минут.".to_string())
        );
        // Only after a question of units, and only a holder said.
        assert_eq!(follow("What time is it?", "And in two weeks?"), None);
        assert_eq!(
            follow("How many minutes are in an hour?", "And set a timer"),
            None
        );
        assert_eq!(
            follow("How many minutes are in an hour?", "And in minutes?"),
            None
        );
    }

    #[test]
    fn russian_nouns_agree_with_the_number() {
        assert_eq!(Hour.count(Lang::Ru, 1), "1 час");
        assert_eq!(Hour.count(Lang::Ru, 24), "24 часа");
        assert_eq!(Hour.count(Lang::Ru, 12), "12 часов");
        assert_eq!(Day.count(Lang::Ru, 21), "21 день");
        assert_eq!(Minute.count(Lang::Ru, 1440), "1440 минут");
        assert_eq!(Week.count(Lang::En, 1), "1 week");
        assert_eq!(Week.count(Lang::En, 2), "2 weeks");
    }
}
