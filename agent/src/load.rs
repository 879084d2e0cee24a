//! Loading source folders, shared by skills and toolsets: the folder walk, reading files as
//! text, per-folder duplicate names and override reports, all as [`Diagnostic`]s.

use std::collections::HashMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use porfiry_frontmatter::FrontMatterError;

use crate::diag::{Diagnostic, Problem};

/// The entries of a folder whose names do not start with `.`, sorted.
pub(crate) fn visible_entries(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| !n.starts_with('.'))
        })
        .collect();
    entries.sort();
    Ok(entries)
}

/// Whether `path` ends with one of `extensions` (ASCII case ignored).
pub(crate) fn has_extension(path: &Path, extensions: &[&str]) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| extensions.iter().any(|x| e.eq_ignore_ascii_case(x)))
}

/// Largest skill or toolset file the loader reads: the document limit of the front matter
/// format (the catalog's too). A bigger file is a [`Problem::TooLarge`] diagnostic, decided
/// by its size before it is read.
pub const MAX_FILE_BYTES: u64 = porfiry_frontmatter::MAX_DOCUMENT_BYTES as u64;

/// Most flow collections (`[`, `{`, counted as characters, quoted or not) a skill's front
/// matter, a toolset or a scenario may open before its YAML is parsed: the front matter
/// format's limit (the catalog's too), which says why.
pub use porfiry_frontmatter::MAX_FLOW_OPENINGS;

/// Refuses YAML with more than [`MAX_FLOW_OPENINGS`] flow openings.
pub(crate) fn check_flow(yaml: &str) -> Result<(), Problem> {
    porfiry_frontmatter::check_flow(yaml).map_err(front_matter_problem)
}

/// A refusal of the front matter format as a load problem: each as the problem of the same
/// name; the bounds of the YAML reading (values, depth, what JSON cannot hold, a key twice)
/// as YAML errors.
pub(crate) fn front_matter_problem(e: FrontMatterError) -> Problem {
    match e {
        FrontMatterError::TooLarge { bytes, limit } => Problem::TooLarge {
            bytes: bytes as u64,
            limit: limit as u64,
        },
        FrontMatterError::NoFrontMatter => Problem::NoFrontMatter,
        FrontMatterError::UnclosedFrontMatter => Problem::UnclosedFrontMatter,
        FrontMatterError::Yaml { line, message } => Problem::Yaml { line, message },
        FrontMatterError::TooManyBrackets { limit } => Problem::TooManyBrackets { limit },
        FrontMatterError::NotAMapping => Problem::NotAMapping,
        other @ (FrontMatterError::TooManyNodes { .. }
        | FrontMatterError::TooDeep { .. }
        | FrontMatterError::Unsupported { .. }
        | FrontMatterError::DuplicateKey { .. }) => Problem::Yaml {
            line: None,
            message: other.to_string(),
        },
    }
}

/// A file's contents as UTF-8 text: only a regular file (a FIFO would block, a device
/// never end), at most [`MAX_FILE_BYTES`] read.
fn read_text(path: &Path) -> Result<String, Problem> {
    use std::io::Read as _;
    let io = |e: io::Error| Problem::Io(e.to_string());
    let meta = fs::metadata(path).map_err(io)?;
    if !meta.is_file() {
        return Err(if meta.is_dir() {
            Problem::Io("is a folder".into())
        } else {
            Problem::NotAFile
        });
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(Problem::TooLarge {
            bytes: meta.len(),
            limit: MAX_FILE_BYTES,
        });
    }
    let mut bytes = Vec::new();
    fs::File::open(path)
        .and_then(|f| f.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes))
        .map_err(io)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        // It grew between the size check and the read.
        return Err(Problem::TooLarge {
            bytes: bytes.len() as u64,
            limit: MAX_FILE_BYTES,
        });
    }
    String::from_utf8(bytes).map_err(|_| Problem::Io("not UTF-8".into()))
}

/// One file's item and its warnings, or the error that drops it.
pub(crate) type Parsed<T> = Result<(T, Vec<Problem>), Problem>;

/// How one kind of item is found in a folder and read from a file.
pub(crate) struct ItemFormat<T> {
    /// The item files of a folder, in load order.
    pub(crate) files: fn(&Path) -> io::Result<Vec<PathBuf>>,
    /// One file's text → the item and its warnings, or the error that drops it.
    pub(crate) parse: fn(&str, &Path) -> Parsed<T>,
    /// The item's name as written, and the key two items of one folder must not share.
    pub(crate) name: fn(&T) -> (String, String),
}

/// Loads one folder: every file is read and parsed; unreadable folders and files, parse
/// errors and warnings become diagnostics; a second item whose key was already seen in this
/// folder is skipped with [`Problem::DuplicateName`]. Each accepted item goes to `accept`
/// with its file, in file order.
pub(crate) fn load_folder<T>(
    dir: &Path,
    format: &ItemFormat<T>,
    diagnostics: &mut Vec<Diagnostic>,
    mut accept: impl FnMut(T, &Path, &mut Vec<Diagnostic>),
) {
    let files = match (format.files)(dir) {
        Ok(f) => f,
        Err(e) => {
            diagnostics.push(Diagnostic::new(dir, Problem::Io(e.to_string())));
            return;
        }
    };
    let mut seen: HashMap<String, PathBuf> = HashMap::new();
    for path in files {
        let parsed = read_text(&path).and_then(|text| (format.parse)(&text, &path));
        let (item, warnings) = match parsed {
            Ok(p) => p,
            Err(problem) => {
                diagnostics.push(Diagnostic::new(&path, problem));
                continue;
            }
        };
        for w in warnings {
            diagnostics.push(Diagnostic::new(&path, w));
        }
        let (name, key) = (format.name)(&item);
        if let Some(first) = seen.get(&key) {
            let first = first.clone();
            diagnostics.push(Diagnostic::new(
                &path,
                Problem::DuplicateName { name, first },
            ));
            continue;
        }
        seen.insert(key, path.clone());
        accept(item, &path, diagnostics);
    }
}

/// Reports on `path` that it replaced `previous` (name, file) of an earlier source, if any.
pub(crate) fn report_override(
    diagnostics: &mut Vec<Diagnostic>,
    path: &Path,
    previous: Option<(String, PathBuf)>,
) {
    if let Some((name, previous)) = previous {
        diagnostics.push(Diagnostic::new(path, Problem::Overrides { name, previous }));
    }
}

/// Puts `item` into `items` (kept sorted by `key`), replacing the item with an equal key;
/// returns the replaced one. How the registries add skills and toolsets.
pub(crate) fn insert_sorted<T, K: Ord>(
    items: &mut Vec<T>,
    item: T,
    key: impl Fn(&T) -> K,
) -> Option<T> {
    let k = key(&item);
    match items.binary_search_by(|x| key(x).cmp(&k)) {
        Ok(i) => Some(std::mem::replace(&mut items[i], item)),
        Err(i) => {
            items.insert(i, item);
            None
        }
    }
}

/// A fresh, empty folder under the system's temporary folder, unique per test process.
#[cfg(test)]
pub(crate) fn fresh_temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("porfiry-{tag}-{}", std::process::id()));
    fs::remove_dir_all(&d).ok();
    fs::create_dir_all(&d).expect("a writable temporary folder");
    d
}
