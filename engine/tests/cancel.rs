//! Cancellation on the real model (Gemma 3 270M): a cancel inside a long prefill and one
//! inside the reply end the stream with `StopReason::Cancelled` (a deadline inside the
//! prefill with `StopReason::Deadline`), the engine keeps exactly
//! what llama.cpp holds, and the next request of the session reuses it — also when the
//! history keeps only the delivered part of the interrupted reply (barge-in).
//!
//! Mechanics only: how fast a cancel lands is measured by `porfiry bench cancel`.

mod common;

use std::time::Duration;

use common::{gemma, model_path, GEMMA};
use porfiry_engine::{
    Completion, Engine, Event, GenerateConfig, GenerateRequest, Message, StopReason, Tokenizer,
};

const SYSTEM: &str = "You are Porfiry, a helpful voice assistant. Answer briefly.";

fn request(session: &str, messages: Vec<Message>, max_tokens: usize) -> GenerateRequest {
    let mut config = GenerateConfig::greedy(max_tokens);
    config.tool_call_grammar = None;
    GenerateRequest::new(session, SYSTEM, messages).with_config(config)
}

/// Run `req`; `cancel_when(texts_seen)` is asked after every text piece (and once with 0
/// right after submitting) whether to cancel now.
fn run_until(
    engine: &Engine,
    req: GenerateRequest,
    cancel_when: &mut dyn FnMut(usize) -> bool,
) -> Completion {
    let cancel = req.cancel.clone();
    let rx = engine.submit(req).expect("submit");
    if cancel_when(0) {
        cancel.cancel();
    }
    let mut pieces = 0;
    loop {
        match rx.recv_timeout(Duration::from_secs(120)).expect("an event") {
            Event::Text(_) => {
                pieces += 1;
                if cancel_when(pieces) {
                    cancel.cancel();
                }
            }
            Event::Done(c) => return c,
            Event::Error(e) => panic!("{e}"),
        }
    }
}

fn complete(engine: &Engine, req: GenerateRequest) -> Completion {
    run_until(engine, req, &mut |_| false)
}

/// Tokens the engine's book says `session`'s sequence holds.
fn held(engine: &Engine, session: &str) -> usize {
    let report = engine.cache_report().expect("cache report");
    report
        .seqs
        .iter()
        .find(|s| s.session.as_deref() == Some(session))
        .map_or(0, |s| s.tokens)
}

#[test]
fn a_cancel_inside_a_long_prefill_keeps_what_llama_cpp_holds_for_the_next_request() {
    let g = gemma();
    let words = [
        "river", "stone", "lamp", "garden", "north", "violin", "bread",
    ];
    let long: String = (0..1500)
        .map(|i| format!("{} ", words[i * 5 % words.len()]))
        .collect();
    let messages = vec![Message::user(format!("Summarize these words: {long}"))];
    let prompt_len = g.render(SYSTEM, &messages).unwrap().tokens.len();
    assert!(prompt_len >= 1500, "{prompt_len}");

    // A cancel from another thread after `delay`; shorter and shorter until it lands inside
    // the prefill (the delay only aims, nothing here asserts time; starting long, it tends
    // to land after a batch or two, so that something is kept).
    let session = "prefill-cancel";
    let mut delay = Duration::from_secs(4);
    let done = loop {
        g.clear_cache().unwrap();
        let req = request(session, messages.clone(), 8);
        let cancel = req.cancel.clone();
        let timer = std::thread::spawn(move || {
            std::thread::sleep(delay);
            cancel.cancel();
        });
        let done = complete(&g, req);
        timer.join().unwrap();
        // A machine fast enough to finish before the cancel came: aim earlier.
        if done.stop != StopReason::MaxTokens {
            assert_eq!(done.stop, StopReason::Cancelled, "{done:?}");
            let s = &done.stats;
            if s.generated_tokens == 0 && s.reused_tokens + s.prefilled_tokens < prompt_len {
                break done;
            }
        }
        assert!(
            delay > Duration::from_millis(10),
            "never landed in the prefill"
        );
        delay /= 2;
    };
    assert!(done.text.is_empty() && done.tokens.is_empty(), "{done:?}");
    let s = &done.stats;
    eprintln!("cancelled {delay:?} after submission: {s:?}");
    assert_eq!(s.prompt_tokens, prompt_len);
    assert!(s.prefilled_tokens < prompt_len, "{s:?}");

    // The book holds what was reused plus the batches finished before the cancel, and the
    // next request of the session reuses exactly that.
    let kept = held(&g, session);
    assert_eq!(kept, s.reused_tokens + s.prefilled_tokens, "{s:?}");
    let next = complete(&g, request(session, messages, 2));
    assert_ne!(next.stop, StopReason::Cancelled);
    assert_eq!(next.stats.reused_tokens, kept, "{:?}", next.stats);
    assert_eq!(next.stats.prefilled_tokens, prompt_len - kept);
}

