//! Importing folders of documents as shared entries.
//!
//! A folder holds `*.md` files and `<dir>/SKILL.md` files (names starting with `.` are
//! skipped), as the agent's skill folders do. Within one folder the first file of a kind
//! and name wins and later ones are reported; across folders a later folder overrides an
//! earlier one (built-ins first, then the user's folders).

use std::collections::{HashMap, HashSet};
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use rusqlite::{params, OptionalExtension};

use crate::document::{name_key, MAX_DOCUMENT_BYTES};
use porfiry_frontmatter::FrontMatterError;

use crate::error::{DocumentError, Result};
use crate::ids::EntryId;
use crate::store::{
    get_entry, insert_entry, kind_of, update_entry, version_of, Authored, Catalog, EntryRef,
    Prepared,
};
use crate::vocab::{Kind, Owner};

/// The author of the versions an import writes.
pub const IMPORT_AUTHOR: &str = "import";

/// Why a file was not imported.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ImportError {
    /// The folder or file could not be read.
    #[error("cannot read it: {0}")]
    Io(String),
    /// The document was refused.
    #[error("{0}")]
    Document(#[from] DocumentError),
    /// An earlier file of the same folder has this kind and name.
    #[error("a {kind} named {name:?} is already in this folder ({})", first.display())]
    Duplicate {
        /// The kind.
        kind: Kind,
        /// The name.
        name: String,
        /// The file that was taken.
        first: PathBuf,
    },
}

/// A file or folder the import could not take, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportProblem {
    /// The file (or folder).
    pub path: PathBuf,
    /// Why.
    pub error: ImportError,
}

/// A document of a later folder that replaced one of an earlier folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Override {
    /// The kind.
    pub kind: Kind,
    /// The name.
    pub name: String,
    /// The file imported.
    pub kept: PathBuf,
    /// The earlier folder's file, not imported.
    pub dropped: PathBuf,
}

/// What an import did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ImportReport {
    /// New shared entries.
    pub added: Vec<EntryRef>,
    /// Shared entries whose document changed (a new version each).
    pub updated: Vec<EntryRef>,
    /// Shared entries whose document was the stored one.
    pub unchanged: Vec<EntryRef>,
    /// Shared entries no folder has any more ([`Catalog::sync_shared`] only).
    pub removed: Vec<EntryRef>,
    /// Documents that replaced an earlier folder's.
    pub overrides: Vec<Override>,
    /// Files and folders not imported.
    pub problems: Vec<ImportProblem>,
}

/// The document files of one folder, sorted.
fn document_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for entry in fs::read_dir(dir)? {
        let path = entry?.path();
        let hidden = path
            .file_name()
            .and_then(|n| n.to_str())
            .is_none_or(|n| n.starts_with('.'));
        if hidden {
            continue;
        }
        if path.is_dir() {
            let inner = path.join("SKILL.md");
            if inner.is_file() {
                files.push(inner);
            }
        } else if path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e.eq_ignore_ascii_case("md"))
        {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// Reads a document file, never more than the size limit (plus one byte to tell). Only a
/// regular file is opened: opening a FIFO blocks until a writer comes, a device may never
/// end.
fn read_document(path: &Path) -> Result<Prepared, ImportError> {
    let meta = fs::metadata(path).map_err(|e| ImportError::Io(e.to_string()))?;
    if !meta.is_file() {
        return Err(ImportError::Io("not a regular file".into()));
    }
    let file = fs::File::open(path).map_err(|e| ImportError::Io(e.to_string()))?;
    let mut bytes = Vec::new();
    file.take(MAX_DOCUMENT_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| ImportError::Io(e.to_string()))?;
    if bytes.len() > MAX_DOCUMENT_BYTES {
        let size = fs::metadata(path)
            .map(|m| m.len() as usize)
            .unwrap_or(bytes.len());
        return Err(DocumentError::FrontMatter(FrontMatterError::TooLarge {
            bytes: size.max(bytes.len()),
            limit: MAX_DOCUMENT_BYTES,
        })
        .into());
    }
    let text = String::from_utf8(bytes).map_err(|_| DocumentError::NotUtf8)?;
    Ok(Prepared::new(&text)?)
}

/// What an import does with shared entries no folder has any more.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stale {
    Keep,
    Remove,
}

/// The documents of `dirs`, one per kind and name, in first-seen order.
struct Gathered {
    docs: Vec<(PathBuf, Prepared)>,
    /// Files that failed to parse: their entries are not removed by a sync.
    failed: HashSet<String>,
    /// A folder could not be listed: a sync removes nothing.
    unlisted: bool,
    report: ImportReport,
}

