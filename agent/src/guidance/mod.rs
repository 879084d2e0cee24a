//! Guidance: every technique that shapes what a request may produce, or what the turn does
//! with a reply, for a small model — one named [`Technique`] each, switched on or off in
//! [`Guidance`] (the agent's [`crate::AgentConfig::guidance`]).
//!
//! - `technique` — the [`Technique`] list: what each is for, and the set of those on.
//! - `route` — routing a turn's first action by example requests ([`Route`]).
//! - `examples` — the example requests of the core tools and of a plain reply.
//! - `words` — the language data: word stems, number words, the lines that open a turn.
//! - `text` — the text rules: the words of a turn, number groups, the text a request sets
//!   apart, the echo and intro stops.
//! - `refer` — the items of the latest tool list a request points at («второй», «её»).
//! - `answers` — questions of fact asked in a question-and-answer transcript.
//! - `ask` — asking before acting on a narrow route: what counts as a yes or a no.
//! - `dates` — questions of the day before or after today, answered from the clock.
//! - `units` — questions of how many of one unit of time make another, computed.
//! - `calendar` — calendar facts (days of a month, days until a date, a holiday's date),
//!   computed from the clock.
//! - `plan` — one request's [`ReplyPlan`]: what the request may produce (a forced reply or
//!   its [`crate::ReplyGuide`]), from the session's state, the route and the techniques on.
//!
//! Invariant: guidance only narrows what a request may produce (its reply guide or forced
//! reply) and what the turn does with the reply; it never edits the history or a
//! request's messages. Two techniques decide what the prompt shows
//! ([`Technique::shapes_prompt`]: the worked examples, the hidden toolsets); with either
//! one fixed, the system text is the same whatever else is on (tested:
//! `agent/src/agent/tests/guidance.rs`, `guidance_never_edits_a_request_s_messages`).

mod answers;
mod arithmetic;
mod ask;
mod calendar;
mod continuation;
mod dates;
mod examples;
mod fill;
mod howto;
mod numbers;
mod plan;
mod refer;
mod route;
mod talk;
mod technique;
mod text;
mod told;
mod units;
mod words;

pub use route::{Route, RouteExample};
pub use technique::{Technique, UnknownTechnique};

pub(crate) use answers::{answer_prefix, is_question, tells_user_who_they_are, transcript};
pub(crate) use arithmetic::{arithmetic_question, say as say_arithmetic};
pub(crate) use ask::{only_no, yes_or_no};
pub(crate) use calendar::{calendar_question, say as say_calendar};
pub(crate) use dates::{day_question, say_day};
pub(crate) use fill::HostValues;
pub(crate) use plan::{FillQuestion, Planner, ReplyPlan};
pub(crate) use route::Router;
pub(crate) use talk::{refine as refine_intent, too_long_for};
pub(crate) use text::routed_head;
pub(crate) use units::{say as say_units, unit_follow_up, unit_question};

#[cfg(test)]
pub(crate) use text::{delimited_text, echo_stop, number_groups};

use technique::Techniques;

/// How the agent helps a small model act right: the [`Technique`]s on, and their numeric
/// settings. `Default` is the product as shipped: every technique on but
/// [`Technique::FewShot`].
#[derive(Debug, Clone, PartialEq)]
pub struct Guidance {
    on: Techniques,
    /// The least score of the nearest example for a route to be followed
    /// ([`Technique::Route`]); below it the model chooses freely. Default 0 (always follow).
    pub min_route_score: f32,
    /// The most sentences of a reply under [`Technique::SentenceCap`] (spoken replies are
    /// short); `None`: no cap. Default 3.
    pub max_sentences: Option<usize>,
    /// Under [`Technique::AskWhenUnsure`], a tool route ahead of the next route by less
    /// than this ([`Route::margin`]) is asked about before it is acted on. Default
    /// [`ASK_MARGIN`].
    pub ask_margin: f32,
    /// Under [`Technique::IntentMargin`], a conversational intent ahead of the next target
    /// by less than this ([`Route::margin`]) does not take the request: it goes on as a
    /// question or a statement. Default [`INTENT_MARGIN`].
    pub intent_margin: f32,
    /// Under [`Technique::ConfidenceGate`], the least mean log-probability of a generated
    /// plain reply's tokens ([`crate::Confidence::mean_logprob`]) for it to be spoken in a
    /// turn that called no tool; a reply below it is declined honestly. Default
    /// [`MIN_CONFIDENCE`].
    pub min_confidence: f64,
}

/// The default [`Guidance::ask_margin`] (docs/guidance.md has the figures that chose it).
pub const ASK_MARGIN: f32 = 0.005;

/// The default [`Guidance::intent_margin`] (docs/guidance.md has the figures that chose it).
pub const INTENT_MARGIN: f32 = 0.01;

/// The default [`Guidance::min_confidence`] (docs/guidance.md, "The confidence gate", has
/// the figures that chose it).
pub const MIN_CONFIDENCE: f64 = -0.35;

