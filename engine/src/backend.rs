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
//! llama.cpp reports such a stop with error lines ("failed to compute graph", "failed to
//! decode, ret = 2"); an abort is the engine's own doing, so the lines logged while it is
//! under way are passed on at debug level instead ([`end_of_abort`] closes the window).

use std::ffi::c_void;
use std::os::raw::{c_char, c_int};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, Ordering};
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
    fn llama_get_memory(ctx: *const c_void) -> *mut c_void;
    fn llama_memory_can_shift(mem: *mut c_void) -> bool;
    fn llama_log_get(callback: *mut Option<LogCallback>, data: *mut *mut c_void);
    fn llama_log_set(callback: Option<LogCallback>, data: *mut c_void);
}

/// `ggml_log_callback`.
type LogCallback = unsafe extern "C" fn(level: c_int, text: *const c_char, data: *mut c_void);

/// `GGML_LOG_LEVEL_DEBUG`, `_WARN`, `_ERROR`.
const LOG_DEBUG: c_int = 1;
const LOG_WARN: c_int = 3;
const LOG_ERROR: c_int = 4;

/// The log callback llama-cpp-2 installed (into `tracing`), and its data.
static LOGS: OnceLock<(LogCallback, usize)> = OnceLock::new();

/// Set while an abort the engine asked for is under way.
static ABORTING: AtomicBool = AtomicBool::new(false);

/// Forwards llama.cpp's lines to llama-cpp-2's callback; warnings and errors logged while an
/// abort is under way go at debug level.
unsafe extern "C" fn quiet_aborts(level: c_int, text: *const c_char, _: *mut c_void) {
    let Some((callback, data)) = LOGS.get() else {
        return;
    };
    let level = if ABORTING.load(Ordering::Relaxed) && (level == LOG_WARN || level == LOG_ERROR) {
        LOG_DEBUG
    } else {
        level
    };
    // SAFETY: the callback and data llama.cpp held before `quiet_aborts` replaced them.
    unsafe { callback(level, text, *data as *mut c_void) }
}

/// Route llama.cpp's lines through [`quiet_aborts`] (once, after llama-cpp-2 set its own).
fn install_quiet_aborts() {
    let mut callback: Option<LogCallback> = None;
    let mut data: *mut c_void = std::ptr::null_mut();
    // SAFETY: llama_log_get writes the current callback and data into the two out pointers.
    unsafe { llama_log_get(&mut callback, &mut data) };
    let Some(callback) = callback else {
        return;
    };
    if LOGS.set((callback, data as usize)).is_ok() {
        // SAFETY: `quiet_aborts` forwards to the callback read above, with its data.
        unsafe { llama_log_set(Some(quiet_aborts), std::ptr::null_mut()) };
    }
}

