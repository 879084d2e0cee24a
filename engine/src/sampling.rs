//! Sampling decisions apart from llama.cpp: which stages a [`SamplingConfig`] puts in the
//! sampler chain, and how the chain and the lazy tool-call grammar share the choice of a
//! token.
//!
//! [`llama`] turns [`chain_stages`] into `LlamaSampler`s and implements [`PickSteps`] over
//! llama.cpp's candidate array; the order of the steps, which decides what the grammar is
//! asked and when its expensive full pass runs, is [`pick`] here.

pub(crate) mod llama;

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

/// How many of the most likely tokens the chain can choose from, when that is known before
/// the chain runs: the chain's first filter after the repeat penalty keeps `k` tokens
/// (greedy: 1; top-k: `k`), and the penalty only lowers the logits of the tokens in its
/// window (at most `last_n` distinct ones), so whatever the chain keeps is among the
/// `k + last_n` most likely by raw logit (proof: a token with that many above it still has
/// `k` unpenalized ones above it after the penalty). `None`: the chain looks at the whole
/// vocabulary (top-p or min-p first, no top-k).
///
/// This is what lets a token be chosen from a few dozen candidates instead of the 262,144 a
/// Gemma vocabulary puts in llama.cpp's candidate array on every decoded token.
pub(crate) fn chain_reach(stages: &[Stage]) -> Option<usize> {
    let first = stages
        .iter()
        .find(|s| !matches!(s, Stage::Penalties { .. }))?;
    let k = match first {
        Stage::Greedy => 1,
        Stage::TopK(k) if *k > 0 => *k as usize,
        _ => return None,
    };
    let window: usize = stages
        .iter()
        .map(|s| match s {
            Stage::Penalties { last_n, .. } => (*last_n).max(0) as usize,
            _ => 0,
        })
        .sum();
    Some(k + window)
}

/// The `n` largest of `logits` as (token id, logit), in token-id order — the order of
/// llama.cpp's full candidate array, so that among equal logits the same token wins (the
/// lowest id for greedy). Among equal logits at the cut, lower ids are kept. NaN counts as
/// smallest. `out` is cleared first.
pub(crate) fn top_n(logits: &[f32], n: usize, out: &mut Vec<(TokenId, f32)>) {
    out.clear();
    if n == 0 {
        return;
    }
    // `out` unsorted; `low` is the position of its smallest (the latest of equal ones).
    let key = |l: f32| if l.is_nan() { f32::NEG_INFINITY } else { l };
    let mut low = 0usize;
    let lowest = |out: &[(TokenId, f32)]| {
        let mut at = 0;
        for (i, e) in out.iter().enumerate() {
            let (a, b) = (key(e.1), key(out[at].1));
            if a < b || (a == b && e.0 > out[at].0) {
                at = i;
            }
        }
        at
    };
    const CHUNK: usize = 64;
    for (c, chunk) in logits.chunks(CHUNK).enumerate() {
        if out.len() == n {
            // Most chunks hold nothing above the current cut: one vectorizable max.
            let max = chunk.iter().fold(f32::NEG_INFINITY, |m, &l| m.max(l));
            if max <= key(out[low].1) {
                continue;
            }
        }
        for (j, &l) in chunk.iter().enumerate() {
            let id = (c * CHUNK + j) as TokenId;
            if out.len() < n {
                out.push((id, l));
                if out.len() == n {
                    low = lowest(out);
                }
            } else if key(l) > key(out[low].1) {
                out[low] = (id, l);
                low = lowest(out);
            }
        }
    }
    out.sort_unstable_by_key(|e| e.0);
}

/// How far below the largest logit a logit still enters [`log_prob`]'s normalizer: each one
/// further below adds less than e⁻²⁰ (2·10⁻⁹) of the largest term, so even all of a
/// 262,144-token vocabulary there move the log-probability by less than 6·10⁻⁴.
const LOG_PROB_REACH: f32 = 20.0;

/// Logits [`log_prob`] takes at once: one vectorizable step of its two passes.
const LANES: usize = 16;

