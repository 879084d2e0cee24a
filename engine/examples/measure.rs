//! Measure the engine on a model: load time, TTFT cold vs reused, prefill and decode speed,
//! and the decode cost of the (idle) lazy tool-call grammar.
//!
//! `cargo run --release -p porfiry-engine --example measure -- models/cache/gemma-3-270m-q4_k_m.gguf`
//!
//! With `--llama-bench` it measures what llama.cpp's `llama-bench` measures, so the two can be
//! put side by side (`benches/llama-tools.sh` does): prefill of `--pp` prompt tokens from an
//! empty cache (llama-bench `pp512`) and decode of `--tg` tokens right after that prompt
//! (llama-bench `tg128` at depth 512), each `--reps` times, at `--threads`, printing one
//! JSON line. Ours includes what the engine does per token beyond llama.cpp (greedy sampling
//! over the whole vocabulary, detokenizing, stop-string scanning): that is the overhead the
//! comparison is about.
//!
//! `measure MODEL --llama-bench [--threads 2] [--threads-batch N] [--no-thread-pool] [--pp 512] [--tg 128] [--reps 3]`
//! (`--no-thread-pool`: ggml's threads started per graph, as before the engine attached pools)
//!
//! With `--embed-cost` it times what routing costs a request: `Engine::embed_query` of short
//! requests (`measure MODEL --embed-cost [--threads 2] [--reps 20] [--no-thread-pool]`),
//! printing one JSON line with the median and minimum in ms.
//!
//! With `--render-cost` it times what every request costs before its prefill starts: rendering
//! and tokenizing the whole conversation (`Engine::render`, the worker's own path), for
//! conversations of growing length (`measure MODEL --render-cost [--reps 20]`).

use std::time::Instant;

