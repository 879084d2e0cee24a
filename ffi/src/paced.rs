//! The scripted model of `createScripted`: [`Script`] plays the Java side's outputs,
//! [`PacedModel`] slows their streaming down so cancel/close tests are deterministic.

use std::collections::VecDeque;
use std::time::Duration;

use porfiry_agent::{CancelToken, Generation, Model, ModelError, ModelRequest, ScriptedModel};
use porfiry_model::ModelWrapper;

/// In a script output, replaced by the number of messages the request carried, so a test can
/// see from the reply how much history the model was sent (e.g. none after `endSession`).
pub(crate) const MESSAGES_PLACEHOLDER: &str = "{{messages}}";

/// Plays one scripted output per generation (streamed in small pieces, like
/// [`ScriptedModel`]), with [`MESSAGES_PLACEHOLDER`] expanded.
pub(crate) struct Script {
    outputs: VecDeque<String>,
}

impl Script {
    pub(crate) fn new(outputs: Vec<String>) -> Self {
        Self {
            outputs: outputs.into(),
        }
    }
}

impl Model for Script {
    fn generate(
        &mut self,
        request: &ModelRequest<'_>,
        on_text: &mut dyn FnMut(&str),
    ) -> Result<Generation, ModelError> {
        if request.forced_reply.is_some() {
            return ScriptedModel::new(Vec::<String>::new()).generate(request, on_text);
        }
        let next = self
            .outputs
            .pop_front()
            .ok_or_else(ScriptedModel::exhausted_error)?;
        let text = next.replace(MESSAGES_PLACEHOLDER, &request.messages.len().to_string());
        ScriptedModel::new([text]).generate(request, on_text)
    }
}

/// Wraps a model and sleeps `delay` before passing on each text piece (in short slices,
/// so a cancel is noticed within a few milliseconds).
pub(crate) struct PacedModel<M> {
    inner: M,
    delay: Duration,
}

impl<M> PacedModel<M> {
    pub(crate) fn new(inner: M, delay: Duration) -> Self {
        Self { inner, delay }
    }
}

fn sleep_unless_cancelled(total: Duration, cancel: &CancelToken) {
    let slice = Duration::from_millis(5);
    let mut left = total;
    while !left.is_zero() && !cancel.is_cancelled() {
        let step = left.min(slice);
        std::thread::sleep(step);
        left -= step;
    }
}

impl<M: Model> ModelWrapper for PacedModel<M> {
    type Inner = M;

    fn inner(&self) -> &M {
        &self.inner
    }

    fn inner_mut(&mut self) -> &mut M {
        &mut self.inner
    }

    fn wrapped_generate(
        &mut self,
        request: &ModelRequest<'_>,
        on_text: &mut dyn FnMut(&str),
    ) -> Result<Generation, ModelError> {
        let delay = self.delay;
        let cancel = request.cancel.clone();
        self.inner.generate(request, &mut |piece| {
            sleep_unless_cancelled(delay, &cancel);
            on_text(piece);
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use porfiry_agent::Message;

    #[test]
    fn the_placeholder_counts_the_request_messages() {
        let mut m = Script::new(vec!["сообщений: {{messages}}".into(), "ещё".into()]);
        let cancel = CancelToken::new();
        let messages = [
            Message::user("a"),
            Message::assistant("b"),
            Message::user("c"),
        ];
        let request = ModelRequest {
            session: "s",
            system: "",
            messages: &messages,
            cancel: &cancel,
            forced_reply: None,
            guide: Default::default(),
            time_left: None,
        };
        let mut streamed = String::new();
        let g = m.generate(&request, &mut |p| streamed.push_str(p)).unwrap();
        assert_eq!(g.text, "сообщений: 3");
        assert_eq!(streamed, g.text);
        assert_eq!(m.generate(&request, &mut |_| {}).unwrap().text, "ещё");
        assert!(m.generate(&request, &mut |_| {}).is_err(), "exhausted");
    }
}
