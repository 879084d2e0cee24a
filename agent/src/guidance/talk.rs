//! Conversational messages answered in the product's own words
//! ([`super::Technique::TalkIntents`]): the example requests of each [`Intent`] beside the
//! chit-chat examples of the routing table ([`super::examples`]), so the router that picks
//! a tool also tells a greeting from thanks; the turn then answers from the message
//! catalog ([`crate::Texts::talk_reply`]) instead of a tiny model's guess.
//!
//! Written apart from every eval case (a test checks that none is one).

use super::told::{
    asks_fondness, asks_of_nature, asks_yes_or_no, of_speaker, opens_with_question_word, wants,
};
use crate::intent::Intent;
use crate::messages::Lang;

/// More example requests per intent in `lang`, as `(intent, text)`.
pub(crate) fn talk_examples(lang: Lang) -> &'static [(Intent, &'static str)] {
    match lang {
        Lang::Ru => RU_TALK,
        Lang::En => EN_TALK,
    }
}

const RU_TALK: &[(Intent, &str)] = &[
    (Intent::Greeting, "Здравствуй"),
    (Intent::Greeting, "Добрый день"),
    (Intent::Greeting, "Доброе утро, Порфирий"),
    (Intent::Greeting, "Приветствую"),
    (Intent::Greeting, "Хай, ты тут?"),
    (Intent::HowAreYou, "Как поживаешь?"),
    (Intent::HowAreYou, "Как твоё настроение?"),
    (Intent::HowAreYou, "У тебя всё нормально?"),
    (Intent::Thanks, "Благодарю"),
    (Intent::Thanks, "Большое спасибо за помощь"),
    (Intent::Thanks, "Огромное спасибо тебе"),
    (Intent::Farewell, "До свидания, Порфирий"),
    (Intent::Farewell, "Всё, до встречи"),
    (Intent::Farewell, "Спокойной ночи"),
    (Intent::Farewell, "Увидимся позже"),
    (Intent::Acknowledgement, "Хорошо, понял"),
    (Intent::Acknowledgement, "Окей"),
    (Intent::Acknowledgement, "Понятно"),
    (Intent::Acknowledgement, "Прекрасно"),
    (Intent::Acknowledgement, "Понял, хорошо"),
    (Intent::Acknowledgement, "Супер, годится"),
    (Intent::Acknowledgement, "Всё верно"),
    (Intent::Acknowledgement, "Неважно, проехали"),
    (Intent::Identity, "Как тебя называть?"),
    (Intent::Identity, "Ты кто?"),
    (Intent::Identity, "Представься, пожалуйста"),
    (Intent::Identity, "С кем я говорю?"),
    (Intent::Identity, "Ты робот?"),
    (Intent::Capabilities, "Чем ты можешь помочь?"),
    (Intent::Capabilities, "Какие у тебя функции?"),
    (Intent::Capabilities, "Что ты можешь делать?"),
    (Intent::Capabilities, "На что ты способен?"),
    (Intent::Joke, "Пошути как-нибудь"),
    (Intent::Joke, "Рассмеши меня"),
    (Intent::Joke, "Знаешь какой-нибудь анекдот?"),
    (Intent::OutOfScope, "Забронируй столик"),
    (Intent::OutOfScope, "Отправь письмо коллеге"),
    (Intent::OutOfScope, "Оплати коммуналку"),
    (Intent::OutOfScope, "А ты умеешь бронировать гостиницы?"),
    (Intent::OutOfScope, "Можешь вызвать мне сантехника?"),
    (Intent::OutOfScope, "Ты можешь купить продукты с доставкой?"),
    (Intent::Identity, "Какой у тебя возраст?"),
    (Intent::Identity, "Ты живое существо?"),
    (Intent::Identity, "Ты человек или машина?"),
    (Intent::Feeling, "Мне плохо"),
    (Intent::Feeling, "Мне очень тоскливо"),
    (Intent::Feeling, "Я переживаю из-за работы"),
    (Intent::Feeling, "Я совсем вымотался"),
    (Intent::Feeling, "У меня умерла бабушка"),
    (Intent::GoodNews, "Меня повысили!"),
    (Intent::GoodNews, "У нас родился сын!"),
    (Intent::GoodNews, "Я выиграл конкурс!"),
    (Intent::GoodNews, "Я защитил диплом"),
    (Intent::GoodNews, "Сегодня мой праздник, мне сорок"),
    (Intent::Compliment, "Ты умница"),
    (Intent::Compliment, "Ты замечательный"),
    (Intent::Compliment, "Отличная работа"),
    (Intent::Compliment, "Ты мне очень нравишься"),
    (Intent::Insult, "Ты дурак"),
    (Intent::Insult, "Ты никчёмный"),
    (Intent::Insult, "Замолчи"),
    (Intent::Insult, "Что за бред ты несёшь"),
    (Intent::Insult, "Ты ужасный помощник"),
    (Intent::HearMe, "Ты слышишь?"),
    (Intent::HearMe, "Ты меня слушаешь?"),
    (Intent::HearMe, "Алло, меня слышно?"),
    (Intent::Laughter, "Хахах"),
    (Intent::Laughter, "Ахахах"),
    (Intent::Laughter, "Ржака"),
    (Intent::Laughter, "Хи-хи"),
    (Intent::Choice, "Море или горы?"),
    (Intent::Choice, "Что лучше: поезд или самолёт?"),
    (Intent::Choice, "Зима или лето, как думаешь?"),
    (Intent::Choice, "Пицца или суши?"),
    (Intent::Taste, "Какая у тебя любимая еда?"),
    (Intent::Taste, "Какое твоё любимое животное?"),
    (Intent::Taste, "У тебя есть любимая книга?"),
    (Intent::Chat, "Поболтай со мной"),
    (Intent::Chat, "Давай пообщаемся"),
    (Intent::Chat, "Можно с тобой поговорить?"),
    (Intent::HowAreYou, "Чем занимаешься?"),
    (Intent::HowAreYou, "Что поделываешь?"),
    (Intent::Identity, "Откуда ты?"),
    (Intent::Identity, "Где ты находишься?"),
    (Intent::Feeling, "Я болею уже неделю"),
    (Intent::Feeling, "Я разбил телефон"),
    (Intent::Feeling, "У меня украли велосипед"),
    (Intent::GoodNews, "Мы поженились!"),
    (Intent::Compliment, "Молодчина!"),
    (Intent::Compliment, "Ты просто чудо"),
    (Intent::Nature, "Ты спишь по ночам?"),
    (Intent::Nature, "Ты устаёшь от работы?"),
    (Intent::Nature, "Ты мёрзнешь зимой?"),
    (Intent::Nature, "Ты боишься темноты?"),
    (Intent::Nature, "Ты ешь?"),
    (Intent::Fondness, "Ты меня любишь?"),
    (Intent::Fondness, "Я тебе симпатичен?"),
    (Intent::Fondness, "Я тебе дорог?"),
];

