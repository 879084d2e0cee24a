//! Idle-time work (`crate::idle`) carried out: the framing that opens a session's next
//! message, and the prompt of a partial transcript, decoded ahead of the request.

use porfiry_seam::Message;

use super::Worker;
use crate::chat;
use crate::idle::{self, IdleWork};
use crate::prompt;

impl Worker<'_> {
    /// Run the idle-time work that is due first (the one with the shortest delay, oldest
    /// first among equals).
    pub(super) fn run_next_pending(&mut self, interrupted: &dyn Fn() -> bool) {
        match self.pending.take_next() {
            None => {}
            Some(IdleWork::Anticipate {
                seq,
                session,
                system,
                messages,
            }) => self.anticipate(seq, &session, &system, &messages, interrupted),
            Some(IdleWork::DecodeAhead {
                session,
                system,
                messages,
            }) => self.decode_heard(&session, &system, &messages, interrupted),
        }
    }

    /// Idle-time work: decode the framing that opens the next message of the session that
    /// was served last (the tokens every continuation of its conversation with a new message
    /// shares beyond what its sequence holds), without logits. Only when the sequence still
    /// holds exactly the start of that continuation and has room without evicting anyone.
    fn anticipate(
        &mut self,
        seq: i32,
        session: &str,
        system: &str,
        messages: &[Message],
        interrupted: &dyn Fn() -> bool,
    ) {
        if self.book.owner(seq) != Some(session) {
            return;
        }
        let next = self.shared_prefix(system, messages);
        let held = self.book.tokens(seq);
        let room = self.book.room_after_keep(seq, held.len());
        let Some(start) = idle::framing_start(&next, held, room) else {
            return;
        };
        if self.ctx.kv_cache_seq_pos_max(seq) + 1 != start as i32 {
            return;
        }
        if let Ok(end) = self.decode_ahead(seq, &next, start, interrupted) {
            self.anticipated.note(seq, start, &next[start..end]);
        }
    }

    /// Decode the conversation as the request would have it if the user's words so far
    /// were the whole message — through the framing that closes the message and opens the
    /// reply, all but the prompt's last token (a request decodes at least that one, for its
    /// logits) — reusing and trimming the session's sequence as a request would. When the
    /// words are indeed final (a recognizer's last partial transcript usually is), the
    /// request prefills one token; when more words come, the speculative framing is the
    /// diverging tail the next prefill or request removes (a few tokens, decoded while the
    /// user spoke). Stops between batches when `interrupted` (a command is waiting); what
    /// was decoded stays useful.
    fn decode_heard(
        &mut self,
        session: &str,
        system: &str,
        messages: &[Message],
        interrupted: &dyn Fn() -> bool,
    ) {
        let segments = chat::render_prompt(self.format, system, messages);
        let mut tokens = prompt::tokenize_segments(
            self.model,
            &segments,
            Some(&self.memo),
            Some(&mut self.token_cache),
        )
        .tokens;
        tokens.pop();
        let seq = self.book.slot_for(session);
        if tokens.is_empty() || self.book.tokens(seq).starts_with(&tokens) {
            return;
        }
        let Ok(ready) = self.prepare_seq(seq, &tokens) else {
            return;
        };
        let keep = ready.plan.keep;
        if let Ok(end) = self.decode_ahead(seq, &tokens, keep, interrupted) {
            self.anticipated.note(seq, keep, &tokens[keep..end]);
        }
    }
}
