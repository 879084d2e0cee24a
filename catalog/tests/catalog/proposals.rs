//! Proposals: propose, accept, reject, refusals that stay pending, replacing entries.

use porfiry_catalog::{
    CatalogError, DocumentError, EntryId, Kind, NewProposal, Owner, ProposalStatus,
};

use crate::common::{protocol, skill, Fixture};

fn new<'a>(content: &'a str, replaces: Option<EntryId>) -> NewProposal<'a> {
    NewProposal {
        session: "s1",
        content,
        replaces,
        author: "agent",
        reason: "the user asked for it",
    }
}

#[test]
fn only_valid_protocols_are_proposed() {
    let mut f = Fixture::new();
    assert!(matches!(
        f.catalog.propose(new(&skill("tea", "x"), None)),
        Err(CatalogError::NotAProtocol {
            what: "a proposal",
            ..
        })
    ));
    assert!(matches!(
        f.catalog
            .propose(new("---\nkind: protocol\nname: p\n---\n", None)),
        Err(CatalogError::Document(DocumentError::MissingKeys { .. }))
    ));
    let tea = f
        .catalog
        .create(&skill("tea", "x"), "user", "")
        .expect("skill")
        .id;
    assert!(matches!(
        f.catalog.propose(new(&protocol("p", &["a"]), Some(tea))),
        Err(CatalogError::KindChanged { .. })
    ));
    assert!(matches!(
        f.catalog
            .propose(new(&protocol("p", &["a"]), Some(EntryId(99)))),
        Err(CatalogError::NoEntry(_))
    ));
    assert!(f.catalog.proposals(None).expect("list").is_empty());
}

#[test]
fn accepting_writes_the_stored_document_with_the_user_as_author() {
    let mut f = Fixture::new();
    let text = protocol("backup", &["copy", "verify"]);
    let p = f.catalog.propose(new(&text, None)).expect("propose");
    assert_eq!(
        (p.status, p.kind, p.name.as_str()),
        (ProposalStatus::Pending, Kind::Protocol, "backup")
    );
    assert_eq!(p.created_at.0, 1_000);
    f.clock.advance(50);
    let entry = f.catalog.accept_proposal(p.id, "owner").expect("accept");
    assert_eq!((entry.owner, entry.version), (Owner::Personal, 1));
    let stored = f.catalog.entry(entry.id).expect("entry");
    assert_eq!(stored.content, text);
    assert_eq!(stored.updated_by, "owner");
    let v = &f.catalog.versions(entry.id).expect("versions")[0];
    assert_eq!(v.author, "owner");
    assert_eq!(
        v.reason,
        format!("proposal {}: the user asked for it", p.id)
    );
    let decided = f.catalog.proposal(p.id).expect("proposal");
    assert_eq!(decided.status, ProposalStatus::Accepted);
    assert_eq!(decided.entry, Some(entry.id));
    assert_eq!(decided.decided_by.as_deref(), Some("owner"));
    assert_eq!(decided.decided_at.map(|t| t.0), Some(1_050));
    assert!(matches!(
        f.catalog.accept_proposal(p.id, "owner"),
        Err(CatalogError::AlreadyDecided {
            status: ProposalStatus::Accepted,
            ..
        })
    ));
    assert!(matches!(
        f.catalog.reject_proposal(p.id, "owner", ""),
        Err(CatalogError::AlreadyDecided { .. })
    ));
}

#[test]
fn rejecting_keeps_the_reason_and_leaves_the_catalog_alone() {
    let mut f = Fixture::new();
    let p = f
        .catalog
        .propose(new(&protocol("backup", &["copy"]), None))
        .expect("propose");
    let rejected = f
        .catalog
        .reject_proposal(p.id, "owner", "not now")
        .expect("reject");
    assert_eq!(rejected.status, ProposalStatus::Rejected);
    assert_eq!(rejected.decision_reason.as_deref(), Some("not now"));
    assert!(f.catalog.find("backup", None).is_err());
    let entries: i64 = f
        .raw()
        .query_row("SELECT count(*) FROM entries", [], |r| r.get(0))
        .expect("count");
    assert_eq!(entries, 0);
    let silent = f
        .catalog
        .propose(new(&protocol("other", &["x"]), None))
        .expect("propose");
    let rejected = f
        .catalog
        .reject_proposal(silent.id, "owner", "  ")
        .expect("reject");
    assert_eq!(rejected.decision_reason, None);
}

