//! Over-long user input through the service's send path — what the bridge's `send` calls
//! after turning the Java strings into Rust ones (RELIABILITY.md). On the real Gemma with a small
//! context: messages of 200 KB, 1 MB and 5 MB are each answered (the request compacted to
//! the budget), the worker survives, and the next ordinary message is answered.
//!
//! Pins R11 (RELIABILITY.md: the routed call's reply prefix was not counted, so a cut
//! request came out 8 tokens over the budget and the engine refused it) and R12 (a 5 MB
//! message's turn did not end within 300 s).

use std::time::Duration;

use crossbeam_channel::{unbounded, Receiver, Sender};
use porfiry_agent::{AgentConfig, Lang};
use porfiry_engine::GenerateConfig;
use porfiry_models::ModelStore;
use porfiry_runtime::{EventSink, NoProgress, Runtime, RuntimeConfig, Service, ServiceEvent};
use serde_json::{json, Value};

struct ChannelSink(Sender<ServiceEvent>);

impl EventSink for ChannelSink {
    fn deliver(&mut self, event: ServiceEvent) -> bool {
        self.0.send(event).is_ok()
    }
}

fn send(service: &Service, text: &str) -> Receiver<ServiceEvent> {
    let (tx, rx) = unbounded();
    service
        .send("long", text, Box::new(ChannelSink(tx)))
        .expect("the service takes the message");
    rx
}

/// The turn's ending event: its `Done`, or its `Error` text (a generous bound: a debug
/// build on a loaded machine).
fn end(rx: &Receiver<ServiceEvent>) -> Result<Value, String> {
    loop {
        match rx.recv_timeout(Duration::from_secs(300)) {
            Ok(ServiceEvent::Done(d)) => return Ok(d),
            Ok(ServiceEvent::Error(e)) => return Err(e),
            Ok(_) => {}
            Err(e) => panic!("the turn never ended: {e}"),
        }
    }
}

/// `bytes` of Russian words (a valid UTF-8 text of about that size).
fn words(bytes: usize) -> String {
    let mut s = String::with_capacity(bytes + 16);
    let mut i = 0usize;
    while s.len() < bytes {
        s.push_str(["слово ", "ещё ", "длинный ", "текст\n"][i % 4]);
        i += 1;
    }
    s
}

fn service() -> Service {
    let store = ModelStore::open_default().expect("manifest");
    let spec = store
        .manifest()
        .get("gemma-3-270m-q4_k_m")
        .expect("known id")
        .clone();
    let model = store.path_of(&spec);
    assert!(
        model.is_file(),
        "run `./run models fetch`: {} is missing",
        model.display()
    );
    let data = tempfile::tempdir().unwrap();
    let config = RuntimeConfig {
        model: Some(model.to_string_lossy().into_owned()),
        fetch: false,
        n_ctx: Some(512),
        head_snapshots: false,
        data_dir: Some(data.path().to_path_buf()),
        generate: GenerateConfig::greedy(6),
        agent: AgentConfig {
            lang: Lang::Ru,
            turn_budget: None,
            ..AgentConfig::default()
        },
        ..RuntimeConfig::default()
    };
    let (runtime, _) = Runtime::open(&config, &NoProgress).expect("the runtime opens");
    Service::start(runtime, json!({})).expect("the service starts")
}

#[test]
fn messages_of_200_kb_1_mb_and_5_mb_are_answered_within_the_budget() {
    let service = service();
    // n_ctx 512 less the reply room (6 tokens).
    let budget = 506;
    for size in [200_000, 1_000_000, 5_000_000] {
        let d = end(&send(&service, &words(size)))
            .unwrap_or_else(|e| panic!("{size} bytes: the turn ended with an error: {e}"));
        eprintln!(
            "{size} bytes: stop {}, request {} tokens, {} dropped, {} ms",
            d["stop"], d["request_tokens"], d["tokens_dropped"], d["turn_ms"]
        );
        assert_eq!(d["stop"], "answered", "{size} bytes: {d}");
        let request = d["request_tokens"].as_u64().expect("request_tokens");
        assert!(request <= budget, "{size} bytes: {request} > {budget}: {d}");
        assert!(d["tokens_dropped"].as_u64().unwrap_or(0) > 0, "{d}");
    }
    // The worker is alive and the next ordinary message is a normal turn.
    let d = end(&send(&service, "Привет!")).expect("the next turn is answered");
    assert_eq!(d["stop"], "answered", "{d}");
    assert_eq!(service.stats().expect("stats")["failed"], 0);
}
