//! The store on a real SQLite file: opening, schema versions, entries, versions, names.

use porfiry_catalog::{
    content_hash, Catalog, CatalogError, DocumentError, EntryId, Kind, Opened, Owner, Update,
    APPLICATION_ID, SCHEMA_VERSION,
};
use sha2::{Digest, Sha256};

use crate::common::{protocol, skill, skill_with, Fixture};

fn file_digest(path: &std::path::Path) -> Vec<u8> {
    Sha256::digest(std::fs::read(path).expect("read db")).to_vec()
}

#[test]
fn a_new_file_is_a_wal_catalog_at_the_current_schema() {
    let f = Fixture::new();
    assert_eq!(f.catalog.schema_version().expect("version"), SCHEMA_VERSION);
    let raw = f.raw();
    let mode: String = raw
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .expect("mode");
    assert_eq!(mode, "wal");
    let app: i32 = raw
        .query_row("PRAGMA application_id", [], |r| r.get(0))
        .expect("application id");
    assert_eq!(app, APPLICATION_ID);
    f.catalog.check_integrity().expect("integrity");
    assert_eq!(f.catalog.opened(), Opened::Created);
    drop(f.catalog);
    let again = Catalog::open(f.dir.path().join("catalog.db")).expect("reopen");
    assert_eq!(again.schema_version().expect("version"), SCHEMA_VERSION);
    assert_eq!(again.opened(), Opened::Current);
}

#[test]
fn a_catalog_can_move_to_a_worker_thread() {
    fn send<T: Send>(_: &T) {}
    let f = Fixture::new();
    send(&f.catalog);
    let catalog = f.catalog;
    let version = std::thread::spawn(move || catalog.schema_version().expect("version"))
        .join()
        .expect("thread");
    assert_eq!(version, SCHEMA_VERSION);
}

#[test]
fn rows_serialize_as_plain_json_for_hosts() {
    let mut f = Fixture::new();
    let id = f
        .catalog
        .create(&protocol("backup", &["copy"]), "user", "")
        .expect("create")
        .id;
    let entry = serde_json::to_value(f.catalog.entry(id).expect("entry")).expect("json");
    assert_eq!(entry["id"], id.get());
    assert_eq!(entry["owner"], "personal");
    assert_eq!(entry["document"]["kind"], "protocol");
    assert_eq!(entry["document"]["area"], "general");
    assert_eq!(entry["document"]["protocol"]["steps"][0], "copy");
    assert_eq!(entry["updated_at"], 1_000);
    let run = f.catalog.start_run("s1", id).expect("run");
    let run = serde_json::to_value(run).expect("json");
    assert_eq!(run["status"], "running");
    assert_eq!(run["steps"][0]["status"], "open");
}

#[test]
fn a_file_from_a_newer_build_is_refused_and_left_untouched() {
    let f = Fixture::new();
    let path = f.db();
    drop(f.catalog);
    {
        let raw = rusqlite::Connection::open(&path).expect("raw");
        raw.pragma_update(None, "user_version", SCHEMA_VERSION + 1)
            .expect("bump");
        // Fold the WAL into the file, so the bytes compared below are the whole state.
        raw.pragma_update(None, "journal_mode", "DELETE")
            .expect("checkpoint");
    }
    let before = file_digest(&path);
    let err = Catalog::open(&path).expect_err("newer schema");
    match &err {
        CatalogError::NewerSchema {
            found, supported, ..
        } => assert_eq!((*found, *supported), (SCHEMA_VERSION + 1, SCHEMA_VERSION)),
        other => panic!("expected NewerSchema, got {other:?}"),
    }
    let message = err.to_string();
    assert!(message.contains("newer Porfiry"), "{message}");
    assert!(message.contains("was not changed"), "{message}");
    assert_eq!(file_digest(&path), before, "the file was not rewritten");
    let mode: String = rusqlite::Connection::open(&path)
        .expect("raw")
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .expect("mode");
    assert_eq!(mode, "delete", "not even switched to WAL");
}

