//! KV-cache bookkeeping: which tokens are in which llama.cpp sequence.
//!
//! The model of the world is simple: sequence `N` of the context holds the KV state of
//! exactly the tokens `KvBook::tokens(N)` at positions `0..len`. Everything that changes the
//! llama.cpp cache (decode, removal, clearing) goes through the engine worker, which updates
//! the book right after llama.cpp accepted the change, so the book is never ahead of the
//! cache. This module is pure: it plans, the worker executes.
//!
//! Sessions are mapped to sequences ("slots"); with one slot (the default) every session
//! shares sequence 0 and still profits from the common prefix (the system prompt). With more
//! slots, a session keeps its slot until the least recently used slot is taken for a new
//! session. Saving and restoring a slot (llama.cpp `state_seq_get/set`) fits this model: the
//! saved state is the slot's token list plus the bytes llama.cpp returns for that sequence.

/// A token id as llama.cpp sees it.
pub type TokenId = i32;

/// One llama.cpp sequence and what is known about it.
#[derive(Debug, Clone, Default)]
struct Slot {
    /// Tokens whose KV state is in the cache, position `i` holding `tokens[i]`.
    tokens: Vec<TokenId>,
    /// The session that used this slot last.
    owner: Option<String>,
    /// Logical time of the last use (for LRU eviction).
    last_used: u64,
}

/// The engine's record of the KV cache.
#[derive(Debug, Clone)]
pub struct KvBook {
    slots: Vec<Slot>,
    capacity: usize,
    clock: u64,
}

/// How to turn a slot's cached tokens into a new prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReusePlan {
    /// The llama.cpp sequence id.
    pub seq: i32,
    /// Cached tokens to keep (a prefix of both the cache and the prompt).
    pub keep: usize,
    /// Cached tokens to remove (positions `keep..`).
    pub remove: usize,
    /// Prompt tokens to decode (positions `keep..prompt.len()`).
    pub prefill: usize,
}

/// How to reuse a slot across a removed span ([`KvBook::plan_shift`]): positions
/// `keep..keep + remove` are removed, the `run` tokens after them move left by `remove`
/// (llama.cpp's sequence position shift), and the `drop_after` cached tokens after the run
/// are removed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShiftPlan {
    /// The llama.cpp sequence id.
    pub seq: i32,
    /// Cached tokens kept in place (the common prefix).
    pub keep: usize,
    /// Cached tokens removed after the prefix (e.g. an old state message).
    pub remove: usize,
    /// Cached tokens moved left by `remove`, reused as prompt positions `keep..keep + run`.
    pub run: usize,
    /// Cached tokens after the run, removed.
    pub drop_after: usize,
    /// Prompt tokens to decode (positions `keep + run..`).
    pub prefill: usize,
}

impl ShiftPlan {
    /// Prompt tokens the plan reuses from the cache.
    pub fn reused(&self) -> usize {
        self.keep + self.run
    }
}

impl KvBook {
    /// A book for `n_slots` sequences sharing `capacity` cells (the context size).
    pub fn new(n_slots: usize, capacity: usize) -> Self {
        Self {
            slots: vec![Slot::default(); n_slots.max(1)],
            capacity,
            clock: 0,
        }
    }

    /// Number of sequences.
    pub fn n_slots(&self) -> usize {
        self.slots.len()
    }

    /// Total KV cells (the context size).
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// The slot for `session`: the one it used last, else the least recently used one.
    pub fn slot_for(&mut self, session: &str) -> i32 {
        self.clock += 1;
        let idx = self
            .slots
            .iter()
            .position(|s| s.owner.as_deref() == Some(session))
            .unwrap_or_else(|| {
                self.slots
                    .iter()
                    .enumerate()
                    .min_by_key(|(_, s)| (s.owner.is_some(), s.last_used))
                    .map_or(0, |(i, _)| i)
            });
        let slot = &mut self.slots[idx];
        slot.owner = Some(session.to_owned());
        slot.last_used = self.clock;
        idx as i32
    }

    /// The session that used sequence `seq` last.
    pub fn owner(&self, seq: i32) -> Option<&str> {
        self.slot(seq).and_then(|s| s.owner.as_deref())
    }