/// The natural-log probability of `token` under the softmax of `logits` (the whole
/// vocabulary, temperature 1): `logits[token] − log Σ exp(logits)`. The sum leaves out a
/// run of [`LANES`] logits that all lie more than [`LOG_PROB_REACH`] below the largest (on
/// a sure step, nearly all of them), and NaN logits. Two branch-free passes over the logits
/// (the largest, then the sum with [`exp_nonpositive`]): a fraction of a millisecond for
/// Gemma's 262,144 logits, against a decode step of over ten. `None` when `token` is not in
/// `logits` or its logit is not finite.
pub(crate) fn log_prob(logits: &[f32], token: TokenId) -> Option<f32> {
    let chosen = *logits.get(usize::try_from(token).ok()?)?;
    if !chosen.is_finite() {
        return None;
    }
    let runs = logits.chunks_exact(LANES);
    let rest = runs.remainder();
    let mut lanes = [f32::NEG_INFINITY; LANES];
    for run in runs.clone() {
        for (m, &l) in lanes.iter_mut().zip(run) {
            *m = m.max(l);
        }
    }
    let max = lanes
        .iter()
        .chain(rest)
        .fold(f32::NEG_INFINITY, |m, &l| m.max(l));
    let cut = max - LOG_PROB_REACH;
    let mut sums = [0.0f32; LANES];
    for run in runs {
        if run.iter().fold(f32::NEG_INFINITY, |m, &l| m.max(l)) < cut {
            continue;
        }
        for (s, &l) in sums.iter_mut().zip(run) {
            // NaN: `max` gives −87, a term of nothing.
            *s += exp_nonpositive(l - max);
        }
    }
    let sum = sums
        .iter()
        .map(|&s| f64::from(s))
        .chain(
            rest.iter()
                .filter(|l| !l.is_nan())
                .map(|&l| f64::from(exp_nonpositive(l - max))),
        )
        .sum::<f64>();
    Some((f64::from(chosen - max) - sum.ln()) as f32)
}

