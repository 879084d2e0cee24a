//! The engine handle: load a model onto a worker thread, send it requests, get events back.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

use crossbeam_channel::{Receiver, Sender};
use porfiry_seam::{CancelToken, Message};

use crate::chat::ChatFormat;
use crate::error::EngineError;
use crate::gguf;
use crate::kv::TokenId;
use crate::params::EngineParams;
use crate::prompt::RenderedPrompt;
use crate::wire::{
    CacheReport, Command, Completion, GenerateJob, HeadReport, ModelInfo, TrimLevel, TrimReport,
};
// `model.rs` names these through this module.
pub(crate) use crate::wire::{Event, GenerateRequest};
use crate::worker;

/// What tells two versions of a file apart without reading it: its size, modification time
/// and (on Unix) device and inode (a file renamed over it is another inode).
#[derive(Debug, Clone, PartialEq, Eq)]
struct FileStamp {
    len: u64,
    modified: Option<std::time::SystemTime>,
    inode: (u64, u64),
}

impl FileStamp {
    /// The stamp of `path` now; `None` when it cannot be read.
    fn of(path: &Path) -> Option<Self> {
        let meta = std::fs::metadata(path).ok()?;
        #[cfg(unix)]
        let inode = {
            use std::os::unix::fs::MetadataExt;
            (meta.dev(), meta.ino())
        };
        #[cfg(not(unix))]
        let inode = (0, 0);
        Some(Self {
            len: meta.len(),
            modified: meta.modified().ok(),
            inode,
        })
    }
}

/// A loaded model on its own worker thread.
///
/// The worker owns llama.cpp's model and context (the context borrows the model, and
/// llama.cpp contexts are not to be used from several threads); the handle only sends
/// commands. Requests are served one at a time in submission order. Dropping the engine
/// stops every decode in flight within one graph node — a generation, an embedding, a head
/// build, work ahead of a request — ends the requests still queued as cancelled, and waits
/// for the worker.
#[derive(Debug)]
pub struct Engine {
    tx: Option<Sender<Command>>,
    handle: Option<JoinHandle<()>>,
    info: ModelInfo,
    /// Set when the engine closes: every decode stops.
    closing: Arc<AtomicBool>,
}

/// A handle that stops an [`Engine`]'s work from another thread ([`Engine::stopper`]).
#[derive(Debug, Clone)]
pub struct EngineStopper(Arc<AtomicBool>);

