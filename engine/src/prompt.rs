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
/// whole reply reusable. Bounded: the oldest entries are dropped first.
#[derive(Debug, Default)]
pub struct ReplyMemo {
    entries: VecDeque<(String, Vec<TokenId>)>,
    capacity: usize,
}

impl ReplyMemo {
    /// A memo holding at most `capacity` replies.
    pub fn new(capacity: usize) -> Self {
        Self {
            entries: VecDeque::new(),
            capacity,
        }
    }

    /// The tokens recorded for this reply text.
    pub fn get(&self, text: &str) -> Option<&[TokenId]> {
        self.entries
            .iter()
            .rev()
            .find(|(t, _)| t == text)
            .map(|(_, v)| v.as_slice())
    }

    /// Record the tokens of a reply (replacing an older entry with the same text).
    pub fn remember(&mut self, text: String, tokens: Vec<TokenId>) {
        if text.is_empty() || self.capacity == 0 {
            return;
        }
        self.entries.retain(|(t, _)| *t != text);
        if self.entries.len() == self.capacity {
            self.entries.pop_front();
        }
        self.entries.push_back((text, tokens));
    }
}

/// Token ids of recently tokenized segment texts, so a request does not tokenize again the
/// whole conversation it shares with the previous one (tokenizing ~1000 tokens of history
/// costs milliseconds per request). Keyed by text and by whether special tokens are parsed;
/// bounded: emptied when full.
#[derive(Debug, Default)]
pub struct TokenCache {
    map: HashMap<(bool, String), Vec<TokenId>>,
    capacity: usize,
}

impl TokenCache {
    /// A cache of at most `capacity` texts.
    pub fn new(capacity: usize) -> Self {
        Self {
            map: HashMap::new(),
            capacity,
        }
    }

    fn tokens(&mut self, model: &LlamaModel, text: &str, parse_special: bool) -> &[TokenId] {
        let key = (parse_special, text.to_owned());
        if !self.map.contains_key(&key) && self.map.len() >= self.capacity {
            self.map.clear();
        }
        self.map
            .entry(key)
            .or_insert_with(|| tokenize(model, text, parse_special))
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
/// tokens parsed, content as plain text, replies from the memo when known; texts seen before
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
            PromptSegment::Reply(t) => match memo.and_then(|m| m.get(t)) {
                Some(known) => tokens.extend_from_slice(known),
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

    #[test]
    fn memo_is_bounded_and_latest_wins() {
        let mut m = ReplyMemo::new(2);
        m.remember("a".into(), vec![1]);
        m.remember("b".into(), vec![2]);
        m.remember("a".into(), vec![3]);
        m.remember("c".into(), vec![4]);
        assert_eq!(m.get("a"), Some(&[3][..]));
        assert_eq!(m.get("b"), None);
        assert_eq!(m.get("c"), Some(&[4][..]));
        m.remember(String::new(), vec![5]);
        assert_eq!(m.get(""), None);
    }
}
