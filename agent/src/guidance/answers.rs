//! Questions of fact asked in a question-and-answer transcript
//! ([`super::Technique::AnswerTranscript`]). A base model was never trained on chat turns:
//! asked «Какая столица Франции?» inside the chat template and the tool prompt it recites
//! the prompt, echoes the question or drifts into another language; the same model
//! continuing a plain transcript of questions and short answers says «Париж.». The request
//! is the transcript alone (a persona line, worked exchanges, the question, the answer's
//! label as the reply's prefix), not the session's history or prompt.

use crate::messages::Texts;

/// The most words of a question asked this way: a question of fact is short; a long
/// message carries a task for the model.
pub(crate) const QUESTION_WORDS: usize = 16;

/// Words a question opens with (either language), after a leading «а», «и», "and", "so".
const OPENERS: &[&str] = &[
    "кто",
    "что",
    "чем",
    "чего",
    "какой",
    "какая",
    "какое",
    "какие",
    "какого",
    "каким",
    "какую",
    "каких",
    "сколько",
    "где",
    "когда",
    "куда",
    "откуда",
    "почему",
    "зачем",
    "как",
    "чей",
    "чья",
    "чьё",
    "ли",
    "правда",
    "who",
    "whom",
    "whose",
    "what",
    "what's",
    "whats",
    "which",
    "how",
    "where",
    "when",
    "why",
    "is",
    "are",
    "was",
    "were",
    "do",
    "does",
    "did",
];

/// Words that may come before the question word.
const LEAD: &[&str] = &[
    "а",
    "и",
    "ну",
    "скажи",
    "подскажи",
    "слушай",
    "and",
    "so",
    "tell",
    "me",
    "hey",
    "ok",
    "okay",
];

/// Whether `text` asks a question: it ends with `?`, or (a speech recognizer drops the
/// mark) its first word past a lead-in is a question word. At most [`QUESTION_WORDS`]
/// words.
pub(crate) fn is_question(text: &str) -> bool {
    let words: Vec<String> = text
        .split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’'))
        .filter(|w| !w.is_empty())
        .map(|w| w.to_lowercase().replace('’', "'"))
        .collect();
    if words.is_empty() || words.len() > QUESTION_WORDS {
        return false;
    }
    if text.trim_end().ends_with('?') {
        return true;
    }
    words
        .iter()
        .find(|w| !LEAD.contains(&w.as_str()))
        .is_some_and(|w| OPENERS.contains(&w.as_str()))
}

/// Whether `reply` tells the user who they are ("You are a model.", «Ты — Лиза, голосовой
/// помощник.») while `user_text` says nothing of the user: a base model recites the frame
/// of its prompt («Ты — Порфирий…») instead of answering ([`super::Technique::HonestDecline`]
/// rejects such a reply).
pub(crate) fn tells_user_who_they_are(reply: &str, user_text: &str) -> bool {
    let words = |t: &str| -> Vec<String> {
        t.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’'))
            .filter(|w| !w.is_empty())
            .map(|w| w.to_lowercase().replace('’', "'"))
            .collect()
    };
    let reply = words(reply);
    let user = words(user_text);
    const SELF: &[&str] = &[
        "i", "i'm", "me", "my", "myself", "я", "мне", "меня", "мой", "моя", "мои", "моё", "мое",
    ];
    if user.iter().any(|w| SELF.contains(&w.as_str())) {
        return false;
    }
    match reply.as_slice() {
        [first, second, ..] if first == "you" && second == "are" => true,
        [first, ..] => matches!(first.as_str(), "you're" | "ты" | "вы"),
        [] => false,
    }
}

/// The transcript `question` is asked in, in the language of `texts`: the worked exchanges,
/// the conversation's `earlier` question and its answer when the question goes on from one
/// («Какого цвета небо?» — «Голубое.» — «А трава?»), then the question. The answer's label
/// follows as the reply's prefix ([`answer_prefix`]).
pub(crate) fn transcript(texts: Texts, earlier: Option<(&str, &str)>, question: &str) -> String {
    let t = texts.answer_transcript();
    let mut out = String::new();
    let exchanges = t.shots.iter().copied().chain(earlier);
    for (q, a) in exchanges {
        let (q, a) = (one_line(q), one_line(a));
        out.push_str(&format!("{}: {q}\n{}: {a}\n\n", t.question, t.answer));
    }
    out.push_str(&format!("{}: {}", t.question, one_line(question)));
    out
}

/// `text` on one line (a transcript's line ends its turn): its lines joined by spaces.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The reply's prefix: the answer's label («Ответ:»).
pub(crate) fn answer_prefix(texts: Texts) -> String {
    format!("{}:", texts.answer_transcript().answer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::messages::Lang;

    #[test]
    fn questions_are_told_by_their_mark_or_their_first_word() {
        for text in [
            "Какая столица Франции?",
            "а сколько весит слон",
            "Кто написал Войну и мир",
            "What's the capital of Italy",
            "And how tall is Everest",
            "Is the sun a star",
            "Почему небо голубое",
        ] {
            assert!(is_question(text), "{text}");
        }
        for text in [
            "Запиши: купить хлеб",
            "Покажи на экране привет",
            "Play the first one",
            "",
            "Спасибо",
            // A long message carries a task, whatever its first word.
            "Как мне записать в заметки что завтра в девять утра встреча с Анной у входа в офис на третьем этаже",
        ] {
            assert!(!is_question(text), "{text}");
        }
    }

    #[test]
    fn a_reply_telling_the_user_who_they_are_is_told_apart() {
        assert!(tells_user_who_they_are(
            "You are a modeler.",
            "What's the capital of Canada?"
        ));
        assert!(tells_user_who_they_are(
            "Ты — Лиза, голосовой помощник.",
            "Кто нарисовал «Мону Лизу»?"
        ));
        assert!(!tells_user_who_they_are(
            "You are welcome.",
            "Am I doing this right?"
        ));
        assert!(!tells_user_who_they_are(
            "Ottawa.",
            "What's the capital of Canada?"
        ));
    }

    #[test]
    fn the_transcript_ends_with_the_question_and_the_answer_follows_as_a_prefix() {
        let texts = Texts::new(Lang::Ru);
        let t = transcript(texts, None, " Какая столица Франции? ");
        assert!(t.starts_with("Вопрос: "));
        assert!(t.ends_with("\n\nВопрос: Какая столица Франции?"));
        assert_eq!(
            t.matches("Ответ: ").count(),
            texts.answer_transcript().shots.len()
        );
        // An earlier exchange goes last before the question, each on its own lines.
        let t = transcript(texts, Some(("Какого цвета\nнебо?", "Голубое.")), "А трава?");
        assert!(
            t.ends_with("Вопрос: Какого цвета небо?\nОтвет: Голубое.\n\nВопрос: А трава?"),
            "{t}"
        );
        assert_eq!(answer_prefix(texts), "Ответ:");
        assert_eq!(answer_prefix(Texts::new(Lang::En)), "Answer:");
    }
}
