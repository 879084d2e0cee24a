//! What llama.cpp's abort callback checks while a request is served.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// What llama.cpp's abort callback checks after every graph node: the engine's close (every
/// decode of a closing engine stops, whatever it serves), and the cancel flag and the
/// deadline of the request being served — a generation or an embedding. Idle-time work and
/// head builds are not armed: they run to the end of their batch (their tokens are normally
/// the next request's own prefix, so stopping them midway would only throw work away), unless
/// the engine closes.
#[derive(Debug, Default)]
pub(crate) struct Watch {
    armed: Mutex<Option<Armed>>,
    /// Set when the engine's handle is dropped ([`crate::Engine`]'s `Drop`).
    closing: Arc<AtomicBool>,
}

#[derive(Debug)]
struct Armed {
    cancel: Arc<AtomicBool>,
    deadline: Option<Instant>,
}

impl Watch {
    /// A watch that also stops every decode once `closing` is set.
    pub(super) fn new(closing: Arc<AtomicBool>) -> Self {
        Self {
            armed: Mutex::new(None),
            closing,
        }
    }

    /// Whether the engine is closing.
    pub(super) fn closing(&self) -> bool {
        self.closing.load(Ordering::Relaxed)
    }

    /// Whether llama.cpp should stop the computation in flight. Called from llama.cpp's
    /// computing thread; never blocks for long (the lock is only taken to arm and disarm,
    /// between decodes).
    pub(crate) fn should_abort(&self) -> bool {
        if self.closing() {
            return true;
        }
        let armed = self.armed.lock().unwrap_or_else(|p| p.into_inner());
        armed.as_ref().is_some_and(|a| {
            a.cancel.load(Ordering::Relaxed) || a.deadline.is_some_and(|d| Instant::now() >= d)
        })
    }

    /// Watch `cancel` and `deadline` until the guard is dropped.
    pub(super) fn arm(&self, cancel: Arc<AtomicBool>, deadline: Option<Instant>) -> Disarm<'_> {
        *self.armed.lock().unwrap_or_else(|p| p.into_inner()) = Some(Armed { cancel, deadline });
        Disarm(self)
    }
}

/// Disarms the [`Watch`] when dropped (every way out of a generation).
pub(super) struct Disarm<'a>(&'a Watch);

impl Drop for Disarm<'_> {
    fn drop(&mut self) {
        *self.0.armed.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn only_an_armed_watch_aborts_and_only_for_its_request() {
        let watch = Watch::default();
        assert!(!watch.should_abort(), "nothing armed: idle work runs on");
        let cancel = Arc::new(AtomicBool::new(false));
        {
            let _armed = watch.arm(cancel.clone(), None);
            assert!(!watch.should_abort());
            cancel.store(true, Ordering::Relaxed);
            assert!(watch.should_abort());
        }
        assert!(!watch.should_abort(), "disarmed when the guard is dropped");
    }

    #[test]
    fn a_closing_engine_stops_every_decode_armed_or_not() {
        let closing = Arc::new(AtomicBool::new(false));
        let watch = Watch::new(closing.clone());
        assert!(!watch.should_abort());
        closing.store(true, Ordering::Relaxed);
        assert!(watch.should_abort(), "idle work and head builds stop too");
        let _armed = watch.arm(Arc::new(AtomicBool::new(false)), None);
        assert!(watch.should_abort());
    }

    #[test]
    fn a_passed_deadline_aborts() {
        let watch = Watch::default();
        let cancel = Arc::new(AtomicBool::new(false));
        let past = Instant::now() - Duration::from_millis(1);
        let armed = watch.arm(cancel.clone(), Some(past));
        assert!(watch.should_abort());
        drop(armed);
        let _armed = watch.arm(cancel, Some(Instant::now() + Duration::from_secs(3600)));
        assert!(!watch.should_abort());
    }
}
