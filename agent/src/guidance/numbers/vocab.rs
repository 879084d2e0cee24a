//! The number words of both languages: cardinals in every form, ordinals (English words,
//! Russian stems with their endings), and the nouns that tell an ordinal "second" from the
//! unit of time.

use super::{word, Token};

/// The place of a number word in a compound number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Place {
    /// Zero: a number alone.
    Zero,
    /// One to nine.
    Unit,
    /// Ten to nineteen.
    Teen,
    /// Twenty to ninety.
    Tens,
    /// A Russian hundreds word: «сто» to «девятьсот».
    Hundreds,
    /// "hundred": multiplies what comes before it.
    Hundred,
    /// "thousand", «тысяча»: multiplies what comes before it.
    Thousand,
}

/// A number word read: its place, its value (what a multiplier multiplies by), and
/// whether it is an ordinal («пятый», "fifth").
#[derive(Debug, Clone, Copy)]
pub(super) struct NumberWord {
    pub(super) place: Place,
    pub(super) value: f64,
    pub(super) ordinal: bool,
}

/// Cardinal number words in every form commonly said, both languages («ё» as «е»).
const CARDINALS: &[(&str, Place, u32)] = &[
    ("zero", Place::Zero, 0),
    ("one", Place::Unit, 1),
    ("two", Place::Unit, 2),
    ("three", Place::Unit, 3),
    ("four", Place::Unit, 4),
    ("five", Place::Unit, 5),
    ("six", Place::Unit, 6),
    ("seven", Place::Unit, 7),
    ("eight", Place::Unit, 8),
    ("nine", Place::Unit, 9),
    ("ten", Place::Teen, 10),
    ("eleven", Place::Teen, 11),
    ("twelve", Place::Teen, 12),
    ("thirteen", Place::Teen, 13),
    ("fourteen", Place::Teen, 14),
    ("fifteen", Place::Teen, 15),
    ("sixteen", Place::Teen, 16),
    ("seventeen", Place::Teen, 17),
    ("eighteen", Place::Teen, 18),
    ("nineteen", Place::Teen, 19),
    ("twenty", Place::Tens, 20),
    ("thirty", Place::Tens, 30),
    ("forty", Place::Tens, 40),
    ("fifty", Place::Tens, 50),
    ("sixty", Place::Tens, 60),
    ("seventy", Place::Tens, 70),
    ("eighty", Place::Tens, 80),
    ("ninety", Place::Tens, 90),
    ("hundred", Place::Hundred, 100),
    ("thousand", Place::Thousand, 1000),
    ("ноль", Place::Zero, 0),
    ("нуль", Place::Zero, 0),
    ("ноля", Place::Zero, 0),
    ("нуля", Place::Zero, 0),
    ("один", Place::Unit, 1),
    ("одна", Place::Unit, 1),
    ("одно", Place::Unit, 1),
    ("одну", Place::Unit, 1),
    ("одного", Place::Unit, 1),
    ("одной", Place::Unit, 1),
    ("одному", Place::Unit, 1),
    ("одним", Place::Unit, 1),
    ("одном", Place::Unit, 1),
    ("два", Place::Unit, 2),
    ("две", Place::Unit, 2),
    ("двух", Place::Unit, 2),
    ("двум", Place::Unit, 2),
    ("двумя", Place::Unit, 2),
    // Collective numerals count people: «нас будет двое», «на четверых».
    ("двое", Place::Unit, 2),
    ("двоих", Place::Unit, 2),
    ("двоим", Place::Unit, 2),
    ("двоими", Place::Unit, 2),
    ("трое", Place::Unit, 3),
    ("троих", Place::Unit, 3),
    ("троим", Place::Unit, 3),
    ("троими", Place::Unit, 3),
    ("четверо", Place::Unit, 4),
    ("четверых", Place::Unit, 4),
    ("четверым", Place::Unit, 4),
    ("четверыми", Place::Unit, 4),
    ("пятеро", Place::Unit, 5),
    ("пятерых", Place::Unit, 5),
    ("пятерым", Place::Unit, 5),
    ("шестеро", Place::Unit, 6),
    ("шестерых", Place::Unit, 6),
    ("шестерым", Place::Unit, 6),
    ("семеро", Place::Unit, 7),
    ("семерых", Place::Unit, 7),
    ("семерым", Place::Unit, 7),
    ("восьмеро", Place::Unit, 8),
    ("восьмерых", Place::Unit, 8),
    ("девятеро", Place::Unit, 9),
    ("девятерых", Place::Unit, 9),
    ("три", Place::Unit, 3),
    ("трех", Place::Unit, 3),
    ("трем", Place::Unit, 3),
    ("тремя", Place::Unit, 3),
    ("четыре", Place::Unit, 4),
    ("четырех", Place::Unit, 4),
    ("четырем", Place::Unit, 4),
    ("четырьмя", Place::Unit, 4),
    ("пять", Place::Unit, 5),
    ("пяти", Place::Unit, 5),
    ("пятью", Place::Unit, 5),
    ("шесть", Place::Unit, 6),
    ("шести", Place::Unit, 6),
    ("шестью", Place::Unit, 6),
    ("семь", Place::Unit, 7),
    ("семи", Place::Unit, 7),
    ("восемь", Place::Unit, 8),
    ("восьми", Place::Unit, 8),
    ("восемью", Place::Unit, 8),
    ("восьмью", Place::Unit, 8),
    ("девять", Place::Unit, 9),
    ("девяти", Place::Unit, 9),
    ("девятью", Place::Unit, 9),
    ("десять", Place::Teen, 10),
    ("десяти", Place::Teen, 10),
    ("десятью", Place::Teen, 10),
    ("одиннадцать", Place::Teen, 11),
    ("одиннадцати", Place::Teen, 11),
    ("двенадцать", Place::Teen, 12),
    ("двенадцати", Place::Teen, 12),
    ("тринадцать", Place::Teen, 13),
    ("тринадцати", Place::Teen, 13),
    ("четырнадцать", Place::Teen, 14),
    ("четырнадцати", Place::Teen, 14),
    ("пятнадцать", Place::Teen, 15),
    ("пятнадцати", Place::Teen, 15),
    ("шестнадцать", Place::Teen, 16),
    ("шестнадцати", Place::Teen, 16),
    ("семнадцать", Place::Teen, 17),
    ("семнадцати", Place::Teen, 17),
    ("восемнадцать", Place::Teen, 18),
    ("восемнадцати", Place::Teen, 18),
    ("девятнадцать", Place::Teen, 19),
    ("девятнадцати", Place::Teen, 19),
    ("двадцать", Place::Tens, 20),
    ("двадцати", Place::Tens, 20),
    ("двадцатью", Place::Tens, 20),
    ("тридцать", Place::Tens, 30),
    ("тридцати", Place::Tens, 30),
    ("тридцатью", Place::Tens, 30),
    ("сорок", Place::Tens, 40),
    ("сорока", Place::Tens, 40),
    ("пятьдесят", Place::Tens, 50),
    ("пятидесяти", Place::Tens, 50),
    ("шестьдесят", Place::Tens, 60),
    ("шестидесяти", Place::Tens, 60),
    ("семьдесят", Place::Tens, 70),
    ("семидесяти", Place::Tens, 70),
    ("восемьдесят", Place::Tens, 80),
    ("восьмидесяти", Place::Tens, 80),
    ("девяносто", Place::Tens, 90),
    ("девяноста", Place::Tens, 90),
    ("сто", Place::Hundreds, 100),
    ("ста", Place::Hundreds, 100),
    ("сотню", Place::Hundreds, 100),
    ("двести", Place::Hundreds, 200),
    ("двухсот", Place::Hundreds, 200),
    ("двумстам", Place::Hundreds, 200),
    ("триста", Place::Hundreds, 300),
    ("трехсот", Place::Hundreds, 300),
    ("тремстам", Place::Hundreds, 300),
    ("четыреста", Place::Hundreds, 400),
    ("четырехсот", Place::Hundreds, 400),
    ("четыремстам", Place::Hundreds, 400),
    ("пятьсот", Place::Hundreds, 500),
    ("пятисот", Place::Hundreds, 500),
    ("пятистам", Place::Hundreds, 500),
    ("шестьсот", Place::Hundreds, 600),
    ("шестисот", Place::Hundreds, 600),
    ("шестистам", Place::Hundreds, 600),
    ("семьсот", Place::Hundreds, 700),
    ("семисот", Place::Hundreds, 700),
    ("семистам", Place::Hundreds, 700),
    ("восемьсот", Place::Hundreds, 800),
    ("восьмисот", Place::Hundreds, 800),
    ("восьмистам", Place::Hundreds, 800),
    ("девятьсот", Place::Hundreds, 900),
    ("девятисот", Place::Hundreds, 900),
    ("девятистам", Place::Hundreds, 900),
    ("тысяча", Place::Thousand, 1000),
    ("тысячу", Place::Thousand, 1000),
    ("тысячи", Place::Thousand, 1000),
    ("тысяч", Place::Thousand, 1000),
    ("тысяче", Place::Thousand, 1000),
    ("тысячей", Place::Thousand, 1000),
    ("тысячам", Place::Thousand, 1000),
    ("тысячами", Place::Thousand, 1000),
    ("тысячах", Place::Thousand, 1000),
    ("тыща", Place::Thousand, 1000),
    ("тыщу", Place::Thousand, 1000),
    ("тыщи", Place::Thousand, 1000),
    ("тыщ", Place::Thousand, 1000),
];

