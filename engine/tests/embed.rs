//! Embeddings on a real model: example vectors are kept (in the cache file beside the head
//! snapshots), a request's vector is not, and a long text is embedded by its head — a 5 MB
//! request costs what a short one does and leaves nothing behind (RELIABILITY.md, R12).

mod common;

use common::{model_path, test_params, SMOLLM2};
use porfiry_engine::{Engine, EngineParams};

/// The entries of the embedding cache file in `dir` (0 when there is none).
fn cached(dir: &std::path::Path) -> usize {
    let Some(file) = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("embeddings-"))
        })
    else {
        return 0;
    };
    let text = std::fs::read_to_string(file).unwrap();
    let map: serde_json::Map<String, serde_json::Value> = serde_json::from_str(&text).unwrap();
    map.len()
}

fn close(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-4)
}

#[test]
fn examples_are_kept_requests_are_not_and_long_texts_cost_their_head() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::load(
        model_path(SMOLLM2),
        EngineParams {
            snapshot_dir: Some(dir.path().to_path_buf()),
            ..test_params()
        },
    )
    .expect("SmolLM2 loads");
    let examples = engine
        .embed(&["What time is it?", "Take a note"])
        .expect("examples embed");
    assert_eq!(examples.len(), 2);
    assert_eq!(cached(dir.path()), 2, "the examples are in the cache file");

    let query = engine.embed_query("Remind me to buy bread").expect("query");
    assert_eq!(query.len(), examples[0].len());
    assert_eq!(cached(dir.path()), 2, "a request is not kept");
    // The same vector as a kept embedding of the same text.
    let kept = engine.embed(&["Remind me to buy bread"]).unwrap();
    assert!(close(&query, &kept[0]));
    assert_eq!(cached(dir.path()), 3);

    // A 5 MB text: embedded by its head (the first 4 KiB), so its vector is that of the
    // head, and the cache does not grow.
    let long = "buy bread and milk ".repeat(5_000_000 / 19);
    let head = &long[..4096];
    let v_long = engine.embed_query(&long).expect("a 5 MB text embeds");
    let v_head = engine.embed_query(head).unwrap();
    assert!(close(&v_long, &v_head));
    assert_eq!(cached(dir.path()), 3);
    // An example that is itself long is kept by its head, not by 5 MB of key.
    engine.embed(&[long.as_str()]).unwrap();
    let file_bytes: u64 = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with("embeddings-"))
        .map(|e| e.metadata().unwrap().len())
        .sum();
    assert!(file_bytes < 200_000, "cache file {file_bytes} bytes");
}

/// Texts embedded together (one sequence each, their last tokens decoded apart from the
/// rest) get the vectors they get alone, on both models.
#[test]
fn a_text_embedded_with_others_gets_its_own_vector() {
    for file in [SMOLLM2, common::GEMMA] {
        let engine = Engine::load(model_path(file), test_params()).expect("loads");
        let texts = [
            "Который час?",
            "Take a note: buy bread and milk",
            "Покажи на экране: встреча в пять",
            "x",
        ];
        let together = engine.embed(&texts).expect("embeds");
        for (t, v) in texts.iter().zip(&together) {
            let alone = engine.embed_query(t).unwrap();
            assert!(close(v, &alone), "{file}: {t}");
            let norm: f32 = v.iter().map(|x| x * x).sum();
            assert!((norm - 1.0).abs() < 1e-3, "{file}: {t}: unit length");
        }
        // Different texts, different vectors.
        assert!(!close(&together[0], &together[1]), "{file}");
    }
}
