//! `porfiry skills check [--skills DIR]...`: load skills and report.

use std::path::PathBuf;
use std::process::ExitCode;

use porfiry_agent::SkillRegistry;

/// Arguments of `porfiry skills`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    action: Action,
}

#[derive(Debug, clap::Subcommand)]
enum Action {
    /// Load skill folders in override order; print `ok <name>`, `warning <path>: <reason>`,
    /// `error <path>: <reason>`; exit 1 if any error.
    Check {
        /// A skill folder (repeatable, later overrides earlier), loaded over the built-in
        /// skills.
        #[arg(long = "skills", value_name = "DIR")]
        skills: Vec<PathBuf>,
        /// Check only the folders given, not the built-in skills.
        #[arg(long)]
        no_builtin: bool,
    },
}

/// Run `porfiry skills`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    match args.action {
        Action::Check { skills, no_builtin } => {
            let loaded = SkillRegistry::load(&super::with_builtin(skills, "skills", no_builtin)?);
            for line in loaded.check_lines() {
                println!("{line}");
            }
            Ok(if loaded.has_errors() {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            })
        }
    }
}
