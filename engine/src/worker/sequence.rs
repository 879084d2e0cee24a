//! Making a sequence ready for a prompt: the longest common prefix kept (or a prepared
//! head restored, or the cache shifted over a removed span), the rest removed, other
//! sequences evicted until the prompt fits.

use llama_cpp_2::context::session::LlamaStateSeqFlags;

use super::decode::held_positions;
use super::Worker;
use crate::backend::compute_guard;
use crate::error::EngineError;
use crate::kv::{ReusePlan, ShiftPlan, TokenId};
use crate::snapshot;

/// The fewest cached tokens worth moving over a removed span (`EngineParams::kv_shift`):
/// below this a shift saves less than a batch's fixed cost.
const MIN_SHIFT_RUN: usize = 16;

/// How a sequence was made ready for a prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Prepared {
    pub(super) plan: ReusePlan,
    pub(super) full_reprefill: bool,
    pub(super) head_tokens: usize,
    /// Of `plan.keep`, the tokens moved left over a removed span.
    pub(super) shifted: usize,
}

/// Whether the book's `cached` tokens agree with llama.cpp's highest position `pos_max`.
fn book_agrees(cached: usize, pos_max: i32) -> bool {
    held_positions(pos_max) == cached
}

/// Whether a sequence whose SWA layers hold only the last `window` positions (no
/// `swa_full`) still has what `keep` kept tokens need: llama.cpp holds exactly `keep`
/// positions, and its SWA cache reaches back to where the next tokens look.
fn swa_keeps_prefix(window: u64, keep: usize, pos_min: i32, pos_max: i32) -> bool {
    let keep = i64::try_from(keep).unwrap_or(i64::MAX);
    let window = i64::try_from(window).unwrap_or(i64::MAX);
    i64::from(pos_max) + 1 == keep && i64::from(pos_min) <= keep.saturating_sub(window).max(0)
}

/// Whether a restored head state covers the head's `len` positions: exactly that many, from
/// position 0 unless SWA layers (`swa`: no `swa_full`) dropped the oldest.
fn restored_whole(len: usize, pos_min: i32, pos_max: i32, swa: bool) -> bool {
    held_positions(pos_max) == len && (swa || pos_min == 0)
}

