//! [`Paced`]: a model whose text streams slowly, so tests of cancel, close and barge-in see
//! a turn that is still running when they act on it.

use std::time::{Duration, Instant};

use crate::{CancelToken, Generation, Model, ModelError, ModelRequest, ModelWrapper};

/// How often a paced model looks at the cancel token while it waits.
const CANCEL_CHECK: Duration = Duration::from_millis(2);

/// Wraps a model and waits `delay` before passing on each text piece of its generation.
/// The wait ends early when the request's cancel token is set (it is checked every few
/// milliseconds), so a cancelled turn stops as promptly as on the engine, which checks per
/// token. Every hint goes to the inner model unchanged ([`ModelWrapper`]).
///
/// For deterministic tests of what happens while a reply streams (the bridge's scripted
/// model of `createScripted`, the runtime's service and stability tests).
#[derive(Debug, Clone)]
pub struct Paced<M> {
    inner: M,
    delay: Duration,
}

impl<M> Paced<M> {
    /// `inner`, with each piece it streams held back `delay`.
    pub fn new(inner: M, delay: Duration) -> Self {
        Self { inner, delay }
    }

    /// The wrapped model back.
    pub fn into_inner(self) -> M {
        self.inner
    }
}

/// Sleeps `total` unless `cancel` is set, checking it every [`CANCEL_CHECK`].
fn sleep_unless_cancelled(total: Duration, cancel: &CancelToken) {
    let until = Instant::now() + total;
    loop {
        let now = Instant::now();
        if now >= until || cancel.is_cancelled() {
            return;
        }
        std::thread::sleep((until - now).min(CANCEL_CHECK));
    }
}

impl<M: Model> ModelWrapper for Paced<M> {
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
    use crate::{Message, StopReason};

    /// Streams three pieces and cancels its own request after the first.
    struct ThreePieces;

    impl Model for ThreePieces {
        fn generate(
            &mut self,
            request: &ModelRequest<'_>,
            on_text: &mut dyn FnMut(&str),
        ) -> Result<Generation, ModelError> {
            for (i, piece) in ["a", "b", "c"].into_iter().enumerate() {
                on_text(piece);
                if i == 0 {
                    request.cancel.cancel();
                }
            }
            Ok(Generation {
                text: "abc".into(),
                stop: StopReason::EndOfTurn,
                stats: None,
                confidence: None,
            })
        }

        fn context_window(&self) -> Option<crate::ContextWindow> {
            Some(crate::ContextWindow {
                tokens: 64,
                reply_tokens: 8,
            })
        }
    }

    fn request<'a>(messages: &'a [Message], cancel: &'a CancelToken) -> ModelRequest<'a> {
        ModelRequest {
            session: "s",
            system: "",
            messages,
            cancel,
            forced_reply: None,
            guide: Default::default(),
            time_left: None,
        }
    }

    #[test]
    fn pieces_wait_their_delay_until_the_request_is_cancelled() {
        let messages = [Message::user("x")];
        let cancel = CancelToken::new();
        let mut paced = Paced::new(ThreePieces, Duration::from_millis(300));
        let started = Instant::now();
        let mut pieces = Vec::new();
        let g = paced
            .generate(&request(&messages, &cancel), &mut |p| {
                pieces.push(p.to_string())
            })
            .unwrap();
        let took = started.elapsed();
        assert_eq!((g.text.as_str(), pieces.concat().as_str()), ("abc", "abc"));
        // The first piece waited its delay; after the cancel the others did not.
        assert!(took >= Duration::from_millis(300), "{took:?}");
        assert!(took < Duration::from_millis(550), "{took:?}");
        assert_eq!(
            paced.context_window(),
            ThreePieces.context_window(),
            "hints reach the inner model"
        );
    }
}
