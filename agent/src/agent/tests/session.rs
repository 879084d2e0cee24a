//! Sessions: isolation, toolset deadlines and expiry, the append-only history.

use std::time::Duration;

use super::*;
use crate::model::Message;

#[test]
fn prompt_is_byte_identical_when_only_the_clock_changes() {
    let (mut agent, clock) = fixture();
    agent.enable_toolset("s", "media").unwrap();
    let before = agent.prompt("s").text().to_string();
    clock.advance(Duration::from_secs(5 * 60));
    assert_eq!(agent.prompt("s").text(), before);
    clock.advance(Duration::from_secs(3600 * 5));
    assert_ne!(agent.prompt("s").text(), before, "expired: state changed");
    // Order of activation does not matter.
    agent.enable_toolset("a", "web").unwrap();
    agent.enable_toolset("a", "media").unwrap();
    agent.enable_toolset("b", "media").unwrap();
    agent.enable_toolset("b", "web").unwrap();
    assert_eq!(agent.prompt("a"), agent.prompt("b"));
}

#[test]
fn toolset_timeout_with_a_manual_clock() {
    let (mut agent, clock) = fixture();
    agent.enable_toolset("s", "media").unwrap();
    clock.advance(Duration::from_secs(9 * 60 + 59));
    assert_eq!(agent.active_toolsets("s"), ["media"], "active at 9:59");
    clock.advance(Duration::from_secs(62));
    assert!(agent.active_toolsets("s").is_empty(), "gone at 10:01");

    // enable_toolset extends.
    reply(&mut agent, "s", "TOOL_CALL: enable_toolset|media");
    clock.advance(Duration::from_secs(9 * 60));
    reply(&mut agent, "s", "TOOL_CALL: enable_toolset|media");
    clock.advance(Duration::from_secs(9 * 60));
    assert_eq!(
        agent.active_toolsets("s"),
        ["media"],
        "18 minutes after the first enable"
    );

    // Any tool call of the set extends, a failed one included.
    reply(&mut agent, "s", "TOOL_CALL: media_search|x");
    clock.advance(Duration::from_secs(9 * 60));
    reply(&mut agent, "s", "TOOL_CALL: media_play|tt1|stop");
    clock.advance(Duration::from_secs(9 * 60));
    assert_eq!(agent.active_toolsets("s"), ["media"]);
    clock.advance(Duration::from_secs(62));
    assert!(agent.active_toolsets("s").is_empty());

    // The timeout is configurable.
    let (mut short, clock) = fixture_with(AgentConfig {
        toolset_timeout: Duration::from_secs(30),
        ..AgentConfig::default()
    });
    short.enable_toolset("s", "web").unwrap();
    clock.advance(Duration::from_secs(31));
    assert!(short.active_toolsets("s").is_empty());
}

#[test]
fn expiry_is_reported_during_a_turn() {
    let (mut agent, clock) = fixture();
    agent.enable_toolset("s", "media").unwrap();
    clock.advance(Duration::from_secs(11 * 60));
    let r = turn(&mut agent, "s", "привет", &["Привет!"]);
    assert!(r.events.contains(&AgentEvent::ToolsetDisabled {
        name: "media".into(),
        expired: true
    }));
    assert!(!r.model.requests()[0].system.contains("media_search"));
}

#[test]
fn sessions_are_isolated_and_switchable() {
    let (mut agent, _) = fixture();
    turn(
        &mut agent,
        "kitchen",
        "включи кино",
        &["TOOL_CALL: enable_toolset|media", "Ок."],
    );
    turn(
        &mut agent,
        "car",
        "который час",
        &["TOOL_CALL: get_current_time", "Десять."],
    );
    assert_eq!(agent.active_toolsets("kitchen"), ["media"]);
    assert!(agent.active_toolsets("car").is_empty());
    assert!(agent.prompt("kitchen").text().contains("media_search"));
    assert!(!agent.prompt("car").text().contains("media_search"));
    assert_history(&agent, "kitchen", &["включи кино"], &["который час"]);
    assert_history(
        &agent,
        "car",
        &["tool(get_current_time): 10:00, суббота, 22 августа 2026 (2026-08-22T10:00:00+03:00)"],
        &[],
    );
    // Back to the first session: its state is intact.
    let r = turn(
        &mut agent,
        "kitchen",
        "найди Лару Крофт",
        &["TOOL_CALL: media_search|Лара Крофт", "Нашёл."],
    );
    assert_eq!(executed(&r.out), ["media_search"]);
    assert_eq!(r.model.requests()[0].messages[0].content, "включи кино");
    let names: Vec<&str> = agent.sessions().collect();
    assert_eq!(names, ["car", "kitchen"]);
    assert!(agent.end_session("car"));
    assert!(agent.history("car").is_empty());
    assert!(matches!(
        agent.turn(
            "  ",
            "x",
            &mut ScriptedModel::new(["x"]),
            &CancelToken::new(),
            &mut |_| {}
        ),
        Err(AgentError::EmptySession)
    ));
}

#[test]
fn history_is_append_only_across_turns() {
    let (mut agent, _) = fixture();
    let mut seen: Vec<Message> = Vec::new();
    let script: &[(&str, &[&str])] = &[
        (
            "a",
            &[
                "TOOL_CALL: enable_toolset|media",
                "TOOL_CALL: media_search|x",
                "A",
            ],
        ),
        ("b", &["TOOL_CALL: disable_toolset|media", "B"]),
        ("c", &["TOOL_CALL: media_play|tt1|rewind", "C"]),
    ];
    for (user, outputs) in script {
        turn(&mut agent, "s", user, outputs);
        let now = agent.history("s").to_vec();
        assert_eq!(&now[..seen.len()], &seen[..], "history was rewritten");
        seen = now;
    }
    assert!(
        history(&agent, "s").contains("Tomb Raider"),
        "tool results stay"
    );
}