impl Worker<'_> {
    /// Make sequence `seq` ready for `prompt`: keep the longest common prefix of what it
    /// holds (or restore a prepared head when that saves more), remove the rest, and evict
    /// other sequences until the prompt fits. The book is updated with every change.
    pub(super) fn prepare_seq(
        &mut self,
        seq: i32,
        prompt: &[TokenId],
    ) -> Result<Prepared, EngineError> {
        // Self-check: the book must agree with llama.cpp about the sequence's length.
        if !book_agrees(
            self.book.tokens(seq).len(),
            self.ctx.kv_cache_seq_pos_max(seq),
        ) {
            self.drop_seq(seq);
        }
        let mut ready = self.reuse_cache(seq, prompt);
        if ready.plan.remove > 0 && !self.remove_from(seq, ready.plan.keep) {
            self.drop_seq(seq);
            ready.full_reprefill = ready.plan.keep > 0;
            ready.head_tokens = 0;
            ready.plan = self.book.plan(seq, prompt);
        }
        if ready.plan.keep > 0 && !self.swa_intact(seq, ready.plan.keep) {
            self.drop_seq(seq);
            ready.full_reprefill = true;
            ready.head_tokens = 0;
            ready.plan = self.book.plan(seq, prompt);
        }
        let plan = ready.plan;
        self.make_room(seq, plan.keep, plan.prefill + 1, prompt.len())?;
        ready.shifted = ready.shifted.min(plan.keep);
        Ok(ready)
    }

    /// The cache `seq` can keep for `prompt`: its own common prefix, a prepared head that
    /// saves more (restored), or its cache shifted over a removed span.
    fn reuse_cache(&mut self, seq: i32, prompt: &[TokenId]) -> Prepared {
        let plan = self.book.plan(seq, prompt);
        let shift = self
            .shift
            .then(|| self.book.plan_shift(seq, prompt, MIN_SHIFT_RUN))
            .flatten();
        let reusable = shift.map_or(plan.keep, |s| s.reused());
        let mut ready = Prepared {
            plan,
            full_reprefill: false,
            head_tokens: 0,
            shifted: 0,
        };
        if let Some((i, common)) = self.heads.best(prompt, reusable) {
            let restored = self.restore_head(seq, i);
            ready.plan = self.book.plan(seq, prompt);
            if restored {
                ready.head_tokens = common.min(ready.plan.keep);
            }
        } else if let Some(s) = shift {
            if self.shift_seq(&s) {
                ready.shifted = s.run;
            }
            ready.plan = self.book.plan(seq, prompt);
        }
        ready
    }

    /// Remove the positions of `seq` from `keep` on, in llama.cpp and the book. `false`:
    /// llama.cpp refused (the caller drops the sequence).
    fn remove_from(&mut self, seq: i32, keep: usize) -> bool {
        let ok = self
            .ctx
            .clear_kv_cache_seq(u32::try_from(seq).ok(), u32::try_from(keep).ok(), None)
            .unwrap_or(false);
        if ok {
            self.book.truncate(seq, keep);
        }
        ok
    }

    /// Without swa_full, SWA layers only hold the last `window` positions (llama.cpp
    /// reports the SWA cache's range): whether the `keep` kept tokens of `seq` are still
    /// there in full where the next tokens look back. Always true with swa_full.
    fn swa_intact(&self, seq: i32, keep: usize) -> bool {
        let Some(window) = self.swa else {
            return true;
        };
        let pos_min = self.ctx.kv_cache_seq_pos_min(seq);
        let pos_max = self.ctx.kv_cache_seq_pos_max(seq);
        swa_keeps_prefix(window, keep, pos_min, pos_max)
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
    pub(super) fn restore_head(&mut self, seq: i32, i: usize) -> bool {
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
        if ok && restored_whole(len, pos_min, pos_max, self.swa.is_some()) {
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_book_agrees_only_with_the_same_length() {
        assert!(book_agrees(0, -1));
        assert!(book_agrees(12, 11));
        assert!(
            !book_agrees(0, 0),
            "llama.cpp holds a token the book does not know"
        );
        assert!(!book_agrees(12, -1), "the book knows tokens llama.cpp lost");
        assert!(!book_agrees(12, 12));
        assert!(!book_agrees(12, 10));
    }

    #[test]
    fn an_swa_cache_keeps_a_prefix_only_while_its_window_reaches_back() {
        // Window 512, 100 kept tokens: all held from position 0.
        assert!(swa_keeps_prefix(512, 100, 0, 99));
        // 1,000 kept: the window must reach back to 1000 - 512 = 488.
        assert!(swa_keeps_prefix(512, 1000, 488, 999));
        assert!(swa_keeps_prefix(512, 1000, 300, 999));
        assert!(!swa_keeps_prefix(512, 1000, 489, 999));
        // llama.cpp holds another length than the kept prefix.
        assert!(!swa_keeps_prefix(512, 1000, 0, 1000));
        assert!(!swa_keeps_prefix(512, 1000, 0, 998));
        // Short prefixes need position 0.
        assert!(!swa_keeps_prefix(512, 100, 1, 99));
        assert!(!swa_keeps_prefix(u64::MAX, 100, 1, 99));
        assert!(swa_keeps_prefix(u64::MAX, 100, 0, 99));
    }

    #[test]
    fn a_restored_head_covers_exactly_its_positions() {
        assert!(restored_whole(40, 0, 39, false));
        assert!(!restored_whole(40, 0, 38, false));
        assert!(!restored_whole(40, 0, 40, false));
        assert!(!restored_whole(40, -1, -1, false), "llama.cpp took nothing");
        // SWA layers without swa_full keep only the window's positions.
        assert!(!restored_whole(40, 8, 39, false));
        assert!(restored_whole(40, 8, 39, true));
    }
}
