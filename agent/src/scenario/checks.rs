//! The checks of a scenario: what every turn must leave ([`check_turn_shape`]) and what a
//! step's [`Expect`] asks of the state it observes ([`check`], [`check_catalog`]).

use std::collections::BTreeMap;

use super::host::ScenarioCatalog;
use super::schema::Expect;
use crate::agent::{render_history, TurnOutcome, TurnStop};
use crate::scripted::RecordedRequest;

/// What every turn must leave: a history whose last message is the assistant's and in
/// which no two user messages follow each other.
pub(super) fn check_turn_shape(history: &[crate::model::Message]) -> Result<(), String> {
    use crate::model::Role;
    if let Some(i) = history
        .windows(2)
        .position(|w| w[0].role == Role::User && w[1].role == Role::User)
    {
        return Err(format!(
            "two user messages in a row at {i}:\n{}",
            render_history(history)
        ));
    }
    match history.last() {
        Some(m) if m.role == Role::Assistant => Ok(()),
        _ => Err(format!(
            "the turn left no assistant message at the end:\n{}",
            render_history(history)
        )),
    }
}

/// The requests models received in a scenario: the last one, and each `user` step's last
/// (by 1-based step number; `None` for a turn that sent none).
#[derive(Default)]
pub(super) struct Requests {
    /// The last request a model received.
    pub(super) last: Option<RecordedRequest>,
    /// Each `user` step's last request, by 1-based step number.
    pub(super) by_step: BTreeMap<usize, Option<RecordedRequest>>,
}

impl Requests {
    /// The last request of step `n`.
    fn of_step(&self, n: usize) -> Result<&RecordedRequest, String> {
        match self.by_step.get(&n) {
            Some(Some(r)) => Ok(r),
            Some(None) => Err(format!("step {n} sent no request")),
            None => Err(format!("step {n} is not an earlier `user` step")),
        }
    }
}

/// A request as text: `system: …` and then its messages as [`render_history`] shows them.
fn render_request(r: &RecordedRequest) -> String {
    format!("system: {}\n{}", r.system, render_history(&r.messages))
}

/// The checks of one expectation on the last request (`request_*`).
fn check_request(requests: &Requests, e: &Expect) -> Result<(), String> {
    let asks = !e.request_contains.is_empty()
        || !e.request_excludes.is_empty()
        || e.request_as_in_step.is_some()
        || e.request_extends_step.is_some();
    if !asks {
        return Ok(());
    }
    let last = requests
        .last
        .as_ref()
        .ok_or("no request was made yet".to_string())?;
    let text = render_request(last);
    contains_all("request", &text, &e.request_contains)?;
    excludes_all("request", &text, &e.request_excludes)?;
    if let Some(n) = e.request_as_in_step {
        let earlier = requests.of_step(n)?;
        if (&earlier.system, &earlier.messages) != (&last.system, &last.messages) {
            return Err(format!(
                "the request differs from step {n}'s:\n{}\n--- vs ---\n{text}",
                render_request(earlier)
            ));
        }
    }
    if let Some(n) = e.request_extends_step {
        let earlier = requests.of_step(n)?;
        if earlier.system != last.system || !last.messages.starts_with(&earlier.messages) {
            return Err(format!(
                "the request does not begin with step {n}'s:\n{}\n--- vs ---\n{text}",
                render_request(earlier)
            ));
        }
    }
    Ok(())
}

fn contains_all(what: &str, text: &str, wanted: &[String]) -> Result<(), String> {
    for w in wanted {
        if !text.contains(w.as_str()) {
            return Err(format!("{what} lacks {w:?}; it is {text:?}"));
        }
    }
    Ok(())
}

fn excludes_all(what: &str, text: &str, unwanted: &[String]) -> Result<(), String> {
    for w in unwanted {
        if text.contains(w.as_str()) {
            return Err(format!("{what} contains {w:?}; it is {text:?}"));
        }
    }
    Ok(())
}

/// What a step's expectation is checked against: the current session after the step, the
/// last turn and the requests made so far.
pub(super) struct Observed<'a> {
    /// The session's active toolsets (sorted, as the agent reports them).
    pub(super) active: Vec<String>,
    /// The session's next prompt.
    pub(super) prompt: String,
    /// The session's history, rendered ([`render_history`]).
    pub(super) history: String,
    /// The last user turn of the scenario; `None` before the first.
    pub(super) last: Option<&'a TurnOutcome>,
    /// The requests models received so far.
    pub(super) requests: &'a Requests,
}