fn gather(dirs: &[&Path]) -> Gathered {
    let mut g = Gathered {
        docs: Vec::new(),
        failed: HashSet::new(),
        unlisted: false,
        report: ImportReport::default(),
    };
    let mut slots: HashMap<(Kind, String), usize> = HashMap::new();
    for dir in dirs {
        let files = match document_files(dir) {
            Ok(f) => f,
            Err(e) => {
                g.unlisted = true;
                g.report.problems.push(ImportProblem {
                    path: dir.to_path_buf(),
                    error: ImportError::Io(e.to_string()),
                });
                continue;
            }
        };
        let mut this_folder: HashMap<(Kind, String), PathBuf> = HashMap::new();
        for path in files {
            let p = match read_document(&path) {
                Ok(p) => p,
                Err(error) => {
                    g.failed.insert(path.display().to_string());
                    g.report.problems.push(ImportProblem { path, error });
                    continue;
                }
            };
            let key = (p.doc.kind(), name_key(&p.doc.name));
            if let Some(first) = this_folder.get(&key) {
                g.report.problems.push(ImportProblem {
                    error: ImportError::Duplicate {
                        kind: key.0,
                        name: p.doc.name.clone(),
                        first: first.clone(),
                    },
                    path,
                });
                continue;
            }
            this_folder.insert(key.clone(), path.clone());
            match slots.get(&key) {
                Some(&i) => {
                    let (dropped, _) = std::mem::replace(&mut g.docs[i], (path.clone(), p));
                    g.report.overrides.push(Override {
                        kind: key.0,
                        name: g.docs[i].1.doc.name.clone(),
                        kept: path,
                        dropped,
                    });
                }
                None => {
                    slots.insert(key, g.docs.len());
                    g.docs.push((path, p));
                }
            }
        }
    }
    g
}

impl Catalog {
    /// Imports the documents of `dirs` as shared entries, in one transaction: new ones are
    /// added, changed ones (by content hash) get a new version by [`IMPORT_AUTHOR`], the
    /// rest stay as they are. Files that cannot be imported are reported, not fatal.
    pub fn import_shared<P: AsRef<Path>>(&mut self, dirs: &[P]) -> Result<ImportReport> {
        self.import(dirs, Stale::Keep)
    }

    /// [`Catalog::import_shared`], then removes the shared entries none of `dirs` has any
    /// more — except those whose file is still there but failed to parse, and nothing at
    /// all when a folder could not be listed. What a host runs at start-up with the
    /// built-in and the user's folders.
    pub fn sync_shared<P: AsRef<Path>>(&mut self, dirs: &[P]) -> Result<ImportReport> {
        self.import(dirs, Stale::Remove)
    }

    fn import<P: AsRef<Path>>(&mut self, dirs: &[P], stale: Stale) -> Result<ImportReport> {
        let dirs: Vec<&Path> = dirs.iter().map(AsRef::as_ref).collect();
        let Gathered {
            docs,
            failed,
            unlisted,
            mut report,
        } = gather(&dirs);
        self.write(|tx, now| {
            let mut seen = HashSet::new();
            for (path, p) in &docs {
                let source = path.display().to_string();
                let key = (p.doc.kind(), name_key(&p.doc.name));
                let existing: Option<i64> = tx
                    .query_row(
                        "SELECT id FROM entries WHERE owner = 'shared' AND kind = ?1 AND name_key = ?2",
                        params![key.0.as_str(), key.1],
                        |r| r.get(0),
                    )
                    .optional()?;
                let by = Authored {
                    author: IMPORT_AUTHOR,
                    reason: &format!("imported from {source}"),
                    now,
                };
                match existing.map(|id| get_entry(tx, EntryId(id))).transpose()?.flatten() {
                    Some(current) if current.content_hash == p.hash => {
                        if current.source.as_deref() != Some(source.as_str()) {
                            tx.execute(
                                "UPDATE entries SET source = ?2 WHERE id = ?1",
                                params![current.id.0, source],
                            )?;
                        }
                        report.unchanged.push(current.to_ref());
                    }
                    Some(current) => {
                        report
                            .updated
                            .push(update_entry(tx, &current, p, Some(&source), by)?);
                    }
                    None => {
                        report
                            .added
                            .push(insert_entry(tx, Owner::Shared, p, Some(&source), by)?);
                    }
                }
                seen.insert(key);
            }
            if stale == Stale::Remove && !unlisted {
                let mut stmt = tx.prepare(
                    "SELECT id, kind, name, name_key, version, source FROM entries
                     WHERE owner = 'shared' ORDER BY id",
                )?;
                let rows = stmt.query_map([], |r| {
                    Ok((
                        r.get::<_, i64>(0)?,
                        r.get::<_, String>(1)?,
                        r.get::<_, String>(2)?,
                        r.get::<_, String>(3)?,
                        r.get::<_, i64>(4)?,
                        r.get::<_, Option<String>>(5)?,
                    ))
                })?;
                let mut gone = Vec::new();
                for row in rows {
                    let (id, kind, name, key, version, source) = row?;
                    let kind = kind_of("entries.kind", &kind)?;
                    let kept_broken = source.as_ref().is_some_and(|s| failed.contains(s));
                    if !seen.contains(&(kind, key)) && !kept_broken {
                        gone.push(EntryRef {
                            id: EntryId(id),
                            owner: Owner::Shared,
                            kind,
                            name,
                            version: version_of("entries.version", version)?,
                        });
                    }
                }
                for e in &gone {
                    tx.execute("DELETE FROM entries WHERE id = ?1", [e.id.0])?;
                }
                report.removed = gone;
            }
            Ok(())
        })?;
        Ok(report)
    }
}
