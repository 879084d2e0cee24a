//! `porfiry bench agreement`: what an approximate engine setting costs in behaviour —
//! reusing the cache across a removed span (`EngineParams::kv_shift`), a quantized KV cache
//! (`kv_type_k`/`kv_type_v` q8_0, q4_0), sliding-window layers without their full cache.
//!
//! Shifting, for one, is an approximation: the tokens moved left were computed while
//! attending to the span that was removed (a toolset switch's old state message); a
//! quantized cache rounds every key and value. So the question is how often a greedy
//! generation comes out different. The eval case files are played as long
//! conversations — every case of a file one turn of ONE session (the toolsets a case lists
//! as `active` enabled before it, which is itself a switch; whole turns, stand-ins
//! answering), so later turns run on caches that switches and compactions have shifted.
//!
//! Three passes over the same engine settings but the candidate's:
//! 1. **reference**: the base settings, greedy; every generation recorded.
//! 2. **control**: the base settings; at every model call the model first generates freely
//!    (the probe, compared with the reference's generation for that call), then the
//!    reference's generation is teacher-forced so the conversation stays the reference's.
//! 3. **candidate**: the same with the candidate's setting.
//!
//! The control says how much the probe procedure alone moves results (a different grouping
//! of tokens into batches can flip a greedy near-tie); the candidate's agreement is to be
//! read against it. Agreement is counted on the whole generation (at most `max_tokens`
//! tokens: "the first 32 reply tokens" at the default) and on the first action (the call's
//! tool name, or plain text).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use porfiry_agent::{
    AgentConfig, CancelToken, ExecutorTarget, Generation, ManualClock, Model, ModelError,
    ModelRequest, Severity, ToolInvocation,
};
use porfiry_engine::{EngineModel, EngineParams, GenerateConfig, KvType};
use porfiry_seam::ModelWrapper;

use crate::engine::{load_engine, ModelChoice};
use crate::error::BenchError;
use crate::eval::{first_action, EvalFile};

/// Most tokens per generation by default: the agreement is judged on the first 32 reply tokens.
pub const SHIFT_MAX_TOKENS: usize = 32;

/// The engine setting a run of `porfiry bench agreement` judges.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Candidate {
    /// `kv_shift` on.
    KvShift,
    /// Keys and values of this type.
    KvType(KvType),
    /// Sliding-window layers keep only their window (`swa_full` off).
    SwaWindow,
}

impl Candidate {
    /// Parse `kv-shift`, `kv-q8_0`, `kv-q4_0`, `kv-f32`, `swa-window`.
    ///
    /// # Errors
    /// A message naming the accepted values.
    pub fn parse(text: &str) -> Result<Self, String> {
        Ok(match text {
            "kv-shift" => Self::KvShift,
            "kv-q8_0" => Self::KvType(KvType::Q8_0),
            "kv-q4_0" => Self::KvType(KvType::Q4_0),
            "kv-f32" => Self::KvType(KvType::F32),
            "swa-window" => Self::SwaWindow,
            other => {
                return Err(format!(
                    "unknown candidate {other:?}: kv-shift, kv-q8_0, kv-q4_0, kv-f32 or swa-window"
                ))
            }
        })
    }

    /// The base parameters with this candidate's setting.
    pub fn apply(self, base: &EngineParams) -> EngineParams {
        let mut p = base.clone();
        match self {
            Self::KvShift => p.kv_shift = true,
            Self::KvType(t) => {
                p.kv_type_k = t;
                p.kv_type_v = t;
            }
            Self::SwaWindow => p.swa_full = Some(false),
        }
        p
    }

    /// The name `parse` accepts.
    pub fn name(self) -> &'static str {
        match self {
            Self::KvShift => "kv-shift",
            Self::KvType(KvType::Q8_0) => "kv-q8_0",
            Self::KvType(KvType::Q4_0) => "kv-q4_0",
            Self::KvType(KvType::F32) => "kv-f32",
            Self::KvType(KvType::F16) => "kv-f16",
            Self::SwaWindow => "swa-window",
        }
    }
}

