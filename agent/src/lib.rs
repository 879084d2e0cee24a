//! Porfiry's agent core (placeholder crate doc; the agent work replaces it).
#![deny(missing_docs)]

mod model;

pub use model::{
    CancelToken, Generation, GenerationStats, Message, Model, ModelError, ModelRequest, Role,
    StopReason,
};
