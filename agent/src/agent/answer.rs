//! A question of fact no tool serves, asked in a question-and-answer transcript
//! ([`Technique::AnswerTranscript`]): its own request (the transcript alone, in a model
//! session of its own, [`ANSWERS_SESSION`]), its reply judged before the user gets it.

use super::session::Session;
use super::turn::record_generation;
use super::{AgentEvent, Shared, TurnOutcome};
use crate::guidance::{answer_prefix, is_question, transcript, Route, Technique};
use crate::judge::{judge_reply, user_lang, JudgeContext, Verdict};
use crate::messages::Texts;
use crate::model::{CancelToken, Message, Model, ModelRequest, ReplyGuide, Role, StopReason};

/// The model session every transcript request runs in: apart from every user's session
/// (whose cache it leaves alone where the model keeps several), one for all of them (the
/// worked exchanges are the same, so their cache is shared). No host names a session so.
pub(crate) const ANSWERS_SESSION: &str = "\u{1}answers";

/// The most sentences of an answer said this way.
const ANSWER_SENTENCES: usize = 2;

impl Shared {
    /// The answer to the turn `user_text` when routing found no tool or intent for it and it
    /// asks a question: the model's continuation of the transcript, when the judge accepts
    /// it (no debris, the user's language, no echo, not the refusal) and the model ended it
    /// on its own. `None`: the technique is off, the turn is routed elsewhere or not at all,
    /// a protocol runs in the session, the message is no question, or no acceptable answer
    /// came (the turn then goes on as any other; a cancel is seen there).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn transcript_answer(
        &self,
        session: &str,
        s: &Session,
        route: Option<&Route>,
        user_text: &str,
        model: &mut dyn Model,
        cancel: &CancelToken,
        out: &mut TurnOutcome,
        on_event: &mut dyn FnMut(AgentEvent),
    ) -> Option<String> {
        let guidance = &self.config.guidance;
        if !guidance.is_on(Technique::AnswerTranscript) || !guidance.is_on(Technique::Route) {
            return None;
        }
        // Routed, to a plain reply.
        if route?.target.is_some() || !is_question(user_text) {
            return None;
        }
        let runs_protocol = self
            .hook
            .as_ref()
            .and_then(|h| h.reminder(session))
            .is_some();
        // Only in a fresh exchange: a question about what a tool just said is answered from
        // the history.
        let after_tool = s
            .history
            .iter()
            .rev()
            .skip(1)
            .take(2)
            .any(|m| m.role == Role::Tool);
        if runs_protocol || after_tool {
            return None;
        }
        let lang = user_lang(user_text, self.config.lang);
        let texts = Texts::new(lang);
        let prefix = answer_prefix(texts);
        let messages = [Message::user(transcript(
            texts,
            earlier_question(&s.history),
            user_text,
        ))];
        let stop = ["\n".to_string()];
        let request = ModelRequest {
            session: ANSWERS_SESSION,
            system: texts.answer_transcript().persona,
            messages: &messages,
            cancel,
            forced_reply: None,
            guide: ReplyGuide {
                prefix: Some(&prefix),
                stop: &stop,
                calls: Some(&[]),
                max_sentences: Some(ANSWER_SENTENCES),
                words: None,
                call_line: Default::default(),
            },
            time_left: self.time_left(self.clock.now()),
        };
        // Nothing is streamed before the judge has seen the whole answer (a sentence or two).
        let generation = model.generate(&request, &mut |_| {}).ok()?;
        record_generation(out, on_event, &generation, false);
        // Cut short by the token limit (a run of digits, a list without end), cancelled or
        // out of time: no answer.
        if !matches!(
            generation.stop,
            StopReason::EndOfTurn | StopReason::StopString
        ) {
            return None;
        }
        let answer = generation
            .text
            .trim()
            .strip_prefix(prefix.as_str())
            .unwrap_or(generation.text.trim())
            .trim()
            .to_string();
        match judge_reply(&answer, user_text, lang, JudgeContext::default()) {
            Verdict::Acceptable => Some(answer),
            Verdict::Fails(_) => None,
        }
    }
}

/// The conversation's exchange just before the turn (`history` ends with the turn's user
/// message) when it was a question and its answer: what an elliptic question («А трава?»,
/// "And grass?") goes on from.
fn earlier_question(history: &[Message]) -> Option<(&str, &str)> {
    let [.., asked, answered, _] = history else {
        return None;
    };
    (asked.role == Role::User && answered.role == Role::Assistant && is_question(&asked.content))
        .then_some((asked.content.as_str(), answered.content.as_str()))
}
