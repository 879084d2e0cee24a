//! Every folder Porfiry reads or writes, and every `PORFIRY_*` variable that moves one, in
//! one place. Nothing here points at the source checkout the binary was built from: a binary
//! copied elsewhere (or pushed to a phone) finds everything through these rules.
//!
//! | what | variable | default |
//! |---|---|---|
//! | data (notes, catalog, KV snapshots) | `PORFIRY_DATA` | the user's data directory: `$XDG_DATA_HOME/porfiry`, else `~/.local/share/porfiry`, else `porfiry` in the temporary directory |
//! | head KV snapshots | `PORFIRY_KV_DIR` | `<data>/kv` |
//! | models | `PORFIRY_MODELS` | `<user data directory>/models` ([`porfiry_models::default_models_dir`]) |
//! | built-in skills and toolsets | `PORFIRY_BUILTIN` (a folder holding `skills/` and `toolsets/`) | the copy embedded in the binary, written once to `<data>/builtin/<hash>/` |
//!
//! `./run` (the checkout's entry point) sets `PORFIRY_MODELS` and `PORFIRY_DATA` to folders of
//! the checkout unless they are set, so a developer's models and notes stay with the checkout.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// Environment variable naming the data directory.
pub const DATA_DIR_ENV: &str = "PORFIRY_DATA";
/// Environment variable naming where the static head's KV snapshots go.
pub const KV_DIR_ENV: &str = "PORFIRY_KV_DIR";
/// Environment variable naming a folder with the built-in `skills/` and `toolsets/` to use
/// instead of the copy embedded in the binary (the app's assets, a folder shipped beside the
/// binary, a checkout being edited).
pub const BUILTIN_DIR_ENV: &str = "PORFIRY_BUILTIN";
pub use porfiry_models::MODELS_DIR_ENV;

include!(concat!(env!("OUT_DIR"), "/builtin.rs"));

fn env_dir(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
}

pub use porfiry_models::user_data_dir;

/// The data directory: `$PORFIRY_DATA`, else [`user_data_dir`].
pub fn data_dir() -> PathBuf {
    env_dir(DATA_DIR_ENV).unwrap_or_else(user_data_dir)
}

/// Where the static head's KV snapshots (and the hash of a model file not in the manifest)
/// go: `$PORFIRY_KV_DIR`, else `kv/` in `data` (the data directory of the host).
pub fn kv_dir(data: &Path) -> PathBuf {
    kv_dir_with(env_dir(KV_DIR_ENV), data)
}

fn kv_dir_with(from_env: Option<PathBuf>, data: &Path) -> PathBuf {
    from_env.unwrap_or_else(|| data.join("kv"))
}

/// The models directory: `$PORFIRY_MODELS`, else `models/` in the user's data directory.
pub fn models_dir() -> PathBuf {
    porfiry_models::default_models_dir()
}

/// The folders of the built-in skills and toolsets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuiltinDirs {
    /// The built-in skills.
    pub skills: PathBuf,
    /// The built-in toolset declarations.
    pub toolsets: PathBuf,
    /// Where they come from.
    pub source: BuiltinSource,
}

/// Where the built-in skills and toolsets were found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BuiltinSource {
    /// `$PORFIRY_BUILTIN`.
    Env,
    /// The copy embedded in the binary, written to the data directory (or, when that is not
    /// writable, the temporary directory).
    Embedded,
}

/// The built-in skills and toolsets: `$PORFIRY_BUILTIN/{skills,toolsets}` when the variable is
/// set, else the copy embedded in this binary, written once under `data/builtin/<hash>/`
/// (the hash of the embedded files, so a new build never reads an old copy; a
/// `porfiry-builtin-<hash>` folder in the temporary directory when `data` is not writable).
///
/// # Errors
/// The I/O error when the embedded copy can be written nowhere.
pub fn builtin_dirs(data: &Path) -> io::Result<BuiltinDirs> {
    builtin_dirs_with(env_dir(BUILTIN_DIR_ENV), data)
}