const EN_TALK: &[(Intent, &str)] = &[
    (Intent::Greeting, "Hello there"),
    (Intent::Greeting, "Good afternoon"),
    (Intent::Greeting, "Morning, Porfiry"),
    (Intent::Greeting, "Hey there"),
    (Intent::Greeting, "Greetings, are you there?"),
    (Intent::HowAreYou, "How's it going?"),
    (Intent::HowAreYou, "Are you feeling alright?"),
    (Intent::HowAreYou, "Are you doing okay?"),
    (Intent::Thanks, "Thank you so much"),
    (Intent::Thanks, "Thanks, that helped a lot"),
    (Intent::Thanks, "Much appreciated"),
    (Intent::Farewell, "Goodbye for now"),
    (Intent::Farewell, "Alright, catch you later"),
    (Intent::Farewell, "Good night"),
    (Intent::Farewell, "Catch you later"),
    (Intent::Acknowledgement, "Okay"),
    (Intent::Acknowledgement, "Understood"),
    (Intent::Acknowledgement, "Alright"),
    (Intent::Acknowledgement, "That's great"),
    (Intent::Acknowledgement, "Cool, fine"),
    (Intent::Acknowledgement, "Sounds good"),
    (Intent::Acknowledgement, "That's right"),
    (Intent::Identity, "What should I call you?"),
    (Intent::Identity, "Who am I talking to?"),
    (Intent::Identity, "Introduce yourself, please"),
    (Intent::Identity, "What are you?"),
    (Intent::Identity, "Are you a robot?"),
    (Intent::Identity, "What name do you go by?"),
    (Intent::Capabilities, "How can you help me?"),
    (Intent::Capabilities, "What are your features?"),
    (Intent::Capabilities, "What are you able to do?"),
    (Intent::Capabilities, "What are you good at?"),
    (Intent::Joke, "Make me laugh"),
    (Intent::Joke, "Know any good jokes?"),
    (Intent::Joke, "Got a joke for me?"),
    (Intent::OutOfScope, "Reserve a table"),
    (Intent::OutOfScope, "Write an email to the team"),
    (Intent::OutOfScope, "Pay my phone bill"),
    (Intent::OutOfScope, "Are you able to book hotels?"),
    (Intent::OutOfScope, "Could you get me a plumber?"),
    (Intent::OutOfScope, "Can you buy groceries for delivery?"),
    (Intent::Identity, "When were you made?"),
    (Intent::Identity, "Are you a living being?"),
    (Intent::Identity, "Is a human talking to me?"),
    (Intent::Feeling, "I'm feeling down today"),
    (Intent::Feeling, "I feel awful"),
    (Intent::Feeling, "I'm really stressed out"),
    (Intent::Feeling, "I'm worn out"),
    (Intent::Feeling, "My grandma passed away"),
    (Intent::GoodNews, "I just got promoted!"),
    (Intent::GoodNews, "We're having a baby!"),
    (Intent::GoodNews, "I won the competition!"),
    (Intent::GoodNews, "I finished my exams"),
    (Intent::GoodNews, "Today I'm celebrating, I turned forty"),
    (Intent::Compliment, "You're brilliant"),
    (Intent::Compliment, "You're amazing"),
    (Intent::Compliment, "Nice work, clever assistant"),
    (Intent::Compliment, "I like you a lot"),
    (Intent::Insult, "You're an idiot"),
    (Intent::Insult, "You're hopeless"),
    (Intent::Insult, "Be quiet"),
    (Intent::Insult, "That was a stupid reply"),
    (Intent::Insult, "You're a terrible assistant"),
    (Intent::HearMe, "Are you listening?"),
    (Intent::HearMe, "Is my voice coming through?"),
    (Intent::HearMe, "Hello, is this thing on?"),
    (Intent::Laughter, "Ahaha"),
    (Intent::Laughter, "lmao"),
    (Intent::Laughter, "That's so funny"),
    (Intent::Laughter, "Ha ha ha"),
    (Intent::Choice, "Summer or winter?"),
    (Intent::Choice, "Which is better, the sea or the mountains?"),
    (Intent::Choice, "Pizza or sushi, what do you think?"),
    (Intent::Choice, "Trains or planes?"),
    (Intent::Taste, "Which food do you like best?"),
    (Intent::Taste, "Do you have a favourite book?"),
    (Intent::Taste, "Which animal do you like most?"),
    (Intent::Chat, "Can we chat for a bit?"),
    (Intent::Chat, "Talk to me"),
    (Intent::Chat, "I'd like to chat with you"),
    (Intent::HowAreYou, "What are you up to?"),
    (Intent::HowAreYou, "What's up with you?"),
    (Intent::Identity, "Where are you from?"),
    (Intent::Feeling, "My dog is sick"),
    (Intent::Feeling, "I broke my phone"),
    (Intent::Feeling, "Someone stole my bike"),
    (Intent::GoodNews, "I'm engaged!"),
    (Intent::Compliment, "Nice job"),
    (Intent::Compliment, "Well done, you"),
    (Intent::Acknowledgement, "Never mind then"),
    (Intent::Nature, "Do you sleep at night?"),
    (Intent::Nature, "Do you ever get tired?"),
    (Intent::Nature, "Do you ever get hungry?"),
    (Intent::Nature, "Are you afraid of the dark?"),
    (Intent::Nature, "Do you eat food?"),
    (Intent::Fondness, "Do you think of me as a friend?"),
    (Intent::Fondness, "Am I your favourite person?"),
    (Intent::Fondness, "Do you care about me?"),
];

