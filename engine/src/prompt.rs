//! Turning rendered segments into tokens with the model's own vocabulary.

use std::collections::{HashMap, VecDeque};

use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::token::LlamaToken;

use crate::chat::PromptSegment;
use crate::kv::TokenId;

/// A prompt as the model sees it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct RenderedPrompt {
    /// The prompt text, special tokens written out (`<bos>`, `<start_of_turn>`, ...).
    pub text: String,
    /// The token ids the engine decodes.
    pub tokens: Vec<TokenId>,
}

/// The exact tokens the engine produced for recent replies, by reply text.
///
/// The next request re-renders the model's reply as an assistant message; tokenizing that
/// text afresh can give a different (canonical) token sequence than the one sampled, which
/// would end KV reuse at the first difference. Substituting the sampled tokens keeps the
/// whole reply reusable.
///
/// A reply that was cut short comes back as a prefix of what was streamed plus a marker
/// (barge-in: the history keeps what the user heard, then "…\n[interrupted]"). So a lookup
/// also matches a prefix: the reply segment's text begins with the text spelled by the
/// first tokens of a remembered reply. The longest such prefix wins; among equally long
/// ones, the reply sharing the most text with the segment, then the one whose whole text
/// it is, then the newest. The rest of the segment is tokenized as plain content. Bounded:
/// the oldest entries are dropped first.
#[derive(Debug, Default)]
pub struct ReplyMemo {
    entries: VecDeque<MemoEntry>,
    capacity: usize,
}

#[derive(Debug)]
struct MemoEntry {
    /// The reply text.
    text: String,
    /// The leading tokens of the reply whose pieces spell a prefix of `text`.
    tokens: Vec<TokenId>,
    /// `ends[i]`: bytes of `text` spelled by `tokens[..=i]`.
    ends: Vec<usize>,
}

impl MemoEntry {
    /// The tokens spelling the longest token-boundary prefix of `segment`, with its length
    /// in bytes (never 0, always on a character boundary of `segment`), and the bytes the
    /// texts share.
    fn prefix_of(&self, segment: &str) -> Option<(&[TokenId], usize, usize)> {
        let common = self
            .text
            .bytes()
            .zip(segment.bytes())
            .take_while(|(a, b)| a == b)
            .count();
        let n = self.ends.partition_point(|&end| end <= common);
        (1..=n)
            .rev()
            .map(|k| (k, self.ends[k - 1]))
            .find(|&(_, end)| end > 0 && segment.is_char_boundary(end))
            .map(|(k, end)| (&self.tokens[..k], end, common))
    }

    /// Whether the tokens spell exactly this text.
    fn is_whole(&self, text: &str) -> bool {
        self.text == text && self.ends.last() == Some(&text.len())
    }
}

impl ReplyMemo {
    /// A memo holding at most `capacity` replies.
    pub fn new(capacity: usize) -> Self {
        Self {
            entries: VecDeque::new(),
            capacity,
        }
    }

    /// The tokens recorded for exactly this reply text.
    #[cfg(test)]
    pub fn get(&self, text: &str) -> Option<&[TokenId]> {
        self.entries
            .iter()
            .find(|e| e.is_whole(text))
            .map(|e| e.tokens.as_slice())
    }

    /// The remembered tokens that spell the longest token-boundary prefix of `segment`,
    /// and how many bytes of `segment` they cover (the whole text for a known reply).
    pub fn lookup(&self, segment: &str) -> Option<(&[TokenId], usize)> {
        // Ranked by (bytes covered, bytes shared, whole reply); newest first, so a later
        // (older) entry replaces the best only when strictly better.
        type Rank = (usize, usize, bool);
        let mut best: Option<(&[TokenId], Rank)> = None;
        for e in self.entries.iter().rev() {
            let Some((tokens, end, common)) = e.prefix_of(segment) else {
                continue;
            };
            let rank = (end, common, e.is_whole(&segment[..end]));
            if best.is_none_or(|(_, b)| rank > b) {
                best = Some((tokens, rank));
            }
        }
        best.map(|(tokens, (end, _, _))| (tokens, end))
    }

