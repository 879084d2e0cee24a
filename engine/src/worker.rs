//! The worker thread: owns the llama.cpp model and context and runs one request at a time.
//!
//! Safety rules the worker keeps (facts about llama-cpp-2 measured on this project):
//! - Tokens are chosen by applying the sampler chain to the logits and reading the selected
//!   token; the chain is told about a token only through `try_accept` (C++ exceptions from
//!   the grammar are caught there) and never about an end-of-generation token, so the
//!   grammar's "EOG while incomplete" abort cannot happen. Stopping for any other reason
//!   (max tokens, deadline, cancel, stop string) accepts nothing either.
//! - Once the lazy grammar is engaged, no token it rejects is chosen: the chain's choice is
//!   checked against the grammar, and when rejected (end-of-generation while a call is
//!   incomplete included) the grammar masks the whole candidate list before the chain
//!   chooses again. The expensive full pass runs only on rejection.
//! - The KV book is updated only after llama.cpp accepted a change. A decode that
//!   llama.cpp's abort callback stopped (cancel or deadline of the request being served)
//!   leaves the batches finished before it; the book is then settled to what llama.cpp
//!   reports holding (`seq_pos_max`).
//! - Cancel and deadline reach inside a decode: while a request is served, the abort
//!   callback ([`Watch`]) polls its cancel flag and deadline after every graph node, so a
//!   cancel during a 512-token prefill batch ends it within one node instead of one batch.
//!
//! The decisions that need no model live apart, with their own tests: `kv` (what each
//! sequence holds, reuse plans), `heads` (prepared heads kept and chosen), `idle` (the
//! idle-time queue and what was decoded ahead), `sampling` (the chain's stages, the
//! chain/grammar pick order), `generation` (batches, stop rules, the reply's text, the
//! figures). The worker executes them against llama.cpp. This file starts the thread and
//! serves the commands; the rest is in layers, each calling only the ones below it:
//! `generate` (a request) and `idle_work` (work ahead of one) over `head` (prepared heads)
//! over `sequence` (a sequence made ready for a prompt) over `decode` (batches into
//! llama.cpp, the book kept in step); `watch` and `snapshots` hold plain state.

mod decode;
mod generate;
mod head;
mod idle_work;
mod sequence;
mod snapshots;
mod watch;

use std::num::NonZeroU32;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};
use llama_cpp_2::context::params::{KvCacheType, LlamaContextParams};
use llama_cpp_2::context::session::LlamaStateSeqFlags;
use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::token::LlamaToken;
use porfiry_seam::Message;

use self::snapshots::Snapshots;
pub(crate) use self::watch::Watch;
use crate::backend::{
    backend, can_shift, compute_guard, register_exit_gate, set_abort_check, set_threads,
    ThreadPools,
};
use crate::chat::{self, ChatFormat};
use crate::embed::{Embedder, EMBED_FORMAT};
use crate::error::EngineError;
use crate::gguf::GgufInfo;
use crate::gpu;
use crate::heads::{Head, Heads, HEAD_SESSION};
use crate::idle::{AheadBook, IdleQueue};
use crate::kv::KvBook;
use crate::params::{
    allowed_cpus, fit_threads, set_thread_nice, thread_nice, EngineParams, KvType,
};
use crate::prompt::{self, RenderedPrompt, ReplyMemo, TokenCache};
use crate::sampling::llama::PickBuffers;
use crate::threads::ThreadChooser;
use crate::wire::{CacheReport, Command, Event, ModelInfo, SeqReport, TrimLevel, TrimReport};

/// Replies whose sampled tokens are remembered ([`ReplyMemo`]).
const REPLIES_REMEMBERED: usize = 256;
/// Segment texts whose tokens are kept ([`TokenCache`]).
const TEXTS_CACHED: usize = 1024;
/// Cells of the stand-in context a trim leaves in place of the chat context (the smallest
/// the engine accepts): it keeps every sequence id valid while holding almost nothing.
const TRIMMED_CTX: u32 = 64;

