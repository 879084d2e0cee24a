//! The engine's file readers (`engine/src/gguf.rs`, `engine/src/snapshot.rs`) and the eval
//! case loader (`benches/src/eval/case.rs`), compiled here from their own source files.
//!
//! Their crates link llama.cpp (porfiry-bench through porfiry-engine); these files are pure
//! Rust (std, serde, sha2, thiserror), so the fuzz binaries build them directly and skip a
//! C++ build per fuzz profile. The code fuzzed is the shipped code, byte for byte; only the
//! two engine items `snapshot.rs` imports (`kv::TokenId`, `params::KvType`) are restated
//! at the crate root, and the main workspace's smoke test (`tests/fuzz_smoke.rs`) runs the
//! same target bodies against the real crates.

/// `porfiry_engine`'s API as the targets use it.
pub mod engine {
    pub use super::gguf::inspect_bytes as inspect_gguf_bytes;
    pub use super::snapshot;
    pub use crate::params::KvType;
}

/// `porfiry_bench::eval` as the targets use it.
pub mod eval {
    pub use super::case::parse_eval_file;
}

/// `benches/src/eval/case.rs` (it names its error type as `super::error`).
#[path = "../../benches/src/eval/case.rs"]
#[allow(dead_code, missing_docs)]
mod case;
/// `benches/src/eval/error.rs`.
#[path = "../../benches/src/eval/error.rs"]
#[allow(dead_code, missing_docs)]
mod error;

/// `engine/src/gguf.rs`.
#[path = "../../engine/src/gguf.rs"]
#[allow(dead_code)]
pub mod gguf;

/// `engine/src/snapshot.rs`.
#[path = "../../engine/src/snapshot.rs"]
#[allow(dead_code)]
pub mod snapshot;