/// What to run.
#[derive(Debug, Clone)]
pub struct ShiftBench {
    /// The model.
    pub model: ModelChoice,
    /// The base engine parameters (the reference and the control run on them).
    pub params: EngineParams,
    /// The setting the third pass adds.
    pub candidate: Candidate,
    /// Case files, each played as one conversation.
    pub files: Vec<EvalFile>,
    /// Skill and toolset folders for files that name none.
    pub defaults: (Vec<std::path::PathBuf>, Vec<std::path::PathBuf>),
    /// Most tokens per generation.
    pub max_tokens: usize,
}

/// One model call of the probed passes.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ShiftCall {
    /// The case file.
    pub file: String,
    /// The turn (case index in the file, from 0).
    pub turn: usize,
    /// The model call within the pass (from 0).
    pub call: usize,
    /// The reference's generation.
    pub reference: String,
    /// The control pass's probe (the base settings).
    pub control: String,
    /// The candidate pass's probe.
    pub shifted: String,
    /// Prompt tokens the candidate's probe reused by shifting (0: no shift this request).
    pub shifted_tokens: usize,
    /// Whether any earlier request of the candidate pass's session shifted (this request's
    /// cache holds moved tokens).
    pub after_shift: bool,
    /// First actions (`text`, a tool name, …) of the reference, control and candidate probes.
    pub actions: [String; 3],
}

/// Agreement counts.
#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
pub struct Agreement {
    /// Generations compared.
    pub calls: usize,
    /// Identical generations.
    pub same_text: usize,
    /// Same first action.
    pub same_action: usize,
}

impl Agreement {
    fn add(&mut self, text: bool, action: bool) {
        self.calls += 1;
        self.same_text += usize::from(text);
        self.same_action += usize::from(action);
    }

    /// Identical generations over all.
    pub fn text_ratio(&self) -> f64 {
        ratio(self.same_text, self.calls)
    }

    /// Same first action over all.
    pub fn action_ratio(&self) -> f64 {
        ratio(self.same_action, self.calls)
    }
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 {
        1.0
    } else {
        a as f64 / b as f64
    }
}

/// The report of `porfiry bench agreement`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ShiftReport {
    /// The model as named.
    pub model: String,
    /// The setting judged.
    pub candidate: Candidate,
    /// With `kv-shift`: whether llama.cpp can shift this model's cache (else the candidate
    /// pass equals the control).
    pub can_shift: bool,
    /// Most tokens per generation.
    pub max_tokens: usize,
    /// Control probes against the reference.
    pub control: Agreement,
    /// Candidate probes against the reference, all calls.
    pub shifted: Agreement,
    /// Candidate probes against the reference, only the calls whose cache held shifted
    /// tokens (empty but for `kv-shift`).
    pub shifted_after_shift: Agreement,
    /// Control probes on those same calls.
    pub control_after_shift: Agreement,
    /// Requests of the candidate pass that shifted.
    pub shifts: usize,
    /// Tokens reused by shifting over the candidate pass.
    pub shifted_tokens: usize,
    /// Prompt tokens prefilled by the control pass's probes and by the candidate pass's.
    pub prefilled: [usize; 2],
    /// Wall time of the three passes, in seconds.
    pub seconds: f64,
    /// Every call.
    pub calls: Vec<ShiftCall>,
}

