//! Idle-time work on the real models: after a reply the engine decodes the chat framing that
//! opens the session's next message, so the next request prefills only the new message and
//! the framing that closes it, and produces exactly what a cold prefill produces.
//!
//! "Exactly" needs one llama.cpp fact: its results depend on how tokens are grouped into
//! batches (a 10-token batch and ten 1-token batches take different kernels and round
//! differently), so even plain KV reuse can change a greedy reply a few tokens in. The
//! single-session engines here decode one token per batch, which makes every grouping the
//! same computation: whatever differs then is a wrong token or position in the cache.

mod common;

use common::{model_path, GEMMA, SMOLLM2};
use porfiry_engine::{
    CancelToken, Completion, Engine, EngineParams, GenerateConfig, GenerateRequest, Message,
    StopReason, Tokenizer,
};

const SYSTEM: &str = "Ты Порфирий, голосовой ассистент. Отвечай коротко, одной фразой.";
const FIRST: &str = "Привет! Ты кто?";
const REPLY: &str = "Я Порфирий, ваш голосовой помощник.";
const SECOND: &str = "Который час?";

fn load(file: &str, anticipate: bool, n_seq: u32) -> Engine {
    Engine::load(
        model_path(file),
        EngineParams {
            n_ctx: 2048,
            n_seq,
            anticipate,
            batch: n_seq,
            ..EngineParams::default()
        },
    )
    .unwrap_or_else(|e| panic!("loading {file}: {e}"))
}

/// Turn one with a forced reply (ends with end-of-turn, every reply token decoded).
fn first_turn(engine: &Engine, session: &str) -> Completion {
    let mut req = GenerateRequest::new(session, SYSTEM, vec![Message::user(FIRST)])
        .with_config(GenerateConfig::greedy(64));
    req.forced_reply = Some(REPLY.to_owned());
    let done = engine.generate(req, &mut |_| {}).expect("turn one");
    assert_eq!(done.stop, StopReason::EndOfTurn);
    assert_eq!(done.text, REPLY);
    done
}

fn second_turn(engine: &Engine, session: &str, reply: &str) -> Completion {
    let messages = vec![
        Message::user(FIRST),
        Message::assistant(reply),
        Message::user(SECOND),
    ];
    let req =
        GenerateRequest::new(session, SYSTEM, messages).with_config(GenerateConfig::greedy(12));
    engine.generate(req, &mut |_| {}).expect("turn two")
}

/// The tokens the next message opens with after a reply, in this model's own format: the
/// common prefix of the two-turn renderings with different user messages, past the end of
/// the one-turn rendering's reply.
fn opening_framing(engine: &Engine) -> usize {
    let with = |user: &str| {
        engine
            .render(
                SYSTEM,
                &[
                    Message::user(FIRST),
                    Message::assistant(REPLY),
                    Message::user(user),
                ],
            )
            .unwrap()
            .tokens
    };
    let (a, b) = (with("a"), with("b"));
    let shared = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let before = engine
        .render(SYSTEM, &[Message::user(FIRST)])
        .unwrap()
        .tokens
        .len();
    let tokenizer = Tokenizer::load(&engine.info().path, None).unwrap();
    shared - before - tokenizer.tokenize(REPLY).len()
}

fn framing_is_decoded_ahead_and_changes_nothing(file: &str) {
    // The reference: the same second turn prefilled cold.
    let cold = load(file, false, 1);
    let want = second_turn(&cold, "ref", REPLY);
    assert_eq!(want.stats.reused_tokens, 0);
    drop(cold);

    let engine = load(file, true, 1);
    let framing = opening_framing(&engine);
    assert!(
        (2..=8).contains(&framing),
        "{file}: framing of {framing} tokens"
    );
    let one = first_turn(&engine, "s");
    let held = one.stats.prompt_tokens + one.stats.generated_tokens;
    engine.settle().unwrap();
    let cache = engine.cache_report().unwrap();
    assert_eq!(cache.seqs[0].tokens, held + framing, "{file}: {cache:?}");

    let two = second_turn(&engine, "s", REPLY);
    let s = &two.stats;
    assert_eq!(s.anticipated_tokens, framing, "{file}: {s:?}");
    assert_eq!(s.reused_tokens, held + framing, "{file}: {s:?}");
    assert_eq!(s.prefilled_tokens, s.prompt_tokens - held - framing);
    assert_eq!(s.prompt_tokens, want.stats.prompt_tokens);
    assert_eq!(two.text, want.text, "{file}: decoded ahead vs cold");
    assert_eq!(two.tokens, want.tokens, "{file}");
}

#[test]
fn gemma_decodes_the_framing_ahead_and_replies_as_a_cold_prefill() {
    framing_is_decoded_ahead_and_changes_nothing(GEMMA);
}

#[test]
fn smollm2_decodes_the_framing_ahead_and_replies_as_a_cold_prefill() {
    framing_is_decoded_ahead_and_changes_nothing(SMOLLM2);
}

