//! The options of `PorfiryNative.open` (a JSON object) and how they become a
//! [`RuntimeConfig`]; the `model` JSON that `stats` reports.

use std::path::PathBuf;
use std::time::Duration;

use porfiry_agent::{Agent, Diagnostic, Lang, Technique};
use porfiry_runtime::paths::BuiltinSource;
use porfiry_runtime::{OpenReport, RuntimeConfig, ServicePolicy, UnwritableData};
use serde_json::{json, Value};

use crate::error::BridgeError;

/// What `open` takes, as JSON keys (every one optional except `model`):
///
/// | key | meaning | default |
/// |---|---|---|
/// | `model` | a GGUF path or a model id of the manifest (looked up in `$PORFIRY_MODELS`); never fetched | required |
/// | `skills`, `toolsets` | the user's folders, loaded over the built-in ones | none |
/// | `builtin` | load the built-in skills and toolsets (embedded in the library) first | true |
/// | `context` | context size in tokens (0: the model's recommendation) | 0 |
/// | `threads` | CPU threads (0: the engine's choice) | 0 |
/// | `threads_batch` | CPU threads for prompt batches, when they should differ (0: `threads`) | 0 |
/// | `nice` | the compute threads' scheduling priority, a nice value −20 … 19 (lower: more CPU when other work shares the cores; kept as it is where the system refuses) | −5 |
/// | `max_tokens` | most tokens per generation (0: the engine's default, 512) | 0 |
/// | `sessions` | sessions whose KV cache is kept at once | 1 |
/// | `language` | `"ru"` or `"en"` | `"ru"` |
/// | `chat_format` | `"gemma"` or `"chatml"` | the manifest's, else detected |
/// | `data_dir` | the data directory (built-in copies, snapshots) | `$PORFIRY_DATA`, else the user's data directory |
/// | `kv_dir` | where head snapshots go | `$PORFIRY_KV_DIR`, else `<data_dir>/kv` |
/// | `tool_timeout_ms` | the deadline of the runtime's own host tools | 10000 |
/// | `max_sentences` | the most sentences of a spoken reply (0: no cap) | 3 |
/// | `route` | route a turn's first action by example requests (`Technique::Route`) | true |
/// | `barge_in` | a new message interrupts the session's running turn and takes in its queued ones (`ServicePolicy`) | true |
/// | `turn_budget_ms` | the time one turn may take (`AgentConfig::turn_budget`; 0: no limit) | 20000 |
/// | `reminder_after` | generations of a turn before its requests carry a reminder (0: never) | 4 |
/// | `mmap` | map the model file (false: read it into memory, so a file replaced in place cannot end the process with SIGBUS) | true |
/// | `catalog` | the catalog file of skills and protocols: the agent's `skills` toolset runs over it (`RuntimeConfig::catalog`); the settings screen opens the same file with `catalogOpen` | none |
///
/// An unknown key is an error that names it (a typo must not pass silently).
#[derive(Debug, Clone, Default)]
pub(crate) struct OpenOptions {
    pub model: String,
    pub skills: Vec<String>,
    pub toolsets: Vec<String>,
    pub builtin: Option<bool>,
    pub context: Option<u32>,
    pub threads: Option<u32>,
    pub threads_batch: Option<u32>,
    pub nice: Option<i32>,
    pub max_tokens: Option<u32>,
    pub sessions: Option<u32>,
    pub language: Option<String>,
    pub chat_format: Option<String>,
    pub data_dir: Option<String>,
    pub kv_dir: Option<String>,
    pub tool_timeout_ms: Option<u64>,
    pub max_sentences: Option<u32>,
    pub route: Option<bool>,
    pub barge_in: Option<bool>,
    pub turn_budget_ms: Option<u64>,
    pub reminder_after: Option<u32>,
    pub mmap: Option<bool>,
    pub catalog: Option<String>,
}