impl ShiftReport {
    /// The human-readable summary.
    pub fn text(&self) -> String {
        let row = |name: &str, a: &Agreement| {
            format!(
                "{name:<28} {:>5} {:>6}/{:<5} {:>6.3} {:>6}/{:<5} {:>6.3}\n",
                a.calls,
                a.same_text,
                a.calls,
                a.text_ratio(),
                a.same_action,
                a.calls,
                a.action_ratio()
            )
        };
        let mut out = format!(
            "model {}, candidate {} (can shift: {}), generations of at most {} tokens\n\
             {:<28} {:>5} {:>12} {:>6} {:>12} {:>6}\n",
            self.model,
            self.candidate.name(),
            self.can_shift,
            self.max_tokens,
            "vs the reference",
            "calls",
            "same text",
            "",
            "same action",
            ""
        );
        out.push_str(&row("control (base settings)", &self.control));
        out.push_str(&row(self.candidate.name(), &self.shifted));
        out.push_str(&row("control, after a shift", &self.control_after_shift));
        out.push_str(&row("shifted, after a shift", &self.shifted_after_shift));
        out.push_str(&format!(
            "{} requests shifted, {} tokens reused by shifting; prompt tokens prefilled: \
             control {}, candidate {} ({:.3}×); {:.0} s\n",
            self.shifts,
            self.shifted_tokens,
            self.prefilled[0],
            self.prefilled[1],
            ratio(self.prefilled[1], self.prefilled[0]),
            self.seconds
        ));
        for c in self
            .calls
            .iter()
            .filter(|c| c.shifted != c.reference && c.control == c.reference)
        {
            out.push_str(&format!(
                "  differs with the candidate only: {} turn {} call {}: {:?} vs {:?}\n",
                c.file, c.turn, c.call, c.reference, c.shifted
            ));
        }
        out
    }
}

/// One pass's record of a model call.
#[derive(Debug, Clone, Default)]
struct Seen {
    text: String,
    turn: usize,
    shifted_tokens: usize,
    prefilled: usize,
}

