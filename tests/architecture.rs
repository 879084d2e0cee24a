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
        ("porfiry-model", &[]),
        ("porfiry-models", &[]),
        // The front matter of skill and protocol documents: one reading for the agent's
        // skill folders and the catalog.
        ("porfiry-frontmatter", &[]),
        ("porfiry-agent", &["porfiry-model", "porfiry-frontmatter"]),
        // The catalog (skills and protocols in SQLite) stands apart from the agent and the
        // model; hosts reach it through the runtime.
        ("porfiry-catalog", &["porfiry-frontmatter"]),
        // The engine knows the model seam, never the agent (skills, toolsets, prompts).
        ("porfiry-engine", &["porfiry-model"]),
        // Only the runtime uses the models crate and the engine together; it executes the
        // `skills` toolset over the catalog.
        (
            "porfiry-runtime",
            &[
                "porfiry-model",
                "porfiry-agent",
                "porfiry-engine",
                "porfiry-models",
                "porfiry-catalog",
            ],
        ),
        (
            "porfiry-ffi",
            &["porfiry-model", "porfiry-agent", "porfiry-runtime"],
        ),
        (
            "porfiry-bench",
            &[
                "porfiry-model",
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
                "porfiry-model",
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
