//! `porfiry eval tools` and `porfiry eval talk`: does the model use its tools, and would a
//! person accept its replies? Case files through the real agent loop and engine, the first
//! action of each turn scored and its reply judged, variants side by side. Both run the same
//! code; `talk` runs every turn whole, so every reply is judged.

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
    /// clock; the first action of each turn scored (a tool call, or a plain reply) and every
    /// reply there is judged (`judged` beside the first-action figure), the whole turn where
    /// a turn checks its reply (`reply_contains`, `reply_matches`) or belongs to a
    /// conversation. One progress line per turn on stderr; the report (per turn, totals per
    /// variant) on stdout.
    Tools(ToolsArgs),
    /// Run conversation cases (`evals/talk_*.yaml`, or any case file): every turn whole,
    /// history carried over within a case, each reply judged as a person would (the judge's
    /// rules: porfiry_agent::judge_reply). Per turn the verdict and the rule a failing reply
    /// broke; totals: the acceptable-turn rate (`judged`), failures per rule, conversations
    /// right in every turn. Options as `eval tools`.
    Talk(TalkArgs),
}

/// What `eval tools` and `eval talk` both take.
#[derive(Debug, clap::Args)]
struct CaseArgs {
    /// Model id from the manifest or a path to a GGUF file. Default: the manifest's default.
    #[arg(long, value_name = "ID|PATH")]
    model: Option<String>,
    /// Run only the case files in this language (ru or en); the others are skipped.
    #[arg(long, value_name = "LANG")]
    lang: Option<Lang>,
    // Its help lists the registered variants.
    #[arg(long = "variant", value_name = "NAME", help = variant_help())]
    variants: Vec<String>,
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

#[derive(Debug, clap::Args)]
struct TalkArgs {
    #[command(flatten)]
    cases: CaseArgs,
}

impl From<TalkArgs> for ToolsArgs {
    fn from(a: TalkArgs) -> Self {
        ToolsArgs {
            cases: a.cases,
            whole_turns: true,
            routes_only: false,
        }
    }
}

#[derive(Debug, clap::Args)]
struct ToolsArgs {
    #[command(flatten)]
    cases: CaseArgs,
    /// Run every case's whole turn, not only the turns that check their reply.
    #[arg(long)]
    whole_turns: bool,
    /// Measure routing alone: each case's route is scored as its first action (the tool
    /// name; arguments are not generated). Seconds, not minutes.
    #[arg(long, conflicts_with = "whole_turns")]
    routes_only: bool,
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
        Action::Tools(a) => tools(a, "tools"),
        Action::Talk(a) => tools(a.into(), "talk"),
    }
}

fn tools(args: ToolsArgs, command: &str) -> anyhow::Result<ExitCode> {
    let (a, whole_turns, routes_only) = (args.cases, args.whole_turns, args.routes_only);
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
        whole_turns,
        routes_only,
    };
    let plan = EvalPlan::new(files, &variants, defaults, options)?;
    let mut model = EvalModel::open(a.model.as_deref(), a.threads)?;
    eprintln!(
        "eval {command}: model {}, {} case(s), {} turn(s) × {} variant(s)",
        model.label(),
        plan.cases(),
        plan.turns(),
        variants.len()
    );
    let report = run_eval(plan, &mut model, &mut |d: CaseDone<'_>| {
        let r = d.result;
        let mark = |ok: bool| if ok { '+' } else { '-' };
        let verdict = match r.verdict.map(|v| v.rule()) {
            Some(Some(rule)) => format!(" reply fails {rule}"),
            Some(None) => " reply ok".to_string(),
            None => String::new(),
        };
        // The model's mean token log-probability of a plain reply, and a decline for doubt.
        let verdict = match r.confidence.as_ref().and_then(|c| c.mean_logprob()) {
            Some(mean) if r.unsure => format!("{verdict} (declined unsure, conf {mean:.2})"),
            Some(mean) => format!("{verdict} (conf {mean:.2})"),
            None => verdict,
        };
        eprintln!(
            "[{}/{} {}] {}#{}.{} {}{} {} (expected {}){verdict} {:.1} s  {:?}",
            d.done,
            d.total,
            d.variant,
            r.file,
            r.case,
            r.turn_index,
            mark(r.correct),
            mark(r.judged),
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