#[test]
fn a_deadline_inside_a_long_prefill_ends_it_the_same_way() {
    let g = gemma();
    let words = [
        "violin", "north", "bread", "lamp", "stone", "garden", "river",
    ];
    let long: String = (0..1500)
        .map(|i| format!("{} ", words[i * 3 % words.len()]))
        .collect();
    let messages = vec![Message::user(format!("Count these words: {long}"))];
    let prompt_len = g.render(SYSTEM, &messages).unwrap().tokens.len();
    let session = "prefill-deadline";
    let mut deadline = Duration::from_secs(4);
    let done = loop {
        g.clear_cache().unwrap();
        let mut req = request(session, messages.clone(), 8);
        req.config.deadline = Some(deadline);
        let done = complete(&g, req);
        // A machine fast enough to finish before the deadline: aim earlier.
        if done.stop != StopReason::MaxTokens {
            assert_eq!(done.stop, StopReason::Deadline, "{done:?}");
            let s = &done.stats;
            if s.generated_tokens == 0 && s.reused_tokens + s.prefilled_tokens < prompt_len {
                break done;
            }
        }
        assert!(
            deadline > Duration::from_millis(10),
            "never ran out in the prefill"
        );
        deadline /= 2;
    };
    let s = &done.stats;
    eprintln!("deadline {deadline:?}: {s:?}");
    let kept = held(&g, session);
    assert_eq!(kept, s.reused_tokens + s.prefilled_tokens, "{s:?}");
    let next = complete(&g, request(session, messages, 2));
    assert_ne!(next.stop, StopReason::Deadline);
    assert_eq!(next.stats.reused_tokens, kept, "{:?}", next.stats);
}

#[test]
fn a_cancel_inside_the_reply_keeps_its_tokens_for_the_next_request_and_a_barge_in() {
    let g = gemma();
    let tokenizer = Tokenizer::load(model_path(GEMMA), None).unwrap();
    let messages = vec![Message::user(
        "Count from one to one hundred: 1, 2, 3, 4, 5,",
    )];
    let session = "decode-cancel";
    let cancel_after = 12;
    let cancelled = |g: &Engine| {
        g.clear_cache().unwrap();
        let done = run_until(g, request(session, messages.clone(), 200), &mut |n| {
            n == cancel_after
        });
        assert_eq!(done.stop, StopReason::Cancelled, "{done:?}");
        let s = &done.stats;
        assert!(s.generated_tokens >= cancel_after, "{s:?}");
        assert_eq!(
            s.reused_tokens + s.prefilled_tokens,
            s.prompt_tokens,
            "{s:?}"
        );
        // Every sampled token was decoded, except perhaps the one whose decode the cancel
        // stopped.
        let kept = held(g, session);
        let g_tokens = s.generated_tokens;
        assert!(
            (s.prompt_tokens + g_tokens - 1..=s.prompt_tokens + g_tokens).contains(&kept),
            "held {kept}, {s:?}"
        );
        (done, kept)
    };

    // The whole streamed reply in the history: everything held is reused.
    let (done, kept) = cancelled(&g);
    let mut history = messages.clone();
    history.push(Message::assistant(done.text.clone()));
    history.push(Message::user("Go on."));
    let next = complete(&g, request(session, history, 4));
    assert_ne!(next.stop, StopReason::Cancelled);
    assert_eq!(next.stats.reused_tokens, kept, "{:?}", next.stats);

    // Barge-in: the history keeps what the user heard (about half of it) and a marker.
    let (done, kept) = cancelled(&g);
    let chars = done.text.chars().count();
    let cut = done
        .text
        .char_indices()
        .nth(chars / 2)
        .map_or(done.text.len(), |(i, _)| i);
    let heard = &done.text[..cut];
    // The reply tokens that spell the start of what was heard.
    let mut spelled = String::new();
    let mut heard_tokens = 0;
    for t in &done.tokens {
        spelled.push_str(&tokenizer.token_text(*t));
        if !heard.starts_with(&spelled) {
            break;
        }
        heard_tokens += 1;
    }
    assert!(heard_tokens > 0, "{heard:?} {:?}", done.tokens);
    let prompt_tokens = done.stats.prompt_tokens;
    let mut history = messages.clone();
    history.push(Message::assistant(format!("{heard}\n[x]")));
    history.push(Message::user("Why did you stop?"));
    let next = complete(&g, request(session, history, 4));
    assert_ne!(next.stop, StopReason::Cancelled);
    eprintln!(
        "heard {heard:?} ({heard_tokens} tokens) of {:?}: {:?}",
        done.text, next.stats
    );
    let least = prompt_tokens + heard_tokens.min(kept - prompt_tokens);
    assert!(
        next.stats.reused_tokens >= least,
        "reused {} < {least} ({heard_tokens} heard tokens): {:?}",
        next.stats.reused_tokens,
        next.stats
    );
}
