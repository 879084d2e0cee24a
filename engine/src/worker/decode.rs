//! Decoding into a sequence: batches into llama.cpp and the book kept in step with what
//! llama.cpp holds, an aborted decode settled, a sequence dropped.

use llama_cpp_2::token::LlamaToken;
use llama_cpp_2::DecodeError;

use super::Worker;
use crate::backend::{compute_guard, end_of_abort, DECODE_ABORTED};
use crate::error::EngineError;
use crate::generation::batches;
use crate::kv::TokenId;

/// How a decode ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Decoded {
    /// llama.cpp decoded the whole batch.
    Done,
    /// The abort callback stopped it: nothing of the batch is held (the book is settled).
    Aborted,
}

/// The positions llama.cpp holds for a sequence whose highest position is `pos_max`
/// (`-1`: none).
pub(super) fn held_positions(pos_max: i32) -> usize {
    usize::try_from(i64::from(pos_max) + 1).unwrap_or(0)
}

impl Worker<'_> {
    /// Remove everything of `seq` from llama.cpp and the book.
    pub(super) fn drop_seq(&mut self, seq: i32) {
        let _ = self
            .ctx
            .clear_kv_cache_seq(u32::try_from(seq).ok(), None, None);
        self.book.clear(seq);
    }

    /// Decode `tokens` at the end of `seq`, logits only for the last one. Updates the book.
    pub(super) fn decode(&mut self, seq: i32, tokens: &[TokenId]) -> Result<Decoded, EngineError> {
        self.decode_with(seq, tokens, true)
    }

    /// Decode `tokens` at the end of `seq`; logits for the last one when `logits` (none
    /// otherwise: the output layer is skipped). Updates the book; after an abort, settles
    /// it to what llama.cpp holds.
    pub(super) fn decode_with(
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
        let started = std::time::Instant::now();
        let decoded = {
            let _gate = compute_guard();
            self.ctx.decode(&mut self.batch)
        };
        end_of_abort();
        match decoded {
            Ok(()) => {
                if tokens.len() > 1 {
                    let ms = started.elapsed().as_secs_f64() * 1e3;
                    self.observe_batch(ms / tokens.len() as f64);
                }
                self.book.extend(seq, tokens);
                Ok(Decoded::Done)
            }
            Err(DecodeError::Unknown(DECODE_ABORTED)) => {
                self.reconcile_seq(seq);
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
    fn reconcile_seq(&mut self, seq: i32) {
        let held = held_positions(self.ctx.kv_cache_seq_pos_max(seq));
        if self.book.reconcile(seq, held) {
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

    /// Decode `tokens[from..]` at the end of `seq` in batches, without logits (work ahead of
    /// a request: nothing is sampled from it), stopping between batches when `interrupted`.
    /// Returns the position reached.
    pub(super) fn decode_ahead(
        &mut self,
        seq: i32,
        tokens: &[TokenId],
        from: usize,
        interrupted: &dyn Fn() -> bool,
    ) -> Result<usize, EngineError> {
        let mut pos = from;
        for batch in batches(from, tokens.len(), self.batch_size) {
            if pos > from && interrupted() {
                break;
            }
            if self.decode_with(seq, &tokens[batch.clone()], false)? == Decoded::Aborted {
                // Not armed during idle work: only a failing check gets here.
                return Ok(pos.min(self.book.tokens(seq).len()).max(from));
            }
            pos = batch.end;
        }
        Ok(pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn held_positions_follow_the_highest_position() {
        assert_eq!(held_positions(-1), 0);
        assert_eq!(held_positions(0), 1);
        assert_eq!(held_positions(511), 512);
        assert_eq!(held_positions(i32::MAX), 1 << 31);
        // Anything below "none" is none.
        assert_eq!(held_positions(-7), 0);
    }
}
