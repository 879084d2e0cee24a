//! The example requests of the core tools and of a plain reply, per language: what
//! routing compares a request with beside each tool's own `examples:` (never shown to the
//! model; written apart from every eval case).

use super::text::says_action;
use crate::messages::Lang;

/// The routing target of requests that want a plain reply, in [`route_examples`].
pub(crate) const PLAIN_REPLY: &str = "";

/// Example requests for the core tools and for a plain reply, as `(target, text)`:
/// `target` is a core tool's name, a conversational intent's target (`talk:…`,
/// [`crate::Intent::target`]: a plain reply unless [`super::Technique::TalkIntents`] is on),
/// or [`PLAIN_REPLY`] for the other requests no tool serves (questions, jokes).
pub(crate) fn route_examples(lang: Lang) -> &'static [(&'static str, &'static str)] {
    match lang {
        Lang::Ru => RU_ROUTES,
        Lang::En => EN_ROUTES,
    }
}

/// Words that say a core tool's action and no other tool's, any language, matched by stem
/// ([`super::Technique::SaidAction`], as a toolset's `said:`): the display `show_text`
/// writes on, the words that close a set ("that's it for the notes, thanks, close them", "ok
/// I'm done with notes").
/// Never "display" (a verb for listing notes too), "clear", "off" (the lights go off too)
/// nor «выключи» (a film is switched off too).
pub(crate) fn core_said(tool: &str) -> &'static [&'static str] {
    match tool {
        "disable_toolset" => &[
            "закрой",
            "закрыть",
            "закрывай",
            "отключи",
            "отключить",
            "close",
            "disable",
            "done",
            "finished",
        ],
        "show_text" => &[
            "очки",
            "очках",
            "очков",
            "экран",
            "дисплей",
            "табло",
            "линзы",
            "линзах",
            "glasses",
            "screen",
            "lens",
            "lenses",
        ],
        _ => &[],
    }
}

/// Words one of which a request for a core tool always says beside the words of its action
/// ([`core_said`]), any language, matched by stem ([`super::Technique::SaidAction`]):
/// closing a toolset says so ("switch it off", «хватит», "we're done"), showing a text says
/// where or how (the display, "in front of my eyes", «крупно»), asking the clock says a word
/// of time, a day, a date or a number (digits count too). A request routed to the tool
/// without any of them is routed again without it ([`says_needed`]): "and also batteries for
/// the remote" adds a note, it closes nothing; "put on toy story" plays a film.
pub(crate) fn core_needs(tool: &str) -> &'static [&'static str] {
    match tool {
        "show_text" => &[
            "глаза",
            "глазами",
            "перед",
            "крупно",
            "покажи",
            "показать",
            "выведи",
            "вывести",
            "высвети",
            "отобрази",
            "напиши",
            "надпись",
            "display",
            "eyes",
            "front",
            "see",
            "big",
            "letters",
            "words",
            "show",
            "flash",
            "write",
            "sign",
        ],
        // The clock is asked by a word of time, a day or a date, or by a number (an hour,
        // a day of the month): "how long is it" asks about a film, "tell me something I
        // don't know" asks for no time.
        "get_current_time" => &[
            "time",
            "times",
            "clock",
            "oclock",
            "hour",
            "hours",
            "minute",
            "date",
            "day",
            "days",
            "today",
            "tonight",
            "tomorrow",
            "yesterday",
            "week",
            "weeks",
            "weekday",
            "weekend",
            "month",
            "months",
            "year",
            "years",
            "morning",
            "afternoon",
            "evening",
            "night",
            "noon",
            "midnight",
            "midday",
            "late",
            "early",
            "past",
            "after",
            "until",
            "till",
            "yet",
            "still",
            "already",
            "now",
            "calendar",
            "christmas",
            "easter",
            "monday",
            "tuesday",
            "wednesday",
            "thursday",
            "friday",
            "saturday",
            "sunday",
            "january",
            "february",
            "march",
            "april",
            "may",
            "june",
            "july",
            "august",
            "september",
            "october",
            "november",
            "december",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "twenty",
            "thirty",
            "half",
            "quarter",
            "время",
            "времени",
            "час",
            "часа",
            "часов",
            "часы",
            "часах",
            "минута",
            "секунда",
            "дата",
            "дату",
            "даты",
            "число",
            "числа",
            "день",
            "дня",
            "дней",
            "сегодня",
            "завтра",
            "вчера",
            "послезавтра",
            "неделя",
            "месяц",
            "год",
            "года",
            "году",
            "утро",
            "утра",
            "утром",
            "вечер",
            "ночь",
            "ночи",
            "полдень",
            "полдня",
            "полудня",
            "полночь",
            "полуночи",
            "сейчас",
            "уже",
            "ещё",
            "еще",
            "пора",
            "поздно",
            "рано",
            "натикало",
            "выходные",
            "праздник",
            "понедельник",
            "вторник",
            "среда",
            "среду",
            "среды",
            "четверг",
            "пятница",
            "пятницу",
            "суббота",
            "субботу",
            "воскресенье",
            "январь",
            "февраль",
            "март",
            "апрель",
            "май",
            "мая",
            "июнь",
            "июль",
            "август",
            "сентябрь",
            "октябрь",
            "ноябрь",
            "декабрь",
            "один",
            "одного",
            "два",
            "двух",
            "три",
            "трёх",
            "трех",
            "четыре",
            "пять",
            "шесть",
            "семь",
            "восемь",
            "девять",
            "десять",
            "одиннадцать",
            "двенадцать",
            "двадцать",
            "тридцать",
            "половина",
            "четверть",
        ],
        "disable_toolset" => &[
            "выключи",
            "хватит",
            "закончили",
            "выход",
            "выйди",
            "убери",
            "убрать",
            "больше",
            "нужно",
            "всё",
            "довольно",
            "off",
            "enough",
            "leave",
            "exit",
            "quit",
            "shut",
            "away",
            "anymore",
            "more",
            "stop",
        ],
        _ => &[],
    }
}