#[test]
fn a_proposal_the_store_refuses_stays_pending_with_the_reason() {
    let mut f = Fixture::new();
    let existing = f
        .catalog
        .create(&protocol("backup", &["old"]), "user", "")
        .expect("existing")
        .id;
    let p = f
        .catalog
        .propose(new(&protocol("Backup", &["new"]), None))
        .expect("propose");
    let err = f
        .catalog
        .accept_proposal(p.id, "owner")
        .expect_err("duplicate name");
    let reason = match &err {
        CatalogError::ProposalRefused { id, reason } => {
            assert_eq!(*id, p.id);
            reason.clone()
        }
        other => panic!("expected ProposalRefused, got {other:?}"),
    };
    assert!(reason.contains("already exists"), "{reason}");
    assert!(err.to_string().contains("stays pending"), "{err}");
    let pending = f.catalog.proposal(p.id).expect("proposal");
    assert_eq!(pending.status, ProposalStatus::Pending);
    assert_eq!(pending.error.as_deref(), Some(reason.as_str()));
    assert_eq!(pending.decided_at, None);
    // Nothing of the refused write is left.
    assert_eq!(f.catalog.entry(existing).expect("existing").version, 1);
    let versions: i64 = f
        .raw()
        .query_row("SELECT count(*) FROM versions", [], |r| r.get(0))
        .expect("count");
    assert_eq!(versions, 1);
    // Once the obstacle is gone, the same proposal is accepted and its error cleared.
    f.catalog.delete(existing).expect("delete");
    let entry = f.catalog.accept_proposal(p.id, "owner").expect("accept");
    let accepted = f.catalog.proposal(p.id).expect("proposal");
    assert_eq!(
        (accepted.status, accepted.error, accepted.entry),
        (ProposalStatus::Accepted, None, Some(entry.id))
    );
}

#[test]
fn a_proposal_replacing_a_personal_protocol_writes_its_next_version() {
    let mut f = Fixture::new();
    let id = f
        .catalog
        .create(&protocol("backup", &["copy"]), "user", "v1")
        .expect("create")
        .id;
    let p = f
        .catalog
        .propose(new(&protocol("backup", &["copy", "verify"]), Some(id)))
        .expect("propose");
    let entry = f.catalog.accept_proposal(p.id, "owner").expect("accept");
    assert_eq!((entry.id, entry.version), (id, 2));
    let doc = f.catalog.entry(id).expect("entry").document;
    assert_eq!(doc.protocol.expect("protocol").steps, ["copy", "verify"]);
}

#[test]
fn a_proposal_replacing_a_shared_protocol_writes_a_personal_one_over_it() {
    let mut f = Fixture::new();
    let dir = f.folder("shared", &[("backup.md", &protocol("backup", &["copy"]))]);
    f.catalog.import_shared(&[&dir]).expect("import");
    let shared = f.catalog.find("backup", None).expect("shared").id;
    let first = f
        .catalog
        .propose(new(&protocol("backup", &["copy", "verify"]), Some(shared)))
        .expect("propose");
    let personal = f
        .catalog
        .accept_proposal(first.id, "owner")
        .expect("accept");
    assert_eq!((personal.owner, personal.version), (Owner::Personal, 1));
    assert_eq!(
        f.catalog.find("backup", None).expect("found").id,
        personal.id
    );
    assert_eq!(
        f.catalog.entry(shared).expect("shared").version,
        1,
        "shared untouched"
    );
    // Replacing the shared one again updates the personal one.
    let second = f
        .catalog
        .propose(new(
            &protocol("backup", &["copy", "verify", "report"]),
            Some(shared),
        ))
        .expect("propose");
    let again = f
        .catalog
        .accept_proposal(second.id, "owner")
        .expect("accept");
    assert_eq!((again.id, again.version), (personal.id, 2));
}

#[test]
fn decisions_are_handed_to_their_session_once() {
    let mut f = Fixture::new();
    let a = f
        .catalog
        .propose(new(&protocol("a", &["x"]), None))
        .expect("a");
    let b = f
        .catalog
        .propose(new(&protocol("b", &["x"]), None))
        .expect("b");
    let other = f
        .catalog
        .propose(NewProposal {
            session: "s2",
            ..new(&protocol("c", &["x"]), None)
        })
        .expect("c");
    assert!(f.catalog.take_decided("s1").expect("none yet").is_empty());
    f.catalog
        .reject_proposal(b.id, "owner", "no")
        .expect("reject");
    f.clock.advance(1);
    f.catalog.accept_proposal(a.id, "owner").expect("accept");
    f.catalog
        .accept_proposal(other.id, "owner")
        .expect("accept");
    let decided = f.catalog.take_decided("s1").expect("decided");
    let got: Vec<_> = decided.iter().map(|p| (p.id, p.status)).collect();
    assert_eq!(
        got,
        [
            (b.id, ProposalStatus::Rejected),
            (a.id, ProposalStatus::Accepted)
        ]
    );
    assert!(f.catalog.take_decided("s1").expect("again").is_empty());
    assert_eq!(f.catalog.take_decided("s2").expect("s2").len(), 1);
}

#[test]
fn proposals_list_by_status_newest_first() {
    let mut f = Fixture::new();
    let a = f
        .catalog
        .propose(new(&protocol("a", &["x"]), None))
        .expect("a");
    let b = f
        .catalog
        .propose(new(&protocol("b", &["x"]), None))
        .expect("b");
    f.catalog
        .reject_proposal(a.id, "owner", "")
        .expect("reject");
    let ids = |s| {
        f.catalog
            .proposals(s)
            .expect("list")
            .iter()
            .map(|p| p.id)
            .collect::<Vec<_>>()
    };
    assert_eq!(ids(None), [b.id, a.id]);
    assert_eq!(ids(Some(ProposalStatus::Pending)), [b.id]);
    assert_eq!(ids(Some(ProposalStatus::Rejected)), [a.id]);
    assert_eq!(
        f.catalog
            .proposal(b.id)
            .expect("b")
            .document()
            .expect("doc")
            .name,
        "b"
    );
}
