//! `--stand-ins FILE` of `porfiry chat`: replies that stand in for a host's executors, so a
//! toolset can be talked to before the code that runs it exists.
//!
//! The file is a YAML map of tool name to what the tool answers, in the format of the evals'
//! and scenarios' `tool_results` ([`StandIn`]): a text, or `{error: text}`. The key `values`
//! (no tool's name: a tool's has a `_`) gives the host's lists of `values_from` arguments,
//! as an eval file's `values:` does.
//!
//! ```yaml
//! timer_start: "Timer 1 set for 5 minutes."
//! timer_list: "1. Tea, 4 minutes left id=t1"
//! timer_cancel: {error: "no such timer"}
//! values: {contacts: ["Anna Petrova", "Bob"]}
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{bail, Context};
use porfiry_agent::scenario::StandIn;
use porfiry_agent::{ExecutorTarget, ToolInvocation, ToolsetRegistry, CORE_TOOL_NAMES};
use porfiry_runtime::Runtime;
use serde_norway::Value;

/// The stand-ins of one file, by tool name (lower case).
#[derive(Debug, Clone)]
pub struct StandIns {
    /// The file they came from.
    pub path: PathBuf,
    /// Each tool's reply.
    pub replies: BTreeMap<String, StandIn>,
    /// The host's lists (`values:`), by name (lower case).
    pub values: BTreeMap<String, Vec<String>>,
}

/// The key of the host's lists.
const VALUES_KEY: &str = "values";

/// How an entry is written, for the errors.
const SHAPE: &str =
    "each entry is `tool_name: \"reply text\"` or `tool_name: {error: \"error text\"}`";

