//! [`Runtime::open`]: resolve (and fetch) the model, load the engine and the agent, register
//! the built-in host tools, warm the head up — one call for every host; and
//! [`attach_catalog`], the catalog's executors and run hook put behind a runtime.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use porfiry_agent::{Agent, Diagnostic, ExecutorTarget, Lang, SystemClock};
use porfiry_catalog::Catalog;
use porfiry_engine::{ChatFormat, Engine, EngineModel, EngineParams, HeadReport, ModelInfo};
use porfiry_models::{FileState, ModelSpec, ModelStore, Progress};

use crate::catalog_tools::CatalogExecutor;
use crate::config::{chat_format_of, engine_params, RuntimeConfig};
use crate::error::RuntimeError;
use crate::notes::NotesExecutor;
use crate::paths::{builtin_dirs, probe_writable, temp_fallback, BuiltinDirs};
use crate::protocol_tools::{CatalogRunHook, ProtocolExecutor};
use crate::runtime::{Backend, Runtime};
use crate::shared_catalog::{open_catalog, skills_toolset_dir, SharedCatalog};

/// What [`Runtime::open`] did, for the host to show.
#[derive(Debug)]
pub struct OpenReport {
    /// The model as the user named it (id or path; the manifest's default when none).
    pub model: String,
    /// The model's manifest id, when it is a known model.
    pub model_id: Option<String>,
    /// Facts about the loaded model and context.
    pub info: ModelInfo,
    /// The agent's load diagnostics (bad files, overrides of built-ins by the user's files).
    pub diagnostics: Vec<Diagnostic>,
    /// Declared tools without an executor on this host.
    pub missing_executors: Vec<String>,
    /// Declared toolsets left out of the prompt: none of their tools has an executor here.
    pub hidden_toolsets: Vec<String>,
    /// Where the built-in skills and toolsets came from (`None` with `builtin` off).
    pub builtin: Option<BuiltinDirs>,
    /// The data directory.
    pub data_dir: PathBuf,
    /// The catalog of skills and protocols: `None` when none is configured (or the `skills`
    /// toolset is not loaded); the file in use; or why it could not be opened (the set then
    /// has no executor and stays out of the prompt).
    pub catalog: Option<Result<PathBuf, String>>,
    /// The static head: what preparing it did, or why it could not be prepared.
    pub head: Result<HeadReport, String>,
    /// Wall time of the warm-up, ms: the head prepared and routing's example requests
    /// embedded (read from their file beside the snapshots after the first run).
    pub warm_up_ms: f64,
    /// The data directory refused a probe write (read-only, full…): what that costs. The
    /// runtime works without it; the host shows this once ([`UnwritableData`]'s `Display`).
    pub unwritable_data: Option<UnwritableData>,
}

/// The data directory cannot be written, and what is lost for it: the one warning a host
/// shows. Nothing else is affected (the model, the built-ins, the turns).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnwritableData {
    /// The data directory.
    pub path: PathBuf,
    /// Why the probe write failed.
    pub error: String,
    /// What this host loses, one phrase each (the head snapshot, notes, the catalog).
    pub lost: Vec<&'static str>,
}

impl UnwritableData {
    /// What is lost without a writable data directory, for this configuration.
    fn new(config: &RuntimeConfig, path: PathBuf, error: std::io::Error) -> Self {
        let mut lost = Vec::new();
        if config.kv_dir().is_some_and(|kv| kv.starts_with(&path)) {
            lost.push("the prompt head's snapshot is not kept (every start computes it again)");
        }
        if config.notes {
            lost.push("notes cannot be saved or changed (the notes tools answer with an error)");
        }
        if config.catalog.is_some() {
            lost.push("the catalog of skills is not opened (its tools stay out of the prompt)");
        }
        Self {
            path,
            error: error.to_string(),
            lost,
        }
    }
}

impl std::fmt::Display for UnwritableData {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the data folder {} cannot be written ({})",
            self.path.display(),
            self.error
        )?;
        if !self.lost.is_empty() {
            write!(f, ": {}", self.lost.join("; "))?;
        }
        write!(
            f,
            ". The assistant works otherwise. Make the folder writable (or free space on its \
             disk), or set PORFIRY_DATA to a writable folder"
        )
    }
}

/// A model file to load, as resolved from `--model ID|PATH`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelChoice {
    /// The model as the user named it (the manifest's default id when none was named).
    pub given: String,
    /// The GGUF file.
    pub path: PathBuf,
    /// The manifest entry, when the file is a known model.
    pub spec: Option<ModelSpec>,
    /// The manifest's sha256 when the store verified this very file (snapshots are keyed by
    /// it, so the engine does not hash the file again); `None` for any other file.
    pub sha256: Option<String>,
}

impl ModelChoice {
    /// The manifest id, when the file is a known model.
    pub fn id(&self) -> Option<&str> {
        self.spec.as_ref().map(|s| s.id.as_str())
    }

