//! Load diagnostics: what was wrong with a skill or toolset file, and where.
//!
//! Loading never stops at a bad file: it returns what did load plus a list of
//! [`Diagnostic`]s, so one malformed file never hides the others.

use std::fmt;
use std::path::PathBuf;

/// How bad a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// The file loaded, but something should be fixed (a long description, an override).
    Warning,
    /// The file (or the item in it) was not loaded.
    Error,
}

/// What is wrong. Closed, so callers can match; [`fmt::Display`] gives the reason text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// The file or folder could not be read.
    Io(String),
    /// The file does not start with a `---` front matter line.
    NoFrontMatter,
    /// The front matter has no closing `---` line.
    UnclosedFrontMatter,
    /// The YAML did not parse; `line` is the 1-based line in the file when known.
    Yaml {
        /// Line in the file, 1-based.
        line: Option<usize>,
        /// The parser's message.
        message: String,
    },
    /// The YAML is not a mapping of keys to values.
    NotAMapping,
    /// A required field is absent or empty.
    MissingField(&'static str),
    /// A field that must be text is something else (a list, a number, ...).
    NotText(&'static str),
    /// A name breaks the naming rules.
    BadName {
        /// The name as written.
        name: String,
        /// Which rule.
        why: &'static str,
    },
    /// Two files of one source declare the same name; this one was skipped.
    DuplicateName {
        /// The name.
        name: String,
        /// The file that declared it first (and was kept).
        first: PathBuf,
    },
    /// A skill without instructions.
    EmptyBody,
    /// A description longer than the limit (it bloats the prompt).
    LongDescription {
        /// Its length in characters.
        chars: usize,
        /// The limit.
        limit: usize,
    },
    /// This file replaces an item of the same name from an earlier source.
    Overrides {
        /// The name.
        name: String,
        /// The file that was replaced.
        previous: PathBuf,
    },
    /// The file is larger than the loader reads ([`MAX_FILE_BYTES`]); it was not read.
    ///
    /// [`MAX_FILE_BYTES`]: crate::MAX_FILE_BYTES
    TooLarge {
        /// Its size in bytes.
        bytes: u64,
        /// The limit.
        limit: u64,
    },
    /// The path is not a regular file (a FIFO, a device, a socket): it was not opened.
    NotAFile,
    /// The YAML opens more flow collections (`[`, `{`) than the loader parses
    /// ([`MAX_FLOW_OPENINGS`]): the YAML scanner's time grows with tokens × their nesting.
    ///
    /// [`MAX_FLOW_OPENINGS`]: crate::MAX_FLOW_OPENINGS
    TooManyBrackets {
        /// The limit.
        limit: usize,
    },
    /// A toolset without tools.
    NoTools,
    /// A field of the file that is present but malformed.
    BadField {
        /// The field's name.
        field: &'static str,
        /// What is wrong with it.
        why: String,
    },
    /// A toolset declaration problem about one tool or argument.
    BadTool {
        /// The tool's name as written.
        tool: String,
        /// What is wrong with it.
        why: String,
    },
}

impl Problem {
    /// Errors drop the file (or item); warnings keep it.
    pub fn severity(&self) -> Severity {
        match self {
            Problem::LongDescription { .. } | Problem::Overrides { .. } => Severity::Warning,
            _ => Severity::Error,
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Io(e) => write!(f, "cannot read: {e}"),
            Problem::NoFrontMatter => f.write_str("no front matter (the file must start with ---)"),
            Problem::UnclosedFrontMatter => {
                f.write_str("unclosed front matter (no closing --- line)")
            }
            Problem::Yaml {
                line: Some(l),
                message,
            } => write!(f, "YAML error at line {l}: {message}"),
            Problem::Yaml {
                line: None,
                message,
            } => write!(f, "YAML error: {message}"),
            Problem::NotAMapping => f.write_str("front matter is not a mapping of keys to values"),
            Problem::MissingField(k) => write!(f, "missing {k}"),
            Problem::NotText(k) => write!(f, "{k} must be text"),
            Problem::BadName { name, why } => write!(f, "bad name {name:?}: {why}"),
            Problem::DuplicateName { name, first } => write!(
                f,
                "duplicate name {name:?} (already in {}); skipped",
                first.display()
            ),
            Problem::EmptyBody => f.write_str("empty body"),
            Problem::LongDescription { chars, limit } => write!(
                f,
                "description is {chars} characters (over {limit}; it bloats the prompt)"
            ),
            Problem::Overrides { name, previous } => {
                write!(f, "overrides {name:?} from {}", previous.display())
            }
            Problem::TooLarge { bytes, limit } => {
                write!(f, "file too large ({bytes} bytes, over {limit}); not read")
            }
            Problem::NotAFile => f.write_str("not a regular file; not read"),
            Problem::TooManyBrackets { limit } => write!(
                f,
                "YAML error: more than {limit} flow collections ([ or {{); not parsed"
            ),
            Problem::NoTools => f.write_str("no tools"),
            Problem::BadField { field, why } => write!(f, "{field}: {why}"),
            Problem::BadTool { tool, why } => write!(f, "tool {tool:?}: {why}"),
        }
    }
}

/// One finding about one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// The file (or folder) concerned.
    pub path: PathBuf,
    /// What is wrong.
    pub problem: Problem,
}

impl Diagnostic {
    /// A diagnostic for `path`.
    pub fn new(path: impl Into<PathBuf>, problem: Problem) -> Self {
        Diagnostic {
            path: path.into(),
            problem,
        }
    }
    /// The problem's severity.
    pub fn severity(&self) -> Severity {
        self.problem.severity()
    }
}

/// `warning <path>: <reason>` or `error <path>: <reason>` — the CLI's line format.
impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let level = match self.severity() {
            Severity::Warning => "warning",
            Severity::Error => "error",
        };
        write!(f, "{level} {}: {}", self.path.display(), self.problem)
    }
}

/// What a load produced: the registry of everything valid plus the diagnostics.
#[derive(Debug, Clone)]
pub struct Loaded<T> {
    /// Everything that loaded.
    pub value: T,
    /// Problems found, in file order.
    pub diagnostics: Vec<Diagnostic>,
}

impl<T> Loaded<T> {
    /// Whether any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity() == Severity::Error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_lines() {
        let table = [
            (
                Diagnostic::new("s/a.md", Problem::EmptyBody),
                "error s/a.md: empty body",
            ),
            (
                Diagnostic::new(
                    "s/b.md",
                    Problem::LongDescription {
                        chars: 200,
                        limit: 160,
                    },
                ),
                "warning s/b.md: description is 200 characters (over 160; it bloats the prompt)",
            ),
            (
                Diagnostic::new(
                    "s/c.md",
                    Problem::Yaml {
                        line: Some(3),
                        message: "bad".into(),
                    },
                ),
                "error s/c.md: YAML error at line 3: bad",
            ),
        ];
        for (d, want) in table {
            assert_eq!(d.to_string(), want);
        }
    }
}
