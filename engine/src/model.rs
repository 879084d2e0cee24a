//! The engine behind the agent's [`Model`] seam.

use porfiry_seam::{
    CallSyntax, CancelToken, ContextWindow, Generation, Message, Model, ModelError, ModelErrorKind,
    ModelRequest, ReplyGuide,
};

use crate::chat::ChatFormat;
use crate::config::GenerateConfig;
use crate::engine::{Engine, Event, GenerateRequest};
use crate::error::EngineError;

/// An [`Engine`] as the agent's [`Model`]: each `generate` call renders the session's
/// conversation, reuses the cached prefix and streams the reply.
#[derive(Debug)]
pub struct EngineModel {
    engine: Engine,
    /// The cancel token of the turn being served ([`Model::bind_cancel`]).
    cancel: Option<CancelToken>,
    /// Settings for every generation (sampling, limits, stop strings, grammar).
    pub config: GenerateConfig,
}

impl EngineModel {
    /// Wrap an engine with the given generation settings.
    pub fn new(engine: Engine, config: GenerateConfig) -> Self {
        Self {
            engine,
            config,
            cancel: None,
        }
    }

    /// The engine (for rendering, info, clearing the cache).
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// Unwrap.
    pub fn into_engine(self) -> Engine {
        self.engine
    }
}

impl Model for EngineModel {
    fn generate(
        &mut self,
        request: &ModelRequest<'_>,
        on_text: &mut dyn FnMut(&str),
    ) -> Result<Generation, ModelError> {
        let req = GenerateRequest {
            session: request.session.to_owned(),
            system: request.system.to_owned(),
            messages: request.messages.to_vec(),
            config: guided(
                &self.config,
                self.engine.info().chat_format,
                &request.guide,
                request.time_left,
            ),
            forced_reply: request.forced_reply.map(str::to_owned),
            reply_prefix: request.guide.prefix.map(str::to_owned),
            cancel: request.cancel.clone(),
        };
        let rx = self.engine.submit(req).map_err(model_error)?;
        for event in rx {
            match event {
                Event::Text(t) => on_text(&t),
                Event::Done(c) => {
                    return Ok(Generation {
                        text: c.text,
                        stop: c.stop,
                        stats: Some(c.stats),
                        confidence: c.confidence,
                    })
                }
                Event::Error(e) => return Err(model_error(e)),
            }
        }
        Err(model_error(EngineError::WorkerGone))
    }

    /// Prepares the head with [`Engine::prepare_head`] (restored from a snapshot file when
    /// the engine has a snapshot directory and a valid one is there).
    fn prepare_head(&mut self, system: &str, messages: &[Message]) -> Result<(), ModelError> {
        self.engine
            .prepare_head(system, messages)
            .map(drop)
            .map_err(model_error)
    }

    /// Queues [`Engine::decode_ahead`].
    fn decode_ahead(&mut self, request: &ModelRequest<'_>) -> Result<(), ModelError> {
        self.engine
            .decode_ahead(request.session, request.system, request.messages)
            .map_err(model_error)
    }

    /// The engine's context (`n_ctx` cells; a session may use all of them, evicting others)
    /// and the generation limit of this model's config.
    fn context_window(&self) -> Option<ContextWindow> {
        Some(ContextWindow {
            tokens: self.engine.info().n_ctx as usize,
            reply_tokens: self.config.max_tokens,
        })
    }

    /// Renders and tokenizes the request as the engine would decode it ([`Engine::render`]:
    /// segments already seen are not tokenized again).
    fn count_tokens(&mut self, system: &str, messages: &[Message]) -> Option<usize> {
        self.engine
            .render(system, messages)
            .ok()
            .map(|r| r.tokens.len())
    }

    /// Frees the session's KV sequence ([`Engine::end_session`]).
    fn end_session(&mut self, session: &str) -> Result<(), ModelError> {
        self.engine
            .end_session(session)
            .map(drop)
            .map_err(model_error)
    }

    /// [`Engine::embed`]: this model always can.
    fn embed(&mut self, texts: &[&str]) -> Result<Option<Vec<Vec<f32>>>, ModelError> {
        self.engine
            .embed_until(texts, self.cancel.as_ref())
            .map(Some)
            .map_err(model_error)
    }

    /// [`Engine::embed_query`]: the request's vector, not kept.
    fn embed_query(&mut self, text: &str) -> Result<Option<Vec<f32>>, ModelError> {
        self.engine
            .embed_query_until(text, self.cancel.as_ref())
            .map(Some)
            .map_err(model_error)
    }

    /// Embeddings for the turn stop with its cancel ([`Engine::embed_until`]).
    fn bind_cancel(&mut self, cancel: Option<&CancelToken>) {
        self.cancel = cancel.cloned();
    }