    /// The manifest's chat format, when the file is a known model.
    pub fn chat_format(&self) -> Option<ChatFormat> {
        self.spec.as_ref().map(|s| chat_format_of(s.chat_format))
    }
}

/// Resolves `id_or_path` (default: the manifest's default model): with `fetch`, a known
/// model that is missing is fetched first (reporting to `progress`); without, a missing one
/// is an error that says how to fetch it.
///
/// # Errors
/// [`RuntimeError::Models`].
pub fn resolve_model(
    id_or_path: Option<&str>,
    fetch: bool,
    progress: &dyn Progress,
) -> Result<ModelChoice, RuntimeError> {
    let store = ModelStore::open_default()?;
    let given = match id_or_path {
        Some(m) => m.to_string(),
        None => store.manifest().default.clone(),
    };
    let resolved = if fetch {
        store.ensure(&given, progress)?
    } else {
        store.resolve(&given)?
    };
    // A known model the store has verified is keyed by its manifest sha256; any other file
    // is hashed by the engine (once, cached beside its snapshots).
    let sha256 = match &resolved.spec {
        Some(spec)
            if resolved.path == store.path_of(spec)
                && matches!(store.state(spec), Ok(FileState::Verified)) =>
        {
            Some(spec.sha256.clone())
        }
        _ => None,
    };
    Ok(ModelChoice {
        given,
        path: resolved.path,
        spec: resolved.spec,
        sha256,
    })
}

/// Loads `model` with `params`, filling in what the manifest knows and `params` leaves open
/// (the chat format, the verified sha256).
///
/// # Errors
/// [`RuntimeError::Engine`].
pub fn load_engine(model: &ModelChoice, mut params: EngineParams) -> Result<Engine, RuntimeError> {
    if params.chat_format.is_none() {
        params.chat_format = model.chat_format();
    }
    if params.model_sha256.is_none() {
        params.model_sha256 = model.sha256.clone();
    }
    Engine::load(&model.path, params).map_err(|source| RuntimeError::Engine {
        path: model.path.clone(),
        source,
    })
}

/// The skill and toolset folders `config` loads: the built-ins first (unless turned off),
/// then the user's, which override same-named built-ins.
///
/// # Errors
/// [`RuntimeError::MissingFolder`] for a user folder that does not exist,
/// [`RuntimeError::Io`] when the built-ins can be written nowhere.
pub fn agent_folders(
    config: &RuntimeConfig,
) -> Result<(Vec<PathBuf>, Vec<PathBuf>, Option<BuiltinDirs>), RuntimeError> {
    for (what, dirs) in [
        ("skills", &config.skill_dirs),
        ("toolsets", &config.toolset_dirs),
    ] {
        if let Some(missing) = dirs.iter().find(|d| !d.is_dir()) {
            return Err(RuntimeError::MissingFolder {
                what,
                path: missing.clone(),
            });
        }
    }
    let data = config.data_dir();
    let builtin = if config.builtin {
        Some(builtin_dirs(&data).map_err(|source| RuntimeError::Io {
            what: "built-in skills in",
            path: data.clone(),
            source,
        })?)
    } else {
        None
    };
    let mut skills: Vec<PathBuf> = builtin.iter().map(|b| b.skills.clone()).collect();
    skills.extend(config.skill_dirs.iter().cloned());
    let mut toolsets: Vec<PathBuf> = builtin.iter().map(|b| b.toolsets.clone()).collect();
    toolsets.extend(config.toolset_dirs.iter().cloned());
    Ok((skills, toolsets, builtin))
}

/// Loads the agent `config` describes (folders as in [`agent_folders`]) with the system clock.
///
/// # Errors
/// As [`agent_folders`]. Problems in single files are diagnostics, not errors.
pub fn load_agent(
    config: &RuntimeConfig,
) -> Result<(Agent, Vec<Diagnostic>, Option<BuiltinDirs>), RuntimeError> {
    let (skills, toolsets, builtin) = agent_folders(config)?;
    let (agent, diagnostics) = load_agent_from(
        config.agent.clone(),
        &skills,
        &toolsets,
        Arc::new(SystemClock),
    );
    Ok((agent, diagnostics, builtin))
}

/// Loads an agent from exactly these folders (in override order) with `clock`: the one place
/// an agent is loaded, for hosts that choose the folders and the clock themselves
/// (benchmarks, evals, `porfiry prompt` with a fixed clock).
pub fn load_agent_from<P: AsRef<std::path::Path>>(
    config: porfiry_agent::AgentConfig,
    skills: &[P],
    toolsets: &[P],
    clock: Arc<dyn porfiry_agent::Clock>,
) -> (Agent, Vec<Diagnostic>) {
    let loaded = Agent::load(config, skills, toolsets, clock);
    (loaded.value, loaded.diagnostics)
}

