//! Hostile model files (RELIABILITY.md "Hostile files"): a corpus generated from
//! the real Gemma file's header — truncated at many offsets, header bytes flipped, wrong
//! tensor and metadata counts, huge declared lengths — plus small built images (misaligned
//! and overflowing tensors, a valid header over garbage tensor data, an unsupported
//! architecture) that go through `Engine::load`, i.e. through llama.cpp when the
//! pre-validator lets them. Every rejection is a typed error naming the problem; nothing
//! aborts the process; peak memory while rejecting stays under a small bound.

mod common;
#[path = "support/gguf_image.rs"]
mod gguf_image;

use std::fs;
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use gguf_image::Image;
use porfiry_engine::{
    inspect_gguf, inspect_gguf_bytes, ChatFormat, Engine, EngineError, EngineParams, GgufError,
};

/// Peak resident memory of this process so far, in KiB (Linux).
fn peak_rss_kib() -> u64 {
    fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

fn temp(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("porfiry-gguf-{tag}-{}", std::process::id()));
    fs::remove_dir_all(&d).ok();
    fs::create_dir_all(&d).expect("temp folder");
    d
}

/// The error names what is wrong: the file and a known kind of problem.
fn names_the_problem(e: &GgufError, path: &Path) {
    let text = e.to_string();
    assert!(
        text.contains(&path.display().to_string()),
        "error does not name the file: {text}"
    );
    assert!(
        matches!(
            e,
            GgufError::Truncated { .. }
                | GgufError::Corrupt { .. }
                | GgufError::NotGguf(_)
                | GgufError::UnsupportedVersion { .. }
        ),
        "unexpected kind: {e:?}"
    );
}

struct Xorshift(u64);
impl Xorshift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// The real model's header (everything before its tensor data) and the file's length.
fn real_header() -> (Vec<u8>, u64) {
    let path = common::model_path(common::GEMMA);
    let info = inspect_gguf(&path).expect("the real model passes");
    let mut header = vec![0u8; info.data_offset as usize];
    fs::File::open(&path)
        .and_then(|f| f.read_exact_at(&mut header, 0))
        .expect("read the header");
    (header, info.file_len)
}

/// A sparse file: `header` at the start, zeros up to `len` (no disk used for the zeros).
fn sparse_model(path: &Path, header: &[u8], len: u64) -> fs::File {
    let mut f = fs::File::create(path).expect("create");
    f.write_all(header).expect("write header");
    f.set_len(len).expect("set_len");
    f
}

#[test]
fn a_corpus_from_the_real_header_is_rejected_with_typed_errors_in_bounded_memory() {
    let (header, len) = real_header();
    let dir = temp("corpus");
    let path = dir.join("model.gguf");
    let file = sparse_model(&path, &header, len);
    inspect_gguf(&path).expect("the sparse copy passes like the real file");
    let before = peak_rss_kib();
    let mut tried = 0usize;
    let mut rejected = 0usize;

    // Truncated at every offset of the first 256 bytes and at 400 more through the header
    // and the tensor data.
    let mut rng = Xorshift(0x5EED_1234_ABCD_0001);
    let mut cuts: Vec<u64> = (0..256).collect();
    cuts.extend((0..200).map(|_| 256 + rng.next() % (header.len() as u64 - 256)));
    cuts.extend((0..200).map(|_| header.len() as u64 + rng.next() % (len - header.len() as u64)));
    for cut in cuts {
        file.set_len(cut).expect("truncate");
        let e = inspect_gguf(&path).expect_err("a truncated file is rejected");
        names_the_problem(&e, &path);
        tried += 1;
        rejected += 1;
    }
    file.set_len(len).expect("restore length");
    file.write_all_at(&header, 0).expect("restore header");
    inspect_gguf(&path).expect("restored");

    // One flipped byte at 400 places of the header (most land in strings or values and
    // are still a valid header; the rest must be typed errors).
    for _ in 0..400 {
        let at = rng.next() % header.len() as u64;
        let old = header[at as usize];
        let new = old ^ (1 << (rng.next() % 8)) as u8;
        file.write_at(&[new], at).expect("flip");
        match inspect_gguf(&path) {
            Ok(info) => assert!(info.required_len <= len),
            Err(e) => {
                names_the_problem(&e, &path);
                rejected += 1;
            }
        }
        file.write_at(&[old], at).expect("restore");
        tried += 1;
    }

    // Wrong tensor and metadata counts (offsets 8 and 16), huge ones included, and a huge
    // length for the first key (offset 24): allocation bombs.
    let count = |at: usize| u64::from_le_bytes(header[at..at + 8].try_into().unwrap());
    for (at, values) in [
        (8, vec![count(8) + 1, count(8) - 1, 0, u64::MAX, 1 << 40]),
        (16, vec![count(16) + 1, count(16) - 1, 0, u64::MAX, 1 << 40]),
        (24, vec![0, u64::MAX, 1 << 40, 65_536, len]),
    ] {
        for v in values {
            file.write_at(&v.to_le_bytes(), at as u64).expect("patch");
            if let Err(e) = inspect_gguf(&path) {
                names_the_problem(&e, &path);
                rejected += 1;
            }
            tried += 1;
        }
        file.write_at(&header[at..at + 8], at as u64)
            .expect("restore");
    }
    let grown = peak_rss_kib().saturating_sub(before);
    eprintln!("real-header corpus: {tried} files, {rejected} rejected, peak RSS +{grown} KiB");
    // Every truncation is rejected; of the flips, those outside strings and values.
    assert!(rejected > 656, "only {rejected} of {tried} rejected");
    assert!(
        rejected < tried,
        "every flip rejected: the corpus is not what it says"
    );
    // The reader keeps at most three strings of 1 MiB and a 64 KiB buffer.
    assert!(grown < 16 << 10, "peak memory grew by {grown} KiB");
    fs::remove_dir_all(&dir).ok();
}

