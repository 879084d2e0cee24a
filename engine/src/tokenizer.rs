//! Token counting with the model's own vocabulary, without loading its weights.

use std::path::{Path, PathBuf};
use std::time::Instant;

use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::LlamaModel;
use porfiry_seam::Message;

use crate::backend::backend;
use crate::chat::{self, ChatFormat};
use crate::error::EngineError;
use crate::gguf;
use crate::kv::TokenId;
use crate::prompt::{self, RenderedPrompt};

/// A GGUF's vocabulary, loaded alone (`vocab_only`: ~0.4 s and tens of MB instead of the
/// whole model). The one source of truth for prompt sizes: it tokenizes exactly like the
/// engine. Safe to share between threads.
#[derive(Debug)]
pub struct Tokenizer {
    model: LlamaModel,
    format: ChatFormat,
    path: PathBuf,
    load_ms: f64,
}

impl Tokenizer {
    /// Validate the file and load its vocabulary. `chat_format` overrides detection.
    ///
    /// # Errors
    /// The same validation errors as [`crate::Engine::load`].
    pub fn load(
        path: impl AsRef<Path>,
        chat_format: Option<ChatFormat>,
    ) -> Result<Self, EngineError> {
        let path = path.as_ref().to_path_buf();
        let started = Instant::now();
        let header = gguf::inspect(&path)?;
        let format = chat_format
            .or_else(|| {
                ChatFormat::detect(
                    header.architecture.as_deref(),
                    header.chat_template.as_deref(),
                )
            })
            .ok_or_else(|| EngineError::UnknownChatFormat {
                path: path.clone(),
                architecture: header.architecture.clone(),
            })?;
        let params = LlamaModelParams::default().with_vocab_only(true);
        let model = LlamaModel::load_from_file(backend()?, &path, &params).map_err(|e| {
            EngineError::Load {
                path: path.clone(),
                reason: e.to_string(),
            }
        })?;
        Ok(Self {
            model,
            format,
            path,
            load_ms: started.elapsed().as_secs_f64() * 1e3,
        })
    }

    /// Tokens of plain text (special-token parsing off, no BOS): how message text counts.
    pub fn count(&self, text: &str) -> usize {
        self.tokenize(text).len()
    }

    /// Token ids of plain text (special-token parsing off, no BOS).
    pub fn tokenize(&self, text: &str) -> Vec<TokenId> {
        prompt::tokenize_plain(&self.model, text)
    }

    /// Token ids of template text (special tokens such as `<end_of_turn>` parsed, no BOS).
    pub fn tokenize_special(&self, text: &str) -> Vec<TokenId> {
        if text.is_empty() {
            return Vec::new();
        }
        self.model
            .vocab()
            .tokenize(text.as_bytes(), false, true)
            .into_iter()
            .map(|t| t.0)
            .collect()
    }

    /// The text of a token (special tokens written out).
    pub fn token_text(&self, token: TokenId) -> String {
        prompt::token_text(&self.model, token)
    }

    /// The full prompt for a conversation, as the engine would decode it on a cold cache.
    pub fn render(&self, system: &str, messages: &[Message]) -> RenderedPrompt {
        let segments = chat::render_prompt(self.format, system, messages);
        prompt::tokenize_segments(&self.model, &segments, None, None)
    }

    /// The chat format in use.
    pub fn chat_format(&self) -> ChatFormat {
        self.format
    }

    /// The model file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// How long loading took, in milliseconds.
    pub fn load_ms(&self) -> f64 {
        self.load_ms
    }
}
