//! The catalog calls of `PorfiryNative` (`catalogOpen`, `catalogList`, …): the app's
//! settings screen over the catalog of skills and protocols (`porfiry-catalog`, reached as
//! [`porfiry_runtime::catalog`]), with no model loaded.
//!
//! - A Java `long` handle names an open catalog (`StoreRegistry`): handles count up from 1
//!   and are never reused. **One store per file**: every handle of the same file (its
//!   canonical path) shares one [`Catalog`] connection behind a mutex; the connection closes
//!   when the last handle of the file is closed. (An assistant opened with the `catalog`
//!   option keeps its own connection in the runtime: SQLite in WAL mode, every write one
//!   transaction, so each sees what the other committed.)
//! - Every call returns plain JSON text (the rows' `serde` form, as the CLI's `--json`);
//!   writes are authored by [`USER_AUTHOR`] — the person holding the phone decides
//!   proposals and writes personal entries, as `porfiry catalog` does at a terminal.
//! - A refusal or failure of the store is a [`CatalogError`]; the bridge throws it as an
//!   `app.porfiry.core.CatalogException` whose message is the store's text verbatim and
//!   whose code ([`error_code`]) lets the screen react without parsing the text.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, Weak};

use porfiry_runtime::catalog::{
    Area, Catalog, CatalogError, Document, EntryId, ImportReport, Kind, Opened, Owner, ProposalId,
    ProposalStatus, Query, Update,
};
use porfiry_runtime::{agent_folders, RuntimeConfig};
use serde_json::{json, Value};

use crate::error::BridgeError;

/// Who the app's writes and decisions name: the user (as the CLI's `porfiry catalog`).
pub(crate) const USER_AUTHOR: &str = "user";

/// The store's error as a short code for `CatalogException.code()`.
pub(crate) fn error_code(e: &CatalogError) -> &'static str {
    match e {
        CatalogError::Document(_) => "invalid_document",
        CatalogError::NoEntry(_)
        | CatalogError::NoName { .. }
        | CatalogError::NoProposal(_)
        | CatalogError::NoRun(_) => "not_found",
        CatalogError::Duplicate { .. } => "duplicate",
        CatalogError::ReadOnly(_) => "read_only",
        CatalogError::KindChanged { .. } => "kind_changed",
        CatalogError::Ambiguous { .. } => "ambiguous",
        CatalogError::AlreadyDecided { .. } => "already_decided",
        CatalogError::ProposalRefused { .. } => "proposal_refused",
        CatalogError::NewerSchema { .. } => "newer_schema",
        CatalogError::NotACatalog { .. } => "not_a_catalog",
        CatalogError::Corrupt(_) => "corrupt",
        CatalogError::Sqlite(_) => "database",
        _ => "refused",
    }
}

/// What `catalogOpen` takes, as JSON keys:
///
/// | key | meaning | default |
/// |---|---|---|
/// | `path` | the catalog file (created when missing, its folder too) | required |
/// | `skills` | the user's skill folders, synced in as shared entries over the built-in ones | none |
/// | `builtin` | sync the built-in skills (embedded in the library) too | true |
/// | `data_dir` | where the built-in skills are unpacked | `$PORFIRY_DATA`, else the user's data directory |
/// | `sync` | sync the folders as shared entries at all (off: the file as it is) | true |
///
/// Pass the same `skills`, `builtin` and `data_dir` as the assistant's `open`: the runtime
/// syncs the same folders into the same file. An unknown key is an error that names it.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct CatalogOptions {
    pub path: String,
    pub skills: Vec<String>,
    pub builtin: Option<bool>,
    pub data_dir: Option<String>,
    pub sync: Option<bool>,
}

const KEYS: [&str; 5] = ["path", "skills", "builtin", "data_dir", "sync"];

fn invalid(msg: impl Into<String>) -> BridgeError {
    BridgeError::InvalidArgument(msg.into())
}

