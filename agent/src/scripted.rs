//! A [`Model`] that plays back scripted outputs: for tests, scenarios and demos.

use std::collections::VecDeque;

use crate::model::{Generation, Message, Model, ModelError, ModelRequest, StopReason};

/// What a [`ScriptedModel`] was asked, per generation.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedRequest {
    /// The session.
    pub session: String,
    /// The system prompt.
    pub system: String,
    /// The history sent.
    pub messages: Vec<Message>,
}

/// Plays back one scripted output per generation, streamed in small pieces (so the
/// visible-text filter sees realistic fragments), and records every request.
#[derive(Debug, Clone)]
pub struct ScriptedModel {
    outputs: VecDeque<String>,
    requests: Vec<RecordedRequest>,
    piece_chars: usize,
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
        }
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
        self.requests.push(RecordedRequest {
            session: request.session.to_string(),
            system: request.system.to_string(),
            messages: request.messages.to_vec(),
        });
        let text = match request.forced_reply {
            Some(forced) => forced.to_string(),
            None => self.outputs.pop_front().ok_or_else(Self::exhausted_error)?,
        };
        let chars: Vec<char> = text.chars().collect();
        let mut produced = String::new();
        for piece in chars.chunks(self.piece_chars) {
            if request.cancel.is_cancelled() {
                return Ok(Generation {
                    text: produced,
                    stop: StopReason::Cancelled,
                    stats: None,
                });
            }
            let piece: String = piece.iter().collect();
            on_text(&piece);
            produced.push_str(&piece);
        }
        Ok(Generation {
            text: produced,
            stop: StopReason::EndOfTurn,
            stats: None,
        })
    }
}
