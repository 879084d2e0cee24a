//! Conversational intents told by a message's form, not by the example it came nearest
//! ([`super::Technique::TalkIntents`]): a choice offered, a trouble or good news told of
//! oneself, a rude word or praise said to the assistant, the how-are-you formula, what the
//! assistant is like beside a person, whether it likes the user, more of a story after a
//! mood; and the forms of a question these and the intents' words rest on (a question word
//! opening it, a yes-or-no question of fact).

use super::talk::{
    says_of_you, words, FAVOURITE, GLAD, HEARING, INSULTS, NOT, PRAISE, SAD, SECOND_PERSON,
    SPEAKER, TALKING, TALK_WORDS, WANTING,
};
use crate::intent::Intent;
use crate::messages::Texts;

/// The conversational intent a message left to a plain reply is by its form, whatever
/// example it came nearest: a short question offering a choice («Чай или кофе?», "Cats or
/// dogs?"), a trouble or good news told of oneself ("My cat died", «У меня сегодня день
/// рождения!»), a rude word or praise said to the assistant ("I hate you", "You're the
/// best"), whether the assistant likes the user ([`asks_fondness`]) or has what a person
/// has ([`asks_of_nature`]). `None`: none of these.
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
        if offers {
            return Some(Intent::Choice);
        }
        if asks_fondness(&words) {
            return Some(Intent::Fondness);
        }
        return asks_of_nature(&words).then_some(Intent::Nature);
    }
    if has(SECOND_PERSON) {
        // A rude word, or praise said of the assistant ("You're the best assistant ever").
        if stem(INSULTS) && !stem(PRAISE) {
            return Some(Intent::Insult);
        }
        return (stem(PRAISE) && !stem(INSULTS) && says_of_you(&words))
            .then_some(Intent::Compliment);
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
/// over the clock, a trouble or good news told ("It's my birthday today!"). Whether the
/// assistant likes the user over any intent; what it is like beside a person over a formula
/// or praise or a rude word when it compares, over the clock when no word of the time is
/// said. `None`: the route stands.
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
    let routed = Intent::from_target(target);
    // Whether the assistant likes the user is never a task nor a formula; what the
    // assistant is like beside a person is asked over a formula or a rude word only when it
    // compares ("Are you smarter than me?" came nearest to who it is, «Ты умнее меня?» to an
    // insult): "Are you a robot?" is who it is.
    match told {
        Intent::Fondness => return routed.is_some().then_some(told),
        Intent::Nature => {
            let over = routed.is_some_and(|i| {
                matches!(
                    i,
                    Intent::Identity | Intent::HowAreYou | Intent::Insult | Intent::Compliment
                ) && compares(&words)
            });
            // Nor is it the clock's unless it says a word of the time ("Do you have the
            // time?" asks it; «А день рождения у тебя есть?» does not).
            let clock = target == "get_current_time"
                && !words.iter().any(|w| TIME_WORDS.contains(&w.as_str()));
            return (over || clock).then_some(told);
        }
        _ => {}
    }
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

/// The mood a story goes on with: after the assistant answered a feeling or good news
/// (`previous_reply`, [`Texts::mood_replied`]), a short statement that tells more of it,
/// opening with who it is about ("He was fifteen years old", «Ей было пятнадцать лет», "We
/// had him for years"), is that mood again, whatever it came nearest: a plain reply, a
/// formula, the other mood ("She had a good life" is no good news), or the clock. A question
/// or a wish is none ("I want to know what time it is").
pub(crate) fn told_sequel(
    previous_reply: Option<&str>,
    target: Option<&str>,
    text: &str,
) -> Option<Intent> {
    let mood = Texts::mood_replied(previous_reply?)?;
    if text.split_whitespace().count() > TALK_WORDS
        || super::text::delimited_text(text).is_some()
        || super::answers::is_question(text)
    {
        return None;
    }
    let words = words(text);
    let subject = words
        .iter()
        .find(|w| !STORY_LEAD_INS.contains(&w.as_str()))
        .is_some_and(|w| STORY_SUBJECTS.contains(&w.as_str()));
    if !subject || wants(&words) || words.iter().any(|w| QUESTION_OPENERS.contains(&w.as_str())) {
        return None;
    }
    // ("It's okay", «Я знаю»: a short acknowledgement stays one.)
    let short_ack = |i: Intent| i == Intent::Acknowledgement && words.len() <= 3;
    let over = match target {
        None => true,
        Some("get_current_time") => true,
        Some(t) => Intent::from_target(t).is_some_and(|i| {
            !short_ack(i)
                && matches!(
                    i,
                    Intent::Acknowledgement
                        | Intent::Greeting
                        | Intent::HowAreYou
                        | Intent::Identity
                        | Intent::Capabilities
                        | Intent::Compliment
                        | Intent::Feeling
                        | Intent::GoodNews
                        | Intent::OutOfScope
                )
        }),
    };
    over.then_some(mood)
}

/// Words a story's next sentence may open with before who it is about: "and", «а», «но».
const STORY_LEAD_INS: &[&str] = &[
    "and", "but", "so", "well", "yes", "yeah", "oh", "а", "и", "но", "да", "ну", "ведь", "вот",
];

/// Who a story's next sentence is about (whole words): the user, those with them, someone
/// told of ("he", «ей», "my", «у» as in «у него»).
const STORY_SUBJECTS: &[&str] = &[
    "he", "she", "it", "they", "we", "i", "i'm", "i've", "it's", "he's", "she's", "we're",
    "they're", "my", "his", "her", "their", "our", "он", "она", "оно", "они", "мы", "я", "ему",
    "ей", "его", "её", "ее", "их", "им", "мне", "нам", "мой", "моя", "моё", "мое", "мои", "наш",
    "наша", "наше", "наши", "у",
];

/// Whether `words` (lower case) ask whether the assistant likes the user: a question with a
/// word of liking, the assistant and the user ("Do you like me?", «Я тебе нравлюсь?», "Am I
/// your favourite?"), no question word ("why do you like me?" asks why) and no wish ("would
/// you like me to…" offers).
pub(super) fn asks_fondness(words: &[String]) -> bool {
    let has = |list: &[&str]| words.iter().any(|w| list.contains(&w.as_str()));
    let stem = |stems: &[&str]| words.iter().any(|w| stems.iter().any(|s| w.starts_with(s)));
    stem(LIKING) && has(SECOND_PERSON) && has(THE_USER) && !has(QUESTION_OPENERS) && !wants(words)
}

/// Whether `words` (lower case) ask whether the assistant has or does what a person has or
/// does: a yes-or-no question put to the assistant ("Do you dream?", «У тебя есть
/// семья?», "Are you smarter than me?") that asks for no task, no ability, nothing done, no
/// hearing, no mood of the formula and no taste ([`NOT_NATURE`]), and says no rude word
/// nor praise.
pub(super) fn asks_of_nature(words: &[String]) -> bool {
    let has = |list: &[&str]| words.iter().any(|w| list.contains(&w.as_str()));
    let stem = |stems: &[&str]| words.iter().any(|w| stems.iter().any(|s| w.starts_with(s)));
    // «Ты понял?», «Ты записал?»: a Russian past form asks what was done.
    let done = words.iter().any(|w| {
        let n = w.chars().count();
        n >= 4
            && w.chars().all(|c| ('а'..='я').contains(&c) || c == 'ё')
            && ["л", "ла", "лся", "лась"].iter().any(|e| w.ends_with(e))
    });
    has(SECOND_PERSON)
        && !has(QUESTION_OPENERS)
        && !has(NOT_NATURE)
        && !stem(FAVOURITE)
        && !stem(HEARING)
        && !stem(TALKING)
        && !stem(INSULTS)
        && (!stem(PRAISE) || compares(words))
        && !done
        && !wants(words)
}

/// Whether `words` (lower case) compare ("smarter *than* me", «умнее меня», «лучше, *чем*
/// я»): a Russian comparative ends in «-ее» or is one of the short ones.
fn compares(words: &[String]) -> bool {
    words.iter().any(|w| {
        matches!(
            w.as_str(),
            "than" | "чем" | "лучше" | "хуже" | "старше" | "младше" | "больше" | "меньше"
        ) || (w.chars().count() >= 5
            && w.ends_with("ее")
            && w.chars().all(|c| ('а'..='я').contains(&c) || c == 'ё'))
    })
}

/// Words of the time and date (whole): a question to the assistant that says one may ask
/// the clock ("Do you have the time?").
const TIME_WORDS: &[&str] = &[
    "time",
    "clock",
    "hour",
    "hours",
    "date",
    "today",
    "now",
    "время",
    "времени",
    "час",
    "часа",
    "часов",
    "число",
    "дата",
    "сегодня",
    "сейчас",
];

/// Stems of liking (both languages): whether the assistant likes the user.
const LIKING: &[&str] = &[
    "нрав",
    "люб",
    "симпат",
    "дорог",
    "like",
    "love",
    "care",
    "favourit",
    "favorit",
];

/// The user as the one liked: "me", «меня», «я».
const THE_USER: &[&str] = &["me", "i", "меня", "я", "мной"];

/// Words of a question to the assistant that asks for something else than what it is like
/// beside a person (whole words): a task or an ability ("can you…", «можешь…», "do you
/// know…"), whether it is there or done, the how-are-you formula ("are you okay"), a doubt
/// ("are you sure?"), a thing of the user's ("do you have my notes?").
const NOT_NATURE: &[&str] = &[
    "can",
    "could",
    "will",
    "would",
    "able",
    "please",
    "know",
    "tell",
    "show",
    "help",
    "remember",
    "mind",
    "did",
    "get",
    "got",
    "understand",
    "mean",
    "there",
    "here",
    "still",
    "ok",
    "okay",
    "alright",
    "doing",
    "going",
    "ready",
    "free",
    "busy",
    "sure",
    "serious",
    "kidding",
    "joking",
    "working",
    "awake",
    "on",
    "with",
    "можешь",
    "можете",
    "сможешь",
    "умеешь",
    "умеете",
    "знаешь",
    "знаете",
    "скажешь",
    "подскажешь",
    "поможешь",
    "покажешь",
    "помнишь",
    "хочешь",
    "тут",
    "здесь",
    "готов",
    "свободен",
    "занят",
    "уверен",
    "серьёзно",
    "серьезно",
    "шутишь",
    "понимаешь",
    "работаешь",
    "со",
    "ещё",
    "еще",
    "my",
    "our",
    "мой",
    "моя",
    "моё",
    "мое",
    "мои",
    "моих",
    "моим",
    "моей",
    "моему",
    "наш",
    "наша",
    "наше",
    "наши",
];

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
    "что делаешь",
    "что ты делаешь",
    "чем ты занимаешься",
    "что поделываешь",
    "чем занимаешься",
    "what are you doing",
    "what are you up to",
];

