//! Prepared heads: the prompt prefixes new sessions share, with llama.cpp's sequence state
//! for exactly those tokens ([`Engine::prepare_head`](crate::Engine::prepare_head)).
//!
//! Pure bookkeeping: the worker prefills, saves and restores; this module decides which
//! heads stay in memory (at most [`MAX_HEADS`], the least recently prepared one goes first)
//! and which one, if any, a prompt should start from ([`Heads::best`]).

use crate::kv::{common_prefix, TokenId};

/// Pseudo-session owning the sequence a head is prefilled or restored in.
pub(crate) const HEAD_SESSION: &str = "\u{0}porfiry-head";
/// Prepared heads kept in memory at most.
pub(crate) const MAX_HEADS: usize = 4;
/// A head is restored into a sequence only when it saves at least this many prefill tokens
/// (restoring costs a copy of the whole head's state). Also the shortest head worth
/// preparing.
pub(crate) const MIN_HEAD_GAIN: usize = 8;

/// A prepared head: its tokens and llama.cpp's sequence state for exactly them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Head {
    pub tokens: Vec<TokenId>,
    pub state: Vec<u8>,
}

/// The prepared heads kept in memory, least recently prepared first.
#[derive(Debug, Clone, Default)]
pub(crate) struct Heads {
    heads: Vec<Head>,
}

impl Heads {
    /// No heads.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of heads kept.
    pub fn len(&self) -> usize {
        self.heads.len()
    }

    /// Head `i` (0 = least recently prepared).
    pub fn get(&self, i: usize) -> Option<&Head> {
        self.heads.get(i)
    }

    /// Keep `head` as the most recently prepared one: a head with the same tokens is
    /// replaced, and when [`MAX_HEADS`] are kept the least recently prepared one goes.
    /// Returns its index.
    pub fn push(&mut self, head: Head) -> usize {
        self.heads.retain(|h| h.tokens != head.tokens);
        if self.heads.len() >= MAX_HEADS {
            self.heads.remove(0);
        }
        self.heads.push(head);
        self.heads.len() - 1
    }

    /// The head with exactly `tokens`, made the most recently prepared one.
    pub fn touch(&mut self, tokens: &[TokenId]) -> Option<&Head> {
        let i = self.heads.iter().position(|h| h.tokens == tokens)?;
        let head = self.heads.remove(i);
        self.heads.push(head);
        self.heads.last()
    }

    /// Forget head `i` (its state was refused); `None` for an unknown index.
    pub fn remove(&mut self, i: usize) -> Option<Head> {
        (i < self.heads.len()).then(|| self.heads.remove(i))
    }

    /// Forget every head.
    pub fn clear(&mut self) {
        self.heads.clear();
    }

    /// The head sharing the longest prefix with `prompt`, when restoring it saves at least
    /// [`MIN_HEAD_GAIN`] tokens over keeping the `keep` tokens the sequence already shares
    /// with the prompt: (index, shared tokens). Among equals, the most recently prepared.
    pub fn best(&self, prompt: &[TokenId], keep: usize) -> Option<(usize, usize)> {
        self.heads
            .iter()
            .enumerate()
            .map(|(i, h)| (i, common_prefix(&h.tokens, prompt)))
            .filter(|(_, common)| *common >= keep + MIN_HEAD_GAIN)
            .max_by_key(|(_, common)| *common)
    }

