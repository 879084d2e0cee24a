//! Conversational intents told by a message's form, not by the example it came nearest
//! ([`super::Technique::TalkIntents`]): a choice offered, a trouble or good news told of
//! oneself, a rude word said to the assistant, the how-are-you formula.

use super::talk::{
    words, GLAD, INSULTS, NOT, PRAISE, QUESTION_OPENERS, SAD, SECOND_PERSON, SPEAKER, TALK_WORDS,
    WANTING,
};
use crate::intent::Intent;

/// The conversational intent a message left to a plain reply is by its form, whatever
/// example it came nearest: a short question offering a choice («Чай или кофе?», "Cats or
/// dogs?"), a trouble or good news told of oneself ("My cat died", «У меня сегодня день
/// рождения!»), a rude word said to the assistant ("I hate you"). `None`: none of these.
pub(crate) fn told_intent(text: &str) -> Option<Intent> {
    if text.split_whitespace().count() > TALK_WORDS || super::text::delimited_text(text).is_some() {
        return None;
    }
    let asks = super::answers::is_question(text);
    let words = words(text);
    let has = |markers: &[&str]| words.iter().any(|w| markers.contains(&w.as_str()));
    let stem = |stems: &[&str]| {
        words.iter().any(|w| {
            stems
                .iter()
                .any(|s| w.starts_with(s) && !UNTOLD.contains(s))
        })
    };
    if wants(&words) {
        return None;
    }
    // "or" between two things, not opening nor closing the question.
    let offers = words.len() >= 3
        && words[1..words.len() - 1]
            .iter()
            .any(|w| w == "or" || w == "или");
    let (sad, glad) = (stem(SAD), stem(GLAD));
    if asks {
        // The how-are-you formula itself, short ("Привет! Как дела?").
        let text = format!(" {} ", words.join(" "));
        let formula = HOW_ARE_YOU.iter().any(|f| text.contains(&format!(" {f} ")));
        if formula && words.len() <= 5 {
            return Some(Intent::HowAreYou);
        }
        return offers.then_some(Intent::Choice);
    }
    if has(SECOND_PERSON) {
        return (stem(INSULTS) && !stem(PRAISE)).then_some(Intent::Insult);
    }
    if !of_speaker(&words) {
        return None;
    }
    match (sad, glad) {
        (true, false) => Some(Intent::Feeling),
        (false, true) => Some(Intent::GoodNews),
        _ => None,
    }
}

/// The intent a request routed to `target` (`None`: a plain reply) is answered as by its
/// form ([`told_intent`]) instead: any such intent over a plain reply; over a formula that
/// came nearest but is not what was said («Я простыл» near "okay"), unless a choice is put
/// to the assistant; a choice over a task no tool does ("Should I learn Python or
/// JavaScript first?"), unless put to the assistant ("can you book a table or a taxi?");
/// over the clock, a trouble or good news told ("It's my birthday today!"). `None`: the
/// route stands.
pub(crate) fn told_over(target: Option<&str>, text: &str) -> Option<Intent> {
    let told = told_intent(text)?;
    let Some(target) = target else {
        return Some(told);
    };
    let formula = Intent::from_target(target).is_some_and(|i| {
        matches!(
            i,
            Intent::Acknowledgement
                | Intent::Greeting
                | Intent::HowAreYou
                | Intent::Identity
                | Intent::Capabilities
        )
    });
    let out_of_scope = target == Intent::OutOfScope.target();
    let words = words(text);
    let to_you = words.iter().any(|w| SECOND_PERSON.contains(&w.as_str()));
    let told_mood = matches!(told, Intent::Feeling | Intent::GoodNews);
    // (A request that asks a question or a task is no mood told: «подскажите, какой
    // сегодня день, я совсем потерялся», "send an email saying I'm sick".)
    let asks_too = words.iter().any(|w| QUESTION_OPENERS.contains(&w.as_str()));
    let over = (formula && (told != Intent::Choice || !to_you))
        || (out_of_scope && told == Intent::Choice && !to_you)
        || (target == "get_current_time" && told_mood && !asks_too);
    over.then_some(told)
}

/// Whether `words` (lower case) say a wish not negated: «не надо», "I don't want it" want
/// nothing.
pub(super) fn wants(words: &[String]) -> bool {
    words.iter().enumerate().any(|(i, w)| {
        WANTING.contains(&w.as_str()) && !(i > 0 && NOT.contains(&words[i - 1].as_str()))
    })
}

/// Whether `words` (lower case) tell of the speaker: a word of the speaker ([`SPEAKER`])
/// among the first four ("My cat died", "Guess what, it's my birthday", "Calendars make me
/// anxious"), not one deep in a request ("send an email to my boss saying I'm sick").
pub(super) fn of_speaker(words: &[String]) -> bool {
    words.iter().take(4).any(|w| SPEAKER.contains(&w.as_str()))
}

/// The how-are-you formula's phrases (both languages, whole words): a short question saying
/// one is how-are-you by its form ([`told_intent`]).
const HOW_ARE_YOU: &[&str] = &[
    "как дела",
    "как поживаешь",
    "как поживаете",
    "как ты",
    "how are you",
    "how's it going",
    "how are things",
];

/// Stems of [`SAD`] and [`GLAD`] too common in other statements to tell a mood by form
/// alone ([`told_intent`]): "I'll write it down", "I got home", "we're going away".
const UNTOLD: &[&str] = &["down", "away", "got"];
