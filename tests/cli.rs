//! The `porfiry` binary end to end: `models list`, `ask` and `chat` on the real models.
//!
//! The model files must be in the models directory (`models/cache/` or `$PORFIRY_MODELS`);
//! `./run test` fetches them first. A missing file fails the test with the command to run.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use porfiry_models::ModelStore;

const GEMMA: &str = "gemma-3-270m-q4_k_m";
const SMOL: &str = "smollm2-135m-instruct-q4_1";

fn porfiry() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_porfiry"));
    c.env(
        "PORFIRY_DATA",
        std::env::temp_dir().join("porfiry-cli-test-data"),
    );
    c.stdin(Stdio::null());
    c
}

fn run(c: &mut Command) -> Output {
    c.output().expect("the porfiry binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The path of a known model, or a loud failure saying how to fetch it.
fn model(id: &str) -> PathBuf {
    let store = ModelStore::open_default().expect("manifest");
    let spec = store.manifest().get(id).expect("known id").clone();
    let path = store.path_of(&spec);
    assert!(
        path.is_file(),
        "model {id} is missing at {}: run `./run models fetch --all` (or `porfiry models fetch {id}`)",
        path.display()
    );
    path
}

fn ask_json(model: &PathBuf, question: &str) -> serde_json::Value {
    let out = run(porfiry().args([
        "ask",
        "--turn-budget",
        "0",
        "--json",
        "--greedy",
        "--max-tokens",
        "12",
        "--model",
        model.to_str().unwrap(),
        question,
    ]));
    assert!(
        out.status.success(),
        "ask failed: {}\n{}",
        out.status,
        text(&out.stderr)
    );
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("--json is one JSON object ({e}): {}", text(&out.stdout)))
}

#[test]
fn models_list_shows_both_models_and_their_state() {
    let out = run(porfiry().args(["models", "list"]));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    for id in [GEMMA, SMOL] {
        assert!(stdout.contains(id), "{stdout}");
    }
    let empty = tempfile::tempdir().unwrap();
    let out = run(porfiry()
        .env("PORFIRY_MODELS", empty.path())
        .args(["models", "list", "--json"]));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["default"], GEMMA);
    assert_eq!(v["dir"], empty.path().to_str().unwrap());
    let models = v["models"].as_array().unwrap();
    assert_eq!(models.len(), 2);
    assert!(models.iter().all(|m| m["state"] == "missing"), "{v}");
}

#[test]
fn models_fetch_of_an_unknown_id_fails() {
    let out = run(porfiry().args(["models", "fetch", "no-such-model"]));
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("unknown model `no-such-model`"));
}

#[test]
fn ask_with_a_missing_or_bad_model_path_fails_cleanly() {
    let out = run(porfiry().args(["ask", "--model", "/nowhere/model.gguf", "привет"]));
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("/nowhere/model.gguf does not exist"),
        "{stderr}"
    );

    let dir = tempfile::tempdir().unwrap();
    let fake = dir.path().join("fake.gguf");
    std::fs::File::create(&fake)
        .unwrap()
        .write_all(b"this is not a model")
        .unwrap();
    let out = run(porfiry().args(["ask", "--model", fake.to_str().unwrap(), "привет"]));
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("not a GGUF"),
        "{}",
        text(&out.stderr)
    );
    assert!(
        out.status.code().is_some(),
        "exited, not killed by a signal"
    );
}

#[test]
fn ask_json_on_gemma_reports_reply_and_stats() {
    let v = ask_json(&model(GEMMA), "Который час?");
    assert!(v["reply"].is_string(), "{v}");
    assert!(v["tool_calls"].is_array(), "{v}");
    let stats = &v["stats"];
    let gens = stats["generations"].as_u64().unwrap();
    assert!((1..=8).contains(&gens), "{v}");
    assert!(stats["prompt_tokens"].as_u64().unwrap() > 100, "{v}");
    let generated = stats["generated_tokens"].as_u64().unwrap();
    assert!(generated >= 1 && generated <= 12 * gens, "{v}");
    assert!(stats["ttft_ms"].as_f64().unwrap() > 0.0, "{v}");
    assert!(v["model_path"]
        .as_str()
        .unwrap()
        .ends_with("gemma-3-270m-q4_k_m.gguf"));
}

#[test]
fn the_same_cli_runs_smollm2_chatml() {
    let v = ask_json(&model(SMOL), "What time is it?");
    assert!(v["reply"].is_string(), "{v}");
    assert!(v["stats"]["prompt_tokens"].as_u64().unwrap() > 100, "{v}");
}

#[test]
fn ask_streams_text_and_prints_a_stats_line() {
    let out = run(porfiry().args([
        "ask",
        "--turn-budget",
        "0",
        "--greedy",
        "--max-tokens",
        "8",
        "--model",
        model(GEMMA).to_str().unwrap(),
        "Привет",
    ]));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("loaded in"), "{stderr}");
    let stats = stderr.lines().last().unwrap_or_default();
    for needle in [
        "prompt",
        "reused",
        "prefilled",
        "generated",
        "TTFT",
        "tok/s",
    ] {
        assert!(
            stats.contains(needle),
            "stats line {stats:?} lacks {needle}"
        );
    }
}

