//! The replies to conversational messages ([`Intent`]), in Russian and English: a few
//! variants each, so the assistant does not say the same sentence every time; what the
//! assistant can do is said from the host's own tools ([`Texts::capabilities`]).

use super::{Lang, Texts};
use crate::intent::{Intent, Operation};

/// The variants of an intent's reply in `lang`; `{caps}` stands for what the assistant can
/// do ([`Texts::capabilities`]).
fn variants(lang: Lang, intent: Intent) -> &'static [&'static str] {
    match (lang, intent) {
        (Lang::Ru, Intent::Greeting) => &[
            "Привет! Я Порфирий. Чем могу помочь?",
            "Здравствуйте! Я Порфирий, слушаю вас.",
            "Привет! Порфирий на связи. Что сделать?",
        ],
        (Lang::Ru, Intent::HowAreYou) => &[
            "Всё хорошо, спасибо! Я здесь и слушаю. Чем помочь?",
            "Отлично, спасибо, что спросили. Я здесь и готов помочь: что сделать?",
        ],
        (Lang::Ru, Intent::Thanks) => &["Пожалуйста!", "Рад помочь!", "Всегда пожалуйста."],
        (Lang::Ru, Intent::Farewell) => &["До свидания!", "Пока! Обращайтесь.", "До встречи!"],
        (Lang::Ru, Intent::Acknowledgement) => &["Хорошо.", "Отлично!", "Договорились."],
        (Lang::Ru, Intent::Identity) => &[
            "Я Порфирий, ваш голосовой помощник: программа в вашем устройстве. Я умею {caps}.",
            "Меня зовут Порфирий, я голосовой помощник, программа в вашем устройстве. Могу {caps}.",
        ],
        (Lang::Ru, Intent::Capabilities) => &["Я умею {caps}.", "Могу {caps}."],
        (Lang::Ru, Intent::Joke) => &[
            "Сидит батарейка и грустит. Её спрашивают: «Что случилось?» — «Да вот, села».",
            "Штирлиц долго смотрел в одну точку. Потом в другую. «Двоеточие», — догадался Штирлиц.",
            "Встречаются два кота. Один говорит: «Мяу». Второй: «Гав». — «Ты чего?» — «Языки учу».",
        ],
        (Lang::Ru, Intent::OutOfScope) => &[
            "Этого я пока не умею. Зато могу {caps}.",
            "Такого я не умею. Я могу {caps}.",
        ],
        (Lang::Ru, Intent::Feeling) => &[
            "Сочувствую. Всё будет хорошо, а я рядом, если захотите поговорить.",
            "Мне жаль, сочувствую. Всё будет хорошо, я здесь, можем поговорить.",
        ],
        (Lang::Ru, Intent::GoodNews) => &[
            "Поздравляю! Это замечательно!",
            "Вот это здорово, поздравляю!",
        ],
        (Lang::Ru, Intent::Compliment) => &[
            "Спасибо, очень приятно!",
            "Спасибо! Мне приятно это слышать.",
        ],
        (Lang::Ru, Intent::Insult) => &[
            "Простите, если я вас подвёл. Я постараюсь стать лучше.",
            "Жаль, что так вышло. Попробуем ещё раз?",
        ],
        (Lang::Ru, Intent::HearMe) => &["Да, я вас слышу.", "Да, слышу, я здесь."],
        (Lang::Ru, Intent::Laughter) => &["Рад, что вам весело!", "Рад, что вас это рассмешило!"],
        (Lang::Ru, Intent::Choice) => &[
            "Оба варианта хороши: всё зависит от вашего вкуса.",
            "Тут дело вкуса: у обоих вариантов есть свои плюсы.",
        ],
        (Lang::Ru, Intent::Taste) => &[
            "У меня нет любимого: я программа. А у вас?",
            "Любимого у меня нет, я же программа. А что нравится вам?",
        ],
        (Lang::Ru, Intent::Chat) => &[
            "Конечно, с удовольствием! О чём поговорим?",
            "С радостью! Я слушаю: о чём хотите поговорить?",
        ],
        (Lang::Ru, Intent::Nature) => &[
            "Нет, не как человек: я программа в вашем устройстве. Но я всегда рад помочь.",
            "Нет, я ведь программа, а не человек. Зато я всегда рядом, если нужна помощь.",
        ],
        (Lang::Ru, Intent::Fondness) => &[
            "Конечно! Мне приятно с вами общаться.",
            "Конечно, да! Я рад нашим разговорам.",
        ],
        (Lang::En, Intent::Greeting) => &[
            "Hi! I'm Porfiry. How can I help?",
            "Hello! Porfiry here. What can I do for you?",
            "Hi there! I'm Porfiry, and I'm listening.",
        ],
        (Lang::En, Intent::HowAreYou) => &[
            "I'm doing well, thanks: I'm here and listening. How can I help?",
            "All good, thank you for asking. I'm right here: what can I do for you?",
        ],
        (Lang::En, Intent::Thanks) => &["You're welcome!", "Glad to help!", "My pleasure!"],
        (Lang::En, Intent::Farewell) => &["Goodbye!", "Bye! Talk to you later.", "See you!"],
        (Lang::En, Intent::Acknowledgement) => &["Okay.", "Great!", "Sure thing."],
        (Lang::En, Intent::Identity) => &[
            "I'm Porfiry, your voice assistant: a program in your device. I can {caps}.",
            "My name is Porfiry. I'm a voice assistant program in your device, and I can {caps}.",
        ],
        (Lang::En, Intent::Capabilities) => &["I can {caps}.", "I'm able to {caps}."],
        (Lang::En, Intent::Joke) => &[
            "Why don't skeletons fight each other? They don't have the guts.",
            "Why did the scarecrow win an award? He was outstanding in his field.",
            "I told my phone a joke about batteries. It didn't get a charge out of it.",
        ],
        (Lang::En, Intent::OutOfScope) => &[
            "I can't do that yet. But I can {caps}.",
            "Sorry, that's beyond me for now. I can {caps}.",
        ],
        (Lang::En, Intent::Feeling) => &[
            "I'm sorry to hear that. You'll be okay, and I'm here if you want to chat.",
            "I'm sorry, that sounds hard. You'll be okay, and I'm here for you to chat.",
        ],
        (Lang::En, Intent::GoodNews) => &[
            "Congratulations! That's wonderful news!",
            "That's great, congratulations!",
        ],
        (Lang::En, Intent::Compliment) => &[
            "Thank you, that's very kind of you!",
            "Thanks, that's nice to hear!",
        ],
        (Lang::En, Intent::Insult) => &[
            "I'm sorry if I let you down. I'll try to do better.",
            "Sorry about that. Let me try again.",
        ],
        (Lang::En, Intent::HearMe) => &["Yes, I hear you.", "Yes, I can hear you. I'm listening."],
        (Lang::En, Intent::Laughter) => &["Glad you're amused!", "Glad that made you laugh!"],
        (Lang::En, Intent::Choice) => &[
            "Both are good: it depends on what you prefer.",
            "It's a matter of taste: both have their merits, so go with whichever you like.",
        ],
        (Lang::En, Intent::Taste) => &[
            "I don't have a favourite: I'm a program. What's yours?",
            "I don't have one, being a program. What do you like?",
        ],
        (Lang::En, Intent::Chat) => &[
            "Sure, happy to chat! What's on your mind?",
            "Of course! I'm listening: what would you like to talk about?",
        ],
        (Lang::En, Intent::Nature) => &[
            "No, not like a person: I'm a program in your device. But I'm always glad to help.",
            "Not really: I'm a program, not a person. But I'm always here when you need help.",
        ],
        (Lang::En, Intent::Fondness) => &[
            "Of course! I enjoy talking with you.",
            "Of course I do! I'm always glad to talk with you.",
        ],
    }
}

