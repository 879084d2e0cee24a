//! Splits streamed reply text into sentences for text-to-speech.

use porfiry_model::wire;

/// Accumulates text pieces and hands out each utterance as soon as it is complete.
///
/// An utterance ends where the seam's one sentence rule ends a sentence
/// ([`wire::sentence_ends`]: a terminator and its closing quotes or brackets followed by
/// whitespace; no end after a list number, an ordinal or an initial) — the rule the stop
/// scanner caps a spoken reply by — or at a line break after text ([`wire::utterance_ends`]:
/// speech pauses at a line, though a line is not a sentence).
/// Whatever is left when the reply ends comes out of [`SentenceSplitter::finish`].
#[derive(Debug, Default)]
pub struct SentenceSplitter {
    /// The text of the current line, from its start (a sentence's rule looks at its line).
    line: String,
    /// How much of `line` was handed out.
    said: usize,
}

impl SentenceSplitter {
    /// An empty splitter.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a piece; returns the sentences it completed (trimmed, never empty), in order.
    pub fn push(&mut self, piece: &str) -> Vec<String> {
        let mut out = Vec::new();
        for part in piece.split_inclusive('\n') {
            self.line.push_str(part);
            let said = self.said;
            let ends: Vec<usize> = wire::sentence_ends(&self.line)
                .filter(|&end| end > said)
                .collect();
            for end in ends {
                self.say(end, &mut out);
            }
            if self.line.ends_with('\n') {
                self.say(self.line.len(), &mut out);
                self.line.clear();
                self.said = 0;
            }
        }
        out
    }

    /// Hands out the line's text from what was said to `end`, trimmed, unless blank.
    fn say(&mut self, end: usize, out: &mut Vec<String>) {
        let text = self.line.get(self.said..end).unwrap_or_default().trim();
        if !text.is_empty() {
            out.push(text.to_string());
        }
        self.said = end;
    }

