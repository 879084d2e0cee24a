//! `porfiry scenario FILE...`: run scripted scenarios.

use std::path::PathBuf;
use std::process::ExitCode;

use porfiry_agent::scenario::{run_scenario_file, summary, ScenarioDefaults};

/// Arguments of `porfiry scenario`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Scenario files (YAML); a folder runs every `*.yaml` / `*.yml` in it.
    #[arg(value_name = "FILE", required = true)]
    files: Vec<PathBuf>,
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
    for file in super::yaml_files(args.files)? {
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
