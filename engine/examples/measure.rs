//! Measure the engine on a model: load time, TTFT cold vs reused, prefill and decode speed,
//! and the decode cost of the (idle) lazy tool-call grammar.
//!
//! `cargo run --release -p porfiry-engine --example measure -- models/cache/gemma-3-270m-q4_k_m.gguf`

use std::time::Instant;

use porfiry_engine::{Engine, EngineParams, GenerateConfig, GenerateRequest, Message, Tokenizer};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args()
        .nth(1)
        .ok_or("usage: measure MODEL.gguf [rounds]")?;
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

    // Grammar on vs off: same prompt, free text (the grammar stays idle unless triggered).
    let long = GenerateConfig {
        max_tokens: 128,
        ..GenerateConfig::greedy(128)
    };
    let mut on = Vec::new();
    let mut off = Vec::new();
    for _ in 0..rounds {
        for grammar in [false, true] {
            let mut c = long.clone();
            c.tool_call_grammar = if grammar {
                Some(Default::default())
            } else {
                None
            };
            let done = engine.generate(
                GenerateRequest::new(
                    "g",
                    system.clone(),
                    vec![Message::user("Tell me a story about a hedgehog.")],
                )
                .with_config(c),
                &mut |_| {},
            )?;
            if grammar {
                on.push(done.stats.decode_tps);
            } else {
                off.push(done.stats.decode_tps);
            }
        }
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    println!(
        "decode tok/s without grammar {:.1}, with idle lazy grammar {:.1}: ratio {:.3}",
        mean(&off),
        mean(&on),
        mean(&on) / mean(&off)
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
