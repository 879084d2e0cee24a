//! The scripted dialogue: data (`benches/dialogue.yaml`), validation, and the agent it runs on.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use porfiry_agent::scenario::StandIn;
use porfiry_agent::{
    Agent, AgentConfig, ExecutorTarget, Guidance, Lang, ManualClock, PromptLayout, ToolInvocation,
};
use serde::Deserialize;

use crate::error::BenchError;

/// The built-in dialogue's text (`benches/dialogue.yaml`).
pub const BUILTIN_DIALOGUE: &str = include_str!("../dialogue.yaml");

/// One user turn and the model's forced replies, one per model call.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptedTurn {
    /// What the user says.
    pub user: String,
    /// The model's replies, one per generation of the turn (enable/disable generations that
    /// the agent discards included).
    pub replies: Vec<String>,
    /// The session's active toolsets after the turn, when checked.
    #[serde(default)]
    pub expect_active: Option<Vec<String>>,
}

/// A scripted, teacher-forced dialogue.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Dialogue {
    /// What it is.
    pub name: String,
    /// Prompt and reply language.
    #[serde(default)]
    pub lang: Lang,
    /// The manual clock's time (the prompt never contains it; `get_current_time` does).
    pub clock: String,
    /// The session name.
    pub session: String,
    /// Stand-ins for the host executors, by tool name.
    #[serde(default)]
    pub tool_results: BTreeMap<String, StandIn>,
    /// The turns.
    pub turns: Vec<ScriptedTurn>,
}

impl Dialogue {
    /// The built-in dialogue.
    ///
    /// # Errors
    /// [`BenchError::BadDialogue`] if the embedded file is broken (a build of this crate
    /// with a bad `dialogue.yaml`; the crate's tests catch it).
    pub fn builtin() -> Result<Self, BenchError> {
        Self::parse(BUILTIN_DIALOGUE, "benches/dialogue.yaml")
    }

    /// Parse and check a dialogue: at least one turn, every turn with a non-empty user text
    /// and at least one reply, and the last reply of every turn free of `TOOL_CALL:`.
    ///
    /// # Errors
    /// [`BenchError::BadDialogue`].
    pub fn parse(text: &str, origin: &str) -> Result<Self, BenchError> {
        let bad = |reason: String| BenchError::BadDialogue {
            origin: origin.to_string(),
            reason,
        };
        let d: Dialogue = serde_norway::from_str(text).map_err(|e| bad(e.to_string()))?;
        if d.turns.is_empty() {
            return Err(bad("no turns".into()));
        }
        for (i, t) in d.turns.iter().enumerate() {
            if t.user.trim().is_empty() {
                return Err(bad(format!("turn {} has an empty user text", i + 1)));
            }
            match t.replies.last() {
                None => return Err(bad(format!("turn {} has no replies", i + 1))),
                Some(last) if last.contains("TOOL_CALL:") => {
                    return Err(bad(format!(
                        "turn {}: the last reply must answer, not call a tool",
                        i + 1
                    )))
                }
                Some(_) => {}
            }
        }
        ManualClock::parse(&d.clock).map_err(|e| bad(format!("clock: {e}")))?;
        Ok(d)
    }

    /// The first `n` turns (all when `None`).
    ///
    /// # Errors
    /// [`BenchError::Turns`] when `n` is 0 or more than the dialogue has.
    pub fn take(&self, n: Option<usize>) -> Result<Dialogue, BenchError> {
        let available = self.turns.len();
        let n = n.unwrap_or(available);
        if n == 0 || n > available {
            return Err(BenchError::Turns {
                asked: n,
                available,
            });
        }
        let mut d = self.clone();
        d.turns.truncate(n);
        Ok(d)
    }

    /// Every forced reply, in the order the model is asked for them.
    pub fn replies(&self) -> impl Iterator<Item = &str> {
        self.turns
            .iter()
            .flat_map(|t| t.replies.iter().map(String::as_str))
    }

    /// An agent over the built-in skills and toolsets of this checkout, with this dialogue's
    /// clock, language and executor stand-ins, laid out by `layout`.
    ///
    /// # Errors
    /// [`BenchError::Load`] when a skill or toolset file has an error or warning. Declared
    /// tools without a stand-in answer "no executor"; a script that calls one goes out of step.
    pub fn agent(&self, layout: PromptLayout) -> Result<Agent, BenchError> {
        self.agent_in(&builtin_dir("skills"), &builtin_dir("toolsets"), layout)
    }

    /// Like [`Dialogue::agent`] with other skill and toolset folders.
    ///
    /// # Errors
    /// See [`Dialogue::agent`].
    pub fn agent_in(
        &self,
        skills: &Path,
        toolsets: &Path,
        layout: PromptLayout,
    ) -> Result<Agent, BenchError> {
        let clock = ManualClock::parse(&self.clock).map_err(|e| BenchError::Load(e.to_string()))?;
        // The replies are scripted (teacher forcing): guidance, which decides replies (routed
        // calls, stops, hidden sets), would change the dialogue being measured.
        // No turn budget: a loaded machine must not change the dialogue being measured.
        let config = AgentConfig {
            lang: self.lang,
            layout,
            guidance: Guidance::none(),
            turn_budget: None,
            ..AgentConfig::default()
        };
        let (mut agent, diagnostics) =
            porfiry_runtime::load_agent_from(config, &[skills], &[toolsets], Arc::new(clock));
        if !diagnostics.is_empty() {
            let all: Vec<String> = diagnostics.iter().map(ToString::to_string).collect();
            return Err(BenchError::Load(all.join("; ")));
        }
        for (tool, stand_in) in &self.tool_results {
            let reply = stand_in.clone();
            agent.register_executor(
                ExecutorTarget::Tool(tool.clone()),
                Arc::new(move |_: &ToolInvocation<'_>| reply.reply()),
            );
        }
        Ok(agent)
    }
}

/// A built-in folder of this checkout (`skills`, `toolsets`).
pub fn builtin_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(name)
}
