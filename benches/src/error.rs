//! The errors of this crate.

/// What can go wrong preparing or playing a dialogue.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// The dialogue file does not parse or breaks a rule.
    #[error("dialogue {origin}: {reason}")]
    BadDialogue {
        /// Where it came from.
        origin: String,
        /// What is wrong.
        reason: String,
    },
    /// The skills or toolsets the dialogue needs did not load cleanly.
    #[error("loading skills/toolsets: {0}")]
    Load(String),
    /// `--turns` asked for more turns than the dialogue has (or none).
    #[error("the dialogue has {available} turns; asked for {asked}")]
    Turns {
        /// Turns asked for.
        asked: usize,
        /// Turns the dialogue has.
        available: usize,
    },
    /// The agent did something the script did not expect (the script and the agent are out
    /// of step, so the forced tokens would be meaningless).
    #[error("turn {turn} ({user:?}): {reason}")]
    OutOfStep {
        /// 1-based turn number.
        turn: usize,
        /// The user's text.
        user: String,
        /// What differed.
        reason: String,
    },
    /// The model or its host failed.
    #[error("model: {0}")]
    Model(String),
    /// The model file could not be found or resolved.
    #[error("model: {0}")]
    ModelFile(String),
    /// The engine failed to load or serve.
    #[error("engine: {0}")]
    Engine(String),
}
