//! Porfiry's model seam: the one interface between the agent loop and whatever generates
//! text. Its own crate, so the engine depends on this seam alone and not on the agent
//! (skills, toolsets, scenarios).
//!
//! The agent never knows what a model is made of: the engine crate implements
//! [`Model`] on top of llama.cpp, tests implement it with a scripted list of
//! outputs. Everything that crosses this seam is plain data; what crosses it as text — the
//! call line, a tool result's header, the sentence rule, FunctionGemma's markers — is
//! defined once in [`wire`].
#![deny(missing_docs)]

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

mod paced;
pub mod wire;

pub use paced::Paced;
pub use wire::{is_list_number, sentence_end, CallLine};

/// Who wrote a message of the conversation history.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The person talking to the assistant.
    User,
    /// The model's own output (visible text and the `TOOL_CALL:` lines it wrote).
    Assistant,
    /// The reply of a tool to a call; rendered so the model can tell it apart from the user.
    Tool,
}

/// One message of a session's history.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Message {
    /// Who wrote it.
    pub role: Role,
    /// For [`Role::Tool`]: the name of the tool that answered. `None` otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The text, exactly as written (never trimmed or rewritten after the fact).
    pub content: String,
}

impl Message {
    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        Self {
            role: Role::User,
            name: None,
            content: content.into(),
        }
    }
    /// An assistant message.
    pub fn assistant(content: impl Into<String>) -> Self {
        Self {
            role: Role::Assistant,
            name: None,
            content: content.into(),
        }
    }
    /// A tool reply from the tool `name`.
    pub fn tool(name: impl Into<String>, content: impl Into<String>) -> Self {
        Self {
            role: Role::Tool,
            name: Some(name.into()),
            content: content.into(),
        }
    }
}

/// A cheap, clonable flag that asks a running turn (and the generation inside it) to stop.
///
/// The agent checks it between loop iterations; a [`Model`] implementation is expected
/// to check it between every decoded token. A host that stops a turn because the user
/// spoke over it ([`CancelToken::interrupt`]) also says how much of the turn's streamed
/// text reached the user, so the history keeps exactly what was heard.
#[derive(Debug, Clone)]
pub struct CancelToken {
    flag: Arc<AtomicBool>,
    /// Characters of the turn's streamed text the user got; `usize::MAX`: not said.
    delivered: Arc<AtomicUsize>,
}

impl Default for CancelToken {
    fn default() -> Self {
        Self {
            flag: Arc::new(AtomicBool::new(false)),
            delivered: Arc::new(AtomicUsize::new(usize::MAX)),
        }
    }
}

impl CancelToken {
    /// A token that is not cancelled.
    pub fn new() -> Self {
        Self::default()
    }
    /// Ask everything holding a clone of this token to stop.
    pub fn cancel(&self) {
        self.flag.store(true, Ordering::SeqCst);
    }
    /// Stop the turn because the user interrupted it, after `delivered_chars` characters
    /// of the text it streamed were spoken or shown (the rest was never heard). The
    /// earliest figure given wins over later ones only if smaller: what was heard cannot
    /// grow after the interruption.
    pub fn interrupt(&self, delivered_chars: usize) {
        self.delivered.fetch_min(delivered_chars, Ordering::SeqCst);
        self.cancel();
    }
    /// Whether [`CancelToken::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        self.flag.load(Ordering::SeqCst)
    }
    /// How many characters of the streamed text the user got, when the host said so
    /// ([`CancelToken::interrupt`]); `None`: everything streamed counts as delivered.
    pub fn delivered(&self) -> Option<usize> {
        match self.delivered.load(Ordering::SeqCst) {
            usize::MAX => None,
            n => Some(n),
        }
    }
    /// Clear the flag (and the delivered figure) so the token can serve the next turn.
    pub fn reset(&self) {
        self.delivered.store(usize::MAX, Ordering::SeqCst);
        self.flag.store(false, Ordering::SeqCst);
    }
    /// The shared flag itself, for code that polls an `AtomicBool` directly.
    pub fn flag(&self) -> &Arc<AtomicBool> {
        &self.flag
    }
}

