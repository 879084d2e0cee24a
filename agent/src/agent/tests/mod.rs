//! The agent's unit tests, one file per concern, over one fixture: the media toolset, a
//! `web` set without an executor, three skills, a manual clock and echoing media executors.

use std::path::Path;
use std::sync::Arc;
use std::sync::Mutex;

use super::*;
use crate::call_line::parse_output;
use crate::clock::ManualClock;
use crate::messages::{Lang, Texts};
use crate::model::CancelToken;
use crate::output::ToolCall;
use crate::scripted::ScriptedModel;
use crate::skill::{parse_skill, Skill, SkillRegistry};
use crate::tools::{ExecutorTarget, ToolInvocation};
use crate::toolset::{parse_toolset, ToolsetRegistry, MEDIA_FIXTURE as MEDIA};

mod ask;
mod compact;
mod dispatch;
mod fill;
mod function_gemma;
mod guidance;
mod hook;
mod layout;
mod session;
mod talk;
mod turn;

const WEB: &str = "\
name: web
description: работа в вебе
tools:
  - name: web_open
    description: открыть адрес
    args:
      - {name: url, type: string, required: true}
";

fn skill(text: &str) -> Skill {
    parse_skill(text, Path::new("fixture.md")).unwrap().0
}

/// The design's fixture: media (with executors), web (declared only, yet advertised: the
/// tests of the catalog and of "no executor" replies need it, so hiding is off here; see
/// `guidance.rs` for the hiding itself).
fn fixture_with(mut config: AgentConfig) -> (Agent, ManualClock) {
    config.guidance.set(Technique::HideUnexecutable, false);
    let clock = ManualClock::parse("2026-08-22T10:00:00+03:00").unwrap();
    let skills = SkillRegistry::from_skills([
        skill("---\nname: media\ndescription: фильмы; вызови enable_toolset|media\ntoolset: media\n---\nШаги."),
        skill("---\nname: web\ndescription: сайты\n---\nВеб."),
        skill("---\nname: Корректное выключение\ndescription: как выключаться\n---\nТело."),
    ]);
    let toolsets = ToolsetRegistry::from_toolsets([
        parse_toolset(MEDIA, Path::new("media.yaml")).unwrap(),
        parse_toolset(WEB, Path::new("web.yaml")).unwrap(),
    ]);
    let mut agent = Agent::new(config, skills, toolsets, Arc::new(clock.clone()));
    agent.register_executor(
        ExecutorTarget::Tool("media_search".into()),
        Arc::new(|c: &ToolInvocation<'_>| {
            Ok(format!(
                "1. Tomb Raider (2018) id=tt1365519 [{}]",
                c.args.str("query").unwrap_or("")
            ))
        }),
    );
    agent.register_executor(
        ExecutorTarget::Toolset("media".into()),
        Arc::new(|c: &ToolInvocation<'_>| match c.args.str("action") {
            Some("stop") => Err("nothing is playing".to_string()),
            _ => Ok(format!("{} {}", c.tool, c.args)),
        }),
    );
    (agent, clock)
}

fn fixture() -> (Agent, ManualClock) {
    fixture_with(AgentConfig::default())
}

/// One turn's outcome, its events and the model that played it.
struct Run {
    out: TurnOutcome,
    events: Vec<AgentEvent>,
    model: ScriptedModel,
}

/// A user turn in `session` with these model outputs.
fn turn(agent: &mut Agent, session: &str, user: &str, outputs: &[&str]) -> Run {
    let mut model = ScriptedModel::new(outputs.iter().copied());
    let mut events = Vec::new();
    let out = agent
        .turn(session, user, &mut model, &CancelToken::new(), &mut |e| {
            events.push(e)
        })
        .unwrap();
    Run { out, events, model }
}

fn call(line: &str) -> ToolCall {
    parse_output(line).calls().next().cloned().unwrap()
}

/// The dispatcher's reply to one `TOOL_CALL:` line, outside a turn.
fn reply(agent: &mut Agent, session: &str, line: &str) -> ToolReply {
    agent.call_tool(session, &call(line), &mut |_| {}).unwrap()
}

/// A recorded request as text: `system: …` and its messages.
fn text_of(r: &crate::scripted::RecordedRequest) -> String {
    format!("system: {}\n{}", r.system, render_history(&r.messages))
}

fn history(agent: &Agent, session: &str) -> String {
    render_history(agent.history(session))
}

/// The session's rendered history contains every `has` and none of `lacks`.
fn assert_history(agent: &Agent, session: &str, has: &[&str], lacks: &[&str]) {
    let h = history(agent, session);
    for want in has {
        assert!(h.contains(want), "history lacks {want:?}: {h}");
    }
    for unwanted in lacks {
        assert!(!h.contains(unwanted), "history has {unwanted:?}: {h}");
    }
}

fn executed(out: &TurnOutcome) -> Vec<&str> {
    out.executed.iter().map(|e| e.name.as_str()).collect()
}

/// One dispatcher check: (call, kind, ok, reply contains).
type ReplyRow = (&'static str, ReplyKind, bool, &'static str);

/// Answers the rows' calls in order in `session` and checks each reply.
fn check_replies(agent: &mut Agent, session: &str, rows: &[ReplyRow]) {
    for (line, kind, ok, want) in rows {
        let r = reply(agent, session, line);
        assert_eq!((r.kind, r.ok), (*kind, *ok), "{line}: {}", r.text);
        assert!(r.text.contains(want), "{line}: {:?}", r.text);
    }
}

#[test]
fn agent_is_send() {
    fn send<T: Send>() {}
    send::<Agent>();
}

#[test]
fn executors_by_tool_win_over_toolset() {
    let (mut agent, _) = fixture();
    let calls = Arc::new(Mutex::new(Vec::new()));
    let log = calls.clone();
    agent.register_executor(
        ExecutorTarget::Toolset("WEB".into()),
        Arc::new(move |c: &ToolInvocation<'_>| {
            log.lock()
                .unwrap()
                .push(format!("{}:{}:{}", c.session, c.toolset, c.tool));
            Ok("opened".to_string())
        }),
    );
    let r = reply(&mut agent, "s", "TOOL_CALL: web_open|https://example.org");
    assert_eq!((r.kind, r.text.as_str()), (ReplyKind::Executed, "opened"));
    assert_eq!(calls.lock().unwrap().as_slice(), ["s:web:web_open"]);
    assert!(agent.missing_executors().is_empty());
}
