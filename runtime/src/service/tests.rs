//! The service end to end on scripted models: turns, barge-in, session ends, hints, the
//! `onDone` figures, failures, close, and the timed host tools it runs.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crossbeam_channel::{unbounded, Receiver, Sender};
use porfiry_agent::{
    parse_toolset, Agent, AgentConfig, CancelToken, Generation, GenerationStats, Lang, Model,
    ModelError, ModelRequest, ScriptedModel, SkillRegistry, StopReason, SystemClock, Texts,
    ToolExecutor, ToolInvocation, ToolsetRegistry,
};
use porfiry_seam::Paced;
use serde_json::{json, Value};

use super::queue::lock;
use super::*;
use crate::host_tools::{HostFailure, TimedExecutor, ToolCounters};
use crate::runtime::Backend;
use crate::stats::TurnStats;
use crate::DEFAULT_TOOL_TIMEOUT;

struct ChannelSink(Sender<ServiceEvent>);

impl EventSink for ChannelSink {
    fn deliver(&mut self, event: ServiceEvent) -> bool {
        self.0.send(event).is_ok()
    }
}

/// An agent in `lang` with these toolsets (YAML) and no skills.
fn agent(lang: Lang, toolsets: &[&str]) -> Agent {
    let sets = toolsets.iter().map(|yaml| {
        parse_toolset(yaml, std::path::Path::new("test.yaml")).expect("a valid toolset")
    });
    Agent::new(
        AgentConfig {
            lang,
            ..AgentConfig::default()
        },
        SkillRegistry::default(),
        ToolsetRegistry::from_toolsets(sets),
        Arc::new(SystemClock),
    )
}

/// A service over `agent` and `model`.
fn service_of(agent: Agent, model: Box<dyn Model + Send>, info: Value) -> Service {
    let runtime = Runtime::from_parts(agent, Backend::Other(model), DEFAULT_TOOL_TIMEOUT);
    Service::start(runtime, info).unwrap()
}

/// A service answering every message in order (no barge-in).
fn in_order(agent: Agent, model: Box<dyn Model + Send>) -> Service {
    let runtime = Runtime::from_parts(agent, Backend::Other(model), DEFAULT_TOOL_TIMEOUT);
    Service::start_with(runtime, json!({}), ServicePolicy { barge_in: false }).unwrap()
}

/// A scripted model whose pieces come `delay_ms` apart.
fn scripted(outputs: &[&str], delay_ms: u64) -> Box<Paced<ScriptedModel>> {
    Box::new(Paced::new(
        ScriptedModel::new(outputs.iter().copied()),
        Duration::from_millis(delay_ms),
    ))
}

fn service(outputs: &[&str], delay_ms: u64) -> Service {
    let model = scripted(outputs, delay_ms);
    service_of(agent(Lang::Ru, &[]), model, json!({"kind": "test"}))
}

/// Sends a turn and collects its events up to the ending one.
fn turn(a: &Service, session: &str, text: &str) -> Receiver<ServiceEvent> {
    let (tx, rx) = unbounded();
    a.send(session, text, Box::new(ChannelSink(tx))).unwrap();
    rx
}

fn until_end(rx: &Receiver<ServiceEvent>) -> Vec<ServiceEvent> {
    let mut out = Vec::new();
    loop {
        let e = rx
            .recv_timeout(Duration::from_secs(10))
            .expect("turn ended");
        let last = matches!(e, ServiceEvent::Done(_) | ServiceEvent::Error(_));
        out.push(e);
        if last {
            return out;
        }
    }
}

#[test]
fn a_turn_streams_sentences_then_done() {
    let a = service(&["Да. Нет!"], 0);
    let events = until_end(&turn(&a, "s", "вопрос"));
    let sentences: Vec<&ServiceEvent> = events
        .iter()
        .filter(|e| matches!(e, ServiceEvent::Sentence(_)))
        .collect();
    assert_eq!(
        sentences,
        vec![
            &ServiceEvent::Sentence("Да.".into()),
            &ServiceEvent::Sentence("Нет!".into())
        ]
    );
    let ServiceEvent::Done(done) = events.last().unwrap() else {
        panic!("{events:?}")
    };
    assert_eq!(done["stop"], "answered");
    assert_eq!(done["text"], "Да. Нет!");
    a.close().unwrap();
    assert!(matches!(a.close(), Err(ServiceError::Closed)));
    assert!(matches!(a.stats(), Err(ServiceError::Closed)));
}