/// What the agent asks a model to continue.
#[derive(Debug, Clone, Copy)]
pub struct ModelRequest<'a> {
    /// The session this conversation belongs to (the engine keeps one KV state per session).
    pub session: &'a str,
    /// The system prompt, rebuilt for this request. Byte-identical while the session's
    /// toolset state is unchanged, so its KV cache can be reused.
    pub system: &'a str,
    /// The history, oldest first. Append-only between requests of one session.
    pub messages: &'a [Message],
    /// Checked between decoded tokens; when set, generation stops with [`StopReason::Cancelled`].
    pub cancel: &'a CancelToken,
    /// Teacher forcing: when set, the model decodes this text as its reply instead of
    /// sampling (benchmarks, so every run processes the same tokens; the agent, for a call
    /// it has already decided on).
    pub forced_reply: Option<&'a str>,
    /// How the reply is to be shaped: a prefix, stop strings, the calls it may make, a
    /// sentence cap. [`ReplyGuide::default`]: free.
    pub guide: ReplyGuide<'a>,
    /// What is left of the turn's time budget: a model stops generating when it runs out
    /// ([`StopReason::Deadline`]). `None`: no deadline.
    pub time_left: Option<Duration>,
}

/// How the agent wants one reply shaped. Every field is optional; a model that cannot honour
/// one ignores it (the agent's parser and validation still judge the output).
#[derive(Debug, Clone, Copy, Default)]
pub struct ReplyGuide<'a> {
    /// The reply begins with this text: decoded after the prompt as if the model had written
    /// it, then continued. [`Generation::text`] starts with it.
    pub prefix: Option<&'a str>,
    /// The reply ends before the first of these strings (they are not part of it).
    pub stop: &'a [String],
    /// The tool calls the reply may make, in the shape of their declarations: a model with
    /// a grammar lets a `TOOL_CALL:` line name only these tools, with arguments of these
    /// shapes. `Some(&[])`: no call at all. `None`: any well-formed call line.
    pub calls: Option<&'a [CallSpec]>,
    /// The most sentences of visible text (a spoken reply; the rule: [`wire::sentence_ends`]);
    /// `None`: no cap.
    pub max_sentences: Option<usize>,
    /// The reply is plain text: these words from the first one on, as far as the model
    /// goes (what a tool replied, said back), no call. `None`: free.
    pub words: Option<&'a [String]>,
    /// The words of the call-line protocol the reply's calls are written in: what a model
    /// with a tool-call grammar builds it from (its marker, its yes/no words). The agent
    /// fills it for its model's [`CallSyntax`]; default [`CallLine::PORFIRY`].
    pub call_line: CallLine,
}

/// Where stop string `stop` first occurs in `text` at or after `from` — the rule of
/// [`ReplyGuide::stop`]. A stop made of
/// whitespace only (a line break, a blank line) does not count before any visible text:
/// a reply that opens with a line break has not ended.
pub fn first_stop(text: &str, from: usize, stop: &str) -> Option<usize> {
    let blank = stop.trim().is_empty();
    let mut at = from;
    while let Some(i) = text.get(at..)?.find(stop) {
        let hit = at + i;
        if !blank || !text[..hit].trim().is_empty() {
            return Some(hit);
        }
        at = hit + stop.len();
    }
    None
}

/// A tool the model may call, in the shape of its declaration (`name|arg|arg`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CallSpec {
    /// The tool's name.
    pub name: String,
    /// Its positional arguments, in declaration order.
    pub args: Vec<ArgSpec>,
}

/// One positional argument of a [`CallSpec`].
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ArgSpec {
    /// What its value looks like.
    pub kind: ArgKind,
    /// Whether a call must give it.
    pub required: bool,
}

