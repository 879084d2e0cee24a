//! Tests of the text rules.

use std::borrow::Cow;

use super::*;

fn split(text: &str) -> Vec<String> {
    text.split_whitespace().map(str::to_owned).collect()
}

/// `heard_as:` of the shipped notes and media sets, as a test's own table.
const SHIPPED_HEARD_AS: &[(&str, &str)] = &[
    ("right down", "write down"),
    ("right it down", "write it down"),
    ("right that down", "write that down"),
    ("right this down", "write this down"),
    ("rite", "write"),
    ("write that down", "write that down"),
    ("write that", "write down that"),
    ("take a note", "make a note"),
    ("pop down", "jot down"),
    ("put down that", "jot down that"),
    ("за пиши", "запиши"),
    ("fire up", "put on"),
    ("fire it up", "put it on"),
    ("stick on", "put on"),
];

#[test]
fn a_recognizer_slip_of_a_request_verb_is_put_right() {
    let heard_right = |said| heard_right(said, SHIPPED_HEARD_AS);
    for (said, heard) in [
        (
            "right down call the landlord",
            "write down call the landlord",
        ),
        ("Right it down, please", "write it down please"),
        ("за пиши молоко", "запиши молоко"),
        ("nevermind", "never mind"),
        ("rite this down, bins", "write this down, bins"),
        (
            "Take a note the pharmacy closes at five",
            "make a note the pharmacy closes at five",
        ),
        ("pop down new batteries", "jot down new batteries"),
        (
            "put down that jake owes me twenty quid",
            "jot down that jake owes me twenty quid",
        ),
        ("fire up the lion king", "put on the lion king"),
        ("ok fire it up", "ok put it on"),
        ("stick on a cartoon", "put on a cartoon"),
        (
            "note number one can go now",
            "note number one can be deleted now",
        ),
        (
            "i wanna see the new spiderman",
            "i wanna watch the new spiderman",
        ),
        ("i'd love to see a musical", "i'd love to watch a musical"),
        (
            "can you get the jungle book on",
            "can you put the jungle book on",
        ),
        (
            "write that the car needs washing",
            "write down that the car needs washing",
        ),
        ("write that down", "write that down"),
    ] {
        assert_eq!(heard_right(said), heard, "{said}");
    }
    for unchanged in [
        "you can go now",
        "i'd like to see what i wrote",
        "i want to see wait here in big letters",
        "we can go to the zoo",
        "That's right, thanks",
    ] {
        assert!(
            matches!(heard_right(unchanged), Cow::Borrowed(_)),
            "{unchanged}"
        );
    }
}

#[test]
fn questions_of_what_is_are_told_from_requests_to_act() {
    for asks in [
        "What did I write down earlier?",
        "did I make a note of where I parked",
        "Напомни-ка, что у меня в заметках лежит?",
        "ну что у меня там сейчас записано",
        "ok so what's on my list",
        "what was the thing I wanted to keep in mind",
        "remind me what i wrote down",
        "could you tell me which notes I have",
        "Напомни-ка, какие у меня заметки",
        "have i got anything saved about the boiler",
        "was there a note about the dentist",
    ] {
        assert!(asks_what_is(asks), "{asks}");
    }
    for acts in [
        "Could you save a note saying the garage code is 4417?",
        "А можешь сохранить в заметках, что код от гаража 4417?",
        "Запиши, что ключи у соседа",
        "note to self: return the library books",
        "What a day. Write down: buy milk?",
        "Do you mind noting that the rent went up?",
        "remind me to water the plants tomorrow",
        "remind me later that the bins go out tonight",
        "Напомни мне, что завтра стрижка",
        "have a note saying the boiler was serviced",
        "",
    ] {
        assert!(!asks_what_is(acts), "{acts}");
    }
}

#[test]
fn a_question_whether_there_is_any_of_something_is_told() {
    for asks in [
        "got anything with dinosaurs in it",
        "anything good with robots in it",
        "so yeah, anything saved in my notes",
        "have we got any westerns",
        "Есть что-нибудь про акул?",
    ] {
        assert!(asks_for_any(asks), "{asks}");
    }
    for not in [
        "are you able to help me with anything else",
        "do you have any hobbies",
        "i don't need note one any more",
        "Would you have Avatar by any chance?",
        "anything?",
        "I was thinking about it for a long while and then anything",
        "удиви меня каким-нибудь фактом",
    ] {
        assert!(!asks_for_any(not), "{not}");
    }
}

