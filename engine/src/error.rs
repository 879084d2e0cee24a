//! The engine's typed errors.

use std::path::PathBuf;

use crate::gguf::GgufError;
use crate::snapshot::SnapshotError;

/// Everything that can go wrong in the engine. Bad files and impossible requests are
/// errors, never panics or process aborts.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The model file failed validation before llama.cpp saw it.
    #[error(transparent)]
    InvalidModel(#[from] GgufError),
    /// Neither the GGUF metadata nor the caller says which chat format the model uses.
    #[error(
        "cannot tell the chat format of {path} (architecture {architecture:?}, no known chat \
         template); pass one explicitly (gemma or chatml)"
    )]
    UnknownChatFormat {
        /// The model file.
        path: PathBuf,
        /// Its `general.architecture`.
        architecture: Option<String>,
    },
    /// llama.cpp's backend could not be initialised.
    #[error("llama.cpp backend: {0}")]
    Backend(String),
    /// llama.cpp refused a file that passed validation (unsupported architecture, ...).
    #[error("llama.cpp could not load {path}: {reason}")]
    Load {
        /// The model file.
        path: PathBuf,
        /// What llama.cpp reported.
        reason: String,
    },
    /// The model file changed while it loaded (its size, modification time or inode differ
    /// before and after): the loaded weights may be a mix of two files. Nothing is kept.
    #[error(
        "the model file {path} changed while it loaded; load it again once it is complete \
         (replace a model by writing a new file and renaming it over the old one)"
    )]
    ModelChanged {
        /// The model file.
        path: PathBuf,
    },
    /// The inference context could not be created (usually: not enough memory for `n_ctx`).
    #[error("cannot create a context: {0}")]
    Context(String),
    /// Invalid engine parameters or request settings.
    #[error("invalid parameters: {0}")]
    InvalidParams(String),
    /// The prompt does not fit into the context.
    #[error("prompt of {prompt_tokens} tokens does not fit the context ({available} of {n_ctx} tokens available)")]
    ContextFull {
        /// Tokens of the prompt.
        prompt_tokens: usize,
        /// Cells available for it.
        available: usize,
        /// The context size.
        n_ctx: usize,
    },
    /// `llama_decode` failed.
    #[error("decode failed: {0}")]
    Decode(String),
    /// A sampler (usually the grammar) could not be built.
    #[error("sampler: {0}")]
    Sampler(String),
    /// A head snapshot could not be made or stored (e.g. the model file cannot be hashed,
    /// the snapshot directory is not writable). Unusable snapshot files are not errors: the
    /// head is rebuilt.
    #[error(transparent)]
    Snapshot(#[from] SnapshotError),
    /// The caller cancelled the work (an embedding), or the engine is closing.
    #[error("cancelled")]
    Cancelled,
    /// The worker thread is gone (it panicked or the engine was shut down).
    #[error("the engine worker has stopped")]
    WorkerGone,
}
