//! Hostile skill and toolset folders (RELIABILITY.md "Hostile files"): invalid
//! UTF-8, NUL bytes, deep YAML nesting, alias bombs, a 100 MB file, symlink loops, a FIFO,
//! a device, a folder where a file belongs. Each bad file is one diagnostic, the good file
//! beside it still loads, nothing hangs, and memory stays bounded.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use porfiry_agent::{Diagnostic, Loaded, SkillRegistry, ToolsetRegistry};

const GOOD_SKILL: &str = "---\nname: good\ndescription: the one that loads\n---\nDo it.\n";
const GOOD_SET: &str = "name: good\ndescription: the one that loads\ntools:\n  - name: good_run\n    description: runs\n";

/// A fresh folder for one test.
fn folder(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("porfiry-hostile-{tag}-{}", std::process::id()));
    fs::remove_dir_all(&d).ok();
    fs::create_dir_all(&d).expect("temp folder");
    d
}

/// Runs `load` on another thread; a load still running after 20 s is a hang.
fn within_time<T: Send + 'static>(load: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(load());
    });
    rx.recv_timeout(Duration::from_secs(20))
        .expect("loading hung (still running after 20 s)")
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

fn lines(diagnostics: &[Diagnostic]) -> Vec<String> {
    diagnostics.iter().map(|d| d.to_string()).collect()
}

/// Exactly one diagnostic names `file`, and it contains `says`.
fn one_diagnostic(diagnostics: &[Diagnostic], file: &str, says: &str) {
    let about: Vec<String> = diagnostics
        .iter()
        .filter(|d| d.path.to_string_lossy().contains(file))
        .map(|d| d.to_string())
        .collect();
    assert_eq!(about.len(), 1, "{file}: {:?}", lines(diagnostics));
    assert!(about[0].contains(says), "{file}: {about:?}");
}

fn skills(dir: &Path) -> Loaded<SkillRegistry> {
    let dir = dir.to_path_buf();
    within_time(move || SkillRegistry::load(&[dir]))
}

fn toolsets(dir: &Path) -> Loaded<ToolsetRegistry> {
    let dir = dir.to_path_buf();
    within_time(move || ToolsetRegistry::load(&[dir]))
}

/// Front matter with `depth` nested flow sequences.
fn deep(depth: usize) -> String {
    format!("{}{}", "[".repeat(depth), "]".repeat(depth))
}

/// The classic alias bomb: nine levels of ten references each (10^9 leaves).
fn laughs() -> String {
    let mut y = String::from("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for i in 1..10 {
        let refs = vec![format!("*a{}", i - 1); 10].join(", ");
        y.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
    }
    y
}

#[test]
fn bad_skill_files_are_one_diagnostic_each_and_the_good_one_loads() {
    let d = folder("skills");
    fs::write(d.join("good.md"), GOOD_SKILL).unwrap();
    fs::write(
        d.join("latin1.md"),
        b"---\nname: caf\xe9\ndescription: x\n---\nbody\n",
    )
    .unwrap();
    fs::write(
        d.join("nul.md"),
        "---\nname: n\0ul\ndescription: x\n---\nbody\n",
    )
    .unwrap();
    fs::write(
        d.join("deep.md"),
        format!(
            "---\nname: deep\ndescription: x\nextra: {}\n---\nbody\n",
            deep(100_000)
        ),
    )
    .unwrap();
    fs::write(
        d.join("laughs.md"),
        format!("---\nname: laughs\ndescription: x\n{}---\nbody\n", laughs()),
    )
    .unwrap();
    // A folder is a skill folder (its SKILL.md); without one it is not a skill at all.
    fs::create_dir_all(d.join("folder.md")).unwrap();
    let start = Instant::now();
    let loaded = skills(&d);
    let took = start.elapsed();
    assert_eq!(
        loaded.value.names(),
        ["good"],
        "{:?}",
        lines(&loaded.diagnostics)
    );
    one_diagnostic(&loaded.diagnostics, "latin1.md", "not UTF-8");
    one_diagnostic(&loaded.diagnostics, "nul.md", "YAML error");
    one_diagnostic(&loaded.diagnostics, "deep.md", "YAML error");
    one_diagnostic(&loaded.diagnostics, "laughs.md", "YAML error");
    assert_eq!(
        loaded.diagnostics.len(),
        4,
        "{:?}",
        lines(&loaded.diagnostics)
    );
    assert!(took < Duration::from_secs(10), "took {took:?}");
    fs::remove_dir_all(&d).ok();
}

