//! `porfiry toolsets check DIR...` (no model: the repository's folders pass, a broken file
//! fails with its reason, warnings appear) and `porfiry chat --stand-ins FILE` (a bad file is
//! an error naming it before any model loads; on the real default model a host set's tools
//! answer with their stand-ins). The format: `docs/toolsets.md`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use porfiry_models::ModelStore;

fn porfiry() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_porfiry"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"))
        .env(
            "PORFIRY_DATA",
            std::env::temp_dir().join("porfiry-cli-toolsets-test-data"),
        )
        .stdin(Stdio::null());
    c
}

fn run(args: &[&str]) -> Output {
    porfiry().args(args).output().expect("run porfiry")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn lines(o: &Output) -> Vec<String> {
    text(&o.stdout).lines().map(str::to_string).collect()
}

/// The one line that starts with `start` and contains every needle, or a failure showing all.
fn has_line(lines: &[String], start: &str, needles: &[&str]) {
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with(start) && needles.iter().all(|n| l.contains(n))),
        "no line {start:?} with {needles:?} in:\n{}",
        lines.join("\n")
    );
}

fn write(dir: &Path, name: &str, content: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, content).unwrap();
    path
}

#[test]
fn the_repository_s_toolset_folders_pass() {
    let o = run(&["toolsets", "check", "toolsets", "evals/hosts/toolsets"]);
    let out = lines(&o);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}\n{}",
        out.join("\n"),
        text(&o.stderr)
    );
    for set in [
        "media", "notes", "timer", "home", "music", "shop", "calls", "alarm",
    ] {
        assert!(
            out.iter().any(|l| *l == format!("ok {set}")),
            "{set}: {out:?}"
        );
    }
    assert!(!out.iter().any(|l| l.starts_with("error ")), "{out:?}");
    // The host sets declare their ranges and questions: no warning about those.
    let timer: Vec<&String> = out.iter().filter(|l| l.contains("timer.yaml")).collect();
    assert!(
        !timer
            .iter()
            .any(|l| l.contains("no min or max") || l.contains("no ask_for")),
        "{timer:?}"
    );
    // The shipped sets declare a range for every integer and a question for every required
    // value: nothing to warn about.
    assert!(!out.iter().any(|l| l.starts_with("warning ")), "{out:?}");
}

#[test]
fn a_broken_file_fails_with_its_reason_and_the_others_still_load() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "good.yaml",
        "name: lamp\ndescription: the lamp\ntools:\n  - name: lamp_on\n    examples:\n      \
         ru: [Включи лампу, Зажги свет]\n      en: [Turn the lamp on, Lights on please]\n",
    );
    write(
        dir.path(),
        "range.yaml",
        "name: fan\ndescription: the fan\ntools:\n  - name: fan_speed\n    args:\n      \
         - {name: level, type: string, min: 1}\n",
    );
    write(
        dir.path(),
        "prefix.yaml",
        "name: door\ndescription: the door\ntools: [{name: lock_door}]\n",
    );
    write(
        dir.path(),
        "typo.yml",
        "name: bell\ndescripton: ring\ntools: [{name: bell_ring}]\n",
    );
    let o = run(&["toolsets", "check", dir.path().to_str().unwrap()]);
    let out = lines(&o);
    assert_eq!(o.status.code(), Some(1), "{out:?}");
    has_line(&out, "ok lamp", &[]);
    has_line(
        &out,
        "error ",
        &[
            "range.yaml",
            "fan_speed",
            "has min but is not an integer or number",
        ],
    );
    has_line(
        &out,
        "error ",
        &["prefix.yaml", "lock_door", "starts with \"door_\""],
    );
    has_line(&out, "error ", &["typo.yml", "unknown field `descripton`"]);
    // A folder that does not exist is an error too.
    let o = run(&["toolsets", "check", "no/such/folder"]);
    assert_eq!(o.status.code(), Some(1));
    has_line(&lines(&o), "error no/such/folder", &["cannot read"]);
    // No folder at all is a usage error.
    assert_eq!(run(&["toolsets", "check"]).status.code(), Some(2));
}

#[test]
fn what_loads_but_works_badly_is_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "oven.yaml",
        r#"name: oven
