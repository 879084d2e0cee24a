//! A request that goes on with the one before it ([`super::Technique::Continuation`]):
//! "and also buy cat food" after a note was added, «и сантехника тоже убери» after one was
//! deleted, "oh and the tv licence as well". Said alone, such a message names no action —
//! the action is the previous turn's — so its words resemble a request no tool serves
//! ("buy", "post") more than any tool's examples.

use super::words::says_run;

/// Words that open a continuation, after any interjection ([`INTERJECTIONS`]): "and …",
/// "plus …", «и ещё …», «плюс …».
const OPENERS: &[&str] = &["and", "also", "plus", "и", "ещё", "еще", "плюс", "также"];

/// Words said before an opener that leave it the opener: "oh and …", «а, и …», «ну и …».
const INTERJECTIONS: &[&str] = &["oh", "ah", "ok", "okay", "right", "а", "ой", "ну", "да"];

/// Word sequences that say "this one too" anywhere in a message: "… too", "… as well",
/// "one more", «… тоже», «ещё одну».
const ALSO: &[&[&str]] = &[
    &["too"],
    &["as", "well"],
    &["one", "more"],
    &["another", "one"],
    &["тоже"],
    &["также"],
    &["ещё", "одну"],
    &["ещё", "один"],
    &["ещё", "одно"],
    &["еще", "одну"],
    &["еще", "один"],
    &["еще", "одно"],
];

/// Words that are no content of a continuation: "me too", «я тоже», "you too" go on with
/// nothing a tool could take.
const NO_CONTENT: &[&str] = &[
    "me", "you", "i", "we", "same", "я", "ты", "тебе", "мне", "вам", "вы", "мы",
];

/// Whether `text` goes on with the request before it: it opens with a continuation word
/// ([`OPENERS`], after any interjection) or says "too", "as well", «тоже» ([`ALSO`]), and
/// has a word of content besides them ("me too" has none).
pub(crate) fn continues(text: &str) -> bool {
    let words: Vec<String> = text
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let opens = words
        .iter()
        .find(|w| !INTERJECTIONS.contains(&w.as_str()))
        .is_some_and(|w| OPENERS.contains(&w.as_str()));
    let also = ALSO.iter().any(|seq| says_run(&words, seq));
    let marker = |w: &str| {
        OPENERS.contains(&w)
            || INTERJECTIONS.contains(&w)
            || NO_CONTENT.contains(&w)
            || ALSO.iter().any(|seq| seq.contains(&w))
    };
    (opens || also) && words.iter().any(|w| !marker(w))
}

#[cfg(test)]
mod tests {
    use super::continues;

    #[test]
    fn a_request_going_on_with_the_last_is_told_by_its_opening_or_its_also() {
        for text in [
            "and also buy cat food",
            "oh and the tv licence as well",
            "plus one more, post the parcel",
            "and the plumber too",
            "И ещё купить корм коту",
            "А, и оплатить интернет тоже",
            "и сантехника тоже убери",
            "Ещё одну: отправить посылку",
        ] {
            assert!(continues(text), "{text}");
        }
        for text in [
            "buy cat food",
            "me too",
            "Я тоже",
            "and",
            "ну да",
            "write down renew the car insurance",
            "a toolbox for the garage",
        ] {
            assert!(!continues(text), "{text}");
        }
    }
}