#[test]
fn a_question_of_what_a_word_means_is_told_from_a_request() {
    for meaning in [
        "what is a note in music",
        "What's an IMDb id?",
        "what does remake mean",
        "что такое заметка",
        "is a film the same as a movie",
        "what's the difference between a remake and a sequel",
    ] {
        assert!(asks_meaning(meaning), "{meaning}");
    }
    for request in [
        "what's a good film for tonight",
        "what is on my list",
        "what is the time",
        "что у меня в заметках",
        "play the same as yesterday",
    ] {
        assert!(!asks_meaning(request), "{request}");
    }
}

#[test]
fn a_statement_of_the_speaker_s_own_is_told_from_a_request() {
    for statement in [
        "i love dinosaurs",
        "I'm feeling a bit down today",
        "oh well, my favourite film is Toy Story",
        "мне сегодня грустно",
        "у меня болит голова",
        "i watched paddington with the kids last night",
        "my son played football all morning",
        "i hate writing notes",
        "I really love watching old films",
        "я обожаю заметки",
    ] {
        assert!(tells_of_self(statement), "{statement}");
    }
    for request in [
        "i need to remember to book the flu jabs",
        "I'm bored, find me a comedy",
        "I'm in the mood for something with Tom Hanks",
        "I'm done with movies, switch the media tools off",
        "i have to renew my passport",
        "I'd love to watch Paddington",
        "I feel like watching something scary",
        "my notes please",
        "my locker code is 1 9 8",
        "I was wondering what time it is",
        "i wanted a comedy tonight",
        "i needed to add a note",
        "мне нужно купить хлеб",
        "я хочу посмотреть комедию",
        "do I have any notes",
        "i love dinosaurs?",
        "i love watching films, find me one",
        "I'd love to watch a musical",
        "i like to watch comedies",
    ] {
        assert!(!tells_of_self(request), "{request}");
    }
}

#[test]
fn a_question_of_the_assistant_s_taste_is_told_from_a_request() {
    for opinion in [
        "do you like films",
        "What's your favourite film?",
        "А тебе нравятся комедии?",
        "ты любишь мультики?",
        "cartoons are great fun, don't you think",
        "films were so much better in the old days, weren't they",
        "comedies are so silly, aren't they",
        "Хорошая штука эти заметки, не правда ли?",
    ] {
        assert!(asks_opinion(opinion), "{opinion}");
    }
    for request in [
        "it's friday today, isn't it",
        "the dentist is on my list, isn't it",
        "I'd like to watch Paddington",
        "Would you like to play a film?",
        "Find films you like",
        "Покажи, что мне нравится",
    ] {
        assert!(!asks_opinion(request), "{request}");
    }
}

#[test]
fn an_action_is_said_by_a_form_of_its_word_unless_negated() {
    let said: Vec<String> = ["вычеркнуть", "выкинуть", "bin", "erase"]
        .map(str::to_owned)
        .to_vec();
    for yes in [
        "Вычеркни вторую, я уже разобрался.",
        "сантехник приходил, так что третью можно выкинуть",
        "ok the plumber came so you can bin note three",
        "Erased? No: erase note two",
        "please ERASE it",
    ] {
        assert!(says_action(yes, &said), "{yes}");
    }
    for no in [
        "Не вычеркивай ничего",
        "don't erase anything",
        "Don’t bin it",
        "I want to binge a series",
        "Запиши: купить молоко",
        "",
    ] {
        assert!(!says_action(no, &said), "{no}");
    }
    assert!(!says_action::<&str>("вычеркни", &[]));
}

