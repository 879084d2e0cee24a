//! The database schema and its migrations.
//!
//! The schema version is SQLite's `PRAGMA user_version`; `PRAGMA application_id` marks the
//! file as a Porfiry catalog. `MIGRATIONS[i]` takes a file from version `i` to `i + 1`; a
//! file is brought to [`SCHEMA_VERSION`] in one transaction (all steps or none). A file of
//! a newer version, or one that is not a catalog, is refused before anything is written.

use std::path::Path;

use rusqlite::{Connection, TransactionBehavior};

use crate::error::{CatalogError, Result};

/// `PRAGMA application_id` of a catalog file: "PRFC".
pub const APPLICATION_ID: i32 = 0x5052_4643;

/// Version 1: entries, versions, proposals, runs and their steps.
const V1: &str = r#"
CREATE TABLE entries (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    owner        TEXT    NOT NULL CHECK (owner IN ('shared', 'personal')),
    kind         TEXT    NOT NULL CHECK (kind IN ('skill', 'protocol')),
    name         TEXT    NOT NULL,
    name_key     TEXT    NOT NULL,  -- lower case, whitespace collapsed: what uniqueness compares
    description  TEXT    NOT NULL,
    triggers     TEXT    NOT NULL,  -- JSON array of texts
    tags         TEXT    NOT NULL,  -- JSON array of texts
    area         TEXT    NOT NULL CHECK (area IN ('home', 'infrastructure', 'workflows', 'general')),
    protocol     TEXT,              -- JSON object of the protocol fields; NULL for a skill
    body         TEXT    NOT NULL,
    extra        TEXT    NOT NULL,  -- JSON object: front matter keys the format does not know
    content      TEXT    NOT NULL,  -- the document as written (line endings normalised)
    content_hash TEXT    NOT NULL,  -- SHA-256 of content, hex
    version      INTEGER NOT NULL CHECK (version >= 1),
    source       TEXT,              -- shared entries: the file they were imported from
    search_text  TEXT    NOT NULL,  -- lower-cased name, description, triggers and tags
    tag_keys     TEXT    NOT NULL,  -- JSON array of the lower-cased tags
    created_at   INTEGER NOT NULL,  -- milliseconds since the Unix epoch
    updated_at   INTEGER NOT NULL,
    updated_by   TEXT    NOT NULL,
    CHECK ((kind = 'protocol') = (protocol IS NOT NULL))
);
CREATE UNIQUE INDEX entries_owner_kind_name ON entries (owner, kind, name_key);
CREATE INDEX entries_updated ON entries (updated_at);

CREATE TABLE versions (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    entry_id     INTEGER NOT NULL REFERENCES entries (id) ON DELETE CASCADE,
    version      INTEGER NOT NULL CHECK (version >= 1),
    content      TEXT    NOT NULL,
    content_hash TEXT    NOT NULL,
    author       TEXT    NOT NULL,
    reason       TEXT    NOT NULL,
    created_at   INTEGER NOT NULL,
    UNIQUE (entry_id, version)
);

CREATE TABLE proposals (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id      TEXT    NOT NULL,
    kind            TEXT    NOT NULL CHECK (kind IN ('skill', 'protocol')),
    name            TEXT    NOT NULL,
    content         TEXT    NOT NULL,
    content_hash    TEXT    NOT NULL,
    replaces_id     INTEGER,          -- the entry it would replace, if any
    author          TEXT    NOT NULL, -- who proposed it
    reason          TEXT    NOT NULL, -- why, as the proposer said
    status          TEXT    NOT NULL CHECK (status IN ('pending', 'accepted', 'rejected')),
    entry_id        INTEGER,          -- accepted: the entry written
    error           TEXT,             -- pending: why the store refused to accept it
    decision_reason TEXT,             -- rejected: why
    created_at      INTEGER NOT NULL,
    decided_at      INTEGER,
    decided_by      TEXT,
    reported_at     INTEGER,          -- when the decision was handed to the session
    CHECK ((status = 'pending') = (decided_at IS NULL))
);
CREATE INDEX proposals_status ON proposals (status);
CREATE INDEX proposals_session ON proposals (session_id);

