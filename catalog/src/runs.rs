//! Protocol runs: an explicit start, steps marked one by one, an explicit finish.
//!
//! A run snapshots the protocol at start — its version, document, steps and post-checks —
//! so editing the entry mid-run cannot change what the running agent owes the user. A
//! session has at most one running run (a partial unique index in the database). The
//! rules of the finish: `done` needs a report and no open or failed step; `cancelled`
//! needs a reason and turns the open steps `skipped`; once a step failed, `failed` (with a
//! reason) is the only way out.

use std::fmt;

use rusqlite::{params, Connection, OptionalExtension};

use crate::clock::Timestamp;
use crate::error::{CatalogError, Result};
use crate::ids::{EntryId, RunId};
use crate::store::{corrupt, from_json, get_entry, require, to_json, version_of, Catalog};
use crate::vocab::RunStatus;

/// Where a step of a run stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum StepStatus {
    /// Not done yet.
    Open,
    /// Done, with its validation.
    Done,
    /// Failed, with a reason.
    Failed,
    /// Skipped, with a reason.
    Skipped,
}

impl StepStatus {
    /// As stored: `open`, `done`, `failed`, `skipped`.
    pub fn as_str(self) -> &'static str {
        match self {
            StepStatus::Open => "open",
            StepStatus::Done => "done",
            StepStatus::Failed => "failed",
            StepStatus::Skipped => "skipped",
        }
    }

    fn parse(text: &str) -> Result<StepStatus> {
        match text {
            "open" => Ok(StepStatus::Open),
            "done" => Ok(StepStatus::Done),
            "failed" => Ok(StepStatus::Failed),
            "skipped" => Ok(StepStatus::Skipped),
            _ => Err(corrupt("run_steps.status", text)),
        }
    }
}

impl fmt::Display for StepStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One step of a run.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct RunStep {
    /// Its number, from 1.
    pub number: u32,
    /// Its text, as the protocol said at start.
    pub text: String,
    /// Where it stands.
    pub status: StepStatus,
    /// Done: the validation; failed or skipped: the reason; open: empty.
    pub note: String,
    /// When it was last marked (the start, for an open step).
    pub updated_at: Timestamp,
}

/// A protocol run.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Run {
    /// Its id.
    pub id: RunId,
    /// The session running it.
    pub session: String,
    /// The protocol's entry (which may have changed or gone since).
    pub protocol: EntryId,
    /// The protocol's name at start.
    pub protocol_name: String,
    /// The protocol's version at start.
    pub protocol_version: u32,
    /// The protocol's document at start.
    pub protocol_content: String,
    /// The steps, snapshot at start, with their states.
    pub steps: Vec<RunStep>,
    /// The post-checks, snapshot at start.
    pub post_checks: Vec<String>,
    /// Where it stands.
    pub status: RunStatus,
    /// Done: the report.
    pub report: Option<String>,
    /// Failed or cancelled: the reason.
    pub reason: Option<String>,
    /// When it started.
    pub started_at: Timestamp,
    /// When it finished.
    pub finished_at: Option<Timestamp>,
}

impl Run {
    /// The numbers of the steps still open.
    pub fn open_steps(&self) -> Vec<u32> {
        self.steps
            .iter()
            .filter(|s| s.status == StepStatus::Open)
            .map(|s| s.number)
            .collect()
    }

    /// The first failed step, if any.
    pub fn failed_step(&self) -> Option<u32> {
        self.steps
            .iter()
            .find(|s| s.status == StepStatus::Failed)
            .map(|s| s.number)
    }
}

/// How a step is marked ([`Catalog::mark_step`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StepMark {
    /// Done; the validation says how it was checked (required).
    Done {
        /// How the result was verified.
        validation: String,
    },
    /// Failed (required reason); from then on the run can only end as failed.
    Failed {
        /// What went wrong.
        reason: String,
    },
    /// Skipped (required reason).
    Skipped {
        /// Why.
        reason: String,
    },
}

/// How a run ends ([`Catalog::finish_run`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunEnd {
    /// Done: every step closed, none failed; the report is required.
    Done {
        /// What was done, each post-check and its result.
        report: String,
    },
    /// Failed: which step, why, what state things are in (required).
    Failed {
        /// The reason.
        reason: String,
    },
    /// Cancelled (required reason): open steps become skipped. Not after a failed step.
    Cancelled {
        /// The reason.
        reason: String,
    },
}

