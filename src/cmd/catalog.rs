//! `porfiry catalog [--db PATH] <cmd>`: the on-device catalog of skills and protocols
//! (`porfiry-catalog`) from the command line — check documents, import folders, list, show,
//! write personal entries, decide proposals, list protocol runs.
//!
//! Output: one line per item for people, `--json` as data. Exit codes: 0 done, 1 refused or
//! failed (the message on stderr says what to do next), 2 a usage error (clap).

use std::fmt::Write as _;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use porfiry_catalog::{
    Area, Catalog, CatalogError, Document, DocumentError, Entry, EntrySummary, FrontMatterError,
    ImportReport, Kind, Proposal, ProposalId, ProposalStatus, Query, Run, RunStatus, StepStatus,
    Timestamp, Update, MAX_DOCUMENT_BYTES,
};

/// Who the CLI writes and decides as (the user at the keyboard).
const AUTHOR: &str = "user";

/// Arguments of `porfiry catalog`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The catalog file (default: `catalog.sqlite` in the data directory, `$PORFIRY_DATA`).
    #[arg(long, value_name = "PATH", global = true)]
    db: Option<PathBuf>,
    #[command(subcommand)]
    action: Action,
}

#[derive(Debug, clap::Subcommand)]
enum Action {
    /// Check document files: `ok <kind> <name>` or `error <path>: <reason>` per file; exit 1
    /// on any error. Opens no catalog.
    Check {
        /// Document files (markdown with YAML front matter).
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
    },
    /// Import folders (`*.md`, `<dir>/SKILL.md`) as read-only shared entries; a later folder
    /// overrides an earlier one. Exit 1 if a file could not be imported.
    Import {
        /// Folders of documents.
        #[arg(required = true, value_name = "DIR")]
        dirs: Vec<PathBuf>,
    },
    /// List entries: personal first, then the most recently updated.
    List {
        /// Only this kind (skill, protocol).
        #[arg(long, value_name = "K", value_parser = parse_kind)]
        kind: Option<Kind>,
        /// Words that must all occur in the name, description, triggers or tags.
        #[arg(long, value_name = "Q")]
        query: Option<String>,
        /// Only entries with this tag.
        #[arg(long, value_name = "T")]
        tag: Option<String>,
        /// Only this area (home, infrastructure, workflows, general).
        #[arg(long, value_name = "A", value_parser = parse_area)]
        area: Option<Area>,
        /// At most this many (default: all).
        #[arg(long, value_name = "N")]
        limit: Option<usize>,
        /// Print a JSON array of entries.
        #[arg(long)]
        json: bool,
    },
    /// Show one entry: a header line, then its document as written.
    Show {
        /// The entry's name or id (`12` or `#12`).
        #[arg(value_name = "NAME|ID")]
        entry: String,
        /// The kind, when a skill and a protocol share the name.
        #[arg(long, value_name = "K", value_parser = parse_kind)]
        kind: Option<Kind>,
        /// Print the entry as JSON.
        #[arg(long)]
        json: bool,
    },
    /// An entry's history, newest first: one line per version.
    Versions {
        /// The entry's name or id.
        #[arg(value_name = "NAME|ID")]
        entry: String,
        /// The kind, when a skill and a protocol share the name.
        #[arg(long, value_name = "K", value_parser = parse_kind)]
        kind: Option<Kind>,
        /// Print a JSON array of versions.
        #[arg(long)]
        json: bool,
    },
    /// Add a personal entry from a document file.
    Add {
        /// The document file.
        file: PathBuf,
        /// Why (kept on the version).
        #[arg(long, value_name = "R", default_value = "")]
        reason: String,
    },
    /// Write a document file as the next version of a personal entry.
    Edit {
        /// The entry's name or id.
        #[arg(value_name = "NAME|ID")]
        entry: String,
        /// The document file.
        file: PathBuf,
        /// Why (kept on the version).
        #[arg(long, value_name = "R", default_value = "")]
        reason: String,
        /// The kind, when a skill and a protocol share the name.
        #[arg(long, value_name = "K", value_parser = parse_kind)]
        kind: Option<Kind>,
    },
    /// Remove a personal entry and its history.
    Rm {
        /// The entry's name or id.
        #[arg(value_name = "NAME|ID")]
        entry: String,
        /// The kind, when a skill and a protocol share the name.
        #[arg(long, value_name = "K", value_parser = parse_kind)]
        kind: Option<Kind>,
    },
    /// Protocol proposals, newest first.
    Proposals {
        /// Only pending ones.
        #[arg(long)]
        pending: bool,
        /// Print a JSON array of proposals.
        #[arg(long)]
        json: bool,
    },
    /// Accept a pending proposal: its stored document becomes a personal protocol.
    Accept {
        /// The proposal's id (`4` or `#4`).
        id: String,
    },
    /// Reject a pending proposal: the catalog stays as it is.
    Reject {
        /// The proposal's id.
        id: String,
        /// Why (kept on the proposal).
        #[arg(long, value_name = "R", default_value = "")]
        reason: String,
    },
    /// Protocol runs, newest first.
    Runs {
        /// Only this session's runs.
        #[arg(long, value_name = "S")]
        session: Option<String>,
        /// Print a JSON array of runs.
        #[arg(long)]
        json: bool,
    },
}

