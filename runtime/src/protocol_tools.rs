//! The `protocol` toolset's executor — protocol runs over the catalog (`porfiry-catalog`):
//! `protocol_start|name`, `protocol_step|step|status|validation`, `protocol_finish|report`,
//! `protocol_cancel|reason`, `protocol_fail|reason`, `protocol_status` (declared in
//! `runtime/toolsets/protocol.yaml`, embedded as [`crate::PROTOCOL_TOOLSET`]) — and
//! [`CatalogRunHook`], what the agent learns about a session from the catalog between calls:
//! the reminder of its running protocol and the user's decisions on its proposals.
//!
//! The run's session is the call's ([`ToolInvocation::session`]); the rules are the store's
//! ([`Catalog::mark_step`], [`Catalog::finish_run`]): `finish` needs a report and no open
//! step, `cancel` skips the open steps, and once a step failed `fail` is the only way out.
//! Every reply comes from the agent's message texts ([`Texts`]); a refusal carries the
//! store's own reason.

use porfiry_agent::{HostHook, HostNote, Lang, RunReminder, Texts, ToolExecutor, ToolInvocation};
use porfiry_catalog::{
    Catalog, CatalogError, Kind, Owner, ProposalStatus, Query, Run, RunEnd, StepMark, StepStatus,
};

use crate::shared_catalog::{lock, SharedCatalog};

/// The most personal entries the skills index lists (newest first).
pub const INDEX_LIMIT: usize = 20;

/// Most catalog entries one list of argument values holds ([`CatalogRunHook`]'s
/// `protocols`).
const VALUES_LIMIT: usize = 500;

/// The executor for the `protocol_` tools over one catalog.
#[derive(Debug, Clone)]
pub struct ProtocolExecutor {
    catalog: SharedCatalog,
    texts: Texts,
}

/// `1. text` lines of the steps with these numbers (all when `only` is `None`).
fn step_lines(run: &Run, only: Option<&[u32]>, separator: &str) -> String {
    run.steps
        .iter()
        .filter(|s| only.is_none_or(|n| n.contains(&s.number)))
        .map(|s| format!("{}. {}", s.number, s.text))
        .collect::<Vec<_>>()
        .join(separator)
}

impl ProtocolExecutor {
    /// The tools over `catalog`, replies in `lang`.
    pub fn new(catalog: SharedCatalog, lang: Lang) -> Self {
        Self {
            catalog,
            texts: Texts::new(lang),
        }
    }

    fn refused(&self, e: CatalogError) -> String {
        self.texts.catalog_refused(&e.to_string())
    }

    /// The session's running run, or the "no protocol runs" reply.
    fn current(&self, catalog: &Catalog, session: &str) -> Result<Run, String> {
        catalog
            .current_run(session)
            .map_err(|e| self.refused(e))?
            .ok_or_else(|| self.texts.protocol_no_run())
    }

    fn start(&self, catalog: &mut Catalog, session: &str, name: &str) -> Result<String, String> {
        // A protocol of that name first; else whatever has it, for the store's reason.
        let entry = catalog
            .resolve(name, Some(Kind::Protocol))
            .or_else(|_| catalog.resolve(name, None))
            .map_err(|e| self.refused(e))?;
        let run = catalog
            .start_run(session, entry.id)
            .map_err(|e| self.refused(e))?;
        Ok(self.texts.protocol_started(
            &run.protocol_name,
            &run.id.to_string(),
            &step_lines(&run, None, "\n"),
        ))
    }

