//! What a message says beside a request: a speaker telling of themselves ("I'm so tired"),
//! a question of what something means or of the assistant's opinion, and the slips a
//! speech recognizer makes in request verbs and idioms, put right ("right down" → "write
//! down").

use std::borrow::Cow;

use super::super::words::{lower_words, says_run};
use super::spoken;

/// Words a statement may open with before its speaker ("oh well, I love dinosaurs").
const STATEMENT_LEAD: &[&str] = &[
    "oh",
    "well",
    "so",
    "um",
    "uh",
    "hmm",
    "ugh",
    "actually",
    "honestly",
    "porfiry",
    "ну",
    "а",
    "и",
    "ой",
    "эх",
    "вообще",
    "кстати",
    "порфирий",
];

/// Words by which a speaker opens a statement of their own ("I…", "my…", «я…», «мне…»).
const STATEMENT_OPENERS: &[&str] = &[
    "i", "im", "ive", "my", "я", "мне", "меня", "мой", "моя", "моё", "мое", "мои",
];

/// Words that make a message a request or a question, not a statement of the speaker's own:
/// a wish or a need ("I want", "I'd", "I need to", "in the mood for something"), the
/// assistant addressed ("you"), a question word, a verb of asking the assistant to act
/// ("switch … off", "I'm done with movies"), or what a note keeps (a code, a password: "my
/// locker code is …" may be for keeping).
const REQUESTING: &[&str] = &[
    "want",
    "wanted",
    "wanna",
    "need",
    "needs",
    "needed",
    "would",
    "d",
    "must",
    "should",
    "can",
    "could",
    "gotta",
    "please",
    "pls",
    "fancy",
    "you",
    "your",
    "yours",
    "u",
    "what",
    "whats",
    "when",
    "where",
    "which",
    "how",
    "who",
    "why",
    "tell",
    "show",
    "give",
    "gimme",
    "let",
    "lets",
    "check",
    "look",
    "search",
    "find",
    "play",
    "watch",
    "see",
    "put",
    "add",
    "save",
    "keep",
    "note",
    "notes",
    "list",
    "write",
    "jot",
    "delete",
    "remove",
    "read",
    "remember",
    "forget",
    "remind",
    "reminder",
    "reminders",
    "password",
    "code",
    "pin",
    "number",
    "wondering",
    "hoping",
    "wonder",
    "something",
    "anything",
    "mood",
    "switch",
    "turn",
    "stop",
    "start",
    "close",
    "open",
    "done",
    "finished",
    "off",
    "хочу",
    "хочется",
    "хотел",
    "хотела",
    "хотелось",
    "нужно",
    "надо",
    "нужна",
    "нужен",
    "должен",
    "должна",
    "можно",
    "бы",
    "пожалуйста",
    "ты",
    "тебя",
    "тебе",
    "вы",
    "вас",
    "вам",
    "твой",
    "запиши",
    "запомни",
    "напомни",
    "найди",
    "включи",
    "покажи",
    "поставь",
    "давай",
    "что",
    "как",
    "когда",
    "сколько",
    "какой",
    "где",
    "почему",
    "список",
    "пароль",
    "код",
    "номер",
    "заметка",
    "заметку",
    "заметки",
];

/// Verbs of a feeling a speaker has about a thing ("I hate writing notes", «я обожаю
/// комедии»).
const FEELINGS: &[&str] = &[
    "love",
    "hate",
    "like",
    "enjoy",
    "adore",
    "dislike",
    "loathe",
    "detest",
    "люблю",
    "обожаю",
    "ненавижу",
];

/// Words between a speaker and their feeling ("I really hate…", «я просто обожаю…»).
const INTENSIFIERS: &[&str] = &[
    "really",
    "just",
    "so",
    "absolutely",
    "totally",
    "do",
    "actually",
    "kinda",
    "очень",
    "просто",
    "так",
    "правда",
];

/// Words of [`REQUESTING`] that name a thing, not a request, after a feeling ("I hate
/// notes"), as the doings in "-ing" do.
const FELT_THINGS: &[&str] = &[
    "note",
    "notes",
    "list",
    "number",
    "code",
    "password",
    "pin",
    "something",
    "anything",
    "reminder",
    "reminders",
    "заметка",
    "заметку",
    "заметки",
    "список",
    "номер",
    "код",
    "пароль",
];

/// Words of [`REQUESTING`] that wish in any tense ("I wanted to ask…").
const WISHES: &[&str] = &["want", "need", "needs", "wonder", "wondering", "hoping"];