/// Runs `bench`; `progress` hears each pass's name and each finished turn.
///
/// # Errors
/// [`BenchError::Engine`] when an engine does not load, [`BenchError::Load`] when a file's
/// skills or toolsets have errors, [`BenchError::Model`] when a turn fails or the probed
/// passes fall out of step with the reference.
pub fn run_shift(
    bench: &ShiftBench,
    progress: &mut dyn FnMut(&str),
) -> Result<ShiftReport, BenchError> {
    let started = Instant::now();
    let mut passes: Vec<Vec<Seen>> = Vec::new();
    let mut can_shift = false;
    let mut reference: Vec<Seen> = Vec::new();
    for (name, candidate, probe) in [
        ("reference", false, false),
        ("control", false, true),
        ("candidate", true, true),
    ] {
        progress(&format!("pass {name}"));
        let base = EngineParams {
            anticipate: false,
            ..bench.params.clone()
        };
        let params = if candidate {
            bench.candidate.apply(&base)
        } else {
            base
        };
        let engine = load_engine(&bench.model, params)?;
        if candidate {
            can_shift = engine.info().can_shift;
        }
        let config = GenerateConfig::greedy(bench.max_tokens);
        let mut model = EngineModel::new(engine, config);
        let mut seen = Vec::new();
        let script: Option<Vec<String>> =
            probe.then(|| reference.iter().map(|s| s.text.clone()).collect());
        let mut turn_base = 0;
        for file in &bench.files {
            play_file(
                bench,
                file,
                &mut model,
                script.as_deref(),
                turn_base,
                &mut seen,
                progress,
            )?;
            turn_base += turns_of(file);
        }
        if !probe {
            reference = seen.clone();
        }
        passes.push(seen);
    }
    let mut passes = passes.into_iter().skip(1);
    let (control, shifted) = (
        passes.next().unwrap_or_default(),
        passes.next().unwrap_or_default(),
    );
    if control.len() != reference.len() || shifted.len() != reference.len() {
        return Err(BenchError::Model(format!(
            "the probed passes made {} and {} model calls, the reference {}",
            control.len(),
            shifted.len(),
            reference.len()
        )));
    }
    let agent_for_labels = |f: &EvalFile| build_agent(bench, f);
    let mut labels = BTreeMap::new();
    for f in &bench.files {
        labels.insert(f.label(), agent_for_labels(f)?);
    }
    let mut report = ShiftReport {
        model: bench.model.given.clone(),
        candidate: bench.candidate,
        can_shift,
        max_tokens: bench.max_tokens,
        control: Agreement::default(),
        shifted: Agreement::default(),
        shifted_after_shift: Agreement::default(),
        control_after_shift: Agreement::default(),
        shifts: 0,
        shifted_tokens: 0,
        prefilled: [0, 0],
        seconds: 0.0,
        calls: Vec::new(),
    };
    let mut file_of = Vec::new();
    for f in &bench.files {
        file_of.extend(std::iter::repeat_n(f.label(), turns_of(f)));
    }
    let mut shifted_in_session: BTreeMap<String, bool> = BTreeMap::new();
    for (i, ((r, c), s)) in reference.iter().zip(&control).zip(&shifted).enumerate() {
        let file = file_of.get(r.turn).cloned().unwrap_or_default();
        let Some(agent) = labels.get(&file) else {
            continue;
        };
        let action = |t: &str| first_action(t, agent).label();
        let actions = [action(&r.text), action(&c.text), action(&s.text)];
        let after = *shifted_in_session.get(&file).unwrap_or(&false);
        report
            .control
            .add(c.text == r.text, actions[1] == actions[0]);
        report
            .shifted
            .add(s.text == r.text, actions[2] == actions[0]);
        if after || s.shifted_tokens > 0 {
            report
                .control_after_shift
                .add(c.text == r.text, actions[1] == actions[0]);
            report
                .shifted_after_shift
                .add(s.text == r.text, actions[2] == actions[0]);
        }
        if s.shifted_tokens > 0 {
            report.shifts += 1;
            report.shifted_tokens += s.shifted_tokens;
            shifted_in_session.insert(file.clone(), true);
        }
        report.prefilled[0] += c.prefilled;
        report.prefilled[1] += s.prefilled;
        report.calls.push(ShiftCall {
            file,
            turn: r.turn,
            call: i,
            reference: r.text.clone(),
            control: c.text.clone(),
            shifted: s.text.clone(),
            shifted_tokens: s.shifted_tokens,
            after_shift: after,
            actions,
        });
    }
    report.seconds = started.elapsed().as_secs_f64();
    Ok(report)
}