CREATE TABLE runs (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id       TEXT    NOT NULL,
    protocol_id      INTEGER NOT NULL,  -- no foreign key: the log outlives the entry
    protocol_name    TEXT    NOT NULL,
    protocol_version INTEGER NOT NULL,
    protocol_content TEXT    NOT NULL,  -- the document executed
    post_checks      TEXT    NOT NULL,  -- JSON array, snapshot at start
    status           TEXT    NOT NULL CHECK (status IN ('running', 'done', 'failed', 'cancelled')),
    report           TEXT,
    reason           TEXT,
    started_at       INTEGER NOT NULL,
    finished_at      INTEGER,
    CHECK ((status = 'running') = (finished_at IS NULL))
);
-- One running run per session, enforced by the database.
CREATE UNIQUE INDEX runs_one_running ON runs (session_id) WHERE status = 'running';
CREATE INDEX runs_session ON runs (session_id);

CREATE TABLE run_steps (
    run_id     INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    number     INTEGER NOT NULL CHECK (number >= 1),
    text       TEXT    NOT NULL,       -- snapshot at start
    status     TEXT    NOT NULL CHECK (status IN ('open', 'done', 'failed', 'skipped')),
    note       TEXT    NOT NULL,       -- done: the validation; failed/skipped: the reason
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (run_id, number)
) WITHOUT ROWID;
"#;

/// Every migration, in order: `MIGRATIONS[i]` takes version `i` to `i + 1`.
const MIGRATIONS: &[&str] = &[V1];

/// The schema version this build writes.
pub const SCHEMA_VERSION: u32 = MIGRATIONS.len() as u32;

/// What the file's header says.
struct Header {
    application_id: i32,
    user_version: u32,
    tables: i64,
}

fn header(conn: &Connection) -> rusqlite::Result<Header> {
    Ok(Header {
        application_id: conn.query_row("PRAGMA application_id", [], |r| r.get(0))?,
        user_version: conn.query_row("PRAGMA user_version", [], |r| r.get(0))?,
        tables: conn.query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table'",
            [],
            |r| r.get(0),
        )?,
    })
}

/// Refuses a file that is not a catalog or is newer than `latest`. Reads only.
fn check(path: &Path, h: &Header, latest: u32) -> Result<()> {
    let not_ours = |why: String| CatalogError::NotACatalog {
        path: path.to_path_buf(),
        why,
    };
    if h.application_id != 0 && h.application_id != APPLICATION_ID {
        return Err(not_ours(format!(
            "its application id is {:#x}",
            h.application_id
        )));
    }
    if h.application_id == 0 && (h.user_version != 0 || h.tables != 0) {
        return Err(not_ours("it is another SQLite database".into()));
    }
    if h.user_version > latest {
        return Err(CatalogError::NewerSchema {
            path: path.to_path_buf(),
            found: h.user_version,
            supported: latest,
        });
    }
    Ok(())
}

/// Checks the file before anything is written to it (see [`migrate`]).
pub(crate) fn check_before_open(conn: &Connection, path: &Path) -> Result<()> {
    let h = header(conn).map_err(|e| not_a_database(path, e))?;
    check(path, &h, SCHEMA_VERSION)
}

/// SQLite's "file is not a database" as [`CatalogError::NotACatalog`].
pub(crate) fn not_a_database(path: &Path, e: rusqlite::Error) -> CatalogError {
    match e.sqlite_error_code() {
        Some(rusqlite::ErrorCode::NotADatabase) => CatalogError::NotACatalog {
            path: path.to_path_buf(),
            why: "it is not an SQLite database".into(),
        },
        _ => CatalogError::Sqlite(e),
    }
}