    /// Record the tokens of a reply (replacing an older entry with the same text):
    /// `pieces[i]` is the text token `tokens[i]` spells (bytes; a character may be split
    /// between tokens). Only the leading tokens whose pieces spell a prefix of `text` are
    /// kept (a reply cut at a stop string keeps the tokens before it).
    pub fn remember(&mut self, text: String, tokens: &[TokenId], pieces: &[Vec<u8>]) {
        if text.is_empty() || self.capacity == 0 {
            return;
        }
        let mut ends = Vec::with_capacity(tokens.len());
        let mut end = 0;
        for piece in pieces.iter().take(tokens.len()) {
            let next = end + piece.len();
            if text.as_bytes().get(end..next) != Some(piece.as_slice()) {
                break;
            }
            end = next;
            ends.push(end);
        }
        if ends.is_empty() {
            return;
        }
        self.entries.retain(|e| e.text != text);
        if self.entries.len() == self.capacity {
            self.entries.pop_front();
        }
        self.entries.push_back(MemoEntry {
            text,
            tokens: tokens[..ends.len()].to_vec(),
            ends,
        });
    }
}

/// Token ids of recently tokenized segment texts, so a request does not tokenize again the
/// whole conversation it shares with the previous one (tokenizing ~1000 tokens of history
/// costs milliseconds per request). Keyed by text and by whether special tokens are parsed;
/// bounded by a count of texts and by the bytes it holds (texts + token ids): emptied when
/// either would be exceeded, so a process that sees new texts forever holds at most
/// [`TokenCache::BUDGET`] bytes of them.
#[derive(Debug, Default)]
pub struct TokenCache {
    map: HashMap<(bool, String), Vec<TokenId>>,
    capacity: usize,
    budget: usize,
    bytes: usize,
    /// The ids of the last text too large to keep.
    oversized: Vec<TokenId>,
}

impl TokenCache {
    /// The byte budget of the engine's cache: 2 MiB (about sixty full 4096-token contexts'
    /// worth of texts and ids).
    pub const BUDGET: usize = 2 << 20;

    /// A cache of at most `capacity` texts and [`Self::BUDGET`] bytes.
    pub fn new(capacity: usize) -> Self {
        Self::with_budget(capacity, Self::BUDGET)
    }

    /// A cache of at most `capacity` texts and `budget` bytes of texts and token ids.
    pub fn with_budget(capacity: usize, budget: usize) -> Self {
        Self {
            map: HashMap::new(),
            capacity,
            budget,
            bytes: 0,
            oversized: Vec::new(),
        }
    }

    fn tokens(&mut self, model: &LlamaModel, text: &str, parse_special: bool) -> &[TokenId] {
        self.tokens_with(text, parse_special, || tokenize(model, text, parse_special))
    }

    /// The cached ids of `text`, else `tokenize()`'s, kept when they fit the bounds (a
    /// text larger than the whole budget is returned, not kept).
    fn tokens_with(
        &mut self,
        text: &str,
        parse_special: bool,
        tokenize: impl FnOnce() -> Vec<TokenId>,
    ) -> &[TokenId] {
        let key = (parse_special, text.to_owned());
        if !self.map.contains_key(&key) {
            let ids = tokenize();
            let size = text.len() + ids.len() * std::mem::size_of::<TokenId>();
            if size > self.budget || self.capacity == 0 {
                // Too large to keep: held only until the next call.
                self.oversized = ids;
                return &self.oversized;
            }
            if self.map.len() >= self.capacity || self.bytes + size > self.budget {
                self.map.clear();
                self.bytes = 0;
            }
            self.bytes += size;
            self.map.insert(key.clone(), ids);
        }
        self.map.get(&key).map_or(&[], Vec::as_slice)
    }
}

/// Tokenize plain text (special-token parsing off, no BOS).
pub fn tokenize_plain(model: &LlamaModel, text: &str) -> Vec<TokenId> {
    tokenize(model, text, false)
}

fn tokenize(model: &LlamaModel, text: &str, parse_special: bool) -> Vec<TokenId> {
    if text.is_empty() {
        return Vec::new();
    }
    model
        .vocab()
        .tokenize(text.as_bytes(), false, parse_special)
        .into_iter()
        .map(|t| t.0)
        .collect()
}

