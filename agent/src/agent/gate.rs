//! The reply gate ([`Technique::ReplyGate`](crate::Technique::ReplyGate)): a generated
//! plain reply reaches the user sentence by sentence, each released only when the reply so
//! far passes the judge's rules about debris, language, echoes, repeats and unknown words
//! ([`judge_reply`], [`gate_rule`]). The first sentence that fails closes the gate: it and
//! everything after it are held back. Text-to-speech speaks whole sentences, so holding a
//! sentence until it ends costs a spoken reply nothing.

use crate::judge::{judge_reply, JudgeContext, Rule, Verdict};
use crate::messages::Lang;
use porfiry_seam::wire::sentence_ends;

/// The gate of one generation.
#[derive(Debug)]
pub(super) struct ReplyGate<'a> {
    user_text: &'a str,
    lang: Lang,
    /// Visible text not released yet.
    held: String,
    /// Visible text released to the user.
    released: String,
    /// The rule that closed the gate.
    refused: Option<Rule>,
}

impl<'a> ReplyGate<'a> {
    /// A gate for a reply to `user_text`; `lang` is the default language.
    pub(super) fn new(user_text: &'a str, lang: Lang) -> Self {
        ReplyGate {
            user_text,
            lang,
            held: String::new(),
            released: String::new(),
            refused: None,
        }
    }

    /// Take `visible` text; what may reach the user now: every sentence that has ended and
    /// passes.
    pub(super) fn push(&mut self, visible: &str) -> String {
        if self.refused.is_some() {
            return String::new();
        }
        self.held.push_str(visible);
        let Some(end) = sentence_ends(&self.held).last() else {
            return String::new();
        };
        // The last end at the very end of the text may still grow (`?` → `?!`): wait for
        // what follows it.
        if end == self.held.len() {
            return String::new();
        }
        self.release(end)
    }

    /// The generation ended: the rest, if it passes.
    pub(super) fn finish(&mut self) -> String {
        if self.refused.is_some() {
            return String::new();
        }
        let end = self.held.len();
        self.release(end)
    }

    /// The rule that closed the gate, if it closed.
    pub(super) fn refused(&self) -> Option<Rule> {
        self.refused
    }

    /// What was released.
    pub(super) fn released(&self) -> &str {
        &self.released
    }

    /// Judge the released text with the held text up to byte `end`; release that part when
    /// it passes, else close.
    fn release(&mut self, end: usize) -> String {
        let part = &self.held[..end];
        if !part.chars().any(char::is_alphanumeric) {
            // Nothing to judge yet (spaces, punctuation): held until words come.
            return if end == self.held.len() && !part.is_empty() && !self.released.is_empty() {
                self.take(end)
            } else {
                String::new()
            };
        }
        let candidate = format!("{}{}", self.released, part);
        match gate_rule(&candidate, self.user_text, self.lang) {
            Some(rule) => {
                self.refused = Some(rule);
                self.held.clear();
                String::new()
            }
            None => self.take(end),
        }
    }

    fn take(&mut self, end: usize) -> String {
        let part: String = self.held.drain(..end).collect();
        self.released.push_str(&part);
        part
    }
}