#[test]
fn chat_reads_commands_and_turns_from_stdin() {
    let mut child = porfiry()
        .args([
            "chat",
            "--turn-budget",
            "0",
            "--greedy",
            "--sessions",
            "2",
            "--max-tokens",
            "8",
            "--lang",
            "en",
            "--model",
            model(GEMMA).to_str().unwrap(),
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
        .write_all(
            // Requests the model answers (a greeting is answered from the message texts).
            "/stats\n/prompt\n/session other\nWhy is the sky blue?\nWhy is grass green?\n/stats\n/reset\n/nope\n/quit\n"
                .as_bytes(),
        )
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    for needle in [
        "no turn yet",
        "TOOL_CALL",
        "session: other",
        "session other reset",
        "unknown command /nope",
    ] {
        assert!(stdout.contains(needle), "{needle:?} not in:\n{stdout}");
    }
    let stderr = text(&out.stderr);
    let stats: Vec<&str> = stderr.lines().filter(|l| l.contains("prefilled")).collect();
    assert_eq!(stats.len(), 2, "one stats line per turn:\n{stderr}");
    // The second turn of the session reuses the first turn's prompt from the KV cache.
    let reused = |line: &str| -> u64 {
        let at = line.find("reused ").unwrap() + "reused ".len();
        line[at..]
            .split(|c: char| !c.is_ascii_digit())
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    assert!(
        reused(stats[1]) > 100,
        "second turn should reuse the cache: {}",
        stats[1]
    );
    // /stats after the turns repeats the last turn's line on stdout.
    assert!(stdout.lines().any(|l| l.contains("prefilled")), "{stdout}");
    // ... and shows the KV memory per session (two sequences, "other" holding its turns).
    assert!(stdout.contains("KV cache:"), "{stdout}");
    let other = stdout
        .lines()
        .find(|l| l.contains("seq ") && l.contains("other"))
        .unwrap_or_else(|| panic!("no KV line for session other:\n{stdout}"));
    assert!(other.contains(" KB"), "{other}");
    // The static head was prepared at start-up.
    assert!(stderr.contains("prompt head:"), "{stderr}");
}

#[test]
fn ask_help_says_sessions_do_not_persist() {
    let out = run(porfiry().args(["ask", "--help"]));
    assert!(out.status.success());
    assert!(text(&out.stdout).contains("fresh process"));
}

/// A conversation several times longer than a small context, in `chat` on the real SmolLM2:
/// every turn is answered, no turn errors, the request is compacted (reported in the stats
/// lines) and keeps the last exchange and the system/state part.
#[test]
fn chat_survives_a_dialogue_longer_than_its_context() {
    let lines: Vec<String> = (1..=24)
        .map(|i| {
            format!(
                "Message number {i}: tell me something short about the number {i} and the \
                 weather, the sea, trains and old books."
            )
        })
        .collect();
    let mut input = lines.join("\n");
    input.push_str("\n/request\n/quit\n");
    let mut child = porfiry()
        .args([
            "chat",
            "--turn-budget",
            "0",
            "--greedy",
            "--ctx",
            "768",
            "--max-tokens",
            "48",
            "--threads",
            "2",
            "--lang",
            "en",
            "--no-head-snapshot",
            "--model",
            model(SMOL).to_str().unwrap(),
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
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = text(&out.stderr);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("error:"), "no turn may fail:\n{stderr}");
    let stats: Vec<&str> = stderr.lines().filter(|l| l.contains("prefilled")).collect();
    assert_eq!(
        stats.len(),
        lines.len(),
        "one answered turn per line:\n{stderr}"
    );
    assert!(
        stats.iter().any(|l| l.contains("compacted:")),
        "a dialogue this long must have been compacted:\n{stderr}"
    );
    // The next request still carries the last exchange and the system part.
    let request = &stdout[stdout.find("system: ").expect("the /request output")..];
    assert!(request.contains(lines.last().unwrap()), "{request}");
    assert!(
        request.contains("TOOL_CALL"),
        "the system part stays: {request}"
    );
    assert!(
        !request.contains(&lines[0]),
        "the oldest exchange was left out of the request: {request}"
    );
}

/// `porfiry bench voice`: every utterance played typed and spoken in each round, timed to
/// its first visible text; a spoken plain reply finds its prompt decoded ahead but the last
/// token (its partial held every word).
#[test]
fn bench_voice_times_typed_and_spoken_turns() {
    let data = tempfile::tempdir().unwrap();
    let out = run(porfiry().env("PORFIRY_DATA", data.path()).args([
        "bench",
        "voice",
        "--rounds",
        "1",
        "--greedy",
        "--threads",
        "2",
        "--json",
        "--model",
        model(GEMMA).to_str().unwrap(),
    ]));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let rows = v["utterances"].as_array().unwrap();
    assert_eq!(rows.len(), 6);
    for r in rows {
        for mode in ["typed", "spoken"] {
            let runs = r[mode].as_array().unwrap();
            assert_eq!(runs.len(), 1, "{r}");
            assert!(runs[0]["first_text_ms"].as_f64().unwrap() > 0.0, "{r}");
        }
    }
    let plain = rows
        .iter()
        .find(|r| r["tools"] == 0)
        .expect("a plain reply among the utterances");
    assert_eq!(plain["spoken_prefilled"], 1, "{plain}");
    assert!(plain["typed_prefilled"].as_u64().unwrap() > 1, "{plain}");
}
