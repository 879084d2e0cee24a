//! `porfiry`: the command-line host of the Porfiry agent runtime.
//!
//! Thin by design: each subcommand parses its arguments, calls the libraries and prints.
//! Subcommands live in `src/cmd/<name>.rs`, each with an `Args` struct (clap derive) and
//! `run(args) -> anyhow::Result<ExitCode>`. `main` maps errors to exit code 2.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cmd;

/// Porfiry: an on-device agent runtime (skills, toolsets, TOOL_CALL protocol) on llama.cpp.
#[derive(Debug, Parser)]
#[command(name = "porfiry", version, about)]
struct Cli {
    /// More log lines on stderr: -v for info, -vv for debug (llama.cpp's own lines included).
    /// `RUST_LOG` (e.g. `RUST_LOG=porfiry_engine=debug`) wins when set. Default: warnings of
    /// Porfiry, errors of llama.cpp.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    verbose: u8,
    #[command(subcommand)]
    command: Command,
}

/// One `tracing` set-up for the whole CLI: log lines on stderr, filtered by `-v` or `RUST_LOG`.
/// The engine routes llama.cpp's log lines into `tracing`, so they land here too.
fn init_logs(verbose: u8) {
    let default = match verbose {
        0 => "error,porfiry=warn,porfiry_runtime=warn,porfiry_engine=warn,porfiry_agent=warn",
        1 => "info",
        _ => "debug",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(verbose > 0)
        .try_init();
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Work with skill files (`porfiry skills check`).
    Skills(cmd::skills::Args),
    /// Work with toolset files (`porfiry toolsets check DIR...`).
    Toolsets(cmd::toolsets::Args),
    /// The catalog of skills and protocols (`porfiry catalog list`, `show`, `add`, `accept`…).
    Catalog(cmd::catalog::Args),
    /// Print the system prompt of a fresh session (every declared toolset, as on the phone).
    Prompt(cmd::prompt::Args),
    /// Run scripted scenario files.
    Scenario(cmd::scenario::Args),
    /// List and fetch models (`porfiry models list`, `porfiry models fetch [ID|--all]`).
    Models(cmd::models::Args),
    /// Ask the assistant one thing (one turn on a real model; streams the reply).
    Ask(cmd::ask::Args),
    /// Talk to the assistant (interactive; Ctrl-C cancels a reply).
    Chat(cmd::chat::Args),
    /// Benchmarks (`porfiry bench dialogue`): tokens and time per turn on the real engine.
    Bench(cmd::bench::Args),
    /// Evals (`porfiry eval tools FILE...`): does the model use its tools? Scored per case.
    Eval(cmd::eval::Args),
}

/// When the process started (as close to it as `main` gets): cold-start figures count from it.
pub static PROCESS_START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();

fn main() -> ExitCode {
    PROCESS_START.get_or_init(std::time::Instant::now);
    let cli = Cli::parse();
    init_logs(cli.verbose);
    let result = match cli.command {
        Command::Skills(args) => cmd::skills::run(args),
        Command::Toolsets(args) => cmd::toolsets::run(args),
        Command::Catalog(args) => cmd::catalog::run(args),
        Command::Prompt(args) => cmd::prompt::run(args),
        Command::Scenario(args) => cmd::scenario::run(args),
        Command::Models(args) => cmd::models::run(args),
        Command::Ask(args) => cmd::ask::run(args),
        Command::Chat(args) => cmd::chat::run(args),
        Command::Bench(args) => cmd::bench::run(args),
        Command::Eval(args) => cmd::eval::run(args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}
