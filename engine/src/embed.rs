//! Embeddings from the chat model's own weights: a second, small llama.cpp context of the
//! same model with embeddings on, each text framed by a sentence asking for its meaning in
//! one word and pooled at that sentence's last token ([`FRAME_BEFORE`]), so the agent can
//! compare a request with example utterances without a second model. The chat context and
//! its KV cache are never touched.
//!
//! Short texts are packed several to a decode (one sequence each). The vectors of texts
//! that come back (example utterances) are kept in memory and — when the engine keeps head
//! snapshots — in a file beside them, keyed by the model's hash: they are embedded once per
//! model, not at every start. A request's text is embedded for that call only (its head:
//! a long text costs what a short one does), so memory and the file do not grow with the
//! conversation.

use std::collections::HashMap;
use std::fs;
use std::num::NonZeroU32;
use std::path::PathBuf;

use llama_cpp_2::context::params::{LlamaContextParams, LlamaPoolingType};
use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::token::LlamaToken;

use crate::backend::{
    backend, compute_guard, end_of_abort, set_abort_check, set_embeddings, set_threads,
    ThreadPools, DECODE_ABORTED,
};
use crate::error::EngineError;
use crate::threads::ThreadChooser;
use crate::worker::Watch;

/// The version of how texts are embedded, in the cache file's name: a change of the
/// recipe must not meet vectors of the old one.
pub(crate) const EMBED_FORMAT: &str = "v4";

/// What comes before a text: the text is embedded inside a sentence that asks for its
/// meaning in one word, and the vector is the hidden state of that sentence's last token
/// (PromptEOL, Jiang et al. 2023, "Scaling Sentence Embeddings with Large Language Models").
/// A decoder's last state is trained to predict what comes next, so it sums up the text
/// for the word it is about to say; the mean of the text's own states (the recipe before,
/// `v2`) is dominated by what every text shares. Measured by routing alone on the dev and
/// held-out eval sets (`porfiry eval tools --routes-only`, BENCHMARKS.md): tool names right
/// Gemma 134 → 149 of 164 with false calls 6 → 2, SmolLM2 74 → 74 of 82 with false calls
/// 3 → 1. The frame is the paper's, in English for every language, not tuned to the cases.
const FRAME_BEFORE: &str = "This sentence : \"";
/// What comes after a text: the end of the frame, whose last token's state is the vector.
const FRAME_AFTER: &str = "\" means in one word:\"";

/// Most tokens of one embedded text (longer texts are cut).
pub const EMBED_TOKENS: usize = 64;
/// Most bytes of a text that are tokenized for its embedding: [`EMBED_TOKENS`] tokens of
/// at most 64 bytes each (the longest tokens of these vocabularies are runs of spaces or
/// underscores of about 30). A longer text is embedded and cached by this head, so a 5 MB
/// message costs no more than a short one.
const EMBED_TEXT_BYTES: usize = EMBED_TOKENS * 64;
/// Tokens decoded at once: the context, batch and micro-batch size. Small, because llama.cpp
/// reserves the output layer's buffer for a full micro-batch (262k logits a token for Gemma).
const BATCH_TOKENS: usize = 128;
/// Texts packed into one decode at most.
const BATCH_SEQS: usize = 16;

/// Which tokens of each text a decode of [`Embedder::decode_group`] takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    /// All but the last, with the embeddings output off.
    AllButLast,
    /// The last, with it on: its state is the vector.
    Last,
    /// Every token, with it on.
    Whole,
}

/// The embedding context of a worker (made on first use) and the vectors it computed.
pub(crate) struct Embedder<'m> {
    ctx: LlamaContext<'m>,
    /// The context's compute threads, kept between decodes (declared after `ctx`, so
    /// dropped after it).
    _pools: Option<ThreadPools>,
    /// Keeps the address of the abort callback llama.cpp holds for `ctx` (declared after
    /// it, so dropped after it).
    _abort: Box<&'m (dyn Fn() -> bool + Sync + 'm)>,
    batch: LlamaBatch<'static>,
    cache: HashMap<String, Vec<f32>>,
    /// The frame's tokens (BOS and [`FRAME_BEFORE`]; [`FRAME_AFTER`]), tokenized once.
    frame: (Vec<LlamaToken>, Vec<LlamaToken>),
    /// Where the cache is kept, when the engine keeps files.
    file: Option<PathBuf>,
}

