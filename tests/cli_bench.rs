//! `porfiry bench dialogue` and `porfiry prompt --json` token counts on the real default
//! model (Gemma 3 270M). The model file must be present: `./run models fetch` (or
//! `porfiry models fetch --all`) fetches it; these tests fail, never skip, without it.

use std::process::{Command, Output};

fn porfiry(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_porfiry"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run porfiry")
}

fn json(o: &Output) -> serde_json::Value {
    assert_eq!(
        o.status.code(),
        Some(0),
        "porfiry failed (is the default model fetched? run `./run models fetch`): {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).expect("JSON on stdout")
}

fn n(v: &serde_json::Value, key: &str) -> u64 {
    v[key].as_u64().unwrap_or_else(|| panic!("{key} in {v}"))
}

/// The first request of each of the report's first `turns` turns.
fn first_requests(v: &serde_json::Value, turns: u64) -> Vec<&serde_json::Value> {
    let gens = v["generations"].as_array().unwrap();
    (1..=turns)
        .map(|turn| {
            gens.iter()
                .find(|g| n(g, "turn") == turn)
                .expect("a first request")
        })
        .collect()
}

#[test]
fn dialogue_on_the_real_model_prefills_only_new_tokens_between_toolset_changes() {
    let v = json(&porfiry(&["bench", "dialogue", "--json", "--threads", "2"]));
    let turns = v["turns"].as_array().unwrap();
    assert_eq!(turns.len(), 12);
    for t in turns {
        assert_eq!(
            n(t, "prompt_tokens"),
            n(t, "reused_tokens") + n(t, "prefilled_tokens"),
            "{t}"
        );
        assert!(
            n(t, "generated_tokens") > 0,
            "forced replies are decoded: {t}"
        );
        if !t["toolset_change"].as_bool().unwrap() {
            // KV reuse is exact: only what was appended since the previous request (on the
            // first turn: what follows the prepared head), less the framing the engine
            // decoded while idle after the previous reply (the bench pauses as a user would
            // before every turn, so from turn 2 on there always is some).
            assert_eq!(
                n(t, "prefilled_tokens") + n(t, "anticipated_tokens"),
                n(t, "appended_tokens"),
                "{t}"
            );
            if n(t, "turn") > 1 {
                assert!(n(t, "anticipated_tokens") > 0, "{t}");
                assert!(
                    n(t, "prefilled_tokens") > 0,
                    "the user's words are never known ahead: {t}"
                );
            }
        }
    }
    assert_eq!(n(&turns[0], "anticipated_tokens"), 0);
    // The head was prepared before the first turn, which prefills only what follows it.
    let head = n(&v["head"], "tokens");
    assert!(head > 100, "{}", v["head"]);
    assert_eq!(n(&turns[0], "reused_tokens"), head);
    let totals = &v["totals"];
    let ratio = totals["reuse_ratio"].as_f64().unwrap();
    assert!(ratio > 0.5 && ratio < 1.0, "{ratio}");
    assert_eq!(v["reuse"], serde_json::json!(true));
}

#[test]
fn a_speaking_user_leaves_only_the_last_word_to_prefill() {
    let v = json(&porfiry(&[
        "bench",
        "dialogue",
        "--json",
        "--turns",
        "3",
        "--speaking",
        "--threads",
        "2",
    ]));
    let turns = v["turns"].as_array().unwrap();
    for t in turns {
        assert_eq!(
            n(t, "prompt_tokens"),
            n(t, "reused_tokens") + n(t, "prefilled_tokens"),
            "{t}"
        );
        // Every turn's first words were decoded while the user spoke (turn 1 included: they
        // follow the prepared head), so more than the framing was ready.
        assert!(n(t, "anticipated_tokens") > 0, "{t}");
    }
    for first in first_requests(&v, 3) {
        let s = &first["stats"];
        // What remains is the last word and the closing framing: a handful of tokens.
        assert!(n(s, "prefilled_tokens") <= 12, "{first}");
        assert_eq!(
            n(s, "prefilled_tokens") + n(s, "anticipated_tokens"),
            n(first, "appended_tokens"),
            "{first}"
        );
    }
}

#[test]
fn a_user_heard_to_the_end_leaves_one_token_to_prefill() {
    let v = json(&porfiry(&[
        "bench",
        "dialogue",
        "--json",
        "--turns",
        "3",
        "--speaking",
        "--all-heard",
        "--threads",
        "2",
    ]));
    for first in first_requests(&v, 3) {
        let s = &first["stats"];
        // The whole prompt was decoded while the user spoke, through the closing framing,
        // but its last token, which the request decodes for its logits.
        assert_eq!(n(s, "prefilled_tokens"), 1, "{first}");
        assert_eq!(
            n(s, "anticipated_tokens") + 1,
            n(first, "appended_tokens"),
            "{first}"
        );
    }
}

#[test]
fn the_trace_holds_every_requests_prompt_and_reply_ids() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("trace.jsonl");
    let v = json(&porfiry(&[
        "bench",
        "dialogue",
        "--json",
        "--turns",
        "2",
        "--threads",
        "2",
        "--trace",
        file.to_str().unwrap(),
    ]));
    let gens = v["generations"].as_array().unwrap();
    let text = std::fs::read_to_string(&file).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), gens.len());
    for (line, g) in lines.iter().zip(gens) {
        let prompt = line["prompt"].as_array().unwrap();
        assert_eq!(prompt.len() as u64, n(&g["stats"], "prompt_tokens"), "{g}");
        assert!(!line["reply"].as_array().unwrap().is_empty(), "{line}");
    }
    // The engine tokenizes the trace itself: no second vocabulary in the process (a
    // vocabulary-only Gemma weighed ~50 MB of anonymous memory).
    assert!(
        n(&v["process"], "rss_anon_kb") < 200 * 1024,
        "{}",
        v["process"]
    );
}

