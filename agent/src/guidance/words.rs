//! The language data of guidance: word stems and the words too common to count, number
//! words, and the lines that open a turn of an invented dialogue.

use std::collections::HashSet;

use crate::messages::Lang;

/// Words too common to tell requests apart (both languages).
pub(crate) const STOP_WORDS: &[&str] = &[
    "the",
    "and",
    "for",
    "you",
    "your",
    "what",
    "that",
    "this",
    "with",
    "are",
    "can",
    "please",
    "что",
    "как",
    "мне",
    "меня",
    "про",
    "это",
    "для",
    "все",
    "ещё",
    "там",
    "где",
    "кто",
    "dont",
    "doesnt",
    "didnt",
    "isnt",
    "arent",
    "wasnt",
    "cant",
    "wont",
    "ive",
    "youre",
    "whats",
    "thats",
    "its",
    "from",
    "или",
    "there",
    "тебя",
    "тебе",
    "тобой",
    "вас",
    "вам",
    "пожалуйста",
    "мой",
    "мои",
    "мою",
    "моя",
    "какой",
    "какая",
    "какие",
];

/// Words that stand for a thing not named yet: a text made of them and the request's frame
/// says nothing ("add something to the list", «добавь кое-что в покупки»).
pub(crate) const PLACEHOLDERS: &[&str] = &[
    "something",
    "anything",
    "stuff",
    "кое-что",
    "что-нибудь",
    "что-то",
    "что-либо",
    "кое",
    "нибудь",
    "либо",
];

/// The apostrophes a word may have inside ("don't", "it’s").
pub(crate) const APOSTROPHES: &[char] = &['\'', '\u{2019}'];

/// The stems of `text`'s words: lower case, the first five letters of each word of three
/// letters or more, common words left out. Catches the same word in other forms
/// («заметку», «заметки») the way a tiny model's embeddings often do not.
pub(crate) fn stems(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    // Linear in the text: a long message has many distinct stems.
    let mut seen: HashSet<String> = HashSet::new();
    // An apostrophe is part of its word, then taken out: "don't" is one word, not "don".
    for w in text.split(|c: char| !(c.is_alphanumeric() || APOSTROPHES.contains(&c))) {
        let w: String = w
            .chars()
            .filter(|c| !APOSTROPHES.contains(c))
            .flat_map(char::to_lowercase)
            .collect();
        if w.chars().count() < 3 || STOP_WORDS.contains(&w.as_str()) {
            continue;
        }
        let stem: String = w.chars().take(5).collect();
        if seen.insert(stem.clone()) {
            out.push(stem);
        }
    }
    out
}

/// Lines that open a new turn in an invented dialogue (a base model's habit): a reply
/// stops before any of them ([`crate::Technique::TurnEndStops`]).
pub(crate) fn turn_openers(lang: Lang) -> &'static [&'static str] {
    match lang {
        Lang::Ru => &["\nПользователь:", "\nТы:", "\nПорфирий:"],
        Lang::En => &["\nUser:", "\nYou:", "\nPorfiry:"],
    }
}

/// Russian ordinal stems («втор|ой», «последн|юю»): the position, -1 for the last.
pub(crate) const RU_ORDINALS: &[(&str, i64)] = &[
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
    ("последн", -1),
];

/// English ordinals: the position, -1 for the last.
pub(crate) const EN_ORDINALS: &[(&str, i64)] = &[
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
    ("last", -1),
    ("latest", -1),
];

/// A number the user said as a word («вторую», «third»), by the word's beginning:
/// ordinals match every ending, cardinals only as the whole word.
pub(crate) fn spoken_number(lang: Lang, word: &str) -> Option<i64> {
    let w = word.to_lowercase();
    type Words = &'static [(&'static str, i64)];
    let (ordinals, cardinals): (Words, Words) = match lang {
        Lang::Ru => (
            RU_ORDINALS,
            &[
                ("один", 1),
                ("одну", 1),
                ("два", 2),
                ("две", 2),
                ("три", 3),
                ("четыре", 4),
                ("пять", 5),
                ("шесть", 6),
                ("семь", 7),
                ("восемь", 8),
                ("девять", 9),
                ("десять", 10),
            ],
        ),
        Lang::En => (
            EN_ORDINALS,
            &[
                ("one", 1),
                ("two", 2),
                ("three", 3),
                ("four", 4),
                ("five", 5),
                ("six", 6),
                ("seven", 7),
                ("eight", 8),
                ("nine", 9),
                ("ten", 10),
            ],
        ),
    };
    ordinals
        .iter()
        .find(|(p, _)| w.starts_with(p))
        .or_else(|| cardinals.iter().find(|(p, _)| w == *p))
        .map(|(_, n)| *n)
        .filter(|n| *n > 0)
}

/// Russian number nouns («двойка», «тройку», «единичку»), by the word's beginning; those
/// an ordinal stem already catches («пятёрка», «девятку») are left out.
const RU_NUMBER_NOUNS: &[(&str, i64)] = &[
    ("единиц", 1),
    ("единичк", 1),
    ("двойк", 2),
    ("тройк", 3),
    ("четвёрк", 4),
    ("четверк", 4),
    ("семёрк", 7),
    ("семерк", 7),
];