#[test]
fn a_request_s_closing_words_are_no_argument() {
    let show = [
        "Show the word hello on the screen",
        "Put this text on my glasses",
        "Display the phone number on screen",
        "Put a reminder on the glasses",
    ];
    assert_eq!(
        without_frame_end(split("put room two oh five on my screen"), &show),
        split("put room two oh five")
    );
    // A title after a naming word is no frame, however short.
    let search = ["Look up the movie Inception", "Find the film Titanic"];
    assert_eq!(
        without_frame_end(split("search for a movie called up"), &search),
        split("search for a movie called up")
    );
    // A preposition that places the text on the display closes it too.
    assert_eq!(
        without_frame_end(split("write happy birthday Lena across my glasses"), &show),
        split("write happy birthday Lena")
    );
    // A number closes nothing; nor does a word one example alone names.
    assert_eq!(
        without_frame_end(split("Can you put Gate 12 on my screen"), &show),
        split("Can you put Gate 12")
    );
    let search = ["Find the film Titanic", "Look up the movie Inception"];
    assert_eq!(
        without_frame_end(split("Search for Titanic"), &search),
        split("Search for Titanic")
    );
    assert_eq!(
        without_frame_end(split("find jurassic park to"), &search),
        split("find jurassic park")
    );
    // A word of the examples' middle is content: "address" ends no example here.
    let with_address = [
        "Write the address on the display",
        "Flash the address and time on my glasses",
    ];
    assert_eq!(
        without_frame_end(split("Show my home address"), &with_address),
        split("Show my home address")
    );
    // The first word stays.
    assert_eq!(without_frame_end(split("screen"), &show), split("screen"));
}

#[test]
fn a_text_argument_starts_where_the_request_says_what_it_is_about() {
    let notes = [
        "Write down: office at nine tomorrow",
        "Add a note to buy milk",
        "Make a note that the meeting moved",
        "Note for later: the gate code is 4512",
    ];
    let one = |text: &str| vec![text.to_owned()];
    // A preamble, politeness and the tool's frame go; the rest is one word.
    assert_eq!(
        from_content_start(
            split("Would you be so kind as to make a note that Anna's flight lands at six"),
            &notes
        ),
        one("Anna's flight lands at six")
    );
    assert_eq!(
        from_content_start(split("ok so write down that the plumber comes"), &notes),
        one("plumber comes")
    );
    // A word with a digit says something, wherever it stands.
    assert_eq!(
        from_content_start(split("note 4417 is the code"), &notes),
        one("4417 is the code")
    );
    // Only the last word says something: it is the argument.
    assert_eq!(
        from_content_start(split("add a note milk"), &notes),
        one("milk")
    );
    let search = ["Find the film Titanic", "Look up the movie Inception"];
    assert_eq!(
        from_content_start(split("look up the new dune movie"), &search),
        one("new dune movie")
    );
    // A title starts after the word that names it, however short.
    assert_eq!(
        from_content_start(split("find me a movie called up"), &search),
        one("up")
    );
    // Russian: a preamble and politeness words.
    let ru = ["Найди фильм Титаник", "Поищи фильмы с Джеки Чаном"];
    assert_eq!(
        from_content_start(split("слушай, короче, найди фильм про Паддингтона"), &ru),
        one("Паддингтона")
    );
    // Nothing but frame: the model chooses, as before.
    assert_eq!(
        from_content_start(split("add a note"), &notes),
        split("add a note")
    );
    assert!(from_content_start(Vec::new(), &notes).is_empty());
}

#[test]
fn routing_compares_a_request_without_its_lead() {
    assert_eq!(
        without_lead("ok so listen how long have i got till noon"),
        "how long have i got till noon"
    );
    assert_eq!(
        without_lead("I was hoping you could walk me through the film feature"),
        "walk me through the film feature"
    );
    assert_eq!(
        without_lead("Будьте добры, сделайте заметку"),
        "сделайте заметку"
    );
    assert_eq!(
        without_lead("слушай, короче, кинь на экран пароль"),
        "кинь на экран пароль"
    );
    assert_eq!(
        without_lead("i'd appreciate it if you removed the second note"),
        "it if you removed the second note"
    );
    // The assistant addressed by its name is a lead as well.
    assert_eq!(
        without_lead("hey porfiry make a note dentist on thursday"),
        "make a note dentist on thursday"
    );
    assert_eq!(without_lead("Порфирий, запиши: хлеб"), "запиши: хлеб");
    // So are an apology and "one more thing".
    assert_eq!(
        without_lead("sorry, one more thing, could you jot down the plumber's number"),
        "jot down the plumber's number"
    );
    assert_eq!(without_lead("Извините, запишите: хлеб"), "запишите: хлеб");
    // A request without a lead, and one that is nothing but a lead, stay whole.
    assert_eq!(without_lead("Is it past ten?"), "Is it past ten?");
    assert_eq!(without_lead("ok, thanks"), "thanks");
    assert_eq!(without_lead("ok so"), "ok so");
    assert_eq!(without_lead(""), "");
}

