//! The `skills` toolset's executor: the catalog of skills and protocols (`porfiry-catalog`)
//! for the model — `skills_search|query`, `skills_load|name`, `skills_create|document`,
//! `skills_update|name|document`, `skills_propose|document` (declared in
//! `runtime/toolsets/skills.yaml`, embedded as [`crate::SKILLS_TOOLSET`]).
//!
//! Declared and registered by [`crate::Runtime::open`] only when
//! [`crate::RuntimeConfig::catalog`] names a file (so hosts without a catalog keep their
//! prompt as it was); the agent's skill folders (built-in and the user's) are synced into it as shared
//! entries first ([`crate::open_catalog`]). The rules of docs/design.md: the agent writes skills only
//! (a protocol sent to create or update is refused, and points at propose); a protocol is
//! only ever proposed — a pending proposal the user decides (`porfiry catalog accept`), never
//! an entry search or load can see. Every reply the model reads comes from the agent's
//! message texts ([`Texts`]); a refusal carries the store's own reason. Its sibling, the
//! `protocol` toolset and the run hook, is `protocol_tools.rs`; both share one catalog
//! (`shared_catalog.rs`).

use std::sync::{Arc, Mutex};

use porfiry_agent::{Lang, Texts, ToolExecutor, ToolInvocation};
use porfiry_catalog::{
    Catalog, CatalogError, CompactLabels, Document, Kind, NewProposal, Query, Update,
};

use crate::shared_catalog::{lock, SharedCatalog};

/// The author the agent's versions and proposals name.
pub const AGENT_AUTHOR: &str = "agent";

/// The executor for the `skills_` tools over one catalog.
#[derive(Debug)]
pub struct CatalogExecutor {
    catalog: SharedCatalog,
    texts: Texts,
}

impl CatalogExecutor {
    /// The tools over `catalog`, replies in `lang`.
    pub fn new(catalog: Catalog, lang: Lang) -> Self {
        Self::shared(Arc::new(Mutex::new(catalog)), lang)
    }

    /// The tools over a catalog shared with the `protocol` executor and the run hook.
    pub fn shared(catalog: SharedCatalog, lang: Lang) -> Self {
        Self {
            catalog,
            texts: Texts::new(lang),
        }
    }

    fn refused(&self, e: impl std::fmt::Display) -> String {
        self.texts.catalog_refused(&e.to_string())
    }

    fn search(&self, catalog: &Catalog, query: &str) -> Result<String, String> {
        let hits = catalog
            .search(&Query::text(query))
            .map_err(|e| self.refused(e))?;
        if hits.is_empty() {
            return Ok(self.texts.catalog_nothing_found());
        }
        Ok(hits
            .iter()
            .map(|h| h.compact_line())
            .collect::<Vec<_>>()
            .join("\n"))
    }

    fn load(&self, catalog: &Catalog, name: &str) -> Result<String, String> {
        let entry = catalog.resolve(name, None).map_err(|e| self.refused(e))?;
        let [preconditions, steps, post_checks, on_deviation, on_blocked, on_already_done, context] =
            self.texts.catalog_headings();
        let labels = CompactLabels {
            preconditions,
            steps,
            post_checks,
            on_deviation,
            on_blocked,
            on_already_done,
            context,
        };
        Ok(entry.document.render_compact(&labels))
    }

    fn create(&self, catalog: &mut Catalog, text: &str) -> Result<String, String> {
        let doc = Document::parse(text).map_err(|e| self.refused(e))?;
        if doc.kind() == Kind::Protocol {
            return Err(self.texts.catalog_protocol_via_create(&doc.name));
        }
        let entry = catalog
            .create(text, AGENT_AUTHOR, "")
            .map_err(|e| self.refused(e))?;
        Ok(self
            .texts
            .catalog_skill_created(&entry.name, &entry.id.to_string()))
    }

    fn update(&self, catalog: &mut Catalog, name: &str, text: &str) -> Result<String, String> {
        let doc = Document::parse(text).map_err(|e| self.refused(e))?;
        if doc.kind() == Kind::Protocol {
            return Err(self.texts.catalog_protocol_via_update(&doc.name));
        }
        let target = match catalog.resolve(name, Some(Kind::Skill)) {
            Ok(entry) => entry,
            Err(e @ CatalogError::NoName { .. }) => {
                return Err(match catalog.resolve(name, Some(Kind::Protocol)) {
                    Ok(protocol) => self
                        .texts
                        .catalog_protocol_via_update(&protocol.document.name),
                    Err(_) => self.refused(e),
                })
            }
            Err(e) => return Err(self.refused(e)),
        };
        match catalog
            .update(target.id, text, AGENT_AUTHOR, "")
            .map_err(|e| self.refused(e))?
        {
            Update::Changed(e) => Ok(self.texts.catalog_skill_updated(&e.name, e.version)),
            Update::Unchanged(e) => Ok(self.texts.catalog_skill_unchanged(&e.name)),
        }
    }

