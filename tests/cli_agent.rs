//! The CLI contract of `porfiry skills check`, `porfiry prompt` and `porfiry scenario`
//! (used by acceptance checks: keep these outputs stable).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn porfiry(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_porfiry"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run porfiry")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn temp(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("porfiry-cli-{tag}-{}", std::process::id()));
    std::fs::remove_dir_all(&d).ok();
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn skills_check() {
    let o = porfiry(&["skills", "check"]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    assert!(
        stdout(&o).lines().any(|l| l == "ok media"),
        "{}",
        stdout(&o)
    );

    let dir = temp("skills");
    std::fs::write(
        dir.join("good.md"),
        "---\nname: good\ndescription: d\n---\nbody\n",
    )
    .unwrap();
    std::fs::write(dir.join("bad.md"), "no front matter\n").unwrap();
    let long = format!(
        "---\nname: long\ndescription: {}\n---\nb\n",
        "x".repeat(170)
    );
    std::fs::write(dir.join("long.md"), long).unwrap();
    let d = dir.to_str().unwrap();
    let o = porfiry(&["skills", "check", "--skills", "skills", "--skills", d]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    for want in ["ok media", "ok good", "ok long"] {
        assert!(out.lines().any(|l| l == want), "{out}");
    }
    assert!(
        out.lines().any(|l| l.starts_with("error ")
            && l.ends_with("bad.md: no front matter (the file must start with ---)")),
        "{out}"
    );
    assert!(
        out.lines()
            .any(|l| l.starts_with("warning ")
                && l.contains("long.md: description is 170 characters")),
        "{out}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn prompt_text_and_json() {
    let o = porfiry(&["prompt"]);
    assert_eq!(o.status.code(), Some(0));
    let state1 = stdout(&o);
    assert!(state1.contains("TOOL_CALL: имя|аргументы"));
    assert!(!state1.contains("media_search"));

    let o = porfiry(&["prompt", "--active", "media", "--json"]);
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let kinds: Vec<&str> = v["sections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["kind"].as_str().unwrap())
        .collect();
    // The media skill is hidden while its set is active; other skills (notes) stay indexed.
    assert_eq!(
        kinds,
        ["core", "toolset_index", "active_toolsets", "skills"]
    );
    let skills = v["sections"][3]["text"].as_str().unwrap();
    assert!(!skills.contains("media —"), "{skills}");
    assert!(skills.contains("notes"), "{skills}");
    for s in v["sections"].as_array().unwrap() {
        assert_eq!(
            s["chars"].as_u64().unwrap() as usize,
            s["text"].as_str().unwrap().chars().count()
        );
    }
    assert!(v["text"]
        .as_str()
        .unwrap()
        .contains("Активные тулсеты: media"));

    let o = porfiry(&["prompt", "--lang", "en", "--active", "media"]);
    assert!(stdout(&o).contains("Active toolsets: media"));
    let o = porfiry(&["prompt", "--active", "nope"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn scenario_runs_and_reports() {
    let dir = Path::new("agent/tests/scenarios");
    let o = porfiry(&["scenario", dir.to_str().unwrap()]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines
            .iter()
            .take(lines.len() - 1)
            .all(|l| l.starts_with("PASS ")),
        "{out}"
    );
    assert!(
        lines.last().unwrap().ends_with(" passed, 0 failed"),
        "{out}"
    );

    let tmp = temp("scenario");
    let bad = tmp.join("bad.yaml");
    std::fs::write(&bad, "name: wrong\nsteps:\n  - user: hi\n    model: [\"Привет\"]\n  - expect: {reply_contains: [Пока]}\n").unwrap();
    let good = "agent/tests/scenarios/timeout.yaml";
    let o = porfiry(&["scenario", good, bad.to_str().unwrap()]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("PASS "), "{out}");
    assert!(lines[1].starts_with("FAIL wrong: "), "{out}");
    assert_eq!(lines[2], "1 passed, 1 failed");
    std::fs::remove_dir_all(&tmp).ok();
}

/// A copy of the built binary in an empty folder, run from there with a fresh home: it
/// must find its built-in skills and toolsets (embedded in it) and point at nothing of the
/// checkout it was built from.
#[test]
fn a_copied_binary_works_away_from_its_checkout() {
    let dir = temp("portable");
    let home = dir.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let bin = dir.join("porfiry");
    std::fs::copy(env!("CARGO_BIN_EXE_porfiry"), &bin).unwrap();
    std::fs::copy(
        "agent/tests/scenarios/timeout.yaml",
        dir.join("timeout.yaml"),
    )
    .unwrap();
    let run = |args: &[&str]| {
        Command::new(&bin)
            .args(args)
            .current_dir(&dir)
            .env_clear()
            .env("HOME", &home)
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .output()
            .expect("run the copied porfiry")
    };
    let o = run(&["skills", "check"]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    for want in ["ok media", "ok notes"] {
        assert!(stdout(&o).lines().any(|l| l == want), "{}", stdout(&o));
    }
    let o = run(&["prompt", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let text = v["text"].as_str().unwrap();
    assert!(text.contains("media") && text.contains("notes"), "{text}");
    let o = run(&["scenario", "timeout.yaml"]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    assert!(stdout(&o).starts_with("PASS"), "{}", stdout(&o));
    // The built-ins went to the user's data directory, nothing to the checkout's paths.
    assert!(home.join(".local/share/porfiry/builtin").is_dir());
    let checkout = Path::new(env!("CARGO_MANIFEST_DIR"));
    for out in [run(&["skills", "check"]), run(&["prompt"])] {
        let all = format!("{}{}", stdout(&out), String::from_utf8_lossy(&out.stderr));
        assert!(
            !all.contains(checkout.to_str().unwrap()),
            "the copy names its checkout: {all}"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}
