//! The one document format of skills and protocols: markdown with YAML front matter.
//!
//! ```text
//! ---
//! kind: protocol            # skill (the default) | protocol
//! name: Shutdown
//! description: stops the services in dependency order
//! area: infrastructure      # home | infrastructure | workflows | general (default)
//! tags: [power]
//! triggers: ["the user asks to switch the server off"]
//! preconditions: ["everyone was warned"]          # protocols, optional
//! steps: ["stop the apps", "stop the databases"]  # protocols, required
//! post_checks: ["no app unit is left"]             # protocols, required
//! on_deviation: stop and report                    # protocols, required
//! on_blocked: stop and say what blocked it         # protocols, required
//! on_already_done: check, then mark the step       # protocols, required
//! owner_team: ops           # any other key is kept as it is
//! ---
//! The body: a skill's instructions; a protocol's context.
//! ```
//!
//! [`Document::parse`] reads and validates; [`Document::render`] writes the document back
//! (same meaning: parsing the rendering gives an equal document); [`Document::render_compact`]
//! is what the model reads when it loads an entry.

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use porfiry_frontmatter::FrontMatterError;

use crate::error::DocumentError;
use crate::vocab::{Area, Kind};

pub use porfiry_frontmatter::{check_name, name_key, normalize, MAX_DOCUMENT_BYTES, NAME_LIMIT};

/// What only a protocol has.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Protocol {
    /// What must hold before the first step (optional).
    pub preconditions: Vec<String>,
    /// The steps, in order (required).
    pub steps: Vec<String>,
    /// How the results are verified (required).
    pub post_checks: Vec<String>,
    /// What to do when the run drifts from the plan (required).
    pub on_deviation: String,
    /// What to do when the protocol cannot be completed (required).
    pub on_blocked: String,
    /// What to do when a step's result already exists (required).
    pub on_already_done: String,
}

/// A skill or protocol document, parsed and typed.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Document {
    /// The name (unique per owner and kind; lookups ignore case and repeated spaces).
    pub name: String,
    /// One line: what it is for (whitespace folded).
    pub description: String,
    /// When to use it.
    pub triggers: Vec<String>,
    /// Free tags (a search filter).
    pub tags: Vec<String>,
    /// The area (a search filter).
    pub area: Area,
    /// `Some` for a protocol, `None` for a skill.
    pub protocol: Option<Protocol>,
    /// Everything after the front matter: a skill's instructions, a protocol's context.
    /// Leading blank lines and trailing whitespace are not part of it.
    pub body: String,
    /// Front matter keys the format does not know, kept with their values.
    pub extra: Map<String, Value>,
}

/// As JSON: `kind` first, then the fields (`protocol` only for a protocol).
impl Serialize for Document {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("kind", &self.kind())?;
        map.serialize_entry("name", &self.name)?;
        map.serialize_entry("description", &self.description)?;
        map.serialize_entry("triggers", &self.triggers)?;
        map.serialize_entry("tags", &self.tags)?;
        map.serialize_entry("area", &self.area)?;
        if let Some(p) = &self.protocol {
            map.serialize_entry("protocol", p)?;
        }
        map.serialize_entry("body", &self.body)?;
        map.serialize_entry("extra", &self.extra)?;
        map.end()
    }
}

/// The front matter keys the format knows, in the order a document is rendered.
const KNOWN_KEYS: [&str; 12] = [
    "kind",
    "name",
    "description",
    "area",
    "triggers",
    "tags",
    "preconditions",
    "steps",
    "post_checks",
    "on_deviation",
    "on_blocked",
    "on_already_done",
];

/// The keys only a protocol has.
const PROTOCOL_KEYS: [&str; 6] = [
    "preconditions",
    "steps",
    "post_checks",
    "on_deviation",
    "on_blocked",
    "on_already_done",
];

