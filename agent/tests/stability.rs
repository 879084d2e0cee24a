//! The failure classes of docs/design.md (a voice agent loop on a robot) that the agent alone
//! closes, one test per class, named after it (`bug_NN_…`). The catalogue that maps each
//! class to its mechanism is `docs/stability.md`; classes pinned by a scenario live in
//! `tests/scenarios/bug_NN_*.yaml`, classes that need threads or a host in
//! `runtime/tests/stability.rs`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use porfiry_agent::{
    Agent, AgentConfig, CancelToken, ContextBudget, ContextWindow, ExecutorTarget, Generation,
    Lang, ManualClock, Message, Model, ModelError, ModelErrorKind, ModelRequest, RecordedRequest,
    Role, ScriptedModel, SectionKind, StopReason, Texts, ToolInvocation, TurnOutcome, TurnStop,
    CORE_TOOL_NAMES,
};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// An agent over the shipped skills and toolsets (media, notes: no executors here, so both
/// are left out of the prompt), on a manual clock.
fn agent_with(config: AgentConfig) -> (Agent, ManualClock) {
    let clock = ManualClock::parse("2026-08-22T10:00:00+03:00").unwrap();
    let loaded = Agent::load(
        config,
        &[root().join("skills")],
        &[root().join("toolsets")],
        Arc::new(clock.clone()),
    );
    assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
    (loaded.value, clock)
}

fn agent() -> (Agent, ManualClock) {
    agent_with(AgentConfig::default())
}

/// One user turn played by `model`.
fn turn_with(agent: &mut Agent, session: &str, user: &str, model: &mut dyn Model) -> TurnOutcome {
    agent
        .turn(session, user, model, &CancelToken::new(), &mut |_| {})
        .unwrap()
}

/// One user turn with these scripted outputs; returns the outcome and the model.
fn turn(
    agent: &mut Agent,
    session: &str,
    user: &str,
    outputs: &[&str],
) -> (TurnOutcome, ScriptedModel) {
    let mut model = ScriptedModel::new(outputs.iter().copied());
    let out = turn_with(agent, session, user, &mut model);
    assert_eq!(model.remaining(), 0, "outputs left unused: {out:?}");
    (out, model)
}

/// The first request of a turn, as (system, messages).
fn first_request(model: &ScriptedModel) -> (String, Vec<Message>) {
    let r: &RecordedRequest = &model.requests()[0];
    (r.system.clone(), r.messages.clone())
}

fn request_text(r: &RecordedRequest) -> String {
    format!(
        "system: {}\n{}",
        r.system,
        porfiry_agent::render_history(&r.messages)
    )
}

// ---------------------------------------------------------------------------- BUG-2

/// BUG-2: past sessions were preloaded into the conversation history at start-up, so a song
/// about a baby mammoth came out about raccoons. Nothing is ever loaded into a session: an
/// agent keeps no history on disk, sessions share nothing, and a new session's first
/// request is byte for byte the one a brand-new agent sends.
#[test]
fn bug_02_nothing_is_preloaded_into_a_new_conversation() {
    let (mut fresh, _) = agent();
    let (_, model) = turn(&mut fresh, "s", "Спой про мамонтёнка", &["Мама, мама!"]);
    let reference = first_request(&model);
    assert_eq!(
        reference.1,
        vec![Message::user("Спой про мамонтёнка")],
        "a new session's request carries the user's words alone"
    );

    // An agent that talked about raccoons at length in another session (and loaded from
    // the same folders, as a restarted host would be).
    let (mut used, _) = agent();
    for i in 1..=5 {
        turn(
            &mut used,
            "yesterday",
            &format!("Расскажи ещё про енотов, часть {i}"),
            &["TOOL_CALL: get_current_time", "Еноты полощут еду."],
        );
    }
    let (_, model) = turn(&mut used, "today", "Спой про мамонтёнка", &["Мама, мама!"]);
    assert_eq!(first_request(&model), reference);
    assert!(!request_text(&model.requests()[0]).contains("енот"));
    // A restarted agent over the same folders knows no session at all.
    let (restarted, _) = agent();
    assert_eq!(restarted.sessions().count(), 0);
    assert!(restarted.history("yesterday").is_empty());
}

