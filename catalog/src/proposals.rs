//! Proposals: protocols the agent suggests and the user decides.
//!
//! A protocol is never written by the agent directly: [`Catalog::propose`] stores a pending
//! proposal, and only [`Catalog::accept_proposal`] — called by the host for the user —
//! writes the entry, from the *stored* document (the decider cannot swap the text), with
//! the user as the version's author. A proposal the store then refuses (a duplicate name,
//! say) stays pending with the reason on the row. Pending proposals are not entries: they
//! never appear in search or load.

use rusqlite::{params, Connection, OptionalExtension, Row};

use crate::clock::Timestamp;
use crate::document::{name_key, Document};
use crate::error::{CatalogError, DocumentError, Result};
use crate::ids::{EntryId, ProposalId};
use crate::store::{
    corrupt, get_entry, insert_entry, kind_of, require, update_entry, Authored, Catalog, Entry,
    EntryRef, Prepared, RawEntry, ENTRY_COLUMNS,
};
use crate::vocab::{Kind, Owner, ProposalStatus};

/// What [`Catalog::propose`] takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NewProposal<'a> {
    /// The session it comes from (where the decision is reported).
    pub session: &'a str,
    /// The protocol document.
    pub content: &'a str,
    /// The protocol it would replace: a personal one is updated; for a shared one a
    /// personal entry of the same name is written (shared entries are read-only).
    pub replaces: Option<EntryId>,
    /// Who proposes it (the agent).
    pub author: &'a str,
    /// Why, as the proposer says (kept as the version's reason when accepted).
    pub reason: &'a str,
}

/// A stored proposal.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Proposal {
    /// Its id.
    pub id: ProposalId,
    /// The session it came from.
    pub session: String,
    /// The document's kind (always a protocol today).
    pub kind: Kind,
    /// The document's name.
    pub name: String,
    /// The document, as proposed.
    pub content: String,
    /// Its SHA-256, hex.
    pub content_hash: String,
    /// The entry it would replace.
    pub replaces: Option<EntryId>,
    /// Who proposed it.
    pub author: String,
    /// Why.
    pub reason: String,
    /// Where it stands.
    pub status: ProposalStatus,
    /// Accepted: the entry written.
    pub entry: Option<EntryId>,
    /// Pending: why the store refused the last attempt to accept it.
    pub error: Option<String>,
    /// Rejected: why, if the user said.
    pub decision_reason: Option<String>,
    /// When it was proposed.
    pub created_at: Timestamp,
    /// When it was decided.
    pub decided_at: Option<Timestamp>,
    /// Who decided it.
    pub decided_by: Option<String>,
}

impl Proposal {
    /// The proposed document, parsed.
    pub fn document(&self) -> Result<Document, DocumentError> {
        Document::parse(&self.content)
    }
}

const PROPOSAL_COLUMNS: &str = "id, session_id, kind, name, content, content_hash, replaces_id, \
     author, reason, status, entry_id, error, decision_reason, created_at, decided_at, decided_by";

type RawProposal = (
    i64,
    String,
    String,
    String,
    String,
    String,
    Option<i64>,
    String,
    String,
    String,
    Option<i64>,
    Option<String>,
    Option<String>,
    i64,
    Option<i64>,
    Option<String>,
);

fn read_proposal(r: &Row<'_>) -> rusqlite::Result<RawProposal> {
    Ok((
        r.get(0)?,
        r.get(1)?,
        r.get(2)?,
        r.get(3)?,
        r.get(4)?,
        r.get(5)?,
        r.get(6)?,
        r.get(7)?,
        r.get(8)?,
        r.get(9)?,
        r.get(10)?,
        r.get(11)?,
        r.get(12)?,
        r.get(13)?,
        r.get(14)?,
        r.get(15)?,
    ))
}

fn into_proposal(raw: RawProposal) -> Result<Proposal> {
    let (
        id,
        session,
        kind,
        name,
        content,
        content_hash,
        replaces,
        author,
        reason,
        status,
        entry,
        error,
        decision_reason,
        created_at,
        decided_at,
        decided_by,
    ) = raw;
    Ok(Proposal {
        id: ProposalId(id),
        session,
        kind: kind_of("proposals.kind", &kind)?,
        name,
        content,
        content_hash,
        replaces: replaces.map(EntryId),
        author,
        reason,
        status: ProposalStatus::from_stored(&status)
            .ok_or_else(|| corrupt("proposals.status", &status))?,
        entry: entry.map(EntryId),
        error,
        decision_reason,
        created_at: Timestamp(created_at),
        decided_at: decided_at.map(Timestamp),
        decided_by,
    })
}

