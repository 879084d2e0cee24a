//! The text rules of guidance: the words of a turn (what a routed call's text and the
//! answer after its reply are made of), number groups, the text a request sets apart, and
//! the stops that cut an echo of the request or a recital of the prompt.

use super::words::{lower_words, says_run, stems, APOSTROPHES, STOP_WORDS};
use super::{Guidance, Technique};
use crate::model::{is_list_number, Message, Role};
use std::borrow::Cow;
use std::collections::HashMap;

/// The words of `messages` (the turn so far), in order — without quotes and final stops;
/// under [`Technique::DropAsides`] without words that open a parenthesis, and in a tool's
/// reply without words that hold a `=` (`(2018)`, `id=tt0146316`: asides for machines);
/// under [`Technique::ListAsItems`] with a tool's list numbers (`1.`, `2)`) turned into
/// commas between its items (`купить хлеб, позвонить врачу`): a routed call's text
/// arguments and the answer after its reply are a stretch of them.
pub(crate) fn words_of(messages: &[Message], guidance: &Guidance) -> Vec<String> {
    let asides = guidance.is_on(Technique::DropAsides);
    let items = guidance.is_on(Technique::ListAsItems);
    let mut out: Vec<String> = Vec::new();
    let words = messages
        .iter()
        .flat_map(|m| m.content.split_whitespace().map(move |w| (m.role, w)));
    for (role, w) in words {
        let tool = role == Role::Tool;
        if asides && (w.starts_with('(') || (tool && w.contains('='))) {
            continue;
        }
        if items && tool && is_list_number(w) {
            if let Some(prev) = out.last_mut() {
                if !prev.ends_with([',', ':', ';']) {
                    prev.push(',');
                }
            }
            continue;
        }
        // Quotes go; commas and colons inside the text stay with their words.
        let w = w
            .trim_matches(|c: char| "«»\"'“”„()[]".contains(c))
            .trim_end_matches(['.', '?', '!', '…']);
        if !w.is_empty() && w.chars().count() <= 40 {
            out.push(w.to_owned());
        }
    }
    out
}

/// Words that end a request without being its argument (beside the common words of
/// [`STOP_WORDS`]): places, pronouns, time and hedges ("… are there", "… maybe", «… уже»).
const CLOSING_WORDS: &[&str] = &[
    "there",
    "got",
    "you've",
    "too",
    "across",
    "onto",
    "here",
    "now",
    "then",
    "them",
    "maybe",
    "already",
    "anyway",
    "again",
    "okay",
    "thanks",
    "тут",
    "здесь",
    "там",
    "его",
    "её",
    "их",
    "нам",
    "уже",
    "сейчас",
    "теперь",
    "ладно",
    "спасибо",
    "плиз",
];

/// `words` without the words that close a request around its argument ("put room two oh
/// five *on my screen*", "find jurassic park *to*"): from the end, each word shorter than
/// three letters, a common or closing word ([`CLOSING_WORDS`]), or one whose stem ([`stems`])
/// closes at least two of `examples` (is among their last two words: the routed tool's
/// shared frame, "on my *screen*" — never a title one example names, nor a word of the middle,
/// "the *address* on the display") goes, until a word that is none of these — and never a word with a digit,
/// nor the first word, nor a title after a naming word ([`NAMING_WORDS`]).
/// [`Technique::FrameWords`].
pub(crate) fn without_frame_end(mut words: Vec<String>, examples: &[&str]) -> Vec<String> {
    // The stems that close an example: among its last two words.
    let mut counts: HashMap<String, usize> = HashMap::new();
    for example in examples {
        let words: Vec<&str> = example.split_whitespace().collect();
        let tail = words[words.len().saturating_sub(2)..].join(" ");
        for stem in stems(&tail) {
            *counts.entry(stem).or_default() += 1;
        }
    }
    while words.len() > 1 {
        let Some(last) = words.last() else { break };
        let w: String = last
            .chars()
            .filter(|c| c.is_alphanumeric())
            .collect::<String>()
            .to_lowercase();
        // A word with a digit, or one right after a word naming a title ("a movie called
        // up"), is content.
        let named =
            words.len() >= 2 && NAMING_WORDS.contains(&spoken(&words[words.len() - 2]).as_str());
        if named || w.chars().any(|c| c.is_ascii_digit()) {
            break;
        }
        let framing = w.chars().count() < 3
            || STOP_WORDS.contains(&w.as_str())
            || CLOSING_WORDS.contains(&w.as_str())
            || stems(&w)
                .first()
                .is_some_and(|s| counts.get(s).is_some_and(|n| *n >= 2));
        if !framing {
            break;
        }
        words.pop();
    }
    words
}

