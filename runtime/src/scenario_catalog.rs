//! The runtime's catalog for scripted scenarios ([`scenario_catalog`]): a scenario with
//! `catalog:` runs over a fresh, temporary catalog with the `skills` and `protocol` toolsets
//! and the run hook, wired as [`crate::Runtime::open`] wires them for a host with a catalog.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use porfiry_agent::scenario::{
    CatalogFactory, DecideAction, ProposalCounts, ScenarioCatalog, Wrap,
};
use porfiry_agent::{Agent, ExecutorTarget, Lang};
use porfiry_catalog::{Catalog, ProposalId, ProposalStatus};

use crate::catalog_tools::CatalogExecutor;
use crate::protocol_tools::{CatalogRunHook, ProtocolExecutor};
use crate::shared_catalog::{lock, skills_toolset_dir, SharedCatalog};

/// Who decides proposals in scenarios (the user, as `porfiry catalog accept` names them).
pub const SCENARIO_DECIDER: &str = "user";

/// Opens a fresh temporary catalog per scenario: the `catalog:` documents (folders, or
/// single files) imported as shared entries, the catalog's toolsets declared, their
/// executors and the run hook attached. The folder is removed with the scenario.
pub fn scenario_catalog() -> CatalogFactory {
    CatalogFactory(Arc::new(|docs, lang| {
        let tmp = TempDir::new().map_err(|e| format!("a temporary folder: {e}"))?;
        let files = tmp.0.join("files");
        let mut dirs: Vec<PathBuf> = Vec::new();
        for doc in docs {
            if doc.is_file() {
                std::fs::create_dir_all(&files).map_err(|e| e.to_string())?;
                let name = doc.file_name().unwrap_or_default();
                std::fs::copy(doc, files.join(name))
                    .map_err(|e| format!("{}: {e}", doc.display()))?;
                if !dirs.contains(&files) {
                    dirs.push(files.clone());
                }
            } else {
                dirs.push(doc.clone());
            }
        }
        let mut catalog = Catalog::open(tmp.0.join("catalog.sqlite")).map_err(|e| e.to_string())?;
        let report = catalog.import_shared(&dirs).map_err(|e| e.to_string())?;
        if let Some(p) = report.problems.first() {
            return Err(format!("{}: {}", p.path.display(), p.error));
        }
        let toolsets = skills_toolset_dir(&tmp.0).map_err(|e| e.to_string())?;
        Ok(Box::new(TempCatalog {
            catalog: Arc::new(Mutex::new(catalog)),
            toolsets,
            lang,
            _tmp: tmp,
        }) as Box<dyn ScenarioCatalog>)
    }))
}

/// A folder removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> std::io::Result<TempDir> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let dir = std::env::temp_dir().join(format!(
            "porfiry-scenario-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir)?;
        Ok(TempDir(dir))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

struct TempCatalog {
    catalog: SharedCatalog,
    toolsets: PathBuf,
    lang: Lang,
    _tmp: TempDir,
}

impl TempCatalog {
    fn proposal(&self, catalog: &Catalog, which: &str) -> Result<ProposalId, String> {
        if which.trim() == "last" {
            let all = catalog.proposals(None).map_err(|e| e.to_string())?;
            return all
                .first()
                .map(|p| p.id)
                .ok_or_else(|| "there is no proposal".to_string());
        }
        ProposalId::parse(which).ok_or_else(|| format!("{which:?} is not a proposal id (#N)"))
    }
}

impl ScenarioCatalog for TempCatalog {
    fn toolset_dirs(&self) -> Vec<PathBuf> {
        vec![self.toolsets.clone()]
    }

    fn attach(&self, agent: &mut Agent, wrap: Wrap<'_>) {
        let (catalog, lang) = (self.catalog.clone(), self.lang);
        agent.register_executor(
            ExecutorTarget::Toolset("skills".into()),
            wrap(Arc::new(CatalogExecutor::shared(catalog.clone(), lang))),
        );
        agent.register_executor(
            ExecutorTarget::Toolset("protocol".into()),
            wrap(Arc::new(ProtocolExecutor::new(catalog.clone(), lang))),
        );
        agent.set_host_hook(Some(Arc::new(CatalogRunHook::new(catalog, lang))));
    }

    fn decide(&self, which: &str, action: DecideAction) -> Result<(), String> {
        let mut catalog = lock(&self.catalog);
        let id = self.proposal(&catalog, which)?;
        match action {
            DecideAction::Accept => catalog
                .accept_proposal(id, SCENARIO_DECIDER)
                .map(drop)
                .map_err(|e| e.to_string()),
            DecideAction::Reject => catalog
                .reject_proposal(id, SCENARIO_DECIDER, "")
                .map(drop)
                .map_err(|e| e.to_string()),
        }
    }

    fn run(&self, session: &str) -> Option<(String, usize)> {
        let runs = lock(&self.catalog).runs(Some(session)).ok()?;
        runs.first()
            .map(|r| (r.status.to_string(), r.open_steps().len()))
    }

    fn proposals(&self) -> ProposalCounts {
        let all = lock(&self.catalog).proposals(None).unwrap_or_default();
        let count = |s: ProposalStatus| all.iter().filter(|p| p.status == s).count();
        ProposalCounts {
            pending: count(ProposalStatus::Pending),
            accepted: count(ProposalStatus::Accepted),
            rejected: count(ProposalStatus::Rejected),
            error: all
                .iter()
                .find(|p| p.status == ProposalStatus::Pending)
                .and_then(|p| p.error.clone()),
        }
    }
}
