//! Request layouts: the prompt's states, where the dynamic sections go, the shared head.

use super::*;
use crate::prompt::SectionKind;
use crate::scripted::RecordedRequest;

#[test]
fn three_prompt_states() {
    // The design's order, where the whole prompt is the system text.
    let (mut agent, _) = fixture_with(AgentConfig {
        layout: PromptLayout::SystemFirst,
        ..AgentConfig::default()
    });
    // State 1: core + catalog + skills index (with the media skill).
    let p1 = agent.prompt("s");
    let kinds: Vec<_> = p1.sections().iter().map(|s| s.kind).collect();
    assert_eq!(
        kinds,
        [
            SectionKind::Core,
            SectionKind::ToolsetIndex,
            SectionKind::Skills
        ]
    );
    assert!(p1.text().contains("media — управление медиа"));
    assert!(p1
        .text()
        .contains("media — фильмы; вызови enable_toolset|media"));
    assert!(!p1.text().contains("media_search"));
    assert!(!p1.text().contains("Активные тулсеты"));
    // State 2: the model enables media; the call is not written to the history.
    let r = turn(
        &mut agent,
        "s",
        "Включи фильм",
        &["TOOL_CALL: enable_toolset|media", "Готово."],
    );
    assert_eq!(r.out.stop, TurnStop::Answered);
    assert!(!history(&agent, "s").contains("enable_toolset"));
    assert_ne!(r.model.requests()[0].system, r.model.requests()[1].system);
    // State 3: core + media tools + «Активные тулсеты: media», the media skill gone.
    let p3 = agent.prompt("s");
    assert_eq!(r.model.requests()[1].system, p3.text());
    let kinds: Vec<_> = p3.sections().iter().map(|s| s.kind).collect();
    assert_eq!(
        kinds,
        [
            SectionKind::Core,
            SectionKind::ToolsetIndex,
            SectionKind::ActiveToolsets,
            SectionKind::Skills
        ]
    );
    let active = &p3.sections()[2].text;
    assert!(active.starts_with("Активные тулсеты: media\n"));
    assert!(active.contains("media_search|query — поиск по названию"));
    assert!(active.contains(
        "media_play|id|action? — запуск/управление просмотром (action: play/pause/stop)"
    ));
    assert!(!p3.sections()[3].text.contains("фильмы; вызови"));
    assert!(p3.sections()[3].text.contains("web — сайты"));
    // The static prefix is the same in every state.
    assert_eq!(p1.static_prefix(), p3.static_prefix());
    assert!(p3.text().starts_with(p3.static_prefix()));
}

/// Plays a short conversation (plain turn, enable + search, plain turn, disable) in a
/// layout and returns every request the model saw.
fn layout_requests(layout: PromptLayout) -> Vec<RecordedRequest> {
    let (mut agent, _) = fixture_with(AgentConfig {
        layout,
        ..AgentConfig::default()
    });
    let mut all = Vec::new();
    for (user, outputs) in [
        ("Привет", vec!["Привет!"]),
        (
            "Найди Лару Крофт",
            vec![
                "TOOL_CALL: enable_toolset|media",
                "TOOL_CALL: media_search|Лара",
                "Нашёл.",
            ],
        ),
        ("Спасибо", vec!["Пожалуйста."]),
        (
            "Хватит кино",
            vec!["TOOL_CALL: disable_toolset|media", "Ок."],
        ),
        ("Пока", vec!["Пока!"]),
    ] {
        let r = turn(&mut agent, "s", user, &outputs);
        assert_eq!(r.out.stop, TurnStop::Answered, "{layout}: {user}");
        all.extend(r.model.requests().iter().cloned());
    }
    all
}

/// The whole prompt of a request as a flat list of (role, text) blocks.
fn blocks(r: &RecordedRequest) -> Vec<String> {
    std::iter::once(format!("system: {}", r.system))
        .chain(
            r.messages
                .iter()
                .map(|m| format!("{:?}: {}", m.role, m.content)),
        )
        .collect()
}