    fn step(
        &self,
        catalog: &mut Catalog,
        session: &str,
        step: i64,
        status: &str,
        note: &str,
    ) -> Result<String, String> {
        let run = self.current(catalog, session)?;
        let note = note.to_string();
        let mark = match status {
            "done" => StepMark::Done { validation: note },
            "failed" => StepMark::Failed { reason: note },
            _ => StepMark::Skipped { reason: note },
        };
        // A number that does not fit is no step of the run: the store says which exist.
        let number = u32::try_from(step).unwrap_or(0);
        let run = catalog
            .mark_step(run.id, number, mark)
            .map_err(|e| self.refused(e))?;
        if run.failed_step() == Some(number) {
            return Ok(self.texts.protocol_step_failed(number));
        }
        let open: Vec<String> = run.open_steps().iter().map(u32::to_string).collect();
        Ok(self
            .texts
            .protocol_step_marked(number, status, &open.join(", ")))
    }

    fn finish(&self, catalog: &mut Catalog, session: &str, end: RunEnd) -> Result<String, String> {
        let run = self.current(catalog, session)?;
        let run = catalog
            .finish_run(run.id, end)
            .map_err(|e| self.refused(e))?;
        let name = &run.protocol_name;
        let reason = run.reason.as_deref().unwrap_or_default();
        Ok(match run.status {
            porfiry_catalog::RunStatus::Cancelled => self.texts.protocol_cancelled(name, reason),
            porfiry_catalog::RunStatus::Failed => self.texts.protocol_failed(name, reason),
            _ => self.texts.protocol_finished(name),
        })
    }

    fn status(&self, catalog: &Catalog, session: &str) -> Result<String, String> {
        let run = self.current(catalog, session)?;
        let mut text = self.texts.protocol_status_header(
            &run.protocol_name,
            &run.id.to_string(),
            run.protocol_version,
        );
        for s in &run.steps {
            text.push_str(&format!("\n{}. [{}] {}", s.number, s.status, s.text));
            if s.status != StepStatus::Open && !s.note.is_empty() {
                text.push_str(" — ");
                text.push_str(&s.note);
            }
        }
        Ok(text)
    }
}

impl ToolExecutor for ProtocolExecutor {
    fn execute(&self, call: &ToolInvocation<'_>) -> Result<String, String> {
        let mut catalog = lock(&self.catalog);
        let arg = |name: &str| call.args.str(name).unwrap_or_default().to_string();
        let session = call.session;
        match call.tool {
            "protocol_start" => self.start(&mut catalog, session, &arg("name")),
            "protocol_step" => {
                let step = match call.args.get("step") {
                    Some(porfiry_agent::ArgValue::Int(n)) => *n,
                    _ => 0,
                };
                self.step(
                    &mut catalog,
                    session,
                    step,
                    &arg("status"),
                    &arg("validation"),
                )
            }
            "protocol_finish" => self.finish(
                &mut catalog,
                session,
                RunEnd::Done {
                    report: arg("report"),
                },
            ),
            "protocol_cancel" => self.finish(
                &mut catalog,
                session,
                RunEnd::Cancelled {
                    reason: arg("reason"),
                },
            ),
            "protocol_fail" => self.finish(
                &mut catalog,
                session,
                RunEnd::Failed {
                    reason: arg("reason"),
                },
            ),
            "protocol_status" => self.status(&catalog, session),
            other => Err(self.texts.protocol_unknown_tool(other)),
        }
    }
}

/// What the agent learns from the catalog about a session between calls
/// ([`porfiry_agent::HostHook`]): the reminder of its running protocol, the user's decisions
/// on its proposals (once each, [`Catalog::take_decided`]) and the personal entries for the
/// skills index. Set on the agent by [`crate::Runtime::open`] with a catalog.
#[derive(Debug, Clone)]
pub struct CatalogRunHook {
    catalog: SharedCatalog,
    texts: Texts,
}

/// The tool a decision note answers: the proposal was its call.
pub const DECISION_NOTE_TOOL: &str = "skills_propose";

impl CatalogRunHook {
    /// The hook over `catalog`, texts in `lang`.
    pub fn new(catalog: SharedCatalog, lang: Lang) -> Self {
        Self {
            catalog,
            texts: Texts::new(lang),
        }
    }
}

