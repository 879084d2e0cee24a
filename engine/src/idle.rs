//! Idle-time work: what the worker decodes while no command waits, and the record of what it
//! decoded ahead of a session's next request.
//!
//! Pure bookkeeping. [`IdleQueue`] holds the work not started yet, at most one item per
//! session: the chat framing after a reply ([`IdleWork::Anticipate`], started once the worker
//! has been idle for [`ANTICIPATE_AFTER`]) or a partial transcript
//! ([`IdleWork::DecodeAhead`], started at once). [`AheadBook`] remembers, per sequence, the tokens
//! decoded that way, so the next request can report how many of the tokens it reused were
//! decoded ahead ([`anticipated_tokens`]).

use std::time::Duration;

use porfiry_seam::Message;

use crate::kv::TokenId;

/// How long the worker must have been idle after a reply before it decodes the framing of
/// the session's next message ([`EngineParams::anticipate`](crate::EngineParams::anticipate)).
pub const ANTICIPATE_AFTER: Duration = Duration::from_millis(40);
/// The most tokens decoded ahead of a request after a reply (chat framing is a handful).
pub(crate) const MAX_ANTICIPATED: usize = 32;

/// Idle-time work, done when no command is waiting.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum IdleWork {
    /// A session's conversation including the reply just made: what its next request will
    /// start with. Decode the framing that opens the next message.
    Anticipate {
        seq: i32,
        session: String,
        system: String,
        messages: Vec<Message>,
    },
    /// A session's conversation with the user's words heard so far as its last message
    /// ([`crate::Engine::decode_ahead`]). Decode it up to the end of those words.
    DecodeAhead {
        session: String,
        system: String,
        messages: Vec<Message>,
    },
}

impl IdleWork {
    /// The session the work is for.
    pub fn session(&self) -> &str {
        match self {
            IdleWork::Anticipate { session, .. } | IdleWork::DecodeAhead { session, .. } => session,
        }
    }

    /// How long the worker must have been idle before starting it.
    pub fn delay(&self) -> Duration {
        match self {
            IdleWork::Anticipate { .. } => ANTICIPATE_AFTER,
            IdleWork::DecodeAhead { .. } => Duration::ZERO,
        }
    }
}

/// Idle-time work not started yet, oldest first.
#[derive(Debug, Clone, Default)]
pub(crate) struct IdleQueue {
    pending: Vec<IdleWork>,
}

impl IdleQueue {
    /// Nothing pending.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    /// How long to wait for a command before starting the work due first (`None`: nothing
    /// pending, wait for a command).
    pub fn next_delay(&self) -> Option<Duration> {
        self.pending.iter().map(IdleWork::delay).min()
    }

    /// The framing after a reply in `seq`, to decode once idle. Queued behind what is
    /// pending (the reply's request already dropped its session's work).
    pub fn anticipate(
        &mut self,
        seq: i32,
        session: String,
        system: String,
        messages: Vec<Message>,
    ) {
        self.pending.push(IdleWork::Anticipate {
            seq,
            session,
            system,
            messages,
        });
    }

    /// A prefill hint: replaces the session's work not started yet (a newer partial
    /// utterance, or the framing after a reply, which the prefill covers).
    pub fn decode_ahead(&mut self, session: String, system: String, messages: Vec<Message>) {
        self.drop_session(&session);
        self.pending.push(IdleWork::DecodeAhead {
            session,
            system,
            messages,
        });
    }

    /// A request of `session` came: its work not started yet is superseded. Other
    /// sessions' work stays.
    pub fn drop_session(&mut self, session: &str) {
        self.pending.retain(|p| p.session() != session);
    }

    /// Take the work due first: the shortest delay, oldest first among equals.
    pub fn take_next(&mut self) -> Option<IdleWork> {
        let next = self
            .pending
            .iter()
            .enumerate()
            .min_by_key(|(i, p)| (p.delay(), *i))
            .map(|(i, _)| i)?;
        Some(self.pending.remove(next))
    }

    /// Forget everything pending.
    pub fn clear(&mut self) {
        self.pending.clear();
    }
}

/// Tokens decoded ahead of a request: `tokens` at positions `start..` of sequence `seq`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Ahead {
    pub seq: i32,
    pub start: usize,
    pub tokens: Vec<TokenId>,
}

/// Idle-time decodes, at most one record per sequence, until the sequence's next request
/// accounts for them.
#[derive(Debug, Clone, Default)]
pub(crate) struct AheadBook {
    records: Vec<Ahead>,
}

impl AheadBook {
    /// Nothing decoded ahead.
    pub fn new() -> Self {
        Self::default()
    }

