//! `porfiry toolsets check DIR... [--model [ID|PATH]]`: load toolset folders with the agent's
//! loader and report what is wrong (errors: the file does not load) and what will make a set
//! work badly (warnings: the file loads). The format: `docs/toolsets.md`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use porfiry_agent::{
    Agent, AgentConfig, ArgType, Intent, Lang, Loaded, Route, SystemClock, Technique, ToolDecl,
    Toolset, ToolsetRegistry,
};
use porfiry_runtime::{Runtime, RuntimeConfig, StderrProgress};

/// The languages a set's examples and phrases are written in.
const LANGS: [Lang; 2] = [Lang::Ru, Lang::En];

/// Fewer examples than this in a language route a tool poorly: a tool's route score is the
/// mean of its best two examples (`Technique::TopTwo`).
const FEW_EXAMPLES: usize = 2;

/// Arguments of `porfiry toolsets`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    action: Action,
}

#[derive(Debug, clap::Subcommand)]
enum Action {
    /// Load the toolset files of the folders (later folders override earlier ones, as with
    /// `--toolsets`); print `ok <name>` per set that loads, `error <path>: <reason>` per file
    /// that does not, `warning <path>: <reason>` for what loads but will work badly; exit 1 if
    /// any error, else 0.
    #[command(
        after_help = "Warnings: a language (ru, en) in which a set or one of its tools \
has no examples (no request in that language is routed to it), a tool with fewer than 2 \
examples in a language, an integer or number argument without min or max, a word `said` \
for two values of one argument, a required argument without `ask_for`. With --model, once \
every file loads, also every example routed with the model, without itself among the examples: one that routes \
to another tool, another set or to no tool is a warning. The format: docs/toolsets.md."
    )]
    Check {
        /// A toolset folder (repeatable).
        #[arg(value_name = "DIR", required = true)]
        dirs: Vec<PathBuf>,
        /// Also route every example with a model (the default model without a value, or a
        /// model id from `porfiry models list`, or a GGUF file), as the assistant routes a
        /// request, each example left out of the examples it is compared with.
        #[arg(long, value_name = "ID|PATH", num_args = 0..=1, default_missing_value = "")]
        model: Option<String>,
        /// With --model: CPU threads.
        #[arg(long, value_name = "N", requires = "model")]
        threads: Option<u32>,
        /// With --model: route among these folders' sets alone, not beside the built-in ones.
        #[arg(long, requires = "model")]
        no_builtin: bool,
    },
}