/// A scripted model that shares what it was asked: generated requests' user messages,
/// prefill hints' last user message, and the sessions it was told are over.
struct Recording {
    inner: ScriptedModel,
    seen: Arc<Mutex<Seen>>,
}

type Seen = (Vec<Vec<String>>, Vec<String>, Vec<String>);

fn users(messages: &[porfiry_agent::Message]) -> Vec<String> {
    messages
        .iter()
        .filter(|m| m.role == porfiry_agent::Role::User && !m.content.starts_with("Скиллы"))
        .map(|m| m.content.clone())
        .collect()
}

impl Model for Recording {
    fn generate(
        &mut self,
        request: &ModelRequest<'_>,
        on_text: &mut dyn FnMut(&str),
    ) -> Result<Generation, ModelError> {
        lock(&self.seen).0.push(users(request.messages));
        self.inner.generate(request, on_text)
    }
    fn decode_ahead(&mut self, request: &ModelRequest<'_>) -> Result<(), ModelError> {
        let last = users(request.messages).pop().unwrap_or_default();
        lock(&self.seen).1.push(last);
        Ok(())
    }
    fn end_session(&mut self, session: &str) -> Result<(), ModelError> {
        lock(&self.seen).2.push(session.to_string());
        Ok(())
    }
}

fn recording(outputs: &[&str]) -> (Service, Arc<Mutex<Seen>>) {
    let seen = Arc::new(Mutex::new((Vec::new(), Vec::new(), Vec::new())));
    let model = Box::new(Recording {
        inner: ScriptedModel::new(outputs.iter().copied()),
        seen: seen.clone(),
    });
    (service_of(agent(Lang::Ru, &[]), model, json!({})), seen)
}

/// [`recording`] answering in order (no barge-in).
fn recording_in_order(outputs: &[&str]) -> (Service, Arc<Mutex<Seen>>) {
    let seen = Arc::new(Mutex::new((Vec::new(), Vec::new(), Vec::new())));
    let model = Box::new(Recording {
        inner: ScriptedModel::new(outputs.iter().copied()),
        seen: seen.clone(),
    });
    (in_order(agent(Lang::Ru, &[]), model), seen)
}

/// A scripted model that keeps every request's messages as text.
struct Transcript {
    inner: ScriptedModel,
    requests: Arc<Mutex<Vec<String>>>,
}

impl Model for Transcript {
    fn generate(
        &mut self,
        request: &ModelRequest<'_>,
        on_text: &mut dyn FnMut(&str),
    ) -> Result<Generation, ModelError> {
        let text = porfiry_agent::render_history(request.messages);
        lock(&self.requests).push(text);
        self.inner.generate(request, on_text)
    }
}

fn done_of(rx: &Receiver<ServiceEvent>) -> Value {
    let events = until_end(rx);
    match events.last() {
        Some(ServiceEvent::Done(d)) => d.clone(),
        other => panic!("{other:?} in {events:?}"),
    }
}

#[test]
fn barge_in_interrupts_the_running_turn_and_merges_the_queued_ones() {
    let requests = Arc::new(Mutex::new(Vec::new()));
    let model = Box::new(Paced::new(
        Transcript {
            inner: ScriptedModel::new([
                "Первый длинный ответ, который никто не дослушал.",
                "Ответ на оба.",
            ]),
            requests: requests.clone(),
        },
        Duration::from_millis(20),
    ));
    let a = service_of(agent(Lang::Ru, &[]), model, json!({}));
    let (tx, first) = unbounded();
    a.send("s", "раз", Box::new(ChannelSink(tx))).unwrap();
    // Wait for the reply to stream 9 characters; the host says 6 of them were spoken.
    let mut streamed = 0;
    while streamed < 9 {
        match first
            .recv_timeout(Duration::from_secs(10))
            .expect("streaming")
        {
            ServiceEvent::Text(t) => streamed += t.chars().count(),
            ServiceEvent::Done(d) => panic!("ended early: {d}"),
            _ => {}
        }
    }
    assert!(a.delivered("s", 6).unwrap(), "a turn of s is running");
    assert!(
        !a.delivered("other", 6).unwrap(),
        "nothing runs in another session"
    );
    // The user speaks twice: the first message is queued behind the interrupted turn
    // and merged into the second.
    let second = turn(&a, "s", "два");
    let third = turn(&a, "s", "три");
    let d1 = done_of(&first);
    assert_eq!(d1["stop"], "cancelled", "{d1}");
    assert_eq!(d1["interrupted"], true, "{d1}");
    let d2 = done_of(&second);
    assert_eq!(d2["stop"], "merged", "{d2}");
    let d3 = done_of(&third);
    assert_eq!(d3["stop"], "answered", "{d3}");
    assert_eq!(d2["merged_into"], 3, "{d2}");
    assert_eq!(d3["text"], "Ответ на оба.");
    // The model saw what the user heard, marked, then one message with both texts:
    // never two user messages in a row.
    let seen = lock(&requests).clone();
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert!(
        seen[1].ends_with("user: раз\nassistant: Первый\n[перебит пользователем]\nuser: два\nтри"),
        "{}",
        seen[1]
    );
    let stats = a.stats().unwrap();
    assert_eq!(stats["merged"], 1, "{stats}");
    a.close().unwrap();
}