/// The most words of a message answered as a conversational intent: conversational formulas
/// are short; a long message carries content for a tool or the model.
pub(crate) const TALK_WORDS: usize = 12;

/// Whether a message routed to `intent` is too long for it ([`TALK_WORDS`]). A request no
/// tool does is declined however politely long it is ("could you get me a taxi to the
/// airport in like twenty minutes"): the limit is the formulas'.
pub(crate) fn too_long_for(intent: Intent, text: &str) -> bool {
    intent != Intent::OutOfScope && text.split_whitespace().count() > TALK_WORDS
}

/// Whether a message routed to `intent` is small talk answered from the message texts: not
/// too long for it ([`too_long_for`]), no text set apart for a tool (after a colon, in
/// quotes: «И ещё запиши: позвонить маме»), and the words the intent needs ([`refine`]). A
/// message routed to an intent that is not is routed again among the other targets.
pub(crate) fn is_small_talk(intent: Intent, text: &str) -> bool {
    !too_long_for(intent, text)
        && super::text::delimited_text(text).is_none()
        && refine(intent, text).is_some()
}

/// What a conversational message routed to `intent` is answered as, from its words: a
/// farewell said with anything else is answered as a farewell, thanks with a greeting or an
/// acknowledgement as thanks. The second value: the message thanks too (a farewell then
/// thanks back). `None`: the message lacks the words the intent needs (a question about the
/// assistant speaks to it; a joke is asked for by name), so the model answers it — «Расскажи
/// про море» is no request for a joke.
pub(crate) fn refine(intent: Intent, text: &str) -> Option<(Intent, bool)> {
    // An acknowledgement asks nothing: "is the sequel any good" is a question, no "good".
    if intent == Intent::Acknowledgement && super::answers::is_question(text) {
        return None;
    }
    // A greeting asks at most whether the assistant is there, and says a greeting word
    // then: "is the terminal any good" is a question, no "good afternoon".
    let asks = super::answers::is_question(text);
    let words = words(text);
    let text = format!(" {} ", words.join(" "));
    let has = |markers: &[&str]| markers.iter().any(|m| text.contains(&format!(" {m} ")));
    let stem = |stems: &[&str]| words.iter().any(|w| stems.iter().any(|s| w.starts_with(s)));
    let wants = wants(&words);
    // Words said of the assistant ("you're funny", «ты классный») praise or scold it: no
    // request for a joke, no "great" of an acknowledgement, no question about it.
    let of_you = says_of_you(&words) && !asks;
    let needs = match intent {
        Intent::Identity | Intent::Capabilities => {
            (has(SECOND_PERSON) || stem(ABOUT_YOU)) && !of_you
        }
        // How the assistant is, asked by the formula: "how old are you", "do you have
        // feelings" ask something else.
        Intent::HowAreYou => {
            has(HOW_ARE_THINGS)
                || stem(ABOUT_YOU)
                || (has(&["how", "как"]) && has(SECOND_PERSON) && !has(NOT_HOW))
        }
        // A question of fact is no task: «Какая столица Канады?», "What should I cook
        // tonight?", "Is coffee bad for you?", «Полезно ли бегать?» are not declined as
        // requests no tool does (the weather is one).
        Intent::OutOfScope => {
            !(opens_with_question_word(&words) || asks_yes_or_no(&words)) || stem(TASK_QUESTIONS)
        }
        Intent::Joke => stem(JOKE) && !stem(WATCHING) && !of_you,
        // A question opening with a question word asks about the greeting word, not says
        // it: "How do you say good morning in French?" ("what's up" greets).
        Intent::Greeting => {
            (!asks || has(GREETING_WORDS) || stem(GREETING_STEMS))
                && !wants
                && (!opens_with_question_word(&words) || has(&["up", "sup"]))
        }
        // A reaction or a leave-taking wants nothing: "I'd quite like to see a western" is
        // no "that's great", "anything good with robots in it" no "sounds good".
        Intent::Acknowledgement | Intent::Farewell => !wants && !of_you,
        // «Ха-ха» is one laugh in two words.
        Intent::Laughter => {
            !wants
                && (words.iter().any(|w| laughs(w))
                    || words
                        .windows(2)
                        .any(|w| laughs(&format!("{}{}", w[0], w[1]))))
        }
        // A choice offers things joined by "or"; a taste asks the assistant's own.
        Intent::Choice => !wants && has(&["or", "или"]),
        // Of the assistant's own, not of a thing ("what's the lost world one like") nor of
        // the user ("do you like me?").
        Intent::Taste => asks && stem(FAVOURITE) && has(SECOND_PERSON) && !has(SPEAKER),
        Intent::Chat => stem(TALKING),
        // What the assistant is like beside a person, and whether it likes the user, are
        // asked of it ([`asks_of_nature`], [`asks_fondness`]).
        Intent::Nature => asks && asks_of_nature(&words),
        Intent::Fondness => asks && asks_fondness(&words),
        // Praise is said, not asked: "what's the best way to learn a language?" asks.
        Intent::Compliment => !wants && !asks && (has(SECOND_PERSON) || stem(PRAISE)),
        Intent::Insult => !wants && (has(SECOND_PERSON) || stem(INSULTS)),
        Intent::HearMe => stem(HEARING) || has(&["алло", "on"]),
        // Thanks is said, not asked about: "How do you say thank you in Spanish?" asks.
        Intent::Thanks => (!of_you || has(THANKS)) && !opens_with_question_word(&words),
        // A feeling or news of the user's own is told, not asked ("do you have feelings" is
        // about the assistant), and says a trouble, a joy or a rude word ("the lion king,
        // have we got it" says none).
        Intent::Feeling | Intent::GoodNews => {
            !asks && !wants && of_speaker(&words) && (stem(SAD) || stem(GLAD) || stem(INSULTS))
        }
    };
    if !needs {
        return None;
    }
    let thanks = has(THANKS);
    // A feeling and good news, praise and an insult, are told apart by their words where
    // the nearest examples mix them up ("I passed my driving test" came nearest to a
    // feeling, «Ты лучший помощник» to an insult); a short rude word routed to a task no
    // tool does is an insult («Заткнись»).
    let sad = stem(SAD) && !stem(GLAD);
    let glad = stem(GLAD) && !stem(SAD);
    let praises = stem(PRAISE) && !stem(INSULTS);
    let scolds = stem(INSULTS) && !stem(PRAISE);
    let intent = match intent {
        Intent::Feeling if glad => Intent::GoodNews,
        Intent::GoodNews if sad => Intent::Feeling,
        Intent::Insult if praises => Intent::Compliment,
        Intent::Compliment if scolds => Intent::Insult,
        Intent::OutOfScope if scolds && words.len() <= 3 => Intent::Insult,
        Intent::Identity if stem(HEARING) => Intent::HearMe,
        // "I hate you" tells of the assistant, not of a mood; «У меня был ужасный день» of
        // the user's day, not of the assistant.
        Intent::Feeling | Intent::GoodNews if scolds && has(SECOND_PERSON) => Intent::Insult,
        Intent::Insult if sad && has(SPEAKER) && !has(SECOND_PERSON) => Intent::Feeling,
        Intent::Taste if has(&["or", "или"]) => Intent::Choice,
        // "I got the job!" is news of the user's own, not praise of the assistant.
        Intent::Compliment if glad && has(SPEAKER) && !has(SECOND_PERSON) => Intent::GoodNews,
        Intent::Greeting if praises && !has(GREETING_WORDS) && !stem(GREETING_STEMS) => {
            Intent::Compliment
        }
        other => other,
    };
    let refined = match intent {
        Intent::Thanks | Intent::Acknowledgement | Intent::Greeting | Intent::HowAreYou
            if has(FAREWELLS) =>
        {
            Intent::Farewell
        }
        Intent::Acknowledgement | Intent::Greeting | Intent::Compliment if thanks => Intent::Thanks,
        other => other,
    };
    Some((refined, thanks && refined == Intent::Farewell))
}