/// The rule a reply breaks that the gate refuses: debris ([`Rule::is_debris`]), the wrong
/// language, an echo or a near-echo of the user's words, a repeated sentence, a word in no
/// dictionary. Each of these is judged on sentences that have ended, so a reply's beginning
/// breaks it only where the whole reply would: the gate judges the reply sentence by
/// sentence, and a sentence that fails stays failed whatever follows it.
///
/// Not the gate's: length (the sentence cap bounds it), the refusal (the agent's own
/// phrase), emptiness, and another intent's canned reply ([`Rule::OtherIntent`]) — whether a
/// reply *is* a canned one is known only at its end («Пожалуйста!» alone answers thanks;
/// «Пожалуйста! Вот ваши заметки.» answers a request), and the agent's canned replies do not
/// pass the gate anyway.
pub(crate) fn gate_rule(reply: &str, user_text: &str, lang: Lang) -> Option<Rule> {
    let context = JudgeContext {
        answer_due: false,
        shown: false,
    };
    match judge_reply(reply, user_text, lang, context) {
        Verdict::Acceptable => None,
        Verdict::Fails(rule) => {
            let gated = rule.is_debris()
                || matches!(
                    rule,
                    Rule::WrongLanguage
                        | Rule::Echo
                        | Rule::NearEcho
                        | Rule::RepeatedSentence
                        | Rule::UnknownWord
                );
            gated.then_some(rule)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(user: &str, pieces: &[&str]) -> (String, Option<Rule>) {
        let mut gate = ReplyGate::new(user, Lang::Ru);
        let mut out = String::new();
        for p in pieces {
            out.push_str(&gate.push(p));
        }
        out.push_str(&gate.finish());
        assert_eq!(out, gate.released());
        (out, gate.refused())
    }

    #[test]
    fn a_clean_reply_passes_whole_and_sentence_by_sentence() {
        let mut gate = ReplyGate::new("Расскажи о погоде", Lang::Ru);
        assert_eq!(gate.push("Сегодня"), "");
        assert_eq!(gate.push(" тепло. Завтра"), "Сегодня тепло.");
        assert_eq!(gate.push(" дождь."), "");
        assert_eq!(gate.finish(), " Завтра дождь.");
        assert_eq!(gate.refused(), None);
    }

    #[test]
    fn debris_closes_the_gate_and_nothing_after_it_passes() {
        let (out, rule) = run(
            "Найди фильм Матрица",
            &["Сейчас найду. ", "купить фильм. alimentaire", " и ещё."],
        );
        assert_eq!(out, "Сейчас найду.");
        assert!(rule.is_some_and(|r| r.is_debris()), "{rule:?}");
        let (out, rule) = run("Привет! Как тебя зовут?", &["Скиллы (read_skill|имя):"]);
        assert_eq!(out, "");
        assert!(rule.is_some());
    }

    #[test]
    fn a_reply_in_the_wrong_language_is_held_back() {
        let (out, rule) = run("Как у тебя дела сегодня?", &["Hello, how are you?"]);
        assert_eq!(out, "");
        assert_eq!(rule, Some(Rule::WrongLanguage));
    }

    #[test]
    fn a_repeated_sentence_is_held_back_after_its_first_time() {
        let (out, rule) = run(
            "Кто я?",
            &["Вы пользователь. ", "Вы пользователь. ", "Вот так."],
        );
        assert_eq!(out, "Вы пользователь.");
        assert_eq!(rule, Some(Rule::RepeatedSentence));
    }

    #[test]
    fn a_word_in_no_dictionary_is_held_back() {
        let (out, rule) = run(
            "Расскажи коротко про море",
            &["Море большое. ", "Ивануправления нет."],
        );
        assert_eq!(out, "Море большое.");
        assert_eq!(rule, Some(Rule::UnknownWord));
        let (out, rule) = run(
            "Расскажи коротко про море",
            &["Расскажи коротко о мореполнении."],
        );
        assert_eq!(out, "");
        assert_eq!(rule, Some(Rule::NearEcho));
    }

    #[test]
    fn a_reply_opening_like_a_canned_one_passes() {
        let (out, rule) = run("Покажи заметки", &["Пожалуйста! ", "Вот ваши заметки."]);
        assert_eq!(out, "Пожалуйста! Вот ваши заметки.");
        assert_eq!(rule, None);
    }

    #[test]
    fn an_echo_is_held_back() {
        let (out, rule) = run("Почему небо голубое?", &["Почему небо голубое?"]);
        assert_eq!(out, "");
        assert_eq!(rule, Some(Rule::Echo));
    }
}