#[test]
fn questions_of_worth_or_cause_are_told_from_requests_put_as_questions() {
    for q in [
        "Is it better to cook pasta for ten minutes or twelve?",
        "How much does a pint of milk cost these days?",
        "Who sings Bohemian Rhapsody?",
        "Кто поёт «Группу крови»?",
        "Почему мигает свет в ванной?",
        "what's a good temperature for a bedroom",
    ] {
        assert!(asks_worth_or_cause(q), "{q}");
    }
    for r in [
        "Can you play something good?",
        "Можешь включить что-нибудь хорошее?",
        "Play the best of Queen",
        "Включи лучшие песни",
        "What's on my shopping list?",
        "is there a good comedy on",
        "Any good cartoons to watch tonight?",
    ] {
        assert!(!asks_worth_or_cause(r), "{r}");
    }
}

#[test]
fn whether_the_user_should_do_something_asks_advice() {
    for q in [
        "Should I bring a jacket tonight?",
        "So shall we leave at eight?",
        "Стоит ли брать куртку?",
        "А нужно ли мне записываться заранее?",
    ] {
        assert!(asks_should(q), "{q}");
    }
    for r in [
        "What should I cook?",
        "I should call mom",
        "Стоит ли что-то в календаре на завтра",
        "Сколько стоит молоко?",
    ] {
        assert!(!asks_should(r), "{r}");
    }
}

#[test]
fn a_remark_that_asks_for_nothing_is_told_from_a_request() {
    for r in [
        "Calendars make me anxious, to be honest",
        "Календари такие скучные",
        "Вечно путаю мили с километрами, бесит",
        "Терпеть не могу переводить единицы измерения",
        "Мама вчера звонила насчёт отпуска",
        "Обожаю эту песню",
    ] {
        assert!(remarks(r), "{r}");
    }
    for q in [
        "I love this song, turn it up",
        "Люблю джаз, найди что-нибудь",
        "Remember that I hate olives",
        "Запиши, что я ненавижу брокколи",
        "Why are calendars so boring?",
        "Calendars are boring, add 2 events anyway",
        "Add a dentist appointment on Monday",
    ] {
        assert!(!remarks(q), "{q}");
    }
}

#[test]
fn a_question_of_what_anyone_needs_is_told_from_ones_own_need() {
    for q in [
        "How many hours of sleep does an adult need?",
        "Сколько часов нужно спать взрослому?",
        "Сколько воды надо пить в день?",
    ] {
        assert!(asks_of_need(q), "{q}");
    }
    for r in [
        "What do I need to buy?",
        "Что нам нужно купить?",
        "Could you also add that the car needs new tyres?",
        "How many hours until the weekend?",
        "I need a timer for the rice",
    ] {
        assert!(!asks_of_need(r), "{r}");
    }
}

#[test]
fn a_request_to_read_out_names_what_follows_its_verb() {
    let words = |t: &str| read_out(t).map(|w| w.join(" "));
    assert_eq!(words("Зачитай покупки").as_deref(), Some("покупки"));
    assert_eq!(words("Read me my timers").as_deref(), Some("timers"));
    assert_eq!(
        words("Can you read the shopping list to me?").as_deref(),
        Some("the shopping list to")
    );
    assert_eq!(
        words("Слушай, покажи-ка будильники").as_deref(),
        Some("будильники")
    );
    assert_eq!(words("Read"), None);
    assert_eq!(words("Add milk to the list"), None);
    assert_eq!(words("I read that book"), None);
}

#[test]
fn a_story_of_the_past_is_told() {
    assert!(tells_of_past("Мама вчера звонила насчёт отпуска"));
    assert!(tells_of_past("Yesterday Bob called"));
    assert!(!tells_of_past("Call Bob tomorrow"));
}
