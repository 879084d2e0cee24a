//! `porfiry ask`: one turn of the assistant on a real model. Also the host shared with
//! `porfiry chat`: model resolution (fetching the default on first use), the agent with the
//! CLI's executors, event printing and the stats line.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use porfiry_agent::{
    AgentConfig, AgentEvent, CancelToken, Lang, Severity, Technique, TurnOutcome, TurnStop,
};
use porfiry_engine::{ChatFormat, GenerateConfig, HeadSource, SamplingConfig};
use porfiry_runtime::{Runtime, RuntimeConfig, StderrProgress, Turn};

use super::stand_ins::StandIns;

/// Model and generation options shared by `ask` and `chat`.
#[derive(Debug, Clone, clap::Args)]
pub struct ModelArgs {
    /// A model id from `porfiry models list` (fetched when missing) or a path to any GGUF
    /// file. Default: the manifest's default model, fetched on first use.
    #[arg(long, value_name = "ID|PATH")]
    pub model: Option<String>,
    /// The model's chat format, for a GGUF file whose format cannot be detected: gemma or
    /// chatml. Default: the manifest's, else detected from the file's metadata.
    #[arg(long, value_name = "FORMAT")]
    pub chat_format: Option<ChatFormat>,
    /// Context size in tokens. Default: the manifest's recommendation (4096 otherwise).
    #[arg(long, value_name = "N")]
    pub ctx: Option<u32>,
    /// CPU threads. Default: the performance cores (a phone's little cores left out), else
    /// the physical cores.
    #[arg(long, value_name = "N")]
    pub threads: Option<u32>,
    /// CPU threads for prompt batches (prefill), when they should differ from `--threads`
    /// (which then counts for one-token decodes). Default: `--threads`.
    #[arg(long, value_name = "N")]
    pub threads_batch: Option<u32>,
    /// The scheduling priority of the compute threads, a nice value (-20 … 19): lower gets
    /// more CPU where other work shares the cores. Default: -5 where the system allows it
    /// (a process without the privilege keeps its own).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub nice: Option<i32>,
    /// Layers to offload to the GPU (a build with `--features vulkan` or `opencl`). Default:
    /// all of them when llama.cpp found a GPU device; 0 keeps the model on the CPU.
    #[arg(long, value_name = "N")]
    pub gpu_layers: Option<u32>,
    /// Most tokens per generation.
    #[arg(long, value_name = "N", default_value_t = 256)]
    pub max_tokens: usize,
    /// Greedy decoding (deterministic) instead of the conversational sampling preset.
    #[arg(long)]
    pub greedy: bool,
    /// Sampling temperature (the preset's 0.7 otherwise; 0 = greedy).
    #[arg(long, value_name = "T")]
    pub temperature: Option<f32>,
    /// Sampling seed.
    #[arg(long, value_name = "N")]
    pub seed: Option<u32>,
    /// Reuse the KV cache over a toolset switch by shifting the conversation instead of
    /// prefilling it again: on or off. Default: the model manifest's choice (measured per
    /// model by `porfiry bench agreement`; off for a file the manifest does not know).
    #[arg(long, value_name = "on|off", value_parser = clap::builder::BoolishValueParser::new())]
    pub kv_shift: Option<bool>,
    /// Sessions whose KV cache is kept at once (llama.cpp sequences sharing the context;
    /// the least recently used one is evicted when a new session needs room).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub sessions: u32,
    /// Read the model into memory instead of mapping it (its size in RSS): a model file
    /// replaced in place while Porfiry runs then cannot end the process (SIGBUS).
    #[arg(long)]
    pub no_mmap: bool,
    /// Do not keep the static prompt head's KV snapshot on disk (in $PORFIRY_DATA/kv): a new
    /// session after a restart then prefills the head again.
    #[arg(long)]
    pub no_head_snapshot: bool,
}

/// Agent options shared by `ask` and `chat`.
#[derive(Debug, Clone, clap::Args)]
pub struct AgentArgs {
    /// Prompt and tool-reply language: ru or en.
    #[arg(long, default_value = "ru")]
    pub lang: Lang,
    /// A skill folder of yours (repeatable), loaded over the built-in skills (a skill of the
    /// same name replaces the built-in one; the override is reported).
    #[arg(long = "skills", value_name = "DIR")]
    pub skills: Vec<PathBuf>,
    /// A toolset folder of yours (repeatable), loaded over the built-in toolsets.
    #[arg(long = "toolsets", value_name = "DIR")]
    pub toolsets: Vec<PathBuf>,
    /// Leave the built-in skills and toolsets out (only the folders given load).
    #[arg(long)]
    pub no_builtin: bool,
    /// The most sentences of a reply (a spoken reply is short); 0: no cap.
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub sentences: usize,
    /// Do not route the first action by example requests (the model alone chooses).
    #[arg(long)]
    pub no_route: bool,
    /// The time one turn may take, in seconds (a turn out of time ends and says so); 0: no
    /// limit.
    #[arg(long, value_name = "SECS", default_value_t = 20.0)]
    pub turn_budget: f64,
    /// Leave out the `skills` and `protocol` toolsets over the catalog in the data directory
    /// (`porfiry catalog`; on by default, with run reminders and decision notes: a request is
    /// routed to them only when it names a skill, a protocol or the catalog).
    #[arg(long, conflicts_with = "catalog")]
    pub no_catalog: bool,
    /// The catalog's toolsets (the default; kept so older command lines still work).
    #[arg(long, hide = true)]
    pub catalog: bool,
}