/// Whether `text` thanks or says goodbye (either language): words no pointing follow-up
/// hides («Спасибо, включи его» still thanks).
pub(crate) fn thanks_or_farewell(text: &str) -> bool {
    let text = format!(" {} ", words(text).join(" "));
    [THANKS, FAREWELLS]
        .iter()
        .any(|markers| markers.iter().any(|m| text.contains(&format!(" {m} "))))
}

/// Whether `words` (lower case) say what the assistant is: "you're …", "you are …", or
/// «ты» / «вы» and an adjective («ты смешной», «вы лучший»), nothing asked.
pub(super) fn says_of_you(words: &[String]) -> bool {
    let first = words.first().map(String::as_str);
    let second = words.get(1).map(String::as_str).unwrap_or("");
    match first {
        Some("you're" | "youre" | "ur") => true,
        Some("you") => matches!(second, "are" | "re" | "so" | "really"),
        Some("ты" | "вы") => {
            let adjective = ["ой", "ый", "ий", "ая", "ые", "ец", "ца"]
                .iter()
                .any(|e| second.ends_with(e));
            adjective || matches!(second, "такой" | "очень" | "просто" | "самый")
        }
        _ => false,
    }
}

/// Words of the speaker (both languages, whole): a feeling or news told of oneself.
pub(super) const SPEAKER: &[&str] = &[
    "i", "i'm", "im", "i've", "my", "me", "we", "we're", "our", "я", "мне", "меня", "мой", "моя",
    "мои", "моё", "мое", "мы", "нас", "нам",
];

/// Stems of praise ("good job", «отличная работа», «ты лучший»).
pub(super) const PRAISE: &[&str] = &[
    "молод",
    "умниц",
    "отличн",
    "класс",
    "супер",
    "лучш",
    "умн",
    "смешн",
    "замечат",
    "job",
    "work",
    "done",
    "great",
    "amazing",
    "brilliant",
    "awesome",
    "best",
    "smart",
    "funny",
    "clever",
];