fn get_proposal(conn: &Connection, id: ProposalId) -> Result<Proposal> {
    let raw = conn
        .query_row(
            &format!("SELECT {PROPOSAL_COLUMNS} FROM proposals WHERE id = ?1"),
            [id.0],
            read_proposal,
        )
        .optional()?
        .ok_or(CatalogError::NoProposal(id))?;
    into_proposal(raw)
}

fn list_proposals(
    conn: &Connection,
    sql: &str,
    args: impl rusqlite::Params,
) -> Result<Vec<Proposal>> {
    let mut stmt = conn.prepare(sql)?;
    let rows = stmt.query_map(args, read_proposal)?;
    rows.map(|r| into_proposal(r?)).collect()
}

/// The protocol a proposal replacing `id` updates: `id` itself when personal; for a shared
/// one, the personal protocol of the same name if there is one (else `None`: a new
/// personal entry is written).
fn replacement_target(conn: &Connection, id: EntryId) -> Result<Option<Entry>> {
    let target = get_entry(conn, id)?.ok_or(CatalogError::NoEntry(id))?;
    if target.kind() != Kind::Protocol {
        return Err(CatalogError::KindChanged {
            id,
            from: target.kind(),
            to: Kind::Protocol,
        });
    }
    if target.owner == Owner::Personal {
        return Ok(Some(target));
    }
    conn.query_row(
        &format!(
            "SELECT {ENTRY_COLUMNS} FROM entries
             WHERE owner = 'personal' AND kind = 'protocol' AND name_key = ?1"
        ),
        [name_key(&target.document.name)],
        RawEntry::read,
    )
    .optional()?
    .map(RawEntry::into_entry)
    .transpose()
}

/// Writes an accepted proposal's entry. Any error other than SQLite's is a refusal.
fn apply(conn: &Connection, proposal: &Proposal, by: Authored<'_>) -> Result<EntryRef> {
    let p = Prepared::new(&proposal.content)?;
    if p.doc.kind() != Kind::Protocol {
        return Err(CatalogError::NotAProtocol {
            what: "a proposal",
            name: p.doc.name.clone(),
        });
    }
    let target = match proposal.replaces {
        Some(id) => replacement_target(conn, id)?,
        None => None,
    };
    match target {
        Some(current) if current.content_hash == p.hash => Ok(current.to_ref()),
        Some(current) => update_entry(conn, &current, &p, None, by),
        None => insert_entry(conn, Owner::Personal, &p, None, by),
    }
}

/// Whether an error is the store refusing the write (kept on the proposal) rather than the
/// database failing.
fn is_refusal(e: &CatalogError) -> bool {
    !matches!(e, CatalogError::Sqlite(_) | CatalogError::Corrupt(_))
}

