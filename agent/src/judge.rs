//! The judge of replies: would a person accept this reply from a voice assistant?
//!
//! [`judge_reply`] checks a reply against cheap, documented rules and names the first one it
//! breaks ([`Verdict::Fails`] with a [`Rule`]). It is pure logic — no model, no I/O — so the
//! conversation eval scores every turn with it, and a host can check a reply before it is
//! spoken.
//!
//! # The rules, in the order they are checked
//! A reply is acceptable when it is
//! 1. **not empty** ([`Rule::Empty`]): it has a letter or a digit;
//! 2. **free of debris** — words that belong to the machinery, not to an answer:
//!    - chat-template leftovers ([`Rule::TemplateLeftovers`]): `<start_of_turn>`,
//!      `<|im_start|>`, `</s>`, `[INST]`…, any `<name>` / `<|name|>` tag;
//!    - call-line words ([`Rule::CallWords`]): `TOOL_CALL`, `TOOL_RESULT`, the core tool
//!      names, and any identifier-shaped word with an underscore (`notes_add`,
//!      `media_search`: every tool name is one);
//!    - role words ([`Rule::RoleWords`]): a speaker's label with its colon (`user:`,
//!      `assistant:`, `model:`, `Пользователь:`, `Ты:`…);
//!    - a pipe `|` ([`Rule::Pipe`]): the call line's separator, never said aloud;
//!    - the prompt's vocabulary ([`Rule::PromptVocabulary`]): toolset, skill, тулсет, скилл
//!      and their forms — the words the prompt uses for its own parts;
//!    - a recital ([`Rule::Recital`]): a sentence that repeats what Porfiry writes for the
//!      model rather than for the user (the prompt's opening sentences, the `show_text`
//!      acknowledgement `Shown.` — except in a turn that did show text, where it confirms
//!      the show: [`JudgeContext::shown`]), in either language;
//! 3. **in the user's language** ([`Rule::WrongLanguage`]): the user's language is the
//!    script most of the user's letters are in ([`user_lang`]; input with no clear majority
//!    takes the default language). A Russian reply may carry Latin names (`Tomb Raider`),
//!    but not be made of Latin words; an English reply has more Latin letters than
//!    Cyrillic ones;
//! 4. **free of foreign words** ([`Rule::ForeignWord`]): in a Russian reply, a Latin word
//!    written in lower case only (`alimentaire`, `id`) — a word written with a capital or a
//!    digit is a name, a brand or a code and passes; in an English reply, any Cyrillic
//!    letter; in either, letters of any other script;
//! 5. **made of whole sentences** ([`Rule::Fragment`]): after a sentence's end (`.`, `!`, `?`
//!    after a word of three letters or more — not an abbreviation, not an ellipsis) the next
//!    word starts with a capital; a lower-case word there is debris glued to the reply
//!    (`Thank you, bye! mantenimiento`);
//! 6. **not an echo** ([`Rule::Echo`]): it does not contain the user's whole request (of
//!    three words or more), and no question in it repeats three consecutive words of the
//!    user's (`You're here. What's your name?` to `Hello! What's your name?`);
//! 7. **not a near-echo** ([`Rule::NearEcho`]): no sentence of it says the user's request
//!    again in other words. Of a request of three words or more, its content words (all but
//!    the function words and fillers of [`LIGHT_WORDS`]) are counted; when there are two or
//!    more, a sentence is a near-echo when it opens with the request's first content word as
//!    written (the request's own verb or noun, not an answer's «Записал», "Timer"), repeats
//!    at least [`NEAR_ECHO_SHARE`] of the request's content words — a word repeats a user's
//!    word by being it or starting with it (`мореполнении` repeats `море`) — and adds no
//!    content word of its own: «Расскажи коротко о мореполнении» to «Расскажи коротко про
//!    море» fails; «Два плюс два будет четыре» to «Сколько будет два плюс два?» passes
//!    (`четыре` is new), and so do «Включаю музыку» and "Timer set for five minutes";
//! 8. **without a repeated sentence** ([`Rule::RepeatedSentence`]): no sentence of two
//!    words or more is said twice (`You are a model. You are a model.`), and no run of three
//!    words or more follows itself (`купить хлеб завтра купить хлеб завтра`): a model that
//!    loops;
//! 9. **made of words** ([`Rule::UnknownWord`]): every word of the reply's language is in
//!    its dictionary — Hunspell's Russian one, or the American or British English one
//!    (`judge/hunspell/`, each read once, when first needed: [`dictionary`]), so
//!    `мореполнении` and `Ивануправления` fail and `modeler` passes. Words the dictionary
//!    cannot judge pass: words with a digit, words of one letter, words in capitals (`ИИ`,
//!    `NASA`), words of another script (the language rules' business), a capitalised word
//!    inside a sentence (a name: `Киану`, `Tomb`) and, at a sentence's start, one followed
//!    by another capitalised word (`Keanu Reeves`) or written so inside another sentence
//!    (`Штирлиц долго смотрел… — догадался Штирлиц`), any word the user said or a form of
//!    it (the same word but for its last three letters or fewer: `суперсемейка` after
//!    `суперсемейку`), laughter (`хаха`, `hehe`) and the assistant's own few (`ок`,
//!    `медиа`, `Porfiry`). A hyphenated word passes when its parts do, a possessive
//!    (`Porfiry's`) when its stem does;
//! 10. **not another intent's canned reply** ([`Rule::OtherIntent`]): it does not start with
//!     a conversational reply of the message catalog (`Texts::talk_reply`, either language;
//!     one of a single word only as the whole reply — «Пожалуйста!» opens many an answer;
//!     of a reply that goes on with what the assistant can do, its opening of five words or
//!     more) while the user's text says none of the intents that reply fits: «You're
//!     welcome!» to «I feel sad», «Привет! Я Порфирий. Чем могу помочь?» to «У меня день
//!     рождения!». The user's text says an intent when it holds one of the intent's cue
//!     words ([`intents`]); intents without cues (an acknowledgement, the out-of-scope
//!     decline: replies that fit any turn) are not checked;
//! 11. **not the catch-all refusal where an answer is due** ([`Rule::Refusal`]): the message
//!     catalog's phrase for a turn without an answer (`Texts::turn_no_reply`), in either
//!     language, unless the [`JudgeContext`] says declining is right;
//! 12. **short** ([`Rule::TooLong`]): at most [`MAX_WORDS`] words — a spoken reply.
//!
//! The debris rules (2, 4, 5) together are [`Rule::is_debris`]. Rules 7–10 judge sense rather
//! than form; none needs a model. Rule 9's dictionaries cost memory and a first load (their
//! figures: [`dictionary`]); everything else is string work on the reply. The reply gate
//! (`agent/gate.rs`) applies the rules that hold sentence by sentence: the debris rules,
//! the language, the echoes (6, 7), repeats (8) and unknown words (9).