impl<'m> Embedder<'m> {
    /// A context of `model` for embeddings, on its own pools of `threads` threads when
    /// `thread_pool` (as the chat context), computing on `threads_now` of them (the chat
    /// context's batch threads); `file` keeps
    /// the vectors across runs; `abort` is llama.cpp's abort callback for it (the worker's).
    pub(crate) fn new(
        model: &'m LlamaModel,
        threads: u32,
        threads_now: u32,
        thread_pool: bool,
        file: Option<PathBuf>,
        abort: &'m (dyn Fn() -> bool + Sync + 'm),
    ) -> Result<Self, EngineError> {
        // The pools hold every thread the chooser may ask for; the context starts on the
        // chooser's current count.
        let max = threads.max(1);
        let now = i32::try_from(threads_now.clamp(1, max)).unwrap_or(1);
        let n = BATCH_TOKENS as u32;
        let params = LlamaContextParams::default()
            .with_n_ctx(NonZeroU32::new(n))
            .with_n_batch(n)
            .with_n_ubatch(n)
            .with_n_seq_max(BATCH_SEQS as u32)
            .with_kv_unified(true)
            .with_n_threads(now)
            .with_n_threads_batch(now)
            .with_embeddings(true)
            .with_pooling_type(LlamaPoolingType::Last);
        let pools = thread_pool.then(|| ThreadPools::new(max, max)).flatten();
        let ctx = model
            .new_context(backend()?, params)
            .map_err(|e| EngineError::Context(format!("embedding context: {e}")))?;
        // SAFETY: the pools are kept in the embedder beside the context and dropped after it.
        if let Some(p) = &pools {
            let _ = unsafe { p.attach(&ctx) };
        }
        let abort = Box::new(abort);
        // SAFETY: the boxed callback is kept in the embedder beside the context and dropped
        // after it; the box's address does not move.
        let _hooked = unsafe { set_abort_check(&ctx, &*abort) };
        let cache = file.as_ref().map(|f| read_cache(f)).unwrap_or_default();
        Ok(Self {
            ctx,
            _pools: pools,
            _abort: abort,
            batch: LlamaBatch::new(BATCH_TOKENS, BATCH_SEQS as i32),
            cache,
            frame: frame_tokens(model),
            file,
        })
    }

    /// The unit-length embedding of each text (framed, last-token pooled); with `keep`, the
    /// new vectors are cached (and saved), else computed for this call only.
    /// Compute on `n` threads from the next decode on.
    pub(crate) fn set_threads(&self, n: u32) {
        set_threads(&self.ctx, n, n);
    }

    /// The vectors of `texts` (kept when `keep`). Stops with [`EngineError::Cancelled`] —
    /// between decodes and, through the abort callback, inside one — when `watch` says so.
    pub(crate) fn embed(
        &mut self,
        model: &LlamaModel,
        texts: &[String],
        keep: bool,
        watch: &Watch,
        chooser: &mut ThreadChooser,
    ) -> Result<Vec<Vec<f32>>, EngineError> {
        let heads: Vec<&str> = texts.iter().map(|t| head(t)).collect();
        let mut missing: Vec<(&str, Vec<LlamaToken>)> = Vec::new();
        for &t in &heads {
            if !self.cache.contains_key(t) && !missing.iter().any(|(m, _)| *m == t) {
                missing.push((t, tokens_of(model, &self.frame, t)?));
            }
        }
        // Pack texts into decodes of at most BATCH_TOKENS tokens and BATCH_SEQS texts.
        let mut fresh: HashMap<String, Vec<f32>> = HashMap::new();
        let mut group: Vec<(&str, Vec<LlamaToken>)> = Vec::new();
        let mut used = 0;
        for (text, tokens) in missing {
            if !group.is_empty()
                && (used + tokens.len() > BATCH_TOKENS || group.len() == BATCH_SEQS)
            {
                self.decode_group(&std::mem::take(&mut group), &mut fresh, watch, chooser)?;
                used = 0;
            }
            used += tokens.len();
            group.push((text, tokens));
        }
        if !group.is_empty() {
            self.decode_group(&group, &mut fresh, watch, chooser)?;
        }
        let out = heads
            .iter()
            .map(|&t| {
                fresh
                    .get(t)
                    .or_else(|| self.cache.get(t))
                    .cloned()
                    .ok_or_else(|| EngineError::Decode("embedding missing".into()))
            })
            .collect();
        if keep && !fresh.is_empty() {
            self.cache.extend(fresh);
            self.save();
        }
        out
    }

    /// Decode `group` (one sequence per text) and put each text's vector in `out`.
    ///
    /// In two decodes: every token but each text's last with the embeddings output off, then
    /// the last tokens with it on. With it on, llama.cpp outputs every token of the decode,
    /// the output layer included (262,144 logits a token for Gemma), though the pooled
    /// vector is the last token's state: decoding the rest first computes that layer for one
    /// token a text instead of all of them (`measure --embed-cost`, BENCHMARKS.md).
    fn decode_group(
        &mut self,
        group: &[(&str, Vec<LlamaToken>)],
        out: &mut HashMap<String, Vec<f32>>,
        watch: &Watch,
        chooser: &mut ThreadChooser,
    ) -> Result<(), EngineError> {
        if watch.should_abort() {
            return Err(EngineError::Cancelled);
        }
        self.ctx.clear_kv_cache();
        // Where the output cannot be switched off (the context's pointer not found), the
        // whole text at once, as before the split.
        let steps: &[Step] = if set_embeddings(&self.ctx, false) {
            &[Step::AllButLast, Step::Last]
        } else {
            &[Step::Whole]
        };
        for &step in steps {
            self.batch.clear();
            for (seq, (_, tokens)) in group.iter().enumerate() {
                let last = tokens.len() - 1;
                let range = match step {
                    Step::AllButLast => 0..last,
                    Step::Last => last..last + 1,
                    Step::Whole => 0..last + 1,
                };
                for (i, t) in tokens.iter().enumerate().take(range.end).skip(range.start) {
                    let pos =
                        i32::try_from(i).map_err(|_| EngineError::Decode("position".into()))?;
                    self.batch
                        .add(*t, pos, &[seq as i32], step != Step::AllButLast)
                        .map_err(|e| EngineError::Decode(e.to_string()))?;
                }
            }
            if self.batch.n_tokens() == 0 {
                continue;
            }
            if step == Step::Last && !set_embeddings(&self.ctx, true) {
                return Err(EngineError::Decode(
                    "embedding: output not switched on".into(),
                ));
            }
            let started = std::time::Instant::now();
            let decoded = {
                let _gate = compute_guard();
                self.ctx.decode(&mut self.batch)
            };
            end_of_abort();
            match decoded {
                Ok(()) => {
                    // Batches teach the worker's batch chooser (`crate::threads`) here too:
                    // the examples' first embedding is most of a first start's compute.
                    let tokens = self.batch.n_tokens().max(1) as f64;
                    let before = chooser.threads();
                    chooser.observe_step(started.elapsed().as_secs_f64() * 1e3 / tokens);
                    if chooser.threads() != before {
                        self.set_threads(chooser.threads());
                    }
                }
                Err(llama_cpp_2::DecodeError::Unknown(DECODE_ABORTED)) => {
                    return Err(EngineError::Cancelled)
                }
                Err(e) => return Err(EngineError::Decode(format!("embedding: {e}"))),
            }
        }
        for (seq, (text, _)) in group.iter().enumerate() {
            let pooled = self
                .ctx
                .embeddings_seq_ith(seq as i32)
                .map_err(|e| EngineError::Decode(format!("embedding: {e}")))?;
            out.insert((*text).to_owned(), unit(pooled));
        }
        Ok(())
    }

    /// Write the cache file (best effort: a failure only means embedding again next time).
    fn save(&mut self) {
        let Some(file) = &self.file else {
            return;
        };
        if let Ok(text) = serde_json::to_string(&self.cache) {
            let tmp = file.with_extension("tmp");
            if fs::write(&tmp, text).is_ok() {
                let _ = fs::rename(&tmp, file);
            }
        }
    }
}

