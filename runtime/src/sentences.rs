//! Splits streamed reply text into sentences for text-to-speech.

/// Accumulates text pieces and hands out each sentence as soon as it is complete.
///
/// A sentence ends at `.`, `!`, `?` or `…` (with any closing quotes or brackets after it)
/// followed by whitespace, or at a line break. A number with a dot at the start of a line or
/// sentence (`1. `, list numbering) and a single letter followed by a dot (an initial) do not
/// end a sentence.
/// Whatever is left when the reply ends comes out of [`SentenceSplitter::finish`].
#[derive(Debug, Default)]
pub struct SentenceSplitter {
    buf: String,
}

const ENDERS: [char; 4] = ['.', '!', '?', '…'];
const CLOSERS: [char; 7] = ['"', '\'', '»', '”', ')', ']', '’'];

impl SentenceSplitter {
    /// An empty splitter.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a piece; returns the sentences it completed (trimmed, never empty), in order.
    pub fn push(&mut self, piece: &str) -> Vec<String> {
        self.buf.push_str(piece);
        let mut out = Vec::new();
        while let Some(end) = self.boundary() {
            let rest = self.buf.split_off(end);
            let sentence = std::mem::replace(&mut self.buf, rest);
            let trimmed = sentence.trim();
            if !trimmed.is_empty() {
                out.push(trimmed.to_string());
            }
        }
        out
    }

    /// The text after the last complete sentence (trimmed), if any; resets the splitter.
    pub fn finish(&mut self) -> Option<String> {
        let rest = std::mem::take(&mut self.buf);
        let trimmed = rest.trim();
        (!trimmed.is_empty()).then(|| trimmed.to_string())
    }

    /// Byte offset just after the first sentence boundary in the buffer (including the
    /// whitespace that confirmed it), or `None`.
    fn boundary(&self) -> Option<usize> {
        let chars: Vec<(usize, char)> = self.buf.char_indices().collect();
        for (i, &(at, c)) in chars.iter().enumerate() {
            if c == '\n' {
                // Only break on a newline once something precedes it on the line.
                if self.buf[..at].trim().is_empty() {
                    continue;
                }
                return Some(at + c.len_utf8());
            }
            if !ENDERS.contains(&c) {
                continue;
            }
            let mut j = i + 1;
            while j < chars.len() && (ENDERS.contains(&chars[j].1) || CLOSERS.contains(&chars[j].1))
            {
                j += 1;
            }
            let Some(&(ws_at, ws)) = chars.get(j) else {
                return None; // need more text to know
            };
            if !ws.is_whitespace() || (c == '.' && self.not_an_end(at)) {
                continue;
            }
            return Some(ws_at + ws.len_utf8());
        }
        None
    }

    /// Whether the dot at `dot` follows a list number (first word of its line or sentence) or
    /// a lone initial.
    fn not_an_end(&self, dot: usize) -> bool {
        let before = &self.buf[..dot];
        let word: &str = before
            .rsplit(|c: char| c.is_whitespace())
            .next()
            .unwrap_or("");
        let first_word = before[..before.len() - word.len()]
            .rsplit('\n')
            .next()
            .is_none_or(|line| line.trim().is_empty());
        let list_number = first_word && word.chars().all(|c| c.is_ascii_digit());
        let initial = word.chars().count() == 1 && word.chars().all(char::is_alphabetic);
        !word.is_empty() && (list_number || initial)
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
