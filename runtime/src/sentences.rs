//! Splits streamed reply text into sentences for text-to-speech, by the seam's one sentence
//! rule ([`porfiry_seam::wire::utterance_ends`]): the same ends the stop scanner's sentence
//! cap and the scripted model cut at, plus line breaks after text (a list's lines are said
//! one by one).

use porfiry_seam::wire::utterance_ends;

/// Accumulates text pieces and hands out each sentence as soon as it is complete.
///
/// A sentence ends where [`utterance_ends`] says: a terminator run (`.`, `!`, `?`, `…`) with
/// its closing quotes or brackets, followed by whitespace — not after a list number or an
/// initial —, or a line break after text. An end is only known once the character after it
/// has arrived, so a sentence is released when the whitespace after it comes.
/// Whatever is left when the reply ends comes out of [`SentenceSplitter::finish`].
#[derive(Debug, Default)]
pub struct SentenceSplitter {
    buf: String,
}

impl SentenceSplitter {
    /// An empty splitter.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a piece; returns the sentences it completed (trimmed, never empty), in order.
    pub fn push(&mut self, piece: &str) -> Vec<String> {
        self.buf.push_str(piece);
        let ends: Vec<usize> = utterance_ends(&self.buf).collect();
        let Some(&last) = ends.last() else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let mut from = 0;
        for end in ends {
            let trimmed = self.buf[from..end].trim();
            if !trimmed.is_empty() {
                out.push(trimmed.to_string());
            }
            from = end;
        }
        self.buf.drain(..last);
        out
    }

    /// The text after the last complete sentence (trimmed), if any; resets the splitter.
    pub fn finish(&mut self) -> Option<String> {
        let rest = std::mem::take(&mut self.buf);
        let trimmed = rest.trim();
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
            // A list number or an ordinal mid-sentence is no end (the seam's rule).
            (
                &["Купи 1. хлеб 2. молоко. Всё."],
                &["Купи 1. хлеб 2. молоко.", "Всё."],
            ),
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