/// The shape of an argument's value.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ArgKind {
    /// Any text on one line.
    Text,
    /// A whole number.
    Integer,
    /// A number (decimal point or comma).
    Number,
    /// A yes/no value.
    Boolean,
    /// One of these values.
    OneOf(Vec<String>),
    /// The end of these words: a run that starts at any of them and goes on to the last
    /// (separated by spaces) — what a spoken request's argument usually is, the
    /// tail of the user's own words («запиши, что надо *купить хлеб*»).
    TailOf(Vec<String>),
}

/// Why a generation ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// The model ended its turn (end-of-generation token).
    EndOfTurn,
    /// A configured stop string was produced.
    StopString,
    /// The token budget ran out.
    MaxTokens,
    /// The request's deadline passed.
    Deadline,
    /// The caller cancelled.
    Cancelled,
}

/// Token accounting of one generation, as measured by the model implementation.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GenerationStats {
    /// Tokens of the whole rendered prompt.
    pub prompt_tokens: usize,
    /// Prompt tokens whose KV state was reused from an earlier request.
    pub reused_tokens: usize,
    /// Prompt tokens that had to be decoded for this request.
    pub prefilled_tokens: usize,
    /// Tokens generated (or teacher-forced) for the reply.
    pub generated_tokens: usize,
    /// Time from the request to the first reply token, in milliseconds.
    pub ttft_ms: f64,
    /// Prefill speed in tokens per second (0 when nothing was prefilled).
    pub prefill_tps: f64,
    /// Decode speed in tokens per second (0 when nothing was generated).
    pub decode_tps: f64,
    /// Wall time of the whole request, in milliseconds.
    pub total_ms: f64,
    /// Whether llama.cpp refused a partial KV removal and the prompt was prefilled in full.
    pub full_reprefill: bool,
    /// Of the reused tokens, how many were restored from a snapshot of the static prompt head
    /// (see [`Model::prepare_head`]) rather than kept from the session's own cache.
    #[serde(default)]
    pub head_tokens: usize,
    /// Of the reused tokens, how many the model decoded ahead of this request, while it was
    /// idle after the session's previous reply (the chat framing that opens the next message,
    /// see [`Model::settle`]): work taken off this request's critical path.
    #[serde(default)]
    pub anticipated_tokens: usize,
    /// Of the reused tokens, how many were moved left in the cache over a removed span
    /// (e.g. the old state message of a toolset switch) instead of being prefilled again
    /// (the engine's `kv_shift`).
    #[serde(default)]
    pub shifted_tokens: usize,
}

/// The result of one generation.
#[derive(Debug, Clone, PartialEq)]
pub struct Generation {
    /// The complete text the model produced (also streamed through `on_text`).
    pub text: String,
    /// Why it stopped.
    pub stop: StopReason,
    /// Token accounting, when the implementation measures it.
    pub stats: Option<GenerationStats>,
    /// How probable the model found the tokens it chose, when the implementation reports
    /// it (`None`: it does not, or it chose none — a forced reply, an empty one).
    pub confidence: Option<Confidence>,
}

/// A chosen token whose probability is below this (natural log: 10 %) counts as a
/// [`Confidence::low_tokens`] token.
pub const LOW_LOGPROB: f64 = -2.302_585_092_994_045_7;

/// How probable the model found the tokens it chose for one reply: a summary of each chosen
/// token's log-probability (natural log) under the model's own distribution at that step
/// (the softmax of its raw logits over the whole vocabulary, before any sampling setting or
/// grammar). Tokens decoded as given (a reply prefix, a forced reply) are not counted.
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct Confidence {
    /// Tokens counted.
    pub tokens: usize,
    /// The sum of their log-probabilities (≤ 0).
    pub sum_logprob: f64,
    /// The least of them (0 when no token was counted).
    pub min_logprob: f64,
    /// How many are below [`LOW_LOGPROB`].
    pub low_tokens: usize,
}

impl Confidence {
    /// The summary of these log-probabilities (non-finite ones are left out).
    pub fn of(logprobs: impl IntoIterator<Item = f64>) -> Self {
        let mut c = Confidence::default();
        for l in logprobs {
            c.push(l);
        }
        c
    }

