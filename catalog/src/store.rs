//! [`Catalog`]: the SQLite file, its entries and their versions.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use rusqlite::{params, Connection, OptionalExtension, Row, TransactionBehavior};
use serde::de::DeserializeOwned;

use crate::clock::{Clock, SystemClock, Timestamp};
use crate::document::{content_hash, name_key, normalize, Document, Protocol};
use crate::error::{CatalogError, DocumentError, Result};
use crate::ids::EntryId;
use crate::schema::{self, Opened};
use crate::vocab::{Area, Kind, Owner};

/// How long a write waits for another connection's write to end before it fails.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// An entry as a write left it: enough to name it in a reply.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct EntryRef {
    /// Its id.
    pub id: EntryId,
    /// Its owner.
    pub owner: Owner,
    /// Its kind.
    pub kind: Kind,
    /// Its name.
    pub name: String,
    /// Its version after the write.
    pub version: u32,
}

/// What [`Catalog::update`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Update {
    /// A new version was written.
    Changed(EntryRef),
    /// The document was the stored one (same hash): nothing was written.
    Unchanged(EntryRef),
}

impl Update {
    /// The entry, either way.
    pub fn entry(&self) -> &EntryRef {
        match self {
            Update::Changed(e) | Update::Unchanged(e) => e,
        }
    }
}

/// A whole catalog entry.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Entry {
    /// Its id.
    pub id: EntryId,
    /// Its owner.
    pub owner: Owner,
    /// The parsed document.
    pub document: Document,
    /// The document as written (line endings normalised): what the editor shows.
    pub content: String,
    /// SHA-256 of `content`, hex.
    pub content_hash: String,
    /// The latest version (the first is 1).
    pub version: u32,
    /// Shared entries: the file imported.
    pub source: Option<String>,
    /// When it was created.
    pub created_at: Timestamp,
    /// When its latest version was written.
    pub updated_at: Timestamp,
    /// Who wrote the latest version.
    pub updated_by: String,
}

impl Entry {
    /// Skill or protocol.
    pub fn kind(&self) -> Kind {
        self.document.kind()
    }

    /// The entry as a write reference.
    pub fn to_ref(&self) -> EntryRef {
        EntryRef {
            id: self.id,
            owner: self.owner,
            kind: self.kind(),
            name: self.document.name.clone(),
            version: self.version,
        }
    }
}

/// One row of an entry's history.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Version {
    /// The entry.
    pub entry: EntryId,
    /// The version number (from 1).
    pub version: u32,
    /// The document of that version.
    pub content: String,
    /// Its SHA-256, hex.
    pub content_hash: String,
    /// Who wrote it.
    pub author: String,
    /// Why, as the author said.
    pub reason: String,
    /// When.
    pub created_at: Timestamp,
}

/// A document ready to be stored: parsed, normalised, hashed.
pub(crate) struct Prepared {
    pub(crate) doc: Document,
    pub(crate) content: String,
    pub(crate) hash: String,
}

impl Prepared {
    pub(crate) fn new(text: &str) -> Result<Prepared, DocumentError> {
        let doc = Document::parse(text)?;
        let content = normalize(text).into_owned();
        let hash = content_hash(&content);
        Ok(Prepared { doc, content, hash })
    }
}

pub(crate) fn corrupt(what: &str, value: impl fmt::Display) -> CatalogError {
    CatalogError::Corrupt(format!("{what} holds {value}"))
}

pub(crate) fn from_json<T: DeserializeOwned>(what: &str, text: &str) -> Result<T> {
    serde_json::from_str(text).map_err(|e| corrupt(what, format!("bad JSON ({e})")))
}

pub(crate) fn to_json<T: serde::Serialize>(value: &T) -> Result<String> {
    serde_json::to_string(value).map_err(|e| CatalogError::Corrupt(format!("JSON: {e}")))
}

pub(crate) fn kind_of(what: &str, text: &str) -> Result<Kind> {
    Kind::parse(text)
        .filter(|k| k.as_str() == text)
        .ok_or_else(|| corrupt(what, text))
}

pub(crate) fn version_of(what: &str, v: i64) -> Result<u32> {
    u32::try_from(v).map_err(|_| corrupt(what, v))
}

pub(crate) fn require(what: &'static str, text: &str) -> Result<()> {
    if text.trim().is_empty() {
        return Err(CatalogError::Empty(what));
    }
    Ok(())
}

