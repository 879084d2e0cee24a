//! One request served, in named steps: the prompt tokenized, its sequence made ready, the
//! prompt prefilled, the reply decoded (and a forced reply's tail), the turn finished.
//! The decisions among them that need no model are `crate::generation`'s.

use std::time::Instant;

use llama_cpp_2::token::LlamaToken;
use porfiry_seam::{CancelToken, Confidence, GenerationStats, Message, StopReason};

use super::decode::Decoded;
use super::Worker;
use crate::error::EngineError;
use crate::generation::{
    self, anticipates_after, batches, decodes_forced_tail, ms_between, Limits, ReplyFigures,
    ReplyText,
};
use crate::idle::{self, Reuse};
use crate::kv::TokenId;
use crate::prompt;
use crate::sampling::llama::Samplers;
use crate::wire::{Completion, Event, GenerateJob, GenerateRequest};

/// Where the next reply token comes from.
enum Source {
    Sample(Box<Samplers>),
    Forced(std::vec::IntoIter<TokenId>),
}

/// A request's prompt as decoded: the conversation, then the reply prefix.
struct Prompt {
    /// Every token to decode, the prefix's included.
    tokens: Vec<TokenId>,
    /// The reply prefix (empty: none).
    prefix_text: String,
    /// The prefix as plain text tokens (fed to the samplers, part of the reply's tokens).
    prefix_tokens: Vec<TokenId>,
}

/// What the decode loop leaves.
struct Reply {
    stop: StopReason,
    /// The reply's tokens, the prefix's first.
    tokens: Vec<TokenId>,
    /// A forced reply's tokens streamed but not decoded yet.
    deferred: Vec<TokenId>,
    /// Tokens chosen (the prefix not counted).
    generated: usize,
    first_token_at: Option<Instant>,
    /// The log-probabilities of the sampled tokens ([`crate::sampling::log_prob`]).
    confidence: Confidence,
}

/// Why a decode the abort callback stopped stopped: the request's cancel or deadline, or the
/// engine's close (`closing`), which ends the request as a cancel does.
fn abort_reason(
    limits: &Limits,
    cancel: &CancelToken,
    closing: bool,
) -> Result<StopReason, EngineError> {
    limits
        .interrupted(cancel.is_cancelled() || closing, Instant::now())
        .ok_or_else(unasked_abort)
}

/// An abort no cancel or deadline asked for (only a failing abort check can cause it).
fn unasked_abort() -> EngineError {
    EngineError::Decode("llama.cpp stopped a decode that no cancel or deadline asked for".into())
}

