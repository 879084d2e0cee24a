//! What one generation decides without llama.cpp: the prompt's segments, the batches a
//! prefill decodes, when a reply stops, how its text reaches the caller, what its end leaves
//! to do, and how its figures are finished.
//!
//! The worker (`worker/generate.rs`) carries these decisions out against the model and the
//! context; every rule here is unit-tested on its own.

use std::ops::Range;
use std::time::{Duration, Instant};

use crossbeam_channel::Sender;
use porfiry_seam::{GenerationStats, Message, StopReason};

use crate::chat::{self, ChatFormat, PromptSegment};
use crate::config::GenerateConfig;
use crate::text::{StopScanner, Utf8Stream};
use crate::wire::Event;

/// The prompt's segments: the conversation rendered in `format`, then the reply prefix as
/// message text when there is one (it is decoded with the prompt, and the reply continues
/// it).
pub(crate) fn prompt_segments(
    format: ChatFormat,
    system: &str,
    messages: &[Message],
    reply_prefix: &str,
) -> Vec<PromptSegment> {
    let mut segments = chat::render_prompt(format, system, messages);
    if !reply_prefix.is_empty() {
        segments.push(PromptSegment::Content(reply_prefix.to_owned()));
    }
    segments
}

/// The batches that decode tokens `from..len`, in order, at most `size` tokens each (a
/// `size` of 0 counts as 1). Empty when `from >= len`: nothing is left to decode.
pub(crate) fn batches(from: usize, len: usize, size: usize) -> impl Iterator<Item = Range<usize>> {
    let size = size.max(1);
    (from..len)
        .step_by(size)
        .map(move |start| start..(start + size).min(len))
}

/// When a generation stops for a reason other than the model's own end of turn: the
/// request's cancel, its deadline, its token budget and the room left in its sequence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Limits {
    /// Reply tokens at most (a reply prefix not counted).
    pub max_tokens: usize,
    /// When the request's time is up (its deadline counted from its submission).
    pub deadline: Option<Instant>,
}

impl Limits {
    /// The limits of a request with `config`, submitted at `submitted`. A deadline too far
    /// to represent is no deadline.
    pub fn new(config: &GenerateConfig, submitted: Instant) -> Self {
        Self {
            max_tokens: config.max_tokens,
            deadline: config.deadline.and_then(|d| submitted.checked_add(d)),
        }
    }

    /// Whether the deadline has passed at `now`.
    pub fn out_of_time(&self, now: Instant) -> bool {
        self.deadline.is_some_and(|d| now >= d)
    }

    /// Before each prompt batch, and after a decode the abort callback stopped: a cancel
    /// first, then the deadline; `None` to go on.
    pub fn interrupted(&self, cancelled: bool, now: Instant) -> Option<StopReason> {
        if cancelled {
            Some(StopReason::Cancelled)
        } else if self.out_of_time(now) {
            Some(StopReason::Deadline)
        } else {
            None
        }
    }

    /// Before the next reply token is chosen, `generated` tokens in, with `room` positions
    /// left in the sequence: a cancel (or a caller gone, folded into `cancelled`), the
    /// deadline, then the budget or a full sequence.
    pub fn before_token(
        &self,
        cancelled: bool,
        now: Instant,
        generated: usize,
        room: usize,
    ) -> Option<StopReason> {
        self.interrupted(cancelled, now).or_else(|| {
            (generated >= self.max_tokens || room == 0).then_some(StopReason::MaxTokens)
        })
    }

    /// After a token was streamed, `generated` tokens in: the stop scanner's verdict
    /// (`stop_text`: a stop string or the sentence cap), then the budget — the last
    /// allowed token ends the reply before it is decoded (nothing is sampled after it).
    pub fn after_token(&self, generated: usize, stop_text: bool) -> Option<StopReason> {
        if stop_text {
            Some(StopReason::StopString)
        } else if generated >= self.max_tokens {
            Some(StopReason::MaxTokens)
        } else {
            None
        }
    }
}

/// Whether the forced reply's tokens streamed but not decoded yet are decoded after a
/// reply that stopped for `stop`: not after a cancel or a deadline (streamed but not
/// decoded, as a token whose decode was stopped).
pub(crate) fn decodes_forced_tail(stop: StopReason) -> bool {
    !matches!(stop, StopReason::Cancelled | StopReason::Deadline)
}

/// Whether a reply that stopped for `stop` invites the idle-time decode of the framing
/// that opens the session's next message: only a reply that ended on its own terms (end
/// of turn, stop string, budget), never a cancelled or late one.
pub(crate) fn anticipates_after(stop: StopReason) -> bool {
    matches!(
        stop,
        StopReason::EndOfTurn | StopReason::StopString | StopReason::MaxTokens
    )
}

