//! `porfiry bench kv`: the KV cache's settings side by side — memory per session as a phone
//! counts it, and speed.
//!
//! For each configuration (key/value type, `swa_full`) and each round, one engine is loaded,
//! fed one long prompt (prefill speed), made to decode a fixed number of tokens (decode
//! speed), asked what its session's KV state weighs (`Engine::cache_report`: llama.cpp's
//! own size of the sequence's state) and measured from outside (the process's anonymous
//! RSS before loading and after the request: what the engine holds in heap and cache; the
//! model file's mapped pages are not in it). Then it is dropped, and the next configuration
//! loads. Rounds interleave the configurations so a noisy machine hits them alike; the
//! report gives medians and each one's ratio to the first configuration.

use std::time::Instant;

use porfiry_engine::{Engine, EngineParams, GenerateConfig, GenerateRequest, KvType};
use porfiry_seam::Message;

use crate::cancel::status_kb;
use crate::engine::{load_engine, ModelChoice};
use crate::error::BenchError;

/// One configuration to measure.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct KvConfig {
    /// Key type.
    pub type_k: KvType,
    /// Value type.
    pub type_v: KvType,
    /// Keep the full cache on sliding-window layers.
    pub swa_full: bool,
}

impl KvConfig {
    /// Parse `f16`, `q8_0`, `q4_0`, `f32` (keys and values alike) with an optional
    /// `/window` suffix (`swa_full` off), e.g. `q8_0/window`.
    ///
    /// # Errors
    /// A message naming the accepted forms.
    pub fn parse(text: &str) -> Result<Self, String> {
        let (kind, swa_full) = match text.split_once('/') {
            Some((k, "window")) => (k, false),
            Some((_, other)) => return Err(format!("unknown suffix /{other}: only /window")),
            None => (text, true),
        };
        let t = match kind {
            "f16" => KvType::F16,
            "f32" => KvType::F32,
            "q8_0" => KvType::Q8_0,
            "q4_0" => KvType::Q4_0,
            other => {
                return Err(format!(
                    "unknown KV type {other:?}: f16, f32, q8_0 or q4_0, optionally with /window"
                ))
            }
        };
        Ok(Self {
            type_k: t,
            type_v: t,
            swa_full,
        })
    }

    /// The name `parse` reads back.
    pub fn name(&self) -> String {
        let t = match self.type_k {
            KvType::F16 => "f16",
            KvType::F32 => "f32",
            KvType::Q8_0 => "q8_0",
            KvType::Q4_0 => "q4_0",
        };
        if self.swa_full {
            t.to_string()
        } else {
            format!("{t}/window")
        }
    }
}

/// What to run.
#[derive(Debug, Clone)]
pub struct KvBench {
    /// The model.
    pub model: ModelChoice,
    /// Base parameters (context size, threads); each configuration sets its types and
    /// `swa_full`.
    pub params: EngineParams,
    /// Configurations, the first one the yardstick of the ratios.
    pub configs: Vec<KvConfig>,
    /// Rounds.
    pub rounds: usize,
    /// Prompt length, in tokens (about).
    pub prompt_tokens: usize,
    /// Tokens decoded after the prompt.
    pub decode_tokens: usize,
}

/// One configuration's figures (medians over the rounds).
#[derive(Debug, Clone, serde::Serialize)]
pub struct KvRow {
    /// The configuration.
    pub config: String,
    /// Tokens in the session's sequence after the request.
    pub tokens: usize,
    /// llama.cpp's size of the session's KV state, in bytes.
    pub state_bytes: usize,
    /// The same per token.
    pub bytes_per_token: f64,
    /// A session of `n_ctx` tokens at that rate, in MiB.
    pub full_session_mib: f64,
    /// Anonymous RSS the engine added (after the request minus before loading), in KiB.
    pub rss_anon_kb: u64,
    /// Peak anonymous-plus-file RSS of the process so far (VmHWM), in KiB.
    pub vm_hwm_kb: u64,
    /// Prefill speed, tokens per second.
    pub prefill_tps: f64,
    /// Decode speed, tokens per second.
    pub decode_tps: f64,
    /// Per round: (prefill tok/s, decode tok/s, anonymous RSS added in KiB).
    pub rounds: Vec<(f64, f64, u64)>,
}