/// Run `porfiry toolsets`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    match args.action {
        Action::Check {
            dirs,
            model,
            threads,
            no_builtin,
        } => {
            let loaded = ToolsetRegistry::load(&dirs);
            for line in check_lines(&loaded) {
                println!("{line}");
            }
            if loaded.has_errors() {
                return Ok(ExitCode::FAILURE);
            }
            if let Some(model) = model {
                let model = Some(model).filter(|m| !m.is_empty());
                for line in route_lines(&loaded.value, &dirs, model, threads, no_builtin)? {
                    println!("{line}");
                }
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// The report of a load: `ok <name>` per set, the loader's diagnostics, then the warnings of
/// each set ([`set_warnings`]).
fn check_lines(loaded: &Loaded<ToolsetRegistry>) -> Vec<String> {
    let mut lines: Vec<String> = loaded
        .value
        .iter()
        .map(|s| format!("ok {}", s.name))
        .collect();
    lines.extend(loaded.diagnostics.iter().map(ToString::to_string));
    for set in loaded.value.iter() {
        lines.extend(
            set_warnings(set)
                .into_iter()
                .map(|w| format!("warning {}: {w}", set.path.display())),
        );
    }
    lines
}

/// What in a set that loads will work badly, one reason each.
fn set_warnings(set: &Toolset) -> Vec<String> {
    let mut out = Vec::new();
    let has = |lang: Lang, tool: &ToolDecl| tool.examples_in(lang).count();
    // The languages the set is routed in: those some tool of it has examples in.
    let routed: Vec<Lang> = LANGS
        .into_iter()
        .filter(|l| set.tools.iter().any(|t| has(*l, t) > 0))
        .collect();
    for lang in LANGS {
        if !routed.contains(&lang) {
            out.push(format!(
                "no examples in {lang}: no request in {lang} is routed to the set's tools"
            ));
        }
    }
    for tool in &set.tools {
        let name = &tool.name;
        for &lang in &routed {
            match has(lang, tool) {
                0 => out.push(format!(
                    "tool {name:?}: no examples in {lang}: no request in {lang} is routed to it"
                )),
                n if n < FEW_EXAMPLES => out.push(format!(
                    "tool {name:?}: {n} example in {lang}: give {FEW_EXAMPLES} or more (a tool \
                     is routed by the mean of its best two)"
                )),
                _ => {}
            }
        }
        for arg in &tool.args {
            let a = &arg.name;
            let numeric = matches!(arg.ty, ArgType::Integer | ArgType::Number);
            if numeric && arg.min.is_none() && arg.max.is_none() {
                out.push(format!(
                    "tool {name:?}: {} argument {a:?} has no min or max: any value is executed",
                    arg.ty.name()
                ));
            }
            for (word, values) in shared_said_words(&arg.said) {
                out.push(format!(
                    "tool {name:?}: argument {a:?}: {word:?} is said for {}: a request that \
                     says it does not decide the value",
                    values
                        .iter()
                        .map(|v| format!("{v:?}"))
                        .collect::<Vec<_>>()
                        .join(" and ")
                ));
            }
            if arg.required && asks_for_missing(tool) {
                let missing: Vec<Lang> = routed
                    .iter()
                    .copied()
                    .filter(|l| !arg.ask_for.iter().any(|(al, _)| al == l))
                    .collect();
                let fallback = match &arg.description {
                    Some(_) => {
                        "the question is built from its description (from its name in a language \
                         the description is not written in)"
                    }
                    None => "the question is built from its name (it has no description)",
                };
                if arg.ask_for.is_empty() {
                    out.push(format!(
                        "tool {name:?}: required argument {a:?} has no ask_for: when a request \
                         leaves it out, {fallback}"
                    ));
                } else {
                    for lang in missing {
                        out.push(format!(
                            "tool {name:?}: required argument {a:?} has no ask_for in {lang}: \
                             when a request in {lang} leaves it out, {fallback}"
                        ));
                    }
                }
            }
        }
    }
    out
}

/// Whether the assistant asks for a required argument of `tool` a request leaves out: it
/// fills every argument of a set's tool from the request but the one text of a tool that
/// takes only that (its text is the request's words; `Planner::fills_said_args`).
fn asks_for_missing(tool: &ToolDecl) -> bool {
    match tool.args.as_slice() {
        [] => false,
        [only] => only.ty != ArgType::String || only.values_from.is_some(),
        _ => true,
    }
}

/// The words (lower case) `said` gives for two values or more of one argument, or that are
/// another value's own name, each with those values, sorted by word.
fn shared_said_words(said: &[(String, Vec<String>)]) -> Vec<(String, Vec<String>)> {
    let mut by_word: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (value, words) in said {
        for w in words {
            let entry = by_word.entry(w.to_lowercase()).or_default();
            if !entry.contains(value) {
                entry.push(value.clone());
            }
        }
    }
    // A value's own name said for another value: a request saying it names both.
    for (value, _) in said {
        if let Some(entry) = by_word.get_mut(&value.to_lowercase()) {
            if !entry.is_empty() && !entry.contains(value) {
                entry.insert(0, value.clone());
            }
        }
    }
    by_word.into_iter().filter(|(_, v)| v.len() > 1).collect()
}

/// `--model`: every example of the checked sets routed on the model, as a request of a fresh
/// session (a tool that takes an id routable as after its set replied), among every example
/// of the loaded sets, core tools and replies but itself. One warning per example that routes
/// elsewhere than its tool.
fn route_lines(
    checked: &ToolsetRegistry,
    dirs: &[PathBuf],
    model: Option<String>,
    threads: Option<u32>,
    no_builtin: bool,
) -> anyhow::Result<Vec<String>> {
    let config = RuntimeConfig {
        model,
        threads,
        builtin: !no_builtin,
        toolset_dirs: dirs.to_vec(),
        ..RuntimeConfig::default()
    };
    let (mut runtime, report) = Runtime::open(&config, &StderrProgress::new())?;
    eprintln!(
        "{}",
        super::ask::dim(&format!("routing the examples on {}", report.model))
    );
    let skills = runtime.agent().skills().clone();
    let all = runtime.agent().toolsets().clone();
    let mut lines = Vec::new();
    let mut routed = false;
    for set in checked.iter() {
        for tool in &set.tools {
            for (lang, text) in &tool.examples {
                let agent_config = route_config(*lang);
                let without = without_example(&all, &tool.name, *lang, text);
                let mut agent =
                    Agent::new(agent_config, skills.clone(), without, Arc::new(SystemClock));
                let (_, model) = runtime.parts();
                let route = agent.route("toolsets-check", text, model);
                routed |= route.is_some();
                let why = match &route {
                    Some(route) => misroute(route, set, &tool.name),
                    None => Some(
                        "is not routed: the model would choose the first action on its own"
                            .to_string(),
                    ),
                };
                if let Some(why) = why {
                    lines.push(format!(
                        "warning {}: tool {:?}: {lang} example {text:?} {why}",
                        set.path.display(),
                        tool.name
                    ));
                }
            }
        }
    }
    // Not one route: the model cannot embed (routing is off for it), nothing to report.
    if !routed && !lines.is_empty() {
        anyhow::bail!("the model routes nothing (it cannot embed texts): routing not checked");
    }
    Ok(lines)
}

/// The agent's configuration for routing in `lang`: the default guidance, every set shown
/// (no executors here), a tool that takes an id routable in a fresh session.
fn route_config(lang: Lang) -> AgentConfig {
    let mut config = AgentConfig {
        lang,
        ..AgentConfig::default()
    };
    config.guidance.set(Technique::Route, true);
    config.guidance.set(Technique::HideUnexecutable, false);
    config.guidance.set(Technique::IdAfterReply, false);
    config
}

/// `sets` with the example `text` in `lang` of tool `tool` left out.
fn without_example(sets: &ToolsetRegistry, tool: &str, lang: Lang, text: &str) -> ToolsetRegistry {
    ToolsetRegistry::from_toolsets(sets.iter().cloned().map(|mut s| {
        if let Some(t) = s.tools.iter_mut().find(|t| t.name == tool) {
            t.examples.retain(|(l, e)| !(*l == lang && e == text));
        }
        s
    }))
}

/// Why `route` is not a route to `tool` of `set`: `None` when it is.
fn misroute(route: &Route, set: &Toolset, tool: &str) -> Option<String> {
    let target = route.target.as_deref().filter(|t| !t.is_empty());
    let near = |r: &Route| format!(" (nearest example: {:?})", r.example);
    Some(match target {
        Some(t) if t == tool => return None,
        None => format!("routes to no tool: a plain reply{}", near(route)),
        Some(t) => match Intent::from_target(t) {
            Some(intent) => format!(
                "routes to no tool: the {} reply{}",
                intent.name(),
                near(route)
            ),
            None if set.tool(t).is_some() => {
                format!("routes to {t}, another tool of its set{}", near(route))
            }
            None if porfiry_agent::CORE_TOOL_NAMES.contains(&t) => {
                format!("routes to the core tool {t}{}", near(route))
            }
            None => format!("routes to {t}, a tool of another set{}", near(route)),
        },
    })
}