    /// Count one more chosen token of log-probability `logprob` (ignored unless finite).
    pub fn push(&mut self, logprob: f64) {
        if !logprob.is_finite() {
            return;
        }
        let logprob = logprob.min(0.0);
        self.min_logprob = if self.tokens == 0 {
            logprob
        } else {
            self.min_logprob.min(logprob)
        };
        self.tokens += 1;
        self.sum_logprob += logprob;
        if logprob < LOW_LOGPROB {
            self.low_tokens += 1;
        }
    }

    /// The mean log-probability of a token (the log of the geometric mean of their
    /// probabilities); `None` when no token was counted.
    pub fn mean_logprob(&self) -> Option<f64> {
        (self.tokens > 0).then(|| self.sum_logprob / self.tokens as f64)
    }

    /// The share of the tokens below [`LOW_LOGPROB`]; `None` when no token was counted.
    pub fn low_share(&self) -> Option<f64> {
        (self.tokens > 0).then(|| self.low_tokens as f64 / self.tokens as f64)
    }
}

/// What kind of failure a [`ModelError`] is, so a host can act on it (shrink the request,
/// reload the model, report a bug) without parsing its message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelErrorKind {
    /// The request does not fit the model's context.
    ContextFull,
    /// The model stopped serving (its worker thread is gone, the engine was shut down).
    Unavailable,
    /// The request itself is invalid for this model (bad settings, an empty session name).
    InvalidRequest,
    /// The request was cancelled before the model could start it.
    Cancelled,
    /// Anything else: a decode failure, a broken file, a scripted model with no output left.
    Failed,
}

/// Errors a [`Model`] reports: a [`ModelErrorKind`], a message for people and, when there
/// is one, the underlying error. The agent turns them into a failed turn, never a panic,
/// and keeps the session's history intact.
#[derive(Debug, thiserror::Error)]
#[error("model failed: {message}")]
pub struct ModelError {
    kind: ModelErrorKind,
    message: String,
    #[source]
    source: Option<Box<dyn std::error::Error + Send + Sync + 'static>>,
}

impl ModelError {
    /// An error of `kind` with a message.
    pub fn new(kind: ModelErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            source: None,
        }
    }

    /// A [`ModelErrorKind::Failed`] error with a message.
    pub fn failed(message: impl Into<String>) -> Self {
        Self::new(ModelErrorKind::Failed, message)
    }

    /// An error of `kind` caused by `source` (its text becomes the message).
    pub fn with_source(
        kind: ModelErrorKind,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        Self {
            kind,
            message: source.to_string(),
            source: Some(Box::new(source)),
        }
    }

    /// What kind of failure this is.
    pub fn kind(&self) -> ModelErrorKind {
        self.kind
    }

    /// The message, without the "model failed" prefix.
    pub fn message(&self) -> &str {
        &self.message
    }
}

/// How much a model's context holds for one request: what [`Model::context_window`] tells
/// the agent so it can keep every request inside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ContextWindow {
    /// Tokens the context holds (prompt and reply together).
    pub tokens: usize,
    /// The most tokens one reply may take (the generation limit).
    pub reply_tokens: usize,
}

/// How a model writes a tool call, so the agent can tell it about its tools, parse its calls
/// and write calls and results back into the history in the model's own syntax.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum CallSyntax {
    /// Porfiry's own call line, taught by the system prompt: a line `TOOL_CALL: name|args`
    /// (Gemma, ChatML and any model without a call format of its own). The default.
    #[default]
    ToolCallLine,
    /// FunctionGemma's trained format: tools declared as
    /// `<start_function_declaration>declaration:NAME{…}<end_function_declaration>` in the
    /// developer turn, calls written as
    /// `<start_function_call>call:NAME{key:<escape>text<escape>}<end_function_call>`, results
    /// fed back as `<start_function_response>response:NAME{…}<end_function_response>`.
    FunctionGemma,
}

