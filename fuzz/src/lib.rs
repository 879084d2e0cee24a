//! The bodies of Porfiry's fuzz targets: one plain function per parser, each taking the
//! fuzzer's bytes and panicking only when a property of the parser is broken.
//!
//! The libFuzzer binaries in `fuzz_targets/` are one line each around these functions, and
//! the main workspace's smoke test (`tests/fuzz_smoke.rs`) includes this file to replay the
//! committed seeds (`fuzz/seeds/<target>/`) and a few thousand mutations of them through
//! the same functions in `cargo test` — no nightly flags, no cargo-fuzz, no second build.
//!
//! A parser "fails" when it panics, hangs, or allocates without bound (libFuzzer reports
//! all three); the functions add the properties each parser documents: the streaming
//! filter releases exactly [`ParsedOutput::visible`] for any split of the output, validated
//! arguments match their declarations, a catalog document renders and parses back equal, a
//! snapshot round-trips, an accepted GGUF header lies inside its file.
//!
//! [`ParsedOutput::visible`]: porfiry_agent::ParsedOutput::visible
#![deny(missing_docs)]

use std::path::Path;

use porfiry_agent::{
    parse_output, parse_skill, parse_toolset, validate_args, ArgDecl, ArgType, ArgValue, RawArgs,
    SkillRegistry, ToolsetRegistry, VisibleTextFilter,
};
use porfiry_catalog::{CompactLabels, Document};

#[cfg(feature = "readers")]
mod engine_targets;
#[cfg(feature = "readers")]
pub mod readers;
#[cfg(feature = "readers")]
pub use engine_targets::{
    eval_case, gguf, snapshot, snapshot_key, ENGINE_TARGETS, SNAPSHOT_TOKENS,
};

/// The agent's and the catalog's targets: their names (the binary, the seed folder) and
/// bodies. The engine's and the eval loader's are [`ENGINE_TARGETS`].
pub const TARGETS: &[(&str, fn(&[u8]))] = &[
    ("tool_call", tool_call),
    ("visible_filter", visible_filter),
    ("args", args),
    ("skill", skill),
    ("toolset", toolset),
    ("scenario", scenario),
    ("catalog_document", catalog_document),
];

/// The files the agent reads are UTF-8 (the loader refuses anything else with a
/// diagnostic); the fuzzer's bytes are made text the lossy way so every input explores.
pub(crate) fn text(data: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(data)
}

/// A small deterministic generator (xorshift64*), seeded from the input.
struct Rng(u64);

