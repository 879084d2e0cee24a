//! The process-wide llama.cpp backend.
//!
//! llama.cpp's backend is initialised once per process (a second `LlamaBackend::init` fails),
//! so the engine owns it here and every model load goes through [`backend`]. Hosts must not
//! initialise it themselves. llama.cpp's own logging is routed into `tracing` (silent unless
//! the host installs a subscriber).

use std::sync::OnceLock;

use llama_cpp_2::llama_backend::LlamaBackend;

use crate::error::EngineError;

static BACKEND: OnceLock<Result<LlamaBackend, String>> = OnceLock::new();

/// The shared backend, initialised on first use.
pub fn backend() -> Result<&'static LlamaBackend, EngineError> {
    BACKEND
        .get_or_init(|| {
            llama_cpp_2::send_logs_to_tracing(llama_cpp_2::LogOptions::default());
            LlamaBackend::init().map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(|e| EngineError::Backend(e.clone()))
}
