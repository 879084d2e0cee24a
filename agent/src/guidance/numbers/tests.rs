//! Tests of the numbers a text says.

use super::super::words::lower_words;
use super::TimeUnit::{Hours, Minutes, Seconds};
use super::*;

/// The numbers of `text` as (value, ordinal, unit).
fn said(text: &str) -> Vec<(f64, bool, Option<TimeUnit>)> {
    numbers_said(text)
        .into_iter()
        .map(|s| (s.value, s.ordinal, s.unit))
        .collect()
}

/// The one number `text` says, as a count.
fn count(text: &str) -> f64 {
    match said(text).as_slice() {
        [(v, false, None)] => *v,
        other => panic!("{text}: {other:?}"),
    }
}

/// The one ordinal `text` says.
fn ordinal(text: &str) -> f64 {
    match said(text).as_slice() {
        [(v, true, None)] => *v,
        other => panic!("{text}: {other:?}"),
    }
}

/// The one duration `text` says, in `unit`.
fn lasts(text: &str, unit: TimeUnit) -> f64 {
    match numbers_said(text).as_slice() {
        [s] if !s.ordinal => in_unit(s, unit).unwrap_or_else(|| panic!("{text}: no unit")),
        other => panic!("{text}: {other:?}"),
    }
}

#[test]
fn units_by_name_and_size() {
    assert_eq!(Hours.seconds(), 3600.0);
    let plain = Said {
        value: 5.0,
        ordinal: false,
        unit: None,
        start: 0,
        end: 1,
    };
    assert_eq!(in_unit(&plain, Minutes), None);
}

#[test]
fn the_brief_s_requests() {
    assert_eq!(
        lasts("can you time 8 minutes for the eggs please", Minutes),
        8.0
    );
    assert_eq!(lasts("ok so i need a timer 25 minutes", Minutes), 25.0);
    assert_eq!(
        lasts("засеки пожалуйста восемь минут для яиц", Minutes),
        8.0
    );
    assert_eq!(count("поставь отопление на двадцать два"), 22.0);
    assert_eq!(count("девятнадцать градусов"), 19.0);
    assert_eq!(count("сто двадцать пять"), 125.0);
    assert_eq!(count("one hundred and five"), 105.0);
    assert_eq!(lasts("half an hour", Minutes), 30.0);
    assert_eq!(lasts("полтора часа", Minutes), 90.0);
    // Days: «сутки» alone is one, after a number its count («день»/«дня» are not units:
    // «в час дня» is a clock time).
    assert_eq!(lasts("таймер на сутки", Minutes), 1440.0);
    assert_eq!(lasts("two days", Hours), 48.0);
    assert_eq!(lasts("на 3 суток", Hours), 72.0);
    assert_eq!(lasts("90 seconds", Minutes), 1.5);
    assert_eq!(ordinal("cancel the second timer"), 2.0);
    assert_eq!(count("set volume to thirty"), 30.0);
    assert_eq!(lasts("a timer for two hours", Minutes), 120.0);
    assert_eq!(lasts("на сорок пять минут", Minutes), 45.0);
    assert_eq!(ordinal("удали третью"), 3.0);
    assert_eq!(count("4512"), 4512.0);
    assert_eq!(count("nine thousand nine hundred ninety nine"), 9999.0);
    assert_eq!(count("девять тысяч девятьсот девяносто девять"), 9999.0);
}

