//! Running a parsed scenario: the agent loaded as the file says, each step's session,
//! clock, decision and turn on a [`ScriptedModel`], then its checks ([`super::checks`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::checks::{check, check_catalog, check_turn_shape, Observed, Requests};
use super::host::{CatalogFactory, ScenarioDefaults, TimedTools};
use super::schema::Scenario;
use crate::agent::{merged_input, render_history, Agent, AgentConfig, TurnOutcome, TurnStop};
use crate::clock::{parse_duration, Clock, ManualClock};
use crate::model::CancelToken;
use crate::scripted::ScriptedModel;
use crate::tools::{ExecutorTarget, ToolExecutor, ToolInvocation};

/// Run a parsed scenario; `base` resolves its relative paths. `Err` says why it failed.
pub fn run_scenario(sc: &Scenario, base: &Path, defaults: &ScenarioDefaults) -> Result<(), String> {
    let resolve = |dirs: &Option<Vec<PathBuf>>, default: &Vec<PathBuf>| match dirs {
        Some(d) => d.iter().map(|p| base.join(p)).collect::<Vec<_>>(),
        None => default.clone(),
    };
    let skills = resolve(&sc.skills, &defaults.skills);
    let mut toolsets = resolve(&sc.toolsets, &defaults.toolsets);
    let catalog = match (&sc.catalog, &defaults.catalog) {
        (None, _) => None,
        (Some(_), None) => {
            return Err(
                "`catalog` needs a host with a catalog (run it from the runtime's tests)".into(),
            )
        }
        (Some(docs), Some(CatalogFactory(open))) => {
            let docs: Vec<PathBuf> = docs.iter().map(|p| base.join(p)).collect();
            let catalog = open(&docs, sc.lang).map_err(|e| format!("catalog: {e}"))?;
            toolsets.extend(catalog.toolset_dirs());
            Some(catalog)
        }
    };
    let clock = ManualClock::parse(sc.clock.as_deref().unwrap_or("2026-01-01T00:00:00+00:00"))
        .map_err(|e| format!("bad clock: {e}"))?;
    let mut config = AgentConfig {
        lang: sc.lang,
        direct_execution: sc.direct_execution,
        ..AgentConfig::default()
    };
    config
        .guidance
        .set(crate::Technique::HideUnexecutable, sc.hide_unexecutable);
    if let Some(n) = sc.max_iterations {
        config.max_iterations = n;
    }
    if let Some(n) = sc.reminder_after {
        config.reminder_after = Some(n);
    }
    if !sc.tool_hangs.is_empty() && defaults.timed_tools.is_none() {
        return Err(
            "`tool_hangs` needs a host that times its tools (run it from the runtime's tests)"
                .into(),
        );
    }
    let default_budget = config.turn_budget;
    if let Some(t) = &sc.toolset_timeout {
        config.toolset_timeout = parse_duration(t).map_err(|e| e.to_string())?;
    }
    let shared: Arc<dyn Clock> = Arc::new(clock.clone());
    let loaded = Agent::load(config, &skills, &toolsets, shared);
    if loaded.has_errors() {
        let errors: Vec<String> = loaded
            .diagnostics
            .iter()
            .filter(|d| d.severity() == crate::diag::Severity::Error)
            .map(|d| d.to_string())
            .collect();
        return Err(format!("loading failed: {}", errors.join("; ")));
    }
    let mut agent = loaded.value;
    let timed = |e: Arc<dyn ToolExecutor>| match &defaults.timed_tools {
        Some(TimedTools(wrap)) => wrap(e, sc.lang),
        None => e,
    };
    for (tool, stand_in) in &sc.tool_results {
        let reply = stand_in.clone();
        agent.register_executor(
            ExecutorTarget::Tool(tool.clone()),
            timed(Arc::new(move |_: &ToolInvocation<'_>| reply.reply())),
        );
    }
    if let Some(c) = &catalog {
        c.attach(&mut agent, &timed);
    }
    for tool in &sc.tool_hangs {
        agent.register_executor(
            ExecutorTarget::Tool(tool.clone()),
            timed(Arc::new(|_: &ToolInvocation<'_>| loop {
                // Never returns: the host's timeout must answer for it.
                std::thread::park();
            })),
        );
    }

    let mut session = "default".to_string();
    let mut last: Option<TurnOutcome> = None;
    let mut requests = Requests::default();
    for (i, step) in sc.steps.iter().enumerate() {
        let at = |msg: String| format!("step {}: {msg}", i + 1);
        if let Some(s) = &step.session {
            if s.trim().is_empty() {
                return Err(at("empty session name".into()));
            }
            session = s.clone();
        }
        if let Some(a) = &step.advance {
            clock.advance(parse_duration(a).map_err(|e| at(e.to_string()))?);
        }
        if let Some(d) = &step.decide {
            let c = catalog
                .as_ref()
                .ok_or_else(|| at("`decide` needs `catalog:`".into()))?;
            match (c.decide(&d.proposal, d.action), &d.refused) {
                (Ok(()), None) => {}
                (Err(e), Some(want)) if e.contains(want.as_str()) => {}
                (Ok(()), Some(want)) => {
                    return Err(at(format!(
                        "the decision was not refused ({want:?} expected)"
                    )))
                }
                (Err(e), _) => return Err(at(format!("the decision was refused: {e}"))),
            }
        }
        let user = match (&step.user, &step.queue) {
            (Some(_), Some(_)) => return Err(at("`user` and `queue` in one step".into())),
            (Some(u), None) => Some(u.clone()),
            (None, Some(q)) => Some(merged_input(q)),
            (None, None) => None,
        };
        match (&user, &step.model) {
            (Some(user), outputs) => {
                let outputs = outputs.clone().unwrap_or_default();
                let given = outputs.len();
                let mut model = ScriptedModel::new(outputs);
                if let Some(n) = sc.context {
                    model = model.with_context(n, sc.reply_tokens.unwrap_or(n / 4));
                }
                if let Some(t) = &step.takes {
                    let each = parse_duration(t).map_err(|e| at(e.to_string()))?;
                    model = model.taking(clock.clone(), each);
                }
                let budget = match step.deadline.as_deref().map(str::trim) {
                    None => default_budget,
                    Some("off") => None,
                    Some(d) => Some(parse_duration(d).map_err(|e| at(e.to_string()))?),
                };
                agent.set_turn_budget(budget);
                let cancel = CancelToken::new();
                let mut streamed = 0usize;
                let interrupt = step.interrupt.clone();
                let out = agent
                    .turn(&session, user, &mut model, &cancel, &mut |event| {
                        if let (Some(i), crate::agent::AgentEvent::Text(t)) = (&interrupt, &event) {
                            streamed += t.chars().count();
                            if streamed >= i.after_chars && !cancel.is_cancelled() {
                                cancel.interrupt(i.delivered_chars.unwrap_or(i.after_chars));
                            }
                        }
                    })
                    .map_err(|e| at(e.to_string()))?;
                agent.set_turn_budget(default_budget);
                check_turn_shape(agent.history(&session)).map_err(at)?;
                let step_request = model.requests().last().cloned();
                if step_request.is_some() {
                    requests.last = step_request.clone();
                }
                requests.by_step.insert(i + 1, step_request);
                if let TurnStop::ModelError(e) = &out.stop {
                    if *e == ScriptedModel::exhausted_error().to_string() {
                        return Err(at(format!(
                            "the turn needed more than the {given} model output(s) given"
                        )));
                    }
                    if e.contains("scripted model:") {
                        return Err(at(format!(
                            "the agent sent a request that does not fit: {e}"
                        )));
                    }
                    let expected = step
                        .expect
                        .as_ref()
                        .and_then(|x| x.stop.as_deref())
                        .is_some_and(|stop| stop.trim() == "model_error");
                    if !expected {
                        return Err(at(format!("model error: {e}")));
                    }
                }
                if model.remaining() > 0 {
                    return Err(at(format!(
                        "{} of {given} model output(s) left unused (turn stopped: {})",
                        model.remaining(),
                        out.stop.name()
                    )));
                }
                last = Some(out);
            }
            (None, Some(_)) => return Err(at("`model` without `user`".into())),
            (None, None) => {}
        }
        if let Some(e) = &step.expect {
            let observed = Observed {
                active: agent.active_toolsets(&session),
                prompt: agent.prompt(&session).text().to_string(),
                history: render_history(agent.history(&session)),
                last: last.as_ref(),
                requests: &requests,
            };
            check(&observed, e).map_err(at)?;
            check_catalog(catalog.as_deref(), &session, e).map_err(at)?;
        }
    }
    Ok(())
}