/// The columns [`RawEntry::read`] expects, in order.
pub(crate) const ENTRY_COLUMNS: &str = "id, owner, kind, name, description, triggers, tags, \
     area, protocol, body, extra, content, content_hash, version, source, created_at, \
     updated_at, updated_by";

/// An entries row as SQLite gives it; [`RawEntry::into_entry`] checks it.
pub(crate) struct RawEntry {
    id: i64,
    owner: String,
    kind: String,
    name: String,
    description: String,
    triggers: String,
    tags: String,
    area: String,
    protocol: Option<String>,
    body: String,
    extra: String,
    content: String,
    content_hash: String,
    version: i64,
    source: Option<String>,
    created_at: i64,
    updated_at: i64,
    updated_by: String,
}

impl RawEntry {
    pub(crate) fn read(r: &Row<'_>) -> rusqlite::Result<RawEntry> {
        Ok(RawEntry {
            id: r.get(0)?,
            owner: r.get(1)?,
            kind: r.get(2)?,
            name: r.get(3)?,
            description: r.get(4)?,
            triggers: r.get(5)?,
            tags: r.get(6)?,
            area: r.get(7)?,
            protocol: r.get(8)?,
            body: r.get(9)?,
            extra: r.get(10)?,
            content: r.get(11)?,
            content_hash: r.get(12)?,
            version: r.get(13)?,
            source: r.get(14)?,
            created_at: r.get(15)?,
            updated_at: r.get(16)?,
            updated_by: r.get(17)?,
        })
    }

    pub(crate) fn into_entry(self) -> Result<Entry> {
        let kind = kind_of("entries.kind", &self.kind)?;
        let protocol: Option<Protocol> = match (&self.protocol, kind) {
            (Some(p), Kind::Protocol) => Some(from_json("entries.protocol", p)?),
            (None, Kind::Skill) => None,
            _ => {
                return Err(corrupt(
                    "entries.protocol",
                    "fields that do not match the kind",
                ))
            }
        };
        let document = Document {
            name: self.name,
            description: self.description,
            triggers: from_json("entries.triggers", &self.triggers)?,
            tags: from_json("entries.tags", &self.tags)?,
            area: Area::parse(&self.area).ok_or_else(|| corrupt("entries.area", &self.area))?,
            protocol,
            body: self.body,
            extra: from_json("entries.extra", &self.extra)?,
        };
        Ok(Entry {
            id: EntryId(self.id),
            owner: Owner::from_stored(&self.owner)
                .ok_or_else(|| corrupt("entries.owner", &self.owner))?,
            document,
            content: self.content,
            content_hash: self.content_hash,
            version: version_of("entries.version", self.version)?,
            source: self.source,
            created_at: Timestamp(self.created_at),
            updated_at: Timestamp(self.updated_at),
            updated_by: self.updated_by,
        })
    }
}

/// The lower-cased text a query's words are looked for in.
fn search_text(doc: &Document) -> String {
    let mut parts = vec![doc.name.as_str(), doc.description.as_str()];
    parts.extend(doc.triggers.iter().map(String::as_str));
    parts.extend(doc.tags.iter().map(String::as_str));
    parts.join("\n").to_lowercase()
}

fn tag_keys(doc: &Document) -> Vec<String> {
    doc.tags.iter().map(|t| t.to_lowercase()).collect()
}

/// Refuses a second entry of this owner, kind and name (other than `except`).
fn ensure_unique(
    conn: &Connection,
    owner: Owner,
    doc: &Document,
    except: Option<EntryId>,
) -> Result<()> {
    let existing: Option<i64> = conn
        .query_row(
            "SELECT id FROM entries WHERE owner = ?1 AND kind = ?2 AND name_key = ?3 AND id IS NOT ?4",
            params![owner.as_str(), doc.kind().as_str(), name_key(&doc.name), except.map(|e| e.0)],
            |r| r.get(0),
        )
        .optional()?;
    match existing {
        Some(id) => Err(CatalogError::Duplicate {
            owner,
            kind: doc.kind(),
            name: doc.name.clone(),
            existing: EntryId(id),
        }),
        None => Ok(()),
    }
}

fn insert_version(
    conn: &Connection,
    entry: EntryId,
    version: u32,
    p: &Prepared,
    author: &str,
    reason: &str,
    now: Timestamp,
) -> Result<()> {
    conn.execute(
        "INSERT INTO versions (entry_id, version, content, content_hash, author, reason, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        params![entry.0, version, p.content, p.hash, author, reason, now.0],
    )?;
    Ok(())
}