    fn propose(&self, catalog: &mut Catalog, session: &str, text: &str) -> Result<String, String> {
        let doc = Document::parse(text).map_err(|e| self.refused(e))?;
        let Some(protocol) = doc.protocol.as_ref() else {
            return Err(self.texts.catalog_skill_proposed(&doc.name));
        };
        // A protocol of the same name (the personal one shadowing a shared one) is replaced.
        let replaces = catalog
            .find(&doc.name, Some(Kind::Protocol))
            .ok()
            .map(|e| e.id);
        let proposal = catalog
            .propose(NewProposal {
                session,
                content: text,
                replaces,
                author: AGENT_AUTHOR,
                reason: "",
            })
            .map_err(|e| self.refused(e))?;
        let (id, steps) = (proposal.id.to_string(), protocol.steps.len());
        Ok(match replaces {
            Some(entry) => self.texts.catalog_proposed_replacing(
                &id,
                &proposal.name,
                &entry.to_string(),
                steps,
            ),
            None => self.texts.catalog_proposed(&id, &proposal.name, steps),
        })
    }
}

/// A document as the model wrote it on one `TOOL_CALL:` line: with no line break in it,
/// each written `\n` is one (a JSON argument carries real ones).
fn document_text(written: &str) -> String {
    if written.contains('\n') {
        written.to_string()
    } else {
        written.replace("\\n", "\n")
    }
}

