//! [`Rule::OtherIntent`](super::Rule::OtherIntent): the message catalog's canned reply of a
//! conversational intent ([`Texts::talk_reply`]) given to a turn that is not that intent.
//!
//! Whether the user's text *is* an intent is decided without a model, by its cue words
//! ([`cues`]): the words a person says that intent with, in both languages. A cue matches
//! whole words in order (`как дела`); a cue word ending in `*` matches any word starting so
//! (`спасиб*`: спасибо, спасибки); a cue starting with `?` matches only in a question (a
//! text with a `?`: `?тебе` — «Тебе снятся сны?» asks about the assistant). The user's words
//! are compared in lower case, `ё` as `е`.
//! Cues only decide where a canned reply was given, so a cue list errs wide: a missing cue
//! fails a right reply, an extra one only lets a wrong one through.

use std::sync::OnceLock;

use super::words;
use crate::{Intent, Lang, Texts};

/// Canned replies shorter than this many words count only when they are the whole reply:
/// «Пожалуйста!» opens many a Russian answer («Пожалуйста! Вот ваши заметки…»).
const SHORT_CANNED: usize = 2;

/// Of a canned reply that goes on with what the assistant can do (`{caps}`), the words
/// before it count when there are at least this many («Я Порфирий, ваш голосовой помощник.
/// Я умею»); «Я умею», "I'm able to" open too many answers.
const MIN_CANNED_PREFIX: usize = 5;

/// The intents, by name, a turn may be for a canned reply of the intent named `name` to
/// fit it besides that intent: a greeting that names the assistant also answers «как тебя
/// зовут?»; an introduction answers a greeting and «что ты умеешь?»; another joke answers a
/// laugh; «Пожалуйста!» answers praise as it answers thanks.
fn also_fits(name: &str) -> &'static [&'static str] {
    match name {
        "greeting" => &["identity"],
        "identity" => &["capabilities", "greeting"],
        "capabilities" => &["identity", "greeting"],
        "joke" => &["laughter"],
        "thanks" => &["compliment"],
        _ => &[],
    }
}