/// What opening did to the file's schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opened {
    /// The file was new (or empty): the schema was created.
    Created,
    /// The file was at [`SCHEMA_VERSION`] already.
    Current,
    /// The file was migrated forward from this schema version.
    Migrated {
        /// The version the file had.
        from: u32,
    },
}

/// Brings the file to [`SCHEMA_VERSION`].
pub(crate) fn migrate(conn: &mut Connection, path: &Path) -> Result<Opened> {
    migrate_with(conn, path, MIGRATIONS)
}

/// Applies `migrations` from the file's version on, in one immediate transaction (the
/// header is read again inside it: another process may have migrated meanwhile). On any
/// error nothing changes.
fn migrate_with(conn: &mut Connection, path: &Path, migrations: &[&str]) -> Result<Opened> {
    let latest = migrations.len() as u32;
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let h = header(&tx)?;
    check(path, &h, latest)?;
    let opened = match h.user_version {
        v if v == latest => return Ok(Opened::Current),
        0 => Opened::Created,
        from => Opened::Migrated { from },
    };
    for step in &migrations[h.user_version as usize..] {
        tx.execute_batch(step)?;
    }
    tx.pragma_update(None, "application_id", APPLICATION_ID)?;
    tx.pragma_update(None, "user_version", latest)?;
    tx.commit()?;
    Ok(opened)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn version(conn: &Connection) -> u32 {
        conn.query_row("PRAGMA user_version", [], |r| r.get(0))
            .expect("user_version")
    }

    #[test]
    fn migrations_run_in_order_from_the_files_version() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("c.db");
        let mut conn = Connection::open(&path).expect("open");
        let first = ["CREATE TABLE a (x INTEGER);"];
        assert_eq!(
            migrate_with(&mut conn, &path, &first).expect("v1"),
            Opened::Created
        );
        assert_eq!(
            migrate_with(&mut conn, &path, &first).expect("again"),
            Opened::Current
        );
        conn.execute("INSERT INTO a VALUES (7)", []).expect("row");
        let both = [
            first[0],
            "ALTER TABLE a ADD COLUMN y TEXT NOT NULL DEFAULT 'new';",
        ];
        assert_eq!(
            migrate_with(&mut conn, &path, &both).expect("v2"),
            Opened::Migrated { from: 1 }
        );
        let y: String = conn
            .query_row("SELECT y FROM a WHERE x = 7", [], |r| r.get(0))
            .expect("migrated row");
        assert_eq!(y, "new");
        assert_eq!(version(&conn), 2);
    }

    #[test]
    fn a_failing_migration_leaves_the_file_as_it_was() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("c.db");
        let mut conn = Connection::open(&path).expect("open");
        let first = ["CREATE TABLE a (x INTEGER);"];
        migrate_with(&mut conn, &path, &first).expect("v1");
        let broken = [first[0], "CREATE TABLE b (x INTEGER);", "THIS IS NOT SQL;"];
        assert!(migrate_with(&mut conn, &path, &broken).is_err());
        assert_eq!(version(&conn), 1);
        let b: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE name = 'b'",
                [],
                |r| r.get(0),
            )
            .expect("count");
        assert_eq!(b, 0, "the step before the broken one was rolled back too");
    }

    #[test]
    fn a_newer_file_is_refused_inside_the_migration_too() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("c.db");
        let mut conn = Connection::open(&path).expect("open");
        migrate_with(
            &mut conn,
            &path,
            &["CREATE TABLE a (x);", "CREATE TABLE b (x);"],
        )
        .expect("v2");
        match migrate_with(&mut conn, &path, &["CREATE TABLE a (x);"]) {
            Err(CatalogError::NewerSchema {
                found: 2,
                supported: 1,
                ..
            }) => {}
            other => panic!("expected NewerSchema, got {other:?}"),
        }
    }
}