/// Words that open a request before what it is about: preambles, apologies, politeness and
/// hedges ("ok so listen, …", "sorry, one more thing, …", "would you be so kind as to …", «слушай, короче, …», «будьте добры, …»),
/// beside the common words of [`STOP_WORDS`] and [`CLOSING_WORDS`], and the assistant's own
/// name as it is addressed ("hey Porfiry, make a note…", «Порфирий, запиши…»).
const LEAD_WORDS: &[&str] = &[
    "porfiry",
    "порфирий",
    "ok",
    "so",
    "oh",
    "um",
    "uh",
    "hmm",
    "ugh",
    "i",
    "а",
    "и",
    "ой",
    "эх",
    "you",
    "please",
    "пожалуйста",
    "okay",
    "listen",
    "hey",
    "well",
    "just",
    "also",
    "and",
    "now",
    "right",
    "could",
    "would",
    "will",
    "mind",
    "kind",
    "like",
    "i'd",
    "i'm",
    "i've",
    "want",
    "wanna",
    "hoping",
    "wondering",
    "appreciate",
    "grateful",
    "was",
    "were",
    "let's",
    "quick",
    "quickly",
    "real",
    "any",
    "some",
    "have",
    "got",
    "ну",
    "слушай",
    "слушайте",
    "короче",
    "давай",
    "давайте",
    "будь",
    "будьте",
    "добр",
    "добры",
    "можешь",
    "можете",
    "мог",
    "могла",
    "могли",
    "бы",
    "так",
    "вот",
    "ладно",
    "хочу",
    "хотел",
    "хотела",
    "ещё",
    "еще",
    "теперь",
    "кстати",
    "эй",
    "окей",
    "слышь",
    "тогда",
    "sorry",
    "excuse",
    "pardon",
    "but",
    "one",
    "thing",
    "more",
    "btw",
    "извини",
    "извините",
    "прости",
    "простите",
];

/// `word` as said: lower case, letters, digits and apostrophes only («Слушай,» → «слушай»,
/// "I'd" → "i'd").
fn spoken(word: &str) -> String {
    word.chars()
        .filter(|c| c.is_alphanumeric() || *c == '\'')
        .collect::<String>()
        .to_lowercase()
}

/// Whether a word as said ([`spoken`]) is a preamble, politeness or hedge word
/// ([`LEAD_WORDS`]), with or without its apostrophe.
fn is_lead(word: &str) -> bool {
    let bare: String = word.chars().filter(|c| c.is_alphanumeric()).collect();
    LEAD_WORDS.contains(&word) || LEAD_WORDS.contains(&bare.as_str())
}

/// Words that open a question of what is or was, after any lead words ("what did I…",
/// "did I make a note…", «что я там…», «какие у меня…»).
const QUESTION_OPENERS: &[&str] = &[
    "what",
    "what's",
    "whats",
    "which",
    "did",
    "do",
    "does",
    "have",
    "has",
    "had",
    "is",
    "are",
    "was",
    "were",
    "where",
    "что",
    "чего",
    "какие",
    "какая",
    "какой",
    "какую",
    "где",
    "разве",
    "есть",
];

/// Verbs that ask the assistant to tell something ("remind me what…", «напомни, что…»);
/// Russian ones also with «-ка».
const TELLING_WORDS: &[&str] = &[
    "remind",
    "tell",
    "напомни",
    "напомните",
    "скажи",
    "скажите",
    "подскажи",
    "подскажите",
];