impl Catalog {
    /// Stores a pending proposal. Only protocols are proposed
    /// ([`CatalogError::NotAProtocol`]); the document must be valid now, and `replaces`, if
    /// given, must be a protocol.
    pub fn propose(&mut self, new: NewProposal<'_>) -> Result<Proposal> {
        require("the session", new.session)?;
        require("the author", new.author)?;
        let p = Prepared::new(new.content)?;
        if p.doc.kind() != Kind::Protocol {
            return Err(CatalogError::NotAProtocol {
                what: "a proposal",
                name: p.doc.name,
            });
        }
        self.write(|tx, now| {
            if let Some(id) = new.replaces {
                replacement_target(tx, id)?;
            }
            tx.execute(
                "INSERT INTO proposals (session_id, kind, name, content, content_hash,
                     replaces_id, author, reason, status, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'pending', ?9)",
                params![
                    new.session,
                    p.doc.kind().as_str(),
                    p.doc.name,
                    p.content,
                    p.hash,
                    new.replaces.map(|e| e.0),
                    new.author,
                    new.reason,
                    now.0,
                ],
            )?;
            get_proposal(tx, ProposalId(tx.last_insert_rowid()))
        })
    }

    /// Accepts pending proposal `id` for the user `decided_by`: writes its stored document
    /// (a new personal entry, or the next version of the one it replaces) with
    /// `decided_by` as the author. If the store refuses the write, nothing is written, the
    /// proposal stays pending with the reason in [`Proposal::error`], and the answer is
    /// [`CatalogError::ProposalRefused`].
    pub fn accept_proposal(&mut self, id: ProposalId, decided_by: &str) -> Result<EntryRef> {
        require("the decider", decided_by)?;
        let outcome = self.write_mut(|tx, now| {
            let proposal = get_proposal(tx, id)?;
            if proposal.status != ProposalStatus::Pending {
                return Err(CatalogError::AlreadyDecided {
                    id,
                    status: proposal.status,
                });
            }
            let reason = if proposal.reason.trim().is_empty() {
                format!("proposal {id}")
            } else {
                format!("proposal {id}: {}", proposal.reason)
            };
            let by = Authored {
                author: decided_by,
                reason: &reason,
                now,
            };
            let sp = tx.savepoint()?;
            match apply(&sp, &proposal, by) {
                Ok(entry) => {
                    sp.commit()?;
                    tx.execute(
                        "UPDATE proposals SET status = 'accepted', entry_id = ?2, error = NULL,
                             decided_at = ?3, decided_by = ?4
                         WHERE id = ?1",
                        params![id.0, entry.id.0, now.0, decided_by],
                    )?;
                    Ok(Ok(entry))
                }
                Err(e) if is_refusal(&e) => {
                    drop(sp);
                    let reason = e.to_string();
                    tx.execute(
                        "UPDATE proposals SET error = ?2 WHERE id = ?1",
                        params![id.0, reason],
                    )?;
                    Ok(Err(CatalogError::ProposalRefused { id, reason }))
                }
                Err(e) => Err(e),
            }
        })?;
        outcome
    }

    /// Rejects pending proposal `id` for the user `decided_by`; `reason` (may be empty) is
    /// kept. The catalog is left as it was.
    pub fn reject_proposal(
        &mut self,
        id: ProposalId,
        decided_by: &str,
        reason: &str,
    ) -> Result<Proposal> {
        require("the decider", decided_by)?;
        self.write(|tx, now| {
            let proposal = get_proposal(tx, id)?;
            if proposal.status != ProposalStatus::Pending {
                return Err(CatalogError::AlreadyDecided {
                    id,
                    status: proposal.status,
                });
            }
            let reason = Some(reason.trim()).filter(|r| !r.is_empty());
            tx.execute(
                "UPDATE proposals SET status = 'rejected', decision_reason = ?2, decided_at = ?3,
                     decided_by = ?4
                 WHERE id = ?1",
                params![id.0, reason, now.0, decided_by],
            )?;
            get_proposal(tx, id)
        })
    }

    /// Proposal `id`.
    pub fn proposal(&self, id: ProposalId) -> Result<Proposal> {
        get_proposal(self.conn(), id)
    }

    /// The proposals with `status` (all when `None`), newest first.
    pub fn proposals(&self, status: Option<ProposalStatus>) -> Result<Vec<Proposal>> {
        list_proposals(
            self.conn(),
            &format!(
                "SELECT {PROPOSAL_COLUMNS} FROM proposals WHERE ?1 IS NULL OR status = ?1
                 ORDER BY id DESC"
            ),
            [status.map(ProposalStatus::as_str)],
        )
    }

    /// The proposals of `session` decided since the last call (oldest decision first),
    /// marked as handed over: how the agent learns the user's decision on its next turn.
    pub fn take_decided(&mut self, session: &str) -> Result<Vec<Proposal>> {
        self.write(|tx, now| {
            let decided = list_proposals(
                tx,
                &format!(
                    "SELECT {PROPOSAL_COLUMNS} FROM proposals
                     WHERE session_id = ?1 AND status != 'pending' AND reported_at IS NULL
                     ORDER BY decided_at, id"
                ),
                [session],
            )?;
            for p in &decided {
                tx.execute(
                    "UPDATE proposals SET reported_at = ?2 WHERE id = ?1",
                    params![p.id.0, now.0],
                )?;
            }
            Ok(decided)
        })
    }
}