impl AgentArgs {
    /// The runtime's view of these options (the rest default).
    pub fn config(&self) -> RuntimeConfig {
        let mut agent = AgentConfig {
            lang: self.lang,
            ..AgentConfig::default()
        };
        agent.guidance.max_sentences = (self.sentences > 0).then_some(self.sentences);
        agent.guidance.set(Technique::Route, !self.no_route);
        agent.turn_budget = (self.turn_budget > 0.0)
            .then(|| std::time::Duration::try_from_secs_f64(self.turn_budget).ok())
            .flatten();
        RuntimeConfig {
            agent,
            builtin: !self.no_builtin,
            skill_dirs: self.skills.clone(),
            toolset_dirs: self.toolsets.clone(),
            ..RuntimeConfig::default()
        }
    }
}

/// Arguments of `porfiry ask`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Each `ask` is a fresh process: the session (history, active toolsets) \
lives only for this one turn; use `porfiry chat` for a conversation. Tool calls and results \
are shown dimmed on stderr, then a stats line. Notes (the `notes` toolset) are kept in \
$PORFIRY_DATA/notes.txt (default: your data directory, ~/.local/share/porfiry; `./run` uses \
.porfiry/ in the checkout); `media` has no executor here."
)]
pub struct Args {
    /// What to ask.
    pub text: String,
    /// Session name (history and active toolsets belong to a session; not kept across runs).
    #[arg(long, default_value = "cli")]
    pub session: String,
    /// Print one JSON object (reply, tool calls, stats) instead of streaming text.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub model: ModelArgs,
    #[command(flatten)]
    pub agent: AgentArgs,
}

/// Run `porfiry ask`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let mut host = Host::open(&args.model, &args.agent, !args.json)?;
    let cancel = host.cancel.clone();
    ctrlc::set_handler(move || {
        if cancel.is_cancelled() {
            std::process::exit(130);
        }
        cancel.cancel();
    })
    .context("installing the Ctrl-C handler")?;
    let report = host.turn(&args.session, &args.text, !args.json)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report.to_json(&host))?);
    } else {
        eprintln!("{}", dim(&report.stats_line()));
    }
    Ok(exit_code(&report.turn.outcome))
}

