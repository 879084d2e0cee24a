//! Running cases: the plan (files × variants, checked first), the model, the runner.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use porfiry_agent::scenario::StandIn;
use porfiry_agent::{
    Agent, AgentConfig, AgentEvent, CancelToken, ExecutorTarget, Generation, ManualClock, Model,
    ModelError, ModelRequest, Route, Severity, ToolInvocation, TurnOutcome, TurnStop,
};
use porfiry_engine::{Engine, EngineModel, GenerateConfig, Tokenizer};
use porfiry_runtime::{Backend, Runtime, RuntimeConfig, TurnStats, DEFAULT_TOOL_TIMEOUT};
use porfiry_seam::ModelWrapper;

use super::case::{EvalCase, EvalFile, EvalTurn, Expected};
use super::error::EvalError;
use super::report::{CaseResult, EvalReport, Totals, TurnScope, VariantReport};
use super::score::{
    calls_match, declared_args, first_action, judge_turn, reply_regex, score_turn, FirstAction,
};
use super::variant::{EvalSetup, Variant};

/// Most tokens per generation in the eval's base setup (the CLI's default for `ask`).
pub const DEFAULT_MAX_TOKENS: usize = 256;

/// How cases run; `Default`: first generations only, unless a turn checks its reply
/// (`reply_contains`, `reply_matches`) or belongs to a conversation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EvalOptions {
    /// Run every case's whole turn (stand-ins answering), not only the ones that check their
    /// reply. Slower; the reply figures then cover every case (`porfiry eval talk`).
    pub whole_turns: bool,
    /// Route each case and score the route's tool as the first action, generating nothing
    /// (routing measured alone; fast: one embedding per case).
    pub routes_only: bool,
}