#[test]
fn digits_decimals_groups_and_glued_units() {
    assert_eq!(count("1440"), 1440.0);
    assert_eq!(count("set it to 2.5"), 2.5);
    assert_eq!(count("поставь 2,5"), 2.5);
    assert_eq!(count("1 500 рублей"), 1500.0);
    assert_eq!(count("1,500 steps"), 1500.0);
    assert_eq!(count("10\u{a0}000 шагов"), 10000.0);
    assert_eq!(count("2 тысячи"), 2000.0);
    assert_eq!(count("5 thousand"), 5000.0);
    assert_eq!(lasts("timer 25min", Minutes), 25.0);
    assert_eq!(lasts("засеки 8мин", Minutes), 8.0);
    assert_eq!(lasts("2h", Minutes), 120.0);
    assert_eq!(lasts("2.5 hours", Minutes), 150.0);
    assert_eq!(lasts("на 2-х минут", Minutes), 2.0);
    // Two sentences, two numbers; a time of day is two numbers.
    assert_eq!(said("5. 30 minutes").len(), 2);
    assert_eq!(said("at 10:30").len(), 2);
    // Not numbers: a resolution, a file kind.
    assert!(said("4k mp3").is_empty());
}

#[test]
fn cardinal_words_compounds_genders_and_cases() {
    for (text, n) in [
        ("двадцать два", 22.0),
        ("две тысячи двадцать", 2020.0),
        ("тысяча", 1000.0),
        ("тысяча двести", 1200.0),
        ("одну", 1.0),
        ("две", 2.0),
        ("двух", 2.0),
        ("пяти", 5.0),
        ("двадцати", 20.0),
        ("нас будет двое", 2.0),
        ("такси на четверых", 4.0),
        ("пятеро", 5.0),
        ("ноль", 0.0),
        ("twenty-five", 25.0),
        ("twenty five", 25.0),
        ("a hundred", 100.0),
        ("two thousand and twelve", 2012.0),
        ("a dozen eggs", 12.0),
        ("two dozen", 24.0),
        ("a thousand", 1000.0),
        ("twelve hundred", 1200.0),
        ("nine hundred ninety nine thousand", 999_000.0),
        ("nine hundred thousand nine hundred ninety nine", 900_999.0),
        (
            "девятьсот девяносто девять тысяч девятьсот девяносто девять",
            999_999.0,
        ),
    ] {
        assert_eq!(count(text), n, "{text}");
    }
    assert_eq!(lasts("десяти минут", Minutes), 10.0);
    assert_eq!(lasts("в течение двадцати секунд", Seconds), 20.0);
    // Words out of order are separate numbers.
    assert_eq!(said("two three").len(), 2);
    assert_eq!(
        said("twenty twenty six"),
        [(20.0, false, None), (26.0, false, None)]
    );
}

#[test]
fn halves_and_quarters() {
    assert_eq!(lasts("полторы минуты", Seconds), 90.0);
    assert_eq!(lasts("полчаса", Minutes), 30.0);
    assert_eq!(lasts("на пол часа", Minutes), 30.0);
    assert_eq!(lasts("полминуты", Seconds), 30.0);
    assert_eq!(lasts("one and a half hours", Minutes), 90.0);
    assert_eq!(lasts("an hour and a half", Minutes), 90.0);
    assert_eq!(lasts("two and a half hours", Minutes), 150.0);
    assert_eq!(lasts("two hours and a half", Minutes), 150.0);
    assert_eq!(lasts("два с половиной часа", Minutes), 150.0);
    assert_eq!(lasts("час с половиной", Minutes), 90.0);
    assert_eq!(lasts("a half hour", Minutes), 30.0);
    assert_eq!(lasts("half a minute", Seconds), 30.0);
    assert_eq!(lasts("a quarter of an hour", Minutes), 15.0);
    assert_eq!(lasts("четверть часа", Minutes), 15.0);
    // The unit the half is said in is kept.
    let s = &numbers_said("an hour and a half")[0];
    assert_eq!((s.value, s.unit), (1.5, Some(Hours)));
    // "half" with no unit is no number; "half past" is a time of day.
    assert_eq!(said("half past ten"), [(10.0, false, None)]);
}

