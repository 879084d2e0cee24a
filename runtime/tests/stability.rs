//! The failure classes of docs/design.md (a voice agent loop on a robot) that need threads, timed
//! host tools or the worker [`Service`]: one test per class, named after it (`bug_NN_…`).
//! The catalogue is `docs/stability.md`; the agent-only classes are pinned in
//! `agent/tests/stability.rs` and `agent/tests/scenarios/bug_*.yaml`.
//!
//! Every wait here is bounded (`recv_timeout`), so a hang fails the test instead of stalling
//! the run.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crossbeam_channel::{unbounded, Receiver, RecvTimeoutError, Sender};
use porfiry_agent::{
    parse_toolset, Agent, AgentConfig, Generation, Lang, Model, ModelError, ModelErrorKind,
    ModelRequest, ScriptedModel, SkillRegistry, StopReason, SystemClock, Texts, ToolsetRegistry,
};
use porfiry_runtime::{
    Backend, EventSink, HostCall, HostFailure, Runtime, Service, ServiceEvent, DEFAULT_TOOL_TIMEOUT,
};
use porfiry_seam::Paced;
use serde_json::{json, Value};

const SEARCH: &str = "\
name: media
description: media
tools:
  - name: media_search
    description: search
    args:
      - {name: query, type: string, required: true}
";

/// Long enough for anything that should happen "at once" on a loaded 2-core machine, far
/// shorter than the stalls the tests set up.
const PROMPTLY: Duration = Duration::from_secs(3);

struct ChannelSink(Sender<ServiceEvent>);

impl EventSink for ChannelSink {
    fn deliver(&mut self, event: ServiceEvent) -> bool {
        self.0.send(event).is_ok()
    }
}

/// A Russian agent on the system clock with the media toolset, and `config`'s settings.
fn agent_with(config: AgentConfig) -> Agent {
    let set = parse_toolset(SEARCH, Path::new("media.yaml")).unwrap();
    Agent::new(
        AgentConfig {
            lang: Lang::Ru,
            ..config
        },
        SkillRegistry::default(),
        ToolsetRegistry::from_toolsets([set]),
        Arc::new(SystemClock),
    )
}

fn service(agent: Agent, model: impl Model + Send + 'static) -> Service {
    let runtime = Runtime::from_parts(agent, Backend::Other(Box::new(model)), DEFAULT_TOOL_TIMEOUT);
    Service::start(runtime, json!({})).unwrap()
}

fn send(a: &Service, session: &str, text: &str) -> Receiver<ServiceEvent> {
    let (tx, rx) = unbounded();
    a.send(session, text, Box::new(ChannelSink(tx))).unwrap();
    rx
}

fn is_end(e: &ServiceEvent) -> bool {
    matches!(e, ServiceEvent::Done(_) | ServiceEvent::Error(_))
}

/// The turn's events up to its ending one (bounded wait).
fn until_end(rx: &Receiver<ServiceEvent>) -> Vec<ServiceEvent> {
    let mut out = Vec::new();
    loop {
        let e = rx
            .recv_timeout(Duration::from_secs(20))
            .expect("the turn ended");
        let end = is_end(&e);
        out.push(e);
        if end {
            return out;
        }
    }
}

fn done_of(rx: &Receiver<ServiceEvent>) -> Value {
    let events = until_end(rx);
    match events.last() {
        Some(ServiceEvent::Done(d)) => d.clone(),
        other => panic!("{other:?} in {events:?}"),
    }
}

fn error_of(rx: &Receiver<ServiceEvent>) -> String {
    let events = until_end(rx);
    match events.last() {
        Some(ServiceEvent::Error(e)) => e.clone(),
        other => panic!("{other:?} in {events:?}"),
    }
}