/// Words that say where or how a text is shown beside the glasses and screens of
/// [`core_said`] ("in front of me", "in big letters", «крупно»): a request that says one
/// shows a text even when it names a set's subject.
pub(crate) const SHOWN_HOW: &[&str] = &[
    "display",
    "eyes",
    "front",
    "big",
    "letters",
    "sign",
    "word",
    "words",
    "перед",
    "глаза",
    "глазами",
    "крупно",
    "надпись",
    "дисплее",
    "дисплей",
];

/// Whether `request` says what a request for core tool `tool` always says: a word of its
/// action ([`core_said`]) or one of [`core_needs`]; true for a tool that needs no word.
pub(crate) fn says_needed(tool: &str, request: &str) -> bool {
    let needs = core_needs(tool);
    let clock_digits = tool == "get_current_time" && request.chars().any(|c| c.is_ascii_digit());
    needs.is_empty()
        || clock_digits
        || says_action(request, needs)
        || says_action(request, core_said(tool))
}

const RU_ROUTES: &[(&str, &str)] = &[
    ("get_current_time", "Сколько времени?"),
    ("get_current_time", "Который сейчас час"),
    ("get_current_time", "Скажи точное время"),
    ("get_current_time", "Какое сегодня число?"),
    ("get_current_time", "Какая сегодня дата"),
    ("get_current_time", "Подскажи, что сегодня за день недели"),
    ("get_current_time", "Сколько на часах?"),
    ("get_current_time", "Какой сейчас месяц и год"),
    ("get_current_time", "Уже полдень или ещё утро?"),
    ("get_current_time", "Сколько осталось до полуночи?"),
    ("get_current_time", "Сколько дней осталось до выходных?"),
    ("show_text", "Покажи на экране слово привет"),
    ("show_text", "Выведи на очки текст"),
    ("show_text", "Напиши на дисплее адрес"),
    ("show_text", "Отобрази на экране номер телефона"),
    ("show_text", "Покажи крупно надпись"),
    ("show_text", "Выведи на очки напоминание"),
    ("show_text", "Пусть на экране будет написано"),
    ("show_text", "Высвети на очках адрес и время"),
    ("read_skill", "Прочитай инструкцию"),
    ("read_skill", "Загляни в свой скилл"),
    ("read_skill", "Что написано в твоей инструкции про это"),
    ("read_skill", "Открой скилл и расскажи"),
    ("read_skill", "Объясни, как этим пользоваться"),
    ("read_skill", "Как это у тебя устроено?"),
    ("disable_toolset", "Выключи набор инструментов"),
    ("disable_toolset", "Больше не нужно, отключи это"),
    ("disable_toolset", "Закрой режим, мы закончили"),
    ("disable_toolset", "Отключи эти инструменты, хватит"),
    ("disable_toolset", "Выход из режима"),
    ("talk:greeting", "Приветик"),
    ("talk:how-are-you", "Добрый вечер, как ты?"),
    ("talk:thanks", "Большое тебе спасибо"),
    ("talk:farewell", "Пока, до завтра"),
    ("talk:identity", "Кто ты такой?"),
    ("talk:capabilities", "Что ты умеешь?"),
    ("talk:joke", "Расскажи что-нибудь смешное"),
    (PLAIN_REPLY, "Сколько будет три плюс пять"),
    (PLAIN_REPLY, "Почему небо голубое?"),
    (PLAIN_REPLY, "Кто изобрёл телефон?"),
    (PLAIN_REPLY, "Сколько лап у собаки?"),
    (PLAIN_REPLY, "Какой город самый большой в России?"),
    (PLAIN_REPLY, "Где находится Эйфелева башня?"),
    (PLAIN_REPLY, "Какое животное самое быстрое?"),
    (PLAIN_REPLY, "Что тяжелее, килограмм ваты или железа?"),
    (PLAIN_REPLY, "Переведи слово кошка на английский"),
    (PLAIN_REPLY, "Поделись интересным фактом"),
    ("talk:out-of-scope", "Какая погода на улице?"),
    ("talk:out-of-scope", "Набери номер брата"),
    ("talk:out-of-scope", "Заведи будильник на полшестого"),
    ("talk:out-of-scope", "Напиши сообщение другу"),
    ("talk:out-of-scope", "Вызови машину домой"),
    ("talk:out-of-scope", "Сделай потише музыку"),
    ("talk:out-of-scope", "Открой ворота гаража"),
    ("talk:out-of-scope", "Купи билеты на поезд"),
    ("talk:out-of-scope", "Включи кондиционер"),
    ("talk:out-of-scope", "Позвони в ресторан"),
    ("talk:out-of-scope", "Поставь таймер на десять минут"),
    ("talk:out-of-scope", "Закажи пиццу"),
    ("talk:how-are-you", "Как твои дела?"),
    (PLAIN_REPLY, "Придумай стишок"),
];