/// llama.cpp's abort callback as the worker passes it to every context it makes.
type AbortCheck<'a> = &'a (dyn Fn() -> bool + Sync + 'a);

/// Start the worker and wait until the model is loaded (or failed to load).
/// `closing`, once set, stops every decode in flight and every one after it.
pub(crate) fn spawn(
    path: PathBuf,
    params: EngineParams,
    header: GgufInfo,
    format: ChatFormat,
    closing: Arc<AtomicBool>,
) -> Result<(Sender<Command>, JoinHandle<()>, ModelInfo), EngineError> {
    let (tx, rx) = crossbeam_channel::unbounded();
    let (init_tx, init_rx) = crossbeam_channel::bounded(1);
    let handle = std::thread::Builder::new()
        .name("porfiry-engine".into())
        .spawn(move || run(path, params, header, format, closing, init_tx, rx))
        .map_err(|e| EngineError::Backend(format!("cannot start the worker thread: {e}")))?;
    match init_rx.recv() {
        Ok(Ok(info)) => Ok((tx, handle, info)),
        Ok(Err(e)) => {
            let _ = handle.join();
            Err(e)
        }
        Err(_) => {
            let _ = handle.join();
            Err(EngineError::WorkerGone)
        }
    }
}

/// How the context is laid out, from the load parameters and the file's header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Layout {
    /// The model's sliding window, when it has one.
    sliding_window: Option<u64>,
    /// Whether SWA layers keep the full cache: as asked, else whenever there is a window
    /// (so a kept prefix can always be truncated).
    swa_full: bool,
    /// KV sequences (at least one).
    n_seq: u32,
}

impl Layout {
    fn of(params: &EngineParams, sliding_window: Option<u64>) -> Self {
        let sliding_window = sliding_window.filter(|w| *w > 0);
        Self {
            sliding_window,
            swa_full: params.swa_full.unwrap_or(sliding_window.is_some()),
            n_seq: params.n_seq.max(1),
        }
    }

    /// The sliding window reuse must check: only when SWA layers do not keep the full cache.
    fn checked_window(&self) -> Option<u64> {
        if self.swa_full {
            None
        } else {
            self.sliding_window
        }
    }
}

/// What the worker was started with and what it found while loading.
struct Setup {
    path: PathBuf,
    params: EngineParams,
    header: GgufInfo,
    format: ChatFormat,
    started: Instant,
    threads: u32,
    threads_batch: u32,
    layout: Layout,
    gpu_devices: Vec<String>,
}

/// Hand memory the allocator keeps after frees back to the system (glibc keeps freed
/// blocks of its heap and arenas for later use; a trim means "later" is not now).
fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only walks the allocator's own free lists.
    unsafe {
        libc::malloc_trim(0);
    }
}

fn kv_type(t: KvType) -> KvCacheType {
    match t {
        KvType::F16 => KvCacheType::F16,
        KvType::F32 => KvCacheType::F32,
        KvType::Q8_0 => KvCacheType::Q8_0,
        KvType::Q4_0 => KvCacheType::Q4_0,
    }
}

fn load_model(
    backend: &llama_cpp_2::llama_backend::LlamaBackend,
    path: &std::path::Path,
    params: &EngineParams,
) -> Result<LlamaModel, EngineError> {
    let mut model_params = LlamaModelParams::default().with_use_mmap(params.mmap);
    if let Some(n) = params.gpu_layers {
        model_params = model_params.with_n_gpu_layers(n);
    }
    LlamaModel::load_from_file(backend, path, &model_params).map_err(|e| EngineError::Load {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })
}

/// What the chat context is made of: at the start, and again after a trim released it.
#[derive(Debug, Clone, Copy)]
struct ContextSpec {
    n_ctx: u32,
    batch: u32,
    threads: u32,
    threads_batch: u32,
    swa_full: bool,
    type_k: KvType,
    type_v: KvType,
    n_seq: u32,
}

impl ContextSpec {
    fn of(s: &Setup) -> Self {
        Self {
            n_ctx: s.params.n_ctx,
            batch: s.params.batch,
            threads: s.threads,
            threads_batch: s.threads_batch,
            swa_full: s.layout.swa_full,
            type_k: s.params.kv_type_k,
            type_v: s.params.kv_type_v,
            n_seq: s.layout.n_seq,
        }
    }

    /// The stand-in a trim leaves: the same sequences, almost no cells.
    fn trimmed(self) -> Self {
        let small = TRIMMED_CTX.max(self.n_seq);
        Self {
            n_ctx: small,
            batch: small,
            ..self
        }
    }