fn value_of<T: serde::de::DeserializeOwned>(
    what: &str,
    key: &str,
    v: &Value,
) -> Result<T, BridgeError> {
    T::deserialize(v).map_err(|e| invalid(format!("{what} {key:?}: {e}")))
}

/// A JSON object's entries, or an error naming `what`.
fn object<'v>(
    what: &str,
    value: &'v Value,
) -> Result<&'v serde_json::Map<String, Value>, BridgeError> {
    value
        .as_object()
        .ok_or_else(|| invalid(format!("{what} must be a JSON object")))
}

fn parse_json(what: &str, text: &str) -> Result<Value, BridgeError> {
    serde_json::from_str(text).map_err(|e| invalid(format!("{what} is not JSON: {e}")))
}

fn unknown_keys(what: &str, unknown: &[&str], known: &[&str]) -> Result<(), BridgeError> {
    if unknown.is_empty() {
        return Ok(());
    }
    let names: Vec<String> = unknown.iter().map(|k| format!("{k:?}")).collect();
    Err(invalid(format!(
        "unknown {what} key{} {} (known: {})",
        if unknown.len() == 1 { "" } else { "s" },
        names.join(", "),
        known.join(", ")
    )))
}

impl CatalogOptions {
    /// Reads `catalogOpen`'s JSON.
    ///
    /// # Errors
    /// [`BridgeError::InvalidArgument`]: not a JSON object, unknown keys (all named), values
    /// of the wrong type, or no `path`.
    pub(crate) fn parse(text: &str) -> Result<Self, BridgeError> {
        let value = parse_json("catalogOpen's options", text)?;
        let mut o = CatalogOptions::default();
        let mut unknown = Vec::new();
        let what = "catalog option";
        for (key, v) in object("catalogOpen's options", &value)? {
            match key.as_str() {
                "path" => o.path = value_of::<Option<String>>(what, key, v)?.unwrap_or_default(),
                "skills" => o.skills = value_of::<Option<_>>(what, key, v)?.unwrap_or_default(),
                "builtin" => o.builtin = value_of(what, key, v)?,
                "data_dir" => o.data_dir = value_of(what, key, v)?,
                "sync" => o.sync = value_of(what, key, v)?,
                _ => unknown.push(key.as_str()),
            }
        }
        unknown_keys("catalogOpen option", &unknown, &KEYS)?;
        if o.path.trim().is_empty() {
            return Err(invalid(
                "catalogOpen's options need a \"path\" (the catalog file)",
            ));
        }
        Ok(o)
    }

    /// The skill folders to sync, in override order (the built-ins first), as the runtime
    /// computes them for an assistant; `None` with `sync` off.
    fn skill_dirs(&self) -> Result<Option<Vec<PathBuf>>, BridgeError> {
        if !self.sync.unwrap_or(true) {
            return Ok(None);
        }
        let config = RuntimeConfig {
            builtin: self.builtin.unwrap_or(true),
            skill_dirs: self
                .skills
                .iter()
                .filter(|d| !d.is_empty())
                .map(PathBuf::from)
                .collect(),
            data_dir: self.data_dir.as_ref().map(PathBuf::from),
            ..RuntimeConfig::default()
        };
        let (skills, _toolsets, _builtin) = agent_folders(&config)?;
        Ok(Some(skills))
    }
}

/// One open catalog file, shared by every handle of it.
#[derive(Debug)]
pub(crate) struct Store {
    /// The canonical path (the registry's key).
    key: PathBuf,
    catalog: Mutex<Catalog>,
    /// What opening did (reported by `catalogInfo`).
    info: Value,
}

