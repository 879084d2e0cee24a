//! Porfiry's inference engine: a GGUF model on llama.cpp (through `llama-cpp-2`), behind the
//! agent's [`Model`](porfiry_seam::Model) seam.
//!
//! # Pieces
//! - [`Engine`]: validates a GGUF file ([`inspect_gguf`]), loads it on a dedicated worker
//!   thread that owns the llama.cpp model and context, and serves [`GenerateRequest`]s one at
//!   a time. Callers get [`Event`]s over a `crossbeam-channel`: text pieces (valid UTF-8,
//!   never a split character), then a [`Completion`] with [`GenerationStats`] or an error.
//! - [`ChatFormat`]: Gemma or ChatML, detected from the GGUF metadata or chosen by the host;
//!   [`render_prompt`] turns a system text and messages into segments, append-only.
//! - [`EngineModel`]: the engine as the agent's `Model`.
//! - [`Tokenizer`]: the model's vocabulary alone (no weights) for counting prompt tokens.
//!
//! # Design decisions
//! - **One owner thread.** `LlamaContext` borrows `LlamaModel` and is not thread-safe, so
//!   both live on the worker's stack; the [`Engine`] handle only sends commands.
//! - **Validate before llama.cpp.** A missing, non-GGUF or truncated file is a typed
//!   [`EngineError`], never an abort inside llama.cpp.
//! - **Security by tokenization.** Template scaffolding is tokenized with special tokens
//!   parsed; every message text (user, tool, system, earlier replies) with special-token
//!   parsing off, so `<end_of_turn>` typed by anyone is plain text.
//! - **Prompt-prefix KV reuse.** The worker keeps, per KV sequence, the exact token list in
//!   the cache ([`kv`] module); a request keeps the longest common prefix and prefills only
//!   the rest. The model's replies are re-rendered with the tokens actually sampled, so the
//!   next turn reuses the whole previous conversation. Gemma 3's sliding-window layers keep
//!   their full cache (`swa_full`) so truncation works; where llama.cpp refuses a partial
//!   removal the engine prefills in full and says so (`GenerationStats::full_reprefill`).
//! - **The grammar cannot abort the process.** Every chosen token is one the engaged
//!   tool-call grammar allows (the chain's pick is checked; on rejection the grammar masks
//!   all candidates, end-of-generation included while a call is incomplete, and the chain
//!   picks again), tokens are accepted with `try_accept`, and an end-of-generation token is
//!   never accepted at all. Checking only the pick keeps the engaged grammar cheap.
//!
//! # Example
//! ```no_run
//! use porfiry_engine::{Engine, EngineParams, GenerateConfig, GenerateRequest};
//! use porfiry_seam::Message;
//!
//! let engine = Engine::load("models/cache/gemma-3-270m-q4_k_m.gguf", EngineParams::default())?;
//! let request = GenerateRequest::new("main", "You are Porfiry.", vec![Message::user("Hi")])
//!     .with_config(GenerateConfig::greedy(64));
//! let done = engine.generate(request, &mut |piece| print!("{piece}"))?;
//! println!("\n{:?} {:?}", done.stop, done.stats);
//! # Ok::<(), porfiry_engine::EngineError>(())
//! ```
#![deny(missing_docs)]

mod backend;
mod chat;
mod config;
mod embed;
mod engine;
mod error;
mod generation;
mod gguf;
mod gpu;
mod heads;
mod idle;
pub mod kv;
mod model;
mod params;
mod prompt;
mod sampling;
pub mod snapshot;
mod text;
mod threads;
mod tokenizer;
mod wire;
mod worker;

// llama-cpp-sys-2 builds ggml-opencl but leaves linking the OpenCL ICD loader to the crate
// on top (its build script says so), so the engine names it: `libOpenCL.so` (ocl-icd on
// Debian). A cross build must put one on the linker's search path (`RUSTFLAGS=-L…`).
#[cfg(feature = "opencl")]
#[link(name = "OpenCL")]
extern "C" {}

pub use chat::{
    generation_prompt, render_conversation, render_prompt, segments_text, ChatFormat, PromptSegment,
};
pub use config::{GenerateConfig, SamplingConfig, ToolCallGrammar};
pub use embed::EMBED_TOKENS;
pub use engine::{Engine, EngineStopper};
pub use error::EngineError;
pub use gguf::{inspect as inspect_gguf, inspect_bytes as inspect_gguf_bytes, GgufError, GgufInfo};
pub use idle::ANTICIPATE_AFTER;
pub use kv::TokenId;
pub use model::EngineModel;
pub use params::{
    allowed_cpus, fit_threads, performance_cores, performance_cores_in, physical_cores,
    set_thread_nice, thread_nice, EngineParams, KvType, CPU_SYSFS, DEFAULT_NICE,
};
pub use prompt::RenderedPrompt;
pub use snapshot::SnapshotError;
pub use text::{StopScanner, Utf8Stream};
pub use tokenizer::Tokenizer;
pub use wire::{
    CacheReport, Completion, Event, GenerateRequest, HeadReport, HeadSource, ModelInfo, SeqReport,
    TrimLevel, TrimReport,
};

pub use porfiry_seam::{CancelToken, GenerationStats, Message, Role, StopReason};
