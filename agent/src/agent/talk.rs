//! Conversational messages answered from the message texts
//! ([`Technique::TalkIntents`]).

use super::session::Session;
use super::Shared;
use crate::guidance::{refine_intent as refine, too_long_for, Route, Technique};
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
        let sets: Vec<&str> = self
            .advertised
            .toolsets
            .iter()
            .filter_map(|set| set.spoken_in(lang))
            .collect();
        // Consecutive answers differ: the variant follows the session's replies so far.
        let variant = s
            .history
            .iter()
            .filter(|m| m.role == Role::Assistant)
            .count();
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
        // A spoken reply stays short: a host with many sets says the first ones "and more".
        let mut shown = sets.len();
        let mut reply = say(shown);
        while shown > 0 && reply.split_whitespace().count() > MAX_WORDS {
            shown -= 1;
            reply = say(shown);
        }
        Some((intent, reply))
    }
}