    /// Waits for [`Engine::settle`].
    fn settle(&mut self) -> Result<(), ModelError> {
        self.engine.settle().map_err(model_error)
    }

    /// The engine's chat format decides ([`ChatFormat::call_syntax`]).
    fn call_syntax(&self) -> CallSyntax {
        self.engine.info().chat_format.call_syntax()
    }
}

/// `config` with a request's [`ReplyGuide`] on top: its stop strings added, its calls
/// constraining the grammar, its sentence cap (the tighter one when both set one); the
/// turn's `time_left` becomes the generation's deadline (the earlier one when both set one).
/// The request's call line gives the grammar its words (marker, yes/no words). The chat
/// `format` adds its own stop strings ([`ChatFormat::stop_strings`]); for a format without
/// a call line (FunctionGemma) the tool-call grammar is off — it spells call lines and is
/// triggered by them, which that model never writes (its calls are parsed as written).
fn guided(
    config: &GenerateConfig,
    format: ChatFormat,
    guide: &ReplyGuide<'_>,
    time_left: Option<std::time::Duration>,
) -> GenerateConfig {
    let mut c = config.clone();
    for stop in format.stop_strings() {
        if !c.stop.iter().any(|s| s == stop) {
            c.stop.push((*stop).to_owned());
        }
    }
    match (format.call_syntax().call_line(), &mut c.tool_call_grammar) {
        (None, grammar) => *grammar = None,
        (Some(_), Some(grammar)) => grammar.line = guide.call_line,
        (Some(_), None) => {}
    }
    c.deadline = match (c.deadline, time_left) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    c.stop.extend(guide.stop.iter().cloned());
    if let Some(calls) = guide.calls {
        c.allowed_calls = Some(calls.to_vec());
    }
    if let Some(words) = guide.words {
        c.reply_words = Some(words.to_vec());
    }
    c.max_sentences = match (c.max_sentences, guide.max_sentences) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    c
}

/// An engine error as the seam's [`ModelError`], keeping its kind and the error itself.
pub(crate) fn model_error(e: EngineError) -> ModelError {
    let kind = match &e {
        EngineError::ContextFull { .. } => ModelErrorKind::ContextFull,
        EngineError::WorkerGone => ModelErrorKind::Unavailable,
        EngineError::Cancelled => ModelErrorKind::Cancelled,
        EngineError::InvalidParams(_) => ModelErrorKind::InvalidRequest,
        _ => ModelErrorKind::Failed,
    };
    ModelError::with_source(kind, e)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chat_format_adds_its_stops_and_decides_the_grammar() {
        let stop = vec!["\n".to_owned()];
        let guide = ReplyGuide {
            stop: &stop,
            calls: Some(&[]),
            ..ReplyGuide::default()
        };
        let config = GenerateConfig::default();
        for format in [ChatFormat::Gemma, ChatFormat::ChatMl] {
            let c = guided(&config, format, &guide, None);
            assert_eq!(c.stop, stop, "{format}");
            assert_eq!(c.tool_call_grammar, config.tool_call_grammar, "{format}");
            assert_eq!(c.allowed_calls, Some(Vec::new()));
        }
        let c = guided(&config, ChatFormat::FunctionGemma, &guide, None);
        assert_eq!(c.stop, ["<start_function_response>", "\n"]);
        assert_eq!(c.tool_call_grammar, None);
        // The grammar's words come with the request.
        let line = porfiry_seam::CallLine {
            marker: "CALL:",
            result_header: "RESULT: ",
            booleans: &["ja", "nein"],
        };
        let guide = ReplyGuide {
            call_line: line,
            ..ReplyGuide::default()
        };
        let c = guided(&config, ChatFormat::Gemma, &guide, None);
        assert_eq!(c.tool_call_grammar.map(|g| g.line), Some(line));
    }

    #[test]
    fn engine_errors_keep_their_kind_across_the_seam() {
        let full = model_error(EngineError::ContextFull {
            prompt_tokens: 783,
            available: 767,
            n_ctx: 768,
        });
        assert_eq!(full.kind(), ModelErrorKind::ContextFull);
        assert!(full.to_string().contains("783"), "{full}");
        assert!(std::error::Error::source(&full).is_some());
        assert_eq!(
            model_error(EngineError::WorkerGone).kind(),
            ModelErrorKind::Unavailable
        );
        assert_eq!(
            model_error(EngineError::InvalidParams("x".into())).kind(),
            ModelErrorKind::InvalidRequest
        );
        assert_eq!(
            model_error(EngineError::Decode("x".into())).kind(),
            ModelErrorKind::Failed
        );
    }
}