mod dictionary;
mod intents;

pub use dictionary::{
    load as load_dictionary, prepare as prepare_dictionary, Dictionary, DictionaryError,
    Loaded as LoadedDictionary,
};

use crate::{Lang, Texts};

/// Most words in an acceptable reply (it is spoken).
pub const MAX_WORDS: usize = 40;

/// What the judge decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case", tag = "verdict", content = "rule")]
pub enum Verdict {
    /// A person would accept the reply.
    Acceptable,
    /// The reply breaks this rule (the first one checked that it breaks).
    Fails(Rule),
}

impl Verdict {
    /// Whether the reply is acceptable.
    pub fn is_acceptable(self) -> bool {
        self == Verdict::Acceptable
    }

    /// The rule broken, if any.
    pub fn rule(self) -> Option<Rule> {
        match self {
            Verdict::Acceptable => None,
            Verdict::Fails(rule) => Some(rule),
        }
    }
}

/// A rule of the judge (see the module's docs for each).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// No letter and no digit.
    Empty,
    /// Chat-template markers (`<start_of_turn>`, `<|im_end|>`…).
    TemplateLeftovers,
    /// `TOOL_CALL`, `TOOL_RESULT` or a tool name.
    CallWords,
    /// A speaker's label (`user:`, `Пользователь:`…).
    RoleWords,
    /// A `|`.
    Pipe,
    /// toolset, skill, тулсет, скилл…
    PromptVocabulary,
    /// A sentence Porfiry writes for the model, repeated to the user.
    Recital,
    /// Not in the user's language.
    WrongLanguage,
    /// A word of another script or, in a Russian reply, a lower-case Latin word.
    ForeignWord,
    /// A lower-case word right after a sentence's end.
    Fragment,
    /// The user's words repeated.
    Echo,
    /// A sentence that says the user's request again in other words.
    NearEcho,
    /// A sentence said twice, or a run of words that follows itself.
    RepeatedSentence,
    /// A word in no dictionary of the reply's language.
    UnknownWord,
    /// A conversational intent's canned reply to a turn that is not that intent.
    OtherIntent,
    /// The catch-all refusal where an answer is due.
    Refusal,
    /// More than [`MAX_WORDS`] words.
    TooLong,
}

impl Rule {
    /// Every rule, in the order they are checked.
    pub const ALL: [Rule; 17] = [
        Rule::Empty,
        Rule::TemplateLeftovers,
        Rule::CallWords,
        Rule::RoleWords,
        Rule::Pipe,
        Rule::PromptVocabulary,
        Rule::Recital,
        Rule::WrongLanguage,
        Rule::ForeignWord,
        Rule::Fragment,
        Rule::Echo,
        Rule::NearEcho,
        Rule::RepeatedSentence,
        Rule::UnknownWord,
        Rule::OtherIntent,
        Rule::Refusal,
        Rule::TooLong,
    ];

    /// The rule's name in reports (`snake_case`, as serialized).
    pub fn name(self) -> &'static str {
        match self {
            Rule::Empty => "empty",
            Rule::TemplateLeftovers => "template_leftovers",
            Rule::CallWords => "call_words",
            Rule::RoleWords => "role_words",
            Rule::Pipe => "pipe",
            Rule::PromptVocabulary => "prompt_vocabulary",
            Rule::Recital => "recital",
            Rule::WrongLanguage => "wrong_language",
            Rule::ForeignWord => "foreign_word",
            Rule::Fragment => "fragment",
            Rule::Echo => "echo",
            Rule::NearEcho => "near_echo",
            Rule::RepeatedSentence => "repeated_sentence",
            Rule::UnknownWord => "unknown_word",
            Rule::OtherIntent => "other_intent",
            Rule::Refusal => "refusal",
            Rule::TooLong => "too_long",
        }
    }

    /// Whether the rule is about debris: words that do not belong in an answer at all.
    pub fn is_debris(self) -> bool {
        matches!(
            self,
            Rule::TemplateLeftovers
                | Rule::CallWords
                | Rule::RoleWords
                | Rule::Pipe
                | Rule::PromptVocabulary
                | Rule::Recital
                | Rule::ForeignWord
                | Rule::Fragment
        )
    }
}

impl std::fmt::Display for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What the judge needs to know beyond the reply and the user's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JudgeContext {
    /// An answer is due: the catch-all refusal fails ([`Rule::Refusal`]). Off where
    /// declining is the right reply (a request no tool can serve).
    pub answer_due: bool,
    /// The turn showed text on the screen: the confirmation of the show («Показано.») is
    /// its answer, not a recital.
    pub shown: bool,
}

impl Default for JudgeContext {
    /// An answer is due.
    fn default() -> Self {
        Self {
            answer_due: true,
            shown: false,
        }
    }
}

/// Judge `reply` to `user_text`; `lang` is the default language (for input whose script is
/// not clear). The first rule broken, in the module's order, is the verdict.
pub fn judge_reply(reply: &str, user_text: &str, lang: Lang, context: JudgeContext) -> Verdict {
    let words = words(reply);
    if !reply.chars().any(char::is_alphanumeric) {
        return Verdict::Fails(Rule::Empty);
    }
    let lang = user_lang(user_text, lang);
    let checks: [(Rule, &dyn Fn() -> bool); 16] = [
        (Rule::TemplateLeftovers, &|| has_template_tag(reply)),
        (Rule::CallWords, &|| has_protocol_word(reply)),
        (Rule::RoleWords, &|| has_role_label(reply)),
        (Rule::Pipe, &|| reply.contains('|')),
        (Rule::PromptVocabulary, &|| has_prompt_vocabulary(&words)),
        (Rule::Recital, &|| is_recital(reply, context.shown)),
        (Rule::WrongLanguage, &|| !in_language(reply, lang)),
        (Rule::ForeignWord, &|| has_foreign_word(reply, lang)),
        (Rule::Fragment, &|| has_fragment(reply)),
        (Rule::Echo, &|| is_echo(reply, user_text)),
        (Rule::NearEcho, &|| is_near_echo(reply, user_text)),
        (Rule::RepeatedSentence, &|| has_repeated_sentence(reply)),
        (Rule::UnknownWord, &|| {
            unknown_word(reply, user_text, lang).is_some()
        }),
        (Rule::OtherIntent, &|| {
            intents::other_intent(reply, user_text).is_some()
        }),
        (Rule::Refusal, &|| context.answer_due && is_refusal(reply)),
        (Rule::TooLong, &|| words.len() > MAX_WORDS),
    ];
    for (rule, breaks) in checks {
        if breaks() {
            return Verdict::Fails(rule);
        }
    }
    Verdict::Acceptable
}

