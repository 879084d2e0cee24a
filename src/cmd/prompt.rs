//! `porfiry prompt`: the system prompt of a fresh session with some toolsets active.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use porfiry_agent::{Agent, AgentConfig, Lang, ManualClock, Severity};

/// Arguments of `porfiry prompt`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A skill folder (repeatable). Default: the built-in `skills/`.
    #[arg(long = "skills", value_name = "DIR")]
    skills: Vec<PathBuf>,
    /// A toolset folder (repeatable). Default: the built-in `toolsets/`.
    #[arg(long = "toolsets", value_name = "DIR")]
    toolsets: Vec<PathBuf>,
    /// A toolset to activate (repeatable).
    #[arg(long = "active", value_name = "SET")]
    active: Vec<String>,
    /// Prompt language: ru or en.
    #[arg(long, default_value = "ru")]
    lang: Lang,
    /// Print `{"sections":[{"kind":..,"text":..,"chars":N}],"text":..}`.
    #[arg(long)]
    json: bool,
}

/// Run `porfiry prompt`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let skills = super::dirs_or_builtin(args.skills, "skills");
    let toolsets = super::dirs_or_builtin(args.toolsets, "toolsets");
    let config = AgentConfig {
        lang: args.lang,
        ..AgentConfig::default()
    };
    // The prompt never contains the time; any fixed clock gives the same text.
    let clock = Arc::new(ManualClock::parse("2026-01-01T00:00:00+00:00")?);
    let loaded = Agent::load(config, &skills, &toolsets, clock);
    for d in &loaded.diagnostics {
        eprintln!("{d}");
    }
    if loaded
        .diagnostics
        .iter()
        .any(|d| d.severity() == Severity::Error)
    {
        eprintln!("(files with errors were skipped)");
    }
    let mut agent = loaded.value;
    const SESSION: &str = "prompt";
    for set in &args.active {
        agent
            .enable_toolset(SESSION, set)
            .with_context(|| format!("--active {set}"))?;
    }
    let prompt = agent.prompt(SESSION);
    if args.json {
        println!("{}", serde_json::to_string(&prompt.to_json())?);
    } else {
        println!("{}", prompt.text());
    }
    Ok(ExitCode::SUCCESS)
}