/// Word pairs that say an obligation ("I have to…", "I've got to…").
const OBLIGATION: &[[&str; 2]] = &[
    ["have", "to"],
    ["has", "to"],
    ["got", "to"],
    ["ought", "to"],
];

/// Whether `text` is a statement of the speaker's own and nothing more ("I love dinosaurs",
/// "I'm feeling a bit down today", «мне грустно»): it opens with the speaker, asks nothing,
/// addresses no one, wishes or needs nothing, says no digit and no request word
/// ([`REQUESTING`], a word of five letters or more in any of its forms). It is talked about, not acted on: no tool is asked for.
pub(crate) fn tells_of_self(text: &str) -> bool {
    if text.contains('?') || text.chars().any(|c| c.is_ascii_digit()) {
        return false;
    }
    let words = lower_words(text);
    let start = words
        .iter()
        .position(|w| !STATEMENT_LEAD.contains(&w.as_str()));
    let Some(start) = start else {
        return false;
    };
    let opens = STATEMENT_OPENERS.contains(&words[start].as_str())
        || (words[start] == "у" && words.get(start + 1).is_some_and(|w| w == "меня"));
    // A feeling said of a thing or a doing ("I hate writing notes") names what it is about:
    // the thing and the doing request nothing.
    let feels = words[start + 1..]
        .iter()
        .find(|w| !INTENSIFIERS.contains(&w.as_str()))
        .is_some_and(|w| FEELINGS.contains(&w.as_str()));
    // A word of five letters or more counts in any form ("watching" is "watch") but the
    // past of a deed ("I watched Shrek last night" tells what was done; "I wanted to…"
    // still wishes).
    let requesting = |w: &String| {
        let felt = feels && (FELT_THINGS.contains(&w.as_str()) || w.ends_with("ing"));
        !felt
            && REQUESTING.iter().any(|r| {
                let past = w.len() > r.len() && w.ends_with("ed") && !WISHES.contains(r);
                w == r || (r.chars().count() >= 5 && w.starts_with(r) && !past)
            })
    };
    let requests = words.iter().any(requesting)
        || words.windows(2).any(|pair| {
            OBLIGATION
                .iter()
                .any(|o| pair[0] == o[0] && pair[1] == o[1])
        });
    opens && !requests && !super::super::answers::is_question(text)
}

/// Word beginnings of a feeling or a judgement about a thing ("calendars make me *anxious*",
/// «календари такие *скучные*», «*бесит*», «*терпеть* не могу …»).
const REMARK_STEMS: &[&str] = &[
    "anxious",
    "hurts",
    "aching",
    "болят",
    "болит",
    "шикарн",
    "boring",
    "bored",
    "annoy",
    "hate",
    "adore",
    "stressful",
    "confus",
    "awful",
    "terrible",
    "scary",
    "скучн",
    "бесит",
    "бесят",
    "раздража",
    "ненавиж",
    "обожа",
    "терпеть",
    "путаю",
    "надоел",
    "надоед",
    "достал",
    "грустн",
    "страшн",
    "ужасн",
    "нервир",
];

/// Words that set a statement in the past ("*yesterday* mum called", «мама *вчера*
/// звонила»): a story told, no request.
const PAST_WORDS: &[&str] = &[
    "yesterday",
    "ago",
    "вчера",
    "позавчера",
    "когда-то",
    "недавно",
];

/// Whether `text` tells of the past ([`PAST_WORDS`]: "yesterday", «вчера»): the names it
/// says are of its story, not of a request.
pub(crate) fn tells_of_past(text: &str) -> bool {
    let words = lower_words(text);
    words
        .iter()
        .any(|w| PAST_WORDS.contains(&w.as_str()) || PAST_STEMS.iter().any(|p| w.starts_with(p)))
        || words
            .windows(2)
            .any(|p| p[0] == "last" && PAST_SPANS.contains(&p[1].as_str()))
}

/// Stems of words that tell of the past in any form («*вчерашн*ий таксист», «на *прошл*ой
/// неделе»).
const PAST_STEMS: &[&str] = &["вчерашн", "позавчерашн", "прошл"];

/// What "last" makes a time gone by ("*last night*", "*last week*").
const PAST_SPANS: &[&str] = &[
    "night", "week", "month", "year", "weekend", "time", "summer",
];