#[test]
fn the_worker_does_it_by_itself_when_idle() {
    let engine = load(GEMMA, true, 1);
    let one = first_turn(&engine, "s");
    let held = one.stats.prompt_tokens + one.stats.generated_tokens;
    // No settle: a user takes far longer than the idle delay to speak.
    let mut tokens = 0;
    for _ in 0..200 {
        std::thread::sleep(2 * porfiry_engine::ANTICIPATE_AFTER);
        tokens = engine.cache_report().unwrap().seqs[0].tokens;
        if tokens > held {
            break;
        }
    }
    assert!(tokens > held, "nothing decoded ahead: {tokens} vs {held}");
    let two = second_turn(&engine, "s", REPLY);
    assert_eq!(two.stats.anticipated_tokens, tokens - held);
}

#[test]
fn a_history_that_differs_from_the_reply_wastes_only_the_guess() {
    let engine = load(GEMMA, true, 1);
    let cold = load(GEMMA, false, 1);
    let other = "Я голосовой помощник.";
    let want = second_turn(&cold, "ref", other);
    drop(cold);
    first_turn(&engine, "s");
    engine.settle().unwrap();
    // The host kept another text than the reply (e.g. a cut one): the guess is trimmed.
    let two = second_turn(&engine, "s", other);
    assert_eq!(two.stats.anticipated_tokens, 0, "{:?}", two.stats);
    assert_eq!(
        two.stats.prefilled_tokens,
        two.stats.prompt_tokens - two.stats.reused_tokens
    );
    assert_eq!(two.text, want.text);
}

#[test]
fn switched_off_or_cancelled_nothing_is_decoded_ahead() {
    let engine = load(GEMMA, false, 1);
    let one = first_turn(&engine, "s");
    engine.settle().unwrap();
    let held = one.stats.prompt_tokens + one.stats.generated_tokens;
    assert_eq!(engine.cache_report().unwrap().seqs[0].tokens, held);
    let two = second_turn(&engine, "s", REPLY);
    assert_eq!(two.stats.anticipated_tokens, 0);
    assert_eq!(two.stats.reused_tokens, held);
    drop(engine);

    // A cancelled request leaves no idle-time work behind.
    let engine = load(GEMMA, true, 1);
    first_turn(&engine, "s");
    engine.settle().unwrap();
    let cancel = CancelToken::new();
    cancel.cancel();
    let mut req = GenerateRequest::new(
        "s",
        SYSTEM,
        vec![
            Message::user(FIRST),
            Message::assistant(REPLY),
            Message::user(SECOND),
        ],
    );
    req.cancel = cancel;
    let stopped = engine.generate(req, &mut |_| {}).unwrap();
    assert_eq!(stopped.stop, StopReason::Cancelled);
    let before = engine.cache_report().unwrap().seqs[0].tokens;
    engine.settle().unwrap();
    assert_eq!(engine.cache_report().unwrap().seqs[0].tokens, before);
}

#[test]
fn another_session_in_between_keeps_what_was_decoded_ahead() {
    // Two sequences: the voice dialogue and a text chat.
    let engine = load(GEMMA, true, 2);
    let framing = opening_framing(&engine);
    first_turn(&engine, "voice");
    engine.settle().unwrap();
    first_turn(&engine, "chat");
    let two = second_turn(&engine, "voice", REPLY);
    assert_eq!(two.stats.anticipated_tokens, framing, "{:?}", two.stats);
}

/// The conversation with the user's words heard so far as its last message.
fn heard(words: &str) -> Vec<Message> {
    vec![
        Message::user(FIRST),
        Message::assistant(REPLY),
        Message::user(words),
    ]
}

fn prefill_while_speaking(file: &str) {
    let cold = load(file, false, 1);
    let want = second_turn(&cold, "ref", REPLY);
    drop(cold);

    let engine = load(file, true, 1);
    let framing = opening_framing(&engine);
    let one = first_turn(&engine, "s");
    let held = one.stats.prompt_tokens + one.stats.generated_tokens;
    // Partial transcripts as speech recognition revises them; only the newest matters.
    for words in ["Кот", "Который", "Который ч"] {
        engine.decode_ahead("s", SYSTEM, &heard(words)).unwrap();
    }
    engine.settle().unwrap();
    let cached = engine.cache_report().unwrap().seqs[0].tokens;
    assert!(cached > held + framing, "{file}: {cached} after {held}");

    let two = second_turn(&engine, "s", REPLY);
    let s = &two.stats;
    // Everything decoded ahead that the final prompt shares counts: the framing and the
    // first words; only the rest of the words and the closing framing remain.
    assert!(s.anticipated_tokens > framing, "{file}: {s:?}");
    assert!(
        s.reused_tokens >= held + s.anticipated_tokens,
        "{file}: {s:?}"
    );
    assert_eq!(s.prefilled_tokens, s.prompt_tokens - s.reused_tokens);
    assert!(
        s.prefilled_tokens < want.stats.prompt_tokens - held - framing,
        "{file}: {s:?}"
    );
    assert_eq!(
        two.tokens, want.tokens,
        "{file}: prefilled while speaking vs cold"
    );
}

