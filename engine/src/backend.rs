//! The process-wide llama.cpp backend.
//!
//! llama.cpp's backend is initialised once per process (a second `LlamaBackend::init` fails),
//! so the engine owns it here and every model load goes through [`backend`]. Hosts must not
//! initialise it themselves. llama.cpp's own logging is routed into `tracing` (silent unless
//! the host installs a subscriber).
//!
//! It also owns the exit gate: every llama.cpp call that computes (a decode) or moves KV state
//! runs under [`compute_guard`]. When the process exits (`main` returns, `exit` is called),
//! a hook registered with `atexit` takes the gate exclusively and keeps it: it waits for the
//! call in flight, and any later call blocks until the process is gone. So no worker thread is
//! inside llama.cpp while its static destructors run — a worker decoding in the background
//! (idle-time work) when the process exits would otherwise crash it (measured: SIGSEGV in
//! `ggml_cpu_extra_compute_forward` on a destroyed buffer-type table). Exit handlers run in
//! the reverse order of registration, and llama.cpp registers the destructors of its
//! function-local statics when they are first used — during the first decode — so the hook
//! is registered after the first decode ([`register_exit_gate`]).

use std::os::raw::c_int;
use std::sync::{Once, OnceLock, RwLock, RwLockReadGuard};

use llama_cpp_2::llama_backend::LlamaBackend;

use crate::error::EngineError;

static BACKEND: OnceLock<Result<LlamaBackend, String>> = OnceLock::new();

static COMPUTE: RwLock<()> = RwLock::new(());

extern "C" {
    fn atexit(callback: extern "C" fn()) -> c_int;
}

/// Runs at process exit, before the static destructors of llama.cpp (registered earlier, at
/// load time, hence run later).
extern "C" fn close_gate() {
    std::mem::forget(COMPUTE.write().unwrap_or_else(|p| p.into_inner()));
}

/// Register the exit hook (once per process). Call after a decode has run.
pub(crate) fn register_exit_gate() {
    static REGISTERED: Once = Once::new();
    REGISTERED.call_once(|| {
        // SAFETY: registers a plain function with no captured state; `atexit` only fails
        // when its table is full, and then the process merely lacks the gate.
        unsafe {
            atexit(close_gate);
        }
    });
}

/// Hold this around every llama.cpp call that computes or moves KV state (see the module
/// documentation). Never taken by a thread that may call `exit`.
pub(crate) fn compute_guard() -> RwLockReadGuard<'static, ()> {
    COMPUTE.read().unwrap_or_else(|p| p.into_inner())
}

/// The shared backend, initialised on first use.
pub fn backend() -> Result<&'static LlamaBackend, EngineError> {
    BACKEND
        .get_or_init(|| {
            llama_cpp_2::send_logs_to_tracing(llama_cpp_2::LogOptions::default());
            LlamaBackend::init().map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(|e| EngineError::Backend(e.clone()))
}
