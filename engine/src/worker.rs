//! The worker thread: owns the llama.cpp model and context and runs one request at a time.
//!
//! Safety rules this file keeps (see FIELD-NOTES):
//! - Tokens are chosen by applying the sampler chain to the logits and reading the selected
//!   token; the chain is told about a token only through `try_accept` (C++ exceptions from
//!   the grammar are caught there) and never about an end-of-generation token, so the
//!   grammar's "EOG while incomplete" abort cannot happen. Stopping for any other reason
//!   (max tokens, deadline, cancel, stop string) accepts nothing either.
//! - Once the lazy grammar is engaged, no token it rejects is chosen: the chain's choice is
//!   checked against the grammar, and when rejected (end-of-generation while a call is
//!   incomplete included) the grammar masks the whole candidate list before the chain
//!   chooses again. The expensive full pass runs only on rejection.
//! - The KV book is updated only after llama.cpp accepted a change.

use std::num::NonZeroU32;
use std::path::PathBuf;
use std::thread::JoinHandle;
use std::time::Instant;

use crossbeam_channel::{Receiver, Sender};
use llama_cpp_2::context::params::{KvCacheType, LlamaContextParams};
use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::data::LlamaTokenData;
use llama_cpp_2::token::data_array::LlamaTokenDataArray;
use llama_cpp_2::token::LlamaToken;
use porfiry_agent::{GenerationStats, Message, StopReason};

use crate::backend::backend;
use crate::chat::{self, ChatFormat, Segment};
use crate::config::{GenerateConfig, SamplingConfig};
use crate::engine::{Completion, Event, GenerateRequest, ModelInfo};
use crate::error::EngineError;
use crate::gguf::GgufInfo;
use crate::kv::{KvBook, TokenId};
use crate::params::{EngineParams, KvType};
use crate::prompt::{self, RenderedPrompt, ReplyMemo};
use crate::text::{StopScanner, Utf8Stream};

/// A generation job.
pub(crate) struct Job {
    pub request: GenerateRequest,
    pub submitted: Instant,
    pub events: Sender<Event>,
}

/// What the handle asks the worker to do.
pub(crate) enum Command {
    Generate(Job),
    Render {
        system: String,
        messages: Vec<Message>,
        reply: Sender<RenderedPrompt>,
    },
    ClearCache {
        done: Sender<()>,
    },
}

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

fn run(
    path: PathBuf,
    params: EngineParams,
    header: GgufInfo,
    format: ChatFormat,
    init_tx: Sender<Result<ModelInfo, EngineError>>,
    rx: Receiver<Command>,
) {
    let started = Instant::now();
    let backend = match backend() {
        Ok(b) => b,
        Err(e) => {
            let _ = init_tx.send(Err(e));
            return;
        }
    };
    let model_params = LlamaModelParams::default().with_use_mmap(params.mmap);
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
    let threads = params.effective_threads();
    let n_seq = params.n_seq.max(1);
    let ctx_params = LlamaContextParams::default()
        .with_n_ctx(NonZeroU32::new(params.n_ctx))
        .with_n_batch(params.batch)
        .with_n_ubatch(params.batch)
        .with_n_threads(threads as i32)
        .with_n_threads_batch(threads as i32)
        .with_swa_full(swa_full)
        .with_type_k(kv_type(params.kv_type_k))
        .with_type_v(kv_type(params.kv_type_v))
        .with_n_seq_max(n_seq)
        .with_kv_unified(true);
    let ctx = match model.new_context(backend, ctx_params) {
        Ok(c) => c,
        Err(e) => {
            let _ = init_tx.send(Err(EngineError::Context(e.to_string())));
            return;
        }
    };
    let n_ctx = ctx.n_ctx();
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
        threads,
        batch: params.batch,
        n_seq,
        load_ms: started.elapsed().as_secs_f64() * 1e3,
    };
    let mut worker = Worker {
        model: &model,
        ctx,
        format,
        book: KvBook::new(n_seq as usize, n_ctx as usize),
        memo: ReplyMemo::new(256),
        batch: LlamaBatch::new(params.batch as usize, 1),
        batch_size: params.batch as usize,
        swa: if swa_full { None } else { sliding_window },
        candidates: LlamaTokenDataArray::new(Vec::new(), false),
    };
    if init_tx.send(Ok(info)).is_err() {
        return;
    }
    for cmd in rx {
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
                ));
            }
            Command::ClearCache { done } => {
                worker.ctx.clear_kv_cache();
                worker.book.clear_all();
                worker.memo = ReplyMemo::new(256);
                let _ = done.send(());
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
    batch: LlamaBatch<'static>,
    batch_size: usize,
    /// The sliding window when SWA layers do NOT keep the full cache (reuse must be checked).
    swa: Option<u64>,
    /// Reused buffer for the logits of one step.
    candidates: LlamaTokenDataArray,
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
}

