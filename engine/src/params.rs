//! Load-time parameters of an engine, with documented defaults.

use std::path::PathBuf;

use crate::chat::ChatFormat;

/// Data type of the KV cache (keys or values).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum KvType {
    /// 16-bit floats: llama.cpp's default, exact.
    F16,
    /// 32-bit floats: twice the memory of F16, for debugging.
    F32,
    /// 8-bit quantized: half the memory of F16, nearly lossless. Quantized values need flash
    /// attention, which llama.cpp enables automatically where it can.
    Q8_0,
    /// 4-bit quantized: a quarter of F16, noticeably lossy.
    Q4_0,
}

/// How the engine loads a model and sizes its context.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct EngineParams {
    /// Context size in tokens (KV cells shared by all sequences). Default 4096.
    pub n_ctx: u32,
    /// CPU threads for decode and prefill. Default `None`: the number of physical cores.
    pub threads: Option<u32>,
    /// Batch size: the most prompt tokens decoded per llama.cpp call (prefill chunk). Default
    /// 512. Cancel and deadline do not wait for a batch to end: llama.cpp's abort callback
    /// stops it within one graph node (the batch is then not kept).
    pub batch: u32,
    /// Keep the full KV cache on sliding-window-attention layers. Default `None`: on when the
    /// model has a sliding window (Gemma 3), because without it llama.cpp cannot truncate a
    /// sequence and every turn would be prefilled from scratch. Costs memory on SWA layers.
    pub swa_full: Option<bool>,
    /// KV cache key type. Default F16.
    pub kv_type_k: KvType,
    /// KV cache value type. Default F16.
    pub kv_type_v: KvType,
    /// Map the file instead of reading it into memory. Default true (fast load, shared pages).
    pub mmap: bool,
    /// Chat format override (e.g. from the model manifest). Default `None`: detect from the
    /// GGUF metadata.
    pub chat_format: Option<ChatFormat>,
    /// Number of KV sequences (sessions kept in the cache at once). Default 1: every session
    /// shares one sequence and reuses the common prefix. More sequences share `n_ctx` cells.
    pub n_seq: u32,
    /// Where KV snapshots of the static prompt head are kept ([`Engine::prepare_head`]).
    /// Default `None`: heads are kept in memory only, and built again after a restart.
    ///
    /// [`Engine::prepare_head`]: crate::Engine::prepare_head
    pub snapshot_dir: Option<PathBuf>,
    /// SHA-256 of the model file (lowercase hex) when the caller already knows it (e.g. a
    /// verified download); snapshots are keyed by it. Default `None`: hashed once and cached
    /// in `snapshot_dir`.
    pub model_sha256: Option<String>,
    /// After a reply, decode the chat framing that opens the session's next message while
    /// idle (the user is speaking), so the next request prefills only the message and the
    /// framing that closes it. Default true.
    pub anticipate: bool,
}

impl Default for EngineParams {
    fn default() -> Self {
        Self {
            n_ctx: 4096,
            threads: None,
            batch: 512,
            swa_full: None,
            kv_type_k: KvType::F16,
            kv_type_v: KvType::F16,
            mmap: true,
            chat_format: None,
            n_seq: 1,
            snapshot_dir: None,
            model_sha256: None,
            anticipate: true,
        }
    }
}

impl EngineParams {
    /// The thread count to use: `threads`, else the physical core count.
    pub fn effective_threads(&self) -> u32 {
        self.threads
            .filter(|t| *t > 0)
            .unwrap_or_else(physical_cores)
    }
}

/// Number of physical CPU cores (Linux: distinct `physical id`/`core id` pairs in
/// `/proc/cpuinfo`); falls back to the logical CPU count where that is not available
/// (Android kernels usually do not list core ids).
pub fn physical_cores() -> u32 {
    let logical = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
    let Ok(info) = std::fs::read_to_string("/proc/cpuinfo") else {
        return logical;
    };
    let mut cores = std::collections::HashSet::new();
    let mut physical = String::new();
    for line in info.lines() {
        let Some((k, v)) = line.split_once(':') else {
            continue;
        };
        match k.trim() {
            "physical id" => physical = v.trim().to_owned(),
            "core id" => {
                cores.insert((physical.clone(), v.trim().to_owned()));
            }
            _ => {}
        }
    }
    if cores.is_empty() {
        logical
    } else {
        (cores.len() as u32).clamp(1, logical)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn physical_cores_is_within_logical() {
        let n = physical_cores();
        let logical = std::thread::available_parallelism().unwrap().get() as u32;
        assert!(n >= 1 && n <= logical, "{n} of {logical}");
    }

    #[test]
    fn explicit_threads_win() {
        let p = EngineParams {
            threads: Some(3),
            ..EngineParams::default()
        };
        assert_eq!(p.effective_threads(), 3);
        let p = EngineParams {
            threads: Some(0),
            ..EngineParams::default()
        };
        assert_eq!(p.effective_threads(), physical_cores());
    }
}