/// Words a speech recognizer writes for an English number word ("note to" for "note two"):
/// read as the number only right after [`NUMBER_NOUNS`].
const EN_HOMOPHONES: &[(&str, i64)] = &[("won", 1), ("to", 2), ("too", 2), ("for", 4), ("ate", 8)];

/// The words a misheard number may be followed by ("number too *from* my notes"): any other
/// word makes it a preposition ("the note for the dentist").
const HOMOPHONE_ENDS: &[&str] = &["from", "in", "of", "on", "please"];

/// Words a number follows when it names an item ("note two", "number four").
const NUMBER_NOUNS: &[&str] = &["note", "number", "item", "entry", "no"];

/// Words that point back at what the calls before acted on, several of them ("turn *them
/// both* on", «выключи *оба*»).
pub(crate) const POINTS_BACK: &[&str] = &["them", "both", "оба", "обе", "их"];

/// Words that take in every item spoken of ("all", «все»).
pub(crate) const ALL_WORDS: &[&str] = &["all", "все"];

/// Words that ask of the present: "is the heating *still* on", "what's on *now*", «что
/// *сейчас* включено».
pub(crate) const NOW_WORDS: &[&str] = &[
    "now",
    "still",
    "currently",
    "moment",
    "сейчас",
    "ещё",
    "еще",
    "пока",
];

/// Words that say the whole of what is kept ("the *whole* list", «*весь* список», «удали его
/// *целиком*»), not several of its items.
pub(crate) const WHOLE_WORDS: &[&str] = &[
    "whole",
    "entire",
    "everything",
    "весь",
    "всю",
    "целиком",
    "полностью",
];

/// The words of `text`, lowercased: its runs of letters and digits.
pub(crate) fn lower_words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Whether `words` say `run`, its words next to each other and in order ("do you like" in
/// "so do you like films").
pub(crate) fn says_run(words: &[String], run: &[&str]) -> bool {
    words
        .windows(run.len())
        .any(|w| w.iter().zip(run.iter()).all(|(a, b)| a == b))
}

/// The number `request` says: the first word in digits or a number word
/// ([`spoken_number`], a Russian number noun: «убери двойку»), else, in English, a word a
/// recognizer writes for a number right after a word that numbers an item and at the end of
/// the request or before [`HOMOPHONE_ENDS`] ("delete note to", "remove number too from my
/// notes"); `None` when it says none.
pub(crate) fn said_number(lang: Lang, request: &str) -> Option<i64> {
    let words = lower_words(request);
    let noun = |w: &str| {
        (lang == Lang::Ru)
            .then(|| RU_NUMBER_NOUNS.iter().find(|(p, _)| w.starts_with(p)))
            .flatten()
            .map(|(_, n)| *n)
    };
    words
        .iter()
        .find_map(|w| {
            w.parse::<i64>()
                .ok()
                .or_else(|| spoken_number(lang, w))
                .or_else(|| noun(w))
        })
        .or_else(|| {
            if lang != Lang::En {
                return None;
            }
            // Only where nothing goes on from it: "delete note to", "remove number too from
            // my notes" — never "the note for the dentist".
            (1..words.len()).find_map(|i| {
                let after = words.get(i + 1).map(String::as_str);
                let ends = after.is_none_or(|a| HOMOPHONE_ENDS.contains(&a));
                if !ends || !NUMBER_NOUNS.contains(&words[i - 1].as_str()) {
                    return None;
                }
                EN_HOMOPHONES
                    .iter()
                    .find(|(h, _)| words[i] == *h)
                    .map(|(_, n)| *n)
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_number_said_in_digits_words_nouns_or_misheard() {
        let (ru, en) = (Lang::Ru, Lang::En);
        assert_eq!(said_number(ru, "Удали заметку 3"), Some(3));
        assert_eq!(said_number(ru, "удали заметку два"), Some(2));
        assert_eq!(said_number(ru, "убери двойку из заметок"), Some(2));
        assert_eq!(said_number(ru, "сотри тройку"), Some(3));
        assert_eq!(said_number(en, "delete note to"), Some(2));
        assert_eq!(said_number(en, "remove number too from my notes"), Some(2));
        assert_eq!(said_number(en, "scratch note for"), Some(4));
        // Only where a number names an item, and a real number first.
        assert_eq!(said_number(en, "go to the notes"), None);
        assert_eq!(said_number(en, "delete the note for the dentist"), None);
        assert_eq!(said_number(en, "delete note to 5"), Some(5));
        assert_eq!(said_number(ru, "удали заметку"), None);
    }

    #[test]
    fn spoken_numbers() {
        let (ru, en) = (Lang::Ru, Lang::En);
        assert_eq!(spoken_number(ru, "Вторую"), Some(2));
        assert_eq!(spoken_number(ru, "третьей"), Some(3));
        assert_eq!(spoken_number(ru, "два"), Some(2));
        assert_eq!(spoken_number(ru, "двадцать"), None);
        assert_eq!(spoken_number(ru, "последнюю"), None);
        assert_eq!(spoken_number(en, "second"), Some(2));
        assert_eq!(spoken_number(en, "someone"), None);
    }
}