/// The keys [`OpenOptions`] knows.
const KEYS: [&str; 22] = [
    "model",
    "skills",
    "toolsets",
    "builtin",
    "context",
    "threads",
    "threads_batch",
    "nice",
    "max_tokens",
    "sessions",
    "language",
    "chat_format",
    "data_dir",
    "kv_dir",
    "tool_timeout_ms",
    "max_sentences",
    "route",
    "barge_in",
    "turn_budget_ms",
    "reminder_after",
    "mmap",
    "catalog",
];

fn invalid(msg: impl Into<String>) -> BridgeError {
    BridgeError::InvalidArgument(msg.into())
}

/// A language code as the agent's language.
pub(crate) fn lang(code: &str) -> Result<Lang, BridgeError> {
    code.parse::<Lang>()
        .map_err(|_| invalid(format!("unknown language {code:?}: use \"ru\" or \"en\"")))
}

/// The value of option `key` as a `T` (`null` is an absent `Option`).
fn value_of<T: serde::de::DeserializeOwned>(key: &str, v: &Value) -> Result<T, BridgeError> {
    T::deserialize(v).map_err(|e| invalid(format!("option {key:?}: {e}")))
}

impl OpenOptions {
    /// Reads `open`'s JSON: an object with the keys of [`OpenOptions`] and a `model`.
    ///
    /// # Errors
    /// [`BridgeError::InvalidArgument`] for text that is not a JSON object, unknown keys (all
    /// of them named), values of the wrong type, or no `model`.
    pub(crate) fn parse(text: &str) -> Result<Self, BridgeError> {
        let value: Value = serde_json::from_str(text)
            .map_err(|e| invalid(format!("open's options are not JSON: {e}")))?;
        let Value::Object(map) = &value else {
            return Err(invalid("open's options must be a JSON object"));
        };
        let mut o = OpenOptions::default();
        let mut unknown = Vec::new();
        for (key, v) in map {
            match key.as_str() {
                "model" => o.model = value_of::<Option<String>>(key, v)?.unwrap_or_default(),
                "skills" => o.skills = value_of::<Option<_>>(key, v)?.unwrap_or_default(),
                "toolsets" => o.toolsets = value_of::<Option<_>>(key, v)?.unwrap_or_default(),
                "builtin" => o.builtin = value_of(key, v)?,
                "context" => o.context = value_of(key, v)?,
                "threads" => o.threads = value_of(key, v)?,
                "threads_batch" => o.threads_batch = value_of(key, v)?,
                "nice" => o.nice = value_of(key, v)?,
                "max_tokens" => o.max_tokens = value_of(key, v)?,
                "sessions" => o.sessions = value_of(key, v)?,
                "language" => o.language = value_of(key, v)?,
                "chat_format" => o.chat_format = value_of(key, v)?,
                "data_dir" => o.data_dir = value_of(key, v)?,
                "kv_dir" => o.kv_dir = value_of(key, v)?,
                "tool_timeout_ms" => o.tool_timeout_ms = value_of(key, v)?,
                "max_sentences" => o.max_sentences = value_of(key, v)?,
                "route" => o.route = value_of(key, v)?,
                "barge_in" => o.barge_in = value_of(key, v)?,
                "turn_budget_ms" => o.turn_budget_ms = value_of(key, v)?,
                "reminder_after" => o.reminder_after = value_of(key, v)?,
                "mmap" => o.mmap = value_of(key, v)?,
                "catalog" => o.catalog = value_of(key, v)?,
                _ => unknown.push(key.as_str()),
            }
        }
        if !unknown.is_empty() {
            return Err(invalid(format!(
                "unknown option{} {} (known: {})",
                if unknown.len() == 1 { "" } else { "s" },
                unknown
                    .iter()
                    .map(|k| format!("{k:?}"))
                    .collect::<Vec<_>>()
                    .join(", "),
                KEYS.join(", ")
            )));
        }
        if o.model.trim().is_empty() {
            return Err(invalid(
                "open's options need a \"model\" (a GGUF path or a model id)",
            ));
        }
        Ok(o)
    }

