//! The targets whose crates link llama.cpp: the GGUF pre-validator, the KV snapshot
//! reader (porfiry-engine) and the eval case loader (porfiry-bench). They reach their
//! readers through `crate::readers` — the fuzz crate compiles the readers' source files
//! itself, the main workspace's smoke test points it at the real crates.

use std::path::Path;

use crate::readers::engine::snapshot::{self, SnapshotKey};
use crate::readers::engine::{inspect_gguf_bytes, KvType};
use crate::readers::eval::parse_eval_file;

use super::text;

/// The engine's targets: names and bodies.
pub const ENGINE_TARGETS: &[(&str, fn(&[u8]))] = &[
    ("eval_case", eval_case),
    ("gguf", gguf),
    ("snapshot", snapshot),
];

/// Eval case files (`evals/*.yaml`, `porfiry eval tools|talk`): parsing never panics; an
/// accepted file has cases, each with turns, each turn a user text and an expected first
/// action.
pub fn eval_case(data: &[u8]) {
    let Ok(file) = parse_eval_file(&text(data), Path::new("evals/fuzz.yaml")) else {
        return;
    };
    assert!(!file.cases.is_empty());
    let _ = file.label();
    for case in &file.cases {
        assert!(!case.turns.is_empty());
        let _ = case.user();
        for turn in &case.turns {
            assert!(!turn.expect.is_empty());
            let _ = turn.kind();
            let _ = turn.expects_text();
        }
    }
}

/// The GGUF pre-validator: any bytes give a header or a typed error, never a panic; an
/// accepted header's tensor data lies inside the file.
pub fn gguf(data: &[u8]) {
    let Ok(info) = inspect_gguf_bytes(data, Path::new("fuzz.gguf")) else {
        return;
    };
    assert!(info.version == 2 || info.version == 3);
    assert_eq!(info.file_len, data.len() as u64);
    assert!(info.data_offset <= info.required_len);
    assert!(info.required_len <= info.file_len);
}

/// The key the snapshot target reads against.
pub fn snapshot_key() -> SnapshotKey {
    SnapshotKey {
        llama: snapshot::LLAMA_CPP.into(),
        model_sha256: "0".repeat(64),
        n_ctx: 4096,
        n_seq: 2,
        swa_full: true,
        type_k: KvType::F16,
        type_v: KvType::Q8_0,
    }
}

/// The head tokens the snapshot target reads against.
pub const SNAPSHOT_TOKENS: &[i32] = &[2, 105, 2364, 107, 0, -1, i32::MAX];

/// The KV snapshot reader: any bytes decode to a payload or a typed error; an accepted
/// payload is a slice of the file; and any payload round-trips through `encode`.
pub fn snapshot(data: &[u8]) {
    let key = snapshot_key();
    if let Ok(payload) = snapshot::decode(data, &key, SNAPSHOT_TOKENS) {
        assert!(payload.len() <= data.len());
        let encoded = snapshot::encode(&key, SNAPSHOT_TOKENS, payload);
        assert_eq!(
            snapshot::decode(&encoded, &key, SNAPSHOT_TOKENS).ok(),
            Some(payload)
        );
    }
    let encoded = snapshot::encode(&key, SNAPSHOT_TOKENS, data);
    assert_eq!(
        snapshot::decode(&encoded, &key, SNAPSHOT_TOKENS).ok(),
        Some(data),
        "a snapshot does not round-trip"
    );
}
