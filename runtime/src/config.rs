//! What a host asks the runtime to open, and the ONE mapping from a model's manifest entry to
//! the engine's load parameters.

use std::path::PathBuf;
use std::time::Duration;

use porfiry_agent::{AgentConfig, Lang};
use porfiry_engine::{ChatFormat, EngineParams, GenerateConfig};
use porfiry_models::ModelSpec;

/// How long a host tool may run before the model gets a tool error instead (default).
pub const DEFAULT_TOOL_TIMEOUT: Duration = Duration::from_secs(10);

/// The catalog file's name in the data directory (the CLI's `<data>/catalog.sqlite`).
pub const CATALOG_FILE: &str = "catalog.sqlite";

/// Everything [`crate::Runtime::open`] needs; `Default` gives the documented defaults.
#[derive(Debug, Clone)]
pub struct RuntimeConfig {
    /// A model id of the manifest or a path to a GGUF file. Default `None`: the manifest's
    /// default model.
    pub model: Option<String>,
    /// Fetch a known model when it is missing (default true). Without, a missing model is an
    /// error that says how to fetch it.
    pub fetch: bool,
    /// The agent's settings (language, layout, limits).
    pub agent: AgentConfig,
    /// Load the built-in skills and toolsets first (default true); the user's folders below
    /// load over them, and an override is reported.
    pub builtin: bool,
    /// The user's skill folders, loaded after (over) the built-in ones.
    pub skill_dirs: Vec<PathBuf>,
    /// The user's toolset folders, loaded after (over) the built-in ones.
    pub toolset_dirs: Vec<PathBuf>,
    /// Context size in tokens. Default `None`: the manifest's recommendation, else the
    /// engine's default.
    pub n_ctx: Option<u32>,
    /// CPU threads. Default `None`: the engine's choice (performance cores, else physical cores).
    pub threads: Option<u32>,
    /// CPU threads for prompt batches (prefill), when they should differ from `threads`
    /// (which then counts for one-token decodes). Default `None`: `threads`.
    pub threads_batch: Option<u32>,
    /// The nice value the compute threads ask for (`EngineParams::nice`). Default `None`: the
    /// engine's, `porfiry_engine::DEFAULT_NICE`.
    pub nice: Option<i32>,
    /// Reuse the KV cache across a removed span by shifting (`EngineParams::kv_shift`).
    /// Default `None`: the model manifest's choice (off for a file it does not know).
    pub kv_shift: Option<bool>,
    /// Layers offloaded to a GPU (an engine built with `vulkan` or `opencl`). Default `None`:
    /// all of them when a GPU device was found; `Some(0)`: CPU only.
    pub gpu_layers: Option<u32>,
    /// Map the model file instead of reading it into memory (`EngineParams::mmap`). Default
    /// true: fast load, pages shared with the page cache. With the mapping, a model file
    /// truncated in place ends the process (SIGBUS); a host that may replace models in place
    /// turns it off and pays the file's size in memory (RELIABILITY.md §5).
    pub mmap: bool,
    /// Sessions whose KV cache is kept at once. Default 1.
    pub n_seq: u32,
    /// The chat format. Default `None`: the manifest's, else detected from the file.
    pub chat_format: Option<ChatFormat>,
    /// Settings of every generation (sampling, limits).
    pub generate: GenerateConfig,
    /// Keep the static head's KV snapshot on disk (default true).
    pub head_snapshots: bool,
    /// The data directory. Default `None`: [`crate::paths::data_dir`].
    pub data_dir: Option<PathBuf>,
    /// Where head snapshots go. Default `None`: [`crate::paths::kv_dir`] of the data directory.
    pub kv_dir: Option<PathBuf>,
    /// Register the built-in `notes` host toolset (notes in `<data>/notes.txt`). Default false:
    /// the CLI turns it on; the phone app brings its own executors.
    pub notes: bool,
    /// How long a host tool may run (default [`DEFAULT_TOOL_TIMEOUT`]).
    pub tool_timeout: Duration,
    /// The catalog of skills and protocols: when set, the file is opened (created when
    /// missing), the skill folders are synced into it as shared entries, the `skills` and
    /// `protocol` toolsets are executed over it and the agent gets its run hook (reminders
    /// of a running protocol, the user's decisions, personal entries in the skills index;
    /// [`crate::attach_catalog`]). Default `None`: no catalog, the sets stay out of the
    /// prompt and the prompt is as it was. The CLI passes `<data>/`[`CATALOG_FILE`].
    pub catalog: Option<PathBuf>,
}

impl Default for RuntimeConfig {
    fn default() -> Self {
        Self {
            model: None,
            fetch: true,
            agent: AgentConfig::default(),
            builtin: true,
            skill_dirs: Vec::new(),
            toolset_dirs: Vec::new(),
            n_ctx: None,
            threads: None,
            threads_batch: None,
            nice: None,
            kv_shift: None,
            gpu_layers: None,
            mmap: true,
            n_seq: 1,
            chat_format: None,
            generate: GenerateConfig::default(),
            head_snapshots: true,
            data_dir: None,
            kv_dir: None,
            notes: false,
            tool_timeout: DEFAULT_TOOL_TIMEOUT,
            catalog: None,
        }
    }
}

