//! Search: what the `skills_search` tool and the settings screen list.

use rusqlite::types::Value as Sql;

use crate::clock::Timestamp;
use crate::error::Result;
use crate::ids::EntryId;
use crate::store::{from_json, kind_of, version_of, Catalog};
use crate::vocab::{Area, Kind, Owner};

/// How many results a query returns when it does not say.
pub const DEFAULT_SEARCH_LIMIT: usize = 20;

/// A search. Every field narrows it; the default lists everything visible.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Query {
    /// Words that must all occur (case ignored, as parts of words too) in the name,
    /// description, triggers or tags. Empty: no text condition.
    pub text: String,
    /// Only this kind.
    pub kind: Option<Kind>,
    /// Only entries with this tag (case ignored).
    pub tag: Option<String>,
    /// Only this area.
    pub area: Option<Area>,
    /// At most this many ([`DEFAULT_SEARCH_LIMIT`] when `None`).
    pub limit: Option<usize>,
}

impl Query {
    /// A query for `text`.
    pub fn text(text: impl Into<String>) -> Query {
        Query {
            text: text.into(),
            ..Query::default()
        }
    }
}

/// One search result.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct EntrySummary {
    /// Its id.
    pub id: EntryId,
    /// Its owner.
    pub owner: Owner,
    /// Its kind.
    pub kind: Kind,
    /// Its name.
    pub name: String,
    /// Its description.
    pub description: String,
    /// Its tags.
    pub tags: Vec<String>,
    /// Its area.
    pub area: Area,
    /// Its latest version.
    pub version: u32,
    /// When that version was written.
    pub updated_at: Timestamp,
}

impl EntrySummary {
    /// One line for the model: `#12 protocol Shutdown — stops the services`.
    pub fn compact_line(&self) -> String {
        let mut line = format!("{} {} {}", self.id, self.kind, self.name);
        if !self.description.is_empty() {
            line.push_str(" — ");
            line.push_str(&self.description);
        }
        line
    }
}

impl Catalog {
    /// Entries matching `query`: personal first, then the most recently updated. A shared
    /// entry shadowed by a personal one of the same kind and name is left out; proposals
    /// are never entries, so a pending one never appears.
    pub fn search(&self, query: &Query) -> Result<Vec<EntrySummary>> {
        let mut sql = String::from(
            "SELECT e.id, e.owner, e.kind, e.name, e.description, e.tags, e.area, e.version,
                    e.updated_at
             FROM entries e
             WHERE NOT (e.owner = 'shared' AND EXISTS (
                 SELECT 1 FROM entries p
                 WHERE p.owner = 'personal' AND p.kind = e.kind AND p.name_key = e.name_key))",
        );
        let mut args: Vec<Sql> = Vec::new();
        let mut arg = |sql: &mut String, condition: &str, value: Sql| {
            args.push(value);
            sql.push_str(&condition.replace('?', &format!("?{}", args.len())));
        };
        if let Some(kind) = query.kind {
            arg(&mut sql, " AND e.kind = ?", Sql::Text(kind.as_str().into()));
        }
        if let Some(area) = query.area {
            arg(&mut sql, " AND e.area = ?", Sql::Text(area.as_str().into()));
        }
        if let Some(tag) = &query.tag {
            arg(
                &mut sql,
                " AND EXISTS (SELECT 1 FROM json_each(e.tag_keys) WHERE value = ?)",
                Sql::Text(tag.trim().to_lowercase()),
            );
        }
        for word in query.text.to_lowercase().split_whitespace() {
            arg(
                &mut sql,
                " AND instr(e.search_text, ?) > 0",
                Sql::Text(word.into()),
            );
        }
        let limit = query.limit.unwrap_or(DEFAULT_SEARCH_LIMIT);
        arg(
            &mut sql,
            " ORDER BY e.owner = 'personal' DESC, e.updated_at DESC, e.id DESC LIMIT ?",
            Sql::Integer(i64::try_from(limit).unwrap_or(i64::MAX)),
        );
        let mut stmt = self.conn().prepare(&sql)?;
        let rows = stmt.query_map(rusqlite::params_from_iter(args), |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, String>(4)?,
                r.get::<_, String>(5)?,
                r.get::<_, String>(6)?,
                r.get::<_, i64>(7)?,
                r.get::<_, i64>(8)?,
            ))
        })?;
        rows.map(|row| {
            let (id, owner, kind, name, description, tags, area, version, updated_at) = row?;
            Ok(EntrySummary {
                id: EntryId(id),
                owner: Owner::from_stored(&owner)
                    .ok_or_else(|| crate::store::corrupt("entries.owner", &owner))?,
                kind: kind_of("entries.kind", &kind)?,
                name,
                description,
                tags: from_json("entries.tags", &tags)?,
                area: Area::parse(&area)
                    .ok_or_else(|| crate::store::corrupt("entries.area", &area))?,
                version: version_of("entries.version", version)?,
                updated_at: Timestamp(updated_at),
            })
        })
        .collect()
    }
}
