//! Snapshots of the static prompt head's KV state on disk.
//!
//! Every session starts with the same tokens (core tools, catalog, fresh toolset state, with
//! the chat framing). The engine prefills them once, keeps the sequence state llama.cpp
//! returns for them, and writes it to a file, so a new session — and the first request
//! after a restart — restores it instead of prefilling.
//!
//! A snapshot is only ever handed to llama.cpp when everything that shapes the bytes matches
//! ([`SnapshotKey`]: llama.cpp build, model file hash, context parameters) and the payload's
//! SHA-256 checks out; its head tokens must equal the tokens the engine computes for the
//! head now. Anything else is a [`SnapshotError`] and the head is rebuilt, never trusted.
//!
//! # File format (little endian)
//! ```text
//! magic    8 bytes  "PORFKVH\x01"
//! hlen     u32      length of the header
//! header   hlen     JSON: SnapshotHeader (key, token count, payload length, checksums)
//! tokens   4 × n    the head's token ids (i32)
//! payload  len      llama.cpp's sequence state (llama_state_seq_get_data)
//! ```

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use sha2::{Digest, Sha256};

use crate::kv::TokenId;
use crate::params::KvType;

/// The llama.cpp build whose state format the payload is in. A test checks it against
/// Cargo.lock, so bumping the crates without bumping this fails loudly.
pub const LLAMA_CPP: &str = "llama-cpp-2 0.1.160, llama-cpp-sys-2 0.1.161";

const MAGIC: &[u8; 8] = b"PORFKVH\x01";
/// Snapshot files kept in a directory at most (the least recently written go first).
pub const KEEP_FILES: usize = 8;
const EXT: &str = "kvhead";

/// Why a snapshot file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    /// There is no file for this key.
    #[error("no snapshot at {0}")]
    Missing(PathBuf),
    /// The file could not be read or written.
    #[error("snapshot {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// Not a snapshot file, or a damaged header.
    #[error("not a snapshot file (bad magic or header): {0}")]
    Format(String),
    /// The file is shorter or longer than its header says.
    #[error("truncated or padded snapshot: {0}")]
    Length(String),
    /// Made for something else (another model, llama.cpp build, context or head).
    #[error("stale snapshot: {field} differs")]
    Stale {
        /// What differs.
        field: &'static str,
    },
    /// The payload or token bytes do not match their checksum.
    #[error("corrupt snapshot: {0} checksum mismatch")]
    Checksum(&'static str),
}

/// What the bytes of a head's state depend on. Two engines with equal keys (and equal head
/// tokens) produce interchangeable snapshots.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SnapshotKey {
    /// The llama.cpp build ([`LLAMA_CPP`]).
    pub llama: String,
    /// SHA-256 of the model file, lowercase hex.
    pub model_sha256: String,
    /// Context size.
    pub n_ctx: u32,
    /// KV sequences.
    pub n_seq: u32,
    /// Whether SWA layers keep the full cache.
    pub swa_full: bool,
    /// KV key type.
    pub type_k: KvType,
    /// KV value type.
    pub type_v: KvType,
}

/// The JSON header of a snapshot file.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SnapshotHeader {
    /// What the payload was made for.
    pub key: SnapshotKey,
    /// SHA-256 of the head's token ids (as little-endian i32).
    pub tokens_sha256: String,
    /// Number of head tokens.
    pub n_tokens: usize,
    /// Length of the payload in bytes.
    pub payload_len: usize,
    /// SHA-256 of the payload.
    pub payload_sha256: String,
}

/// Lowercase hex SHA-256 of some bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

fn token_bytes(tokens: &[TokenId]) -> Vec<u8> {
    tokens.iter().flat_map(|t| t.to_le_bytes()).collect()
}

/// SHA-256 of token ids, the way the header records them.
pub fn tokens_sha256(tokens: &[TokenId]) -> String {
    sha256_hex(&token_bytes(tokens))
}