/// Stems of a trouble or a low mood (both languages).
pub(super) const SAD: &[&str] = &[
    "грус",
    "плох",
    "тоск",
    "одино",
    "устал",
    "вымота",
    "умер",
    "умерл",
    "погиб",
    "болит",
    "болен",
    "заболел",
    "болею",
    "ужасн",
    "скучн",
    "волну",
    "пережива",
    "боюсь",
    "страш",
    "нерв",
    "потерял",
    "разбил",
    "украл",
    "sad",
    "down",
    "tired",
    "lonely",
    "died",
    "dead",
    "away",
    "sick",
    "cold",
    "ill",
    "awful",
    "terrible",
    "bad",
    "bored",
    "nervous",
    "worried",
    "anxious",
    "stress",
    "scared",
    "afraid",
    "lost",
    "miss",
    "hurt",
    "upset",
    "depress",
    "worn",
    "broke",
    "stole",
];

/// Stems of good news about oneself (both languages).
pub(super) const GLAD: &[&str] = &[
    "взяли",
    "сдал",
    "выхожу",
    "женюсь",
    "родил",
    "повыс",
    "выиграл",
    "поступил",
    "защитил",
    "рожден",
    "исполнил",
    "праздн",
    "женил",
    "поженил",
    "счастлив",
    "рад",
    "happy",
    "birthday",
    "got",
    "married",
    "engaged",
    "won",
    "promoted",
    "baby",
    "turning",
    "turned",
    "celebrat",
    "finished",
    "passed",
];

/// Stems of rude words (both languages).
pub(super) const INSULTS: &[&str] = &[
    "заткн",
    "замолч",
    "дур",
    "туп",
    "глуп",
    "бесполез",
    "никчём",
    "никчем",
    "бред",
    "идиот",
    "ненавиж",
    "бесишь",
    "ужасн",
    "shut",
    "stupid",
    "dumb",
    "idiot",
    "hate",
    "useless",
    "annoying",
    "hopeless",
    "terrible",
    "quiet",
    "moron",
];

/// Stems of a favourite (both languages): a question of the assistant's own taste.
pub(super) const FAVOURITE: &[&str] = &[
    "favourit",
    "favorit",
    "любим",
    "нравит",
    "like",
    "prefer",
    "предпоч",
];

/// Stems of talking together (both languages): an offer to chat.
pub(super) const TALKING: &[&str] = &["talk", "chat", "поговор", "поболта", "пообща", "побесед"];

/// Stems of hearing and listening (both languages).
pub(super) const HEARING: &[&str] = &["слыш", "слуша", "hear", "listen"];

/// Whether `word` (lower case) is laughter: «ахаха», «хех», "haha", "lol", «ржу».
fn laughs(word: &str) -> bool {
    const WORDS: &[&str] = &[
        "lol",
        "lmao",
        "rofl",
        "лол",
        "ржу",
        "ржака",
        "hilarious",
        "funny",
        "смешно",
    ];
    if WORDS.contains(&word) {
        return true;
    }
    let cyrillic = word.chars().all(|c| "хаеи".contains(c)) && word.contains('х');
    let latin = word.chars().all(|c| "haei".contains(c)) && word.contains('h');
    (cyrillic || latin) && word.chars().count() >= 3
}

/// Words that speak to the assistant (both languages).
pub(super) const SECOND_PERSON: &[&str] = &[
    "ты",
    "тебя",
    "тебе",
    "тобой",
    "твой",
    "твоя",
    "твои",
    "твоё",
    "твое",
    "вы",
    "вас",
    "вам",
    "you",
    "your",
    "yourself",
    "you're",
];

/// Stems of words that ask about the assistant without a pronoun («Представься», «Что
/// умеешь?», "Introduce yourself").
const ABOUT_YOU: &[&str] = &["представ", "умееш", "можеш", "поживаеш", "introduce"];

/// How-are-you words without a pronoun («Как дела?», "How's it going?").
const HOW_ARE_THINGS: &[&str] = &[
    "дела",
    "делишки",
    "поживаешь",
    "поживаете",
    "настроение",
    "делаешь",
    "поделываешь",
    "занимаешься",
    "going",
    "doing",
    "been",
    "alright",
    "okay",
];

/// Words after "how" that ask something else than how the assistant is ("how old are
/// you", «как тебя зовут»).
const NOT_HOW: &[&str] = &[
    "say",
    "сказать",
    "old",
    "long",
    "many",
    "much",
    "far",
    "зовут",
    "называть",
    "звать",
    "лет",
];

/// Stems of the questions that ask for what a tool would look up (the weather): a task no
/// tool does, declined as one.
const TASK_QUESTIONS: &[&str] = &["погод", "прогноз", "weather", "forecast"];

/// Greeting words (both languages), whole: what a greeting that asks says
/// ("Hey, you there?").
const GREETING_WORDS: &[&str] = &[
    "хай",
    "салют",
    "здорово",
    "hello",
    "hi",
    "hey",
    "hiya",
    "heya",
    "howdy",
    "yo",
    "morning",
    "afternoon",
    "evening",
];

/// Stems of greeting words («Приветствую, ты тут?», "Greetings, are you there?").
const GREETING_STEMS: &[&str] = &["привет", "здравств", "здрасьт", "добр", "greet"];

/// Words that want something (both languages, whole): a wish, a need, something asked for
/// («хочу», "I'd like", "anything good").
pub(super) const WANTING: &[&str] = &[
    "хочу",
    "хотел",
    "хотела",
    "хочется",
    "хотелось",
    "нужно",
    "надо",
    "нибудь",
    "want",
    "wanna",
    "wants",
    "would",
    "i'd",
    "we'd",
    "need",
    "any",
    "anything",
    "something",
];

/// Words that negate the wish after them.
pub(super) const NOT: &[&str] = &["не", "not", "don't", "dont", "never", "no"];

/// Stems of words that ask for a joke.
const JOKE: &[&str] = &[
    "анекдот",
    "шут",
    "пошути",
    "смешн",
    "смеш",
    "рассмеш",
    "joke",
    "funny",
    "laugh",
];

