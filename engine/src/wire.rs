//! The wire between the [`Engine`](crate::Engine) handle and its worker thread: the
//! commands the handle sends, and the requests, events and reports that travel with them.
//!
//! Plain data only. The handle (`engine.rs`) and the worker (`worker.rs`) both use this
//! module and neither names the other's items, except that the handle starts the worker
//! through `worker::spawn`.

use std::path::PathBuf;
use std::time::Instant;

use crossbeam_channel::Sender;
use porfiry_seam::{CancelToken, Confidence, GenerationStats, Message, StopReason};

use crate::chat::ChatFormat;
use crate::config::GenerateConfig;
use crate::error::EngineError;
use crate::kv::TokenId;
use crate::prompt::RenderedPrompt;

/// One generation request: a conversation to continue and how.
#[derive(Debug, Clone)]
pub struct GenerateRequest {
    /// The session the conversation belongs to (selects the KV sequence).
    pub session: String,
    /// The system prompt.
    pub system: String,
    /// The history, oldest first.
    pub messages: Vec<Message>,
    /// Limits and sampling.
    pub config: GenerateConfig,
    /// Teacher forcing: decode the tokens of this text as the reply instead of sampling
    /// (same stats, same events). For benchmarks.
    pub forced_reply: Option<String>,
    /// Text the reply starts with: decoded with the prompt, fed to the samplers (so the
    /// tool-call grammar sees it), and included in the output.
    pub reply_prefix: Option<String>,
    /// Checked between every decoded token and between prefill batches, and — through
    /// llama.cpp's abort callback — after every graph node inside a decode, so a cancel
    /// during a long prefill ends it within a node (`engine/src/backend.rs`).
    pub cancel: CancelToken,
}

impl GenerateRequest {
    /// A request with default settings and a fresh cancel token.
    pub fn new(
        session: impl Into<String>,
        system: impl Into<String>,
        messages: Vec<Message>,
    ) -> Self {
        Self {
            session: session.into(),
            system: system.into(),
            messages,
            config: GenerateConfig::default(),
            forced_reply: None,
            reply_prefix: None,
            cancel: CancelToken::new(),
        }
    }

    /// The same request with other settings.
    pub fn with_config(mut self, config: GenerateConfig) -> Self {
        self.config = config;
        self
    }
}

/// What a running generation reports, in order: any number of `Text`, then exactly one
/// `Done` or `Error`.
#[derive(Debug)]
pub enum Event {
    /// The next piece of the reply: valid UTF-8, never a split character, never part of a
    /// stop string.
    Text(String),
    /// The generation ended.
    Done(Completion),
    /// The generation failed; the engine stays usable.
    Error(EngineError),
}

/// The outcome of a generation.
#[derive(Debug, Clone, PartialEq)]
pub struct Completion {
    /// The whole reply (the concatenation of the `Text` events).
    pub text: String,
    /// Why it ended.
    pub stop: StopReason,
    /// Token accounting and timings.
    pub stats: GenerationStats,
    /// The reply's token ids (sampled or forced; no end-of-generation token).
    pub tokens: Vec<TokenId>,
    /// How probable the model found the tokens it chose (sampled ones only: no prefix,
    /// forced or end-of-generation token); `None` when it chose none.
    pub confidence: Option<Confidence>,
}

/// Facts about the loaded model and context.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ModelInfo {
    /// The model file.
    pub path: PathBuf,
    /// `general.architecture`.
    pub architecture: Option<String>,
    /// `general.name`.
    pub name: Option<String>,
    /// The chat format in use.
    pub chat_format: ChatFormat,
    /// Context length the model was trained with.
    pub n_ctx_train: u32,
    /// Context size of this engine.
    pub n_ctx: u32,
    /// Size of the file in bytes.
    pub file_size: u64,
    /// Vocabulary size.
    pub n_vocab: i32,
    /// Parameter count.
    pub n_params: u64,
    /// Sliding-window size of SWA layers, if the model has them.
    pub sliding_window: Option<u64>,
    /// Whether the SWA layers keep the full cache.
    pub swa_full: bool,
    /// Whether llama.cpp can shift this context's cache positions (needed by
    /// `EngineParams::kv_shift`; with SWA layers only under `swa_full`).
    pub can_shift: bool,
    /// Whether requests reuse the cache across a removed span (`kv_shift` and `can_shift`).
    pub kv_shift: bool,
    /// CPU threads for one-token decodes.
    pub threads: u32,
    /// CPU threads for prompt batches (prefill).
    pub threads_batch: u32,
    /// The nice value the compute threads run at (`EngineParams::nice`, or what the system
    /// left when it refused), `None` where there is no such notion.
    pub nice: Option<i32>,
    /// Whether the context computes on persistent thread pools (`EngineParams::thread_pool`
    /// and ggml started them), rather than threads started per graph.
    pub thread_pool: bool,
    /// Prefill batch size.
    pub batch: u32,
    /// KV sequences (sessions cached at once).
    pub n_seq: u32,
    /// Layers offloaded to [`gpu_devices`](Self::gpu_devices) (llama.cpp's rule: all, or
    /// `EngineParams::gpu_layers`, capped at the layers plus the output layer; 0 without a
    /// device). llama.cpp logs the count it applied ("offloaded N/M layers to GPU").
    pub gpu_layers: u32,
    /// The GPU devices the backends found (`name (description)`), empty on a CPU-only build.
    pub gpu_devices: Vec<String>,
    /// Time to load the weights, create the context and warm it up (one throw-away decode),
    /// in milliseconds.
    pub load_ms: f64,
}