// ---------------------------------------------------------------------------- BUG-3

/// BUG-3: the history was never cleared between dialogues and was bounded only by a
/// message count, so a new dialogue started at 8.8k tokens. A conversation's requests are
/// bounded in tokens (compaction in the request, the history keeps everything), nothing
/// clears the history by itself, and the host's explicit end of the conversation
/// (`Agent::end_session`) makes the next request the one a fresh session sends.
#[test]
fn bug_03_a_long_conversation_stays_in_the_context_and_ends_only_when_the_host_says() {
    let window = ContextWindow {
        tokens: 400,
        reply_tokens: 60,
    };
    let budget = ContextBudget::of(window);
    let (mut a, _) = agent();
    let talk = "и ещё немного слов про погоду дом кино музыку планы на вечер и ещё немного слов";
    let mut largest = 0;
    for i in 1..=40 {
        let mut model = ScriptedModel::new(["Хорошо, понял, продолжай."]).with_context(400, 60);
        let out = turn_with(&mut a, "s", &format!("Ход-{i} {talk}"), &mut model);
        assert_eq!(out.stop, TurnStop::Answered, "turn {i}: {out:?}");
        let tokens = model.requests()[0].tokens.unwrap();
        assert!(tokens <= budget.request, "turn {i}: {tokens} > {budget:?}");
        largest = largest.max(tokens);
    }
    // 40 turns of ~25 tokens each are 1,000+ tokens: only compaction kept the requests in.
    assert!(
        largest > budget.request / 2,
        "the dialogue did fill the context"
    );
    // Nothing was cleared: every message of the 40 turns is still there.
    let h = a.history("s");
    assert_eq!(h.len(), 80);
    assert!(h[0].content.starts_with("Ход-1 "));

    // The host ends the conversation: the next one starts as a fresh session does.
    let (mut fresh, _) = agent();
    let (_, reference) = turn(&mut fresh, "s", "Привет", &["Привет!"]);
    assert!(a.end_session("s"));
    let (_, model) = turn(&mut a, "s", "Привет", &["Привет!"]);
    assert_eq!(first_request(&model), first_request(&reference));
}

// ---------------------------------------------------------------------------- BUG-6

/// A model whose first generation stops at its own deadline (an engine with a
/// per-generation deadline shorter than the turn's: the "slow first token" of a provider),
/// then answers from the script.
struct DeadlineFirst {
    inner: ScriptedModel,
    calls: usize,
    /// What each request had left of the turn's budget.
    time_left: Vec<Option<Duration>>,
}

impl Model for DeadlineFirst {
    fn generate(
        &mut self,
        request: &ModelRequest<'_>,
        on_text: &mut dyn FnMut(&str),
    ) -> Result<Generation, ModelError> {
        self.calls += 1;
        self.time_left.push(request.time_left);
        if self.calls == 1 {
            on_text("Сейчас");
            return Ok(Generation {
                text: "Сейчас".into(),
                stop: StopReason::Deadline,
                stats: None,
                confidence: None,
            });
        }
        self.inner.generate(request, on_text)
    }
}

