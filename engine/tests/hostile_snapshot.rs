//! Hostile KV snapshot files (RELIABILITY.md "Hostile files"): where the engine
//! looks for a head's snapshot there is a FIFO, a device, a symlink loop, a folder, 100 MB
//! of garbage, a header with NUL bytes or invalid UTF-8, a stale header over 100 MB. Each
//! is a typed [`SnapshotError`] (the engine then rebuilds the head), nothing hangs, and
//! memory stays bounded: a file is read only once its header says it is ours and its size
//! is the one the header declares.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use porfiry_engine::snapshot::{self, SnapshotKey, LLAMA_CPP};
use porfiry_engine::{KvType, SnapshotError};

const TOKENS: &[i32] = &[2, 105, 2364, 107];

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

fn temp(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("porfiry-snap-{tag}-{}", std::process::id()));
    fs::remove_dir_all(&d).ok();
    fs::create_dir_all(&d).expect("temp folder");
    d
}

/// Peak resident memory of this process so far, in KiB (Linux).
fn peak_rss_kib() -> u64 {
    fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

/// `snapshot::load` on another thread; still running after 20 s is a hang.
fn load_within_time(dir: &Path) -> Result<Vec<u8>, SnapshotError> {
    let (tx, rx) = mpsc::channel();
    let dir = dir.to_path_buf();
    std::thread::spawn(move || {
        let _ = tx.send(snapshot::load(&dir, &key(), TOKENS));
    });
    rx.recv_timeout(Duration::from_secs(20))
        .expect("loading the snapshot hung (still running after 20 s)")
}

/// Replaces the snapshot file with what `make` puts at its path, loads, cleans up.
fn with_file(dir: &Path, make: impl FnOnce(&Path)) -> Result<Vec<u8>, SnapshotError> {
    let path = dir.join(snapshot::file_name(&key(), TOKENS));
    let _ = fs::remove_file(&path);
    let _ = fs::remove_dir_all(&path);
    make(&path);
    let got = load_within_time(dir);
    let _ = fs::remove_file(&path);
    let _ = fs::remove_dir_all(&path);
    got
}

#[test]
fn a_saved_snapshot_loads_back() {
    let dir = temp("ok");
    snapshot::save(&dir, &key(), TOKENS, b"state").expect("save");
    assert_eq!(load_within_time(&dir).expect("load"), b"state");
    fs::remove_dir_all(&dir).ok();
}

#[cfg(unix)]
#[test]
fn fifos_devices_links_and_folders_are_typed_errors_not_hangs() {
    use std::os::unix::fs::symlink;
    let dir = temp("special");
    let fifo = with_file(&dir, |p| {
        let made = std::process::Command::new("mkfifo")
            .arg(p)
            .status()
            .expect("mkfifo");
        assert!(made.success());
    });
    assert!(matches!(fifo, Err(SnapshotError::Format(_))), "{fifo:?}");
    let zero = with_file(&dir, |p| symlink("/dev/zero", p).unwrap());
    assert!(matches!(zero, Err(SnapshotError::Format(_))), "{zero:?}");
    let looped = with_file(&dir, |p| {
        let other = p.with_extension("other");
        symlink(&other, p).unwrap();
        symlink(p, &other).unwrap();
    });
    assert!(
        matches!(looped, Err(SnapshotError::Io { .. })),
        "{looped:?}"
    );
    let folder = with_file(&dir, |p| fs::create_dir_all(p).unwrap());
    assert!(
        matches!(folder, Err(SnapshotError::Format(_))),
        "{folder:?}"
    );
    fs::remove_dir_all(&dir).ok();
}

#[test]
fn damaged_headers_are_typed_errors() {
    let dir = temp("headers");
    let good = snapshot::encode(&key(), TOKENS, b"state");
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty", Vec::new()),
        ("bad magic", b"PORFKVH\x02\0\0\0\0".to_vec()),
        ("header length past the end", {
            let mut b = good.clone();
            b[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
            b
        }),
        ("NUL in the header", {
            let mut b = good.clone();
            b[14] = 0;
            b
        }),
        ("invalid UTF-8 in the header", {
            let mut b = good.clone();
            b[14] = 0xff;
            b
        }),
        ("truncated payload", good[..good.len() - 1].to_vec()),
        ("padded", [good.as_slice(), b"x"].concat()),
        ("flipped payload", {
            let mut b = good.clone();
            let last = b.len() - 1;
            b[last] ^= 1;
            b
        }),
    ];
    for (what, bytes) in cases {
        let got = with_file(&dir, |p| fs::write(p, &bytes).unwrap());
        assert!(
            matches!(
                got,
                Err(SnapshotError::Format(_)
                    | SnapshotError::Length(_)
                    | SnapshotError::Checksum(_))
            ),
            "{what}: {got:?}"
        );
    }
    fs::remove_dir_all(&dir).ok();
}

/// 100 MB of garbage, and a stale header over 100 MB of payload: refused from the header
/// and the file's size, without reading the 100 MB (peak memory +16 MiB at most).
#[test]
fn files_of_100_mb_are_refused_without_reading_them() {
    let dir = temp("big");
    let big = 100u64 << 20;
    let before = peak_rss_kib();
    let garbage = with_file(&dir, |p| {
        fs::write(p, b"PORFKVH\x01\x10\0\0\0{\"key\": 12345}").unwrap();
        fs::OpenOptions::new()
            .write(true)
            .open(p)
            .and_then(|f| f.set_len(big))
            .unwrap();
    });
    assert!(
        matches!(garbage, Err(SnapshotError::Format(_))),
        "{garbage:?}"
    );
    let mut other = key();
    other.model_sha256 = "cd".repeat(32);
    let stale = with_file(&dir, |p| {
        // A real header of another model, its payload of 100 MB (sparse).
        let header = snapshot::encode(&other, TOKENS, b"");
        fs::write(p, &header).unwrap();
        fs::OpenOptions::new()
            .write(true)
            .open(p)
            .and_then(|f| f.set_len(big))
            .unwrap();
    });
    assert!(
        matches!(
            stale,
            Err(SnapshotError::Stale {
                field: "model file"
            })
        ),
        "{stale:?}"
    );
    let ours_but_long = with_file(&dir, |p| {
        let header = snapshot::encode(&key(), TOKENS, b"state");
        fs::write(p, &header).unwrap();
        fs::OpenOptions::new()
            .write(true)
            .open(p)
            .and_then(|f| f.set_len(big))
            .unwrap();
    });
    assert!(
        matches!(ours_but_long, Err(SnapshotError::Length(_))),
        "{ours_but_long:?}"
    );
    let grown = peak_rss_kib().saturating_sub(before);
    assert!(grown < 16 << 10, "peak memory grew by {grown} KiB");
    fs::remove_dir_all(&dir).ok();
}
