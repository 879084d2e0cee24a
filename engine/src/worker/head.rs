//! Prepared heads: the tokens every conversation with a given start shares, decoded once
//! and kept as llama.cpp's sequence state (in memory, and as a snapshot file when
//! configured), restored into a sequence instead of prefilled.

use std::time::Instant;

use llama_cpp_2::context::session::LlamaStateSeqFlags;
use porfiry_seam::Message;

use super::Worker;
use crate::backend::compute_guard;
use crate::chat;
use crate::error::EngineError;
use crate::generation::ms_between;
use crate::heads::{Head, HEAD_SESSION, MIN_HEAD_GAIN};
use crate::kv::{common_prefix, TokenId};
use crate::prompt;
use crate::snapshot::{self, SnapshotError};
use crate::wire::{HeadReport, HeadSource};

impl Worker<'_> {
    /// The state llama.cpp holds for `seq`.
    fn seq_state(&self, seq: i32) -> Result<Vec<u8>, EngineError> {
        let flags = LlamaStateSeqFlags::empty();
        let size = self.ctx.state_seq_get_size_ext(seq, flags);
        let mut state = vec![0u8; size];
        // SAFETY: `state` has exactly the size llama.cpp reported for this sequence.
        let n = {
            let _gate = compute_guard();
            unsafe {
                self.ctx
                    .state_seq_get_data_ext(state.as_mut_ptr(), seq, flags)
            }
        };
        if n != size || size == 0 {
            return Err(EngineError::Decode(format!(
                "llama.cpp returned {n} of {size} state bytes for sequence {seq}"
            )));
        }
        Ok(state)
    }

    /// The tokens every conversation starting with `system` and `messages`, then a user
    /// message, shares: the common prefix of two such renderings with different users.
    pub(super) fn shared_prefix(&mut self, system: &str, messages: &[Message]) -> Vec<TokenId> {
        let mut probe = |text: &str| {
            let mut m = messages.to_vec();
            m.push(Message::user(text));
            let segments = chat::render_prompt(self.format, system, &m);
            prompt::tokenize_segments(
                self.model,
                &segments,
                Some(&self.memo),
                Some(&mut self.token_cache),
            )
            .tokens
        };
        let (a, b) = (probe("a"), probe("b"));
        let n = common_prefix(&a, &b);
        a[..n].to_vec()
    }

    /// Prepare the head of conversations starting with `system` and `messages`: kept in
    /// memory already, read from its snapshot, or built.
    pub(super) fn prepare_head(
        &mut self,
        system: &str,
        messages: &[Message],
    ) -> Result<HeadReport, EngineError> {
        let started = Instant::now();
        let tokens = self.shared_prefix(system, messages);
        let mut report = HeadReport {
            tokens: tokens.len(),
            source: HeadSource::Empty,
            state_bytes: 0,
            file: None,
            note: None,
            ms: 0.0,
        };
        let finish = |mut r: HeadReport| {
            r.ms = ms_between(started, Instant::now());
            Ok(r)
        };
        if tokens.len() < MIN_HEAD_GAIN {
            return finish(report);
        }
        if let Some(head) = self.heads.touch(&tokens) {
            report.state_bytes = head.state.len();
            report.source = HeadSource::Memory;
            return finish(report);
        }
        // A snapshot from disk: verified by key and checksum, then by llama.cpp itself.
        let seq = self.book.slot_for(HEAD_SESSION);
        if let Some(s) = &mut self.snapshots {
            let (dir, key) = s.key()?;
            let path = dir.join(snapshot::file_name(key, &tokens));
            match snapshot::load(dir, key, &tokens) {
                Ok(state) => {
                    report.state_bytes = state.len();
                    report.file = Some(path);
                    let i = self.heads.push(Head { tokens, state });
                    if self.restore_head(seq, i) {
                        report.source = HeadSource::Disk;
                        return finish(report);
                    }
                    report.note = Some("llama.cpp refused the snapshot's state".into());
                    report.file = None;
                    report.state_bytes = 0;
                    let tokens = self.shared_prefix(system, messages);
                    return self.build_head(seq, tokens, report, started);
                }
                Err(SnapshotError::Missing(_)) => {}
                Err(e) => report.note = Some(e.to_string()),
            }
        }
        self.build_head(seq, tokens, report, started)
    }

    /// Prefill `tokens` into `seq`, keep the state, and save a snapshot when configured.
    fn build_head(
        &mut self,
        seq: i32,
        tokens: Vec<TokenId>,
        mut report: HeadReport,
        started: Instant,
    ) -> Result<HeadReport, EngineError> {
        let plan = self.prepare_seq(seq, &tokens)?.plan;
        self.decode_ahead(seq, &tokens, plan.keep, &|| false)?;
        let state = self.seq_state(seq)?;
        report.source = HeadSource::Built;
        report.state_bytes = state.len();
        if let Some(s) = &mut self.snapshots {
            let (dir, key) = s.key()?;
            match snapshot::save(dir, key, &tokens, &state) {
                Ok((path, _)) => report.file = Some(path),
                Err(e) => {
                    let note = report.note.take().map_or(String::new(), |n| n + "; ");
                    report.note = Some(format!("{note}not saved: {e}"));
                }
            }
        }
        self.heads.push(Head { tokens, state });
        report.ms = ms_between(started, Instant::now());
        Ok(report)
    }
}