    /// How the service treats a new message for a busy session (`barge_in`).
    pub(crate) fn policy(&self) -> ServicePolicy {
        ServicePolicy {
            barge_in: self.barge_in.unwrap_or(true),
        }
    }

    /// The runtime configuration: never fetching, 0 meaning the default.
    ///
    /// # Errors
    /// [`BridgeError::InvalidArgument`] for an unknown language or chat format, or a zero
    /// tool timeout.
    pub(crate) fn config(&self) -> Result<RuntimeConfig, BridgeError> {
        let lang = match &self.language {
            Some(code) => lang(code)?,
            None => Lang::Ru,
        };
        let mut config = RuntimeConfig::with_lang(lang);
        let positive = |v: Option<u32>| v.filter(|v| *v > 0);
        let dirs = |dirs: &[String]| -> Vec<PathBuf> {
            dirs.iter()
                .filter(|d| !d.is_empty())
                .map(PathBuf::from)
                .collect()
        };
        config.model = Some(self.model.clone()).filter(|m| !m.is_empty());
        config.fetch = false;
        config.builtin = self.builtin.unwrap_or(true);
        config.skill_dirs = dirs(&self.skills);
        config.toolset_dirs = dirs(&self.toolsets);
        config.n_ctx = positive(self.context);
        config.threads = positive(self.threads);
        config.threads_batch = positive(self.threads_batch);
        if let Some(n) = self.nice {
            if !(-20..=19).contains(&n) {
                return Err(invalid(format!(
                    "option \"nice\": {n} is no nice value: use -20 … 19"
                )));
            }
            config.nice = Some(n);
        }
        if let Some(max) = positive(self.max_tokens) {
            config.generate.max_tokens = max as usize;
        }
        config.n_seq = self.sessions.unwrap_or(1).max(1);
        config.chat_format = self
            .chat_format
            .as_deref()
            .map(|f| f.parse().map_err(invalid))
            .transpose()?;
        if let Some(n) = self.max_sentences {
            config.agent.guidance.max_sentences = (n > 0).then_some(n as usize);
        }
        if let Some(route) = self.route {
            config.agent.guidance.set(Technique::Route, route);
        }
        if let Some(ms) = self.turn_budget_ms {
            config.agent.turn_budget = (ms > 0).then(|| Duration::from_millis(ms));
        }
        if let Some(n) = self.reminder_after {
            config.agent.reminder_after = (n > 0).then_some(n as usize);
        }
        config.mmap = self.mmap.unwrap_or(true);
        config.data_dir = self.data_dir.as_ref().map(PathBuf::from);
        config.kv_dir = self.kv_dir.as_ref().map(PathBuf::from);
        config.catalog = self
            .catalog
            .as_ref()
            .filter(|c| !c.trim().is_empty())
            .map(PathBuf::from);
        if let Some(ms) = self.tool_timeout_ms {
            if ms == 0 {
                return Err(invalid("tool_timeout_ms must be > 0"));
            }
            config.tool_timeout = Duration::from_millis(ms);
        }
        Ok(config)
    }
}

/// Adds the agent's skills, toolsets and load diagnostics to the `model` JSON object.
pub(crate) fn add_agent_info(info: &mut Value, agent: &Agent, diagnostics: &[Diagnostic]) {
    if let Value::Object(map) = info {
        map.insert("skills".into(), json!(agent.skills().names()));
        map.insert("toolsets".into(), json!(agent.toolsets().names()));
        let diagnostics: Vec<String> = diagnostics.iter().map(|d| d.to_string()).collect();
        map.insert("diagnostics".into(), json!(diagnostics));
    }
}

