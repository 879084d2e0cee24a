//! `porfiry bench cold`: the cold start, process by process. Each run is a fresh `porfiry
//! ask --json` process; the first of a condition starts on an empty data folder (the first
//! run ever: the head is built and routing's example requests are embedded and kept), the
//! others on the folder it left (the head restored from its snapshot, the examples read back).

use std::process::{Command, ExitCode, Stdio};
use std::time::Instant;

use anyhow::{bail, Context};
use porfiry_bench::{Busy, Condition};

/// Arguments of `porfiry bench cold`.
#[derive(Debug, clap::Args)]
pub struct ColdArgs {
    /// Model id from the manifest or a path to a GGUF file. Default: the manifest's default.
    #[arg(long, value_name = "ID|PATH")]
    model: Option<String>,
    /// Runs per condition after the first (which starts on an empty data folder).
    #[arg(long, value_name = "N", default_value_t = 3)]
    runs: usize,
    /// Conditions, comma-separated: quiet, busyN (N CPU-bound processes per core).
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_value = "quiet,busy1,busy2", value_parser = Condition::parse)]
    conditions: Vec<Condition>,
    /// What the user asks first.
    #[arg(
        long,
        value_name = "TEXT",
        default_value = "Привет! Сколько сейчас времени?"
    )]
    text: String,
}

/// Figures of one process, ms.
struct Run {
    first: bool,
    wall_ms: f64,
    load_ms: f64,
    head_ms: f64,
    head_source: String,
    routes_ms: f64,
    ready_at_ms: f64,
    answered_at_ms: f64,
}

/// Run `porfiry bench cold`.
pub fn run(a: ColdArgs) -> anyhow::Result<ExitCode> {
    let exe = std::env::current_exe()?;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "{:<7} {:<6} {:>9} {:>9} {:>9} {:>8} {:>9} {:>9} {:>9}",
        "cond", "run", "load", "head", "routes", "", "ready at", "answer at", "process"
    );
    for condition in &a.conditions {
        let _busy = match condition {
            Condition::Quiet => None,
            Condition::Busy(n) => Some(Busy::start(cores * *n as usize)?),
            Condition::Cpus(_) => bail!("bench cold takes quiet and busyN conditions"),
        };
        let data = std::env::temp_dir().join(format!(
            "porfiry-cold-{}-{}",
            std::process::id(),
            condition.name()
        ));
        let _ = std::fs::remove_dir_all(&data);
        std::fs::create_dir_all(&data).with_context(|| format!("creating {}", data.display()))?;
        for i in 0..=a.runs {
            let r = one_run(&exe, &a, &data, i == 0)
                .with_context(|| format!("{} run {i}", condition.name()))?;
            println!(
                "{:<7} {:<6} {:>7.0}ms {:>7.0}ms {:>7.0}ms {:>8} {:>7.0}ms {:>7.0}ms {:>7.0}ms",
                condition.name(),
                if r.first {
                    "first".to_owned()
                } else {
                    format!("#{i}")
                },
                r.load_ms,
                r.head_ms,
                r.routes_ms,
                r.head_source,
                r.ready_at_ms,
                r.answered_at_ms,
                r.wall_ms
            );
        }
        let _ = std::fs::remove_dir_all(&data);
    }
    println!(
        "(each row one fresh `porfiry ask` process; load: the model; head: the static head \
         prepared (built, or restored from its snapshot); routes: routing's example requests \
         embedded (first run) or read back; ready at / answer at: ms since the process started \
         when the runtime was ready / the first answer was complete; process: spawn to exit)"
    );
    Ok(ExitCode::SUCCESS)
}

fn one_run(
    exe: &std::path::Path,
    a: &ColdArgs,
    data: &std::path::Path,
    first: bool,
) -> anyhow::Result<Run> {
    let mut cmd = Command::new(exe);
    cmd.args(["ask", "--json", "--greedy", &a.text])
        .env("PORFIRY_DATA", data)
        .stdin(Stdio::null())
        .stderr(Stdio::null());
    if let Some(m) = &a.model {
        cmd.args(["--model", m]);
    }
    let started = Instant::now();
    let out = cmd.output().context("running porfiry ask")?;
    let wall_ms = started.elapsed().as_secs_f64() * 1e3;
    let json: serde_json::Value =
        serde_json::from_slice(&out.stdout).context("reading porfiry ask's JSON")?;
    let s = &json["startup"];
    if s.is_null() {
        bail!("porfiry ask reported no startup figures");
    }
    let f = |v: &serde_json::Value| v.as_f64().unwrap_or(0.0);
    Ok(Run {
        first,
        wall_ms,
        load_ms: f(&s["load_ms"]),
        head_ms: f(&s["head_ms"]),
        head_source: s["head_source"].as_str().unwrap_or("-").to_owned(),
        routes_ms: f(&s["routes_ms"]),
        ready_at_ms: f(&s["ready_at_ms"]),
        answered_at_ms: f(&json["answered_at_ms"]),
    })
}
