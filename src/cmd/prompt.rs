//! `porfiry prompt`: the system prompt of a fresh session with some toolsets active, as a
//! host that executes every declared toolset (the phone app) sees it; `chat` leaves out the
//! sets the command line cannot run.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use porfiry_agent::{AgentConfig, Lang, ManualClock, Severity, Technique};

/// Arguments of `porfiry prompt`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A skill folder of yours (repeatable), loaded over the built-in skills.
    #[arg(long = "skills", value_name = "DIR")]
    skills: Vec<PathBuf>,
    /// A toolset folder of yours (repeatable), loaded over the built-in toolsets.
    #[arg(long = "toolsets", value_name = "DIR")]
    toolsets: Vec<PathBuf>,
    /// Leave the built-in skills and toolsets out.
    #[arg(long)]
    no_builtin: bool,
    /// A toolset to activate (repeatable).
    #[arg(long = "active", value_name = "SET")]
    active: Vec<String>,
    /// Prompt language: ru or en.
    #[arg(long, default_value = "ru")]
    lang: Lang,
    /// Include the worked examples of the call line (`Technique::FewShot`).
    #[arg(long)]
    few_shot: bool,
    /// Print `{"sections":[{"kind":..,"text":..,"chars":N,"tokens":N}],"text":..,"tokens":{..}}`.
    /// Token counts come from the model's vocabulary (loaded alone, no weights): `--model`,
    /// else the default model when its file is present; `null` when no model is available.
    #[arg(long)]
    json: bool,
    /// Model id or GGUF path whose vocabulary counts the tokens (with `--json`).
    #[arg(long, value_name = "ID|PATH")]
    model: Option<String>,
}

/// Run `porfiry prompt`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let skills = super::with_builtin(args.skills, "skills", args.no_builtin)?;
    let toolsets = super::with_builtin(args.toolsets, "toolsets", args.no_builtin)?;
    let mut config = AgentConfig {
        lang: args.lang,
        ..AgentConfig::default()
    };
    // Every declared set shows, as on a host that executes them all.
    config.guidance.set(Technique::HideUnexecutable, false);
    config.guidance.set(Technique::FewShot, args.few_shot);
    // The prompt never contains the time; any fixed clock gives the same text.
    let clock = Arc::new(ManualClock::parse("2026-01-01T00:00:00+00:00")?);
    let (mut agent, diagnostics) =
        porfiry_runtime::load_agent_from(config, &skills, &toolsets, clock);
    for d in &diagnostics {
        eprintln!("{d}");
    }
    if diagnostics.iter().any(|d| d.severity() == Severity::Error) {
        eprintln!("(files with errors were skipped)");
    }
    const SESSION: &str = "prompt";
    for set in &args.active {
        agent
            .enable_toolset(SESSION, set)
            .with_context(|| format!("--active {set}"))?;
    }
    let prompt = agent.prompt(SESSION);
    if args.json {
        let mut json = prompt.to_json();
        add_token_counts(&mut json, &prompt, args.model.as_deref())?;
        println!("{}", serde_json::to_string(&json)?);
    } else {
        println!("{}", prompt.text());
    }
    Ok(ExitCode::SUCCESS)
}

/// Add per-section token counts (and totals) from the model's vocabulary. With an explicit
/// `--model` a missing model is an error; without one, counts are `null` when the default
/// model is not there.
fn add_token_counts(
    json: &mut serde_json::Value,
    prompt: &porfiry_agent::Prompt,
    model: Option<&str>,
) -> anyhow::Result<()> {
    let choice = match porfiry_bench::resolve_model(model) {
        Ok(c) => c,
        Err(e) if model.is_some() => return Err(e.into()),
        Err(e) => {
            eprintln!("no token counts: {e}");
            json["tokens"] = serde_json::Value::Null;
            return Ok(());
        }
    };
    let tok = porfiry_engine::Tokenizer::load(&choice.path, choice.chat_format())
        .with_context(|| format!("loading the vocabulary of {}", choice.path.display()))?;
    if let Some(sections) = json["sections"].as_array_mut() {
        for (j, s) in sections.iter_mut().zip(prompt.sections()) {
            j["tokens"] = tok.count(&s.text).into();
        }
    }
    // The prompt as the model sees it alone: chat framing + system text + generation prompt.
    let framed = tok.render(prompt.text(), &[]).tokens.len();
    json["tokens"] = serde_json::json!({
        "model": choice.path.display().to_string(),
        "text": tok.count(prompt.text()),
        "static_prefix": tok.count(prompt.static_prefix()),
        "framed": framed,
    });
    Ok(())
}