/// The file a head's snapshot lives in: named by the hash of the key and the head tokens,
/// so another model, context or head never even opens it.
pub fn file_name(key: &SnapshotKey, tokens: &[TokenId]) -> String {
    let id = serde_json::to_string(key).unwrap_or_default() + &tokens_sha256(tokens);
    format!("{}.{EXT}", &sha256_hex(id.as_bytes())[..24])
}

/// Serialize a snapshot.
pub fn encode(key: &SnapshotKey, tokens: &[TokenId], payload: &[u8]) -> Vec<u8> {
    let header = SnapshotHeader {
        key: key.clone(),
        tokens_sha256: tokens_sha256(tokens),
        n_tokens: tokens.len(),
        payload_len: payload.len(),
        payload_sha256: sha256_hex(payload),
    };
    let json = serde_json::to_vec(&header).unwrap_or_default();
    let mut out = Vec::with_capacity(12 + json.len() + tokens.len() * 4 + payload.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(json.len() as u32).to_le_bytes());
    out.extend_from_slice(&json);
    out.extend_from_slice(&token_bytes(tokens));
    out.extend_from_slice(payload);
    out
}

/// Parse and verify a snapshot made for `key` and the head `tokens`; returns the payload.
///
/// # Errors
/// [`SnapshotError`] for anything that does not check out.
pub fn decode<'a>(
    bytes: &'a [u8],
    key: &SnapshotKey,
    tokens: &[TokenId],
) -> Result<&'a [u8], SnapshotError> {
    let rest = bytes
        .strip_prefix(MAGIC.as_slice())
        .ok_or_else(|| SnapshotError::Format("bad magic".into()))?;
    let (len, rest) = rest
        .split_first_chunk::<4>()
        .ok_or_else(|| SnapshotError::Length("no header length".into()))?;
    let hlen = u32::from_le_bytes(*len) as usize;
    if rest.len() < hlen {
        return Err(SnapshotError::Length(format!(
            "header of {hlen} bytes, {} left",
            rest.len()
        )));
    }
    let (json, rest) = rest.split_at(hlen);
    let header = checked_header(json, key, tokens)?;
    let want = body_len(&header)?;
    if rest.len() != want {
        return Err(SnapshotError::Length(format!(
            "{} bytes after the header, {want} expected",
            rest.len()
        )));
    }
    let (stored_tokens, payload) = rest.split_at(header.n_tokens * 4);
    if sha256_hex(stored_tokens) != header.tokens_sha256 {
        return Err(SnapshotError::Checksum("tokens"));
    }
    if sha256_hex(payload) != header.payload_sha256 {
        return Err(SnapshotError::Checksum("payload"));
    }
    Ok(payload)
}

/// The JSON header, parsed and checked against `key` and `tokens`.
fn checked_header(
    json: &[u8],
    key: &SnapshotKey,
    tokens: &[TokenId],
) -> Result<SnapshotHeader, SnapshotError> {
    let header: SnapshotHeader =
        serde_json::from_slice(json).map_err(|e| SnapshotError::Format(e.to_string()))?;
    let stale = |field| Err(SnapshotError::Stale { field });
    let k = &header.key;
    if k.llama != key.llama {
        return stale("llama.cpp build");
    }
    if k.model_sha256 != key.model_sha256 {
        return stale("model file");
    }
    if (k.n_ctx, k.n_seq, k.swa_full, k.type_k, k.type_v)
        != (key.n_ctx, key.n_seq, key.swa_full, key.type_k, key.type_v)
    {
        return stale("context parameters");
    }
    if header.n_tokens != tokens.len() || header.tokens_sha256 != tokens_sha256(tokens) {
        return stale("head tokens");
    }
    Ok(header)
}

/// Bytes after the header: the token ids and the payload.
fn body_len(header: &SnapshotHeader) -> Result<usize, SnapshotError> {
    header
        .n_tokens
        .checked_mul(4)
        .and_then(|n| n.checked_add(header.payload_len))
        .ok_or_else(|| SnapshotError::Format("sizes overflow".into()))
}