description: the oven
tools:
  - name: oven_heat
    args:
      - {name: degrees, type: integer, required: true, description: temperature}
      - name: mode
        type: enum
        values: [grill, fan]
        said: {grill: [broil, top], fan: [convection, top]}
    examples:
      en: ["Heat the oven to 200 degrees", "Preheat to 180"]
  - name: oven_off
    examples:
      en: ["Turn the oven off"]
  - name: oven_timer
    args:
      - {name: minutes, type: number, min: 1, required: true, ask_for: {en: "For how long?"}}
    examples:
      ru: ["Поставь духовку на таймер", "Выключи духовку через час"]
"#,
    );
    let o = run(&["toolsets", "check", dir.path().to_str().unwrap()]);
    let out = lines(&o);
    assert_eq!(o.status.code(), Some(0), "warnings only: {out:?}");
    has_line(&out, "ok oven", &[]);
    let warns = |needles: &[&str]| has_line(&out, "warning ", &[&["oven.yaml"], needles].concat());
    warns(&["tool \"oven_heat\": no examples in ru"]);
    warns(&["tool \"oven_off\": no examples in ru"]);
    warns(&["tool \"oven_timer\": no examples in en"]);
    warns(&["tool \"oven_off\": 1 example in en"]);
    warns(&["integer argument \"degrees\" has no min or max"]);
    warns(&["argument \"mode\": \"top\" is said for \"fan\" and \"grill\""]);
    warns(&["required argument \"degrees\" has no ask_for"]);
    warns(&["required argument \"minutes\" has no ask_for in ru"]);
    // A range on one side is a range; a required argument asked for in every language is fine.
    assert!(
        !out.iter().any(|l| l.contains("\"minutes\" has no min")),
        "{out:?}"
    );
    assert!(
        !out.iter()
            .any(|l| l.contains("\"minutes\" has no ask_for in en")),
        "{out:?}"
    );
    // A set without a language at all is one warning for the set.
    write(
        dir.path(),
        "oven.yaml",
        "name: oven\ndescription: the oven\ntools:\n  - name: oven_off\n    examples:\n      \
         en: [Turn the oven off, Switch the oven off]\n",
    );
    let o = run(&["toolsets", "check", dir.path().to_str().unwrap()]);
    let out = lines(&o);
    assert_eq!(o.status.code(), Some(0), "{out:?}");
    has_line(&out, "warning ", &["oven.yaml: no examples in ru"]);
    assert_eq!(
        out.iter().filter(|l| l.starts_with("warning ")).count(),
        1,
        "{out:?}"
    );
}

/// A stand-ins file in `dir` with `content`, and `chat` run with it over the repository's
/// host sets (fails before a model is needed: the model path does not exist).
fn chat_with_stand_ins(dir: &Path, content: &str) -> Output {
    let file = write(dir, "stand-ins.yaml", content);
    run(&[
        "chat",
        "--toolsets",
        "evals/hosts/toolsets",
        "--stand-ins",
        file.to_str().unwrap(),
        "--model",
        "/no/such/model.gguf",
    ])
}

fn fails_with(o: &Output, needles: &[&str]) {
    let stderr = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(
        !stderr.contains("model.gguf"),
        "the stand-ins are checked before the model: {stderr}"
    );
    for n in needles {
        assert!(stderr.contains(n), "{n:?} in {stderr}");
    }
}

#[test]
fn a_bad_stand_ins_file_is_an_error_naming_it_before_a_model_loads() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fails_with(
        &chat_with_stand_ins(d, "timer_list: [oops\n"),
        &["stand-ins.yaml", "no valid YAML"],
    );
    fails_with(&chat_with_stand_ins(d, ""), &["stand-ins.yaml", "is empty"]);
    fails_with(
        &chat_with_stand_ins(d, "- timer_list\n"),
        &["stand-ins.yaml", "not a map of tool names to replies"],
    );
    fails_with(
        &chat_with_stand_ins(d, "timer_start: 5\n"),
        &[
            "stand-ins.yaml",
            "\"timer_start\"",
            "neither a text nor {error: text}",
            "quotes",
        ],
    );
    fails_with(
        &chat_with_stand_ins(d, "timer_start: {eror: nope}\n"),
        &["\"timer_start\"", "tool_name: {error:"],
    );
    fails_with(
        &chat_with_stand_ins(d, "timer_stop: Stopped.\n"),
        &[
            "stand-ins.yaml",
            "\"timer_stop\"",
            "timer_start, timer_list, timer_cancel",
        ],
    );
    fails_with(
        &chat_with_stand_ins(d, "oven_off: Off.\n"),
        &["\"oven_off\"", "--toolsets DIR", "timer"],
    );
    fails_with(
        &chat_with_stand_ins(d, "show_text: shown\n"),
        &["\"show_text\" is a core tool"],
    );
    fails_with(
        &chat_with_stand_ins(d, "timer_list: none\nvalues: {rooms: [kitchen]}\n"),
        &["\"rooms\"", "values_from"],
    );
    // The file itself missing.
    let o = run(&[
        "chat",
        "--stand-ins",
        "no/such/stand-ins.yaml",
        "--model",
        "/no/such/model.gguf",
    ]);
    fails_with(&o, &["reading the stand-ins file no/such/stand-ins.yaml"]);
}

