//! Reuse across a removed span (`EngineParams::kv_shift`) on the real models: a toolset
//! switch removes the old state message near the start of the conversation and appends the
//! new one at the end; with shifting, the conversation in between is moved left in the
//! cache instead of being prefilled again. What it costs in behaviour is measured by
//! `porfiry bench shift`, not asserted here; these tests pin the mechanics: what is reused,
//! that the cache then holds exactly the prompt (the next request reuses all of it), and
//! the fall-back where llama.cpp cannot shift.

mod common;

use common::{model_path, test_params, GEMMA, SMOLLM2};
use porfiry_engine::{Completion, Engine, EngineParams, GenerateConfig, GenerateRequest};
use porfiry_seam::{GenerationStats, Message};

const SYSTEM: &str = "You are a voice assistant. Answer briefly.";

fn state(sets: &str) -> Message {
    Message::user(format!(
        "Active toolsets: {sets}. Call a tool with a line TOOL_CALL: name|arguments."
    ))
}

/// A conversation of a few exchanges after the state message `first`.
fn history() -> Vec<Message> {
    vec![
        Message::user("What time is it?"),
        Message::assistant("TOOL_CALL: get_current_time"),
        Message::tool("get_current_time", "10:00, Saturday, 22 August 2026."),
        Message::assistant("It is ten o'clock in the morning."),
        Message::user("Find a film about Lara Croft."),
        Message::assistant("TOOL_CALL: enable_toolset|media"),
        Message::tool("enable_toolset", "ok: media"),
    ]
}

fn ask(engine: &Engine, messages: Vec<Message>) -> Completion {
    let req = GenerateRequest::new("s", SYSTEM, messages).with_config(GenerateConfig::greedy(6));
    engine.generate(req, &mut |_| {}).expect("generation")
}

/// Three requests: the state first then the history; the switch (state moved to the end,
/// with its new text); the switch's continuation (its reply and a next user message).
fn switch(engine: &Engine) -> [GenerationStats; 3] {
    let mut before = vec![state("none")];
    before.extend(history());
    let first = ask(engine, before);
    let mut after = history();
    after.push(state("media (media_search, media_play)"));
    let switched = ask(engine, after.clone());
    after.push(Message::assistant(switched.text.clone()));
    after.push(Message::user("The second one."));
    let next = ask(engine, after);
    [first.stats, switched.stats, next.stats]
}

fn load(file: &str, params: EngineParams) -> Engine {
    Engine::load(model_path(file), params).unwrap_or_else(|e| panic!("loading {file}: {e}"))
}

fn shifting() -> EngineParams {
    EngineParams {
        kv_shift: true,
        anticipate: false,
        ..test_params()
    }
}

/// With shifting on, a switch reuses the history after the removed state message, and the
/// cache afterwards holds exactly the prompt: the next request reuses it all.
fn assert_switch_shifts(file: &str) {
    let engine = load(file, shifting());
    assert!(engine.info().can_shift && engine.info().kv_shift, "{file}");
    let plain = load(
        file,
        EngineParams {
            anticipate: false,
            ..test_params()
        },
    );
    assert!(!plain.info().kv_shift);
    let [_, shifted, next] = switch(&engine);
    let [_, unshifted, plain_next] = switch(&plain);
    assert_eq!(shifted.prompt_tokens, unshifted.prompt_tokens, "{file}");
    assert_eq!(unshifted.shifted_tokens, 0, "{file}: {unshifted:?}");
    // Without shifting the switch keeps only what precedes the old state message.
    assert!(
        shifted.shifted_tokens >= 40,
        "{file}: the history moved, not prefilled: {shifted:?}"
    );
    assert_eq!(
        shifted.reused_tokens,
        unshifted.reused_tokens + shifted.shifted_tokens,
        "{file}: {shifted:?} vs {unshifted:?}"
    );
    assert_eq!(
        shifted.prefilled_tokens + shifted.reused_tokens,
        shifted.prompt_tokens,
        "{file}: {shifted:?}"
    );
    assert!(!shifted.full_reprefill, "{file}: {shifted:?}");
    // The cache holds the switched prompt and its reply at their new positions: the next
    // request prefills only its own message, as it does without shifting.
    assert_eq!(next.shifted_tokens, 0, "{file}: {next:?}");
    assert_eq!(
        next.prompt_tokens - next.reused_tokens,
        plain_next.prompt_tokens - plain_next.reused_tokens,
        "{file}: {next:?} vs {plain_next:?}"
    );
}

#[test]
fn a_switch_on_gemma_moves_the_history_instead_of_prefilling_it() {
    assert_switch_shifts(GEMMA);
}

#[test]
fn a_switch_on_smollm2_moves_the_history_instead_of_prefilling_it() {
    assert_switch_shifts(SMOLLM2);
}

#[test]
fn without_swa_full_gemma_cannot_shift_and_prefills_as_before() {
    let engine = load(
        GEMMA,
        EngineParams {
            swa_full: Some(false),
            ..shifting()
        },
    );
    let info = engine.info();
    assert!(!info.swa_full);
    assert!(
        !info.can_shift && !info.kv_shift,
        "sliding-window layers with a window-sized cache cannot shift: {info:?}"
    );
    let [_, switched, _] = switch(&engine);
    assert_eq!(switched.shifted_tokens, 0, "{switched:?}");
    assert_eq!(
        switched.prefilled_tokens + switched.reused_tokens,
        switched.prompt_tokens
    );
}