/// The thousand words that say one thousand alone («тысяча двести»); «тысячи людей» is no
/// number.
pub(super) const LONE_THOUSANDS: &[&str] = &["тысяча", "тысячу", "тыща", "тыщу"];

/// English ordinal words.
const EN_ORDINALS: &[(&str, Place, u32)] = &[
    ("first", Place::Unit, 1),
    ("second", Place::Unit, 2),
    ("third", Place::Unit, 3),
    ("fourth", Place::Unit, 4),
    ("fifth", Place::Unit, 5),
    ("sixth", Place::Unit, 6),
    ("seventh", Place::Unit, 7),
    ("eighth", Place::Unit, 8),
    ("ninth", Place::Unit, 9),
    ("tenth", Place::Teen, 10),
    ("eleventh", Place::Teen, 11),
    ("twelfth", Place::Teen, 12),
    ("thirteenth", Place::Teen, 13),
    ("fourteenth", Place::Teen, 14),
    ("fifteenth", Place::Teen, 15),
    ("sixteenth", Place::Teen, 16),
    ("seventeenth", Place::Teen, 17),
    ("eighteenth", Place::Teen, 18),
    ("nineteenth", Place::Teen, 19),
    ("twentieth", Place::Tens, 20),
    ("thirtieth", Place::Tens, 30),
    ("fortieth", Place::Tens, 40),
    ("fiftieth", Place::Tens, 50),
    ("sixtieth", Place::Tens, 60),
    ("seventieth", Place::Tens, 70),
    ("eightieth", Place::Tens, 80),
    ("ninetieth", Place::Tens, 90),
    ("hundredth", Place::Hundred, 100),
    ("thousandth", Place::Thousand, 1000),
];