/// Whether `text` is a remark that asks for nothing: a feeling or a judgement about a thing
/// ([`REMARK_STEMS`]: "Calendars make me anxious", «Вечно путаю мили с километрами, бесит»)
/// or a story of the past ([`PAST_WORDS`]: «Мама вчера звонила насчёт отпуска»), with no
/// question, no digit and no word of a request ([`REQUESTING`]).
pub(crate) fn remarks(text: &str) -> bool {
    if text.contains('?') || text.chars().any(|c| c.is_ascii_digit()) {
        return false;
    }
    let words = lower_words(text);
    let remark = words
        .iter()
        .any(|w| REMARK_STEMS.iter().any(|r| w.starts_with(r)))
        || tells_of_past(text);
    let requests = words.iter().any(|w| REQUESTING.contains(&w.as_str()))
        || words.windows(2).any(|pair| {
            OBLIGATION
                .iter()
                .any(|o| pair[0] == o[0] && pair[1] == o[1])
        });
    remark && !requests && !super::super::answers::is_question(text)
}

/// Word sequences that ask what a word means ("what is a note in music", «что такое
/// заметка»); "what's a good film" asks for films ([`EVALUATIVE`]).
const MEANING: &[&[&str]] = &[
    &["what", "is", "a"],
    &["what", "is", "an"],
    &["what", "s", "a"],
    &["what", "s", "an"],
    &["whats", "a"],
    &["whats", "an"],
    &["what", "does", "mean"],
    &["what", "does", "a"],
    &["what", "does", "an"],
    &["meaning", "of"],
    &["что", "такое"],
    &["что", "значит"],
    &["что", "означает"],
];

/// Words that ask for something good of a kind, not for a meaning ("what's a good film").
const EVALUATIVE: &[&str] = &[
    "good",
    "best",
    "nice",
    "fun",
    "funny",
    "scary",
    "decent",
    "great",
    "хороший",
    "хорошее",
    "хорошая",
    "лучший",
    "смешное",
    "интересное",
];

/// Words that make a question one of advice, cause or price ("is it *better* …", "what's a
/// *good* temperature …", "*why* does …", "how much does milk *cost*", «какая температура
/// *лучше* …», «*почему* …»): what is best to do, why or what the world asks, never how
/// things stand here now.
const ADVICE: &[&str] = &[
    "why",
    "better",
    "best",
    "good",
    "ideal",
    "should",
    "recommend",
    "healthy",
    "cost",
    "costs",
    "price",
    "почему",
    "зачем",
    "отчего",
    "лучше",
    "лучший",
    "лучшая",
    "лучшее",
    "хороший",
    "хорошая",
    "хорошее",
    "стоит",
    "следует",
    "полезно",
    "вредно",
    "цена",
    "стоимость",
];

/// What "how" asks when a word of these follows it: a quantity ("how much is left", «сколько»
/// needs no such word), not a way of doing.
const HOW_MUCH: &[&str] = &["much", "many", "long", "far", "old", "warm", "hot", "cold"];

/// Whether `text` asks for advice or a cause ([`ADVICE`]: "is it better to cook pasta for
/// ten minutes or twelve?", «почему мигает свет?») or how to do something ("how do I …",
/// «как …»; "how much"/"how long" ask a quantity): a question the model talks about, not one
/// of how things stand that a tool reads.
pub(crate) fn asks_advice(text: &str) -> bool {
    let words = lower_words(text);
    if words.iter().any(|w| ADVICE.contains(&w.as_str())) {
        return true;
    }
    words.iter().enumerate().any(|(i, w)| {
        let next = words.get(i + 1).map(String::as_str);
        (w == "how" && next.is_none_or(|n| !HOW_MUCH.contains(&n))) || (w == "как" && i == 0)
    })
}

/// Words that ask who ("*who* sings …", «*кто* поёт …»): a question of fact.
const WHO: &[&str] = &[
    "who", "whom", "whose", "кто", "кого", "чей", "чья", "чьё", "чьи",
];

