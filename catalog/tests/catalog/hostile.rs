//! Hostile files in an imported folder (RELIABILITY.md "Hostile files"): invalid
//! UTF-8, NUL bytes, an alias bomb, deep nesting, symlink loops, a dangling link, a FIFO
//! (opening it would block forever) and a device (`/dev/zero` never ends). Each is one
//! reported problem, the good document beside them is imported, nothing hangs.
//! (Oversized files, alias bombs and nesting in `Document::parse` itself: `documents.rs`.)

use std::sync::mpsc;
use std::time::Duration;

use porfiry_catalog::{DocumentError, ImportError, ImportReport};

use crate::common::{skill, Fixture};

/// Imports `dir` on another thread; an import still running after 20 s is a hang.
fn import_within_time(f: Fixture, dir: std::path::PathBuf) -> (Fixture, ImportReport) {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut f = f;
        let report = f.catalog.import_shared(&[&dir]).expect("import");
        let _ = tx.send((f, report));
    });
    rx.recv_timeout(Duration::from_secs(20))
        .expect("the import hung (still running after 20 s)")
}

#[cfg(unix)]
#[test]
fn hostile_files_are_one_problem_each_and_the_good_document_imports() {
    use std::os::unix::fs::symlink;
    let f = Fixture::new();
    let laughs = {
        let mut y = String::from("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
        for i in 1..10 {
            let refs = vec![format!("*a{}", i - 1); 10].join(", ");
            y.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
        }
        y
    };
    let deep = format!("{}{}", "[".repeat(50_000), "]".repeat(50_000));
    let dir = f.folder(
        "skills",
        &[
            ("good.md", &skill("good", "x")),
            ("nul.md", "---\nname: n\0ul\ndescription: x\n---\nbody\n"),
            (
                "laughs.md",
                &format!("---\nname: laughs\ndescription: x\n{laughs}---\nbody\n"),
            ),
            (
                "deep.md",
                &format!("---\nname: deep\ndescription: x\nx: {deep}\n---\nbody\n"),
            ),
        ],
    );
    std::fs::write(dir.join("latin1.md"), b"---\nname: caf\xe9\n---\nbody\n").unwrap();
    symlink(dir.join("loop_b.md"), dir.join("loop_a.md")).unwrap();
    symlink(dir.join("loop_a.md"), dir.join("loop_b.md")).unwrap();
    symlink(dir.join("nowhere"), dir.join("dangling.md")).unwrap();
    symlink("/dev/zero", dir.join("zero.md")).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(dir.join("fifo.md"))
        .status()
        .expect("mkfifo");
    assert!(made.success());

    let (f, report) = import_within_time(f, dir.clone());
    let names: Vec<&str> = report.added.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["good"], "{:?}", report.problems);
    let problem = |file: &str| -> Vec<&ImportError> {
        report
            .problems
            .iter()
            .filter(|p| p.path == dir.join(file))
            .map(|p| &p.error)
            .collect()
    };
    assert_eq!(
        problem("latin1.md"),
        [&ImportError::Document(DocumentError::NotUtf8)]
    );
    for file in ["nul.md", "laughs.md", "deep.md"] {
        let found = problem(file);
        assert!(
            matches!(found.as_slice(), [ImportError::Document(_)]),
            "{file}: {found:?}"
        );
    }
    for file in [
        "loop_a.md",
        "loop_b.md",
        "dangling.md",
        "zero.md",
        "fifo.md",
    ] {
        let found = problem(file);
        assert!(
            matches!(found.as_slice(), [ImportError::Io(_)]),
            "{file}: {found:?}"
        );
    }
    assert_eq!(report.problems.len(), 9, "{:?}", report.problems);
    assert!(f.catalog.find("good", None).is_ok());
}
