//! A model wrapper that slows streaming down, for deterministic cancel/close tests.

use std::time::Duration;

use porfiry_agent::{CancelToken, Generation, Model, ModelError, ModelRequest};

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

impl<M: Model> Model for PacedModel<M> {
    fn generate(
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

    fn prepare_head(
        &mut self,
        system: &str,
        messages: &[porfiry_agent::Message],
    ) -> Result<(), ModelError> {
        self.inner.prepare_head(system, messages)
    }

    fn settle(&mut self) -> Result<(), ModelError> {
        self.inner.settle()
    }

    fn prefill(&mut self, request: &ModelRequest<'_>) -> Result<(), ModelError> {
        self.inner.prefill(request)
    }
}