impl Rng {
    fn new(seed: &[u8]) -> Self {
        let mut s = 0x9E37_79B9_7F4A_7C15u64;
        for b in seed {
            s = (s ^ u64::from(*b)).wrapping_mul(0x0100_0000_01B3);
        }
        Rng(s | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

/// `TOOL_CALL:` parsing: total (every input parses), every call comes from a call line of
/// the input, and the visible text is a prefix-ordered selection of the input's lines.
pub fn tool_call(data: &[u8]) {
    let out = text(data);
    let parsed = parse_output(&out);
    for call in parsed.calls() {
        assert!(
            out.contains(call.line.as_str()),
            "call line not in the input"
        );
        assert!(!call.line.contains('\n'), "a call line spans lines");
        assert_eq!(call.name, call.name.to_lowercase(), "names are lower-cased");
        assert!(!call.name.contains('|'), "the name ends at the first `|`");
    }
    let visible = parsed.visible();
    assert!(
        visible.len() <= out.len(),
        "visible text longer than the output"
    );
    if parsed.has_calls() {
        assert!(
            parse_output(&visible).calls().next().is_none(),
            "visible text contains a call line: {visible:?}"
        );
    }
}

/// The streaming filter: for three splits of the output into pieces (the input's own
/// seed picks chunk sizes, including empty pieces; one character at a time; all at once)
/// the concatenated releases equal [`porfiry_agent::ParsedOutput::visible`].
pub fn visible_filter(data: &[u8]) {
    let (seed, rest) = data.split_at(data.len().min(4));
    let out = text(rest);
    let want = parse_output(&out).visible();

    let mut rng = Rng::new(seed);
    let mut pieces = Vec::new();
    let mut chars = out.char_indices().peekable();
    while chars.peek().is_some() {
        let take = (rng.next() % 9) as usize;
        let start = chars.peek().map_or(out.len(), |(i, _)| *i);
        let mut end = start;
        for _ in 0..take {
            match chars.next() {
                Some((i, c)) => end = i + c.len_utf8(),
                None => break,
            }
        }
        pieces.push(&out[start..end]);
    }
    let singles: Vec<&str> = out
        .char_indices()
        .map(|(i, c)| &out[i..i + c.len_utf8()])
        .collect();
    for split in [pieces, singles, vec![&out[..]]] {
        let mut filter = VisibleTextFilter::new();
        let mut got = String::new();
        for piece in &split {
            got.push_str(&filter.push(piece));
        }
        got.push_str(&filter.finish());
        assert_eq!(got, want, "filter released something else for {split:?}");
        assert!(filter.finish().is_empty(), "finish twice released more");
    }
}

/// Argument validation. The first line of the input declares up to six arguments (one
/// byte each: type and whether required); the rest is a model output whose calls are
/// validated against them, and also split and parsed as raw parts and as a JSON object.
/// Accepted arguments are declared ones, each once, every required one present, numbers
/// finite, enum values spelled as declared.
pub fn args(data: &[u8]) {
    let (head, rest) = match data.iter().position(|b| *b == b'\n') {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (&data[..data.len().min(2)], &data[data.len().min(2)..]),
    };
    const NAMES: [&str; 6] = ["id", "action", "n", "x", "text", "Flag"];
    let values = vec!["on".to_string(), "Off".to_string(), "ДА".to_string()];
    let decls: Vec<ArgDecl> = head
        .iter()
        .take(NAMES.len())
        .enumerate()
        .map(|(i, b)| ArgDecl {
            name: NAMES[i].to_string(),
            ty: match b % 5 {
                0 => ArgType::String,
                1 => ArgType::Integer,
                2 => ArgType::Number,
                3 => ArgType::Boolean,
                _ => ArgType::Enum(values.clone()),
            },
            required: b & 8 != 0,
            description: None,
            said: Vec::new(),
            ..Default::default()
        })
        .collect();
    let body = text(rest);
    let mut raws: Vec<RawArgs> = parse_output(&body)
        .calls()
        .map(|c| c.args.clone())
        .collect();
    raws.push(RawArgs::Parts(
        body.split('|').map(|p| p.trim().to_string()).collect(),
    ));
    if let Ok(serde_json::Value::Object(map)) = serde_json::from_str(&body) {
        raws.push(RawArgs::Json(map));
    }
    for raw in &raws {
        let Ok(args) = validate_args(&decls, raw) else {
            continue;
        };
        let mut seen = Vec::new();
        for (name, value) in args.iter() {
            let decl = decls
                .iter()
                .find(|d| d.name == name)
                .expect("an accepted argument is declared");
            assert!(!seen.contains(&name), "argument {name} accepted twice");
            seen.push(name);
            match (value, &decl.ty) {
                (ArgValue::Num(n), ArgType::Number) => assert!(n.is_finite()),
                (ArgValue::Enum(v), ArgType::Enum(vs)) => assert!(vs.contains(v)),
                (ArgValue::Str(s), ArgType::String) => assert!(!s.is_empty()),
                (ArgValue::Int(_), ArgType::Integer) | (ArgValue::Bool(_), ArgType::Boolean) => {}
                (v, t) => panic!("{name}: value {v:?} for type {t:?}"),
            }
        }
        for d in decls.iter().filter(|d| d.required) {
            assert!(args.get(&d.name).is_some(), "required {} missing", d.name);
        }
        let _ = args.to_json();
        let _ = args.to_string();
    }
}

/// Skill front matter: parsing never panics; an accepted skill has a valid name, a
/// one-line description and a body, and the registry lists it.
pub fn skill(data: &[u8]) {
    let Ok((skill, _warnings)) = parse_skill(&text(data), Path::new("fuzz/SKILL.md")) else {
        return;
    };
    assert!(porfiry_agent::check_skill_name(&skill.name).is_ok());
    assert!(!skill.description.is_empty() && !skill.description.contains('\n'));
    assert!(!skill.body.trim().is_empty());
    let name = skill.name.clone();
    let registry = SkillRegistry::from_skills([skill]);
    assert!(
        registry.get(&name).is_some(),
        "a loaded skill is found by its name"
    );
    let _ = registry.index_lines(&[]);
}

/// Toolset declarations: parsing never panics; an accepted set's tools route to it, and
/// its example calls validate (or are refused) without panicking.
pub fn toolset(data: &[u8]) {
    let Ok(set) = parse_toolset(&text(data), Path::new("fuzz/set.yaml")) else {
        return;
    };
    let registry = ToolsetRegistry::from_toolsets([set.clone()]);
    let _ = registry.index_lines();
    for tool in &set.tools {
        assert!(set.tool(&tool.name).is_some());
        let _ = registry.owner_set(&tool.name);
        for (_, example) in &tool.examples {
            for call in parse_output(example).calls() {
                let _ = validate_args(&tool.args, &call.args);
            }
        }
    }
}

/// Scenario files: parsing never panics.
pub fn scenario(data: &[u8]) {
    let _ = porfiry_agent::scenario::parse_scenario(&text(data));
}

/// The catalog's document validator: bytes in, a document or a typed refusal out; an
/// accepted document validates, renders, parses back equal and renders compactly.
pub fn catalog_document(data: &[u8]) {
    let Ok(doc) = Document::parse_bytes(data) else {
        return;
    };
    doc.validate().expect("a parsed document validates");
    let rendered = doc.render();
    let again = Document::parse(&rendered)
        .unwrap_or_else(|e| panic!("rendered document refused ({e}):\n{rendered}"));
    assert_eq!(again, doc, "render does not parse back equal:\n{rendered}");
    let _ = doc.render_compact(&CompactLabels::ENGLISH);
    let _ = porfiry_catalog::content_hash(&rendered);
}

/// `porfiry_engine::kv`'s token id, as `engine/src/snapshot.rs` imports it.
#[cfg(feature = "readers")]
mod kv {
    pub type TokenId = i32;
}

/// `porfiry_engine::params`'s `KvType`, as `engine/src/snapshot.rs` imports it (the same
/// variants and serde names; the smoke test runs the targets on the real one).
#[cfg(feature = "readers")]
pub mod params {
    /// Data type of the KV cache (keys or values).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
    #[serde(rename_all = "lowercase")]
    pub enum KvType {
        /// 16-bit floats.
        F16,
        /// 32-bit floats.
        F32,
        /// 8-bit quantized.
        Q8_0,
        /// 4-bit quantized.
        Q4_0,
    }
}
