//! How a request opens and what it asks: the lead words before what it is about
//! (preambles, politeness, hedges, the assistant's name), a question of what something is,
//! of whether something is available or of any more of it, the stems it opens with, a
//! request spoken of oneself, an action said by its stem and not negated, and a request
//! without its lead.

use super::super::words::{lower_words, says_run, stems, APOSTROPHES, STOP_WORDS};
use super::delimited_text;

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
pub(super) fn spoken(word: &str) -> String {
    word.chars()
        .filter(|c| c.is_alphanumeric() || *c == '\'')
        .collect::<String>()
        .to_lowercase()
}

/// Whether a word as said ([`spoken`]) is a preamble, politeness or hedge word
/// ([`LEAD_WORDS`]), with or without its apostrophe.
pub(super) fn is_lead(word: &str) -> bool {
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

/// Verbs that ask for what is kept to be read out or shown ("read me my timers", «зачитай
/// покупки», «покажи будильники»); Russian ones also with «-ка».
const READING_WORDS: &[&str] = &[
    "read",
    "list",
    "show",
    "зачитай",
    "зачитайте",
    "прочитай",
    "прочитайте",
    "прочти",
    "прочтите",
    "покажи",
    "покажите",
    "перечисли",
    "перечислите",
    "озвучь",
    "озвучьте",
    "зачитать",
    "прочитать",
    "показать",
    "перечислить",
    "озвучить",
];

/// The words after a reading verb that opens `text` (after lead words: [`READING_WORDS`]),
/// without the speaker's own words ("read *me my* list"); `None` when no reading verb
/// opens it or nothing follows. «Зачитай покупки» → `["покупки"]`.
pub(crate) fn read_out(text: &str) -> Option<Vec<String>> {
    let words = lower_words(text);
    // "Can you read …", «Можешь зачитать …»: put politely, a request still.
    let polite = |w: &str| {
        matches!(
            w,
            "can"
                | "could"
                | "would"
                | "will"
                | "you"
                | "please"
                | "можешь"
                | "можете"
                | "пожалуйста"
        )
    };
    let at = words.iter().position(|w| !is_lead(w) && !polite(w))?;
    let verb = words[at].as_str();
    let reads = READING_WORDS.iter().any(|r| {
        verb.strip_prefix(r)
            .is_some_and(|rest| rest.is_empty() || rest == "ка")
    });
    // "I read that book" tells; it asks nothing.
    if !reads || words[..at].iter().any(|w| SELF_WORDS.contains(&w.as_str())) {
        return None;
    }
    let rest: Vec<String> = words[at + 1..]
        .iter()
        .filter(|w| !SELF_WORDS.contains(&w.as_str()) && !matches!(w.as_str(), "us" | "нам" | "ка"))
        .cloned()
        .collect();
    (!rest.is_empty()).then_some(rest)
}

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