/// The reply's text on its way to the caller: token bytes → whole characters
/// ([`Utf8Stream`]) → the stop scanner ([`StopScanner`]: stop strings and the sentence
/// cap) → one [`Event::Text`] per non-empty piece it releases.
pub(crate) struct ReplyText<'a> {
    utf8: Utf8Stream,
    scanner: StopScanner,
    events: &'a Sender<Event>,
    /// The caller dropped its receiver: the reply ends as cancelled.
    caller_gone: bool,
}

impl<'a> ReplyText<'a> {
    /// The text of a reply generated under `config`, streamed to `events`.
    pub fn new(config: &GenerateConfig, events: &'a Sender<Event>) -> Self {
        Self {
            utf8: Utf8Stream::default(),
            scanner: StopScanner::new(&config.stop).with_sentence_cap(config.max_sentences),
            events,
            caller_gone: false,
        }
    }

    /// The reply prefix: text known before any token (its scan's stop is not a reason to
    /// stop: the model has not spoken yet).
    pub fn push_prefix(&mut self, prefix: &str) {
        if !prefix.is_empty() {
            let scan = self.scanner.push(prefix);
            self.emit(scan.emit);
        }
    }

    /// A token's bytes. Returns whether a stop string or the sentence cap ended the reply.
    pub fn push_piece(&mut self, piece: &[u8]) -> bool {
        let text = self.utf8.push(piece);
        let scan = self.scanner.push(&text);
        self.emit(scan.emit);
        scan.stopped
    }

    /// Whether the caller dropped its receiver.
    pub fn caller_gone(&self) -> bool {
        self.caller_gone
    }

    /// The reply ended for `stop`: release what is held back (an incomplete character,
    /// a possible start of a stop string) unless a stop string ended it, and return the
    /// reply's text (without any stop string).
    pub fn finish(mut self, stop: StopReason) -> String {
        if stop != StopReason::StopString {
            let tail = self.utf8.finish();
            let scan = self.scanner.push(&tail);
            self.emit(scan.emit);
            if !scan.stopped {
                let rest = self.scanner.finish();
                self.emit(rest);
            }
        }
        self.scanner.text().to_owned()
    }

    fn emit(&mut self, text: String) {
        if !text.is_empty() && self.events.send(Event::Text(text)).is_err() {
            self.caller_gone = true;
        }
    }
}

/// Tokens per second, when any token was done in a measurable time.
pub(crate) fn rate(tokens: usize, secs: f64) -> Option<f64> {
    (tokens > 0 && secs > 0.0).then(|| tokens as f64 / secs)
}

/// Milliseconds from `from` to `to` (zero when `to` is earlier).
pub(crate) fn ms_between(from: Instant, to: Instant) -> f64 {
    to.saturating_duration_since(from).as_secs_f64() * 1e3
}

/// Record a prefill's figures: `prefilled` tokens this request added to the sequence in
/// `secs` of decoding.
pub(crate) fn record_prefill(stats: &mut GenerationStats, prefilled: usize, secs: f64) {
    stats.prefilled_tokens = prefilled;
    if let Some(tps) = rate(prefilled, secs) {
        stats.prefill_tps = tps;
    }
}

/// What a reply's decode loop measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct ReplyFigures {
    /// Tokens chosen (a reply prefix and an end-of-generation token not counted).
    pub generated: usize,
    /// When the first token was chosen (an end-of-generation token counts).
    pub first_token_at: Option<Instant>,
    /// From the loop's start to its end, the forced tail's decode included.
    pub decode: Duration,
}