impl Default for Guidance {
    fn default() -> Self {
        let mut on = Techniques::all();
        on.set(Technique::FewShot, false);
        // Off until it runs in the user's session: its request bypasses the session's cache
        // and what the partial transcript decoded ahead there (docs/guidance.md).
        on.set(Technique::AnswerTranscript, false);
        Guidance {
            on,
            min_route_score: 0.0,
            max_sentences: Some(3),
            ask_margin: ASK_MARGIN,
            intent_margin: INTENT_MARGIN,
            min_confidence: MIN_CONFIDENCE,
        }
    }
}

impl Guidance {
    /// Nothing but the bare prompt: every main switch off ([`Technique::MAIN`]: no
    /// routing, no call constraint, no examples, no reply stops or cap, every declared set
    /// advertised, no reply gate, no arithmetic, no day questions) — the behaviour before
    /// guidance existed. The refinements
    /// stay on and do nothing without what they refine; [`Technique::NoReplyPhrase`] stays
    /// on.
    pub fn none() -> Self {
        let mut g = Guidance {
            max_sentences: None,
            ..Guidance::default()
        };
        for t in Technique::MAIN {
            g.on.set(t, false);
        }
        g.on.set(Technique::ReplyGate, false);
        g.on.set(Technique::Arithmetic, false);
        g.on.set(Technique::DayQuestions, false);
        g.on.set(Technique::UnitQuestions, false);
        g.on.set(Technique::CalendarQuestions, false);
        g.on.set(Technique::HonestDecline, false);
        g.on.set(Technique::ConfidenceGate, false);
        g
    }

    /// Whether `technique` is on.
    pub fn is_on(&self, technique: Technique) -> bool {
        self.on.contains(technique)
    }

    /// Switch `technique` on or off.
    pub fn set(&mut self, technique: Technique, on: bool) {
        self.on.set(technique, on);
    }

    /// This guidance with `technique` switched off.
    pub fn without(mut self, technique: Technique) -> Self {
        self.set(technique, false);
        self
    }

    /// This guidance with `technique` switched on.
    pub fn with(mut self, technique: Technique) -> Self {
        self.set(technique, true);
        self
    }

    /// The techniques on, in [`Technique::ALL`]'s order.
    pub fn techniques(&self) -> impl Iterator<Item = Technique> + '_ {
        Technique::ALL.into_iter().filter(|t| self.is_on(*t))
    }

    /// Whether a generated plain reply of this `confidence` is too unsure to be spoken
    /// ([`Technique::ConfidenceGate`]): its mean token log-probability is below
    /// [`Guidance::min_confidence`]. Never when the technique is off or the model reported
    /// no confidence.
    pub fn doubts(&self, confidence: Option<&crate::Confidence>) -> bool {
        self.is_on(Technique::ConfidenceGate)
            && confidence
                .and_then(crate::Confidence::mean_logprob)
                .is_some_and(|mean| mean < self.min_confidence)
    }

    /// The sentence cap of a reply: [`Guidance::max_sentences`] under
    /// [`Technique::SentenceCap`].
    pub(crate) fn sentence_cap(&self) -> Option<usize> {
        self.max_sentences
            .filter(|_| self.is_on(Technique::SentenceCap))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_is_everything_but_the_worked_examples_and_the_transcript() {
        let d = Guidance::default();
        for t in Technique::ALL {
            let off = [Technique::FewShot, Technique::AnswerTranscript];
            assert_eq!(d.is_on(t), !off.contains(&t), "{t}");
        }
        assert_eq!(d.sentence_cap(), Some(3));
        assert_eq!(
            d.clone().without(Technique::SentenceCap).sentence_cap(),
            None
        );
        assert_eq!(d.techniques().count(), Technique::ALL.len() - 2);
    }

    #[test]
    fn a_reply_is_doubted_below_the_least_confidence_only() {
        let g = Guidance::default();
        let of = |mean: f64| crate::Confidence::of([mean, mean]);
        assert!(g.doubts(Some(&of(MIN_CONFIDENCE - 0.5))));
        assert!(!g.doubts(Some(&of(MIN_CONFIDENCE + 0.5))));
        assert!(!g.doubts(None), "no confidence reported: never doubted");
        assert!(!g.doubts(Some(&crate::Confidence::default())), "no token");
        let off = g.without(Technique::ConfidenceGate);
        assert!(!off.doubts(Some(&of(-9.0))));
    }

    #[test]
    fn none_has_every_main_switch_off() {
        let n = Guidance::none();
        for t in Technique::MAIN {
            assert!(!n.is_on(t), "{t}");
        }
        assert!(n.is_on(Technique::NoReplyPhrase) && n.is_on(Technique::EchoStop));
        assert_eq!(n.max_sentences, None);
        assert!(n.clone().with(Technique::Route).is_on(Technique::Route));
    }
}
