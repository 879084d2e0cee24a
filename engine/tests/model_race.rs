//! A model file that changes while it loads (RELIABILITY.md): a writer racing `Engine::load` on a
//! copy of the real SmolLM2 file in a temporary folder.
//!
//! - overwritten in place mid-load (mmap on, the default): refused with
//!   `EngineError::ModelChanged` (the weights would be a mix of two files);
//! - truncated at a sweep of moments with mmap off: every load is a typed error or a loaded
//!   model, never a crash; a model that loaded keeps answering after its file is cut (its
//!   weights were read into memory);
//! - replaced by a rename mid-load (how the model store installs a file): refused the same
//!   way, and the old engine is unaffected by a rename after its load.
//!
//! Not tested, because no check can catch it: with mmap on, a file truncated in place under
//! the mapping ends the process with SIGBUS (during the load or later) — see
//! `Engine::load`'s documentation and RELIABILITY.md.

mod common;

use std::fs::OpenOptions;
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::thread;
use std::time::{Duration, Instant};

use common::{model_path, SMOLLM2};
use porfiry_engine::{Engine, EngineError, EngineParams, GenerateConfig, GenerateRequest};
use porfiry_seam::Message;

fn params(mmap: bool) -> EngineParams {
    EngineParams {
        n_ctx: 512,
        mmap,
        snapshot_dir: None,
        ..EngineParams::default()
    }
}

/// A fresh copy of the SmolLM2 file in `dir`.
fn copy_model(dir: &Path) -> PathBuf {
    let to = dir.join("model.gguf");
    let _ = std::fs::remove_file(&to);
    std::fs::copy(model_path(SMOLLM2), &to).expect("copying the model");
    to
}

/// When the writer acts.
#[derive(Debug, Clone, Copy)]
enum When {
    /// This long after the load started.
    After(Duration),
    /// As soon as this process has the file open (the load's own `gguf::inspect` or
    /// llama.cpp's loader: both come after the load's first stamp), so the write lands
    /// inside the load however slow the machine is.
    Opened,
}

/// Whether some descriptor of this process is open on `path` itself (not a file deleted
/// or renamed away, which Linux shows with a suffix).
fn open_here(path: &Path) -> bool {
    let Ok(fds) = std::fs::read_dir("/proc/self/fd") else {
        return false;
    };
    fds.flatten()
        .any(|fd| std::fs::read_link(fd.path()).is_ok_and(|target| target == path))
}

/// Runs `write` on `path` (at `when`) on another thread while `Engine::load` runs here;
/// returns the load's result and whether the write ended before the load returned.
fn race(
    path: &Path,
    mmap: bool,
    when: When,
    write: impl FnOnce(&Path) + Send + 'static,
) -> (Result<Engine, EngineError>, bool) {
    let target = path.to_path_buf();
    let writer = thread::spawn(move || {
        match when {
            When::After(delay) => thread::sleep(delay),
            When::Opened => {
                let give_up = Instant::now() + Duration::from_secs(300);
                while !open_here(&target) && Instant::now() < give_up {
                    thread::sleep(Duration::from_micros(200));
                }
            }
        }
        write(&target);
        Instant::now()
    });
    let result = Engine::load(path, params(mmap));
    let returned = Instant::now();
    let written = writer.join().expect("the writer");
    (result, written < returned)
}

/// The engine answers a short request.
fn answers(engine: &Engine) {
    let request = GenerateRequest::new("s", "", vec![Message::user("Hi")])
        .with_config(GenerateConfig::greedy(4));
    let done = engine.generate(request, &mut |_| {}).expect("a generation");
    assert!(!done.tokens.is_empty(), "{done:?}");
}

/// 4 KiB of zeros written in place in the middle of the file (its size unchanged).
fn overwrite_middle(path: &Path) {
    let mut f = OpenOptions::new().write(true).open(path).unwrap();
    let len = f.metadata().unwrap().len();
    f.seek(SeekFrom::Start(len / 2)).unwrap();
    f.write_all(&[0u8; 4096]).unwrap();
    f.sync_data().unwrap();
}

#[test]
fn a_file_overwritten_while_it_loads_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = copy_model(dir.path());
    let (result, during) = race(&path, true, When::Opened, overwrite_middle);
    assert!(during, "the write ended after the load");
    match result {
        Err(EngineError::ModelChanged { path: p }) => assert_eq!(p, path),
        other => panic!(
            "expected ModelChanged, got {:?}",
            other.map(|e| e.info().clone())
        ),
    }
}

#[test]
fn a_file_replaced_by_a_rename_while_it_loads_is_refused_and_after_it_is_harmless() {
    let dir = tempfile::tempdir().unwrap();
    let path = copy_model(dir.path());
    let old = Engine::load(&path, params(true)).expect("the copy loads");
    // Replaced under a loaded engine: nothing happens to it (it maps the old inode).
    let spare = dir.path().join("spare.gguf");
    std::fs::copy(&path, &spare).unwrap();
    std::fs::rename(&spare, &path).unwrap();
    answers(&old);
    // Replaced while another load runs: refused.
    std::fs::copy(&path, &spare).unwrap();
    let renamed = spare.clone();
    let (result, during) = race(&path, true, When::Opened, move |p| {
        std::fs::rename(&renamed, p).unwrap()
    });
    assert!(during, "the rename came after the load");
    assert!(
        matches!(result, Err(EngineError::ModelChanged { .. })),
        "{:?}",
        result.map(|e| e.info().clone())
    );
    answers(&old);
}

#[test]
fn a_file_truncated_while_it_loads_without_mmap_is_a_typed_error() {
    let dir = tempfile::tempdir().unwrap();
    let mut path = copy_model(dir.path());
    let started = Instant::now();
    drop(Engine::load(&path, params(false)).expect("the untouched copy loads"));
    let load = started.elapsed();
    let mut outcomes = Vec::new();
    // Inside the load for sure, then from before the header is read to past the load's end.
    let mut moments = vec![When::Opened];
    moments.extend([0, 1, 2, 4, 6].map(|quarter| When::After(load * quarter / 4)));
    for when in moments {
        let (result, during) = race(&path, false, when, |p| {
            let f = OpenOptions::new().write(true).open(p).unwrap();
            let len = f.metadata().unwrap().len();
            f.set_len(len / 2).unwrap();
        });
        let outcome = match &result {
            Ok(engine) => {
                assert!(!during, "a load that saw its file cut in half succeeded");
                // Its weights are in memory: the cut file does not matter.
                answers(engine);
                "loaded".to_string()
            }
            Err(EngineError::ModelChanged { .. }) => "ModelChanged".into(),
            Err(EngineError::InvalidModel(e)) => format!("InvalidModel ({e})"),
            Err(EngineError::Load { reason, .. }) => format!("Load ({reason})"),
            Err(other) => panic!("an untyped refusal at {when:?}: {other}"),
        };
        eprintln!("truncated at {when:?} (an untouched load took {load:?}): {outcome}");
        outcomes.push(outcome);
        drop(result);
        path = copy_model(dir.path());
    }
    assert!(
        outcomes.iter().any(|o| o != "loaded"),
        "no truncation landed inside a load: {outcomes:?}"
    );
}