/// The checks of one expectation that do not need a catalog; `Err` names the first that
/// failed.
pub(super) fn check(o: &Observed<'_>, e: &Expect) -> Result<(), String> {
    if let Some(want) = &e.active {
        let mut want: Vec<String> = want.iter().map(|s| s.trim().to_lowercase()).collect();
        want.sort();
        let got = &o.active;
        if *got != want {
            return Err(format!("active toolsets are {got:?}, expected {want:?}"));
        }
    }
    contains_all("prompt", &o.prompt, &e.prompt_contains)?;
    excludes_all("prompt", &o.prompt, &e.prompt_excludes)?;
    contains_all("history", &o.history, &e.history_contains)?;
    excludes_all("history", &o.history, &e.history_excludes)?;
    let empty = TurnOutcome {
        stop: TurnStop::Answered,
        ..TurnOutcome::new()
    };
    let last = o.last.unwrap_or(&empty);
    for w in &e.tool_results_contains {
        if !last
            .tool_replies
            .iter()
            .any(|r| r.text.contains(w.as_str()))
        {
            let all: Vec<&str> = last.tool_replies.iter().map(|r| r.text.as_str()).collect();
            return Err(format!("no tool reply contains {w:?}; replies: {all:?}"));
        }
    }
    contains_all("reply", &last.reply, &e.reply_contains)?;
    excludes_all("reply", &last.reply, &e.reply_excludes)?;
    contains_all("streamed text", &last.streamed, &e.streamed_contains)?;
    let lower = last.streamed.to_lowercase();
    for w in &e.streamed_excludes {
        if lower.contains(&w.to_lowercase()) {
            return Err(format!("streamed text contains {w:?}: {:?}", last.streamed));
        }
    }
    if let Some(want) = &e.executed {
        let got: Vec<&str> = last.executed.iter().map(|x| x.name.as_str()).collect();
        if got != want.iter().map(String::as_str).collect::<Vec<_>>() {
            return Err(format!("executed {got:?}, expected {want:?}"));
        }
    }
    if let Some(want) = &e.shown {
        if &last.shown != want {
            return Err(format!("shown {:?}, expected {want:?}", last.shown));
        }
    }
    if let Some(want) = &e.stop {
        let got = last.stop.name();
        if got != want.trim() {
            return Err(format!("the turn stopped as {got}, expected {want}"));
        }
    }
    if let Some(want) = e.interrupted {
        if last.interrupted != want {
            return Err(format!(
                "interrupted is {}, expected {want}",
                last.interrupted
            ));
        }
    }
    contains_all(
        "notice",
        last.notice.as_deref().unwrap_or_default(),
        &e.notice_contains,
    )?;
    if let Some(want) = e.reminders {
        if last.reminders != want {
            return Err(format!("{} reminder(s), expected {want}", last.reminders));
        }
    }
    for (what, want, got) in [
        ("run reminder(s)", e.run_reminders, last.run_reminders),
        (
            "finish reminder(s)",
            e.finish_reminders,
            last.finish_reminders,
        ),
        ("host note(s)", e.notes, last.notes),
    ] {
        if want.is_some_and(|w| w != got) {
            return Err(format!("{got} {what}, expected {}", want.unwrap_or(0)));
        }
    }
    if let Some(want) = e.compactions {
        let got = last.context.compactions;
        if got != want {
            return Err(format!(
                "the last turn compacted {got} time(s), expected {want}; {:?}",
                last.context
            ));
        }
    }
    check_request(o.requests, e)
}

/// The catalog checks of one expectation (`run`, `proposals`).
pub(super) fn check_catalog(
    catalog: Option<&dyn ScenarioCatalog>,
    session: &str,
    e: &Expect,
) -> Result<(), String> {
    if e.run.is_none() && e.proposals.is_none() {
        return Ok(());
    }
    let c = catalog.ok_or("`run` and `proposals` need `catalog:`".to_string())?;
    if let Some(want) = &e.run {
        let got = c.run(session);
        if let Some(status) = &want.status {
            let got_status = got.as_ref().map_or("none", |(s, _)| s.as_str());
            if got_status != status.trim() {
                return Err(format!("the run is {got_status}, expected {status}"));
            }
        }
        if let Some(open) = want.open_steps {
            let got_open = got.as_ref().map(|(_, n)| *n);
            if got_open != Some(open) {
                return Err(format!("open steps {got_open:?}, expected {open}"));
            }
        }
    }
    if let Some(want) = &e.proposals {
        let got = c.proposals();
        for (what, w, g) in [
            ("pending", want.pending, got.pending),
            ("accepted", want.accepted, got.accepted),
            ("rejected", want.rejected, got.rejected),
        ] {
            if w.is_some_and(|w| w != g) {
                return Err(format!(
                    "{g} {what} proposal(s), expected {}; {got:?}",
                    w.unwrap_or(0)
                ));
            }
        }
        if let Some(part) = &want.error_contains {
            let error = got.error.as_deref().unwrap_or_default();
            if !error.contains(part.as_str()) {
                return Err(format!(
                    "the pending proposal's error is {error:?}, expected {part:?}"
                ));
            }
        }
    }
    Ok(())
}
