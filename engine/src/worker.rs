//! The worker thread: owns the llama.cpp model and context and runs one request at a time.
//!
//! Safety rules this file keeps (facts about llama-cpp-2 measured on this project):
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
//! chain/grammar pick order). This file executes them against llama.cpp.

use std::num::NonZeroU32;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Instant;

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};
use llama_cpp_2::context::params::{KvCacheType, LlamaContextParams};
use llama_cpp_2::context::session::LlamaStateSeqFlags;
use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::data::LlamaTokenData;
use llama_cpp_2::token::data_array::LlamaTokenDataArray;
use llama_cpp_2::token::LlamaToken;
use llama_cpp_2::DecodeError;
use porfiry_model::{GenerationStats, Message, StopReason};

use crate::backend::{
    backend, can_shift, compute_guard, end_of_abort, register_exit_gate, set_abort_check,
    ThreadPools, DECODE_ABORTED,
};
use crate::chat::{self, ChatFormat, PromptSegment};
use crate::config::{GenerateConfig, SamplingConfig};
use crate::embed::{Embedder, EMBED_FORMAT};
use crate::error::EngineError;
use crate::gguf::GgufInfo;
use crate::gpu;
use crate::heads::{Head, Heads, HEAD_SESSION, MIN_HEAD_GAIN};
use crate::idle::{self, AheadBook, IdleQueue, IdleWork, Reuse};
use crate::kv::{common_prefix, KvBook, ReusePlan, ShiftPlan, TokenId};
use crate::params::{EngineParams, KvType};
use crate::prompt::{self, ReplyMemo, TokenCache};
use crate::sampling::{self, PickSteps, Stage};
use crate::snapshot::{self, SnapshotError, SnapshotKey};
use crate::text::{StopScanner, Utf8Stream};
use crate::wire::{
    CacheReport, Command, Completion, Event, GenerateJob, HeadReport, HeadSource, ModelInfo,
    SeqReport,
};

/// The fewest cached tokens worth moving over a removed span (`EngineParams::kv_shift`):
/// below this a shift saves less than a batch's fixed cost.
const MIN_SHIFT_RUN: usize = 16;

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

