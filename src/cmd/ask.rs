//! `porfiry ask`: one turn of the assistant on a real model. Also the host shared with
//! `porfiry chat`: model resolution (fetching the default on first use), the agent with the
//! CLI's executors, event printing and the stats line.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use porfiry_agent::{
    Agent, AgentConfig, AgentEvent, CancelToken, ExecutorTarget, GenerationStats, Lang, Severity,
    SystemClock, TurnOutcome, TurnStop,
};
use porfiry_engine::{
    Engine, EngineModel, EngineParams, GenerateConfig, HeadSource, SamplingConfig,
};
use porfiry_models::{ModelStore, StderrProgress};

pub mod notes;

/// Model and generation options shared by `ask` and `chat`.
#[derive(Debug, Clone, clap::Args)]
pub struct ModelArgs {
    /// A model id from `porfiry models list` (fetched when missing) or a path to any GGUF
    /// file. Default: the manifest's default model, fetched on first use.
    #[arg(long, value_name = "ID|PATH")]
    pub model: Option<String>,
    /// Context size in tokens. Default: the manifest's recommendation (4096 otherwise).
    #[arg(long, value_name = "N")]
    pub ctx: Option<u32>,
    /// CPU threads. Default: the number of physical cores.
    #[arg(long, value_name = "N")]
    pub threads: Option<u32>,
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
    /// Sessions whose KV cache is kept at once (llama.cpp sequences sharing the context;
    /// the least recently used one is evicted when a new session needs room).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub sessions: u32,
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
    /// A skill folder (repeatable). Default: the built-in `skills/`.
    #[arg(long = "skills", value_name = "DIR")]
    pub skills: Vec<PathBuf>,
    /// A toolset folder (repeatable). Default: the built-in `toolsets/`.
    #[arg(long = "toolsets", value_name = "DIR")]
    pub toolsets: Vec<PathBuf>,
}

/// Arguments of `porfiry ask`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Each `ask` is a fresh process: the session (history, active toolsets) \
lives only for this one turn; use `porfiry chat` for a conversation. Tool calls and results \
are shown dimmed on stderr, then a stats line. Notes (the `notes` toolset) are kept in \
$PORFIRY_DATA/notes.txt (default: .porfiry/ in the checkout); `media` has no executor here."
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
    Ok(match &report.outcome.stop {
        TurnStop::Answered | TurnStop::MaxIterations => ExitCode::SUCCESS,
        TurnStop::Cancelled => ExitCode::from(130),
        TurnStop::ModelError(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    })
}

/// A loaded model plus an agent: what `ask` and `chat` drive.
pub struct Host {
    /// The agent (skills, toolsets, sessions, executors).
    pub agent: Agent,
    /// The engine behind the agent's `Model` seam.
    pub model: EngineModel,
    /// Set by Ctrl-C; reset before every turn.
    pub cancel: CancelToken,
    /// The model as the user named it (id or path).
    pub model_label: String,
}

