//! The sampling decisions of [`super`] carried out over llama.cpp: its samplers built from
//! the chain's stages, the lazy tool-call grammar beside the chain, and [`super::pick`]'s
//! steps over llama.cpp's candidate array.

use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::data::LlamaTokenData;
use llama_cpp_2::token::data_array::LlamaTokenDataArray;
use llama_cpp_2::token::LlamaToken;

use super::{chain_reach, chain_stages, pick, top_n, PickSteps, Stage};
use crate::config::{GenerateConfig, SamplingConfig};
use crate::error::EngineError;
use crate::kv::TokenId;

/// The samplers of one generation: the lazy tool-call grammar apart from the rest, so the
/// expensive full grammar pass (every token of a 262k vocabulary checked) runs only when the
/// token the chain picked is one the grammar rejects.
pub(crate) struct Samplers {
    grammar: Option<LlamaSampler>,
    chain: LlamaSampler,
    /// How many of the most likely tokens hold the chain's choice
    /// ([`chain_reach`]); `None`: all of them.
    reach: Option<usize>,
}

impl Samplers {
    /// The samplers of a request with `config`: a grammar for a reply of given words, else
    /// the lazy tool-call grammar when the request has one, and the chain.
    pub(crate) fn new(model: &LlamaModel, config: &GenerateConfig) -> Result<Self, EngineError> {
        // A reply of given words: a grammar from the first token on.
        if let Some(words) = config.reply_words.as_ref().filter(|w| !w.is_empty()) {
            let text = crate::config::ToolCallGrammar::gbnf_words(words);
            let grammar = LlamaSampler::grammar(model, &text, "root")
                .map_err(|e| EngineError::Sampler(format!("reply grammar: {e}")))?;
            return Ok(Self::with(Some(grammar), model, &config.sampling));
        }
        // The request's own calls when it names them (none: no grammar at all).
        let text = match (&config.tool_call_grammar, &config.allowed_calls) {
            (Some(g), Some(calls)) => g.gbnf_for(calls),
            (Some(g), None) => Some(g.gbnf()),
            (None, _) => None,
        };
        let grammar = match text {
            Some(text) => Some(
                LlamaSampler::grammar_lazy_patterns(
                    model,
                    &text,
                    "root",
                    &[config
                        .tool_call_grammar
                        .as_ref()
                        .map(crate::config::ToolCallGrammar::trigger_pattern)
                        .unwrap_or_default()],
                    &[],
                )
                .map_err(|e| EngineError::Sampler(format!("tool-call grammar: {e}")))?,
            ),
            None => None,
        };
        Ok(Self::with(grammar, model, &config.sampling))
    }

    fn with(grammar: Option<LlamaSampler>, model: &LlamaModel, s: &SamplingConfig) -> Self {
        let stages = chain_stages(s);
        Self {
            grammar,
            chain: build_chain(model, &stages),
            reach: chain_reach(&stages),
        }
    }

    /// Tell the samplers about a chosen token. Never called with end-of-generation.
    pub(crate) fn accept(&mut self, token: TokenId) {
        if let Some(g) = &mut self.grammar {
            if g.try_accept(LlamaToken(token)).is_err() {
                // The grammar refused a token it had not masked (e.g. a reply prefix that is
                // not a valid call): continue without it rather than fail the turn.
                self.grammar = None;
            }
        }
        let _ = self.chain.try_accept(LlamaToken(token));
    }

    /// Pick the next token from the logits of batch output `idx` ([`pick`]: the chain
    /// chooses, an engaged grammar checks that choice and masks all candidates only when
    /// it rejects it).
    pub(crate) fn pick(
        &mut self,
        ctx: &LlamaContext<'_>,
        idx: i32,
        buffers: &mut PickBuffers,
    ) -> Result<TokenId, EngineError> {
        let grammar = self.grammar.is_some();
        let mut steps = LlamaPick {
            ctx,
            idx,
            candidates: &mut buffers.candidates,
            top: &mut buffers.top,
            samplers: self,
        };
        pick(&mut steps, grammar)
            .ok_or_else(|| EngineError::Sampler("the sampler selected no token".into()))
    }
}

/// Buffers a generation reuses from token to token.
pub(crate) struct PickBuffers {
    /// The logits of one step.
    candidates: LlamaTokenDataArray,
    /// The most likely tokens of one step.
    top: Vec<(TokenId, f32)>,
}

impl PickBuffers {
    /// Empty buffers.
    pub(crate) fn new() -> Self {
        Self {
            candidates: LlamaTokenDataArray::new(Vec::new(), false),
            top: Vec::new(),
        }
    }
}