/// What goes on answering a feeling or good news when the user tells more of it («Ей было
/// пятнадцать лет» after «У меня умерла собака»): sympathy or joy again, in other words.
fn sequels(lang: Lang, intent: Intent) -> &'static [&'static str] {
    match (lang, intent) {
        (Lang::Ru, Intent::Feeling) => &[
            "Понимаю, как это тяжело. Мне очень жаль, я рядом, если захотите рассказать ещё.",
            "Спасибо, что делитесь. Мне правда жаль, я здесь и слушаю.",
        ],
        (Lang::Ru, Intent::GoodNews) => &[
            "Как здорово! Я очень рад за вас.",
            "Замечательно, я правда рад за вас!",
        ],
        (Lang::En, Intent::Feeling) => &[
            "I understand how hard that is. I'm so sorry, and I'm here if you want to tell me more.",
            "Thank you for telling me. I'm so sorry, and I'm listening.",
        ],
        (Lang::En, Intent::GoodNews) => &[
            "How wonderful! I'm really happy for you.",
            "That's great, I'm so happy for you!",
        ],
        _ => &[],
    }
}

/// The parts of the question-and-answer transcript ([`Texts::answer_transcript`]).
#[derive(Debug, Clone, Copy)]
pub struct AnswerTranscript {
    /// Who answers, as the request's system text.
    pub persona: &'static str,
    /// The label of a question line («Вопрос», "Question").
    pub question: &'static str,
    /// The label of an answer line («Ответ», "Answer").
    pub answer: &'static str,
    /// Worked exchanges, `(question, answer)`.
    pub shots: &'static [(&'static str, &'static str)],
}

