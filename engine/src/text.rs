//! Streaming text: bytes of token pieces → valid UTF-8 pieces, with stop strings held back.
//!
//! A token can end in the middle of a multi-byte character (Cyrillic letters are two bytes,
//! and byte-fallback tokens carry single bytes), so [`Utf8Stream`] keeps incomplete trailing
//! bytes until the next token completes them. [`StopScanner`] keeps back any tail of the text
//! that could still become a stop string, so a stop string never reaches the caller.

use porfiry_seam::{first_stop, sentence_end};

/// Turns a stream of byte pieces into valid UTF-8 text, never splitting a character.
#[derive(Debug, Default)]
pub struct Utf8Stream {
    pending: Vec<u8>,
}

impl Utf8Stream {
    /// Append bytes and return the text that is complete so far. Invalid bytes become
    /// U+FFFD; an incomplete sequence at the end is kept for the next call.
    pub fn push(&mut self, bytes: &[u8]) -> String {
        self.pending.extend_from_slice(bytes);
        let mut out = String::new();
        let mut rest: &[u8] = &self.pending;
        loop {
            match std::str::from_utf8(rest) {
                Ok(s) => {
                    out.push_str(s);
                    rest = &[];
                    break;
                }
                Err(e) => {
                    let (valid, after) = rest.split_at(e.valid_up_to());
                    // `valid` is valid UTF-8 by construction.
                    out.push_str(std::str::from_utf8(valid).unwrap_or_default());
                    match e.error_len() {
                        Some(n) => {
                            out.push(char::REPLACEMENT_CHARACTER);
                            rest = &after[n..];
                        }
                        None => {
                            rest = after;
                            break;
                        }
                    }
                }
            }
        }
        self.pending = rest.to_vec();
        out
    }

    /// End of the stream: an incomplete character left over is dropped. It is the start of a
    /// character the generation was stopped inside (the token limit fell between the bytes
    /// of a Cyrillic letter or an emoji): a U+FFFD there would be read aloud or shown as
    /// garbage at the end of a reply, and the rest of the character never comes.
    pub fn finish(&mut self) -> String {
        self.pending.clear();
        String::new()
    }
}

/// Watches the generated text for stop strings (and, when capped, for the end of its last
/// allowed sentence).
#[derive(Debug)]
pub struct StopScanner {
    stops: Vec<String>,
    max_sentences: Option<usize>,
    text: String,
    emitted: usize,
}

/// What [`StopScanner::push`] found.
#[derive(Debug, PartialEq, Eq)]
pub struct Scan {
    /// Text that is safe to hand to the caller now.
    pub emit: String,
    /// Whether a stop string was found (the text was cut before it).
    pub stopped: bool,
}

impl StopScanner {
    /// A scanner for these stop strings (empty strings are ignored).
    pub fn new(stops: &[String]) -> Self {
        Self {
            stops: stops.iter().filter(|s| !s.is_empty()).cloned().collect(),
            max_sentences: None,
            text: String::new(),
            emitted: 0,
        }
    }

    /// The same scanner, also stopping after `n` sentences (the seam's one sentence rule,
    /// [`sentence_end`]; `None`: no cap).
    pub fn with_sentence_cap(mut self, n: Option<usize>) -> Self {
        self.max_sentences = n.filter(|n| *n > 0);
        self
    }

    /// Add text; returns what can be emitted and whether a stop string ended the output.
    pub fn push(&mut self, piece: &str) -> Scan {
        let search_from = self.emitted;
        self.text.push_str(piece);
        let text = &self.text;
        let hit = self
            .stops
            .iter()
            .filter_map(|s| first_stop(text, search_from, s))
            .min();
        let sentences = self
            .max_sentences
            .and_then(|n| sentence_end(&self.text, n))
            .map(|end| end.max(self.emitted));
        let hit = match (hit, sentences) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        if let Some(cut) = hit {
            self.text.truncate(cut);
            let emit = self.text[self.emitted..].to_owned();
            self.emitted = self.text.len();
            return Scan {
                emit,
                stopped: true,
            };
        }
        // Hold back the longest tail that is a proper prefix of some stop string.
        let mut safe = self.text.len();
        for s in &self.stops {
            for (i, _) in s.char_indices().skip(1) {
                if self.text.ends_with(&s[..i]) {
                    safe = safe.min(self.text.len() - i);
                }
            }
        }
        let safe = safe.max(self.emitted);
        let emit = self.text[self.emitted..safe].to_owned();
        self.emitted = safe;
        Scan {
            emit,
            stopped: false,
        }
    }