    /// (tokens, state bytes) of every head, least recently prepared first.
    pub fn report(&self) -> Vec<(usize, usize)> {
        self.heads
            .iter()
            .map(|h| (h.tokens.len(), h.state.len()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head(tokens: &[TokenId]) -> Head {
        Head {
            tokens: tokens.to_vec(),
            state: vec![0; tokens.len() * 10],
        }
    }

    fn firsts(heads: &Heads) -> Vec<TokenId> {
        (0..heads.len())
            .map(|i| heads.get(i).map_or(-1, |h| h.tokens[0]))
            .collect()
    }

    #[test]
    fn push_keeps_at_most_four_and_evicts_the_least_recently_prepared() {
        // (heads pushed, by first token, all 10 tokens long; kept, oldest first)
        let cases: &[(&[TokenId], &[TokenId])] = &[
            (&[], &[]),
            (&[1], &[1]),
            (&[1, 2, 3, 4], &[1, 2, 3, 4]),
            (&[1, 2, 3, 4, 5], &[2, 3, 4, 5]),
            (&[1, 2, 3, 4, 5, 6, 7], &[4, 5, 6, 7]),
            // The same tokens again: replaced and made the newest, nothing evicted.
            (&[1, 2, 1], &[2, 1]),
            (&[1, 2, 3, 4, 1], &[2, 3, 4, 1]),
            // A repeat of the oldest keeps it; the next new one evicts the then-oldest.
            (&[1, 2, 3, 4, 1, 5], &[3, 4, 1, 5]),
        ];
        for (pushed, kept) in cases {
            let mut heads = Heads::new();
            for t in *pushed {
                let i = heads.push(head(&[*t; 10]));
                assert_eq!(i, heads.len() - 1);
            }
            assert!(heads.len() <= MAX_HEADS);
            assert_eq!(firsts(&heads), *kept, "pushed {pushed:?}");
        }
    }

    #[test]
    fn push_replaces_the_state_of_equal_tokens() {
        let mut heads = Heads::new();
        heads.push(head(&[1; 10]));
        heads.push(Head {
            tokens: vec![1; 10],
            state: vec![7; 3],
        });
        assert_eq!(heads.report(), vec![(10, 3)]);
    }

    #[test]
    fn touch_finds_exact_tokens_only_and_makes_them_newest() {
        // (heads by first token, touched, found, order after)
        let cases: &[(&[TokenId], TokenId, bool, &[TokenId])] = &[
            (&[], 1, false, &[]),
            (&[1, 2, 3], 1, true, &[2, 3, 1]),
            (&[1, 2, 3], 3, true, &[1, 2, 3]),
            (&[1, 2, 3], 4, false, &[1, 2, 3]),
        ];
        for (pushed, touched, found, after) in cases {
            let mut heads = Heads::new();
            for t in *pushed {
                heads.push(head(&[*t; 10]));
            }
            let got = heads.touch(&[*touched; 10]).map(|h| h.state.len());
            assert_eq!(got.is_some(), *found, "{pushed:?} touch {touched}");
            assert_eq!(firsts(&heads), *after, "{pushed:?} touch {touched}");
        }
        // A prefix of a head is not the head.
        let mut heads = Heads::new();
        heads.push(head(&[1; 10]));
        assert!(heads.touch(&[1; 9]).is_none());
    }

    #[test]
    fn best_is_the_longest_shared_prefix_worth_restoring() {
        let a: Vec<TokenId> = (0..20).collect();
        let mut b: Vec<TokenId> = (0..12).collect();
        b.extend([99; 8]);
        let c: Vec<TokenId> = (100..130).collect();
        let prompt: Vec<TokenId> = (0..40).collect();
        let short: Vec<TokenId> = (0..15).collect();
        // (prompt, keep: tokens the own sequence shares, expected (index, shared))
        type Case<'a> = (&'a [TokenId], usize, Option<(usize, usize)>);
        let cases: &[Case<'_>] = &[
            // Nothing cached: the head sharing most (a, 20 tokens) wins over b (12).
            (&prompt, 0, Some((0, 20))),
            // The rule: at least MIN_HEAD_GAIN (8) more than the own sequence shares.
            (&prompt, 12, Some((0, 20))),
            (&prompt, 13, None),
            (&prompt, 20, None),
            // The prompt shorter than the head: shared is the prompt.
            (&short, 0, Some((0, 15))),
            (&short, 7, Some((0, 15))),
            (&short, 8, None),
            // A prompt no head starts.
            (&[5, 6, 7], 0, None),
            (&[], 0, None),
        ];
        let mut heads = Heads::new();
        heads.push(head(&a));
        heads.push(head(&b));
        heads.push(head(&c));
        for (prompt, keep, expected) in cases {
            assert_eq!(
                heads.best(prompt, *keep),
                *expected,
                "{prompt:?} keep {keep}"
            );
        }
        // b alone shares 12 with the prompt: worth it over 4 kept, not over 5.
        let mut only_b = Heads::new();
        only_b.push(head(&b));
        assert_eq!(only_b.best(&prompt, 4), Some((0, 12)));
        assert_eq!(only_b.best(&prompt, 5), None);
    }

    #[test]
    fn best_prefers_the_most_recently_prepared_among_equals() {
        let mut x: Vec<TokenId> = (0..10).collect();
        x.push(50);
        let mut y: Vec<TokenId> = (0..10).collect();
        y.push(60);
        let prompt: Vec<TokenId> = (0..30).collect();
        let mut heads = Heads::new();
        heads.push(head(&x));
        heads.push(head(&y));
        assert_eq!(heads.best(&prompt, 0), Some((1, 10)));
        heads.touch(&x);
        assert_eq!(heads.best(&prompt, 0), Some((1, 10)));
        assert_eq!(heads.get(1).map(|h| h.tokens.clone()), Some(x));
    }

    #[test]
    fn remove_and_clear() {
        let mut heads = Heads::new();
        heads.push(head(&[1; 10]));
        heads.push(head(&[2; 9]));
        assert_eq!(heads.remove(5), None);
        assert_eq!(heads.remove(0).map(|h| h.tokens.len()), Some(10));
        assert_eq!(heads.report(), vec![(9, 90)]);
        heads.clear();
        assert_eq!(heads.len(), 0);
        assert!(heads.report().is_empty());
    }
}