/// Tokenize a rendering: BOS when the vocabulary asks for it, scaffolding with special
/// tokens parsed, content as plain text, replies from the memo when known (in full or a
/// prefix, [`ReplyMemo::lookup`]; the rest as plain text); texts seen before
/// come from `cache` when given.
pub fn tokenize_segments(
    model: &LlamaModel,
    segments: &[PromptSegment],
    memo: Option<&ReplyMemo>,
    mut cache: Option<&mut TokenCache>,
) -> RenderedPrompt {
    let vocab = model.vocab();
    let mut text = String::new();
    let mut tokens = Vec::new();
    if vocab.should_add_bos() {
        let bos = vocab.bos();
        tokens.push(bos.0);
        text.push_str(&String::from_utf8_lossy(
            &vocab.token_to_piece(bos, true, None),
        ));
    }
    let mut piece = |t: &str, special: bool, tokens: &mut Vec<TokenId>| match cache.as_deref_mut() {
        Some(c) => tokens.extend_from_slice(c.tokens(model, t, special)),
        None => tokens.extend(tokenize(model, t, special)),
    };
    for s in segments {
        text.push_str(s.text());
        match s {
            PromptSegment::Scaffold(t) => piece(t, true, &mut tokens),
            PromptSegment::Content(t) => piece(t, false, &mut tokens),
            PromptSegment::Reply(t) => match memo.and_then(|m| m.lookup(t)) {
                Some((known, covered)) => {
                    tokens.extend_from_slice(known);
                    if covered < t.len() {
                        piece(&t[covered..], false, &mut tokens);
                    }
                }
                None => piece(t, false, &mut tokens),
            },
        }
    }
    RenderedPrompt { text, tokens }
}

