//! Questions of how something works or what it can do, and requests that name a skill
//! ([`super::Technique::SkillQuestions`]): a skill's subject asked about this way wants its
//! instructions read, not its tools run.

use super::words::lower_words;

/// Words that name instructions themselves (by the start of a word, both languages).
const SKILL_WORDS: &[&str] = &[
    "скил",
    "скилл",
    "навык",
    "инструкц",
    "skill",
    "instruction",
    "manual",
];

/// The question words of a how-to question.
const HOW: &[&str] = &["как", "how"];

/// The verbs between "how" and its "I" in a question of how one does a thing.
const MODALS: &[&str] = &["do", "can", "should", "would", "could", "shall", "might"];

/// What a how-to question asks of its subject: how it works, is used, is set up or handled
/// (by the start of a word, both languages).
const WORKINGS: &[&str] = &[
    "работа",
    "устро",
    "пользова",
    "обраща",
    "work",
    "use",
    "using",
    "handle",
    "supposed",
];

/// Whether `text` asks how something works or is used («Как у тебя устроены заметки?», "how
/// are notes supposed to work here", "read up on how you handle films") or what it can do
/// ("what can the film feature do", «что умеет функция с фильмами»), or names a skill or
/// instructions ("Read the skill about notes"). Whether the subject is a skill's is for the
/// caller to find.
pub(crate) fn asks_how_to(text: &str) -> bool {
    let words = lower_words(text);
    let starts = |stems: &[&str]| words.iter().any(|w| stems.iter().any(|s| w.starts_with(s)));
    let has = |word: &str| words.iter().any(|w| w == word);
    // What something can do is how it works: "what can the film feature do", «что умеет
    // функция с фильмами», "walk me through what it does", and so is what one can do with
    // it ("what can I do with the notes"; never "what can I do tonight").
    let what_it_does =
        (has("what") && has("can") && has("do") && (has("with") || !(has("i") || has("we"))))
            || (has("что") && starts(&["умее", "умеют"]))
            || (has("что") && starts(&["можн"]) && starts(&["делат"]))
            || (has("walk") && has("through"));
    // How to get the assistant to do it is how it is used: "how do I get you to take notes".
    let how = words.iter().any(|w| HOW.contains(&w.as_str()));
    let getting_you = has("you") && (has("get") || has("make"));
    // How one does a thing is asked of how it is done: "how do I get rid of a note", "how
    // can we look for a film", «как мне удалить заметку», «как добавить заметку» (never
    // "how many do I have", «как дела»).
    let how_one_does = words.windows(3).any(|w| {
        w[0] == "how"
            && MODALS.contains(&w[1].as_str())
            && matches!(w[2].as_str(), "i" | "we" | "one")
    }) || words.windows(2).enumerate().any(|(i, w)| {
        let verb = if matches!(w[1].as_str(), "мне" | "нам") {
            words.get(i + 2).map(String::as_str).unwrap_or_default()
        } else {
            w[1].as_str()
        };
        w[0] == "как" && (verb.ends_with("ть") || verb.ends_with("ти"))
    });
    starts(SKILL_WORDS)
        || what_it_does
        || how_one_does
        || starts(&["explain", "объясн"])
        || (how && (starts(WORKINGS) || getting_you))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn how_to_questions_and_skill_names_are_told_from_requests() {
        for asks in [
            "а как у тебя вообще заметки устроены",
            "Сначала прочитай, как работать с заметками",
            "Как мне пользоваться фильмами?",
            "how are notes supposed to work here",
            "before you start, read up on how you handle films",
            "How do I use the notes?",
            "Read the skill about notes",
            "Открой инструкцию по заметкам",
            "So what can the notes thing do?",
            "а что умеет функция с заметками",
            "Что можно делать с заметками?",
            "Could you walk me through the notes?",
            "What can we do with the notes, then?",
            "how do i get you to take notes",
            "explain the notes to me",
            "Объясни мне про заметки",
            "how do i get rid of a note",
            "How can we look for a film?",
            "как мне удалить заметку",
            "Как добавить заметку?",
        ] {
            assert!(asks_how_to(asks), "{asks}");
        }
        for request in [
            "Покажи мои заметки",
            "Как дела?",
            "How long until noon?",
            "Запиши: работа в девять",
            "What notes do I have?",
            "Find a film about how the universe works",
            "Как называется этот фильм",
            "What can I do tonight?",
            "Что ты делал вчера?",
            "how do I get to the station",
            "How many notes do I have?",
            "как там погода",
            "Как называется этот фильм",
        ] {
            // These two ask how, but of nothing a skill covers: the caller checks that.
            let expected = request.contains("universe") || request.contains("station");
            assert_eq!(asks_how_to(request), expected, "{request}");
        }
    }
}
