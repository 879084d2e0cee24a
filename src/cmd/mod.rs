//! One module per subcommand: `Args` (clap derive) + `run(args) -> anyhow::Result<ExitCode>`.

use std::path::PathBuf;

pub mod ask;
pub mod bench;
pub mod bench_head;
pub mod chat;
pub mod models;
pub mod prompt;
pub mod scenario;
pub mod skills;

/// A built-in folder of this checkout (`skills`, `toolsets`).
pub fn builtin_dir(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(name)
}

/// The given folders, or the built-in one when none were given.
pub fn dirs_or_builtin(dirs: Vec<PathBuf>, builtin: &str) -> Vec<PathBuf> {
    if dirs.is_empty() {
        vec![builtin_dir(builtin)]
    } else {
        dirs
    }
}
