//! A turn on the real Gemma: time to first token with KV reuse vs without.
//!
//! `cargo bench -p porfiry-bench --bench engine` (needs the default model:
//! `./run models fetch`). For the chosen request (the first request of turn 5, a turn
//! without a toolset change, by default) each sample first replays the previous request with
//! its forced reply (untimed) so the cache holds the conversation so far, then times the
//! request's TTFT as the engine measured it (prefill + first token). The baseline clears the
//! cache instead. Token counts are printed next to the times.
//! `PORFIRY_BENCH_TURN=N` picks another turn.
//!
//! The second group times a new session's first request right after a restart: with the
//! static head restored from its snapshot file (the restore counted) vs a cold prefill.

use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use porfiry_agent::PromptLayout;
use porfiry_bench::{load_engine, resolve_model, scripted_requests, Dialogue, ScriptedRequest};
use porfiry_engine::{Engine, EngineParams, GenerateConfig, GenerateRequest, GenerationStats};

fn request(r: &ScriptedRequest) -> GenerateRequest {
    let mut g = GenerateRequest::new("bench", r.system.clone(), r.messages.clone())
        .with_config(GenerateConfig::greedy(r.reply.len() + 16));
    g.forced_reply = Some(r.reply.clone());
    g
}

fn run(engine: &Engine, r: &ScriptedRequest) -> GenerationStats {
    engine
        .generate(request(r), &mut |_| {})
        .expect("generation")
        .stats
}

/// Σ over `iters` calls of `one`, which returns the milliseconds to count.
fn timed_ms(iters: u64, mut one: impl FnMut() -> f64) -> Duration {
    (0..iters)
        .map(|_| Duration::from_secs_f64(one() / 1e3))
        .sum()
}

fn bench(c: &mut Criterion) {
    let model = resolve_model(None).expect("the default model (fetch it: ./run models fetch)");
    let engine = load_engine(&model, EngineParams::default()).expect("engine");
    let dialogue = Dialogue::builtin().expect("dialogue");
    let requests = scripted_requests(&dialogue, PromptLayout::default()).expect("requests");
    let turn: usize = std::env::var("PORFIRY_BENCH_TURN")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(5);
    let at = requests
        .iter()
        .position(|r| r.turn == turn)
        .expect("PORFIRY_BENCH_TURN names a turn of the dialogue");
    assert!(at > 0, "pick a turn after the first");
    let (prev, this) = (&requests[at - 1], &requests[at]);

    // One run of each, to print the token counts next to the times.
    // Between the two, the user's pause: the engine decodes the framing that opens the next
    // message (idle-time work), as it does while a real user speaks.
    engine.clear_cache().expect("clear");
    run(&engine, prev);
    engine.settle().expect("settle");
    let warm = run(&engine, this);
    engine.clear_cache().expect("clear");
    let cold = run(&engine, this);
    println!(
        "turn {turn}: prompt {} tokens; with reuse: reused {} (of them {} decoded ahead while \
         idle) prefilled {} (TTFT {:.1} ms); without: prefilled {} (TTFT {:.1} ms)",
        warm.prompt_tokens,
        warm.reused_tokens,
        warm.anticipated_tokens,
        warm.prefilled_tokens,
        warm.ttft_ms,
        cold.prefilled_tokens,
        cold.ttft_ms
    );

    let mut group = c.benchmark_group(format!("turn {turn} TTFT (Gemma 3 270M)"));
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(20));
    group.bench_function("with KV reuse", |b| {
        b.iter_custom(|iters| {
            timed_ms(iters, || {
                engine.clear_cache().expect("clear");
                run(&engine, prev);
                engine.settle().expect("settle");
                run(&engine, this).ttft_ms
            })
        })
    });
    group.bench_function("without reuse (cache cleared)", |b| {
        b.iter_custom(|iters| {
            timed_ms(iters, || {
                engine.clear_cache().expect("clear");
                run(&engine, this).ttft_ms
            })
        })
    });
    group.finish();
}

fn bench_head(c: &mut Criterion) {
    let model = resolve_model(None).expect("the default model (fetch it: ./run models fetch)");
    let dir = std::env::temp_dir().join(format!("porfiry-criterion-head-{}", std::process::id()));
    let params = EngineParams {
        snapshot_dir: Some(dir.clone()),
        ..EngineParams::default()
    };
    let engine = load_engine(&model, params).expect("engine");
    let dialogue = Dialogue::builtin().expect("dialogue");
    let layout = PromptLayout::default();
    let head = dialogue.agent(layout).expect("agent").head_view();
    let requests = scripted_requests(&dialogue, layout).expect("requests");
    let first = &requests[0];
    let made = engine
        .prepare_head(&head.system, &head.messages)
        .expect("head");
    engine.clear_cache().expect("clear");
    let restored = engine
        .prepare_head(&head.system, &head.messages)
        .expect("restore");
    let warm = run(&engine, first);
    engine.clear_cache().expect("clear");
    let cold = run(&engine, first);
    println!(
        "new session: prompt {} tokens, head {} tokens ({:?}, {} KB); with snapshot:          prefilled {} (restore {:.1} ms + TTFT {:.1} ms); without: prefilled {} (TTFT {:.1} ms)",
        cold.prompt_tokens,
        made.tokens,
        restored.source,
        restored.state_bytes / 1024,
        warm.prefilled_tokens,
        restored.ms,
        warm.ttft_ms,
        cold.prefilled_tokens,
        cold.ttft_ms
    );

    let mut group = c.benchmark_group("new session first request (Gemma 3 270M)");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(20));
    group.bench_function("head snapshot restored from disk", |b| {
        b.iter_custom(|iters| {
            timed_ms(iters, || {
                engine.clear_cache().expect("clear");
                let h = engine
                    .prepare_head(&head.system, &head.messages)
                    .expect("restore");
                let ttft = run(&engine, first).ttft_ms;
                h.ms + ttft
            })
        })
    });
    group.bench_function("cold prefill", |b| {
        b.iter_custom(|iters| {
            timed_ms(iters, || {
                engine.clear_cache().expect("clear");
                run(&engine, first).ttft_ms
            })
        })
    });
    group.finish();
    drop(engine);
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, bench, bench_head);
criterion_main!(benches);