/// The report of `porfiry bench kv`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct KvReport {
    /// The model as named.
    pub model: String,
    /// Context size.
    pub n_ctx: u32,
    /// Threads.
    pub threads: u32,
    /// One row per configuration, in the order given.
    pub rows: Vec<KvRow>,
    /// Wall time, in seconds.
    pub seconds: f64,
}

impl KvReport {
    /// The table, with ratios to the first row.
    pub fn table(&self) -> String {
        let mut out = format!(
            "model {} (n_ctx {}, {} threads), medians of {} rounds\n{:<12} {:>7} {:>10} {:>9} {:>11} {:>10} {:>9} {:>9} {:>9} {:>9}\n",
            self.model,
            self.n_ctx,
            self.threads,
            self.rows.first().map_or(0, |r| r.rounds.len()),
            "config",
            "tokens",
            "KV bytes",
            "B/token",
            "n_ctx MiB",
            "anon MiB",
            "prefill",
            "decode",
            "×prefill",
            "×decode"
        );
        let first = self.rows.first();
        for r in &self.rows {
            let base = first.map_or((1.0, 1.0), |f| (f.prefill_tps, f.decode_tps));
            out.push_str(&format!(
                "{:<12} {:>7} {:>10} {:>9.0} {:>11.1} {:>10.1} {:>9.1} {:>9.1} {:>9.3} {:>9.3}\n",
                r.config,
                r.tokens,
                r.state_bytes,
                r.bytes_per_token,
                r.full_session_mib,
                r.rss_anon_kb as f64 / 1024.0,
                r.prefill_tps,
                r.decode_tps,
                r.prefill_tps / base.0.max(f64::MIN_POSITIVE),
                r.decode_tps / base.1.max(f64::MIN_POSITIVE),
            ));
        }
        out.push_str(&format!("{:.0} s\n", self.seconds));
        out
    }
}

/// Runs `bench`; `progress` hears each measurement.
///
/// # Errors
/// [`BenchError::Engine`] when an engine does not load or a request fails.
pub fn run_kv(bench: &KvBench, progress: &mut dyn FnMut(&str)) -> Result<KvReport, BenchError> {
    let started = Instant::now();
    let mut samples: Vec<Vec<Sample>> = vec![Vec::new(); bench.configs.len()];
    let mut threads = 0;
    for round in 0..bench.rounds.max(1) {
        for (i, c) in bench.configs.iter().enumerate() {
            let params = EngineParams {
                kv_type_k: c.type_k,
                kv_type_v: c.type_v,
                swa_full: Some(c.swa_full),
                anticipate: false,
                snapshot_dir: None,
                ..bench.params.clone()
            };
            let anon_before = status_kb("RssAnon:");
            let engine = load_engine(&bench.model, params)?;
            threads = engine.info().threads;
            let s = measure(&engine, bench, anon_before)?;
            progress(&format!(
                "round {} {:<12} prefill {:>7.1} tok/s, decode {:>6.1} tok/s, KV {} B for {} tokens, anon +{} KiB",
                round + 1,
                c.name(),
                s.prefill_tps,
                s.decode_tps,
                s.state_bytes,
                s.tokens,
                s.rss_anon_kb
            ));
            samples[i].push(s);
            drop(engine);
        }
    }
    let rows = bench
        .configs
        .iter()
        .zip(samples)
        .map(|(c, s)| row(c, &s, bench.params.n_ctx))
        .collect();
    Ok(KvReport {
        model: bench.model.given.clone(),
        n_ctx: bench.params.n_ctx,
        threads,
        rows,
        seconds: started.elapsed().as_secs_f64(),
    })
}

#[derive(Debug, Clone, Copy)]
struct Sample {
    tokens: usize,
    state_bytes: usize,
    rss_anon_kb: u64,
    vm_hwm_kb: u64,
    prefill_tps: f64,
    decode_tps: f64,
}

