//! The front matter block split from the body.

use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::error::FrontMatterError;
use crate::yaml::read_yaml;

/// The largest document accepted, in bytes (UTF-8, before line endings are normalised).
pub const MAX_DOCUMENT_BYTES: usize = 256 * 1024;

/// Line endings normalised to `\n`, a leading byte-order mark dropped: the form a document
/// is split, parsed (and, in the catalog, stored and hashed) in.
pub fn normalize(text: &str) -> Cow<'_, str> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.contains('\r') {
        Cow::Owned(text.replace("\r\n", "\n").replace('\r', "\n"))
    } else {
        Cow::Borrowed(text)
    }
}

/// A [`normalize`]d document cut in two ([`split`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrontMatter<'a> {
    /// The front matter with its opening `---` line (so the YAML parser's line numbers are
    /// the document's), without the closing one.
    pub yaml: &'a str,
    /// Everything after the closing `---` line, as written.
    pub body: &'a str,
}

/// Cuts a [`normalize`]d document at its front matter: the first line must be `---`, the
/// block ends at the next line that is `---` (trailing spaces allowed on both).
///
/// # Errors
/// [`FrontMatterError::NoFrontMatter`], [`FrontMatterError::UnclosedFrontMatter`].
pub fn split(text: &str) -> Result<FrontMatter<'_>, FrontMatterError> {
    let start = match text.split_once('\n') {
        Some((first, _)) if first.trim_end() == "---" => first.len() + 1,
        None if text.trim_end() == "---" => return Err(FrontMatterError::UnclosedFrontMatter),
        _ => return Err(FrontMatterError::NoFrontMatter),
    };
    let mut offset = start;
    for line in text[start..].split_inclusive('\n') {
        if line.trim_end() == "---" {
            return Ok(FrontMatter {
                yaml: &text[..offset],
                body: &text[offset + line.len()..],
            });
        }
        offset += line.len();
    }
    Err(FrontMatterError::UnclosedFrontMatter)
}

/// A document read by [`parse`].
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    /// The front matter's keys and values (empty for an empty front matter).
    pub fields: Map<String, Value>,
    /// Everything after the closing `---` line, [`normalize`]d, otherwise as written.
    pub body: String,
}

/// Reads a document: the size checked first, then [`normalize`], [`split`] and
/// [`read_yaml`]; the front matter must be a mapping (or empty).
///
/// # Errors
/// Every [`FrontMatterError`] but the ones of names.
pub fn parse(text: &str) -> Result<Parsed, FrontMatterError> {
    if text.len() > MAX_DOCUMENT_BYTES {
        return Err(FrontMatterError::TooLarge {
            bytes: text.len(),
            limit: MAX_DOCUMENT_BYTES,
        });
    }
    let text = normalize(text);
    let parts = split(&text)?;
    let fields = match read_yaml(parts.yaml)? {
        Value::Null => Map::new(),
        Value::Object(map) => map,
        _ => return Err(FrontMatterError::NotAMapping),
    };
    Ok(Parsed {
        fields,
        body: parts.body.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_block_ends_at_the_first_dash_line() {
        // (document, yaml, body)
        let table: &[(&str, &str, &str)] = &[
            ("---\nname: a\n---\nbody\n", "---\nname: a\n", "body\n"),
            ("---  \nname: a\n---  \nb", "---  \nname: a\n", "b"),
            ("---\n---\n", "---\n", ""),
            (
                "---\na: 1\n---\nintro\n---\nmore",
                "---\na: 1\n",
                "intro\n---\nmore",
            ),
            ("---\na: 1\n---", "---\na: 1\n", ""),
        ];
        for (text, yaml, body) in table {
            let parts = split(text).unwrap_or_else(|e| panic!("{text:?}: {e}"));
            assert_eq!((parts.yaml, parts.body), (*yaml, *body), "{text:?}");
        }
    }

    #[test]
    fn a_missing_or_unclosed_block_is_refused() {
        let table: &[(&str, FrontMatterError)] = &[
            ("", FrontMatterError::NoFrontMatter),
            ("body\n---\n", FrontMatterError::NoFrontMatter),
            (" ---\na: 1\n---\n", FrontMatterError::NoFrontMatter),
            ("---", FrontMatterError::UnclosedFrontMatter),
            ("---\n", FrontMatterError::UnclosedFrontMatter),
            ("---\na: 1\nbody", FrontMatterError::UnclosedFrontMatter),
        ];
        for (text, want) in table {
            assert_eq!(split(text).as_ref().err(), Some(want), "{text:?}");
        }
    }

    #[test]
    fn parse_normalises_and_reads_a_mapping() {
        let crlf = parse("\u{feff}---\r\nname: a\r\n---\r\nbody\r\n").expect("valid");
        assert_eq!(crlf, parse("---\nname: a\n---\nbody\n").expect("valid"));
        assert_eq!(crlf.body, "body\n");
        assert_eq!(crlf.fields["name"], "a");
        assert!(parse("---\n---\nb").expect("empty").fields.is_empty());
        assert_eq!(
            parse("---\n- a\n---\nb"),
            Err(FrontMatterError::NotAMapping)
        );
        assert_eq!(
            parse("---\nplain\n---\nb"),
            Err(FrontMatterError::NotAMapping)
        );
    }

    #[test]
    fn a_document_over_the_limit_is_refused_before_reading() {
        let big = format!("---\nname: a\n---\n{}", "x".repeat(MAX_DOCUMENT_BYTES));
        assert_eq!(
            parse(&big),
            Err(FrontMatterError::TooLarge {
                bytes: big.len(),
                limit: MAX_DOCUMENT_BYTES
            })
        );
    }
}