#[test]
fn no_reuse_prefills_every_prompt_in_full() {
    let v = json(&porfiry(&[
        "bench",
        "dialogue",
        "--json",
        "--turns",
        "3",
        "--no-reuse",
    ]));
    for g in v["generations"].as_array().unwrap() {
        let s = &g["stats"];
        assert_eq!(n(s, "reused_tokens"), 0, "{g}");
        assert_eq!(n(s, "prefilled_tokens"), n(s, "prompt_tokens"), "{g}");
    }
    assert_eq!(v["totals"]["reuse_ratio"].as_f64(), Some(0.0));
}

#[test]
fn head_snapshot_serves_a_new_session_and_sessions_keep_their_cache() {
    let v = json(&porfiry(&[
        "bench",
        "head",
        "--json",
        "--runs",
        "1",
        "--threads",
        "2",
    ]));
    let head = n(&v, "head_tokens");
    let prompt = n(&v, "prompt_tokens");
    assert!(head > 100 && head < prompt, "{head} of {prompt}");
    let run = &v["runs"][0];
    assert_eq!(run["head"]["source"], "disk", "{run}");
    assert_eq!(n(&run["cold"], "prefilled_tokens"), prompt);
    // After the restore only the user's message and its framing are prefilled.
    assert_eq!(n(&run["warm"], "reused_tokens"), head, "{run}");
    assert_eq!(n(&run["warm"], "prefilled_tokens"), prompt - head, "{run}");
    assert!(n(&v, "file_bytes") > n(&run["head"], "state_bytes"));
    // Two sessions at once, each with its own KV, measured in bytes.
    let seqs = v["sessions"]["seqs"].as_array().unwrap();
    assert_eq!(seqs.len(), 2);
    for q in seqs {
        assert!(n(q, "tokens") > head && n(q, "bytes") > 0, "{q}");
    }
    // Switching between them prefills only what each appended, less the framing decoded
    // ahead after each session's reply (one pending job per session: both kept).
    for i in 0..2 {
        let get = |k: &str| v[k][i].as_u64().unwrap() as usize;
        assert_eq!(
            get("switch_prefilled") + get("switch_anticipated"),
            get("switch_appended"),
            "{v}"
        );
        assert!(get("switch_anticipated") > 0, "{v}");
    }
}

#[test]
fn bench_rejects_bad_arguments() {
    for args in [
        &["bench", "dialogue", "--turns", "0"][..],
        &["bench", "dialogue", "--turns", "999"],
        &["bench", "dialogue", "--layout", "sideways"],
        &["bench", "dialogue", "--model", "no-such-model"],
        &["bench", "head", "--runs", "0"],
        &["bench", "head", "--model", "no-such-model"],
    ] {
        let o = porfiry(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {o:?}");
    }
}

#[test]
fn prompt_json_counts_tokens_per_section() {
    let v = json(&porfiry(&["prompt", "--json", "--active", "media"]));
    let sections = v["sections"].as_array().unwrap();
    let mut sum = 0;
    for s in sections {
        let t = n(s, "tokens");
        assert!(t > 0 && t <= s["chars"].as_u64().unwrap(), "{s}");
        sum += t;
    }
    let tokens = &v["tokens"];
    // Sections are joined by "\n\n": the whole text tokenizes to about their sum.
    let text = n(tokens, "text");
    assert!(
        text.abs_diff(sum) <= sections.len() as u64 * 2,
        "{text} vs {sum}"
    );
    assert!(n(tokens, "framed") > text, "chat framing adds tokens");
    assert!(n(tokens, "static_prefix") < text);
    let o = porfiry(&["prompt", "--json", "--model", "/nonexistent/model.gguf"]);
    assert_eq!(o.status.code(), Some(2));
}

/// The CLI's `ask --json`, the bench rows and `TurnStats` itself name the same figures the
/// same way (the bridge's `onDone` is checked against `TurnStats` in the runtime's service
/// tests): one definition, serialized by every host.
#[test]
fn every_host_reports_the_same_turn_figures_under_the_same_names() {
    let names = |v: &serde_json::Value| -> std::collections::BTreeSet<String> {
        v.as_object().expect("an object").keys().cloned().collect()
    };
    let defined = names(&serde_json::to_value(porfiry_runtime::TurnStats::default()).unwrap());
    let data = std::env::temp_dir().join(format!("porfiry-names-{}", std::process::id()));
    let ask = json(
        &Command::new(env!("CARGO_BIN_EXE_porfiry"))
            .args([
                "ask",
                "--turn-budget",
                "0",
                "--json",
                "--greedy",
                "--max-tokens",
                "8",
                "--threads",
                "2",
                "Привет",
            ])
            .env("PORFIRY_DATA", &data)
            .output()
            .expect("run porfiry"),
    );
    let _ = std::fs::remove_dir_all(&data);
    assert_eq!(names(&ask["stats"]), defined, "{ask}");
    let s = &ask["stats"];
    assert_eq!(
        n(s, "prompt_tokens"),
        n(s, "reused_tokens") + n(s, "prefilled_tokens"),
        "{s}"
    );
    assert!(n(s, "last_prompt_tokens") <= n(s, "prompt_tokens"), "{s}");
    let bench = json(&porfiry(&[
        "bench",
        "dialogue",
        "--json",
        "--turns",
        "1",
        "--threads",
        "2",
    ]));
    let row = &bench["turns"][0];
    let row_names = names(row);
    assert!(row_names.is_superset(&defined), "{row}");
    assert_eq!(
        n(row, "prompt_tokens"),
        n(row, "reused_tokens") + n(row, "prefilled_tokens"),
        "{row}"
    );
}