    /// Remember `tokens` decoded at positions `start..` of `seq`. They are joined to the
    /// sequence's earlier record when they start inside it or right after it (replacing
    /// whatever of it lay from `start` on); otherwise they replace it. Nothing to remember
    /// when `tokens` is empty.
    pub fn note(&mut self, seq: i32, start: usize, tokens: &[TokenId]) {
        if tokens.is_empty() {
            return;
        }
        let (start, tokens) = match self.records.iter().position(|a| a.seq == seq) {
            Some(i) => {
                let old = self.records.swap_remove(i);
                if old.start <= start && start <= old.start + old.tokens.len() {
                    let mut joined = old.tokens[..start - old.start].to_vec();
                    joined.extend_from_slice(tokens);
                    (old.start, joined)
                } else {
                    (start, tokens.to_vec())
                }
            }
            None => (start, tokens.to_vec()),
        };
        self.records.push(Ahead { seq, start, tokens });
    }

    /// Take `seq`'s record for its next request. `held` is what the sequence holds now; a
    /// record it no longer holds (the sequence was trimmed or reused since) is dropped.
    pub fn take(&mut self, seq: i32, held: &[TokenId]) -> Option<Ahead> {
        self.records
            .iter()
            .position(|a| a.seq == seq)
            .map(|i| self.records.swap_remove(i))
            .filter(|a| held.get(a.start..a.start + a.tokens.len()) == Some(a.tokens.as_slice()))
    }

    /// Forget every record.
    pub fn clear(&mut self) {
        self.records.clear();
    }
}

/// How a request's sequence was made ready, as far as [`anticipated_tokens`] cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Reuse {
    /// Cached tokens kept for the prompt.
    pub keep: usize,
    /// Tokens restored from a prepared head (0: none).
    pub head_tokens: usize,
    /// Whether the cache had to be dropped and the prompt prefilled in full.
    pub full_reprefill: bool,
}

/// `GenerationStats::anticipated_tokens`: the tokens the request kept (`reuse.keep`) that
/// were decoded ahead of it (`ahead`, as taken before the sequence was prepared). None when
/// the sequence was replaced by a head or dropped for a full prefill.
pub(crate) fn anticipated_tokens(ahead: Option<&Ahead>, reuse: Reuse) -> usize {
    match ahead {
        Some(a) if reuse.head_tokens == 0 && !reuse.full_reprefill => reuse
            .keep
            .min(a.start + a.tokens.len())
            .saturating_sub(a.start),
        _ => 0,
    }
}