impl Host {
    /// Resolve (and if needed fetch) the model, load it, load skills and toolsets, and
    /// register the CLI's executors. `chatty` prints what it loads on stderr.
    pub fn open(model: &ModelArgs, agent: &AgentArgs, chatty: bool) -> anyhow::Result<Self> {
        let store = ModelStore::open_default()?;
        let given = match &model.model {
            Some(m) => m.clone(),
            None => store.manifest().default.clone(),
        };
        let resolved = store.ensure(&given, &StderrProgress::new())?;
        let spec = resolved.spec.as_ref();
        let params = EngineParams {
            n_ctx: model
                .ctx
                .or(spec.map(|s| s.context))
                .unwrap_or(EngineParams::default().n_ctx),
            threads: model.threads,
            chat_format: spec.map(|s| match s.chat_format {
                porfiry_models::ChatFormat::Gemma => porfiry_engine::ChatFormat::Gemma,
                porfiry_models::ChatFormat::Chatml => porfiry_engine::ChatFormat::ChatMl,
            }),
            snapshot_dir: (!model.no_head_snapshot).then(|| notes::data_dir().join("kv")),
            n_seq: model.sessions,
            ..EngineParams::default()
        };
        let engine = Engine::load(&resolved.path, params)
            .with_context(|| format!("loading {}", resolved.path.display()))?;
        let info = engine.info();
        if chatty {
            eprintln!(
                "{}",
                dim(&format!(
                    "model {} ({}, {} MB, chat format {}, ctx {}, {} threads) loaded in {:.2} s",
                    given,
                    info.architecture.as_deref().unwrap_or("?"),
                    info.file_size / 1_000_000,
                    info.chat_format.name(),
                    info.n_ctx,
                    info.threads,
                    info.load_ms / 1000.0
                ))
            );
        }
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
        let config = GenerateConfig {
            max_tokens: model.max_tokens,
            sampling,
            ..GenerateConfig::default()
        };
        let skills = super::dirs_or_builtin(agent.skills.clone(), "skills");
        let toolsets = super::dirs_or_builtin(agent.toolsets.clone(), "toolsets");
        let loaded = Agent::load(
            AgentConfig {
                lang: agent.lang,
                ..AgentConfig::default()
            },
            &skills,
            &toolsets,
            Arc::new(SystemClock),
        );
        for d in &loaded.diagnostics {
            if chatty || d.severity() == Severity::Error {
                eprintln!("{d}");
            }
        }
        let mut agent_core = loaded.value;
        if agent_core.toolsets().get("notes").is_some() {
            let notes = notes::data_dir().join("notes.txt");
            agent_core.register_executor(
                ExecutorTarget::Toolset("notes".into()),
                Arc::new(notes::NotesExecutor::new(notes, agent.lang)),
            );
        }
        // Every new session starts from the static head: prepare it once (from the snapshot
        // on disk when there is a valid one).
        let head = agent_core.head_view();
        match engine.prepare_head(&head.system, &head.messages) {
            Ok(r) if chatty => {
                let how = match r.source {
                    HeadSource::Disk => "restored from its snapshot",
                    HeadSource::Built if r.file.is_some() => "computed and saved",
                    HeadSource::Built => "computed",
                    HeadSource::Memory | HeadSource::Empty => "ready",
                };
                let note = r.note.map(|n| format!(" ({n})")).unwrap_or_default();
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
        Ok(Self {
            agent: agent_core,
            model: EngineModel::new(engine, config),
            cancel: CancelToken::new(),
            model_label: given,
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
        let outcome =
            self.agent
                .turn(session, text, &mut self.model, &self.cancel, &mut on_event)?;
        if stream {
            if wrote_text {
                println!();
            }
            if outcome.stop == TurnStop::Cancelled {
                eprintln!("{}", dim("(cancelled)"));
            }
        }
        Ok(TurnReport { outcome })
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
    /// The agent's account of the turn.
    pub outcome: TurnOutcome,
}

/// Token accounting summed over the generations of one turn.
#[derive(Debug, Default, Clone, serde::Serialize)]
pub struct TurnStats {
    /// Model calls in the turn.
    pub generations: usize,
    /// Prompt tokens of the last generation.
    pub prompt_tokens: usize,
    /// Reused prompt tokens, summed.
    pub reused_tokens: usize,
    /// Prefilled prompt tokens, summed.
    pub prefilled_tokens: usize,
    /// Of the reused, tokens the engine decoded ahead while idle (the framing after the
    /// previous reply), summed.
    pub anticipated_tokens: usize,
    /// Generated tokens, summed.
    pub generated_tokens: usize,
    /// Time to the first token of the first generation, ms.
    pub ttft_ms: f64,
    /// Prefill speed over all generations, tokens/s.
    pub prefill_tps: f64,
    /// Decode speed over all generations, tokens/s.
    pub decode_tps: f64,
    /// Wall time of all generations, ms.
    pub total_ms: f64,
    /// Generations that had to prefill the whole prompt because the KV cache refused a trim.
    pub full_reprefills: usize,
}

impl TurnStats {
    /// Sum the per-generation stats.
    pub fn of(outcome: &TurnOutcome) -> Self {
        let all: Vec<&GenerationStats> = outcome
            .generations
            .iter()
            .filter_map(|g| g.stats.as_ref())
            .collect();
        let mut s = TurnStats {
            generations: outcome.generations.len(),
            ..TurnStats::default()
        };
        let (mut prefill_s, mut decode_s) = (0.0, 0.0);
        for (i, g) in all.iter().enumerate() {
            if i == 0 {
                s.ttft_ms = g.ttft_ms;
            }
            s.prompt_tokens = g.prompt_tokens;
            s.reused_tokens += g.reused_tokens;
            s.prefilled_tokens += g.prefilled_tokens;
            s.anticipated_tokens += g.anticipated_tokens;
            s.generated_tokens += g.generated_tokens;
            s.total_ms += g.total_ms;
            s.full_reprefills += usize::from(g.full_reprefill);
            if g.prefill_tps > 0.0 {
                prefill_s += g.prefilled_tokens as f64 / g.prefill_tps;
            }
            if g.decode_tps > 0.0 {
                decode_s += g.generated_tokens as f64 / g.decode_tps;
            }
        }
        if prefill_s > 0.0 {
            s.prefill_tps = s.prefilled_tokens as f64 / prefill_s;
        }
        if decode_s > 0.0 {
            s.decode_tps = s.generated_tokens as f64 / decode_s;
        }
        s
    }
}

impl TurnReport {
    /// The one-line summary printed after a reply.
    pub fn stats_line(&self) -> String {
        let s = TurnStats::of(&self.outcome);
        let mut line = format!(
            "[{} generation{}: prompt {} tok, reused {}{}, prefilled {}, generated {} | TTFT {:.0} ms | prefill {:.0} tok/s, decode {:.1} tok/s | {:.2} s",
            s.generations,
            if s.generations == 1 { "" } else { "s" },
            s.prompt_tokens,
            s.reused_tokens,
            if s.anticipated_tokens > 0 {
                format!(" ({} decoded ahead)", s.anticipated_tokens)
            } else {
                String::new()
            },
            s.prefilled_tokens,
            s.generated_tokens,
            s.ttft_ms,
            s.prefill_tps,
            s.decode_tps,
            s.total_ms / 1000.0
        );
        if s.full_reprefills > 0 {
            line.push_str(&format!(" | {} full re-prefill(s)", s.full_reprefills));
        }
        if self.outcome.stop == TurnStop::MaxIterations {
            line.push_str(" | stopped at the iteration limit");
        }
        line.push(']');
        line
    }

    /// The `--json` object: reply, stop, tool calls, tool replies, shown texts, stats.
    pub fn to_json(&self, host: &Host) -> serde_json::Value {
        let o = &self.outcome;
        serde_json::json!({
            "reply": o.reply,
            "stop": o.stop,
            "model": host.model_label,
            "model_path": host.model.engine().info().path,
            "tool_calls": o.executed.iter().map(|e| serde_json::json!({
                "name": e.name,
                "args": e.args,
                "result": e.result,
                "ok": e.ok,
            })).collect::<Vec<_>>(),
            "tool_replies": o.tool_replies,
            "shown": o.shown,
            "stats": TurnStats::of(o),
            "generations": o.generations.iter().map(|g| serde_json::json!({
                "stop": g.stop,
                "discarded": g.discarded,
                "stats": g.stats,
            })).collect::<Vec<_>>(),
        })
    }
}
