//! The head benchmark (`porfiry bench head`): a new session's first turn with vs without the
//! head snapshot, and what each session costs in KV memory.

use std::path::PathBuf;

use porfiry_agent::PromptLayout;
use porfiry_engine::{
    CacheReport, Engine, EngineParams, GenerateConfig, GenerateRequest, GenerationStats,
    HeadReport, HeadSource,
};
use serde::Serialize;

use crate::dialogue::Dialogue;
use crate::engine::{load_engine, resolve_model};
use crate::error::BenchError;
use crate::kv::median;
use crate::run::{scripted_requests, ScriptedRequest};

fn engine_err(e: porfiry_engine::EngineError) -> BenchError {
    BenchError::Engine(e.to_string())
}

fn check(ok: bool, what: impl FnOnce() -> String) -> Result<(), BenchError> {
    if ok {
        Ok(())
    } else {
        Err(BenchError::Engine(what()))
    }
}

/// One run of each side.
#[derive(Debug, Serialize)]
pub struct Run {
    /// Cold: empty cache, no head, the whole prompt prefilled.
    pub cold: GenerationStats,
    /// After a "restart" (every cache and prepared head dropped): the head restored from
    /// its snapshot file.
    pub head: HeadReport,
    /// The first request after the restore.
    pub warm: GenerationStats,
}

/// What `porfiry bench head` measured.
#[derive(Debug, Serialize)]
pub struct HeadBenchReport {
    /// The model file.
    pub model: String,
    /// CPU threads.
    pub threads: u32,
    /// Tokens of the first request's prompt.
    pub prompt_tokens: usize,
    /// Tokens of the head.
    pub head_tokens: usize,
    /// Bytes of the snapshot file.
    pub file_bytes: u64,
    /// Every run of both sides.
    pub runs: Vec<Run>,
    /// Medians: cold TTFT, restore time, warm TTFT (ms).
    pub median_cold_ttft_ms: f64,
    /// Median restore time, ms.
    pub median_restore_ms: f64,
    /// Median warm TTFT, ms.
    pub median_warm_ttft_ms: f64,
    /// warm TTFT / cold TTFT (medians).
    pub ttft_ratio: f64,
    /// (restore + warm TTFT) / cold TTFT (medians): the first request right after start-up.
    pub ttft_ratio_with_restore: f64,
    /// Two sessions kept at once (n_seq 2) after two turns each.
    pub sessions: CacheReport,
    /// Prefilled tokens of the second turn of each session after switching between them.
    pub switch_prefilled: Vec<usize>,
    /// Tokens appended since each session's previous request.
    pub switch_appended: Vec<usize>,
    /// Of the appended, how many were decoded ahead while idle (the framing after each
    /// session's reply): prefilled + anticipated = appended.
    pub switch_anticipated: Vec<usize>,
}

fn request(session: &str, r: &ScriptedRequest) -> GenerateRequest {
    let mut g = GenerateRequest::new(session, r.system.clone(), r.messages.clone())
        .with_config(GenerateConfig::greedy(r.reply.len() + 16));
    g.forced_reply = Some(r.reply.clone());
    g
}

fn run_one(
    engine: &Engine,
    session: &str,
    r: &ScriptedRequest,
) -> Result<GenerationStats, BenchError> {
    Ok(engine
        .generate(request(session, r), &mut |_| {})
        .map_err(engine_err)?
        .stats)
}

