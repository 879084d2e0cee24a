//! `porfiry scenario FILE...`: run scripted scenarios.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use porfiry_agent::scenario::{run_scenario_file, summary, ScenarioDefaults};

/// Arguments of `porfiry scenario`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Scenario files (YAML); a folder runs every `*.yaml` / `*.yml` in it.
    #[arg(value_name = "FILE", required = true)]
    files: Vec<PathBuf>,
}

fn expand(paths: Vec<PathBuf>) -> anyhow::Result<Vec<PathBuf>> {
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

/// Run `porfiry scenario`: `PASS <name>` / `FAIL <name>: <why>` per file, then
/// `N passed, M failed`; exit 1 on any failure.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let builtin = super::builtin()?;
    let defaults = ScenarioDefaults {
        skills: vec![builtin.skills],
        toolsets: vec![builtin.toolsets],
    };
    let mut results = Vec::new();
    for file in expand(args.files)? {
        let r = run_scenario_file(&file, &defaults);
        println!("{r}");
        results.push(r);
    }
    println!("{}", summary(&results));
    Ok(if results.iter().all(|r| r.passed()) {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