const EN_ROUTES: &[(&str, &str)] = &[
    ("get_current_time", "What's the time?"),
    ("get_current_time", "Tell me the exact time"),
    ("get_current_time", "What's the date today?"),
    ("get_current_time", "Which day of the week is it"),
    ("get_current_time", "What does the clock say"),
    ("get_current_time", "What month and year is it now"),
    ("get_current_time", "Is it morning or afternoon already?"),
    ("get_current_time", "Do you know the current time"),
    ("get_current_time", "Time left till midnight?"),
    ("get_current_time", "Is it Friday yet?"),
    ("get_current_time", "Could you check the date?"),
    (
        "get_current_time",
        "How many days are left until the weekend?",
    ),
    ("show_text", "Show the word hello on the screen"),
    ("show_text", "Put this text on my glasses"),
    ("show_text", "Write the address on the display"),
    ("show_text", "Display the phone number on screen"),
    ("show_text", "Show a big sign that says"),
    ("show_text", "Put a reminder on the glasses"),
    ("show_text", "Let the screen say"),
    ("show_text", "Flash the address and time on my glasses"),
    ("read_skill", "Read your instructions"),
    ("read_skill", "Look into your skill"),
    ("read_skill", "What do your instructions say about this"),
    ("read_skill", "Open the skill and tell me"),
    ("read_skill", "Explain how to use that"),
    ("read_skill", "How do I use that feature?"),
    ("disable_toolset", "Turn off the toolset"),
    ("disable_toolset", "We're done with that, disable it"),
    ("disable_toolset", "Close this mode, we finished"),
    ("disable_toolset", "Switch those tools off, enough"),
    ("disable_toolset", "Leave this mode"),
    ("talk:greeting", "Hi"),
    ("talk:how-are-you", "Good evening, how are you?"),
    ("talk:thanks", "Thanks a ton"),
    ("talk:farewell", "Bye, see you tomorrow"),
    ("talk:identity", "Who are you?"),
    ("talk:capabilities", "What can you do?"),
    ("talk:joke", "Tell me something funny"),
    (PLAIN_REPLY, "What is nine minus four"),
    (PLAIN_REPLY, "Why is the sky blue?"),
    (PLAIN_REPLY, "Who invented the telephone?"),
    (PLAIN_REPLY, "How many legs are on a spider?"),
    (PLAIN_REPLY, "What is the largest city in Japan?"),
    (PLAIN_REPLY, "Where is the Eiffel Tower?"),
    (PLAIN_REPLY, "Which animal is the fastest?"),
    (
        PLAIN_REPLY,
        "What is heavier, a ton of feathers or a ton of bricks?",
    ),
    (PLAIN_REPLY, "Translate the word cat into French"),
    (PLAIN_REPLY, "Surprise me with a fun fact"),
    ("talk:out-of-scope", "What's the weather like outside?"),
    ("talk:out-of-scope", "Dial my brother"),
    ("talk:out-of-scope", "Get me up at half past five"),
    ("talk:out-of-scope", "Text my friend"),
    ("talk:out-of-scope", "Get me a car home"),
    ("talk:out-of-scope", "Turn the music down"),
    ("talk:out-of-scope", "Open the garage door"),
    ("talk:out-of-scope", "Buy train tickets"),
    ("talk:out-of-scope", "Turn on the air conditioning"),
    ("talk:out-of-scope", "Call the restaurant"),
    ("talk:out-of-scope", "Set a timer for ten minutes"),
    ("talk:out-of-scope", "Order a pizza"),
    ("talk:how-are-you", "How have you been?"),
    (PLAIN_REPLY, "Make up a little poem"),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn asking_the_clock_says_a_word_of_time_or_a_number() {
        for asks in [
            "hey is it after two already",
            "сегодня у нас что, двадцатое?",
            "Так, короче, сколько там уже натикало?",
            "is it past 9",
            "чё по времени?",
            "Got the time?",
        ] {
            assert!(says_needed("get_current_time", asks), "{asks}");
        }
        for other in [
            "how long is it",
            "tell me something i probably dont know",
            "расскажи что-нибудь интересное",
        ] {
            assert!(!says_needed("get_current_time", other), "{other}");
        }
    }

    /// Every request of the clock in the dev and talk evals says what the clock needs (the
    /// sealed sets are left unread).
    #[test]
    fn every_clock_request_of_the_dev_evals_says_what_the_clock_needs() {
        let evals = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../evals");
        let mut checked = 0;
        let mut unsaid = Vec::new();
        for entry in std::fs::read_dir(evals).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if name.starts_with("sealed") || !name.ends_with(".yaml") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let file: serde_norway::Value = serde_norway::from_str(&text).unwrap();
            for case in file["cases"].as_sequence().cloned().unwrap_or_default() {
                let turns = case["turns"].as_sequence().cloned().unwrap_or_default();
                for turn in std::iter::once(&case).chain(turns.iter()) {
                    let expects_clock = serde_norway::to_string(&turn["expect"])
                        .unwrap()
                        .contains("get_current_time");
                    if let (true, Some(user)) = (expects_clock, turn["user"].as_str()) {
                        checked += 1;
                        if !says_needed("get_current_time", user) {
                            unsaid.push(format!("{name}: {user}"));
                        }
                    }
                }
            }
        }
        assert!(checked >= 100, "{checked} clock requests");
        assert!(unsaid.is_empty(), "{}", unsaid.join("\n"));
    }

    #[test]
    fn closing_a_toolset_is_said_and_adding_to_it_is_not() {
        for closes in [
            "Turn the notes off",
            "we're done with movies, close that",
            "с фильмами всё, закрой это",
            "кино на сегодня хватит, можешь убрать инструменты для фильмов",
            "Медиа мне больше не нужно, отключи",
        ] {
            assert!(says_needed("disable_toolset", closes), "{closes}");
        }
        for stays in [
            "and also batteries for the remote",
            "и ещё батарейки для пульта",
            "Play the second one",
            "don't close it",
        ] {
            assert!(!says_needed("disable_toolset", stays), "{stays}");
        }
        assert!(core_needs("notes_add").is_empty());
        assert!(says_needed("notes_add", "anything at all"));
        for shows_text in [
            "Pop the number 0471 in front of my eyes",
            "put the ratio up where I can see it",
            "кинь на экран кабинет двести пять",
            "Выведи перед глазами номер",
        ] {
            assert!(says_needed("show_text", shows_text), "{shows_text}");
        }
        assert!(!says_needed("show_text", "put on toy story"));
    }
}