#[test]
fn a_unit_alone_says_one() {
    assert_eq!(lasts("через час", Minutes), 60.0);
    assert_eq!(lasts("таймер на час", Hours), 1.0);
    assert_eq!(lasts("set a timer for an hour", Minutes), 60.0);
    assert_eq!(lasts("подожди минуту", Seconds), 60.0);
    assert_eq!(lasts("hang on a minute", Seconds), 60.0);
    assert_eq!(lasts("wait a second", Seconds), 1.0);
    assert_eq!(lasts("give me a sec", Seconds), 1.0);
    assert_eq!(lasts("five more minutes", Minutes), 5.0);
    assert_eq!(lasts("a couple of minutes", Minutes), 2.0);
    assert_eq!(lasts("пару минут", Minutes), 2.0);
    // A time of day, a question of the time, «час» with nothing to make it a duration.
    assert!(said("который час").is_empty());
    assert!(said("приходи в час").is_empty());
    assert!(said("час пик").is_empty());
    assert!(said("пару раз").is_empty());
    // After an ordinal, the unit is the ordinal's noun.
    assert_eq!(said("вторая минута"), [(2.0, true, None)]);
}

#[test]
fn durations_in_two_units_are_one_sum() {
    assert_eq!(lasts("an hour and twenty minutes", Minutes), 80.0);
    assert_eq!(lasts("час двадцать минут", Minutes), 80.0);
    assert_eq!(lasts("1 час 30 минут", Minutes), 90.0);
    assert_eq!(lasts("2 minutes 30 seconds", Seconds), 150.0);
    assert_eq!(lasts("1 hour 2 minutes 3 seconds", Seconds), 3723.0);
    assert_eq!(lasts("на час двадцать", Minutes), 80.0);
    let s = &numbers_said("an hour and twenty minutes")[0];
    assert_eq!(
        (s.value, s.unit, s.start, s.end),
        (80.0, Some(Minutes), 0, 5)
    );
    assert_eq!(lasts("a minute and thirty seconds", Seconds), 90.0);
    assert_eq!(lasts("три минуты тридцать секунд", Seconds), 210.0);
    assert_eq!(lasts("пять минут и тридцать секунд", Seconds), 330.0);
    assert_eq!(lasts("2 hours, 3 minutes", Minutes), 123.0);
    assert_eq!(lasts("remind me in 2 hours 30", Minutes), 150.0);
    assert_eq!(lasts("in a minute and a half", Seconds), 90.0);
    // Two timers, two durations.
    assert_eq!(
        said("set a timer for 10 minutes and a timer for 5 minutes"),
        [(10.0, false, Some(Minutes)), (5.0, false, Some(Minutes))]
    );
    // A larger unit after is another duration.
    assert_eq!(said("5 minutes and 2 hours").len(), 2);
    // A sentence between is another duration.
    assert_eq!(said("1 час. 30 минут").len(), 2);
}

#[test]
fn ordinals_are_kept_apart() {
    for (text, n) in [
        ("первый", 1.0),
        ("вторую", 2.0),
        ("третьей", 3.0),
        ("двадцать пятый", 25.0),
        ("сто первый", 101.0),
        ("две тысячи двадцать шестой", 2026.0),
        ("first", 1.0),
        ("third", 3.0),
        ("the 25th", 25.0),
        ("2nd", 2.0),
        ("twenty-first", 21.0),
        ("one hundred and first", 101.0),
        ("2-й", 2.0),
        ("set a second timer", 2.0),
    ] {
        assert_eq!(ordinal(text), n, "{text}");
    }
    // An ordinal takes no unit; a cardinal before "second timer" does.
    assert_eq!(said("the second minute"), [(2.0, true, None)]);
    assert_eq!(lasts("a thirty second timer", Seconds), 30.0);
    assert_eq!(lasts("one second", Seconds), 1.0);
    // Words that only begin like ordinals; ordinal adverbs.
    assert!(said("в пятницу во вторник").is_empty());
    assert!(said("во-первых, в-третьих").is_empty());
    assert_eq!(said("the 3rd of may"), [(3.0, true, None)]);
    assert_eq!(
        said("first timer for 5 minutes"),
        [(1.0, true, None), (5.0, false, Some(Minutes))]
    );
}