    fn params(&self) -> LlamaContextParams {
        LlamaContextParams::default()
            .with_n_ctx(NonZeroU32::new(self.n_ctx))
            .with_n_batch(self.batch)
            .with_n_ubatch(self.batch)
            .with_n_threads(self.threads as i32)
            .with_n_threads_batch(self.threads_batch as i32)
            .with_swa_full(self.swa_full)
            .with_type_k(kv_type(self.type_k))
            .with_type_v(kv_type(self.type_v))
            .with_n_seq_max(self.n_seq)
            .with_kv_unified(true)
    }
}

/// What the worker needs to make a context again, borrowed from [`run`]'s frame (so their
/// addresses, which llama.cpp keeps, never move).
#[derive(Clone, Copy)]
struct Links<'m> {
    backend: &'static llama_cpp_2::llama_backend::LlamaBackend,
    abort: &'m AbortCheck<'m>,
    pools: Option<&'m ThreadPools>,
    watch: &'m Watch,
}

impl<'m> Links<'m> {
    /// A context of `model` by `spec`, with the abort callback and the thread pools
    /// attached. Returns it and whether it computes on the pools.
    fn make(
        &self,
        model: &'m LlamaModel,
        spec: &ContextSpec,
    ) -> Result<(LlamaContext<'m>, bool), EngineError> {
        let ctx = model
            .new_context(self.backend, spec.params())
            .map_err(|e| EngineError::Context(e.to_string()))?;
        // Without the hook (the context pointer not found) cancel and deadline are still
        // checked between prefill batches and between tokens.
        // SAFETY: `abort` lives in `run`'s frame, declared before the model and every
        // context of it, so it outlives them, and it does not move.
        let _hooked = unsafe { set_abort_check(&ctx, self.abort) };
        // SAFETY: the pools live in `run`'s frame, declared before the model, so they
        // outlive every context of it.
        let pooled = self.pools.is_some_and(|p| unsafe { p.attach(&ctx) });
        Ok((ctx, pooled))
    }
}

/// One throw-away decode before the first request, as llama.cpp's own tools do: it pages
/// in the weights (a mapped file) and sets up the compute buffers, so the first request —
/// often a new session's first turn right after an app start — does not pay for it. The
/// cache is cleared afterwards. A failure only means the first request pays instead.
fn page_in(model: &LlamaModel, ctx: &mut LlamaContext<'_>) {
    let bos = model.vocab().bos();
    let token = if bos.0 < 0 { LlamaToken(0) } else { bos };
    // One token: any batch size allows it.
    let mut batch = LlamaBatch::new(1, 1);
    if batch.add(token, 0, &[0], true).is_ok() {
        let _gate = compute_guard();
        let _ = ctx.decode(&mut batch);
    }
    register_exit_gate();
    ctx.clear_kv_cache();
}

fn run(
    path: PathBuf,
    params: EngineParams,
    header: GgufInfo,
    format: ChatFormat,
    closing: Arc<AtomicBool>,
    init_tx: Sender<Result<ModelInfo, EngineError>>,
    rx: Receiver<Command>,
) {
    let started = Instant::now();
    let fail = |e: EngineError| {
        let _ = init_tx.send(Err(e));
    };
    // Declared before the model and the contexts, so they outlive them: llama.cpp keeps a
    // pointer to `abort` for each context's whole life.
    let watch = Watch::new(closing);
    let abort_check = || watch.should_abort();
    let abort: AbortCheck<'_> = &abort_check;
    let Ok(backend) = backend().map_err(fail) else {
        return;
    };
    let setup = Setup {
        threads: params.effective_threads(),
        threads_batch: params.effective_threads_batch(),
        layout: Layout::of(&params, header.sliding_window),
        gpu_devices: gpu::gpu_devices(),
        path,
        params,
        header,
        format,
        started,
    };
    // The compute threads (the pools' and any ggml starts per graph) are started from this
    // thread and inherit its priority.
    if let Some(nice) = setup.params.nice {
        set_thread_nice(nice);
    }
    // Declared before the context too (after the backend is up): attached to it, they must
    // outlive it.
    let pools = setup
        .params
        .thread_pool
        .then(|| ThreadPools::new(setup.threads, setup.threads_batch))
        .flatten();
    let Ok(model) = load_model(backend, &setup.path, &setup.params).map_err(fail) else {
        return;
    };
    let links = Links {
        backend,
        abort: &abort,
        pools: pools.as_ref(),
        watch: &watch,
    };
    let spec = ContextSpec::of(&setup);
    let Ok((mut ctx, thread_pool)) = links.make(&model, &spec).map_err(fail) else {
        return;
    };
    page_in(&model, &mut ctx);
    let (worker, info) = Worker::start(setup, &model, ctx, thread_pool, links);
    if init_tx.send(Ok(info)).is_err() {
        return;
    }
    worker.serve_commands(&rx);
}