#[test]
fn a_newer_message_does_not_reach_across_an_ended_session() {
    let (a, seen) = recording(&["Раз.", "Два.", "Три."]);
    // Nothing runs yet for "s" beyond the first turn; "два" is queued before the end.
    let first = turn(&a, "s", "один");
    let second = turn(&a, "s", "два");
    a.end_session("s").unwrap();
    let third = turn(&a, "s", "три");
    let stops: Vec<Value> = [&first, &second, &third]
        .iter()
        .map(|rx| done_of(rx)["stop"].clone())
        .collect();
    // "один" was merged into "два" (or interrupted, had it started); "три" starts the
    // new conversation alone.
    assert_eq!(stops[2], "answered");
    let (turns, _, _) = lock(&seen).clone();
    assert_eq!(turns.last().unwrap(), &vec!["три".to_string()], "{turns:?}");
    assert!(!turns
        .iter()
        .flatten()
        .any(|u| u.contains("два") && u.contains("три")));
    a.close().unwrap();
}

#[test]
fn prepare_is_a_hint_that_changes_no_turn() {
    let (a, seen) = recording(&["Да."]);
    a.hear_partial("s", "вопр").unwrap();
    a.hear_partial("s", "вопрос").unwrap();
    assert!(matches!(
        a.hear_partial("", "x"),
        Err(ServiceError::InvalidArgument(_))
    ));
    // The prompt job queues behind the hints: when it answers, they have run.
    a.prompt("s").unwrap();
    let events = until_end(&turn(&a, "s", "вопрос"));
    let ServiceEvent::Done(done) = events.last().unwrap() else {
        panic!("{events:?}")
    };
    assert_eq!(done["text"], "Да.");
    // The newest hint reached the model (the older one too, if the worker took it up before
    // the newer was queued); they left no trace in the session: the turn's request holds one
    // user message.
    let (turns, hints, _) = lock(&seen).clone();
    assert_eq!(
        hints.last().map(String::as_str),
        Some("вопрос"),
        "{hints:?}"
    );
    assert!(hints.len() <= 2 && hints.iter().all(|h| h == "вопр" || h == "вопрос"));
    assert_eq!(turns, vec![vec!["вопрос".to_string()]]);
    a.close().unwrap();
    assert!(matches!(
        a.hear_partial("s", "x"),
        Err(ServiceError::Closed)
    ));
}

/// A sink that holds the worker at its turn's first event until `release` gets a message
/// (or is dropped), then passes the events on.
struct HeldSink {
    release: Receiver<()>,
    held: bool,
    out: Sender<ServiceEvent>,
}

impl EventSink for HeldSink {
    fn deliver(&mut self, event: ServiceEvent) -> bool {
        if !self.held {
            self.held = true;
            let _ = self.release.recv();
        }
        self.out.send(event).is_ok()
    }
}

/// Sends a turn whose first event holds the worker; returns its events and the release.
fn held_turn(a: &Service, session: &str, text: &str) -> (Receiver<ServiceEvent>, Sender<()>) {
    let (go, release) = crossbeam_channel::bounded(1);
    let (out, rx) = unbounded();
    let sink = HeldSink {
        release,
        held: false,
        out,
    };
    a.send(session, text, Box::new(sink)).unwrap();
    (rx, go)
}

