use porfiry_agent::scenario::{run_scenario_file, ScenarioDefaults};
use porfiry_agent::*;
use std::path::Path;
#[test]
fn probe() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for f in std::fs::read_dir("/tmp/probe").unwrap() {
        let f = f.unwrap().path();
        let d = ScenarioDefaults {
            skills: vec![root.join("skills")],
            toolsets: vec![root.join("toolsets")],
        };
        println!(
            "{}",
            run_scenario_file(&f, &d).to_string().replace("\\n", "\n")
        );
    }
    let clock = std::sync::Arc::new(ManualClock::parse("2026-08-22T10:00:00+03:00").unwrap());
    for lang in [Lang::Ru, Lang::En] {
        let mut a = Agent::load(
            AgentConfig {
                lang,
                ..AgentConfig::default()
            },
            &[root.join("skills")],
            &[root.join("toolsets")],
            clock.clone(),
        )
        .value;
        let v = a.request("x");
        println!(
            "{lang} head tokens {}",
            ScriptedModel::tokens_of(&v.system, &v.messages)
        );
        a.enable_toolset("x", "media").unwrap();
        let v = a.request("x");
        println!(
            "{lang} media tokens {}",
            ScriptedModel::tokens_of(&v.system, &v.messages)
        );
    }
}
