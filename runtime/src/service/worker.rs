//! The worker thread: it warms the head up, then serves the job queue in order — turns
//! (their events to the turn's sink, panics caught), toolset registrations, prompts,
//! partial-transcript hints, session ends — until the shutdown `close` queued behind every
//! job.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use crossbeam_channel::Receiver;
use porfiry_agent::{AgentEvent, CancelToken, TurnStop};

use crate::host_tools::panic_message;
use crate::runtime::Runtime;
use crate::sentences::SentenceSplitter;

use super::events::{cancelled_before_start_json, done_json, merged_json, EventSink, ServiceEvent};
use super::queue::{lock, ServiceJob, Shared};

pub(super) fn worker_loop(mut runtime: Runtime, rx: Receiver<ServiceJob>, shared: Arc<Shared>) {
    // Before the first job: the static head every session starts with (restored from its
    // KV snapshot when the engine keeps one), so the first utterance prefills only itself.
    // A model that cannot prepare it works the same without.
    let _ = catch_unwind(AssertUnwindSafe(|| runtime.warm_up()));
    for job in rx {
        match job {
            ServiceJob::Shutdown => break,
            ServiceJob::Register {
                toolset,
                host,
                timeout,
            } => {
                // A set with an executor now shows in the prompt: the head changed with it.
                let hidden = runtime.agent().hidden_toolsets();
                runtime.register_host_toolset(&toolset, host, timeout);
                if runtime.agent().hidden_toolsets() != hidden {
                    let _ = catch_unwind(AssertUnwindSafe(|| runtime.warm_up()));
                }
            }
            ServiceJob::HearPartial { session, text, seq } => {
                if hint_is_current(&shared, seq) {
                    let _ =
                        catch_unwind(AssertUnwindSafe(|| runtime.hear_partial(&session, &text)));
                }
            }
            ServiceJob::Prompt { session, reply } => {
                let text = prompt_text(&mut runtime, &session);
                lock(&shared.prompts).insert(session, text.clone());
                let _ = reply.send(text);
            }
            ServiceJob::EndSession { session } => {
                lock(&shared.prompts).remove(&session);
                let ended = catch_unwind(AssertUnwindSafe(|| runtime.end_session(&session)));
                let counter = match ended {
                    Ok(Ok(_)) => &shared.counters.sessions_ended,
                    _ => &shared.counters.end_session_failures,
                };
                counter.fetch_add(1, Ordering::Relaxed);
            }
            ServiceJob::CacheReport { reply } => {
                let report = catch_unwind(AssertUnwindSafe(|| runtime.cache_report()))
                    .ok()
                    .and_then(Result::ok)
                    .flatten()
                    .and_then(|r| serde_json::to_value(r).ok());
                let _ = reply.send(report);
            }
            ServiceJob::Trim { level, reply } => {
                let report = catch_unwind(AssertUnwindSafe(|| runtime.trim(level)))
                    .ok()
                    .and_then(Result::ok)
                    .flatten()
                    .and_then(|r| serde_json::to_value(r).ok());
                let _ = reply.send(report);
            }
            ServiceJob::Turn {
                id,
                session,
                text,
                mut sink,
                cancel,
            } => {
                let merged_into = {
                    let mut pending = lock(&shared.pending);
                    let me = pending.iter_mut().find(|p| p.id == id);
                    me.and_then(|p| {
                        p.started = true;
                        p.merged_into
                    })
                };
                if let Some(into) = merged_into {
                    shared.counters.turns.fetch_add(1, Ordering::Relaxed);
                    shared.counters.merged.fetch_add(1, Ordering::Relaxed);
                    if !sink.deliver(ServiceEvent::Done(merged_json(into))) {
                        shared
                            .counters
                            .listener_errors
                            .fetch_add(1, Ordering::Relaxed);
                    }
                    lock(&shared.pending).retain(|p| p.id != id);
                    drop(sink);
                    continue;
                }
                run_turn(
                    &mut runtime,
                    &shared,
                    &session,
                    &text,
                    sink.as_mut(),
                    &cancel,
                );
                lock(&shared.pending).retain(|p| p.id != id);
                // The sink (a Java global reference in the bridge) is released here, on the
                // worker thread.
                drop(sink);
            }
        }
    }
}