#[test]
fn the_worker_takes_up_only_the_newest_hint_and_none_ahead_of_a_waiting_turn() {
    let (a, seen) = recording_in_order(&["Раз.", "Два.", "Три.", "Четыре."]);
    // Hints queued while the worker is busy: only the newest is decoded when it is free.
    let (first, go) = held_turn(&a, "s", "один");
    for partial in ["в", "во", "воп", "вопр"] {
        a.hear_partial("s", partial).unwrap();
    }
    a.hear_partial("t", "другой").unwrap();
    a.hear_partial("s", "вопрос").unwrap();
    go.send(()).unwrap();
    assert_eq!(done_of(&first)["stop"], "answered");
    // The prompt job queues behind the hints: when it answers, they have been taken up.
    a.prompt("s").unwrap();
    assert_eq!(lock(&seen).1, vec!["вопрос".to_string()]);

    // A hint queued ahead of a waiting turn is left: the reply someone waits for comes first.
    let (second, go) = held_turn(&a, "s", "два");
    a.hear_partial("u", "пока жду").unwrap();
    let third = turn(&a, "t", "три");
    go.send(()).unwrap();
    assert_eq!(done_of(&second)["stop"], "answered");
    assert_eq!(done_of(&third)["stop"], "answered");
    a.prompt("s").unwrap();
    assert_eq!(lock(&seen).1, vec!["вопрос".to_string()]);
    // With nothing waiting, a hint is taken up as before.
    a.hear_partial("u", "снова").unwrap();
    a.prompt("s").unwrap();
    assert_eq!(
        lock(&seen).1,
        vec!["вопрос".to_string(), "снова".to_string()]
    );

    // Hints queued before a close are not decoded: the close waits for the running turn
    // only. The turn is let go once the close has begun (it cannot return before).
    let (fourth, go) = held_turn(&a, "s", "четыре");
    a.hear_partial("s", "после").unwrap();
    std::thread::scope(|scope| {
        scope.spawn(|| {
            while a.stats().is_ok() {
                std::thread::sleep(Duration::from_millis(5));
            }
            // `close` marks the closing right after it takes the queue.
            std::thread::sleep(Duration::from_millis(50));
            let _ = go.send(());
        });
        a.close().unwrap();
    });
    let _ = until_end(&fourth);
    assert_eq!(
        lock(&seen).1,
        vec!["вопрос".to_string(), "снова".to_string()]
    );
}

#[test]
fn end_session_forgets_the_history_after_the_queued_turns() {
    let (a, seen) = recording_in_order(&["Раз.", "Два.", "Три.", "Четыре."]);
    let first = turn(&a, "s", "один");
    let other = turn(&a, "t", "чужой");
    // Queued behind the turns already sent: the first turn still runs in the session.
    a.end_session("s").unwrap();
    let second = turn(&a, "s", "два");
    let third = turn(&a, "s", "три");
    for rx in [&first, &other, &second, &third] {
        let events = until_end(rx);
        assert!(
            matches!(events.last(), Some(ServiceEvent::Done(d)) if d["stop"] == "answered"),
            "{events:?}"
        );
    }
    let (turns, _, ended) = lock(&seen).clone();
    assert_eq!(
        turns,
        vec![
            vec!["один".to_string()],
            vec!["чужой".to_string()],
            // A fresh start: nothing of the first turn is left.
            vec!["два".to_string()],
            vec!["два".to_string(), "три".to_string()],
        ]
    );
    assert_eq!(ended, vec!["s".to_string()], "the model heard the end");
    assert_eq!(
        a.cache_report().unwrap(),
        None,
        "no engine, no cache report"
    );
    let stats = a.stats().unwrap();
    assert_eq!(stats["sessions_ended"], 1);
    assert_eq!(stats["end_session_failures"], 0);
    assert!(matches!(
        a.end_session(""),
        Err(ServiceError::InvalidArgument(_))
    ));
    a.close().unwrap();
    assert!(matches!(a.end_session("s"), Err(ServiceError::Closed)));
}

/// A model that answers `TOOL_CALL: show_text|x` first and `Готово.` second, each with
/// its own figures.
struct Measured(usize);

impl Model for Measured {
    fn generate(
        &mut self,
        _request: &ModelRequest<'_>,
        on_text: &mut dyn FnMut(&str),
    ) -> Result<Generation, ModelError> {
        self.0 += 1;
        let (text, prompt, reused) = if self.0 == 1 {
            ("TOOL_CALL: show_text|x", 200, 150)
        } else {
            ("Готово.", 230, 215)
        };
        on_text(text);
        Ok(Generation {
            text: text.into(),
            stop: StopReason::EndOfTurn,
            stats: Some(GenerationStats {
                prompt_tokens: prompt,
                reused_tokens: reused,
                prefilled_tokens: prompt - reused,
                generated_tokens: 4,
                head_tokens: if self.0 == 1 { 150 } else { 0 },
                ttft_ms: 10.0 * self.0 as f64,
                ..GenerationStats::default()
            }),
            confidence: None,
        })
    }
}