/// Stems of [`SAD`] and [`GLAD`] too common in other statements to tell a mood by form
/// alone ([`told_intent`]): "I'll write it down", "I got home", "we're going away".
const UNTOLD: &[&str] = &["down", "away", "got"];

/// Words a question opens with (after «а», "so"…) that ask for a fact, not a task.
pub(super) const QUESTION_OPENERS: &[&str] = &[
    "кто",
    "что",
    "какой",
    "какая",
    "какое",
    "какие",
    "каких",
    "каком",
    "какого",
    "каким",
    "какую",
    "кого",
    "чего",
    "чем",
    "сколько",
    "где",
    "когда",
    "почему",
    "зачем",
    "как",
    "чему",
    "при",
    "who",
    "what",
    "what's",
    "whats",
    "which",
    "where",
    "when",
    "why",
    "how",
];

/// Whether `text` is a question opening with a question word ("How do you say thank you in
/// Spanish?", «Что значит «привет»?»), not an offer ("how about showing it…"): no request
/// to show a text.
pub(crate) fn asks_with_question_word(text: &str) -> bool {
    let words = words(text);
    opens_with_question_word(&words)
        && !(words.first().is_some_and(|w| w == "how")
            && words.get(1).is_some_and(|w| w == "about"))
}

/// Whether `words` (lower case) open, after lead-ins ([`LEAD_INS`]), with a question
/// word of fact ([`QUESTION_OPENERS`]).
pub(super) fn opens_with_question_word(words: &[String]) -> bool {
    words
        .iter()
        .find(|w| !LEAD_INS.contains(&w.as_str()))
        .is_some_and(|w| QUESTION_OPENERS.contains(&w.as_str()))
}