fn kv_type(t: KvType) -> KvCacheType {
    match t {
        KvType::F16 => KvCacheType::F16,
        KvType::F32 => KvCacheType::F32,
        KvType::Q8_0 => KvCacheType::Q8_0,
        KvType::Q4_0 => KvCacheType::Q4_0,
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
    init_tx: Sender<Result<ModelInfo, EngineError>>,
    rx: Receiver<Command>,
) {
    let started = Instant::now();
    // Declared before the model and the context, so it outlives them: llama.cpp keeps a
    // pointer to `abort_check` for the context's whole life.
    let watch = Watch::default();
    let abort_check = || watch.should_abort();
    let backend = match backend() {
        Ok(b) => b,
        Err(e) => {
            let _ = init_tx.send(Err(e));
            return;
        }
    };
    let threads = params.effective_threads();
    let threads_batch = params.effective_threads_batch();
    // Declared before the context too (after the backend is up): attached to it, they must
    // outlive it.
    let pools = params
        .thread_pool
        .then(|| ThreadPools::new(threads, threads_batch))
        .flatten();
    let mut model_params = LlamaModelParams::default().with_use_mmap(params.mmap);
    if let Some(n) = params.gpu_layers {
        model_params = model_params.with_n_gpu_layers(n);
    }
    let gpu_devices = gpu::gpu_devices();
    let model = match LlamaModel::load_from_file(backend, &path, &model_params) {
        Ok(m) => m,
        Err(e) => {
            let _ = init_tx.send(Err(EngineError::Load {
                path,
                reason: e.to_string(),
            }));
            return;
        }
    };
    let sliding_window = header.sliding_window.filter(|w| *w > 0);
    let swa_full = params.swa_full.unwrap_or(sliding_window.is_some());
    let n_seq = params.n_seq.max(1);
    let ctx_params = LlamaContextParams::default()
        .with_n_ctx(NonZeroU32::new(params.n_ctx))
        .with_n_batch(params.batch)
        .with_n_ubatch(params.batch)
        .with_n_threads(threads as i32)
        .with_n_threads_batch(threads_batch as i32)
        .with_swa_full(swa_full)
        .with_type_k(kv_type(params.kv_type_k))
        .with_type_v(kv_type(params.kv_type_v))
        .with_n_seq_max(n_seq)
        .with_kv_unified(true);
    let mut ctx = match model.new_context(backend, ctx_params) {
        Ok(c) => c,
        Err(e) => {
            let _ = init_tx.send(Err(EngineError::Context(e.to_string())));
            return;
        }
    };
    // Without the hook (the context pointer not found) cancel and deadline are still
    // checked between prefill batches and between tokens.
    // SAFETY: `abort_check` (and the `watch` it reads) is declared before `ctx`, so it is
    // dropped after it, and it does not move.
    let _hooked = unsafe { set_abort_check(&ctx, &abort_check) };
    // SAFETY: `pools` is declared before `ctx`, so it is dropped after it.
    let thread_pool = pools.as_ref().is_some_and(|p| unsafe { p.attach(&ctx) });
    page_in(&model, &mut ctx);
    let n_ctx = ctx.n_ctx();
    let snapshots = params.snapshot_dir.clone().map(|dir| Snapshots {
        dir,
        model: path.clone(),
        model_sha256: params.model_sha256.clone(),
        key: None,
        n_ctx,
        n_seq,
        swa_full,
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
        sliding_window,
        swa_full,
        can_shift: shiftable,
        kv_shift: params.kv_shift && shiftable,
        threads,
        threads_batch,
        thread_pool,
        batch: params.batch,
        n_seq,
        gpu_layers: gpu::offloaded_layers(
            params.gpu_layers,
            model.n_layer(),
            !gpu_devices.is_empty(),
        ),
        gpu_devices,
        load_ms: started.elapsed().as_secs_f64() * 1e3,
    };
    let mut worker = Worker {
        model: &model,
        ctx,
        format,
        book: KvBook::new(n_seq as usize, n_ctx as usize),
        memo: ReplyMemo::new(256),
        token_cache: TokenCache::new(1024),
        batch: LlamaBatch::new(params.batch as usize, 1),
        batch_size: params.batch as usize,
        swa: if swa_full { None } else { sliding_window },
        candidates: LlamaTokenDataArray::new(Vec::new(), false),
        top: Vec::new(),
        heads: Heads::new(),
        snapshots,
        anticipate: params.anticipate,
        shift: params.kv_shift && shiftable,
        pending: IdleQueue::new(),
        anticipated: AheadBook::new(),
        embedder: None,
        threads: threads as i32,
        thread_pool,
        watch: &watch,
    };
    if init_tx.send(Ok(info)).is_err() {
        return;
    }
    loop {
        // Idle-time work waits until no command has come for a moment: a tool call's
        // follow-up request comes back within milliseconds, a user's next message does not.
        let next = if let Some(delay) = worker.pending.next_delay() {
            rx.recv_timeout(delay)
        } else {
            rx.recv().map_err(|_| RecvTimeoutError::Disconnected)
        };
        let cmd = match next {
            Ok(cmd) => cmd,
            Err(RecvTimeoutError::Timeout) => {
                worker.run_next_pending(&|| !rx.is_empty());
                continue;
            }
            Err(RecvTimeoutError::Disconnected) => break,
        };
        match cmd {
            Command::Generate(job) => worker.serve(job),
            Command::Render {
                system,
                messages,
                reply,
            } => {
                let segments = chat::render_prompt(format, &system, &messages);
                let _ = reply.send(prompt::tokenize_segments(
                    worker.model,
                    &segments,
                    Some(&worker.memo),
                    Some(&mut worker.token_cache),
                ));
            }
            Command::Tokenize { text, reply } => {
                let _ = reply.send(prompt::tokenize_plain(worker.model, &text));
            }
            Command::ClearCache { done } => {
                worker.ctx.clear_kv_cache();
                worker.book.clear_all();
                worker.memo = ReplyMemo::new(256);
                worker.heads.clear();
                worker.pending.clear();
                worker.anticipated.clear();
                let _ = done.send(());
            }
            // The session is over: its pending idle work goes, its sequence is emptied and
            // freed for the next session.
            Command::EndSession { session, done } => {
                worker.pending.drop_session(&session);
                let freed = match worker.book.seq_of(&session) {
                    Some(seq) => {
                        worker.drop_seq(seq);
                        let _ = worker.anticipated.take(seq, &[]);
                        worker.book.release(&session).is_some()
                    }
                    None => false,
                };
                let _ = done.send(freed);
            }
            Command::Embed { texts, keep, reply } => {
                let _ = reply.send(worker.embed(&texts, keep));
            }
            Command::Settle { done } => {
                while !worker.pending.is_empty() {
                    worker.run_next_pending(&|| false);
                }
                let _ = done.send(());
            }
            // Replaces the session's idle-time work not started yet: a newer partial
            // utterance (or the framing after a reply, which the prefill covers) supersedes it.
            Command::Prefill {
                session,
                system,
                messages,
            } => worker.pending.prefill(session, system, messages),
            Command::PrepareHead {
                system,
                messages,
                reply,
            } => {
                let _ = reply.send(worker.prepare_head(&system, &messages));
            }
            Command::CacheReport { reply } => {
                let _ = reply.send(worker.cache_report());
            }
        }
    }
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
    /// Reused buffer for the logits of one step.
    candidates: LlamaTokenDataArray,
    /// Reused buffer for the most likely tokens of one step.
    top: Vec<(TokenId, f32)>,
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

/// What llama.cpp's abort callback checks after every graph node: the cancel flag and the
/// deadline of the request being served, nothing otherwise (idle-time work and head builds
/// run to the end of their batch: their tokens are normally the next request's own
/// prefix, so stopping them midway would only throw work away).
#[derive(Debug, Default)]
struct Watch {
    armed: Mutex<Option<Armed>>,
}

#[derive(Debug)]
struct Armed {
    cancel: Arc<AtomicBool>,
    deadline: Option<Instant>,
}

impl Watch {
    /// Whether llama.cpp should stop the computation in flight. Called from llama.cpp's
    /// computing thread; never blocks for long (the lock is only taken to arm and disarm,
    /// between decodes).
    fn should_abort(&self) -> bool {
        let armed = self.armed.lock().unwrap_or_else(|p| p.into_inner());
        armed.as_ref().is_some_and(|a| {
            a.cancel.load(Ordering::Relaxed) || a.deadline.is_some_and(|d| Instant::now() >= d)
        })
    }

    /// Watch `cancel` and `deadline` until the guard is dropped.
    fn arm(&self, cancel: Arc<AtomicBool>, deadline: Option<Instant>) -> Disarm<'_> {
        *self.armed.lock().unwrap_or_else(|p| p.into_inner()) = Some(Armed { cancel, deadline });
        Disarm(self)
    }
}

/// Disarms the [`Watch`] when dropped (every way out of a generation).
struct Disarm<'a>(&'a Watch);

impl Drop for Disarm<'_> {
    fn drop(&mut self) {
        *self.0.armed.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }
}

/// How a decode ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Decoded {
    /// llama.cpp decoded the whole batch.
    Done,
    /// The abort callback stopped it: nothing of the batch is held (the book is settled).
    Aborted,
}

/// Snapshot settings and the key, computed on first use (it needs the model's hash).
struct Snapshots {
    dir: PathBuf,
    model: PathBuf,
    model_sha256: Option<String>,
    key: Option<SnapshotKey>,
    n_ctx: u32,
    n_seq: u32,
    swa_full: bool,
    type_k: KvType,
    type_v: KvType,
}