/// BUG-6: a timed-out request was retried automatically (and, with BUG-10, doubled the
/// silence). Nothing in Porfiry retries a generation: one that stops at its deadline ends
/// the turn with `TurnStop::Deadline` and one spoken catalog phrase, even with most of the
/// turn's budget left; the next user message is served as usual.
#[test]
fn bug_06_a_generation_that_hits_its_deadline_is_not_retried() {
    let (mut a, _) = agent();
    let mut model = DeadlineFirst {
        inner: ScriptedModel::new(["Десять утра."]),
        calls: 0,
        time_left: Vec::new(),
    };
    let mut spoken = String::new();
    let out = a
        .turn(
            "s",
            "Который час?",
            &mut model,
            &CancelToken::new(),
            &mut |e| {
                if let porfiry_agent::AgentEvent::Text(t) = e {
                    spoken.push_str(&t);
                }
            },
        )
        .unwrap();
    assert_eq!(out.stop, TurnStop::Deadline);
    assert_eq!(model.calls, 1, "no second request after a deadline");
    assert_eq!(model.inner.remaining(), 1);
    let said = Texts::new(Lang::Ru).turn_out_of_time();
    assert_eq!(out.notice.as_deref(), Some(said));
    assert_eq!(spoken.matches(said).count(), 1, "{spoken}");
    // Not for want of time: the turn had its whole budget (20 s by default) left.
    assert_eq!(model.time_left, [Some(Duration::from_secs(20))]);
    // The next message is served by the next generation.
    let out = turn_with(&mut a, "s", "Который час?", &mut model);
    assert_eq!(
        (out.stop, out.reply.as_str()),
        (TurnStop::Answered, "Десять утра.")
    );
    assert_eq!(model.calls, 2);
}

// ---------------------------------------------------------------------------- BUG-8

/// BUG-8: the model called `memory_context` (what did we talk about before) at iteration 13
/// of "sing about a baby mammoth", unasked. With the default guidance a turn is routed by
/// its request: a plain-reply route offers no call at all and stops the reply at
/// `TOOL_CALL:`, and a routed call is the turn's only one (the answer after it offers none).
/// The shipped `notes` toolset stands in for the robot's memory (`notes_list`: "what did I
/// ask you to remember?").
#[test]
fn bug_08_a_tool_the_user_did_not_ask_for_cannot_be_called() {
    let (mut a, _) = agent();
    a.register_executor(
        ExecutorTarget::Toolset("notes".into()),
        Arc::new(|c: &ToolInvocation<'_>| Ok(format!("{}: 1. ключи у соседа", c.tool))),
    );
    // A plain request; the model tries to look into the user's past anyway.
    let mut model = ScriptedModel::new(["Конечно!\nTOOL_CALL: notes_list"]).with_embeddings();
    let out = turn_with(&mut a, "s", "Придумай стишок про мамонтёнка", &mut model);
    let route = out.route.as_ref().expect("the turn is routed");
    assert_eq!(route.target, None, "a plain reply: {route:?}");
    let r = &model.requests()[0];
    assert_eq!(r.calls, Some(vec![]), "no call is offered");
    assert!(r.stop.iter().any(|s| s == "TOOL_CALL:"), "{:?}", r.stop);
    assert!(out.executed.is_empty(), "{:?}", out.executed);
    assert_eq!(
        (out.stop, out.reply.as_str()),
        (TurnStop::Answered, "Конечно!")
    );
    assert!(!porfiry_agent::render_history(a.history("s")).contains("notes_list"));

    // Asked for, the call runs — once: the answer after it can call nothing more.
    // (The routed call is decided: a forced reply, no scripted output used.)
    let mut model =
        ScriptedModel::new(["Ключи у соседа.\nTOOL_CALL: notes_add|x"]).with_embeddings();
    let out = turn_with(&mut a, "s", "Что я просил запомнить?", &mut model);
    assert_eq!(model.remaining(), 0);
    let names: Vec<&str> = out.executed.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["notes_list"], "{out:?}");
    assert_eq!(model.requests()[1].calls, Some(vec![]));
    assert_eq!(out.reply, "Ключи у соседа.");
}

// ---------------------------------------------------------------------------- BUG-9