#[test]
fn files_that_are_not_catalogs_are_refused() {
    let dir = tempfile::tempdir().expect("dir");
    let other = dir.path().join("other.db");
    rusqlite::Connection::open(&other)
        .expect("raw")
        .execute_batch("CREATE TABLE t (x); INSERT INTO t VALUES (1);")
        .expect("other db");
    let before = file_digest(&other);
    assert!(matches!(
        Catalog::open(&other),
        Err(CatalogError::NotACatalog { .. })
    ));
    assert_eq!(file_digest(&other), before);
    let foreign = dir.path().join("foreign.db");
    rusqlite::Connection::open(&foreign)
        .expect("raw")
        .pragma_update(None, "application_id", 42)
        .expect("app id");
    assert!(matches!(
        Catalog::open(&foreign),
        Err(CatalogError::NotACatalog { .. })
    ));
    let garbage = dir.path().join("garbage.db");
    std::fs::write(&garbage, vec![7u8; 8192]).expect("garbage");
    match Catalog::open(&garbage) {
        Err(e @ CatalogError::NotACatalog { .. }) => {
            assert!(e.to_string().contains("not an SQLite database"), "{e}")
        }
        other => panic!("expected NotACatalog, got {other:?}"),
    }
    assert_eq!(std::fs::read(&garbage).expect("read"), vec![7u8; 8192]);
}

#[test]
fn create_stores_the_document_and_version_1() {
    let mut f = Fixture::new();
    let text = "---\r\nname: brew\r\nowner_team: kitchen\r\n---\r\nBoil.\r\n";
    let e = f.catalog.create(text, "user", "first try").expect("create");
    assert_eq!(
        (e.owner, e.kind, e.name.as_str(), e.version),
        (Owner::Personal, Kind::Skill, "brew", 1)
    );
    let entry = f.catalog.entry(e.id).expect("entry");
    assert_eq!(
        entry.content,
        "---\nname: brew\nowner_team: kitchen\n---\nBoil.\n"
    );
    assert_eq!(entry.content_hash, content_hash(text));
    let sha: String = Sha256::digest(entry.content.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(
        entry.content_hash, sha,
        "content_hash is the SHA-256 of the document"
    );
    assert_eq!(entry.document.extra["owner_team"], "kitchen");
    assert_eq!((entry.created_at.0, entry.updated_at.0), (1_000, 1_000));
    assert_eq!(entry.updated_by, "user");
    let versions = f.catalog.versions(e.id).expect("versions");
    assert_eq!(versions.len(), 1);
    assert_eq!(
        (
            versions[0].version,
            versions[0].author.as_str(),
            versions[0].reason.as_str()
        ),
        (1, "user", "first try")
    );
    assert_eq!(versions[0].content, entry.content);
    assert_eq!(versions[0].content_hash, entry.content_hash);
}

#[test]
fn refused_documents_write_nothing() {
    let mut f = Fixture::new();
    let err = f
        .catalog
        .create("---\nkind: protocol\nname: p\n---\n", "user", "")
        .expect_err("invalid");
    assert!(matches!(
        err,
        CatalogError::Document(DocumentError::MissingKeys { .. })
    ));
    assert!(matches!(
        f.catalog.create(&skill("x", "y"), " ", ""),
        Err(CatalogError::Empty("the author"))
    ));
    let count: i64 = f
        .raw()
        .query_row(
            "SELECT (SELECT count(*) FROM entries) + (SELECT count(*) FROM versions)",
            [],
            |r| r.get(0),
        )
        .expect("count");
    assert_eq!(count, 0);
}

#[test]
fn updates_append_versions_and_the_same_document_writes_nothing() {
    let mut f = Fixture::new();
    let id = f
        .catalog
        .create(&skill("brew", "Boil."), "user", "v1")
        .expect("create")
        .id;
    f.clock.advance(10);
    let u = f
        .catalog
        .update(id, &skill("brew", "Boil. Pour."), "agent", "clearer")
        .expect("update");
    assert!(matches!(&u, Update::Changed(e) if e.version == 2));
    f.clock.advance(10);
    let same = f
        .catalog
        .update(id, &skill("brew", "Boil. Pour."), "agent", "again")
        .expect("same");
    assert!(matches!(&same, Update::Unchanged(e) if e.version == 2));
    let versions = f.catalog.versions(id).expect("versions");
    let summary: Vec<(u32, &str, &str, i64)> = versions
        .iter()
        .map(|v| {
            (
                v.version,
                v.author.as_str(),
                v.reason.as_str(),
                v.created_at.0,
            )
        })
        .collect();
    assert_eq!(
        summary,
        [(2, "agent", "clearer", 1_010), (1, "user", "v1", 1_000)]
    );
    let entry = f.catalog.entry(id).expect("entry");
    assert_eq!(
        (entry.version, entry.updated_at.0, entry.created_at.0),
        (2, 1_010, 1_000)
    );
    assert_eq!(entry.document.body, "Boil. Pour.");
}

#[test]
fn an_update_cannot_change_the_kind_or_take_a_taken_name() {
    let mut f = Fixture::new();
    let a = f
        .catalog
        .create(&skill("a", "x"), "user", "")
        .expect("a")
        .id;
    f.catalog.create(&skill("b", "x"), "user", "").expect("b");
    assert!(matches!(
        f.catalog.update(a, &protocol("a", &["s"]), "user", ""),
        Err(CatalogError::KindChanged {
            from: Kind::Skill,
            to: Kind::Protocol,
            ..
        })
    ));
    assert!(matches!(
        f.catalog.update(a, &skill("B", "y"), "user", ""),
        Err(CatalogError::Duplicate { .. })
    ));
    let renamed = f
        .catalog
        .update(a, &skill("c", "x"), "user", "rename")
        .expect("rename");
    assert_eq!(renamed.entry().name, "c");
    assert!(f.catalog.find("a", None).is_err());
    assert_eq!(f.catalog.find("c", None).expect("renamed").id, a);
}

#[test]
fn names_are_unique_per_owner_and_kind_case_and_spaces_ignored() {
    let mut f = Fixture::new();
    let first = f
        .catalog
        .create(&skill("Make  Tea", "x"), "user", "")
        .expect("first")
        .id;
    match f.catalog.create(&skill("make tea", "y"), "user", "") {
        Err(CatalogError::Duplicate {
            owner,
            kind,
            existing,
            ..
        }) => {
            assert_eq!(
                (owner, kind, existing),
                (Owner::Personal, Kind::Skill, first)
            )
        }
        other => panic!("expected Duplicate, got {other:?}"),
    }
    // A protocol may share a skill's name.
    let p = f
        .catalog
        .create(&protocol("make tea", &["boil"]), "user", "")
        .expect("protocol")
        .id;
    assert!(matches!(
        f.catalog.find("MAKE TEA", None),
        Err(CatalogError::Ambiguous { skill, protocol, .. }) if skill == first && protocol == p
    ));
    assert_eq!(
        f.catalog
            .find("make tea", Some(Kind::Protocol))
            .expect("protocol")
            .id,
        p
    );
    assert_eq!(
        f.catalog
            .find("make   TEA", Some(Kind::Skill))
            .expect("skill")
            .id,
        first
    );
}

#[test]
fn the_database_itself_refuses_a_duplicate_name() {
    let mut f = Fixture::new();
    f.catalog
        .create(&skill("tea", "x"), "user", "")
        .expect("create");
    let err = f
        .raw()
        .execute(
            "INSERT INTO entries (owner, kind, name, name_key, description, triggers, tags, area,
                 protocol, body, extra, content, content_hash, version, search_text, tag_keys,
                 created_at, updated_at, updated_by)
             SELECT owner, kind, name, name_key, description, triggers, tags, area, protocol,
                 body, extra, content, content_hash, version, search_text, tag_keys,
                 created_at, updated_at, updated_by FROM entries",
            [],
        )
        .expect_err("unique index");
    assert_eq!(
        err.sqlite_error_code(),
        Some(rusqlite::ErrorCode::ConstraintViolation)
    );
}