impl Snapshots {
    fn key(&mut self) -> Result<(&Path, &SnapshotKey), SnapshotError> {
        let key = match self.key.take() {
            Some(k) => k,
            None => SnapshotKey {
                llama: snapshot::LLAMA_CPP.to_owned(),
                model_sha256: match &self.model_sha256 {
                    Some(h) => h.to_ascii_lowercase(),
                    None => snapshot::model_sha256(&self.model, &self.dir)?,
                },
                n_ctx: self.n_ctx,
                n_seq: self.n_seq,
                swa_full: self.swa_full,
                type_k: self.type_k,
                type_v: self.type_v,
            },
        };
        Ok((&self.dir, self.key.insert(key)))
    }
}

/// How a sequence was made ready for a prompt.
struct Prepared {
    plan: ReusePlan,
    full_reprefill: bool,
    head_tokens: usize,
    /// Of `plan.keep`, the tokens moved left over a removed span.
    shifted: usize,
}

/// Where the next reply token comes from.
enum Source {
    Sample(Box<Samplers>),
    Forced(std::vec::IntoIter<TokenId>),
}

/// The samplers of one generation: the lazy tool-call grammar apart from the rest, so the
/// expensive full grammar pass (every token of a 262k vocabulary checked) runs only when the
/// token the chain picked is one the grammar rejects.
struct Samplers {
    grammar: Option<LlamaSampler>,
    chain: LlamaSampler,
    /// How many of the most likely tokens hold the chain's choice
    /// ([`sampling::chain_reach`]); `None`: all of them.
    reach: Option<usize>,
}

impl Samplers {
    fn new(model: &LlamaModel, config: &GenerateConfig) -> Result<Self, EngineError> {
        // A reply of given words: a grammar from the first token on.
        if let Some(words) = config.reply_words.as_ref().filter(|w| !w.is_empty()) {
            let text = crate::config::ToolCallGrammar::gbnf_words(words);
            let grammar = LlamaSampler::grammar(model, &text, "root")
                .map_err(|e| EngineError::Sampler(format!("reply grammar: {e}")))?;
            return Ok(Self::with(Some(grammar), model, &config.sampling));
        }
        // The request's own calls when it names them (none: no grammar at all).
        let text = match (&config.tool_call_grammar, &config.allowed_calls) {
            (Some(g), Some(calls)) => g.gbnf_for(calls),
            (Some(g), None) => Some(g.gbnf()),
            (None, _) => None,
        };
        let grammar = match text {
            Some(text) => Some(
                LlamaSampler::grammar_lazy_patterns(
                    model,
                    &text,
                    "root",
                    &[config
                        .tool_call_grammar
                        .as_ref()
                        .map(crate::config::ToolCallGrammar::trigger_pattern)
                        .unwrap_or_default()],
                    &[],
                )
                .map_err(|e| EngineError::Sampler(format!("tool-call grammar: {e}")))?,
            ),
            None => None,
        };
        Ok(Self::with(grammar, model, &config.sampling))
    }

    fn with(grammar: Option<LlamaSampler>, model: &LlamaModel, s: &SamplingConfig) -> Self {
        let stages = sampling::chain_stages(s);
        Self {
            grammar,
            chain: build_chain(model, &stages),
            reach: sampling::chain_reach(&stages),
        }
    }

    /// Tell the samplers about a chosen token. Never called with end-of-generation.
    fn accept(&mut self, token: TokenId) {
        if let Some(g) = &mut self.grammar {
            if g.try_accept(LlamaToken(token)).is_err() {
                // The grammar refused a token it had not masked (e.g. a reply prefix that is
                // not a valid call): continue without it rather than fail the turn.
                self.grammar = None;
            }
        }
        let _ = self.chain.try_accept(LlamaToken(token));
    }
}

/// The sampler chain of `stages` ([`sampling::chain_stages`]).
fn build_chain(model: &LlamaModel, stages: &[Stage]) -> LlamaSampler {
    let chain: Vec<LlamaSampler> = stages
        .iter()
        .map(|stage| match *stage {
            Stage::Penalties { last_n, repeat } => {
                LlamaSampler::penalties(model.n_vocab(), last_n, repeat, 0.0, 0.0)
            }
            Stage::Greedy => LlamaSampler::greedy(),
            Stage::TopK(k) => LlamaSampler::top_k(k),
            Stage::TopP(p) => LlamaSampler::top_p(p, 1),
            Stage::MinP(p) => LlamaSampler::min_p(p, 1),
            Stage::Temp(t) => LlamaSampler::temp(t),
            Stage::Dist(seed) => LlamaSampler::dist(seed),
        })
        .collect();
    LlamaSampler::chain_simple(chain)
}

/// [`sampling::pick`]'s steps over llama.cpp's logits of batch output `idx`.
struct LlamaPick<'a, 'm> {
    ctx: &'a LlamaContext<'m>,
    idx: i32,
    candidates: &'a mut LlamaTokenDataArray,
    /// Scratch for the most likely tokens ([`sampling::top_n`]).
    top: &'a mut Vec<(TokenId, f32)>,
    samplers: &'a mut Samplers,
}

/// How many of the most likely candidates the grammar masks before it masks them all.
const MASK_FIRST: usize = 512;

impl LlamaPick<'_, '_> {
    /// Fill the candidate buffer with the logits.
    fn load_candidates(&mut self) {
        let logits = self.ctx.get_logits_ith(self.idx);
        let data = &mut self.candidates.data;
        data.clear();
        data.extend(
            logits
                .iter()
                .enumerate()
                .map(|(i, l)| LlamaTokenData::new(LlamaToken(i as i32), *l, 0.0)),
        );
        self.candidates.selected = None;
        self.candidates.sorted = false;
    }

    /// Fill the candidate buffer with the `n` most likely tokens only, in token order.
    fn load_top(&mut self, n: usize) {
        sampling::top_n(self.ctx.get_logits_ith(self.idx), n, self.top);
        let data = &mut self.candidates.data;
        data.clear();
        data.extend(
            self.top
                .iter()
                .map(|&(id, l)| LlamaTokenData::new(LlamaToken(id), l, 0.0)),
        );
        self.candidates.selected = None;
        self.candidates.sorted = false;
    }
}

