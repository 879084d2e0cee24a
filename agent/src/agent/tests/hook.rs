//! The host's hook ([`HostHook`]): a running protocol's reminder on every request (request
//! only, the stable prefix untouched), the finish reminder, hidden notes, index lines.

use super::*;
use crate::model::Role;

/// A host's view of one session's protocol run, and its notes.
#[derive(Default)]
struct Fake {
    running: bool,
    open: usize,
    notes: Vec<HostNote>,
    index: Vec<String>,
}

#[derive(Default, Clone)]
struct FakeHook(Arc<Mutex<Fake>>);

impl FakeHook {
    fn set(&self, running: bool, open: usize) {
        let mut f = self.0.lock().unwrap();
        f.running = running;
        f.open = open;
    }
}

impl HostHook for FakeHook {
    fn reminder(&self, session: &str) -> Option<RunReminder> {
        let f = self.0.lock().unwrap();
        (f.running && session == "s").then(|| RunReminder {
            text: format!("[RUN open={}]", f.open),
            unfinished: (f.open == 0).then(|| "[FINISH IT]".to_string()),
        })
    }
    fn take_notes(&self, session: &str) -> Vec<HostNote> {
        if session != "s" {
            return Vec::new();
        }
        std::mem::take(&mut self.0.lock().unwrap().notes)
    }
    fn index_lines(&self) -> Vec<String> {
        self.0.lock().unwrap().index.clone()
    }
}

fn hooked() -> (Agent, FakeHook) {
    let (mut agent, _) = fixture();
    let hook = FakeHook::default();
    agent.set_host_hook(Some(Arc::new(hook.clone())));
    (agent, hook)
}

const SEARCH: [&str; 2] = ["TOOL_CALL: media_search|Дюна", "Нашёл Дюну."];

#[test]
fn a_running_protocol_rides_on_every_request_and_leaves_the_stable_prefix_alone() {
    let (mut plain, _) = fixture();
    let (mut agent, hook) = hooked();
    // A first exchange before the run: the same on both.
    let a = turn(&mut agent, "s", "Привет", &["Здравствуй."]);
    let b = turn(&mut plain, "s", "Привет", &["Здравствуй."]);
    assert_eq!(a.model.requests(), b.model.requests());
    assert_eq!(a.out.run_reminders, 0);

    hook.set(true, 2);
    let a = turn(&mut agent, "s", "Найди Дюну", &SEARCH);
    let b = turn(&mut plain, "s", "Найди Дюну", &SEARCH);
    assert_eq!(a.out.run_reminders, 2, "every request of the turn");
    assert_eq!(b.out.run_reminders, 0);
    let (with, without) = (a.model.requests(), b.model.requests());
    assert_eq!(with.len(), 2);
    let state = plain.prompt("s").dynamic_part().to_string();
    for (w, o) in with.iter().zip(without) {
        // The system text, the state message and the history before the turn's last
        // message are byte-identical; the reminder ends that last message — the request's
        // last, or the one before the state message when a toolset change just moved the
        // state to the end.
        assert_eq!(w.system, o.system);
        let n = o.messages.len();
        assert_eq!(w.messages.len(), n);
        let differ: Vec<usize> = (0..n).filter(|&i| w.messages[i] != o.messages[i]).collect();
        assert_eq!(differ.len(), 1, "{differ:?}");
        let p = differ[0];
        assert!(
            p == n - 1 || (p == n - 2 && o.messages[n - 1].content == state),
            "{p} of {n}"
        );
        let (lw, lo) = (&w.messages[p], &o.messages[p]);
        assert_eq!(lw.role, lo.role);
        assert_eq!(lw.content, format!("{}\n\n[RUN open=2]", lo.content));
    }
    assert_eq!(with[0].messages.last().unwrap().role, Role::User);
    assert!(with[1]
        .messages
        .iter()
        .any(|m| m.role == Role::Tool && m.content.ends_with("[RUN open=2]")));
    // The history never holds it.
    assert_eq!(agent.history("s"), plain.history("s"));
    assert!(!history(&agent, "s").contains("[RUN"));
    // Another session runs nothing.
    assert_eq!(
        turn(&mut agent, "t", "Привет", &["Да."]).out.run_reminders,
        0
    );

    // Finished: the requests are the plain agent's again.
    hook.set(false, 0);
    let a = turn(&mut agent, "s", "Спасибо", &["Пожалуйста."]);
    let b = turn(&mut plain, "s", "Спасибо", &["Пожалуйста."]);
    assert_eq!(a.out.run_reminders, 0);
    assert_eq!(a.model.requests(), b.model.requests());
    assert!(!text_of(&a.model.requests()[0]).contains("[RUN"));
}

