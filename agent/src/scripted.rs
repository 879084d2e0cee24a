//! A [`Model`] that plays back scripted outputs: for tests, scenarios and demos.

use std::collections::VecDeque;
use std::time::Duration;

use crate::clock::ManualClock;

use crate::model::{
    CallSyntax, Confidence, ContextWindow, Generation, GenerationStats, Message, Model, ModelError,
    ModelErrorKind, ModelRequest, ReplyGuide, StopReason,
};
use porfiry_seam::first_stop;
use porfiry_seam::wire::{function_gemma, sentence_end};

/// What a [`ScriptedModel`] was asked, per generation.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedRequest {
    /// The session.
    pub session: String,
    /// The system prompt.
    pub system: String,
    /// The history sent.
    pub messages: Vec<Message>,
    /// Its size by [`ScriptedModel::tokens_of`] plus the words of its reply prefix (decoded
    /// with the prompt, as an engine does), for a model with a context
    /// ([`ScriptedModel::with_context`]); `None` otherwise.
    pub tokens: Option<usize>,
    /// The forced reply, if any.
    pub forced_reply: Option<String>,
    /// The reply's prefix, if any.
    pub prefix: Option<String>,
    /// The stop strings.
    pub stop: Vec<String>,
    /// The names of the calls the reply could make (`None`: any).
    pub calls: Option<Vec<String>>,
    /// The calls the reply could make, with their argument shapes (`None`: any).
    pub call_specs: Option<Vec<crate::model::CallSpec>>,
    /// The sentence cap.
    pub max_sentences: Option<usize>,
    /// The words the reply had to be made of, if any (not enforced: the script is played).
    pub words: Option<Vec<String>>,
    /// What was left of the turn's time budget.
    pub time_left: Option<Duration>,
}

/// Plays back one scripted output per generation, streamed in small pieces (so the
/// visible-text filter sees realistic fragments), and records every request.
///
/// It honours a request's [`crate::ReplyGuide`] the way an engine does: a forced reply is
/// played instead of the script (no output is used up), an output that does not start with
/// the prefix gets it in front, the output ends before the first stop string and after the
/// capped number of sentences (the one rule of the engine's stop scanner too,
/// [`porfiry_seam::wire::sentence_ends`]). [`ScriptedModel::with_embeddings`] lets it embed (by words).
///
/// By default its context is unbounded. [`ScriptedModel::with_context`] makes it behave like
/// an engine with a small context, counting tokens by a simple rule
/// ([`ScriptedModel::tokens_of`]): a request larger than the context fails with
/// [`ModelErrorKind::ContextFull`], and a reply stops with [`StopReason::MaxTokens`] at the
/// reply limit or where the context is full (cut to whole words).
#[derive(Debug, Clone)]
pub struct ScriptedModel {
    outputs: VecDeque<String>,
    requests: Vec<RecordedRequest>,
    piece_chars: usize,
    context: Option<ContextWindow>,
    embeddings: bool,
    /// [`ScriptedModel::taking`]: the clock each generation moves and by how much.
    takes: Option<(ManualClock, Duration)>,
    /// [`ScriptedModel::with_call_syntax`].
    syntax: CallSyntax,
    /// [`ScriptedModel::with_confidences`]: the mean log-probability each scripted output
    /// reports, in order.
    confidences: VecDeque<f64>,
}

impl ScriptedModel {
    /// The error a scripted model reports when it has no output left for a generation.
    pub fn exhausted_error() -> ModelError {
        ModelError::failed("scripted model has no output left for this generation")
    }

    /// A model that will answer with `outputs`, in order.
    pub fn new<S: Into<String>>(outputs: impl IntoIterator<Item = S>) -> Self {
        ScriptedModel {
            outputs: outputs.into_iter().map(Into::into).collect(),
            requests: Vec::new(),
            piece_chars: 3,
            context: None,
            embeddings: false,
            takes: None,
            syntax: CallSyntax::ToolCallLine,
            confidences: VecDeque::new(),
        }
    }

