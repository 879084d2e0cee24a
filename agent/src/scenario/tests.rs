//! The scenario checks fail when what they check is wrong: every expectation key is given
//! one observed state it must accept and one it must refuse, and the runner's own rules
//! (model outputs used up, a reply at the end of each turn) fail the scenarios that break
//! them.

use std::path::Path;

use super::checks::{check, check_catalog, check_turn_shape, Observed, Requests};
use super::host::{ProposalCounts, ScenarioCatalog, ScenarioDefaults, Wrap};
use super::schema::{DecideAction, Expect};
use super::{parse_scenario, run_scenario};
use crate::agent::{Agent, ExecutedTool, ReplyKind, ToolReply, TurnOutcome, TurnStop};
use crate::model::Message;
use crate::scripted::RecordedRequest;

/// An expectation written as in a scenario file.
fn expect(yaml: &str) -> Expect {
    serde_norway::from_str(yaml).unwrap_or_else(|e| panic!("{yaml:?}: {e}"))
}

fn request(system: &str, messages: Vec<Message>) -> RecordedRequest {
    RecordedRequest {
        session: "default".into(),
        system: system.into(),
        messages,
        tokens: None,
        forced_reply: None,
        prefix: None,
        stop: Vec::new(),
        calls: None,
        call_specs: None,
        max_sentences: None,
        words: None,
        time_left: None,
    }
}

/// Three `user` steps: step 1 asked for the film, step 2 went on from it, step 3 sent no
/// request; the last request is step 2's.
fn requests() -> Requests {
    let first = request("sys", vec![Message::user("Найди фильм")]);
    let second = request(
        "sys",
        vec![
            Message::user("Найди фильм"),
            Message::assistant("Нашёл"),
            Message::user("Включи"),
        ],
    );
    let mut r = Requests {
        last: Some(second.clone()),
        ..Requests::default()
    };
    r.by_step.insert(1, Some(first));
    r.by_step.insert(2, Some(second));
    r.by_step.insert(3, None);
    r
}

/// The last turn: it searched, showed a list, answered, with one reminder.
fn outcome() -> TurnOutcome {
    let mut o = TurnOutcome {
        reply: "Нашёл: Tomb Raider (2018)".into(),
        stop: TurnStop::Answered,
        streamed: "Нашёл: Tomb Raider (2018)".into(),
        shown: vec!["1. Tomb Raider".into()],
        reminders: 1,
        run_reminders: 2,
        finish_reminders: 0,
        notes: 1,
        notice: Some("Время вышло".into()),
        ..TurnOutcome::new()
    };
    o.executed.push(ExecutedTool {
        name: "media_search".into(),
        args: Default::default(),
        result: "1. Tomb Raider (2018) id=tt1365519".into(),
        ok: true,
        ms: 0,
    });
    o.tool_replies.push(ToolReply {
        name: "media_search".into(),
        text: "1. Tomb Raider (2018) id=tt1365519".into(),
        ok: true,
        kind: ReplyKind::Executed,
        in_history: true,
    });
    o.context.compactions = 1;
    o
}

/// Checks `e` against the observed state above.
fn check_yaml(yaml: &str) -> Result<(), String> {
    let last = outcome();
    let requests = requests();
    let observed = Observed {
        active: vec!["media".into(), "web".into()],
        prompt: "Toolsets: media_search|query".into(),
        history: "user: Найди фильм\nassistant: Нашёл: Tomb Raider".into(),
        last: Some(&last),
        requests: &requests,
    };
    check(&observed, &expect(yaml))
}

/// Each row: `check` accepts the first expectation, and refuses the second with a reason
/// that contains the third.
fn pass_and_fail(table: &[(&str, &str, &str)], check: impl Fn(&str) -> Result<(), String>) {
    for (accepted, refused, says) in table {
        assert_eq!(check(accepted), Ok(()), "{accepted}");
        match check(refused) {
            Ok(()) => panic!("{refused:?} passed"),
            Err(why) => assert!(why.contains(says), "{refused:?}: {why}"),
        }
    }
}