/// Who wrote a version and why.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Authored<'a> {
    pub(crate) author: &'a str,
    pub(crate) reason: &'a str,
    pub(crate) now: Timestamp,
}

/// Inserts an entry and its version 1.
pub(crate) fn insert_entry(
    conn: &Connection,
    owner: Owner,
    p: &Prepared,
    source: Option<&str>,
    by: Authored<'_>,
) -> Result<EntryRef> {
    let doc = &p.doc;
    ensure_unique(conn, owner, doc, None)?;
    conn.execute(
        "INSERT INTO entries (owner, kind, name, name_key, description, triggers, tags, area,
             protocol, body, extra, content, content_hash, version, source, search_text,
             tag_keys, created_at, updated_at, updated_by)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, 1, ?14, ?15, ?16,
             ?17, ?17, ?18)",
        params![
            owner.as_str(),
            doc.kind().as_str(),
            doc.name,
            name_key(&doc.name),
            doc.description,
            to_json(&doc.triggers)?,
            to_json(&doc.tags)?,
            doc.area.as_str(),
            doc.protocol.as_ref().map(to_json).transpose()?,
            doc.body,
            to_json(&doc.extra)?,
            p.content,
            p.hash,
            source,
            search_text(doc),
            to_json(&tag_keys(doc))?,
            by.now.0,
            by.author,
        ],
    )?;
    let id = EntryId(conn.last_insert_rowid());
    insert_version(conn, id, 1, p, by.author, by.reason, by.now)?;
    Ok(EntryRef {
        id,
        owner,
        kind: doc.kind(),
        name: doc.name.clone(),
        version: 1,
    })
}

/// Writes the next version of `current` (same owner; the kind must not change).
pub(crate) fn update_entry(
    conn: &Connection,
    current: &Entry,
    p: &Prepared,
    source: Option<&str>,
    by: Authored<'_>,
) -> Result<EntryRef> {
    let doc = &p.doc;
    if doc.kind() != current.kind() {
        return Err(CatalogError::KindChanged {
            id: current.id,
            from: current.kind(),
            to: doc.kind(),
        });
    }
    ensure_unique(conn, current.owner, doc, Some(current.id))?;
    let version = current.version + 1;
    conn.execute(
        "UPDATE entries SET name = ?2, name_key = ?3, description = ?4, triggers = ?5,
             tags = ?6, area = ?7, protocol = ?8, body = ?9, extra = ?10, content = ?11,
             content_hash = ?12, version = ?13, source = ?14, search_text = ?15,
             tag_keys = ?16, updated_at = ?17, updated_by = ?18
         WHERE id = ?1",
        params![
            current.id.0,
            doc.name,
            name_key(&doc.name),
            doc.description,
            to_json(&doc.triggers)?,
            to_json(&doc.tags)?,
            doc.area.as_str(),
            doc.protocol.as_ref().map(to_json).transpose()?,
            doc.body,
            to_json(&doc.extra)?,
            p.content,
            p.hash,
            version,
            source,
            search_text(doc),
            to_json(&tag_keys(doc))?,
            by.now.0,
            by.author,
        ],
    )?;
    insert_version(conn, current.id, version, p, by.author, by.reason, by.now)?;
    Ok(EntryRef {
        id: current.id,
        owner: current.owner,
        kind: doc.kind(),
        name: doc.name.clone(),
        version,
    })
}

/// The entry `id`, if there is one.
pub(crate) fn get_entry(conn: &Connection, id: EntryId) -> Result<Option<Entry>> {
    conn.query_row(
        &format!("SELECT {ENTRY_COLUMNS} FROM entries WHERE id = ?1"),
        [id.0],
        RawEntry::read,
    )
    .optional()?
    .map(RawEntry::into_entry)
    .transpose()
}