struct Worker<'m> {
    model: &'m LlamaModel,
    ctx: LlamaContext<'m>,
    format: ChatFormat,
    book: KvBook,
    memo: ReplyMemo,
    /// Tokens of segment texts seen in earlier requests.
    token_cache: TokenCache,
    batch: LlamaBatch<'static>,
    batch_size: usize,
    /// The sliding window when SWA layers do NOT keep the full cache (reuse must be checked).
    swa: Option<u64>,
    /// Buffers for choosing a token, reused from token to token.
    pick_buffers: PickBuffers,
    /// Prepared heads, most recently prepared last.
    heads: Heads,
    /// Where head snapshots go, when configured.
    snapshots: Option<Snapshots>,
    /// Whether to decode the next message's opening framing while idle.
    anticipate: bool,
    /// Whether a prompt may reuse the cache across a removed span (`EngineParams::kv_shift`
    /// and llama.cpp can shift this context).
    shift: bool,
    /// Idle-time work waiting for the worker to be idle (at most one per session).
    pending: IdleQueue,
    /// Idle-time decodes (at most one per sequence), until the sequence's next request
    /// accounts for them.
    anticipated: AheadBook,
    /// The embedding context, made on the first [`Command::Embed`] (again after a trim).
    embedder: Option<Embedder<'m>>,
    /// Threads asked for: decoding (the embedding context uses as many) and prompt batches.
    threads: (u32, u32),
    /// Threads the contexts compute on now: [`Worker::threads`] fitted to the CPUs the
    /// process may run on ([`Worker::fit_threads`]) and chosen by what they achieve.
    threads_now: (u32, u32),
    /// Chooses the threads of one-token decodes between all the allowed ones and one
    /// ([`ThreadChooser`]), by their step times.
    chooser: ThreadChooser,
    /// The same for batches (prefill, work ahead, embeddings), by their time per token.
    batch_chooser: ThreadChooser,
    /// Whether the context computes on attached thread pools (the embedder's then too).
    thread_pool: bool,
    /// What llama.cpp's abort callback checks (the request being served).
    watch: &'m Watch,
    /// How contexts are made (again after a trim).
    links: Links<'m>,
    /// The chat context's settings.
    spec: ContextSpec,
    /// `ctx` is the stand-in a trim left ([`TrimLevel::All`]): the next request that
    /// decodes makes the chat context again.
    trimmed: bool,
    /// Heads a trim dropped from memory whose snapshots are on disk: restored when the
    /// chat context is made again.
    heads_on_disk: Vec<Vec<crate::kv::TokenId>>,
}