/// The abort the engine asked for is over (the decode returned): llama.cpp's warnings and
/// errors are passed on at their own level again.
pub(crate) fn end_of_abort() {
    ABORTING.store(false, Ordering::Relaxed);
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
            install_quiet_aborts();
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
/// The context's pointer comes from [`context_pointer`].
///
/// # Safety
/// `check` must stay alive, at the same address, until `ctx` is dropped: llama.cpp keeps the
/// pointer and calls it from the threads that compute.
pub(crate) unsafe fn set_abort_check<F: Fn() -> bool + Sync>(
    ctx: &LlamaContext<'_>,
    check: &F,
) -> bool {
    let Some(ptr) = context_pointer(ctx) else {
        return false;
    };
    // SAFETY: `ptr` is the context's own pointer; `check` outlives the context (the
    // caller's contract), and `trampoline::<F>` reads it only as `&F`, which is `Sync`.
    unsafe {
        llama_set_abort_callback(ptr, Some(trampoline::<F>), check as *const F as *mut c_void);
    }
    true
}

/// Turn `ctx`'s embeddings output on or off (`llama_set_embeddings`, which llama-cpp-2
/// does not wrap). With it on, llama.cpp outputs every token of a decode — the output layer
/// (262,144 logits a token for Gemma) included — so a caller that needs one token's state
/// decodes the rest with it off. Returns false, changing nothing, when the context's
/// pointer cannot be found ([`context_pointer`]).
pub(crate) fn set_embeddings(ctx: &LlamaContext<'_>, on: bool) -> bool {
    let Some(ptr) = context_pointer(ctx) else {
        return false;
    };
    // SAFETY: `ptr` is the context's own pointer; the call sets one flag of the context.
    unsafe { llama_cpp_sys_2::llama_set_embeddings(ptr.cast(), on) };
    true
}

/// How long a pool thread polls for the next graph before it sleeps (ggml's level, 0–100;
/// its default 50 is about 6.5 million rounds): 0, sleep at once. A thread the chooser left
/// out of a graph (`crate::threads`) or one between tokens would otherwise spin beside the
/// threads that compute — on a busy phone, on the same cores. Waking a sleeping thread costs
/// a futex call per graph (one per token), nothing next to a token's compute.
const POOL_POLL: u32 = 0;

/// ggml's persistent CPU thread pools, attached to one context ([`ThreadPools::attach`]).
///
/// Without them (llama-cpp-2 0.1.160 does not attach any) ggml starts the compute threads
/// for every graph — every decoded token — and joins them at its end. llama-bench and
/// llama-server attach a pool whose threads stay and poll for the next graph (`poll` 50,
/// llama.cpp's default) before they sleep; ours stay and sleep at once ([`POOL_POLL`]). A second pool for batches
/// (prefill) is made only when its thread count differs from the decode pool's.
pub(crate) struct ThreadPools {
    decode: NonNull<llama_cpp_sys_2::ggml_threadpool>,
    batch: Option<NonNull<llama_cpp_sys_2::ggml_threadpool>>,
}

impl ThreadPools {
    /// Pools of `decode` threads (one-token batches) and `batch` threads (prefill); `None`
    /// when ggml could not start them (the context then starts threads per graph).
    pub(crate) fn new(decode: u32, batch: u32) -> Option<Self> {
        let make = |n: u32| {
            // SAFETY: the params are initialised by ggml for `n` threads (all CPUs allowed,
            // normal priority), poll set to 0; ggml_threadpool_new reads them and returns an
            // owned pool or null.
            unsafe {
                let mut p = llama_cpp_sys_2::ggml_threadpool_params_default(n.max(1) as c_int);
                p.poll = POOL_POLL;
                NonNull::new(llama_cpp_sys_2::ggml_threadpool_new(&mut p))
            }
        };
        let decode_pool = make(decode)?;
        let batch = if batch == decode {
            None
        } else {
            Some(make(batch)?)
        };
        Some(Self {
            decode: decode_pool,
            batch,
        })
    }

    /// Make llama.cpp compute `ctx`'s graphs on these pools. Returns false, attaching
    /// nothing, when the context's pointer cannot be found ([`context_pointer`]).
    ///
    /// # Safety
    /// The pools must outlive every computation of `ctx`: drop `ctx` first.
    pub(crate) unsafe fn attach(&self, ctx: &LlamaContext<'_>) -> bool {
        let Some(ptr) = context_pointer(ctx) else {
            return false;
        };
        // SAFETY: `ptr` is the context's own pointer; attaching only stores the two pools,
        // which the caller keeps alive longer than the context.
        unsafe {
            llama_cpp_sys_2::llama_attach_threadpool(
                ptr.cast(),
                self.decode.as_ptr(),
                self.batch.unwrap_or(self.decode).as_ptr(),
            );
        }
        true
    }
}

impl Drop for ThreadPools {
    fn drop(&mut self) {
        // SAFETY: the pools are owned here and, per `attach`'s contract, no context that
        // uses them computes any more; freeing joins their threads.
        unsafe {
            llama_cpp_sys_2::ggml_threadpool_free(self.decode.as_ptr());
            if let Some(b) = self.batch {
                llama_cpp_sys_2::ggml_threadpool_free(b.as_ptr());
            }
        }
    }
}

/// Make `ctx` compute one-token decodes on `decode` threads and prompt batches on `batch`
/// threads from its next decode on (`llama_set_n_threads`, which llama-cpp-2 does not wrap).
/// With attached [`ThreadPools`] ggml runs the graph on that many of the pool's threads
/// (at most the pool's size); the others wait for the next graph. Returns false, changing
/// nothing, when the context's pointer cannot be found ([`context_pointer`]).
pub(crate) fn set_threads(ctx: &LlamaContext<'_>, decode: u32, batch: u32) -> bool {
    let Some(ptr) = context_pointer(ctx) else {
        return false;
    };
    let n = |t: u32| i32::try_from(t.max(1)).unwrap_or(i32::MAX);
    // SAFETY: `ptr` is the context's own pointer; the call sets two counts in its parameters.
    unsafe { llama_cpp_sys_2::llama_set_n_threads(ptr.cast(), n(decode), n(batch)) };
    true
}

/// Whether llama.cpp can shift the positions of `ctx`'s cache (`llama_memory_can_shift`:
/// RoPE models with one position per token, and with sliding-window layers only when their
/// cache is full-size, `swa_full`). Shifting where it cannot aborts the process inside
/// llama.cpp, so anything unsure — the context's pointer not found — is false.
pub(crate) fn can_shift(ctx: &LlamaContext<'_>) -> bool {
    let Some(ptr) = context_pointer(ctx) else {
        return false;
    };
    // SAFETY: `ptr` is the context's own pointer; both calls only read.
    unsafe {
        let mem = llama_get_memory(ptr);
        !mem.is_null() && llama_memory_can_shift(mem)
    }
}

/// The `llama_context *` behind `ctx`, for the llama.cpp calls llama-cpp-2 0.1.160 does not
/// wrap. The wrapper gives no access to it, but its `Debug` output prints it
/// (`LlamaContext { context: 0x… }`); the address read there is accepted only when
/// llama.cpp reports the same context size for it as the wrapper does. `None` otherwise.
fn context_pointer(ctx: &LlamaContext<'_>) -> Option<*mut c_void> {
    let ptr = pointer_in_debug(&format!("{ctx:?}"))? as *mut c_void;
    // SAFETY: `ptr` is the address llama-cpp-2 prints for its context; llama_n_ctx only
    // reads a field of it.
    (unsafe { llama_n_ctx(ptr) } == ctx.n_ctx()).then_some(ptr)
}

/// The C callback: calls the check; a panic (which must not cross into C) counts as
/// "abort".
unsafe extern "C" fn trampoline<F: Fn() -> bool + Sync>(data: *mut c_void) -> bool {
    // SAFETY: `data` is the `&F` given to `set_abort_check`, alive per its contract.
    let check = unsafe { &*(data as *const F) };
    let abort = std::panic::catch_unwind(std::panic::AssertUnwindSafe(check)).unwrap_or(true);
    if abort {
        ABORTING.store(true, Ordering::Relaxed);
    }
    abort
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
