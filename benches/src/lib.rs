//! Porfiry's benchmarks: the scripted, teacher-forced dialogue and its per-turn token report.
//!
//! # Pieces
//! - [`Dialogue`]: the built-in dialogue (`benches/dialogue.yaml`, data, not code): user
//!   turns, one forced reply per model call, executor stand-ins, expected active toolsets.
//!   [`Dialogue::agent`] builds the agent it runs on (the checkout's skills and toolsets).
//! - [`ForcedModel`]: teacher forcing. Wraps any [`porfiry_agent::Model`] and sets
//!   [`porfiry_agent::ModelRequest::forced_reply`] to the next scripted reply, so the wrapped
//!   model (the real engine) decodes the same tokens on every run; an optional hook runs
//!   before every request (clearing the KV cache for the no-reuse baseline).
//! - [`run_dialogue`] plays the dialogue through the real agent loop ([`porfiry_agent::Agent::turn`])
//!   and returns a [`DialogueReport`]: per turn prompt/reused/prefilled/appended/forced tokens,
//!   TTFT and turn time; totals and the reuse ratio. `porfiry bench dialogue` prints it.
//! - [`resolve_model`], [`load_engine`], [`play_on_engine`]: the same on the real engine
//!   (`porfiry-engine`, llama.cpp), with or without KV reuse.
//! - [`eval`]: the tool-use eval (`porfiry eval tools`): cases from `evals/*.yaml` through the
//!   real agent loop and engine, the first action of each turn scored, variants side by side.
//!
//! # Design decisions
//! - **The script is checked against the agent.** A turn must take exactly as many model
//!   calls as it has replies and end with the expected toolsets; otherwise the run fails
//!   ([`BenchError::OutOfStep`]) instead of measuring a different conversation.
//! - **"Appended" is the yardstick.** For each request the report computes the tokens added
//!   since the previous request of the session (new messages + chat framing). A perfect
//!   cache prefills exactly that; `prefilled - appended` is what the prompt layout or the
//!   cache wasted.
#![deny(missing_docs)]

mod cancel;
mod contention;
mod dialogue;
mod engine;
mod error;
pub mod eval;
mod forced;
mod head;
mod kv;
mod run;
mod shift;
mod soak;
mod storm;

pub use cancel::{
    run_cancel, status_kb, CancelBench, CancelReport, CancelRun, Phase, PhaseReport, Quantiles,
    HANG_AFTER, PROMPT_TOKENS,
};
pub use contention::{
    contention_table, run_contention, Busy, Condition, ConditionReport, ContentionBench,
    ContentionReport, CONTENTION_HANG_AFTER, DEFAULT_CONDITIONS,
};
pub use dialogue::{builtin_dir, Dialogue, ScriptedTurn, BUILTIN_DIALOGUE};
pub use engine::{
    load_engine, play_on_engine, play_on_engine_with, resolve_model, ModelChoice, TraceEntry,
};
pub use error::BenchError;
pub use forced::{BeforeRequest, ForcedModel};
pub use head::{run_head, HeadBenchReport, Run as HeadRun};
pub use kv::{median, run_kv, KvBench, KvConfig, KvReport, KvRow};
pub use run::{
    heard_before_the_end, run_dialogue, run_dialogue_with_head, scripted_requests, DialogueReport,
    GenerationRow, ScriptedRequest, Speaking, Totals, TurnRow,
};
pub use shift::{
    run_shift, Agreement, Candidate, ShiftBench, ShiftCall, ShiftReport, SHIFT_MAX_TOKENS,
};
pub use soak::{rss_kb, run_soak, SoakReport, SoakTurn, Spread};
pub use storm::{run_storm, ProcessFigures, StormBench, StormMinute, StormReport};