/// BUG-9: a tool class existed but was never registered, so the model said "I have no
/// clock". The prompt and the dispatcher read the same tables: every core tool (the clock
/// among them) is in the prompt and runs; a declared host tool without an executor is
/// listed by `Agent::missing_executors` at start-up, its set is left out of the prompt and
/// the calls (`Technique::HideUnexecutable`), and a call made anyway answers "no executor
/// on this host" instead of failing silently.
#[test]
fn bug_09_every_advertised_tool_runs_and_a_missing_executor_is_named() {
    let (mut a, _) = agent();
    // The shipped sets' tools have no executor in a bare agent: all are named.
    let mut missing = a.missing_executors();
    missing.sort();
    assert_eq!(
        missing,
        [
            "media_info",
            "media_play",
            "media_search",
            "notes_add",
            "notes_delete",
            "notes_list"
        ]
    );
    assert_eq!(a.hidden_toolsets(), ["media", "notes"]);
    // Every core tool is in the prompt and dispatches (the clock needs no registration).
    let prompt = a.prompt("s").text().to_string();
    for name in CORE_TOOL_NAMES {
        assert!(prompt.contains(name), "{name} not in the prompt: {prompt}");
    }
    let (out, _) = turn(
        &mut a,
        "s",
        "Сколько времени?",
        &["TOOL_CALL: get_current_time", "Десять утра."],
    );
    assert_eq!(out.executed[0].name, "get_current_time");
    assert!(out.executed[0].ok && out.executed[0].result.starts_with("10:00"));

    // Registering an executor is what advertises a set: notes now run, media still do not.
    a.register_executor(
        ExecutorTarget::Toolset("notes".into()),
        Arc::new(|_: &ToolInvocation<'_>| Ok("Заметка 1 сохранена.".to_string())),
    );
    assert_eq!(a.hidden_toolsets(), ["media"]);
    assert!(a.prompt("s").text().contains("notes — "));
    assert!(!a.prompt("s").text().contains("media"));
    let mut missing = a.missing_executors();
    missing.sort();
    assert_eq!(missing, ["media_info", "media_play", "media_search"]);
    // A call to a declared tool without an executor is answered, not lost.
    let (out, _) = turn(
        &mut a,
        "s",
        "Найди Дюну",
        &[
            "TOOL_CALL: media_search|Дюна",
            "Поиска на этом устройстве нет.",
        ],
    );
    assert!(out.executed.is_empty());
    let reply = &out.tool_replies[0];
    assert_eq!(
        (reply.ok, reply.text.as_str()),
        (
            false,
            "Ошибка: для media_search нет исполнителя на этом устройстве."
        )
    );
    assert_eq!(out.stop, TurnStop::Answered);
}

// ---------------------------------------------------------------------------- BUG-14

/// BUG-14: 21 tools declared in every request (~3k tokens, overlapping tools, "just in
/// case" calls). Tools come in toolsets: a session's prompt declares the core tools and
/// one catalog line per set; a set's tools are declared only while it is active (after
/// `enable_toolset` or a call of one of its tools), and it expires 10 minutes after its
/// last call.
#[test]
fn bug_14_an_inactive_toolset_costs_one_catalog_line() {
    let (mut a, clock) = agent();
    let any = |_: &ToolInvocation<'_>| Ok::<_, String>("ok".to_string());
    a.register_executor(ExecutorTarget::Toolset("media".into()), Arc::new(any));
    a.register_executor(ExecutorTarget::Toolset("notes".into()), Arc::new(any));
    let tools = [
        "media_search",
        "media_info",
        "media_play",
        "notes_add",
        "notes_list",
        "notes_delete",
    ];
    let prompt = a.prompt("s");
    let idle = prompt.text().to_string();
    for t in tools {
        assert!(
            !idle.contains(t),
            "{t} declared while its set is off: {idle}"
        );
    }
    // The catalog: its header and one line per set, nothing else.
    let catalog: Vec<&str> = prompt
        .sections()
        .iter()
        .find(|s| s.kind == SectionKind::ToolsetIndex)
        .expect("a catalog section")
        .text
        .lines()
        .skip(1)
        .collect();
    assert_eq!(
        catalog,
        [
            "media — управление медиа и воспроизведением (search/info/play)",
            "notes — заметки пользователя (записать, показать, удалить)"
        ]
    );

    // Enabled, media's tools are declared; notes' are not.
    let (out, _) = turn(
        &mut a,
        "s",
        "Давай про кино",
        &["TOOL_CALL: enable_toolset|media", "Что ищем?"],
    );
    assert_eq!(out.stop, TurnStop::Answered);
    let on = a.prompt("s").text().to_string();
    for t in &tools[..3] {
        assert!(on.contains(&format!("{t}|")), "{t} missing: {on}");
    }
    for t in &tools[3..] {
        assert!(!on.contains(t), "{t} declared: {on}");
    }
    // Ten minutes without a media call: the set goes, and its tools with it.
    clock.advance(Duration::from_secs(601));
    assert_eq!(a.prompt("s").text(), idle);
}

// ---------------------------------------------------------------------------- BUG-17

/// A model that fails every generation with `kind`.
struct Failing(ModelErrorKind);

impl Model for Failing {
    fn generate(
        &mut self,
        _: &ModelRequest<'_>,
        _: &mut dyn FnMut(&str),
    ) -> Result<Generation, ModelError> {
        Err(ModelError::new(self.0, "the model stalled"))
    }
}

/// BUG-17: the "not in the mood to think" phrase was spoken at the first timeout, before
/// the error threshold it was meant for (a counter across turns decided what was said).
/// The agent keeps no counter across turns: the phrase of a turn without an answer comes
/// from that turn's own stop alone — a failed model says "could not answer", a deadline
/// "ran out of time", the iteration limit "could not finish" — spoken once, the same at
/// the first failure as at the fifth, and a following turn that works answers normally.
#[test]
fn bug_17_what_a_failed_turn_says_depends_on_that_turn_alone() {
    let texts = Texts::new(Lang::Ru);
    let (mut a, clock) = agent_with(AgentConfig {
        max_iterations: 2,
        ..AgentConfig::default()
    });
    let failed = |a: &mut Agent, i: usize| {
        let mut spoken = String::new();
        let out = a
            .turn(
                "s",
                &format!("Вопрос {i}"),
                &mut Failing(ModelErrorKind::Unavailable),
                &CancelToken::new(),
                &mut |e| {
                    if let porfiry_agent::AgentEvent::Text(t) = e {
                        spoken.push_str(&t);
                    }
                },
            )
            .unwrap();
        assert!(matches!(out.stop, TurnStop::ModelError(_)), "{out:?}");
        assert_eq!(
            out.notice.as_deref(),
            Some(texts.turn_model_failed()),
            "turn {i}"
        );
        assert_eq!(spoken, texts.turn_model_failed(), "said once, turn {i}");
    };
    // The first failure and the fifth say the same.
    for i in 1..=5 {
        failed(&mut a, i);
    }
    // Other stops say their own phrase, whatever failed before.
    let mut slow = ScriptedModel::new(["Сейчас посмотрю, который час."])
        .taking(clock.clone(), Duration::from_secs(30));
    let out = turn_with(&mut a, "s", "Который час?", &mut slow);
    assert_eq!(
        (out.stop.clone(), out.notice.as_deref()),
        (TurnStop::Deadline, Some(texts.turn_out_of_time()))
    );
    let (out, _) = turn(
        &mut a,
        "s",
        "Ищи",
        &["TOOL_CALL: get_current_time", "TOOL_CALL: get_current_time"],
    );
    assert_eq!(
        (out.stop.clone(), out.notice.as_deref()),
        (TurnStop::MaxIterations, Some(texts.turn_too_many_steps()))
    );
    failed(&mut a, 6);
    // And a model that works is simply answered.
    let (out, _) = turn(&mut a, "s", "Привет", &["Привет!"]);
    assert_eq!(
        (out.stop, out.notice, out.reply.as_str()),
        (TurnStop::Answered, None, "Привет!")
    );
    // Every failed turn closed with its phrase: never two user messages in a row.
    let h = a.history("s");
    assert!(h
        .windows(2)
        .all(|w| !(w[0].role == Role::User && w[1].role == Role::User)));
}