/// Words that open a question told after a verb of [`TELLING_WORDS`] ("remind me what I
/// saved", «скажи, какие у меня заметки»); never "that" or "to" (a reminder to keep:
/// "remind me to call mum"), nor «что», which is both «напомни, что я записал» and
/// «напомни, что завтра стрижка».
const EMBEDDED_QUESTION: &[&str] = &[
    "what",
    "what's",
    "whats",
    "which",
    "whether",
    "if",
    "какие",
    "какая",
    "какой",
    "какую",
    "есть",
];

/// Words that make a question a request to act ("could you save…", «можешь записать…?»).
const ASKING_WORDS: &[&str] = &[
    "can",
    "could",
    "would",
    "will",
    "won't",
    "possible",
    "можешь",
    "можете",
    "можно",
    "мог",
    "могла",
    "могли",
    "сможешь",
    "сможете",
    "возможно",
];

/// Whether `text` asks what is or was rather than asks for something to be done: it opens
/// (after lead words) with a question word ([`QUESTION_OPENERS`]) or ends with a question
/// mark, says no word of a request to act ([`ASKING_WORDS`]) and sets no text apart
/// ([`delimited_text`]). "What did I write down earlier?", «Напомни-ка, что у меня в
/// заметках лежит?» ask; "Could you save a note saying the code is 4417?" does not.
/// [`Technique::QuestionLists`].
pub(crate) fn asks_what_is(text: &str) -> bool {
    if delimited_text(text).is_some() {
        return false;
    }
    let words: Vec<String> = text
        .split_whitespace()
        .map(spoken)
        .filter(|w| !w.is_empty())
        .collect();
    // A question put to the assistant to answer ("remind me what I wrote down", "could
    // you tell me which notes I have", «напомни, что я записал») asks, polite or not.
    let telling = words.iter().position(|w| !is_lead(w)).is_some_and(|i| {
        let told = words.get(i).is_some_and(|w| {
            TELLING_WORDS.iter().any(|t| {
                w.strip_prefix(t)
                    .is_some_and(|rest| rest.is_empty() || rest == "ка")
            })
        });
        let asked = words
            .get(i + 1..)
            .unwrap_or_default()
            .iter()
            .find(|w| !matches!(w.as_str(), "me" | "us" | "мне" | "нам"))
            .is_some_and(|w| EMBEDDED_QUESTION.contains(&w.as_str()));
        told && asked
    });
    if telling {
        return true;
    }
    // "Do you mind…" asks to act; "keep in mind" does not.
    let you_mind = words.windows(2).any(|p| p[0] == "you" && p[1] == "mind");
    if you_mind || words.iter().any(|w| ASKING_WORDS.contains(&w.as_str())) {
        return false;
    }
    let opens = words
        .iter()
        .find(|w| !is_lead(w))
        .is_some_and(|w| QUESTION_OPENERS.contains(&w.as_str()));
    // A question opener that is a lead word too ("have", "was") opens a question when a
    // subject follows it: "have I got anything written down", "was there a note".
    let inverted = match words.as_slice() {
        [first, second, ..] => {
            QUESTION_OPENERS.contains(&first.as_str())
                && matches!(second.as_str(), "i" | "we" | "there")
        }
        _ => false,
    };
    opens || inverted || text.trim_end().ends_with('?')
}

/// The stems a request opens with ([`Technique::OpeningWords`]): its first word's and the
/// next one's ("make a note dentist on thursday" → `make`, `note`). Empty when the first
/// word has no stem (a short or common word: "i", "is", "the"): such an opening tells no
/// action.
pub(crate) fn opening_stems(text: &str) -> Vec<String> {
    let first = text
        .split(|c: char| !(c.is_alphanumeric() || APOSTROPHES.contains(&c)))
        .find(|w| !w.is_empty());
    if first.is_none_or(|w| stems(w).is_empty()) {
        return Vec::new();
    }
    // Bounded: the head of a long request tells its opening.
    let head: String = text.chars().take(OPENING_CHARS).collect();
    let mut out = stems(&head);
    out.truncate(2);
    out
}

/// The characters [`opening_stems`] reads.
const OPENING_CHARS: usize = 80;