impl Store {
    /// The catalog, for one call (a panic of an earlier call does not lock it for good: each
    /// write is one transaction, so the connection is consistent either way).
    pub(crate) fn lock(&self) -> MutexGuard<'_, Catalog> {
        self.catalog.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Drop for Store {
    fn drop(&mut self) {
        // The file's slot may now be reused by a new open; drop the dead weak reference.
        let mut files = files();
        if files.get(&self.key).is_some_and(|w| w.strong_count() == 0) {
            files.remove(&self.key);
        }
    }
}

static NEXT: AtomicI64 = AtomicI64::new(1);

fn handles() -> MutexGuard<'static, HashMap<i64, Arc<Store>>> {
    static MAP: OnceLock<Mutex<HashMap<i64, Arc<Store>>>> = OnceLock::new();
    MAP.get_or_init(|| Mutex::new(HashMap::new()))
        .lock()
        .unwrap_or_else(|p| p.into_inner())
}

fn files() -> MutexGuard<'static, HashMap<PathBuf, Weak<Store>>> {
    static MAP: OnceLock<Mutex<HashMap<PathBuf, Weak<Store>>>> = OnceLock::new();
    MAP.get_or_init(|| Mutex::new(HashMap::new()))
        .lock()
        .unwrap_or_else(|p| p.into_inner())
}

/// The file's canonical path: its folder (created when missing) resolved, then its name.
fn canonical(path: &Path) -> Result<PathBuf, BridgeError> {
    let name = path
        .file_name()
        .ok_or_else(|| invalid(format!("{}: not a file name", path.display())))?;
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty());
    let parent = parent.unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).map_err(|e| {
        invalid(format!(
            "cannot create the folder {} for the catalog: {e}",
            parent.display()
        ))
    })?;
    let parent = parent
        .canonicalize()
        .map_err(|e| invalid(format!("{}: {e}", parent.display())))?;
    Ok(parent.join(name))
}

fn opened_json(opened: Opened) -> Value {
    match opened {
        Opened::Created => json!({ "schema": "created" }),
        Opened::Current => json!({ "schema": "current" }),
        Opened::Migrated { from } => json!({ "schema": "migrated", "from": from }),
    }
}

fn import_json(report: &ImportReport) -> Value {
    let problems: Vec<Value> = report
        .problems
        .iter()
        .map(|p| json!({ "path": p.path.display().to_string(), "error": p.error.to_string() }))
        .collect();
    json!({
        "added": report.added.len(),
        "updated": report.updated.len(),
        "unchanged": report.unchanged.len(),
        "removed": report.removed.len(),
        "problems": problems,
    })
}

/// Opens the catalog `options` describe (or joins the store already open for that file)
/// and returns a new handle.
///
/// # Errors
/// Bad options or folders ([`BridgeError::InvalidArgument`]); a file the store refuses
/// (newer schema, not a catalog) or cannot sync ([`BridgeError::Catalog`]).
pub(crate) fn open(options: &CatalogOptions) -> Result<i64, BridgeError> {
    let key = canonical(Path::new(&options.path))?;
    // Held for the whole open: two opens of one file cannot make two stores.
    let mut files = files();
    let store = match files.get(&key).and_then(Weak::upgrade) {
        Some(store) => store,
        None => {
            let skill_dirs = options.skill_dirs()?;
            let mut catalog = Catalog::open(&key)?;
            let mut info = opened_json(catalog.opened());
            let report = match &skill_dirs {
                Some(dirs) => import_json(&catalog.sync_shared(dirs)?),
                None => Value::Null,
            };
            if let Value::Object(map) = &mut info {
                map.insert("path".into(), json!(key.display().to_string()));
                map.insert("import".into(), report);
            }
            let store = Arc::new(Store {
                key: key.clone(),
                catalog: Mutex::new(catalog),
                info,
            });
            files.insert(key, Arc::downgrade(&store));
            store
        }
    };
    drop(files);
    let handle = NEXT.fetch_add(1, Ordering::Relaxed);
    handles().insert(handle, store);
    Ok(handle)
}

/// The store behind `handle`.
pub(crate) fn get(handle: i64) -> Result<Arc<Store>, BridgeError> {
    handles()
        .get(&handle)
        .cloned()
        .ok_or(BridgeError::BadCatalogHandle(handle))
}