/// Runs the head benchmark: `runs` rounds of a cold first request against one after the
/// head is restored from its snapshot (sides alternating), then two sessions at once.
///
/// # Errors
/// [`BenchError`] when the model is missing, the engine fails or the dialogue does not
/// start with the agent's head.
pub fn run_head(
    model: Option<&str>,
    runs: usize,
    threads: Option<u32>,
    ctx: u32,
    snapshot_dir: Option<PathBuf>,
) -> Result<HeadBenchReport, BenchError> {
    check(runs > 0, || "--runs must be at least 1".into())?;
    let choice = resolve_model(model)?;
    let dialogue = Dialogue::builtin()?;
    let layout = PromptLayout::default();
    let agent = dialogue.agent(layout)?;
    let head = agent.head_view();
    let requests = scripted_requests(&dialogue, layout)?;
    // The first request of a session, and the first request of its second turn.
    let first = &requests[0];
    let second = requests
        .iter()
        .find(|r| r.turn == 2)
        .ok_or_else(|| BenchError::Engine("the dialogue has no second turn".into()))?;
    check(
        first.system == head.system && first.messages.starts_with(&head.messages),
        || "the dialogue's first request does not start with the agent's head".into(),
    )?;
    let temp = snapshot_dir.is_none();
    let dir = snapshot_dir.unwrap_or_else(|| {
        std::env::temp_dir().join(format!("porfiry-bench-head-{}", std::process::id()))
    });
    let params = EngineParams {
        n_ctx: ctx,
        threads,
        snapshot_dir: Some(dir.clone()),
        ..EngineParams::default()
    };
    let engine = load_engine(&choice, params.clone())?;
    // Make (or check) the snapshot once.
    let made = engine
        .prepare_head(&head.system, &head.messages)
        .map_err(engine_err)?;
    let file = made
        .file
        .clone()
        .ok_or_else(|| BenchError::Engine("the head was not saved to a file".into()))?;
    let file_bytes = std::fs::metadata(&file).map(|m| m.len()).unwrap_or(0);
    let mut all = Vec::new();
    for i in 0..runs {
        // Alternate the order so drift on a shared machine hits both sides alike.
        let mut cold = None;
        let mut warm = None;
        for side in [i % 2, 1 - i % 2] {
            engine.clear_cache().map_err(engine_err)?;
            if side == 0 {
                cold = Some(run_one(&engine, &format!("cold{i}"), first)?);
            } else {
                let h = engine
                    .prepare_head(&head.system, &head.messages)
                    .map_err(engine_err)?;
                check(h.source == HeadSource::Disk, || format!("restore: {h:?}"))?;
                warm = Some((h, run_one(&engine, &format!("warm{i}"), first)?));
            }
        }
        if let (Some(cold), Some((head, warm))) = (cold, warm) {
            all.push(Run { cold, head, warm });
        }
    }
    drop(engine);

    // Two sessions at once: each keeps its sequence across a switch.
    let engine = load_engine(&choice, EngineParams { n_seq: 2, ..params })?;
    engine
        .prepare_head(&head.system, &head.messages)
        .map_err(engine_err)?;
    let mut after_first = Vec::new();
    for s in ["voice", "text"] {
        let st = run_one(&engine, s, first)?;
        after_first.push(st.prompt_tokens + st.generated_tokens);
    }
    let mut switch_prefilled = Vec::new();
    let mut switch_appended = Vec::new();
    let mut switch_anticipated = Vec::new();
    for (s, kv) in ["voice", "text"].iter().zip(&after_first) {
        // The user's pause: the worker's idle-time work is done (the framing after each
        // session's reply, both kept: one per session).
        engine.settle().map_err(engine_err)?;
        let st = run_one(&engine, s, second)?;
        switch_prefilled.push(st.prefilled_tokens);
        switch_anticipated.push(st.anticipated_tokens);
        switch_appended.push(st.prompt_tokens.saturating_sub(*kv));
    }
    let sessions = engine.cache_report().map_err(engine_err)?;
    let info = engine.info().clone();
    drop(engine);
    if temp {
        let _ = std::fs::remove_dir_all(&dir);
    }

    let cold_ttft = median(all.iter().map(|r| r.cold.ttft_ms).collect());
    let restore = median(all.iter().map(|r| r.head.ms).collect());
    let warm_ttft = median(all.iter().map(|r| r.warm.ttft_ms).collect());
    let ratio = |x: f64| if cold_ttft > 0.0 { x / cold_ttft } else { 0.0 };
    Ok(HeadBenchReport {
        model: choice.path.display().to_string(),
        threads: info.threads,
        prompt_tokens: all.first().map_or(0, |r| r.cold.prompt_tokens),
        head_tokens: made.tokens,
        file_bytes,
        median_cold_ttft_ms: cold_ttft,
        median_restore_ms: restore,
        median_warm_ttft_ms: warm_ttft,
        ttft_ratio: ratio(warm_ttft),
        ttft_ratio_with_restore: ratio(restore + warm_ttft),
        runs: all,
        sessions,
        switch_prefilled,
        switch_appended,
        switch_anticipated,
    })
}

impl HeadBenchReport {
    /// The report as text.
    pub fn table(&self) -> String {
        table(self)
    }
}

fn table(r: &HeadBenchReport) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "model: {} ({} threads)\nnew session, first request: prompt {} tokens, head {} tokens \
         (snapshot file {} KB)",
        r.model,
        r.threads,
        r.prompt_tokens,
        r.head_tokens,
        r.file_bytes / 1024
    );
    let _ = writeln!(
        s,
        "{:>4} {:>10} {:>10} {:>10} {:>10} {:>10} {:>8}",
        "run", "cold pf", "cold TTFT", "restore ms", "warm pf", "warm TTFT", "ratio"
    );
    for (i, run) in r.runs.iter().enumerate() {
        let _ = writeln!(
            s,
            "{:>4} {:>10} {:>10.1} {:>10.1} {:>10} {:>10.1} {:>8.3}",
            i + 1,
            run.cold.prefilled_tokens,
            run.cold.ttft_ms,
            run.head.ms,
            run.warm.prefilled_tokens,
            run.warm.ttft_ms,
            if run.cold.ttft_ms > 0.0 {
                run.warm.ttft_ms / run.cold.ttft_ms
            } else {
                0.0
            }
        );
    }
    let _ = writeln!(
        s,
        "median: cold TTFT {:.1} ms; restore {:.1} ms + warm TTFT {:.1} ms; \
         TTFT ratio {:.3} ({:.3} counting the restore)",
        r.median_cold_ttft_ms,
        r.median_restore_ms,
        r.median_warm_ttft_ms,
        r.ttft_ratio,
        r.ttft_ratio_with_restore
    );
    let _ = writeln!(
        s,
        "\nsessions kept at once (n_ctx {}, {} cells used):",
        r.sessions.n_ctx, r.sessions.used
    );
    for q in &r.sessions.seqs {
        let _ = writeln!(
            s,
            "  seq {} {:<8} {:>6} tokens {:>8} KB ({:.1} KB/token)",
            q.seq,
            q.session.as_deref().unwrap_or("-"),
            q.tokens,
            q.bytes / 1024,
            if q.tokens > 0 {
                q.bytes as f64 / q.tokens as f64 / 1024.0
            } else {
                0.0
            }
        );
    }
    for (tokens, bytes) in &r.sessions.heads {
        let _ = writeln!(
            s,
            "  {:<15} {tokens:>6} tokens {:>8} KB",
            "head",
            bytes / 1024
        );
    }
    let _ = writeln!(
        s,
        "switching sessions: second turns prefilled {:?} tokens + {:?} decoded ahead while \
         idle (appended since each session's previous request: {:?})",
        r.switch_prefilled, r.switch_anticipated, r.switch_appended
    );
    s
}