/// Words by which a speaker speaks of themselves.
const SELF_WORDS: &[&str] = &[
    "i", "i'd", "i've", "i'm", "me", "my", "mine", "я", "мне", "меня", "мой", "моя", "мои", "моё",
    "мое", "моих", "моей",
];

/// Whether `text` speaks of its speaker ("what did I write", "what's on my list", «что у
/// меня записано»): a question of the user's own asks about what the user keeps.
pub(crate) fn speaks_of_self(text: &str) -> bool {
    text.split_whitespace()
        .map(spoken)
        .any(|w| SELF_WORDS.contains(&w.as_str()))
}

/// Words after "any" that make no request of it ("anything else", "any more", "by any
/// chance", "any good" asked of a thing already named is [`EVALUATIVE`] and stays).
const ANY_IDIOMS: &[&str] = &["else", "more", "longer", "way", "time", "chance", "idea"];

/// Whether `text` asks whether there is any of something ("got anything with dinosaurs in
/// it", "anything good with robots in it", «есть что-нибудь про акул»): "any" or "anything"
/// («что-нибудь», «какие-нибудь» with «есть») among its first four words after its lead words, not
/// negated before it nor an idiom after it ([`ANY_IDIOMS`]), a word of content after it,
/// and no "you" (a question of the assistant's own: "do you have any hobbies").
pub(crate) fn asks_for_any(text: &str) -> bool {
    let words: Vec<String> = text
        .split_whitespace()
        .map(spoken)
        .filter(|w| !w.is_empty())
        .collect();
    if words
        .iter()
        .any(|w| matches!(w.as_str(), "you" | "ты" | "вы" | "тебя" | "вас"))
    {
        return false;
    }
    let start = words.iter().position(|w| !is_lead(w)).unwrap_or(0);
    (0..words.len()).any(|i| {
        let word = &words[i];
        // «-нибудь» is "some" too («удиви меня каким-нибудь фактом»): it asks whether
        // there is any only with «есть».
        let some = matches!(word.as_str(), "any" | "anything")
            || (word.ends_with("нибудь") && words.iter().any(|w| w == "есть"));
        let early = i <= start + 3;
        let negated = i > 0 && NEGATIONS.contains(&words[i - 1].replace('\'', "").as_str());
        let idiom = words
            .get(i + 1)
            .is_some_and(|next| ANY_IDIOMS.contains(&next.as_str()));
        let content = words[i + 1..]
            .iter()
            .any(|w| w.chars().count() >= 4 && !STOP_WORDS.contains(&w.as_str()));
        some && early && !negated && !idiom && content
    })
}

/// Whether `text` asks whether something is there to be had ("is mary poppins available"):
/// "available" said, and no "you" (a question of the assistant's own: "are you available").
pub(crate) fn asks_if_available(text: &str) -> bool {
    let words = lower_words(text);
    let of_you = words
        .iter()
        .any(|w| matches!(w.as_str(), "you" | "ты" | "вы"));
    let available = words.iter().any(|w| {
        matches!(
            w.as_str(),
            "available" | "availability" | "доступен" | "доступна" | "доступно" | "доступны"
        )
    });
    available && !of_you
}

/// Whether `text` points at what the session keeps by a place ("what's in there now",
/// "what's on there at the moment"): a pointer the one active set resolves.
pub(crate) fn points_there(text: &str) -> bool {
    let words = lower_words(text);
    says_run(&words, &["in", "there"]) || says_run(&words, &["on", "there"])
}

/// Words that negate the word after them («не удаляй», "don't delete", "never erase"), as
/// said without their apostrophe.
const NEGATIONS: &[&str] = &[
    "не",
    "ни",
    "нельзя",
    "not",
    "never",
    "no",
    "dont",
    "doesnt",
    "didnt",
    "wont",
    "cant",
];

