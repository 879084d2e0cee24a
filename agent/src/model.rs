//! The model seam, re-exported from `porfiry-seam` so agent code names it as before.

pub use porfiry_seam::{
    is_list_number, wire, ArgKind, ArgSpec, CallLine, CallSpec, CallSyntax, CancelToken,
    Confidence, ContextWindow, Generation, GenerationStats, Message, Model, ModelError,
    ModelErrorKind, ModelRequest, ReplyGuide, Role, StopReason,
};