const SYSTEM: &str = "You are a voice assistant. Answer briefly.";

fn measure(engine: &Engine, bench: &KvBench, anon_before: u64) -> Result<Sample, BenchError> {
    let fail = |e: porfiry_engine::EngineError| BenchError::Engine(e.to_string());
    let messages = long_prompt(engine, bench.prompt_tokens)?;
    let mut config = GenerateConfig::greedy(bench.decode_tokens);
    config.tool_call_grammar = None;
    // The reply must not end early: decode speed is measured over the same count each time.
    config.stop.clear();
    let done = engine
        .generate(
            GenerateRequest::new("kv", SYSTEM, messages).with_config(config),
            &mut |_| {},
        )
        .map_err(fail)?;
    let report = engine.cache_report().map_err(fail)?;
    let seq = report
        .seqs
        .iter()
        .find(|s| s.session.as_deref() == Some("kv"));
    Ok(Sample {
        tokens: seq.map_or(0, |s| s.tokens),
        state_bytes: seq.map_or(0, |s| s.bytes),
        rss_anon_kb: status_kb("RssAnon:").saturating_sub(anon_before),
        vm_hwm_kb: status_kb("VmHWM:"),
        prefill_tps: done.stats.prefill_tps,
        decode_tps: done.stats.decode_tps,
    })
}

/// A user message of about `tokens` tokens (ordinary prose, so the tokenizer behaves as on
/// a conversation).
fn long_prompt(engine: &Engine, tokens: usize) -> Result<Vec<Message>, BenchError> {
    const TEXT: &str = "The assistant keeps notes, tells the time, searches films and shows text \
        on the glasses. A user asks short questions and expects short spoken answers. ";
    let message = |n: usize| vec![Message::user(TEXT.repeat(n.max(1)))];
    let one = engine
        .render(SYSTEM, &message(1))
        .map_err(|e| BenchError::Engine(e.to_string()))?
        .tokens
        .len();
    let ten = engine
        .render(SYSTEM, &message(11))
        .map_err(|e| BenchError::Engine(e.to_string()))?
        .tokens
        .len();
    let per = ((ten.saturating_sub(one)) / 10).max(1);
    Ok(message(tokens.saturating_sub(one) / per + 1))
}

/// The median of `v` (the mean of the middle two for an even count); 0 for none.
pub fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn row(c: &KvConfig, s: &[Sample], n_ctx: u32) -> KvRow {
    let last = s.last().copied();
    let tokens = last.map_or(0, |l| l.tokens);
    let state_bytes = last.map_or(0, |l| l.state_bytes);
    let per_token = if tokens == 0 {
        0.0
    } else {
        state_bytes as f64 / tokens as f64
    };
    KvRow {
        config: c.name(),
        tokens,
        state_bytes,
        bytes_per_token: per_token,
        full_session_mib: per_token * f64::from(n_ctx) / (1024.0 * 1024.0),
        rss_anon_kb: median(s.iter().map(|x| x.rss_anon_kb as f64).collect()) as u64,
        vm_hwm_kb: s.iter().map(|x| x.vm_hwm_kb).max().unwrap_or(0),
        prefill_tps: median(s.iter().map(|x| x.prefill_tps).collect()),
        decode_tps: median(s.iter().map(|x| x.decode_tps).collect()),
        rounds: s
            .iter()
            .map(|x| (x.prefill_tps, x.decode_tps, x.rss_anon_kb))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configurations_parse_and_print_back() {
        for name in ["f16", "q8_0", "q4_0", "f32", "q8_0/window", "f16/window"] {
            let c = KvConfig::parse(name).unwrap();
            assert_eq!(c.name(), name);
            assert_eq!(c.swa_full, !name.ends_with("/window"));
        }
        assert!(KvConfig::parse("q5_1").is_err());
        assert!(KvConfig::parse("f16/full").is_err());
    }

    #[test]
    fn medians() {
        assert_eq!(median(vec![]), 0.0);
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 2.0, 3.0]), 2.5);
    }
}
