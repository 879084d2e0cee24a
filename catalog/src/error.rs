//! The catalog's typed errors: [`DocumentError`] (a document the format refuses) and
//! [`CatalogError`] (everything the store can refuse or fail at).

use std::path::PathBuf;

use porfiry_frontmatter::FrontMatterError;

use crate::ids::{EntryId, ProposalId, RunId};
use crate::vocab::{Area, Kind, Owner, ProposalStatus, RunStatus};

/// Why a document was refused. The `Display` text is meant to be shown verbatim (the app's
/// editor, the CLI's `check`, a tool reply).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DocumentError {
    /// The front matter format refused the document: its size, its `---` block, or its
    /// YAML (the format's limits, values JSON cannot hold, a key twice).
    #[error(transparent)]
    FrontMatter(#[from] FrontMatterError),
    /// The bytes are not UTF-8 text.
    #[error("the document is not UTF-8 text")]
    NotUtf8,
    /// Required keys are missing (or empty). One error names every missing key.
    #[error("a {kind} needs {}: missing {}", if keys.len() == 1 { "this key" } else { "these keys" }, keys.join(", "))]
    MissingKeys {
        /// The document's kind.
        kind: Kind,
        /// Every missing key, in the format's order.
        keys: Vec<&'static str>,
    },
    /// A known key holds the wrong type of value.
    #[error("`{key}` must be {expected}")]
    WrongType {
        /// The key.
        key: &'static str,
        /// What it must be ("text", "a list of texts").
        expected: &'static str,
    },
    /// An empty text inside a list (`steps: ["", …]`).
    #[error("`{key}` item {item} is empty")]
    EmptyItem {
        /// The list's key.
        key: &'static str,
        /// The item's position, from 1.
        item: usize,
    },
    /// `kind` is neither `skill` nor `protocol`.
    #[error("`kind` must be skill or protocol, not {0:?}")]
    BadKind(String),
    /// `area` is not one of the four areas.
    #[error("`area` must be one of {}, not {value:?}", Area::ALL.iter().map(|a| a.as_str()).collect::<Vec<_>>().join(", "))]
    BadArea {
        /// What was written.
        value: String,
    },
    /// The name breaks a naming rule.
    #[error("the name {name:?} is not allowed: {why}")]
    BadName {
        /// The name.
        name: String,
        /// The broken rule.
        why: &'static str,
    },
    /// A skill without instructions.
    #[error("a skill needs instructions after the front matter")]
    EmptyBody,
    /// Protocol keys in a document that is a skill (no `kind: protocol`).
    #[error("{} only for protocols: add `kind: protocol` or remove {}", if keys.len() == 1 { "this key is" } else { "these keys are" }, keys.join(", "))]
    ProtocolKeysInSkill {
        /// The protocol keys found.
        keys: Vec<&'static str>,
    },
}

