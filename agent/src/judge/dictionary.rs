//! The dictionaries of [`Rule::UnknownWord`](super::Rule::UnknownWord): Hunspell's Russian,
//! American English and British English dictionaries (`hunspell/`, their sources and
//! licences in its `README.md`), read by `spellbook`, a Hunspell-compatible checker in Rust.
//! An English word is looked up in the American dictionary, and in the British one when the
//! American does not know it (`cancelled`, `colour`, `tyres`).
//!
//! The dictionaries are compiled into the crate packed (1.3 MB; 5.6 MB unpacked). Each is
//! unpacked and parsed when first needed, once per process ([`OnceLock`]), and kept: a
//! Russian user never loads an English one, and the British one loads on the first word the
//! American one does not know. What each costs ([`load`] returns the figures of a load;
//! release build, 2 cores shared with other work, 2026-12-06):
//!
//! | dictionary | packed | text | memory kept (peak while parsing) | load |
//! |---|---:|---:|---:|---:|
//! | `ru_RU` | 0.60 MB | 3.5 MB | 11.2 MB (15.6 MB) | 0.29–0.39 s |
//! | `en_US` | 0.30 MB | 0.9 MB | 4.3 MB (5.3 MB) | 0.10–0.11 s |
//! | `en_GB` | 0.43 MB | 1.2 MB | 4.4 MB (6.7 MB) | 0.13–0.16 s |
//!
//! A judged reply then costs ~0.2 ms. A host that minds the first reply's delay loads the
//! dictionaries at start-up ([`prepare`]).

use std::io::Read;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use crate::Lang;

/// Words the dictionaries lack that a reply may say, in any of their forms
/// ([`same_word`]): the assistant's own name, the everyday «ок», the media toolset's name,
/// a few loanwords, a form the Russian dictionary misses («засеки»). Lower case, separated by
/// spaces.
const SUPPLEMENT: &str =
    "ок окей медиа вайфай блютуз офлайн ютуб гугл засеки лол ok lol porfiry wifi";

/// One of the judge's dictionaries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dictionary {
    /// Russian (`ru_RU`).
    RuRu,
    /// American English (`en_US`), the first English one.
    EnUs,
    /// British English (`en_GB`), asked when the American one does not know a word.
    EnGb,
}

impl Dictionary {
    /// Every dictionary.
    pub const ALL: [Dictionary; 3] = [Dictionary::RuRu, Dictionary::EnUs, Dictionary::EnGb];

    /// The dictionaries of `lang`, in the order they are asked.
    pub fn of(lang: Lang) -> &'static [Dictionary] {
        match lang {
            Lang::Ru => &[Dictionary::RuRu],
            Lang::En => &[Dictionary::EnUs, Dictionary::EnGb],
        }
    }

    /// Hunspell's name for it: `ru_RU`, `en_US`, `en_GB`.
    pub fn name(self) -> &'static str {
        match self {
            Dictionary::RuRu => "ru_RU",
            Dictionary::EnUs => "en_US",
            Dictionary::EnGb => "en_GB",
        }
    }
}

impl std::fmt::Display for Dictionary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a dictionary could not be loaded. Never with the shipped data (a unit test loads
/// both); the rule passes every word of a language whose dictionary did not load.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DictionaryError {
    /// The packed file did not unpack as UTF-8 text.
    #[error("the {dictionary} dictionary's {file} does not unpack: {message}")]
    Unpack {
        /// The dictionary.
        dictionary: Dictionary,
        /// `aff` or `dic`.
        file: &'static str,
        /// The reader's reason.
        message: String,
    },
    /// Hunspell's files did not parse.
    #[error("the {dictionary} dictionary does not parse: {message}")]
    Parse {
        /// The dictionary.
        dictionary: Dictionary,
        /// The parser's reason.
        message: String,
    },
}

/// A loaded dictionary and what loading it cost.
pub struct Loaded {
    /// The dictionary.
    pub dictionary: spellbook::Dictionary,
    /// Bytes compiled into the crate (both files, packed).
    pub packed_bytes: usize,
    /// Bytes of the unpacked files.
    pub text_bytes: usize,
    /// Time to unpack and parse.
    pub load_time: Duration,
}

impl std::fmt::Debug for Loaded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Loaded")
            .field("packed_bytes", &self.packed_bytes)
            .field("text_bytes", &self.text_bytes)
            .field("load_time", &self.load_time)
            .finish_non_exhaustive()
    }
}

/// The packed `.aff` and `.dic` of `dictionary`.
fn packed(dictionary: Dictionary) -> (&'static [u8], &'static [u8]) {
    match dictionary {
        Dictionary::RuRu => (
            include_bytes!("hunspell/ru_RU.aff.gz"),
            include_bytes!("hunspell/ru_RU.dic.gz"),
        ),
        Dictionary::EnUs => (
            include_bytes!("hunspell/en_US.aff.gz"),
            include_bytes!("hunspell/en_US.dic.gz"),
        ),
        Dictionary::EnGb => (
            include_bytes!("hunspell/en_GB.aff.gz"),
            include_bytes!("hunspell/en_GB.dic.gz"),
        ),
    }
}

fn unpack(
    dictionary: Dictionary,
    file: &'static str,
    packed: &[u8],
) -> Result<String, DictionaryError> {
    let mut text = String::new();
    flate2::read::GzDecoder::new(packed)
        .read_to_string(&mut text)
        .map_err(|e| DictionaryError::Unpack {
            dictionary,
            file,
            message: e.to_string(),
        })?;
    Ok(text)
}

