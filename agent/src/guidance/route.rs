//! Routing a request by similarity: the request's embedding (from the model's own weights,
//! [`Model::embed`]) against example requests of each tool and of a plain reply, nearest
//! neighbour wins. A tiny model that cannot pick a tool from a prompt can still tell which
//! examples a request resembles; the agent then constrains the reply to that call (or to
//! plain text) and lets the model fill in the arguments.

use std::collections::HashMap;

use super::words::stems;
use super::{Guidance, Technique};
use crate::model::{Model, ModelError};

/// An example request and what it calls for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RouteExample {
    /// The tool it calls for; `None`: a plain reply.
    pub target: Option<String>,
    /// The request.
    pub text: String,
}

/// What routing chose for a request.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Route {
    /// The tool; `None`: a plain reply.
    pub target: Option<String>,
    /// The target's score: the mean of its best two examples' scores under
    /// [`Technique::TopTwo`], else its best one's (embedding cosine plus weighted shared
    /// stems).
    pub score: f32,
    /// How far the best target is ahead of the next best one (by their scores).
    pub margin: f32,
    /// The target's nearest example.
    pub example: String,
}

/// Embeddings of example texts, kept across requests (they never change for a model), and
/// of the last few requests routed ([`QUERY_MEMO`]).
#[derive(Debug, Default, Clone)]
pub(crate) struct Router {
    cache: HashMap<String, Vec<f32>>,
    /// The most recent requests' embeddings, newest last: a voice user's last partial
    /// transcript is routed while they speak ([`crate::Agent::hear_partial`]), and the turn
    /// with the same final text finds its embedding here instead of waiting for the model.
    queries: Vec<(String, Vec<f32>)>,
}

/// How many request embeddings the router remembers.
pub const QUERY_MEMO: usize = 4;

impl Router {
    /// The distinct example texts not embedded yet, sorted.
    fn missing<'e>(&self, examples: &'e [RouteExample]) -> Vec<&'e str> {
        let mut missing: Vec<&str> = examples
            .iter()
            .map(|e| e.text.as_str())
            .filter(|t| !self.cache.contains_key(*t))
            .collect();
        missing.sort_unstable();
        missing.dedup();
        missing
    }

    /// Embed the examples not embedded yet.
    ///
    /// # Errors
    /// What the model reports when embedding fails.
    pub(crate) fn prepare(
        &mut self,
        model: &mut dyn Model,
        examples: &[RouteExample],
    ) -> Result<(), ModelError> {
        let missing = self.missing(examples);
        if missing.is_empty() {
            return Ok(());
        }
        if let Some(vectors) = model.embed(&missing)? {
            for (t, v) in missing.into_iter().zip(vectors) {
                self.cache.insert(t.to_owned(), v);
            }
        }
        Ok(())
    }

    /// The route of `request` among `examples`, scored by the routing techniques `guidance`
    /// has on. `Ok(None)` when the model cannot embed or there are no examples.
    ///
    /// # Errors
    /// What the model reports when embedding fails.
    pub(crate) fn route(
        &mut self,
        model: &mut dyn Model,
        request: &str,
        examples: &[RouteExample],
        guidance: &Guidance,
    ) -> Result<Option<Route>, ModelError> {
        if examples.is_empty() || request.trim().is_empty() {
            return Ok(None);
        }
        let missing = self.missing(examples);
        if !missing.is_empty() {
            let Some(vectors) = model.embed(&missing)? else {
                return Ok(None);
            };
            if vectors.len() != missing.len() {
                return Err(ModelError::failed(format!(
                    "{} embeddings for {} texts",
                    vectors.len(),
                    missing.len()
                )));
            }
            for (t, v) in missing.into_iter().zip(vectors) {
                self.cache.insert(t.to_owned(), v);
            }
        }
        let query = match self.queries.iter().find(|(t, _)| t == request) {
            Some((_, v)) => v.clone(),
            // The request comes once (or twice: partial, then final): the model need not
            // keep its vector; the router keeps the last few.
            None => {
                let Some(v) = model.embed_query(request)? else {
                    return Ok(None);
                };
                if self.queries.len() == QUERY_MEMO {
                    self.queries.remove(0);
                }
                self.queries.push((request.to_owned(), v.clone()));
                v
            }
        };
        Ok(nearest(&query, request, examples, &self.cache, guidance))
    }
}