#[test]
fn each_expectation_passes_on_a_match_and_fails_on_a_mismatch() {
    // (accepted, refused, what the refusal says)
    let table: &[(&str, &str, &str)] = &[
        ("active: [Web, media]", "active: [media]", "active toolsets"),
        (
            "prompt_contains: [media_search]",
            "prompt_contains: [web_open]",
            "prompt lacks \"web_open\"",
        ),
        (
            "prompt_excludes: [web_open]",
            "prompt_excludes: [media_search]",
            "prompt contains \"media_search\"",
        ),
        (
            "history_contains: [Tomb Raider]",
            "history_contains: [Lara]",
            "history lacks",
        ),
        (
            "history_excludes: [enable_toolset]",
            "history_excludes: [Найди]",
            "history contains",
        ),
        (
            "tool_results_contains: [tt1365519]",
            "tool_results_contains: [tt0000001]",
            "no tool reply contains",
        ),
        (
            "reply_contains: [Tomb Raider]",
            "reply_contains: [Matrix]",
            "reply lacks",
        ),
        (
            "reply_excludes: [TOOL_CALL]",
            "reply_excludes: [Tomb]",
            "reply contains",
        ),
        (
            "streamed_contains: ['(2018)']",
            "streamed_contains: [TOOL_CALL]",
            "streamed text lacks",
        ),
        (
            "streamed_excludes: [TOOL_CALL]",
            // Case is ignored here, and only here.
            "streamed_excludes: [tomb raider]",
            "streamed text contains",
        ),
        (
            "executed: [media_search]",
            "executed: [media_search, media_play]",
            "executed [\"media_search\"]",
        ),
        ("executed: [media_search]", "executed: []", "executed"),
        ("shown: ['1. Tomb Raider']", "shown: []", "shown"),
        (
            "stop: answered",
            "stop: max_iterations",
            "stopped as answered",
        ),
        (
            "stop: ' answered '",
            "stop: model_error",
            "expected model_error",
        ),
        (
            "interrupted: false",
            "interrupted: true",
            "interrupted is false",
        ),
        (
            "notice_contains: [Время]",
            "notice_contains: [Ошибка]",
            "notice lacks",
        ),
        ("reminders: 1", "reminders: 0", "1 reminder(s), expected 0"),
        (
            "run_reminders: 2",
            "run_reminders: 1",
            "2 run reminder(s), expected 1",
        ),
        (
            "finish_reminders: 0",
            "finish_reminders: 1",
            "0 finish reminder(s), expected 1",
        ),
        ("notes: 1", "notes: 0", "1 host note(s), expected 0"),
        ("compactions: 1", "compactions: 0", "compacted 1 time(s)"),
        (
            "request_contains: ['system: sys', 'user: Включи']",
            "request_contains: [Выключи]",
            "request lacks",
        ),
        (
            "request_excludes: [Выключи]",
            "request_excludes: ['assistant: Нашёл']",
            "request contains",
        ),
        (
            "request_as_in_step: 2",
            "request_as_in_step: 1",
            "differs from step 1",
        ),
        (
            "request_extends_step: 1",
            "request_as_in_step: 3",
            "step 3 sent no request",
        ),
        (
            "request_extends_step: 2",
            "request_extends_step: 4",
            "step 4 is not an earlier `user` step",
        ),
    ];
    pass_and_fail(table, check_yaml);
}

#[test]
fn a_request_that_does_not_begin_with_the_earlier_one_fails() {
    let mut r = requests();
    let mut changed = r.last.clone().expect("a last request");
    changed.messages[0] = Message::user("Найди сериал");
    r.last = Some(changed.clone());
    let mut other_system = changed;
    other_system.system = "another system".into();
    let last = outcome();
    let observed = |requests| Observed {
        active: Vec::new(),
        prompt: String::new(),
        history: String::new(),
        last: Some(&last),
        requests,
    };
    let e = expect("request_extends_step: 1");
    let why = check(&observed(&r), &e).expect_err("the first message differs");
    assert!(why.contains("does not begin with step 1's"), "{why}");
    let mut r2 = requests();
    r2.last = Some(other_system);
    let why = check(&observed(&r2), &e).expect_err("the system text differs");
    assert!(why.contains("does not begin with step 1's"), "{why}");
}

#[test]
fn request_checks_before_any_request_fail_and_an_empty_expectation_passes() {
    let none = Requests::default();
    let observed = Observed {
        active: Vec::new(),
        prompt: String::new(),
        history: String::new(),
        last: None,
        requests: &none,
    };
    let why = check(&observed, &expect("request_contains: [x]")).expect_err("no request yet");
    assert!(why.contains("no request was made yet"), "{why}");
    // No turn yet: the turn's checks see an empty, answered turn.
    assert_eq!(check(&observed, &expect("stop: answered")), Ok(()));
    assert!(check(&observed, &expect("executed: [x]")).is_err());
    assert_eq!(check(&observed, &expect("{}")), Ok(()));
}

/// A catalog that reports a fixed state.
struct FixedCatalog {
    run: Option<(String, usize)>,
    proposals: ProposalCounts,
}

