//! [`FrontMatterError`]: why a document's front matter was refused.

/// Why a document's front matter was refused. The `Display` text can be shown verbatim.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrontMatterError {
    /// The document is bigger than [`MAX_DOCUMENT_BYTES`](crate::MAX_DOCUMENT_BYTES).
    #[error("the document is {bytes} bytes, more than the limit of {limit} bytes")]
    TooLarge {
        /// Its size.
        bytes: usize,
        /// The limit.
        limit: usize,
    },
    /// The first line is not `---`.
    #[error("the document does not start with a `---` front matter line")]
    NoFrontMatter,
    /// No closing `---` line after the front matter.
    #[error("the front matter is not closed by a `---` line")]
    UnclosedFrontMatter,
    /// The front matter is not valid YAML.
    #[error("front matter YAML{}: {message}", line.map(|l| format!(" (line {l})")).unwrap_or_default())]
    Yaml {
        /// The line in the document, when the parser knows it.
        line: Option<usize>,
        /// The parser's message.
        message: String,
    },
    /// The front matter holds more YAML values than
    /// [`MAX_YAML_NODES`](crate::MAX_YAML_NODES) (after expanding aliases: this is what
    /// stops alias bombs).
    #[error("the front matter has more than {limit} YAML values (aliases counted expanded)")]
    TooManyNodes {
        /// The limit.
        limit: usize,
    },
    /// The front matter nests deeper than [`MAX_YAML_DEPTH`](crate::MAX_YAML_DEPTH).
    #[error("the front matter nests deeper than {limit} levels")]
    TooDeep {
        /// The limit.
        limit: usize,
    },
    /// The YAML holds more than [`MAX_FLOW_OPENINGS`](crate::MAX_FLOW_OPENINGS) `[` and `{`
    /// characters (flow collections cost the YAML parser time by their nesting).
    #[error("the front matter has more than {limit} `[` and `{{` characters; write long lists as `- item` lines")]
    TooManyBrackets {
        /// The limit.
        limit: usize,
    },
    /// The front matter is YAML but not a mapping of keys to values.
    #[error("the front matter is not a mapping of keys to values")]
    NotAMapping,
    /// The front matter holds a value JSON cannot hold with the same meaning.
    #[error("front matter: {what} is not supported")]
    Unsupported {
        /// What it was: "a YAML tag", "a key that is not text", "a number that is not finite"…
        what: &'static str,
    },
    /// The same key twice in one mapping.
    #[error("front matter: the key `{key}` appears twice")]
    DuplicateKey {
        /// The key.
        key: String,
    },
}
