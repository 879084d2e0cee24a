//! The fuzz targets' smoke run (RELIABILITY.md §2): every committed seed of every
//! target (`fuzz/seeds/<target>/`) and a few thousand deterministic mutations of them go
//! through the very functions the libFuzzer binaries call (`fuzz/src/lib.rs`, included
//! here), in the ordinary `cargo test` — no cargo-fuzz, no nightly flags, no second build
//! of llama.cpp. The coverage-guided campaign itself (`cargo fuzz run`, minutes per target)
//! is not part of `./run test`.
//!
//! An input that takes longer than [`SLOW`] counts as a hang.

// The fuzz crate's `readers` feature (its own copies of the engine's readers) does not
// exist here: the engine's targets are included on their own, over the real crates.
#[allow(dead_code)]
#[path = "../fuzz/src/engine_targets.rs"]
mod engine_targets;
#[allow(dead_code, unexpected_cfgs)]
#[path = "../fuzz/src/lib.rs"]
mod targets;

/// The readers the engine's targets call: the real crates.
mod readers {
    pub mod engine {
        pub use porfiry_engine::{inspect_gguf_bytes, snapshot, KvType};
    }
    pub mod eval {
        pub use porfiry_bench::eval::parse_eval_file;
    }
}

use targets::text;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Mutations tried per target (besides the seeds themselves).
const MUTATIONS: usize = 2_000;
/// Longer than this for one input is a hang (debug build, a loaded machine).
const SLOW: Duration = Duration::from_secs(2);

/// Tokens the mutator inserts: the syntax the parsers care about.
const TOKENS: &[&[u8]] = &[
    b"TOOL_CALL:",
    b"tool_call :",
    b"|",
    b"=",
    b"```",
    b"\n",
    b"\r\n",
    b"---\n",
    b": ",
    b"- ",
    b"&a ",
    b"*a",
    b"[",
    b"{",
    b"\"",
    b"!!binary ",
    b"\xef\xbb\xbf",
    b"\xff",
    b"\0",
    b"GGUF",
    b"PORFKVH\x01",
    b"\xff\xff\xff\xff\xff\xff\xff\x7f",
    b"\x00\x00\x00\x00\x00\x00\x00\x00",
    "«да»".as_bytes(),
];

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

/// One to four stacked edits of `input`: byte flips, interesting bytes, token inserts,
/// deletions, duplications, truncation, a splice with another seed.
fn mutate(input: &[u8], other: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut v = input.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(v.len() + 1);
        match rng.below(7) {
            0 if !v.is_empty() => {
                let i = rng.below(v.len());
                v[i] ^= 1 << rng.below(8);
            }
            1 if !v.is_empty() => {
                let i = rng.below(v.len());
                v[i] = [0, 0xff, 0x7f, 0x80, b'\n', b'|'][rng.below(6)];
            }
            2 => {
                let t = TOKENS[rng.below(TOKENS.len())];
                v.splice(at..at, t.iter().copied());
            }
            3 if at < v.len() => {
                let end = (at + 1 + rng.below(16)).min(v.len());
                v.drain(at..end);
            }
            4 if at < v.len() => {
                let end = (at + 1 + rng.below(64)).min(v.len());
                let piece = v[at..end].to_vec();
                v.splice(at..at, piece);
            }
            5 => v.truncate(at),
            _ => {
                let from = rng.below(other.len() + 1);
                v.truncate(at);
                v.extend_from_slice(&other[from..]);
            }
        }
    }
    v
}

fn seeds(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/seeds")
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("seed entry").path())
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let bytes = std::fs::read(&p).expect("seed file");
            (p, bytes)
        })
        .collect()
}

fn run_one(name: &str, body: fn(&[u8]), input: &[u8], what: &dyn Fn() -> String) {
    let start = Instant::now();
    body(input);
    let took = start.elapsed();
    assert!(took < SLOW, "{name}: {} took {took:?} (a hang)", what());
}

#[test]
fn every_target_survives_its_seeds_and_mutations() {
    let mut report = Vec::new();
    for (name, body) in targets::TARGETS
        .iter()
        .chain(engine_targets::ENGINE_TARGETS)
    {
        let start = Instant::now();
        let seeds = seeds(name);
        assert!(!seeds.is_empty(), "{name}: no seeds committed");
        for (path, bytes) in &seeds {
            run_one(name, *body, bytes, &|| path.display().to_string());
        }
        let mut rng = Rng(0x2545_F491_4F6C_DD1D ^ name.len() as u64);
        for i in 0..MUTATIONS {
            let (_, a) = &seeds[i % seeds.len()];
            let (_, b) = &seeds[rng.below(seeds.len())];
            let input = mutate(a, b, &mut rng);
            run_one(name, *body, &input, &|| format!("mutation {i}: {input:?}"));
        }
        report.push(format!(
            "{name}: {} seeds + {MUTATIONS} mutations in {:?}",
            seeds.len(),
            start.elapsed()
        ));
    }
    eprintln!("{}", report.join("\n"));
}

#[test]
fn the_mutator_changes_its_input() {
    let mut rng = Rng(7);
    let changed = (0..100)
        .filter(|_| mutate(b"TOOL_CALL: a|b", b"xyz", &mut rng) != b"TOOL_CALL: a|b")
        .count();
    assert!(
        changed > 80,
        "only {changed} of 100 mutations changed the input"
    );
}
