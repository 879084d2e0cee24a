//! `porfiry eval tools` / `porfiry eval talk`: bad input is a clear error before any model
//! loads; `eval talk` reports every turn's verdict on the real model; the routing floor of the
//! dev sets (`evals/routes.toml`) holds. The eval's mechanics on the real model are in
//! `benches/tests/eval.rs`.

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

/// `porfiry eval talk` on the real default model (Gemma): a small conversation file runs every
/// turn whole, and the report has the documented shape — per turn the judge's verdict, totals
/// with the acceptable-turn rate, failures per rule and conversations. No accuracy asserted.
#[test]
fn eval_talk_judges_every_turn_of_a_conversation_on_the_real_model() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("talk.yaml");
    std::fs::write(
        &file,
        "clock: 2026-08-22T10:00:00+03:00
cases:
  - turns:
      - {user: Привет!, expect: [{text: true}]}
      - {user: Который час?, expect: [{call: get_current_time}], reply_matches: '10'}
  - user: Вызови такси
    expect: [{refuse: true}]
",
    )
    .unwrap();
    let o = porfiry(&["eval", "talk", "--json", file.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(stderr.contains("eval talk: model"), "{stderr}");
    assert!(
        stderr.contains("talk.yaml#1.2 "),
        "one progress line per turn: {stderr}"
    );
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON report");
    let variant = &report["variants"][0];
    let turns = variant["cases"].as_array().unwrap();
    assert_eq!(turns.len(), 3);
    for (t, (case, index)) in turns.iter().zip([(1, 1), (1, 2), (2, 1)]) {
        assert_eq!(
            (t["case"].as_u64(), t["turn_index"].as_u64()),
            (Some(case), Some(index))
        );
        assert_eq!(t["turn"], "whole", "{t}");
        // Every turn ran whole, so every reply is judged: a verdict, and a rule when it fails.
        let verdict = t["verdict"]["verdict"]
            .as_str()
            .unwrap_or_else(|| panic!("{t}"));
        assert!(["acceptable", "fails"].contains(&verdict), "{t}");
        assert_eq!(verdict == "fails", t["verdict"]["rule"].is_string(), "{t}");
        assert!(t["judged"].is_boolean() && t["correct"].is_boolean(), "{t}");
        if t["judged"] == true {
            assert_eq!(
                t["correct"], true,
                "judged right needs the first action right: {t}"
            );
        }
    }
    assert_eq!(turns[1]["matches_ok"].is_boolean(), true);
    assert!(turns[0]["matches_ok"].is_null());
    let totals = &variant["totals"];
    assert_eq!(totals["cases"], 3);
    assert_eq!(totals["replies_judged"], 3);
    assert_eq!(totals["conversations"], 1);
    let failed: u64 = totals["by_rule"]
        .as_object()
        .unwrap()
        .values()
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert_eq!(failed, 3 - totals["acceptable"].as_u64().unwrap());
    assert!(totals["judged"].as_u64().unwrap() <= totals["correct"].as_u64().unwrap());
}

/// The routing figures recorded beside the dev sets (`evals/routes.toml`: per file, the cases
/// whose route names the right first action on the default model): `key = number` lines, `#`
/// comments.
fn recorded_routes() -> Vec<(String, u64)> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("evals/routes.toml");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    text.lines()
        .map(|l| l.split('#').next().unwrap_or_default().trim())
        .filter(|l| !l.is_empty())
        .map(|l| {
            let (key, value) = l.split_once('=').unwrap_or_else(|| panic!("{l:?}"));
            let value = value
                .trim()
                .parse()
                .unwrap_or_else(|e| panic!("{l:?}: {e}"));
            (key.trim().to_string(), value)
        })
        .collect()
}

/// The JSON report of `eval tools --routes-only` over `files` on the default model.
fn routes_only(files: &[String]) -> serde_json::Value {
    let mut args = vec!["eval", "tools", "--routes-only", "--json"];
    args.extend(files.iter().map(String::as_str));
    let o = porfiry(&args);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    serde_json::from_slice(&o.stdout).expect("JSON report")
}