/// `ask`'s exit status: 0 for an answer; 2 for a turn that ended without one (the
/// iteration limit, the deadline — the reply says so); 130 for a cancel; 1 for a model
/// error (said on stderr).
fn exit_code(outcome: &porfiry_agent::TurnOutcome) -> ExitCode {
    match &outcome.stop {
        TurnStop::Answered => ExitCode::SUCCESS,
        TurnStop::MaxIterations | TurnStop::Deadline => ExitCode::from(2),
        TurnStop::Cancelled => {
            if let Some(n) = &outcome.notice {
                eprintln!("{}", dim(n));
            }
            ExitCode::from(130)
        }
        TurnStop::ModelError(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}

/// The runtime as `ask` and `chat` drive it.
pub struct Host {
    /// Model, engine and agent (with the CLI's host tools), wired by the runtime.
    pub runtime: Runtime,
    /// Set by Ctrl-C; reset before every turn.
    pub cancel: CancelToken,
    /// The model as the user named it (id or path).
    pub model_label: String,
    /// Cold-start figures: what opening took, counted from the process's start.
    pub startup: serde_json::Value,
}

/// Milliseconds since the process started ([`crate::PROCESS_START`]).
fn since_start_ms() -> f64 {
    crate::PROCESS_START
        .get()
        .map_or(0.0, |t| t.elapsed().as_secs_f64() * 1e3)
}

impl Host {
    /// Open the runtime for these options: resolve (and if needed fetch) the model, load it,
    /// load the built-in and the user's skills and toolsets, register the CLI's host tools
    /// (notes), prepare the static head. `chatty` prints what it loads on stderr.
    pub fn open(model: &ModelArgs, agent: &AgentArgs, chatty: bool) -> anyhow::Result<Self> {
        Self::open_with(model, agent, chatty, None)
    }

    /// [`Host::open`], with `stand_ins` registered as the executors of their tools before
    /// anything is reported (a set they make executable shows in the prompt: the head is
    /// prepared again with it).
    pub fn open_with(
        model: &ModelArgs,
        agent: &AgentArgs,
        chatty: bool,
        stand_ins: Option<&StandIns>,
    ) -> anyhow::Result<Self> {
        let mut sampling = if model.greedy {
            SamplingConfig::greedy()
        } else {
            SamplingConfig::balanced()
        };
        if let Some(t) = model.temperature {
            sampling.temperature = t;
        }
        if let Some(s) = model.seed {
            sampling.seed = s;
        }
        let mut config = RuntimeConfig {
            model: model.model.clone(),
            chat_format: model.chat_format,
            n_ctx: model.ctx,
            threads: model.threads,
            threads_batch: model.threads_batch,
            nice: model.nice,
            kv_shift: model.kv_shift,
            gpu_layers: model.gpu_layers,
            mmap: !model.no_mmap,
            n_seq: model.sessions,
            generate: GenerateConfig {
                max_tokens: model.max_tokens,
                sampling,
                ..GenerateConfig::default()
            },
            head_snapshots: !model.no_head_snapshot,
            notes: true,
            ..agent.config()
        };
        if !agent.no_catalog {
            config.catalog = Some(config.data_dir().join(porfiry_runtime::CATALOG_FILE));
        }
        let open_at = since_start_ms();
        let (mut runtime, mut report) = Runtime::open(&config, &StderrProgress::new())?;
        let head_ms = report.head.as_ref().map_or(0.0, |h| h.ms);
        let startup = serde_json::json!({
            "open_at_ms": open_at,
            "load_ms": report.info.load_ms,
            "head_ms": head_ms,
            "head_source": report.head.as_ref().ok().map(|h| h.source),
            "routes_ms": (report.warm_up_ms - head_ms).max(0.0),
            "ready_at_ms": since_start_ms(),
        });
        if let Some(stand_ins) = stand_ins {
            stand_ins.check(runtime.agent().toolsets())?;
            stand_ins.register(&mut runtime);
            let hidden = runtime.agent().hidden_toolsets();
            if hidden != report.hidden_toolsets {
                report.hidden_toolsets = hidden;
                report.head = match runtime.warm_up() {
                    Ok(Some(h)) => Ok(h),
                    Ok(None) => Err("the model keeps no head".to_string()),
                    Err(e) => Err(e.to_string()),
                };
            }
            if chatty {
                eprintln!(
                    "{}",
                    dim(&format!(
                        "stand-ins from {}: {}",
                        stand_ins.path.display(),
                        stand_ins.names()
                    ))
                );
            }
        }
        let info = &report.info;
        if chatty {
            eprintln!(
                "{}",
                dim(&format!(
                    "model {} ({}, {} MB, chat format {}, ctx {}, {} threads) loaded in {:.2} s",
                    report.model,
                    info.architecture.as_deref().unwrap_or("?"),
                    info.file_size / 1_000_000,
                    info.chat_format.name(),
                    info.n_ctx,
                    info.threads,
                    info.load_ms / 1000.0
                ))
            );
            if !info.gpu_devices.is_empty() {
                eprintln!(
                    "{}",
                    dim(&format!(
                        "{} layers offloaded to {}",
                        info.gpu_layers,
                        info.gpu_devices.join(", ")
                    ))
                );
            }
        }
        for d in &report.diagnostics {
            if chatty || d.severity() == Severity::Error {
                eprintln!("{d}");
            }
        }
        if chatty && !report.hidden_toolsets.is_empty() {
            eprintln!(
                "{}",
                dim(&format!(
                    "toolsets left out of the prompt (no executor on this host): {}",
                    report.hidden_toolsets.join(", ")
                ))
            );
        }
        match &report.head {
            Ok(r) if chatty => {
                let how = match r.source {
                    HeadSource::Disk => "restored from its snapshot",
                    HeadSource::Built if r.file.is_some() => "computed and saved",
                    HeadSource::Built => "computed",
                    HeadSource::Memory | HeadSource::Empty => "ready",
                };
                let note = r
                    .note
                    .as_ref()
                    .map(|n| format!(" ({n})"))
                    .unwrap_or_default();
                eprintln!(
                    "{}",
                    dim(&format!(
                        "prompt head: {} tokens {how} in {:.0} ms, {} KB{note}",
                        r.tokens,
                        r.ms,
                        r.state_bytes / 1024
                    ))
                );
            }
            Ok(_) => {}
            Err(e) => eprintln!("warning: prompt head not prepared: {e}"),
        }
        // One warning for a data folder that cannot be written (it names what is lost, the
        // catalog included); a catalog that failed for another reason is said on its own.
        match (&report.unwritable_data, &report.catalog) {
            (Some(data), _) => eprintln!("warning: {data}"),
            (None, Some(Err(e))) => eprintln!("warning: the catalog is not available: {e}"),
            _ => {}
        }
        Ok(Self {
            runtime,
            cancel: CancelToken::new(),
            model_label: report.model,
            startup,
        })
    }

    /// One user turn. With `stream`, visible text goes to stdout as it is generated and tool
    /// activity to stderr (dimmed); otherwise nothing is printed.
    pub fn turn(&mut self, session: &str, text: &str, stream: bool) -> anyhow::Result<TurnReport> {
        self.cancel.reset();
        let mut stdout = std::io::stdout();
        let mut wrote_text = false;
        let mut on_event = |event: AgentEvent| {
            if !stream {
                return;
            }
            match event {
                AgentEvent::Text(t) => {
                    let _ = stdout.write_all(t.as_bytes());
                    let _ = stdout.flush();
                    wrote_text = true;
                }
                other => {
                    if let Some(line) = describe(&other) {
                        if wrote_text {
                            let _ = writeln!(stdout);
                            wrote_text = false;
                        }
                        eprintln!("{}", dim(&line));
                    }
                }
            }
        };
        let turn = self
            .runtime
            .turn(session, text, &self.cancel, &mut on_event)?;
        if stream {
            if wrote_text {
                println!();
            }
            if turn.outcome.stop == TurnStop::Cancelled {
                eprintln!("{}", dim("(cancelled)"));
            }
        }
        Ok(TurnReport {
            turn,
            answered_at_ms: since_start_ms(),
        })
    }
}

/// One line for a non-text event, or `None` for events not worth showing.
fn describe(event: &AgentEvent) -> Option<String> {
    Some(match event {
        AgentEvent::Text(_) => return None,
        AgentEvent::ToolStarted { name, args } => {
            if args.is_empty() {
                format!("→ {name}")
            } else {
                format!("→ {name} {}", args.to_json())
            }
        }
        AgentEvent::ToolFinished { name, result, ok } => {
            let mark = if *ok { "←" } else { "← error:" };
            format!("{mark} {name}: {}", shorten(result, 300))
        }
        AgentEvent::ShowText(text) => format!("[show_text] {text}"),
        AgentEvent::ToolsetEnabled { name } => format!("toolset {name} enabled"),
        AgentEvent::ToolsetDisabled { name, expired } => {
            if *expired {
                format!("toolset {name} expired")
            } else {
                format!("toolset {name} disabled")
            }
        }
        AgentEvent::Generation { discarded, .. } => {
            if *discarded {
                "(generation discarded: the toolsets changed; generating again)".to_string()
            } else {
                return None;
            }
        }
    })
}

fn shorten(text: &str, max: usize) -> String {
    let one_line = text.replace('\n', " ⏎ ");
    if one_line.chars().count() <= max {
        one_line
    } else {
        one_line.chars().take(max).collect::<String>() + "…"
    }
}

/// Dim text for a terminal (ANSI faint); plain when stderr is not a terminal.
pub fn dim(text: &str) -> String {
    if std::io::stderr().is_terminal() {
        format!("\x1b[2m{text}\x1b[0m")
    } else {
        text.to_string()
    }
}

/// What one turn did, for printing.
pub struct TurnReport {
    /// The runtime's account of the turn (outcome and figures).
    pub turn: Turn,
    /// When the turn ended, ms since the process started.
    pub answered_at_ms: f64,
}

impl TurnReport {
    /// The agent's account of the turn.
    pub fn outcome(&self) -> &TurnOutcome {
        &self.turn.outcome
    }

    /// The one-line summary printed after a reply.
    pub fn stats_line(&self) -> String {
        let mut line = self.turn.stats.line();
        if self.turn.outcome.stop == TurnStop::MaxIterations {
            line.pop();
            line.push_str(" | stopped at the iteration limit]");
        }
        line
    }

    /// The `--json` object: reply, stop, tool calls, tool replies, shown texts, stats.
    pub fn to_json(&self, host: &Host) -> serde_json::Value {
        let o = &self.turn.outcome;
        serde_json::json!({
            "reply": o.reply,
            "stop": o.stop,
            "model_error": o.model_error,
            "model": host.model_label,
            "model_path": host.runtime.engine().map(|e| e.info().path.clone()),
            "tool_calls": o.executed.iter().map(|e| serde_json::json!({
                "name": e.name,
                "args": e.args,
                "result": e.result,
                "ok": e.ok,
            })).collect::<Vec<_>>(),
            "tool_replies": o.tool_replies,
            "shown": o.shown,
            "stats": self.turn.stats,
            "startup": &host.startup,
            "answered_at_ms": self.answered_at_ms,
            "generations": o.generations.iter().map(|g| serde_json::json!({
                "stop": g.stop,
                "discarded": g.discarded,
                "stats": g.stats,
            })).collect::<Vec<_>>(),
        })
    }
}
