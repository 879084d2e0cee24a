//! Scenarios that need a host: `runtime/tests/scenarios/*.yaml` run through the agent's
//! scenario runner with the runtime's timed tools ([`porfiry_runtime::timed_scenario_tools`]),
//! as the CLI and the bridge run their host tools.

use std::path::{Path, PathBuf};
use std::time::Duration;

use porfiry_agent::scenario::{run_scenario_file, summary, ScenarioDefaults};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[test]
fn host_scenarios_pass_with_timed_tools() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no scenarios in {}", dir.display());
    let defaults = ScenarioDefaults {
        skills: vec![root().join("skills")],
        toolsets: vec![root().join("toolsets")],
        timed_tools: Some(porfiry_runtime::timed_scenario_tools(
            Duration::from_millis(300),
        )),
        catalog: Some(porfiry_runtime::scenario_catalog()),
    };
    let results: Vec<_> = files
        .iter()
        .map(|f| run_scenario_file(f, &defaults))
        .collect();
    let report: Vec<String> = results.iter().map(|r| r.to_string()).collect();
    assert!(
        results.iter().all(|r| r.passed()),
        "{}\n{}",
        report.join("\n"),
        summary(&results)
    );
}

#[test]
fn a_hung_tool_needs_a_timed_host() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios/bug_01_hung_tool.yaml");
    let defaults = ScenarioDefaults {
        skills: vec![root().join("skills")],
        toolsets: vec![root().join("toolsets")],
        timed_tools: None,
        catalog: None,
    };
    let r = run_scenario_file(&file, &defaults).to_string();
    assert!(r.contains("needs a host that times its tools"), "{r}");
}

#[test]
fn a_catalog_scenario_needs_a_host_with_a_catalog() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/scenarios/catalog_protocol_lifecycle.yaml");
    let defaults = ScenarioDefaults {
        skills: vec![root().join("skills")],
        toolsets: vec![root().join("toolsets")],
        timed_tools: None,
        catalog: None,
    };
    let r = run_scenario_file(&file, &defaults).to_string();
    assert!(r.contains("`catalog` needs a host with a catalog"), "{r}");
}

/// The catalog keys of a scenario fail when the catalog says otherwise.
#[test]
fn catalog_expectations_fail_when_they_do_not_hold() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios/fixtures/catalog");
    let defaults = ScenarioDefaults {
        skills: vec![root().join("skills")],
        toolsets: vec![root().join("toolsets")],
        timed_tools: None,
        catalog: Some(porfiry_runtime::scenario_catalog()),
    };
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "expect: {run: {status: running}}",
            "the run is none, expected running",
        ),
        (
            "expect: {proposals: {pending: 1}}",
            "0 pending proposal(s), expected 1",
        ),
        (
            "decide: {proposal: last, action: accept}",
            "the decision was refused: there is no proposal",
        ),
        (
            "decide: {proposal: \"#7\", action: reject, refused: \"no proposal\"}",
            "",
        ),
        (
            "expect: {run_reminders: 1}",
            "0 run reminder(s), expected 1",
        ),
        ("expect: {notes: 2}", "0 host note(s), expected 2"),
    ];
    for (i, (step, want)) in cases.iter().enumerate() {
        let file = dir.path().join(format!("case{i}.yaml"));
        let text = format!(
            "name: case {i}\ncatalog: [{}]\nsteps:\n  - user: \"Привет\"\n    model: [\"Привет.\"]\n  - {step}\n",
            fixtures.display()
        );
        std::fs::write(&file, text).unwrap();
        let r = run_scenario_file(&file, &defaults);
        if want.is_empty() {
            assert!(r.passed(), "{step}: {r}");
        } else {
            assert!(!r.passed() && r.to_string().contains(want), "{step}: {r}");
        }
    }
}