const RUN_COLUMNS: &str = "id, session_id, protocol_id, protocol_name, protocol_version, \
     protocol_content, post_checks, status, report, reason, started_at, finished_at";

fn load_run(conn: &Connection, id: RunId) -> Result<Option<Run>> {
    let raw = conn
        .query_row(
            &format!("SELECT {RUN_COLUMNS} FROM runs WHERE id = ?1"),
            [id.0],
            |r| {
                Ok((
                    r.get::<_, String>(1)?,
                    r.get::<_, i64>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, i64>(4)?,
                    r.get::<_, String>(5)?,
                    r.get::<_, String>(6)?,
                    r.get::<_, String>(7)?,
                    r.get::<_, Option<String>>(8)?,
                    r.get::<_, Option<String>>(9)?,
                    r.get::<_, i64>(10)?,
                    r.get::<_, Option<i64>>(11)?,
                ))
            },
        )
        .optional()?;
    let Some((
        session,
        protocol,
        name,
        version,
        content,
        post_checks,
        status,
        report,
        reason,
        started,
        finished,
    )) = raw
    else {
        return Ok(None);
    };
    let mut stmt = conn.prepare(
        "SELECT number, text, status, note, updated_at FROM run_steps
         WHERE run_id = ?1 ORDER BY number",
    )?;
    let steps = stmt
        .query_map([id.0], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, i64>(4)?,
            ))
        })?
        .map(|row| {
            let (number, text, status, note, updated_at) = row?;
            Ok(RunStep {
                number: version_of("run_steps.number", number)?,
                text,
                status: StepStatus::parse(&status)?,
                note,
                updated_at: Timestamp(updated_at),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Some(Run {
        id,
        session,
        protocol: EntryId(protocol),
        protocol_name: name,
        protocol_version: version_of("runs.protocol_version", version)?,
        protocol_content: content,
        steps,
        post_checks: from_json("runs.post_checks", &post_checks)?,
        status: RunStatus::from_stored(&status).ok_or_else(|| corrupt("runs.status", &status))?,
        report,
        reason,
        started_at: Timestamp(started),
        finished_at: finished.map(Timestamp),
    }))
}

fn get_run(conn: &Connection, id: RunId) -> Result<Run> {
    load_run(conn, id)?.ok_or(CatalogError::NoRun(id))
}

fn running_in(conn: &Connection, session: &str) -> Result<Option<Run>> {
    let id: Option<i64> = conn
        .query_row(
            "SELECT id FROM runs WHERE session_id = ?1 AND status = 'running'",
            [session],
            |r| r.get(0),
        )
        .optional()?;
    match id {
        Some(id) => load_run(conn, RunId(id)),
        None => Ok(None),
    }
}

fn running(conn: &Connection, id: RunId) -> Result<Run> {
    let run = get_run(conn, id)?;
    if run.status != RunStatus::Running {
        return Err(CatalogError::RunNotRunning {
            run: id,
            status: run.status,
        });
    }
    Ok(run)
}

fn run_ids(conn: &Connection, session: Option<&str>) -> Result<Vec<RunId>> {
    let mut stmt =
        conn.prepare("SELECT id FROM runs WHERE ?1 IS NULL OR session_id = ?1 ORDER BY id DESC")?;
    let ids = stmt
        .query_map([session], |r| r.get(0).map(RunId))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(ids)
}

impl Catalog {
    /// Starts a run of protocol `protocol` in `session`: the protocol's version, document,
    /// steps and post-checks are copied into the run. Refused while the session has a
    /// running run ([`CatalogError::RunAlreadyRunning`]; the database enforces it too).
    pub fn start_run(&mut self, session: &str, protocol: EntryId) -> Result<Run> {
        require("the session", session)?;
        self.write(|tx, now| {
            let entry = get_entry(tx, protocol)?.ok_or(CatalogError::NoEntry(protocol))?;
            // Only a protocol has protocol fields.
            let Some(p) = entry.document.protocol.as_ref() else {
                return Err(CatalogError::NotAProtocol {
                    what: "a run",
                    name: entry.document.name.clone(),
                });
            };
            if let Some(run) = running_in(tx, session)? {
                return Err(CatalogError::RunAlreadyRunning {
                    session: session.to_string(),
                    run: run.id,
                    protocol: run.protocol_name,
                });
            }
            tx.execute(
                "INSERT INTO runs (session_id, protocol_id, protocol_name, protocol_version,
                     protocol_content, post_checks, status, started_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'running', ?7)",
                params![
                    session,
                    entry.id.0,
                    entry.document.name,
                    entry.version,
                    entry.content,
                    to_json(&p.post_checks)?,
                    now.0,
                ],
            )?;
            let id = RunId(tx.last_insert_rowid());
            for (i, step) in p.steps.iter().enumerate() {
                tx.execute(
                    "INSERT INTO run_steps (run_id, number, text, status, note, updated_at)
                     VALUES (?1, ?2, ?3, 'open', '', ?4)",
                    params![id.0, i as i64 + 1, step, now.0],
                )?;
            }
            get_run(tx, id)
        })
    }

    /// Marks step `step` (from 1) of running run `run`. A step may be marked again while
    /// the run is running, except a failed one; once a step failed, no step is marked any
    /// more ([`CatalogError::StepFailed`]: the run can only end as failed).
    pub fn mark_step(&mut self, run: RunId, step: u32, mark: StepMark) -> Result<Run> {
        let (status, note) = match &mark {
            StepMark::Done { validation } => (StepStatus::Done, ("the validation", validation)),
            StepMark::Failed { reason } => (StepStatus::Failed, ("the reason", reason)),
            StepMark::Skipped { reason } => (StepStatus::Skipped, ("the reason", reason)),
        };
        require(note.0, note.1)?;
        self.write(|tx, now| {
            let current = running(tx, run)?;
            let steps = current.steps.len() as u32;
            if step == 0 || step > steps {
                return Err(CatalogError::NoStep { run, step, steps });
            }
            if let Some(failed) = current.failed_step() {
                return Err(CatalogError::StepFailed { run, step: failed });
            }
            tx.execute(
                "UPDATE run_steps SET status = ?3, note = ?4, updated_at = ?5
                 WHERE run_id = ?1 AND number = ?2",
                params![run.0, step, status.as_str(), note.1.trim(), now.0],
            )?;
            get_run(tx, run)
        })
    }

    /// Ends running run `run` as `end` says (see [`RunEnd`] for each one's rules).
    pub fn finish_run(&mut self, run: RunId, end: RunEnd) -> Result<Run> {
        let (status, text) = match &end {
            RunEnd::Done { report } => (RunStatus::Done, ("the report", report)),
            RunEnd::Failed { reason } => (RunStatus::Failed, ("the reason", reason)),
            RunEnd::Cancelled { reason } => (RunStatus::Cancelled, ("the reason", reason)),
        };
        require(text.0, text.1)?;
        let text = text.1.trim();
        self.write(|tx, now| {
            let current = running(tx, run)?;
            if status != RunStatus::Failed {
                if let Some(step) = current.failed_step() {
                    return Err(CatalogError::StepFailed { run, step });
                }
            }
            match status {
                RunStatus::Done => {
                    let open = current.open_steps();
                    if !open.is_empty() {
                        return Err(CatalogError::OpenSteps { run, steps: open });
                    }
                }
                RunStatus::Cancelled => {
                    tx.execute(
                        "UPDATE run_steps SET status = 'skipped', note = ?2, updated_at = ?3
                         WHERE run_id = ?1 AND status = 'open'",
                        params![run.0, text, now.0],
                    )?;
                }
                RunStatus::Failed | RunStatus::Running => {}
            }
            let (report, reason) = match status {
                RunStatus::Done => (Some(text), None),
                _ => (None, Some(text)),
            };
            tx.execute(
                "UPDATE runs SET status = ?2, report = ?3, reason = ?4, finished_at = ?5
                 WHERE id = ?1",
                params![run.0, status.as_str(), report, reason, now.0],
            )?;
            get_run(tx, run)
        })
    }

    /// The running run of `session`, if any.
    pub fn current_run(&self, session: &str) -> Result<Option<Run>> {
        running_in(self.conn(), session)
    }

    /// Run `id`.
    pub fn run(&self, id: RunId) -> Result<Run> {
        get_run(self.conn(), id)
    }

    /// The runs of `session` (all sessions when `None`), newest first.
    pub fn runs(&self, session: Option<&str>) -> Result<Vec<Run>> {
        run_ids(self.conn(), session)?
            .into_iter()
            .map(|id| get_run(self.conn(), id))
            .collect()
    }
}
