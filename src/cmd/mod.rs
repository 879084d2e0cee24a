//! One module per subcommand: `Args` (clap derive) + `run(args) -> anyhow::Result<ExitCode>`.

use std::path::PathBuf;

use anyhow::Context;

pub mod ask;
pub mod bench;
pub mod bench_cold;
pub mod bench_contention;
pub mod bench_voice;
pub mod catalog;
pub mod chat;
pub mod eval;
pub mod models;
pub mod prompt;
pub mod scenario;
pub mod skills;
pub mod stand_ins;
pub mod toolsets;

/// The built-in skill and toolset folders (embedded in the binary, or `$PORFIRY_BUILTIN`).
pub fn builtin() -> anyhow::Result<porfiry_runtime::paths::BuiltinDirs> {
    let data = porfiry_runtime::paths::data_dir();
    porfiry_runtime::paths::builtin_dirs(&data)
        .map_err(|e| anyhow::anyhow!("writing the built-in skills under {}: {e}", data.display()))
}

/// The built-in folder `name` (`skills` or `toolsets`) followed by the user's `dirs`, or
/// only `dirs` when `no_builtin` (an empty list with neither).
pub fn with_builtin(
    dirs: Vec<PathBuf>,
    name: &str,
    no_builtin: bool,
) -> anyhow::Result<Vec<PathBuf>> {
    let mut all = Vec::new();
    if !no_builtin {
        let b = builtin()?;
        all.push(if name == "skills" {
            b.skills
        } else {
            b.toolsets
        });
    }
    all.extend(dirs);
    Ok(all)
}

/// The given paths with each folder replaced by its `*.yaml` / `*.yml` files, sorted (the
/// `FILE...` arguments of `scenario` and `eval`).
pub fn yaml_files(paths: Vec<PathBuf>) -> anyhow::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut inner: Vec<PathBuf> = std::fs::read_dir(&p)
                .with_context(|| format!("reading {}", p.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| {
                    f.is_file()
                        && f.extension()
                            .and_then(|e| e.to_str())
                            .is_some_and(|e| e == "yaml" || e == "yml")
                })
                .collect();
            inner.sort();
            out.extend(inner);
        } else {
            out.push(p);
        }
    }
    Ok(out)
}