/// Whether `text` asks whether the user should do something: it opens (after a lead-in)
/// with "should I", "shall we", or «стоит ли», «нужно ли мне» before a verb ("Should I take
/// an umbrella?", «Стоит ли брать куртку?»): advice asked, never a state a tool reads.
pub(crate) fn asks_should(text: &str) -> bool {
    let words = lower_words(text);
    let mut rest = words
        .iter()
        .skip_while(|w| LEAD_INS.contains(&w.as_str()))
        .map(String::as_str);
    // «Стоит ли» asks advice before a verb («стоит ли брать»), not of what is scheduled
    // («стоит ли что-то в календаре»); «мне» may come between.
    let infinitive = |w: Option<&str>| {
        w.is_some_and(|w| ["ть", "ти", "чь", "ться"].iter().any(|e| w.ends_with(e)))
    };
    match (rest.next(), rest.next()) {
        (Some("should" | "shall"), Some("i" | "we")) => true,
        (Some("стоит" | "нужно" | "надо" | "стоило"), Some("ли")) => {
            let next = rest.next();
            infinitive(next) || (next == Some("мне") && infinitive(rest.next()))
        }
        _ => false,
    }
}

/// Whether `text` is a question of advice, cause, price or of who: a question with a word
/// of [`WEIGHING`] or [`WHO`] ("is it better to …?", "how much does milk cost?", "who sings
/// …?", «почему …?», «кто поёт …?»), or one asked with a question word that has a word of
/// [`ADVICE`] ("what's a good temperature for a bedroom?"). A request put as a question with
/// an evaluative word ("is there a good comedy on?", "can you play something good?") is not
/// one: what the world holds or what is best, never something to do here.
pub(crate) fn asks_worth_or_cause(text: &str) -> bool {
    let words = lower_words(text);
    let first = words
        .iter()
        .find(|w| !LEAD_INS.contains(&w.as_str()))
        .map(String::as_str);
    let wh = first.is_some_and(|w| WH.contains(&w));
    let asks = wh || text.trim_end().ends_with('?') || crate::guidance::is_question(text);
    let says = |list: &[&str]| words.iter().any(|w| list.contains(&w.as_str()));
    asks && (says(WEIGHING) || says(WHO) || (wh && says(ADVICE)))
}

/// Words of need ("how many hours of sleep does an adult *need*", «сколько часов *нужно*
/// спать»).
const NEED: &[&str] = &[
    "need",
    "needs",
    "нужно",
    "надо",
    "необходимо",
    "нужен",
    "нужна",
];

/// Words by which a speaker speaks of themselves and those with them ("what do *we* need
/// from the shop", «что *нам* нужно купить»): a need of theirs is a question of what they
/// keep.
const OWN_WORDS: &[&str] = &[
    "i", "me", "my", "we", "us", "our", "я", "мне", "меня", "мой", "моя", "мои", "мы", "нам",
    "нас", "наш", "наши",
];

/// Words that put a request to act as a question ("could you …", «можешь …»).
const POLITE_ASKING: &[&str] = &[
    "can",
    "could",
    "would",
    "will",
    "please",
    "можешь",
    "можете",
    "сможешь",
    "сможете",
    "пожалуйста",
];

/// Whether `text` asks what anyone needs ("How many hours of sleep does an adult need?",
/// «Сколько часов нужно спать взрослому?»): a question with a word of [`NEED`] that speaks
/// of nobody here ([`OWN_WORDS`]) — a question of fact, which no tool of the user's reads.
pub(crate) fn asks_of_need(text: &str) -> bool {
    let words = lower_words(text);
    let says_own = words.iter().any(|w| OWN_WORDS.contains(&w.as_str()));
    // "Could you add that the car needs new tyres?" asks to act.
    let polite = words.iter().any(|w| POLITE_ASKING.contains(&w.as_str()));
    crate::guidance::is_question(text) && says_need(text) && !says_own && !polite
}

/// Whether `text` says a word of need ([`NEED`]).
pub(crate) fn says_need(text: &str) -> bool {
    lower_words(text).iter().any(|w| NEED.contains(&w.as_str()))
}

/// Words that make any question one of advice, cause or price ("is it *better* …", "*why*
/// …", "how much does it *cost*"), whatever its opening.
const WEIGHING: &[&str] = &[
    "better",
    "cheaper",
    "cheapest",
    "дешевле",
    "why",
    "cost",
    "costs",
    "price",
    "healthy",
    "ideal",
    "лучше",
    "почему",
    "зачем",
    "отчего",
    "цена",
    "стоимость",
    "полезно",
    "вредно",
];

/// Question words that ask for a thing, a person, a reason or a quantity (a yes-or-no
/// question — "is there a good comedy on?", «есть что-нибудь хорошее?» — may ask for a
/// tool's work).
const WH: &[&str] = &[
    "who",
    "whom",
    "whose",
    "what",
    "what's",
    "whats",
    "which",
    "why",
    "how",
    "where",
    "кто",
    "кого",
    "чей",
    "чья",
    "что",
    "какой",
    "какая",
    "какое",
    "какие",
    "какую",
    "сколько",
    "почему",
    "зачем",
    "отчего",
    "как",
    "где",
];

