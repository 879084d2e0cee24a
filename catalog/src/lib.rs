//! Porfiry's on-device catalog of skills and protocols.
//!
//! **Skills** say how to approach a kind of task; **protocols** are a strict, pre-agreed
//! order of actions with mandatory checks and an explicit, reported finish. Both are one
//! [`Document`] format — markdown with YAML front matter, `kind: skill | protocol` — and
//! live in one SQLite file, the [`Catalog`].
//!
//! # The model
//!
//! - **Entries** ([`Entry`]) are either *shared* — imported read-only from the skill folders
//!   ([`Catalog::sync_shared`], re-imports update by content hash) — or *personal*, written
//!   on the device ([`Catalog::create`], [`Catalog::update`]). Names are unique per
//!   (owner, kind, name), case ignored; a personal entry shadows a shared one of the same
//!   kind and name in [`Catalog::find`] and [`Catalog::search`].
//! - **Versions** ([`Version`]): every create and update appends one, with author and reason.
//!   `content_hash` is the SHA-256 of the document.
//! - **Proposals** ([`Proposal`]): the agent never writes a protocol; it proposes one
//!   ([`Catalog::propose`]) and the user accepts or rejects it. A pending proposal is not an
//!   entry: it never shows in search or load.
//! - **Runs** ([`Run`]): executing a protocol — [`Catalog::start_run`] snapshots its
//!   version, steps and post-checks; steps are marked ([`Catalog::mark_step`]); the run ends
//!   done (with a report), failed or cancelled ([`Catalog::finish_run`]). One running run per
//!   session, enforced by a partial unique index.
//!
//! ```no_run
//! use porfiry_catalog::{Catalog, CompactLabels, Query};
//!
//! # fn main() -> Result<(), porfiry_catalog::CatalogError> {
//! let mut catalog = Catalog::open("catalog.db")?;
//! catalog.sync_shared(&["skills"])?;
//! let id = catalog.create("---\nname: tea\n---\nBoil the water first.", "user", "")?.id;
//! for hit in catalog.search(&Query::text("tea"))? {
//!     println!("{}", hit.compact_line());
//! }
//! println!("{}", catalog.entry(id)?.document.render_compact(&CompactLabels::ENGLISH));
//! # Ok(())
//! # }
//! ```
//!
//! # Design decisions
//!
//! - **Durability first.** WAL mode, `synchronous = FULL`, every write one immediate
//!   transaction: a write that returned `Ok` survives a crash (tested by killing a writer
//!   process with SIGKILL at random points); nothing is ever half-written.
//! - **Schema versions are explicit.** `PRAGMA user_version` is the schema version and
//!   `PRAGMA application_id` marks the file. An older file is migrated forward in one
//!   transaction; a newer one, or a file that is not a catalog, is refused untouched.
//! - **Input is bounded.** Documents over [`MAX_DOCUMENT_BYTES`] are refused before
//!   parsing; front matter YAML is counted as it is built ([`MAX_YAML_NODES`],
//!   [`MAX_YAML_DEPTH`]), so alias bombs cannot exhaust memory, and flow collections are
//!   capped before parsing ([`MAX_FLOW_OPENINGS`]), as the YAML scanner's time grows with
//!   tokens × their nesting.
//! - **Nothing is lost from a document.** Unknown front matter keys are kept (as JSON in the
//!   store) and rendered back; values JSON cannot hold with the same meaning (YAML tags,
//!   non-text keys, infinities) are refused rather than changed. The document text as
//!   written is stored too, for the editor and the hash.
//! - **Time is injected** ([`Clock`]), so tests pin every timestamp and the search order.
//! - **No workspace dependencies but the front matter.** The catalog knows nothing about
//!   the agent or the model; hosts reach it through the runtime. Documents are read by
//!   `porfiry-frontmatter`, the reading the agent's skill folders use too: both split,
//!   bound and read a front matter the same way. Texts the model reads are plain data here
//!   ([`Document::render_compact`] takes its headings from the caller's message texts).
#![deny(missing_docs)]

mod clock;
mod document;
mod error;
mod ids;
mod import;
mod proposals;
mod runs;
mod schema;
mod search;
mod store;
mod vocab;

pub use clock::{Clock, ManualClock, SystemClock, Timestamp};
pub use document::{
    check_name, content_hash, name_key, normalize, CompactLabels, Document, Protocol,
    MAX_DOCUMENT_BYTES, NAME_LIMIT,
};
pub use error::{CatalogError, DocumentError, Result};
pub use ids::{EntryId, ProposalId, RunId};
pub use import::{ImportError, ImportProblem, ImportReport, Override, IMPORT_AUTHOR};
pub use porfiry_frontmatter::{
    FrontMatterError, MAX_FLOW_OPENINGS, MAX_YAML_DEPTH, MAX_YAML_NODES,
};
pub use proposals::{NewProposal, Proposal};
pub use runs::{Run, RunEnd, RunStep, StepMark, StepStatus};
pub use schema::{Opened, APPLICATION_ID, SCHEMA_VERSION};
pub use search::{EntrySummary, Query, DEFAULT_SEARCH_LIMIT};
pub use store::{Catalog, Entry, EntryRef, Update, Version, BUSY_TIMEOUT};
pub use vocab::{Area, Kind, Owner, ProposalStatus, RunStatus};