impl Worker<'_> {
    /// Serve one request: its events, then its completion or error.
    pub(super) fn serve(&mut self, job: GenerateJob) {
        let events = job.events.clone();
        let result = self.generate(job);
        let _ = events.send(match result {
            Ok(c) => Event::Done(c),
            Err(e) => Event::Error(e),
        });
    }

    fn generate(&mut self, job: GenerateJob) -> Result<Completion, EngineError> {
        let GenerateJob {
            request: req,
            submitted,
            events,
        } = job;
        let limits = Limits::new(&req.config, submitted);
        let prompt = self.tokenize_prompt(&req);
        let (seq, keep, mut stats) = self.make_ready(&req.session, &prompt.tokens)?;
        // Cancel and deadline reach inside every decode from here on.
        let watch = self.watch;
        let _armed = watch.arm(req.cancel.flag().clone(), limits.deadline);
        let cancel = &req.cancel;
        if let Some(stop) =
            self.prefill_prompt(seq, &prompt.tokens, keep, &limits, cancel, &mut stats)?
        {
            stats.total_ms = ms_between(submitted, Instant::now());
            return Ok(Completion {
                text: String::new(),
                stop,
                stats,
                tokens: Vec::new(),
                confidence: None,
            });
        }
        let mut source = self.reply_source(&req, &prompt.prefix_tokens)?;
        let mut text = ReplyText::new(&req.config, &events);
        text.push_prefix(&prompt.prefix_text);
        let decode_start = Instant::now();
        let reply = self.decode_reply(
            seq,
            &mut source,
            &mut text,
            prompt.prefix_tokens,
            &limits,
            cancel,
        )?;
        let stop = self.decode_forced_tail(seq, &reply.deferred, reply.stop, &limits, cancel)?;
        let text = text.finish(stop);
        let figures = ReplyFigures {
            generated: reply.generated,
            first_token_at: reply.first_token_at,
            decode: decode_start.elapsed(),
        };
        generation::record_reply(&mut stats, submitted, figures);
        stats.total_ms = ms_between(submitted, Instant::now());
        let mut completion = self.finish_turn(req, seq, text, stop, stats, reply.tokens);
        completion.confidence = (reply.confidence.tokens > 0).then_some(reply.confidence);
        Ok(completion)
    }

    /// The prompt's tokens: the conversation and the reply prefix (decoded with the prompt).
    fn tokenize_prompt(&mut self, req: &GenerateRequest) -> Prompt {
        let prefix_text = req.reply_prefix.clone().unwrap_or_default();
        let segments =
            generation::prompt_segments(self.format, &req.system, &req.messages, &prefix_text);
        let tokens = prompt::tokenize_segments(
            self.model,
            &segments,
            Some(&self.memo),
            Some(&mut self.token_cache),
        )
        .tokens;
        let prefix_tokens = if prefix_text.is_empty() {
            Vec::new()
        } else {
            prompt::tokenize_plain(self.model, &prefix_text)
        };
        Prompt {
            tokens,
            prefix_text,
            prefix_tokens,
        }
    }

    /// Make the session's sequence ready for `prompt` (KV reuse: keep the common prefix or
    /// restore a prepared head, make room). A request supersedes its session's idle-time
    /// work; tokens decoded ahead for this sequence count while the sequence still holds
    /// them. Returns the sequence, the tokens kept and the request's first figures.
    fn make_ready(
        &mut self,
        session: &str,
        prompt: &[TokenId],
    ) -> Result<(i32, usize, GenerationStats), EngineError> {
        self.pending.drop_session(session);
        let seq = self.book.slot_for(session);
        let ahead = self.anticipated.take(seq, self.book.tokens(seq));
        let ready = self.prepare_seq(seq, prompt)?;
        let reuse = Reuse {
            keep: ready.plan.keep,
            head_tokens: ready.head_tokens,
            full_reprefill: ready.full_reprefill,
        };
        let stats = GenerationStats {
            prompt_tokens: prompt.len(),
            reused_tokens: ready.plan.keep,
            full_reprefill: ready.full_reprefill,
            head_tokens: ready.head_tokens,
            anticipated_tokens: idle::anticipated_tokens(ahead.as_ref(), reuse),
            shifted_tokens: ready.shifted,
            ..GenerationStats::default()
        };
        Ok((seq, ready.plan.keep, stats))
    }

    /// Prefill `prompt[keep..]` in batches and record the prefill's figures. Cancel and
    /// deadline are checked before each batch and, by the armed watch, inside it (an
    /// aborted batch leaves nothing; the ones before stay). `Some`: the request stopped
    /// before its reply.
    fn prefill_prompt(
        &mut self,
        seq: i32,
        prompt: &[TokenId],
        keep: usize,
        limits: &Limits,
        cancel: &CancelToken,
        stats: &mut GenerationStats,
    ) -> Result<Option<StopReason>, EngineError> {
        let start = Instant::now();
        let mut batch_done = start;
        for batch in batches(keep, prompt.len(), self.batch_size) {
            let cancelled = cancel.is_cancelled() || self.watch.closing();
            let mut stop = limits.interrupted(cancelled, Instant::now());
            if stop.is_none() {
                match self.decode(seq, &prompt[batch])? {
                    Decoded::Done => batch_done = Instant::now(),
                    Decoded::Aborted => {
                        stop = Some(abort_reason(limits, cancel, self.watch.closing())?)
                    }
                }
            }
            if let Some(stop) = stop {
                // What this request added and llama.cpp still holds, and how fast the
                // batches it finished went.
                let prefilled = self.book.tokens(seq).len().saturating_sub(keep);
                let secs = (batch_done - start).as_secs_f64();
                generation::record_prefill(stats, prefilled, secs);
                return Ok(Some(stop));
            }
        }
        let secs = start.elapsed().as_secs_f64();
        generation::record_prefill(stats, prompt.len().saturating_sub(keep), secs);
        Ok(None)
    }

    /// Where the reply's tokens come from: the forced reply's tokens, or the samplers (told
    /// about the reply prefix, so the tool-call grammar sees it).
    fn reply_source(
        &self,
        req: &GenerateRequest,
        prefix_tokens: &[TokenId],
    ) -> Result<Source, EngineError> {
        Ok(match &req.forced_reply {
            Some(text) => Source::Forced(prompt::tokenize_plain(self.model, text).into_iter()),
            None => {
                let mut samplers = Samplers::new(self.model, &req.config)?;
                for t in prefix_tokens {
                    samplers.accept(*t);
                }
                Source::Sample(Box::new(samplers))
            }
        })
    }

    /// Choose, stream and decode reply tokens until the model ends its turn or a limit or
    /// the stop scanner stops it. An end-of-generation token is never accepted into the
    /// samplers nor decoded; the last allowed token is not decoded (nothing is sampled
    /// after it). A forced reply's tokens are known ahead: they are streamed one by one
    /// as always, but decoded together after the loop, one batch instead of a decode per
    /// token ([`Self::decode_forced_tail`]).
    fn decode_reply(
        &mut self,
        seq: i32,
        source: &mut Source,
        text: &mut ReplyText<'_>,
        mut tokens: Vec<TokenId>,
        limits: &Limits,
        cancel: &CancelToken,
    ) -> Result<Reply, EngineError> {
        let model = self.model;
        let vocab = model.vocab();
        let mut deferred: Vec<TokenId> = Vec::new();
        let mut generated = 0usize;
        let mut first_token_at: Option<Instant> = None;
        let mut confidence = Confidence::default();
        let stop = loop {
            let held = self.book.tokens(seq).len() + deferred.len();
            let room = self.book.room_after_keep(seq, held);
            let cancelled = cancel.is_cancelled() || text.caller_gone() || self.watch.closing();
            if let Some(stop) = limits.before_token(cancelled, Instant::now(), generated, room) {
                break stop;
            }
            let token = match source {
                Source::Forced(it) => match it.next() {
                    Some(t) => t,
                    None => break StopReason::EndOfTurn,
                },
                Source::Sample(samplers) => self.sample(samplers)?,
            };
            first_token_at.get_or_insert_with(Instant::now);
            if vocab.is_eog(LlamaToken(token)) {
                break StopReason::EndOfTurn;
            }
            if let Source::Sample(samplers) = source {
                samplers.accept(token);
                if let Some(l) = self.chosen_log_prob(token) {
                    confidence.push(f64::from(l));
                }
            }
            generated += 1;
            tokens.push(token);
            let stopped = text.push_piece(&vocab.token_to_piece(LlamaToken(token), false, None));
            if let Some(stop) = limits.after_token(generated, stopped) {
                break stop;
            }
            if matches!(source, Source::Forced(_)) {
                deferred.push(token);
            } else {
                let step = Instant::now();
                if self.decode(seq, &[token])? == Decoded::Aborted {
                    // Streamed but not decoded: the reply keeps it, the cache does not.
                    break abort_reason(limits, cancel, self.watch.closing())?;
                }
                self.observe_step(step.elapsed().as_secs_f64() * 1e3);
            }
        };
        Ok(Reply {
            stop,
            tokens,
            deferred,
            generated,
            first_token_at,
            confidence,
        })
    }

    /// Pick the next token from the logits of the last decoded batch's last token.
    fn sample(&mut self, samplers: &mut Samplers) -> Result<TokenId, EngineError> {
        let idx = self.batch.n_tokens() - 1;
        samplers.pick(&self.ctx, idx, &mut self.pick_buffers)
    }

    /// The log-probability of `token` under the logits it was sampled from (those of the
    /// last decoded batch's last token, not decoded past yet).
    fn chosen_log_prob(&self, token: TokenId) -> Option<f32> {
        let idx = self.batch.n_tokens() - 1;
        crate::sampling::log_prob(self.ctx.get_logits_ith(idx), token)
    }

    /// Decode the forced tokens the loop streamed but did not decode (all but a token that
    /// ended it), without logits: nothing is sampled after them. A cancel or deadline
    /// leaves them out (streamed but not decoded, as for a token whose decode was stopped).
    /// Returns the reply's stop reason, a cancel or deadline inside these decodes included.
    fn decode_forced_tail(
        &mut self,
        seq: i32,
        deferred: &[TokenId],
        stop: StopReason,
        limits: &Limits,
        cancel: &CancelToken,
    ) -> Result<StopReason, EngineError> {
        if !decodes_forced_tail(stop) {
            return Ok(stop);
        }
        for chunk in deferred.chunks(self.batch_size.max(1)) {
            if self.decode_with(seq, chunk, false)? == Decoded::Aborted {
                return abort_reason(limits, cancel, self.watch.closing());
            }
        }
        Ok(stop)
    }

    /// The turn is over: remember the reply's tokens (as far as they spell its text),
    /// whatever ended it — a cancelled reply comes back as its delivered prefix
    /// (`ReplyMemo::lookup`) —, and queue the idle-time decode of the framing that opens
    /// the session's next message.
    fn finish_turn(
        &mut self,
        req: GenerateRequest,
        seq: i32,
        text: String,
        stop: StopReason,
        stats: GenerationStats,
        tokens: Vec<TokenId>,
    ) -> Completion {
        let model = self.model;
        let vocab = model.vocab();
        let pieces: Vec<Vec<u8>> = tokens
            .iter()
            .map(|t| vocab.token_to_piece(LlamaToken(*t), false, None))
            .collect();
        self.memo.remember(text.clone(), &tokens, &pieces);
        if self.anticipate && anticipates_after(stop) {
            let mut messages = req.messages;
            messages.push(Message::assistant(text.clone()));
            self.pending
                .anticipate(seq, req.session, req.system, messages);
        }
        Completion {
            text,
            stop,
            stats,
            tokens,
            confidence: None,
        }
    }
}
