//! What a conversational message is about: greetings, thanks, farewells and the other
//! turns a person says to an assistant that no tool serves and that a small model answers
//! badly. Routing recognizes them by example requests (`crate::guidance`), the message
//! catalog answers them ([`crate::Texts::talk_reply`]).

use std::fmt;

/// A kind of conversational message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Intent {
    /// «Привет», "good morning".
    Greeting,
    /// «Как дела?», "how are you?".
    HowAreYou,
    /// «Спасибо», "thanks".
    Thanks,
    /// «Пока», "bye".
    Farewell,
    /// «Хорошо», «отлично», "okay", "great": an acknowledgement that asks for nothing.
    Acknowledgement,
    /// «Кто ты?», "what's your name?".
    Identity,
    /// «Что ты умеешь?», "what can you do?".
    Capabilities,
    /// «Расскажи анекдот», "tell me a joke".
    Joke,
    /// A task the assistant has no tool for («вызови такси», "order a pizza"): declined with
    /// what it can do instead.
    OutOfScope,
    /// A feeling or a trouble of the user's own («мне грустно», "I had a rough week"):
    /// answered with sympathy.
    Feeling,
    /// Good news about the user («я сдал экзамен», "it's my anniversary"): congratulated.
    GoodNews,
    /// Praise of the assistant («ты умница», "you're brilliant"): thanked for.
    Compliment,
    /// An insult or a rude word to the assistant («ты дурак», "you're hopeless"): answered
    /// calmly, never in kind.
    Insult,
    /// Whether the assistant hears («ты меня слышишь?», "are you listening?"): yes.
    HearMe,
    /// Laughter («ахах», "lmao"): the laugh acknowledged.
    Laughter,
    /// A choice put to the assistant between things said («чай или кофе?», "summer or
    /// winter?"): both are fine, it depends on the user's taste.
    Choice,
    /// The assistant's own taste («какой твой любимый цвет?», "what's your favourite
    /// food?"): a program has no favourite; the user's is asked.
    Taste,
    /// An offer to talk («давай поболтаем», "can we chat?"): accepted, the topic asked.
    Chat,
    /// Whether the assistant has or does what a person has or does («Тебе снятся сны?»,
    /// "Do you have a birthday?", "Are you smarter than me?"): not as a person does, being
    /// a program.
    Nature,
    /// Whether the assistant likes the user («Я тебе нравлюсь?», "Do you like me?"): of
    /// course, it is glad to talk with them.
    Fondness,
}

impl Intent {
    /// Every intent.
    pub const ALL: [Intent; 20] = [
        Intent::Greeting,
        Intent::HowAreYou,
        Intent::Thanks,
        Intent::Farewell,
        Intent::Acknowledgement,
        Intent::Identity,
        Intent::Capabilities,
        Intent::Joke,
        Intent::OutOfScope,
        Intent::Feeling,
        Intent::GoodNews,
        Intent::Compliment,
        Intent::Insult,
        Intent::HearMe,
        Intent::Laughter,
        Intent::Choice,
        Intent::Taste,
        Intent::Chat,
        Intent::Nature,
        Intent::Fondness,
    ];

    /// Its name: `greeting`, `how-are-you`, `thanks`, `farewell`, `acknowledgement`,
    /// `identity`, `capabilities`, `joke`, `out-of-scope`, `feeling`, `good-news`,
    /// `compliment`, `insult`, `hear-me`, `laughter`, `choice`, `taste`, `chat`, `nature`,
    /// `fondness`.
    pub fn name(self) -> &'static str {
        match self {
            Intent::Greeting => "greeting",
            Intent::HowAreYou => "how-are-you",
            Intent::Thanks => "thanks",
            Intent::Farewell => "farewell",
            Intent::Acknowledgement => "acknowledgement",
            Intent::Identity => "identity",
            Intent::Capabilities => "capabilities",
            Intent::Joke => "joke",
            Intent::OutOfScope => "out-of-scope",
            Intent::Feeling => "feeling",
            Intent::GoodNews => "good-news",
            Intent::Compliment => "compliment",
            Intent::Insult => "insult",
            Intent::HearMe => "hear-me",
            Intent::Laughter => "laughter",
            Intent::Choice => "choice",
            Intent::Taste => "taste",
            Intent::Chat => "chat",
            Intent::Nature => "nature",
            Intent::Fondness => "fondness",
        }
    }

    /// The routing target that stands for it: `talk:<name>`, which no tool name can be
    /// (tool names are lower-case identifiers).
    pub fn target(self) -> String {
        format!("{TARGET_PREFIX}{}", self.name())
    }

    /// The intent a routing target stands for, if it is one.
    pub fn from_target(target: &str) -> Option<Intent> {
        let name = target.strip_prefix(TARGET_PREFIX)?;
        Intent::ALL.into_iter().find(|i| i.name() == name)
    }
}

/// An arithmetic operation of a question the agent computes
/// ([`crate::Technique::Arithmetic`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    /// `+`.
    Add,
    /// `−`.
    Subtract,
    /// `×`.
    Multiply,
    /// `÷`.
    Divide,
}

/// What an intent's routing target starts with.
pub const TARGET_PREFIX: &str = "talk:";

impl fmt::Display for Intent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_name_their_intent_and_nothing_else() {
        for i in Intent::ALL {
            assert_eq!(Intent::from_target(&i.target()), Some(i));
        }
        assert_eq!(Intent::from_target("get_current_time"), None);
        assert_eq!(Intent::from_target("talk:weather"), None);
        assert_eq!(Intent::from_target("greeting"), None);
    }
}