/// Words that may come before a question word («а», «ну», "so", "and").
const LEAD_INS: &[&str] = &[
    "а", "и", "ну", "так", "so", "and", "well", "hey", "ok", "okay",
];

/// Whether `text` asks what a word means ([`MEANING`]: "what is a note in music", «что такое
/// ремейк»): a question of fact the model answers, no request of a tool whose word it shares.
pub(crate) fn asks_meaning(text: &str) -> bool {
    let words = lower_words(text);
    let means = MEANING.iter().any(|seq| match seq {
        // "what does <word> mean": the words in order, anything between.
        ["what", "does", "mean"] => {
            let at = words
                .windows(2)
                .position(|w| w[0] == "what" && w[1] == "does");
            at.is_some_and(|i| words[i + 2..].iter().any(|w| w == "mean"))
        }
        _ => says_run(&words, seq),
    });
    // "is a note the same as a memo", "what's the difference between a note and a memo".
    let compares = says_run(&words, &["difference", "between"])
        || (words
            .first()
            .is_some_and(|w| matches!(w.as_str(), "is" | "are"))
            && says_run(&words, &["same", "as"]));
    (means || compares) && !words.iter().any(|w| EVALUATIVE.contains(&w.as_str()))
}

/// Word sequences that ask the assistant's own taste ("do you like films", «тебе нравятся
/// комедии», "what's your favourite film"; "would you like to…" offers, "films you like" asks
/// for films).
const OPINION: &[&[&str]] = &[
    &["do", "you", "like"],
    &["do", "you", "love"],
    &["do", "you", "enjoy"],
    &["your", "favourite"],
    &["your", "favorite"],
    &["тебе", "нравится"],
    &["тебе", "нравятся"],
    &["ты", "любишь"],
    &["твой", "любимый"],
    &["твоя", "любимая"],
    &["твои", "любимые"],
];

/// Word sequences that ask the assistant to agree ("don't you think", «не правда ли»), as
/// [`lower_words`] splits them ("don't" is "don", "t").
const AGREE: &[&[&str]] = &[
    &["don", "t", "you", "think"],
    &["dont", "you", "think"],
    &["do", "you", "agree"],
    &["don", "t", "you", "agree"],
    &["wouldn", "t", "you", "say"],
    &["не", "правда", "ли"],
    &["правда", "же"],
    &["согласись"],
    &["согласитесь"],
];

/// The last words of a question tagged onto a statement ("…, aren't they", "…, isn't it"),
/// split as [`AGREE`] is.
const TAGS: &[&[&str]] = &[
    &["aren", "t", "they"],
    &["isn", "t", "it"],
    &["isn", "t", "that"],
    &["aren", "t", "we"],
    &["don", "t", "they"],
    &["wasn", "t", "it"],
    &["weren", "t", "they"],
];

/// Words of a judgement a tagged statement passes ("notes are *so useful*, aren't they"); a
/// tag after a plain fact ("it's friday, isn't it") checks the fact instead.
const JUDGING: &[&str] = &[
    "so",
    "really",
    "such",
    "useful",
    "handy",
    "lovely",
    "amazing",
    "awful",
    "boring",
    "beautiful",
    "brilliant",
    "cool",
    "silly",
    "clever",
    "weird",
];

/// Whether `text` asks what the assistant itself likes or thinks ([`OPINION`], [`AGREE`],
/// the words next to each other; or a judgement with a question tagged on, [`TAGS`] after
/// a word of [`JUDGING`] or [`EVALUATIVE`]): a question to talk about, no request.
pub(crate) fn asks_opinion(text: &str) -> bool {
    let words = lower_words(text);
    let has = |seq: &&[&str]| says_run(&words, seq);
    let tagged = TAGS
        .iter()
        .any(|tag| words.len() >= tag.len() && words[words.len() - tag.len()..] == **tag)
        && words
            .iter()
            .any(|w| JUDGING.contains(&w.as_str()) || EVALUATIVE.contains(&w.as_str()));
    OPINION.iter().any(has) || AGREE.iter().any(has) || tagged
}

/// Word sequences said for a phrase in any request ("nevermind" for "never mind"), and what
/// was said. A set's own slips and idioms ("right down" for "write down", "pop down" for
/// "jot down") are its `heard_as:` ([`crate::toolset::Toolset::heard_as`]).
const SLIPS: &[(&str, &str)] = &[("nevermind", "never mind")];