use porfiry_engine::{Engine, EngineParams, GenerateConfig, GenerateRequest, Message, Tokenizer};
use porfiry_seam::{ArgKind, ArgSpec, CallSpec};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args()
        .nth(1)
        .ok_or("usage: measure MODEL.gguf [rounds] | measure MODEL.gguf --llama-bench [..]")?;
    if std::env::args().any(|a| a == "--llama-bench") {
        return llama_bench_mode(&path);
    }
    if std::env::args().any(|a| a == "--render-cost") {
        return render_cost_mode(&path);
    }
    if std::env::args().any(|a| a == "--embed-cost") {
        return embed_cost_mode(&path);
    }
    let rounds: usize = std::env::args()
        .nth(2)
        .and_then(|r| r.parse().ok())
        .unwrap_or(3);

    let t = Instant::now();
    let tok = Tokenizer::load(&path, None)?;
    println!("vocab-only load: {:.0} ms", t.elapsed().as_secs_f64() * 1e3);

    let t = Instant::now();
    let engine = Engine::load(&path, EngineParams::default())?;
    let info = engine.info().clone();
    println!(
        "load: {:.0} ms (worker reported {:.0} ms); {:?} {} n_ctx {} threads {} swa_full {}",
        t.elapsed().as_secs_f64() * 1e3,
        info.load_ms,
        info.architecture,
        info.chat_format,
        info.n_ctx,
        info.threads,
        info.swa_full
    );

    // A system prompt of realistic size (~450 tokens).
    let system = format!(
        "You are Porfiry, an offline voice assistant on a phone.\n{}",
        (0..40)
            .map(|i| format!("- tool_{i}: does thing number {i} when the user asks for it.\n"))
            .collect::<String>()
    );
    let history = vec![Message::user("What can you do for me today?")];
    println!("system prompt: {} tokens", tok.count(&system));

    let cfg = |grammar: bool| GenerateConfig {
        max_tokens: 64,
        tool_call_grammar: if grammar {
            Some(Default::default())
        } else {
            None
        },
        ..GenerateConfig::greedy(64)
    };
    for r in 0..rounds {
        engine.clear_cache()?;
        let cold = engine.generate(
            GenerateRequest::new("m", system.clone(), history.clone()).with_config(cfg(false)),
            &mut |_| {},
        )?;
        let mut h2 = history.clone();
        h2.push(Message::assistant(cold.text.clone()));
        h2.push(Message::user("And what time is it?"));
        let warm = engine.generate(
            GenerateRequest::new("m", system.clone(), h2).with_config(cfg(false)),
            &mut |_| {},
        )?;
        let c = &cold.stats;
        let w = &warm.stats;
        println!(
            "round {r}: cold prompt {} tok, TTFT {:.0} ms, prefill {:.0} tok/s, decode {:.1} tok/s ({} tok) | \
             reused turn: prompt {} reused {} prefilled {}, TTFT {:.0} ms, decode {:.1} tok/s",
            c.prompt_tokens, c.ttft_ms, c.prefill_tps, c.decode_tps, c.generated_tokens,
            w.prompt_tokens, w.reused_tokens, w.prefilled_tokens, w.ttft_ms, w.decode_tps
        );
    }

    // Grammar on vs off, same prompt, free text: the lazy grammar stays idle unless
    // triggered; with the request's own calls (the agent's `constrain_calls`: the shipped
    // state's tools, names and argument shapes spelled out) idle too; a reply made of given
    // words (an answer said with a tool's words) engaged from the first token.
    let long = GenerateConfig {
        max_tokens: 128,
        ..GenerateConfig::greedy(128)
    };
    let calls = shipped_calls();
    let words: Vec<String> = "Заметка 1 сохранена , завтра в девять утра встреча с Анной у входа"
        .split(' ')
        .map(str::to_owned)
        .collect();
    // Per mode (free, idle lazy grammar, the request's calls, given words): tok/s, tokens.
    let mut runs: [Vec<(f64, usize)>; 4] = Default::default();
    for _ in 0..rounds {
        for (mode, seen) in runs.iter_mut().enumerate() {
            let mut c = long.clone();
            c.tool_call_grammar = (mode > 0).then(Default::default);
            if mode == 2 {
                c.allowed_calls = Some(calls.clone());
            }
            if mode == 3 {
                c.reply_words = Some(words.clone());
            }
            let done = engine.generate(
                GenerateRequest::new(
                    "g",
                    system.clone(),
                    vec![Message::user("Tell me a story about a hedgehog.")],
                )
                .with_config(c),
                &mut |_| {},
            )?;
            seen.push((done.stats.decode_tps, done.stats.generated_tokens));
        }
    }
    let mean = |v: &[(f64, usize)]| v.iter().map(|r| r.0).sum::<f64>() / v.len() as f64;
    let [free, lazy, own, worded] = &runs;
    println!(
        "decode tok/s without grammar {:.1}, with idle lazy grammar {:.1}: ratio {:.3}",
        mean(free),
        mean(lazy),
        mean(lazy) / mean(free)
    );
    println!(
        "decode tok/s: the request's calls (idle) {:.1}: ratio {:.3}; an answer of given words \
         (engaged) {:.1} over {} tokens: ratio {:.3}",
        mean(own),
        mean(own) / mean(free),
        mean(worded),
        worded.last().map_or(0, |w| w.1),
        mean(worded) / mean(free)
    );

    // Grammar engaged (a call line being written).
    let mut req = GenerateRequest::new("g", system.clone(), history.clone())
        .with_config(GenerateConfig::greedy(40));
    req.reply_prefix = Some("TOOL_CALL: ".into());
    let done = engine.generate(req, &mut |_| {})?;
    println!(
        "engaged grammar: {:?} -> {} tok at {:.1} tok/s ({:?})",
        done.text, done.stats.generated_tokens, done.stats.decode_tps, done.stop
    );
    Ok(())
}