/// Everything the store can refuse or fail at.
#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    /// SQLite failed.
    #[error("catalog database: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// The file belongs to a newer build of Porfiry (a higher schema version); it is left as it is.
    #[error("{path}: the catalog was written by a newer Porfiry (schema version {found}, this build knows up to {supported}); it was not changed — update Porfiry")]
    NewerSchema {
        /// The file.
        path: PathBuf,
        /// Its schema version.
        found: u32,
        /// The newest version this build knows.
        supported: u32,
    },
    /// The file is not a catalog (another database, or not SQLite at all); it is left as it is.
    #[error("{path}: not a Porfiry catalog: {why}")]
    NotACatalog {
        /// The file.
        path: PathBuf,
        /// What gave it away.
        why: String,
    },
    /// A stored row does not read back (damaged or hand-edited database).
    #[error("catalog database is damaged: {0}")]
    Corrupt(String),
    /// The document was refused.
    #[error("{0}")]
    Document(#[from] DocumentError),
    /// No entry with this id.
    #[error("no catalog entry {0}")]
    NoEntry(EntryId),
    /// No entry with this name (of this kind).
    #[error("no {} named {name:?} in the catalog", kind.map(Kind::as_str).unwrap_or("skill or protocol"))]
    NoName {
        /// The name looked up.
        name: String,
        /// The kind asked for, if any.
        kind: Option<Kind>,
    },
    /// A name that a skill and a protocol share, looked up without a kind.
    #[error("both a skill ({skill}) and a protocol ({protocol}) are named {name:?}: say which")]
    Ambiguous {
        /// The name.
        name: String,
        /// The skill's id.
        skill: EntryId,
        /// The protocol's id.
        protocol: EntryId,
    },
    /// Another entry of this owner and kind has the name.
    #[error("a {owner} {kind} named {name:?} already exists ({existing})")]
    Duplicate {
        /// The owner.
        owner: Owner,
        /// The kind.
        kind: Kind,
        /// The name.
        name: String,
        /// The entry that has it.
        existing: EntryId,
    },
    /// Shared entries come from the imported folders and are read-only.
    #[error("{0} is a shared entry (imported from the skill folders) and cannot be changed; write a personal one of the same name instead")]
    ReadOnly(EntryId),
    /// An update would change the kind of an entry.
    #[error("{id} is a {from}; a document of kind {to} cannot replace it")]
    KindChanged {
        /// The entry.
        id: EntryId,
        /// Its kind.
        from: Kind,
        /// The document's kind.
        to: Kind,
    },
    /// Proposals and runs are for protocols only.
    #[error("{what} works with protocols only, and {name:?} is a skill")]
    NotAProtocol {
        /// The operation ("a proposal", "a run").
        what: &'static str,
        /// The skill's name.
        name: String,
    },
    /// A required text is empty (an author, a report, a reason, a session id).
    #[error("{0} must not be empty")]
    Empty(&'static str),
    /// No proposal with this id.
    #[error("no proposal {0}")]
    NoProposal(ProposalId),
    /// The proposal was decided already.
    #[error("proposal {id} is already {status}")]
    AlreadyDecided {
        /// The proposal.
        id: ProposalId,
        /// Its status.
        status: ProposalStatus,
    },
    /// Accepting the proposal was refused by the store; it stays pending with this reason.
    #[error("proposal {id} cannot be accepted: {reason} (it stays pending)")]
    ProposalRefused {
        /// The proposal.
        id: ProposalId,
        /// The store's reason, also kept on the proposal row.
        reason: String,
    },
    /// No run with this id.
    #[error("no protocol run {0}")]
    NoRun(RunId),
    /// The session already has a running run.
    #[error("session {session:?} already runs a protocol ({run} {protocol:?}); finish, cancel or fail it first")]
    RunAlreadyRunning {
        /// The session.
        session: String,
        /// The running run.
        run: RunId,
        /// Its protocol's name.
        protocol: String,
    },
    /// The run is finished.
    #[error("run {run} is {status}, not running")]
    RunNotRunning {
        /// The run.
        run: RunId,
        /// Its status.
        status: RunStatus,
    },
    /// `done` while steps are open.
    #[error("run {run} still has open steps: {}", steps.iter().map(u32::to_string).collect::<Vec<_>>().join(", "))]
    OpenSteps {
        /// The run.
        run: RunId,
        /// The open steps' numbers.
        steps: Vec<u32>,
    },
    /// A step failed: the run can only end as failed.
    #[error("step {step} of run {run} failed: the run can only end as failed")]
    StepFailed {
        /// The run.
        run: RunId,
        /// The failed step.
        step: u32,
    },
    /// No such step in the run.
    #[error("run {run} has steps 1 to {steps}, not {step}")]
    NoStep {
        /// The run.
        run: RunId,
        /// The step asked for.
        step: u32,
        /// How many steps the run has.
        steps: u32,
    },
}

/// The catalog's result type.
pub type Result<T, E = CatalogError> = std::result::Result<T, E>;