#[test]
fn done_carries_the_turn_stats_under_their_own_names() {
    let a = service_of(agent(Lang::Ru, &[]), Box::new(Measured(0)), json!({}));
    let events = until_end(&turn(&a, "s", "покажи"));
    let Some(ServiceEvent::Done(done)) = events.last() else {
        panic!("{events:?}")
    };
    // Sums over the turn's two requests, and the last request's prompt apart.
    assert_eq!(done["generations"], 2);
    assert_eq!(done["prompt_tokens"], 430);
    assert_eq!(done["last_prompt_tokens"], 230);
    assert_eq!(done["reused_tokens"], 365);
    assert_eq!(done["prefilled_tokens"], 65);
    assert_eq!(done["head_tokens"], 150);
    assert_eq!(done["generated_tokens"], 8);
    assert_eq!(done["ttft_ms"], 10.0);
    assert_eq!(done["full_reprefills"], 0);
    assert_eq!(done["shown"], json!(["x"]));
    assert_eq!(done["executed"], json!(["show_text"]));
    assert_eq!(done["stop"], "answered");
    // Every TurnStats field is there, under the struct's own name.
    let stats: TurnStats = serde_json::from_value(done.clone()).unwrap();
    assert_eq!(stats.prompt_tokens, 430);
    assert!(stats.turn_ms > 0.0);
    assert_eq!(a.stats().unwrap()["last_turn"], *done);
    a.close().unwrap();
}

#[test]
fn an_exhausted_script_is_an_error_event_and_the_worker_keeps_serving() {
    let a = service(&["Один."], 0);
    until_end(&turn(&a, "s", "1"));
    let events = until_end(&turn(&a, "s", "2"));
    assert!(
        matches!(events.last(), Some(ServiceEvent::Error(m)) if m.contains("model error")),
        "{events:?}"
    );
    let stats = a.stats().unwrap();
    assert_eq!(stats["turns"], 2);
    assert_eq!(stats["failed"], 1);
}

#[test]
fn close_ends_the_running_turn_and_fails_the_queued_ones() {
    let a = service(
        &["Длинный ответ из многих слов, очень длинный.", "Второй."],
        20,
    );
    let first = turn(&a, "s", "1");
    let second = turn(&a, "t", "2");
    assert!(matches!(
        first.recv_timeout(Duration::from_secs(10)),
        Ok(ServiceEvent::Text(_))
    ));
    a.close().unwrap();
    let e1 = until_end(&first);
    assert!(
        matches!(e1.last(), Some(ServiceEvent::Done(d)) if d["stop"] == "cancelled"),
        "{e1:?}"
    );
    let e2 = until_end(&second);
    assert!(
        matches!(e2.last(), Some(ServiceEvent::Error(m)) if m.contains("closed")),
        "{e2:?}"
    );
    assert!(matches!(
        a.send("s", "x", Box::new(ChannelSink(unbounded().0))),
        Err(ServiceError::Closed)
    ));
}

/// A model that panics on its first generation and answers afterwards, keeping the
/// last request it answered as text.
struct Explosive(bool, Arc<Mutex<String>>);

impl Model for Explosive {
    fn generate(
        &mut self,
        request: &ModelRequest<'_>,
        on_text: &mut dyn FnMut(&str),
    ) -> Result<Generation, ModelError> {
        if !self.0 {
            self.0 = true;
            panic!("model bug");
        }
        *lock(&self.1) = porfiry_agent::render_history(request.messages);
        on_text("Цел.");
        Ok(Generation {
            text: "Цел.".into(),
            stop: StopReason::EndOfTurn,
            stats: None,
            confidence: None,
        })
    }
}

#[test]
fn a_panic_inside_a_turn_is_an_error_event_and_the_worker_survives() {
    let seen = Arc::new(Mutex::new(String::new()));
    let model = Box::new(Explosive(false, seen.clone()));
    let a = service_of(agent(Lang::Ru, &[]), model, json!({}));
    let events = until_end(&turn(&a, "s", "1"));
    assert!(
        matches!(events.last(), Some(ServiceEvent::Error(m)) if m == "internal error: model bug"),
        "{events:?}"
    );
    let events = until_end(&turn(&a, "s", "2"));
    assert!(
        matches!(events.last(), Some(ServiceEvent::Done(d)) if d["text"] == "Цел."),
        "{events:?}"
    );
    // The turn that panicked was closed for it: never two user messages in a row.
    let said = Texts::new(Lang::Ru).turn_model_failed();
    let request = lock(&seen).clone();
    assert!(
        request.ends_with(&format!("user: 1\nassistant: {said}\nuser: 2")),
        "{request}"
    );
    assert!(a.prompt("s").unwrap().contains("show_text"));
    a.close().unwrap();
}

