//! The errors of the eval.

use std::path::PathBuf;

/// What can go wrong loading case files or running them.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    /// A case file cannot be read, does not parse, or breaks a rule outside any case.
    #[error("{}: {reason}", path.display())]
    BadFile {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// One case of a file is malformed (unknown key, empty expectation, unknown tool…).
    #[error("{}: case {case}{}: {reason}", path.display(), user_label(user))]
    BadCase {
        /// The file.
        path: PathBuf,
        /// The case's 1-based position in the file.
        case: usize,
        /// The case's user text, when it has one.
        user: Option<String>,
        /// What is wrong.
        reason: String,
    },
    /// The skills or toolsets a file (under a variant) loads have errors.
    #[error("{}: loading skills/toolsets (variant {variant}): {reason}", path.display())]
    Load {
        /// The file.
        path: PathBuf,
        /// The variant.
        variant: String,
        /// The errors.
        reason: String,
    },
    /// No variant of that name is registered.
    #[error("no variant {name:?}; available: {}", available.join(", "))]
    UnknownVariant {
        /// The name asked for.
        name: String,
        /// The registered variants.
        available: Vec<String>,
    },
    /// Nothing to run (no files, no cases, no variants).
    #[error("nothing to run: {0}")]
    Empty(String),
    /// The model file could not be resolved or its vocabulary loaded.
    #[error("model: {0}")]
    Model(String),
    /// The engine failed to load or serve (a failed generation is a case result instead).
    #[error("engine: {0}")]
    Engine(String),
}

fn user_label(user: &Option<String>) -> String {
    match user {
        Some(u) => format!(" ({u:?})"),
        None => String::new(),
    }
}