impl RuntimeConfig {
    /// A config in `lang`, otherwise the defaults.
    pub fn with_lang(lang: Lang) -> Self {
        let mut c = Self::default();
        c.agent.lang = lang;
        c
    }

    /// The data directory this config uses.
    pub fn data_dir(&self) -> PathBuf {
        self.data_dir.clone().unwrap_or_else(crate::paths::data_dir)
    }

    /// The head snapshot directory this config uses (`None` with `head_snapshots` off).
    pub fn kv_dir(&self) -> Option<PathBuf> {
        self.head_snapshots.then(|| {
            self.kv_dir
                .clone()
                .unwrap_or_else(|| crate::paths::kv_dir(&self.data_dir()))
        })
    }
}

/// The chat format a manifest entry names, as the engine's.
pub fn chat_format_of(format: porfiry_models::ChatFormatHint) -> ChatFormat {
    match format {
        porfiry_models::ChatFormatHint::Gemma => ChatFormat::Gemma,
        porfiry_models::ChatFormatHint::Chatml => ChatFormat::ChatMl,
        porfiry_models::ChatFormatHint::Functiongemma => ChatFormat::FunctionGemma,
    }
}

/// The engine parameters for `model` under `config` — the one place where a manifest entry
/// becomes load parameters: the chat format (the config's, else the manifest's, else
/// detected), the context (the config's, else the manifest's recommendation, else the
/// engine's default), the verified sha256 (so the engine does not hash the file again to
/// key its snapshots; `sha256` is what the caller verified, `None` for unknown files), threads,
/// sequences and the snapshot folder.
pub fn engine_params(
    config: &RuntimeConfig,
    spec: Option<&ModelSpec>,
    sha256: Option<String>,
) -> EngineParams {
    let defaults = EngineParams::default();
    EngineParams {
        n_ctx: config
            .n_ctx
            .or(spec.map(|s| s.context))
            .unwrap_or(defaults.n_ctx),
        threads: config.threads,
        threads_batch: config.threads_batch,
        nice: config.nice.or(defaults.nice),
        kv_shift: config
            .kv_shift
            .or(spec.map(|s| s.kv_shift))
            .unwrap_or(defaults.kv_shift),
        gpu_layers: config.gpu_layers,
        mmap: config.mmap,
        chat_format: config
            .chat_format
            .or(spec.map(|s| chat_format_of(s.chat_format))),
        n_seq: config.n_seq.max(1),
        snapshot_dir: config.kv_dir(),
        model_sha256: sha256,
        ..defaults
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known() -> ModelSpec {
        let manifest = porfiry_models::Manifest::builtin().expect("the built-in manifest");
        manifest
            .get("smollm2-135m-instruct-q4_1")
            .expect("a known model")
            .clone()
    }

    #[test]
    fn the_manifest_fills_what_the_config_leaves_open() {
        let config = RuntimeConfig {
            head_snapshots: false,
            ..RuntimeConfig::default()
        };
        let spec = known();
        let p = engine_params(&config, Some(&spec), Some(spec.sha256.clone()));
        assert_eq!(p.chat_format, Some(ChatFormat::ChatMl));
        assert_eq!(p.n_ctx, spec.context);
        assert_eq!(p.model_sha256.as_deref(), Some(spec.sha256.as_str()));
        assert_eq!(p.snapshot_dir, None);
        assert!(
            spec.kv_shift && p.kv_shift,
            "SmolLM2's manifest entry shifts"
        );
        // A file the manifest does not know: off.
        assert!(!engine_params(&config, None, None).kv_shift);
        assert!(p.mmap, "the file is mapped by default");
    }

    #[test]
    fn the_config_wins_over_the_manifest() {
        let config = RuntimeConfig {
            n_ctx: Some(768),
            chat_format: Some(ChatFormat::Gemma),
            n_seq: 0,
            kv_dir: Some("/kv".into()),
            kv_shift: Some(false),
            mmap: false,
            ..RuntimeConfig::default()
        };
        let p = engine_params(&config, Some(&known()), None);
        assert!(!p.kv_shift);
        assert!(!p.mmap);
        assert_eq!(p.n_ctx, 768);
        assert_eq!(p.chat_format, Some(ChatFormat::Gemma));
        assert_eq!(p.n_seq, 1, "at least one sequence");
        assert_eq!(p.snapshot_dir.as_deref(), Some(std::path::Path::new("/kv")));
        let p = engine_params(&RuntimeConfig::default(), None, None);
        assert_eq!(p.chat_format, None, "detected from the file");
        assert_eq!(p.n_ctx, EngineParams::default().n_ctx);
    }
}
