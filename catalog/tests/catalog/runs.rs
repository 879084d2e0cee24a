//! Protocol runs: snapshot at start, one running run per session, the finish rules.

use porfiry_catalog::{CatalogError, EntryId, RunEnd, RunStatus, StepMark, StepStatus};

use crate::common::{protocol, skill, Fixture};

fn done(v: &str) -> StepMark {
    StepMark::Done {
        validation: v.into(),
    }
}

fn fixture_with_protocol() -> (Fixture, EntryId) {
    let mut f = Fixture::new();
    let id = f
        .catalog
        .create(
            &protocol("backup", &["copy", "verify", "report"]),
            "user",
            "",
        )
        .expect("protocol")
        .id;
    (f, id)
}

#[test]
fn a_run_snapshots_the_protocol_at_start() {
    let (mut f, id) = fixture_with_protocol();
    let run = f.catalog.start_run("s1", id).expect("start");
    assert_eq!(run.status, RunStatus::Running);
    assert_eq!(
        (
            run.protocol,
            run.protocol_name.as_str(),
            run.protocol_version
        ),
        (id, "backup", 1)
    );
    assert_eq!(run.open_steps(), [1, 2, 3]);
    assert_eq!(run.post_checks, ["all checked"]);
    assert_eq!(run.started_at.0, 1_000);
    // Editing the entry mid-run changes nothing the run owes.
    f.catalog
        .update(id, &protocol("backup", &["only one"]), "user", "shorter")
        .expect("edit");
    let current = f
        .catalog
        .current_run("s1")
        .expect("current")
        .expect("running");
    let texts: Vec<&str> = current.steps.iter().map(|s| s.text.as_str()).collect();
    assert_eq!(texts, ["copy", "verify", "report"]);
    assert_eq!(current.protocol_version, 1);
    assert!(current.protocol_content.contains("verify"));
    // Even deleting it.
    f.catalog.delete(id).expect("delete");
    assert_eq!(f.catalog.run(run.id).expect("run").steps.len(), 3);
}

#[test]
fn one_running_run_per_session() {
    let (mut f, id) = fixture_with_protocol();
    let first = f.catalog.start_run("s1", id).expect("start");
    match f.catalog.start_run("s1", id) {
        Err(CatalogError::RunAlreadyRunning {
            session,
            run,
            protocol,
        }) => {
            assert_eq!(
                (session.as_str(), run, protocol.as_str()),
                ("s1", first.id, "backup")
            )
        }
        other => panic!("expected RunAlreadyRunning, got {other:?}"),
    }
    let other = f.catalog.start_run("s2", id).expect("another session may");
    assert_ne!(other.id, first.id);
    f.catalog
        .finish_run(
            first.id,
            RunEnd::Cancelled {
                reason: "later".into(),
            },
        )
        .expect("cancel");
    assert!(f.catalog.current_run("s1").expect("current").is_none());
    f.catalog
        .start_run("s1", id)
        .expect("a new run after the first ended");
}

#[test]
fn the_database_itself_allows_one_running_run_per_session() {
    let (mut f, id) = fixture_with_protocol();
    f.catalog.start_run("s1", id).expect("start");
    let raw = f.raw();
    let copy = "INSERT INTO runs (session_id, protocol_id, protocol_name, protocol_version,
                    protocol_content, post_checks, status, started_at)
                SELECT session_id, protocol_id, protocol_name, protocol_version,
                    protocol_content, post_checks, 'running', started_at FROM runs";
    let err = raw.execute(copy, []).expect_err("partial unique index");
    assert_eq!(
        err.sqlite_error_code(),
        Some(rusqlite::ErrorCode::ConstraintViolation)
    );
    // Finished runs are not limited.
    raw.execute(
        "INSERT INTO runs (session_id, protocol_id, protocol_name, protocol_version,
             protocol_content, post_checks, status, started_at, finished_at)
         SELECT session_id, protocol_id, protocol_name, protocol_version, protocol_content,
             post_checks, 'done', started_at, started_at FROM runs",
        [],
    )
    .expect("a done run beside the running one");
}

#[test]
fn done_needs_a_report_and_every_step_closed() {
    let (mut f, id) = fixture_with_protocol();
    let run = f.catalog.start_run("s1", id).expect("start").id;
    let finish = |report: &str| RunEnd::Done {
        report: report.into(),
    };
    assert!(matches!(
        f.catalog.finish_run(run, finish("  ")),
        Err(CatalogError::Empty("the report"))
    ));
    f.catalog
        .mark_step(run, 1, done("copied 3 files"))
        .expect("step 1");
    match f.catalog.finish_run(run, finish("all good")) {
        Err(CatalogError::OpenSteps { steps, .. }) => assert_eq!(steps, [2, 3]),
        other => panic!("expected OpenSteps, got {other:?}"),
    }
    f.catalog
        .mark_step(
            run,
            2,
            StepMark::Skipped {
                reason: "nothing to verify".into(),
            },
        )
        .expect("step 2");
    f.clock.advance(7);
    let after = f.catalog.mark_step(run, 3, done("sent")).expect("step 3");
    assert_eq!(after.steps[2].updated_at.0, 1_007);
    let finished = f
        .catalog
        .finish_run(run, finish("copied, verified, reported"))
        .expect("done");
    assert_eq!(finished.status, RunStatus::Done);
    assert_eq!(
        finished.report.as_deref(),
        Some("copied, verified, reported")
    );
    assert_eq!(finished.finished_at.map(|t| t.0), Some(1_007));
    let notes: Vec<(StepStatus, &str)> = finished
        .steps
        .iter()
        .map(|s| (s.status, s.note.as_str()))
        .collect();
    assert_eq!(
        notes,
        [
            (StepStatus::Done, "copied 3 files"),
            (StepStatus::Skipped, "nothing to verify"),
            (StepStatus::Done, "sent")
        ]
    );
    assert!(matches!(
        f.catalog.finish_run(run, finish("again")),
        Err(CatalogError::RunNotRunning {
            status: RunStatus::Done,
            ..
        })
    ));
    assert!(matches!(
        f.catalog.mark_step(run, 1, done("late")),
        Err(CatalogError::RunNotRunning { .. })
    ));
}