/// How much a shared word stem counts beside the embeddings' cosine
/// ([`word_overlap`] × this is added to it).
pub const OVERLAP_WEIGHT: f32 = 2.0;

/// How much the embeddings' cosine counts.
pub const EMBEDDING_WEIGHT: f32 = 1.0;

/// How many of a target's best examples its score is the mean of under
/// [`Technique::TopTwo`] (one otherwise): one lucky neighbour (a request sharing one word
/// with one example of the wrong tool) counts for less than two that agree
/// (`docs/guidance.md`).
pub const TOP_K: usize = 2;

/// How telling each stem is among `examples`: ln(1 + targets / targets whose examples
/// have it). A stem every tool's examples share («покажи», «show») tells little; one only
/// the notes examples have («заметк») tells a lot. Stems no example has get the top weight.
fn stem_weights(examples: &[RouteExample]) -> HashMap<String, f32> {
    let mut by_target: HashMap<&Option<String>, Vec<String>> = HashMap::new();
    for e in examples {
        let entry = by_target.entry(&e.target).or_default();
        for st in stems(&e.text) {
            if !entry.contains(&st) {
                entry.push(st);
            }
        }
    }
    let targets = by_target.len().max(1) as f32;
    let mut df: HashMap<String, f32> = HashMap::new();
    for st in by_target.into_values().flatten() {
        *df.entry(st).or_default() += 1.0;
    }
    df.into_iter()
        .map(|(st, n)| (st, (1.0 + targets / n).ln()))
        .collect()
}

/// The weighted share of the request's stems that the example has too: Σ weight of the
/// shared stems / Σ weight of the request's (a stem without a weight counts as the most
/// telling). 0 without stems.
pub(crate) fn weighted_overlap(
    request: &[String],
    example: &[String],
    weights: &HashMap<String, f32>,
) -> f32 {
    let top = weights.values().copied().fold(1.0f32, f32::max);
    let w = |s: &String| weights.get(s).copied().unwrap_or(top);
    let total: f32 = request.iter().map(w).sum();
    if total <= 0.0 {
        return 0.0;
    }
    let shared: f32 = request.iter().filter(|s| example.contains(s)).map(w).sum();
    shared / total
}

/// The share of the request's stems that the example has too (0 without stems).
pub(crate) fn word_overlap(request: &[String], example: &[String]) -> f32 {
    if request.is_empty() {
        return 0.0;
    }
    let shared = request.iter().filter(|s| example.contains(s)).count();
    shared as f32 / request.len() as f32
}