/// Longest JSON header [`load`] reads (a real one is under 400 bytes).
const MAX_HEADER: usize = 64 * 1024;

/// Read and verify the snapshot for `key` and `tokens` from `dir`.
///
/// Only a regular file is opened (a FIFO would block, a device never end), and it is read
/// whole only after its header matched `key` and `tokens` and its size is the one the
/// header declares: memory never exceeds what a snapshot of this head takes.
///
/// # Errors
/// [`SnapshotError::Missing`] when there is none, else what [`decode`] reports.
pub fn load(dir: &Path, key: &SnapshotKey, tokens: &[TokenId]) -> Result<Vec<u8>, SnapshotError> {
    let path = dir.join(file_name(key, tokens));
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| SnapshotError::Io { path, source }
    };
    let meta = match fs::metadata(&path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(SnapshotError::Missing(path))
        }
        Err(source) => return Err(SnapshotError::Io { path, source }),
    };
    if !meta.is_file() {
        return Err(SnapshotError::Format(format!(
            "{} is not a regular file",
            path.display()
        )));
    }
    let mut file = fs::File::open(&path).map_err(io(&path))?;
    let mut head = [0u8; MAGIC.len() + 4];
    if let Err(e) = file.read_exact(&mut head) {
        return Err(match e.kind() {
            std::io::ErrorKind::UnexpectedEof => SnapshotError::Format("bad magic".into()),
            _ => io(&path)(e),
        });
    }
    if &head[..MAGIC.len()] != MAGIC.as_slice() {
        return Err(SnapshotError::Format("bad magic".into()));
    }
    let hlen = u32::from_le_bytes([head[8], head[9], head[10], head[11]]) as usize;
    let after = (meta.len() as usize).saturating_sub(head.len());
    if hlen > MAX_HEADER || hlen > after {
        return Err(SnapshotError::Length(format!(
            "header of {hlen} bytes, {after} left"
        )));
    }
    let mut json = vec![0u8; hlen];
    file.read_exact(&mut json).map_err(io(&path))?;
    let header = checked_header(&json, key, tokens)?;
    let want = body_len(&header)?;
    let body = after - hlen;
    if body != want {
        return Err(SnapshotError::Length(format!(
            "{body} bytes after the header, {want} expected"
        )));
    }
    let mut bytes = Vec::with_capacity(head.len() + hlen + want);
    bytes.extend_from_slice(&head);
    bytes.extend_from_slice(&json);
    // One byte more than expected tells a file that grew since its size was read.
    (&mut file)
        .take(want as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(io(&path))?;
    decode(&bytes, key, tokens).map(<[u8]>::to_vec)
}

/// Write a snapshot atomically (temporary file, then rename) and keep at most
/// [`KEEP_FILES`] snapshots in `dir`. Returns the file and its size.
///
/// # Errors
/// [`SnapshotError::Io`].
pub fn save(
    dir: &Path,
    key: &SnapshotKey,
    tokens: &[TokenId],
    payload: &[u8],
) -> Result<(PathBuf, u64), SnapshotError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| SnapshotError::Io { path, source }
    };
    fs::create_dir_all(dir).map_err(io(dir))?;
    let path = dir.join(file_name(key, tokens));
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    let bytes = encode(key, tokens, payload);
    let written = fs::File::create(&tmp)
        .and_then(|mut f| f.write_all(&bytes).and_then(|()| f.sync_all()))
        .and_then(|()| fs::rename(&tmp, &path));
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp);
        return Err(io(&path)(e));
    }
    prune(dir, &path);
    Ok((path, bytes.len() as u64))
}

/// Remove a snapshot file (one that failed to restore).
pub fn remove(dir: &Path, key: &SnapshotKey, tokens: &[TokenId]) {
    let _ = fs::remove_file(dir.join(file_name(key, tokens)));
}

