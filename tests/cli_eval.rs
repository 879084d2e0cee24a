//! `porfiry eval tools`: bad input is a clear error before any model loads (the runs on the
//! real model are in `benches/tests/eval.rs`).

use std::process::{Command, Output};

fn porfiry(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_porfiry"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env(
            "PORFIRY_DATA",
            std::env::temp_dir().join("porfiry-cli-eval-test-data"),
        )
        .output()
        .expect("run porfiry")
}

fn fails_with(o: &Output, needles: &[&str]) {
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    for n in needles {
        assert!(stderr.contains(n), "{n:?} in {stderr}");
    }
}

#[test]
fn a_malformed_case_file_names_the_file_and_the_case() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.yaml");
    std::fs::write(
        &file,
        "cases:\n  - {user: Который час?, expect: [{call: get_current_time}]}\n  - {user: Привет, expect: [{txt: true}]}\n",
    )
    .unwrap();
    let path = file.to_str().unwrap();
    fails_with(
        &porfiry(&["eval", "tools", path]),
        &["bad.yaml: case 2 (\"Привет\")", "txt"],
    );
    std::fs::write(
        &file,
        "cases: [{user: Найди фильм, active: [movies], expect: [{call: media_search}]}]\n",
    )
    .unwrap();
    fails_with(
        &porfiry(&["eval", "tools", path]),
        &["bad.yaml: case 1", "movies"],
    );
}

#[test]
fn unknown_variants_and_languages_without_files_are_errors() {
    fails_with(
        &porfiry(&["eval", "tools", "--variant", "magic", "evals/smoke.yaml"]),
        &["magic", "baseline"],
    );
    fails_with(
        &porfiry(&["eval", "tools", "--lang", "en", "evals/smoke.yaml"]),
        &["skipping evals/smoke.yaml", "no case file to run in en"],
    );
}
