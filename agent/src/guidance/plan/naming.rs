//! Which declared set or skill a request names: by the stems of its subject (a set's name,
//! description and spoken phrases), and whether a set's examples cover a request.

use super::super::words::stems;
use crate::messages::Lang;

/// Whether two stems are of one word: equal, or the shorter (of four letters or more)
/// begins the longer.
pub(super) fn same_stem(a: &str, b: &str) -> bool {
    let (short, long) = if a.chars().count() <= b.chars().count() {
        (a, b)
    } else {
        (b, a)
    };
    short == long || (short.chars().count() >= 4 && long.starts_with(short))
}

/// The name among `named` (name, description) whose words share the most stems with
/// `request`; `None` when none shares any. A stem shorter than the stems' five letters is
/// shared by the longer stem it starts (four letters at least): "film" names "films".
pub(super) fn best_named<'a>(
    request: &str,
    named: impl Iterator<Item = (&'a String, &'a String)>,
) -> Option<String> {
    let want = stems(request);
    let words = super::super::words::lower_words(request);
    let mut best: Option<(f32, &String)> = None;
    for (name, description) in named {
        let have = stems(&format!("{name} {description}"));
        let shared = want
            .iter()
            .filter(|w| have.iter().any(|h| same_stem(w, h)))
            .count();
        // A name too short to be a stem ("tv") counts when the request says it as a word.
        let short_name = usize::from(
            name.chars().count() < 3 && words.iter().any(|w| w.eq_ignore_ascii_case(name)),
        );
        let said = want.len() + short_name;
        let score = if said == 0 {
            0.0
        } else {
            (shared + short_name) as f32 / said as f32
        };
        if score > 0.0 && best.is_none_or(|(b, _)| score > b) {
            best = Some((score, name));
        }
    }
    best.map(|(_, n)| n.clone())
}

/// A toolset's words a request names it by: its description and spoken phrases, less the
/// words its tools declare as actions (`said:`): "delete" says what to do, not which set
/// ("delete everything on the shopping list" names the shopping list, not the notes).
pub(super) fn set_words(set: &crate::toolset::Toolset) -> String {
    let mut words = set.description.clone();
    for lang in [Lang::Ru, Lang::En] {
        if let Some(spoken) = set.spoken_in(lang) {
            words.push(' ');
            words.push_str(spoken);
        }
    }
    let actions: Vec<String> = set
        .tools
        .iter()
        .flat_map(|t| t.said.iter())
        .flat_map(|w| stems(w))
        .collect();
    words
        .split_whitespace()
        .filter(|w| {
            let st = stems(w);
            st.is_empty() || !st.iter().all(|s| actions.contains(s))
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether a request of `request` stems is one a declared set's examples cover
/// (`set_examples`: each example's set and stems): it shares a stem with one set's examples
/// that is the set's own (in two of its examples at least, and in no other set's: "timer",
/// "weather"), and another stem with them or that stem is a word of the set's subject
/// (`subjects`: each set and the stems of its name and [`set_words`]: «будильник» of an
/// alarm set).
pub(super) fn covered_by_a_set(
    request: &[String],
    set_examples: &[(String, Vec<String>)],
    subjects: &[(String, Vec<String>)],
) -> bool {
    let mut sets: Vec<&str> = set_examples.iter().map(|(t, _)| t.as_str()).collect();
    sets.sort_unstable();
    sets.dedup();
    sets.iter().any(|set| {
        let own: Vec<&Vec<String>> = set_examples
            .iter()
            .filter(|(t, _)| t == set)
            .map(|(_, s)| s)
            .collect();
        let shared: Vec<&String> = request
            .iter()
            .filter(|s| own.iter().any(|e| e.contains(s)))
            .collect();
        let its_own = |stem: &String| {
            own.iter().filter(|e| e.contains(stem)).count() >= 2
                && !set_examples
                    .iter()
                    .any(|(t, e)| t != set && e.contains(stem))
        };
        let subject: Vec<&String> = subjects
            .iter()
            .filter(|(n, _)| n == set)
            .flat_map(|(_, stems)| stems)
            .collect();
        shared
            .iter()
            .any(|s| its_own(s) && (shared.len() >= 2 || subject.contains(s)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_subject_is_named_by_its_words_and_by_a_short_stem_of_them() {
        let named = [
            ("media".to_string(), "find and play films".to_string()),
            (
                "notes".to_string(),
                "take, list and delete notes".to_string(),
            ),
        ];
        let best = |request: &str| best_named(request, named.iter().map(|(n, d)| (n, d)));
        assert_eq!(
            best("walk me through the film feature").as_deref(),
            Some("media")
        );
        assert_eq!(best("how do my notes work").as_deref(), Some("notes"));
        // Nothing shared, no subject; a three-letter word starts no longer one ("fil" is no "films").
        assert_eq!(best("fil the tank"), None);
        assert_eq!(best("what about the weather"), None);
        // A name too short to be a stem is said as a word.
        let named = [
            (
                "radio".to_string(),
                "play radio stations, set the volume, turn it off".to_string(),
            ),
            (
                "tv".to_string(),
                "turn the set on and off, channels, the volume".to_string(),
            ),
        ];
        let best = |request: &str| best_named(request, named.iter().map(|(n, d)| (n, d)));
        assert_eq!(
            best("TV a bit quieter, twelve please").as_deref(),
            Some("tv")
        );
        assert_eq!(
            best("Turn the TV volume all the way up").as_deref(),
            Some("tv")
        );
        assert_eq!(best("turn the volume up").as_deref(), Some("radio"));
    }

    #[test]
    fn an_out_of_scope_request_a_set_covers_is_one_of_its_subject_word_or_two_stems() {
        let alarm = |text: &str| ("alarm".to_string(), stems(text));
        let examples = [
            alarm("Поставь будильник на 7 утра"),
            alarm("Будильник на восемь пятнадцать"),
            alarm("Разбуди меня в шесть тридцать"),
            ("timer".to_string(), stems("Заведи таймер на 10 минут")),
        ];
        let request = stems("Заведи будильник на полшестого");
        let subjects = [(
            "alarm".to_string(),
            stems("alarm будильник (поставить на время)"),
        )];
        assert!(covered_by_a_set(&request, &examples, &subjects));
        // One stem shared, not the set's subject: not covered.
        assert!(!covered_by_a_set(&request, &examples, &[]));
        // The set's subject word shared with no two of its examples: not its own.
        let other = stems("Купи билеты на поезд");
        assert!(!covered_by_a_set(&other, &examples, &subjects));
    }
}
