//! Where the worker keeps head snapshots, and their key.

use std::path::{Path, PathBuf};

use crate::params::KvType;
use crate::snapshot::{self, SnapshotError, SnapshotKey};

/// Snapshot settings and the key, computed on first use (it needs the model's hash).
pub(super) struct Snapshots {
    pub(super) dir: PathBuf,
    pub(super) model: PathBuf,
    pub(super) model_sha256: Option<String>,
    pub(super) key: Option<SnapshotKey>,
    pub(super) n_ctx: u32,
    pub(super) n_seq: u32,
    pub(super) swa_full: bool,
    pub(super) type_k: KvType,
    pub(super) type_v: KvType,
}

impl Snapshots {
    /// The snapshot folder and the key of this engine's snapshots: the model's hash as
    /// given (lower case) or computed from the file once.
    pub(super) fn key(&mut self) -> Result<(&Path, &SnapshotKey), SnapshotError> {
        let key = match self.key.take() {
            Some(k) => k,
            None => SnapshotKey {
                llama: snapshot::LLAMA_CPP.to_owned(),
                model_sha256: match &self.model_sha256 {
                    Some(h) => h.to_ascii_lowercase(),
                    None => snapshot::model_sha256(&self.model, &self.dir)?,
                },
                n_ctx: self.n_ctx,
                n_seq: self.n_seq,
                swa_full: self.swa_full,
                type_k: self.type_k,
                type_v: self.type_v,
            },
        };
        Ok((&self.dir, self.key.insert(key)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snapshots(model_sha256: Option<&str>) -> Snapshots {
        Snapshots {
            dir: PathBuf::from("/nonexistent/kv"),
            model: PathBuf::from("/nonexistent/model.gguf"),
            model_sha256: model_sha256.map(str::to_owned),
            key: None,
            n_ctx: 2048,
            n_seq: 2,
            swa_full: true,
            type_k: KvType::F16,
            type_v: KvType::Q8_0,
        }
    }

    #[test]
    fn the_key_carries_the_given_hash_and_the_context_settings() {
        let mut s = snapshots(Some("ABCDEF"));
        let (dir, key) = s.key().expect("no file is read for a given hash");
        assert_eq!(dir, Path::new("/nonexistent/kv"));
        assert_eq!(key.model_sha256, "abcdef");
        assert_eq!(key.llama, snapshot::LLAMA_CPP);
        assert_eq!((key.n_ctx, key.n_seq, key.swa_full), (2048, 2, true));
        assert_eq!((key.type_k, key.type_v), (KvType::F16, KvType::Q8_0));
        // Computed once: a changed setting does not change the key any more.
        s.model_sha256 = Some("0123".into());
        assert_eq!(s.key().expect("kept").1.model_sha256, "abcdef");
    }

    #[test]
    fn without_a_given_hash_a_missing_model_is_an_error() {
        assert!(snapshots(None).key().is_err());
    }
}
