//! The dependency rules of ARCHITECTURE.md, checked on `cargo metadata`: which workspace
//! crate may depend on which, and who alone may use llama.cpp and JNI.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

/// Workspace package → its dependencies (normal and build; dev-dependencies are tests').
fn dependencies() -> BTreeMap<String, BTreeSet<String>> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo metadata");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("metadata JSON");
    let mut map = BTreeMap::new();
    for p in v["packages"].as_array().expect("packages") {
        let deps = p["dependencies"]
            .as_array()
            .expect("dependencies")
            .iter()
            .filter(|d| d["kind"].as_str() != Some("dev"))
            .map(|d| d["name"].as_str().unwrap_or_default().to_string())
            .collect();
        map.insert(p["name"].as_str().unwrap_or_default().to_string(), deps);
    }
    map
}

fn ours(deps: &BTreeSet<String>) -> BTreeSet<&str> {
    deps.iter()
        .map(String::as_str)
        .filter(|d| d.starts_with("porfiry"))
        .collect()
}

#[test]
fn crates_depend_only_as_the_architecture_says() {
    let all = dependencies();
    // crate → the workspace crates it may depend on (anything else is a broken rule).
    let allowed: &[(&str, &[&str])] = &[
        ("porfiry-seam", &[]),
        ("porfiry-models", &[]),
        // The front matter of skill and protocol documents: one reading for the agent's
        // skill folders and the catalog.
        ("porfiry-frontmatter", &[]),
        ("porfiry-agent", &["porfiry-seam", "porfiry-frontmatter"]),
        // The catalog (skills and protocols in SQLite) stands apart from the agent and the
        // model; hosts reach it through the runtime.
        ("porfiry-catalog", &["porfiry-frontmatter"]),
        // The engine knows the model seam, never the agent (skills, toolsets, prompts).
        ("porfiry-engine", &["porfiry-seam"]),
        // Only the runtime uses the models crate and the engine together; it executes the
        // `skills` toolset over the catalog.
        (
            "porfiry-runtime",
            &[
                "porfiry-seam",
                "porfiry-agent",
                "porfiry-engine",
                "porfiry-models",
                "porfiry-catalog",
            ],
        ),
        (
            "porfiry-ffi",
            &["porfiry-seam", "porfiry-agent", "porfiry-runtime"],
        ),
        (
            "porfiry-bench",
            &[
                "porfiry-seam",
                "porfiry-agent",
                "porfiry-engine",
                "porfiry-runtime",
            ],
        ),
        // The CLI's `models` command is the one host that uses the models crate directly;
        // its `catalog` command edits the catalog file directly.
        (
            "porfiry",
            &[
                "porfiry-seam",
                "porfiry-agent",
                "porfiry-engine",
                "porfiry-runtime",
                "porfiry-models",
                "porfiry-bench",
                "porfiry-catalog",
            ],
        ),
    ];
    let names: BTreeSet<&str> = all.keys().map(String::as_str).collect();
    let ruled: BTreeSet<&str> = allowed.iter().map(|(n, _)| *n).collect();
    assert_eq!(names, ruled, "every workspace crate has a rule");
    for (name, may) in allowed {
        let may: BTreeSet<&str> = may.iter().copied().collect();
        let has = ours(&all[*name]);
        let extra: Vec<_> = has.difference(&may).collect();
        assert!(extra.is_empty(), "{name} must not depend on {extra:?}");
    }
    for (name, deps) in &all {
        if deps.contains("llama-cpp-2") || deps.contains("llama-cpp-sys-2") {
            assert_eq!(name, "porfiry-engine", "only the engine uses llama.cpp");
        }
        if deps.contains("jni") {
            assert_eq!(name, "porfiry-ffi", "only the bridge knows JNI");
        }
    }
}

/// The engine's source files (`engine/src`, unit tests included), with their text.
fn engine_sources() -> Vec<(std::path::PathBuf, String)> {
    let mut out = Vec::new();
    let mut dirs = vec![std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("engine/src")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("engine/src") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).expect("a source file");
                out.push((path, text));
            }
        }
    }
    out
}

/// Whether `word` occurs in `text` as a word of its own (no letter, digit or `_` touching it).
fn has_word(text: &str, word: &str) -> bool {
    let part = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    text.match_indices(word).any(|(at, _)| {
        !part(text[..at].chars().next_back()) && !part(text[at + word.len()..].chars().next())
    })
}

#[test]
fn the_engine_spells_none_of_the_agent_s_words() {
    use porfiry_agent::wire;
    // The call line's words come from the agent through the request (the grammar) and from
    // the seam's definition of a chat format's call syntax (a tool result's header); the
    // core tools' names are the agent's. The engine's integration tests (`engine/tests`) may
    // use them: they feed the engine what the agent sends it (call lines, forged tool
    // results) and are not part of what ships.
    let marker = wire::CALL_MARKER.trim_end_matches(':');
    let header = wire::RESULT_HEADER.trim().trim_end_matches(':');
    let mut words = vec![marker, header, "read_skill", "enable_toolset"];
    // The yes/no words beside the grammar's ASCII ones (`true`, `no`: plain English).
    words.extend(wire::BOOLEAN_WORDS.iter().filter(|w| !w.is_ascii()));
    assert!(words.contains(&"TOOL_CALL") && words.contains(&"TOOL_RESULT"));
    assert!(words.contains(&"да") && words.contains(&"нет"));
    let sources = engine_sources();
    assert!(sources.len() > 10, "engine/src read");
    let mut found = Vec::new();
    for (path, text) in &sources {
        for word in &words {
            let hit = match word.is_ascii() {
                true => text.contains(word),
                false => has_word(text, word),
            };
            if hit {
                found.push(format!("{} spells {word:?}", path.display()));
            }
        }
    }
    assert!(found.is_empty(), "{found:#?}");
    assert!(has_word("bool ::= \"да\"", "да") && !has_word("когда", "да"));
}