    /// Answer [`Model::call_syntax`] with `syntax` (default [`CallSyntax::ToolCallLine`]),
    /// as an engine of that chat format does. With [`CallSyntax::FunctionGemma`] an output
    /// also ends before `<start_function_response>`, that format's own stop.
    pub fn with_call_syntax(mut self, syntax: CallSyntax) -> Self {
        self.syntax = syntax;
        self
    }

    /// Report a [`Confidence`] with each scripted output, in order: the output's mean token
    /// log-probability is the next of `mean_logprobs` (every word of it one token of that
    /// log-probability). Outputs beyond the list, and forced replies, report none
    /// ([`Generation::confidence`] `None`), as by default.
    pub fn with_confidences(mut self, mean_logprobs: impl IntoIterator<Item = f64>) -> Self {
        self.confidences = mean_logprobs.into_iter().collect();
        self
    }

    /// Let the model embed texts ([`Model::embed`]): a bag of the first five letters of
    /// each word, hashed into 64 dimensions — texts sharing word stems are near. For tests
    /// of routing mechanics.
    pub fn with_embeddings(mut self) -> Self {
        self.embeddings = true;
        self
    }

    /// The embedding [`ScriptedModel::with_embeddings`] gives `text` (unit length, or zero
    /// for a text without words).
    pub fn embedding_of(text: &str) -> Vec<f32> {
        let mut v = vec![0.0f32; 64];
        for word in text
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
        {
            let stem: String = word.to_lowercase().chars().take(5).collect();
            let hash = stem.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
                (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
            });
            v[(hash % 64) as usize] += 1.0;
        }
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        if norm > 0.0 {
            v.iter_mut().for_each(|x| *x /= norm);
        }
        v
    }

    /// Behave like an engine whose context holds `tokens` tokens (prompt and reply) and
    /// whose replies take at most `reply_tokens`, counted by [`ScriptedModel::tokens_of`]
    /// (a reply: one token per word). The model then reports both
    /// ([`Model::context_window`], [`Model::count_tokens`]) and its generations carry stats.
    pub fn with_context(mut self, tokens: usize, reply_tokens: usize) -> Self {
        self.context = Some(ContextWindow {
            tokens,
            reply_tokens,
        });
        self
    }

    /// The scripted model's token count of a request: one token per whitespace-separated
    /// word of each message's text plus 4 for its framing, the system text counted as a
    /// message.
    pub fn tokens_of(system: &str, messages: &[Message]) -> usize {
        let count = |text: &str| text.split_whitespace().count() + 4;
        count(system) + messages.iter().map(|m| count(&m.content)).sum::<usize>()
    }

    /// The error a scripted model with a context reports for a request that does not fit
    /// (its message begins with `scripted model:`).
    pub fn context_full_error(tokens: usize, context: usize) -> ModelError {
        ModelError::new(
            ModelErrorKind::ContextFull,
            format!(
                "scripted model: prompt of {tokens} tokens does not fit the context of {context}"
            ),
        )
    }

    /// Every generation takes `each` on `clock` (moved forward by it): a request whose
    /// [`ModelRequest::time_left`] is shorter gets only the share of its output that fits,
    /// the clock moved by what was left, and stops with [`StopReason::Deadline`] — as an
    /// engine stops at a generation deadline.
    pub fn taking(mut self, clock: ManualClock, each: Duration) -> Self {
        self.takes = Some((clock, each));
        self
    }

    /// Stream outputs in pieces of this many characters (at least 1; default 3).
    pub fn with_piece_chars(mut self, n: usize) -> Self {
        self.piece_chars = n.max(1);
        self
    }

    /// Add outputs at the end of the script.
    pub fn push<S: Into<String>>(&mut self, outputs: impl IntoIterator<Item = S>) {
        self.outputs.extend(outputs.into_iter().map(Into::into));
    }

    /// How many outputs are left.
    pub fn remaining(&self) -> usize {
        self.outputs.len()
    }

    /// Every request so far, oldest first.
    pub fn requests(&self) -> &[RecordedRequest] {
        &self.requests
    }
}