/// Where a prepared head's KV state came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HeadSource {
    /// The head is too short to be worth keeping (no system text).
    Empty,
    /// Already prepared in this engine.
    Memory,
    /// Restored from a snapshot file.
    Disk,
    /// Prefilled now (and saved, when a snapshot directory is set).
    Built,
}

/// What [`Engine::prepare_head`](crate::Engine::prepare_head) did.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct HeadReport {
    /// Tokens of the head (the prompt prefix every new session shares).
    pub tokens: usize,
    /// Where its state came from.
    pub source: HeadSource,
    /// Size of its KV state in bytes.
    pub state_bytes: usize,
    /// The snapshot file, when one was read or written.
    pub file: Option<PathBuf>,
    /// Why a snapshot file was not used (stale, corrupt, refused by llama.cpp), or why the
    /// new one could not be written.
    pub note: Option<String>,
    /// Wall time of the preparation, in milliseconds.
    pub ms: f64,
}

/// One KV sequence in [`CacheReport`].
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SeqReport {
    /// llama.cpp sequence id.
    pub seq: i32,
    /// The session using it (`None`: free, or holding the prepared head).
    pub session: Option<String>,
    /// Tokens cached.
    pub tokens: usize,
    /// Memory of its KV state in bytes (as llama.cpp serializes it).
    pub bytes: usize,
}

/// The KV cache as the engine sees it: what every session costs.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct CacheReport {
    /// Context size (cells shared by all sequences).
    pub n_ctx: usize,
    /// Cells in use.
    pub used: usize,
    /// Per sequence.
    pub seqs: Vec<SeqReport>,
    /// Prepared heads kept in memory: (tokens, state bytes).
    pub heads: Vec<(usize, usize)>,
}

/// How much memory [`Engine::trim`](crate::Engine::trim) gives back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TrimLevel {
    /// What is rebuilt without a prefill: the embedding context (its vectors stay on disk
    /// when the engine keeps files, and in memory otherwise), prepared heads kept in memory
    /// (their snapshots stay on disk), remembered replies and token caches, idle-time work
    /// not started. Every session's KV stays.
    Caches,
    /// [`TrimLevel::Caches`] and the chat context itself — every session's KV and the compute
    /// buffers. The next request makes a new context and prefills its conversation (the
    /// static head restored from its snapshot when there is one).
    All,
}

impl TrimLevel {
    /// The level for one of Android's `ComponentCallbacks2.onTrimMemory` levels: `None`
    /// below `TRIM_MEMORY_RUNNING_LOW` (10: nothing needs to go yet), [`TrimLevel::Caches`]
    /// while the app runs and memory runs low (10), [`TrimLevel::All`] when memory is
    /// critical (15) or the app is out of sight (20 and above: `UI_HIDDEN`, `BACKGROUND`,
    /// `MODERATE`, `COMPLETE`).
    pub fn from_android(level: i32) -> Option<Self> {
        match level {
            i32::MIN..=9 => None,
            10..=14 => Some(Self::Caches),
            _ => Some(Self::All),
        }
    }
}

/// What a trim released.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct TrimReport {
    /// Sessions whose KV was dropped.
    pub sessions: usize,
    /// Whether the chat context (KV and compute buffers) was released.
    pub context: bool,
    /// Whether the embedding context was released.
    pub embedder: bool,
    /// Prepared heads dropped from memory.
    pub heads: usize,
}

/// A generation job.
pub(crate) struct GenerateJob {
    pub request: GenerateRequest,
    pub submitted: Instant,
    pub events: Sender<Event>,
}

/// What the handle asks the worker to do.
pub(crate) enum Command {
    Generate(GenerateJob),
    Render {
        system: String,
        messages: Vec<Message>,
        reply: Sender<RenderedPrompt>,
    },
    Tokenize {
        text: String,
        reply: Sender<Vec<TokenId>>,
    },
    ClearCache {
        done: Sender<()>,
    },
    EndSession {
        session: String,
        done: Sender<bool>,
    },
    Embed {
        texts: Vec<String>,
        /// Keep the vectors (in memory and in the cache file): example utterances. A
        /// request's text is embedded once and not kept.
        keep: bool,
        /// Stops the embedding (between texts and inside a decode) when set.
        cancel: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
        reply: Sender<Result<Vec<Vec<f32>>, EngineError>>,
    },
    Trim {
        level: TrimLevel,
        reply: Sender<TrimReport>,
    },
    PrepareHead {
        system: String,
        messages: Vec<Message>,
        reply: Sender<Result<HeadReport, EngineError>>,
    },
    CacheReport {
        reply: Sender<CacheReport>,
    },
    Settle {
        done: Sender<()>,
    },
    DecodeAhead {
        session: String,
        system: String,
        messages: Vec<Message>,
    },
}