/// A refusal or failure: the message (and what to do next) goes to stderr, exit code 1.
#[derive(Debug)]
struct Failure(String);

impl From<CatalogError> for Failure {
    fn from(e: CatalogError) -> Failure {
        Failure(with_hint(&e))
    }
}

type Outcome = Result<ExitCode, Failure>;

/// Run `porfiry catalog`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let outcome = match args.action {
        Action::Check { files } => Ok(check(&files)),
        action => db_path(args.db).and_then(|db| with_catalog(&db, action)),
    };
    Ok(outcome.unwrap_or_else(|Failure(message)| {
        eprintln!("error: {message}");
        ExitCode::FAILURE
    }))
}

/// `--db`, or the data directory's catalog (the folder is created when missing).
fn db_path(db: Option<PathBuf>) -> Result<PathBuf, Failure> {
    let path = db
        .unwrap_or_else(|| porfiry_runtime::paths::data_dir().join(porfiry_runtime::CATALOG_FILE));
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| {
            Failure(format!(
                "cannot create the folder {} for the catalog: {e}; pass another file with --db PATH",
                parent.display()
            ))
        })?;
    }
    Ok(path)
}

fn with_catalog(db: &Path, action: Action) -> Outcome {
    let mut catalog = Catalog::open(db)?;
    match action {
        Action::Check { .. } => unreachable!("check opens no catalog"),
        Action::Import { dirs } => import(&mut catalog, &dirs),
        Action::List {
            kind,
            query,
            tag,
            area,
            limit,
            json,
        } => {
            let query = Query {
                text: query.unwrap_or_default(),
                kind,
                tag,
                area,
                limit: Some(limit.unwrap_or(usize::MAX)),
            };
            list(&catalog, &query, json)
        }
        Action::Show { entry, kind, json } => {
            let entry = resolve(&catalog, &entry, kind)?;
            show(&entry, json)
        }
        Action::Versions { entry, kind, json } => {
            let entry = resolve(&catalog, &entry, kind)?;
            versions(&catalog, &entry, json)
        }
        Action::Add { file, reason } => {
            let text = read_document(&file)?;
            let added = catalog.create(&text, AUTHOR, &reason)?;
            println!(
                "added {} {} {} v{}",
                added.id, added.kind, added.name, added.version
            );
            Ok(ExitCode::SUCCESS)
        }
        Action::Edit {
            entry,
            file,
            reason,
            kind,
        } => {
            let current = resolve(&catalog, &entry, kind)?;
            let text = read_document(&file)?;
            let (word, e) = match catalog.update(current.id, &text, AUTHOR, &reason)? {
                Update::Changed(e) => ("updated", e),
                Update::Unchanged(e) => ("unchanged", e),
            };
            println!("{word} {} {} {} v{}", e.id, e.kind, e.name, e.version);
            Ok(ExitCode::SUCCESS)
        }
        Action::Rm { entry, kind } => {
            let current = resolve(&catalog, &entry, kind)?;
            let gone = catalog.delete(current.id)?;
            println!("removed {} {} {}", gone.id, gone.kind, gone.name);
            Ok(ExitCode::SUCCESS)
        }
        Action::Proposals { pending, json } => {
            let status = pending.then_some(ProposalStatus::Pending);
            proposals(&catalog.proposals(status)?, json)
        }
        Action::Accept { id } => {
            let id = parse_proposal_id(&id)?;
            let entry = catalog.accept_proposal(id, AUTHOR)?;
            println!(
                "accepted {id}: {} {} {} v{}",
                entry.id, entry.kind, entry.name, entry.version
            );
            Ok(ExitCode::SUCCESS)
        }
        Action::Reject { id, reason } => {
            let id = parse_proposal_id(&id)?;
            let p = catalog.reject_proposal(id, AUTHOR, &reason)?;
            println!("rejected {} {} {}", p.id, p.kind, p.name);
            Ok(ExitCode::SUCCESS)
        }
        Action::Runs { session, json } => runs(&catalog.runs(session.as_deref())?, json),
    }
}