/// The language of the user's words: the script of at least two thirds of their letters
/// (words written in lower case decide; when there are none, every word), else `default`.
pub fn user_lang(text: &str, default: Lang) -> Lang {
    let count = |lowercase_only: bool| {
        let (mut cyr, mut lat) = (0usize, 0usize);
        for word in text.split(|c: char| !c.is_alphabetic()) {
            let Some(first) = word.chars().next() else {
                continue;
            };
            if lowercase_only && !first.is_lowercase() {
                continue;
            }
            for c in word.chars() {
                cyr += usize::from(is_cyrillic(c));
                lat += usize::from(is_latin(c));
            }
        }
        (cyr, lat)
    };
    let (cyr, lat) = match count(true) {
        (0, 0) => count(false),
        some => some,
    };
    let all = cyr + lat;
    if all == 0 {
        default
    } else if 3 * cyr >= 2 * all {
        Lang::Ru
    } else if 3 * lat >= 2 * all {
        Lang::En
    } else {
        default
    }
}

/// Whether `reply` is the catch-all refusal of the message texts (either language),
/// alone or within other words.
pub fn is_refusal(reply: &str) -> bool {
    let reply = words(reply).join(" ");
    [Lang::Ru, Lang::En].into_iter().any(|l| {
        let phrase = words(Texts::new(l).turn_no_reply()).join(" ");
        !phrase.is_empty() && contains_words(&reply, &phrase)
    })
}

/// Whether `reply` declines: it says the assistant cannot or will not (`не могу`, `не умею`,
/// `к сожалению`, `can't`, `unable`, `sorry`…). How a sane reply to a request no tool serves
/// reads; the catch-all refusal is one.
pub fn declines(reply: &str) -> bool {
    let reply = format!(" {} ", words(reply).join(" "));
    const MARKERS: &[&str] = &[
        " не могу ",
        " не умею ",
        " не смогу ",
        " не получится ",
        " не помогу ",
        " нельзя ",
        " нет возможности ",
        " не в силах ",
        " к сожалению ",
        " увы ",
        " простите ",
        " извините ",
        " can't ",
        " cannot ",
        " can not ",
        " unable ",
        " not able ",
        " don't ",
        " do not ",
        " won't ",
        " sorry ",
        " unfortunately ",
        " afraid ",
    ];
    MARKERS.iter().any(|m| reply.contains(m))
}

// ---- words and scripts ------------------------------------------------------------------

/// The reply's words, lower case: runs of letters, digits and apostrophes (`’` as `'`).
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’'))
        .map(|w| w.trim_matches(['\'', '’']).replace('’', "'").to_lowercase())
        .filter(|w| !w.is_empty())
        .collect()
}

/// Whether `words` (space-joined) contains `part` (space-joined) as whole words.
fn contains_words(words: &str, part: &str) -> bool {
    format!(" {words} ").contains(&format!(" {part} "))
}

fn is_cyrillic(c: char) -> bool {
    matches!(c, '\u{0400}'..='\u{052F}')
}

fn is_latin(c: char) -> bool {
    c.is_ascii_alphabetic() || (matches!(c, '\u{00C0}'..='\u{024F}') && c.is_alphabetic())
}

/// A word written as a name, a brand or a code: a capital first (`Tomb`), or second or
/// third (`iPhone`, `eBay`), or a digit anywhere (`tt0133093`).
fn name_like(word: &str) -> bool {
    word.chars().any(|c| c.is_ascii_digit()) || word.chars().take(3).any(char::is_uppercase)
}

/// The reply's words as written (letters, digits, apostrophes, inner hyphens kept apart).
fn raw_words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’'))
        .filter(|w| !w.is_empty())
}

// ---- the rules --------------------------------------------------------------------------

fn has_template_tag(reply: &str) -> bool {
    let lower = reply.to_lowercase();
    if ["[inst]", "[/inst]", "<|", "|>"]
        .iter()
        .any(|m| lower.contains(m))
    {
        return true;
    }
    // `<name>`, `</name>`: letters and underscores between angle brackets.
    let mut rest = lower.as_str();
    while let Some(at) = rest.find('<') {
        let after = &rest[at + 1..];
        let inner = after.strip_prefix('/').unwrap_or(after);
        let name_len = inner
            .find(|c: char| !(c.is_ascii_alphabetic() || c == '_'))
            .unwrap_or(inner.len());
        if name_len > 0 && inner[name_len..].starts_with('>') {
            return true;
        }
        rest = after;
    }
    false
}

fn has_protocol_word(reply: &str) -> bool {
    let upper = reply.to_uppercase();
    if upper.contains("TOOL_CALL") || upper.contains("TOOL_RESULT") {
        return true;
    }
    reply
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .any(|w| {
            crate::CORE_TOOL_NAMES.contains(&w)
                || (w.contains('_')
                    && w.chars().any(|c| c.is_ascii_alphabetic())
                    && !w.starts_with('_')
                    && !w.ends_with('_'))
        })
}

fn has_role_label(reply: &str) -> bool {
    const ROLES: &[&str] = &[
        "user",
        "assistant",
        "model",
        "system",
        "tool",
        "пользователь",
        "ассистент",
        "помощник",
        "модель",
        "система",
        "инструмент",
        "ты",
        "порфирий",
        "porfiry",
    ];
    let lower = reply.to_lowercase();
    lower.match_indices(':').any(|(at, _)| {
        let before = lower[..at].trim_end_matches(' ');
        let word_start = before
            .char_indices()
            .rev()
            .find(|(_, c)| !c.is_alphabetic())
            .map_or(0, |(i, c)| i + c.len_utf8());
        let word = &before[word_start..];
        // A label opens a line or a sentence: nothing but spaces or a sentence end before it.
        let lead = before[..word_start].trim_end();
        ROLES.contains(&word) && (lead.is_empty() || lead.ends_with(['.', '!', '?']))
    })
}