#[test]
fn cancel_skips_the_open_steps() {
    let (mut f, id) = fixture_with_protocol();
    let run = f.catalog.start_run("s1", id).expect("start").id;
    f.catalog.mark_step(run, 1, done("ok")).expect("step 1");
    let cancelled = f
        .catalog
        .finish_run(
            run,
            RunEnd::Cancelled {
                reason: "user changed plans".into(),
            },
        )
        .expect("cancel");
    assert_eq!(cancelled.status, RunStatus::Cancelled);
    assert_eq!(cancelled.reason.as_deref(), Some("user changed plans"));
    let statuses: Vec<StepStatus> = cancelled.steps.iter().map(|s| s.status).collect();
    assert_eq!(
        statuses,
        [StepStatus::Done, StepStatus::Skipped, StepStatus::Skipped]
    );
    assert_eq!(cancelled.steps[1].note, "user changed plans");
}

#[test]
fn after_a_failed_step_only_fail_ends_the_run() {
    let (mut f, id) = fixture_with_protocol();
    let run = f.catalog.start_run("s1", id).expect("start").id;
    f.catalog
        .mark_step(
            run,
            2,
            StepMark::Failed {
                reason: "disk full".into(),
            },
        )
        .expect("fail step 2");
    for end in [
        RunEnd::Done { report: "r".into() },
        RunEnd::Cancelled { reason: "r".into() },
    ] {
        assert!(matches!(
            f.catalog.finish_run(run, end),
            Err(CatalogError::StepFailed { step: 2, .. })
        ));
    }
    assert!(matches!(
        f.catalog.mark_step(run, 2, done("fixed?")),
        Err(CatalogError::StepFailed { step: 2, .. })
    ));
    let failed = f
        .catalog
        .finish_run(
            run,
            RunEnd::Failed {
                reason: "step 2: disk full".into(),
            },
        )
        .expect("fail");
    assert_eq!(failed.status, RunStatus::Failed);
    assert_eq!(failed.failed_step(), Some(2));
    assert_eq!(
        failed.open_steps(),
        [1, 3],
        "failing leaves open steps as they were"
    );
}

#[test]
fn marks_are_checked() {
    let (mut f, id) = fixture_with_protocol();
    let run = f.catalog.start_run("s1", id).expect("start").id;
    assert!(matches!(
        f.catalog.mark_step(run, 4, done("x")),
        Err(CatalogError::NoStep {
            step: 4,
            steps: 3,
            ..
        })
    ));
    assert!(matches!(
        f.catalog.mark_step(run, 0, done("x")),
        Err(CatalogError::NoStep { .. })
    ));
    assert!(matches!(
        f.catalog.mark_step(run, 1, done(" ")),
        Err(CatalogError::Empty("the validation"))
    ));
    assert!(matches!(
        f.catalog.mark_step(
            run,
            1,
            StepMark::Skipped {
                reason: String::new()
            }
        ),
        Err(CatalogError::Empty("the reason"))
    ));
    // A step may be marked again while the run runs.
    f.catalog.mark_step(run, 1, done("first")).expect("mark");
    let again = f
        .catalog
        .mark_step(run, 1, done("second look"))
        .expect("again");
    assert_eq!(again.steps[0].note, "second look");
}

#[test]
fn only_protocols_run() {
    let mut f = Fixture::new();
    let tea = f
        .catalog
        .create(&skill("tea", "x"), "user", "")
        .expect("skill")
        .id;
    assert!(matches!(
        f.catalog.start_run("s1", tea),
        Err(CatalogError::NotAProtocol { what: "a run", .. })
    ));
    assert!(matches!(
        f.catalog.start_run("s1", EntryId(77)),
        Err(CatalogError::NoEntry(_))
    ));
    assert!(matches!(
        f.catalog.start_run(" ", tea),
        Err(CatalogError::Empty("the session"))
    ));
    assert!(f.catalog.runs(None).expect("runs").is_empty());
}

#[test]
fn runs_list_by_session_newest_first() {
    let (mut f, id) = fixture_with_protocol();
    let a = f.catalog.start_run("s1", id).expect("a").id;
    f.catalog
        .finish_run(a, RunEnd::Failed { reason: "x".into() })
        .expect("fail");
    let b = f.catalog.start_run("s1", id).expect("b").id;
    let c = f.catalog.start_run("s2", id).expect("c").id;
    let ids = |s: Option<&str>| {
        f.catalog
            .runs(s)
            .expect("runs")
            .iter()
            .map(|r| r.id)
            .collect::<Vec<_>>()
    };
    assert_eq!(ids(Some("s1")), [b, a]);
    assert_eq!(ids(None), [c, b, a]);
    assert!(ids(Some("nobody")).is_empty());
}
