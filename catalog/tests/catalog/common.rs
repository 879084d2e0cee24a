//! Helpers shared by the tests: a catalog in a temporary folder with a manual clock, and
//! small documents.

use std::path::PathBuf;
use std::sync::Arc;

use porfiry_catalog::{Catalog, ManualClock, Timestamp};

/// A catalog file in its own temporary folder, timed by a manual clock.
pub struct Fixture {
    pub dir: tempfile::TempDir,
    pub catalog: Catalog,
    pub clock: Arc<ManualClock>,
}

impl Fixture {
    pub fn new() -> Fixture {
        let dir = tempfile::tempdir().expect("temp dir");
        let clock = Arc::new(ManualClock::new(Timestamp(1_000)));
        let catalog =
            Catalog::open_with_clock(dir.path().join("catalog.db"), clock.clone()).expect("open");
        Fixture {
            dir,
            catalog,
            clock,
        }
    }

    pub fn db(&self) -> PathBuf {
        self.dir.path().join("catalog.db")
    }

    /// A folder inside the fixture's, with these files (name → text).
    pub fn folder(&self, name: &str, files: &[(&str, &str)]) -> PathBuf {
        let dir = self.dir.path().join(name);
        std::fs::create_dir_all(&dir).expect("folder");
        for (file, text) in files {
            let path = dir.join(file);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).expect("sub folder");
            }
            std::fs::write(path, text).expect("write");
        }
        dir
    }

    /// A raw connection to the same file (to look under the API or to break rules).
    pub fn raw(&self) -> rusqlite::Connection {
        rusqlite::Connection::open(self.db()).expect("raw open")
    }
}

pub fn skill(name: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: how to {name}\n---\n{body}\n")
}

pub fn skill_with(name: &str, front: &str) -> String {
    format!("---\nname: {name}\n{front}\n---\nInstructions for {name}.\n")
}

pub fn protocol(name: &str, steps: &[&str]) -> String {
    let steps: Vec<String> = steps.iter().map(|s| format!("  - {s}\n")).collect();
    format!(
        "---\nkind: protocol\nname: {name}\ndescription: the {name} protocol\nsteps:\n{}post_checks: [all checked]\non_deviation: stop and report\non_blocked: say what blocked it\non_already_done: check and mark the step\n---\nContext of {name}.\n",
        steps.concat()
    )
}