/// Words of watching (by the start of a word): something funny to watch, put on or play is a
/// film, no joke ("put on something funny for me").
const WATCHING: &[&str] = &[
    "смотр",
    "посмотр",
    "включ",
    "постав",
    "watch",
    "play",
    "put",
    "film",
    "movi",
    "cinema",
    "фильм",
    "кино",
    "мульт",
];

/// The words of `text`, lower case.
pub(super) fn words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Words and phrases that take leave (both languages).
const FAREWELLS: &[&str] = &[
    "пока",
    "до свидания",
    "до встречи",
    "до завтра",
    "всего доброго",
    "всего хорошего",
    "спокойной ночи",
    "увидимся",
    "прощай",
    "bye",
    "goodbye",
    "see you",
    "good night",
    "have a nice day",
    "have a good day",
    "take care",
    "farewell",
    "catch you",
    "so long",
    "see ya",
    "ciao",
    "бывай",
    "счастливо",
    "до скорого",
    "чао",
];

/// Words that thank (both languages).
const THANKS: &[&str] = &[
    "спасибо",
    "благодарю",
    "спасибочки",
    "thanks",
    "thank you",
    "thx",
];

#[cfg(test)]
mod tests {
    use super::super::told::{asks_with_question_word, told_intent};
    use super::*;
    use crate::messages::Texts;

    #[test]
    fn a_greeting_that_asks_says_a_greeting_word() {
        for greeting in [
            "Hey, you there?",
            "Greetings, are you there?",
            "Хай, ты тут?",
            "Приветствую, ты на связи?",
            "Good morning",
            "Здравствуй",
        ] {
            assert_eq!(
                refine(Intent::Greeting, greeting).map(|(i, _)| i),
                Some(Intent::Greeting),
                "{greeting}"
            );
        }
        for question in [
            "is the terminal any good",
            "Is this one good?",
            "А он хороший?",
        ] {
            assert_eq!(refine(Intent::Greeting, question), None, "{question}");
        }
    }

    #[test]
    fn a_reaction_or_a_leave_taking_wants_nothing() {
        for wants in [
            (Intent::Acknowledgement, "anything good with robots in it"),
            (
                Intent::Acknowledgement,
                "i'd quite like to see a western if you've got one",
            ),
            (Intent::Farewell, "i want to see wait here in big letters"),
            (Intent::Acknowledgement, "хорошо, хочу что-нибудь весёлое"),
            (Intent::Acknowledgement, "ok any good comedies"),
        ] {
            assert_eq!(refine(wants.0, wants.1), None, "{}", wants.1);
        }
        for reaction in [
            "Sounds good",
            "nope, I don't want that",
            "Не надо",
            "See you tomorrow",
            "not any more, thanks",
        ] {
            assert!(
                refine(Intent::Acknowledgement, reaction).is_some(),
                "{reaction}"
            );
        }
    }

    #[test]
    fn a_farewell_or_thanks_in_the_words_decides_the_answer() {
        assert_eq!(
            refine(Intent::Thanks, "Спасибо, пока"),
            Some((Intent::Farewell, true))
        );
        assert_eq!(
            refine(Intent::Acknowledgement, "Ладно, всего доброго"),
            Some((Intent::Farewell, false))
        );
        assert_eq!(
            refine(Intent::Acknowledgement, "Cool, thanks"),
            Some((Intent::Thanks, false))
        );
        assert_eq!(
            refine(Intent::Thanks, "Thanks a ton"),
            Some((Intent::Thanks, false))
        );
        assert_eq!(
            refine(Intent::Identity, "Bye, who are you?"),
            Some((Intent::Identity, false))
        );
        // "пока" inside another word is no farewell.
        assert_eq!(
            refine(Intent::Acknowledgement, "Покажи, хорошо"),
            Some((Intent::Acknowledgement, false))
        );
    }

    #[test]
    fn a_feeling_and_good_news_praise_and_insults_are_told_apart_by_their_words() {
        let refined = |i, t| refine(i, t).map(|(i, _)| i);
        assert_eq!(
            refined(Intent::Feeling, "Меня взяли на работу!"),
            Some(Intent::GoodNews)
        );
        assert_eq!(
            refined(Intent::GoodNews, "Я потерял кошелёк"),
            Some(Intent::Feeling)
        );
        assert_eq!(
            refined(Intent::Insult, "Ты лучший помощник"),
            Some(Intent::Compliment)
        );
        assert_eq!(
            refined(Intent::OutOfScope, "Заткнись"),
            Some(Intent::Insult)
        );
        assert_eq!(
            refined(Intent::Feeling, "I feel sad"),
            Some(Intent::Feeling)
        );
        assert_eq!(
            refined(Intent::OutOfScope, "Order a pizza"),
            Some(Intent::OutOfScope)
        );
    }

    #[test]
    fn how_the_assistant_is_is_asked_by_the_formula_and_a_fact_is_no_task() {
        for text in [
            "How old are you?",
            "Do you have feelings?",
            "Как тебя зовут?",
        ] {
            assert_eq!(refine(Intent::HowAreYou, text), None, "{text}");
        }
        for text in [
            "How are you?",
            "Как дела?",
            "Как поживаешь?",
            "Good evening, how are you?",
            "How's it going?",
            "Как ты?",
        ] {
            assert!(refine(Intent::HowAreYou, text).is_some(), "{text}");
        }
        for text in ["Какая столица Канады?", "What should I cook tonight?"] {
            assert_eq!(refine(Intent::OutOfScope, text), None, "{text}");
        }
        for text in [
            "Order a pizza",
            "What will the weather be like tomorrow?",
            "Can you call a taxi?",
        ] {
            assert!(refine(Intent::OutOfScope, text).is_some(), "{text}");
        }
    }