/// Closes `handle`; the file's connection closes with its last handle.
pub(crate) fn close(handle: i64) -> Result<(), BridgeError> {
    let store = handles()
        .remove(&handle)
        .ok_or(BridgeError::BadCatalogHandle(handle))?;
    drop(store);
    Ok(())
}

/// How many handles share this handle's store (for `catalogInfo`).
fn handles_of(store: &Arc<Store>) -> usize {
    handles().values().filter(|s| Arc::ptr_eq(s, store)).count()
}

/// `catalogInfo`: the file, what opening did (schema created / current / migrated, the
/// sync's counts and problems) and how many handles share the store.
pub(crate) fn info(store: &Arc<Store>) -> Value {
    let mut info = store.info.clone();
    if let Value::Object(map) = &mut info {
        map.insert("handles".into(), json!(handles_of(store)));
    }
    info
}

fn to_value<T: serde::Serialize>(value: &T) -> Result<Value, BridgeError> {
    serde_json::to_value(value).map_err(|e| BridgeError::Internal(format!("JSON: {e}")))
}

fn kind_arg(text: &str) -> Result<Kind, BridgeError> {
    Kind::parse(text.trim())
        .ok_or_else(|| invalid(format!("kind must be skill or protocol, not {text:?}")))
}

fn area_arg(text: &str) -> Result<Area, BridgeError> {
    Area::parse(text.trim()).ok_or_else(|| {
        let all: Vec<&str> = Area::ALL.iter().map(|a| a.as_str()).collect();
        invalid(format!(
            "area must be one of {}, not {text:?}",
            all.join(", ")
        ))
    })
}

/// `catalogList`'s JSON query as a [`Query`]: `{"query": words, "kind", "tag", "area",
/// "limit"}`, every key optional (empty text or `null`: no condition; no limit: all).
pub(crate) fn parse_query(text: &str) -> Result<Query, BridgeError> {
    const QUERY_KEYS: [&str; 5] = ["query", "kind", "tag", "area", "limit"];
    let value = parse_json("catalogList's query", text)?;
    let mut q = Query {
        limit: Some(usize::MAX),
        ..Query::default()
    };
    let mut unknown = Vec::new();
    let what = "query key";
    let present = |v: Option<String>| v.filter(|s| !s.trim().is_empty());
    for (key, v) in object("catalogList's query", &value)? {
        match key.as_str() {
            "query" => q.text = value_of::<Option<String>>(what, key, v)?.unwrap_or_default(),
            "kind" => {
                q.kind = present(value_of(what, key, v)?)
                    .as_deref()
                    .map(kind_arg)
                    .transpose()?
            }
            "tag" => q.tag = present(value_of(what, key, v)?),
            "area" => {
                q.area = present(value_of(what, key, v)?)
                    .as_deref()
                    .map(area_arg)
                    .transpose()?
            }
            "limit" => {
                if let Some(n) = value_of::<Option<usize>>(what, key, v)? {
                    q.limit = Some(n);
                }
            }
            _ => unknown.push(key.as_str()),
        }
    }
    unknown_keys("catalogList query", &unknown, &QUERY_KEYS)?;
    Ok(q)
}

/// `catalogList`: the entries matching `query` (personal first, then the most recently
/// updated), as a JSON array of summaries.
pub(crate) fn list(catalog: &Catalog, query: &Query) -> Result<Value, BridgeError> {
    to_value(&catalog.search(query)?)
}

/// `catalogShow`: the whole entry (document, text as written, metadata) and `read_only`
/// (shared entries are).
pub(crate) fn show(catalog: &Catalog, id: i64) -> Result<Value, BridgeError> {
    let entry = catalog.entry(EntryId(id))?;
    let mut value = to_value(&entry)?;
    if let Value::Object(map) = &mut value {
        map.insert("read_only".into(), json!(entry.owner == Owner::Shared));
    }
    Ok(value)
}

/// `catalogVersions`: the entry's history, newest first.
pub(crate) fn versions(catalog: &Catalog, id: i64) -> Result<Value, BridgeError> {
    to_value(&catalog.versions(EntryId(id))?)
}