/// The cue words of the intent named `name` ([`Intent::name`]), both languages (see the
/// module's docs). Keyed by name, so an intent the catalog gains has none until it is given
/// some here — and an intent without cues is not checked: an acknowledgement («Хорошо.»,
/// "Okay.") fits any statement, and the out-of-scope reply declines, which is right for
/// anything no tool serves; neither is another intent's reply.
pub fn cues(name: &str) -> &'static [&'static str] {
    match name {
        "greeting" => &[
            "привет*",
            "здравств*",
            "здрасьте",
            "здрасте",
            "добр* утр*",
            "добр* день",
            "добр* дня",
            "добр* вечер*",
            "доброй ночи",
            "хай",
            "салют",
            "хелло",
            "алло",
            "hi",
            "hello",
            "hey",
            "hiya",
            "howdy",
            "greetings",
            "yo",
            "good morning",
            "good afternoon",
            "good evening",
            "morning",
        ],
        "how-are-you" => &[
            "как дел*",
            "как ты",
            "как вы",
            "как поживаешь",
            "как поживаете",
            "как жизнь",
            "как настроени*",
            "настроени*",
            "все нормально",
            "в порядке",
            "как сам",
            "как у тебя",
            "как у вас",
            "как себя чувству*",
            "что нового",
            "how are you",
            "how are u",
            "how r u",
            "how's it going",
            "how is it going",
            "how are things",
            "how do you do",
            "how you doing",
            "how have you been",
            "how's your day",
            "how is your day",
            "how's life",
            "feeling alright",
            "alright",
            "doing okay",
            "doing ok",
            "are you ok",
            "are you okay",
            "you okay",
            "you alright",
            "what's up",
            "whats up",
            "sup",
            "what are you doing",
            "what are you up to",
            "что делаешь",
            "что делаете",
            "чем занимаешься",
            "чем занимаетесь",
        ],
        "thanks" => &[
            "спасиб*",
            "благодар*",
            "спс",
            "мерси",
            "сенкс",
            "thank*",
            "thx",
            "ty",
            "appreciate*",
            "cheers",
        ],
        "farewell" => &[
            "пока",
            "покеда",
            "до свидани*",
            "до встреч*",
            "до завтра",
            "до скорого",
            "до связи",
            "прощай*",
            "спокойной ночи",
            "всего доброго",
            "всего хорошего",
            "хорошего дня",
            "хорошего вечера",
            "удачи",
            "увидимся",
            "бывай*",
            "bye*",
            "goodbye*",
            "see you",
            "see ya",
            "cya",
            "good night",
            "goodnight",
            "farewell",
            "later",
            "take care",
            "have a nice",
            "have a good",
            "have a great",
            "nice day",
            "good day",
        ],
        "identity" => &[
            "зовут",
            "имя",
            "имени",
            "представь*",
            "представьтесь",
            "называть",
            "с кем",
            "возраст*",
            "лет",
            "жив*",
            "существ*",
            "создал*",
            "кто ты",
            "ты кто",
            "кто вы",
            "вы кто",
            "кто такой",
            "о себе",
            "ты человек",
            "ты робот",
            "ты бот",
            "ты программа",
            "ты живой",
            "живой",
            "человек",
            "робот*",
            "программ*",
            "бот",
            "машина",
            "ии",
            "искусственн*",
            "?ты",
            "?тебя",
            "?тебе",
            "?твой",
            "?твоя",
            "?твое",
            "?твои",
            "?твоего",
            "who are you",
            "who're you",
            "who is this",
            "call you",
            "talking to",
            "who am i",
            "made",
            "created",
            "old",
            "age",
            "born",
            "your name",
            "what are you",
            "introduce yourself",
            "about yourself",
            "about you",
            "are you a",
            "are you human",
            "are you real",
            "are you alive",
            "alive",
            "human",
            "robot",
            "program",
            "bot",
            "ai",
            "machine",
            "computer",
            "person",
            "?you",
            "?your",
            "?you're",
            "name",
            "porfiry",
            "порфири*",
        ],
        "capabilities" => &[
            "умееш*",
            "умеете",
            "можешь",
            "можете",
            "возможност*",
            "функци*",
            "помо*",
            "can you",
            "can u",
            "what do you do",
            "able",
            "help*",
            "capab*",
            "features",
            "good at",
        ],
        "joke" => &[
            "анекдот*",
            "шут*",
            "пошут*",
            "рассмеш*",
            "смешн*",
            "посмеш*",
            "юмор*",
            "развесел*",
            "joke*",
            "funny",
            "laugh*",
            "humor*",
            "humour*",
            "cheer me up",
            "make me smile",
        ],
        "feeling" => &[
            "груст*",
            "печал*",
            "плохо",
            "тяжел*",
            "тяжко",
            "устал*",
            "одинок*",
            "страшно",
            "боюсь",
            "тревож*",
            "расстро*",
            "обидн*",
            "болит",
            "болею",
            "заболел*",
            "депресс*",
            "скучн*",
            "скучаю",
            "плач*",
            "плачу",
            "хреново",
            "тоск*",
            "пережива*",
            "вымота*",
            "умер*",
            "смерт*",
            "похорон*",
            "паршиво",
            "волну*",
            "потерял*",
            "потеря*",
            "нервн*",
            "нервнича*",
            "беспоко*",
            "злюсь",
            "обидел*",
            "поссорил*",
            "расстал*",
            "уволили",
            "проблем*",
            "не получается",
            "не могу",
            "не в духе",
            "sad",
            "tired",
            "lonely",
            "depressed",
            "upset",
            "stress*",
            "anxious",
            "scared",
            "afraid",
            "worried",
            "rough",
            "hard",
            "bad",
            "awful",
            "terrible",
            "feel*",
            "hurt*",
            "sick",
            "cry*",
            "worn out",
            "passed away",
            "died",
            "death",
            "lost",
            "miss",
            "down",
            "worr*",
            "bored",
            "boring",
            "nervous",
            "fired",
            "broke up",
            "angry",
            "mad",
            "problem*",
            "can't",
            "cold",
            "flu",
            "ill",
            "ужасн*",
            "простуд*",
            "простыл*",
        ],
        "good-news" => &[
            "поздрав*",
            "сдал*",
            "получил*",
            "день рождени*",
            "днем рождени*",
            "родил*",
            "женюсь",
            "женился",
            "замуж",
            "повысили",
            "выиграл*",
            "победил*",
            "ура",
            "наконец*",
            "юбиле*",
            "годовщин*",
            "праздни*",
            "отпуск*",
            "купил*",
            "взяли",
            "приняли",
            "исполнил*",
            "исполня*",
            "свадьб*",
            "рад",
            "рада",
            "счастлив*",
            "защитил*",
            "диплом*",
            "экзамен*",
            "birthday",
            "anniversary",
            "passed",
            "got",
            "won",
            "promot*",
            "married",
            "engaged",
            "graduat*",
            "new job",
            "baby",
            "yay",
            "finally",
            "hooray",
            "celebrat*",
            "finished",
            "exam*",
            "hired",
            "happy",
            "glad",
            "turning",
            "accepted",
            "turned",
            "new",
        ],
        "compliment" => &[
            "умни*",
            "молодец",
            "молодчин*",
            "класс*",
            "круто*",
            "крут*",
            "лучш*",
            "отличн*",
            "хорош*",
            "супер*",
            "гений",
            "люблю",
            "нравишься",
            "умн*",
            "смешн*",
            "красив*",
            "мил*",
            "прикольн*",
            "здорово",
            "нравлюсь",
            "замечательн*",
            "прекрасн*",
            "чудесн*",
            "smart",
            "clever",
            "brilliant",
            "great",
            "awesome",
            "amazing",
            "best",
            "good",
            "well done",
            "love",
            "like you",
            "cool",
            "nice",
            "genius",
            "helpful",
            "funny",
            "cute",
            "kind",
            "sweet",
            "beautiful",
            "wonderful",
            "perfect",
        ],
        "insult" => &[
            "дур*",
            "туп*",
            "глуп*",
            "идиот*",
            "бесполезн*",
            "ужасн*",
            "плох*",
            "отстой*",
            "бестолков*",
            "не понимаешь",
            "неправ*",
            "ошиб*",
            "никчем*",
            "замолчи",
            "заткнись",
            "бред*",
            "чушь",
            "беси*",
            "ненави*",
            "раздража*",
            "достал*",
            "stupid",
            "dumb",
            "idiot*",
            "useless",
            "hopeless",
            "terrible",
            "awful",
            "suck*",
            "hate",
            "worst",
            "wrong",
            "quiet",
            "shut up",
            "nonsense",
            "rubbish",
            "annoy*",
            "irritat*",
            "bad",
        ],
        "hear-me" => &[
            "слыш*",
            "слушаешь",
            "слушаете",
            "здесь",
            "тут",
            "алло",
            "ау",
            "hear*",
            "listening",
            "there",
            "coming through",
            "voice",
            "thing on",
        ],
        "laughter" => &[
            "ха",
            "хах*",
            "ахах*",
            "хех*",
            "хи",
            "лол",
            "ржу",
            "ржака",
            "смешно",
            "ha",
            "haha*",
            "ahah*",
            "hehe*",
            "lol",
            "lmao",
            "lmfao",
            "rofl",
            "funny",
        ],
        "choice" => &["?or", "?или", "?better", "?лучше"],
        "taste" => &[
            "favourit*",
            "favorit*",
            "?like",
            "?prefer",
            "любим*",
            "?нравит*",
            "?предпочита*",
        ],
        "chat" => &[
            "talk",
            "chat",
            "поговор*",
            "поболта*",
            "пообща*",
            "побесед*",
        ],
        "nature" => &[
            "?you",
            "?ты",
            "?тебе",
            "?тебя",
            "?тобой",
            "?вы",
            "?вас",
            "?вам",
        ],
        "fondness" => &[
            "?like",
            "?love",
            "?care",
            "?favourit*",
            "?favorit*",
            "?нрав*",
            "?люб*",
            "?симпат*",
            "?дорог*",
        ],
        _ => &[],
    }
}