impl PickSteps for LlamaPick<'_, '_> {
    /// Where the chain's first filter keeps a known few (greedy, top-k) it sees only the
    /// tokens that can survive it ([`sampling::chain_reach`]): the same choice, without
    /// writing the whole vocabulary into the candidate array for every token.
    fn chain_pick(&mut self) -> Option<TokenId> {
        match self.samplers.reach {
            Some(n) => self.load_top(n),
            None => self.load_candidates(),
        }
        self.candidates.apply_sampler(&mut self.samplers.chain);
        self.candidates.selected_token().map(|t| t.0)
    }

    fn grammar_allows(&mut self, token: TokenId) -> bool {
        let Some(grammar) = self.samplers.grammar.as_mut() else {
            return true;
        };
        let logit = usize::try_from(token)
            .ok()
            .and_then(|i| self.ctx.get_logits_ith(self.idx).get(i).copied())
            .unwrap_or(0.0);
        let mut one = LlamaTokenDataArray::new(
            vec![LlamaTokenData::new(LlamaToken(token), logit, 0.0)],
            false,
        );
        one.apply_sampler(grammar);
        one.data.first().is_some_and(|d| d.logit().is_finite())
    }

    /// The grammar masks the [`MASK_FIRST`] most likely candidates first; only when it
    /// allows none of them does it go through the whole vocabulary (262k tokens for Gemma,
    /// tens of milliseconds). For greedy picking the two give the same token (the best
    /// allowed token is among the most likely whenever any of them is allowed); sampling
    /// chooses among the allowed ones of those candidates.
    fn masked_pick(&mut self) -> Option<TokenId> {
        self.load_candidates();
        if let Some(grammar) = self.samplers.grammar.as_mut() {
            let data = &mut self.candidates.data;
            if data.len() > MASK_FIRST {
                data.select_nth_unstable_by(MASK_FIRST, |a, b| b.logit().total_cmp(&a.logit()));
                let mut top = LlamaTokenDataArray::new(data[..MASK_FIRST].to_vec(), false);
                top.apply_sampler(grammar);
                if top.data.iter().any(|d| d.logit().is_finite()) {
                    top.apply_sampler(&mut self.samplers.chain);
                    return top.selected_token().map(|t| t.0);
                }
            }
            self.candidates.apply_sampler(grammar);
        }
        self.candidates.apply_sampler(&mut self.samplers.chain);
        self.candidates.selected_token().map(|t| t.0)
    }
}