/// The calls of the shipped state as the agent offers them (core tools, notes, media).
fn shipped_calls() -> Vec<CallSpec> {
    let arg = |kind: ArgKind, required: bool| ArgSpec { kind, required };
    let call = |name: &str, args: Vec<ArgSpec>| CallSpec {
        name: name.into(),
        args,
    };
    let names = |v: &[&str]| ArgKind::OneOf(v.iter().map(|s| (*s).into()).collect());
    vec![
        call("get_current_time", vec![]),
        call("show_text", vec![arg(ArgKind::Text, true)]),
        call("read_skill", vec![arg(names(&["media", "notes"]), true)]),
        call(
            "enable_toolset",
            vec![arg(names(&["media", "notes"]), true)],
        ),
        call("disable_toolset", vec![]),
        call("notes_add", vec![arg(ArgKind::Text, true)]),
        call("notes_list", vec![]),
        call("notes_delete", vec![arg(ArgKind::Integer, true)]),
        call("media_search", vec![arg(ArgKind::Text, true)]),
        call("media_info", vec![arg(ArgKind::Text, true)]),
        call(
            "media_play",
            vec![
                arg(ArgKind::Text, true),
                arg(names(&["play", "pause", "stop"]), false),
            ],
        ),
    ]
}

/// The value after `--name` on the command line, parsed, or `default`.
fn flag<T: std::str::FromStr>(name: &str, default: T) -> Result<T, Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    match args.iter().position(|a| a == name) {
        None => Ok(default),
        Some(i) => args
            .get(i + 1)
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| format!("{name} needs a number").into()),
    }
}