/// Routing can regress with every other test green: `eval tools --routes-only` over the dev
/// sets on the real default model fails this test when a file's rightly routed cases (the
/// first action's name: a route has no arguments) fall more than two below the figure
/// recorded in `evals/routes.toml`. A change that moves the figure updates the record in the
/// same commit, on purpose.
#[test]
fn routing_accuracy_holds_the_recorded_floor_on_the_dev_sets() {
    let recorded = recorded_routes();
    assert!(recorded.len() >= 4, "{recorded:?}");
    let files: Vec<String> = recorded
        .iter()
        .map(|(stem, _)| format!("evals/{stem}.yaml"))
        .collect();
    let report = routes_only(&files);
    let by_file = &report["variants"][0]["by_file"];
    let mut falls = Vec::new();
    for ((stem, floor), file) in recorded.iter().zip(&files) {
        let correct = by_file[file]["name_correct"]
            .as_u64()
            .unwrap_or_else(|| panic!("no {file} in {by_file}"));
        if correct + 2 < *floor {
            falls.push(format!(
                "{stem}: {correct} route-correct cases, recorded {floor}"
            ));
        }
    }
    assert!(
        falls.is_empty(),
        "routing fell more than two cases below evals/routes.toml: {falls:?}"
    );
}

/// The built-in sets' names as a host might have named the same declarations: sets, tools
/// and arguments (an `id` argument keeps its name: the convention of docs/toolsets.md says
/// what it is). Longest first, so no name is replaced inside another.
const RENAMES: &[(&str, &str)] = &[
    ("notes_delete", "memo_drop"),
    ("notes_list", "memo_show"),
    ("notes_add", "memo_put"),
    ("media_search", "cinema_find"),
    ("media_info", "cinema_about"),
    ("media_play", "cinema_start"),
];

/// Sets renamed where a declaration or a case names one.
const SET_RENAMES: &[(&str, &str)] = &[("notes", "memo"), ("media", "cinema")];

/// Arguments renamed, per renamed tool: in its declaration and in a case's expected
/// arguments of a call of it.
const ARG_RENAMES: &[(&str, &str, &str)] = &[
    ("memo_put", "text", "body"),
    ("memo_drop", "number", "position"),
    ("cinema_find", "query", "title"),
    ("cinema_start", "action", "mode"),
];

/// `text` with every built-in name renamed (`RENAMES`, `SET_RENAMES` where a set is named:
/// a toolset's own `name:` (`set_file`), a skill's `toolset:`, a switch, `active:`; `ARG_RENAMES` in
/// the declaration of the tool's arguments and in a case's expected call of it). A skill
/// keeps its own name (a skill is no set), its text renames the tools it mentions.
fn renamed(text: &str, set_file: bool) -> String {
    let mut out = text.to_string();
    for (from, to) in RENAMES {
        out = out.replace(from, to);
    }
    for (from, to) in SET_RENAMES {
        if set_file {
            out = out.replace(&format!("\nname: {from}\n"), &format!("\nname: {to}\n"));
        }
        for (a, b) in [
            (format!("\ntoolset: {from}\n"), format!("\ntoolset: {to}\n")),
            (
                format!("enable_toolset|{from}"),
                format!("enable_toolset|{to}"),
            ),
            (format!("active: [{from}]"), format!("active: [{to}]")),
            (
                format!("toolset, args: {{name: {from}}}"),
                format!("toolset, args: {{name: {to}}}"),
            ),
        ] {
            out = out.replace(&a, &b);
        }
    }
    // A declaration: from the tool's `- name:` line to the next tool's; a case: from
    // `{call: tool` to the next call.
    for opener in ["\n  - name: ", "{call: "] {
        let mut pieces = out.split(opener);
        let mut joined = pieces.next().unwrap_or_default().to_string();
        for piece in pieces {
            // A case's call ends with its arguments' braces; a declaration's tool with
            // the next tool's line.
            let end = match (opener, piece.find('{'), piece.find('}')) {
                ("{call: ", Some(open), Some(close)) if open < close => {
                    piece.find("}}").map_or(piece.len(), |i| i + 2)
                }
                ("{call: ", _, Some(close)) => close + 1,
                _ => piece.len(),
            };
            let (mut own, rest) = (piece[..end].to_string(), &piece[end..]);
            for (tool, from, to) in ARG_RENAMES {
                if own.starts_with(tool) {
                    for (a, b) in [
                        (format!("{{name: {from},"), format!("{{name: {to},")),
                        (format!("- name: {from}\n"), format!("- name: {to}\n")),
                        (format!("{{{from}:"), format!("{{{to}:")),
                        (format!(", {from}:"), format!(", {to}:")),
                    ] {
                        own = own.replace(&a, &b);
                    }
                }
            }
            joined.push_str(opener);
            joined.push_str(&own);
            joined.push_str(rest);
        }
        out = joined;
    }
    out
}