impl CallSyntax {
    /// The call line of this syntax: [`CallLine::PORFIRY`] for
    /// [`CallSyntax::ToolCallLine`]; `None` for FunctionGemma, whose calls are blocks
    /// between its own markers ([`wire::function_gemma`]).
    pub fn call_line(self) -> Option<CallLine> {
        match self {
            CallSyntax::ToolCallLine => Some(CallLine::PORFIRY),
            CallSyntax::FunctionGemma => None,
        }
    }
}

/// Something that continues a conversation.
pub trait Model {
    /// Generate the assistant's next message for `request`, calling `on_text` with each
    /// piece of text as it is produced (valid UTF-8, in order; their concatenation is
    /// [`Generation::text`]). Must honour `request.cancel` promptly.
    fn generate(
        &mut self,
        request: &ModelRequest<'_>,
        on_text: &mut dyn FnMut(&str),
    ) -> Result<Generation, ModelError>;

    /// A hint that every new session's first request begins with `system` and `messages`
    /// (the static head: core tools, catalog, fresh toolset state). A model that can, computes
    /// that head once, keeps it (e.g. a KV snapshot on disk) and starts new sessions from it.
    /// The default does nothing.
    ///
    /// # Errors
    /// What the model reports when it cannot prepare the head; the agent works without it.
    fn prepare_head(&mut self, system: &str, messages: &[Message]) -> Result<(), ModelError> {
        let _ = (system, messages);
        Ok(())
    }

    /// Finish the work a model does on its own while idle and return when it is done. After
    /// a reply an engine decodes the chat framing that opens the session's next message
    /// (reported as [`GenerationStats::anticipated_tokens`] by the next request); it starts
    /// that by itself once no request follows within a few tens of milliseconds, as when a
    /// user is speaking. A host that wants that state now (a benchmark modelling the user's
    /// pause, a test that counts tokens) calls this. Default: nothing to do.
    ///
    /// # Errors
    /// What the model reports when it cannot reach it.
    fn settle(&mut self) -> Result<(), ModelError> {
        Ok(())
    }

    /// A hint, not a generation: the session's next request will start with this one's
    /// prompt up to the end of its last message's text (the user's words heard so far; more
    /// may follow). A model with a prompt cache may decode that much now, in the background,
    /// so the request prefills only the rest. Returns without waiting. Default: nothing.
    ///
    /// # Errors
    /// What the model reports when it cannot take the hint.
    fn decode_ahead(&mut self, request: &ModelRequest<'_>) -> Result<(), ModelError> {
        let _ = request;
        Ok(())
    }

    /// A hint that `session` is over: its history is gone, so a model that keeps state per
    /// session (a KV cache) may free it now. A later request of the same name starts fresh.
    /// Default: nothing.
    ///
    /// # Errors
    /// What the model reports when it cannot free the session's state.
    fn end_session(&mut self, session: &str) -> Result<(), ModelError> {
        let _ = session;
        Ok(())
    }

    /// The context this model serves requests in, when it has a bounded one. Default `None`:
    /// unbounded (the agent never compacts a request for it).
    fn context_window(&self) -> Option<ContextWindow> {
        None
    }

    /// The number of tokens the request `system` + `messages` takes in this model, counted
    /// with its own vocabulary and chat format, the generation prompt included. Default
    /// `None`: the model cannot count (the agent then estimates conservatively).
    fn count_tokens(&mut self, system: &str, messages: &[Message]) -> Option<usize> {
        let _ = (system, messages);
        None
    }

    /// One embedding per text, from the model's own weights (unit length; the engine's
    /// recipe: `porfiry-engine`'s `embed.rs`), so the agent can compare a request with
    /// example utterances.
    /// `Ok(None)`: this model cannot embed (the default).
    ///
    /// # Errors
    /// What the model reports when it can embed but failed to.
    fn embed(&mut self, texts: &[&str]) -> Result<Option<Vec<Vec<f32>>>, ModelError> {
        let _ = texts;
        Ok(None)
    }