    /// Tokens currently cached in sequence `seq` (empty for an unknown sequence).
    pub fn tokens(&self, seq: i32) -> &[TokenId] {
        self.slot(seq).map_or(&[], |s| &s.tokens)
    }

    /// Cells used by all sequences together.
    pub fn used(&self) -> usize {
        self.slots.iter().map(|s| s.tokens.len()).sum()
    }

    /// Plan the reuse of sequence `seq` for `prompt`: keep the longest common prefix, but
    /// always decode at least the last prompt token (its logits start the reply).
    pub fn plan(&self, seq: i32, prompt: &[TokenId]) -> ReusePlan {
        let cached = self.tokens(seq);
        let common = common_prefix(cached, prompt);
        let keep = common.min(prompt.len().saturating_sub(1));
        ReusePlan {
            seq,
            keep,
            remove: cached.len() - keep,
            prefill: prompt.len() - keep,
        }
    }

    /// Plan reusing `seq` for `prompt` across a removed span: when the cache diverges from
    /// the prompt at `p` (after the longest common prefix) but a later run of the cache,
    /// starting at `p + remove`, continues the prompt from `p` for at least `min_run`
    /// tokens, keep the prefix, remove the span, shift that run left onto the prompt's
    /// positions and drop what follows it. The longest run wins (the earliest on a tie);
    /// `None` when no run is long enough, or when it would reuse no more than the plain
    /// plan. At least the last prompt token is always left to decode.
    pub fn plan_shift(&self, seq: i32, prompt: &[TokenId], min_run: usize) -> Option<ShiftPlan> {
        let cached = self.tokens(seq);
        let keep = common_prefix(cached, prompt).min(prompt.len().saturating_sub(1));
        let want = &prompt[keep..prompt.len().saturating_sub(1)];
        let first = *want.first()?;
        let mut best: Option<(usize, usize)> = None;
        for q in keep + 1..cached.len() {
            if cached[q] != first {
                continue;
            }
            let run = common_prefix(&cached[q..], want);
            if run >= min_run.max(1) && best.is_none_or(|(_, r)| run > r) {
                best = Some((q, run));
            }
        }
        let (q, run) = best?;
        Some(ShiftPlan {
            seq,
            keep,
            remove: q - keep,
            run,
            drop_after: cached.len() - q - run,
            prefill: prompt.len() - keep - run,
        })
    }

    /// Record that llama.cpp carried out `plan`: the span removed, the run shifted onto
    /// `plan.keep..`, everything after the run removed.
    pub fn shift(&mut self, plan: &ShiftPlan) {
        if let Some(s) = self.slot_mut(plan.seq) {
            let start = plan.keep + plan.remove;
            let end = (start + plan.run).min(s.tokens.len());
            s.tokens.truncate(end);
            s.tokens.drain(plan.keep..start.min(end));
        }
    }

    /// Cells free for sequence `seq` after keeping its first `keep` tokens.
    pub fn room_after_keep(&self, seq: i32, keep: usize) -> usize {
        let others: usize = self
            .slots
            .iter()
            .enumerate()
            .filter(|(i, _)| *i as i32 != seq)
            .map(|(_, s)| s.tokens.len())
            .sum();
        self.capacity.saturating_sub(others + keep)
    }

    /// The least recently used other sequence that still holds tokens (to evict for room).
    pub fn eviction_candidate(&self, seq: i32) -> Option<i32> {
        self.slots
            .iter()
            .enumerate()
            .filter(|(i, s)| *i as i32 != seq && !s.tokens.is_empty())
            .min_by_key(|(_, s)| s.last_used)
            .map(|(i, _)| i as i32)
    }

    /// Record that llama.cpp removed positions `keep..` of `seq`.
    pub fn truncate(&mut self, seq: i32, keep: usize) {
        if let Some(s) = self.slot_mut(seq) {
            s.tokens.truncate(keep);
        }
    }

    /// Record that llama.cpp decoded `tokens` at the end of `seq`.
    pub fn extend(&mut self, seq: i32, tokens: &[TokenId]) {
        if let Some(s) = self.slot_mut(seq) {
            s.tokens.extend_from_slice(tokens);
        }
    }