fn has_prompt_vocabulary(words: &[String]) -> bool {
    words.iter().any(|w| {
        let w = w.as_str();
        w.starts_with("toolset")
            || w == "skill"
            || w == "skills"
            || w.starts_with("скил")
            || w.starts_with("тулсет")
            || w.starts_with("тулсэт")
    })
}

fn is_recital(reply: &str, shown: bool) -> bool {
    let own: Vec<String> = [Lang::Ru, Lang::En]
        .into_iter()
        .flat_map(|l| {
            let t = Texts::new(l);
            let mut texts = sentences(t.core_header());
            if !shown {
                texts.push(t.shown());
            }
            texts
        })
        .map(|s| words(&s).join(" "))
        .filter(|s| !s.is_empty())
        .collect();
    sentences(reply)
        .iter()
        .map(|s| words(s).join(" "))
        .any(|s| own.contains(&s))
}

/// Sentences and lines of `text` (split after `.`, `!`, `?`, `…` followed by a space, and at
/// line breaks).
fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let mut current = String::new();
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            current.push(c);
            if matches!(c, '.' | '!' | '?' | '…') && chars.peek().is_some_and(|n| *n == ' ') {
                out.push(std::mem::take(&mut current));
            }
        }
        out.push(current);
    }
    out.retain(|s| !s.trim().is_empty());
    out
}

fn in_language(reply: &str, lang: Lang) -> bool {
    let cyr = reply.chars().filter(|c| is_cyrillic(*c)).count();
    let lat = reply.chars().filter(|c| is_latin(*c)).count();
    match lang {
        Lang::En => cyr <= lat,
        Lang::Ru => {
            lat <= cyr
                || (cyr > 0
                    && raw_words(reply)
                        .filter(|w| w.chars().any(is_latin))
                        .all(name_like))
        }
    }
}

fn has_foreign_word(reply: &str, lang: Lang) -> bool {
    if reply
        .chars()
        .any(|c| c.is_alphabetic() && !is_cyrillic(c) && !is_latin(c))
    {
        return true;
    }
    match lang {
        Lang::En => reply.chars().any(is_cyrillic),
        Lang::Ru => raw_words(reply)
            .filter(|w| w.chars().any(is_latin))
            .any(|w| !name_like(w) && w.chars().filter(|c| c.is_alphabetic()).count() >= 2),
    }
}

fn has_fragment(reply: &str) -> bool {
    let chars: Vec<char> = reply.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if !matches!(c, '.' | '!' | '?') {
            continue;
        }
        // An ellipsis or `?!` runs: only the last mark of a run ends a sentence.
        if chars
            .get(i + 1)
            .is_some_and(|n| matches!(n, '.' | '!' | '?'))
        {
            continue;
        }
        if c == '.' && i > 0 && matches!(chars[i - 1], '.') {
            continue;
        }
        // The word before: three letters or more (an abbreviation — `т.е.`, `a.m.` — is not a
        // sentence's end).
        let letters_before = chars[..i]
            .iter()
            .rev()
            .take_while(|c| c.is_alphabetic())
            .count();
        if letters_before < 3 && !(c != '.' && letters_before > 0) {
            continue;
        }
        let rest = &chars[i + 1..];
        let spaces = rest.iter().take_while(|c| c.is_whitespace()).count();
        if spaces == 0 {
            continue;
        }
        if rest.get(spaces).is_some_and(|n| n.is_lowercase()) {
            return true;
        }
    }
    false
}

fn is_echo(reply: &str, user_text: &str) -> bool {
    let user = words(user_text);
    if user.len() >= 3 && contains_words(&words(reply).join(" "), &user.join(" ")) {
        return true;
    }
    sentences(reply)
        .iter()
        .filter(|s| s.trim_end().ends_with('?'))
        .any(|s| longest_common_run(&words(s), &user) >= 3)
}

/// Of a request's content words, the share a sentence must repeat to be a near-echo
/// ([`Rule::NearEcho`]).
pub const NEAR_ECHO_SHARE: f64 = 0.7;

/// The words that carry no content of a request or a reply: function words, question words,
/// pronouns, auxiliaries and fillers, Russian then English, separated by spaces
/// ([`Rule::NearEcho`]). Lower case, `ё` as `е`.
pub const LIGHT_WORDS: &str = "\
    а б без бы был была были было быть в вам вас вот во вы где да для до его ее ей если \
    есть еще же за зачем и из или им их к как какая какие каким какой какое когда ко кто \
    ладно ли мне мной меня мы на над нам нас не него нее нет ни но ну о об обо он она они \
    оно от по под пожалуйста почему про с сейчас сколько со так там то тебе тебя тобой ты \
    тут у уже хорошо чем что чтобы это этот эта эти я будет будут буду конечно можно давай \
    окей ок \
    a about all am an and any are as at be been but by can could did do does for from \
    going got had has have he her here him his how i i'm if in is it it's its just let's \
    me my no not now of ok okay on or our please she so some sure that that's the their \
    them then there these they this those to up us was we well were what what's when where \
    which who why will with would yes you you're your";

/// Whether a sentence of `reply` says the request `user_text` again ([`Rule::NearEcho`]).
fn is_near_echo(reply: &str, user_text: &str) -> bool {
    let content = |text: &str| -> Vec<String> {
        words(text)
            .into_iter()
            .map(|w| w.replace('ё', "е"))
            .filter(|w| !LIGHT_WORDS.split_whitespace().any(|light| light == w))
            .collect()
    };
    if words(user_text).len() < 3 {
        return false;
    }
    let user = content(user_text);
    // One content word («Hi, what can you do?») is said back by any greeting.
    let Some(first) = user.first().filter(|_| user.len() >= 2) else {
        return false;
    };
    // A reply's word repeats a user's word by being it or by starting with it.
    let repeats = |u: &str, r: &str| r == u || (u.chars().count() >= 3 && r.starts_with(u));
    sentences(reply).iter().any(|sentence| {
        let said = content(sentence);
        if said.first() != Some(first) {
            return false;
        }
        let covered = user
            .iter()
            .filter(|u| said.iter().any(|r| repeats(u, r)))
            .count();
        let new = said
            .iter()
            .filter(|r| !user.iter().any(|u| repeats(u, r)))
            .count();
        new == 0 && covered as f64 >= NEAR_ECHO_SHARE * user.len() as f64
    })
}

