//! KV-cache modes on the real Gemma: several sequences, and sliding-window layers without
//! `swa_full` (where reuse must fall back to a full prefill instead of reading missing data).

mod common;

use common::{model_path, test_params, GEMMA};
use porfiry_engine::{Completion, Engine, EngineParams, GenerateConfig, GenerateRequest};
use porfiry_seam::Message;

fn ask(
    engine: &Engine,
    session: &str,
    system: &str,
    messages: Vec<Message>,
    max_tokens: usize,
) -> Completion {
    let req = GenerateRequest::new(session, system, messages)
        .with_config(GenerateConfig::greedy(max_tokens));
    engine.generate(req, &mut |_| {}).expect("generation")
}

#[test]
fn sessions_keep_their_own_sequences() {
    let engine = Engine::load(
        model_path(GEMMA),
        EngineParams {
            n_seq: 2,
            ..test_params()
        },
    )
    .unwrap();
    assert_eq!(engine.info().n_seq, 2);
    let a1 = vec![Message::user("Hello, I am Anna.")];
    let b1 = vec![Message::user("Good evening, this is Boris speaking.")];
    let ra = ask(&engine, "anna", "Be kind.", a1.clone(), 8);
    let rb = ask(&engine, "boris", "Be brief.", b1, 8);
    assert_eq!(
        rb.stats.reused_tokens, 0,
        "a different system prompt shares nothing but BOS"
    );
    // Anna's second turn finds her whole first turn still cached despite Boris in between.
    let mut a2 = a1;
    a2.push(Message::assistant(ra.text.clone()));
    a2.push(Message::user("What is my name?"));
    let ra2 = ask(&engine, "anna", "Be kind.", a2, 8);
    assert!(
        ra2.stats.reused_tokens + 2 >= ra.stats.prompt_tokens + ra.stats.generated_tokens,
        "{:?} then {:?}",
        ra.stats,
        ra2.stats
    );
}

#[test]
fn without_swa_full_reuse_falls_back_to_a_full_prefill_when_window_data_is_gone() {
    let engine = Engine::load(
        model_path(GEMMA),
        EngineParams {
            swa_full: Some(false),
            // The SWA cache holds about window + batch cells: a small batch keeps the long
            // prompt below short.
            batch: 64,
            ..test_params()
        },
    )
    .unwrap();
    assert!(!engine.info().swa_full);
    // A long first request (past the 512-token window plus a batch) ...
    let long = "The quick brown fox jumps over the lazy dog. ".repeat(100);
    let first = ask(&engine, "s", "System.", vec![Message::user(long)], 4);
    assert!(first.stats.prompt_tokens > 900, "{:?}", first.stats);
    // ... then a request sharing only its beginning: the sliding-window layers no longer hold
    // the positions right before the divergence, so the engine must prefill everything.
    let short = vec![Message::user("Hello")];
    let branched = ask(&engine, "s", "System.", short.clone(), 8);
    assert!(branched.stats.full_reprefill, "{:?}", branched.stats);
    assert_eq!(branched.stats.reused_tokens, 0);
    assert_eq!(
        branched.stats.prefilled_tokens,
        branched.stats.prompt_tokens
    );
    // The answer is the same as on a cold cache.
    engine.clear_cache().unwrap();
    let cold = ask(&engine, "s", "System.", short, 8);
    assert_eq!(cold.tokens, branched.tokens);
    assert!(!cold.stats.full_reprefill);
}