#[test]
fn a_personal_entry_shadows_a_shared_one() {
    let mut f = Fixture::new();
    let shared = f.folder("shared", &[("tea.md", &skill("tea", "shared way"))]);
    f.catalog.import_shared(&[shared]).expect("import");
    let shared_id = f.catalog.find("tea", None).expect("shared").id;
    assert_eq!(
        f.catalog.entry(shared_id).expect("entry").owner,
        Owner::Shared
    );
    let personal = f
        .catalog
        .create(&skill("tea", "my way"), "user", "")
        .expect("personal")
        .id;
    let found = f.catalog.find("tea", Some(Kind::Skill)).expect("found");
    assert_eq!(
        (found.id, found.document.body.as_str()),
        (personal, "my way")
    );
    // The shared one is still there by id.
    assert_eq!(
        f.catalog.entry(shared_id).expect("shared").document.body,
        "shared way"
    );
    f.catalog.delete(personal).expect("delete");
    assert_eq!(f.catalog.find("tea", None).expect("back").id, shared_id);
}

#[test]
fn shared_entries_are_read_only() {
    let mut f = Fixture::new();
    let shared = f.folder("shared", &[("tea.md", &skill("tea", "x"))]);
    f.catalog.import_shared(&[shared]).expect("import");
    let id = f.catalog.find("tea", None).expect("shared").id;
    assert!(matches!(
        f.catalog.update(id, &skill("tea", "y"), "user", ""),
        Err(CatalogError::ReadOnly(e)) if e == id
    ));
    assert!(matches!(
        f.catalog.delete(id),
        Err(CatalogError::ReadOnly(_))
    ));
    assert_eq!(f.catalog.entry(id).expect("entry").version, 1);
}