    #[test]
    fn the_new_intents_need_their_own_words() {
        assert!(refine(Intent::Laughter, "Ахаха").is_some());
        assert!(refine(Intent::Laughter, "Hehe").is_some());
        assert!(refine(Intent::Laughter, "lol").is_some());
        assert_eq!(refine(Intent::Laughter, "Have a look"), None);
        assert!(refine(Intent::Feeling, "Мне грустно").is_some());
        assert_eq!(
            refine(Intent::Feeling, "and also the car wash tokens"),
            None
        );
        assert!(refine(Intent::GoodNews, "It's my birthday!").is_some());
        assert!(refine(Intent::Insult, "Shut up").is_some());
        assert_eq!(
            refine(Intent::Insult, "Расскажи что-нибудь про этот фильм"),
            None
        );
        assert!(refine(Intent::Compliment, "Good job!").is_some());
        assert!(refine(Intent::HearMe, "Ты меня слышишь?").is_some());
        assert_eq!(refine(Intent::HearMe, "Ты меня любишь?"), None);
    }

    #[test]
    fn words_said_of_the_assistant_are_no_joke_request_nor_acknowledgement() {
        for text in ["You're funny", "Ты смешной", "you are so great"] {
            assert_eq!(refine(Intent::Joke, text), None, "{text}");
            assert_eq!(refine(Intent::Acknowledgement, text), None, "{text}");
            assert_eq!(refine(Intent::Identity, text), None, "{text}");
            assert!(refine(Intent::Compliment, text).is_some(), "{text}");
        }
        assert!(refine(Intent::Identity, "Ты настоящий?").is_some());
        assert!(refine(Intent::Joke, "Ты знаешь анекдот?").is_some());
        assert!(refine(Intent::Thanks, "You're the best, thanks").is_some());
    }

    #[test]
    fn a_question_about_the_world_is_no_question_about_the_assistant() {
        assert_eq!(
            refine(Intent::HowAreYou, "Как дела?"),
            Some((Intent::HowAreYou, false))
        );
        assert_eq!(refine(Intent::Identity, "Tell me about the sea"), None);
        assert_eq!(refine(Intent::Joke, "Расскажи про море."), None);
        assert_eq!(
            refine(Intent::Joke, "Расскажи анекдот"),
            Some((Intent::Joke, false))
        );
        assert_eq!(
            refine(Intent::Identity, "Представься"),
            Some((Intent::Identity, false))
        );
        assert_eq!(
            refine(Intent::Capabilities, "Что умеешь?"),
            Some((Intent::Capabilities, false))
        );
        assert_eq!(
            refine(Intent::HowAreYou, "How are you?"),
            Some((Intent::HowAreYou, false))
        );
    }

    #[test]
    fn something_funny_to_watch_is_no_joke() {
        assert!(refine(Intent::Joke, "tell me something funny").is_some());
        assert!(refine(Intent::Joke, "Расскажи что-нибудь смешное").is_some());
        assert!(refine(Intent::Joke, "put on something funny for me").is_none());
        assert!(refine(Intent::Joke, "Хочу посмотреть что-нибудь смешное").is_none());
        assert!(refine(Intent::Joke, "movie night, find something funny").is_none());
        assert!(refine(Intent::Joke, "Найди смешной фильм").is_none());
    }

    #[test]
    fn a_long_message_is_no_formula_but_a_long_request_is_still_declined() {
        let long = "could you get me a taxi to the airport in like twenty minutes please";
        assert!(too_long_for(Intent::Thanks, long));
        assert!(!is_small_talk(Intent::Greeting, long));
        assert!(!too_long_for(Intent::OutOfScope, long));
        assert!(is_small_talk(Intent::OutOfScope, long));
        // A text set apart is for a tool, whatever the length.
        assert!(!is_small_talk(
            Intent::OutOfScope,
            "И ещё запиши: позвонить маме"
        ));
        assert!(!too_long_for(
            Intent::Thanks,
            "thank you ever so much for that"
        ));
    }

    #[test]
    fn a_choice_a_trouble_news_and_a_rude_word_are_told_by_their_form() {
        for (text, intent) in [
            ("Горы или море?", Some(Intent::Choice)),
            ("Should I fly or take the train?", Some(Intent::Choice)),
            ("Моя собака заболела", Some(Intent::Feeling)),
            ("I lost my keys again", Some(Intent::Feeling)),
            ("Мы поженились!", Some(Intent::GoodNews)),
            ("I passed the bar exam!", Some(Intent::GoodNews)),
            ("You're so stupid", Some(Intent::Insult)),
            ("Send a text to my sister saying I'm sick", None),
            ("Привет! Как дела?", Some(Intent::HowAreYou)),
            ("Hey, how are you?", Some(Intent::HowAreYou)),
            ("Как дела с моими заметками на завтра?", None),
            // "or" opening or closing is no choice; a wish is a request.
            ("Or maybe not?", None),
            ("I want tea or coffee", None),
            // A statement of no mood, of the assistant, a common word of a mood's list.
            ("I'll write it down", None),
            ("I got home at nine", None),
            ("You're on the list", None),
            ("Который час?", None),
            // Praise said of the assistant.
            (
                "You're the cleverest helper I know",
                Some(Intent::Compliment),
            ),
            // What the assistant is like beside a person, whether it likes the user.
            ("Do you ever dream?", Some(Intent::Nature)),
            ("Ты старше меня?", Some(Intent::Nature)),
            ("Are you faster than a person?", Some(Intent::Nature)),
            ("А ты меня любишь?", Some(Intent::Fondness)),
            ("Am I your favourite?", Some(Intent::Fondness)),
            // A request, an ability, a doubt, something done, a question word: none.
            ("Do you know what time it is?", None),
            ("Can you hear me?", None),
            ("Are you sure?", None),
            ("Ты записал?", None),
            ("Why do you like me?", None),
            ("Would you like me to repeat?", None),
            ("Do you have my notes?", None),
        ] {
            assert_eq!(told_intent(text), intent, "{text}");
        }
    }