#[test]
fn bad_toolset_files_are_one_diagnostic_each_and_the_good_one_loads() {
    let d = folder("toolsets");
    fs::write(d.join("good.yaml"), GOOD_SET).unwrap();
    fs::write(d.join("latin1.yaml"), b"name: caf\xe9\n").unwrap();
    fs::write(d.join("nul.yaml"), "name: n\0ul\ntools: []\n").unwrap();
    fs::write(
        d.join("deep.yaml"),
        format!("name: deep\nx: {}\n", deep(100_000)),
    )
    .unwrap();
    fs::write(d.join("laughs.yaml"), format!("name: laughs\n{}", laughs())).unwrap();
    let loaded = toolsets(&d);
    assert_eq!(
        loaded.value.names(),
        ["good"],
        "{:?}",
        lines(&loaded.diagnostics)
    );
    one_diagnostic(&loaded.diagnostics, "latin1.yaml", "not UTF-8");
    one_diagnostic(&loaded.diagnostics, "nul.yaml", "YAML error");
    one_diagnostic(&loaded.diagnostics, "deep.yaml", "YAML error");
    one_diagnostic(&loaded.diagnostics, "laughs.yaml", "YAML error");
    fs::remove_dir_all(&d).ok();
}

/// A 100 MB skill (valid front matter over 100 MB of body) and a 100 MB toolset are
/// refused by their size before they are read: a diagnostic each, peak memory grows by
/// less than 32 MiB.
#[test]
fn files_of_100_mb_are_refused_without_reading_them() {
    let d = folder("big");
    fs::write(d.join("good.md"), GOOD_SKILL).unwrap();
    fs::write(d.join("good.yaml"), GOOD_SET).unwrap();
    for name in ["big.md", "big.yaml"] {
        let path = d.join(name);
        fs::write(&path, "---\nname: big\ndescription: x\n---\n").unwrap();
        // Sparse: 100 MB of NUL bytes, valid UTF-8, without writing them.
        fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .and_then(|f| f.set_len(100 << 20))
            .unwrap();
    }
    let before = peak_rss_kib();
    let sk = skills(&d);
    let ts = toolsets(&d);
    let grown = peak_rss_kib().saturating_sub(before);
    assert_eq!(sk.value.names(), ["good"], "{:?}", lines(&sk.diagnostics));
    assert_eq!(ts.value.names(), ["good"], "{:?}", lines(&ts.diagnostics));
    one_diagnostic(&sk.diagnostics, "big.md", "too large");
    one_diagnostic(&ts.diagnostics, "big.yaml", "too large");
    assert!(grown < 32 << 10, "peak memory grew by {grown} KiB");
    fs::remove_dir_all(&d).ok();
}

/// Symlink loops, a dangling link, a FIFO (reading it would block forever) and a device
/// (`/dev/zero` never ends): a diagnostic each, nothing hangs, the good file loads.
#[cfg(unix)]
#[test]
fn links_fifos_and_devices_are_diagnostics_not_hangs() {
    use std::os::unix::fs::symlink;
    let d = folder("links");
    fs::write(d.join("good.md"), GOOD_SKILL).unwrap();
    fs::write(d.join("good.yaml"), GOOD_SET).unwrap();
    for ext in ["md", "yaml"] {
        symlink(
            d.join(format!("loop_b.{ext}")),
            d.join(format!("loop_a.{ext}")),
        )
        .unwrap();
        symlink(
            d.join(format!("loop_a.{ext}")),
            d.join(format!("loop_b.{ext}")),
        )
        .unwrap();
        symlink(d.join("nowhere"), d.join(format!("dangling.{ext}"))).unwrap();
        symlink("/dev/zero", d.join(format!("zero.{ext}"))).unwrap();
        let fifo = d.join(format!("fifo.{ext}"));
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo");
        assert!(made.success());
    }
    // A folder that contains itself: `self/SKILL.md` is `./SKILL.md`, absent.
    symlink(&d, d.join("self")).unwrap();
    let sk = skills(&d);
    let ts = toolsets(&d);
    assert_eq!(sk.value.names(), ["good"], "{:?}", lines(&sk.diagnostics));
    assert_eq!(ts.value.names(), ["good"], "{:?}", lines(&ts.diagnostics));
    for (loaded, ext) in [(&sk.diagnostics, "md"), (&ts.diagnostics, "yaml")] {
        for name in ["loop_a", "loop_b", "dangling"] {
            one_diagnostic(loaded, &format!("{name}.{ext}"), "cannot read");
        }
        for name in ["zero", "fifo"] {
            one_diagnostic(loaded, &format!("{name}.{ext}"), "not a regular file");
        }
    }
    fs::remove_dir_all(&d).ok();
}