impl Model for ScriptedModel {
    fn generate(
        &mut self,
        request: &ModelRequest<'_>,
        on_text: &mut dyn FnMut(&str),
    ) -> Result<Generation, ModelError> {
        // The reply prefix is decoded with the prompt, as an engine does: it takes context.
        let prefix_words = request
            .guide
            .prefix
            .map_or(0, |p| p.split_whitespace().count());
        let tokens = self
            .context
            .map(|_| Self::tokens_of(request.system, request.messages) + prefix_words);
        self.requests.push(RecordedRequest {
            session: request.session.to_string(),
            system: request.system.to_string(),
            messages: request.messages.to_vec(),
            tokens,
            forced_reply: request.forced_reply.map(str::to_owned),
            prefix: request.guide.prefix.map(str::to_owned),
            stop: request.guide.stop.to_vec(),
            calls: request
                .guide
                .calls
                .map(|c| c.iter().map(|c| c.name.clone()).collect()),
            call_specs: request.guide.calls.map(<[_]>::to_vec),
            max_sentences: request.guide.max_sentences,
            words: request.guide.words.map(<[String]>::to_vec),
            time_left: request.time_left,
        });
        // The reply's room: what the context leaves, at most the reply limit.
        let room = match (self.context, tokens) {
            (Some(window), Some(tokens)) if tokens > window.tokens => {
                return Err(Self::context_full_error(tokens, window.tokens));
            }
            (Some(window), Some(tokens)) => Some(window.reply_tokens.min(window.tokens - tokens)),
            _ => None,
        };
        let mut mean_logprob = None;
        let text = match request.forced_reply {
            Some(forced) => forced.to_string(),
            None => {
                let out = self.outputs.pop_front().ok_or_else(Self::exhausted_error)?;
                mean_logprob = self.confidences.pop_front();
                let mut text = shaped(out, &request.guide);
                if self.syntax == CallSyntax::FunctionGemma {
                    let prefix = request.guide.prefix.map_or(0, str::len);
                    if let Some(cut) = first_stop(&text, prefix, function_gemma::RESPONSE_START) {
                        text.truncate(cut);
                    }
                }
                text
            }
        };
        let (text, mut stop) = match room {
            Some(room) => match first_words(&text, room) {
                Some(cut) => (cut.to_string(), StopReason::MaxTokens),
                None => (text, StopReason::EndOfTurn),
            },
            None => (text, StopReason::EndOfTurn),
        };
        let mut chars: Vec<char> = text.chars().collect();
        if let Some((clock, each)) = &self.takes {
            match request.time_left {
                Some(left) if left < *each => {
                    let share = left.as_secs_f64() / each.as_secs_f64().max(f64::MIN_POSITIVE);
                    chars.truncate((chars.len() as f64 * share) as usize);
                    clock.advance(left);
                    stop = StopReason::Deadline;
                }
                _ => clock.advance(*each),
            }
        }
        let mut produced = String::new();
        for piece in chars.chunks(self.piece_chars) {
            if request.cancel.is_cancelled() {
                stop = StopReason::Cancelled;
                break;
            }
            let piece: String = piece.iter().collect();
            on_text(&piece);
            produced.push_str(&piece);
        }
        let stats = tokens.map(|prompt| GenerationStats {
            prompt_tokens: prompt,
            prefilled_tokens: prompt,
            generated_tokens: produced.split_whitespace().count(),
            ..GenerationStats::default()
        });
        // One token per word, each of the scripted mean log-probability.
        let words = produced.split_whitespace().count().max(1);
        let confidence = mean_logprob.map(|l| Confidence::of(std::iter::repeat_n(l, words)));
        Ok(Generation {
            text: produced,
            stop,
            stats,
            confidence,
        })
    }

    fn context_window(&self) -> Option<ContextWindow> {
        self.context
    }

    fn count_tokens(&mut self, system: &str, messages: &[Message]) -> Option<usize> {
        self.context.map(|_| Self::tokens_of(system, messages))
    }

    fn embed(&mut self, texts: &[&str]) -> Result<Option<Vec<Vec<f32>>>, ModelError> {
        Ok(self
            .embeddings
            .then(|| texts.iter().map(|t| Self::embedding_of(t)).collect()))
    }

    fn call_syntax(&self) -> CallSyntax {
        self.syntax
    }
}

