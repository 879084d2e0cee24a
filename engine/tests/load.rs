//! The engine on a busy phone: embeddings stop with their cancel and with the engine's close
//! (every decode is armed, not only a generation's), and a trim gives the chat context back
//! while the next turn of a trimmed session still answers as before.

mod common;

use std::time::Duration;

use common::{model_path, test_params, SMOLLM2};
use porfiry_engine::{
    CancelToken, Engine, EngineError, EngineParams, GenerateRequest, Message, TrimLevel,
};

/// Texts enough for many embedding decodes (16 texts a decode).
fn many_texts(tag: &str) -> Vec<String> {
    (0..160)
        .map(|i| format!("{tag} {i}: set a timer for {i} minutes and remind me to call mum"))
        .collect()
}

fn load() -> Engine {
    Engine::load(model_path(SMOLLM2), test_params()).expect("SmolLM2 loads")
}

#[test]
fn an_embedding_stops_with_its_cancel_and_the_engine_serves_on() {
    let engine = load();
    let texts = many_texts("cancel");
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let cancel = CancelToken::new();
    cancel.cancel();
    assert!(matches!(
        engine.embed_until(&refs, Some(&cancel)),
        Err(EngineError::Cancelled)
    ));
    // Cancelled in the middle: the call returns Cancelled, nothing half-made is kept.
    let cancel = CancelToken::new();
    let result = std::thread::scope(|s| {
        let call = s.spawn(|| engine.embed_until(&refs, Some(&cancel)));
        std::thread::sleep(Duration::from_millis(30));
        cancel.cancel();
        call.join().unwrap()
    });
    assert!(
        matches!(result, Err(EngineError::Cancelled)),
        "160 texts take many decodes; the cancel came within the first: {result:?}"
    );
    // The engine embeds on, the same texts included, whole.
    let vectors = engine.embed(&refs[..3]).expect("embeds after a cancel");
    assert_eq!(vectors.len(), 3);
    let query = engine
        .embed_query("what time is it")
        .expect("a request embeds");
    assert!(!query.is_empty());
}

#[test]
fn a_close_stops_an_embedding_in_flight() {
    let engine = load();
    let texts = many_texts("close");
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let stopper = engine.stopper();
    let result = std::thread::scope(|s| {
        let call = s.spawn(|| engine.embed(&refs));
        std::thread::sleep(Duration::from_millis(30));
        stopper.stop();
        call.join().unwrap()
    });
    assert!(
        matches!(result, Err(EngineError::Cancelled)),
        "an embedding no one cancelled stops when the engine closes: {result:?}"
    );
    // Everything after the stop ends at once, as cancelled, and the drop joins the worker.
    let mut req = GenerateRequest::new("s", "You are terse.", vec![Message::user("Hello")]);
    req.config.max_tokens = 8;
    let done = engine
        .generate(req, &mut |_| {})
        .expect("a stopped engine still answers");
    assert_eq!(done.stop, porfiry_engine::StopReason::Cancelled);
    drop(engine);
}

#[test]
fn a_trimmed_session_answers_as_before_and_the_head_comes_back_from_disk() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::load(
        model_path(SMOLLM2),
        EngineParams {
            snapshot_dir: Some(dir.path().to_path_buf()),
            ..test_params()
        },
    )
    .expect("SmolLM2 loads");
    let system = "You are Porfiry, a voice assistant. You answer in one short sentence. \
                  You can take notes, tell the time and play films.";
    let head = engine
        .prepare_head(system, &[])
        .expect("the head is prepared");
    assert!(head.tokens > 8);
    let ask = |history: Vec<Message>| {
        let mut req = GenerateRequest::new("s", system, history);
        req.config.max_tokens = 24;
        req.config.sampling.temperature = 0.0;
        engine.generate(req, &mut |_| {}).expect("answers")
    };
    let first = ask(vec![Message::user("What is the capital of France?")]);
    let history = vec![
        Message::user("What is the capital of France?"),
        Message::assistant(first.text.clone()),
        Message::user("And of Italy?"),
    ];
    let before = ask(history.clone());

    let caches = engine.trim(TrimLevel::Caches).expect("trims");
    assert!(!caches.context, "the caches level keeps the chat context");
    let report = engine.trim(TrimLevel::All).expect("trims");
    assert!(report.context);
    assert_eq!(report.sessions, 1, "{report:?}");
    let cache = engine.cache_report().unwrap();
    assert_eq!(cache.used, 0, "nothing is held after a trim");
    assert!(cache.heads.is_empty(), "the head left memory");

    let after = ask(history);
    assert_eq!(
        after.text, before.text,
        "the same greedy answer after a trim"
    );
    assert!(
        after.stats.reused_tokens >= head.tokens,
        "the head came back from its snapshot ({} tokens): {:?}",
        head.tokens,
        after.stats
    );
    // A second trim of a trimmed engine releases nothing more and breaks nothing.
    engine.trim(TrimLevel::All).unwrap();
    engine.trim(TrimLevel::All).unwrap();
    assert!(!ask(vec![Message::user("Hello")]).text.is_empty());
}

#[test]
fn android_levels_map_to_trims() {
    assert_eq!(TrimLevel::from_android(5), None);
    assert_eq!(TrimLevel::from_android(10), Some(TrimLevel::Caches));
    assert_eq!(TrimLevel::from_android(15), Some(TrimLevel::All));
    assert_eq!(TrimLevel::from_android(20), Some(TrimLevel::All));
    assert_eq!(TrimLevel::from_android(80), Some(TrimLevel::All));
    assert_eq!(TrimLevel::from_android(-3), None);
}