impl HostHook for CatalogRunHook {
    fn reminder(&self, session: &str) -> Option<RunReminder> {
        // A catalog that cannot be read gives no reminder: the tools say why when called.
        let run = lock(&self.catalog).current_run(session).ok()??;
        let name = &run.protocol_name;
        if let Some(step) = run.failed_step() {
            return Some(RunReminder {
                text: self.texts.protocol_reminder_failed(name, step),
                unfinished: None,
            });
        }
        let open = run.open_steps();
        Some(if open.is_empty() {
            RunReminder {
                text: self.texts.protocol_reminder_closed(name),
                unfinished: Some(self.texts.protocol_finish_nudge(name)),
            }
        } else {
            RunReminder {
                text: self
                    .texts
                    .protocol_reminder(name, &step_lines(&run, Some(&open), "; ")),
                unfinished: None,
            }
        })
    }

    fn take_notes(&self, session: &str) -> Vec<HostNote> {
        let decided = lock(&self.catalog)
            .take_decided(session)
            .unwrap_or_default();
        decided
            .into_iter()
            .map(|p| {
                let id = p.id.to_string();
                let text = match (p.status, p.entry) {
                    (ProposalStatus::Accepted, Some(entry)) => {
                        self.texts
                            .proposal_accepted(&id, &p.name, &entry.to_string())
                    }
                    _ => self
                        .texts
                        .proposal_rejected(&id, &p.name, p.decision_reason.as_deref()),
                };
                HostNote {
                    tool: DECISION_NOTE_TOOL.to_string(),
                    text,
                }
            })
            .collect()
    }

    /// `protocols`: the names of the catalog's protocols, which `protocol_start` takes
    /// (`values_from: protocols`), so a request names one across inflections.
    fn value_lists(&self) -> Vec<(String, Vec<String>)> {
        let query = Query {
            limit: Some(VALUES_LIMIT),
            ..Query::default()
        };
        let hits = lock(&self.catalog).search(&query).unwrap_or_default();
        let protocols = hits
            .iter()
            .filter(|h| h.kind == Kind::Protocol)
            .map(|h| h.name.clone())
            .collect();
        vec![("protocols".to_owned(), protocols)]
    }

