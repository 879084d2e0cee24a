//! Porfiry's agent core: skills, toolsets, prompt assembly, the `TOOL_CALL:` protocol, the
//! dispatcher and per-session state — pure logic, driven through the [`Model`] trait.
//!
//! # How the pieces fit
//!
//! - [`SkillRegistry`] holds skills (markdown + YAML front matter): knowledge the model
//!   reads on demand with `read_skill|name`. Only their index is in the prompt.
//! - [`ToolsetRegistry`] holds toolset declarations (YAML): groups of host tools the model
//!   enables per session. The host supplies [`ToolExecutor`]s; the core knows no toolset.
//! - [`Agent`] owns both, a [`Clock`], the executors and the sessions (history + active
//!   toolsets with deadlines). [`Agent::turn`] runs one user turn against a [`Model`],
//!   streaming [`AgentEvent`]s and returning a [`TurnOutcome`].
//! - [`build_prompt`] renders the system prompt as [`Prompt`] sections; [`parse_output`]
//!   and [`VisibleTextFilter`] implement the `TOOL_CALL:` protocol.
//! - [`scenario`] runs scripted YAML scenarios (the `porfiry scenario` command and the
//!   crate's integration tests) with a [`ScriptedModel`].
//!
//! ```
//! use std::sync::Arc;
//! use porfiry_agent::*;
//!
//! let clock = Arc::new(ManualClock::parse("2026-08-22T10:00:00+03:00").unwrap());
//! let mut agent = Agent::new(AgentConfig::default(), SkillRegistry::default(),
//!                            ToolsetRegistry::default(), clock);
//! let mut model = ScriptedModel::new(["TOOL_CALL: get_current_time", "Десять утра."]);
//! let out = agent
//!     .turn("s1", "Который час?", &mut model, &CancelToken::new(), &mut |_event| {})
//!     .unwrap();
//! assert_eq!(out.stop, TurnStop::Answered);
//! assert_eq!(out.reply, "Десять утра.");
//! assert!(out.executed[0].result.starts_with("10:00, суббота, 22 августа 2026"));
//! ```
//!
//! # Design decisions
//!
//! - **No I/O but reading skill/toolset files, no threads, no locks held across calls.**
//!   A turn runs on the caller's thread; cancellation is a [`CancelToken`] checked before
//!   every model call and passed into the model (which checks it per token). Nothing can
//!   deadlock on the agent.
//! - **The prompt never contains the time** ([`build_prompt`] takes no clock) and is
//!   byte-identical for the same toolset state; its static sections (core, toolset index) come
//!   first so an engine can keep their KV state. Where the dynamic sections go in a
//!   request is [`AgentConfig::layout`] ([`PromptLayout`]): by default one state message
//!   anchored where the current toolset state began, so a toolset change re-prefills only
//!   what followed the previous change (measured: `BENCHMARKS.md`).
//! - **History is append-only.** Tool results stay; nothing is preloaded; sessions never
//!   share history. The only removal is the host's explicit [`Agent::end_session`].
//! - **Requests fit the context; the history keeps everything.** For a model with a bounded
//!   context ([`Model::context_window`]) every request is measured before it is sent
//!   ([`Model::count_tokens`], else [`estimate_tokens`]) against its [`ContextBudget`]. One
//!   that would not fit is compacted — older tool results shortened to their first line
//!   and call, then the oldest whole exchanges left out behind one marker line, down to a
//!   low-water mark ([`LOW_WATER_PERCENT`]) — in the request only: [`Agent::history`] still
//!   returns everything. The system text, the toolset state and the current turn stay; a
//!   message too long for the context alone is cut with a marker; a turn that cannot fit
//!   even so stops with [`TurnStop::ModelError`] ([`ModelErrorKind::ContextFull`]) and the
//!   session goes on. Compaction only moves forward, so the requests between two
//!   compactions share their prefix and a model's KV cache reuses it. Figures:
//!   [`TurnOutcome::context`] ([`ContextReport`]).
//! - **Invisible toolset switches.** A generation whose calls only enable/disable toolsets
//!   *and change them* is discarded and generated again under the new prompt; the host
//!   does not hear its preamble twice ([`RepeatGuard`]). A switch that changes nothing
//!   (already active, unknown set) is generated again too, its call and reply shown to the
//!   next request only — never in the history — and that request offers no switch, so an
//!   identical request cannot produce the identical answer forever.
//! - **Forgiving tools.** Tool errors, unknown tools and invalid arguments become tool
//!   replies (from the one set of messages, [`Texts`]); they never end the loop. A call to
//!   a tool of an inactive set activates the set and either runs (valid arguments,
//!   [`AgentConfig::direct_execution`]) or says explicitly that it was NOT executed.
//! - **Bounded.** At most [`AgentConfig::max_iterations`] model calls per turn, discarded
//!   generations included.
#![deny(missing_docs)]