/// The framing to decode after a reply: `next` is the prefix every continuation of the
/// conversation shares, `held` what the sequence holds, `room` the cells free for it after
/// `held`. Returns where decoding starts (`held.len()`), or `None` when there is nothing to
/// decode, more than [`MAX_ANTICIPATED`] tokens, `held` is not the start of `next`, or it
/// does not fit without evicting anyone.
pub(crate) fn framing_start(next: &[TokenId], held: &[TokenId], room: usize) -> Option<usize> {
    let start = held.len();
    if next.len() <= start
        || next.len() - start > MAX_ANTICIPATED
        || !next.starts_with(held)
        || room <= next.len() - start
    {
        return None;
    }
    Some(start)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn anticipate(seq: i32, session: &str) -> (i32, String, String, Vec<Message>) {
        (seq, session.into(), "sys".into(), vec![Message::user("hi")])
    }

    /// One queue operation for the table tests.
    #[derive(Clone, Copy)]
    enum Op {
        /// A reply in (seq, session): its framing queued.
        Reply(i32, &'static str),
        /// A prefill hint for the session, with the words heard so far.
        Hint(&'static str, &'static str),
        /// A request of the session.
        Request(&'static str),
    }

    fn apply(queue: &mut IdleQueue, ops: &[Op]) {
        for op in ops {
            match *op {
                Op::Reply(seq, session) => {
                    let (seq, session, system, messages) = anticipate(seq, session);
                    queue.anticipate(seq, session, system, messages);
                }
                Op::Hint(session, words) => {
                    queue.decode_ahead(session.into(), "sys".into(), vec![Message::user(words)])
                }
                Op::Request(session) => queue.drop_session(session),
            }
        }
    }

    /// What the queue hands out, in order: ("A" anticipate / "P" + words, session).
    fn drain(queue: &mut IdleQueue) -> Vec<(String, String)> {
        std::iter::from_fn(|| queue.take_next())
            .map(|p| match p {
                IdleWork::Anticipate { session, .. } => ("A".into(), session),
                IdleWork::DecodeAhead {
                    session, messages, ..
                } => (
                    format!("P {}", messages.last().map_or("", |m| m.content.as_str())),
                    session,
                ),
            })
            .collect()
    }

    #[test]
    fn queue_replacement_rules() {
        use Op::*;
        // (operations, work handed out in order)
        type Case = (&'static [Op], &'static [(&'static str, &'static str)]);
        let cases: &[Case] = &[
            (&[], &[]),
            (&[Reply(0, "a")], &[("A", "a")]),
            // A newer hint replaces one not started.
            (&[Hint("a", "hel"), Hint("a", "hello")], &[("P hello", "a")]),
            // A hint replaces the framing after the session's reply (it covers it).
            (&[Reply(0, "a"), Hint("a", "wh")], &[("P wh", "a")]),
            // Another session's hint keeps it; the hint (no delay) goes first.
            (
                &[Reply(0, "a"), Hint("b", "x")],
                &[("P x", "b"), ("A", "a")],
            ),
            // A session's own request drops its pending work...
            (&[Reply(0, "a"), Request("a")], &[]),
            (&[Hint("a", "x"), Request("a")], &[]),
            // ...another session's request keeps it.
            (&[Reply(0, "a"), Request("b")], &[("A", "a")]),
            (
                &[Hint("a", "x"), Reply(1, "b"), Request("b")],
                &[("P x", "a")],
            ),
            // Equal delays: oldest first.
            (
                &[Reply(0, "a"), Reply(1, "b"), Hint("c", "1"), Hint("d", "2")],
                &[("P 1", "c"), ("P 2", "d"), ("A", "a"), ("A", "b")],
            ),
        ];
        for (ops, expected) in cases {
            let mut queue = IdleQueue::new();
            apply(&mut queue, ops);
            let got = drain(&mut queue);
            let expected: Vec<(String, String)> = expected
                .iter()
                .map(|(k, s)| ((*k).to_owned(), (*s).to_owned()))
                .collect();
            assert_eq!(got, expected);
            assert!(queue.is_empty());
        }
    }

    #[test]
    fn next_delay_is_the_shortest_pending() {
        use Op::*;
        let cases: &[(&[Op], Option<Duration>)] = &[
            (&[], None),
            (&[Reply(0, "a")], Some(ANTICIPATE_AFTER)),
            (&[Hint("a", "x")], Some(Duration::ZERO)),
            (&[Reply(0, "a"), Hint("b", "x")], Some(Duration::ZERO)),
            (&[Reply(0, "a"), Hint("a", "x"), Request("a")], None),
        ];
        for (ops, delay) in cases {
            let mut queue = IdleQueue::new();
            apply(&mut queue, ops);
            assert_eq!(queue.next_delay(), *delay);
        }
        let mut queue = IdleQueue::new();
        apply(&mut queue, &[Reply(0, "a"), Hint("b", "x")]);
        queue.clear();
        assert!(queue.is_empty());
        assert_eq!(queue.take_next(), None);
    }

    #[test]
    fn anticipate_keeps_what_it_was_given() {
        let mut queue = IdleQueue::new();
        let (seq, session, system, messages) = anticipate(3, "s");
        queue.anticipate(seq, session.clone(), system.clone(), messages.clone());
        assert_eq!(
            queue.take_next(),
            Some(IdleWork::Anticipate {
                seq,
                session,
                system,
                messages
            })
        );
    }

    #[test]
    fn notes_join_or_replace() {
        // (notes: (seq, start, tokens); expected record of seq 0: (start, tokens))
        type Note = (i32, usize, &'static [TokenId]);
        type Case = (&'static [Note], Option<(usize, &'static [TokenId])>);
        let cases: &[Case] = &[
            (&[], None),
            (&[(0, 5, &[])], None),
            (&[(0, 5, &[1, 2])], Some((5, &[1, 2]))),
            // Right after the earlier record: joined.
            (&[(0, 5, &[1, 2]), (0, 7, &[3])], Some((5, &[1, 2, 3]))),
            // Inside it: what lay from `start` on is replaced.
            (
                &[(0, 5, &[1, 2, 3]), (0, 6, &[9, 9])],
                Some((5, &[1, 9, 9])),
            ),
            (&[(0, 5, &[1, 2, 3]), (0, 5, &[8])], Some((5, &[8]))),
            // Before it or past its end: replaced.
            (&[(0, 5, &[1, 2]), (0, 4, &[7])], Some((4, &[7]))),
            (&[(0, 5, &[1, 2]), (0, 8, &[7])], Some((8, &[7]))),
            // An empty note leaves the record alone.
            (&[(0, 5, &[1, 2]), (0, 9, &[])], Some((5, &[1, 2]))),
            // Other sequences have their own records.
            (&[(0, 5, &[1, 2]), (1, 7, &[3])], Some((5, &[1, 2]))),
            (&[(1, 0, &[3]), (0, 2, &[4])], Some((2, &[4]))),
        ];
        for (notes, expected) in cases {
            let mut book = AheadBook::new();
            for (seq, start, tokens) in *notes {
                book.note(*seq, *start, tokens);
            }
            let got = book.records.iter().find(|a| a.seq == 0).cloned();
            assert_eq!(
                got.as_ref().map(|a| (a.start, a.tokens.as_slice())),
                *expected,
                "{notes:?}"
            );
        }
    }

    #[test]
    fn take_drops_records_the_sequence_no_longer_holds() {
        // (held now, record taken)
        let record = Ahead {
            seq: 0,
            start: 3,
            tokens: vec![7, 8],
        };
        let cases: &[(&[TokenId], bool)] = &[
            (&[1, 2, 3, 7, 8], true),
            (&[1, 2, 3, 7, 8, 9, 9], true),
            // Other tokens before it do not matter: the positions do.
            (&[5, 5, 5, 7, 8], true),
            (&[1, 2, 3, 7], false),
            (&[1, 2, 3, 7, 9], false),
            (&[1, 2, 3], false),
            (&[], false),
        ];
        for (held, taken) in cases {
            let mut book = AheadBook::new();
            book.note(record.seq, record.start, &record.tokens);
            book.note(1, 0, &[4]);
            let got = book.take(0, held);
            assert_eq!(got.is_some(), *taken, "{held:?}");
            if let Some(a) = got {
                assert_eq!(a, record);
            }
            // Taken or dropped, it is gone; other sequences keep theirs.
            assert_eq!(book.take(0, held), None);
            assert!(book.take(1, &[4]).is_some());
        }
        let mut book = AheadBook::new();
        book.note(0, 0, &[1]);
        book.clear();
        assert_eq!(book.take(0, &[1]), None);
    }

    #[test]
    fn anticipated_accounting() {
        let ahead = Ahead {
            seq: 0,
            start: 10,
            tokens: vec![1; 5],
        };
        // (record, keep, head_tokens, full_reprefill, anticipated)
        let cases: &[(Option<&Ahead>, usize, usize, bool, usize)] = &[
            (None, 20, 0, false, 0),
            // The whole record kept.
            (Some(&ahead), 15, 0, false, 5),
            (Some(&ahead), 40, 0, false, 5),
            // Part of it kept (the prompt diverges inside the decoded-ahead tokens).
            (Some(&ahead), 12, 0, false, 2),
            (Some(&ahead), 10, 0, false, 0),
            (Some(&ahead), 3, 0, false, 0),
            // The sequence was replaced by a head or prefilled in full.
            (Some(&ahead), 15, 9, false, 0),
            (Some(&ahead), 15, 0, true, 0),
        ];
        for (ahead, keep, head_tokens, full_reprefill, expected) in cases {
            let reuse = Reuse {
                keep: *keep,
                head_tokens: *head_tokens,
                full_reprefill: *full_reprefill,
            };
            assert_eq!(
                anticipated_tokens(*ahead, reuse),
                *expected,
                "{ahead:?} {reuse:?}"
            );
        }
    }

    #[test]
    fn framing_start_rules() {
        let next: Vec<TokenId> = (0..10).collect();
        let long: Vec<TokenId> = (0..(4 + MAX_ANTICIPATED as TokenId + 1)).collect();
        // (next, held, room, start)
        type Case<'a> = (&'a [TokenId], &'a [TokenId], usize, Option<usize>);
        let cases: &[Case<'_>] = &[
            (&next, &[0, 1, 2, 3], 100, Some(4)),
            (&next, &[], 100, Some(0)),
            // Room must exceed the tokens to decode.
            (&next, &[0, 1, 2, 3], 7, Some(4)),
            (&next, &[0, 1, 2, 3], 6, None),
            // Nothing beyond what is held.
            (&next, &next, 100, None),
            (&[0, 1], &[0, 1, 2], 100, None),
            // The sequence holds something else.
            (&next, &[0, 1, 9], 100, None),
            // At most MAX_ANTICIPATED tokens.
            (&long[..4 + MAX_ANTICIPATED], &[0, 1, 2, 3], 100, Some(4)),
            (&long, &[0, 1, 2, 3], 100, None),
        ];
        for (next, held, room, expected) in cases {
            assert_eq!(
                framing_start(next, held, *room),
                *expected,
                "{next:?} {held:?} {room}"
            );
        }
    }
}