/// The entry `name` (case and repeated spaces ignored) of `kind`, or of either kind when
/// only one has it. A personal entry shadows a shared one of the same kind and name.
pub(crate) fn find_entry(conn: &Connection, name: &str, kind: Option<Kind>) -> Result<Entry> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {ENTRY_COLUMNS} FROM entries WHERE name_key = ?1 AND (?2 IS NULL OR kind = ?2)
         ORDER BY owner = 'personal' DESC, id"
    ))?;
    let rows = stmt.query_map(
        params![name_key(name), kind.map(Kind::as_str)],
        RawEntry::read,
    )?;
    let (mut skill, mut protocol) = (None, None);
    for row in rows {
        let entry = row?.into_entry()?;
        let slot = match entry.kind() {
            Kind::Skill => &mut skill,
            Kind::Protocol => &mut protocol,
        };
        // Personal rows come first: the first of each kind wins.
        slot.get_or_insert(entry);
    }
    match (skill, protocol) {
        (Some(s), Some(p)) => Err(CatalogError::Ambiguous {
            name: name.to_string(),
            skill: s.id,
            protocol: p.id,
        }),
        (Some(e), None) | (None, Some(e)) => Ok(e),
        (None, None) => Err(CatalogError::NoName {
            name: name.to_string(),
            kind,
        }),
    }
}

/// The catalog: one SQLite file (WAL mode, `synchronous = FULL`, foreign keys on).
///
/// Every write is one immediate transaction: it happens whole or not at all, and once a
/// write method returns `Ok` it survives a crash of the process (and, with `FULL`
/// synchronisation, of the device). Reads see the last committed state. The time of each
/// write comes from the catalog's [`Clock`].
pub struct Catalog {
    conn: Connection,
    clock: Arc<dyn Clock>,
    path: PathBuf,
    opened: Opened,
}

impl fmt::Debug for Catalog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Catalog").field("path", &self.path).finish()
    }
}

impl Catalog {
    /// Opens (or creates) the catalog at `path`, with the system clock.
    pub fn open(path: impl AsRef<Path>) -> Result<Catalog> {
        Catalog::open_with_clock(path, Arc::new(SystemClock))
    }