fn builtin_dirs_with(from_env: Option<PathBuf>, data: &Path) -> io::Result<BuiltinDirs> {
    if let Some(dir) = from_env {
        return Ok(BuiltinDirs {
            skills: dir.join("skills"),
            toolsets: dir.join("toolsets"),
            source: BuiltinSource::Env,
        });
    }
    let hash = embedded_hash();
    let write = |root: &Path| -> io::Result<BuiltinDirs> {
        let dir = root.join(&hash);
        if !dir.join(".complete").is_file() {
            extract(&dir)?;
        }
        Ok(BuiltinDirs {
            skills: dir.join("skills"),
            toolsets: dir.join("toolsets"),
            source: BuiltinSource::Embedded,
        })
    };
    write(&data.join("builtin")).or_else(|_| write(&temp_fallback("porfiry-builtin")))
}

/// A folder named `name-<user>` in the temporary directory, for what must be written
/// somewhere when the data directory refuses it (the built-ins, the catalog's toolsets).
pub fn temp_fallback(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("{name}-{}", whoami_suffix()))
}

/// Bytes [`probe_writable`] writes: enough that a full disk refuses them (an empty file only
/// needs an inode, which a full disk usually still has).
const PROBE_BYTES: usize = 4096;

/// Whether files can be written in `dir`: creates it when missing, writes a
/// [`PROBE_BYTES`]-byte file and removes it.
///
/// # Errors
/// Why not (a read-only file system, a full disk, a file where the folder should be…).
pub fn probe_writable(dir: &Path) -> io::Result<()> {
    fs::create_dir_all(dir)?;
    let probe = dir.join(format!(".probe-{}", std::process::id()));
    let written = fs::write(&probe, [0u8; PROBE_BYTES]);
    let _ = fs::remove_file(&probe);
    written
}

/// A per-user suffix for folders in the shared temporary directory.
fn whoami_suffix() -> String {
    env_dir("USER")
        .or_else(|| env_dir("HOME"))
        .map(|p| content_hash(p.to_string_lossy().as_bytes())[..8].to_string())
        .unwrap_or_else(|| "shared".into())
}

/// A hash of the embedded files (names and contents).
fn embedded_hash() -> String {
    let mut all = Vec::new();
    for (folder, name, text) in BUILTIN_FILES {
        for part in [folder.as_bytes(), name.as_bytes(), text.as_bytes()] {
            all.extend_from_slice(&(part.len() as u64).to_le_bytes());
            all.extend_from_slice(part);
        }
    }
    content_hash(&all)[..16].to_string()
}

/// Writes the embedded files into `dir` (through a temporary sibling renamed into place, so
/// a reader never sees half a copy).
fn extract(dir: &Path) -> io::Result<()> {
    let parent = dir
        .parent()
        .ok_or_else(|| io::Error::other("no parent folder"))?;
    fs::create_dir_all(parent)?;
    let tmp = parent.join(format!(
        ".tmp-{}-{}",
        std::process::id(),
        dir.file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("builtin")
    ));
    let _ = fs::remove_dir_all(&tmp);
    let result = (|| {
        for folder in ["skills", "toolsets"] {
            fs::create_dir_all(tmp.join(folder))?;
        }
        for (folder, name, text) in BUILTIN_FILES {
            fs::write(tmp.join(folder).join(name), text)?;
        }
        fs::write(tmp.join(".complete"), b"")?;
        match fs::rename(&tmp, dir) {
            Ok(()) => Ok(()),
            // Another process put a complete copy there first.
            Err(_) if dir.join(".complete").is_file() => {
                let _ = fs::remove_dir_all(&tmp);
                Ok(())
            }
            Err(e) => Err(e),
        }
    })();
    if result.is_err() {
        let _ = fs::remove_dir_all(&tmp);
    }
    result
}

/// The names of the embedded built-in files, as `folder/name` (for reports and tests).
pub fn embedded_files() -> impl Iterator<Item = String> {
    BUILTIN_FILES
        .iter()
        .map(|(folder, name, _)| format!("{folder}/{name}"))
}

