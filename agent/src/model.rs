//! The model seam, re-exported from `porfiry-model` so agent code names it as before.

pub use porfiry_model::{
    CancelToken, ContextWindow, Generation, GenerationStats, Message, Model, ModelError,
    ModelErrorKind, ModelRequest, Role, StopReason,
};