/// Russian ordinal stems («втор|ую», «двадцат|ый»), read with an ending of
/// [`RU_ORDINAL_ENDINGS`] only: «пятница», «вторник», «сотовый» are no ordinals.
const RU_ORDINAL_STEMS: &[(&str, Place, u32)] = &[
    ("перв", Place::Unit, 1),
    ("втор", Place::Unit, 2),
    ("трет", Place::Unit, 3),
    ("четверт", Place::Unit, 4),
    ("пят", Place::Unit, 5),
    ("шест", Place::Unit, 6),
    ("седьм", Place::Unit, 7),
    ("восьм", Place::Unit, 8),
    ("девят", Place::Unit, 9),
    ("десят", Place::Teen, 10),
    ("одиннадцат", Place::Teen, 11),
    ("двенадцат", Place::Teen, 12),
    ("тринадцат", Place::Teen, 13),
    ("четырнадцат", Place::Teen, 14),
    ("пятнадцат", Place::Teen, 15),
    ("шестнадцат", Place::Teen, 16),
    ("семнадцат", Place::Teen, 17),
    ("восемнадцат", Place::Teen, 18),
    ("девятнадцат", Place::Teen, 19),
    ("двадцат", Place::Tens, 20),
    ("тридцат", Place::Tens, 30),
    ("сороков", Place::Tens, 40),
    ("пятидесят", Place::Tens, 50),
    ("шестидесят", Place::Tens, 60),
    ("семидесят", Place::Tens, 70),
    ("восьмидесят", Place::Tens, 80),
    ("девяност", Place::Tens, 90),
    ("сот", Place::Hundreds, 100),
    ("двухсот", Place::Hundreds, 200),
    ("трехсот", Place::Hundreds, 300),
    ("четырехсот", Place::Hundreds, 400),
    ("пятисот", Place::Hundreds, 500),
    ("шестисот", Place::Hundreds, 600),
    ("семисот", Place::Hundreds, 700),
    ("восьмисот", Place::Hundreds, 800),
    ("девятисот", Place::Hundreds, 900),
    ("тысячн", Place::Thousand, 1000),
];

