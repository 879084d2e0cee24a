//! Scripted scenarios: YAML files that drive an [`Agent`] with a [`ScriptedModel`] and check
//! what happened. `porfiry scenario FILE...` and the crate's integration tests run them.
//!
//! ```yaml
//! name: media via substitution
//! lang: ru                         # default ru
//! skills: [fixtures/skills]        # default: the built-in skills (paths relative to the file)
//! toolsets: [fixtures/toolsets]    # default: the built-in toolsets
//! clock: 2026-08-22T10:00:00+03:00 # manual clock start (default 2026-01-01T00:00:00+00:00)
//! direct_execution: true           # default true
//! max_iterations: 8                # default 8
//! toolset_timeout: 10m             # default 10m
//! tool_results: {media_search: "1. Tomb Raider (2018) id=tt1365519", media_play: {error: "TV off"}}
//! context: 300                     # the scripted model's context in tokens (default: unbounded)
//! reply_tokens: 60                 # its reply limit (default: a quarter of `context`)
//! steps:
//!   - session: s1                  # switch session (default "default")
//!   - advance: 9m59s               # move the clock
//!   - user: "Найди фильм про Лару Крофт"
//!     model: ["TOOL_CALL: media_search|Лара Крофт", "Нашёл: Tomb Raider (2018)"]
//!   - expect:
//!       active: [media]            # exactly the active sets of the current session
//!       prompt_contains: [media_search]
//!       prompt_excludes: []
//!       history_contains: [Tomb Raider]
//!       history_excludes: [enable_toolset]
//!       tool_results_contains: []  # all tool replies of the last turn, incl. ones kept out of history
//!       reply_contains: [Tomb Raider]
//!       reply_excludes: []
//!       streamed_excludes: [TOOL_CALL]   # what the host received as text
//!       executed: [media_search]   # executions of the last turn, in order
//!       shown: []                  # show_text texts of the last turn
//!       stop: answered             # answered | max_iterations | cancelled | model_error
//!       request_contains: [Tomb Raider]  # the last request the model received, as text
//!       request_excludes: []
//!       compactions: 0             # compactions of the request in the last turn
//!       request_as_in_step: 4      # the last request is identical to step 4's last one
//!       request_extends_step: 4    # ... begins with all of step 4's last request
//! ```
//!
//! **A catalog** (needs a host that has one, [`ScenarioDefaults::catalog`]: the runtime's
//! tests and `porfiry scenario`):
//!
//! ```yaml
//! catalog: [fixtures/catalog]      # documents (files or folders) imported as shared entries
//!                                  # into a fresh temporary catalog; the skills and protocol
//!                                  # toolsets are added and executed over it
//! steps:
//!   - decide: {proposal: last, action: accept}   # the user decides (last, or #N)
//!   - decide: {proposal: "#2", action: accept, refused: "already exists"}  # must be refused
//!   - expect:
//!       run: {status: running, open_steps: 1}    # the session's newest run (status none: no run)
//!       proposals: {pending: 1, accepted: 0, rejected: 0, error_contains: "already exists"}
//!       notes: 1                                 # hidden host notes the last turn began with
//!       run_reminders: 2                         # requests of the last turn with the run's reminder
//!       finish_reminders: 1                      # finish reminders of the last turn
//! ```
//!
//! Within one step the keys run in the order session → advance → decide → user/model → expect.
//! A `user` step fails if the loop needs more model outputs than given or leaves some unused,
//! and when the turn stops with a model error — unless that step's own `expect` says
//! `stop: model_error` (a turn the agent refuses because it cannot fit the context).
//!
//! **Requests.** `request_*` keys look at the last request a model received in the scenario
//! so far (of the last turn that made one), rendered as `system: <system text>` and then
//! [`render_history`] of its messages — the state message and the compaction marker
//! included. `request_as_in_step` / `request_extends_step` compare it with the last request
//! of an earlier `user` step (1-based; the session name is not compared): the same history
//! and budget must give the same request, and a request made before the next compaction
//! must begin with the previous one (so a model's KV cache reuses it).
//!
//! **A bounded context.** With `context: N` every turn's model is
//! [`ScriptedModel::with_context`]`(N, reply_tokens)`: it reports an N-token context and counts
//! a request as ONE token per whitespace-separated word of each message's text plus 4 per
//! message, the system text counted as a message ([`ScriptedModel::tokens_of`]); a reply is
//! one token per word and stops at the reply limit or where the context is full. A request
//! over N tokens fails the step (`the agent sent a request that does not fit`), even with
//! `stop: model_error`: scenarios prove the agent never sends one.
//!
//! [`Agent`]: crate::Agent
//! [`ScriptedModel`]: crate::ScriptedModel
//! [`ScriptedModel::with_context`]: crate::ScriptedModel::with_context
//! [`ScriptedModel::tokens_of`]: crate::ScriptedModel::tokens_of
//! [`render_history`]: crate::render_history