impl Samplers {
    fn new(model: &LlamaModel, config: &GenerateConfig) -> Result<Self, EngineError> {
        let grammar = match &config.tool_call_grammar {
            Some(g) => Some(
                LlamaSampler::grammar_lazy_patterns(
                    model,
                    &g.gbnf(),
                    "root",
                    &[crate::config::ToolCallGrammar::trigger_pattern().to_owned()],
                    &[],
                )
                .map_err(|e| EngineError::Sampler(format!("tool-call grammar: {e}")))?,
            ),
            None => None,
        };
        Ok(Self {
            grammar,
            chain: build_chain(model, &config.sampling),
        })
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

fn build_chain(model: &LlamaModel, s: &SamplingConfig) -> LlamaSampler {
    let mut chain = Vec::new();
    if s.repeat_penalty != 1.0 && s.repeat_penalty > 0.0 && s.repeat_last_n > 0 {
        chain.push(LlamaSampler::penalties(
            model.n_vocab(),
            s.repeat_last_n,
            s.repeat_penalty,
            0.0,
            0.0,
        ));
    }
    if s.is_greedy() {
        chain.push(LlamaSampler::greedy());
    } else {
        if s.top_k > 0 {
            chain.push(LlamaSampler::top_k(s.top_k));
        }
        if s.top_p > 0.0 && s.top_p < 1.0 {
            chain.push(LlamaSampler::top_p(s.top_p, 1));
        }
        if s.min_p > 0.0 && s.min_p < 1.0 {
            chain.push(LlamaSampler::min_p(s.min_p, 1));
        }
        chain.push(LlamaSampler::temp(s.temperature));
        chain.push(LlamaSampler::dist(s.seed));
    }
    LlamaSampler::chain_simple(chain)
}

impl Worker<'_> {
    fn serve(&mut self, job: Job) {
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
    fn decode(&mut self, seq: i32, tokens: &[TokenId]) -> Result<(), EngineError> {
        let start = self.book.tokens(seq).len();
        self.batch.clear();
        let last = tokens.len().saturating_sub(1);
        for (i, t) in tokens.iter().enumerate() {
            let pos = i32::try_from(start + i)
                .map_err(|_| EngineError::Decode("position overflow".into()))?;
            self.batch
                .add(LlamaToken(*t), pos, &[seq], i == last)
                .map_err(|e| EngineError::Decode(e.to_string()))?;
        }
        if let Err(e) = self.ctx.decode(&mut self.batch) {
            // The cache may hold part of the batch: forget the sequence rather than guess.
            self.drop_seq(seq);
            return Err(EngineError::Decode(e.to_string()));
        }
        self.book.extend(seq, tokens);
        Ok(())
    }

    /// Fill the candidate buffer with the logits of the last decoded batch's last token.
    fn load_candidates(&mut self) {
        let idx = self.batch.n_tokens() - 1;
        let logits = self.ctx.get_logits_ith(idx);
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

    /// Pick the next token. The chain chooses first; if the grammar is engaged and rejects
    /// that choice (or it is end-of-generation while a call is incomplete), the grammar
    /// masks the full candidate list and the chain chooses again.
    fn sample(&mut self, s: &mut Samplers) -> Result<TokenId, EngineError> {
        self.load_candidates();
        self.candidates.apply_sampler(&mut s.chain);
        let first = self.candidates.selected_token();
        if let (Some(t), Some(grammar)) = (first, s.grammar.as_mut()) {
            let logit = usize::try_from(t.0)
                .ok()
                .and_then(|i| {
                    self.ctx
                        .get_logits_ith(self.batch.n_tokens() - 1)
                        .get(i)
                        .copied()
                })
                .unwrap_or(0.0);
            let mut one = LlamaTokenDataArray::new(vec![LlamaTokenData::new(t, logit, 0.0)], false);
            one.apply_sampler(grammar);
            if one.data.first().is_some_and(|d| d.logit().is_finite()) {
                return Ok(t.0);
            }
            self.load_candidates();
            self.candidates.apply_sampler(grammar);
            self.candidates.apply_sampler(&mut s.chain);
        }
        self.candidates
            .selected_token()
            .map(|t| t.0)
            .ok_or_else(|| EngineError::Sampler("the sampler selected no token".into()))
    }

    fn generate(&mut self, job: Job) -> Result<Completion, EngineError> {
        let Job {
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
            segments.push(Segment::Content(prefix_text.clone()));
        }
        let rendered = prompt::tokenize_segments(model, &segments, Some(&self.memo));
        let prompt = rendered.tokens;
        let prefix_tokens = if prefix_text.is_empty() {
            Vec::new()
        } else {
            prompt::tokenize_plain(model, &prefix_text)
        };

        // 2. KV reuse: keep the common prefix, remove the rest, check capacity.
        let seq = self.book.slot_for(&req.session);
        let mut full_reprefill = false;
        // Self-check: the book must agree with llama.cpp about the sequence's length.
        let cached = self.book.tokens(seq).len();
        let pos_max = self.ctx.kv_cache_seq_pos_max(seq);
        if (cached == 0 && pos_max >= 0) || (cached > 0 && pos_max + 1 != cached as i32) {
            self.drop_seq(seq);
        }
        let mut plan = self.book.plan(seq, &prompt);
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
                plan = self.book.plan(seq, &prompt);
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
                plan = self.book.plan(seq, &prompt);
            }
        }
        while self.book.room_after_keep(seq, plan.keep) < plan.prefill + 1 {
            match self.book.eviction_candidate(seq) {
                Some(other) => self.drop_seq(other),
                None => {
                    return Err(EngineError::ContextFull {
                        prompt_tokens: prompt.len(),
                        available: self.book.capacity().saturating_sub(1),
                        n_ctx: self.book.capacity(),
                    })
                }
            }
        }
        let reused = plan.keep;

        // 3. Prefill in batches, checking cancel and deadline between them.
        let mut stats = GenerationStats {
            prompt_tokens: prompt.len(),
            reused_tokens: reused,
            full_reprefill,
            ..GenerationStats::default()
        };
        let prefill_start = Instant::now();
        let mut pos = plan.keep;
        while pos < prompt.len() {
            let stop = if req.cancel.is_cancelled() {
                Some(StopReason::Cancelled)
            } else if out_of_time() {
                Some(StopReason::Deadline)
            } else {
                None
            };
            if let Some(stop) = stop {
                stats.prefilled_tokens = pos - plan.keep;
                stats.total_ms = ms(submitted);
                return Ok(Completion {
                    text: String::new(),
                    stop,
                    stats,
                    tokens: Vec::new(),
                });
            }
            let end = (pos + self.batch_size).min(prompt.len());
            self.decode(seq, &prompt[pos..end])?;
            pos = end;
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
        let mut scanner = StopScanner::new(&config.stop);
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
                || self.book.room_after_keep(seq, self.book.tokens(seq).len()) == 0
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
            self.decode(seq, &[token])?;
        };
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
        // Remember the exact reply tokens when they spell exactly the reply text.
        if vocab.detokenize(&to_llama(&reply_tokens), false, false) == text.as_bytes() {
            self.memo.remember(text.clone(), reply_tokens.clone());
        }
        Ok(Completion {
            text,
            stop,
            stats,
            tokens: reply_tokens,
        })
    }
}

fn to_llama(tokens: &[TokenId]) -> Vec<LlamaToken> {
    tokens.iter().map(|t| LlamaToken(*t)).collect()
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1e3
}