impl StandIns {
    /// Read and parse `path`.
    ///
    /// # Errors
    /// The file cannot be read, is no YAML, is not a map of tool names to replies, or an
    /// entry is neither a text nor `{error: text}`: the error names the file, the entry and
    /// what to write instead.
    pub fn load(path: &Path) -> anyhow::Result<Self> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading the stand-ins file {}", path.display()))?;
        Self::parse(&text, path)
    }

    /// Parse the text of a stand-ins file; `path` names it in errors.
    ///
    /// # Errors
    /// As [`StandIns::load`].
    pub fn parse(text: &str, path: &Path) -> anyhow::Result<Self> {
        let file = path.display();
        let value: Value = serde_norway::from_str(text)
            .map_err(|e| anyhow::anyhow!("the stand-ins file {file} is no valid YAML: {e}"))?;
        let map = match value {
            Value::Mapping(m) if !m.is_empty() => m,
            Value::Null => bail!("the stand-ins file {file} is empty: {SHAPE}"),
            Value::Mapping(_) => bail!("the stand-ins file {file} has no entries: {SHAPE}"),
            _ => bail!("the stand-ins file {file} is not a map of tool names to replies: {SHAPE}"),
        };
        let mut replies = BTreeMap::new();
        let mut values = BTreeMap::new();
        for (key, value) in map {
            let Some(name) = key.as_str().map(|k| k.trim().to_lowercase()) else {
                bail!("the stand-ins file {file}: the key {key:?} is not a tool name: {SHAPE}");
            };
            if name == VALUES_KEY {
                values = host_lists(&value).ok_or_else(|| {
                    anyhow::anyhow!(
                        "the stand-ins file {file}: `values` is the host's lists: a map of list \
                         name to a list of texts, e.g. `values: {{contacts: [\"Anna\", \"Bob\"]}}`"
                    )
                })?;
                continue;
            }
            let reply = stand_in(&value).ok_or_else(|| {
                anyhow::anyhow!(
                    "the stand-ins file {file}: the reply of {name:?} is neither a text nor \
                     {{error: text}} (a number or a yes/no is written in quotes): {SHAPE}"
                )
            })?;
            if replies.insert(name.clone(), reply).is_some() {
                bail!("the stand-ins file {file}: {name:?} is given twice");
            }
        }
        if replies.is_empty() {
            bail!("the stand-ins file {file} gives no tool's reply: {SHAPE}");
        }
        Ok(Self {
            path: path.to_path_buf(),
            replies,
            values,
        })
    }

    /// Check that every stand-in is for a tool one of `toolsets` declares.
    ///
    /// # Errors
    /// The first name that is a core tool or no declared tool, with the declared tools of
    /// its set (or the sets there are) and where sets come from.
    pub fn check(&self, toolsets: &ToolsetRegistry) -> anyhow::Result<()> {
        let file = self.path.display();
        for name in self.replies.keys() {
            if CORE_TOOL_NAMES.contains(&name.as_str()) {
                bail!(
                    "the stand-ins file {file}: {name:?} is a core tool (the assistant runs it \
                     itself): leave it out"
                );
            }
            let set = toolsets.owner_set(name);
            if set.and_then(|s| s.tool(name)).is_some() {
                continue;
            }
            let known = match set {
                Some(s) => format!(
                    "the set {} declares {}",
                    s.name,
                    s.tools
                        .iter()
                        .map(|t| t.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                None => format!(
                    "the loaded sets are {} (give your set's folder with --toolsets DIR)",
                    toolsets.names().join(", ")
                ),
            };
            bail!(
                "the stand-ins file {file}: no loaded toolset declares the tool {name:?}: {known}"
            );
        }
        let lists: Vec<&str> = toolsets
            .iter()
            .flat_map(|s| s.tools.iter())
            .flat_map(|t| t.args.iter())
            .filter_map(|a| a.values_from.as_deref())
            .collect();
        if let Some(name) = self.values.keys().find(|n| !lists.contains(&n.as_str())) {
            bail!(
                "the stand-ins file {file}: no argument of the loaded toolsets takes its values \
                 from {name:?} (`values_from: {name}`)"
            );
        }
        Ok(())
    }

    /// Register each stand-in as the executor of its tool (timed, as every host tool), and
    /// give the agent the host's lists.
    pub fn register(&self, runtime: &mut Runtime) {
        for (name, list) in &self.values {
            runtime.agent_mut().set_values(name, list.clone());
        }
        for (tool, stand_in) in &self.replies {
            let reply = stand_in.clone();
            runtime.register_executor(
                ExecutorTarget::Tool(tool.clone()),
                Arc::new(move |_: &ToolInvocation<'_>| reply.reply()),
            );
        }
    }

    /// The tools, comma-separated, and the host's lists (for the start-up line).
    pub fn names(&self) -> String {
        let tools = self.replies.keys().cloned().collect::<Vec<_>>().join(", ");
        if self.values.is_empty() {
            return tools;
        }
        let lists = self.values.keys().cloned().collect::<Vec<_>>().join(", ");
        format!("{tools}; lists: {lists}")
    }
}

/// The stand-in an entry's value says: a text, or a map of exactly `error: text`.
fn stand_in(value: &Value) -> Option<StandIn> {
    match value {
        Value::String(s) => Some(StandIn::Text(s.clone())),
        Value::Mapping(m) if m.len() == 1 => {
            let error = m.get("error")?.as_str()?;
            Some(StandIn::Error {
                error: error.to_string(),
            })
        }
        _ => None,
    }
}

/// The host's lists of `values:`: a map of list name (a lower-case identifier) to texts.
fn host_lists(value: &Value) -> Option<BTreeMap<String, Vec<String>>> {
    let mut out = BTreeMap::new();
    for (name, list) in value.as_mapping()? {
        let name = name.as_str()?.trim().to_lowercase();
        let texts = list
            .as_sequence()?
            .iter()
            .map(|v| v.as_str().map(|t| t.trim().to_string()))
            .collect::<Option<Vec<String>>>()?;
        if name.is_empty() || texts.iter().any(String::is_empty) {
            return None;
        }
        out.insert(name, texts);
    }
    Some(out)
}