/// Whether `text` says one of `said` (words a toolset gives for a tool's action): a word of
/// it has the stem of one of them ([`stems`]: its first five letters, so «вычеркни» says
/// «вычеркнуть») and does not follow a negation ([`NEGATIONS`]).
/// [`Technique::SaidAction`].
pub(crate) fn says_action<S: AsRef<str>>(text: &str, said: &[S]) -> bool {
    let wanted: Vec<String> = said.iter().flat_map(|w| stems(w.as_ref())).collect();
    if wanted.is_empty() {
        return false;
    }
    let mut previous = String::new();
    // A word keeps its apostrophe inside ("don't", "don’t") and is compared without it.
    for word in text.split(|c: char| !(c.is_alphanumeric() || APOSTROPHES.contains(&c))) {
        let word: String = word
            .chars()
            .filter(|c| c.is_alphanumeric())
            .collect::<String>()
            .to_lowercase();
        if word.is_empty() {
            continue;
        }
        if !NEGATIONS.contains(&previous.as_str())
            && stems(&word).iter().any(|s| wanted.contains(s))
        {
            return true;
        }
        previous = word;
    }
    false
}

/// `text` from its first word that is no preamble, politeness or hedge ([`LEAD_WORDS`]):
/// "ok so listen, how long till noon" → "how long till noon", «Будьте добры, сделайте
/// заметку» → «сделайте заметку». `text` itself when every word is one. What routing compares
/// under [`Technique::LeadWords`].
pub(crate) fn without_lead(text: &str) -> &str {
    let mut rest = text;
    loop {
        let trimmed = rest.trim_start();
        let end = trimmed.find(char::is_whitespace).unwrap_or(trimmed.len());
        let word = &trimmed[..end];
        if word.is_empty() {
            return text;
        }
        if !is_lead(&spoken(word)) {
            return trimmed;
        }
        rest = &trimmed[end..];
    }
}

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
    opens && !requests && !super::answers::is_question(text)
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

/// Word sequences a speech recognizer writes for a request verb ("right down" for "write
/// down", «за пиши» for «запиши») or a phrase ("nevermind"), and what was said; and an idiom
/// routed as its common form ("take a note" is "make a note", "pop down" and "put down that"
/// are "jot down", "fire up" and "stick on" are "put on").
const SLIPS: &[(&[&str], &str)] = &[
    (&["nevermind"], "never mind"),
    (&["right", "down"], "write down"),
    (&["right", "it", "down"], "write it down"),
    (&["right", "that", "down"], "write that down"),
    (&["right", "this", "down"], "write this down"),
    (&["rite"], "write"),
    (&["write", "that", "down"], "write that down"),
    (&["write", "that"], "write down that"),
    (&["take", "a", "note"], "make a note"),
    (&["pop", "down"], "jot down"),
    (&["pop", "it", "down"], "jot it down"),
    (&["pop", "that", "down"], "jot that down"),
    (&["put", "down", "that"], "jot down that"),
    (&["fire", "up"], "put on"),
    (&["fire", "it", "up"], "put it on"),
    (&["stick", "on"], "put on"),
    (&["stick", "it", "on"], "put it on"),
    (&["за", "пиши"], "запиши"),
    (&["за", "помни"], "запомни"),
];