/// Record a reply's figures; `submitted` is when the request was submitted.
pub(crate) fn record_reply(stats: &mut GenerationStats, submitted: Instant, reply: ReplyFigures) {
    stats.generated_tokens = reply.generated;
    if let Some(t) = reply.first_token_at {
        stats.ttft_ms = ms_between(submitted, t);
    }
    if let Some(tps) = rate(reply.generated, reply.decode.as_secs_f64()) {
        stats.decode_tps = tps;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crossbeam_channel::Receiver;

    fn limits(max_tokens: usize, deadline: Option<Instant>) -> Limits {
        Limits {
            max_tokens,
            deadline,
        }
    }

    #[test]
    fn the_prefix_is_the_last_segment_when_there_is_one() {
        let messages = [Message::user("Hi")];
        let plain = prompt_segments(ChatFormat::Gemma, "sys", &messages, "");
        assert_eq!(
            plain,
            chat::render_prompt(ChatFormat::Gemma, "sys", &messages)
        );
        let prefixed = prompt_segments(ChatFormat::Gemma, "sys", &messages, "TOOL");
        assert_eq!(prefixed.len(), plain.len() + 1);
        assert_eq!(prefixed[..plain.len()], plain[..]);
        assert_eq!(
            prefixed.last(),
            Some(&PromptSegment::Content("TOOL".into()))
        );
    }

    #[test]
    fn batches_cover_what_the_plan_leaves_in_order() {
        let all = |from, len, size| batches(from, len, size).collect::<Vec<_>>();
        assert_eq!(all(0, 5, 2), vec![0..2, 2..4, 4..5]);
        assert_eq!(all(3, 9, 3), vec![3..6, 6..9]);
        assert_eq!(all(4, 5, 512), vec![4..5]);
        // The plan keeps everything but one token at least; nothing left is no batch.
        assert!(all(7, 7, 4).is_empty());
        assert!(all(8, 7, 4).is_empty());
        assert_eq!(all(0, 2, 0), vec![0..1, 1..2]);
        for (from, len, size) in [(0, 1000, 512), (17, 1030, 64), (0, 1, 1), (5, 513, 7)] {
            let got = all(from, len, size);
            assert_eq!(got.first().map(|r| r.start), Some(from));
            assert_eq!(got.last().map(|r| r.end), Some(len));
            assert!(got.windows(2).all(|w| w[0].end == w[1].start));
            assert!(got.iter().all(|r| !r.is_empty() && r.len() <= size));
        }
    }

    #[test]
    fn limits_come_from_the_config_and_the_submission() {
        let now = Instant::now();
        let mut config = GenerateConfig::greedy(12);
        config.deadline = Some(Duration::from_millis(250));
        let l = Limits::new(&config, now);
        assert_eq!(l.max_tokens, 12);
        assert_eq!(l.deadline, Some(now + Duration::from_millis(250)));
        config.deadline = None;
        assert_eq!(Limits::new(&config, now).deadline, None);
        // A deadline past what an instant can hold never comes.
        config.deadline = Some(Duration::MAX);
        assert_eq!(Limits::new(&config, now).deadline, None);
    }

    #[test]
    fn an_interruption_is_a_cancel_first_then_the_deadline() {
        let now = Instant::now();
        let later = now + Duration::from_secs(1);
        let timed = limits(10, Some(later));
        assert_eq!(timed.interrupted(false, now), None);
        assert_eq!(timed.interrupted(false, later), Some(StopReason::Deadline));
        assert_eq!(timed.interrupted(true, now), Some(StopReason::Cancelled));
        assert_eq!(timed.interrupted(true, later), Some(StopReason::Cancelled));
        assert_eq!(limits(10, None).interrupted(false, later), None);
    }

    #[test]
    fn before_a_token_the_budget_and_the_room_come_after_cancel_and_deadline() {
        let now = Instant::now();
        let past = now - Duration::from_millis(1);
        let l = limits(3, Some(now + Duration::from_secs(1)));
        assert_eq!(l.before_token(false, now, 0, 10), None);
        assert_eq!(l.before_token(false, now, 2, 1), None);
        assert_eq!(
            l.before_token(false, now, 3, 10),
            Some(StopReason::MaxTokens)
        );
        assert_eq!(
            l.before_token(false, now, 0, 0),
            Some(StopReason::MaxTokens)
        );
        assert_eq!(l.before_token(true, now, 3, 0), Some(StopReason::Cancelled));
        let late = limits(3, Some(past));
        assert_eq!(
            late.before_token(false, now, 3, 0),
            Some(StopReason::Deadline)
        );
        // A budget of nothing stops before the first token.
        assert_eq!(
            limits(0, None).before_token(false, now, 0, 10),
            Some(StopReason::MaxTokens)
        );
    }

    #[test]
    fn after_a_token_a_stop_string_wins_over_the_budget() {
        let l = limits(2, None);
        assert_eq!(l.after_token(1, false), None);
        assert_eq!(l.after_token(2, false), Some(StopReason::MaxTokens));
        assert_eq!(l.after_token(1, true), Some(StopReason::StopString));
        assert_eq!(l.after_token(2, true), Some(StopReason::StopString));
    }

    #[test]
    fn what_the_end_of_a_reply_leaves_to_do() {
        use StopReason::*;
        // (stop, forced tail decoded, next message's framing decoded ahead)
        let table = [
            (EndOfTurn, true, true),
            (StopString, true, true),
            (MaxTokens, true, true),
            (Cancelled, false, false),
            (Deadline, false, false),
        ];
        for (stop, tail, ahead) in table {
            assert_eq!(decodes_forced_tail(stop), tail, "{stop:?}");
            assert_eq!(anticipates_after(stop), ahead, "{stop:?}");
        }
    }

    fn texts(rx: &Receiver<Event>) -> Vec<String> {
        rx.try_iter()
            .map(|e| match e {
                Event::Text(t) => t,
                other => panic!("not text: {other:?}"),
            })
            .collect()
    }

    fn config(stop: &[&str], max_sentences: Option<usize>) -> GenerateConfig {
        let mut c = GenerateConfig::greedy(64);
        c.stop = stop.iter().map(|s| s.to_string()).collect();
        c.max_sentences = max_sentences;
        c
    }

    #[test]
    fn reply_text_streams_whole_characters_and_stops_at_a_stop_string() {
        let (tx, rx) = crossbeam_channel::unbounded();
        let mut text = ReplyText::new(&config(&["<END>"], None), &tx);
        text.push_prefix("Ну, ");
        let word = "привет".as_bytes();
        // A character split across two pieces is sent once whole.
        assert!(!text.push_piece(&word[..3]));
        assert!(!text.push_piece(&word[3..]));
        assert!(!text.push_piece(b" <EN"));
        assert!(text.push_piece(b"D> tail"));
        assert_eq!(text.finish(StopReason::StopString), "Ну, привет ");
        let sent = texts(&rx);
        assert_eq!(sent.concat(), "Ну, привет ");
        assert!(sent.iter().all(|t| !t.is_empty()));
        assert_eq!(sent.first().map(String::as_str), Some("Ну, "));
    }

    #[test]
    fn reply_text_releases_what_it_held_back_when_the_reply_ends_otherwise() {
        let (tx, rx) = crossbeam_channel::unbounded();
        let mut text = ReplyText::new(&config(&["<END>"], None), &tx);
        assert!(!text.push_piece(b"ok <EN"));
        assert_eq!(texts(&rx).concat(), "ok ");
        assert_eq!(text.finish(StopReason::MaxTokens), "ok <EN");
        assert_eq!(texts(&rx).concat(), "<EN");
    }

    #[test]
    fn reply_text_stops_at_the_sentence_cap() {
        let (tx, rx) = crossbeam_channel::unbounded();
        let mut text = ReplyText::new(&config(&[], Some(1)), &tx);
        assert!(!text.push_piece(b"One"));
        let stopped = text.push_piece(b". Two.");
        assert!(stopped);
        let reply = text.finish(StopReason::StopString);
        assert_eq!(texts(&rx).concat(), reply);
        assert!(!reply.contains("Two"), "{reply}");
    }

    #[test]
    fn a_caller_that_dropped_its_receiver_is_gone() {
        let (tx, rx) = crossbeam_channel::unbounded();
        let mut text = ReplyText::new(&config(&[], None), &tx);
        assert!(!text.push_piece(b"a"));
        assert!(!text.caller_gone());
        drop(rx);
        // Nothing to send is not a failed send.
        text.push_prefix("");
        assert!(!text.caller_gone());
        assert!(!text.push_piece(b"b"));
        assert!(text.caller_gone());
        assert_eq!(text.finish(StopReason::Cancelled), "ab");
    }

    #[test]
    fn figures_are_rates_only_over_measured_work() {
        assert_eq!(rate(10, 2.0), Some(5.0));
        assert_eq!(rate(0, 2.0), None);
        assert_eq!(rate(10, 0.0), None);
        let t0 = Instant::now();
        let t1 = t0 + Duration::from_millis(1500);
        assert_eq!(ms_between(t0, t1), 1500.0);
        assert_eq!(ms_between(t1, t0), 0.0);

        let mut stats = GenerationStats::default();
        record_prefill(&mut stats, 100, 0.5);
        assert_eq!((stats.prefilled_tokens, stats.prefill_tps), (100, 200.0));
        let mut stats = GenerationStats::default();
        record_prefill(&mut stats, 0, 0.5);
        assert_eq!((stats.prefilled_tokens, stats.prefill_tps), (0, 0.0));

        let mut stats = GenerationStats::default();
        let reply = ReplyFigures {
            generated: 8,
            first_token_at: Some(t0 + Duration::from_millis(40)),
            decode: Duration::from_secs(2),
        };
        record_reply(&mut stats, t0, reply);
        assert_eq!(stats.generated_tokens, 8);
        assert!((stats.ttft_ms - 40.0).abs() < 1e-9, "{}", stats.ttft_ms);
        assert_eq!(stats.decode_tps, 4.0);
        // An end of turn at once: a first token time, no rate.
        let mut stats = GenerationStats::default();
        let eot = ReplyFigures {
            generated: 0,
            first_token_at: Some(t0 + Duration::from_millis(5)),
            decode: Duration::from_millis(5),
        };
        record_reply(&mut stats, t0, eot);
        assert_eq!((stats.generated_tokens, stats.decode_tps), (0, 0.0));
        assert!((stats.ttft_ms - 5.0).abs() < 1e-9, "{}", stats.ttft_ms);
    }
}
