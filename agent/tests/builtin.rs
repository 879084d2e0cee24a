//! The shipped `skills/` and `toolsets/` load cleanly and keep the prompt small.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use porfiry_agent::{
    Agent, AgentConfig, ExecutorTarget, Lang, ManualClock, SectionKind, ToolInvocation,
};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn agent(lang: Lang) -> Agent {
    let clock = Arc::new(ManualClock::parse("2026-08-22T10:00:00+03:00").unwrap());
    let loaded = Agent::load(
        AgentConfig {
            lang,
            ..AgentConfig::default()
        },
        &[root().join("skills")],
        &[root().join("toolsets")],
        clock,
    );
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    loaded.value
}

#[test]
fn builtin_files_load_without_diagnostics() {
    let a = agent(Lang::Ru);
    assert!(a.skills().get("media").is_some());
    let media = a.toolsets().get("media").expect("toolsets/media.yaml");
    assert!(media.tool("media_search").is_some());
    // Declarations only: the core ships no executor, so the prompt shows no set.
    assert!(a.missing_executors().contains(&"media_search".to_string()));
    assert_eq!(a.hidden_toolsets(), ["media", "notes"]);
}

#[test]
fn prompt_budget() {
    for lang in [Lang::Ru, Lang::En] {
        let mut a = agent(lang);
        // The budget of a host that runs every set (a set without an executor is hidden).
        for set in a.toolsets().names() {
            a.register_executor(
                ExecutorTarget::Toolset(set),
                Arc::new(|_: &ToolInvocation<'_>| Ok(String::new())),
            );
        }
        assert!(a.hidden_toolsets().is_empty());
        let state1 = a.prompt("s");
        let chars = state1.text().chars().count();
        // About 3 characters of Russian per Gemma token: well under 300 tokens.
        assert!(
            chars < 900,
            "{lang}: state 1 is {chars} chars:\n{}",
            state1.text()
        );
        for set in a.toolsets().names() {
            a.enable_toolset("s", &set).unwrap();
            let p = a.prompt("s");
            let section = p
                .sections()
                .iter()
                .find(|s| s.kind == SectionKind::ActiveToolsets)
                .expect("active section");
            // ≤ 400 tokens per active set, with a wide margin.
            let n = section.text.chars().count();
            assert!(n < 800, "{lang}: active {set} is {n} chars");
            a.disable_toolset("s", &set).unwrap();
        }
    }
}
