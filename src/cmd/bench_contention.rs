//! `porfiry bench contention`: the runtime quiet and on a busy machine, thread settings side
//! by side (`porfiry_bench::run_contention`).

use std::process::{Command, ExitCode};

use anyhow::{bail, Context};
use porfiry_bench::{contention_table, Condition, ContentionBench, ContentionReport};

/// Arguments of `porfiry bench contention`.
#[derive(Debug, clap::Args)]
pub struct ContentionArgs {
    /// Model id from the manifest or a path to a GGUF file. Default: the manifest's default.
    #[arg(long, value_name = "ID|PATH")]
    model: Option<String>,
    /// CPU threads of this process's engine (default: the engine's choice). With
    /// `--settings`, each setting says its own.
    #[arg(long, value_name = "N")]
    threads: Option<u32>,
    /// The nice value the compute threads ask for (default: the engine's, `DEFAULT_NICE`;
    /// 0: no more than any other process). With `--settings`, each setting says its own.
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    nice: Option<i32>,
    /// Thread settings to compare, each in a child process, comma-separated: `N` (N threads,
    /// OpenMP waiting as the environment says), `N-passive` / `N-active` (OpenMP threads
    /// that sleep / spin while they wait: `OMP_WAIT_POLICY`), `auto` (the engine's choice);
    /// each may end in `@NICE`, the nice value its compute threads ask for (`2@0`, `2@-5`).
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    settings: Vec<String>,
    /// Another build of porfiry to run every setting on as well, `LABEL=PATH` (for
    /// example llama.cpp built without OpenMP); repeatable.
    #[arg(long = "build", value_name = "LABEL=PATH")]
    builds: Vec<String>,
    /// Conditions, comma-separated: quiet, busyN (N CPU-bound processes per core), cpusN
    /// (the process narrowed to N CPUs).
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_value = "quiet,busy1,busy2,cpus1", value_parser = Condition::parse)]
    conditions: Vec<Condition>,
    /// Dialogue turns per condition.
    #[arg(long, value_name = "N", default_value_t = 8)]
    turns: usize,
    /// Short questions answered greedily per condition.
    #[arg(long, value_name = "N", default_value_t = 12)]
    answers: usize,
    /// Cancels per condition (a third each: prefill, decode, embedding).
    #[arg(long, value_name = "N", default_value_t = 12)]
    cancels: usize,
    /// Closes per condition (half during a generation, half during an embedding).
    #[arg(long, value_name = "N", default_value_t = 6)]
    closes: usize,
    /// Seed of the delays.
    #[arg(long, value_name = "N", default_value_t = 17)]
    seed: u64,
    /// The label of this process's figures (set by the parent for a child).
    #[arg(long, value_name = "TEXT", hide = true)]
    label: Option<String>,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

/// One setting to run: its label, the binary, its thread count and OpenMP waiting.
struct Setting {
    label: String,
    binary: std::path::PathBuf,
    threads: Option<u32>,
    wait_policy: Option<&'static str>,
    nice: Option<i32>,
}

fn settings(a: &ContentionArgs) -> anyhow::Result<Vec<Setting>> {
    let mut builds = vec![("this".to_owned(), std::env::current_exe()?)];
    for b in &a.builds {
        let Some((label, path)) = b.split_once('=') else {
            bail!("--build takes LABEL=PATH, got {b:?}");
        };
        builds.push((label.to_owned(), path.into()));
    }
    let mut out = Vec::new();
    for (build, binary) in &builds {
        for s in &a.settings {
            let (spec, nice) = match s.split_once('@') {
                Some((spec, n)) => (
                    spec,
                    Some(
                        n.parse()
                            .with_context(|| format!("the nice value of {s:?}"))?,
                    ),
                ),
                None => (s.as_str(), None),
            };
            let (threads, wait_policy) = match spec.split_once('-') {
                None => (spec, None),
                Some((t, "passive")) => (t, Some("PASSIVE")),
                Some((t, "active")) => (t, Some("ACTIVE")),
                Some(_) => bail!("unknown setting {s:?}: N, N-passive, N-active or auto"),
            };
            let threads = match threads {
                "auto" => None,
                t => Some(t.parse().with_context(|| format!("setting {s:?}"))?),
            };
            out.push(Setting {
                label: format!("{build}:{s}"),
                binary: binary.clone(),
                threads,
                wait_policy,
                nice,
            });
        }
    }
    Ok(out)
}

/// Run `porfiry bench contention`.
pub fn run(a: ContentionArgs) -> anyhow::Result<ExitCode> {
    let reports = if a.settings.is_empty() {
        let bench = ContentionBench {
            model: a.model.clone(),
            threads: a.threads,
            nice: a.nice,
            turns: a.turns,
            answers: a.answers,
            cancels: a.cancels,
            closes: a.closes,
            conditions: a.conditions.clone(),
            seed: a.seed,
        };
        let label = a.label.clone().unwrap_or_else(|| {
            a.threads
                .map_or_else(|| "auto".to_owned(), |t| t.to_string())
        });
        vec![porfiry_bench::run_contention(
            &bench,
            &label,
            &mut |line| eprintln!("{line}"),
        )?]
    } else {
        let mut reports = Vec::new();
        for s in settings(&a)? {
            eprintln!("== {} ==", s.label);
            reports.push(run_child(&a, &s)?);
        }
        reports
    };
    if a.json {
        println!("{}", serde_json::to_string_pretty(&reports)?);
    } else {
        print!("{}", contention_table(&reports));
    }
    let hangs: usize = reports
        .iter()
        .flat_map(|r| &r.conditions)
        .map(|c| c.hangs)
        .sum();
    Ok(if hangs == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Run one setting in a child process and read its JSON report.
fn run_child(a: &ContentionArgs, s: &Setting) -> anyhow::Result<ContentionReport> {
    let mut cmd = Command::new(&s.binary);
    cmd.args(["bench", "contention", "--json", "--label", &s.label])
        .args(["--turns", &a.turns.to_string()])
        .args(["--answers", &a.answers.to_string()])
        .args(["--cancels", &a.cancels.to_string()])
        .args(["--closes", &a.closes.to_string()])
        .args(["--seed", &a.seed.to_string()]);
    let conditions: Vec<String> = a.conditions.iter().map(|c| c.name()).collect();
    cmd.args(["--conditions", &conditions.join(",")]);
    if let Some(m) = &a.model {
        cmd.args(["--model", m]);
    }
    if let Some(t) = s.threads {
        cmd.args(["--threads", &t.to_string()]);
    }
    if let Some(n) = s.nice {
        cmd.arg(format!("--nice={n}"));
    }
    match s.wait_policy {
        Some(p) => cmd.env("OMP_WAIT_POLICY", p),
        None => cmd.env_remove("OMP_WAIT_POLICY"),
    };
    let out = cmd
        .stderr(std::process::Stdio::inherit())
        .output()
        .with_context(|| format!("running {}", s.binary.display()))?;
    let mut reports: Vec<ContentionReport> = serde_json::from_slice(&out.stdout)
        .with_context(|| format!("reading the report of {}", s.label))?;
    reports
        .pop()
        .with_context(|| format!("{} reported nothing", s.label))
}