/// The sampler chain of `stages` ([`chain_stages`]).
fn build_chain(model: &LlamaModel, stages: &[Stage]) -> LlamaSampler {
    let chain: Vec<LlamaSampler> = stages
        .iter()
        .map(|stage| match *stage {
            Stage::Penalties { last_n, repeat } => {
                LlamaSampler::penalties(model.n_vocab(), last_n, repeat, 0.0, 0.0)
            }
            Stage::Greedy => LlamaSampler::greedy(),
            Stage::TopK(k) => LlamaSampler::top_k(k),
            Stage::TopP(p) => LlamaSampler::top_p(p, 1),
            Stage::MinP(p) => LlamaSampler::min_p(p, 1),
            Stage::Temp(t) => LlamaSampler::temp(t),
            Stage::Dist(seed) => LlamaSampler::dist(seed),
        })
        .collect();
    LlamaSampler::chain_simple(chain)
}

/// [`pick`]'s steps over llama.cpp's logits of batch output `idx`.
struct LlamaPick<'a, 'm> {
    ctx: &'a LlamaContext<'m>,
    idx: i32,
    candidates: &'a mut LlamaTokenDataArray,
    /// Scratch for the most likely tokens ([`top_n`]).
    top: &'a mut Vec<(TokenId, f32)>,
    samplers: &'a mut Samplers,
}

/// How many of the most likely candidates the grammar masks before it masks them all.
const MASK_FIRST: usize = 512;

impl LlamaPick<'_, '_> {
    /// Fill the candidate buffer with the logits.
    fn load_candidates(&mut self) {
        let logits = self.ctx.get_logits_ith(self.idx);
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

    /// Fill the candidate buffer with the `n` most likely tokens only, in token order.
    fn load_top(&mut self, n: usize) {
        top_n(self.ctx.get_logits_ith(self.idx), n, self.top);
        let data = &mut self.candidates.data;
        data.clear();
        data.extend(
            self.top
                .iter()
                .map(|&(id, l)| LlamaTokenData::new(LlamaToken(id), l, 0.0)),
        );
        self.candidates.selected = None;
        self.candidates.sorted = false;
    }
}

impl PickSteps for LlamaPick<'_, '_> {
    /// Where the chain's first filter keeps a known few (greedy, top-k) it sees only the
    /// tokens that can survive it ([`chain_reach`]): the same choice, without
    /// writing the whole vocabulary into the candidate array for every token.
    fn chain_pick(&mut self) -> Option<TokenId> {
        match self.samplers.reach {
            Some(n) => self.load_top(n),
            None => self.load_candidates(),
        }
        self.candidates.apply_sampler(&mut self.samplers.chain);
        self.candidates.selected_token().map(|t| t.0)
    }

    fn grammar_allows(&mut self, token: TokenId) -> bool {
        let Some(grammar) = self.samplers.grammar.as_mut() else {
            return true;
        };
        let logit = usize::try_from(token)
            .ok()
            .and_then(|i| self.ctx.get_logits_ith(self.idx).get(i).copied())
            .unwrap_or(0.0);
        let mut one = LlamaTokenDataArray::new(
            vec![LlamaTokenData::new(LlamaToken(token), logit, 0.0)],
            false,
        );
        one.apply_sampler(grammar);
        one.data.first().is_some_and(|d| d.logit().is_finite())
    }

    /// The grammar masks the [`MASK_FIRST`] most likely candidates first; only when it
    /// allows none of them does it go through the whole vocabulary (262k tokens for Gemma,
    /// tens of milliseconds). For greedy picking the two give the same token (the best
    /// allowed token is among the most likely whenever any of them is allowed); sampling
    /// chooses among the allowed ones of those candidates.
    fn masked_pick(&mut self) -> Option<TokenId> {
        self.load_candidates();
        if let Some(grammar) = self.samplers.grammar.as_mut() {
            let data = &mut self.candidates.data;
            if data.len() > MASK_FIRST {
                data.select_nth_unstable_by(MASK_FIRST, |a, b| b.logit().total_cmp(&a.logit()));
                let mut top = LlamaTokenDataArray::new(data[..MASK_FIRST].to_vec(), false);
                top.apply_sampler(grammar);
                if top.data.iter().any(|d| d.logit().is_finite()) {
                    top.apply_sampler(&mut self.samplers.chain);
                    return top.selected_token().map(|t| t.0);
                }
            }
            self.candidates.apply_sampler(grammar);
        }
        self.candidates.apply_sampler(&mut self.samplers.chain);
        self.candidates.selected_token().map(|t| t.0)
    }
}