impl Worker<'_> {
    fn serve(&mut self, job: GenerateJob) {
        let events = job.events.clone();
        let result = self.generate(job);
        let _ = events.send(match result {
            Ok(c) => Event::Done(c),
            Err(e) => Event::Error(e),
        });
    }

    /// Remove everything of `seq` from llama.cpp and the book.
    fn drop_seq(&mut self, seq: i32) {
        let _ = self
            .ctx
            .clear_kv_cache_seq(u32::try_from(seq).ok(), None, None);
        self.book.clear(seq);
    }

    /// Decode `tokens` at the end of `seq`, logits only for the last one. Updates the book.
    fn decode(&mut self, seq: i32, tokens: &[TokenId]) -> Result<Decoded, EngineError> {
        self.decode_with(seq, tokens, true)
    }

    /// Decode `tokens` at the end of `seq`; logits for the last one when `logits` (none
    /// otherwise: the output layer is skipped). Updates the book; after an abort, settles
    /// it to what llama.cpp holds.
    fn decode_with(
        &mut self,
        seq: i32,
        tokens: &[TokenId],
        logits: bool,
    ) -> Result<Decoded, EngineError> {
        let start = self.book.tokens(seq).len();
        self.batch.clear();
        let last = if logits {
            tokens.len().saturating_sub(1)
        } else {
            usize::MAX
        };
        for (i, t) in tokens.iter().enumerate() {
            let pos = i32::try_from(start + i)
                .map_err(|_| EngineError::Decode("position overflow".into()))?;
            self.batch
                .add(LlamaToken(*t), pos, &[seq], i == last)
                .map_err(|e| EngineError::Decode(e.to_string()))?;
        }
        let decoded = {
            let _gate = compute_guard();
            self.ctx.decode(&mut self.batch)
        };
        end_of_abort();
        match decoded {
            Ok(()) => {
                self.book.extend(seq, tokens);
                Ok(Decoded::Done)
            }
            Err(DecodeError::Unknown(DECODE_ABORTED)) => {
                self.settle_seq(seq);
                Ok(Decoded::Aborted)
            }
            Err(e) => {
                // The cache may hold part of the batch: forget the sequence rather than guess.
                self.drop_seq(seq);
                Err(EngineError::Decode(e.to_string()))
            }
        }
    }

    /// Make the book of `seq` say exactly what llama.cpp holds (after an aborted decode,
    /// which removes the positions of the batch it stopped in): the book follows when it
    /// knows more; positions llama.cpp holds beyond the book are removed (or, if llama.cpp
    /// refuses, the whole sequence).
    fn settle_seq(&mut self, seq: i32) {
        let held = usize::try_from(self.ctx.kv_cache_seq_pos_max(seq) + 1).unwrap_or(0);
        if self.book.settle(seq, held) {
            return;
        }
        let known = self.book.tokens(seq).len();
        let removed = self
            .ctx
            .clear_kv_cache_seq(u32::try_from(seq).ok(), u32::try_from(known).ok(), None)
            .unwrap_or(false);
        if !removed {
            self.drop_seq(seq);
        }
    }

    /// Pick the next token from the logits of the last decoded batch's last token
    /// ([`sampling::pick`]: the chain chooses, an engaged grammar checks that choice and
    /// masks all candidates only when it rejects it).
    fn sample(&mut self, s: &mut Samplers) -> Result<TokenId, EngineError> {
        let grammar = s.grammar.is_some();
        let mut steps = LlamaPick {
            ctx: &self.ctx,
            idx: self.batch.n_tokens() - 1,
            candidates: &mut self.candidates,
            top: &mut self.top,
            samplers: s,
        };
        sampling::pick(&mut steps, grammar)
            .ok_or_else(|| EngineError::Sampler("the sampler selected no token".into()))
    }

    /// Make sequence `seq` ready for `prompt`: keep the longest common prefix of what it
    /// holds (or restore a prepared head when that saves more), remove the rest, and evict
    /// other sequences until the prompt fits. The book is updated with every change.
    fn prepare_seq(&mut self, seq: i32, prompt: &[TokenId]) -> Result<Prepared, EngineError> {
        let mut full_reprefill = false;
        let mut head_tokens = 0;
        // Self-check: the book must agree with llama.cpp about the sequence's length.
        let cached = self.book.tokens(seq).len();
        let pos_max = self.ctx.kv_cache_seq_pos_max(seq);
        if (cached == 0 && pos_max >= 0) || (cached > 0 && pos_max + 1 != cached as i32) {
            self.drop_seq(seq);
        }
        let mut plan = self.book.plan(seq, prompt);
        let shift = self
            .shift
            .then(|| self.book.plan_shift(seq, prompt, MIN_SHIFT_RUN))
            .flatten();
        let reusable = shift.map_or(plan.keep, |s| s.reused());
        let mut shifted = 0;
        if let Some((i, common)) = self.heads.best(prompt, reusable) {
            if self.restore_head(seq, i) {
                plan = self.book.plan(seq, prompt);
                head_tokens = common.min(plan.keep);
            } else {
                plan = self.book.plan(seq, prompt);
            }
        } else if let Some(s) = shift {
            if self.shift_seq(&s) {
                shifted = s.run;
            }
            plan = self.book.plan(seq, prompt);
        }
        if plan.remove > 0 {
            let ok = self
                .ctx
                .clear_kv_cache_seq(u32::try_from(seq).ok(), u32::try_from(plan.keep).ok(), None)
                .unwrap_or(false);
            if ok {
                self.book.truncate(seq, plan.keep);
            } else {
                self.drop_seq(seq);
                full_reprefill = plan.keep > 0;
                head_tokens = 0;
                plan = self.book.plan(seq, prompt);
            }
        }
        if let (Some(window), true) = (self.swa, plan.keep > 0) {
            // Without swa_full, SWA layers only hold the last `window` positions (llama.cpp
            // reports the SWA cache's range): the kept prefix must still be there in full
            // where the next tokens look back.
            let pos_min = i64::from(self.ctx.kv_cache_seq_pos_min(seq));
            let pos_max = i64::from(self.ctx.kv_cache_seq_pos_max(seq));
            if pos_max + 1 != plan.keep as i64
                || pos_min > (plan.keep as i64 - window as i64).max(0)
            {
                self.drop_seq(seq);
                full_reprefill = true;
                head_tokens = 0;
                plan = self.book.plan(seq, prompt);
            }
        }
        self.make_room(seq, plan.keep, plan.prefill + 1, prompt.len())?;
        Ok(Prepared {
            plan,
            full_reprefill,
            head_tokens,
            shifted: shifted.min(plan.keep),
        })
    }

    /// Carry out a [`ShiftPlan`] in llama.cpp (remove what follows the run, remove the
    /// span, move the run left) and in the book. On a refusal the sequence is dropped
    /// (the request then prefills in full); returns whether the shift happened.
    fn shift_seq(&mut self, s: &ShiftPlan) -> bool {
        let pos = |n: usize| u32::try_from(n).ok();
        let start = s.keep + s.remove;
        let end = start + s.run;
        let Ok(delta) = i32::try_from(s.remove) else {
            return false;
        };
        let seq = u32::try_from(s.seq).ok();
        let done = self
            .ctx
            .clear_kv_cache_seq(seq, pos(end), None)
            .unwrap_or(false)
            && self
                .ctx
                .clear_kv_cache_seq(seq, pos(s.keep), pos(start))
                .unwrap_or(false)
            && self
                .ctx
                .kv_cache_seq_add(s.seq, pos(start), pos(end), -delta)
                .is_ok();
        if !done {
            self.drop_seq(s.seq);
            return false;
        }
        self.book.shift(s);
        true
    }

    /// Evict other sequences (least recently used first) until `seq`, keeping `keep`
    /// tokens, has room for `need` more.
    fn make_room(
        &mut self,
        seq: i32,
        keep: usize,
        need: usize,
        prompt_tokens: usize,
    ) -> Result<(), EngineError> {
        while self.book.room_after_keep(seq, keep) < need {
            match self.book.eviction_candidate(seq) {
                Some(other) => self.drop_seq(other),
                None => {
                    return Err(EngineError::ContextFull {
                        prompt_tokens,
                        available: self.book.capacity().saturating_sub(1),
                        n_ctx: self.book.capacity(),
                    })
                }
            }
        }
        Ok(())
    }

    /// Replace whatever `seq` holds with head `i`'s state. On failure (llama.cpp refuses
    /// the state or it does not cover the head's positions) the sequence is left empty, the
    /// head is forgotten and its snapshot file removed: it is never tried again.
    fn restore_head(&mut self, seq: i32, i: usize) -> bool {
        let Some(len) = self.heads.get(i).map(|h| h.tokens.len()) else {
            return false;
        };
        self.drop_seq(seq);
        if self.make_room(seq, 0, len, len).is_err() {
            return false;
        }
        let Some(head) = self.heads.get(i) else {
            return false;
        };
        // SAFETY: the bytes were produced by llama.cpp's `llama_state_seq_get_data` for this
        // model and context configuration (in memory, or read back from a snapshot file
        // whose key and checksum matched), and llama.cpp checks their length and shape.
        let ok = {
            let _gate = compute_guard();
            unsafe {
                self.ctx
                    .state_seq_set_data_ext(&head.state, seq, LlamaStateSeqFlags::empty())
            }
        };
        let pos_min = self.ctx.kv_cache_seq_pos_min(seq);
        let pos_max = self.ctx.kv_cache_seq_pos_max(seq);
        if ok && pos_max + 1 == len as i32 && (self.swa.is_some() || pos_min == 0) {
            let tokens = head.tokens.clone();
            self.book.clear(seq);
            self.book.extend(seq, &tokens);
            return true;
        }
        self.drop_seq(seq);
        let Some(head) = self.heads.remove(i) else {
            return false;
        };
        if let Some(s) = &mut self.snapshots {
            if let Ok((dir, key)) = s.key() {
                snapshot::remove(dir, key, &head.tokens);
            }
        }
        false
    }

    /// The state llama.cpp holds for `seq`.
    fn seq_state(&self, seq: i32) -> Result<Vec<u8>, EngineError> {
        let flags = LlamaStateSeqFlags::empty();
        let size = self.ctx.state_seq_get_size_ext(seq, flags);
        let mut state = vec![0u8; size];
        // SAFETY: `state` has exactly the size llama.cpp reported for this sequence.
        let n = {
            let _gate = compute_guard();
            unsafe {
                self.ctx
                    .state_seq_get_data_ext(state.as_mut_ptr(), seq, flags)
            }
        };
        if n != size || size == 0 {
            return Err(EngineError::Decode(format!(
                "llama.cpp returned {n} of {size} state bytes for sequence {seq}"
            )));
        }
        Ok(state)
    }

    /// The tokens every conversation starting with `system` and `messages`, then a user
    /// message, shares: the common prefix of two such renderings with different users.
    fn shared_prefix(&mut self, system: &str, messages: &[Message]) -> Vec<TokenId> {
        let mut probe = |text: &str| {
            let mut m = messages.to_vec();
            m.push(Message::user(text));
            let segments = chat::render_prompt(self.format, system, &m);
            prompt::tokenize_segments(
                self.model,
                &segments,
                Some(&self.memo),
                Some(&mut self.token_cache),
            )
            .tokens
        };
        let (a, b) = (probe("a"), probe("b"));
        let n = common_prefix(&a, &b);
        a[..n].to_vec()
    }

    fn prepare_head(
        &mut self,
        system: &str,
        messages: &[Message],
    ) -> Result<HeadReport, EngineError> {
        let started = Instant::now();
        let tokens = self.shared_prefix(system, messages);
        let mut report = HeadReport {
            tokens: tokens.len(),
            source: HeadSource::Empty,
            state_bytes: 0,
            file: None,
            note: None,
            ms: 0.0,
        };
        let finish = |mut r: HeadReport| {
            r.ms = ms(started);
            Ok(r)
        };
        if tokens.len() < MIN_HEAD_GAIN {
            return finish(report);
        }
        if let Some(head) = self.heads.touch(&tokens) {
            report.state_bytes = head.state.len();
            report.source = HeadSource::Memory;
            return finish(report);
        }
        // A snapshot from disk: verified by key and checksum, then by llama.cpp itself.
        let seq = self.book.slot_for(HEAD_SESSION);
        if let Some(s) = &mut self.snapshots {
            let (dir, key) = s.key()?;
            let path = dir.join(snapshot::file_name(key, &tokens));
            match snapshot::load(dir, key, &tokens) {
                Ok(state) => {
                    report.state_bytes = state.len();
                    report.file = Some(path);
                    let i = self.heads.push(Head { tokens, state });
                    if self.restore_head(seq, i) {
                        report.source = HeadSource::Disk;
                        return finish(report);
                    }
                    report.note = Some("llama.cpp refused the snapshot's state".into());
                    report.file = None;
                    report.state_bytes = 0;
                    let tokens = self.shared_prefix(system, messages);
                    return self.build_head(seq, tokens, report, started);
                }
                Err(SnapshotError::Missing(_)) => {}
                Err(e) => report.note = Some(e.to_string()),
            }
        }
        self.build_head(seq, tokens, report, started)
    }

    /// Prefill `tokens` into `seq`, keep the state, and save a snapshot when configured.
    fn build_head(
        &mut self,
        seq: i32,
        tokens: Vec<TokenId>,
        mut report: HeadReport,
        started: Instant,
    ) -> Result<HeadReport, EngineError> {
        let Prepared { plan, .. } = self.prepare_seq(seq, &tokens)?;
        self.decode_ahead(seq, &tokens, plan.keep, &|| false)?;
        let state = self.seq_state(seq)?;
        report.source = HeadSource::Built;
        report.state_bytes = state.len();
        if let Some(s) = &mut self.snapshots {
            let (dir, key) = s.key()?;
            match snapshot::save(dir, key, &tokens, &state) {
                Ok((path, _)) => report.file = Some(path),
                Err(e) => {
                    let note = report.note.take().map_or(String::new(), |n| n + "; ");
                    report.note = Some(format!("{note}not saved: {e}"));
                }
            }
        }
        self.heads.push(Head { tokens, state });
        report.ms = ms(started);
        Ok(report)
    }

    /// Run the idle-time work that is due first (the one with the shortest delay, oldest
    /// first among equals).
    fn run_next_pending(&mut self, interrupted: &dyn Fn() -> bool) {
        match self.pending.take_next() {
            None => {}
            Some(IdleWork::Anticipate {
                seq,
                session,
                system,
                messages,
            }) => self.anticipate(seq, &session, &system, &messages, interrupted),
            Some(IdleWork::Prefill {
                session,
                system,
                messages,
            }) => self.prefill(&session, &system, &messages, interrupted),
        }
    }

    /// Idle-time work: decode the framing that opens the next message of the session that
    /// was served last (the tokens every continuation of its conversation with a new message
    /// shares beyond what its sequence holds), without logits. Only when the sequence still
    /// holds exactly the start of that continuation and has room without evicting anyone.
    fn anticipate(
        &mut self,
        seq: i32,
        session: &str,
        system: &str,
        messages: &[Message],
        interrupted: &dyn Fn() -> bool,
    ) {
        if self.book.owner(seq) != Some(session) {
            return;
        }
        let next = self.shared_prefix(system, messages);
        let held = self.book.tokens(seq);
        let room = self.book.room_after_keep(seq, held.len());
        let Some(start) = idle::framing_start(&next, held, room) else {
            return;
        };
        if self.ctx.kv_cache_seq_pos_max(seq) + 1 != start as i32 {
            return;
        }
        if let Ok(end) = self.decode_ahead(seq, &next, start, interrupted) {
            self.anticipated.note(seq, start, &next[start..end]);
        }
    }

    /// Decode the conversation as the request would have it if the user's words so far
    /// were the whole message — through the framing that closes the message and opens the
    /// reply, all but the prompt's last token (a request decodes at least that one, for its
    /// logits) — reusing and trimming the session's sequence as a request would. When the
    /// words are indeed final (a recognizer's last partial transcript usually is), the
    /// request prefills one token; when more words come, the speculative framing is the
    /// diverging tail the next prefill or request removes (a few tokens, decoded while the
    /// user spoke). Stops between batches when `interrupted` (a command is waiting); what
    /// was decoded stays useful.
    fn prefill(
        &mut self,
        session: &str,
        system: &str,
        messages: &[Message],
        interrupted: &dyn Fn() -> bool,
    ) {
        let segments = chat::render_prompt(self.format, system, messages);
        let mut tokens = prompt::tokenize_segments(
            self.model,
            &segments,
            Some(&self.memo),
            Some(&mut self.token_cache),
        )
        .tokens;
        tokens.pop();
        let seq = self.book.slot_for(session);
        if tokens.is_empty() || self.book.tokens(seq).starts_with(&tokens) {
            return;
        }
        let Ok(Prepared { plan, .. }) = self.prepare_seq(seq, &tokens) else {
            return;
        };
        if let Ok(end) = self.decode_ahead(seq, &tokens, plan.keep, interrupted) {
            self.anticipated
                .note(seq, plan.keep, &tokens[plan.keep..end]);
        }
    }

    /// Decode `tokens[from..]` at the end of `seq` in batches, without logits (work ahead of
    /// a request: nothing is sampled from it), stopping between batches when `interrupted`.
    /// Returns the position reached.
    fn decode_ahead(
        &mut self,
        seq: i32,
        tokens: &[TokenId],
        from: usize,
        interrupted: &dyn Fn() -> bool,
    ) -> Result<usize, EngineError> {
        let mut pos = from;
        while pos < tokens.len() {
            if pos > from && interrupted() {
                break;
            }
            let end = (pos + self.batch_size).min(tokens.len());
            if self.decode_with(seq, &tokens[pos..end], false)? == Decoded::Aborted {
                // Not armed during idle work: only a failing check gets here.
                return Ok(pos.min(self.book.tokens(seq).len()).max(from));
            }
            pos = end;
        }
        Ok(pos)
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

    fn generate(&mut self, job: GenerateJob) -> Result<Completion, EngineError> {
        let GenerateJob {
            request: req,
            submitted,
            events,
        } = job;
        let config = &req.config;
        let deadline = config.deadline.map(|d| submitted + d);
        let out_of_time = || deadline.is_some_and(|d| Instant::now() >= d);
        let model = self.model;
        let vocab = model.vocab();

        // 1. The prompt tokens (plus the reply prefix, which is decoded with the prompt).
        let mut segments = chat::render_prompt(self.format, &req.system, &req.messages);
        let prefix_text = req.reply_prefix.clone().unwrap_or_default();
        if !prefix_text.is_empty() {
            segments.push(PromptSegment::Content(prefix_text.clone()));
        }
        let rendered = prompt::tokenize_segments(
            model,
            &segments,
            Some(&self.memo),
            Some(&mut self.token_cache),
        );
        let prompt = rendered.tokens;
        let prefix_tokens = if prefix_text.is_empty() {
            Vec::new()
        } else {
            prompt::tokenize_plain(model, &prefix_text)
        };

        // 2. KV reuse: keep the common prefix (or restore a prepared head), make room.
        // A request supersedes its session's idle-time work; tokens decoded ahead for this
        // sequence count while the sequence still holds them.
        self.pending.drop_session(&req.session);
        let seq = self.book.slot_for(&req.session);
        let ahead = self.anticipated.take(seq, self.book.tokens(seq));
        let Prepared {
            plan,
            full_reprefill,
            head_tokens,
            shifted,
        } = self.prepare_seq(seq, &prompt)?;
        let reused = plan.keep;
        let anticipated_tokens = idle::anticipated_tokens(
            ahead.as_ref(),
            Reuse {
                keep: plan.keep,
                head_tokens,
                full_reprefill,
            },
        );

        // 3. Prefill in batches. Cancel and deadline are checked before each batch and, by
        // the armed watch, inside it (an aborted batch leaves nothing; the ones before stay).
        let mut stats = GenerationStats {
            prompt_tokens: prompt.len(),
            reused_tokens: reused,
            full_reprefill,
            head_tokens,
            anticipated_tokens,
            shifted_tokens: shifted,
            ..GenerationStats::default()
        };
        let stop_now = || {
            if req.cancel.is_cancelled() {
                Some(StopReason::Cancelled)
            } else if out_of_time() {
                Some(StopReason::Deadline)
            } else {
                None
            }
        };
        let watch = self.watch;
        let _armed = watch.arm(req.cancel.flag().clone(), deadline);
        let prefill_start = Instant::now();
        let mut batch_done = prefill_start;
        let mut pos = plan.keep;
        while pos < prompt.len() {
            let mut stop = stop_now();
            if stop.is_none() {
                let end = (pos + self.batch_size).min(prompt.len());
                match self.decode(seq, &prompt[pos..end])? {
                    Decoded::Done => {
                        pos = end;
                        batch_done = Instant::now();
                    }
                    Decoded::Aborted => stop = Some(stop_now().ok_or_else(unasked_abort)?),
                }
            }
            if let Some(stop) = stop {
                // What this request added and llama.cpp still holds, and how fast the
                // batches it finished went.
                stats.prefilled_tokens = self.book.tokens(seq).len().saturating_sub(plan.keep);
                let secs = (batch_done - prefill_start).as_secs_f64();
                if stats.prefilled_tokens > 0 && secs > 0.0 {
                    stats.prefill_tps = stats.prefilled_tokens as f64 / secs;
                }
                stats.total_ms = ms(submitted);
                return Ok(Completion {
                    text: String::new(),
                    stop,
                    stats,
                    tokens: Vec::new(),
                });
            }
        }
        let prefill_secs = prefill_start.elapsed().as_secs_f64();
        stats.prefilled_tokens = prompt.len() - plan.keep;
        if stats.prefilled_tokens > 0 && prefill_secs > 0.0 {
            stats.prefill_tps = stats.prefilled_tokens as f64 / prefill_secs;
        }

        // 4. The reply.
        let mut source = match &req.forced_reply {
            Some(text) => Source::Forced(prompt::tokenize_plain(model, text).into_iter()),
            None => {
                let mut samplers = Samplers::new(model, config)?;
                for t in &prefix_tokens {
                    samplers.accept(*t);
                }
                Source::Sample(Box::new(samplers))
            }
        };
        let mut reply_tokens: Vec<TokenId> = prefix_tokens.clone();
        let mut utf8 = Utf8Stream::default();
        let mut scanner = StopScanner::new(&config.stop).with_sentence_cap(config.max_sentences);
        let mut emitted = String::new();
        let emit = |s: String, emitted: &mut String| -> bool {
            if s.is_empty() {
                return true;
            }
            emitted.push_str(&s);
            events.send(Event::Text(s)).is_ok()
        };
        let mut caller_gone = false;
        if !prefix_text.is_empty() {
            let scan = scanner.push(&prefix_text);
            caller_gone |= !emit(scan.emit, &mut emitted);
        }
        let decode_start = Instant::now();
        // A forced reply's tokens are known ahead: they are streamed one by one as always,
        // but decoded together after the loop, one batch instead of a decode per token.
        let mut deferred: Vec<TokenId> = Vec::new();
        let mut generated = 0usize;
        let mut first_token_at: Option<Instant> = None;
        let stop = loop {
            if req.cancel.is_cancelled() || caller_gone {
                break StopReason::Cancelled;
            }
            if out_of_time() {
                break StopReason::Deadline;
            }
            if generated >= config.max_tokens
                || self
                    .book
                    .room_after_keep(seq, self.book.tokens(seq).len() + deferred.len())
                    == 0
            {
                break StopReason::MaxTokens;
            }
            let token = match &mut source {
                Source::Forced(it) => match it.next() {
                    Some(t) => t,
                    None => break StopReason::EndOfTurn,
                },
                Source::Sample(sampler) => self.sample(sampler)?,
            };
            first_token_at.get_or_insert_with(Instant::now);
            if vocab.is_eog(LlamaToken(token)) {
                // Never accepted into the samplers, never decoded.
                break StopReason::EndOfTurn;
            }
            if let Source::Sample(samplers) = &mut source {
                samplers.accept(token);
            }
            generated += 1;
            reply_tokens.push(token);
            let piece = vocab.token_to_piece(LlamaToken(token), false, None);
            let text = utf8.push(&piece);
            let scan = scanner.push(&text);
            caller_gone |= !emit(scan.emit, &mut emitted);
            if scan.stopped {
                break StopReason::StopString;
            }
            if generated >= config.max_tokens {
                // The last allowed token: no need to decode it.
                break StopReason::MaxTokens;
            }
            if matches!(source, Source::Forced(_)) {
                deferred.push(token);
            } else if self.decode(seq, &[token])? == Decoded::Aborted {
                // Streamed but not decoded: the reply keeps it, the cache does not.
                break stop_now().ok_or_else(unasked_abort)?;
            }
        };
        // The forced tokens the loop would have decoded (all it streamed but a token that
        // ended it), without logits: nothing is sampled after them. A cancel or deadline
        // leaves them out (streamed but not decoded, as for a token whose decode was stopped).
        let mut stop = stop;
        if !matches!(stop, StopReason::Cancelled | StopReason::Deadline) {
            for chunk in deferred.chunks(self.batch_size.max(1)) {
                if self.decode_with(seq, chunk, false)? == Decoded::Aborted {
                    stop = stop_now().ok_or_else(unasked_abort)?;
                    break;
                }
            }
        }
        if stop != StopReason::StopString {
            let tail = utf8.finish();
            let scan = scanner.push(&tail);
            let _ = emit(scan.emit, &mut emitted);
            if !scan.stopped {
                let rest = scanner.finish();
                let _ = emit(rest, &mut emitted);
            }
        }
        let text = scanner.text().to_owned();
        let decode_secs = decode_start.elapsed().as_secs_f64();
        stats.generated_tokens = generated;
        if let Some(t) = first_token_at {
            stats.ttft_ms = (t - submitted).as_secs_f64() * 1e3;
        }
        if generated > 0 && decode_secs > 0.0 {
            stats.decode_tps = generated as f64 / decode_secs;
        }
        stats.total_ms = ms(submitted);
        // Remember the reply's tokens (as far as they spell its text), whatever ended it:
        // a cancelled reply comes back as its delivered prefix (ReplyMemo::lookup).
        let pieces: Vec<Vec<u8>> = reply_tokens
            .iter()
            .map(|t| vocab.token_to_piece(LlamaToken(*t), false, None))
            .collect();
        self.memo.remember(text.clone(), &reply_tokens, &pieces);
        // The session's next message will open with the chat framing after this reply:
        // decode it once the worker is idle.
        if self.anticipate
            && matches!(
                stop,
                StopReason::EndOfTurn | StopReason::StopString | StopReason::MaxTokens
            )
        {
            let mut messages = req.messages;
            messages.push(Message::assistant(text.clone()));
            self.pending
                .anticipate(seq, req.session, req.system, messages);
        }
        Ok(Completion {
            text,
            stop,
            stats,
            tokens: reply_tokens,
        })
    }
}

/// An abort no cancel or deadline asked for (only a failing abort check can cause it).
fn unasked_abort() -> EngineError {
    EngineError::Decode("llama.cpp stopped a decode that no cancel or deadline asked for".into())
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1e3
}
