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
use self::watch::Watch;
use crate::backend::{
    backend, can_shift, compute_guard, register_exit_gate, set_abort_check, ThreadPools,
};
use crate::chat::{self, ChatFormat};
use crate::embed::{Embedder, EMBED_FORMAT};
use crate::error::EngineError;
use crate::gguf::GgufInfo;
use crate::gpu;
use crate::heads::{Heads, HEAD_SESSION};
use crate::idle::{AheadBook, IdleQueue};
use crate::kv::KvBook;
use crate::params::{EngineParams, KvType};
use crate::prompt::{self, RenderedPrompt, ReplyMemo, TokenCache};
use crate::sampling::llama::PickBuffers;
use crate::wire::{CacheReport, Command, ModelInfo, SeqReport};

/// Replies whose sampled tokens are remembered ([`ReplyMemo`]).
const REPLIES_REMEMBERED: usize = 256;
/// Segment texts whose tokens are kept ([`TokenCache`]).
const TEXTS_CACHED: usize = 1024;

/// Start the worker and wait until the model is loaded (or failed to load).
pub(crate) fn spawn(
    path: PathBuf,
    params: EngineParams,
    header: GgufInfo,
    format: ChatFormat,
) -> Result<(Sender<Command>, JoinHandle<()>, ModelInfo), EngineError> {
    let (tx, rx) = crossbeam_channel::unbounded();
    let (init_tx, init_rx) = crossbeam_channel::bounded(1);
    let handle = std::thread::Builder::new()
        .name("porfiry-engine".into())
        .spawn(move || run(path, params, header, format, init_tx, rx))
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

fn context_params(s: &Setup) -> LlamaContextParams {
    let p = &s.params;
    LlamaContextParams::default()
        .with_n_ctx(NonZeroU32::new(p.n_ctx))
        .with_n_batch(p.batch)
        .with_n_ubatch(p.batch)
        .with_n_threads(s.threads as i32)
        .with_n_threads_batch(s.threads_batch as i32)
        .with_swa_full(s.layout.swa_full)
        .with_type_k(kv_type(p.kv_type_k))
        .with_type_v(kv_type(p.kv_type_v))
        .with_n_seq_max(s.layout.n_seq)
        .with_kv_unified(true)
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
    init_tx: Sender<Result<ModelInfo, EngineError>>,
    rx: Receiver<Command>,
) {
    let started = Instant::now();
    let fail = |e: EngineError| {
        let _ = init_tx.send(Err(e));
    };
    // Declared before the model and the context, so it outlives them: llama.cpp keeps a
    // pointer to `abort_check` for the context's whole life.
    let watch = Watch::default();
    let abort_check = || watch.should_abort();
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
    let context = model.new_context(backend, context_params(&setup));
    let Ok(mut ctx) = context.map_err(|e| fail(EngineError::Context(e.to_string()))) else {
        return;
    };
    // Without the hook (the context pointer not found) cancel and deadline are still
    // checked between prefill batches and between tokens.
    // SAFETY: `abort_check` (and the `watch` it reads) is declared before `ctx`, so it is
    // dropped after it, and it does not move.
    let _hooked = unsafe { set_abort_check(&ctx, &abort_check) };
    // SAFETY: `pools` is declared before `ctx`, so it is dropped after it.
    let thread_pool = pools.as_ref().is_some_and(|p| unsafe { p.attach(&ctx) });
    page_in(&model, &mut ctx);
    let (worker, info) = Worker::start(setup, &model, ctx, thread_pool, &watch);
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
    /// The embedding context, made on the first [`Command::Embed`].
    embedder: Option<Embedder<'m>>,
    /// Threads for decoding (the embedding context uses as many).
    threads: i32,
    /// Whether the context computes on attached thread pools (the embedder's then too).
    thread_pool: bool,
    /// What llama.cpp's abort callback checks (the request being served).
    watch: &'m Watch,
}

impl<'m> Worker<'m> {
    /// The worker over a loaded model and its context, and what it reports of them.
    fn start(
        setup: Setup,
        model: &'m LlamaModel,
        ctx: LlamaContext<'m>,
        thread_pool: bool,
        watch: &'m Watch,
    ) -> (Self, ModelInfo) {
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
            threads: threads as i32,
            thread_pool,
            watch,
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
                Err(RecvTimeoutError::Timeout) => self.run_next_pending(&|| !rx.is_empty()),
                Err(RecvTimeoutError::Disconnected) => break,
            }
        }
    }

    fn handle(&mut self, cmd: Command) {
        match cmd {
            Command::Generate(job) => self.serve(job),
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
            Command::Embed { texts, keep, reply } => {
                let _ = reply.send(self.embed(&texts, keep));
            }
            Command::Settle { done } => {
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
                let _ = reply.send(self.prepare_head(&system, &messages));
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

    fn embed(&mut self, texts: &[String], keep: bool) -> Result<Vec<Vec<f32>>, EngineError> {
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
                    self.threads,
                    self.thread_pool,
                    file,
                )?)
            }
        };
        embedder.embed(self.model, texts, keep)
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