impl ScenarioCatalog for FixedCatalog {
    fn toolset_dirs(&self) -> Vec<std::path::PathBuf> {
        Vec::new()
    }
    fn attach(&self, _: &mut Agent, _: Wrap<'_>) {}
    fn decide(&self, _: &str, _: DecideAction) -> Result<(), String> {
        Ok(())
    }
    fn run(&self, _: &str) -> Option<(String, usize)> {
        self.run.clone()
    }
    fn proposals(&self) -> ProposalCounts {
        self.proposals.clone()
    }
}

#[test]
fn catalog_expectations_pass_on_a_match_and_fail_on_a_mismatch() {
    let catalog = FixedCatalog {
        run: Some(("running".into(), 2)),
        proposals: ProposalCounts {
            pending: 1,
            accepted: 2,
            rejected: 0,
            error: Some("a personal protocol named \"x\" already exists".into()),
        },
    };
    let c = |yaml: &str| check_catalog(Some(&catalog), "s1", &expect(yaml));
    let table: &[(&str, &str, &str)] = &[
        (
            "run: {status: running}",
            "run: {status: done}",
            "the run is running, expected done",
        ),
        (
            "run: {open_steps: 2}",
            "run: {open_steps: 0}",
            "open steps Some(2), expected 0",
        ),
        (
            "proposals: {pending: 1}",
            "proposals: {pending: 0}",
            "1 pending proposal(s), expected 0",
        ),
        (
            "proposals: {accepted: 2}",
            "proposals: {accepted: 1}",
            "2 accepted proposal(s), expected 1",
        ),
        (
            "proposals: {rejected: 0}",
            "proposals: {rejected: 1}",
            "0 rejected proposal(s), expected 1",
        ),
        (
            "proposals: {error_contains: already exists}",
            "proposals: {error_contains: no steps}",
            "expected \"no steps\"",
        ),
    ];
    pass_and_fail(table, c);
    // A session without a run is `none`.
    let idle = FixedCatalog {
        run: None,
        proposals: ProposalCounts::default(),
    };
    let e = expect("run: {status: none}");
    assert_eq!(check_catalog(Some(&idle), "s1", &e), Ok(()));
    assert!(check_catalog(Some(&catalog), "s1", &e).is_err());
    assert!(check_catalog(Some(&idle), "s1", &expect("run: {open_steps: 0}")).is_err());
    // Catalog expectations need a catalog; the others do not look for one.
    let why = check_catalog(None, "s1", &e).expect_err("no catalog");
    assert!(why.contains("need `catalog:`"), "{why}");
    assert_eq!(check_catalog(None, "s1", &expect("stop: answered")), Ok(()));
}

#[test]
fn a_turn_must_end_with_the_assistant_and_never_leave_two_user_messages_in_a_row() {
    let ok = [Message::user("a"), Message::assistant("b")];
    assert_eq!(check_turn_shape(&ok), Ok(()));
    let twice = [
        Message::user("a"),
        Message::user("a again"),
        Message::assistant("b"),
    ];
    let why = check_turn_shape(&twice).expect_err("two user messages");
    assert!(why.contains("two user messages in a row at 0"), "{why}");
    let unanswered = [Message::user("a")];
    let why = check_turn_shape(&unanswered).expect_err("no reply");
    assert!(why.contains("no assistant message at the end"), "{why}");
    assert!(check_turn_shape(&[]).is_err());
}

/// Runs a scenario's text with no skills and no toolsets (the core tools only).
fn run(text: &str) -> Result<(), String> {
    let sc = parse_scenario(text)?;
    run_scenario(&sc, Path::new("."), &ScenarioDefaults::default())
}

#[test]
fn the_runner_fails_scenarios_that_break_its_rules() {
    let passes = "name: t\nsteps:\n  - user: привет\n    model: [Привет!]\n    expect: {reply_contains: [Привет], stop: answered}\n";
    assert_eq!(run(passes), Ok(()));
    let table: &[(&str, &str)] = &[
        (
            "name: t\nsteps:\n  - user: привет\n    model: [Привет!, unused]\n",
            "step 1: 1 of 2 model output(s) left unused",
        ),
        (
            "name: t\nsteps:\n  - user: привет\n    model: []\n",
            "step 1: the turn needed more than the 0 model output(s) given",
        ),
        (
            "name: t\nsteps:\n  - model: [Привет!]\n",
            "step 1: `model` without `user`",
        ),
        (
            "name: t\nsteps:\n  - user: a\n    queue: [b]\n    model: [c]\n",
            "step 1: `user` and `queue` in one step",
        ),
        (
            "name: t\nsteps:\n  - session: ' '\n",
            "step 1: empty session name",
        ),
        (
            "name: t\nsteps:\n  - user: привет\n    model: [Привет!]\n  - expect: {reply_contains: [Пока]}\n",
            "step 2: reply lacks \"Пока\"",
        ),
        (
            "name: t\ncatalog: [docs]\nsteps: []\n",
            "`catalog` needs a host with a catalog",
        ),
        (
            "name: t\ntool_hangs: [x]\nsteps: []\n",
            "`tool_hangs` needs a host that times its tools",
        ),
        (
            "name: t\nsteps:\n  - decide: {proposal: last, action: accept}\n",
            "step 1: `decide` needs `catalog:`",
        ),
        ("name: t\nclock: yesterday\nsteps: []\n", "bad clock"),
        ("name: t\nsteps:\n  - advance: soon\n", "step 1:"),
        ("name: t\nsurprise: 1\nsteps: []\n", "bad scenario YAML"),
    ];
    for (text, says) in table {
        match run(text) {
            Ok(()) => panic!("{text:?} passed"),
            Err(why) => assert!(why.contains(says), "{text:?}: {why}"),
        }
    }
}