/// Whether a sentence of two words or more is said twice in `reply`, or a run of three
/// words or more follows itself ([`Rule::RepeatedSentence`]).
fn has_repeated_sentence(reply: &str) -> bool {
    let mut said: Vec<String> = Vec::new();
    for sentence in sentences(reply) {
        let sentence = words(&sentence);
        if sentence.len() < 2 {
            continue;
        }
        let sentence = sentence.join(" ");
        if said.contains(&sentence) {
            return true;
        }
        said.push(sentence);
    }
    let all = words(reply);
    (3..=all.len() / 2)
        .any(|n| (0..=all.len() - 2 * n).any(|i| all[i..i + n] == all[i + n..i + 2 * n]))
}

/// The first word of `reply` that the dictionary of `lang` does not know and that the
/// rule judges ([`Rule::UnknownWord`]).
fn unknown_word(reply: &str, user_text: &str, lang: Lang) -> Option<String> {
    let in_script = |c: char| match lang {
        Lang::Ru => is_cyrillic(c),
        Lang::En => is_latin(c),
    };
    let said: Vec<String> = words(user_text)
        .into_iter()
        .map(|w| w.replace('ё', "е"))
        .collect();
    let tokens = spoken_words(reply);
    let capitalised = |w: &str| w.chars().next().is_some_and(char::is_uppercase);
    // The reply's names: its capitalised words inside a sentence.
    let names: Vec<&str> = tokens
        .iter()
        .filter(|(w, start)| !start && capitalised(w))
        .map(|(w, _)| w.as_str())
        .collect();
    for (i, (word, sentence_start)) in tokens.iter().enumerate() {
        let letters = word.chars().filter(|c| c.is_alphabetic()).count();
        if letters < 2
            || word.chars().any(|c| c.is_ascii_digit())
            || !word.chars().filter(|c| c.is_alphabetic()).all(in_script)
            || word
                .chars()
                .filter(|c| c.is_alphabetic())
                .all(char::is_uppercase)
        {
            continue;
        }
        if capitalised(word) {
            // A name: inside a sentence; at its start, followed by another capitalised word or
            // written so inside another sentence.
            let next_is_name = tokens.get(i + 1).is_some_and(|(next, _)| capitalised(next));
            if !sentence_start || next_is_name || names.contains(&word.as_str()) {
                continue;
            }
        }
        let lower = word.to_lowercase().replace('ё', "е");
        if said.iter().any(|s| dictionary::same_word(s, &lower)) {
            continue;
        }
        if !dictionary::knows(lang, word) {
            return Some(word.clone());
        }
    }
    None
}

/// The words of `text` as written — runs of letters, digits and apostrophes (`’` as `'`),
/// with inner hyphens (`что-нибудь`) — each with whether it opens a sentence (the text's
/// start, or after `.`, `!`, `?`, `…` or a line break).
fn spoken_words(text: &str) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut sentence_start = true;
    let mut current_starts = true;
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let inner_hyphen = c == '-'
            && !current.is_empty()
            && chars.get(i + 1).is_some_and(|n| n.is_alphanumeric());
        if c.is_alphanumeric() || c == '\'' || c == '’' || inner_hyphen {
            if current.is_empty() {
                current_starts = sentence_start;
            }
            current.push(if c == '’' { '\'' } else { c });
            continue;
        }
        if !current.is_empty() {
            out.push((
                std::mem::take(&mut current).trim_matches('\'').to_string(),
                current_starts,
            ));
            sentence_start = false;
        }
        if matches!(c, '.' | '!' | '?' | '…' | '\n') {
            sentence_start = true;
        }
    }
    if !current.is_empty() {
        out.push((current.trim_matches('\'').to_string(), current_starts));
    }
    out.retain(|(w, _)| !w.is_empty());
    out
}