/// `catalogCreate`: a personal entry from `text`, a skill or a protocol — the user's own
/// protocol is an entry at once (the user is the one who accepts protocols; only the
/// agent's go through proposals).
pub(crate) fn create(
    catalog: &mut Catalog,
    text: &str,
    reason: &str,
) -> Result<Value, BridgeError> {
    to_value(&catalog.create(text, USER_AUTHOR, reason)?)
}

/// `catalogEdit`: `text` as the next version of personal entry `id`; `changed` is false
/// when it was the stored document.
pub(crate) fn edit(
    catalog: &mut Catalog,
    id: i64,
    text: &str,
    reason: &str,
) -> Result<Value, BridgeError> {
    let (changed, entry) = match catalog.update(EntryId(id), text, USER_AUTHOR, reason)? {
        Update::Changed(e) => (true, e),
        Update::Unchanged(e) => (false, e),
    };
    let mut value = to_value(&entry)?;
    if let Value::Object(map) = &mut value {
        map.insert("changed".into(), json!(changed));
    }
    Ok(value)
}

/// `catalogDelete`: removes personal entry `id` and its history.
pub(crate) fn delete(catalog: &mut Catalog, id: i64) -> Result<Value, BridgeError> {
    to_value(&catalog.delete(EntryId(id))?)
}

/// `catalogProposals`: proposals newest first, only pending ones if asked.
pub(crate) fn proposals(catalog: &Catalog, pending_only: bool) -> Result<Value, BridgeError> {
    let status = pending_only.then_some(ProposalStatus::Pending);
    to_value(&catalog.proposals(status)?)
}

/// `catalogAccept`: the proposal's stored document becomes a personal protocol, written by
/// the user. A refusal leaves it pending with the reason ([`CatalogError::ProposalRefused`]).
pub(crate) fn accept(catalog: &mut Catalog, id: i64) -> Result<Value, BridgeError> {
    to_value(&catalog.accept_proposal(ProposalId(id), USER_AUTHOR)?)
}

/// `catalogReject`: the catalog stays as it is; the proposal keeps `reason`.
pub(crate) fn reject(catalog: &mut Catalog, id: i64, reason: &str) -> Result<Value, BridgeError> {
    to_value(&catalog.reject_proposal(ProposalId(id), USER_AUTHOR, reason)?)
}

/// `catalogRuns`: protocol runs newest first, of `session` only when given.
pub(crate) fn runs(catalog: &Catalog, session: Option<&str>) -> Result<Value, BridgeError> {
    let session = session.filter(|s| !s.is_empty());
    to_value(&catalog.runs(session)?)
}

/// `catalogCheck`: parses `text` as the store would (no file): `{"kind", "name"}`, or the
/// store's refusal.
pub(crate) fn check(text: &str) -> Result<Value, BridgeError> {
    let doc = Document::parse(text).map_err(CatalogError::from)?;
    Ok(json!({ "kind": doc.kind(), "name": doc.name }))
}

/// The skill template of the settings screen's "new skill" (Russian).
const SKILL_RU: &str = "\
---
kind: skill
name: Новый навык
description: Одной строкой — для какой задачи этот навык.
area: general
tags: []
triggers:
  - \"пользователь просит …\"
---
Как подходить к задаче: с чего начать, что уточнить у пользователя, чего избегать.
";

/// The protocol template of the settings screen's "new protocol" (Russian).
const PROTOCOL_RU: &str = "\
---
kind: protocol
name: Новый протокол
description: Одной строкой — что делает протокол.
area: general
tags: []
triggers:
  - \"пользователь просит …\"
preconditions:
  - \"Что должно быть верно до начала\"
steps:
  - \"Первый шаг\"
  - \"Второй шаг\"
post_checks:
  - \"Как проверить результат каждого шага\"
on_deviation: \"Не продолжать; вернуться к последнему выполненному шагу и доложить.\"
on_blocked: \"Остановиться и доложить, что именно не дало завершить.\"
on_already_done: \"Проверить результат; если он уже есть — отметить шаг выполненным.\"
---
Контекст: зачем этот порядок, известные ловушки, что занимает время.
";