/// The part of `text` its embedding is made of: at most [`EMBED_TEXT_BYTES`], cut at a
/// character boundary.
fn head(text: &str) -> &str {
    let mut at = text.len().min(EMBED_TEXT_BYTES);
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    &text[..at]
}

/// The cached vectors in `file`; nothing when it is missing or unreadable.
fn read_cache(file: &std::path::Path) -> HashMap<String, Vec<f32>> {
    fs::read_to_string(file)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default()
}

/// The frame around every embedded text: BOS (when the vocabulary asks for one: the frame
/// is read as the start of a text) and [`FRAME_BEFORE`]; then [`FRAME_AFTER`].
fn frame_tokens(model: &LlamaModel) -> (Vec<LlamaToken>, Vec<LlamaToken>) {
    let plain = |t: &str| -> Vec<LlamaToken> {
        crate::prompt::tokenize_plain(model, t)
            .into_iter()
            .map(LlamaToken)
            .collect()
    };
    let mut before = Vec::new();
    if model.vocab().should_add_bos() {
        before.push(model.vocab().bos());
    }
    before.extend(plain(FRAME_BEFORE));
    (before, plain(FRAME_AFTER))
}

/// The tokens of `text` as embedded: the text as plain text (a user cannot forge special
/// tokens), cut to [`EMBED_TOKENS`], inside `frame` ([`frame_tokens`]). At most
/// [`EMBED_TOKENS`] + the frame's tokens, well inside one decode ([`BATCH_TOKENS`]).
fn tokens_of(
    model: &LlamaModel,
    (before, after): &(Vec<LlamaToken>, Vec<LlamaToken>),
    text: &str,
) -> Result<Vec<LlamaToken>, EngineError> {
    let mut tokens: Vec<LlamaToken> = crate::prompt::tokenize_plain(model, text)
        .into_iter()
        .map(LlamaToken)
        .collect();
    tokens.truncate(EMBED_TOKENS);
    if tokens.is_empty() {
        return Err(EngineError::InvalidParams("nothing to embed".into()));
    }
    let mut out = Vec::with_capacity(before.len() + tokens.len() + after.len());
    out.extend_from_slice(before);
    out.extend(tokens);
    out.extend_from_slice(after);
    Ok(out)
}