/// `text` with the recognizer's slips of request verbs put right ([`SLIPS`]): "right down
/// call the landlord" → "write down call the landlord". `text` itself when it has none.
/// What routing compares under [`Technique::LeadWords`].
pub(crate) fn heard_right(text: &str) -> Cow<'_, str> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let bare: Vec<String> = words.iter().map(|w| spoken(w)).collect();
    let mut out: Vec<&str> = Vec::with_capacity(words.len());
    let mut fixed = false;
    let mut i = 0;
    while i < words.len() {
        let slip = SLIPS.iter().find(|(said, _)| {
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

/// `words` from the first word that says what the request is about, as one word: the
/// tail of them ([`Technique::TailOfWords`]) a text argument is then has one start, that word.
/// A word says nothing of it when it is shorter than three letters, common ([`STOP_WORDS`],
/// [`CLOSING_WORDS`]), a preamble or politeness word ([`LEAD_WORDS`]), or the routed tool's
/// frame: a stem among the first two words of one of `examples` ("*look up* the movie
/// Inception") or in at least two of them ("save a *note*"). A word with a digit always says
/// something; a word right after a naming word ([`NAMING_WORDS`]: "a movie called *up*")
/// starts the argument whatever comes before it. `words` unchanged when every word is frame (the model chooses). The failure:
/// the model starting the tail at the last word ("right down that i need to pick up the dry
/// cleaning on friday" → `friday`, "Could you save a note saying the garage code is 4417" →
/// `4417`), or at the first (`look up the new dune movie`).
/// [`Technique::ContentStart`].
pub(crate) fn from_content_start(words: Vec<String>, examples: &[&str]) -> Vec<String> {
    let mut counts: HashMap<String, usize> = HashMap::new();
    let mut opening: Vec<String> = Vec::new();
    for example in examples {
        for stem in stems(example) {
            *counts.entry(stem).or_default() += 1;
        }
        let head: Vec<&str> = example.split_whitespace().take(2).collect();
        opening.extend(stems(&head.join(" ")));
    }
    let says = |word: &str| {
        let w = spoken(word);
        if w.chars().any(|c| c.is_ascii_digit()) {
            return true;
        }
        let bare: String = w.chars().filter(|c| c.is_alphanumeric()).collect();
        !(bare.chars().count() < 3
            || STOP_WORDS.contains(&bare.as_str())
            || CLOSING_WORDS.contains(&bare.as_str())
            || NAMING_WORDS.contains(&bare.as_str())
            || is_lead(&w)
            || stems(&w)
                .iter()
                .any(|s| opening.contains(s) || counts.get(s).is_some_and(|n| *n >= 2)))
    };
    // A title starts right after the word that names it, however short ("a movie called
    // up"): what comes before it frames the title.
    let named = (1..words.len()).find(|&i| NAMING_WORDS.contains(&spoken(&words[i - 1]).as_str()));
    let Some(k) = named.or_else(|| words.iter().position(|w| says(w))) else {
        return words;
    };
    vec![words[k..].join(" ")]
}

/// Words after which a title follows ("a film called Up", «фильм под названием Вверх»).
const NAMING_WORDS: &[&str] = &[
    "called",
    "named",
    "titled",
    "entitled",
    "названием",
    "называется",
    "называемый",
];

/// `words` with each run of number groups joined into one word (`8 800 555 35 35`): a
/// number said in groups is one number, so a text argument never starts inside it.
pub(crate) fn number_groups(words: Vec<String>) -> Vec<String> {
    let numeric = |w: &str| {
        w.chars().any(|c| c.is_ascii_digit())
            && w.chars().all(|c| c.is_ascii_digit() || "+-()".contains(c))
    };
    let mut out: Vec<String> = Vec::with_capacity(words.len());
    let mut last_numeric = false;
    for w in words {
        let is_numeric = numeric(&w);
        match out.last_mut() {
            Some(prev) if is_numeric && last_numeric => {
                prev.push(' ');
                prev.push_str(&w);
            }
            _ => out.push(w),
        }
        last_numeric = is_numeric;
    }
    out
}

/// The stop that keeps a plain reply from repeating `request`: its first
/// [`ECHO_STOP_CHARS`] characters, trimmed — for a request of at least three words (a
/// greeting answered by the same greeting is a reply, not an echo).
pub(crate) fn echo_stop(request: &str) -> Option<String> {
    let request = request.trim();
    request.split_whitespace().nth(2)?;
    Some(
        request
            .chars()
            .take(ECHO_STOP_CHARS)
            .collect::<String>()
            .trim_end()
            .to_owned(),
    )
}

/// How much of a request its echo stop holds: an echo begins with the request's start.
const ECHO_STOP_CHARS: usize = 120;

/// The text a request sets apart for a tool: what follows its first colon (`Запиши: купить
/// хлеб`; a colon between digits, as in `9:15`, is part of a time), else its first quoted
/// span (`«Шрек»`, `"…"`, `“…”`, `„…“`, `'…'` — an apostrophe inside a word opens nothing),
/// its enclosing quotes and final stops taken off, on one line. `None` when the request sets
/// nothing apart, or more than [`MAX_DELIMITED_CHARS`]. A tiny model asked to pick where a
/// text argument starts often starts it late (`show_text|on the screen` for "Write 'Be
/// right back' on the screen"); what the user set apart is the argument.
pub(crate) fn delimited_text(request: &str) -> Option<String> {
    let chars: Vec<char> = request.chars().collect();
    let colon = (0..chars.len()).find(|&i| {
        chars[i] == ':'
            && !(i > 0
                && chars[i - 1].is_ascii_digit()
                && chars.get(i + 1).is_some_and(char::is_ascii_digit))
    });
    let span: String = match colon {
        Some(i) => chars[i + 1..].iter().collect(),
        None => quoted_span(&chars)?,
    };
    let one_line = span.split_whitespace().collect::<Vec<_>>().join(" ");
    let quotes = |c: char| "«»\"'“”„".contains(c);
    let mut text = one_line.trim_end_matches(['.', '!', '?', '…', ' ']);
    // Quotes around the whole text go; quotes inside it stay.
    if text.chars().next().is_some_and(quotes) && text.chars().last().is_some_and(quotes) {
        let first = text.chars().next().map_or(0, char::len_utf8);
        let last = text.chars().last().map_or(0, char::len_utf8);
        text = text
            .get(first..text.len().saturating_sub(last))
            .unwrap_or("");
        text = text.trim_end_matches(['.', '!', '?', '…', ' ']).trim();
    }
    let text = text.trim();
    (!text.is_empty() && text.chars().count() <= MAX_DELIMITED_CHARS).then(|| text.to_owned())
}

/// The most chars of a request routing reads ([`routed_head`]): a spoken request is a
/// sentence or two; a longer message is routed by its head, so a pasted book costs routing
/// no more than a paragraph does.
pub(crate) const ROUTED_CHARS: usize = 1_000;

/// The part of `text` routing reads: all of it up to [`ROUTED_CHARS`] chars, else its first
/// [`ROUTED_CHARS`] chars cut back to their last whitespace (no word cut in two).
pub(crate) fn routed_head(text: &str) -> &str {
    let Some((end, _)) = text.char_indices().nth(ROUTED_CHARS) else {
        return text;
    };
    let head = &text[..end];
    match head.rfind(char::is_whitespace) {
        Some(i) if i > 0 => &head[..i],
        _ => head,
    }
}

/// Whether `text` has a word at all: a letter or a digit (a message of emoji or
/// punctuation has none).
pub(crate) fn has_word(text: &str) -> bool {
    text.chars().any(char::is_alphanumeric)
}

/// The longest text [`delimited_text`] decides: a decided call is decoded token by token
/// like a reply, so a longer one is left to the model (under the grammar and the reply's
/// token limit).
const MAX_DELIMITED_CHARS: usize = 400;

/// The first quoted span of `chars`: between `«` and `»`, `“` and `”`, `„` and `“`, two `"`,
/// or two `'` that stand at a word's edge (so `What's` and `don't` quote nothing).
fn quoted_span(chars: &[char]) -> Option<String> {
    let edge = |i: usize| i == 0 || i >= chars.len() || !chars[i].is_alphanumeric();
    for (i, &open) in chars.iter().enumerate() {
        let close = match open {
            '«' => '»',
            '“' => '”',
            '„' => '“',
            '"' => '"',
            '\'' if i == 0 || edge(i - 1) => '\'',
            _ => continue,
        };
        let end =
            (i + 1..chars.len()).find(|&j| chars[j] == close && (close != '\'' || edge(j + 1)));
        if let Some(j) = end {
            let inner: String = chars[i + 1..j].iter().collect();
            if !inner.trim().is_empty() {
                return Some(inner);
            }
        }
    }
    None
}

/// The sentences of the prompt's opening (who the assistant is, how it answers): a
/// plain reply stops before any of them, so a tiny model reciting its prompt says
/// nothing of it.
pub(crate) fn intro_sentences(core_header: &str) -> Vec<&str> {
    let intro = core_header.lines().next().unwrap_or("");
    intro
        .split_inclusive(['.', '!', '?'])
        .map(str::trim)
        .filter(|s| s.chars().filter(|c| c.is_alphanumeric()).count() >= 6)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn a_recognizer_slip_of_a_request_verb_is_put_right() {
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
}
