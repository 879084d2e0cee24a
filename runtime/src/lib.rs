//! Porfiry's runtime: the model, the engine and the agent wired once, so every host — the
//! command-line tool, the phone bridge, the benchmarks — behaves the same.
//!
//! # How the pieces fit
//! - [`RuntimeConfig`] says what to open (model id or path, fetch or not, language, the
//!   user's skill and toolset folders over the built-in ones, context, threads, sessions,
//!   generation settings, snapshots). [`engine_params`] is the one mapping from a model's
//!   manifest entry to the engine's load parameters.
//! - [`paths`] holds every folder and every `PORFIRY_*` variable: data, KV snapshots,
//!   models, and the built-in skills and toolsets (embedded in the binary, so a copy of it
//!   works away from its checkout).
//! - [`Runtime::open`] resolves (and fetches) the model, loads the engine and the agent,
//!   registers the built-in host tools and warms the head up, and says what it did in an
//!   [`OpenReport`]. [`Runtime`] then runs turns ([`Runtime::turn`] → [`Turn`] with its
//!   [`TurnStats`]), partial-transcript hints ([`Runtime::hear_partial`]), prompts and
//!   [`Runtime::end_session`].
//! - [`TurnStats`] is the one definition of every per-turn figure (sums and last-request
//!   figures named apart), used by the CLI, the bridge's `onDone` and the benchmark rows.
//! - [`TimedExecutor`] gives every host tool a deadline.
//! - [`CatalogExecutor`] runs the `skills` toolset over the catalog of skills and protocols
//!   (`porfiry-catalog`), [`ProtocolExecutor`] the `protocol` toolset (protocol runs), and
//!   [`CatalogRunHook`] tells the agent about a session's running protocol and the user's
//!   decisions on its proposals; all three are set up when [`RuntimeConfig::catalog`] names a
//!   file.
//!
//! # Design decisions
//! - **Wiring in one place.** Only this crate uses `porfiry-models` and `porfiry-engine`
//!   together; hosts convert their input, call the runtime and show its output.
//! - **No host tool can hang a turn.** Every executor registered through the runtime runs on
//!   its own thread with a deadline; a timeout or a failure is a tool error for the model.
//! - **A session ends in the agent and in the model.** [`Runtime::end_session`] removes the
//!   history and tells the model to free the session's KV sequence.
#![deny(missing_docs)]

mod catalog_tools;
mod config;
mod error;
mod host_tools;
mod notes;
mod open;
pub mod paths;
mod protocol_tools;
mod runtime;
mod scenario_catalog;
mod shared_catalog;
mod stats;

pub use catalog_tools::{CatalogExecutor, AGENT_AUTHOR};
pub use config::{
    chat_format_of, engine_params, RuntimeConfig, CATALOG_FILE, DEFAULT_TOOL_TIMEOUT,
};
pub use error::RuntimeError;
pub use host_tools::{timed_scenario_tools, HostCall, HostFailure, TimedExecutor, ToolCounters};
pub use notes::NotesExecutor;
pub use open::{
    agent_folders, attach_catalog, load_agent, load_agent_from, load_engine, resolve_model,
    ModelChoice, OpenReport, UnwritableData,
};
/// The catalog of skills and protocols (`porfiry-catalog`), for hosts that show or edit it
/// (the bridge's catalog calls for the app's settings screen).
pub use porfiry_catalog as catalog;
pub use porfiry_engine::{TrimLevel, TrimReport};
/// Progress reporting of model fetches, for hosts (from `porfiry-models`).
pub use porfiry_models::{NoProgress, Progress, StderrProgress};
pub use protocol_tools::{CatalogRunHook, ProtocolExecutor, DECISION_NOTE_TOOL, INDEX_LIMIT};
pub use runtime::{Backend, Runtime, Turn};
pub use scenario_catalog::{scenario_catalog, SCENARIO_DECIDER};
pub use shared_catalog::{
    open_catalog, skills_toolset_dir, SharedCatalog, PROTOCOL_TOOLSET, SKILLS_TOOLSET,
};
pub use stats::{stop_name, ToolTime, TurnStats, TurnTotals};

// The worker service (moved from the bridge) — its modules and exports:
mod sentences;
mod service;

pub use sentences::SentenceSplitter;
pub use service::{EventSink, Service, ServiceError, ServiceEvent, ServicePolicy};
