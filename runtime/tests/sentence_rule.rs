//! One sentence rule for everything that cuts text at sentences: the engine's stop scanner
//! (the sentence cap of a spoken reply), the scripted model (the same cap, as the agent's
//! tests see it) and the text-to-speech splitter. The same texts go through the three and
//! come out cut at the same places.

use porfiry_agent::ScriptedModel;
use porfiry_engine::StopScanner;
use porfiry_runtime::SentenceSplitter;
use porfiry_seam::{CancelToken, Model, ModelRequest, ReplyGuide};

/// Texts where the rules of a naive splitter and the seam's disagree: closers after the
/// terminator, initials, list numbers and ordinals, a zero, decimals, years, times, runs of
/// terminators, an ellipsis.
const TEXTS: &[&str] = &[
    "Привет. Как дела? Всё хорошо!",
    "Он сказал «нет.» Потом ушёл. Конец.",
    "(Так и есть.) Да. Нет.",
    "A. S. Pushkin wrote. End of story. Yes.",
    "То есть т. е. так. Ну да. Ладно.",
    "Купи 1. хлеб 2. молоко. Потом позвони. Всё.",
    "Ответ номер 0. Готово. Ещё.",
    "Ответ номер 5. Готово. Ещё. Всё.",
    "Pi is 3.14 today. Really?! Yes… Fine.",
    "Это было в 2026. Сейчас 10:00. Хорошего дня!",
    "Буква Б... Потом. Всё.",
    "Am 3. Mai. Gut. Ja.",
];

/// The text the stop scanner lets out under a cap of `n` sentences, fed `piece` characters
/// at a time.
fn scanner_cut(text: &str, n: usize, piece: usize) -> String {
    let mut scanner = StopScanner::new(&[]).with_sentence_cap(Some(n));
    let mut out = String::new();
    for chunk in pieces(text, piece) {
        let scan = scanner.push(&chunk);
        out.push_str(&scan.emit);
        if scan.stopped {
            return out;
        }
    }
    out.push_str(&scanner.finish());
    out
}

/// The scripted model's reply of `text` under a cap of `n` sentences.
fn scripted_cut(text: &str, n: usize) -> String {
    let mut model = ScriptedModel::new([text]);
    let cancel = CancelToken::new();
    let request = ModelRequest {
        session: "s",
        system: "",
        messages: &[],
        cancel: &cancel,
        forced_reply: None,
        guide: ReplyGuide {
            max_sentences: Some(n),
            ..ReplyGuide::default()
        },
        time_left: None,
    };
    model
        .generate(&request, &mut |_| {})
        .map(|g| g.text)
        .unwrap_or_default()
}

/// The text-to-speech splitter's sentences of `text`, fed `piece` characters at a time.
fn spoken(text: &str, piece: usize) -> Vec<String> {
    let mut splitter = SentenceSplitter::new();
    let mut out: Vec<String> = pieces(text, piece)
        .iter()
        .flat_map(|p| splitter.push(p))
        .collect();
    out.extend(splitter.finish());
    out
}

fn pieces(text: &str, n: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars.chunks(n).map(|c| c.iter().collect()).collect()
}

#[test]
fn the_cap_the_scripted_model_and_speech_cut_at_the_same_places() {
    for text in TEXTS {
        let said = spoken(text, 1);
        assert!(said.len() >= 3, "{text:?} is said as {said:?}");
        for piece in [1, 3, 1000] {
            assert_eq!(spoken(text, piece), said, "{text:?} in pieces of {piece}");
        }
        for n in 1..=said.len() {
            let first_n = said[..n].join(" ");
            for piece in [1, 2, 7, 1000] {
                assert_eq!(
                    scanner_cut(text, n, piece).trim(),
                    first_n,
                    "stop scanner, {n} sentences of {text:?} in pieces of {piece}"
                );
            }
            assert_eq!(
                scripted_cut(text, n).trim(),
                first_n,
                "scripted model, {n} sentences of {text:?}"
            );
        }
    }
}

#[test]
fn speech_also_ends_at_a_line_break_after_text() {
    let list = "1. Tomb Raider\n2. Solaris\n";
    assert_eq!(spoken(list, 1), ["1. Tomb Raider", "2. Solaris"]);
    // The cap counts sentences only: the list's lines are one unterminated sentence.
    assert_eq!(scanner_cut(list, 1, 1), list);
}