    fn index_lines(&self) -> Vec<String> {
        let query = Query {
            limit: Some(INDEX_LIMIT),
            ..Query::default()
        };
        let hits = lock(&self.catalog).search(&query).unwrap_or_default();
        hits.iter()
            .filter(|h| h.owner == Owner::Personal)
            .map(|h| {
                self.texts
                    .catalog_index_line(h.kind == Kind::Protocol, &h.name, &h.description)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use porfiry_agent::{parse_output, validate_args, CancelToken, ToolsetRegistry};
    use porfiry_catalog::{NewProposal, RunStatus};
    use std::sync::{Arc, Mutex};

    use crate::shared_catalog::{open_catalog, skills_toolset_dir};

    fn protocol(name: &str) -> String {
        format!(
            "---\nkind: protocol\nname: {name}\ndescription: the {name} protocol\nsteps: [stop the apps, sync the disks]\npost_checks: [nothing runs]\non_deviation: stop and report\non_blocked: say what blocked it\non_already_done: check and mark the step\n---\nContext of {name}.\n"
        )
    }

    struct Fixture {
        _dir: tempfile::TempDir,
        catalog: SharedCatalog,
        exec: ProtocolExecutor,
        hook: CatalogRunHook,
        sets: ToolsetRegistry,
    }

    fn fixture(lang: Lang) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let shared = dir.path().join("shared");
        std::fs::create_dir_all(&shared).unwrap();
        std::fs::write(shared.join("shutdown.md"), protocol("Shutdown")).unwrap();
        std::fs::write(
            shared.join("tea.md"),
            "---\nname: tea\ndescription: brewing tea\n---\nWarm the pot.\n",
        )
        .unwrap();
        let (catalog, _) = open_catalog(&dir.path().join("catalog.sqlite"), &[shared]).unwrap();
        let sets = ToolsetRegistry::load(&[skills_toolset_dir(dir.path()).unwrap()]);
        assert!(sets.diagnostics.is_empty(), "{:?}", sets.diagnostics);
        let catalog: SharedCatalog = Arc::new(Mutex::new(catalog));
        Fixture {
            exec: ProtocolExecutor::new(catalog.clone(), lang),
            hook: CatalogRunHook::new(catalog.clone(), lang),
            catalog,
            sets: sets.value,
            _dir: dir,
        }
    }

    impl Fixture {
        /// Runs one `TOOL_CALL:` line in `session` as the dispatcher would: parsed and
        /// validated against the set's declaration first.
        fn call_in(&self, session: &str, line: &str) -> Result<String, String> {
            let parsed = parse_output(&format!("TOOL_CALL: {line}"));
            let call = parsed.calls().next().expect("a call line");
            let decl = self
                .sets
                .get("protocol")
                .and_then(|s| s.tools.iter().find(|t| t.name == call.name))
                .unwrap_or_else(|| panic!("{} is not declared", call.name));
            let args =
                validate_args(&decl.args, &call.args).unwrap_or_else(|p| panic!("{line}: {p:?}"));
            self.exec.execute(&ToolInvocation {
                session,
                toolset: "protocol",
                tool: &call.name,
                args: &args,
                cancel: &CancelToken::new(),
                time_left: None,
            })
        }

        fn call(&self, line: &str) -> Result<String, String> {
            self.call_in("s1", line)
        }

        fn last_run(&self, session: &str) -> Run {
            lock(&self.catalog).runs(Some(session)).unwrap().remove(0)
        }
    }

    #[test]
    fn a_run_from_start_to_a_reported_finish() {
        let f = fixture(Lang::En);
        assert_eq!(
            f.call("protocol_start|shutdown").unwrap(),
            "Protocol \"Shutdown\" started (#1). Steps:\n1. stop the apps\n2. sync the disks\n\
             Mark each one: protocol_step|number|done|how it was checked; at the end \
             protocol_finish|report."
        );
        assert_eq!(
            f.call("protocol_step|1|done|no unit is active").unwrap(),
            "Step 1: done. Open steps: 2."
        );
        let refused = f.call("protocol_finish|all done").unwrap_err();
        assert_eq!(
            refused,
            "the catalog refused: run #1 still has open steps: 2"
        );
        assert_eq!(
            f.call("protocol_status").unwrap(),
            "Protocol \"Shutdown\" (#1, version 1):\n1. [done] stop the apps — no unit is active\n\
             2. [open] sync the disks"
        );
        assert!(f
            .call("protocol_step|2|done|sync | umount ok")
            .unwrap()
            .starts_with("Step 2: done. No step is open: finish with protocol_finish|report"));
        assert_eq!(
            f.call("protocol_finish|apps stopped, disks synced; nothing runs: checked")
                .unwrap(),
            "Protocol \"Shutdown\" done, the report is recorded."
        );
        let run = f.last_run("s1");
        assert_eq!(run.status, RunStatus::Done);
        assert_eq!(
            run.report.as_deref(),
            Some("apps stopped, disks synced; nothing runs: checked")
        );
        assert_eq!(
            run.steps[1].note, "sync|umount ok",
            "`|` kept in the last argument"
        );
        assert_eq!(
            f.call("protocol_status").unwrap_err(),
            "No protocol is running now."
        );
    }

    #[test]
    fn refusals_carry_the_store_reason() {
        let f = fixture(Lang::En);
        for line in [
            "protocol_step|1|done|x",
            "protocol_finish|r",
            "protocol_cancel|r",
        ] {
            assert_eq!(
                f.call(line).unwrap_err(),
                "No protocol is running now.",
                "{line}"
            );
        }
        let skill = f.call("protocol_start|tea").unwrap_err();
        assert_eq!(
            skill,
            "the catalog refused: a run works with protocols only, and \"tea\" is a skill"
        );
        assert!(f
            .call("protocol_start|nothing")
            .unwrap_err()
            .starts_with("the catalog refused: no "));
        f.call("protocol_start|Shutdown").unwrap();
        let second = f.call("protocol_start|#1").unwrap_err();
        assert!(
            second.starts_with("the catalog refused: session \"s1\" already runs a protocol (#1"),
            "{second}"
        );
        // Another session runs its own.
        f.call_in("s2", "protocol_start|Shutdown").unwrap();
        assert_eq!(
            f.call("protocol_step|3|done|x").unwrap_err(),
            "the catalog refused: run #1 has steps 1 to 2, not 3"
        );
        assert_eq!(
            f.call("protocol_step|1|failed|the service hangs").unwrap(),
            "Step 1 failed. The protocol can now only be closed with protocol_fail|reason \
             (which step, why, what state things are in)."
        );
        for line in [
            "protocol_finish|done",
            "protocol_cancel|never mind",
            "protocol_step|2|done|x",
        ] {
            assert_eq!(
                f.call(line).unwrap_err(),
                "the catalog refused: step 1 of run #1 failed: the run can only end as failed",
                "{line}"
            );
        }
        assert_eq!(
            f.call("protocol_fail|step 1: the service hangs, nothing stopped")
                .unwrap(),
            "Protocol \"Shutdown\" closed as failed: step 1: the service hangs, nothing stopped"
        );
        assert_eq!(f.last_run("s1").status, RunStatus::Failed);
        // Cancel: the open steps become skipped.
        f.call_in("s2", "protocol_step|1|done|ok").unwrap();
        assert_eq!(
            f.call_in("s2", "protocol_cancel|the user changed their mind")
                .unwrap(),
            "Protocol \"Shutdown\" cancelled: the user changed their mind"
        );
        let run = f.last_run("s2");
        assert_eq!(run.status, RunStatus::Cancelled);
        assert_eq!(run.steps[1].status, StepStatus::Skipped);
        assert_eq!(
            f.exec
                .execute(&ToolInvocation {
                    session: "s1",
                    toolset: "protocol",
                    tool: "protocol_bogus",
                    args: &porfiry_agent::Args::default(),
                    cancel: &CancelToken::new(),
                    time_left: None,
                })
                .unwrap_err(),
            "the protocol toolset has no tool protocol_bogus"
        );
    }

    #[test]
    fn the_hook_reminds_of_a_running_run_and_reports_decisions_once() {
        let f = fixture(Lang::Ru);
        assert_eq!(f.hook.reminder("s1"), None);
        f.call("protocol_start|Shutdown").unwrap();
        let r = f.hook.reminder("s1").unwrap();
        assert_eq!(
            r.text,
            "[Идёт протокол «Shutdown». Открытые шаги: 1. stop the apps; 2. sync the disks. \
             Отмечай protocol_step|номер|done|как проверено; закрыть: protocol_finish|отчёт, \
             protocol_cancel|причина.]"
        );
        assert_eq!(r.unfinished, None);
        assert_eq!(f.hook.reminder("s2"), None, "per session");
        f.call("protocol_step|1|done|ok").unwrap();
        assert!(f
            .hook
            .reminder("s1")
            .unwrap()
            .text
            .contains("шаги: 2. sync the disks."));
        f.call("protocol_step|2|skipped|already synced").unwrap();
        let r = f.hook.reminder("s1").unwrap();
        assert_eq!(
            r.text,
            "[Идёт протокол «Shutdown»: все шаги закрыты, заверши его protocol_finish|отчёт.]"
        );
        assert!(r
            .unfinished
            .unwrap()
            .starts_with("Протокол «Shutdown» не закрыт"));
        f.call("protocol_finish|всё сделано").unwrap();
        assert_eq!(f.hook.reminder("s1"), None);

        // Decisions: each once, in the session that proposed.
        let (accepted, rejected) = {
            let mut c = lock(&f.catalog);
            let mut propose = |name: &str| {
                c.propose(NewProposal {
                    session: "s1",
                    content: &protocol(name),
                    replaces: None,
                    author: "agent",
                    reason: "",
                })
                .unwrap()
                .id
            };
            let (a, b) = (propose("Backup"), propose("Restore"));
            c.accept_proposal(a, "user").unwrap();
            c.reject_proposal(b, "user", "not now").unwrap();
            (a, b)
        };
        assert!(f.hook.take_notes("s2").is_empty());
        let notes = f.hook.take_notes("s1");
        let texts: Vec<&str> = notes.iter().map(|n| n.text.as_str()).collect();
        assert_eq!(texts.len(), 2, "{texts:?}");
        assert!(texts.contains(
            &format!(
            "Пользователь принял предложение {accepted}: протокол «Backup» записан в каталог (#3)."
        )
            .as_str()
        ));
        assert!(texts.contains(
            &format!(
            "Пользователь отклонил предложение {rejected}: протокол «Restore» не записан: not now."
        )
            .as_str()
        ));
        assert!(notes.iter().all(|n| n.tool == DECISION_NOTE_TOOL));
        assert!(f.hook.take_notes("s1").is_empty(), "delivered once");

        // The index lists personal entries only: the accepted protocol, not the shared ones.
        assert_eq!(
            f.hook.index_lines(),
            ["Backup — протокол: the Backup protocol (skills_load|Backup)"]
        );
    }
}

/// The run hook on a real catalog, end to end through the agent: while the run runs, each
/// request is a hookless agent's with the reminder at the end of the turn's last message.
#[cfg(test)]
mod through_the_agent {
    use std::path::Path;
    use std::sync::{Arc, Mutex};

    use porfiry_agent::{
        Agent, AgentConfig, CancelToken, ExecutorTarget, Lang, ManualClock, RecordedRequest,
        ScriptedModel,
    };

    use super::*;
    use crate::shared_catalog::{open_catalog, skills_toolset_dir};

    /// An agent over the checkout's skills and toolsets plus the catalog's sets, its
    /// executors over a fresh catalog holding protocol "Shutdown"; with or without the hook.
    fn agent(dir: &Path, hook: bool) -> (Agent, SharedCatalog) {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let shared = dir.join("shared");
        std::fs::create_dir_all(&shared).unwrap();
        std::fs::write(
            shared.join("shutdown.md"),
            "---\nkind: protocol\nname: Shutdown\ndescription: shutting down\nsteps: [stop the apps, sync the disks]\npost_checks: [nothing runs]\non_deviation: stop\non_blocked: report\non_already_done: mark\n---\nContext.\n",
        )
        .unwrap();
        let (catalog, _) = open_catalog(&dir.join("catalog.sqlite"), &[shared]).unwrap();
        let clock = Arc::new(ManualClock::parse("2026-08-22T10:00:00+03:00").unwrap());
        let mut agent = Agent::load(
            AgentConfig {
                lang: Lang::En,
                ..AgentConfig::default()
            },
            &[root.join("skills")],
            &[root.join("toolsets"), skills_toolset_dir(dir).unwrap()],
            clock,
        )
        .value;
        let catalog: SharedCatalog = Arc::new(Mutex::new(catalog));
        agent.register_executor(
            ExecutorTarget::Toolset("protocol".into()),
            Arc::new(ProtocolExecutor::new(catalog.clone(), Lang::En)),
        );
        if hook {
            agent.set_host_hook(Some(Arc::new(CatalogRunHook::new(
                catalog.clone(),
                Lang::En,
            ))));
        }
        (agent, catalog)
    }

    fn turn(agent: &mut Agent, user: &str, outputs: &[&str]) -> (Vec<RecordedRequest>, usize) {
        let mut model = ScriptedModel::new(outputs.iter().map(|s| s.to_string()));
        let out = agent
            .turn("s", user, &mut model, &CancelToken::new(), &mut |_| {})
            .unwrap();
        assert_eq!(model.remaining(), 0);
        (model.requests().to_vec(), out.run_reminders)
    }

    /// The hook lists the catalog's protocols for `protocol_start`'s `values_from`, and a
    /// request naming one in other words («перезагрузки роутера») starts it by its name.
    #[test]
    fn a_protocol_named_in_other_words_is_started_by_its_name() {
        let dir = tempfile::tempdir().unwrap();
        let (mut agent, catalog) = agent(dir.path(), true);
        let hook = CatalogRunHook::new(catalog, Lang::En);
        assert_eq!(
            hook.value_lists(),
            vec![("protocols".to_owned(), vec!["Shutdown".to_owned()])]
        );
        let decl = agent
            .toolsets()
            .get("protocol")
            .and_then(|s| s.tool("protocol_start"))
            .map(|t| t.args[0].values_from.clone());
        assert_eq!(decl, Some(Some("protocols".to_owned())));
        let mut model = ScriptedModel::new(["Started.".to_string()]).with_embeddings();
        let out = agent
            .turn(
                "s",
                "Run the shutdown protocol now",
                &mut model,
                &CancelToken::new(),
                &mut |_| {},
            )
            .unwrap();
        let started: Vec<_> = out
            .executed
            .iter()
            .filter(|e| e.name == "protocol_start")
            .map(|e| e.args.str("name").map(str::to_owned))
            .collect();
        assert_eq!(started, [Some("Shutdown".to_owned())], "{:?}", out.route);
    }

    #[test]
    fn the_reminder_is_request_only_and_the_stable_prefix_is_untouched() {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let (mut hooked, _) = agent(a.path(), true);
        let (mut plain, _) = agent(b.path(), false);
        let start = ["TOOL_CALL: protocol_start|Shutdown", "Started."];
        let (_, n) = turn(&mut hooked, "Shut the server down", &start);
        turn(&mut plain, "Shut the server down", &start);
        assert_eq!(n, 1, "the request after the start carries it");

        let step = [
            "TOOL_CALL: protocol_step|1|done|no unit left",
            "Step one done.",
        ];
        let (with, n) = turn(&mut hooked, "Apps are stopped", &step);
        let (without, _) = turn(&mut plain, "Apps are stopped", &step);
        assert_eq!(n, 2, "every request while the run runs");
        let reminders = [
            "[Protocol \"Shutdown\" is running. Open steps: 1. stop the apps; 2. sync the disks.",
            "[Protocol \"Shutdown\" is running. Open steps: 2. sync the disks.",
        ];
        for ((w, o), reminder) in with.iter().zip(&without).zip(reminders) {
            assert_eq!(w.system, o.system, "the system text is byte-identical");
            assert_eq!(w.messages.len(), o.messages.len());
            let n = o.messages.len();
            assert_eq!(w.messages[..n - 1], o.messages[..n - 1], "the prefix");
            let (lw, lo) = (&w.messages[n - 1], &o.messages[n - 1]);
            let tail = lw.content.strip_prefix(lo.content.as_str()).unwrap();
            assert!(tail.starts_with(&format!("\n\n{reminder}")), "{tail:?}");
        }
        assert_eq!(
            hooked.history("s"),
            plain.history("s"),
            "never in the history"
        );

        let finish = [
            "TOOL_CALL: protocol_step|2|done|synced",
            "TOOL_CALL: protocol_finish|apps stopped, disks synced, nothing runs",
            "Done.",
        ];
        let (_, n) = turn(&mut hooked, "Disks synced", &finish);
        turn(&mut plain, "Disks synced", &finish);
        assert_eq!(n, 2, "not after the finish");
        let (with, n) = turn(&mut hooked, "Thanks", &["You're welcome."]);
        let (without, _) = turn(&mut plain, "Thanks", &["You're welcome."]);
        assert_eq!(
            (n, &with),
            (0, &without),
            "the plain agent's requests again"
        );
    }
}