/// `text` with the slips of [`SLIPS`] and of the declared sets' `heard_as:` (`heard_as`: each
/// phrase said, lower case, and the one meant) put right: "right down call the landlord" →
/// "write down call the landlord". `text` itself when it has none.
/// What routing compares under [`Technique::LeadWords`].
pub(crate) fn heard_right<'a>(text: &'a str, heard_as: &[(&str, &'a str)]) -> Cow<'a, str> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let bare: Vec<String> = words.iter().map(|w| spoken(w)).collect();
    let mut slips: Vec<(Vec<&str>, &'a str)> = SLIPS
        .iter()
        .chain(heard_as)
        .map(|(said, meant)| (said.split_whitespace().collect(), *meant))
        .collect();
    // The longest phrase said first: "write that down" is itself, not "write that" + "down".
    slips.sort_by_key(|(said, _)| std::cmp::Reverse(said.len()));
    let mut out: Vec<&str> = Vec::with_capacity(words.len());
    let mut fixed = false;
    let mut i = 0;
    while i < words.len() {
        let slip = slips.iter().find(|(said, _)| {
            bare.get(i..i + said.len())
                .is_some_and(|w| w.iter().zip(said.iter()).all(|(a, b)| a == b))
        });
        match slip {
            Some((said, meant)) => {
                out.push(meant);
                i += said.len();
                fixed = true;
            }
            None => {
                out.push(words[i]);
                i += 1;
            }
        }
    }
    // The words as said, and where the request ends before its closing words ("… now").
    let said: Vec<String> = out.iter().map(|w| spoken(w)).collect();
    let mut end = said.len();
    while end > 0 && AFTERWORDS.contains(&said[end - 1].as_str()) {
        end -= 1;
    }
    // "See" wished for a thing is "watch" ("i wanna see the new spiderman", "i'd love to see
    // a musical"); not a question ("i'd like to see what i wrote") nor a text to show
    // ("i want to see wait here in big letters").
    let shown = said.iter().any(|w| SHOWN_ON.contains(&w.as_str()));
    for j in 1..said.len() {
        let wished = said[j - 1] == "wanna"
            || (said[j - 1] == "to" && j >= 2 && WISHED.contains(&said[j - 2].as_str()));
        let asked = said
            .get(j + 1)
            .is_none_or(|next| SEEN_ASKED.contains(&next.as_str()));
        if said[j] == "see" && wished && !asked && !shown {
            out[j] = "watch";
            fixed = true;
        }
    }
    // "Get … on" a thing is "put … on" ("can you get the jungle book on").
    let last = said[..end].last().map(String::as_str);
    if let Some(g) = said[..end].iter().position(|w| w == "get") {
        if last == Some("on") && end - g > 2 {
            out[g] = "put";
            fixed = true;
        }
    }
    // An item said to "go" at the end ("note number one can go now", "the fish one can go")
    // is to be deleted; a person told so ("you can go now") or a plan ("we can go to the
    // zoo") is not.
    let dismissed = end >= 3
        && said[end - 2] == "can"
        && said[end - 1] == "go"
        && !PERSONS.contains(&said[end - 3].as_str());
    if dismissed {
        out.splice(end - 2..end, ["can", "be", "deleted"]);
        fixed = true;
    }
    if fixed {
        Cow::Owned(out.join(" "))
    } else {
        Cow::Borrowed(text)
    }
}

/// Words before "to see" that wish for a thing ("I'd love to see a musical").
const WISHED: &[&str] = &["want", "wanted", "love", "like", "wanna"];

/// Words after "see" that ask a question, not name a thing ("I'd like to see what…").
const SEEN_ASKED: &[&str] = &[
    "my", "what", "which", "how", "if", "whether", "when", "where", "who", "why", "me",
];

/// Words that say a text is to be shown, not a film watched ("in big letters", "on my
/// glasses").
const SHOWN_ON: &[&str] = &[
    "glasses", "screen", "display", "eyes", "front", "big", "letters", "sign", "word", "words",
];

/// Words that may close a request after its last word ("… can go now").
const AFTERWORDS: &[&str] = &["now", "too", "please", "then", "as", "well"];

/// Words naming a person, not an item ("you can go now").
const PERSONS: &[&str] = &["i", "you", "u", "we", "they", "he", "she"];
