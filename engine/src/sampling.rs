//! Sampling decisions apart from llama.cpp: which stages a [`SamplingConfig`] puts in the
//! sampler chain, and how the chain and the lazy tool-call grammar share the choice of a
//! token.
//!
//! The worker turns [`chain_stages`] into `LlamaSampler`s and implements [`PickSteps`] over
//! llama.cpp's candidate array; the order of the steps, which decides what the grammar is
//! asked and when its expensive full pass runs, is [`pick`] here.

use crate::config::SamplingConfig;
use crate::kv::TokenId;

/// One stage of the sampler chain, in chain order.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Stage {
    /// Repeat penalty over the last `last_n` tokens (no frequency or presence penalty).
    Penalties {
        /// Tokens looked back at.
        last_n: i32,
        /// The penalty.
        repeat: f32,
    },
    /// The most likely token.
    Greedy,
    /// Keep the `k` most likely.
    TopK(i32),
    /// Nucleus with this probability (keeping at least one token).
    TopP(f32),
    /// Minimum probability relative to the most likely (keeping at least one token).
    MinP(f32),
    /// Temperature.
    Temp(f32),
    /// The random choice, with this seed.
    Dist(u32),
}

/// The chain for `s`: the repeat penalty when on, then greedy, or top-k / top-p / min-p
/// (each only when it filters anything), temperature and the seeded random choice.
pub(crate) fn chain_stages(s: &SamplingConfig) -> Vec<Stage> {
    let mut chain = Vec::new();
    if s.repeat_penalty != 1.0 && s.repeat_penalty > 0.0 && s.repeat_last_n > 0 {
        chain.push(Stage::Penalties {
            last_n: s.repeat_last_n,
            repeat: s.repeat_penalty,
        });
    }
    if s.is_greedy() {
        chain.push(Stage::Greedy);
    } else {
        if s.top_k > 0 {
            chain.push(Stage::TopK(s.top_k));
        }
        if s.top_p > 0.0 && s.top_p < 1.0 {
            chain.push(Stage::TopP(s.top_p));
        }
        if s.min_p > 0.0 && s.min_p < 1.0 {
            chain.push(Stage::MinP(s.min_p));
        }
        chain.push(Stage::Temp(s.temperature));
        chain.push(Stage::Dist(s.seed));
    }
    chain
}

/// The steps [`pick`] combines, each over the logits of the current position.
pub(crate) trait PickSteps {
    /// The chain's choice over all candidates.
    fn chain_pick(&mut self) -> Option<TokenId>;
    /// Whether the engaged grammar allows `token` (checked against that one token only).
    fn grammar_allows(&mut self, token: TokenId) -> bool;
    /// The chain's choice after the grammar masked all candidates (the full pass).
    fn masked_pick(&mut self) -> Option<TokenId>;
}

