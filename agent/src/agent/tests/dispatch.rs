//! The dispatcher, one call at a time: core tools, switches, host tools, substitution.

use super::*;
use ReplyKind::{Executed, Rejected, Substituted};

const CHANGED: ReplyKind = ReplyKind::ToolsetChange { changed: true };
const SAME: ReplyKind = ReplyKind::ToolsetChange { changed: false };

#[test]
fn enable_and_disable_are_idempotent() {
    #[rustfmt::skip]
    const ROWS: &[ReplyRow] = &[
        ("TOOL_CALL: disable_toolset|media", SAME, true, "нет активных наборов"),
        ("TOOL_CALL: disable_toolset", SAME, true, "нет активных наборов"),
        ("TOOL_CALL: enable_toolset|media", CHANGED, true, "Тулсет media активирован. Реестр:\nmedia_search|query"),
        ("TOOL_CALL: enable_toolset|MEDIA", SAME, true, "уже активен, продлеваю таймаут"),
        ("TOOL_CALL: enable_toolset|кино", SAME, false, "набора кино нет, доступны: media, web"),
        ("TOOL_CALL: enable_toolset", SAME, false, "укажи набор"),
        ("TOOL_CALL: disable_toolset|web", SAME, true, "Тулсет web не активен; активны: media"),
        ("TOOL_CALL: disable_toolset|кино", SAME, false, "набора кино нет, доступны: media, web"),
        ("TOOL_CALL: disable_toolset|media", CHANGED, true, "Тулсет media выключен"),
        ("TOOL_CALL: disable_toolset|media", SAME, true, "нет активных наборов"),
        ("TOOL_CALL: enable_toolset|web", CHANGED, true, "Тулсет web активирован"),
        ("TOOL_CALL: enable_toolset|media", CHANGED, true, "Тулсет media активирован"),
        ("TOOL_CALL: disable_toolset", CHANGED, true, "Тулсет media выключен.\nТулсет web выключен."),
    ];
    let (mut agent, _) = fixture();
    check_replies(&mut agent, "s", ROWS);
    assert!(agent.active_toolsets("s").is_empty());
}

#[test]
fn dispatch_table() {
    #[rustfmt::skip]
    const ROWS: &[ReplyRow] = &[
        ("TOOL_CALL: get_current_time", Executed, true, "2026-08-22T10:00:00+03:00"),
        ("TOOL_CALL: get_current_time|now please", Executed, true, "+03:00"),
        ("TOOL_CALL: show_text|Привет | мир", Executed, true, "Показано"),
        ("TOOL_CALL: show_text", Rejected, false, "нет аргумента text. Схема: show_text|text"),
        ("TOOL_CALL: read_skill|корректное  выключение", Executed, true, "Скилл Корректное выключение:\nТело."),
        ("TOOL_CALL: read_skill|кино", Executed, false, "скилла кино нет, доступны: media, web, Корректное выключение"),
        ("TOOL_CALL: media_search|query=Лара", Executed, true, "Tomb Raider (2018) id=tt1365519 [Лара]"),
        ("TOOL_CALL: media_play|{\"id\": \"tt1\", \"action\": \"PAUSE\"}", Executed, true, "media_play id=tt1|action=pause"),
        ("TOOL_CALL: media_play|tt1|stop", Executed, false, "Ошибка media_play: nothing is playing"),
        ("TOOL_CALL: media_play|tt1|rewind", Rejected, false, "action должен быть одним из: play/pause/stop. Схема: media_play|id|action?"),
        ("TOOL_CALL: media_play", Rejected, false, "нет аргумента id"),
        ("TOOL_CALL: media_delete|x", Rejected, false, "инструмента media_delete нет. В наборе media: media_search, media_play"),
        ("TOOL_CALL: weather_now", Rejected, false, "инструмента weather_now нет. Ядро: get_current_time, show_text, read_skill, enable_toolset, disable_toolset.\nНаборы:\nmedia — "),
        ("TOOL_CALL: web_open|https://x", Rejected, false, "для web_open нет исполнителя на этом устройстве"),
    ];
    let (mut agent, _) = fixture();
    agent.enable_toolset("s", "media").unwrap();
    check_replies(&mut agent, "s", ROWS);
    assert_eq!(agent.missing_executors(), ["web_open"]);
}

#[test]
fn english_prompt_and_replies() {
    let (mut agent, _) = fixture_with(AgentConfig {
        lang: Lang::En,
        ..AgentConfig::default()
    });
    let p = agent.prompt("s");
    assert!(p
        .text()
        .contains("Call a tool on a line of its own: TOOL_CALL: name|arguments"));
    agent.enable_toolset("s", "media").unwrap();
    assert!(agent.prompt("s").text().contains("Active toolsets: media"));
    check_replies(
        &mut agent,
        "s",
        &[(
            "TOOL_CALL: enable_toolset|media",
            SAME,
            true,
            "already active, timeout extended",
        )],
    );
    let r = reply(&mut agent, "s", "TOOL_CALL: web_open|{}");
    assert_eq!(r.kind, Substituted);
    assert!(r.text.contains("Toolset web activated. Registry:"));
    assert!(r.text.contains("The call was NOT executed yet."));
}

#[test]
fn substitution_says_not_executed() {
    // Invalid arguments on an inactive set: activate, do not execute, say so.
    let (mut agent, _) = fixture();
    let r = reply(&mut agent, "s", "TOOL_CALL: media_play|tt1|rewind");
    assert_eq!(r.kind, Substituted);
    assert!(
        r.text
            .starts_with("Тулсет media активирован. Реестр:\nmedia_search|query"),
        "{}",
        r.text
    );
    assert!(r.text.contains("Вызов ещё НЕ выполнялся."));
    assert!(r.text.contains("media_play|id|action?"));
    assert_eq!(agent.active_toolsets("s"), ["media"]);

    // direct_execution off: even valid arguments are substituted.
    let (mut agent, _) = fixture_with(AgentConfig {
        direct_execution: false,
        ..AgentConfig::default()
    });
    let r = turn(
        &mut agent,
        "s",
        "найди",
        &[
            "TOOL_CALL: media_search|Лара",
            "TOOL_CALL: media_search|Лара",
            "Нашёл Tomb Raider.",
        ],
    );
    assert_eq!(
        executed(&r.out),
        ["media_search"],
        "only the second call ran"
    );
    assert_eq!(r.out.tool_replies[0].kind, Substituted);
    assert!(
        r.out.tool_replies[0].in_history,
        "the model sees the activation reply"
    );
    assert_history(
        &agent,
        "s",
        &[
            "tool(media_search): Тулсет media активирован",
            "Вызов ещё НЕ выполнялся",
            "Tomb Raider (2018)",
        ],
        &[],
    );
}

#[test]
fn direct_execution_activates_and_runs() {
    let (mut agent, _) = fixture();
    let r = turn(
        &mut agent,
        "s",
        "Найди фильм про Лару Крофт",
        &[
            "TOOL_CALL: media_search|Лара Крофт",
            "Нашёл: Tomb Raider (2018)",
        ],
    );
    assert_eq!(executed(&r.out), ["media_search"]);
    assert_eq!(r.out.reply, "Нашёл: Tomb Raider (2018)");
    assert!(r.events.contains(&AgentEvent::ToolsetEnabled {
        name: "media".into()
    }));
    assert_eq!(agent.active_toolsets("s"), ["media"]);
    assert_history(&agent, "s", &[], &["enable_toolset"]);
}