    /// The text after the last complete sentence (trimmed), if any; resets the splitter.
    pub fn finish(&mut self) -> Option<String> {
        let rest = std::mem::take(&mut self.line);
        let said = std::mem::take(&mut self.said);
        let trimmed = rest.get(said..).unwrap_or_default().trim();
        (!trimmed.is_empty()).then(|| trimmed.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `pieces` one by one; returns every sentence, the finish() rest included.
    fn split(pieces: &[&str]) -> Vec<String> {
        let mut s = SentenceSplitter::new();
        let mut out: Vec<String> = pieces.iter().flat_map(|p| s.push(p)).collect();
        out.extend(s.finish());
        out
    }

    #[test]
    fn table() {
        let cases: &[(&[&str], &[&str])] = &[
            (&["Привет. Как дела?"], &["Привет.", "Как дела?"]),
            (
                &["Приве", "т", ".", " Ка", "к дела", "?"],
                &["Привет.", "Как дела?"],
            ),
            (
                &["Hi! ", "Yes… ", "no?! ok"],
                &["Hi!", "Yes…", "no?!", "ok"],
            ),
            (&["Он сказал «нет.» Потом"], &["Он сказал «нет.»", "Потом"]),
            (&["Pi is 3.14 today. Yes"], &["Pi is 3.14 today.", "Yes"]),
            (
                &["1. Tomb Raider\n2. Solaris\n"],
                &["1. Tomb Raider", "2. Solaris"],
            ),
            (&["Ответ номер 0. Готово."], &["Ответ номер 0.", "Готово."]),
            (
                &["Вышло в 2018. ", "Смотри."],
                &["Вышло в 2018.", "Смотри."],
            ),
            (
                &["A. S. Pushkin wrote. End"],
                &["A. S. Pushkin wrote.", "End"],
            ),
            (&["\n\nFirst line\nSecond"], &["First line", "Second"]),
            (&["Emoji 🎬 works. Да 🙂"], &["Emoji 🎬 works.", "Да 🙂"]),
            (&["   "], &[]),
            (&[], &[]),
        ];
        for (pieces, want) in cases {
            assert_eq!(split(pieces), *want, "pieces {pieces:?}");
        }
    }

    /// Where a sentence cap of `n` cuts `text`: by the engine's stop scanner (fed in pieces
    /// of `piece` characters) and by the scripted model; the two must agree.
    fn cap(text: &str, n: usize, piece: usize) -> Option<usize> {
        use porfiry_agent::{CancelToken, Model, ModelRequest, ReplyGuide, ScriptedModel};
        let mut scanner = porfiry_engine::StopScanner::new(&[]).with_sentence_cap(Some(n));
        let chars: Vec<char> = text.chars().collect();
        let stopped = chars.chunks(piece).any(|p| {
            let p: String = p.iter().collect();
            scanner.push(&p).stopped
        });
        let scanned = stopped.then(|| scanner.text().len());
        let mut model = ScriptedModel::new([text]).with_piece_chars(piece);
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
        let scripted = model.generate(&request, &mut |_| {}).map(|g| g.text);
        let scripted = scripted.ok().filter(|t| t.len() < text.len()).map(|t| t.len());
        assert_eq!(scanned, scripted, "{text:?} capped at {n}");
        scanned
    }

    /// The stop scanner's sentence cap (where a spoken reply is cut), the scripted model's
    /// (tests and scenarios) and this splitter (where speech pauses) read the same texts
    /// with the one rule of the seam: the splitter's boundaries are the cap's, plus the line
    /// breaks after text (speech pauses at a line; a cap does not count lines).
    #[test]
    fn the_stop_scanner_the_scripted_model_and_the_splitter_agree() {
        let texts = [
            "Привет. Как дела? Хорошо! А у тебя",
            "Hi! Yes… no?! ok",
            "Он сказал «нет.» Потом (так и вышло.) Конец",
            "Pi is 3.14 today. Yes",
            "1. купить хлеб 2. позвонить врачу. Ещё",
            "1. Tomb Raider\n2. Solaris\n3. Сталкер\n",
            "Ответ номер 0. Готово. Вышло в 2018. Смотри.",
            "A. S. Pushkin wrote. То есть т. е. так. Буква Б... Потом",
            "\n\nFirst line\nSecond. Third\n\nFourth",
            "Am 3. Mai. Gut. Их 12! Ок",
            "Emoji 🎬 works. Да 🙂",
            "Сейчас 10:00. Хорошего дня!\nЕщё",
        ];
        for text in texts {
            for piece in [1, 3, 64] {
                // The cap's cuts, n = 1, 2, … until it cuts no more.
                let cuts: Vec<usize> = (1..).map_while(|n| cap(text, n, piece)).collect();
                // Plus the line breaks after text since the last boundary.
                let mut bounds = Vec::new();
                let mut from = 0;
                for (at, c) in text.char_indices() {
                    let end = at + c.len_utf8();
                    if cuts.contains(&end) {
                        bounds.push(end);
                        from = end;
                    } else if c == '\n' && !text[from..end].trim().is_empty() {
                        bounds.push(end);
                        from = end;
                    }
                }
                let mut want: Vec<&str> = Vec::new();
                let mut from = 0;
                for end in bounds.into_iter().chain([text.len()]) {
                    want.extend(Some(text[from..end].trim()).filter(|s| !s.is_empty()));
                    from = end;
                }
                let chars: Vec<char> = text.chars().collect();
                let pieces: Vec<String> = chars.chunks(piece).map(|p| p.iter().collect()).collect();
                let pieces: Vec<&str> = pieces.iter().map(String::as_str).collect();
                assert_eq!(split(&pieces), want, "{text:?} in pieces of {piece}");
                let ends: Vec<usize> = porfiry_model::wire::utterance_ends(text).collect();
                assert!(cuts.iter().all(|c| ends.contains(c)), "{text:?}");
            }
        }
    }

    #[test]
    fn a_sentence_is_released_as_soon_as_the_space_after_it_arrives() {
        let mut s = SentenceSplitter::new();
        assert!(s.push("Готово.").is_empty());
        assert_eq!(s.push(" "), vec!["Готово.".to_string()]);
        assert!(s.push("Дальше").is_empty());
        assert_eq!(s.finish().as_deref(), Some("Дальше"));
        assert_eq!(s.finish(), None);
    }
}