fn is_prefix(a: &[String], b: &[String]) -> bool {
    a.len() <= b.len() && a == &b[..a.len()]
}

#[test]
fn layouts_carry_the_same_prompt_and_history() {
    let first = layout_requests(PromptLayout::SystemFirst);
    for layout in PromptLayout::ALL {
        let reqs = layout_requests(layout);
        assert_eq!(reqs.len(), first.len(), "{layout}");
        for (r, f) in reqs.iter().zip(&first) {
            let state: Vec<&Message> = r
                .messages
                .iter()
                .filter(|m| !f.messages.contains(m))
                .collect();
            if layout == PromptLayout::SystemFirst {
                assert_eq!(r, f);
                continue;
            }
            // The system text is the static part; the dynamic part is one user message;
            // together they are the design's prompt, and the history is untouched.
            assert_eq!(state.len(), 1, "{layout}: {:?}", r.messages);
            assert_eq!(format!("{}\n\n{}", r.system, state[0].content), f.system);
            let history: Vec<Message> = r
                .messages
                .iter()
                .filter(|m| *m != state[0])
                .cloned()
                .collect();
            assert_eq!(history, f.messages, "{layout}");
        }
    }
}

#[test]
fn head_view_is_what_every_new_session_starts_with() {
    for layout in PromptLayout::ALL {
        let requests = layout_requests(layout);
        let first = &requests[0];
        let (agent, _) = fixture_with(AgentConfig {
            layout,
            ..AgentConfig::default()
        });
        let head = agent.head_view();
        assert_eq!(head.system, first.system, "{layout}");
        assert!(
            first.messages.starts_with(&head.messages),
            "{layout}: {:?} vs {:?}",
            head.messages,
            first.messages
        );
        // The user's message follows the head directly.
        assert_eq!(
            first.messages[head.messages.len()].content,
            "Привет",
            "{layout}"
        );
    }
}

#[test]
fn anchored_state_moves_only_when_the_state_changes() {
    let reqs = layout_requests(PromptLayout::AnchoredState);
    // Fresh session: the state message opens the conversation (the same for every
    // session, so it can belong to a shared head).
    assert_eq!(reqs[0].messages.len(), 2);
    assert!(reqs[0].messages[0].content.starts_with("Скиллы"));
    let mut changes = 0;
    for pair in reqs.windows(2) {
        let (a, b) = (blocks(&pair[0]), blocks(&pair[1]));
        if !is_prefix(&a[..a.len() - 1], &b) {
            changes += 1;
            // A change keeps everything before the old state message.
            let old = a
                .iter()
                .position(|x| x.contains("Скиллы") || x.contains("Активные"))
                .unwrap();
            assert_eq!(a[..old], b[..old]);
            // ... and puts the new one last.
            let last = b.last().unwrap();
            assert!(
                last.contains("Активные") || last.contains("Скиллы"),
                "{last}"
            );
        }
    }
    assert_eq!(changes, 2, "enable and disable");
    // While media is active its skill is hidden; after disable it is back.
    let active = &reqs[2];
    let state = active.messages.last().unwrap();
    assert!(state.content.contains("Активные тулсеты: media"));
    assert!(!state.content.contains("вызови enable_toolset|media"));
    assert!(reqs
        .last()
        .unwrap()
        .messages
        .iter()
        .any(|m| m.content.contains("вызови enable_toolset|media")));
}

#[test]
fn design_order_re_renders_history_on_a_change_and_tail_on_every_request() {
    let first = layout_requests(PromptLayout::SystemFirst);
    // The enable changes the system text: everything after it is new.
    assert_ne!(first[1].system, first[2].system);
    let tail = layout_requests(PromptLayout::DynamicTail);
    for r in &tail {
        let last = r.messages.last().unwrap();
        assert!(last.content.starts_with("Скиллы") || last.content.starts_with("Активные"));
    }
    // The tail layout never changes its system text.
    assert!(tail.iter().all(|r| r.system == tail[0].system));
}
