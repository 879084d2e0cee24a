//! The one catalog of skills and protocols (`porfiry-catalog`) behind the `skills` and
//! `protocol` toolsets: their declarations ([`SKILLS_TOOLSET`], [`PROTOCOL_TOOLSET`], written
//! out for the agent by [`skills_toolset_dir`]), how the file is opened and synced with the
//! agent's skill folders ([`open_catalog`]), and the handle their executors and the run hook
//! share ([`SharedCatalog`]).
//!
//! The executors live beside it (`catalog_tools.rs`: the `skills` tools; `protocol_tools.rs`:
//! the `protocol` tools and the run hook) and depend on this module only; `open.rs` puts
//! them together behind a runtime ([`crate::attach_catalog`]).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use porfiry_catalog::{Catalog, ImportReport};

/// The `skills` toolset's declaration (`runtime/toolsets/skills.yaml`, embedded).
pub const SKILLS_TOOLSET: &str = include_str!("../toolsets/skills.yaml");

/// The `protocol` toolset's declaration (`runtime/toolsets/protocol.yaml`, embedded).
pub const PROTOCOL_TOOLSET: &str = include_str!("../toolsets/protocol.yaml");

/// One catalog shared by the `skills` and `protocol` executors and the
/// [`crate::CatalogRunHook`].
pub type SharedCatalog = Arc<Mutex<Catalog>>;

/// Takes the catalog's lock. A panic inside a call leaves no half-written row (every write
/// is one transaction), so a poisoned lock is simply taken over.
pub(crate) fn lock(catalog: &SharedCatalog) -> MutexGuard<'_, Catalog> {
    catalog.lock().unwrap_or_else(|p| p.into_inner())
}

/// Writes [`SKILLS_TOOLSET`] as `skills.yaml` and [`PROTOCOL_TOOLSET`] as `protocol.yaml`
/// into `<data>/catalog-toolset/` (each rewritten only when it differs) and returns that
/// folder, for the agent to load the sets from.
///
/// # Errors
/// The folder or a file cannot be written.
pub fn skills_toolset_dir(data: &Path) -> std::io::Result<PathBuf> {
    let dir = data.join("catalog-toolset");
    for (name, text) in [
        ("skills.yaml", SKILLS_TOOLSET),
        ("protocol.yaml", PROTOCOL_TOOLSET),
    ] {
        let file = dir.join(name);
        if std::fs::read_to_string(&file).ok().as_deref() != Some(text) {
            std::fs::create_dir_all(&dir)?;
            let tmp = dir.join(format!("{name}.tmp-{}", std::process::id()));
            std::fs::write(&tmp, text)?;
            std::fs::rename(&tmp, &file)?;
        }
    }
    Ok(dir)
}

/// Opens (or creates) the catalog at `path` — its folder created when missing — and syncs
/// `skill_dirs` (in override order) into it as shared entries.
///
/// # Errors
/// The file cannot be created or opened (a newer schema, not a catalog…), or the sync
/// failed; the text says which file and why.
pub fn open_catalog(
    path: &Path,
    skill_dirs: &[PathBuf],
) -> Result<(Catalog, ImportReport), String> {
    let fail = |e: &dyn std::fmt::Display| format!("catalog {}: {e}", path.display());
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| fail(&e))?;
    }
    let mut catalog = Catalog::open(path).map_err(|e| fail(&e))?;
    let report = catalog.sync_shared(skill_dirs).map_err(|e| fail(&e))?;
    Ok((catalog, report))
}