mod checks;
mod host;
mod runner;
mod schema;
#[cfg(test)]
mod tests;

use std::fmt;
use std::path::{Path, PathBuf};

pub use host::{
    CatalogFactory, ProposalCounts, ScenarioCatalog, ScenarioDefaults, TimedTools, Wrap,
};
pub use runner::run_scenario;
pub use schema::{
    Decide, DecideAction, Expect, Interrupt, ProposalsExpect, RunExpect, Scenario, StandIn, Step,
};

/// The result of one scenario file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioResult {
    /// The scenario's name (the file path when it did not parse).
    pub name: String,
    /// The file.
    pub path: PathBuf,
    /// Why it failed; `None` when it passed.
    pub failure: Option<String>,
}

impl ScenarioResult {
    /// Whether it passed.
    pub fn passed(&self) -> bool {
        self.failure.is_none()
    }
}

/// `PASS <name>` or `FAIL <name>: <why>`, always on one line.
impl fmt::Display for ScenarioResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.failure {
            None => write!(f, "PASS {}", self.name),
            // One line per scenario, whatever the reason contains.
            Some(why) => write!(f, "FAIL {}: {}", self.name, why.replace('\n', "\\n")),
        }
    }
}

/// Parse a scenario file.
pub fn load_scenario(path: &Path) -> Result<Scenario, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read: {e}"))?;
    parse_scenario(&text)
}

/// Parse a scenario file's text.
pub fn parse_scenario(text: &str) -> Result<Scenario, String> {
    crate::load::check_flow(text).map_err(|e| format!("bad scenario YAML: {e}"))?;
    serde_norway::from_str(text).map_err(|e| format!("bad scenario YAML: {e}"))
}

/// Load and run one scenario file.
pub fn run_scenario_file(path: &Path, defaults: &ScenarioDefaults) -> ScenarioResult {
    match load_scenario(path) {
        Err(why) => ScenarioResult {
            name: path.display().to_string(),
            path: path.to_path_buf(),
            failure: Some(why),
        },
        Ok(sc) => {
            let base = path.parent().unwrap_or(Path::new("."));
            ScenarioResult {
                name: sc.name.clone(),
                path: path.to_path_buf(),
                failure: run_scenario(&sc, base, defaults).err(),
            }
        }
    }
}

/// Run several files; the summary line is [`summary`].
pub fn run_scenario_files<P: AsRef<Path>>(
    paths: &[P],
    defaults: &ScenarioDefaults,
) -> Vec<ScenarioResult> {
    paths
        .iter()
        .map(|p| run_scenario_file(p.as_ref(), defaults))
        .collect()
}

/// `N passed, M failed`.
pub fn summary(results: &[ScenarioResult]) -> String {
    let passed = results.iter().filter(|r| r.passed()).count();
    format!("{passed} passed, {} failed", results.len() - passed)
}