/// The name `renamed` gave back under its built-in name (a call line's tool too).
fn named_back(text: &str) -> String {
    let mut out = text.to_string();
    for (from, to) in RENAMES {
        out = out.replace(to, from);
    }
    for (from, to) in SET_RENAMES {
        out = out.replace(&format!("toolset|{to}"), &format!("toolset|{from}"));
    }
    out
}

/// Copies of the built-in toolsets and skills in `dir` (renamed or not), and of every
/// built-in dev set naming them: the paths of the case files.
fn built_in_copy(dir: &std::path::Path, rename: bool) -> Vec<String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for folder in ["toolsets", "skills"] {
        let map = |t: String| {
            if rename {
                renamed(&t, folder == "toolsets")
            } else {
                t
            }
        };
        std::fs::create_dir_all(dir.join(folder)).unwrap();
        for entry in std::fs::read_dir(root.join(folder)).unwrap() {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            std::fs::write(dir.join(folder).join(path.file_name().unwrap()), map(text)).unwrap();
        }
    }
    let mut files = Vec::new();
    let mut names: Vec<String> = std::fs::read_dir(root.join("evals"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("dev") && n.ends_with(".yaml"))
        .collect();
    names.sort();
    for name in names {
        let text = std::fs::read_to_string(root.join("evals").join(&name)).unwrap();
        assert!(
            !text.contains("\ntoolsets:"),
            "{name} names its own toolsets"
        );
        let head = format!(
            "toolsets: [{}]\nskills: [{}]\n",
            dir.join("toolsets").display(),
            dir.join("skills").display()
        );
        let path = dir.join(&name);
        let text = if rename { renamed(&text, false) } else { text };
        std::fs::write(&path, format!("{head}{text}")).unwrap();
        files.push(path.to_string_lossy().into_owned());
    }
    files
}

/// Per turn of a `--routes-only` report: file name, case, turn → route target and the
/// reply decided before the model writes, under the built-in names.
fn decisions(
    report: &serde_json::Value,
) -> std::collections::BTreeMap<(String, u64, u64), (String, String)> {
    let cases = report["variants"][0]["cases"].as_array().expect("cases");
    cases
        .iter()
        .map(|c| {
            let file = c["file"].as_str().unwrap_or_default();
            let file = file.rsplit('/').next().unwrap_or(file).to_string();
            let key = (
                file,
                c["case"].as_u64().unwrap_or(0),
                c["turn_index"].as_u64().unwrap_or(0),
            );
            let target = c["route"]["target"].as_str().unwrap_or("-");
            let reply = c["reply"].as_str().unwrap_or_default();
            (key, (named_back(target), named_back(reply)))
        })
        .collect()
}

/// Routing and filling read what a set declares, never what it is called: the built-in
/// sets with every set, tool and argument renamed (notes → memo, media → cinema) route every
/// turn of every built-in dev set to the same place and decide the same calls and
/// questions (`eval tools --routes-only` on the real default model).
#[test]
fn renamed_built_in_sets_route_and_fill_identically() {
    let dir = tempfile::tempdir().unwrap();
    let mut runs = Vec::new();
    for rename in [false, true] {
        let sub = dir.path().join(if rename { "renamed" } else { "built-in" });
        let files = built_in_copy(&sub, rename);
        assert!(files.len() >= 20, "{files:?}");
        runs.push(decisions(&routes_only(&files)));
    }
    let (built_in, renamed) = (&runs[0], &runs[1]);
    assert!(built_in.len() >= 900, "{} turns", built_in.len());
    assert_eq!(built_in.len(), renamed.len());
    let differ: Vec<String> = built_in
        .iter()
        .filter(|(k, v)| renamed.get(*k) != Some(*v))
        .map(|(k, v)| format!("{k:?}: {v:?} → {:?}", renamed.get(k)))
        .collect();
    assert!(
        differ.is_empty(),
        "{} of {} turns differ once renamed:\n{}",
        differ.len(),
        built_in.len(),
        differ.join("\n")
    );
}
