//! Teacher forcing: a [`Model`] wrapper that feeds scripted replies one per generation.

use std::collections::VecDeque;

use porfiry_agent::{Generation, Model, ModelError, ModelRequest};
use porfiry_seam::ModelWrapper;

/// Something to do with the wrapped model before every request (e.g. clear the engine's KV
/// cache for the no-reuse baseline). An error fails the generation.
pub type BeforeRequest<'a, M> = Box<dyn FnMut(&mut M) -> Result<(), String> + 'a>;

/// Wraps a model so that generation `i` decodes the `i`-th scripted reply
/// ([`ModelRequest::forced_reply`]) instead of sampling. The wrapped model does the real work:
/// it renders the prompt, reuses or prefills the KV cache and decodes the forced tokens.
pub struct ForcedModel<'a, M: Model> {
    inner: M,
    replies: VecDeque<String>,
    before: Option<BeforeRequest<'a, M>>,
    served: usize,
}

impl<M: Model> std::fmt::Debug for ForcedModel<'_, M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ForcedModel")
            .field("remaining", &self.replies.len())
            .field("served", &self.served)
            .finish()
    }
}

impl<'a, M: Model> ForcedModel<'a, M> {
    /// Force `replies`, in order, through `inner`.
    pub fn new<S: Into<String>>(inner: M, replies: impl IntoIterator<Item = S>) -> Self {
        Self {
            inner,
            replies: replies.into_iter().map(Into::into).collect(),
            before: None,
            served: 0,
        }
    }

    /// Run `hook` before every request.
    pub fn before_each(mut self, hook: BeforeRequest<'a, M>) -> Self {
        self.before = Some(hook);
        self
    }

    /// Replies not used yet.
    pub fn remaining(&self) -> usize {
        self.replies.len()
    }

    /// Generations served so far.
    pub fn served(&self) -> usize {
        self.served
    }

    /// The wrapped model.
    pub fn inner(&self) -> &M {
        &self.inner
    }

    /// The wrapped model, mutably.
    pub fn inner_mut(&mut self) -> &mut M {
        &mut self.inner
    }

    /// Queue more replies after the remaining ones.
    pub fn push<S: Into<String>>(&mut self, replies: impl IntoIterator<Item = S>) {
        self.replies.extend(replies.into_iter().map(Into::into));
    }

    /// Unwrap.
    pub fn into_inner(self) -> M {
        self.inner
    }
}

impl<M: Model> ModelWrapper for ForcedModel<'_, M> {
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
        let reply = self.replies.pop_front().ok_or_else(|| {
            ModelError::failed("the forced dialogue has no reply left for this request")
        })?;
        if let Some(hook) = &mut self.before {
            hook(&mut self.inner).map_err(ModelError::failed)?;
        }
        let forced = ModelRequest {
            forced_reply: Some(&reply),
            ..*request
        };
        self.served += 1;
        self.inner.generate(&forced, on_text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use porfiry_agent::{CancelToken, Message, ScriptedModel};

    #[test]
    fn forces_each_reply_once_and_runs_the_hook_first() {
        let calls = std::cell::Cell::new(0);
        let inner = ScriptedModel::new(["never sampled"]);
        let mut m = ForcedModel::new(inner, ["a", "b"]).before_each(Box::new(|_| {
            calls.set(calls.get() + 1);
            Ok(())
        }));
        let cancel = CancelToken::new();
        let msgs = [Message::user("x")];
        let req = ModelRequest {
            session: "s",
            system: "sys",
            messages: &msgs,
            cancel: &cancel,
            forced_reply: None,
            guide: Default::default(),
            time_left: None,
        };
        let mut text = String::new();
        assert_eq!(
            m.generate(&req, &mut |p| text.push_str(p)).unwrap().text,
            "a"
        );
        assert_eq!(m.generate(&req, &mut |_| {}).unwrap().text, "b");
        assert!(matches!(
            m.generate(&req, &mut |_| {}),
            Err(e) if e.message() == "the forced dialogue has no reply left for this request"
        ));
        assert_eq!((text.as_str(), calls.get(), m.served()), ("a", 2, 2));
        assert_eq!(
            m.inner().remaining(),
            1,
            "the inner script is never consulted"
        );
    }

    #[test]
    fn a_failing_hook_fails_the_generation() {
        let mut m = ForcedModel::new(ScriptedModel::new(Vec::<String>::new()), ["a"])
            .before_each(Box::new(|_| Err("cache".into())));
        let cancel = CancelToken::new();
        let req = ModelRequest {
            session: "s",
            system: "",
            messages: &[],
            cancel: &cancel,
            forced_reply: None,
            guide: Default::default(),
            time_left: None,
        };
        assert!(matches!(m.generate(&req, &mut |_| {}), Err(e) if e.message() == "cache"));
    }
}