/// The endings of a Russian ordinal after its stem, in every gender, number and case
/// («перв|ый», «втор|ую», «трет|ьей»).
const RU_ORDINAL_ENDINGS: &[&str] = &[
    "ый", "ий", "ой", "ая", "ое", "ые", "ого", "ому", "ым", "ом", "ую", "ых", "ыми", "ья", "ье",
    "ьи", "ью", "ьего", "ьей", "ьему", "ьим", "ьем", "ьих", "ьими",
];

/// The number word `w` is, if any.
pub(super) fn number_word(w: &str) -> Option<NumberWord> {
    let found = |(_, place, value): &(&str, Place, u32), ordinal| NumberWord {
        place: *place,
        value: f64::from(*value),
        ordinal,
    };
    if let Some(e) = CARDINALS.iter().find(|(s, _, _)| *s == w) {
        return Some(found(e, false));
    }
    if let Some(e) = EN_ORDINALS.iter().find(|(s, _, _)| *s == w) {
        return Some(found(e, true));
    }
    RU_ORDINAL_STEMS
        .iter()
        .find(|(stem, _, _)| {
            w.strip_prefix(stem)
                .is_some_and(|end| RU_ORDINAL_ENDINGS.contains(&end))
        })
        .map(|e| found(e, true))
}

/// The place of the number word at `i`, if it is one.
pub(super) fn place_at(toks: &[Token], i: usize) -> Option<Place> {
    number_word(word(toks, i)).map(|n| n.place)
}

/// Nouns after which a compound's "second" is the unit, not an ordinal ("a thirty second
/// timer").
pub(super) const DURATION_NOUNS: &[&str] = &[
    "timer",
    "timers",
    "countdown",
    "wait",
    "delay",
    "pause",
    "break",
    "rest",
    "interval",
    "nap",
    "plank",
    "hold",
    "video",
    "clip",
];

/// Nouns after which "a second" is the ordinal, not one second ("set a second timer").
pub(super) const ORDINAL_NOUNS: &[&str] = &[
    "timer", "timers", "alarm", "alarms", "one", "note", "notes", "list", "item", "reminder",
    "time", "question", "thing", "song", "track", "look", "try", "chance", "round", "opinion",
    "page", "line", "entry", "event", "option", "step", "cup", "glass", "helping",
];

/// The articles that say one of what follows ("a minute", "a hundred").
pub(super) const ARTICLES: &[&str] = &["a", "an"];