/// Every event a turn's sink got until the worker dropped it (bounded wait).
fn all_events(rx: &Receiver<ServiceEvent>) -> Vec<ServiceEvent> {
    let mut out = Vec::new();
    let until = Instant::now() + Duration::from_secs(20);
    loop {
        match rx.recv_timeout(until.saturating_duration_since(Instant::now())) {
            Ok(e) => out.push(e),
            Err(RecvTimeoutError::Disconnected) => return out,
            Err(RecvTimeoutError::Timeout) => panic!("the sink was never released: {out:?}"),
        }
    }
}

/// A host tool that never returns (the robot's thread stuck on network I/O). Counts the
/// calls that entered it; none ever leaves.
#[derive(Default)]
struct Hangs {
    entered: AtomicUsize,
}

impl HostCall for Hangs {
    fn call(&self, _tool: &str, _args: &str) -> Result<String, HostFailure> {
        self.entered.fetch_add(1, Ordering::SeqCst);
        loop {
            std::thread::park();
        }
    }
}

// ---------------------------------------------------------------------------- BUG-1

/// BUG-1: `with ThreadPoolExecutor()` waited (`shutdown(wait=True)`) for a thread hung on
/// network I/O, and the callback thread that should hear the user was blocked for good. A
/// host tool runs on its own thread with a deadline (`TimedExecutor`): after the timeout the
/// model gets a tool error and the turn goes on; the stuck thread is never joined; the
/// caller's `send` never waits for the worker.
#[test]
fn bug_01_a_hung_host_tool_costs_its_thread_never_the_turn() {
    let a = service(
        agent_with(AgentConfig::default()),
        ScriptedModel::new([
            "TOOL_CALL: media_search|Дюна",
            "Поиск сейчас не отвечает.",
            "Привет!",
        ]),
    );
    let hangs = Arc::new(Hangs::default());
    a.register_toolset("media", hangs.clone(), Duration::from_millis(200))
        .unwrap();
    let started = Instant::now();
    let first = send(&a, "s", "Найди Дюну");
    assert!(
        started.elapsed() < Duration::from_millis(500),
        "send waited"
    );
    let events = until_end(&first);
    let took = started.elapsed();
    let Some(ServiceEvent::Done(done)) = events.last() else {
        panic!("{events:?}")
    };
    assert_eq!(done["stop"], "answered", "{done}");
    assert_eq!(done["text"], "Поиск сейчас не отвечает.");
    let reply = events.iter().find_map(|e| match e {
        ServiceEvent::ToolFinished { result, ok, .. } => Some((result.clone(), *ok)),
        _ => None,
    });
    assert_eq!(
        reply,
        Some((
            "Ошибка media_search: инструмент не ответил за 200 мс".to_string(),
            false
        ))
    );
    assert!(took < PROMPTLY, "the turn took {took:?}");
    // The tool's thread is still inside the call (it never leaves): nobody waited for it.
    assert_eq!(hangs.entered.load(Ordering::SeqCst), 1);
    // The next message is served as usual.
    let done = done_of(&send(&a, "s", "Привет"));
    assert_eq!(
        (done["stop"].clone(), done["text"].clone()),
        (json!("answered"), json!("Привет!"))
    );
    assert_eq!(a.stats().unwrap()["tool_timeouts"], 1);
    a.close().unwrap();
}

// ---------------------------------------------------------------------------- BUG-4

/// Fails its first `failures` generations (the model unavailable), then plays the script.
struct FailsFirst {
    failures: usize,
    inner: ScriptedModel,
}

impl Model for FailsFirst {
    fn generate(
        &mut self,
        request: &ModelRequest<'_>,
        on_text: &mut dyn FnMut(&str),
    ) -> Result<Generation, ModelError> {
        if self.failures > 0 {
            self.failures -= 1;
            return Err(ModelError::new(
                ModelErrorKind::Unavailable,
                "the model stalled",
            ));
        }
        self.inner.generate(request, on_text)
    }
}