/// The best target, with its score and margin over the next target. An example's score is
/// the cosine of the embeddings plus, under [`Technique::StemOverlap`], [`OVERLAP_WEIGHT`] ×
/// the share of the request's word stems it shares (weighted by how telling each is under
/// [`Technique::StemWeights`]: [`weighted_overlap`]; else [`word_overlap`]); a target's,
/// the mean of its best [`TOP_K`] examples' scores under [`Technique::TopTwo`], else its
/// best one's.
///
/// Under [`Technique::Centering`] vectors are compared after the examples' mean is taken
/// off every one of them (the query's too): a small model's embeddings share a large
/// common direction that makes every pair look alike; without it, what differs between
/// requests decides.
fn nearest(
    query: &[f32],
    request: &str,
    examples: &[RouteExample],
    vectors: &HashMap<String, Vec<f32>>,
    guidance: &Guidance,
) -> Option<Route> {
    let known: Vec<&Vec<f32>> = examples
        .iter()
        .filter_map(|e| vectors.get(&e.text))
        .filter(|v| v.len() == query.len())
        .collect();
    let mut mean = vec![0.0f32; query.len()];
    if known.len() > 1 && guidance.is_on(Technique::Centering) {
        for v in &known {
            mean.iter_mut().zip(v.iter()).for_each(|(m, x)| *m += x);
        }
        let n = known.len() as f32;
        mean.iter_mut().for_each(|m| *m /= n);
    }
    let centered = |v: &[f32]| -> Vec<f32> { v.iter().zip(&mean).map(|(x, m)| x - m).collect() };
    let query = centered(query);
    let request_stems = stems(request);
    let stem_overlap = guidance.is_on(Technique::StemOverlap);
    let weighted = guidance.is_on(Technique::StemWeights);
    let weights = if stem_overlap && weighted {
        stem_weights(examples)
    } else {
        HashMap::new()
    };
    let top_k = if guidance.is_on(Technique::TopTwo) {
        TOP_K
    } else {
        1
    };
    // Per target, in first-seen order: its examples' scores, best first.
    let mut per_target: Vec<TargetScores<'_>> = Vec::new();
    for e in examples {
        let Some(v) = vectors.get(&e.text) else {
            continue;
        };
        let overlap = match (stem_overlap, weighted) {
            (false, _) => 0.0,
            (true, true) => weighted_overlap(&request_stems, &stems(&e.text), &weights),
            (true, false) => word_overlap(&request_stems, &stems(&e.text)),
        };
        let score = EMBEDDING_WEIGHT * cosine(&query, &centered(v)) + OVERLAP_WEIGHT * overlap;
        match per_target.iter_mut().find(|(t, _)| **t == e.target) {
            Some((_, scores)) => scores.push((score, &e.text)),
            None => per_target.push((&e.target, vec![(score, &e.text)])),
        }
    }
    // A target's score: the mean of its best top_k examples' (all of them when it has
    // fewer); its example: the best one.
    let mut best: Vec<(&Option<String>, f32, &str)> = per_target
        .into_iter()
        .filter_map(|(target, mut scores)| {
            scores.sort_by(|a, b| b.0.total_cmp(&a.0));
            let top = &scores[..scores.len().min(top_k)];
            let (_, example) = *top.first()?;
            let mean = top.iter().map(|(s, _)| s).sum::<f32>() / top.len() as f32;
            Some((target, mean, example))
        })
        .collect();
    best.sort_by(|a, b| b.1.total_cmp(&a.1));
    let (target, score, example) = best.first()?;
    let runner_up = best.get(1).map_or(-1.0, |b| b.1);
    Some(Route {
        target: (*target).clone(),
        score: *score,
        margin: score - runner_up,
        example: (*example).to_owned(),
    })
}