    /// The embedding of one text that comes once (a user's request), as [`Model::embed`]
    /// gives it; a model that keeps vectors need not keep this one. Default: [`Model::embed`]
    /// of that one text.
    ///
    /// # Errors
    /// As [`Model::embed`].
    fn embed_query(&mut self, text: &str) -> Result<Option<Vec<f32>>, ModelError> {
        Ok(self.embed(&[text])?.and_then(|mut v| v.pop()))
    }

    /// The cancel token of the turn being served (`None` between turns): work the model does
    /// for the turn outside [`Model::generate`] — embedding the request to route it — stops
    /// when it is cancelled, with a [`ModelErrorKind::Cancelled`] error. Default: ignored.
    fn bind_cancel(&mut self, cancel: Option<&CancelToken>) {
        let _ = cancel;
    }

    /// The call syntax this model was trained on (its chat format decides). Default
    /// [`CallSyntax::ToolCallLine`]: the `TOOL_CALL:` call line the system prompt teaches.
    fn call_syntax(&self) -> CallSyntax {
        CallSyntax::ToolCallLine
    }
}

/// A model that changes how another one generates (teacher forcing, pacing, tracing) and
/// leaves everything else to it. Implement [`ModelWrapper::inner`], [`ModelWrapper::inner_mut`]
/// and [`ModelWrapper::wrapped_generate`]; the blanket [`Model`] implementation forwards every hint
/// (`prepare_head`, `settle`, `decode_ahead`, `end_session`, `context_window`, `count_tokens`,
/// `embed`, `embed_query`, `call_syntax`) to the inner model — written once, here, so no
/// wrapper forgets one. The inner model may be a trait object (`dyn Model + Send`).
pub trait ModelWrapper {
    /// The wrapped model.
    type Inner: Model + ?Sized;

    /// The wrapped model.
    fn inner(&self) -> &Self::Inner;

    /// The wrapped model, mutably.
    fn inner_mut(&mut self) -> &mut Self::Inner;

    /// [`Model::generate`], usually by calling the inner model's with a changed request or
    /// a wrapped `on_text`. (Named apart from `Model::generate` so calls are never ambiguous.)
    ///
    /// # Errors
    /// As [`Model::generate`].
    fn wrapped_generate(
        &mut self,
        request: &ModelRequest<'_>,
        on_text: &mut dyn FnMut(&str),
    ) -> Result<Generation, ModelError>;
}

impl<W: ModelWrapper> Model for W {
    fn generate(
        &mut self,
        request: &ModelRequest<'_>,
        on_text: &mut dyn FnMut(&str),
    ) -> Result<Generation, ModelError> {
        self.wrapped_generate(request, on_text)
    }

    fn prepare_head(&mut self, system: &str, messages: &[Message]) -> Result<(), ModelError> {
        self.inner_mut().prepare_head(system, messages)
    }

    fn settle(&mut self) -> Result<(), ModelError> {
        self.inner_mut().settle()
    }

    fn decode_ahead(&mut self, request: &ModelRequest<'_>) -> Result<(), ModelError> {
        self.inner_mut().decode_ahead(request)
    }

    fn end_session(&mut self, session: &str) -> Result<(), ModelError> {
        self.inner_mut().end_session(session)
    }

    fn context_window(&self) -> Option<ContextWindow> {
        self.inner().context_window()
    }

    fn count_tokens(&mut self, system: &str, messages: &[Message]) -> Option<usize> {
        self.inner_mut().count_tokens(system, messages)
    }

    fn embed(&mut self, texts: &[&str]) -> Result<Option<Vec<Vec<f32>>>, ModelError> {
        self.inner_mut().embed(texts)
    }

    fn embed_query(&mut self, text: &str) -> Result<Option<Vec<f32>>, ModelError> {
        self.inner_mut().embed_query(text)
    }

    fn bind_cancel(&mut self, cancel: Option<&CancelToken>) {
        self.inner_mut().bind_cancel(cancel);
    }

    fn call_syntax(&self) -> CallSyntax {
        self.inner().call_syntax()
    }
}
