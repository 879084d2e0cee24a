//! Search: matching, filters, order, shadowing.

use porfiry_catalog::{Area, EntrySummary, Kind, NewProposal, Owner, Query};

use crate::common::{protocol, skill, skill_with, Fixture};

fn names(hits: &[EntrySummary]) -> Vec<&str> {
    hits.iter().map(|h| h.name.as_str()).collect()
}

/// Three shared entries imported at t=1000, then personal ones written later.
fn catalog() -> Fixture {
    let mut f = Fixture::new();
    let shared = f.folder(
        "shared",
        &[
            (
                "a.md",
                &skill_with(
                    "Server shutdown",
                    "description: выключить сервер\narea: infrastructure\ntags: [Power]",
                ),
            ),
            (
                "b.md",
                &skill_with(
                    "Lights",
                    "description: свет дома\narea: home\ntags: [power, home]",
                ),
            ),
            (
                "c.md",
                &skill_with("Tea", "description: заварить чай\ntriggers: [хочу ЧАЮ]"),
            ),
        ],
    );
    f.catalog.import_shared(&[shared]).expect("import");
    f
}

#[test]
fn personal_entries_come_first_then_the_most_recently_updated() {
    let mut f = catalog();
    f.clock.advance(100);
    let old = f
        .catalog
        .create(&skill("old personal", "x"), "user", "")
        .expect("old")
        .id;
    f.clock.advance(100);
    f.catalog
        .create(&skill("new personal", "x"), "user", "")
        .expect("new");
    let hits = f.catalog.search(&Query::default()).expect("search");
    assert_eq!(
        names(&hits),
        [
            "new personal",
            "old personal",
            "Tea",
            "Lights",
            "Server shutdown"
        ]
    );
    // Same time for the shared ones: the later id first.
    assert!(hits[2..].iter().all(|h| h.owner == Owner::Shared));
    f.clock.advance(100);
    f.catalog
        .update(old, &skill("old personal", "y"), "user", "")
        .expect("touch");
    let hits = f.catalog.search(&Query::default()).expect("search");
    assert_eq!(names(&hits)[..2], ["old personal", "new personal"]);
}

#[test]
fn every_word_must_match_name_description_triggers_or_tags_in_any_case() {
    let f = catalog();
    let find = |q: &str| {
        names(&f.catalog.search(&Query::text(q)).expect("search"))
            .into_iter()
            .map(String::from)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        find("СЕРВЕР"),
        ["Server shutdown"],
        "description, Cyrillic case folded"
    );
    assert_eq!(find("чаю"), ["Tea"], "a trigger");
    assert_eq!(find("power"), ["Lights", "Server shutdown"], "a tag");
    assert_eq!(find("power дома"), ["Lights"], "every word");
    assert_eq!(find("shut"), ["Server shutdown"], "part of a word");
    assert!(find("nothing like it").is_empty());
    assert_eq!(find("  ").len(), 3, "blank text matches everything");
}

#[test]
fn filters_narrow_by_kind_tag_and_area() {
    let mut f = catalog();
    f.catalog
        .create(&protocol("power cycle", &["off", "on"]), "user", "")
        .expect("protocol");
    let q = |kind, tag: Option<&str>, area| Query {
        kind,
        tag: tag.map(String::from),
        area,
        ..Query::default()
    };
    let s = |query: Query| {
        names(&f.catalog.search(&query).expect("search"))
            .into_iter()
            .map(String::from)
            .collect::<Vec<_>>()
    };
    assert_eq!(s(q(Some(Kind::Protocol), None, None)), ["power cycle"]);
    assert_eq!(
        s(q(Some(Kind::Skill), Some("POWER"), None)),
        ["Lights", "Server shutdown"]
    );
    assert_eq!(s(q(None, Some("power"), Some(Area::Home))), ["Lights"]);
    assert_eq!(
        s(q(None, None, Some(Area::General))),
        ["power cycle", "Tea"]
    );
    assert!(s(q(None, Some("pow"), None)).is_empty(), "tags match whole");
    let limited = Query {
        limit: Some(2),
        ..Query::default()
    };
    assert_eq!(s(limited).len(), 2);
}

#[test]
fn a_shadowed_shared_entry_is_not_listed() {
    let mut f = catalog();
    f.catalog
        .create(&skill("tea", "my way"), "user", "")
        .expect("shadow");
    let hits = f.catalog.search(&Query::text("tea")).expect("search");
    assert_eq!(hits.len(), 1);
    assert_eq!(
        (hits[0].owner, hits[0].name.as_str()),
        (Owner::Personal, "tea")
    );
    // A protocol of the same name does not shadow the skill.
    f.catalog
        .create(&protocol("lights", &["on"]), "user", "")
        .expect("protocol");
    assert_eq!(
        f.catalog
            .search(&Query::text("lights"))
            .expect("search")
            .len(),
        2
    );
}

#[test]
fn pending_proposals_never_appear_in_search_or_load() {
    let mut f = catalog();
    let proposal = f
        .catalog
        .propose(NewProposal {
            session: "s1",
            content: &protocol("backup", &["copy"]),
            replaces: None,
            author: "agent",
            reason: "you asked",
        })
        .expect("propose");
    assert!(f
        .catalog
        .search(&Query::text("backup"))
        .expect("search")
        .is_empty());
    assert!(f.catalog.find("backup", None).is_err());
    assert!(f
        .catalog
        .resolve(&proposal.id.get().to_string(), Some(Kind::Protocol))
        .is_err());
    f.catalog
        .accept_proposal(proposal.id, "user")
        .expect("accept");
    assert_eq!(
        names(&f.catalog.search(&Query::text("backup")).expect("search")),
        ["backup"]
    );
}

#[test]
fn a_summary_is_one_compact_line() {
    let mut f = Fixture::new();
    let id = f
        .catalog
        .create(&protocol("Shutdown", &["a"]), "user", "")
        .expect("create")
        .id;
    let hits = f.catalog.search(&Query::default()).expect("search");
    assert_eq!(
        hits[0].compact_line(),
        format!("{id} protocol Shutdown — the Shutdown protocol")
    );
}