/// A target and its examples' scores (with the example's text).
type TargetScores<'e> = (&'e Option<String>, Vec<(f32, &'e str)>);

/// Cosine similarity (0 for mismatched or zero vectors).
pub(crate) fn cosine(a: &[f32], b: &[f32]) -> f32 {
    if a.len() != b.len() || a.is_empty() {
        return 0.0;
    }
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na = a.iter().map(|x| x * x).sum::<f32>().sqrt();
    let nb = b.iter().map(|x| x * x).sum::<f32>().sqrt();
    if na == 0.0 || nb == 0.0 || !dot.is_finite() {
        0.0
    } else {
        dot / (na * nb)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Generation, ModelRequest};

    /// Embeds by counting a few marker words: enough to check the mechanics.
    struct Words(Vec<&'static str>, usize);

    impl Model for Words {
        fn generate(
            &mut self,
            _: &ModelRequest<'_>,
            _: &mut dyn FnMut(&str),
        ) -> Result<Generation, ModelError> {
            Err(ModelError::failed("not here"))
        }
        fn embed(&mut self, texts: &[&str]) -> Result<Option<Vec<Vec<f32>>>, ModelError> {
            self.1 += texts.len();
            Ok(Some(
                texts
                    .iter()
                    .map(|t| {
                        let t = t.to_lowercase();
                        self.0.iter().map(|w| t.matches(w).count() as f32).collect()
                    })
                    .collect(),
            ))
        }
    }

    fn ex(target: Option<&str>, text: &str) -> RouteExample {
        RouteExample {
            target: target.map(str::to_owned),
            text: text.to_owned(),
        }
    }

    #[test]
    fn the_nearest_example_wins_and_examples_are_embedded_once() {
        let mut model = Words(vec!["time", "note", "hello"], 0);
        let examples = vec![
            ex(Some("get_current_time"), "what time is it"),
            ex(Some("get_current_time"), "time please"),
            ex(Some("notes_add"), "add a note"),
            ex(None, "hello there"),
        ];
        let mut router = Router::default();
        let r = router
            .route(&mut model, "the time?", &examples, &Guidance::default())
            .unwrap()
            .unwrap();
        assert_eq!(r.target.as_deref(), Some("get_current_time"));
        // Cosine 1 plus every stem shared.
        let top = EMBEDDING_WEIGHT + OVERLAP_WEIGHT;
        assert!((r.score - top).abs() < 1e-5 && r.margin > 0.5, "{r:?}");
        assert_eq!(model.1, 5);
        let r = router
            .route(&mut model, "hello!", &examples, &Guidance::default())
            .unwrap()
            .unwrap();
        assert_eq!(r.target, None);
        assert_eq!(r.example, "hello there");
        // Only the request was embedded the second time.
        assert_eq!(model.1, 6);
    }

    #[test]
    fn nothing_to_route_without_examples_or_embeddings() {
        let mut model = Words(vec!["a"], 0);
        assert_eq!(
            Router::default()
                .route(&mut model, "a", &[], &Guidance::default())
                .unwrap(),
            None
        );
        let mut none = crate::ScriptedModel::new(Vec::<String>::new());
        let examples = vec![ex(None, "a")];
        assert_eq!(
            Router::default()
                .route(&mut none, "a", &examples, &Guidance::default())
                .unwrap(),
            None
        );
    }

    #[test]
    fn shared_stems_count_across_word_forms() {
        let q = stems("Удали вторую заметку, пожалуйста");
        assert_eq!(q, ["удали", "втору", "замет"]);
        assert!((word_overlap(&q, &stems("Сотри заметки")) - 1.0 / 3.0).abs() < 1e-6);
        assert_eq!(word_overlap(&[], &q), 0.0);
        assert_eq!(stems("What is the time?"), ["time"]);
        // A contraction is one word: "don't" shares no stem "don" with "I don't need it".
        assert_eq!(
            stems("Don't let me forget it’s Tom's"),
            ["let", "forge", "toms"]
        );
    }

    #[test]
    fn a_stem_every_target_shares_tells_less_than_a_rare_one() {
        let examples = vec![
            ex(Some("notes_list"), "покажи заметки"),
            ex(Some("show_text"), "покажи на экране"),
            ex(None, "покажи фокус"),
        ];
        let w = stem_weights(&examples);
        assert!(w["покаж"] < w["замет"], "{w:?}");
        let q = stems("покажи мои заметки");
        let notes = weighted_overlap(&q, &stems("покажи заметки"), &w);
        let screen = weighted_overlap(&q, &stems("покажи на экране"), &w);
        assert!(
            (notes - 1.0).abs() < 1e-6 && screen < 0.5,
            "{notes} {screen}"
        );
        // A stem no example has weighs the most, and an empty request shares nothing.
        let unknown = weighted_overlap(&stems("покажи котика"), &stems("покажи заметки"), &w);
        assert!(unknown < 0.5, "{unknown}");
        assert_eq!(weighted_overlap(&[], &q, &w), 0.0);
    }

    /// Lower case letters and digits, words one space apart: how two wordings are compared.
    fn normalized(text: &str) -> String {
        text.to_lowercase()
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Every routing example of the repository: the core tools', plain replies' and
    /// conversational intents', and the shipped and runtime toolsets' (both languages).
    fn every_example() -> Vec<String> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut out: Vec<String> = [crate::Lang::Ru, crate::Lang::En]
            .into_iter()
            .flat_map(|l| super::super::examples::route_examples(l).iter())
            .map(|(_, t)| (*t).to_owned())
            .collect();
        for l in [crate::Lang::Ru, crate::Lang::En] {
            out.extend(
                super::super::talk::talk_examples(l)
                    .iter()
                    .map(|(_, t)| (*t).to_owned()),
            );
        }
        // The worked exchanges of a question asked in a transcript are examples too.
        for l in [crate::Lang::Ru, crate::Lang::En] {
            let shots = crate::messages::Texts::new(l).answer_transcript().shots;
            out.extend(shots.iter().map(|(q, _)| (*q).to_owned()));
        }
        for dir in ["toolsets", "runtime/toolsets"] {
            for entry in std::fs::read_dir(root.join(dir)).unwrap() {
                let path = entry.unwrap().path();
                let text = std::fs::read_to_string(&path).unwrap();
                let set = crate::toolset::parse_toolset(&text, &path).unwrap();
                for t in set.tools {
                    out.extend(t.examples.into_iter().map(|(_, e)| e));
                }
            }
        }
        out
    }

    /// Whether two normalized wordings are one up to near-verbatim edits: the same words
    /// reordered, or (four words or more) one word changed, added or dropped.
    fn near_verbatim(a: &str, b: &str) -> bool {
        let a: Vec<&str> = a.split(' ').filter(|w| !w.is_empty()).collect();
        let b: Vec<&str> = b.split(' ').filter(|w| !w.is_empty()).collect();
        let (mut sa, mut sb) = (a.clone(), b.clone());
        sa.sort_unstable();
        sb.sort_unstable();
        if sa == sb {
            return true;
        }
        if a.len().min(b.len()) < 4 {
            return false;
        }
        word_distance(&a, &b) <= 1
    }

    /// The edit distance between two word sequences (Levenshtein over words).
    fn word_distance(a: &[&str], b: &[&str]) -> usize {
        let mut row: Vec<usize> = (0..=b.len()).collect();
        for (i, wa) in a.iter().enumerate() {
            let mut diagonal = row[0];
            row[0] = i + 1;
            for (j, wb) in b.iter().enumerate() {
                let above = row[j + 1];
                row[j + 1] = (diagonal + usize::from(wa != wb))
                    .min(above + 1)
                    .min(row[j] + 1);
                diagonal = above;
            }
        }
        row[b.len()]
    }

    #[test]
    fn near_verbatim_wordings_are_told_from_other_ones() {
        let n = |a: &str, b: &str| near_verbatim(&normalized(a), &normalized(b));
        assert!(n("Покажи мои заметки", "Покажи мои заметки!"));
        assert!(n("Мои заметки покажи", "Покажи мои заметки"));
        assert!(n("Add a note to buy milk", "Add a note to buy bread"));
        assert!(n("Add a note to buy milk", "Please add a note to buy milk"));
        assert!(n(
            "What did I ask you to remember?",
            "What did I ask you remember?"
        ));
        // Short wordings differ by one word and mean another thing.
        assert!(!n("Show my notes", "Show my films"));
        assert!(!n("Add a note to buy milk", "Add a note: call mum"));
        assert!(!n(
            "What have I written down?",
            "Read back what I've written so far"
        ));
    }

    /// The routing examples are written apart from the eval cases (every set, every turn of
    /// a conversation): no example is a case's request or one near-verbatim (reordered, one
    /// word changed, added or dropped), so the eval measures routing on wordings it has not
    /// seen.
    #[test]
    fn no_routing_example_is_an_eval_case() {
        let examples: Vec<String> = every_example().iter().map(|e| normalized(e)).collect();
        assert!(examples.len() > 100, "{} examples", examples.len());
        let evals = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../evals");
        let mut cases = 0;
        let mut found = Vec::new();
        for entry in std::fs::read_dir(evals).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().and_then(|e| e.to_str()) != Some("yaml") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let file: serde_norway::Value = serde_norway::from_str(&text).unwrap();
            let list = file["cases"].as_sequence().cloned().unwrap_or_default();
            for case in list {
                // A case's request, or each turn's of a conversation.
                let turns = case["turns"].as_sequence().cloned().unwrap_or_default();
                let users: Vec<String> = std::iter::once(&case)
                    .chain(turns.iter())
                    .filter_map(|c| c["user"].as_str())
                    .map(normalized)
                    .collect();
                for user in users {
                    if let Some(near) = examples.iter().find(|e| near_verbatim(e, &user)) {
                        found.push(format!("{}: {user:?} ~ {near:?}", path.display()));
                    }
                    cases += 1;
                }
            }
        }
        assert!(
            found.is_empty(),
            "eval requests that are routing examples, or nearly:\n{}",
            found.join("\n")
        );
        assert!(cases >= 150, "{cases} cases");
    }

    #[test]
    fn cosine_is_safe_on_odd_vectors() {
        assert_eq!(cosine(&[1.0, 0.0], &[1.0]), 0.0);
        assert_eq!(cosine(&[0.0, 0.0], &[1.0, 0.0]), 0.0);
        assert!((cosine(&[1.0, 1.0], &[2.0, 2.0]) - 1.0).abs() < 1e-6);
    }
}
