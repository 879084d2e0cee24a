//! The dialogue on the real engine (llama.cpp through `porfiry-engine`).

use porfiry_agent::{Generation, Model, ModelError, ModelRequest, PromptLayout};
use porfiry_engine::{Engine, EngineModel, EngineParams, GenerateConfig, TokenId};
use porfiry_seam::ModelWrapper;

use crate::dialogue::Dialogue;
use crate::error::BenchError;
use crate::forced::ForcedModel;
use crate::run::{run_dialogue_with_head, DialogueReport, Speaking};

/// A model file to benchmark (resolved by the runtime, never fetched here).
pub use porfiry_runtime::ModelChoice;

/// Resolve `--model ID|PATH` (default: the manifest's default model) without downloading.
///
/// # Errors
/// [`BenchError::ModelFile`] with what to run when the file is missing.
pub fn resolve_model(id_or_path: Option<&str>) -> Result<ModelChoice, BenchError> {
    porfiry_runtime::resolve_model(id_or_path, false, &porfiry_runtime::NoProgress).map_err(|e| {
        BenchError::ModelFile(format!(
            "{e} (fetch the known models with `porfiry models fetch --all` or `./run models fetch`)"
        ))
    })
}

/// Load `model` with `params` (the manifest's chat format and verified sha256 filled in
/// when `params` names none).
///
/// # Errors
/// [`BenchError::Engine`].
pub fn load_engine(model: &ModelChoice, params: EngineParams) -> Result<Engine, BenchError> {
    porfiry_runtime::load_engine(model, params).map_err(|e| BenchError::Engine(e.to_string()))
}

/// The token ids of one request, for replaying the same sequence elsewhere (llama-server).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TraceEntry {
    /// The whole prompt as the engine decodes it (BOS, chat framing, system, history).
    pub prompt: Vec<TokenId>,
    /// The forced reply's tokens.
    pub reply: Vec<TokenId>,
}

/// The engine as a model, recording every request's tokens when `tracing` (tokenized by the
/// engine itself: a second vocabulary would weigh on the process's measured memory).
struct Tracing {
    model: EngineModel,
    tracing: bool,
    trace: Vec<TraceEntry>,
}

impl ModelWrapper for Tracing {
    type Inner = EngineModel;

    fn inner(&self) -> &EngineModel {
        &self.model
    }

    fn inner_mut(&mut self) -> &mut EngineModel {
        &mut self.model
    }

    fn wrapped_generate(
        &mut self,
        request: &ModelRequest<'_>,
        on_text: &mut dyn FnMut(&str),
    ) -> Result<Generation, ModelError> {
        if self.tracing {
            // Rendered before the request is submitted: not part of its timings.
            let engine = self.model.engine();
            let failed = |e: porfiry_engine::EngineError| ModelError::failed(e.to_string());
            let prompt = engine
                .render(request.system, request.messages)
                .map_err(failed)?
                .tokens;
            let reply = engine
                .tokenize(request.forced_reply.unwrap_or_default())
                .map_err(failed)?;
            self.trace.push(TraceEntry { prompt, reply });
        }
        self.model.generate(request, on_text)
    }
}

/// Play `dialogue` on `engine` in `layout`, teacher-forced, from an empty cache. With
/// `reuse == false` the cache is cleared before every request (the baseline). With `trace`
/// every request's token ids are recorded. The engine comes back for the next run.
///
/// # Errors
/// What [`run_dialogue`] reports, or [`BenchError::Engine`] when clearing the cache fails.
pub fn play_on_engine(
    dialogue: &Dialogue,
    layout: PromptLayout,
    engine: Engine,
    reuse: bool,
    trace: bool,
) -> Result<(DialogueReport, Vec<TraceEntry>, Engine), BenchError> {
    play_on_engine_with(
        dialogue,
        layout,
        engine,
        reuse,
        false,
        Speaking::Typed,
        trace,
    )
}

/// [`play_on_engine`], and with `head` (and `reuse`) the agent's head is prepared first as
/// an app does at start-up ([`Engine::prepare_head`]: restored from the engine's snapshot
/// directory when a valid snapshot is there, else prefilled), so the first turn prefills
/// only what follows it. The report's `head` says what the preparation did. With `speaking`
/// the user's words heard so far are prefilled before each turn (see
/// [`run_dialogue_with_head`]).
///
/// # Errors
/// As [`play_on_engine`].
pub fn play_on_engine_with(
    dialogue: &Dialogue,
    layout: PromptLayout,
    engine: Engine,
    reuse: bool,
    head: bool,
    speaking: Speaking,
    trace: bool,
) -> Result<(DialogueReport, Vec<TraceEntry>, Engine), BenchError> {
    engine
        .clear_cache()
        .map_err(|e| BenchError::Engine(e.to_string()))?;
    let mut agent = dialogue.agent(layout)?;
    let prepared = if head && reuse {
        let view = agent.head_view();
        Some(
            engine
                .prepare_head(&view.system, &view.messages)
                .map_err(|e| BenchError::Engine(e.to_string()))?,
        )
    } else {
        None
    };
    let info = serde_json::to_value(engine.info()).unwrap_or_default();
    let longest = dialogue.replies().map(str::len).max().unwrap_or(0);
    // Forced replies are never cut: the budget exceeds their byte length.
    let config = GenerateConfig::greedy(longest + 16);
    let tracing = Tracing {
        model: EngineModel::new(engine, config),
        tracing: trace,
        trace: Vec::new(),
    };
    let mut model = ForcedModel::new(tracing, dialogue.replies());
    if !reuse {
        model = model.before_each(Box::new(|m: &mut Tracing| {
            m.model.engine().clear_cache().map_err(|e| e.to_string())
        }));
    }
    let head_tokens = prepared.as_ref().map_or(0, |h| h.tokens);
    let result = run_dialogue_with_head(
        dialogue,
        &mut agent,
        &mut model,
        reuse,
        head_tokens,
        speaking,
    );
    let tracing = model.into_inner();
    let engine = tracing.model.into_engine();
    let mut report = result?;
    report.model = info;
    report.head = serde_json::to_value(&prepared).unwrap_or_default();
    Ok((report, tracing.trace, engine))
}