impl Runtime {
    /// Opens the runtime `config` describes: resolves the model (fetching a known one when
    /// missing and `config.fetch` is on, reporting to `progress`), loads the engine with the
    /// one manifest → parameters mapping, loads the built-in and the user's skills and
    /// toolsets, registers the built-in host tools (timed), and prepares the static head.
    ///
    /// # Errors
    /// [`RuntimeError::Models`] when the model cannot be resolved or fetched,
    /// [`RuntimeError::Engine`] when it cannot be loaded, and the errors of [`load_agent`].
    /// A head that cannot be prepared is reported in [`OpenReport::head`], not an error.
    pub fn open(
        config: &RuntimeConfig,
        progress: &dyn Progress,
    ) -> Result<(Runtime, OpenReport), RuntimeError> {
        // The agent first: a mistyped folder is reported before a model is fetched or loaded.
        let (skill_dirs, mut toolset_dirs, builtin) = agent_folders(config)?;
        let data_dir = config.data_dir();
        let unwritable_data = probe_writable(&data_dir)
            .err()
            .map(|e| UnwritableData::new(config, data_dir.clone(), e));
        // The `skills` toolset is declared only for a host with a catalog: after the
        // built-ins, before the user's folders (which may override it). Its declarations
        // go to the temporary directory when the data directory refuses them (the catalog
        // itself then fails to open and the set stays out of the prompt).
        if config.catalog.is_some() {
            let dir = skills_toolset_dir(&data_dir)
                .or_else(|_| skills_toolset_dir(&temp_fallback("porfiry-catalog-toolset")))
                .map_err(|source| RuntimeError::Io {
                    what: "the skills toolset in",
                    path: data_dir.clone(),
                    source,
                })?;
            toolset_dirs.insert(usize::from(builtin.is_some()), dir);
        }
        let (agent, diagnostics) = load_agent_from(
            config.agent.clone(),
            &skill_dirs,
            &toolset_dirs,
            Arc::new(SystemClock),
        );
        let model = resolve_model(config.model.as_deref(), config.fetch, progress)?;
        let params = engine_params(config, model.spec.as_ref(), model.sha256.clone());
        let engine = load_engine(&model, params)?;
        let mut runtime = Runtime::from_parts(
            agent,
            Backend::Engine(EngineModel::new(engine, config.generate.clone())),
            config.tool_timeout,
        );
        if config.notes && runtime.agent().toolsets().get("notes").is_some() {
            let lang = runtime.agent().config().lang;
            runtime.register_executor(
                ExecutorTarget::Toolset("notes".into()),
                Arc::new(NotesExecutor::new(data_dir.join("notes.txt"), lang)),
            );
        }
        let catalog = match &config.catalog {
            Some(path) if runtime.agent().toolsets().get("skills").is_some() => {
                match open_catalog(path, &skill_dirs) {
                    Ok((catalog, _)) => {
                        let lang = runtime.agent().config().lang;
                        attach_catalog(&mut runtime, catalog, lang);
                        Some(Ok(path.clone()))
                    }
                    Err(e) => Some(Err(e)),
                }
            }
            _ => None,
        };
        let warm_up = std::time::Instant::now();
        let head = match runtime.warm_up() {
            Ok(Some(h)) => Ok(h),
            Ok(None) => Err("the model keeps no head".to_string()),
            Err(e) => Err(e.to_string()),
        };
        let warm_up_ms = warm_up.elapsed().as_secs_f64() * 1e3;
        let info = runtime
            .engine()
            .map(|e| e.info().clone())
            .ok_or_else(|| RuntimeError::Model("the engine is gone".into()))?;
        let report = OpenReport {
            model_id: model.id().map(str::to_string),
            model: model.given,
            info,
            diagnostics,
            missing_executors: runtime.agent().missing_executors(),
            hidden_toolsets: runtime.agent().hidden_toolsets(),
            builtin,
            data_dir,
            catalog,
            head,
            warm_up_ms,
            unwritable_data,
        };
        Ok((runtime, report))
    }
}

/// Puts `catalog` behind `runtime`'s agent: the `skills` and `protocol` executors (timed,
/// as every host tool; the `protocol` one only when that set is declared) and the
/// [`CatalogRunHook`], all over one shared catalog. Returns the shared catalog.
pub fn attach_catalog(runtime: &mut Runtime, catalog: Catalog, lang: Lang) -> SharedCatalog {
    let shared: SharedCatalog = Arc::new(Mutex::new(catalog));
    runtime.register_executor(
        ExecutorTarget::Toolset("skills".into()),
        Arc::new(CatalogExecutor::shared(shared.clone(), lang)),
    );
    if runtime.agent().toolsets().get("protocol").is_some() {
        runtime.register_executor(
            ExecutorTarget::Toolset("protocol".into()),
            Arc::new(ProtocolExecutor::new(shared.clone(), lang)),
        );
    }
    runtime
        .agent_mut()
        .set_host_hook(Some(Arc::new(CatalogRunHook::new(shared.clone(), lang))));
    shared
}