/// e^x for x ≤ 0 (below −87: about 0): 2^(x·log₂e) split into a whole power, set in the
/// exponent bits, and the fraction's power by a degree-5 polynomial (relative error about
/// 3·10⁻⁶). Branch-free, so a loop of it vectorizes; NaN counts as −87.
#[inline(always)]
fn exp_nonpositive(x: f32) -> f32 {
    let x = x.max(-87.0).min(0.0);
    let t = x * std::f32::consts::LOG2_E;
    // Rounded down (the cast rounds toward zero; t ≤ 0).
    let mut whole = t as i32;
    if whole as f32 > t {
        whole -= 1;
    }
    let f = t - whole as f32;
    let p = 1.0
        + f * (0.693_147_2
            + f * (0.240_226_5 + f * (0.055_504_11 + f * (0.009_618_129 + f * 0.001_333_355))));
    f32::from_bits(((whole + 127) as u32) << 23) * p
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

    /// The exact log-softmax of `logits` at `token`.
    fn exact(logits: &[f32], token: usize) -> f64 {
        let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let sum: f64 = logits.iter().map(|&l| f64::from(l - max).exp()).sum();
        f64::from(logits[token] - max) - sum.ln()
    }

    #[test]
    fn log_prob_is_the_log_softmax_of_the_logits() {
        // Two equal logits and many far below: each about ln 0.5.
        let mut logits = vec![-40.0f32; 262_144];
        logits[7] = 3.0;
        logits[9] = 3.0;
        let l = log_prob(&logits, 7).unwrap();
        assert!((f64::from(l) - 0.5f64.ln()).abs() < 1e-3, "{l}");
        // A spread of logits: as the exact sum, within the cut's bound.
        let logits: Vec<f32> = (0..100_000)
            .map(|i| ((i * 7919) % 1000) as f32 / 40.0)
            .collect();
        for token in [0usize, 1, 500, 99_999] {
            let l = f64::from(log_prob(&logits, token as TokenId).unwrap());
            assert!((l - exact(&logits, token)).abs() < 1e-3, "{token}: {l}");
            assert!(l <= 0.0);
        }
        // Outside the vocabulary, or a token whose logit is not finite: none.
        assert_eq!(log_prob(&logits, 100_000), None);
        assert_eq!(log_prob(&logits, -1), None);
        assert_eq!(log_prob(&[0.0, f32::NAN], 1), None);
        // The exponential: close to the exact one over its whole range.
        for x in [0.0f32, -0.3, -1.0, -5.5, -20.0, -60.0, -86.9] {
            let (fast, exact) = (f64::from(exp_nonpositive(x)), f64::from(x).exp());
            assert!((fast - exact).abs() <= 1e-5 * exact, "{x}: {fast} {exact}");
        }
        assert!(exp_nonpositive(-500.0) < 1e-37);
        // A NaN elsewhere is left out.
        let l = log_prob(&[0.0, 0.0, f32::NAN], 0).unwrap();
        assert!((f64::from(l) - 0.5f64.ln()).abs() < 1e-6, "{l}");
    }

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

    /// The `n` largest by brute force: sorted by logit (NaN lowest), ties to the lower id.
    fn top_n_by_sorting(logits: &[f32], n: usize) -> Vec<(TokenId, f32)> {
        let key = |l: f32| if l.is_nan() { f32::NEG_INFINITY } else { l };
        let mut all: Vec<(TokenId, f32)> = logits
            .iter()
            .enumerate()
            .map(|(i, l)| (i as TokenId, *l))
            .collect();
        all.sort_by(|a, b| key(b.1).total_cmp(&key(a.1)).then(a.0.cmp(&b.0)));
        all.truncate(n);
        all.sort_by_key(|e| e.0);
        all
    }

    /// A small deterministic generator (xorshift), so the cases need no crate.
    fn noise(seed: u64, len: usize, levels: u64) -> Vec<f32> {
        let mut x = seed | 1;
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x % levels) as f32 / 7.0 - 20.0
            })
            .collect()
    }

    #[test]
    fn top_n_keeps_the_largest_and_breaks_ties_by_id() {
        for (seed, len, levels) in [(1, 1000, 1 << 20), (2, 5000, 50), (3, 300, 3), (4, 70, 1)] {
            let logits = noise(seed, len, levels);
            for n in [1, 2, 40, 104, len, len + 5] {
                let mut out = Vec::new();
                top_n(&logits, n, &mut out);
                assert_eq!(out, top_n_by_sorting(&logits, n), "seed {seed} n {n}");
            }
        }
        let mut out = vec![(9, 9.0)];
        top_n(&[f32::NAN, 1.0, f32::NEG_INFINITY, 0.5], 2, &mut out);
        assert_eq!(out, vec![(1, 1.0), (3, 0.5)]);
        top_n(&[1.0, 2.0], 0, &mut out);
        assert!(out.is_empty());
        top_n(&[], 3, &mut out);
        assert!(out.is_empty());
    }

    /// llama.cpp's repeat penalty (frequency and presence 0): a logit of a token in the
    /// window is divided by the penalty when positive, multiplied when not.
    fn penalize(logit: f32, penalty: f32) -> f32 {
        if logit <= 0.0 {
            logit * penalty
        } else {
            logit / penalty
        }
    }

    #[test]
    fn the_chains_reach_holds_what_the_penalty_and_greedy_or_top_k_keep() {
        let stages = |k: i32, last_n: usize| {
            vec![
                Stage::Penalties {
                    last_n: last_n as i32,
                    repeat: 1.3,
                },
                if k == 1 {
                    Stage::Greedy
                } else {
                    Stage::TopK(k)
                },
            ]
        };
        for seed in 1..40u64 {
            let mut logits = noise(seed, 4000, 1 << 16);
            // The window: the most likely tokens themselves, the worst case for the bound.
            let mut window = top_n_by_sorting(&logits, (seed % 30) as usize);
            window.extend(
                noise(seed + 99, 10, 4000)
                    .iter()
                    .map(|v| (v.abs() as TokenId, 0.0)),
            );
            window.sort_by_key(|e| e.0);
            window.dedup_by_key(|e| e.0);
            for k in [1, 2, 40] {
                // The window as long as its distinct tokens: the tightest the bound gets.
                let reach = chain_reach(&stages(k, window.len())).unwrap();
                let mut kept = Vec::new();
                top_n(&logits, reach, &mut kept);
                let mut penalized = logits.clone();
                for (id, _) in &window {
                    penalized[*id as usize] = penalize(penalized[*id as usize], 1.3);
                }
                let want: Vec<TokenId> = top_n_by_sorting(&penalized, k as usize)
                    .iter()
                    .map(|e| e.0)
                    .collect();
                for id in want {
                    assert!(kept.iter().any(|e| e.0 == id), "seed {seed} k {k} id {id}");
                }
            }
            logits.clear();
        }
        assert_eq!(chain_reach(&[Stage::Greedy]), Some(1));
        assert_eq!(chain_reach(&stages(1, 50)), Some(51));
        assert_eq!(chain_reach(&[Stage::TopK(40), Stage::Dist(1)]), Some(40));
        assert_eq!(chain_reach(&[Stage::TopP(0.9), Stage::Dist(1)]), None);
        assert_eq!(chain_reach(&[Stage::MinP(0.1), Stage::Dist(1)]), None);
        assert_eq!(chain_reach(&[Stage::Temp(0.7), Stage::Dist(1)]), None);
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
