//! Shared helpers for the real-model tests: model paths and one engine per model per binary.

#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard, OnceLock};

use porfiry_engine::{Engine, EngineParams};

pub const GEMMA: &str = "gemma-3-270m-q4_k_m.gguf";
pub const SMOLLM2: &str = "SmolLM2-135M-Instruct.Q4_1.gguf";

/// The models directory: `$PORFIRY_MODELS`, else `<workspace>/models/cache/`.
pub fn models_dir() -> PathBuf {
    match std::env::var_os("PORFIRY_MODELS") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../models/cache"),
    }
}

/// The path of a model file; panics with the fetch command when it is missing.
pub fn model_path(file: &str) -> PathBuf {
    let path = models_dir().join(file);
    assert!(
        path.is_file(),
        "model file {} is missing: run `./run models fetch` (or `porfiry models fetch`) first",
        path.display()
    );
    path
}

/// Small context for tests.
pub fn test_params() -> EngineParams {
    EngineParams {
        n_ctx: 2048,
        ..EngineParams::default()
    }
}

fn shared(cell: &'static OnceLock<Mutex<Engine>>, file: &str) -> MutexGuard<'static, Engine> {
    cell.get_or_init(|| {
        let engine = Engine::load(model_path(file), test_params())
            .unwrap_or_else(|e| panic!("loading {file}: {e}"));
        Mutex::new(engine)
    })
    .lock()
    .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The Gemma engine of this test binary, locked (tests using it run one at a time).
pub fn gemma() -> MutexGuard<'static, Engine> {
    static CELL: OnceLock<Mutex<Engine>> = OnceLock::new();
    shared(&CELL, GEMMA)
}

/// The SmolLM2 engine of this test binary, locked.
pub fn smollm2() -> MutexGuard<'static, Engine> {
    static CELL: OnceLock<Mutex<Engine>> = OnceLock::new();
    shared(&CELL, SMOLLM2)
}