    /// End of generation without a stop string: everything held back is released.
    pub fn finish(&mut self) -> String {
        let emit = self.text[self.emitted..].to_owned();
        self.emitted = self.text.len();
        emit
    }

    /// The full text so far (without any stop string).
    pub fn text(&self) -> &str {
        &self.text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cyrillic_split_across_pieces_is_never_broken() {
        let text = "Привет, мир! Ёж 🦔.";
        let bytes = text.as_bytes();
        // Every way of cutting the bytes into pieces of 1..=5 bytes.
        for step in 1..=5 {
            let mut s = Utf8Stream::default();
            let mut out = String::new();
            for chunk in bytes.chunks(step) {
                let piece = s.push(chunk);
                out.push_str(&piece);
            }
            out.push_str(&s.finish());
            assert_eq!(out, text, "step {step}");
        }
    }

    #[test]
    fn invalid_bytes_become_replacement_characters_and_a_cut_character_is_dropped() {
        let mut s = Utf8Stream::default();
        assert_eq!(s.push(b"a\xffb"), "a\u{fffd}b");
        assert_eq!(s.push(b"\xd0"), "");
        // Cut inside a character (a token limit): the start of it is dropped.
        assert_eq!(s.finish(), "");
        assert_eq!(s.push("ж".as_bytes()), "ж");
        assert_eq!(s.finish(), "");
    }

    fn run(stops: &[&str], pieces: &[&str]) -> (Vec<String>, bool, String) {
        let stops: Vec<String> = stops.iter().map(|s| s.to_string()).collect();
        let mut sc = StopScanner::new(&stops);
        let mut out = Vec::new();
        for p in pieces {
            let r = sc.push(p);
            out.push(r.emit);
            if r.stopped {
                return (out, true, sc.text().to_owned());
            }
        }
        out.push(sc.finish());
        (out, false, sc.text().to_owned())
    }

    #[test]
    fn stop_strings() {
        let cases: &[(&[&str], &[&str], &[&str], bool, &str)] = &[
            (
                &["\nUser:"],
                &["Hi", " there", "\nUs", "er:", " x"],
                &["Hi", " there", "", ""],
                true,
                "Hi there",
            ),
            (
                &["\nUser:"],
                &["Hi", "\nUs", "ually"],
                &["Hi", "", "\nUsually", ""],
                false,
                "Hi\nUsually",
            ),
            (&["END"], &["abcEND"], &["abc"], true, "abc"),
            (&[], &["a", "b"], &["a", "b", ""], false, "ab"),
            (&["ab", "b"], &["xab"], &["x"], true, "x"),
            (
                &["мир"],
                &["При", "вет, ми", "р"],
                &["При", "вет, ", ""],
                true,
                "Привет, ",
            ),
        ];
        for (stops, pieces, want, stopped, text) in cases {
            let (got, s, t) = run(stops, pieces);
            assert_eq!(got, *want, "{stops:?} {pieces:?}");
            assert_eq!(s, *stopped);
            assert_eq!(t, *text);
        }
    }

    #[test]
    fn a_sentence_cap_stops_like_a_stop_string() {
        let mut sc = StopScanner::new(&["\nUser:".to_string()]).with_sentence_cap(Some(2));
        assert_eq!(sc.push("One. Tw").emit, "One. Tw");
        let r = sc.push("o! Three. Four.");
        assert!(r.stopped);
        assert_eq!(r.emit, "o!");
        assert_eq!(sc.text(), "One. Two!");
        // A line break before any text does not end the reply.
        let mut sc = StopScanner::new(&["\n".to_string()]);
        assert!(!sc.push("\n\nДа").stopped);
        assert!(sc.push(".\nНет").stopped);
        assert_eq!(sc.text(), "\n\nДа.");
        // The stop string still wins when it comes first.
        let mut sc = StopScanner::new(&["\nUser:".to_string()]).with_sentence_cap(Some(2));
        let r = sc.push("One\nUser: Two. Three. ");
        assert!(r.stopped);
        assert_eq!(sc.text(), "One");
    }
}