/// The SHA-256 of a document (of its [`normalize`]d text), as 64 lower-case hex digits.
pub fn content_hash(text: &str) -> String {
    let digest = Sha256::digest(normalize(text).as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

fn fold(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Removes `key` and reads it as text (`None` when absent or null).
fn take_text(
    map: &mut Map<String, Value>,
    key: &'static str,
) -> Result<Option<String>, DocumentError> {
    match map.remove(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(DocumentError::WrongType {
            key,
            expected: "text",
        }),
    }
}

/// Removes `key` and reads it as a list of non-empty texts (trimmed).
fn take_list(
    map: &mut Map<String, Value>,
    key: &'static str,
) -> Result<Vec<String>, DocumentError> {
    let wrong = DocumentError::WrongType {
        key,
        expected: "a list of texts",
    };
    match map.remove(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .into_iter()
            .enumerate()
            .map(|(i, item)| match item {
                Value::String(s) if s.trim().is_empty() => {
                    Err(DocumentError::EmptyItem { key, item: i + 1 })
                }
                Value::String(s) => Ok(s.trim().to_string()),
                _ => Err(wrong.clone()),
            })
            .collect(),
        Some(_) => Err(wrong),
    }
}

/// The body as kept: leading blank lines and trailing whitespace dropped.
fn clean_body(body: &str) -> String {
    let mut start = 0;
    for line in body.split_inclusive('\n') {
        if !line.trim().is_empty() {
            break;
        }
        start += line.len();
    }
    body[start..].trim_end().to_string()
}

impl Document {
    /// Parse and validate a document. `text` may use any line endings and start with a
    /// byte-order mark.
    pub fn parse(text: &str) -> Result<Document, DocumentError> {
        let porfiry_frontmatter::Parsed {
            fields: mut map,
            body,
        } = porfiry_frontmatter::parse(text)?;
        let kind = match take_text(&mut map, "kind")? {
            None => Kind::Skill,
            Some(k) => Kind::parse(&k).ok_or(DocumentError::BadKind(k))?,
        };
        if kind == Kind::Skill {
            let found: Vec<&'static str> = PROTOCOL_KEYS
                .into_iter()
                .filter(|k| map.get(*k).is_some_and(|v| !v.is_null()))
                .collect();
            if !found.is_empty() {
                return Err(DocumentError::ProtocolKeysInSkill { keys: found });
            }
        }
        let name = take_text(&mut map, "name")?.unwrap_or_default();
        let description = fold(&take_text(&mut map, "description")?.unwrap_or_default());
        let area = match take_text(&mut map, "area")? {
            None => Area::General,
            Some(a) => Area::parse(&a).ok_or(DocumentError::BadArea { value: a })?,
        };
        let triggers = take_list(&mut map, "triggers")?;
        let tags = take_list(&mut map, "tags")?;
        let protocol = match kind {
            Kind::Skill => None,
            Kind::Protocol => Some(Protocol {
                preconditions: take_list(&mut map, "preconditions")?,
                steps: take_list(&mut map, "steps")?,
                post_checks: take_list(&mut map, "post_checks")?,
                on_deviation: take_text(&mut map, "on_deviation")?.unwrap_or_default(),
                on_blocked: take_text(&mut map, "on_blocked")?.unwrap_or_default(),
                on_already_done: take_text(&mut map, "on_already_done")?.unwrap_or_default(),
            }),
        };
        let doc = Document {
            name,
            description,
            triggers,
            tags,
            area,
            protocol,
            body: clean_body(&body),
            extra: map,
        };
        doc.validate()?;
        Ok(doc)
    }

    /// Parse a document from bytes (a file): the size is checked before anything else.
    pub fn parse_bytes(bytes: &[u8]) -> Result<Document, DocumentError> {
        if bytes.len() > MAX_DOCUMENT_BYTES {
            return Err(DocumentError::FrontMatter(FrontMatterError::TooLarge {
                bytes: bytes.len(),
                limit: MAX_DOCUMENT_BYTES,
            }));
        }
        let text = std::str::from_utf8(bytes).map_err(|_| DocumentError::NotUtf8)?;
        Document::parse(text)
    }

    /// Skill or protocol.
    pub fn kind(&self) -> Kind {
        match self.protocol {
            Some(_) => Kind::Protocol,
            None => Kind::Skill,
        }
    }

    /// Check the rules [`Document::parse`] enforces, on a document built in code: every
    /// required key present (one error naming all that are missing), the name rules, no
    /// empty list item, a skill's body, no extra key that the format knows.
    pub fn validate(&self) -> Result<(), DocumentError> {
        let mut missing = Vec::new();
        if self.name.is_empty() {
            missing.push("name");
        }
        if let Some(p) = &self.protocol {
            let texts = [
                ("steps", p.steps.is_empty()),
                ("post_checks", p.post_checks.is_empty()),
                ("on_deviation", p.on_deviation.trim().is_empty()),
                ("on_blocked", p.on_blocked.trim().is_empty()),
                ("on_already_done", p.on_already_done.trim().is_empty()),
            ];
            missing.extend(texts.into_iter().filter(|(_, m)| *m).map(|(k, _)| k));
        }
        if !missing.is_empty() {
            return Err(DocumentError::MissingKeys {
                kind: self.kind(),
                keys: missing,
            });
        }
        check_name(&self.name).map_err(|why| DocumentError::BadName {
            name: self.name.clone(),
            why,
        })?;
        let mut lists = vec![("triggers", &self.triggers), ("tags", &self.tags)];
        if let Some(p) = &self.protocol {
            lists.extend([
                ("preconditions", &p.preconditions),
                ("steps", &p.steps),
                ("post_checks", &p.post_checks),
            ]);
        }
        for (key, items) in lists {
            if let Some(i) = items.iter().position(|s| s.trim().is_empty()) {
                return Err(DocumentError::EmptyItem { key, item: i + 1 });
            }
        }
        if self.protocol.is_none() && self.body.trim().is_empty() {
            return Err(DocumentError::EmptyBody);
        }
        if let Some(key) = KNOWN_KEYS.iter().find(|k| self.extra.contains_key(**k)) {
            return Err(DocumentError::FrontMatter(FrontMatterError::DuplicateKey {
                key: (*key).to_string(),
            }));
        }
        Ok(())
    }

    /// The document as markdown with front matter: known keys first in the format's order
    /// (empty optional ones left out), then the extra keys. Parsing it gives back an equal
    /// document.
    pub fn render(&self) -> String {
        let mut fields: Vec<(&str, Value)> = vec![
            ("kind", self.kind().as_str().into()),
            ("name", self.name.clone().into()),
        ];
        if !self.description.is_empty() {
            fields.push(("description", self.description.clone().into()));
        }
        fields.push(("area", self.area.as_str().into()));
        let lists = |fields: &mut Vec<(&str, Value)>, key, items: &Vec<String>| {
            if !items.is_empty() {
                fields.push((key, items.clone().into()));
            }
        };
        lists(&mut fields, "triggers", &self.triggers);
        lists(&mut fields, "tags", &self.tags);
        if let Some(p) = &self.protocol {
            lists(&mut fields, "preconditions", &p.preconditions);
            fields.push(("steps", p.steps.clone().into()));
            fields.push(("post_checks", p.post_checks.clone().into()));
            fields.push(("on_deviation", p.on_deviation.clone().into()));
            fields.push(("on_blocked", p.on_blocked.clone().into()));
            fields.push(("on_already_done", p.on_already_done.clone().into()));
        }
        let front = FrontMatter {
            known: &fields,
            extra: &self.extra,
        };
        // JSON is YAML too: the fallback if the YAML emitter ever refused.
        let yaml = serde_norway::to_string(&front)
            .or_else(|_| serde_json::to_string_pretty(&front).map(|j| j + "\n"))
            .unwrap_or_default();
        let mut out = format!("---\n{yaml}---\n");
        if !self.body.is_empty() {
            out.push('\n');
            out.push_str(&self.body);
            out.push('\n');
        }
        out
    }

    /// What the model reads when it loads the entry. A skill: its name, description and
    /// instructions. A protocol: name and description, then the preconditions, the numbered
    /// steps, the post-checks, the three escape hatches and the context. `labels` word the
    /// headings (the host's message texts supplies them in the session's language).
    pub fn render_compact(&self, labels: &CompactLabels<'_>) -> String {
        let mut out = self.name.clone();
        if !self.description.is_empty() {
            out.push_str(" — ");
            out.push_str(&self.description);
        }
        out.push('\n');
        let Some(p) = &self.protocol else {
            out.push_str(&self.body);
            return out;
        };
        let list = |out: &mut String, label: &str, items: &[String], numbered: bool| {
            if items.is_empty() {
                return;
            }
            out.push_str(label);
            out.push_str(":\n");
            for (i, item) in items.iter().enumerate() {
                if numbered {
                    out.push_str(&format!("{}. {}\n", i + 1, fold(item)));
                } else {
                    out.push_str(&format!("- {}\n", fold(item)));
                }
            }
        };
        list(&mut out, labels.preconditions, &p.preconditions, false);
        list(&mut out, labels.steps, &p.steps, true);
        list(&mut out, labels.post_checks, &p.post_checks, false);
        for (label, text) in [
            (labels.on_deviation, &p.on_deviation),
            (labels.on_blocked, &p.on_blocked),
            (labels.on_already_done, &p.on_already_done),
        ] {
            out.push_str(&format!("{label}: {}\n", fold(text)));
        }
        if !self.body.is_empty() {
            out.push_str(labels.context);
            out.push_str(":\n");
            out.push_str(&self.body);
            out.push('\n');
        }
        out.trim_end().to_string()
    }
}

/// The headings of [`Document::render_compact`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompactLabels<'a> {
    /// Before the preconditions.
    pub preconditions: &'a str,
    /// Before the numbered steps.
    pub steps: &'a str,
    /// Before the post-checks.
    pub post_checks: &'a str,
    /// Before `on_deviation`.
    pub on_deviation: &'a str,
    /// Before `on_blocked`.
    pub on_blocked: &'a str,
    /// Before `on_already_done`.
    pub on_already_done: &'a str,
    /// Before a protocol's body.
    pub context: &'a str,
}

impl CompactLabels<'static> {
    /// English headings (tests, the CLI; the agent's message texts has its own).
    pub const ENGLISH: CompactLabels<'static> = CompactLabels {
        preconditions: "Preconditions",
        steps: "Steps",
        post_checks: "Post-checks",
        on_deviation: "If the run deviates from the plan",
        on_blocked: "If it cannot be completed",
        on_already_done: "If a step's result already exists",
        context: "Context",
    };
}