/// The skill template in English.
const SKILL_EN: &str = "\
---
kind: skill
name: New skill
description: One line — the task this skill is for.
area: general
tags: []
triggers:
  - \"the user asks to …\"
---
How to approach the task: where to start, what to ask the user, what to avoid.
";

/// The protocol template in English.
const PROTOCOL_EN: &str = "\
---
kind: protocol
name: New protocol
description: One line — what the protocol does.
area: general
tags: []
triggers:
  - \"the user asks to …\"
preconditions:
  - \"What must hold before it starts\"
steps:
  - \"First step\"
  - \"Second step\"
post_checks:
  - \"How each step's result is verified\"
on_deviation: \"Do not go on; return to the last step done and report.\"
on_blocked: \"Stop and report what exactly prevented finishing.\"
on_already_done: \"Check the result; if it is there already, mark the step done.\"
---
Context: why this order, known pitfalls, what takes time.
";

/// `catalogTemplate`: a new document of `kind` in `language` (`ru` or `en`) that the store
/// accepts as it is (the screen's "create from a template").
pub(crate) fn template(kind: &str, language: &str) -> Result<&'static str, BridgeError> {
    let kind = kind_arg(kind)?;
    let lang = crate::options::lang(language)?;
    Ok(match (kind, lang.code()) {
        (Kind::Skill, "en") => SKILL_EN,
        (Kind::Protocol, "en") => PROTOCOL_EN,
        (Kind::Skill, _) => SKILL_RU,
        (Kind::Protocol, _) => PROTOCOL_RU,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("porfiry-ffi-catalog-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn opened(dir: &Path) -> i64 {
        open(&CatalogOptions {
            path: dir.join("c.sqlite").display().to_string(),
            sync: Some(false),
            ..CatalogOptions::default()
        })
        .unwrap()
    }

    #[test]
    fn templates_are_documents_the_store_accepts() {
        for lang in ["ru", "en"] {
            for kind in ["skill", "protocol"] {
                let text = template(kind, lang).unwrap();
                let doc = Document::parse(text).unwrap_or_else(|e| panic!("{kind} {lang}: {e}"));
                assert_eq!(doc.kind().as_str(), kind, "{lang}");
                assert_eq!(check(text).unwrap()["kind"], kind);
            }
        }
        assert!(template("recipe", "ru").is_err());
        assert!(template("skill", "de").is_err());
    }

    #[test]
    fn one_store_per_file() {
        let dir = temp_dir("share");
        let a = opened(&dir);
        // The same file by another spelling of its path joins the store.
        let b = open(&CatalogOptions {
            path: format!("{}/./c.sqlite", dir.display()),
            sync: Some(false),
            ..CatalogOptions::default()
        })
        .unwrap();
        let (sa, sb) = (get(a).unwrap(), get(b).unwrap());
        assert!(
            Arc::ptr_eq(&sa, &sb),
            "two handles of one file share the store"
        );
        assert_eq!(info(&sa)["handles"], 2);
        let other = opened(&temp_dir("share-other"));
        assert!(!Arc::ptr_eq(&sa, &get(other).unwrap()));
        drop((sa, sb));
        close(a).unwrap();
        assert!(matches!(close(a), Err(BridgeError::BadCatalogHandle(_))));
        // The store lives while a handle does; a write through it is seen by a new open.
        create(
            &mut get(b).unwrap().lock(),
            template("skill", "en").unwrap(),
            "",
        )
        .unwrap();
        close(b).unwrap();
        assert!(files()
            .get(&canonical(&dir.join("c.sqlite")).unwrap())
            .is_none());
        let c = opened(&dir);
        let listed = list(&get(c).unwrap().lock(), &parse_query("{}").unwrap()).unwrap();
        assert_eq!(listed.as_array().map(Vec::len), Some(1), "{listed}");
        close(c).unwrap();
        close(other).unwrap();
    }

    #[test]
    fn writes_are_the_users_and_refusals_keep_their_codes() {
        let dir = temp_dir("writes");
        let h = opened(&dir);
        let store = get(h).unwrap();
        let mut catalog = store.lock();
        let made = create(&mut catalog, template("protocol", "ru").unwrap(), "мой").unwrap();
        assert_eq!(
            made["kind"], "protocol",
            "a user's protocol is an entry at once"
        );
        assert_eq!(made["owner"], "personal");
        let id = made["id"].as_i64().unwrap();
        let shown = show(&catalog, id).unwrap();
        assert_eq!(shown["updated_by"], USER_AUTHOR);
        assert_eq!(shown["read_only"], false);
        let missing = template("protocol", "ru")
            .unwrap()
            .replace(
                "on_blocked: \"Остановиться и доложить, что именно не дало завершить.\"\n",
                "",
            )
            .replace(
                "post_checks:\n  - \"Как проверить результат каждого шага\"\n",
                "",
            );
        let err = match edit(&mut catalog, id, &missing, "") {
            Err(BridgeError::Catalog(e)) => e,
            other => panic!("{other:?}"),
        };
        assert_eq!(error_code(&err), "invalid_document");
        assert_eq!(
            err.to_string(),
            "a protocol needs these keys: missing post_checks, on_blocked"
        );
        let same = edit(&mut catalog, id, template("protocol", "ru").unwrap(), "").unwrap();
        assert_eq!(same["changed"], false);
        let dup = create(&mut catalog, template("protocol", "ru").unwrap(), "");
        assert!(
            matches!(&dup, Err(BridgeError::Catalog(e)) if error_code(e) == "duplicate"),
            "{dup:?}"
        );
        assert_eq!(
            versions(&catalog, id).unwrap().as_array().map(Vec::len),
            Some(1)
        );
        delete(&mut catalog, id).unwrap();
        let gone = show(&catalog, id);
        assert!(
            matches!(&gone, Err(BridgeError::Catalog(e)) if error_code(e) == "not_found"),
            "{gone:?}"
        );
        drop(catalog);
        drop(store);
        close(h).unwrap();
    }

    #[test]
    fn queries_and_options_are_checked() {
        let q = parse_query(
            r#"{"query": "чай", "kind": "protocol", "tag": "", "area": "home", "limit": 3}"#,
        )
        .unwrap();
        assert_eq!(q.text, "чай");
        assert_eq!(q.kind, Some(Kind::Protocol));
        assert_eq!((q.tag, q.area, q.limit), (None, Some(Area::Home), Some(3)));
        assert_eq!(
            parse_query(r#"{"kind": null}"#).unwrap().limit,
            Some(usize::MAX)
        );
        for (bad, needle) in [
            (r#"{"kind": "recipe"}"#, "recipe"),
            (r#"{"area": "garden"}"#, "garden"),
            (r#"{"qeury": "x"}"#, "\"qeury\""),
            ("[]", "object"),
            ("{", "not JSON"),
        ] {
            match parse_query(bad) {
                Err(BridgeError::InvalidArgument(m)) => assert!(m.contains(needle), "{bad}: {m}"),
                other => panic!("{bad}: {other:?}"),
            }
        }
        let o = CatalogOptions::parse(
            r#"{"path": "/x/c.sqlite", "skills": ["/s"], "builtin": false, "sync": true}"#,
        )
        .unwrap();
        assert_eq!(
            (o.path.as_str(), o.builtin, o.sync),
            ("/x/c.sqlite", Some(false), Some(true))
        );
        for (bad, needle) in [
            (r#"{"skills": []}"#, "path"),
            (r#"{"path": "c", "pth": 1}"#, "\"pth\""),
        ] {
            match CatalogOptions::parse(bad) {
                Err(BridgeError::InvalidArgument(m)) => assert!(m.contains(needle), "{bad}: {m}"),
                other => panic!("{bad}: {other:?}"),
            }
        }
    }
}
