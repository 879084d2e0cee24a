//! Pure-agent costs (no model): prompt assembly and the dispatch of a turn, in microseconds.
//!
//! `cargo bench -p porfiry-bench --bench agent`. The model is a `ScriptedModel` under
//! teacher forcing, so what is timed is the agent: prompt rebuild, request view, streaming
//! filter, `TOOL_CALL:` parsing, dispatch and history. Sizes are printed next to the times
//! (characters; token counts need a vocabulary: see `porfiry prompt --json --model`).

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use porfiry_agent::{CancelToken, PromptLayout, ScriptedModel};
use porfiry_bench::{run_dialogue, Dialogue, ForcedModel};

fn bench(c: &mut Criterion) {
    let dialogue = Dialogue::builtin().expect("the built-in dialogue parses");
    let layout = PromptLayout::default();
    let mut agent = dialogue
        .agent(layout)
        .expect("built-in skills and toolsets load");

    let fresh = agent.request("fresh");
    agent
        .enable_toolset("active", "media")
        .expect("media is declared");
    let active = agent.request("active");
    println!(
        "prompt sizes ({layout}): state 1: system {} chars + {} state chars; media active: system {} chars + {} state chars",
        fresh.system.chars().count(),
        fresh.messages.iter().map(|m| m.content.chars().count()).sum::<usize>(),
        active.system.chars().count(),
        active.messages.iter().map(|m| m.content.chars().count()).sum::<usize>(),
    );
    c.bench_function("request view, state 1 (fresh session)", |b| {
        b.iter(|| agent.request("fresh"))
    });
    c.bench_function("request view, media active", |b| {
        b.iter(|| agent.request("active"))
    });

    // One turn with a tool call: generation → parse → dispatch → history → generation.
    let cancel = CancelToken::new();
    c.bench_function("turn: get_current_time call + answer", |b| {
        b.iter_batched(
            || dialogue.agent(layout).expect("agent"),
            |mut agent| {
                let mut model = ForcedModel::new(
                    ScriptedModel::new(Vec::<String>::new()),
                    ["TOOL_CALL: get_current_time", "Сейчас десять часов утра."],
                );
                agent
                    .turn("s", "Который час?", &mut model, &cancel, &mut |_| {})
                    .expect("turn")
            },
            BatchSize::SmallInput,
        )
    });

    let turns = dialogue.turns.len();
    let generations = dialogue.replies().count();
    println!("whole dialogue: {turns} user turns, {generations} model calls");
    c.bench_function("whole scripted dialogue (agent only)", |b| {
        b.iter_batched(
            || dialogue.agent(layout).expect("agent"),
            |mut agent| {
                let mut model =
                    ForcedModel::new(ScriptedModel::new(Vec::<String>::new()), dialogue.replies());
                run_dialogue(&dialogue, &mut agent, &mut model, true).expect("dialogue")
            },
            BatchSize::SmallInput,
        )
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