impl<'m> Worker<'m> {
    /// The worker over a loaded model and its context, and what it reports of them.
    fn start(
        setup: Setup,
        model: &'m LlamaModel,
        ctx: LlamaContext<'m>,
        thread_pool: bool,
        links: Links<'m>,
    ) -> (Self, ModelInfo) {
        let spec = ContextSpec::of(&setup);
        let Setup {
            path,
            params,
            header,
            format,
            started,
            threads,
            threads_batch,
            layout,
            gpu_devices,
        } = setup;
        let n_ctx = ctx.n_ctx();
        let snapshots = params.snapshot_dir.clone().map(|dir| Snapshots {
            dir,
            model: path.clone(),
            model_sha256: params.model_sha256.clone(),
            key: None,
            n_ctx,
            n_seq: layout.n_seq,
            swa_full: layout.swa_full,
            type_k: params.kv_type_k,
            type_v: params.kv_type_v,
        });
        let shiftable = can_shift(&ctx);
        let info = ModelInfo {
            path,
            architecture: header.architecture.clone(),
            name: header.name.clone(),
            chat_format: format,
            n_ctx_train: model.n_ctx_train(),
            n_ctx,
            file_size: header.file_len,
            n_vocab: model.n_vocab(),
            n_params: model.n_params(),
            sliding_window: layout.sliding_window,
            swa_full: layout.swa_full,
            can_shift: shiftable,
            kv_shift: params.kv_shift && shiftable,
            threads,
            threads_batch,
            nice: thread_nice(),
            thread_pool,
            batch: params.batch,
            n_seq: layout.n_seq,
            gpu_layers: gpu::offloaded_layers(
                params.gpu_layers,
                model.n_layer(),
                !gpu_devices.is_empty(),
            ),
            gpu_devices,
            load_ms: started.elapsed().as_secs_f64() * 1e3,
        };
        let worker = Worker {
            model,
            ctx,
            format,
            book: KvBook::new(layout.n_seq as usize, n_ctx as usize),
            memo: ReplyMemo::new(REPLIES_REMEMBERED),
            token_cache: TokenCache::new(TEXTS_CACHED),
            batch: LlamaBatch::new(params.batch as usize, 1),
            batch_size: params.batch as usize,
            swa: layout.checked_window(),
            pick_buffers: PickBuffers::new(),
            heads: Heads::new(),
            snapshots,
            anticipate: params.anticipate,
            shift: params.kv_shift && shiftable,
            pending: IdleQueue::new(),
            anticipated: AheadBook::new(),
            embedder: None,
            threads: (threads, threads_batch),
            threads_now: (threads, threads_batch),
            chooser: ThreadChooser::new(threads),
            batch_chooser: ThreadChooser::new(threads_batch),
            thread_pool,
            watch: links.watch,
            links,
            spec,
            trimmed: false,
            heads_on_disk: Vec::new(),
        };
        (worker, info)
    }

    /// Serve commands until the handle is dropped. Idle-time work waits until no command
    /// has come for a moment: a tool call's follow-up request comes back within
    /// milliseconds, a user's next message does not.
    fn serve_commands(mut self, rx: &Receiver<Command>) {
        loop {
            let next = match self.pending.next_delay() {
                Some(delay) => rx.recv_timeout(delay),
                None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
            };
            match next {
                Ok(cmd) => self.handle(cmd),
                Err(RecvTimeoutError::Timeout) => {
                    self.fit_threads();
                    if self.ensure_context().is_ok() {
                        self.run_next_pending(&|| !rx.is_empty());
                    } else {
                        self.pending.clear();
                    }
                }
                Err(RecvTimeoutError::Disconnected) => break,
            }
        }
    }

    fn handle(&mut self, cmd: Command) {
        match cmd {
            Command::Generate(job) => {
                self.fit_threads();
                match self.ensure_context() {
                    Ok(()) => self.serve(job),
                    Err(e) => {
                        let _ = job.events.send(Event::Error(e));
                    }
                }
            }
            Command::Render {
                system,
                messages,
                reply,
            } => {
                let _ = reply.send(self.render(&system, &messages));
            }
            Command::Tokenize { text, reply } => {
                let _ = reply.send(prompt::tokenize_plain(self.model, &text));
            }
            Command::ClearCache { done } => {
                self.clear_cache();
                let _ = done.send(());
            }
            Command::EndSession { session, done } => {
                let _ = done.send(self.end_session(&session));
            }
            Command::Embed {
                texts,
                keep,
                cancel,
                reply,
            } => {
                self.fit_threads();
                let _ = reply.send(self.embed(&texts, keep, cancel));
            }
            Command::Trim { level, reply } => {
                let _ = reply.send(self.trim(level));
            }
            Command::Settle { done } => {
                if !self.pending.is_empty() && self.ensure_context().is_err() {
                    self.pending.clear();
                }
                while !self.pending.is_empty() {
                    self.run_next_pending(&|| false);
                }
                let _ = done.send(());
            }
            // Replaces the session's idle-time work not started yet: a newer partial
            // utterance (or the framing after a reply, which the prefill covers) supersedes it.
            Command::DecodeAhead {
                session,
                system,
                messages,
            } => self.pending.decode_ahead(session, system, messages),
            Command::PrepareHead {
                system,
                messages,
                reply,
            } => {
                self.fit_threads();
                let result = self
                    .ensure_context()
                    .and_then(|()| self.prepare_head(&system, &messages));
                let _ = reply.send(result);
            }
            Command::CacheReport { reply } => {
                let _ = reply.send(self.cache_report());
            }
        }
    }
}