mod agent;
mod args;
mod call_line;
mod clock;
mod diag;
pub mod function_gemma;
mod guidance;
mod intent;
mod judge;
mod load;
mod messages;
mod model;
mod output;
mod prompt;
pub mod scenario;
mod scripted;
mod skill;
mod time_text;
mod tools;
mod toolset;

pub use agent::{
    estimate_tokens, merged_input, render_history, Agent, AgentConfig, AgentError, AgentEvent,
    ContextBudget, ContextReport, ExecutedTool, GenerationRecord, HostHook, HostNote, ReplyKind,
    RequestView, RunReminder, SharedHook, ToolReply, TurnOutcome, TurnStop, LOW_WATER_PERCENT,
};
pub use args::{validate_args, ArgDecl, ArgType, ArgValue, Args, DurationUnit, RawArgs};
pub use call_line::{parse_output, parse_output_as, RepeatGuard, VisibleTextFilter};
pub use clock::{iso8601, parse_duration, BadDuration, Clock, ManualClock, SystemClock, Timestamp};
pub use diag::{Diagnostic, Loaded, Problem, Severity};
pub use guidance::{
    Guidance, Route, RouteExample, Technique, UnknownTechnique, ASK_MARGIN, MIN_CONFIDENCE,
};
pub use intent::{Intent, Operation};
pub use judge::{
    declines, is_refusal, judge_reply, load_dictionary, prepare_dictionary, user_lang, Dictionary,
    DictionaryError, JudgeContext, LoadedDictionary, Rule, Verdict, MAX_WORDS,
};
pub use load::{MAX_FILE_BYTES, MAX_FLOW_OPENINGS};
pub use messages::{AnswerTranscript, ArgProblem, Lang, Texts, UnknownLang};
pub use model::{
    wire, ArgKind, ArgSpec, CallLine, CallSpec, CallSyntax, CancelToken, Confidence, ContextWindow,
    Generation, GenerationStats, Message, Model, ModelError, ModelErrorKind, ModelRequest,
    ReplyGuide, Role, StopReason,
};
pub use output::{ParsedOutput, Segment, ToolCall};
pub use prompt::{
    build_prompt, build_prompt_for, build_prompt_with, Prompt, PromptLayout, Section, SectionKind,
    SECTION_SEPARATOR,
};
pub use scripted::{RecordedRequest, ScriptedModel};
pub use skill::{
    check_skill_name, load_skill_dir, name_key, parse_skill, Skill, SkillRegistry,
    DESCRIPTION_LIMIT, NAME_LIMIT,
};
pub use tools::{ExecutorTarget, ToolExecutor, ToolInvocation, CORE_TOOL_NAMES};
pub use toolset::{
    parse_toolset, ToolDecl, Toolset, ToolsetRegistry, EXAMPLES_LIMIT, EXAMPLE_CHARS, SAID_LIMIT,
};