/// Whether `words` (lower case) ask a yes-or-no question of fact, not put to the assistant:
/// opening (after lead-ins) with "is", "does", "should"… not followed by "you" ("Is it safe
/// to swim after eating?", "Do cats dream?"; "Do you deliver?" may ask a task of it), or with
/// a word and «ли» («Полезно ли бегать по утрам?»; «Можно ли…», «Можешь ли…» ask for
/// something).
pub(super) fn asks_yes_or_no(words: &[String]) -> bool {
    let mut rest = words
        .iter()
        .skip_while(|w| LEAD_INS.contains(&w.as_str()))
        .map(String::as_str);
    let (Some(first), second) = (rest.next(), rest.next()) else {
        return false;
    };
    let english = matches!(
        first,
        "is" | "are"
            | "was"
            | "were"
            | "isn't"
            | "aren't"
            | "does"
            | "doesn't"
            | "do"
            | "did"
            | "has"
            | "should"
            | "shall"
    ) && !matches!(second, Some("you" | "u" | "ya"));
    let russian = second == Some("ли")
        && !matches!(
            first,
            "можно" | "можешь" | "можете" | "сможешь" | "сможете" | "не" | "нельзя"
        );
    english || russian
}

/// Words a question may open with before its question word: a lead-in («а», "so") or a
/// preposition ("*At* what temperature…", «*В* каком году…»).
const LEAD_INS: &[&str] = &[
    "а", "и", "ну", "в", "во", "на", "с", "со", "о", "об", "до", "от", "за", "по", "для", "из",
    "and", "so", "ok", "okay", "at", "in", "on", "for", "to", "from", "with", "of", "by",
];