/// Unpack and parse `dictionary` (a new one each call; the rule keeps one per process,
/// [`knows`]).
///
/// # Errors
/// [`DictionaryError`] when the compiled-in files do not unpack or parse.
pub fn load(dictionary: Dictionary) -> Result<Loaded, DictionaryError> {
    let start = Instant::now();
    let (aff_gz, dic_gz) = packed(dictionary);
    let aff = unpack(dictionary, "aff", aff_gz)?;
    let dic = unpack(dictionary, "dic", dic_gz)?;
    let parsed = spellbook::Dictionary::new(&aff, &dic).map_err(|e| DictionaryError::Parse {
        dictionary,
        message: e.to_string(),
    })?;
    Ok(Loaded {
        dictionary: parsed,
        packed_bytes: aff_gz.len() + dic_gz.len(),
        text_bytes: aff.len() + dic.len(),
        load_time: start.elapsed(),
    })
}

/// The process's copy of `dictionary`, loaded on first use; `None` when it did not load.
fn loaded(dictionary: Dictionary) -> Option<&'static spellbook::Dictionary> {
    static RU_RU: OnceLock<Option<spellbook::Dictionary>> = OnceLock::new();
    static EN_US: OnceLock<Option<spellbook::Dictionary>> = OnceLock::new();
    static EN_GB: OnceLock<Option<spellbook::Dictionary>> = OnceLock::new();
    let cell = match dictionary {
        Dictionary::RuRu => &RU_RU,
        Dictionary::EnUs => &EN_US,
        Dictionary::EnGb => &EN_GB,
    };
    cell.get_or_init(|| load(dictionary).ok().map(|l| l.dictionary))
        .as_ref()
}

/// Load the dictionaries of `lang` now, if they are not loaded: what a host calls at
/// start-up (off the turn's path) so that the first judged reply does not pay for them.
/// Whether they all loaded.
pub fn prepare(lang: Lang) -> bool {
    Dictionary::of(lang).iter().all(|d| loaded(*d).is_some())
}

/// Whether `word` (letters of `lang`'s script, apostrophes and inner hyphens) is a word of
/// `lang`: in one of its dictionaries as written (Hunspell also takes a lower-case word with
/// a capital first, or in capitals), in the supplement, laughter (`хаха`, `hehe`), or,
/// hyphenated, made of such words. A dictionary that did not load knows every word: the
/// rule never fails a reply it cannot judge.
pub fn knows(lang: Lang, word: &str) -> bool {
    let in_dictionary = |w: &str| {
        Dictionary::of(lang)
            .iter()
            .any(|d| loaded(*d).is_none_or(|dictionary| dictionary.check(w)))
    };
    let known = |w: &str| {
        let lower = w.to_lowercase();
        lower.chars().filter(|c| c.is_alphabetic()).count() < 2
            || SUPPLEMENT.split(' ').any(|s| same_word(s, &lower))
            || is_laughter(&lower)
            || in_dictionary(w)
    };
    if known(word) {
        return true;
    }
    // `Porfiry's`, `today’s`: the possessive of a known word.
    if let Some(stem) = word.strip_suffix("'s").or_else(|| word.strip_suffix("’s")) {
        if known(stem) {
            return true;
        }
    }
    word.contains('-') && word.split('-').all(known)
}

/// Whether `a` and `b` are forms of one word: equal, or sharing all but their last three
/// letters or fewer, and four letters or more (`суперсемейку`, `суперсемейка`; not `море`,
/// `мореполнении`).
pub(super) fn same_word(a: &str, b: &str) -> bool {
    let shared = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    let longer = a.chars().count().max(b.chars().count());
    a == b || (shared >= 4 && shared + 3 >= longer)
}

/// `хаха`, `ахах`, `хех`, `haha`, `hehe`: letters of laughter only.
fn is_laughter(lower: &str) -> bool {
    ["ха", "хе", "ah", "he"].iter().any(|letters| {
        lower.chars().all(|c| letters.contains(c))
            && lower.chars().count() >= 3
            && lower.chars().any(|c| matches!(c, 'х' | 'h'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dictionaries_load_and_know_their_words() {
        for dictionary in Dictionary::ALL {
            let loaded = load(dictionary).expect("the shipped dictionary loads");
            println!("{dictionary}: {loaded:?}");
        }
        assert!(prepare(Lang::Ru) && prepare(Lang::En));
        for word in [
            "морю",
            "Заметка",
            "сохранена",
            "здравствуйте",
            "что-нибудь",
            "по-русски",
            "светло-голубой",
            "ежик",
            "ёжик",
            "ПРИВЕТ",
            "ок",
            "Порфирий",
            "медиа",
            "вайфая",
            "засеки",
            "Хахаха",
        ] {
            assert!(knows(Lang::Ru, word), "{word}");
        }
        for word in [
            "modeler",
            "you're",
            "don't",
            "today's",
            "Porfiry",
            "Porfiry's",
            "e-mail",
            "well-known",
            "HELLO",
            "ok",
            "Haha",
        ] {
            assert!(knows(Lang::En, word), "{word}");
        }
        for word in ["мореполнении", "Ивануправления", "морепла"] {
            assert!(!knows(Lang::Ru, word), "{word}");
        }
        // British spellings, from the British dictionary.
        for word in [
            "cancelled",
            "colour",
            "colourful",
            "favourite",
            "organised",
            "organisation",
            "analyse",
            "centre",
            "theatres",
            "licence",
            "catalogue",
            "travelling",
            "programme",
            "tyres",
            "yoghurt",
            "cosy",
        ] {
            assert!(knows(Lang::En, word), "{word}");
        }
        for word in ["modelerer", "glorbish-wise", "helpfull", "colourz"] {
            assert!(!knows(Lang::En, word), "{word}");
        }
    }
}