// ---------------------------------------------------------------------------------------
// The commands.

fn check(files: &[PathBuf]) -> ExitCode {
    let mut failed = false;
    for file in files {
        match read_document(file).and_then(|text| {
            Document::parse(&text).map_err(|e| Failure(format!("{}: {e}", file.display())))
        }) {
            Ok(doc) => println!("ok {} {}", doc.kind(), doc.name),
            Err(Failure(message)) => {
                failed = true;
                println!("error {message}");
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn import(catalog: &mut Catalog, dirs: &[PathBuf]) -> Outcome {
    let report: ImportReport = catalog.import_shared(dirs)?;
    for (word, entries) in [
        ("added", &report.added),
        ("updated", &report.updated),
        ("unchanged", &report.unchanged),
    ] {
        for e in entries {
            println!("{word} {} {} {} v{}", e.id, e.kind, e.name, e.version);
        }
    }
    for o in &report.overrides {
        println!(
            "override {} {}: {} over {}",
            o.kind,
            o.name,
            o.kept.display(),
            o.dropped.display()
        );
    }
    for p in &report.problems {
        println!("error {}: {}", p.path.display(), p.error);
    }
    Ok(if report.problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn list(catalog: &Catalog, query: &Query, json: bool) -> Outcome {
    let hits = catalog.search(query)?;
    if json {
        print_json(&hits)?;
    } else if hits.is_empty() {
        eprintln!(
            "no entries{}; import skill folders with `porfiry catalog import DIR` or add one with `porfiry catalog add FILE`",
            if filtered(query) { " match" } else { "" }
        );
    } else {
        for hit in &hits {
            println!("{}", summary_line(hit));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Whether a query narrows the list at all.
fn filtered(query: &Query) -> bool {
    !query.text.trim().is_empty()
        || query.kind.is_some()
        || query.tag.is_some()
        || query.area.is_some()
}

fn show(entry: &Entry, json: bool) -> Outcome {
    if json {
        print_json(entry)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = format!(
        "{} {} {} {} v{} (updated {} by {}",
        entry.id,
        entry.owner,
        entry.kind(),
        entry.document.name,
        entry.version,
        date(entry.updated_at),
        entry.updated_by
    );
    if let Some(source) = &entry.source {
        let _ = write!(out, ", from {source}");
    }
    out.push(')');
    println!("{out}");
    print!("{}", entry.content);
    if !entry.content.ends_with('\n') {
        println!();
    }
    Ok(ExitCode::SUCCESS)
}

fn versions(catalog: &Catalog, entry: &Entry, json: bool) -> Outcome {
    let versions = catalog.versions(entry.id)?;
    if json {
        print_json(&versions)?;
        return Ok(ExitCode::SUCCESS);
    }
    for v in &versions {
        let mut line = format!("v{} {} by {}", v.version, date(v.created_at), v.author);
        if !v.reason.trim().is_empty() {
            let _ = write!(line, ": {}", one_line(&v.reason));
        }
        println!("{line}");
    }
    Ok(ExitCode::SUCCESS)
}

fn proposals(proposals: &[Proposal], json: bool) -> Outcome {
    if json {
        print_json(proposals)?;
    } else if proposals.is_empty() {
        eprintln!("no proposals (the agent proposes protocols during a conversation)");
    } else {
        for p in proposals {
            let mut line = format!(
                "{} {} {} {} (session {}",
                p.id, p.status, p.kind, p.name, p.session
            );
            if let Some(r) = p.replaces {
                let _ = write!(line, ", replaces {r}");
            }
            if let Some(e) = p.entry {
                let _ = write!(line, ", entry {e}");
            }
            line.push(')');
            if let Some(err) = &p.error {
                let _ = write!(line, " — refused: {}", one_line(err));
            }
            println!("{line}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn runs(runs: &[Run], json: bool) -> Outcome {
    if json {
        print_json(runs)?;
    } else if runs.is_empty() {
        eprintln!("no protocol runs");
    } else {
        for r in runs {
            let closed = r
                .steps
                .iter()
                .filter(|s| s.status != StepStatus::Open)
                .count();
            let mut line = format!(
                "{} {} {} v{} (session {}, started {}) steps {closed}/{} closed",
                r.id,
                r.status,
                r.protocol_name,
                r.protocol_version,
                r.session,
                date(r.started_at),
                r.steps.len()
            );
            let note = match r.status {
                RunStatus::Done => r.report.as_deref(),
                _ => r.reason.as_deref(),
            };
            if let Some(note) = note {
                let _ = write!(line, " — {}", one_line(note));
            }
            println!("{line}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

// ---------------------------------------------------------------------------------------
// Helpers.

/// `#12 personal skill v2 tea — how to make tea`.
fn summary_line(hit: &EntrySummary) -> String {
    let mut line = format!(
        "{} {} {} v{} {}",
        hit.id, hit.owner, hit.kind, hit.version, hit.name
    );
    if !hit.description.is_empty() {
        let _ = write!(line, " — {}", one_line(&hit.description));
    }
    line
}

fn resolve(catalog: &Catalog, name_or_id: &str, kind: Option<Kind>) -> Result<Entry, Failure> {
    Ok(catalog.resolve(name_or_id, kind)?)
}

/// `--kind` (a usage error, exit 2, when it is neither kind).
fn parse_kind(text: &str) -> Result<Kind, String> {
    Kind::parse(text).ok_or_else(|| "must be skill or protocol".to_string())
}

/// `--area` (a usage error, exit 2, when it is no area).
fn parse_area(text: &str) -> Result<Area, String> {
    Area::parse(text.trim()).ok_or_else(|| {
        let all: Vec<&str> = Area::ALL.iter().map(|a| a.as_str()).collect();
        format!("must be one of {}", all.join(", "))
    })
}

fn parse_proposal_id(text: &str) -> Result<ProposalId, Failure> {
    ProposalId::parse(text).ok_or_else(|| {
        Failure(format!(
            "{text:?} is not a proposal id; `porfiry catalog proposals` lists them (#4 or 4)"
        ))
    })
}

/// A document file as text, never reading more than the size limit (plus one byte to tell).
fn read_document(path: &Path) -> Result<String, Failure> {
    let shown = path.display();
    let file = std::fs::File::open(path).map_err(|e| Failure(format!("{shown}: {e}")))?;
    let mut bytes = Vec::new();
    file.take(MAX_DOCUMENT_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Failure(format!("{shown}: {e}")))?;
    if bytes.len() > MAX_DOCUMENT_BYTES {
        let bytes = std::fs::metadata(path)
            .map(|m| m.len() as usize)
            .unwrap_or(bytes.len());
        let e = DocumentError::FrontMatter(FrontMatterError::TooLarge {
            bytes,
            limit: MAX_DOCUMENT_BYTES,
        });
        return Err(Failure(format!("{shown}: {e}")));
    }
    String::from_utf8(bytes).map_err(|_| Failure(format!("{shown}: {}", DocumentError::NotUtf8)))
}

/// The store's message, and what to do next where the message does not say.
fn with_hint(e: &CatalogError) -> String {
    let hint = match e {
        CatalogError::NoEntry(_) | CatalogError::NoName { .. } => {
            "; `porfiry catalog list` shows the entries"
        }
        CatalogError::Ambiguous { .. } => "; pass the id or --kind skill|protocol",
        CatalogError::ReadOnly(_) => " with `porfiry catalog add FILE`",
        CatalogError::NoProposal(_) | CatalogError::AlreadyDecided { .. } => {
            "; `porfiry catalog proposals` lists them"
        }
        CatalogError::Duplicate { .. } => {
            "; edit that entry with `porfiry catalog edit NAME|ID FILE`, or choose another name"
        }
        _ => "",
    };
    format!("{e}{hint}")
}

/// A text as one line (lists show reasons and reports inline).
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A timestamp as `YYYY-MM-DD HH:MM:SS` UTC.
fn date(at: Timestamp) -> String {
    let secs = at.as_millis().div_euclid(1000);
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Days since 1970-01-01 → civil date (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

fn print_json<T: serde::Serialize + ?Sized>(value: &T) -> Result<(), Failure> {
    let text =
        serde_json::to_string_pretty(value).map_err(|e| Failure(format!("writing JSON: {e}")))?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{text}").map_err(|e| Failure(format!("writing to stdout: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_utc_calendar_dates() {
        assert_eq!(date(Timestamp(0)), "1970-01-01 00:00:00");
        assert_eq!(date(Timestamp(951_782_400_000)), "2000-02-29 00:00:00");
        assert_eq!(date(Timestamp(1_700_000_000_123)), "2023-11-14 22:13:20");
    }
}