/// The front matter as one ordered YAML mapping: known keys, then the extras.
struct FrontMatter<'a> {
    known: &'a [(&'a str, Value)],
    extra: &'a Map<String, Value>,
}

impl Serialize for FrontMatter<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.known.len() + self.extra.len()))?;
        for (k, v) in self.known {
            map.serialize_entry(k, v)?;
        }
        for (k, v) in self.extra {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROTOCOL: &str = "---\nkind: protocol\nname: Shutdown\ndescription: stops\n  services\narea: infrastructure\ntags: [power]\ntriggers: [switch off]\npreconditions: [warned]\nsteps: [stop apps, stop databases]\npost_checks: [no units]\non_deviation: stop and report\non_blocked: say what blocked\non_already_done: check and mark\nowner_team: ops\n---\n\nContext here.\n";

    #[test]
    fn a_protocol_parses_into_typed_fields() {
        let d = Document::parse(PROTOCOL).expect("valid protocol");
        assert_eq!(d.kind(), Kind::Protocol);
        assert_eq!(d.name, "Shutdown");
        assert_eq!(d.description, "stops services");
        assert_eq!(d.area, Area::Infrastructure);
        let p = d.protocol.as_ref().expect("protocol fields");
        assert_eq!(p.steps, ["stop apps", "stop databases"]);
        assert_eq!(p.preconditions, ["warned"]);
        assert_eq!(d.body, "Context here.");
        assert_eq!(d.extra.get("owner_team"), Some(&Value::from("ops")));
    }

    #[test]
    fn no_kind_means_skill_and_general() {
        let d = Document::parse("---\nname: notes\n---\nDo it.").expect("valid skill");
        assert_eq!(d.kind(), Kind::Skill);
        assert_eq!(d.area, Area::General);
        assert!(d.description.is_empty());
    }

    #[test]
    fn render_parses_back_equal() {
        let d = Document::parse(PROTOCOL).expect("valid");
        let again = Document::parse(&d.render()).expect("rendering parses");
        assert_eq!(again, d);
    }

    #[test]
    fn crlf_and_bom_are_normalised_and_hash_alike() {
        let lf = "---\nname: a\n---\nbody\n";
        let crlf = "\u{feff}---\r\nname: a\r\n---\r\nbody\r\n";
        assert_eq!(Document::parse(crlf), Document::parse(lf));
        assert_eq!(content_hash(crlf), content_hash(lf));
        assert_eq!(content_hash(lf).len(), 64);
    }

    #[test]
    fn compact_protocol_rendering_has_every_part() {
        let d = Document::parse(PROTOCOL).expect("valid");
        let text = d.render_compact(&CompactLabels::ENGLISH);
        assert_eq!(
            text,
            "Shutdown — stops services\nPreconditions:\n- warned\nSteps:\n1. stop apps\n2. stop databases\nPost-checks:\n- no units\nIf the run deviates from the plan: stop and report\nIf it cannot be completed: say what blocked\nIf a step's result already exists: check and mark\nContext:\nContext here."
        );
    }
}