#[test]
fn delete_removes_the_history_and_ids_are_never_reused() {
    let mut f = Fixture::new();
    let a = f
        .catalog
        .create(&skill("a", "x"), "user", "")
        .expect("a")
        .id;
    f.catalog
        .update(a, &skill("a", "y"), "user", "")
        .expect("v2");
    let removed = f.catalog.delete(a).expect("delete");
    assert_eq!((removed.id, removed.version), (a, 2));
    assert!(matches!(f.catalog.entry(a), Err(CatalogError::NoEntry(e)) if e == a));
    assert!(matches!(
        f.catalog.versions(a),
        Err(CatalogError::NoEntry(_))
    ));
    let orphans: i64 = f
        .raw()
        .query_row("SELECT count(*) FROM versions", [], |r| r.get(0))
        .expect("count");
    assert_eq!(orphans, 0);
    let b = f
        .catalog
        .create(&skill("a", "again"), "user", "")
        .expect("b")
        .id;
    assert!(b.get() > a.get(), "{b} reuses {a}");
    assert!(matches!(
        f.catalog.delete(EntryId(999)),
        Err(CatalogError::NoEntry(_))
    ));
}

#[test]
fn resolve_takes_an_id_or_a_name() {
    let mut f = Fixture::new();
    let a = f
        .catalog
        .create(&skill("tea", "x"), "user", "")
        .expect("a")
        .id;
    let n = a.get().to_string();
    assert_eq!(f.catalog.resolve(&n, None).expect("id").id, a);
    assert_eq!(
        f.catalog.resolve(&format!("#{n}"), None).expect("#id").id,
        a
    );
    assert_eq!(f.catalog.resolve("TEA", None).expect("name").id, a);
    // An id of the wrong kind falls back to the name.
    assert!(matches!(
        f.catalog.resolve(&n, Some(Kind::Protocol)),
        Err(CatalogError::NoName {
            kind: Some(Kind::Protocol),
            ..
        })
    ));
    // A name made of digits still resolves when no entry has that id.
    let digits = f
        .catalog
        .create(&skill("'2024'", "x"), "user", "")
        .expect("digits")
        .id;
    assert_eq!(
        f.catalog.resolve("2024", None).expect("digit name").id,
        digits
    );
}

#[test]
fn unknown_keys_survive_the_store() {
    let mut f = Fixture::new();
    let text = skill_with(
        "extras",
        "reviewed_by: [ann]\nlimits: {cpu: 2, ratio: 0.5}\nnote: ~",
    );
    let id = f.catalog.create(&text, "user", "").expect("create").id;
    let entry = f.catalog.entry(id).expect("entry");
    let parsed = porfiry_catalog::Document::parse(&text).expect("parse");
    assert_eq!(
        entry.document, parsed,
        "the stored columns give back the parsed document"
    );
    let rendered = entry.document.render();
    assert_eq!(
        porfiry_catalog::Document::parse(&rendered).expect("rendered"),
        parsed
    );
    let extra: String = f
        .raw()
        .query_row("SELECT extra FROM entries WHERE id = ?1", [id.get()], |r| {
            r.get(0)
        })
        .expect("extra");
    assert_eq!(
        extra,
        r#"{"limits":{"cpu":2,"ratio":0.5},"note":null,"reviewed_by":["ann"]}"#
    );
}

#[test]
fn a_damaged_row_is_an_error_not_a_panic() {
    let mut f = Fixture::new();
    let id = f
        .catalog
        .create(&skill("tea", "x"), "user", "")
        .expect("create")
        .id;
    f.raw()
        .execute(
            "UPDATE entries SET tags = 'not json' WHERE id = ?1",
            [id.get()],
        )
        .expect("damage");
    assert!(matches!(f.catalog.entry(id), Err(CatalogError::Corrupt(_))));
}