/// Keep the newest [`KEEP_FILES`] snapshot files (and `keep` in any case).
fn prune(dir: &Path, keep: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut files: Vec<(std::time::SystemTime, PathBuf)> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == EXT) && p != keep)
        .map(|p| {
            let t = fs::metadata(&p)
                .and_then(|m| m.modified())
                .unwrap_or(UNIX_EPOCH);
            (t, p)
        })
        .collect();
    files.sort();
    let extra = (files.len() + 1).saturating_sub(KEEP_FILES);
    for (_, p) in files.into_iter().take(extra) {
        let _ = fs::remove_file(p);
    }
}

/// SHA-256 of a model file, cached in `dir` by path, size and modification time so a
/// 250 MB file is hashed once, not at every start.
///
/// # Errors
/// [`SnapshotError::Io`] when the file cannot be read.
pub fn model_sha256(model: &Path, dir: &Path) -> Result<String, SnapshotError> {
    let io = |source| SnapshotError::Io {
        path: model.to_path_buf(),
        source,
    };
    let meta = fs::metadata(model).map_err(io)?;
    let mtime = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    let canonical = fs::canonicalize(model).unwrap_or_else(|_| model.to_path_buf());
    let stamp = format!("{} {} {mtime}", canonical.display(), meta.len());
    let cache = dir.join(format!(
        "model-{}.sha256",
        &sha256_hex(canonical.display().to_string().as_bytes())[..16]
    ));
    if let Ok(text) = fs::read_to_string(&cache) {
        if let Some((line, hash)) = text.trim_end().rsplit_once('\n') {
            if line == stamp && hash.len() == 64 && hash.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Ok(hash.to_owned());
            }
        }
    }
    let mut file = fs::File::open(model).map_err(io)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = file.read(&mut buf).map_err(io)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    let hash = hex(&hasher.finalize());
    if fs::create_dir_all(dir).is_ok() {
        let _ = fs::write(&cache, format!("{stamp}\n{hash}\n"));
    }
    Ok(hash)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> SnapshotKey {
        SnapshotKey {
            llama: LLAMA_CPP.into(),
            model_sha256: "ab".repeat(32),
            n_ctx: 4096,
            n_seq: 1,
            swa_full: true,
            type_k: KvType::F16,
            type_v: KvType::F16,
        }
    }

    const TOKENS: &[TokenId] = &[2, 105, 2364, 107, 9999];

    #[test]
    fn round_trip() {
        let payload: Vec<u8> = (0..1000u32).map(|i| (i * 7) as u8).collect();
        let bytes = encode(&key(), TOKENS, &payload);
        assert_eq!(decode(&bytes, &key(), TOKENS).unwrap(), payload.as_slice());
    }

    #[test]
    fn every_mismatch_is_detected() {
        let payload = vec![1u8; 300];
        let good = encode(&key(), TOKENS, &payload);
        let stale = |k: SnapshotKey, t: &[TokenId]| match decode(&good, &k, t) {
            Err(SnapshotError::Stale { field }) => field,
            other => panic!("expected stale, got {other:?}"),
        };
        let mut k = key();
        k.model_sha256 = "cd".repeat(32);
        assert_eq!(stale(k, TOKENS), "model file");
        let mut k = key();
        k.llama = "llama-cpp-2 0.0.1".into();
        assert_eq!(stale(k, TOKENS), "llama.cpp build");
        let mut k = key();
        k.n_ctx = 2048;
        assert_eq!(stale(k, TOKENS), "context parameters");
        let mut k = key();
        k.type_k = KvType::Q8_0;
        assert_eq!(stale(k, TOKENS), "context parameters");
        assert_eq!(stale(key(), &TOKENS[..4]), "head tokens");
        assert_eq!(stale(key(), &[2, 105, 2364, 107, 9998]), "head tokens");

        // A flipped payload byte, a flipped token byte.
        let mut bad = good.clone();
        let last = bad.len() - 1;
        bad[last] ^= 1;
        assert!(matches!(
            decode(&bad, &key(), TOKENS),
            Err(SnapshotError::Checksum("payload"))
        ));
        let mut bad = good.clone();
        let tok = good.len() - payload.len() - 4;
        bad[tok] ^= 1;
        assert!(matches!(
            decode(&bad, &key(), TOKENS),
            Err(SnapshotError::Checksum("tokens"))
        ));
        // Truncated anywhere, padded, wrong magic, garbage header.
        for cut in [0, 3, 8, 11, 20, good.len() - 1] {
            assert!(
                decode(&good[..cut], &key(), TOKENS).is_err(),
                "cut at {cut}"
            );
        }
        let mut padded = good.clone();
        padded.push(0);
        assert!(matches!(
            decode(&padded, &key(), TOKENS),
            Err(SnapshotError::Length(_))
        ));
        let mut magic = good.clone();
        magic[0] = b'X';
        assert!(matches!(
            decode(&magic, &key(), TOKENS),
            Err(SnapshotError::Format(_))
        ));
        let mut header = good;
        header[12] = b'#';
        assert!(matches!(
            decode(&header, &key(), TOKENS),
            Err(SnapshotError::Format(_))
        ));
    }

    #[test]
    fn files_are_saved_loaded_and_pruned() {
        let dir = std::env::temp_dir().join(format!("porfiry-snap-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        assert!(matches!(
            load(&dir, &key(), TOKENS),
            Err(SnapshotError::Missing(_))
        ));
        let (path, size) = save(&dir, &key(), TOKENS, b"state").unwrap();
        assert_eq!(fs::metadata(&path).unwrap().len(), size);
        assert_eq!(load(&dir, &key(), TOKENS).unwrap(), b"state");
        // Other heads get other files; only KEEP_FILES stay.
        for i in 0..KEEP_FILES as i32 + 3 {
            save(&dir, &key(), &[i], b"x").unwrap();
        }
        let n = fs::read_dir(&dir)
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .path()
                    .extension()
                    .is_some_and(|x| x == EXT)
            })
            .count();
        assert_eq!(n, KEEP_FILES);
        let newest = [KEEP_FILES as i32 + 2];
        assert_eq!(load(&dir, &key(), &newest).unwrap(), b"x");
        // A damaged file is an error, not a payload.
        fs::write(dir.join(file_name(&key(), &newest)), b"PORFKVH\x01garbage").unwrap();
        assert!(matches!(
            load(&dir, &key(), &newest),
            Err(SnapshotError::Length(_))
        ));
        remove(&dir, &key(), &newest);
        assert!(matches!(
            load(&dir, &key(), &newest),
            Err(SnapshotError::Missing(_))
        ));
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn model_hash_is_cached_by_size_and_time() {
        let dir = std::env::temp_dir().join(format!("porfiry-hash-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let model = dir.join("m.gguf");
        fs::write(&model, b"hello").unwrap();
        let h = model_sha256(&model, &dir).unwrap();
        assert_eq!(h, sha256_hex(b"hello"));
        // Cached: the same answer from the stamp file.
        assert_eq!(model_sha256(&model, &dir).unwrap(), h);
        // A changed file (other size) is hashed again.
        fs::write(&model, b"hello, world").unwrap();
        assert_eq!(
            model_sha256(&model, &dir).unwrap(),
            sha256_hex(b"hello, world")
        );
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn llama_build_matches_the_lock_file() {
        let lock = include_str!("../../Cargo.lock");
        for part in LLAMA_CPP.split(", ") {
            let (name, version) = part.split_once(' ').unwrap();
            let entry = format!("name = \"{name}\"\nversion = \"{version}\"");
            assert!(
                lock.contains(&entry),
                "Cargo.lock has no {entry}: update LLAMA_CPP"
            );
        }
    }
}