#[test]
fn a_bare_reply_with_every_step_closed_gets_one_reminder_to_finish() {
    let (mut agent, hook) = hooked();
    // Steps still open: a bare reply ends the turn.
    hook.set(true, 1);
    let r = turn(&mut agent, "s", "Как дела?", &["Работаю."]);
    assert_eq!((r.out.finish_reminders, r.out.generations.len()), (0, 1));

    // No step open: one more generation, told to finish; once only.
    hook.set(true, 0);
    let r = turn(
        &mut agent,
        "s",
        "Готово?",
        &["Да, всё сделал.", "Всё готово."],
    );
    assert_eq!(r.out.stop, TurnStop::Answered);
    assert_eq!((r.out.finish_reminders, r.out.generations.len()), (1, 2));
    assert_eq!(r.out.reply, "Всё готово.");
    assert_eq!(
        r.out.streamed, "Да, всё сделал. Всё готово.",
        "set apart by a space"
    );
    let second = &r.model.requests()[1];
    let last = second.messages.last().unwrap();
    assert_eq!(
        (last.role, last.content.as_str()),
        (Role::User, "[FINISH IT]\n\n[RUN open=0]"),
        "the reminder to finish is in that request only"
    );
    let h = history(&agent, "s");
    assert!(
        h.contains("Да, всё сделал.") && h.contains("Всё готово."),
        "{h}"
    );
    assert!(!h.contains("[FINISH"), "{h}");

    // The extra generation closes the run with a call: the turn goes on from its result.
    let closer = hook.clone();
    agent.register_executor(
        ExecutorTarget::Tool("media_search".into()),
        Arc::new(move |_: &ToolInvocation<'_>| {
            closer.set(false, 0);
            Ok("closed".to_string())
        }),
    );
    let r = turn(
        &mut agent,
        "s",
        "Закрой",
        &["Сделано.", "TOOL_CALL: media_search|finish", "Закрыл."],
    );
    assert_eq!((r.out.finish_reminders, r.out.run_reminders), (1, 2));
    assert_eq!(executed(&r.out), ["media_search"]);
    assert_eq!(r.out.streamed, "Сделано. Закрыл.");
    assert!(!text_of(&r.model.requests()[2]).contains("[RUN"));

    // With one model call left there is no room for it.
    let (mut agent, hook) = {
        let (mut a, _) = fixture_with(AgentConfig {
            max_iterations: 1,
            ..AgentConfig::default()
        });
        let h = FakeHook::default();
        a.set_host_hook(Some(Arc::new(h.clone())));
        (a, h)
    };
    hook.set(true, 0);
    let r = turn(&mut agent, "s", "Готово?", &["Да."]);
    assert_eq!(
        (r.out.finish_reminders, r.out.stop),
        (0, TurnStop::Answered)
    );
}

#[test]
fn host_notes_are_hidden_tool_messages_of_the_next_turn_only() {
    let (mut agent, hook) = hooked();
    turn(&mut agent, "s", "Привет", &["Здравствуй."]);
    hook.0.lock().unwrap().notes.push(HostNote {
        tool: "skills_propose".into(),
        text: "The user accepted proposal #1.".into(),
    });
    // Another session does not get it.
    assert_eq!(turn(&mut agent, "t", "Привет", &["Да."]).out.notes, 0);
    let r = turn(&mut agent, "s", "Что дальше?", &["Протокол принят."]);
    assert_eq!(r.out.notes, 1);
    let msgs = agent.history("s");
    let n = msgs.len();
    assert_eq!(
        (msgs[n - 3].role, msgs[n - 3].content.as_str()),
        (Role::Tool, "The user accepted proposal #1.")
    );
    assert_eq!(msgs[n - 3].name.as_deref(), Some("skills_propose"));
    assert_eq!(
        (msgs[n - 2].role, msgs[n - 2].content.as_str()),
        (Role::User, "Что дальше?")
    );
    assert!(!r.out.streamed.contains("accepted"));
    assert!(text_of(&r.model.requests()[0]).contains("The user accepted proposal #1."));
    // Delivered once; it stays in the history like any tool result.
    let r = turn(&mut agent, "s", "А теперь?", &["Ничего."]);
    assert_eq!(r.out.notes, 0);
    assert_eq!(history(&agent, "s").matches("accepted proposal").count(), 1);
}

#[test]
fn index_lines_join_the_skills_index_and_no_hook_keeps_the_prompt() {
    let (mut plain, _) = fixture();
    let (mut agent, hook) = hooked();
    assert_eq!(agent.prompt("s").text(), plain.prompt("s").text());
    hook.0.lock().unwrap().index = vec!["tea — brewing (skills_load|tea)".into()];
    let with = agent.prompt("s");
    let without = plain.prompt("s");
    assert_eq!(with.static_prefix(), without.static_prefix());
    assert_eq!(
        with.text(),
        format!("{}\ntea — brewing (skills_load|tea)", without.text())
    );
    agent.set_host_hook(None);
    assert_eq!(agent.prompt("s").text(), without.text());
}
