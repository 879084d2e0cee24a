//! Asking when unsure ([`super::Technique::AskWhenUnsure`]): a request the router sends to
//! a tool only narrowly (the best route barely ahead of the next) is not acted on; the
//! assistant asks one short question that names the action («Записать это в заметки?"), and
//! the user's next message settles it: a yes runs the action for the request asked about, a
//! no is acknowledged, anything else is a new request.
//!
//! This module holds the language side: what counts as a yes or a no.

/// First words that say yes («да, запиши», "yes please").
const YES_WORDS: &[&str] = &[
    "да",
    "ага",
    "угу",
    "давай",
    "давайте",
    "конечно",
    "верно",
    "точно",
    "именно",
    "разумеется",
    "ок",
    "окей",
    "yes",
    "yeah",
    "yep",
    "yup",
    "sure",
    "ok",
    "okay",
    "correct",
    "right",
    "exactly",
    "absolutely",
];

/// Whole short replies that say yes without a yes word first.
const YES_PHRASES: &[&str] = &[
    "ну да",
    "ну давай",
    "так и есть",
    "сделай это",
    "please do",
    "go ahead",
    "do it",
    "of course",
    "that's right",
    "that is right",
];

/// First words that say no.
const NO_WORDS: &[&str] = &[
    "нет",
    "неа",
    "отмена",
    "отбой",
    "no",
    "nope",
    "nah",
    "cancel",
];

/// Interjections a no may open with («а, не надо», «ой, нет», "oh, no").
const INTERJECTIONS: &[&str] = &[
    "а", "ой", "ах", "ох", "ну", "oh", "ah", "um", "uh", "hmm", "well",
];

/// Short replies that say no without a no word first.
const NO_PHRASES: &[&str] = &[
    "не надо",
    "не нужно",
    "не стоит",
    "не хочу",
    "не сейчас",
    "да нет",
    "ни в коем случае",
    "don't",
    "dont",
    "do not",
    "not now",
    "no need",
    "never mind",
    "nevermind",
    "forget it",
    "forget about it",
    "forget that",
    "забудь",
    "забей",
    "не забей",
    "проехали",
    "неважно",
    "не важно",
];

/// The most words a yes or a no may have: a longer message says more than yes or no and
/// is routed as a new request.
const MAX_WORDS: usize = 4;

/// Whether `text`, the reply to a yes/no question, says yes (`Some(true)`), no
/// (`Some(false)`) or something else (`None`: a new request). Short replies only
/// ([`MAX_WORDS`]); a no wins over a yes («да нет»).
pub(crate) fn yes_or_no(text: &str) -> Option<bool> {
    let lower = lowered(text);
    let words = said_words(&lower);
    if words.is_empty() || words.len() > MAX_WORDS {
        return None;
    }
    let joined = words.join(" ");
    let starts = |phrases: &[&str]| {
        phrases
            .iter()
            .any(|p| joined == *p || joined.starts_with(&format!("{p} ")))
    };
    let first = words.first().copied().unwrap_or_default();
    if NO_WORDS.contains(&first) || starts(NO_PHRASES) {
        return Some(false);
    }
    if YES_WORDS.contains(&first) || starts(YES_PHRASES) {
        return Some(true);
    }
    None
}

/// Whether `text` is a no and nothing else ("nevermind", "no", "nope, never mind", «не
/// надо», «нет-нет»): said when nothing was asked, it dismisses — no request for a tool,
/// and "never mind" has no note in it.
pub(crate) fn only_no(text: &str) -> bool {
    let lower = lowered(text);
    let mut rest = said_words(&lower);
    // «а, не надо», "oh, never mind": an interjection before the no is no word of a request.
    let lead = rest
        .iter()
        .take_while(|w| INTERJECTIONS.contains(w))
        .count();
    rest.drain(..lead);
    if rest.is_empty() {
        return false;
    }
    while !rest.is_empty() {
        if NO_WORDS.contains(&rest[0]) {
            rest.remove(0);
            continue;
        }
        let Some(n) = NO_PHRASES.iter().find_map(|p| {
            let phrase: Vec<&str> = p.split(' ').collect();
            rest.starts_with(&phrase).then_some(phrase.len())
        }) else {
            return false;
        };
        // "don't" opens a request ("don't forget the milk"); a no of its own it is only as
        // the whole message.
        if rest.len() > n && matches!(rest[0], "don't" | "dont" | "do") {
            return false;
        }
        rest.drain(..n);
    }
    true
}

/// `text` lower case, «ё» as «е».
fn lowered(text: &str) -> String {
    text.to_lowercase().replace('ё', "е")
}

/// The words of lowered `text` (letters, digits, apostrophes).
fn said_words(lower: &str) -> Vec<&str> {
    lower
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|w| !w.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_replies_say_yes_or_no() {
        for yes in [
            "Да",
            "да, запиши",
            "Ага.",
            "Конечно!",
            "Ну да",
            "Давай",
            "Yes",
            "yes please",
            "Sure, go on",
            "Go ahead",
            "Do it.",
        ] {
            assert_eq!(yes_or_no(yes), Some(true), "{yes}");
        }
        for no in [
            "Нет",
            "нет, не надо",
            "Не надо",
            "Да нет",
            "Отмена",
            "No",
            "Nope.",
            "Don't",
            "No, thanks",
            "never mind",
        ] {
            assert_eq!(yes_or_no(no), Some(false), "{no}");
        }
    }

    #[test]
    fn a_no_alone_is_only_a_no() {
        for no in [
            "nevermind",
            "Never mind.",
            "No",
            "nope, never mind",
            "Нет-нет",
            "Не надо",
            "don't",
            "а, не надо",
            "oh, never mind",
            "forget it",
            "забудь",
            "ой, проехали",
            "не, забей",
        ] {
            assert!(only_no(no), "{no}");
        }
        for other in [
            "",
            "no thanks, show my notes",
            "don't forget the milk",
            "Не надо удалять заметку",
            "Нетфликс открой",
            "never",
            "ну",
            "а, не надо удалять",
            "забудь про стоматолога",
        ] {
            assert!(!only_no(other), "{other}");
        }
    }

    #[test]
    fn anything_else_is_a_new_request() {
        for other in [
            "",
            "Покажи мои заметки",
            "Не забудь купить хлеб",
            "Да, запиши купить хлеб и молоко",
            "Do I have any notes?",
            "What time is it?",
            "Нетфликс открой",
        ] {
            assert_eq!(yes_or_no(other), None, "{other}");
        }
    }
}