    /// Bring the record of `seq` in line with what llama.cpp reports it holds (`held`
    /// positions, `seq_pos_max + 1`), e.g. after a computation was aborted midway: the book
    /// keeps its first `held` tokens when it knows that many. Returns false when llama.cpp
    /// holds positions the book has no tokens for; the caller must remove them (the book
    /// is never ahead of llama.cpp, and never behind it either once reconciled).
    pub fn reconcile(&mut self, seq: i32, held: usize) -> bool {
        if held > self.tokens(seq).len() {
            return false;
        }
        self.truncate(seq, held);
        true
    }

    /// Record that `seq` is empty.
    pub fn clear(&mut self, seq: i32) {
        self.truncate(seq, 0);
    }

    /// The sequence `session` holds, if any.
    pub fn seq_of(&self, session: &str) -> Option<i32> {
        self.slots
            .iter()
            .position(|s| s.owner.as_deref() == Some(session))
            .and_then(|i| i32::try_from(i).ok())
    }

    /// Record that `session` ended: its sequence is empty and free (the first one a new
    /// session takes). Returns the sequence it held.
    pub fn release(&mut self, session: &str) -> Option<i32> {
        let seq = self.seq_of(session)?;
        if let Some(s) = self.slot_mut(seq) {
            s.tokens.clear();
            s.owner = None;
            s.last_used = 0;
        }
        Some(seq)
    }

    /// Record that the whole cache is empty.
    pub fn clear_all(&mut self) {
        for s in &mut self.slots {
            s.tokens.clear();
        }
    }

    fn slot(&self, seq: i32) -> Option<&Slot> {
        usize::try_from(seq).ok().and_then(|i| self.slots.get(i))
    }

    fn slot_mut(&mut self, seq: i32) -> Option<&mut Slot> {
        usize::try_from(seq)
            .ok()
            .and_then(|i| self.slots.get_mut(i))
    }
}