/// BUG-4: a provider error counter survived from one dialogue into the next, so the first
/// timeout of a new dialogue already crossed the threshold ("error 4/3"). Nothing counts
/// failures across turns in a way that changes what a turn does: the agent keeps no counter,
/// the service's `failed` is a statistic only. Five failed turns in a row, then the model
/// works: the sixth turn is answered as the first would have been.
#[test]
fn bug_04_failed_turns_leave_no_counter_behind() {
    let a = service(
        agent_with(AgentConfig::default()),
        FailsFirst {
            failures: 5,
            inner: ScriptedModel::new(["Чечётка — это танец."]),
        },
    );
    for i in 1..=5 {
        let e = error_of(&send(&a, "s", &format!("Вопрос {i}")));
        assert!(e.contains("the model stalled"), "turn {i}: {e}");
    }
    let done = done_of(&send(&a, "s", "Что такое чечётка?"));
    assert_eq!(done["stop"], "answered", "{done}");
    assert_eq!(done["text"], "Чечётка — это танец.");
    assert_eq!(done["notice"], Value::Null);
    let stats = a.stats().unwrap();
    assert_eq!(
        (stats["turns"].clone(), stats["failed"].clone()),
        (json!(6), json!(5))
    );
    a.close().unwrap();
}

// ---------------------------------------------------------------------------- BUG-5

/// Plays one step per generation: a scripted output, a panic or an error.
struct Steps(Mutex<Vec<Step>>);

