//! `porfiry chat`: an interactive conversation with streaming, Ctrl-C to cancel a reply,
//! and slash commands.

use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use anyhow::Context;
use porfiry_agent::{parse_toolset, ToolsetRegistry};

use super::ask::{dim, AgentArgs, Host, ModelArgs, TurnReport};
use super::stand_ins::StandIns;

/// Arguments of `porfiry chat`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Commands: /session NAME (switch session), /reset (forget this \
session), /stats (last turn), /prompt (current system prompt), /request (the next request \
as the model sees it), /help, /quit. Ctrl-C cancels \
the reply being generated; Ctrl-D or /quit leaves."
)]
pub struct Args {
    /// The session to start in.
    #[arg(long, default_value = "chat")]
    pub session: String,
    /// A YAML map of tool name to the reply that stands in for its executor: a text, or
    /// `{error: text}` (the evals' `tool_results`), so a toolset of yours (`--toolsets DIR`)
    /// can be talked to before its executor exists. A tool without one answers "no executor
    /// on this host".
    #[arg(long, value_name = "FILE")]
    pub stand_ins: Option<PathBuf>,
    #[command(flatten)]
    pub model: ModelArgs,
    #[command(flatten)]
    pub agent: AgentArgs,
}

const HELP: &str = "/session NAME  switch to (or create) a session\n\
/reset         forget the current session (history and active toolsets)\n\
/stats         token counts and speeds of the last turn, KV memory per session\n\
/prompt        show the current system prompt\n\
/request       show the next request as the model will see it (after any compaction)\n\
/trim [all]    give memory back: the caches, or (all) also every session's KV (the next turn\n\
               prefills its history again); resident memory before and after\n\
/quit          leave (also Ctrl-D)\n\
Ctrl-C cancels the reply being generated.";

/// Run `porfiry chat`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    // A bad file is said before a model loads.
    let stand_ins = match &args.stand_ins {
        Some(path) => {
            let stand_ins = StandIns::load(path)?;
            stand_ins.check(&declared_toolsets(&args.agent)?)?;
            Some(stand_ins)
        }
        None => None,
    };
    let mut host = Host::open_with(&args.model, &args.agent, true, stand_ins.as_ref())?;
    let busy = Arc::new(AtomicBool::new(false));
    {
        let cancel = host.cancel.clone();
        let busy = busy.clone();
        ctrlc::set_handler(move || {
            if busy.load(Ordering::SeqCst) {
                cancel.cancel();
            } else {
                eprintln!("\n(Ctrl-C cancels a reply; /quit or Ctrl-D leaves)");
            }
        })
        .context("installing the Ctrl-C handler")?;
    }
    let interactive = std::io::stdin().is_terminal();
    let mut session = args.session.clone();
    let mut last: Option<TurnReport> = None;
    eprintln!(
        "{}",
        dim(&format!(
            "session {session}; /help for commands, Ctrl-C cancels a reply, Ctrl-D leaves"
        ))
    );
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    loop {
        if interactive {
            eprint!("{session}> ");
            let _ = std::io::stderr().flush();
        }
        let Some(line) = lines.next() else { break };
        let line = line.context("reading stdin")?;
        let input = line.trim();
        if input.is_empty() {
            continue;
        }
        if let Some(command) = input.strip_prefix('/') {
            let (name, rest) = command
                .split_once(char::is_whitespace)
                .map_or((command, ""), |(n, r)| (n, r.trim()));
            match name {
                "quit" | "exit" | "q" => break,
                "help" => println!("{HELP}"),
                "session" => {
                    if rest.is_empty() {
                        println!("session: {session}");
                    } else {
                        session = rest.to_string();
                        println!("session: {session}");
                    }
                }
                "reset" => {
                    host.runtime.end_session(&session)?;
                    last = None;
                    println!("session {session} reset");
                }
                "stats" => {
                    match &last {
                        Some(report) => println!("{}", report.stats_line()),
                        None => println!("no turn yet in this session"),
                    }
                    match host.runtime.cache_report() {
                        Ok(Some(c)) => println!("{}", cache_lines(&c)),
                        Ok(None) => {}
                        Err(e) => eprintln!("cache report: {e}"),
                    }
                }
                "trim" => {
                    let level = match rest {
                        "" | "caches" => porfiry_runtime::TrimLevel::Caches,
                        "all" => porfiry_runtime::TrimLevel::All,
                        other => {
                            println!("/trim takes nothing, `caches` or `all`, not {other:?}");
                            continue;
                        }
                    };
                    let before = porfiry_bench::status_kb("VmRSS:");
                    match host.runtime.trim(level) {
                        Ok(Some(r)) => println!(
                            "trimmed: {} session(s)' KV, chat context {}, embedding context {}, \
                             {} head(s) from memory; resident {} MB → {} MB",
                            r.sessions,
                            if r.context { "released" } else { "kept" },
                            if r.embedder { "released" } else { "not in use" },
                            r.heads,
                            before / 1024,
                            porfiry_bench::status_kb("VmRSS:") / 1024
                        ),
                        Ok(None) => println!("nothing to trim: the model is not the engine"),
                        Err(e) => eprintln!("trim: {e}"),
                    }
                }
                "prompt" => println!("{}", host.runtime.prompt(&session).text()),
                "request" => println!("{}", host.runtime.request_text(&session)),
                other => println!("unknown command /{other}\n{HELP}"),
            }
            continue;
        }
        busy.store(true, Ordering::SeqCst);
        let report = host.turn(&session, input, true);
        busy.store(false, Ordering::SeqCst);
        let report = report?;
        if let porfiry_agent::TurnStop::ModelError(e) = &report.outcome().stop {
            eprintln!("error: {e}");
        }
        eprintln!("{}", dim(&report.stats_line()));
        last = Some(report);
    }
    Ok(ExitCode::SUCCESS)
}

/// The toolsets a host opened with `agent` declares, read without a model: the built-in and
/// the user's folders, and the catalog's sets unless `--no-catalog`.
fn declared_toolsets(agent: &AgentArgs) -> anyhow::Result<ToolsetRegistry> {
    let (loaded, _, _) = porfiry_runtime::load_agent(&agent.config())?;
    let mut sets = loaded.toolsets().clone();
    if !agent.no_catalog {
        for (text, file) in [
            (porfiry_runtime::SKILLS_TOOLSET, "skills.yaml"),
            (porfiry_runtime::PROTOCOL_TOOLSET, "protocol.yaml"),
        ] {
            if let Ok(set) = parse_toolset(text, Path::new(file)) {
                if sets.get(&set.name).is_none() {
                    sets.insert(set);
                }
            }
        }
    }
    Ok(sets)
}

/// The KV cache per session: tokens and memory.
fn cache_lines(c: &porfiry_engine::CacheReport) -> String {
    let mut lines = vec![format!("KV cache: {} of {} cells", c.used, c.n_ctx)];
    for q in &c.seqs {
        lines.push(format!(
            "  seq {}: {} — {} tokens, {} KB",
            q.seq,
            q.session.as_deref().unwrap_or("(free / head)"),
            q.tokens,
            q.bytes / 1024
        ));
    }
    for (tokens, bytes) in &c.heads {
        lines.push(format!(
            "  prepared head: {tokens} tokens, {} KB",
            bytes / 1024
        ));
    }
    lines.join("\n")
}