/// Play every case of `file` as one turn of one session; record each model call in `seen`
/// (turn numbers from `turn_base`, call indices over the whole pass). With a `script`, every
/// call is probed and then teacher-forced to the script's generation of the same index.
fn play_file(
    bench: &ShiftBench,
    file: &EvalFile,
    model: &mut EngineModel,
    script: Option<&[String]>,
    turn_base: usize,
    seen: &mut Vec<Seen>,
    progress: &mut dyn FnMut(&str),
) -> Result<(), BenchError> {
    let mut agent = build_agent(bench, file)?;
    for (tool, stand_in) in &file.tool_results {
        let reply = stand_in.clone();
        agent.register_executor(
            ExecutorTarget::Tool(tool.clone()),
            Arc::new(move |_: &ToolInvocation<'_>| reply.reply()),
        );
    }
    let session = "shift";
    agent
        .warm_up(model)
        .map_err(|e| BenchError::Model(format!("preparing the head: {e}")))?;
    let turns = file
        .cases
        .iter()
        .flat_map(|c| c.turns.iter().enumerate().map(move |(i, t)| (c, i, t)));
    let count = turns_of(file);
    for (n, (case, index_in_case, case_turn)) in turns.enumerate() {
        let turn = turn_base + n;
        // A case's toolsets are enabled before its first turn.
        for set in case.active.iter().filter(|_| index_in_case == 0) {
            agent
                .enable_toolset(session, set)
                .map_err(|e| BenchError::Load(format!("{}: {e}", file.label())))?;
        }
        let cancel = CancelToken::new();
        let mut probe = Probe {
            inner: model,
            script,
            turn,
            seen,
            error: None,
        };
        let turned = agent.turn(session, &case_turn.user, &mut probe, &cancel, &mut |_| {});
        if let Some(e) = probe.error.take() {
            return Err(e);
        }
        turned.map_err(|e| BenchError::Model(format!("{} turn {}: {e}", file.label(), n + 1)))?;
        progress(&format!("{} turn {}/{count}", file.label(), n + 1));
    }
    agent.end_session(session);
    model
        .end_session(session)
        .map_err(|e| BenchError::Model(format!("ending the session: {e}")))?;
    Ok(())
}

/// Turns of a file: every turn of every case (a one-turn case is one).
fn turns_of(file: &EvalFile) -> usize {
    file.cases.iter().map(|c| c.turns.len()).sum()
}

fn build_agent(bench: &ShiftBench, f: &EvalFile) -> Result<porfiry_agent::Agent, BenchError> {
    let clock = ManualClock::parse(&f.clock)
        .map_err(|e| BenchError::Load(format!("{}: {e}", f.label())))?;
    let skills = f.skills.clone().unwrap_or_else(|| bench.defaults.0.clone());
    let toolsets = f
        .toolsets
        .clone()
        .unwrap_or_else(|| bench.defaults.1.clone());
    let config = AgentConfig {
        lang: f.lang,
        turn_budget: None,
        ..AgentConfig::default()
    };
    let (agent, diagnostics) =
        porfiry_runtime::load_agent_from(config, &skills, &toolsets, Arc::new(clock));
    let errors: Vec<String> = diagnostics
        .iter()
        .filter(|d| d.severity() == Severity::Error)
        .map(|d| d.to_string())
        .collect();
    if !errors.is_empty() {
        return Err(BenchError::Load(format!(
            "{}: {}",
            f.label(),
            errors.join("; ")
        )));
    }
    Ok(agent)
}

/// The model seen by the agent in one pass: records every call; with a script, probes
/// freely and then teacher-forces the script's generation.
struct Probe<'a> {
    inner: &'a mut EngineModel,
    script: Option<&'a [String]>,
    turn: usize,
    seen: &'a mut Vec<Seen>,
    error: Option<BenchError>,
}

impl ModelWrapper for Probe<'_> {
    type Inner = EngineModel;

    fn inner(&self) -> &Self::Inner {
        self.inner
    }

    fn inner_mut(&mut self) -> &mut Self::Inner {
        self.inner
    }

    fn wrapped_generate(
        &mut self,
        request: &ModelRequest<'_>,
        on_text: &mut dyn FnMut(&str),
    ) -> Result<Generation, ModelError> {
        let free = self.inner.generate(request, &mut |_| {});
        let (text, stats) = match &free {
            Ok(g) => (g.text.clone(), g.stats.clone().unwrap_or_default()),
            Err(e) => (format!("(error: {e})"), Default::default()),
        };
        self.seen.push(Seen {
            text,
            turn: self.turn,
            shifted_tokens: stats.shifted_tokens,
            prefilled: stats.prefilled_tokens,
        });
        let index = self.seen.len() - 1;
        let Some(script) = self.script else {
            if let Ok(g) = &free {
                on_text(&g.text);
            }
            return free;
        };
        let Some(forced) = script.get(index) else {
            self.error = Some(BenchError::Model(format!(
                "the probed pass made more model calls than the reference ({})",
                script.len()
            )));
            return Err(ModelError::new(
                porfiry_agent::ModelErrorKind::Failed,
                "out of step with the reference",
            ));
        };
        let mut forced_request = *request;
        forced_request.forced_reply = Some(forced);
        forced_request.guide = Default::default();
        self.inner.generate(&forced_request, on_text)
    }
}