enum Step {
    Say(&'static str),
    Panic(&'static str),
    Fail(&'static str),
}

impl Model for Steps {
    fn generate(
        &mut self,
        _request: &ModelRequest<'_>,
        on_text: &mut dyn FnMut(&str),
    ) -> Result<Generation, ModelError> {
        let step = self.0.lock().unwrap().remove(0);
        match step {
            Step::Say(text) => {
                on_text(text);
                Ok(Generation {
                    text: text.into(),
                    stop: StopReason::EndOfTurn,
                    stats: None,
                    confidence: None,
                })
            }
            Step::Panic(msg) => panic!("{msg}"),
            Step::Fail(msg) => Err(ModelError::new(ModelErrorKind::Unavailable, msg)),
        }
    }
}

/// BUG-5: creating the continuation stream (after a tool call) raised outside any
/// `try`, the worker thread died silently and the caller learnt of it only from its own
/// 60 s timeout. A model's failure is a value (`Model::generate` returns `Result`): the turn
/// ends at once with `TurnStop::ModelError`; a panic inside a turn is caught by the worker
/// (`catch_unwind`) and reported as the turn's error; either way the turn's listener hears
/// at once and the worker goes on serving.
#[test]
fn bug_05_a_failing_or_panicking_continuation_ends_the_turn_at_once() {
    let a = service(
        agent_with(AgentConfig::default()),
        Steps(Mutex::new(vec![
            Step::Say("TOOL_CALL: get_current_time"),
            Step::Panic("failed to create the stream"),
            Step::Say("TOOL_CALL: get_current_time"),
            Step::Fail("connection reset"),
            Step::Say("Цел."),
        ])),
    );
    let started = Instant::now();
    let events = until_end(&send(&a, "s", "Который час?"));
    assert!(started.elapsed() < PROMPTLY, "{:?}", started.elapsed());
    assert!(
        events
            .iter()
            .any(|e| matches!(e, ServiceEvent::ToolFinished { name, ok: true, .. } if name == "get_current_time")),
        "the call before the failure ran: {events:?}"
    );
    assert_eq!(
        events.last(),
        Some(&ServiceEvent::Error(
            "internal error: failed to create the stream".into()
        ))
    );
    let started = Instant::now();
    let e = error_of(&send(&a, "s", "Который час?"));
    assert!(started.elapsed() < PROMPTLY, "{:?}", started.elapsed());
    assert!(
        e.starts_with("model error: ") && e.ends_with("connection reset"),
        "{e}"
    );
    let done = done_of(&send(&a, "s", "Ты цел?"));
    assert_eq!(done["text"], "Цел.");
    a.close().unwrap();
}

// ---------------------------------------------------------------------------- BUG-10

/// A model whose first generation stalls — no token comes — until the turn is cancelled or
/// its deadline (`ModelRequest::time_left`) passes, checking both every few milliseconds as
/// the engine checks them per token; later generations play the script.
struct Stalls {
    inner: ScriptedModel,
    stalled: Arc<AtomicBool>,
    calls: usize,
}

impl Model for Stalls {
    fn generate(
        &mut self,
        request: &ModelRequest<'_>,
        on_text: &mut dyn FnMut(&str),
    ) -> Result<Generation, ModelError> {
        self.calls += 1;
        if self.calls > 1 {
            return self.inner.generate(request, on_text);
        }
        self.stalled.store(true, Ordering::SeqCst);
        let started = Instant::now();
        let limit = request.time_left.unwrap_or(Duration::from_secs(60));
        let stop = loop {
            if request.cancel.is_cancelled() {
                break StopReason::Cancelled;
            }
            if started.elapsed() >= limit {
                break StopReason::Deadline;
            }
            std::thread::sleep(Duration::from_millis(2));
        };
        Ok(Generation {
            text: String::new(),
            stop,
            stats: None,
            confidence: None,
        })
    }
}

/// BUG-10 (1/2): a request timed out, its retry hung another 60 s, and "Robot, crow!" said
/// three times meanwhile waited in `pending_queries`. With barge-in (the service's default
/// policy) a new message of the session interrupts its running turn — the stalled
/// generation stops at its next cancel check — and is answered next.
#[test]
fn bug_10_a_stalled_turn_is_interrupted_by_the_next_message() {
    let stalled = Arc::new(AtomicBool::new(false));
    let a = service(
        agent_with(AgentConfig::default()),
        Stalls {
            inner: ScriptedModel::new(["Кукареку!"]),
            stalled: stalled.clone(),
            calls: 0,
        },
    );
    let first = send(&a, "s", "Расскажи длинную историю");
    let waiting = Instant::now();
    while !stalled.load(Ordering::SeqCst) {
        assert!(waiting.elapsed() < PROMPTLY, "the model was never called");
        std::thread::sleep(Duration::from_millis(2));
    }
    let spoke = Instant::now();
    let second = send(&a, "s", "Робот, покукарекай");
    let d1 = done_of(&first);
    assert_eq!(d1["stop"], "cancelled", "{d1}");
    let d2 = done_of(&second);
    assert_eq!(
        (d2["stop"].clone(), d2["text"].clone()),
        (json!("answered"), json!("Кукареку!"))
    );
    assert!(
        spoke.elapsed() < PROMPTLY,
        "answered after {:?}",
        spoke.elapsed()
    );
    a.close().unwrap();
}

/// BUG-10 (2/2): no stall adds up beyond the turn's budget by retries: a turn whose host
/// tool hangs (a 200 ms timeout) and whose next generation stalls ends when its budget
/// (here 600 ms; `AgentConfig::turn_budget`, handed to the model as the generation's
/// deadline) is spent, with `TurnStop::Deadline` and its spoken phrase; the next message is
/// served.
#[test]
fn bug_10_a_stalled_turn_ends_at_its_budget() {
    let budget = Duration::from_millis(600);
    let stalled = Arc::new(AtomicBool::new(false));
    let a = service(
        agent_with(AgentConfig {
            turn_budget: Some(budget),
            ..AgentConfig::default()
        }),
        Steps2 {
            first: Some("TOOL_CALL: media_search|Дюна"),
            then: Stalls {
                inner: ScriptedModel::new(["Привет!"]),
                stalled: stalled.clone(),
                calls: 0,
            },
        },
    );
    a.register_toolset(
        "media",
        Arc::new(Hangs::default()),
        Duration::from_millis(200),
    )
    .unwrap();
    let started = Instant::now();
    let done = done_of(&send(&a, "s", "Найди Дюну"));
    let took = started.elapsed();
    assert!(
        stalled.load(Ordering::SeqCst),
        "the second generation stalled"
    );
    assert_eq!(done["stop"], "deadline", "{done}");
    assert_eq!(done["notice"], Texts::new(Lang::Ru).turn_out_of_time());
    assert!(took >= budget, "ended before its budget: {took:?}");
    assert!(took < budget + PROMPTLY, "took {took:?}");
    let done = done_of(&send(&a, "s", "Привет"));
    assert_eq!(done["text"], "Привет!");
    a.close().unwrap();
}

/// Answers `first` once, then hands over to `then`.
struct Steps2<M> {
    first: Option<&'static str>,
    then: M,
}

impl<M: Model> Model for Steps2<M> {
    fn generate(
        &mut self,
        request: &ModelRequest<'_>,
        on_text: &mut dyn FnMut(&str),
    ) -> Result<Generation, ModelError> {
        match self.first.take() {
            Some(text) => {
                on_text(text);
                Ok(Generation {
                    text: text.into(),
                    stop: StopReason::EndOfTurn,
                    stats: None,
                    confidence: None,
                })
            }
            None => self.then.generate(request, on_text),
        }
    }
}

// ---------------------------------------------------------------------------- BUG-18

/// The terminal events among a turn's events.
fn ends(events: &[ServiceEvent]) -> Vec<&ServiceEvent> {
    events.iter().filter(|e| is_end(e)).collect()
}

/// BUG-18: after an interrupt, the queued messages were never processed (no timer was
/// armed) and the robot stopped answering. Every `send` ends with exactly one `Done` or
/// `Error`, whatever happens to it: interrupted by a newer message (`Done`, cancelled), merged
/// into a newer one while queued (`Done`, `merged`), answered, or left behind by `close`
/// (`Error`); after that event its listener is released.
#[test]
fn bug_18_every_message_ends_with_exactly_one_done_or_error() {
    let paced = |outputs: &[&'static str]| {
        Paced::new(
            ScriptedModel::new(outputs.iter().copied()),
            Duration::from_millis(20),
        )
    };
    let long = "Длинный ответ, который перебьют на полуслове, очень длинный.";
    let a = service(
        agent_with(AgentConfig::default()),
        paced(&[long, long, long, "Отвечаю на всё сразу."]),
    );
    let first = send(&a, "s", "раз");
    match first
        .recv_timeout(Duration::from_secs(10))
        .expect("streaming")
    {
        ServiceEvent::Text(_) => {}
        other => panic!("{other:?}"),
    }
    // Three more while the first speaks: it is interrupted; the queued ones are merged into
    // the newest (or, if the worker started one already, interrupted in turn); the newest
    // is answered.
    let rest: Vec<_> = ["два", "три", "четыре"]
        .iter()
        .map(|t| send(&a, "s", t))
        .collect();
    let mut all = vec![all_events(&first)];
    all.extend(rest.iter().map(all_events));
    for (i, events) in all.iter().enumerate() {
        assert_eq!(ends(events).len(), 1, "message {}: {events:?}", i + 1);
        assert!(
            is_end(events.last().unwrap()),
            "nothing after the end: {events:?}"
        );
    }
    let stops: Vec<String> = all
        .iter()
        .map(|events| match events.last() {
            Some(ServiceEvent::Done(d)) => d["stop"].as_str().unwrap_or_default().to_string(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        (stops[0].as_str(), stops[3].as_str()),
        ("cancelled", "answered"),
        "{stops:?}"
    );
    for s in &stops[1..3] {
        assert!(s == "merged" || s == "cancelled", "{stops:?}");
    }
    a.close().unwrap();

    // Closing with a turn running and one queued in another session: both end, once.
    let a = service(
        agent_with(AgentConfig::default()),
        paced(&[long, "Второй."]),
    );
    let running = send(&a, "s", "пять");
    match running
        .recv_timeout(Duration::from_secs(10))
        .expect("streaming")
    {
        ServiceEvent::Text(_) => {}
        other => panic!("{other:?}"),
    }
    let queued = send(&a, "t", "шесть");
    a.close().unwrap();
    let running = all_events(&running);
    let queued = all_events(&queued);
    assert_eq!(ends(&running).len(), 1, "{running:?}");
    assert!(matches!(running.last(), Some(ServiceEvent::Done(d)) if d["stop"] == "cancelled"));
    assert_eq!(ends(&queued).len(), 1, "{queued:?}");
    assert!(matches!(queued.last(), Some(ServiceEvent::Error(m)) if m.contains("closed")));

    // Without barge-in every message is answered, in order.
    let runtime = Runtime::from_parts(
        agent_with(AgentConfig::default()),
        Backend::Other(Box::new(paced(&["Раз.", "Два.", "Три."]))),
        DEFAULT_TOOL_TIMEOUT,
    );
    let a = Service::start_with(
        runtime,
        json!({}),
        porfiry_runtime::ServicePolicy { barge_in: false },
    )
    .unwrap();
    let turns: Vec<_> = ["1", "2", "3"].iter().map(|t| send(&a, "s", t)).collect();
    let texts: Vec<Value> = turns
        .iter()
        .map(|rx| {
            let events = all_events(rx);
            assert_eq!(ends(&events).len(), 1, "{events:?}");
            match events.last() {
                Some(ServiceEvent::Done(d)) => d["text"].clone(),
                other => panic!("{other:?}"),
            }
        })
        .collect();
    assert_eq!(texts, [json!("Раз."), json!("Два."), json!("Три.")]);
    a.close().unwrap();
}

// ---------------------------------------------------------------------------- BUG-19

/// Closes the service from inside its listener at the turn's first text, and reports how
/// the call went.
struct ClosingSink {
    service: Arc<Mutex<Option<Arc<Service>>>>,
    closed: Sender<Result<(), String>>,
    events: Sender<ServiceEvent>,
}

impl EventSink for ClosingSink {
    fn deliver(&mut self, event: ServiceEvent) -> bool {
        if matches!(event, ServiceEvent::Text(_)) {
            if let Some(s) = self.service.lock().unwrap().take() {
                let _ = self.closed.send(s.close().map_err(|e| e.to_string()));
            }
        }
        self.events.send(event).is_ok()
    }
}

/// BUG-19: recreating the client called `client.close()`, which waited for a lock a stale
/// streaming thread held while it waited on the network: everything froze for 10+ minutes.
/// Nothing in Porfiry waits for a stale thread: a hung tool's thread is never joined (so
/// `close` does not wait for it), no lock is held while a listener or a tool runs, and
/// `close` called from a listener (the worker's own thread) does not join itself.
#[test]
fn bug_19_close_never_waits_for_a_stale_thread_nor_for_itself() {
    let a = Arc::new(service(
        agent_with(AgentConfig::default()),
        Paced::new(
            ScriptedModel::new([
                "TOOL_CALL: media_search|Дюна",
                "Поиск не отвечает.",
                "Длинный ответ, который закроют из слушателя.",
            ]),
            Duration::from_millis(10),
        ),
    ));
    let hangs = Arc::new(Hangs::default());
    a.register_toolset("media", hangs.clone(), Duration::from_millis(100))
        .unwrap();
    // A stale thread: the tool's, stuck for good.
    let done = done_of(&send(&a, "s", "Найди Дюну"));
    assert_eq!(done["stop"], "answered", "{done}");
    assert_eq!(hangs.entered.load(Ordering::SeqCst), 1);

    // The listener of the next turn closes the service, on the worker's thread.
    let (closed_tx, closed) = unbounded();
    let (events_tx, events) = unbounded();
    let sink = ClosingSink {
        service: Arc::new(Mutex::new(Some(a.clone()))),
        closed: closed_tx,
        events: events_tx,
    };
    a.send("s", "Расскажи", Box::new(sink)).unwrap();
    assert_eq!(
        closed.recv_timeout(PROMPTLY).expect("close returned"),
        Ok(())
    );
    let events = all_events(&events);
    assert_eq!(ends(&events).len(), 1, "{events:?}");
    assert!(matches!(events.last(), Some(ServiceEvent::Done(d)) if d["stop"] == "cancelled"));
    // Closed for everyone, while the stale tool thread is still stuck in its call.
    assert!(a.close().is_err());
    assert!(a.stats().is_err());
}

/// BUG-19, with the worker inside a hung tool's wait: `close` cancels the running turn and
/// the wait ends at that cancel (`ToolInvocation::cancel`), so `close` returns at once — not
/// when the tool's timeout passes, and never when the tool returns (it never does). The
/// timeout is a minute: a `close` that waited for it would fail here by far.
#[test]
fn bug_19_close_during_a_hung_tool_does_not_wait_for_the_tool() {
    let timeout = Duration::from_secs(60);
    let a = service(
        agent_with(AgentConfig::default()),
        ScriptedModel::new(["TOOL_CALL: media_search|Дюна", "Не отвечает."]),
    );
    let hangs = Arc::new(Hangs::default());
    a.register_toolset("media", hangs.clone(), timeout).unwrap();
    let turn = send(&a, "s", "Найди Дюну");
    let waiting = Instant::now();
    while hangs.entered.load(Ordering::SeqCst) == 0 {
        assert!(waiting.elapsed() < PROMPTLY, "the tool was never called");
        std::thread::sleep(Duration::from_millis(2));
    }
    let closing = Instant::now();
    let (tx, rx) = unbounded();
    let a = Arc::new(a);
    let closer = a.clone();
    std::thread::spawn(move || {
        let _ = tx.send(closer.close().map_err(|e| e.to_string()));
    });
    assert_eq!(
        rx.recv_timeout(PROMPTLY)
            .expect("close returned without waiting for the tool"),
        Ok(())
    );
    assert!(closing.elapsed() < PROMPTLY, "{:?}", closing.elapsed());
    let events = all_events(&turn);
    assert_eq!(ends(&events).len(), 1, "{events:?}");
    assert!(
        matches!(ends(&events)[..], [ServiceEvent::Done(d)] if d["stop"] == "cancelled"),
        "{events:?}"
    );
    // The tool's thread is still inside its call: nobody waited for it.
    assert_eq!(hangs.entered.load(Ordering::SeqCst), 1);
}

/// BUG-10/19: the wait for a hung host tool ends with the turn — a barge-in (the next
/// message) or a close does not wait for the tool's timeout.
#[test]
fn bug_10_a_barge_in_during_a_hung_tool_does_not_wait_for_its_timeout() {
    let timeout = Duration::from_secs(60);
    let a = service(
        agent_with(AgentConfig::default()),
        ScriptedModel::new(["TOOL_CALL: media_search|Дюна", "Слушаю."]),
    );
    let hangs = Arc::new(Hangs::default());
    a.register_toolset("media", hangs.clone(), timeout).unwrap();
    let first = send(&a, "s", "Найди Дюну");
    let waiting = Instant::now();
    while hangs.entered.load(Ordering::SeqCst) == 0 {
        assert!(waiting.elapsed() < PROMPTLY, "the tool was never called");
        std::thread::sleep(Duration::from_millis(2));
    }
    let spoke = Instant::now();
    let second = send(&a, "s", "Стоп, не надо");
    let first_events = all_events(&first);
    assert!(
        spoke.elapsed() < PROMPTLY,
        "the interrupted turn ended at once, not after {timeout:?}"
    );
    assert!(
        matches!(ends(&first_events)[..], [ServiceEvent::Done(d)] if d["stop"] == "cancelled"),
        "{first_events:?}"
    );
    let second_events = all_events(&second);
    assert!(
        spoke.elapsed() < PROMPTLY,
        "the new message was answered at once"
    );
    assert!(
        matches!(ends(&second_events)[..], [ServiceEvent::Done(d)] if d["stop"] == "answered"),
        "{second_events:?}"
    );
    let closing = Instant::now();
    a.close().unwrap();
    assert!(closing.elapsed() < PROMPTLY);
}