/// The path of the default model, or a loud failure saying how to fetch it.
fn default_model() -> PathBuf {
    let store = ModelStore::open_default().expect("manifest");
    let spec = store
        .manifest()
        .default_model()
        .expect("a default model")
        .clone();
    let path = store.path_of(&spec);
    assert!(
        path.is_file(),
        "model {} is missing at {}: run `./run models fetch` (or `porfiry models fetch`)",
        spec.id,
        path.display()
    );
    path
}

#[test]
fn chat_talks_to_a_host_set_through_its_stand_ins() {
    let dir = tempfile::tempdir().unwrap();
    let stand_ins = write(
        dir.path(),
        "stand-ins.yaml",
        "timer_list: \"1. eggs, 8 minutes left\\n2. pasta, 3 minutes left\"\n\
         timer_cancel: {error: \"There is no such timer.\"}\n",
    );
    let mut child = porfiry()
        .args([
            "chat",
            "--lang",
            "en",
            "--greedy",
            "--turn-budget",
            "0",
            "--max-tokens",
            "24",
            "--no-catalog",
            "--toolsets",
            "evals/hosts/toolsets",
            "--stand-ins",
            stand_ins.to_str().unwrap(),
            "--model",
            default_model().to_str().unwrap(),
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"Which timers are running?\nCancel timer number 2\n/quit\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("stand-ins from") && stderr.contains("timer_cancel, timer_list"),
        "{stderr}"
    );
    // The set has an executor now: it is in the prompt, not left out.
    assert!(
        !stderr
            .lines()
            .any(|l| l.contains("left out of the prompt") && l.contains("timer")),
        "{stderr}"
    );
    assert!(
        stderr.contains("← timer_list: 1. eggs, 8 minutes left"),
        "the stand-in answers timer_list:\n{stderr}"
    );
    assert!(
        stderr.contains("← error: timer_cancel:") && stderr.contains("There is no such timer."),
        "the stand-in's error answers timer_cancel:\n{stderr}"
    );
    // A tool without a stand-in still answers "no executor": nothing else changed.
    let stdout = text(&out.stdout);
    assert!(
        !stdout.trim().is_empty(),
        "the assistant replied:\n{stderr}"
    );
}

#[test]
fn with_a_model_an_example_routed_elsewhere_is_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "lamp.yaml",
        "name: lamp\ndescription: the desk lamp (on, off)\ntools:\n  - name: lamp_on\n    \
         examples:\n      en:\n        - Turn the desk lamp on\n        - Switch on the desk lamp\n        \
         - Desk lamp on please\n        - What time is it right now?\n",
    );
    let o = run(&[
        "toolsets",
        "check",
        dir.path().to_str().unwrap(),
        "--model",
        default_model().to_str().unwrap(),
    ]);
    let out = lines(&o);
    assert_eq!(o.status.code(), Some(0), "{out:?}\n{}", text(&o.stderr));
    has_line(&out, "ok lamp", &[]);
    // The example that asks the time goes to the clock, not to the lamp.
    has_line(
        &out,
        "warning ",
        &[
            "lamp.yaml",
            "\"lamp_on\"",
            "\"What time is it right now?\"",
            "routes to the core tool get_current_time",
        ],
    );
    // The lamp's own requests route to it, each with itself left out.
    assert!(
        !out.iter()
            .any(|l| l.contains("desk lamp") && l.contains("routes")),
        "{out:?}"
    );
}