/// `v` scaled to unit length (a zero vector stays zero).
pub(crate) fn unit(v: &[f32]) -> Vec<f32> {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 && norm.is_finite() {
        v.iter().map(|x| x / norm).collect()
    } else {
        vec![0.0; v.len()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_vectors() {
        let u = unit(&[3.0, 4.0]);
        assert!((u[0] - 0.6).abs() < 1e-6 && (u[1] - 0.8).abs() < 1e-6);
        assert_eq!(unit(&[0.0, 0.0]), vec![0.0, 0.0]);
        assert_eq!(unit(&[f32::NAN, 1.0]), vec![0.0, 0.0]);
    }

    #[test]
    fn a_long_text_is_embedded_by_its_head_cut_at_a_character() {
        assert_eq!(head("короткий"), "короткий");
        let long = "ж".repeat(EMBED_TEXT_BYTES);
        let h = head(&long);
        // 2-byte letters: the head ends on the last whole letter within the bound.
        assert_eq!(h.len(), EMBED_TEXT_BYTES);
        let odd = format!("a{long}");
        assert_eq!(head(&odd).len(), EMBED_TEXT_BYTES - 1);
        assert!(odd.starts_with(head(&odd)));
    }

    #[test]
    fn an_unreadable_cache_is_empty() {
        let dir = std::env::temp_dir().join(format!("porfiry-embed-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let f = dir.join("e.json");
        fs::write(&f, "not json").unwrap();
        assert!(read_cache(&f).is_empty());
        fs::write(&f, r#"{"a":[1.0,0.0]}"#).unwrap();
        assert_eq!(read_cache(&f)["a"], vec![1.0, 0.0]);
        assert!(read_cache(&dir.join("missing.json")).is_empty());
        let _ = fs::remove_dir_all(&dir);
    }
}
