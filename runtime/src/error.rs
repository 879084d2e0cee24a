//! The runtime's typed errors.

/// What can go wrong while opening or driving a runtime. A turn's own failures (a model
/// error, a cancel) are not errors: they are the turn's [`porfiry_agent::TurnStop`].
#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    /// The model could not be resolved or fetched (unknown id, missing file, failed fetch).
    #[error(transparent)]
    Models(#[from] porfiry_models::ModelsError),
    /// The engine could not load the model.
    #[error("loading {path}: {source}")]
    Engine {
        /// The model file.
        path: std::path::PathBuf,
        /// What the engine said.
        #[source]
        source: porfiry_engine::EngineError,
    },
    /// The engine failed outside a turn (cache report, ending a session).
    #[error(transparent)]
    EngineCall(#[from] porfiry_engine::EngineError),
    /// The agent refused a call (an empty session name, ...).
    #[error(transparent)]
    Agent(#[from] porfiry_agent::AgentError),
    /// A folder the runtime needs could not be made or read.
    #[error("{what} {path}: {source}")]
    Io {
        /// What the folder is for.
        what: &'static str,
        /// The folder.
        path: std::path::PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The model failed outside a turn (ending a session, a prefill hint).
    #[error("model: {0}")]
    Model(String),
    /// A skill or toolset folder the user named does not exist.
    #[error("{what} folder {path} does not exist")]
    MissingFolder {
        /// `skills` or `toolsets`.
        what: &'static str,
        /// The folder.
        path: std::path::PathBuf,
    },
}
