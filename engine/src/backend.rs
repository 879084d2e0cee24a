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
//!
//! And the abort hook ([`set_abort_check`]): llama.cpp's `llama_set_abort_callback`, which
//! llama-cpp-2 0.1.160 does not wrap. ggml's CPU backend calls it after every graph node;
//! when it returns true the computation stops, `llama_decode` returns 2 and the positions
//! of the ubatch it was computing are removed from the cache (ubatches finished before stay).

use std::ffi::c_void;
use std::os::raw::c_int;
use std::sync::{Once, OnceLock, RwLock, RwLockReadGuard};

use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::llama_backend::LlamaBackend;

use crate::error::EngineError;

static BACKEND: OnceLock<Result<LlamaBackend, String>> = OnceLock::new();

static COMPUTE: RwLock<()> = RwLock::new(());

extern "C" {
    fn atexit(callback: extern "C" fn()) -> c_int;
    // llama.cpp (linked by llama-cpp-sys-2); `ctx` is a `llama_context *`.
    fn llama_set_abort_callback(
        ctx: *mut c_void,
        callback: Option<unsafe extern "C" fn(*mut c_void) -> bool>,
        data: *mut c_void,
    );
    fn llama_n_ctx(ctx: *const c_void) -> u32;
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

/// The return code of `llama_decode` when the abort callback stopped it.
pub(crate) const DECODE_ABORTED: c_int = 2;

/// Make `check` llama.cpp's abort callback for `ctx`: polled after every graph node of every
/// computation of `ctx`, a `true` stops it (see the module documentation). Returns false,
/// installing nothing, when the context's pointer cannot be found.
///
/// llama-cpp-2 0.1.160 gives no access to the `llama_context` pointer, but its `Debug`
/// output prints it (`LlamaContext { context: 0x… }`); the address read there is accepted
/// only when llama.cpp reports the same context size for it as the wrapper does.
///
/// # Safety
/// `check` must stay alive, at the same address, until `ctx` is dropped: llama.cpp keeps the
/// pointer and calls it from the threads that compute.
pub(crate) unsafe fn set_abort_check<F: Fn() -> bool + Sync>(
    ctx: &LlamaContext<'_>,
    check: &F,
) -> bool {
    let Some(ptr) = pointer_in_debug(&format!("{ctx:?}")) else {
        return false;
    };
    let ptr = ptr as *mut c_void;
    // SAFETY: `ptr` is the context's own pointer as llama-cpp-2 prints it; llama_n_ctx only
    // reads a field of it.
    if unsafe { llama_n_ctx(ptr) } != ctx.n_ctx() {
        return false;
    }
    // SAFETY: as above; `check` outlives the context (the caller's contract), and
    // `trampoline::<F>` reads it only as `&F`, which is `Sync`.
    unsafe {
        llama_set_abort_callback(ptr, Some(trampoline::<F>), check as *const F as *mut c_void);
    }
    true
}

/// The C callback: calls the check; a panic (which must not cross into C) counts as
/// "abort".
unsafe extern "C" fn trampoline<F: Fn() -> bool + Sync>(data: *mut c_void) -> bool {
    // SAFETY: `data` is the `&F` given to `set_abort_check`, alive per its contract.
    let check = unsafe { &*(data as *const F) };
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(check)).unwrap_or(true)
}

/// The first `0x…` address in a `Debug` text.
fn pointer_in_debug(text: &str) -> Option<usize> {
    let (_, rest) = text.split_once("0x")?;
    let end = rest
        .find(|c: char| !c.is_ascii_hexdigit())
        .unwrap_or(rest.len());
    usize::from_str_radix(&rest[..end], 16)
        .ok()
        .filter(|p| *p != 0)
}

#[cfg(test)]
mod tests {
    use super::pointer_in_debug;

    #[test]
    fn reads_the_address_llama_cpp_2_prints() {
        assert_eq!(
            pointer_in_debug("LlamaContext { context: 0x55d0c0a1b2c0 }"),
            Some(0x55d0_c0a1_b2c0)
        );
        assert_eq!(pointer_in_debug("LlamaContext { context: 0x }"), None);
        assert_eq!(pointer_in_debug("LlamaContext { context: 0x0 }"), None);
        assert_eq!(pointer_in_debug("LlamaContext"), None);
    }
}
