//! Runs every scenario under `tests/scenarios/` through the library's scenario runner, and
//! checks that the runner itself reports failures.

use std::fs;
use std::path::{Path, PathBuf};

use porfiry_agent::scenario::{run_scenario_file, summary, ScenarioDefaults};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn defaults() -> ScenarioDefaults {
    ScenarioDefaults {
        skills: vec![root().join("skills")],
        toolsets: vec![root().join("toolsets")],
        timed_tools: None,
        catalog: None,
    }
}

fn scenario_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios");
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    files
}

#[test]
fn shipped_scenarios_pass() {
    let files = scenario_files();
    assert!(
        files.len() >= 8,
        "expected the shipped scenarios, found {files:?}"
    );
    let results: Vec<_> = files
        .iter()
        .map(|f| run_scenario_file(f, &defaults()))
        .collect();
    let report: Vec<String> = results.iter().map(|r| r.to_string()).collect();
    assert!(
        results.iter().all(|r| r.passed()),
        "{}\n{}",
        report.join("\n"),
        summary(&results)
    );
}

fn run_inline(tag: &str, yaml: &str) -> String {
    let dir = std::env::temp_dir().join(format!("porfiry-scn-{tag}-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let file = dir.join("s.yaml");
    fs::write(&file, yaml).unwrap();
    let r = run_scenario_file(&file, &defaults()).to_string();
    fs::remove_dir_all(&dir).ok();
    r
}

#[test]
fn the_runner_reports_failures() {
    // (scenario, expected line prefix and reason fragment)
    let table: &[(&str, &str, &str)] = &[
        (
            "name: ok\nsteps:\n  - user: hi\n    model: [\"Привет\"]\n  - expect: {reply_contains: [Привет]}\n",
            "PASS ok",
            "",
        ),
        (
            "name: wrong reply\nsteps:\n  - user: hi\n    model: [\"Привет\"]\n  - expect: {reply_contains: [Пока]}\n",
            "FAIL wrong reply: step 2: ",
            "reply lacks \"Пока\"; it is \"Привет\"",
        ),
        (
            "name: unused\nsteps:\n  - user: hi\n    model: [\"a\", \"b\"]\n",
            "FAIL unused: step 1: ",
            "1 of 2 model output(s) left unused",
        ),
        (
            "name: needs more\nsteps:\n  - user: hi\n    model: [\"TOOL_CALL: get_current_time\"]\n",
            "FAIL needs more: step 1: ",
            "needed more than the 1 model output(s)",
        ),
        (
            "name: active\nsteps:\n  - expect: {active: [media]}\n",
            "FAIL active: step 1: ",
            "active toolsets are []",
        ),
        (
            "name: executed\nsteps:\n  - user: hi\n    model: [\"x\"]\n  - expect: {executed: [media_search]}\n",
            "FAIL executed: ",
            "executed [], expected [\"media_search\"]",
        ),
        (
            "name: typo\nsteps:\n  - expect: {reply_contain: [x]}\n",
            "FAIL ",
            "unknown field",
        ),
        (
            "name: bad advance\nsteps:\n  - advance: soon\n",
            "FAIL bad advance: step 1: ",
            "bad duration",
        ),
        (
            "name: missing dir\nskills: [nope]\nsteps: []\n",
            "FAIL missing dir: loading failed",
            "cannot read",
        ),
        (
            "name: refused\ncontext: 40\nsteps:\n  - user: hi\n    model: []\n",
            "FAIL refused: step 1: ",
            "model error: сообщение слишком длинное",
        ),
        (
            "name: refused as expected\ncontext: 40\nsteps:\n  - user: hi\n    expect: {stop: model_error}\n",
            "PASS refused as expected",
            "",
        ),
        (
            "name: request\nsteps:\n  - user: hi\n    model: [\"Привет\"]\n  - expect: {request_contains: [Пока]}\n",
            "FAIL request: step 2: ",
            "request lacks \"Пока\"",
        ),
        (
            "name: compactions\ncontext: 300\nsteps:\n  - user: hi\n    model: [\"Привет\"]\n    expect: {compactions: 1}\n",
            "FAIL compactions: step 1: ",
            "compacted 0 time(s), expected 1",
        ),
        (
            "name: as in\nsteps:\n  - user: hi\n    model: [\"a\"]\n  - expect: {request_as_in_step: 2}\n",
            "FAIL as in: step 2: ",
            "step 2 is not an earlier `user` step",
        ),
    ];
    for (i, (yaml, prefix, reason)) in table.iter().enumerate() {
        let line = run_inline(&i.to_string(), yaml);
        assert!(!line.contains('\n'), "one line per scenario: {line}");
        assert!(line.starts_with(prefix), "{line}");
        assert!(line.contains(reason), "{line}");
    }
}