impl ToolExecutor for CatalogExecutor {
    fn execute(&self, call: &ToolInvocation<'_>) -> Result<String, String> {
        let mut catalog = lock(&self.catalog);
        let arg = |name: &str| call.args.str(name).unwrap_or_default();
        match call.tool {
            "skills_search" => self.search(&catalog, arg("query")),
            "skills_load" => self.load(&catalog, arg("name")),
            "skills_create" => self.create(&mut catalog, &document_text(arg("document"))),
            "skills_update" => {
                self.update(&mut catalog, arg("name"), &document_text(arg("document")))
            }
            "skills_propose" => {
                self.propose(&mut catalog, call.session, &document_text(arg("document")))
            }
            other => Err(self.texts.catalog_unknown_tool(other)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;
    use std::sync::Arc;
    use std::time::Duration;

    use porfiry_agent::{
        Agent, AgentConfig, ArgDecl, ArgType, ArgValue, Args, CancelToken, ExecutorTarget,
        ManualClock, RawArgs, ScriptedModel,
    };
    use porfiry_catalog::ProposalStatus;

    use crate::shared_catalog::{open_catalog, skills_toolset_dir};
    use crate::{Backend, Runtime};

    const TEA: &str = "---\nname: tea\ndescription: how to brew tea\ntags: [kitchen]\n---\nWarm the pot, then pour.\n";

    fn protocol(name: &str) -> String {
        format!(
            "---\nkind: protocol\nname: {name}\ndescription: the {name} protocol\nsteps: [stop the apps, sync the disks]\npost_checks: [nothing runs]\non_deviation: stop and report\non_blocked: say what blocked it\non_already_done: check and mark the step\n---\nContext of {name}.\n"
        )
    }

    struct Fixture {
        dir: tempfile::TempDir,
        exec: CatalogExecutor,
    }

    fn fixture(lang: Lang) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let shared = dir.path().join("shared");
        std::fs::create_dir_all(&shared).unwrap();
        std::fs::write(shared.join("shutdown.md"), protocol("Shutdown")).unwrap();
        let (catalog, report) = open_catalog(&dir.path().join("sub/catalog.sqlite"), &[shared])
            .expect("open the catalog");
        assert_eq!(report.added.len(), 1);
        Fixture {
            dir,
            exec: CatalogExecutor::new(catalog, lang),
        }
    }

    fn decl(name: &str) -> ArgDecl {
        ArgDecl {
            name: name.into(),
            ty: ArgType::String,
            required: false,
            description: None,
            said: Vec::new(),
            ..Default::default()
        }
    }

    /// Calls `tool` with `(name, value)` arguments as the dispatcher would hand them over.
    fn call(exec: &CatalogExecutor, tool: &str, args: &[(&str, &str)]) -> Result<String, String> {
        let decls: Vec<ArgDecl> = args.iter().map(|(n, _)| decl(n)).collect();
        let raw = RawArgs::Json(
            args.iter()
                .map(|(n, v)| (n.to_string(), serde_json::Value::from(*v)))
                .collect(),
        );
        let args: Args = porfiry_agent::validate_args(&decls, &raw).unwrap();
        assert!(args.iter().all(|(_, v)| matches!(v, ArgValue::Str(_))));
        exec.execute(&ToolInvocation {
            session: "s1",
            toolset: "skills",
            tool,
            args: &args,
            cancel: &CancelToken::new(),
            time_left: None,
        })
    }

    #[test]
    fn search_load_and_create_a_skill() {
        let f = fixture(Lang::En);
        let ex = &f.exec;
        assert_eq!(
            call(ex, "skills_search", &[("query", "tea")]).unwrap(),
            "Nothing found in the catalog."
        );
        // One line: `\n` written for line breaks.
        let one_line = TEA.replace('\n', "\\n");
        assert_eq!(
            call(ex, "skills_create", &[("document", &one_line)]).unwrap(),
            "Skill \"tea\" saved (#2)."
        );
        assert_eq!(
            call(ex, "skills_search", &[]).unwrap(),
            "#2 skill tea — how to brew tea\n#1 protocol Shutdown — the Shutdown protocol",
            "personal first"
        );
        assert_eq!(
            call(ex, "skills_load", &[("name", "#2")]).unwrap(),
            "tea — how to brew tea\nWarm the pot, then pour."
        );
        let loaded = call(ex, "skills_load", &[("name", "shutdown")]).unwrap();
        assert_eq!(
            loaded,
            "Shutdown — the Shutdown protocol\nSteps:\n1. stop the apps\n2. sync the disks\n\
             Post-checks:\n- nothing runs\nIf the run deviates from the plan: stop and report\n\
             If it cannot be completed: say what blocked it\n\
             If a step's result already exists: check and mark the step\nContext:\nContext of Shutdown."
        );
        let again = call(ex, "skills_create", &[("document", TEA)]).unwrap_err();
        assert!(
            again.starts_with("the catalog refused: a personal skill named \"tea\" already exists"),
            "{again}"
        );
        let missing = call(ex, "skills_load", &[("name", "coffee")]).unwrap_err();
        assert_eq!(
            missing,
            "the catalog refused: no skill or protocol named \"coffee\" in the catalog"
        );
    }

    #[test]
    fn protocols_are_refused_by_create_and_update_and_go_to_propose() {
        let f = fixture(Lang::En);
        let ex = &f.exec;
        let refused = call(ex, "skills_create", &[("document", &protocol("Backup"))]).unwrap_err();
        assert!(refused.starts_with("\"Backup\" is a protocol"), "{refused}");
        assert!(refused.contains("skills_propose"), "{refused}");

        let half = "---\nkind: protocol\nname: Half\n---\nx\n";
        let refused = call(ex, "skills_create", &[("document", half)]).unwrap_err();
        assert_eq!(
            refused,
            "the catalog refused: a protocol needs these keys: missing steps, post_checks, on_deviation, on_blocked, on_already_done"
        );

        // Updating the protocol (by its name, or with a protocol document) points at propose.
        let to_skill = call(
            ex,
            "skills_update",
            &[("name", "Shutdown"), ("document", TEA)],
        )
        .unwrap_err();
        assert!(
            to_skill.starts_with("\"Shutdown\" is a protocol"),
            "{to_skill}"
        );
        let to_proto = call(
            ex,
            "skills_update",
            &[("name", "Shutdown"), ("document", &protocol("Shutdown"))],
        )
        .unwrap_err();
        assert!(to_proto.contains("skills_propose|document"), "{to_proto}");

        // Propose: a pending proposal, replacing the shared protocol of that name.
        let card = call(ex, "skills_propose", &[("document", &protocol("Shutdown"))]).unwrap();
        assert_eq!(
            card,
            "Proposal #1: a new version of protocol \"Shutdown\" (#1), 2 steps. Waiting for the user to accept or reject it."
        );
        let card = call(ex, "skills_propose", &[("document", &protocol("Backup"))]).unwrap();
        assert_eq!(
            card,
            "Proposal #2: protocol \"Backup\", 2 steps. Waiting for the user to accept or reject it."
        );
        assert_eq!(
            call(ex, "skills_search", &[("query", "backup")]).unwrap(),
            "Nothing found in the catalog.",
            "a pending proposal is no entry"
        );
        assert!(call(ex, "skills_load", &[("name", "Backup")]).is_err());
        let skill = call(ex, "skills_propose", &[("document", TEA)]).unwrap_err();
        assert!(skill.starts_with("\"tea\" is a skill"), "{skill}");

        let catalog = ex.catalog.lock().unwrap();
        let pending = catalog.proposals(Some(ProposalStatus::Pending)).unwrap();
        assert_eq!(pending.len(), 2);
        assert!(pending
            .iter()
            .all(|p| p.session == "s1" && p.author == "agent"));
    }

    #[test]
    fn update_writes_a_new_version_of_a_personal_skill_only() {
        let f = fixture(Lang::Ru);
        let ex = &f.exec;
        assert_eq!(
            call(ex, "skills_create", &[("document", TEA)]).unwrap(),
            "Скил «tea» записан (#2)."
        );
        let v2 = TEA.replace("Warm the pot", "Warm the cups");
        assert_eq!(
            call(ex, "skills_update", &[("name", "tea"), ("document", &v2)]).unwrap(),
            "Скил «tea» обновлён до версии 2."
        );
        assert_eq!(
            call(ex, "skills_update", &[("name", "#2"), ("document", &v2)]).unwrap(),
            "Скил «tea» не изменился."
        );
        let missing = call(
            ex,
            "skills_update",
            &[("name", "coffee"), ("document", &v2)],
        );
        assert!(missing
            .unwrap_err()
            .starts_with("каталог отказал: no skill named"));
        assert_eq!(
            call(ex, "skills_bogus", &[]).unwrap_err(),
            "инструмента skills_bogus в наборе skills нет"
        );
        let labels = call(ex, "skills_load", &[("name", "Shutdown")]).unwrap();
        assert!(labels.contains("\nШаги:\n1. stop the apps\n"), "{labels}");
        assert!(
            labels.contains("\nЕсли завершить нельзя: say what blocked it\n"),
            "{labels}"
        );
        let versions = {
            let c = ex.catalog.lock().unwrap();
            c.versions(porfiry_catalog::EntryId(2)).unwrap()
        };
        assert_eq!(versions.len(), 2);
        assert!(versions.iter().all(|v| v.author == "agent"));
        drop(f.dir);
    }

    /// A turn on the runtime (no engine): the model searches the catalog, loads what it
    /// found, and answers from it.
    #[test]
    fn a_turn_searches_then_loads_through_the_runtime() {
        let f = fixture(Lang::En);
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let clock = Arc::new(ManualClock::parse("2026-08-22T10:00:00+03:00").unwrap());
        let loaded = Agent::load(
            AgentConfig {
                lang: Lang::En,
                ..AgentConfig::default()
            },
            &[root.join("skills")],
            &[
                root.join("toolsets"),
                skills_toolset_dir(&f.dir.path().join("data")).unwrap(),
            ],
            clock,
        );
        assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
        assert!(loaded.value.toolsets().get("skills").is_some());
        let model = ScriptedModel::new(
            [
                "TOOL_CALL: skills_search|shutdown",
                "TOOL_CALL: skills_load|#1",
                "Stop the apps, then sync the disks.",
            ]
            .map(String::from),
        );
        let mut runtime = Runtime::from_parts(
            loaded.value,
            Backend::Other(Box::new(model)),
            Duration::from_secs(10),
        );
        assert!(runtime
            .agent()
            .missing_executors()
            .iter()
            .any(|t| t == "skills_search"));
        let Fixture { dir, exec } = f;
        runtime.register_executor(ExecutorTarget::Toolset("skills".into()), Arc::new(exec));
        assert!(runtime
            .agent()
            .missing_executors()
            .iter()
            .all(|t| !t.starts_with("skills_")));

        let turn = runtime
            .turn(
                "s1",
                "How do I shut the server down?",
                &CancelToken::new(),
                &mut |_| {},
            )
            .unwrap();
        let out = &turn.outcome;
        let ran: Vec<(&str, bool)> = out
            .executed
            .iter()
            .map(|e| (e.name.as_str(), e.ok))
            .collect();
        assert_eq!(ran, [("skills_search", true), ("skills_load", true)]);
        assert_eq!(
            out.executed[0].result,
            "#1 protocol Shutdown — the Shutdown protocol"
        );
        assert!(
            out.executed[1]
                .result
                .contains("Steps:\n1. stop the apps\n2. sync the disks"),
            "{}",
            out.executed[1].result
        );
        assert_eq!(out.reply, "Stop the apps, then sync the disks.");
        drop(dir);
    }
}