/// llama-bench's pp/tg on the engine: see the crate-level comment at the top of this file.
fn llama_bench_mode(path: &str) -> Result<(), Box<dyn std::error::Error>> {
    let threads: u32 = flag("--threads", 2)?;
    let pp: usize = flag("--pp", 512)?;
    let tg: usize = flag("--tg", 128)?;
    let reps: usize = flag("--reps", 3)?;
    let threads_batch: u32 = flag("--threads-batch", threads)?;
    let engine = Engine::load(
        path,
        EngineParams {
            threads: Some(threads),
            threads_batch: Some(threads_batch),
            thread_pool: !std::env::args().any(|a| a == "--no-thread-pool"),
            ..EngineParams::default()
        },
    )?;
    let info = engine.info().clone();

    // A prompt of exactly `pp` tokens as the engine decodes it (BOS, chat framing, a long
    // system text, one user message): grow the system text word by word, then trim.
    let user = vec![Message::user(
        "Write a long, detailed story about a hedgehog who travels across the country.",
    )];
    let words: Vec<String> = (0..pp * 2)
        .map(|i| {
            format!(
                "{} ",
                ["river", "stone", "lamp", "garden", "north", "violin"][i % 6]
            )
        })
        .collect();
    let tokens_with = |n: usize| -> Result<usize, Box<dyn std::error::Error>> {
        Ok(engine.render(&words[..n].concat(), &user)?.tokens.len())
    };
    let (mut lo, mut hi) = (0usize, words.len());
    while lo < hi {
        // The most words whose prompt is at most `pp` tokens.
        let mid = (lo + hi).div_ceil(2);
        if tokens_with(mid)? <= pp {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    let system = words[..lo].concat();
    let prompt_tokens = tokens_with(lo)?;

    // Free text, no grammar, greedy: one more token than `tg` so that `tg` of them are
    // decoded (the last sampled token is never decoded).
    let config = GenerateConfig {
        tool_call_grammar: None,
        ..GenerateConfig::greedy(tg + 1)
    };
    let mut pp_tps = Vec::new();
    let mut tg_tps = Vec::new();
    let mut generated = Vec::new();
    for rep in 0..=reps {
        engine.clear_cache()?;
        let done = engine.generate(
            GenerateRequest::new("bench", system.clone(), user.clone()).with_config(config.clone()),
            &mut |_| {},
        )?;
        let s = &done.stats;
        if rep == 0 {
            continue; // warm-up, as llama-bench does
        }
        pp_tps.push(s.prefill_tps);
        // decode_tps = generated / (time from the end of prefill to the last token); of the
        // generated tokens all but the last were decoded. Count only those.
        let decoded = s.generated_tokens.saturating_sub(1);
        let secs = if s.decode_tps > 0.0 {
            s.generated_tokens as f64 / s.decode_tps
        } else {
            0.0
        };
        tg_tps.push(if secs > 0.0 {
            decoded as f64 / secs
        } else {
            0.0
        });
        generated.push(decoded);
    }
    let out = serde_json::json!({
        "threads": info.threads,
        "threads_batch": info.threads_batch,
        "thread_pool": info.thread_pool,
        "n_ctx": info.n_ctx,
        "swa_full": info.swa_full,
        "pp_tokens": prompt_tokens,
        "pp_tps": pp_tps,
        "tg_depth": prompt_tokens,
        "tg_tokens": generated,
        "tg_tps": tg_tps,
    });
    println!("{out}");
    Ok(())
}

/// Time `Engine::render` (render + tokenize the whole prompt) for growing conversations.
fn render_cost_mode(path: &str) -> Result<(), Box<dyn std::error::Error>> {
    let reps: usize = flag("--reps", 20)?;
    let engine = Engine::load(
        path,
        EngineParams {
            threads: Some(2),
            ..EngineParams::default()
        },
    )?;
    let system = "Ты Порфирий, голосовой помощник на телефоне. Отвечай кратко и по делу.\n\
        TOOL_CALL: get_current_time — текущее время. TOOL_CALL: read_skill|name — навык.\n"
        .repeat(4);
    let mut messages = Vec::new();
    for n in [0usize, 8, 16, 24, 32] {
        while messages.len() < n {
            messages.push(Message::user(
                "Найди, пожалуйста, фильм про Лару Крофт и включи его.",
            ));
            messages.push(Message::assistant(
                "Нашёл «Лара Крофт: Расхитительница гробниц» (2001). Включаю на телевизоре.",
            ));
        }
        let mut history = messages.clone();
        history.push(Message::user("Который час?"));
        let tokens = engine.render(&system, &history)?.tokens.len();
        let mut ms = Vec::new();
        for _ in 0..reps {
            let t = Instant::now();
            engine.render(&system, &history)?;
            ms.push(t.elapsed().as_secs_f64() * 1e3);
        }
        ms.sort_by(f64::total_cmp);
        println!(
            "{} messages, {tokens} tokens: render + tokenize median {:.2} ms, min {:.2} ms",
            history.len(),
            ms[ms.len() / 2],
            ms[0]
        );
    }
    Ok(())
}

/// `Engine::embed_query` of short requests, `--reps` times each after one warm-up.
fn embed_cost_mode(path: &str) -> Result<(), Box<dyn std::error::Error>> {
    let threads: u32 = flag("--threads", 2)?;
    let reps: usize = flag("--reps", 20)?;
    let engine = Engine::load(
        path,
        EngineParams {
            threads: Some(threads),
            thread_pool: !std::env::args().any(|a| a == "--no-thread-pool"),
            ..EngineParams::default()
        },
    )?;
    let texts = [
        "Который час?",
        "Запиши заметку: купить хлеб и молоко",
        "What is on the screen right now?",
    ];
    engine.embed_query(texts[0])?;
    let mut ms = Vec::new();
    for _ in 0..reps {
        for t in texts {
            let started = std::time::Instant::now();
            engine.embed_query(t)?;
            ms.push(started.elapsed().as_secs_f64() * 1e3);
        }
    }
    ms.sort_by(f64::total_cmp);
    let out = serde_json::json!({
        "threads": threads,
        "thread_pool": engine.info().thread_pool,
        "embeds": ms.len(),
        "median_ms": ms[ms.len() / 2],
        "min_ms": ms[0],
    });
    println!("{out}");
    Ok(())
}