    /// Opens (or creates) the catalog at `path`; writes are timed by `clock`.
    ///
    /// A file of an older schema is migrated forward in one transaction. A file of a newer
    /// schema ([`CatalogError::NewerSchema`]) or one that is not a catalog
    /// ([`CatalogError::NotACatalog`]) is refused before anything is written to it.
    pub fn open_with_clock(path: impl AsRef<Path>, clock: Arc<dyn Clock>) -> Result<Catalog> {
        let path = path.as_ref();
        let mut conn = Connection::open(path)?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        schema::check_before_open(&conn, path)?;
        let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(CatalogError::NotACatalog {
                path: path.to_path_buf(),
                why: format!("it cannot be switched to WAL mode (journal mode {mode})"),
            });
        }
        conn.pragma_update(None, "synchronous", "FULL")?;
        conn.pragma_update(None, "foreign_keys", true)?;
        let opened = schema::migrate(&mut conn, path)?;
        Ok(Catalog {
            conn,
            clock,
            path: path.to_path_buf(),
            opened,
        })
    }

    /// What opening did to the file: created its schema, found it current, or migrated it
    /// (a host says so once).
    pub fn opened(&self) -> Opened {
        self.opened
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file's schema version (after [`Catalog::open`], [`SCHEMA_VERSION`](crate::SCHEMA_VERSION)).
    pub fn schema_version(&self) -> Result<u32> {
        Ok(self
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))?)
    }

    /// SQLite's `integrity_check` and `foreign_key_check`; any finding is
    /// [`CatalogError::Corrupt`].
    pub fn check_integrity(&self) -> Result<()> {
        let mut stmt = self.conn.prepare("PRAGMA integrity_check")?;
        let found: Vec<String> = stmt
            .query_map([], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        if found != ["ok"] {
            return Err(CatalogError::Corrupt(found.join("; ")));
        }
        let mut stmt = self.conn.prepare("PRAGMA foreign_key_check")?;
        let orphans = stmt.query_map([], |r| r.get::<_, String>(0))?.count();
        if orphans > 0 {
            return Err(CatalogError::Corrupt(format!(
                "{orphans} rows point at rows that do not exist"
            )));
        }
        Ok(())
    }

    pub(crate) fn conn(&self) -> &Connection {
        &self.conn
    }

    /// Runs `f` in one immediate transaction, committed only when it returns `Ok`.
    pub(crate) fn write<T>(
        &mut self,
        f: impl FnOnce(&rusqlite::Transaction<'_>, Timestamp) -> Result<T>,
    ) -> Result<T> {
        let now = self.clock.now();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let out = f(&tx, now)?;
        tx.commit()?;
        Ok(out)
    }

    /// Like [`Catalog::write`], with the transaction itself (for savepoints).
    pub(crate) fn write_mut<T>(
        &mut self,
        f: impl FnOnce(&mut rusqlite::Transaction<'_>, Timestamp) -> Result<T>,
    ) -> Result<T> {
        let now = self.clock.now();
        let mut tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let out = f(&mut tx, now)?;
        tx.commit()?;
        Ok(out)
    }

    /// Creates a personal entry from `text` (a skill or a protocol: the store takes both;
    /// an agent-facing tool restricts itself to skills and proposes protocols). Its
    /// version 1 names `author` and `reason`.
    pub fn create(&mut self, text: &str, author: &str, reason: &str) -> Result<EntryRef> {
        require("the author", author)?;
        let p = Prepared::new(text)?;
        self.write(|tx, now| {
            insert_entry(
                tx,
                Owner::Personal,
                &p,
                None,
                Authored {
                    author,
                    reason,
                    now,
                },
            )
        })
    }

    /// Replaces personal entry `id` with `text` as its next version (author and reason
    /// kept on the version). The kind cannot change; the name can, if no other personal
    /// entry of the kind has it. The same document again writes nothing
    /// ([`Update::Unchanged`]). Shared entries are read-only ([`CatalogError::ReadOnly`]).
    pub fn update(
        &mut self,
        id: EntryId,
        text: &str,
        author: &str,
        reason: &str,
    ) -> Result<Update> {
        require("the author", author)?;
        let p = Prepared::new(text)?;
        self.write(|tx, now| {
            let current = get_entry(tx, id)?.ok_or(CatalogError::NoEntry(id))?;
            if current.owner == Owner::Shared {
                return Err(CatalogError::ReadOnly(id));
            }
            if current.content_hash == p.hash {
                return Ok(Update::Unchanged(current.to_ref()));
            }
            update_entry(
                tx,
                &current,
                &p,
                None,
                Authored {
                    author,
                    reason,
                    now,
                },
            )
            .map(Update::Changed)
        })
    }

    /// Deletes personal entry `id` and its history. Shared entries are read-only.
    pub fn delete(&mut self, id: EntryId) -> Result<EntryRef> {
        self.write(|tx, _| {
            let current = get_entry(tx, id)?.ok_or(CatalogError::NoEntry(id))?;
            if current.owner == Owner::Shared {
                return Err(CatalogError::ReadOnly(id));
            }
            tx.execute("DELETE FROM entries WHERE id = ?1", [id.0])?;
            Ok(current.to_ref())
        })
    }

    /// The entry `id`.
    pub fn entry(&self, id: EntryId) -> Result<Entry> {
        get_entry(&self.conn, id)?.ok_or(CatalogError::NoEntry(id))
    }

    /// The entry named `name` (case and repeated spaces ignored), of `kind` if given. A
    /// personal entry shadows a shared one of the same kind and name; a name both a skill
    /// and a protocol have needs a kind ([`CatalogError::Ambiguous`]).
    pub fn find(&self, name: &str, kind: Option<Kind>) -> Result<Entry> {
        find_entry(&self.conn, name, kind)
    }

    /// `12` or `#12` as an id when such an entry exists (of `kind`, if given), anything
    /// else as a name ([`Catalog::find`]).
    pub fn resolve(&self, name_or_id: &str, kind: Option<Kind>) -> Result<Entry> {
        if let Some(id) = EntryId::parse(name_or_id) {
            if let Some(e) = get_entry(&self.conn, id)? {
                if kind.is_none_or(|k| k == e.kind()) {
                    return Ok(e);
                }
            }
        }
        self.find(name_or_id, kind)
    }

    /// The history of entry `id`, newest first.
    pub fn versions(&self, id: EntryId) -> Result<Vec<Version>> {
        if get_entry(&self.conn, id)?.is_none() {
            return Err(CatalogError::NoEntry(id));
        }
        let mut stmt = self.conn.prepare(
            "SELECT version, content, content_hash, author, reason, created_at
             FROM versions WHERE entry_id = ?1 ORDER BY version DESC",
        )?;
        let rows = stmt.query_map([id.0], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get::<_, i64>(5)?,
            ))
        })?;
        rows.map(|row| {
            let (version, content, content_hash, author, reason, created_at) = row?;
            Ok(Version {
                entry: id,
                version: version_of("versions.version", version)?,
                content,
                content_hash,
                author,
                reason,
                created_at: Timestamp(created_at),
            })
        })
        .collect()
    }
}