/// Lowercase hex SHA-256 of `bytes`.
fn content_hash(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_copy_is_written_once_and_complete() {
        let data = tempfile::tempdir().unwrap();
        let dirs = builtin_dirs_with(None, data.path()).unwrap();
        assert_eq!(dirs.source, BuiltinSource::Embedded);
        assert!(dirs.skills.starts_with(data.path()), "{dirs:?}");
        for f in embedded_files() {
            let (folder, name) = f.split_once('/').unwrap();
            let dir = if folder == "skills" {
                &dirs.skills
            } else {
                &dirs.toolsets
            };
            assert!(dir.join(name).is_file(), "{f} in {dirs:?}");
        }
        assert!(embedded_files().any(|f| f == "toolsets/notes.yaml"));
        // A second call reuses the copy.
        let marker = dirs.skills.join("user-edit.md");
        fs::write(&marker, "x").unwrap();
        let again = builtin_dirs_with(None, data.path()).unwrap();
        assert_eq!(again, dirs);
        assert!(marker.is_file());
    }

    #[test]
    fn an_unwritable_data_dir_falls_back_to_the_temporary_directory() {
        let dirs = builtin_dirs_with(None, Path::new("/proc/porfiry-no-such-dir")).unwrap();
        assert!(dirs.skills.starts_with(std::env::temp_dir()), "{dirs:?}");
        assert!(dirs.skills.is_dir());
    }

    #[test]
    fn kv_snapshots_default_to_the_data_dir() {
        assert_eq!(
            kv_dir_with(None, Path::new("/data/x")),
            Path::new("/data/x/kv")
        );
        assert_eq!(
            kv_dir_with(Some("/cache/kv".into()), Path::new("/data/x")),
            Path::new("/cache/kv")
        );
        let env = builtin_dirs_with(Some("/opt/p".into()), Path::new("/data/x")).unwrap();
        assert_eq!(env.source, BuiltinSource::Env);
        assert_eq!(env.skills, Path::new("/opt/p/skills"));
    }
}

/// Where the head's KV snapshots (and the model's cached hash) live for a host that has no
/// data directory of its own (the bridge's `create`): `$PORFIRY_KV_DIR`, else `kv/` beside
/// the model when that can be created, else `porfiry-kv` in the temporary directory. A
/// writable place matters on a phone: without one the model (250 MB) would be hashed again
/// at every start. Creates nothing but `kv/` itself, and only beside a model file that
/// exists: a mistyped model path leaves no folders behind.
pub fn kv_dir_beside(model: &Path) -> PathBuf {
    if let Some(dir) = env_dir(KV_DIR_ENV) {
        return dir;
    }
    let beside = model
        .parent()
        .filter(|_| model.is_file())
        .map(|p| p.join("kv"))
        .filter(|dir| (dir.is_dir() || fs::create_dir(dir).is_ok()) && writable(dir));
    beside.unwrap_or_else(|| std::env::temp_dir().join("porfiry-kv"))
}

/// Whether a file can be created (and removed) in `dir`.
fn writable(dir: &Path) -> bool {
    let probe = dir.join(format!(".probe-{}", std::process::id()));
    let ok = fs::write(&probe, b"").is_ok();
    let _ = fs::remove_file(&probe);
    ok
}

#[cfg(test)]
mod kv_beside_tests {
    #[test]
    fn snapshots_go_beside_the_model_or_to_a_writable_fallback() {
        let base = std::env::temp_dir().join(format!("porfiry-ffi-kv-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        std::fs::create_dir_all(&base).unwrap();
        let model = base.join("m.gguf");
        // No model file there: nothing is created beside it.
        assert_eq!(
            super::kv_dir_beside(&model),
            std::env::temp_dir().join("porfiry-kv")
        );
        assert!(!base.join("kv").exists());
        std::fs::write(&model, b"GGUF").unwrap();
        assert_eq!(super::kv_dir_beside(&model), base.join("kv"));
        // A missing folder is never created.
        let missing = base.join("no-such-dir").join("m.gguf");
        super::kv_dir_beside(&missing);
        assert!(!base.join("no-such-dir").exists());
        // A model in a place where nothing can be created: the temporary directory.
        let nowhere = std::path::Path::new("/proc/porfiry-no-such-dir/m.gguf");
        assert_eq!(
            super::kv_dir_beside(nowhere),
            std::env::temp_dir().join("porfiry-kv")
        );
        let _ = std::fs::remove_dir_all(&base);
    }
}
