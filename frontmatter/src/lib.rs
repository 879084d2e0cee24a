//! The front matter of Porfiry's skill and protocol documents (`SKILL.md`, `*.md`): one
//! reading, shared by the agent's skill folders and the catalog's documents.
//!
//! A document is markdown that starts with a YAML block between two `---` lines:
//!
//! ```text
//! ---
//! name: media
//! description: films and series — find, learn about, play
//! ---
//! Instructions for the model...
//! ```
//!
//! [`parse`] normalises the text ([`normalize`]: a byte-order mark dropped, line endings
//! `\n`), splits the block from the body and reads the block's YAML into JSON
//! ([`read_yaml`]); each caller then types the keys it knows. [`check_name`] and
//! [`name_key`] are the format's name rules.
//!
//! ```
//! let doc = porfiry_frontmatter::parse("---\nname: tea\n---\nBoil the water first.\n")?;
//! assert_eq!(doc.fields["name"], "tea");
//! assert_eq!(doc.body, "Boil the water first.\n");
//! # Ok::<(), porfiry_frontmatter::FrontMatterError>(())
//! ```
//!
//! # Design decisions
//!
//! - **Bounded input.** A document over [`MAX_DOCUMENT_BYTES`] is refused before it is
//!   read. Its YAML is counted as it is built ([`MAX_YAML_NODES`], aliases counted
//!   expanded; [`MAX_YAML_DEPTH`]), so an alias bomb cannot exhaust memory. libyaml's
//!   scanner costs time in proportion to tokens × flow nesting (`[`, `{`): 100,000 nested
//!   `[` take minutes. Flow openings are therefore counted before parsing and capped
//!   ([`MAX_FLOW_OPENINGS`], [`check_flow`]); block lists and mappings (`- item`,
//!   `key: value` lines) are not limited that way.
//! - **Only what JSON holds with the same meaning.** Text keys, no YAML tags, finite
//!   numbers, no key twice in one mapping: anything else is refused, never changed, so a
//!   document stored as JSON renders back with its meaning.
//! - **Line numbers are the document's.** The YAML is parsed with its opening `---` line,
//!   so a parser error names the line in the file.
//! - **No workspace dependencies.** The agent and the catalog both depend on this crate and
//!   on nothing of each other.
#![deny(missing_docs)]

mod error;
mod names;
mod split;
mod yaml;

pub use error::FrontMatterError;
pub use names::{check_name, name_key, NAME_LIMIT};
pub use split::{normalize, parse, split, FrontMatter, Parsed, MAX_DOCUMENT_BYTES};
pub use yaml::{check_flow, read_yaml, MAX_FLOW_OPENINGS, MAX_YAML_DEPTH, MAX_YAML_NODES};