#[test]
fn gemma_prefills_the_words_heard_so_far() {
    prefill_while_speaking(GEMMA);
}

#[test]
fn smollm2_prefills_the_words_heard_so_far() {
    prefill_while_speaking(SMOLLM2);
}

/// The words heard last are the whole message (a recognizer's last partial usually is): the
/// prefill went through the closing framing, and the request decodes only its last token.
fn last_partial_is_final(file: &str) {
    let cold = load(file, false, 1);
    let want = second_turn(&cold, "ref", REPLY);
    drop(cold);

    let engine = load(file, true, 1);
    first_turn(&engine, "s");
    engine.decode_ahead("s", SYSTEM, &heard("Который")).unwrap();
    engine.decode_ahead("s", SYSTEM, &heard(SECOND)).unwrap();
    engine.settle().unwrap();
    let two = second_turn(&engine, "s", REPLY);
    let s = &two.stats;
    assert_eq!(s.prefilled_tokens, 1, "{file}: {s:?}");
    assert_eq!(s.reused_tokens, s.prompt_tokens - 1, "{file}: {s:?}");
    assert_eq!(
        two.tokens, want.tokens,
        "{file}: prefilled to the end vs cold"
    );
}

#[test]
fn gemma_decodes_one_token_when_the_last_partial_was_final() {
    last_partial_is_final(GEMMA);
}

#[test]
fn smollm2_decodes_one_token_when_the_last_partial_was_final() {
    last_partial_is_final(SMOLLM2);
}

#[test]
fn a_revised_transcript_or_a_new_session_is_prefilled_correctly() {
    let cold = load(GEMMA, false, 1);
    let want = second_turn(&cold, "ref", REPLY);
    // A new session: nothing cached for it yet.
    let fresh = GenerateRequest::new("ref2", SYSTEM, vec![Message::user(SECOND)])
        .with_config(GenerateConfig::greedy(12));
    let want_fresh = cold.generate(fresh, &mut |_| {}).unwrap();
    drop(cold);

    let engine = load(GEMMA, true, 1);
    first_turn(&engine, "s");
    // Heard wrong first, then corrected: the wrong words are trimmed like a stale suffix.
    engine
        .decode_ahead("s", SYSTEM, &heard("Кто такой ты"))
        .unwrap();
    engine.settle().unwrap();
    let two = second_turn(&engine, "s", REPLY);
    assert_eq!(two.tokens, want.tokens);
    assert_eq!(
        two.stats.prefilled_tokens,
        two.stats.prompt_tokens - two.stats.reused_tokens
    );

    engine
        .decode_ahead("new", SYSTEM, &[Message::user("Который")])
        .unwrap();
    engine.settle().unwrap();
    let first = GenerateRequest::new("new", SYSTEM, vec![Message::user(SECOND)])
        .with_config(GenerateConfig::greedy(12));
    let done = engine.generate(first, &mut |_| {}).unwrap();
    // The new session took the only sequence, kept what it shares with the old one (the
    // system text) and decoded the rest up to the words heard.
    assert!(done.stats.anticipated_tokens > 0, "{:?}", done.stats);
    assert!(done.stats.reused_tokens >= done.stats.anticipated_tokens);
    assert_eq!(done.tokens, want_fresh.tokens);
}

#[test]
fn a_request_does_not_wait_for_a_long_prefill() {
    // A prefill in batches of 8 stops between batches as soon as a request is waiting.
    let engine = Engine::load(
        model_path(GEMMA),
        EngineParams {
            n_ctx: 2048,
            batch: 8,
            n_seq: 2,
            ..EngineParams::default()
        },
    )
    .unwrap();
    let long = "слово ".repeat(300);
    let messages = [Message::user(long.as_str())];
    let full = engine.render(SYSTEM, &messages).unwrap().tokens.len();
    engine.decode_ahead("s", SYSTEM, &messages).unwrap();
    // Let it start (it starts at once: nothing else is queued), then ask.
    std::thread::sleep(std::time::Duration::from_millis(200));
    let req = GenerateRequest::new("other", SYSTEM, vec![Message::user(SECOND)])
        .with_config(GenerateConfig::greedy(2));
    let done = engine.generate(req, &mut |_| {}).unwrap();
    assert!(done.stats.generated_tokens > 0);
    let cache = engine.cache_report().unwrap();
    let prefilled = cache
        .seqs
        .iter()
        .find(|s| s.session.as_deref() == Some("s"))
        .map_or(0, |s| s.tokens);
    // Begun, and interrupted long before its ~600 tokens (75 batches).
    assert!(
        prefilled > 0 && prefilled < full / 2,
        "{prefilled} of {full}: {cache:?}"
    );
}