#[test]
fn words_that_are_no_numbers() {
    for text in [
        "that one",
        "the one about the dentist",
        "no one",
        "someone called",
        "the big one",
        "the first one",
        "a",
        "ещё раз",
        "go to the notes",
        "me too",
        "a note for the dentist",
        "a hundredweight",
        "thousands of people",
        "тысячи людей",
        "",
        "   ...  ",
    ] {
        let got = said(text);
        let first_ok = text == "the first one" && got == [(1.0, true, None)];
        assert!(got.is_empty() || first_ok, "{text}: {got:?}");
    }
    assert_eq!(count("add one"), 1.0);
    assert_eq!(count("delete timer number one"), 1.0);
    assert_eq!(count("set the thermostat to twenty one degrees"), 21.0);
    assert!(said("which one").is_empty());
    assert_eq!(count("в 2026 году"), 2026.0);
}

#[test]
fn spans_are_lower_words_indices() {
    for text in [
        "set a timer for twenty-five minutes, please",
        "Ёлки, поставь 1 500 на полтора часа!",
        "wait… 2.5 hours and 3rd",
    ] {
        let words = lower_words(text);
        assert_eq!(tokens(text).len(), words.len(), "{text}");
        for s in numbers_said(text) {
            assert!(s.start < s.end && s.end <= words.len(), "{text}: {s:?}");
        }
    }
    let s = numbers_said("set a timer for twenty-five minutes, please");
    assert_eq!((s[0].start, s[0].end, s[0].value), (4, 7, 25.0));
    let s = numbers_said("Ёлки, поставь 1 500 на полтора часа!");
    assert_eq!((s[0].start, s[0].end), (2, 4));
    assert_eq!((s[1].start, s[1].end, s[1].unit), (5, 7, Some(Hours)));
}

#[test]
fn no_panic_on_odd_input() {
    for text in [
        "99999999999999999999999999999999999999999999999999999999999999999999999999",
        "1,,,5 . . 2-",
        "a a a and and half half of",
        "пол",
        "четверть",
        "and a half",
        "с половиной",
        "٣ ² Ⅻ",
        "1 000 000 000,5",
        "час и и",
        "2-",
        "-й",
    ] {
        let _ = numbers_said(text);
    }
    assert_eq!(count("1 000 000"), 1_000_000.0);
    // Every mix of the words read, in order and without overlap.
    let vocab = [
        "a",
        "an",
        "and",
        "half",
        "quarter",
        "of",
        "one",
        "second",
        "twenty",
        "hundred",
        "thousand",
        "dozen",
        "hour",
        "minutes",
        "сто",
        "тысяча",
        "час",
        "с",
        "половиной",
        "пол",
        "минуту",
        "2",
        "500",
        "5",
        ",",
        ".",
        "-",
        "й",
        "х",
        "полтора",
        "в",
        "the",
    ];
    let mut seed = 7u64;
    for _ in 0..3000 {
        let mut text = String::new();
        for _ in 0..(seed % 9) {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let w = vocab[(seed >> 33) as usize % vocab.len()];
            text.push_str(w);
            text.push(if seed % 5 == 0 { '-' } else { ' ' });
        }
        let n = lower_words(&text).len();
        let mut at = 0;
        for s in numbers_said(&text) {
            assert!(
                at <= s.start && s.start < s.end && s.end <= n,
                "{text}: {s:?}"
            );
            at = s.end;
        }
    }
}

#[test]
fn below_zero_millions_and_three_quarters() {
    assert_eq!(count("minus ten Celsius"), -10.0);
    assert_eq!(count("Минус пятьсот градусов"), -500.0);
    assert_eq!(count("twenty million rubles"), 20_000_000.0);
    assert_eq!(count("двадцать миллионов рублей"), 20_000_000.0);
    assert_eq!(lasts("three quarters of an hour", Minutes), 45.0);
    assert_eq!(lasts("Засеки три четверти часа", Minutes), 45.0);
    // A minus after a word, not before a number, is none.
    assert_eq!(count("plus or minus, say 5"), 5.0);
}
