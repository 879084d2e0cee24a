//! Embeddings from the chat model's own weights: a second, small llama.cpp context of the
//! same model with embeddings on and mean pooling, so the agent can compare a request with
//! example utterances without a second model. The chat context and its KV cache are never
//! touched.

use std::num::NonZeroU32;

use llama_cpp_2::context::params::{LlamaContextParams, LlamaPoolingType};
use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::token::LlamaToken;

use crate::backend::{backend, compute_guard};
use crate::error::EngineError;

/// Most tokens of one embedded text (longer texts are cut): the embedding context's size.
pub const EMBED_TOKENS: usize = 256;

/// The embedding context of a worker, made on first use.
pub(crate) struct Embedder<'m> {
    ctx: LlamaContext<'m>,
    batch: LlamaBatch<'static>,
}

impl<'m> Embedder<'m> {
    /// A context of `model` for embeddings.
    pub(crate) fn new(model: &'m LlamaModel, threads: i32) -> Result<Self, EngineError> {
        let n = EMBED_TOKENS as u32;
        let params = LlamaContextParams::default()
            .with_n_ctx(NonZeroU32::new(n))
            .with_n_batch(n)
            .with_n_ubatch(n)
            .with_n_seq_max(1)
            .with_n_threads(threads)
            .with_n_threads_batch(threads)
            .with_embeddings(true)
            .with_pooling_type(LlamaPoolingType::Mean);
        let ctx = model
            .new_context(backend()?, params)
            .map_err(|e| EngineError::Context(format!("embedding context: {e}")))?;
        Ok(Self {
            ctx,
            batch: LlamaBatch::new(EMBED_TOKENS, 1),
        })
    }

    /// The unit-length, mean-pooled embedding of each text.
    pub(crate) fn embed(
        &mut self,
        model: &LlamaModel,
        texts: &[String],
    ) -> Result<Vec<Vec<f32>>, EngineError> {
        texts.iter().map(|t| self.one(model, t)).collect()
    }

    fn one(&mut self, model: &LlamaModel, text: &str) -> Result<Vec<f32>, EngineError> {
        // Plain text (a user cannot forge special tokens), after the BOS the model expects.
        let bos = model.vocab().bos();
        let mut tokens: Vec<LlamaToken> = if bos.0 < 0 { Vec::new() } else { vec![bos] };
        tokens.extend(crate::prompt::tokenize_plain(model, text).into_iter().map(LlamaToken));
        tokens.truncate(EMBED_TOKENS);
        if tokens.is_empty() {
            return Err(EngineError::InvalidParams("nothing to embed".into()));
        }
        self.ctx.clear_kv_cache();
        self.batch.clear();
        for (i, t) in tokens.iter().enumerate() {
            let pos = i32::try_from(i).map_err(|_| EngineError::Decode("position".into()))?;
            self.batch
                .add(*t, pos, &[0], true)
                .map_err(|e| EngineError::Decode(e.to_string()))?;
        }
        {
            let _gate = compute_guard();
            self.ctx
                .decode(&mut self.batch)
                .map_err(|e| EngineError::Decode(format!("embedding: {e}")))?;
        }
        let pooled = self
            .ctx
            .embeddings_seq_ith(0)
            .map_err(|e| EngineError::Decode(format!("embedding: {e}")))?;
        Ok(unit(pooled))
    }
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
}