/// The text of one token (special tokens written out), for display.
pub fn token_text(model: &LlamaModel, token: TokenId) -> String {
    let vocab = model.vocab();
    if token < 0 || token >= vocab.n_tokens() {
        return String::new();
    }
    String::from_utf8_lossy(&vocab.token_to_piece(LlamaToken(token), true, None)).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One id per byte of the text.
    fn ids(text: &str) -> Vec<TokenId> {
        text.bytes().map(TokenId::from).collect()
    }

    #[test]
    fn the_token_cache_stays_within_its_byte_budget_for_ever_new_texts() {
        // 1 KiB budget; each 40-byte text costs 40 + 4 × 40 = 200 bytes.
        let mut cache = TokenCache::with_budget(1024, 1024);
        let mut calls = 0;
        for i in 0..1000 {
            let text = format!("{i:0>40}");
            let got = cache
                .tokens_with(&text, false, || {
                    calls += 1;
                    ids(&text)
                })
                .to_vec();
            assert_eq!(got, ids(&text));
            assert!(cache.bytes <= cache.budget, "{} bytes", cache.bytes);
            assert!(cache.map.len() <= 5);
        }
        assert_eq!(calls, 1000);
        // A text seen again while still held is not tokenized again.
        let text = "again";
        cache.tokens_with(text, false, || ids(text));
        cache.tokens_with(text, false, || panic!("tokenized twice"));
        // Keys differ by special-token parsing.
        let mut twice = 0;
        cache.tokens_with(text, true, || {
            twice += 1;
            ids(text)
        });
        assert_eq!(twice, 1);
    }

    #[test]
    fn a_text_larger_than_the_budget_is_returned_not_kept() {
        let mut cache = TokenCache::with_budget(16, 100);
        cache.tokens_with("small", false, || ids("small"));
        let big = "x".repeat(500);
        assert_eq!(cache.tokens_with(&big, false, || ids(&big)), &ids(&big)[..]);
        assert_eq!(
            cache.map.len(),
            1,
            "the big text must not evict the small one"
        );
        assert!(cache.bytes <= 100);
        cache.tokens_with("small", false, || panic!("the small text was dropped"));
        // The count bound too.
        let mut cache = TokenCache::with_budget(2, 1 << 20);
        for t in ["a", "b", "c"] {
            cache.tokens_with(t, false, || ids(t));
        }
        assert!(cache.map.len() <= 2);
    }

    /// Pieces of one byte per token except where given: tokens 1..=n.
    fn remember(m: &mut ReplyMemo, text: &str, pieces: &[&str]) {
        let tokens: Vec<TokenId> = (1..=pieces.len() as TokenId).collect();
        let pieces: Vec<Vec<u8>> = pieces.iter().map(|p| p.as_bytes().to_vec()).collect();
        m.remember(text.to_owned(), &tokens, &pieces);
    }

    #[test]
    fn memo_is_bounded_and_latest_wins() {
        let mut m = ReplyMemo::new(2);
        remember(&mut m, "a", &["a"]);
        remember(&mut m, "b", &["b"]);
        m.remember("a".into(), &[3], &[b"a".to_vec()]);
        m.remember("c".into(), &[4], &[b"c".to_vec()]);
        assert_eq!(m.get("a"), Some(&[3][..]));
        assert_eq!(m.get("b"), None);
        assert_eq!(m.get("c"), Some(&[4][..]));
        m.remember(String::new(), &[5], &[]);
        assert_eq!(m.get(""), None);
    }

    #[test]
    fn lookup_takes_the_longest_token_boundary_prefix() {
        let mut m = ReplyMemo::new(8);
        // Tokens 1..=4: "Да", ", ", "сей", "час." (the reply the user interrupted).
        remember(&mut m, "Да, сейчас.", &["Да", ", ", "сей", "час."]);
        // (segment, tokens used, bytes covered)
        type Case = (&'static str, Option<(&'static [TokenId], usize)>);
        let cases: &[Case] = &[
            // The whole reply.
            ("Да, сейчас.", Some((&[1, 2, 3, 4], "Да, сейчас.".len()))),
            // What was heard, then the marker: the tokens up to the last boundary inside it.
            ("Да, се…\n[x]", Some((&[1, 2], "Да, ".len()))),
            ("Да, сейчас…\n[x]", Some((&[1, 2, 3], "Да, сей".len()))),
            ("Д…", None),
            ("Нет.", None),
            ("", None),
        ];
        for (segment, want) in cases {
            assert_eq!(m.lookup(segment), *want, "{segment:?}");
        }
    }

    #[test]
    fn equal_prefixes_go_to_the_reply_sharing_most_then_the_whole_one_then_the_newest() {
        let mut m = ReplyMemo::new(8);
        remember(&mut m, "Да.", &["Да", "."]); // tokens 1, 2
        m.remember(
            "Да. Конечно.".into(),
            &[7, 8, 9],
            &[
                "Да".as_bytes().to_vec(),
                b".".to_vec(),
                " Конечно.".as_bytes().to_vec(),
            ],
        );
        // The reply whose whole text it is, although a newer one spells it too.
        assert_eq!(m.lookup("Да."), Some((&[1, 2][..], "Да.".len())));
        // The newer reply shares more of this text (it was interrupted after "Кон").
        assert_eq!(m.lookup("Да. Кон"), Some((&[7, 8][..], "Да.".len())));
        // Two prefixes of the same length: the newest.
        m.remember(
            "Да? Нет.".into(),
            &[5, 6],
            &["Да".as_bytes().to_vec(), b"?".to_vec()],
        );
        m.remember(
            "Да! Нет.".into(),
            &[3, 4],
            &["Да".as_bytes().to_vec(), b"!".to_vec()],
        );
        assert_eq!(m.lookup("Да, и"), Some((&[3][..], "Да".len())));
    }

    #[test]
    fn remembers_only_tokens_that_spell_the_text() {
        let mut m = ReplyMemo::new(8);
        // Cut at a stop string: the last token spells more than the reply.
        remember(&mut m, "ok", &["o", "k", "\n\nUser"]);
        assert_eq!(m.get("ok"), Some(&[1, 2][..]));
        // A character split between two tokens: no boundary inside it.
        m.remember(
            "жук".into(),
            &[1, 2, 3],
            &[vec![0xd0], vec![0xb6, 0xd1, 0x83], "к".as_bytes().to_vec()],
        );
        assert_eq!(m.lookup("жу…"), Some((&[1, 2][..], "жу".len())));
        assert_eq!(m.lookup("ж"), None);
        // Nothing spelled: nothing remembered.
        remember(&mut m, "x", &["y"]);
        assert_eq!(m.lookup("x"), None);
    }
}