/// The `unwritable_data` value of the `model` JSON: `null` when the data folder took the
/// probe write, else `{"path", "error", "lost": [..], "message"}` where `message` is the one
/// warning a host shows ([`UnwritableData`]'s `Display`, the CLI's `warning:` line).
pub(crate) fn unwritable_data(data: Option<&UnwritableData>) -> Value {
    data.map_or(Value::Null, |u| {
        json!({
            "path": u.path.display().to_string(),
            "error": u.error,
            "lost": u.lost,
            "message": u.to_string(),
        })
    })
}

/// The `model` JSON `stats` reports for a runtime opened from `config`: the model (`kind`,
/// `path`, `model`, `model_id`, `name`, `chat_format`), the context (`n_ctx`, `n_seq`,
/// `threads`, `load_ms`, `max_tokens`), what opening did (`data_dir`, `kv_dir`, `builtin`,
/// `head`, `missing_executors`, `hidden_toolsets`, `catalog`, `unwritable_data` — see
/// [`unwritable_data`]) and the agent's contents (`skills`, `toolsets`, `diagnostics`).
pub(crate) fn info(config: &RuntimeConfig, report: &OpenReport, agent: &Agent) -> Value {
    let m = &report.info;
    let head = match &report.head {
        Ok(h) => serde_json::to_value(h).unwrap_or(Value::Null),
        Err(e) => json!({ "error": e }),
    };
    let builtin = report.builtin.as_ref().map(|b| {
        json!({
            "source": match b.source {
                BuiltinSource::Env => "env",
                BuiltinSource::Embedded => "embedded",
            },
            "skills": b.skills.display().to_string(),
            "toolsets": b.toolsets.display().to_string(),
        })
    });
    let mut info = json!({
        "kind": "gguf",
        "path": m.path.display().to_string(),
        "model": report.model,
        "model_id": report.model_id,
        "name": m.name,
        "chat_format": m.chat_format.name(),
        "n_ctx": m.n_ctx,
        "n_seq": m.n_seq,
        "threads": m.threads,
        "threads_batch": m.threads_batch,
        "nice": m.nice,
        "thread_pool": m.thread_pool,
        "load_ms": m.load_ms,
        "max_tokens": config.generate.max_tokens,
        "data_dir": report.data_dir.display().to_string(),
        "kv_dir": config.kv_dir().map(|d| d.display().to_string()),
        "builtin": builtin,
        "head": head,
        "missing_executors": report.missing_executors,
        "hidden_toolsets": report.hidden_toolsets,
        "catalog": match &report.catalog {
            None => Value::Null,
            Some(Ok(path)) => json!({ "path": path.display().to_string() }),
            Some(Err(e)) => json!({ "error": e }),
        },
        "unwritable_data": unwritable_data(report.unwritable_data.as_ref()),
    });
    add_agent_info(&mut info, agent, &report.diagnostics);
    info
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(text: &str) -> String {
        match OpenOptions::parse(text).and_then(|o| o.config().map(|_| o)) {
            Err(BridgeError::InvalidArgument(msg)) => msg,
            other => panic!("{text}: {other:?}"),
        }
    }

    #[test]
    fn every_key_reaches_the_config() {
        let o = OpenOptions::parse(
            r#"{"model": "/m/g.gguf", "skills": ["/s", ""], "toolsets": ["/t"], "builtin": false,
                "context": 1024, "threads": 0, "threads_batch": 3, "nice": -3, "max_tokens": 48, "sessions": 2, "language": "en",
                "chat_format": "chatml", "data_dir": "/d", "kv_dir": "/k", "tool_timeout_ms": 250,
                "max_sentences": 0, "route": false, "catalog": "/d/catalog.sqlite", "mmap": false}"#,
        )
        .unwrap();
        let c = o.config().unwrap();
        assert_eq!(c.model.as_deref(), Some("/m/g.gguf"));
        assert!(!c.fetch, "the bridge never fetches");
        assert!(!c.builtin);
        assert_eq!(c.skill_dirs, vec![PathBuf::from("/s")]);
        assert_eq!(c.toolset_dirs, vec![PathBuf::from("/t")]);
        assert_eq!((c.n_ctx, c.threads, c.n_seq), (Some(1024), None, 2));
        assert_eq!(c.threads_batch, Some(3));
        assert_eq!(c.nice, Some(-3));
        assert_eq!(c.generate.max_tokens, 48);
        assert_eq!(c.agent.guidance.max_sentences, None);
        assert!(!c.agent.guidance.is_on(Technique::Route));
        assert_eq!(c.agent.lang, Lang::En);
        assert_eq!(c.chat_format.map(|f| f.name()), Some("chatml"));
        assert_eq!(c.data_dir, Some(PathBuf::from("/d")));
        assert_eq!(c.kv_dir(), Some(PathBuf::from("/k")));
        assert_eq!(c.tool_timeout, Duration::from_millis(250));
        assert_eq!(c.catalog, Some(PathBuf::from("/d/catalog.sqlite")));
        assert!(!c.mmap);
        let d = OpenOptions::parse(r#"{"model": "gemma-3-270m-q4_k_m"}"#)
            .unwrap()
            .config()
            .unwrap();
        assert!(d.builtin, "built-ins by default");
        assert!(d.mmap, "the model is mapped by default");
        assert_eq!(d.agent.lang, Lang::Ru);
        assert_eq!((d.n_ctx, d.chat_format.is_none(), d.n_seq), (None, true, 1));
        assert_eq!(
            d.catalog, None,
            "no catalog unless asked: the prompt stays as it was"
        );
    }

    #[test]
    fn an_unwritable_data_folder_is_reported_with_its_warning() {
        assert_eq!(
            unwritable_data(None),
            Value::Null,
            "a writable folder: null"
        );
        let u = UnwritableData {
            path: PathBuf::from("/data/user/0/app.porfiry/files"),
            error: "Read-only file system (os error 30)".into(),
            lost: vec![
                "notes cannot be saved or changed (the notes tools answer with an error)",
                "the catalog of skills is not opened (its tools stay out of the prompt)",
            ],
        };
        let v = unwritable_data(Some(&u));
        assert_eq!(v["path"], "/data/user/0/app.porfiry/files");
        assert_eq!(v["error"], "Read-only file system (os error 30)");
        assert_eq!(v["lost"], json!(u.lost));
        assert_eq!(
            v["message"],
            u.to_string(),
            "the host's one warning, verbatim"
        );
        let message = v["message"].as_str().unwrap();
        assert!(
            message.starts_with("the data folder /data/user/0/app.porfiry/files cannot be written")
                && message.contains("notes cannot be saved")
                && message.contains("PORFIRY_DATA"),
            "{message}"
        );
        assert_eq!(
            v.as_object().map(|o| o.len()),
            Some(4),
            "path, error, lost, message: {v}"
        );
    }

    #[test]
    fn bad_options_are_named() {
        let msg = error(r#"{"model": "m.gguf", "contxt": 1, "langauge": "ru"}"#);
        assert!(msg.contains(r#""contxt", "langauge""#), "{msg}");
        assert!(msg.contains("known: model, skills"), "{msg}");
        assert!(error(r#"{"model": "m.gguf", "chat_format": "llama"}"#).contains("llama"));
        assert!(error(r#"{"model": "m.gguf", "language": "de"}"#).contains("\"de\""));
        assert!(error(r#"{"model": "m.gguf", "context": "big"}"#).contains("context"));
        assert!(error(r#"{"model": "m.gguf", "tool_timeout_ms": 0}"#).contains("tool_timeout_ms"));
        assert!(error(r#"{"model": "m.gguf", "nice": -40}"#).contains("-20"));
        assert!(error(r#"{"skills": []}"#).contains("model"));
        assert!(error("[1]").contains("object"));
        assert!(error("{").contains("not JSON"));
    }
}
