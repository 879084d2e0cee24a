//! `porfiry scenario FILE...`: run scripted scenarios.

use std::path::PathBuf;
use std::process::ExitCode;

use porfiry_agent::scenario::{run_scenario_file, summary, ScenarioDefaults};

/// The timeout of the scenarios' stand-in tools (short: a hung one costs this per call).
const SCENARIO_TOOL_TIMEOUT: std::time::Duration = std::time::Duration::from_millis(300);

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
        // As the CLI times its host tools: a `tool_hangs` stand-in answers after this.
        timed_tools: Some(porfiry_runtime::timed_scenario_tools(SCENARIO_TOOL_TIMEOUT)),
        // A scenario with `catalog:` gets a fresh temporary one, as the runtime keeps it.
        catalog: Some(porfiry_runtime::scenario_catalog()),
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