/// `bytes` pseudo-random bytes (fixed seed): tensor data that is no model.
fn noise(bytes: usize) -> impl Iterator<Item = u8> {
    let mut rng = Xorshift(0xBAD_DA7A);
    (0..bytes).map(move |_| rng.next() as u8)
}

#[test]
fn built_images_with_bad_tensor_tables_are_rejected_before_llama_cpp() {
    let p = Path::new("built.gguf");
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "misaligned offset",
            Image::default()
                .tensor("w", &[8], 0, 4)
                .build_with(noise(64)),
            "misaligned",
        ),
        (
            "offset past the end",
            Image::default()
                .tensor("w", &[8], 0, 1 << 40)
                .build_with(noise(64)),
            "truncated",
        ),
        (
            "size overflow",
            Image::default()
                .tensor("w", &[1 << 32, 1 << 32, 1 << 8], 0, 0)
                .build_with(noise(64)),
            "overflows",
        ),
        (
            "five dimensions",
            Image::default()
                .tensor("w", &[1, 1, 1, 1, 1], 0, 0)
                .build_with(noise(64)),
            "dimensions",
        ),
        (
            "unknown tensor type",
            Image::default()
                .tensor("w", &[8], 1000, 0)
                .build_with(noise(64)),
            "unknown type",
        ),
        (
            "bad alignment",
            Image::default()
                .kv_u32("general.alignment", 3)
                .tensor("w", &[8], 0, 0)
                .build_with(noise(64)),
            "alignment",
        ),
        (
            "block size",
            Image::default()
                .tensor("w", &[33], 12, 0)
                .build_with(noise(4096)),
            "block size",
        ),
    ];
    for (what, bytes, says) in cases {
        let e = inspect_gguf_bytes(&bytes, p).expect_err(what);
        let text = e.to_string();
        assert!(text.contains(says), "{what}: {text}");
        names_the_problem(&e, p);
    }
}

/// Images the pre-validator accepts (their headers are sound) but that are no model
/// llama.cpp can run: an unsupported architecture, and Gemma's architecture over a
/// tensor table with nothing llama.cpp needs and garbage data. `Engine::load` answers a
/// typed error; the process does not abort.
#[test]
fn sound_headers_over_unusable_models_are_typed_load_errors_not_aborts() {
    let dir = temp("load");
    let unknown_arch = Image::default()
        .kv_str("general.architecture", "porfiry_unknown")
        .kv_u32("porfiry_unknown.context_length", 512)
        .tensor("token_embd.weight", &[64, 8], 0, 0)
        .build_with(noise(64 * 8 * 4));
    let garbage_gemma = Image::default()
        .kv_str("general.architecture", "gemma3")
        .kv_u32("gemma3.context_length", 512)
        .tensor("token_embd.weight", &[64, 8], 0, 0)
        .tensor("blk.0.attn_q.weight", &[64, 64], 1, 2048)
        .build_with(noise(2048 + 64 * 64 * 2));
    for (name, bytes) in [
        ("unknown_arch", unknown_arch),
        ("garbage_gemma", garbage_gemma),
    ] {
        let path = dir.join(format!("{name}.gguf"));
        fs::write(&path, &bytes).expect("write");
        inspect_gguf(&path).expect("a sound header passes the pre-validator");
        // Without a chat format the unknown architecture is refused before llama.cpp.
        if name == "unknown_arch" {
            match Engine::load(&path, EngineParams::default()) {
                Err(EngineError::UnknownChatFormat { architecture, .. }) => {
                    assert_eq!(architecture.as_deref(), Some("porfiry_unknown"))
                }
                other => panic!("{name}: {:?}", other.err()),
            }
        }
        let params = EngineParams {
            chat_format: Some(ChatFormat::ChatMl),
            ..EngineParams::default()
        };
        match Engine::load(&path, params) {
            Err(EngineError::Load { path: p, reason }) => {
                assert_eq!(p, path);
                assert!(!reason.is_empty());
            }
            Err(other) => panic!("{name}: unexpected error {other}"),
            Ok(_) => panic!("{name}: llama.cpp loaded an unusable model"),
        }
    }
    fs::remove_dir_all(&dir).ok();
}