struct Sleepy(Duration);

impl HostCall for Sleepy {
    fn call(&self, _tool: &str, args: &str) -> Result<String, HostFailure> {
        std::thread::sleep(self.0);
        match args {
            "panic" => panic!("executor bug"),
            "fail" => Err(HostFailure::Threw("boom".into())),
            "null" => Err(HostFailure::NoResult),
            "jni" => Err(HostFailure::Broken("JNI error".into())),
            _ => Ok(format!("got {args}")),
        }
    }
}

fn invoke(exec: &TimedExecutor, args: &porfiry_agent::Args) -> Result<String, String> {
    exec.execute(&ToolInvocation {
        session: "s",
        toolset: "media",
        tool: "media_search",
        args,
        cancel: &CancelToken::new(),
        time_left: None,
    })
}

#[test]
fn timed_executor_answers_fails_and_times_out() {
    let counters = Arc::new(ToolCounters::default());
    let decl = vec![porfiry_agent::ArgDecl {
        name: "query".into(),
        ty: porfiry_agent::ArgType::String,
        required: true,
        description: None,
        said: Vec::new(),
        ..Default::default()
    }];
    let args = |v: &str| {
        porfiry_agent::validate_args(&decl, &porfiry_agent::RawArgs::Parts(vec![v.to_string()]))
            .unwrap()
    };
    let quick = TimedExecutor::host(
        Arc::new(Sleepy(Duration::ZERO)),
        Duration::from_secs(5),
        Texts::new(Lang::En),
        counters.clone(),
    );
    assert_eq!(
        invoke(&quick, &args("кот 🐈")),
        Ok("got кот 🐈".to_string())
    );
    assert_eq!(invoke(&quick, &args("fail")), Err("boom".to_string()));
    assert_eq!(
        invoke(&quick, &args("panic")),
        Err("internal error: executor bug".to_string())
    );
    assert_eq!(
        invoke(&quick, &args("null")),
        Err("media_search returned no result".to_string())
    );
    assert_eq!(
        invoke(&quick, &args("jni")),
        Err("media_search failed: JNI error".to_string())
    );
    let slow = TimedExecutor::host(
        Arc::new(Sleepy(Duration::from_secs(2))),
        Duration::from_millis(50),
        Texts::new(Lang::Ru),
        counters.clone(),
    );
    let started = Instant::now();
    assert_eq!(
        invoke(&slow, &args("x")),
        Err("инструмент не ответил за 50 мс".to_string())
    );
    // The timeout fired: the reply came before the 2 s tool could have answered.
    assert!(started.elapsed() < Duration::from_millis(1900));
    assert_eq!(counters.timeouts.load(Ordering::Relaxed), 1);
    assert_eq!(counters.failures.load(Ordering::Relaxed), 4);
}

const SEARCH: &str = "\
name: media
description: media
tools:
  - name: media_search
    description: search
    args:
      - {name: query, type: string, required: true}
";

/// The reply the model got for a slow host tool, in a service of `lang`.
fn timeout_reply(lang: Lang) -> String {
    let a = service_of(
        agent(lang, &[SEARCH]),
        scripted(&["TOOL_CALL: media_search|x", "ok"], 0),
        json!({}),
    );
    let slow = Arc::new(Sleepy(Duration::from_secs(2)));
    a.register_toolset("media", slow, Duration::from_millis(50))
        .unwrap();
    let events = until_end(&turn(&a, "s", "q"));
    let timeouts = a.stats().unwrap()["tool_timeouts"].clone();
    a.close().unwrap();
    assert_eq!(timeouts, 1, "counted by the runtime's tool counters");
    events
        .into_iter()
        .find_map(|e| match e {
            ServiceEvent::ToolFinished { result, ok, .. } => {
                assert!(!ok, "{result}");
                Some(result)
            }
            _ => None,
        })
        .expect("the tool ran")
}

#[test]
fn tool_timeouts_speak_the_agent_language() {
    assert_eq!(
        timeout_reply(Lang::En),
        "Error in media_search: the tool did not answer within 50 ms"
    );
    assert_eq!(
        timeout_reply(Lang::Ru),
        "Ошибка media_search: инструмент не ответил за 50 мс"
    );
}
