//! Importing folders as shared entries: add, update by hash, sync, problems, overrides.

use porfiry_catalog::{
    DocumentError, FrontMatterError, ImportError, Kind, Owner, IMPORT_AUTHOR, MAX_DOCUMENT_BYTES,
};

use crate::common::{protocol, skill, Fixture};

fn names(refs: &[porfiry_catalog::EntryRef]) -> Vec<&str> {
    refs.iter().map(|e| e.name.as_str()).collect()
}

#[test]
fn the_shipped_skills_import() {
    let mut f = Fixture::new();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../skills");
    let report = f.catalog.sync_shared(&[&dir]).expect("import");
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    assert!(!report.added.is_empty());
    assert!(report
        .added
        .iter()
        .all(|e| e.owner == Owner::Shared && e.kind == Kind::Skill));
    let again = f.catalog.sync_shared(&[&dir]).expect("again");
    assert_eq!(again.unchanged.len(), report.added.len());
    assert!(again.added.is_empty() && again.updated.is_empty() && again.removed.is_empty());
}

#[test]
fn re_import_updates_changed_documents_by_hash() {
    let mut f = Fixture::new();
    let dir = f.folder(
        "skills",
        &[
            ("tea.md", &skill("tea", "Boil.")),
            ("sub/SKILL.md", &skill("nested", "x")),
            ("backup.md", &protocol("backup", &["copy"])),
            (".hidden.md", &skill("hidden", "x")),
            ("notes.txt", "not a document"),
        ],
    );
    let first = f.catalog.import_shared(&[&dir]).expect("import");
    assert_eq!(names(&first.added), ["backup", "nested", "tea"]);
    let tea = f.catalog.find("tea", None).expect("tea");
    assert_eq!(
        tea.source.as_deref(),
        Some(dir.join("tea.md").display().to_string().as_str())
    );
    std::fs::write(dir.join("tea.md"), skill("tea", "Boil. Steep.")).expect("edit");
    f.clock.advance(5);
    let second = f.catalog.import_shared(&[&dir]).expect("re-import");
    assert_eq!(names(&second.updated), ["tea"]);
    assert_eq!(second.updated[0].version, 2);
    assert_eq!(names(&second.unchanged), ["backup", "nested"]);
    let versions = f.catalog.versions(tea.id).expect("versions");
    assert_eq!(versions[0].author, IMPORT_AUTHOR);
    assert!(
        versions[0].reason.starts_with("imported from "),
        "{}",
        versions[0].reason
    );
    assert_eq!(
        f.catalog.entry(tea.id).expect("tea").document.body,
        "Boil. Steep."
    );
}

#[test]
fn sync_removes_what_no_folder_has_but_keeps_broken_and_unreadable_ones() {
    let mut f = Fixture::new();
    let dir = f.folder(
        "skills",
        &[
            ("a.md", &skill("a", "x")),
            ("b.md", &skill("b", "x")),
            ("c.md", &skill("c", "x")),
        ],
    );
    f.catalog.sync_shared(&[&dir]).expect("import");
    std::fs::remove_file(dir.join("a.md")).expect("remove a");
    std::fs::write(dir.join("b.md"), "---\nname: b\nkind: nope\n---\nx").expect("break b");
    let report = f.catalog.sync_shared(&[&dir]).expect("sync");
    assert_eq!(names(&report.removed), ["a"]);
    assert_eq!(report.problems.len(), 1);
    assert_eq!(report.problems[0].path, dir.join("b.md"));
    assert_eq!(
        report.problems[0].error,
        ImportError::Document(DocumentError::BadKind("nope".into()))
    );
    assert!(
        f.catalog.find("b", None).is_ok(),
        "a broken file keeps its entry"
    );
    // A folder that cannot be listed removes nothing.
    let report = f.catalog.sync_shared(&[dir.join("missing")]).expect("sync");
    assert!(report.removed.is_empty());
    assert!(matches!(report.problems[0].error, ImportError::Io(_)));
    assert!(f.catalog.find("c", None).is_ok());
    // import_shared never removes.
    std::fs::remove_file(dir.join("c.md")).expect("remove c");
    assert!(f
        .catalog
        .import_shared(&[&dir])
        .expect("import")
        .removed
        .is_empty());
    assert!(f.catalog.find("c", None).is_ok());
}

#[test]
fn a_later_folder_overrides_an_earlier_one_and_duplicates_in_a_folder_are_reported() {
    let mut f = Fixture::new();
    let builtin = f.folder("builtin", &[("tea.md", &skill("tea", "built-in way"))]);
    let user = f.folder(
        "user",
        &[
            ("a.md", &skill("Tea", "user way")),
            ("b.md", &skill("TEA", "second in folder")),
        ],
    );
    let report = f.catalog.sync_shared(&[&builtin, &user]).expect("import");
    assert_eq!(names(&report.added), ["Tea"]);
    assert_eq!(report.overrides.len(), 1);
    assert_eq!(report.overrides[0].kept, user.join("a.md"));
    assert_eq!(report.overrides[0].dropped, builtin.join("tea.md"));
    assert_eq!(report.problems.len(), 1);
    assert!(matches!(
        &report.problems[0].error,
        ImportError::Duplicate { first, .. } if *first == user.join("a.md")
    ));
    assert_eq!(
        f.catalog.find("tea", None).expect("tea").document.body,
        "user way"
    );
}

#[test]
fn an_oversized_file_is_reported_not_read_whole() {
    let mut f = Fixture::new();
    let big = format!(
        "---\nname: big\n---\n{}",
        "x".repeat(MAX_DOCUMENT_BYTES * 4)
    );
    let dir = f.folder("skills", &[("big.md", &big), ("ok.md", &skill("ok", "x"))]);
    let report = f.catalog.import_shared(&[&dir]).expect("import");
    assert_eq!(names(&report.added), ["ok"]);
    assert_eq!(
        report.problems[0].error,
        ImportError::Document(DocumentError::FrontMatter(FrontMatterError::TooLarge {
            bytes: big.len(),
            limit: MAX_DOCUMENT_BYTES
        }))
    );
}

#[test]
fn an_import_that_fails_in_the_database_writes_nothing() {
    let mut f = Fixture::new();
    let dir = f.folder(
        "skills",
        &[("a.md", &skill("a", "x")), ("b.md", &skill("b", "x"))],
    );
    // Make the second insert fail inside the transaction.
    f.raw()
        .execute_batch(
            "CREATE TRIGGER no_b BEFORE INSERT ON entries WHEN NEW.name = 'b'
             BEGIN SELECT RAISE(ABORT, 'refused by test'); END;",
        )
        .expect("trigger");
    assert!(f.catalog.import_shared(&[&dir]).is_err());
    assert!(
        f.catalog.find("a", None).is_err(),
        "the first insert was rolled back"
    );
}