    #[test]
    fn more_of_a_story_after_a_mood_is_that_mood_again() {
        use super::super::told::told_sequel;
        let sad = Texts::new(Lang::En).talk_reply(Intent::Feeling, 0, "");
        let glad = Texts::new(Lang::Ru).talk_reply(Intent::GoodNews, 1, "");
        assert_eq!(
            told_sequel(Some(&sad), None, "She was only three"),
            Some(Intent::Feeling)
        );
        assert_eq!(
            told_sequel(
                Some(&sad),
                Some("get_current_time"),
                "We had him for ten years"
            ),
            Some(Intent::Feeling)
        );
        assert_eq!(
            told_sequel(
                Some(&glad),
                Some("talk:greeting"),
                "И мы переезжаем в Казань"
            ),
            Some(Intent::GoodNews)
        );
        // A question, a request, a tool's turn, or no mood before: none.
        assert_eq!(told_sequel(Some(&sad), None, "What time is it?"), None);
        assert_eq!(told_sequel(Some(&sad), None, "Show me the time"), None);
        assert_eq!(
            told_sequel(Some(&sad), Some("show_text"), "He said hello"),
            None
        );
        assert_eq!(told_sequel(Some("Okay."), None, "She was only three"), None);
        assert_eq!(
            told_sequel(Some(&sad), Some("talk:acknowledgement"), "It's okay"),
            None
        );
        assert_eq!(told_sequel(None, None, "She was only three"), None);
    }

    #[test]
    fn what_the_assistant_is_like_is_told_over_the_clock_only_without_a_word_of_the_time() {
        use super::super::told::told_over;
        let clock = Some("get_current_time");
        assert_eq!(
            told_over(clock, "А праздники у тебя бывают?"),
            Some(Intent::Nature)
        );
        assert_eq!(told_over(clock, "Do you have the time?"), None);
        assert_eq!(told_over(clock, "У тебя есть время сейчас?"), None);
        // Over who it is only when it compares.
        let identity = Some("talk:identity");
        assert_eq!(
            told_over(identity, "Are you older than me?"),
            Some(Intent::Nature)
        );
        assert_eq!(told_over(identity, "Are you a robot?"), None);
    }

    #[test]
    fn choices_tastes_and_offers_to_talk_need_their_words() {
        let intent = |i: Intent, text: &str| refine(i, text).map(|(i, _)| i);
        assert_eq!(
            intent(Intent::Choice, "Чай или кофе?"),
            Some(Intent::Choice)
        );
        assert_eq!(intent(Intent::Choice, "Which is better?"), None);
        assert_eq!(
            intent(Intent::Taste, "What's your favourite song?"),
            Some(Intent::Taste)
        );
        // A taste that offers a choice is a choice.
        assert_eq!(
            intent(Intent::Taste, "Do you like tea or coffee?"),
            Some(Intent::Choice)
        );
        assert_eq!(intent(Intent::Taste, "А день рождения у тебя есть?"), None);
        assert_eq!(intent(Intent::Chat, "Давай поболтаем"), Some(Intent::Chat));
        assert_eq!(intent(Intent::Chat, "Play some jazz"), None);
        // A question about a greeting word is no greeting.
        assert_eq!(
            intent(Intent::Greeting, "How do you say good morning in French?"),
            None
        );
        assert_eq!(
            intent(Intent::Greeting, "Hey, what's up?"),
            Some(Intent::Greeting)
        );
        assert!(asks_with_question_word(
            "How do you say thank you in Spanish?"
        ));
        assert!(!asks_with_question_word(
            "How about showing it on the glasses?"
        ));
        assert!(!asks_with_question_word("Show the word hello"));
        // A yes-or-no question of fact is no task; one put to the assistant may be.
        assert_eq!(
            intent(Intent::OutOfScope, "Is it safe to swim after lunch?"),
            None
        );
        assert_eq!(
            intent(Intent::OutOfScope, "Вредно ли пить холодную воду?"),
            None
        );
        assert_eq!(
            intent(Intent::OutOfScope, "Do you deliver flowers?"),
            Some(Intent::OutOfScope)
        );
        assert_eq!(
            intent(Intent::OutOfScope, "Можно ли заказать такси?"),
            Some(Intent::OutOfScope)
        );
        assert_eq!(
            intent(Intent::OutOfScope, "Is it going to rain today?"),
            None
        );
        // Thanks asked about is no thanks; news is no praise; hate said to the assistant is
        // no feeling, a bad day of the user's no insult.
        assert_eq!(
            intent(Intent::Thanks, "How do you say thank you in Italian?"),
            None
        );
        assert_eq!(
            intent(Intent::Compliment, "I got the job at the bank!"),
            Some(Intent::GoodNews)
        );
        assert_eq!(
            intent(Intent::Feeling, "I hate you so much"),
            Some(Intent::Insult)
        );
        assert_eq!(
            intent(Intent::Insult, "У меня ужасное утро"),
            Some(Intent::Feeling)
        );
        assert_eq!(
            intent(Intent::Laughter, "Ха-ха, смешно"),
            Some(Intent::Laughter)
        );
    }

    #[test]
    fn every_intent_has_examples_in_both_languages() {
        for lang in [Lang::Ru, Lang::En] {
            for intent in Intent::ALL {
                assert!(
                    talk_examples(lang).iter().any(|(i, _)| *i == intent),
                    "{lang} {intent}"
                );
            }
        }
    }
}