impl Texts {
    /// The reply to a conversational message of `intent`: variant `variant` (any number;
    /// taken modulo the number of variants), with `caps` ([`Texts::capabilities`]) where
    /// it says what the assistant can do.
    pub fn talk_reply(self, intent: Intent, variant: usize, caps: &str) -> String {
        let all = variants(self.lang(), intent);
        let text = all[variant % all.len()];
        text.replace("{caps}", caps)
    }

    /// The reply that goes on answering a feeling or good news (`intent`) when the user
    /// tells more of it, variant `variant` (taken modulo the number of variants); `None` for
    /// another intent.
    pub fn mood_sequel(self, intent: Intent, variant: usize) -> Option<&'static str> {
        let all = sequels(self.lang(), intent);
        (!all.is_empty()).then(|| all[variant % all.len()])
    }

    /// The mood (a feeling or good news) that `reply`, a reply of the assistant, answered:
    /// one of the catalog's replies to it or their sequels ([`Texts::mood_sequel`]), in
    /// either language.
    pub fn mood_replied(reply: &str) -> Option<Intent> {
        let reply = reply.trim();
        [Intent::Feeling, Intent::GoodNews]
            .into_iter()
            .find(|&intent| {
                [Lang::Ru, Lang::En].into_iter().any(|lang| {
                    variants(lang, intent)
                        .iter()
                        .chain(sequels(lang, intent))
                        .any(|v| *v == reply)
                })
            })
    }

    /// The honest decline of a reply the model could not give
    /// ([`crate::Technique::HonestDecline`]): that the assistant does not know (`question`)
    /// or has nothing to say to it, then what it can do (`caps`, [`Texts::capabilities`]);
    /// variant `variant` (taken modulo the number of variants).
    pub fn honest_decline(self, question: bool, variant: usize, caps: &str) -> String {
        let all: &[&str] = match (self.lang(), question) {
            (Lang::Ru, true) => &[
                "Этого я не знаю, тут я не могу подсказать. Я могу {caps}.",
                "Не знаю, тут я не могу подсказать. Зато я могу {caps}.",
            ],
            (Lang::Ru, false) => &[
                "С этим я не могу помочь, не знаю, что ответить. Я могу {caps}.",
                "Тут я не могу помочь, не знаю, что ответить. Зато я могу {caps}.",
            ],
            (Lang::En, true) => &[
                "I don't know that. I can {caps}.",
                "I'm not sure, I don't know that. But I can {caps}.",
            ],
            (Lang::En, false) => &[
                "I can't help with that, I'm not sure what to say. But I can {caps}.",
                "I'm not sure what to say to that, I can't help there. But I can {caps}.",
            ],
        };
        all[variant % all.len()].replace("{caps}", caps)
    }

    /// The answer to an arithmetic question `left op right`, the numbers as said;
    /// `answer` `None`: a division by zero.
    pub fn arithmetic_answer(
        self,
        left: &str,
        op: Operation,
        right: &str,
        answer: Option<&str>,
    ) -> String {
        let Some(answer) = answer else {
            return match self.lang() {
                Lang::Ru => "На ноль делить нельзя.".to_string(),
                Lang::En => "You can't divide by zero.".to_string(),
            };
        };
        match self.lang() {
            Lang::Ru => {
                let op = match op {
                    Operation::Add => "плюс",
                    Operation::Subtract => "минус",
                    Operation::Multiply => "умножить на",
                    Operation::Divide => "разделить на",
                };
                format!("{left} {op} {right} будет {answer}.")
            }
            Lang::En => {
                let op = match op {
                    Operation::Add => "plus",
                    Operation::Subtract => "minus",
                    Operation::Multiply => "times",
                    Operation::Divide => "divided by",
                };
                format!("{left} {op} {right} is {answer}.")
            }
        }
    }

    /// The answer to a question of the day `offset` days from today (never 0), said as
    /// `weekday` and `date` (without the year).
    pub fn day_answer(self, offset: i64, weekday: &str, date: &str) -> String {
        match self.lang() {
            Lang::Ru => {
                let when = match offset {
                    1 => "Завтра",
                    2 => "Послезавтра",
                    -1 => "Вчера",
                    -2 => "Позавчера",
                    _ => "В тот день",
                };
                format!("{when} — {weekday}, {date}.")
            }
            Lang::En => {
                let when = match offset {
                    1 => "Tomorrow is",
                    2 => "The day after tomorrow is",
                    -1 => "Yesterday was",
                    -2 => "The day before yesterday was",
                    _ => "That day is",
                };
                format!("{when} {weekday}, {date}.")
            }
        }
    }

    /// The question-and-answer transcript a question of fact is asked in
    /// ([`crate::Technique::AnswerTranscript`]): a persona line (the request's system
    /// text), the labels of a question and of an answer, and a few worked exchanges of
    /// different kinds (a count, a colour, an author, a superlative, a place, the assistant
    /// itself). Written apart from every eval case.
    pub fn answer_transcript(self) -> AnswerTranscript {
        match self.lang() {
            Lang::Ru => AnswerTranscript {
                persona: "Порфирий — голосовой помощник. Он отвечает на вопросы коротко и верно.",
                question: "Вопрос",
                answer: "Ответ",
                shots: &[
                    ("Сколько ног у паука?", "У паука восемь ног."),
                    ("Какого цвета спелый помидор?", "Спелый помидор красный."),
                    ("Кто написал «Евгения Онегина»?", "Александр Пушкин."),
                    ("Какая планета самая большая?", "Юпитер."),
                    ("Где живут пингвины?", "В Антарктиде."),
                    (
                        "Ты живой?",
                        "Нет, я Порфирий, голосовой помощник, программа.",
                    ),
                ],
            },
            Lang::En => AnswerTranscript {
                persona:
                    "Porfiry is a voice assistant. He answers questions briefly and correctly.",
                question: "Question",
                answer: "Answer",
                shots: &[
                    (
                        "How many legs does a spider have?",
                        "A spider has eight legs.",
                    ),
                    ("What color is a ripe tomato?", "A ripe tomato is red."),
                    ("Who wrote Romeo and Juliet?", "William Shakespeare."),
                    ("Which planet is the largest?", "Jupiter."),
                    ("Where do penguins live?", "In Antarctica."),
                    (
                        "Are you alive?",
                        "No, I'm Porfiry, a voice assistant program.",
                    ),
                ],
            },
        }
    }

    /// What the assistant can do, as one phrase that follows «Я умею» / "I can": the core
    /// tools' (the time, text on the glasses) and then `sets` (each set's spoken phrase,
    /// [`crate::Toolset::spoken_in`]), joined as a list.
    pub fn capabilities(self, sets: &[&str]) -> String {
        self.capabilities_of(sets, false)
    }

    /// [`Texts::capabilities`] with `more`: the list ends in «и не только» / "and more" (the
    /// sets left out for a spoken reply's length).
    pub fn capabilities_of(self, sets: &[&str], more: bool) -> String {
        let core: [&str; 2] = match self.lang() {
            Lang::Ru => ["говорить время и дату", "показывать текст на очках"],
            Lang::En => ["tell the time and date", "show text on your glasses"],
        };
        let tail = match self.lang() {
            Lang::Ru => "не только",
            Lang::En => "more",
        };
        let items: Vec<&str> = core
            .iter()
            .copied()
            .chain(sets.iter().copied())
            .chain(more.then_some(tail))
            .collect();
        let and = match self.lang() {
            Lang::Ru => " и ",
            Lang::En => " and ",
        };
        match items.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{}{and}{last}", rest.join(", ")),
            Some((last, _)) => (*last).to_string(),
            None => String::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_differ_and_repeat_in_turn() {
        let t = Texts::new(Lang::En);
        assert_ne!(
            t.talk_reply(Intent::Thanks, 0, ""),
            t.talk_reply(Intent::Thanks, 1, "")
        );
        assert_eq!(
            t.talk_reply(Intent::Thanks, 0, ""),
            t.talk_reply(Intent::Thanks, 3, "")
        );
    }

    #[test]
    fn capabilities_read_as_a_list() {
        let en = Texts::new(Lang::En);
        assert_eq!(
            en.capabilities(&["take notes"]),
            "tell the time and date, show text on your glasses and take notes"
        );
        assert_eq!(
            Texts::new(Lang::Ru).capabilities(&[]),
            "говорить время и дату и показывать текст на очках"
        );
        assert_eq!(
            Texts::new(Lang::Ru).capabilities_of(&["искать фильмы"], true),
            "говорить время и дату, показывать текст на очках, искать фильмы и не только"
        );
        assert_eq!(
            en.capabilities_of(&[], true),
            "tell the time and date, show text on your glasses and more"
        );
    }
}