impl EngineStopper {
    /// Stop every decode in flight and every one after it, for good: what a closing host
    /// calls before it drops the engine from the thread that owns it, so the drop does not
    /// wait for a decode to end.
    pub fn stop(&self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

impl Engine {
    /// Validate the file, load it on a new worker thread and create the context.
    ///
    /// # Errors
    /// [`EngineError::InvalidModel`] for a missing, unreadable, non-GGUF or truncated file
    /// (llama.cpp never sees it), [`EngineError::UnknownChatFormat`], what llama.cpp
    /// reports when it refuses the model or the context, or [`EngineError::ModelChanged`]
    /// when the file changed while it loaded.
    ///
    /// # A file that changes under the engine
    /// A file replaced by a rename (how the model store installs one) never matters: the
    /// engine keeps the old inode. A file rewritten in place while it loads is refused
    /// ([`EngineError::ModelChanged`]). With [`EngineParams::mmap`] on (the default), the
    /// weights are the file's pages: a file truncated in place while they are mapped — during
    /// the load or at any time later — ends the process with SIGBUS, which no check can turn
    /// into an error; a file overwritten in place changes the weights under the model. With
    /// `mmap` off the weights are read into memory (the file's size in RSS): a truncation
    /// while reading is a [`EngineError::Load`] or [`EngineError::ModelChanged`], and nothing
    /// after the load touches the file.
    pub fn load(path: impl AsRef<Path>, params: EngineParams) -> Result<Self, EngineError> {
        let path = path.as_ref().to_path_buf();
        validate_params(&params)?;
        let before = FileStamp::of(&path);
        let header = gguf::inspect(&path)?;
        let format = params
            .chat_format
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
        let closing = Arc::new(AtomicBool::new(false));
        let (tx, handle, info) =
            worker::spawn(path.clone(), params, header, format, closing.clone())?;
        let engine = Self {
            tx: Some(tx),
            handle: Some(handle),
            info,
            closing,
        };
        // A writer that changed the file while llama.cpp read (or mapped and paged in) it
        // left weights of two files: refuse them. (A file truncated under the mapping can
        // still end the process with SIGBUS before this check, or at any time later with
        // `mmap` on; see above.)
        if before.is_none() || FileStamp::of(&engine.info.path) != before {
            drop(engine);
            return Err(EngineError::ModelChanged { path });
        }
        Ok(engine)
    }

    /// Facts about the model and context.
    pub fn info(&self) -> &ModelInfo {
        &self.info
    }

    fn send(&self, cmd: Command) -> Result<(), EngineError> {
        self.tx
            .as_ref()
            .ok_or(EngineError::WorkerGone)?
            .send(cmd)
            .map_err(|_| EngineError::WorkerGone)
    }

    /// Queue a generation; events arrive on the returned channel.
    ///
    /// # Errors
    /// [`EngineError::WorkerGone`] when the worker has stopped.
    pub fn submit(&self, request: GenerateRequest) -> Result<Receiver<Event>, EngineError> {
        let (events, rx) = crossbeam_channel::unbounded();
        self.send(Command::Generate(GenerateJob {
            request,
            submitted: Instant::now(),
            events,
        }))?;
        Ok(rx)
    }

    /// Generate and wait, calling `on_text` with every piece of text.
    ///
    /// # Errors
    /// Whatever the generation reports, or [`EngineError::WorkerGone`].
    pub fn generate(
        &self,
        request: GenerateRequest,
        on_text: &mut dyn FnMut(&str),
    ) -> Result<Completion, EngineError> {
        let rx = self.submit(request)?;
        for event in rx {
            match event {
                Event::Text(t) => on_text(&t),
                Event::Done(c) => return Ok(c),
                Event::Error(e) => return Err(e),
            }
        }
        Err(EngineError::WorkerGone)
    }

    /// The prompt this engine would decode for a conversation (text and tokens), including
    /// the generation prompt.
    ///
    /// # Errors
    /// [`EngineError::WorkerGone`].
    pub fn render(
        &self,
        system: &str,
        messages: &[Message],
    ) -> Result<RenderedPrompt, EngineError> {
        self.ask(|reply| Command::Render {
            system: system.to_owned(),
            messages: messages.to_vec(),
            reply,
        })
    }

    /// The tokens of `text` as plain text (special-token spellings are not parsed), as a
    /// forced reply is decoded: with the loaded model's own vocabulary, so a host needs no
    /// second copy of it (a vocabulary-only [`crate::Tokenizer`] of Gemma costs ~50 MB).
    ///
    /// # Errors
    /// [`EngineError::WorkerGone`].
    pub fn tokenize(&self, text: &str) -> Result<Vec<TokenId>, EngineError> {
        self.ask(|reply| Command::Tokenize {
            text: text.to_owned(),
            reply,
        })
    }

    /// Prepare the head every new session starts with: the prompt prefix shared by every
    /// conversation that begins with `system` and `messages` followed by a user message.
    /// Restores it from the snapshot directory when a valid snapshot is there, else prefills
    /// it and saves one. From then on a request whose prompt starts with the head (a new
    /// session, a session evicted from the cache) restores the head's state instead of
    /// prefilling it (`GenerationStats::head_tokens`).
    ///
    /// # Errors
    /// [`EngineError::Snapshot`] when the model cannot be hashed for the snapshot key,
    /// decode errors, or [`EngineError::WorkerGone`]. Unusable snapshot files are not
    /// errors: they are rebuilt and the reason is in [`HeadReport::note`].
    pub fn prepare_head(
        &self,
        system: &str,
        messages: &[Message],
    ) -> Result<HeadReport, EngineError> {
        self.ask(|reply| Command::PrepareHead {
            system: system.to_owned(),
            messages: messages.to_vec(),
            reply,
        })?
    }

    /// What the KV cache holds now: tokens and bytes per sequence (session).
    ///
    /// # Errors
    /// [`EngineError::WorkerGone`].
    pub fn cache_report(&self) -> Result<CacheReport, EngineError> {
        self.ask(|reply| Command::CacheReport { reply })
    }

    /// Forget every cached sequence and prepared head (the next request prefills from
    /// scratch; snapshot files stay).
    ///
    /// # Errors
    /// [`EngineError::WorkerGone`].
    pub fn clear_cache(&self) -> Result<(), EngineError> {
        self.ask(|done| Command::ClearCache { done })
    }

    /// End `session`: its KV sequence is emptied and freed (the next new session takes it)
    /// and its idle-time work dropped. A later request of the same name starts from the
    /// prepared head like any new session. Returns whether the session held a sequence.
    ///
    /// # Errors
    /// [`EngineError::WorkerGone`].
    pub fn end_session(&self, session: &str) -> Result<bool, EngineError> {
        self.ask(|done| Command::EndSession {
            session: session.to_owned(),
            done,
        })
    }

    /// One embedding per text from the model's own weights: each text's tokens decoded in a
    /// second, small context of the same model (created on first use; the chat's KV cache is
    /// not touched) inside a frame that asks for its meaning in one word, the frame's last
    /// token's state scaled to unit length (PromptEOL). Texts longer than
    /// [`EMBED_TOKENS`](crate::EMBED_TOKENS) are cut. Runs on the worker like a request.
    ///
    /// # Errors
    /// [`EngineError::Context`] when the context cannot be made, [`EngineError::Decode`],
    /// [`EngineError::WorkerGone`].
    ///
    /// The vectors are kept (in memory, and beside the head snapshots when the engine keeps
    /// them) so the same text is not embedded again: for texts that come back, like example
    /// utterances. A text that comes once, like a user's request, goes to
    /// [`Engine::embed_query`].
    pub fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EngineError> {
        self.embed_until(texts, None)
    }

    /// [`Engine::embed`] that stops when `cancel` is cancelled: between texts and inside a
    /// decode (llama.cpp's abort callback), with [`EngineError::Cancelled`].
    ///
    /// # Errors
    /// As [`Engine::embed`], and [`EngineError::Cancelled`].
    pub fn embed_until(
        &self,
        texts: &[&str],
        cancel: Option<&CancelToken>,
    ) -> Result<Vec<Vec<f32>>, EngineError> {
        self.ask(|reply| Command::Embed {
            texts: texts.iter().map(|t| (*t).to_owned()).collect(),
            keep: true,
            cancel: cancel.map(|c| c.flag().clone()),
            reply,
        })?
    }

    /// [`Engine::embed`] of one text that is not kept: a user's request, whatever its size
    /// (only its head is embedded), costs no memory after the call.
    ///
    /// # Errors
    /// As [`Engine::embed`].
    pub fn embed_query(&self, text: &str) -> Result<Vec<f32>, EngineError> {
        self.embed_query_until(text, None)
    }

    /// [`Engine::embed_query`] that stops when `cancel` is cancelled, as
    /// [`Engine::embed_until`] does.
    ///
    /// # Errors
    /// As [`Engine::embed`], and [`EngineError::Cancelled`].
    pub fn embed_query_until(
        &self,
        text: &str,
        cancel: Option<&CancelToken>,
    ) -> Result<Vec<f32>, EngineError> {
        let mut vectors = self.ask(|reply| Command::Embed {
            texts: vec![text.to_owned()],
            keep: false,
            cancel: cancel.map(|c| c.flag().clone()),
            reply,
        })??;
        vectors
            .pop()
            .ok_or_else(|| EngineError::Decode("embedding missing".into()))
    }

    /// Do the worker's idle-time work now and wait for it: after a reply the worker decodes
    /// the chat framing that opens the session's next message (on its own, once no command
    /// follows within [`ANTICIPATE_AFTER`](crate::ANTICIPATE_AFTER)); the next request reports
    /// those tokens as `GenerationStats::anticipated_tokens`. Returns at once when there is
    /// nothing to do (or [`EngineParams::anticipate`] is off).
    ///
    /// # Errors
    /// [`EngineError::WorkerGone`].
    pub fn settle(&self) -> Result<(), EngineError> {
        self.ask(|done| Command::Settle { done })
    }

    /// Decode a conversation ahead of its request, while the user is still speaking:
    /// `messages` ends with the user's words heard so far (a partial transcript). The worker
    /// decodes the prompt up to the end of those words — the conversation, the framing that
    /// opens the message, the words — reusing the session's cached prefix as a request
    /// would, once no other command is waiting (a newer call replaces an older one not
    /// started yet). The request made when the user has finished reuses all of it that its
    /// prompt shares (`GenerationStats::anticipated_tokens`) and prefills only the rest: the
    /// last words and the framing that closes the message. Returns at once.
    ///
    /// # Errors
    /// [`EngineError::WorkerGone`].
    pub fn decode_ahead(
        &self,
        session: &str,
        system: &str,
        messages: &[Message],
    ) -> Result<(), EngineError> {
        self.send(Command::DecodeAhead {
            session: session.to_owned(),
            system: system.to_owned(),
            messages: messages.to_vec(),
        })
    }

    /// Give memory back ([`TrimLevel`]), after the request being served: a host calls it when
    /// the system asks (Android's `onTrimMemory`, [`TrimLevel::from_android`]). Nothing a
    /// conversation needs is lost: a session whose KV went prefills its history again.
    ///
    /// # Errors
    /// [`EngineError::WorkerGone`].
    pub fn trim(&self, level: TrimLevel) -> Result<TrimReport, EngineError> {
        self.ask(|reply| Command::Trim { level, reply })
    }

    /// A handle that stops this engine's work from any thread ([`EngineStopper::stop`]).
    pub fn stopper(&self) -> EngineStopper {
        EngineStopper(self.closing.clone())
    }

    /// Send the command `make` builds around a reply channel and wait for the answer.
    fn ask<T>(&self, make: impl FnOnce(Sender<T>) -> Command) -> Result<T, EngineError> {
        let (reply, rx) = crossbeam_channel::bounded(1);
        self.send(make(reply))?;
        rx.recv().map_err(|_| EngineError::WorkerGone)
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.closing.store(true, Ordering::SeqCst);
        self.tx.take();
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

fn validate_params(p: &EngineParams) -> Result<(), EngineError> {
    if p.n_ctx < 64 {
        return Err(EngineError::InvalidParams(format!(
            "n_ctx {} is below 64",
            p.n_ctx
        )));
    }
    if p.batch == 0 || p.batch > p.n_ctx {
        return Err(EngineError::InvalidParams(format!(
            "batch {} must be between 1 and n_ctx ({})",
            p.batch, p.n_ctx
        )));
    }
    if p.n_seq == 0 || p.n_seq > 64 {
        return Err(EngineError::InvalidParams(format!(
            "n_seq {} must be between 1 and 64",
            p.n_seq
        )));
    }
    if p.batch < p.n_seq {
        // llama.cpp reserves room for one output per sequence in a batch and aborts the
        // process when that exceeds the batch size.
        return Err(EngineError::InvalidParams(format!(
            "batch {} must be at least n_seq ({})",
            p.batch, p.n_seq
        )));
    }
    Ok(())
}