/// Pick the next token. The chain chooses first; without a grammar that is the pick. With
/// one (`grammar` set), the choice is checked against the grammar alone, and only when the
/// grammar rejects it (end-of-generation while a call is incomplete included) does the
/// grammar mask the full candidate list for the chain to choose again. `None`: the chain
/// chose nothing.
pub(crate) fn pick(steps: &mut impl PickSteps, grammar: bool) -> Option<TokenId> {
    let first = steps.chain_pick();
    match first {
        Some(t) if grammar => {
            if steps.grammar_allows(t) {
                Some(t)
            } else {
                steps.masked_pick()
            }
        }
        _ => first,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chain_stages_for_configs() {
        let greedy = SamplingConfig::greedy();
        let balanced = SamplingConfig::balanced();
        let with = |f: fn(&mut SamplingConfig)| {
            let mut s = SamplingConfig::balanced();
            f(&mut s);
            s
        };
        let cases: &[(SamplingConfig, &[Stage])] = &[
            (greedy.clone(), &[Stage::Greedy]),
            (
                balanced.clone(),
                &[
                    Stage::Penalties {
                        last_n: 64,
                        repeat: 1.1,
                    },
                    Stage::TopK(40),
                    Stage::TopP(0.95),
                    Stage::MinP(0.05),
                    Stage::Temp(0.7),
                    Stage::Dist(42),
                ],
            ),
            // Greedy with a repeat penalty keeps the penalty.
            (
                SamplingConfig {
                    repeat_penalty: 1.3,
                    ..SamplingConfig::greedy()
                },
                &[
                    Stage::Penalties {
                        last_n: 64,
                        repeat: 1.3,
                    },
                    Stage::Greedy,
                ],
            ),
            // A negative temperature is greedy too.
            (
                with(|s| {
                    s.temperature = -1.0;
                    s.repeat_penalty = 1.0;
                }),
                &[Stage::Greedy],
            ),
            // Filters that filter nothing are left out.
            (
                with(|s| {
                    s.repeat_penalty = 1.0;
                    s.top_k = 0;
                    s.top_p = 1.0;
                    s.min_p = 0.0;
                }),
                &[Stage::Temp(0.7), Stage::Dist(42)],
            ),
            (
                with(|s| {
                    s.repeat_penalty = 1.0;
                    s.top_k = -3;
                    s.top_p = 0.0;
                    s.min_p = 1.0;
                }),
                &[Stage::Temp(0.7), Stage::Dist(42)],
            ),
            // The penalty needs a positive value and a positive window.
            (
                with(|s| s.repeat_penalty = 0.0),
                &[
                    Stage::TopK(40),
                    Stage::TopP(0.95),
                    Stage::MinP(0.05),
                    Stage::Temp(0.7),
                    Stage::Dist(42),
                ],
            ),
            (
                with(|s| {
                    s.repeat_last_n = 0;
                    s.top_k = 0;
                    s.top_p = 1.0;
                    s.min_p = 0.0;
                }),
                &[Stage::Temp(0.7), Stage::Dist(42)],
            ),
            (
                with(|s| {
                    s.repeat_penalty = f32::NAN;
                    s.top_p = f32::NAN;
                    s.min_p = f32::NAN;
                    s.top_k = 0;
                }),
                &[Stage::Temp(0.7), Stage::Dist(42)],
            ),
        ];
        for (config, expected) in cases {
            assert_eq!(chain_stages(config), *expected, "{config:?}");
        }
    }

    /// A scripted pick: what the chain chooses before and after the mask, which tokens the
    /// grammar allows; records the steps taken.
    struct Script {
        chain: Option<TokenId>,
        allowed: &'static [TokenId],
        masked: Option<TokenId>,
        steps: Vec<String>,
    }

    impl PickSteps for Script {
        fn chain_pick(&mut self) -> Option<TokenId> {
            self.steps.push("chain".into());
            self.chain
        }
        fn grammar_allows(&mut self, token: TokenId) -> bool {
            self.steps.push(format!("check {token}"));
            self.allowed.contains(&token)
        }
        fn masked_pick(&mut self) -> Option<TokenId> {
            self.steps.push("mask".into());
            self.masked
        }
    }

    #[test]
    fn pick_checks_only_the_chains_choice_and_masks_on_rejection() {
        // (grammar engaged, chain's choice, grammar allows, choice after mask,
        //  picked, steps)
        type Case = (
            bool,
            Option<TokenId>,
            &'static [TokenId],
            Option<TokenId>,
            Option<TokenId>,
            &'static [&'static str],
        );
        let cases: &[Case] = &[
            // No grammar: the chain's choice, nothing checked.
            (false, Some(5), &[], Some(9), Some(5), &["chain"]),
            (false, None, &[], Some(9), None, &["chain"]),
            // Grammar allows the choice: one cheap check, no full pass.
            (true, Some(5), &[5], Some(9), Some(5), &["chain", "check 5"]),
            // Grammar rejects it (e.g. end-of-generation mid-call): full pass, chain again.
            (
                true,
                Some(1),
                &[5],
                Some(9),
                Some(9),
                &["chain", "check 1", "mask"],
            ),
            (
                true,
                Some(1),
                &[],
                None,
                None,
                &["chain", "check 1", "mask"],
            ),
            // The chain chose nothing: nothing to check.
            (true, None, &[5], Some(9), None, &["chain"]),
        ];
        for (grammar, chain, allowed, masked, picked, steps) in cases {
            let mut script = Script {
                chain: *chain,
                allowed,
                masked: *masked,
                steps: Vec::new(),
            };
            assert_eq!(pick(&mut script, *grammar), *picked);
            assert_eq!(script.steps, *steps);
        }
    }
}