/// Whether the user's `words` (lower case, `ё` as `е`) say one of the cues of the intent
/// named `name`; `question`: the user's text asks (has a `?`).
fn says(words: &[String], question: bool, name: &str) -> bool {
    cues(name).iter().any(|cue| {
        let cue = match cue.strip_prefix('?') {
            Some(_) if !question => return false,
            Some(asked) => asked,
            None => cue,
        };
        let cue: Vec<&str> = cue.split(' ').collect();
        words.windows(cue.len()).any(|window| {
            window
                .iter()
                .zip(&cue)
                .all(|(word, c)| match c.strip_suffix('*') {
                    Some(stem) => word.starts_with(stem),
                    None => word == c,
                })
        })
    })
}

/// A canned reply's words (lower case, `ё` as `е`), whole or up to `{caps}`.
struct Canned {
    intent: Intent,
    words: Vec<String>,
    /// The whole reply (else the words before `{caps}`).
    whole: bool,
}

/// Every checked canned reply of the message catalog, both languages, read once.
fn canned() -> &'static [Canned] {
    static CANNED: OnceLock<Vec<Canned>> = OnceLock::new();
    CANNED.get_or_init(|| {
        // Stands for what the assistant can do: the words before it are the reply's fixed
        // opening.
        const CAPS: &str = "\u{1}";
        let mut all = Vec::new();
        for lang in [Lang::Ru, Lang::En] {
            let texts = Texts::new(lang);
            for intent in Intent::ALL
                .into_iter()
                .filter(|i| !cues(i.name()).is_empty())
            {
                let mut seen: Vec<String> = Vec::new();
                // The catalog's variants repeat in turn: the first repeat ends them.
                for variant in 0..16 {
                    let reply = texts.talk_reply(intent, variant, CAPS);
                    if seen.contains(&reply) {
                        break;
                    }
                    seen.push(reply.clone());
                    let (text, whole) = match reply.split_once(CAPS) {
                        Some((before, _)) => (before.to_string(), false),
                        None => (reply, true),
                    };
                    let words = normalized(&text);
                    if words.is_empty() || (!whole && words.len() < MIN_CANNED_PREFIX) {
                        continue;
                    }
                    all.push(Canned {
                        intent,
                        words,
                        whole,
                    });
                }
            }
        }
        all
    })
}