/// Length of the longest common prefix of two token sequences.
pub fn common_prefix(a: &[TokenId], b: &[TokenId]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans() {
        // (cached, prompt, keep, remove, prefill)
        type Case = (&'static [i32], &'static [i32], usize, usize, usize);
        let cases: &[Case] = &[
            (&[], &[1, 2, 3], 0, 0, 3),
            (&[1, 2, 3], &[1, 2, 3, 4, 5], 3, 0, 2),
            (&[1, 2, 3, 9, 9], &[1, 2, 3, 4], 3, 2, 1),
            // Identical prompt: the last token is decoded again for its logits.
            (&[1, 2, 3], &[1, 2, 3], 2, 1, 1),
            // Cache longer than the prompt, prompt is a prefix.
            (&[1, 2, 3, 4], &[1, 2], 1, 3, 1),
            (&[7, 8], &[1, 2], 0, 2, 2),
        ];
        for (cached, prompt, keep, remove, prefill) in cases {
            let mut book = KvBook::new(1, 100);
            book.extend(0, cached);
            let p = book.plan(0, prompt);
            assert_eq!(
                (p.keep, p.remove, p.prefill),
                (*keep, *remove, *prefill),
                "{cached:?} -> {prompt:?}"
            );
        }
    }

    #[test]
    fn shift_plans() {
        // (cached, prompt, min_run, Some((keep, remove, run, drop_after, prefill)))
        type Case = (
            &'static [i32],
            &'static [i32],
            usize,
            Option<(usize, usize, usize, usize, usize)>,
        );
        let cases: &[Case] = &[
            // A state message [5, 6] removed after the head [1, 2], the history [7, 8, 9]
            // moved left, a new state [4] and the rest appended.
            (
                &[1, 2, 5, 6, 7, 8, 9],
                &[1, 2, 7, 8, 9, 4, 3],
                3,
                Some((2, 2, 3, 0, 2)),
            ),
            // Shorter than min_run: no shift.
            (&[1, 2, 5, 6, 7, 8, 9], &[1, 2, 7, 8, 9, 4, 3], 4, None),
            // The cached tail after the run is dropped.
            (
                &[1, 2, 5, 7, 8, 9, 9],
                &[1, 2, 7, 8, 4],
                2,
                Some((2, 1, 2, 2, 1)),
            ),
            // The prompt's last token is always decoded, even when the run covers it.
            (&[1, 5, 7, 8, 9], &[1, 7, 8, 9], 1, Some((1, 1, 2, 1, 1))),
            // The longest run wins over an earlier shorter one.
            (
                &[1, 0, 7, 3, 0, 7, 8, 9],
                &[1, 7, 8, 9, 4],
                1,
                Some((1, 4, 3, 0, 1)),
            ),
            // Nothing after the prefix matches: no shift.
            (&[1, 2, 3], &[1, 2, 4, 5], 1, None),
            // Empty cache or a one-token prompt: nothing to shift.
            (&[], &[1, 2], 1, None),
            (&[1, 2], &[2], 1, None),
        ];
        for (cached, prompt, min_run, want) in cases {
            let mut book = KvBook::new(1, 100);
            book.extend(0, cached);
            let got = book
                .plan_shift(0, prompt, *min_run)
                .map(|p| (p.keep, p.remove, p.run, p.drop_after, p.prefill));
            assert_eq!(got, *want, "{cached:?} -> {prompt:?} (min {min_run})");
            if let Some(plan) = book.plan_shift(0, prompt, *min_run) {
                assert_eq!(plan.reused() + plan.prefill, prompt.len());
                assert_eq!(
                    plan.keep + plan.remove + plan.run + plan.drop_after,
                    cached.len()
                );
                book.shift(&plan);
                assert_eq!(
                    book.tokens(0),
                    &prompt[..plan.reused()],
                    "{cached:?} -> {prompt:?}"
                );
            }
        }
    }

    #[test]
    fn settling_follows_what_llama_cpp_holds() {
        // (book, held, accepted, book after)
        type Case = (&'static [i32], usize, bool, &'static [i32]);
        let cases: &[Case] = &[
            // An aborted batch left nothing behind: no change.
            (&[1, 2, 3], 3, true, &[1, 2, 3]),
            // llama.cpp removed more than the book expected: the book follows.
            (&[1, 2, 3], 1, true, &[1]),
            (&[1, 2, 3], 0, true, &[]),
            // llama.cpp holds positions the book has no tokens for: refused, unchanged.
            (&[1, 2], 3, false, &[1, 2]),
        ];
        for (book_tokens, held, accepted, after) in cases {
            let mut book = KvBook::new(1, 100);
            book.extend(0, book_tokens);
            assert_eq!(
                book.reconcile(0, *held),
                *accepted,
                "{book_tokens:?} held {held}"
            );
            assert_eq!(book.tokens(0), *after, "{book_tokens:?} held {held}");
        }
    }

    #[test]
    fn sessions_share_one_slot_by_default() {
        let mut book = KvBook::new(1, 100);
        assert_eq!(book.slot_for("a"), 0);
        assert_eq!(book.slot_for("b"), 0);
    }

    #[test]
    fn slots_are_reused_least_recently_used_first() {
        let mut book = KvBook::new(2, 100);
        let a = book.slot_for("a");
        let b = book.slot_for("b");
        assert_ne!(a, b);
        assert_eq!(book.slot_for("a"), a);
        // "c" takes b's slot: a was used more recently.
        assert_eq!(book.slot_for("c"), b);
        book.extend(a, &[1, 2, 3]);
        book.extend(b, &[4; 10]);
        assert_eq!(book.used(), 13);
        assert_eq!(book.room_after_keep(a, 3), 87);
        assert_eq!(book.eviction_candidate(b), Some(a));
        book.clear(a);
        assert_eq!(book.eviction_candidate(b), None);
    }

    #[test]
    fn an_ended_session_frees_its_sequence_for_the_next_one() {
        let mut b = KvBook::new(2, 100);
        let a = b.slot_for("a");
        b.extend(a, &[1, 2, 3]);
        let c = b.slot_for("c");
        b.extend(c, &[4, 5]);
        assert_eq!(b.release("a"), Some(a));
        assert_eq!(b.release("a"), None, "released once");
        assert_eq!(b.owner(a), None);
        assert!(b.tokens(a).is_empty());
        assert_eq!(b.used(), 2);
        assert_eq!(b.seq_of("c"), Some(c));
        // A new session takes the freed sequence, not the one "c" holds.
        assert_eq!(b.slot_for("d"), a);
        assert_eq!(b.tokens(c), &[4, 5]);
    }
}