/// The length of the longest run of consecutive words `a` and `b` share.
fn longest_common_run(a: &[String], b: &[String]) -> usize {
    let mut best = 0;
    for i in 0..a.len() {
        for j in 0..b.len() {
            let n = a[i..]
                .iter()
                .zip(&b[j..])
                .take_while(|(x, y)| x == y)
                .count();
            best = best.max(n);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Intent;

    /// What a person says for the intent named `name` (its canned replies answer it).
    fn said_for(name: &str, lang: Lang) -> &'static str {
        match (lang, name) {
            (Lang::Ru, "how-are-you") => "Как дела?",
            (Lang::Ru, "thanks") => "Спасибо!",
            (Lang::Ru, "farewell") => "Пока!",
            (Lang::Ru, "joke") => "Расскажи анекдот",
            (Lang::Ru, "feeling") => "Мне сегодня грустно",
            (Lang::Ru, "good-news") => "Я сдал экзамен!",
            (Lang::Ru, "compliment") => "Ты молодец",
            (Lang::Ru, "insult") => "Ты тупой",
            (Lang::Ru, "hear-me") => "Ты меня слышишь?",
            (Lang::Ru, "laughter") => "Ахаха",
            (Lang::Ru, "choice") => "Море или горы?",
            (Lang::Ru, "taste") => "Какая твоя любимая песня?",
            (Lang::Ru, "chat") => "Давай поболтаем",
            (Lang::Ru, "nature") => "Ты спишь?",
            (Lang::Ru, "fondness") => "Ты меня любишь?",
            (Lang::Ru, _) => "Привет, что ты умеешь?",
            (Lang::En, "how-are-you") => "How are you?",
            (Lang::En, "thanks") => "Thanks!",
            (Lang::En, "farewell") => "Bye!",
            (Lang::En, "joke") => "Tell me a joke",
            (Lang::En, "feeling") => "I feel sad today",
            (Lang::En, "good-news") => "I passed my exam!",
            (Lang::En, "compliment") => "You're brilliant",
            (Lang::En, "insult") => "You're useless",
            (Lang::En, "hear-me") => "Can you hear me?",
            (Lang::En, "laughter") => "Haha",
            (Lang::En, "choice") => "Summer or winter?",
            (Lang::En, "taste") => "What's your favourite song?",
            (Lang::En, "chat") => "Let's chat",
            (Lang::En, "nature") => "Do you sleep?",
            (Lang::En, "fondness") => "Do you love me?",
            (Lang::En, _) => "Hi, what can you do?",
        }
    }

    #[test]
    fn every_conversational_reply_of_the_catalog_is_acceptable() {
        for lang in [Lang::Ru, Lang::En] {
            let t = Texts::new(lang);
            let caps = t.capabilities(&[match lang {
                Lang::Ru => "записывать, показывать и удалять заметки",
                Lang::En => "take, list and delete notes",
            }]);
            for intent in Intent::ALL {
                let user = said_for(intent.name(), lang);
                for v in 0..3 {
                    let reply = t.talk_reply(intent, v, &caps);
                    assert!(!reply.contains('{'), "{reply}");
                    let context = JudgeContext {
                        answer_due: intent != Intent::OutOfScope,
                        shown: false,
                    };
                    assert_eq!(
                        judge_reply(&reply, user, lang, context),
                        Verdict::Acceptable,
                        "{lang} {intent} {reply:?}"
                    );
                }
            }
        }
    }

    fn verdict(reply: &str, user: &str, lang: Lang) -> Verdict {
        judge_reply(reply, user, lang, JudgeContext::default())
    }

    fn fails(rule: Rule, cases: &[(&str, &str, Lang)]) {
        for (reply, user, lang) in cases {
            assert_eq!(
                verdict(reply, user, *lang),
                Verdict::Fails(rule),
                "{reply:?} to {user:?} ({lang})"
            );
        }
    }

    /// Replies a person accepts: greetings, facts, tool answers, names and numbers.
    #[test]
    fn good_replies_pass() {
        use Lang::{En, Ru};
        for (reply, user, lang) in [
            (
                "Привет! Я Порфирий, ваш голосовой помощник.",
                "Привет! Как тебя зовут?",
                Ru,
            ),
            (
                "Hello! I'm Porfiry, your voice assistant.",
                "Hello! What's your name?",
                En,
            ),
            ("Hello! I'm Porfiry.", "Hello! What's your name?", Ru),
            ("Сейчас 10:00, суббота, 22 августа.", "Который час?", Ru),
            ("It's 10:00 a.m. on Saturday.", "What time is it?", En),
            ("Запускаю Tomb Raider (2018).", "Включи первый", Ru),
            ("Tomb Raider (2018) запущен.", "Включи первый", Ru),
            (
                "Два плюс два будет четыре.",
                "Сколько будет два плюс два?",
                Ru,
            ),
            ("Пожалуйста!", "Спасибо!", Ru),
            ("До свидания! Хорошего дня.", "Пока!", Ru),
            ("You're welcome!", "Thanks!", En),
            ("Заметка 3 сохранена.", "Запиши: купить хлеб", Ru),
            (
                "1. купить хлеб\n2. позвонить врачу в понедельник",
                "Что у меня в заметках?",
                Ru,
            ),
            (
                "Ваши заметки: купить хлеб, позвонить врачу.",
                "Покажи заметки",
                Ru,
            ),
            ("42", "Сколько будет шесть на семь?", Ru),
            (
                "Я могу подсказать время, вести заметки и искать фильмы.",
                "Что ты умеешь?",
                Ru,
            ),
            ("Простите, такси я заказать не могу.", "Вызови такси", Ru),
            (
                "Это т.е. пример, и т.д. всё хорошо.",
                "Скажи что-нибудь",
                Ru,
            ),
            ("Встреча в 3 p.m. завтра.", "Когда встреча?", Ru),
            ("Хорошо... давай попробуем.", "Попробуем?", Ru),
            ("Привет!", "Привет!", Ru),
            ("Смотрите на iPhone или YouTube.", "Где посмотреть?", Ru),
            ("Привет! Чем помочь?", "42", Ru),
        ] {
            assert_eq!(
                verdict(reply, user, lang),
                Verdict::Acceptable,
                "{reply:?} to {user:?}"
            );
        }
    }

    #[test]
    fn empty_replies_fail() {
        fails(
            Rule::Empty,
            &[("", "Привет", Lang::Ru), (" … !", "Hi", Lang::En)],
        );
    }

    #[test]
    fn template_leftovers_fail() {
        fails(
            Rule::TemplateLeftovers,
            &[
                ("Привет!<end_of_turn>", "Привет", Lang::Ru),
                ("<start_of_turn>model Hi", "Hi", Lang::En),
                ("Hello <|im_start|>assistant", "Hi", Lang::En),
                ("Hi</s>", "Hi", Lang::En),
            ],
        );
    }

    /// The real replies of the shipped models the rules were written for.
    #[test]
    fn the_observed_bad_replies_fail_by_name() {
        use Lang::{En, Ru};
        fails(
            Rule::CallWords,
            &[("Скиллы (read_skill|имя):", "Привет! Как тебя зовут?", Ru)],
        );
        fails(Rule::Recital, &[("Shown.", "Hello! What's your name?", En)]);
        // After a show, its confirmation answers the request.
        let shown = JudgeContext {
            answer_due: true,
            shown: true,
        };
        assert!(judge_reply("Показано.", "Выведи на экран: обед", Ru, shown).is_acceptable());
        fails(
            Rule::PromptVocabulary,
            &[("You can use the toolset to:", "What can you do?", En)],
        );
        fails(
            Rule::PromptVocabulary,
            &[(
                "You are a user of the toolset. Tell me how many times it has been used.",
                "Tell me a joke",
                En,
            )],
        );
        fails(
            Rule::Fragment,
            &[("Thank you, bye! mantenimiento", "Thanks, bye!", En)],
        );
        fails(
            Rule::WrongLanguage,
            &[
                ("Подробиться на ваший почтущник:", "What can you do?", En),
                ("Hello, how are you?", "Привет! Как дела?", Ru),
            ],
        );
        fails(
            Rule::Echo,
            &[(
                "You're here. What's your name?",
                "Hello! What's your name?",
                En,
            )],
        );
        fails(
            Rule::ForeignWord,
            &[("купить фильм. alimentaire", "Найди фильм Матрица", Ru)],
        );
        // Grown in the history: most of its letters are Latin now.
        fails(
            Rule::WrongLanguage,
            &[(
                "купить фильм. alimentaireusersetInputsetInput",
                "Найди фильм Матрица",
                Ru,
            )],
        );
    }

    #[test]
    fn call_words_fail() {
        fails(
            Rule::CallWords,
            &[
                ("TOOL_CALL: get_current_time", "Который час?", Lang::Ru),
                ("Вызываю notes_add для этого.", "Запиши хлеб", Lang::Ru),
                ("Use enable_toolset first.", "Take a note", Lang::En),
                ("tool_result: ok", "Hi", Lang::En),
            ],
        );
    }

    #[test]
    fn role_words_fail() {
        fails(
            Rule::RoleWords,
            &[
                ("Привет!\nПользователь: Как дела?", "Привет", Lang::Ru),
                ("Ты: Хорошо, спасибо!", "Как дела?", Lang::Ru),
                ("Fine. User: and you?", "How are you?", Lang::En),
                ("assistant: Hello!", "Hi", Lang::En),
            ],
        );
        // A colon after an ordinary word is no label.
        assert!(verdict("Ваши заметки: хлеб, молоко.", "Заметки?", Lang::Ru).is_acceptable());
    }

    #[test]
    fn a_pipe_fails() {
        fails(Rule::Pipe, &[("Готово | всё", "Сделай", Lang::Ru)]);
    }

    #[test]
    fn prompt_vocabulary_fails() {
        fails(
            Rule::PromptVocabulary,
            &[
                ("Скиллы: заметки, фильмы.", "Что умеешь?", Lang::Ru),
                ("Включил тулсет заметок.", "Включи заметки", Lang::Ru),
                ("I have a skill for that.", "Can you help?", Lang::En),
            ],
        );
    }

    #[test]
    fn recitals_of_the_prompt_fail() {
        fails(
            Rule::Recital,
            &[
                ("Показано.", "Как тебя зовут?", Lang::Ru),
                ("Отвечай коротко.", "Расскажи о себе", Lang::Ru),
                ("Answer briefly.", "Tell me about you", Lang::En),
            ],
        );
    }

    #[test]
    fn the_language_follows_the_user() {
        // Clear input decides; unclear input takes the default.
        assert_eq!(user_lang("Hello! What's your name?", Lang::Ru), Lang::En);
        assert_eq!(user_lang("Привет! Как дела?", Lang::En), Lang::Ru);
        assert_eq!(user_lang("Найди фильм Tomb Raider", Lang::En), Lang::Ru);
        assert_eq!(user_lang("42", Lang::En), Lang::En);
        assert_eq!(user_lang("ok да", Lang::Ru), Lang::Ru);
        assert_eq!(user_lang("Tomb Raider", Lang::Ru), Lang::En);
        fails(
            Rule::WrongLanguage,
            &[
                ("Сейчас десять утра.", "What time is it?", Lang::Ru),
                ("It is ten.", "Который час?", Lang::En),
            ],
        );
    }

    #[test]
    fn foreign_words_fail() {
        fails(
            Rule::ForeignWord,
            &[
                ("Фильм найден, id tt0133093.", "Найди Матрицу", Lang::Ru),
                ("The film is Матрица.", "Find The Matrix", Lang::En),
                ("Привет 你好", "Привет", Lang::Ru),
                ("Сейчас десять, très bien.", "Который час?", Lang::Ru),
            ],
        );
    }

    #[test]
    fn fragments_fail() {
        fails(
            Rule::Fragment,
            &[
                ("Готово. купить", "Запиши", Lang::Ru),
                ("Hello! users", "Hi", Lang::En),
                ("Done? yes", "Do it", Lang::En),
            ],
        );
    }

    #[test]
    fn echoes_fail() {
        fails(
            Rule::Echo,
            &[
                (
                    "Запиши, что надо купить хлеб",
                    "Запиши, что надо купить хлеб",
                    Lang::Ru,
                ),
                (
                    "Вы сказали: какая сегодня погода.",
                    "Какая сегодня погода?",
                    Lang::Ru,
                ),
                ("How are you doing?", "Hey, how are you doing?", Lang::En),
            ],
        );
    }

    #[test]
    fn the_refusal_fails_only_where_an_answer_is_due() {
        for l in [Lang::Ru, Lang::En] {
            let phrase = Texts::new(l).turn_no_reply();
            let (hello, user) = match l {
                Lang::Ru => ("Привет!", "Вызови такси"),
                Lang::En => ("Hello!", "Call a taxi"),
            };
            assert_eq!(verdict(phrase, hello, l), Verdict::Fails(Rule::Refusal));
            let declining = JudgeContext {
                answer_due: false,
                shown: false,
            };
            assert!(judge_reply(phrase, user, l, declining).is_acceptable());
            assert!(is_refusal(phrase) && declines(phrase));
        }
        assert!(declines("Простите, пиццу я заказать не могу."));
        assert!(declines("Sorry, I can't order pizza."));
        assert!(!declines("Пицца уже едет!"));
        assert!(!declines("Sure, ordering now."));
    }

    #[test]
    fn long_replies_fail() {
        // Words and numbers in turn: no run of words follows itself.
        let said = |n: usize| -> String {
            let words: Vec<String> = (0..n)
                .map(|i| match i % 2 {
                    0 => "слово".to_string(),
                    _ => i.to_string(),
                })
                .collect();
            words.join(" ")
        };
        fails(
            Rule::TooLong,
            &[(&said(MAX_WORDS + 1), "Расскажи", Lang::Ru)],
        );
        assert!(verdict(&said(MAX_WORDS), "Расскажи", Lang::Ru).is_acceptable());
    }

    #[test]
    fn rules_have_names_and_kinds() {
        let names: Vec<&str> = Rule::ALL.iter().map(|r| r.name()).collect();
        assert_eq!(names.len(), 17);
        assert!(names.contains(&"wrong_language") && names.contains(&"too_long"));
        assert!(Rule::ForeignWord.is_debris() && !Rule::Echo.is_debris());
        assert_eq!(
            serde_json::to_value(Verdict::Fails(Rule::Echo)).unwrap(),
            serde_json::json!({"verdict": "fails", "rule": "echo"})
        );
        assert_eq!(Verdict::Fails(Rule::Pipe).rule(), Some(Rule::Pipe));
    }

    #[test]
    fn near_echoes_fail() {
        use Lang::{En, Ru};
        fails(
            Rule::NearEcho,
            &[
                (
                    "Расскажи коротко о мореполнении",
                    "Расскажи коротко про море",
                    Ru,
                ),
                (
                    "Хорошо, найди рецепт блинов.",
                    "Найди мне рецепт блинов",
                    Ru,
                ),
                ("Tell me about the seas.", "Tell me about the sea", En),
                (
                    "Sure! The sky is blue. Let me think.",
                    "Why is the sky so blue?",
                    En,
                ),
            ],
        );
        // Answers that restate the request in their own words, or add to it, pass.
        for (reply, user, lang) in [
            (
                "Два плюс два будет четыре.",
                "Сколько будет два плюс два?",
                Ru,
            ),
            ("Включаю музыку.", "Включи музыку, пожалуйста", Ru),
            ("Записал: купить хлеб.", "Запиши купить хлеб", Ru),
            (
                "Небо голубое из-за рассеяния света.",
                "Почему небо голубое?",
                Ru,
            ),
            (
                "Timer set for five minutes.",
                "Set a timer for five minutes",
                En,
            ),
            ("Playing some jazz.", "Play some jazz", En),
            ("It's 10:00.", "What time is it?", En),
            ("Доброе утро! Чем помочь?", "Доброе утро, Порфирий", Ru),
        ] {
            assert_eq!(
                verdict(reply, user, lang),
                Verdict::Acceptable,
                "{reply:?} to {user:?}"
            );
        }
    }

    #[test]
    fn repeated_sentences_fail() {
        use Lang::{En, Ru};
        fails(
            Rule::RepeatedSentence,
            &[
                ("You are a model. You are a model.", "Who am I?", En),
                (
                    "Сейчас десять утра. Хорошего дня! Сейчас десять утра.",
                    "Который час?",
                    Ru,
                ),
                (
                    "Купить хлеб завтра купить хлеб завтра",
                    "Что в заметках?",
                    Ru,
                ),
            ],
        );
        for (reply, user, lang) in [
            ("Да. Да.", "Ты тут?", Ru),
            (
                "1. купить хлеб\n2. купить хлеб и молоко",
                "Что в заметках?",
                Ru,
            ),
            ("Нет, нет, всё хорошо.", "Что-то случилось?", Ru),
            ("Ha! Ha! Good one.", "Knock knock", En),
        ] {
            assert_eq!(
                verdict(reply, user, lang),
                Verdict::Acceptable,
                "{reply:?} to {user:?}"
            );
        }
    }

    #[test]
    fn words_in_no_dictionary_fail() {
        use Lang::{En, Ru};
        fails(
            Rule::UnknownWord,
            &[
                ("Я знаю про мореполнении.", "Что ты знаешь?", Ru),
                ("Ивануправления нет дома.", "Где Иван?", Ru),
                ("Это хорошая модэль.", "Какая модель?", Ru),
                ("The weather is sunnyful today.", "How's the weather?", En),
                ("I am a modelerer.", "Who are you?", En),
            ],
        );
        assert_eq!(
            unknown_word("Я знаю про мореполнении.", "Что ты знаешь?", Ru).as_deref(),
            Some("мореполнении")
        );
        // Real words, names, numbers, brands, the user's own words and the assistant's pass.
        for (reply, user, lang) in [
            ("A modeler builds models.", "What is a modeler?", En),
            ("Сейчас 10:00, суббота, 22 августа.", "Который час?", Ru),
            (
                "Матрица (1999): фантастика, 136 мин, в главной роли Киану Ривз.",
                "Расскажи о фильме",
                Ru,
            ),
            (
                "Keanu Reeves starred in it.",
                "Who starred in The Matrix?",
                En,
            ),
            ("Смотрите на iPhone или YouTube.", "Где посмотреть?", Ru),
            ("Записал: купить кефирчик.", "Запиши: купить кефирчик", Ru),
            ("Porfiry here. I'm listening.", "Hello?", En),
            ("Ок, сделаю что-нибудь по-русски.", "Сделай", Ru),
            ("ИИ — это искусственный интеллект.", "Что такое ИИ?", Ru),
            ("I'd say it's well-known, isn't it?", "Is it famous?", En),
            ("Привет! Я Порфирий.", "Привет!", Ru),
        ] {
            assert_eq!(
                verdict(reply, user, lang),
                Verdict::Acceptable,
                "{reply:?} to {user:?}"
            );
        }
    }

    #[test]
    fn another_intents_canned_reply_fails() {
        use Lang::{En, Ru};
        let ru = Texts::new(Ru);
        let en = Texts::new(En);
        let greeting = ru.talk_reply(Intent::Greeting, 0, "");
        assert_eq!(greeting, "Привет! Я Порфирий. Чем могу помочь?");
        fails(
            Rule::OtherIntent,
            &[
                ("You're welcome!", "I feel sad", En),
                (greeting.as_str(), "У меня день рождения!", Ru),
                ("Goodbye!", "What time is it now?", En),
                ("До свидания! Хорошего дня.", "Покажи заметки", Ru),
                ("Пожалуйста!", "Покажи заметки", Ru),
            ],
        );
        let joke = en.talk_reply(Intent::Joke, 0, "");
        assert_eq!(
            verdict(&joke, "Set a timer", En),
            Verdict::Fails(Rule::OtherIntent)
        );
        // The intent's own turn, an opening of one word, an acknowledgement and the decline
        // pass.
        let caps = ru.capabilities(&[]);
        for (reply, user, lang) in [
            (greeting.clone(), "Привет!", Ru),
            (greeting.clone(), "Как тебя зовут?", Ru),
            ("You're welcome!".to_string(), "Thanks a lot", En),
            (
                "Пожалуйста! Вот ваши заметки.".to_string(),
                "Покажи заметки",
                Ru,
            ),
            ("Хорошо.".to_string(), "Я иду в магазин", Ru),
            (
                ru.talk_reply(Intent::OutOfScope, 0, &caps),
                "Вызови такси",
                Ru,
            ),
            (ru.talk_reply(Intent::Identity, 0, &caps), "Привет!", Ru),
        ] {
            let context = JudgeContext {
                answer_due: true,
                shown: false,
            };
            assert_eq!(
                judge_reply(&reply, user, lang, context),
                Verdict::Acceptable,
                "{reply:?} to {user:?}"
            );
        }
    }
}