/// Whether the hint queued as `seq` is still worth the model's time: it is the newest hint,
/// no turn waits in the queue (its reply comes first, and a turn of the hint's own session
/// decodes those words itself) and the service is not closing. A flood of hints thus costs
/// the worker one at a time, never a queue of stale ones ahead of a turn or of the shutdown.
fn hint_is_current(shared: &Shared, seq: u64) -> bool {
    !shared.closing.load(Ordering::SeqCst)
        && shared.latest_hint.load(Ordering::SeqCst) == seq
        && lock(&shared.pending).is_empty()
}

fn prompt_text(runtime: &mut Runtime, session: &str) -> String {
    catch_unwind(AssertUnwindSafe(|| {
        runtime.prompt(session).text().to_string()
    }))
    .unwrap_or_else(|_| "(internal error while building the prompt)".to_string())
}

fn run_turn(
    runtime: &mut Runtime,
    shared: &Shared,
    session: &str,
    text: &str,
    sink: &mut dyn EventSink,
    cancel: &CancelToken,
) {
    let counters = &shared.counters;
    let deliver = |sink: &mut dyn EventSink, event: ServiceEvent| {
        if !sink.deliver(event) {
            counters.listener_errors.fetch_add(1, Ordering::Relaxed);
        }
    };
    counters.turns.fetch_add(1, Ordering::Relaxed);
    if shared.closing.load(Ordering::SeqCst) {
        counters.failed.fetch_add(1, Ordering::Relaxed);
        deliver(
            sink,
            ServiceEvent::Error("the assistant was closed before this turn ran".into()),
        );
        return;
    }
    if cancel.is_cancelled() {
        // Cancelled while queued: the turn never reaches the history.
        counters.cancelled.fetch_add(1, Ordering::Relaxed);
        deliver(sink, ServiceEvent::Done(cancelled_before_start_json()));
        return;
    }
    let mut splitter = SentenceSplitter::new();
    let result = {
        let mut on_event = |event: AgentEvent| match event {
            AgentEvent::Text(t) => {
                let sentences = splitter.push(&t);
                deliver(sink, ServiceEvent::Text(t));
                for s in sentences {
                    deliver(sink, ServiceEvent::Sentence(s));
                }
            }
            AgentEvent::ToolStarted { name, args } => {
                // Whatever was said before a tool call is spoken now, not after the tool.
                if let Some(rest) = splitter.finish() {
                    deliver(sink, ServiceEvent::Sentence(rest));
                }
                deliver(
                    sink,
                    ServiceEvent::ToolStarted {
                        name,
                        args: args.to_string(),
                    },
                );
            }
            AgentEvent::ToolFinished { name, result, ok } => {
                deliver(sink, ServiceEvent::ToolFinished { name, result, ok });
            }
            AgentEvent::ShowText(t) => deliver(sink, ServiceEvent::ShowText(t)),
            AgentEvent::Generation { .. }
            | AgentEvent::ToolsetEnabled { .. }
            | AgentEvent::ToolsetDisabled { .. } => {}
        };
        catch_unwind(AssertUnwindSafe(|| {
            runtime.turn(session, text, cancel, &mut on_event)
        }))
    };
    if let Some(rest) = splitter.finish() {
        deliver(sink, ServiceEvent::Sentence(rest));
    }
    lock(&shared.prompts).insert(session.to_string(), prompt_text(runtime, session));
    let final_event = match result {
        Ok(Ok(turn)) => match &turn.outcome.stop {
            TurnStop::ModelError(msg) => {
                counters.failed.fetch_add(1, Ordering::Relaxed);
                ServiceEvent::Error(format!("model error: {msg}"))
            }
            stop => {
                if *stop == TurnStop::Cancelled || cancel.is_cancelled() {
                    counters.cancelled.fetch_add(1, Ordering::Relaxed);
                }
                let done = done_json(&turn.outcome, cancel.is_cancelled(), &turn.stats);
                *lock(&shared.last_turn) = done.clone();
                ServiceEvent::Done(done)
            }
        },
        Ok(Err(e)) => {
            counters.failed.fetch_add(1, Ordering::Relaxed);
            ServiceEvent::Error(e.to_string())
        }
        Err(panic) => {
            counters.failed.fetch_add(1, Ordering::Relaxed);
            // The turn could not close itself: close it, so the session goes on without
            // two user messages in a row.
            let _ = catch_unwind(AssertUnwindSafe(|| {
                runtime.agent_mut().close_open_turn(session)
            }));
            ServiceEvent::Error(format!("internal error: {}", panic_message(&panic)))
        }
    };
    deliver(sink, final_event);
}
