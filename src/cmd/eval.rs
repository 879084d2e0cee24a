//! `porfiry eval tools`: does the model use its tools? Case files through the real agent loop
//! and engine, the first action of each turn scored, variants side by side.

use std::path::PathBuf;
use std::process::ExitCode;

use porfiry_agent::Lang;
use porfiry_bench::eval::{
    find_variant, load_eval_file, run_eval, CaseDone, EvalModel, EvalOptions, EvalPlan, VARIANTS,
};

/// Arguments of `porfiry eval`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    action: Action,
}

#[derive(Debug, clap::Subcommand)]
enum Action {
    /// Run tool-use cases (`evals/*.yaml`): each case in a fresh session, greedy, manual
    /// clock; the first action of the turn scored (a tool call, or a plain reply), the whole
    /// turn where a case gives `reply_contains`. One progress line per case on stderr; the
    /// report (per case, totals per variant) on stdout.
    Tools(ToolsArgs),
}

#[derive(Debug, clap::Args)]
struct ToolsArgs {
    /// Model id from the manifest or a path to a GGUF file. Default: the manifest's default.
    #[arg(long, value_name = "ID|PATH")]
    model: Option<String>,
    /// Run only the case files in this language (ru or en); the others are skipped.
    #[arg(long, value_name = "LANG")]
    lang: Option<Lang>,
    // Its help lists the registered variants.
    #[arg(long = "variant", value_name = "NAME", help = variant_help())]
    variants: Vec<String>,
    /// Run every case's whole turn, not only the cases with `reply_contains`.
    #[arg(long)]
    whole_turns: bool,
    /// Measure routing alone: each case's route is scored as its first action (the tool
    /// name; arguments are not generated). Seconds, not minutes.
    #[arg(long, conflicts_with = "whole_turns")]
    routes_only: bool,
    /// CPU threads (default: the performance cores, else the physical cores).
    #[arg(long, value_name = "N")]
    threads: Option<u32>,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
    /// Case files (YAML); a folder runs every `*.yaml` / `*.yml` in it.
    #[arg(value_name = "FILE", required = true)]
    files: Vec<PathBuf>,
}

fn variant_help() -> String {
    let mut names: Vec<&str> = VARIANTS.iter().map(|v| v.name).collect();
    names.push("without:<technique> (docs/guidance.md)");
    format!(
        "A variant to run (repeatable; side by side in one run): {}. Default: baseline",
        names.join(", ")
    )
}

/// Run `porfiry eval`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    match args.action {
        Action::Tools(a) => tools(a),
    }
}

fn tools(a: ToolsArgs) -> anyhow::Result<ExitCode> {
    let names = if a.variants.is_empty() {
        vec!["baseline".to_string()]
    } else {
        a.variants.clone()
    };
    let variants = names
        .iter()
        .map(|n| find_variant(n))
        .collect::<Result<Vec<_>, _>>()?;
    let mut files = Vec::new();
    for path in super::yaml_files(a.files)? {
        let file = load_eval_file(&path)?;
        match a.lang {
            Some(lang) if file.lang != lang => {
                eprintln!(
                    "skipping {} (lang {}, not {lang})",
                    path.display(),
                    file.lang
                )
            }
            _ => files.push(file),
        }
    }
    if files.is_empty() {
        anyhow::bail!(
            "no case file to run{}",
            a.lang.map(|l| format!(" in {l}")).unwrap_or_default()
        );
    }
    let defaults = EvalPlan::builtin_folders()?;
    let options = EvalOptions {
        whole_turns: a.whole_turns,
        routes_only: a.routes_only,
    };
    let plan = EvalPlan::new(files, &variants, defaults, options)?;
    let mut model = EvalModel::open(a.model.as_deref(), a.threads)?;
    eprintln!(
        "eval tools: model {}, {} case(s) × {} variant(s)",
        model.label(),
        plan.cases(),
        variants.len()
    );
    let report = run_eval(plan, &mut model, &mut |d: CaseDone<'_>| {
        let r = d.result;
        eprintln!(
            "[{}/{} {}] {}#{} {} {} (expected {}) {:.1} s  {:?}",
            d.done,
            d.total,
            d.variant,
            r.file,
            r.case,
            if r.correct { '+' } else { '-' },
            r.first_action.label(),
            r.expected.join(" | "),
            r.stats.turn_ms / 1000.0,
            r.user
        );
    })?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", report.text());
    }
    Ok(ExitCode::SUCCESS)
}