impl Worker<'_> {
    /// The prompt of `system` and `messages` as a request would decode it.
    fn render(&mut self, system: &str, messages: &[Message]) -> RenderedPrompt {
        let segments = chat::render_prompt(self.format, system, messages);
        prompt::tokenize_segments(
            self.model,
            &segments,
            Some(&self.memo),
            Some(&mut self.token_cache),
        )
    }

    /// Forget every cached token, remembered reply, prepared head and idle-time work.
    fn clear_cache(&mut self) {
        self.ctx.clear_kv_cache();
        self.book.clear_all();
        self.memo = ReplyMemo::new(REPLIES_REMEMBERED);
        self.heads.clear();
        self.pending.clear();
        self.anticipated.clear();
    }

    /// The session is over: its pending idle work goes, its sequence is emptied and freed
    /// for the next session. Returns whether it held one.
    fn end_session(&mut self, session: &str) -> bool {
        self.pending.drop_session(session);
        match self.book.seq_of(session) {
            Some(seq) => {
                self.drop_seq(seq);
                let _ = self.anticipated.take(seq, &[]);
                self.book.release(session).is_some()
            }
            None => false,
        }
    }

    fn cache_report(&self) -> CacheReport {
        let seqs = (0..self.book.n_slots() as i32)
            .map(|seq| {
                let tokens = self.book.tokens(seq).len();
                SeqReport {
                    seq,
                    session: self
                        .book
                        .owner(seq)
                        .filter(|o| *o != HEAD_SESSION)
                        .map(str::to_owned),
                    tokens,
                    bytes: if tokens == 0 {
                        0
                    } else {
                        self.ctx
                            .state_seq_get_size_ext(seq, LlamaStateSeqFlags::empty())
                    },
                }
            })
            .collect();
        CacheReport {
            n_ctx: self.book.capacity(),
            used: self.book.used(),
            seqs,
            heads: self.heads.report(),
        }
    }

    fn embed(
        &mut self,
        texts: &[String],
        keep: bool,
        cancel: Option<Arc<AtomicBool>>,
    ) -> Result<Vec<Vec<f32>>, EngineError> {
        // The caller's cancel reaches inside every decode of the embedding.
        let watch = self.watch;
        let _armed = cancel.map(|c| watch.arm(c, None));
        if watch.should_abort() {
            return Err(EngineError::Cancelled);
        }
        let embedder = match self.embedder.as_mut() {
            Some(e) => e,
            None => {
                // Beside the head snapshots, keyed by the model's hash (as they are).
                let file = self.snapshots.as_mut().and_then(|s| {
                    let (dir, key) = s.key().ok()?;
                    let sha = key.model_sha256.get(..16)?.to_owned();
                    Some(dir.join(format!("embeddings-{EMBED_FORMAT}-{sha}.json")))
                });
                self.embedder.insert(Embedder::new(
                    self.model,
                    self.threads.1,
                    self.threads_now.1,
                    self.thread_pool,
                    file,
                    self.links.abort,
                )?)
            }
        };
        let result = embedder.embed(self.model, texts, keep, watch, &mut self.batch_chooser);
        self.apply_threads();
        result
    }

    /// Fit the threads the contexts compute on to the CPUs the process may run on now
    /// (`allowed_cpus`): a phone's scheduler narrows an app's CPUs when it leaves the
    /// foreground, and two threads that wait for each other at every graph node on one CPU
    /// lose most of their time. Called before every command that decodes.
    fn fit_threads(&mut self) {
        let allowed = allowed_cpus();
        self.chooser.set_max(fit_threads(self.threads.0, allowed));
        self.batch_chooser
            .set_max(fit_threads(self.threads.1, allowed));
        self.apply_threads();
    }

    /// A one-token decode took `ms`: the chooser learns, and its choice is applied.
    pub(super) fn observe_step(&mut self, ms: f64) {
        let before = self.chooser.threads();
        self.chooser.observe_step(ms);
        if self.chooser.threads() != before {
            self.apply_threads();
        }
    }

    /// A batch decode took `ms_per_token` a token: the batch chooser learns.
    pub(super) fn observe_batch(&mut self, ms_per_token: f64) {
        let before = self.batch_chooser.threads();
        self.batch_chooser.observe_step(ms_per_token);
        if self.batch_chooser.threads() != before {
            self.apply_threads();
        }
    }

    /// Compute on the choosers' threads.
    fn apply_threads(&mut self) {
        let decode = self.chooser.threads();
        let batch = self.batch_chooser.threads();
        let now = (decode, batch);
        if now == self.threads_now {
            return;
        }
        set_threads(&self.ctx, now.0, now.1);
        if let Some(e) = &self.embedder {
            e.set_threads(now.1);
        }
        self.threads_now = now;
    }

    /// Make the chat context again when a trim released it, and restore the heads it
    /// dropped from their snapshots. On failure (no memory for it) the stand-in stays and
    /// the next request tries again.
    fn ensure_context(&mut self) -> Result<(), EngineError> {
        if !self.trimmed {
            return Ok(());
        }
        let spec = ContextSpec {
            threads: self.threads_now.0,
            threads_batch: self.threads_now.1,
            ..self.spec
        };
        let (ctx, _) = self.links.make(self.model, &spec)?;
        self.ctx = ctx;
        self.trimmed = false;
        for tokens in std::mem::take(&mut self.heads_on_disk) {
            let Some(s) = &mut self.snapshots else {
                break;
            };
            let Ok((dir, key)) = s.key() else {
                break;
            };
            if let Ok(state) = crate::snapshot::load(dir, key, &tokens) {
                let i = self.heads.push(Head { tokens, state });
                let seq = self.book.slot_for(HEAD_SESSION);
                let _ = self.restore_head(seq, i);
            }
        }
        Ok(())
    }

    /// Give memory back ([`TrimLevel`]): what it released.
    fn trim(&mut self, level: TrimLevel) -> TrimReport {
        let mut report = TrimReport {
            embedder: self.embedder.take().is_some(),
            ..TrimReport::default()
        };
        self.memo = ReplyMemo::new(REPLIES_REMEMBERED);
        self.token_cache = TokenCache::new(TEXTS_CACHED);
        self.pending.clear();
        if level == TrimLevel::All && !self.trimmed {
            report.sessions = (0..self.book.n_slots() as i32)
                .filter(|&seq| {
                    !self.book.tokens(seq).is_empty()
                        && self.book.owner(seq).is_some_and(|o| o != HEAD_SESSION)
                })
                .count();
            report.heads = self.heads.len();
            if self.snapshots.is_some() {
                self.heads_on_disk = (0..self.heads.len())
                    .filter_map(|i| self.heads.get(i).map(|h| h.tokens.clone()))
                    .collect();
            }
            let spec = ContextSpec {
                threads: self.threads_now.0,
                threads_batch: self.threads_now.1,
                ..self.spec.trimmed()
            };
            if let Ok((stand_in, _)) = self.links.make(self.model, &spec) {
                drop(std::mem::replace(&mut self.ctx, stand_in));
                self.book.clear_all();
                self.heads.clear();
                self.anticipated.clear();
                self.trimmed = true;
                report.context = true;
            } else {
                report.heads = 0;
                report.sessions = 0;
                self.heads_on_disk.clear();
            }
        }
        release_freed_memory();
        report
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swa_layers_keep_the_full_cache_unless_asked_otherwise() {
        let params = EngineParams::default();
        let gemma = Layout::of(&params, Some(512));
        assert_eq!(gemma.sliding_window, Some(512));
        assert!(gemma.swa_full);
        assert_eq!(gemma.checked_window(), None);
        let plain = Layout::of(&params, None);
        assert!(!plain.swa_full);
        assert_eq!(plain.checked_window(), None);
        // A window of 0 is no window.
        assert_eq!(Layout::of(&params, Some(0)).sliding_window, None);
        let lean = EngineParams {
            swa_full: Some(false),
            ..EngineParams::default()
        };
        let lean = Layout::of(&lean, Some(512));
        assert!(!lean.swa_full);
        assert_eq!(lean.checked_window(), Some(512), "reuse checks the window");
    }

    #[test]
    fn there_is_always_a_sequence() {
        let none = EngineParams {
            n_seq: 0,
            ..EngineParams::default()
        };
        assert_eq!(Layout::of(&none, None).n_seq, 1);
        let four = EngineParams {
            n_seq: 4,
            ..EngineParams::default()
        };
        assert_eq!(Layout::of(&four, None).n_seq, 4);
    }
}
