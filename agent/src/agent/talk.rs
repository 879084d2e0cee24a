//! Conversational messages answered from the message texts
//! ([`Technique::TalkIntents`]).

use super::session::Session;
use super::Shared;
use crate::guidance::{is_question, refine_intent as refine, too_long_for, Route, Technique};
use crate::intent::Intent;
use crate::judge::{user_lang, MAX_WORDS};
use crate::messages::Texts;
use crate::model::Role;

impl Shared {
    /// The answer to the turn `user_text` of session `s` when routing sent it to a
    /// conversational intent: the catalog's reply in the user's language, what the
    /// assistant can do said from the toolsets this host really runs. `None` when the
    /// technique is off, the route is no intent, or a protocol runs in the session (its
    /// steps may need the words), the message is too long for its intent (over
    /// `TALK_WORDS` words, but for a request no tool does), or it
    /// lacks the words its intent needs (`refine`).
    pub(super) fn talk_answer(
        &self,
        session: &str,
        s: &Session,
        route: Option<&Route>,
        user_text: &str,
    ) -> Option<(Intent, String)> {
        if !self.config.guidance.is_on(Technique::TalkIntents) {
            return None;
        }
        let intent = route?.target.as_deref().and_then(Intent::from_target)?;
        // Conversational formulas are short; a long message carries content for the model
        // (a request no tool does is declined however long).
        if too_long_for(intent, user_text) {
            return None;
        }
        if self
            .hook
            .as_ref()
            .and_then(|h| h.reminder(session))
            .is_some()
        {
            return None;
        }
        let lang = user_lang(user_text, self.config.lang);
        let texts = Texts::new(lang);
        let sets = self.spoken_sets(lang);
        let variant = variant_of(s);
        // More of a story after a feeling or good news: that mood answered again, in other
        // words (routing decided it is more of the story, not a mood of its own words).
        let previous = s
            .history
            .iter()
            .rev()
            .find(|m| m.role == Role::Assistant)
            .and_then(|m| Texts::mood_replied(&m.content));
        if previous == Some(intent) {
            if let Some(sequel) = texts.mood_sequel(intent, variant) {
                return Some((intent, sequel.to_owned()));
            }
        }
        let (intent, thanked) = refine(intent, user_text)?;
        let say = |shown: usize| {
            let caps = texts.capabilities_of(&sets[..shown], shown < sets.len());
            let reply = texts.talk_reply(intent, variant, &caps);
            // Thanked and said goodbye: thanked back, then goodbye.
            if thanked {
                format!(
                    "{} {reply}",
                    texts.talk_reply(Intent::Thanks, variant, &caps)
                )
            } else {
                reply
            }
        };
        Some((intent, short_enough(sets.len(), say)))
    }

    /// The honest decline of the turn `user_text` of session `s`
    /// ([`Technique::HonestDecline`]): that the assistant does not know (a question) or has
    /// nothing to say to it (anything else), and what it can do, from the toolsets this host
    /// really runs; in the user's language. `None` when the technique is off.
    pub(super) fn honest_decline(&self, s: &Session, user_text: &str) -> Option<String> {
        if !self.config.guidance.is_on(Technique::HonestDecline) {
            return None;
        }
        let lang = user_lang(user_text, self.config.lang);
        let texts = Texts::new(lang);
        let sets = self.spoken_sets(lang);
        let variant = variant_of(s);
        let question = is_question(user_text);
        let say = |shown: usize| {
            let caps = texts.capabilities_of(&sets[..shown], shown < sets.len());
            texts.honest_decline(question, variant, &caps)
        };
        Some(short_enough(sets.len(), say))
    }

    /// What each advertised toolset does, as said in `lang` ([`crate::Toolset::spoken_in`]).
    fn spoken_sets(&self, lang: crate::messages::Lang) -> Vec<&str> {
        self.advertised
            .toolsets
            .iter()
            .filter_map(|set| set.spoken_in(lang))
            .collect()
    }
}

/// The variant of a catalog reply in session `s`: consecutive answers differ, the variant
/// follows the session's replies so far.
fn variant_of(s: &Session) -> usize {
    s.history
        .iter()
        .filter(|m| m.role == Role::Assistant)
        .count()
}

/// `say(shown)` with as many of the `sets` sets shown as keep a spoken reply within
/// [`MAX_WORDS`]: a host with many sets says the first ones "and more".
fn short_enough(sets: usize, say: impl Fn(usize) -> String) -> String {
    let mut shown = sets;
    let mut reply = say(shown);
    while shown > 0 && reply.split_whitespace().count() > MAX_WORDS {
        shown -= 1;
        reply = say(shown);
    }
    reply
}