/// The files and variants to run, each file's agent built and its cases checked against it
/// (toolsets in `active`, tools and argument names in `expect`) before any model loads.
#[derive(Debug)]
pub struct EvalPlan {
    files: Vec<EvalFile>,
    /// Per variant, per file: the setup and its agent.
    runs: Vec<(&'static Variant, Vec<(EvalSetup, Agent)>)>,
    options: EvalOptions,
    /// Where the catalog's toolset declarations were written, when a variant has the
    /// catalog on (removed with the plan).
    catalog_toolsets: Option<TempDir>,
}

impl EvalPlan {
    /// Plan `variants` over `files`. Files without `skills:` / `toolsets:` load `defaults`
    /// (skill folders, toolset folders; [`EvalPlan::builtin_folders`] for the built-ins).
    ///
    /// # Errors
    /// [`EvalError::Empty`] without files or variants, [`EvalError::Load`] when a file's
    /// skills or toolsets have errors, [`EvalError::BadCase`] for a case naming an unknown
    /// toolset, tool or argument.
    pub fn new(
        files: Vec<EvalFile>,
        variants: &[&'static Variant],
        defaults: (Vec<PathBuf>, Vec<PathBuf>),
        options: EvalOptions,
    ) -> Result<Self, EvalError> {
        if files.is_empty() {
            return Err(EvalError::Empty("no case files".into()));
        }
        if variants.is_empty() {
            return Err(EvalError::Empty("no variants".into()));
        }
        let mut runs = Vec::new();
        let mut catalog_toolsets: Option<(TempDir, PathBuf)> = None;
        for v in variants {
            let mut per_file = Vec::new();
            for f in &files {
                let mut setup = setup_for(f, v, &defaults);
                if setup.catalog {
                    let dir = match &catalog_toolsets {
                        Some((_, dir)) => dir.clone(),
                        None => {
                            let made = catalog_toolset_dir().map_err(|reason| EvalError::Load {
                                path: f.path.clone(),
                                variant: v.name.to_string(),
                                reason,
                            })?;
                            catalog_toolsets.insert(made).1.clone()
                        }
                    };
                    // As the runtime does for a host with a catalog: after the built-ins,
                    // before the folders a file gives (which may override it).
                    let at = usize::from(f.toolsets.is_none()).min(setup.toolset_dirs.len());
                    setup.toolset_dirs.insert(at, dir);
                }
                let agent = build_agent(f, v, &setup)?;
                check_stand_ins(f, &agent)?;
                for c in &f.cases {
                    check_case(f, c, &agent)?;
                }
                per_file.push((setup, agent));
            }
            runs.push((*v, per_file));
        }
        Ok(Self {
            files,
            runs,
            options,
            catalog_toolsets: catalog_toolsets.map(|(tmp, _)| tmp),
        })
    }

    /// The built-in skill and toolset folders (`porfiry_runtime::agent_folders` of the
    /// default runtime configuration: written once under the data directory).
    ///
    /// # Errors
    /// [`EvalError::Load`] when they can be written nowhere.
    pub fn builtin_folders() -> Result<(Vec<PathBuf>, Vec<PathBuf>), EvalError> {
        let (skills, toolsets, _) = porfiry_runtime::agent_folders(&RuntimeConfig::default())
            .map_err(|e| EvalError::Load {
                path: PathBuf::from("<built-in>"),
                variant: "-".into(),
                reason: e.to_string(),
            })?;
        Ok((skills, toolsets))
    }

    /// The case files.
    pub fn files(&self) -> &[EvalFile] {
        &self.files
    }

    /// Cases per variant.
    pub fn cases(&self) -> usize {
        self.files.iter().map(|f| f.cases.len()).sum()
    }

    /// Turns per variant (a one-turn case is one).
    pub fn turns(&self) -> usize {
        self.files
            .iter()
            .flat_map(|f| &f.cases)
            .map(|c| c.turns.len())
            .sum()
    }

    /// Turn runs in all (turns × variants): one result each.
    pub fn total(&self) -> usize {
        self.turns() * self.runs.len()
    }
}

/// A folder removed when dropped (the catalog variant's files).
#[derive(Debug)]
struct TempDir(PathBuf);

impl TempDir {
    fn new(what: &str) -> Result<TempDir, String> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let dir = std::env::temp_dir().join(format!(
            "porfiry-eval-{what}-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        Ok(TempDir(dir))
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The catalog's toolset declarations (`skills`, `protocol`), written to a temporary folder.
fn catalog_toolset_dir() -> Result<(TempDir, PathBuf), String> {
    let tmp = TempDir::new("catalog-toolsets")?;
    let dir = porfiry_runtime::skills_toolset_dir(tmp.path())
        .map_err(|e| format!("the catalog's toolsets in {}: {e}", tmp.path().display()))?;
    Ok((tmp, dir))
}

/// A fresh catalog in a temporary folder, the setup's skills synced into it, attached to
/// `runtime` as [`porfiry_runtime::Runtime::open`] attaches a host's.
fn attach_fresh_catalog(runtime: &mut Runtime, setup: &EvalSetup) -> Result<TempDir, String> {
    let tmp = TempDir::new("catalog")?;
    let (catalog, _) = porfiry_runtime::open_catalog(
        &tmp.path().join(porfiry_runtime::CATALOG_FILE),
        &setup.skill_dirs,
    )?;
    porfiry_runtime::attach_catalog(runtime, catalog, setup.agent.lang);
    Ok(tmp)
}

fn setup_for(f: &EvalFile, v: &Variant, defaults: &(Vec<PathBuf>, Vec<PathBuf>)) -> EvalSetup {
    let mut setup = EvalSetup {
        // No turn budget: accuracy must not depend on how loaded the machine is.
        agent: AgentConfig {
            lang: f.lang,
            turn_budget: None,
            ..AgentConfig::default()
        },
        generate: GenerateConfig::greedy(DEFAULT_MAX_TOKENS),
        skill_dirs: f.skills.clone().unwrap_or_else(|| defaults.0.clone()),
        toolset_dirs: f.toolsets.clone().unwrap_or_else(|| defaults.1.clone()),
        catalog: false,
    };
    (v.apply)(&mut setup);
    setup
}

fn build_agent(f: &EvalFile, v: &Variant, setup: &EvalSetup) -> Result<Agent, EvalError> {
    let load_error = |reason: String| EvalError::Load {
        path: f.path.clone(),
        variant: v.name.to_string(),
        reason,
    };
    let clock = ManualClock::parse(&f.clock).map_err(|e| load_error(e.to_string()))?;
    for dir in setup.skill_dirs.iter().chain(&setup.toolset_dirs) {
        if !dir.is_dir() {
            return Err(load_error(format!("no folder {}", dir.display())));
        }
    }
    let (agent, diagnostics) = porfiry_runtime::load_agent_from(
        setup.agent.clone(),
        &setup.skill_dirs,
        &setup.toolset_dirs,
        Arc::new(clock),
    );
    if diagnostics.iter().any(|d| d.severity() == Severity::Error) {
        let errors: Vec<String> = diagnostics
            .iter()
            .filter(|d| d.severity() == Severity::Error)
            .map(|d| d.to_string())
            .collect();
        return Err(load_error(errors.join("; ")));
    }
    Ok(agent)
}

/// Every stand-in answers a declared toolset tool (core tools run in the agent).
fn check_stand_ins(f: &EvalFile, agent: &Agent) -> Result<(), EvalError> {
    for tool in f.tool_results.keys() {
        let declared = agent
            .toolsets()
            .owner_set(tool)
            .is_some_and(|set| set.tool(tool).is_some());
        if !declared {
            return Err(EvalError::BadFile {
                path: f.path.clone(),
                reason: format!("`tool_results`: no toolset tool {tool:?}"),
            });
        }
    }
    Ok(())
}

fn check_case(f: &EvalFile, c: &EvalCase, agent: &Agent) -> Result<(), EvalError> {
    let bad = |reason: String| EvalError::BadCase {
        path: f.path.clone(),
        case: c.index,
        user: Some(c.user().to_string()),
        reason,
    };
    for set in &c.active {
        if agent.toolsets().get(set).is_none() {
            return Err(bad(format!(
                "`active`: no toolset {set:?}; available: {}",
                agent.toolsets().names().join(", ")
            )));
        }
    }
    for (i, turn) in c.turns.iter().enumerate() {
        let in_turn = |reason: String| {
            if c.conversation {
                bad(format!("turn {}: {reason}", i + 1))
            } else {
                bad(reason)
            }
        };
        if let Some(pattern) = &turn.reply_matches {
            reply_regex(pattern)
                .map_err(|why| in_turn(format!("`reply_matches` {pattern:?}: {why}")))?;
        }
        check_turn(turn, agent).map_err(in_turn)?;
    }
    Ok(())
}

fn check_turn(turn: &EvalTurn, agent: &Agent) -> Result<(), String> {
    for e in &turn.expect {
        let Expected::Call {
            name,
            args,
            args_contain,
        } = e
        else {
            continue;
        };
        let declared =
            declared_args(name, agent).ok_or_else(|| format!("`expect`: no tool {name:?}"))?;
        if let Some(k) = args
            .keys()
            .chain(args_contain.keys())
            .find(|k| !declared.contains(k))
        {
            return Err(format!(
                "`expect`: {name} has no argument {k:?} (it takes: {})",
                declared.join(", ")
            ));
        }
    }
    Ok(())
}

/// The engine and its vocabulary (for reply lengths), loaded once for a whole run.
#[derive(Debug)]
pub struct EvalModel {
    engine: Option<Engine>,
    tokenizer: Tokenizer,
    label: String,
}

impl EvalModel {
    /// Resolve `--model ID|PATH` (default: the manifest's default; never fetched here) and
    /// load it with the manifest's chat format and context, `threads` CPU threads, one KV
    /// sequence, no head snapshots on disk and no idle-time anticipation (see the module's
    /// design decisions).
    ///
    /// # Errors
    /// [`EvalError::Model`] when the file is missing or its vocabulary does not load,
    /// [`EvalError::Engine`] when the engine does not.
    pub fn open(id_or_path: Option<&str>, threads: Option<u32>) -> Result<Self, EvalError> {
        let model =
            crate::resolve_model(id_or_path).map_err(|e| EvalError::Model(e.to_string()))?;
        let config = RuntimeConfig {
            threads,
            head_snapshots: false,
            ..RuntimeConfig::default()
        };
        let mut params =
            porfiry_runtime::engine_params(&config, model.spec.as_ref(), model.sha256.clone());
        params.anticipate = false;
        let engine =
            crate::load_engine(&model, params).map_err(|e| EvalError::Engine(e.to_string()))?;
        let tokenizer =
            Tokenizer::load(&model.path, Some(engine.info().chat_format)).map_err(|e| {
                EvalError::Model(format!("vocabulary of {}: {e}", model.path.display()))
            })?;
        Ok(Self {
            engine: Some(engine),
            tokenizer,
            label: model.given,
        })
    }

    /// The model as named (`--model`, else the manifest's default id).
    pub fn label(&self) -> &str {
        &self.label
    }

    /// The engine (`None` only if a run failed half-way and lost it).
    pub fn engine(&self) -> Option<&Engine> {
        self.engine.as_ref()
    }
}

/// One finished case, for progress lines.
#[derive(Debug, Clone, Copy)]
pub struct CaseDone<'a> {
    /// The variant it ran under.
    pub variant: &'a str,
    /// Case runs finished so far, this one included.
    pub done: usize,
    /// Case runs in all.
    pub total: usize,
    /// Its result.
    pub result: &'a CaseResult,
}

/// Run `plan` on `model`: every variant over every file, each case in a fresh session;
/// `on_case` hears each result as it comes.
///
/// # Errors
/// [`EvalError::Engine`] when the engine cannot prepare a head or end a session. A case whose
/// generation fails is a result ([`FirstAction::NoOutput`]), not an error.
pub fn run_eval(
    plan: EvalPlan,
    model: &mut EvalModel,
    on_case: &mut dyn FnMut(CaseDone<'_>),
) -> Result<EvalReport, EvalError> {
    let engine_error = |e: String| EvalError::Engine(e);
    let info = model
        .engine
        .as_ref()
        .map(|e| serde_json::to_value(e.info()).unwrap_or_default())
        .ok_or_else(|| engine_error("the engine was lost by an earlier run".into()))?;
    let total = plan.total();
    // The catalog's declarations stay until every file has run.
    let _catalog_toolsets = plan.catalog_toolsets;
    let mut done = 0;
    let mut variants = Vec::new();
    for (variant, per_file) in plan.runs {
        let mut cases = Vec::new();
        for (file, (setup, agent)) in plan.files.iter().zip(per_file) {
            let engine = model
                .engine
                .take()
                .ok_or_else(|| engine_error("the engine was lost".into()))?;
            let mut runtime = Runtime::from_parts(
                agent,
                Backend::Engine(EngineModel::new(engine, setup.generate.clone())),
                DEFAULT_TOOL_TIMEOUT,
            );
            register_stand_ins(&mut runtime, &file.tool_results);
            for (name, values) in &file.values {
                runtime.agent_mut().set_values(name, values.clone());
            }
            let catalog = if setup.catalog {
                match attach_fresh_catalog(&mut runtime, &setup) {
                    Ok(tmp) => Some(tmp),
                    Err(reason) => {
                        if let Backend::Engine(m) = runtime.into_backend() {
                            model.engine = Some(m.into_engine());
                        }
                        return Err(EvalError::Load {
                            path: file.path.clone(),
                            variant: variant.name.to_string(),
                            reason,
                        });
                    }
                }
            } else {
                None
            };
            let result = run_file(
                &mut runtime,
                file,
                &model.tokenizer,
                plan.options,
                &mut |r| {
                    done += 1;
                    on_case(CaseDone {
                        variant: variant.name,
                        done,
                        total,
                        result: &r,
                    });
                    cases.push(r);
                },
            );
            if let Backend::Engine(m) = runtime.into_backend() {
                model.engine = Some(m.into_engine());
            }
            drop(catalog);
            result?;
        }
        let by_file = plan
            .files
            .iter()
            .map(|f| {
                let label = f.label();
                let totals = Totals::of(cases.iter().filter(|c| c.file == label));
                (label, totals)
            })
            .collect::<BTreeMap<_, _>>();
        variants.push(VariantReport {
            variant: variant.name.to_string(),
            about: variant.about.to_string(),
            totals: Totals::of(&cases),
            by_file,
            cases,
        });
    }
    Ok(EvalReport {
        model: info,
        files: plan.files.iter().map(EvalFile::label).collect(),
        variants,
    })
}

fn register_stand_ins(runtime: &mut Runtime, stand_ins: &BTreeMap<String, StandIn>) {
    for (tool, stand_in) in stand_ins {
        let reply = stand_in.clone();
        runtime.register_executor(
            ExecutorTarget::Tool(tool.clone()),
            Arc::new(move |_: &ToolInvocation<'_>| reply.reply()),
        );
    }
}

fn run_file(
    runtime: &mut Runtime,
    file: &EvalFile,
    tokenizer: &Tokenizer,
    options: EvalOptions,
    on_result: &mut dyn FnMut(CaseResult),
) -> Result<(), EvalError> {
    runtime
        .warm_up()
        .map_err(|e| EvalError::Engine(format!("preparing the head: {e}")))?;
    for case in &file.cases {
        run_case(runtime, file, case, tokenizer, options, on_result)?;
    }
    Ok(())
}

/// Run one case in a fresh session: its turns in order, the history carried over; each
/// turn's result goes to `on_result` as it comes. The session is ended after the last turn.
fn run_case(
    runtime: &mut Runtime,
    file: &EvalFile,
    case: &EvalCase,
    tokenizer: &Tokenizer,
    options: EvalOptions,
    on_result: &mut dyn FnMut(CaseResult),
) -> Result<(), EvalError> {
    let session = format!("eval-{}", case.index);
    let bad = |reason: String| EvalError::BadCase {
        path: file.path.clone(),
        case: case.index,
        user: Some(case.user().to_string()),
        reason,
    };
    for set in &case.active {
        runtime
            .agent_mut()
            .enable_toolset(&session, set)
            .map_err(|e| bad(e.to_string()))?;
    }
    for (i, turn) in case.turns.iter().enumerate() {
        let result = run_turn(runtime, file, case, (i, turn), &session, tokenizer, options)
            .map_err(|e| match case.conversation {
                true => bad(format!("turn {}: {e}", i + 1)),
                false => bad(e.to_string()),
            })?;
        on_result(result);
    }
    runtime
        .end_session(&session)
        .map_err(|e| EvalError::Engine(format!("ending a session: {e}")))?;
    Ok(())
}

/// Run one turn of `case` in `session` and score it.
fn run_turn(
    runtime: &mut Runtime,
    file: &EvalFile,
    case: &EvalCase,
    (i, turn): (usize, &EvalTurn),
    session: &str,
    tokenizer: &Tokenizer,
    options: EvalOptions,
) -> Result<CaseResult, porfiry_agent::AgentError> {
    let whole = options.whole_turns || case.conversation || turn.checks_reply();
    let cancel = CancelToken::new();
    let started = Instant::now();
    let (agent, inner) = runtime.parts();
    let switched: Arc<Mutex<Option<String>>> = Arc::default();
    let mut model = FirstRecorder {
        inner,
        first: None,
        cut: (!whole).then(|| cancel.clone()),
        switched: Arc::clone(&switched),
    };
    let outcome = if options.routes_only {
        let (route, decided) = agent.decide(session, &turn.user, &mut model);
        // The route as the first generation would begin: a call line, or plain text.
        // A conversational intent is answered with plain text.
        let line = match route.as_ref().and_then(|r| r.target.as_ref()) {
            Some(t) if porfiry_agent::Intent::from_target(t).is_none() => format!("TOOL_CALL: {t}"),
            _ => "(plain reply)".to_string(),
        };
        model.first = Some(Ok(line));
        routed_outcome(route, decided)
    } else {
        // A decided toolset switch asks nothing of the model, yet it is the turn's first
        // action when it comes before the first model call: recorded as its call line.
        let out = agent.turn(session, &turn.user, &mut model, &cancel, &mut |e| {
            let line = match e {
                AgentEvent::ToolsetEnabled { name } => format!("TOOL_CALL: enable_toolset|{name}"),
                AgentEvent::ToolsetDisabled {
                    name,
                    expired: false,
                } => format!("TOOL_CALL: disable_toolset|{name}"),
                _ => return,
            };
            if let Ok(mut s) = switched.lock() {
                s.get_or_insert(line);
            }
        })?;
        if model.first.is_none() {
            model.first = switched.lock().ok().and_then(|mut s| s.take()).map(Ok);
        }
        out
    };
    let stats = TurnStats::of(&outcome, started.elapsed().as_secs_f64() * 1000.0);
    let first = model.first;
    let (action, first_output) = match first {
        Some(Ok(text)) => (first_action(&text, runtime.agent()), text),
        Some(Err(error)) => (FirstAction::NoOutput { error }, String::new()),
        // Answered without a model call (from the message texts, computed, a question asked
        // before acting or the reply to a no): plain text.
        None if outcome.stop == TurnStop::Answered => {
            let action = match (&outcome.asked_for, &outcome.out_of_range) {
                (Some(name), _) => FirstAction::AskedFor { name: name.clone() },
                (None, Some(name)) => FirstAction::OutOfRange { name: name.clone() },
                (None, None) => FirstAction::Text,
            };
            (action, outcome.reply.clone())
        }
        None => (
            FirstAction::NoOutput {
                error: format!("no generation ({:?})", outcome.stop),
            },
            String::new(),
        ),
    };
    let score = score_turn(turn, &action);
    // The reply to judge: the turn's final reply, unless the turn stopped after a call (or
    // only routed).
    let judged_reply = match action {
        _ if options.routes_only => None,
        FirstAction::Text => Some(outcome.reply.as_str()),
        FirstAction::Call { .. } if whole => Some(outcome.reply.as_str()),
        _ => None,
    };
    let reply = judge_turn(turn, &action, &score, judged_reply, file.lang);
    let calls_ok = (!turn.calls.is_empty() && !options.routes_only).then(|| {
        let executed: Vec<(String, serde_json::Value)> = outcome
            .executed
            .iter()
            .map(|e| (e.name.clone(), e.args.to_json()))
            .collect();
        calls_match(&turn.calls, &executed)
    });
    Ok(CaseResult {
        file: file.label(),
        case: case.index,
        turn_index: i + 1,
        turns: case.turns.len(),
        conversation: case.conversation,
        follow_up: case.follow_up(i),
        user: turn.user.clone(),
        lang: file.lang,
        active: case.active.clone(),
        expected: turn.expect.iter().map(ToString::to_string).collect(),
        first_action: action,
        first_output,
        correct: score.correct,
        name_correct: score.name_correct,
        false_call: score.false_call,
        malformed: score.malformed,
        turn: if whole {
            TurnScope::Whole
        } else {
            TurnScope::FirstGeneration
        },
        stop: outcome.stop.clone(),
        reply_tokens: tokenizer.count(&outcome.reply),
        reply: outcome.reply.clone(),
        turn_ok: reply.reply_ok.map(|ok| ok && score.correct),
        reply_ok: reply.reply_ok,
        matches_ok: reply.matches_ok,
        verdict: reply.verdict,
        judged: reply.judged && calls_ok != Some(false),
        calls_ok,
        executed: outcome.executed.iter().map(|e| e.name.clone()).collect(),
        asked: outcome.asked.clone(),
        route: outcome.route.clone(),
        declined: outcome.declined,
        unsure: outcome.unsure,
        confidence: outcome.confidence,
        stats,
    })
}

/// The outcome of a turn that only routed (`--routes-only`): nothing generated or run; its
/// reply is what the turn decides before the model writes ([`porfiry_agent::Agent::decide`]:
/// a decided call line, a question), empty when the model would write the first action.
fn routed_outcome(route: Option<Route>, decided: Option<String>) -> TurnOutcome {
    TurnOutcome {
        stop: TurnStop::Answered,
        route,
        reply: decided.unwrap_or_default(),
        ..TurnOutcome::new()
    }
}

/// The runtime's model, recording the first generation's text; with `cut`, that token is
/// cancelled once the first generation is done, so the agent dispatches its calls and stops
/// before the next model call.
struct FirstRecorder<'m> {
    inner: &'m mut (dyn Model + Send),
    first: Option<Result<String, String>>,
    cut: Option<CancelToken>,
    /// The call line of a toolset switch the turn made without the model, if any.
    switched: Arc<Mutex<Option<String>>>,
}

impl<'m> ModelWrapper for FirstRecorder<'m> {
    type Inner = dyn Model + Send + 'm;

    fn inner(&self) -> &Self::Inner {
        &*self.inner
    }

    fn inner_mut(&mut self) -> &mut Self::Inner {
        &mut *self.inner
    }

    fn wrapped_generate(
        &mut self,
        request: &ModelRequest<'_>,
        on_text: &mut dyn FnMut(&str),
    ) -> Result<Generation, ModelError> {
        if self.first.is_none() {
            // A switch before the first model call was the first action.
            let switch = self.switched.lock().ok().and_then(|s| s.clone());
            if let Some(line) = switch {
                self.first = Some(Ok(line));
                if let Some(cut) = &self.cut {
                    cut.cancel();
                }
            }
        }
        let result = self.inner.generate(request, on_text);
        if self.first.is_none() {
            self.first = Some(match &result {
                Ok(g) => Ok(g.text.clone()),
                Err(e) => Err(e.to_string()),
            });
            if let Some(cut) = &self.cut {
                cut.cancel();
            }
        }
        result
    }
}