/// A scripted output as an engine would produce it under `guide`: the prefix in front
/// (unless the output has it), cut before the first stop string found after the prefix
/// (the engine's rule, [`first_stop`]), and after the capped sentences.
fn shaped(output: String, guide: &ReplyGuide<'_>) -> String {
    let prefix = guide.prefix.unwrap_or_default();
    let mut text = if output.starts_with(prefix) {
        output
    } else {
        format!("{prefix}{output}")
    };
    let cut = guide
        .stop
        .iter()
        .filter(|s| !s.is_empty())
        .filter_map(|s| first_stop(&text, prefix.len(), s))
        .min();
    if let Some(cut) = cut {
        text.truncate(cut);
    }
    if let Some(end) = guide.max_sentences.and_then(|n| sentence_end(&text, n)) {
        text.truncate(end);
    }
    text
}

/// `text` up to the end of its `n`-th word, when it has more than `n` words.
fn first_words(text: &str, n: usize) -> Option<&str> {
    let mut words = 0;
    let mut in_word = false;
    for (at, c) in text.char_indices() {
        if c.is_whitespace() {
            in_word = false;
        } else if !in_word {
            if words == n {
                return Some(text[..at].trim_end());
            }
            words += 1;
            in_word = true;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::CancelToken;

    fn ask(model: &mut ScriptedModel, messages: &[Message]) -> Result<Generation, ModelError> {
        let cancel = CancelToken::new();
        let request = ModelRequest {
            session: "s",
            system: "one two three",
            messages,
            cancel: &cancel,
            forced_reply: None,
            guide: Default::default(),
            time_left: None,
        };
        model.generate(&request, &mut |_| {})
    }

    #[test]
    fn tokens_are_words_plus_four_per_message_system_included() {
        assert_eq!(ScriptedModel::tokens_of("", &[]), 4);
        assert_eq!(
            ScriptedModel::tokens_of("a b", &[Message::user(" x  y\nz "), Message::tool("t", "")]),
            (2 + 4) + (3 + 4) + 4
        );
        let mut m = ScriptedModel::new(["x"]);
        assert_eq!((m.context_window(), m.count_tokens("a", &[])), (None, None));
        let mut m = m.with_context(100, 10);
        assert_eq!(m.count_tokens("a", &[]), Some(5));
        assert_eq!(
            m.context_window(),
            Some(ContextWindow {
                tokens: 100,
                reply_tokens: 10
            })
        );
    }

    #[test]
    fn a_bounded_model_refuses_what_does_not_fit_and_stops_replies_at_its_edge() {
        // The request: 3 + 4 (system) + 2 + 4 = 13 tokens.
        let msgs = [Message::user("hello there")];
        let mut m = ScriptedModel::new(["w1 w2 w3 w4 w5"]).with_context(12, 10);
        let e = ask(&mut m, &msgs).unwrap_err();
        assert_eq!(e.kind(), ModelErrorKind::ContextFull);
        assert!(
            e.to_string()
                .contains("scripted model: prompt of 13 tokens"),
            "{e}"
        );
        assert_eq!((m.remaining(), m.requests()[0].tokens), (1, Some(13)));
        // 16 - 13 = 3 tokens of room.
        let mut m = m.with_context(16, 10);
        let g = ask(&mut m, &msgs).unwrap();
        assert_eq!(
            (g.text.as_str(), g.stop),
            ("w1 w2 w3", StopReason::MaxTokens)
        );
        let stats = g.stats.unwrap();
        assert_eq!((stats.prompt_tokens, stats.generated_tokens), (13, 3));
        // The reply limit.
        let mut m = ScriptedModel::new(["w1  w2\nw3"]).with_context(100, 2);
        let g = ask(&mut m, &msgs).unwrap();
        assert_eq!((g.text.as_str(), g.stop), ("w1  w2", StopReason::MaxTokens));
        // Room enough: the whole reply.
        let mut m = ScriptedModel::new(["w1 w2 "]).with_context(100, 2);
        let g = ask(&mut m, &msgs).unwrap();
        assert_eq!((g.text.as_str(), g.stop), ("w1 w2 ", StopReason::EndOfTurn));
    }
}