fn normalized(text: &str) -> Vec<String> {
    words(text)
        .into_iter()
        .map(|w| w.replace('ё', "е"))
        .collect()
}

/// The intent whose canned reply `reply` starts with (a short one: is) while `user_text`
/// says none of the intents it fits.
pub fn other_intent(reply: &str, user_text: &str) -> Option<Intent> {
    let reply = normalized(reply);
    let user = normalized(user_text);
    let question = user_text.contains('?');
    canned()
        .iter()
        .find(|c| {
            reply.starts_with(&c.words)
                && (c.words.len() >= SHORT_CANNED || (c.whole && reply.len() == c.words.len()))
                && !says(&user, question, c.intent.name())
                && !also_fits(c.intent.name())
                    .iter()
                    .any(|i| says(&user, question, i))
        })
        .map(|c| c.intent)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cues_say_the_intent() {
        let said =
            |text: &str, intent: Intent| says(&normalized(text), text.contains('?'), intent.name());
        assert!(said("Привет! Как тебя зовут?", Intent::Greeting));
        assert!(said("Привет! Как тебя зовут?", Intent::Identity));
        assert!(said("Доброе утро", Intent::Greeting));
        assert!(said("Спасибо большое", Intent::Thanks));
        assert!(said("Thanks a lot!", Intent::Thanks));
        assert!(said("Как у тебя дела?", Intent::HowAreYou));
        assert!(said("How's it going?", Intent::HowAreYou));
        assert!(said("See you tomorrow", Intent::Farewell));
        assert!(said("Расскажи анекдот", Intent::Joke));
        assert!(!said("I feel sad", Intent::Thanks));
        assert!(!said("У меня день рождения!", Intent::Greeting));
        // Whole words: «hi» is not in «this», «пока» not in «покажи».
        assert!(!said("What is this?", Intent::Greeting));
        assert!(!said("Покажи заметки", Intent::Farewell));
        // A question about the assistant is about who it is; a statement is not.
        assert!(said("Тебе снятся сны?", Intent::Identity));
        assert!(!said("Я тебе верю", Intent::Identity));
        // A choice and a taste are asked; an offer to talk is said.
        assert!(said("Чай или кофе?", Intent::Choice));
        assert!(!said("Включи джаз или рок", Intent::Choice));
        assert!(said("What's your favourite colour?", Intent::Taste));
        // Spoken without a question mark, a favourite still asks the assistant's taste.
        assert!(said("what's your favourite colour", Intent::Taste));
        assert!(said("Давай поболтаем", Intent::Chat));
        // What the assistant is like, and whether it likes the user, are asked of it.
        assert!(said("Тебе снятся сны?", Intent::Nature));
        assert!(!said("Почему трава зелёная?", Intent::Nature));
        assert!(said("Do you like me?", Intent::Fondness));
        assert!(!said("I like pizza", Intent::Fondness));
    }

    #[test]
    fn the_catalog_is_read_whole() {
        let all = canned();
        for intent in [
            Intent::Greeting,
            Intent::Thanks,
            Intent::Farewell,
            Intent::Joke,
        ] {
            assert!(all.iter().filter(|c| c.intent == intent).count() >= 4);
        }
        assert!(all.iter().any(|c| c.intent == Intent::Identity && !c.whole));
        assert!(!all.iter().any(|c| c.intent == Intent::OutOfScope));
        assert!(!all.iter().any(|c| c.intent == Intent::Acknowledgement));
    }
}
