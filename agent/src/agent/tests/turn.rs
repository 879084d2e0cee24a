//! The turn loop: streaming, several calls, regeneration, limits, cancellation, model
//! errors, and the hints ahead of a turn.

use std::time::Duration;

use super::*;
use crate::model::{Generation, Message, Model, ModelError, ModelRequest, Role};

#[test]
fn events_and_outcomes_serialize_for_hosts() {
    let (mut agent, _) = fixture();
    let r = turn(
        &mut agent,
        "s",
        "x",
        &["Ищу.\nTOOL_CALL: media_search|Лара", "Нашёл."],
    );
    let events: Vec<serde_json::Value> = r
        .events
        .iter()
        .map(|e| serde_json::to_value(e).unwrap())
        .collect();
    assert_eq!(
        events[0],
        serde_json::json!({"type": "text", "data": "Ищу"}),
        "3-char pieces"
    );
    assert!(events.contains(&serde_json::json!({
        "type": "tool_started", "data": {"name": "media_search", "args": {"query": "Лара"}}
    })));
    assert!(
        events.contains(&serde_json::json!({"type": "toolset_enabled", "data": {"name": "media"}}))
    );
    let out = serde_json::to_value(&r.out).unwrap();
    assert_eq!(out["stop"], serde_json::json!({"kind": "answered"}));
    assert_eq!(
        out["tool_replies"][0]["kind"],
        serde_json::json!({"kind": "executed"})
    );
    let err = serde_json::to_value(TurnStop::ModelError("boom".into())).unwrap();
    assert_eq!(
        err,
        serde_json::json!({"kind": "model_error", "message": "boom"})
    );
}

#[test]
fn tool_errors_go_back_to_the_model_and_the_loop_continues() {
    let (mut agent, _) = fixture();
    agent.enable_toolset("s", "media").unwrap();
    let r = turn(
        &mut agent,
        "s",
        "стоп",
        &[
            "TOOL_CALL: media_play|tt1|stop",
            "TOOL_CALL: weather_now",
            "Ничего не играет.",
        ],
    );
    assert_eq!(r.out.stop, TurnStop::Answered);
    assert_eq!(r.out.reply, "Ничего не играет.");
    assert_history(
        &agent,
        "s",
        &[
            "tool(media_play): Ошибка media_play: nothing is playing",
            "tool(weather_now): Ошибка: инструмента weather_now нет",
        ],
        &[],
    );
    assert!(r.events.contains(&AgentEvent::ToolFinished {
        name: "media_play".into(),
        result: "Ошибка media_play: nothing is playing".into(),
        ok: false
    }));
    // The second request saw the first error.
    let seen = &r.model.requests()[1].messages;
    assert_eq!(seen.last().unwrap().role, Role::Tool);
}

#[test]
fn several_calls_in_one_output_run_in_order() {
    let (mut agent, _) = fixture();
    let r = turn(
        &mut agent,
        "s",
        "покажи время",
        &["Секунду.\n```\nTOOL_CALL: get_current_time\nTOOL_CALL: show_text|10:00\n```\nГотово (выдумка)", "Показал."],
    );
    assert_eq!(executed(&r.out), ["get_current_time", "show_text"]);
    assert_eq!(r.out.shown, ["10:00"]);
    assert!(r.events.contains(&AgentEvent::ShowText("10:00".into())));
    assert_eq!(r.out.streamed, "Секунду.\nПоказал.");
    let msgs = agent.history("s");
    assert_eq!(msgs.len(), 5, "{msgs:?}");
    assert_eq!(
        msgs[1].content,
        "Секунду.\n```\nTOOL_CALL: get_current_time\nTOOL_CALL: show_text|10:00"
    );
    assert!(
        !history(&agent, "s").contains("выдумка"),
        "text after the calls is a guess"
    );
}

#[test]
fn the_host_never_hears_a_tool_call_line() {
    let outputs = [
        "Ищу.\n`TOOL_CALL: media_search|x`",
        "  tool_call : media_play|tt1",
        "```\nTOOL_CALL: show_text|a\n```",
        "Готово.",
    ];
    for piece in [1, 2, 5, 64] {
        let (mut agent, _) = fixture();
        let mut model = ScriptedModel::new(outputs).with_piece_chars(piece);
        let mut texts = Vec::new();
        let out = agent
            .turn("s", "x", &mut model, &CancelToken::new(), &mut |e| {
                if let AgentEvent::Text(t) = e {
                    texts.push(t)
                }
            })
            .unwrap();
        let all = texts.concat();
        assert_eq!(all, "Ищу.\nГотово.", "piece {piece}");
        for t in &texts {
            assert!(!t.to_lowercase().contains("tool"), "{t:?}");
            assert!(!t.contains('`'), "{t:?}");
        }
        assert_eq!(out.streamed, all);
    }
}

#[test]
fn a_regenerated_preamble_is_not_heard_twice() {
    let (mut agent, _) = fixture();
    let r = turn(
        &mut agent,
        "s",
        "найди Лару Крофт",
        &[
            "Сейчас найду.\nTOOL_CALL: enable_toolset|media",
            "Сейчас найду.\nTOOL_CALL: media_search|Лара Крофт",
            "Нашёл Tomb Raider.",
        ],
    );
    assert_eq!(r.out.streamed, "Сейчас найду.\nНашёл Tomb Raider.");
    assert_eq!(
        r.out
            .generations
            .iter()
            .map(|g| g.discarded)
            .collect::<Vec<_>>(),
        [true, false, false]
    );
    let h = history(&agent, "s");
    assert!(!h.contains("enable_toolset"));
    assert_eq!(h.matches("Сейчас найду.").count(), 1);
    assert!(r.out.tool_replies[0]
        .text
        .starts_with("Тулсет media активирован"));
    assert!(!r.out.tool_replies[0].in_history);
    // A different preamble after the discard is spoken in full.
    let (mut agent, _) = fixture();
    let r = turn(
        &mut agent,
        "s",
        "x",
        &[
            "Включаю.\nTOOL_CALL: enable_toolset|web",
            "Открываю.\nTOOL_CALL: disable_toolset|web",
            "Ладно.",
        ],
    );
    assert_eq!(r.out.streamed, "Включаю.\nОткрываю.\nЛадно.");
    assert_history(&agent, "s", &[], &["toolset"]);
}

#[test]
fn a_switch_that_changes_nothing_is_shown_to_the_next_request_only() {
    let (mut agent, _) = fixture();
    agent.enable_toolset("s", "media").unwrap();
    let r = turn(
        &mut agent,
        "s",
        "x",
        &[
            "TOOL_CALL: enable_toolset|media",
            "TOOL_CALL: enable_toolset|кино",
            "Ок.",
        ],
    );
    assert_eq!(r.out.stop, TurnStop::Answered);
    assert_eq!(r.out.generations.iter().filter(|g| g.discarded).count(), 2);
    // Never in the history (docs/design.md, "The fixed decisions")...
    assert_history(
        &agent,
        "s",
        &["assistant: Ок."],
        &["enable_toolset", "уже активен"],
    );
    assert!(r.out.tool_replies.iter().all(|t| !t.in_history));
    // ... but the next request shows the call and its reply, and only the next one.
    let requests = r.model.requests();
    let second = text_of(&requests[1]);
    assert!(
        second.contains("tool(enable_toolset): Тулсет media уже активен"),
        "{second}"
    );
    let third = text_of(&requests[2]);
    assert!(
        third.contains("набора кино нет, доступны: media, web"),
        "{third}"
    );
    assert!(!third.contains("уже активен"), "{third}");
    // The request after a switch that changed nothing offers no switch (no loop).
    for req in &requests[1..] {
        let calls = req.calls.as_ref().expect("calls are constrained");
        assert!(
            !calls
                .iter()
                .any(|c| c == "enable_toolset" || c == "disable_toolset"),
            "{calls:?}"
        );
    }
    // The first request offered enabling only the inactive set.
    assert!(requests[0]
        .calls
        .as_ref()
        .is_some_and(|c| c.iter().any(|c| c == "enable_toolset")));
}

#[test]
fn mixed_output_keeps_visible_calls_and_drops_switches_from_history() {
    let (mut agent, _) = fixture();
    let r = turn(
        &mut agent,
        "s",
        "x",
        &[
            "TOOL_CALL: enable_toolset|media\nTOOL_CALL: media_search|Лара",
            "Ок.",
        ],
    );
    assert_eq!(executed(&r.out), ["media_search"]);
    assert_history(
        &agent,
        "s",
        &["assistant: TOOL_CALL: media_search|Лара"],
        &["enable_toolset"],
    );
    assert_eq!(
        r.out
            .tool_replies
            .iter()
            .map(|t| t.in_history)
            .collect::<Vec<_>>(),
        [false, true]
    );
}

#[test]
fn max_iterations_bounds_the_loop() {
    let (mut agent, _) = fixture_with(AgentConfig {
        max_iterations: 3,
        ..AgentConfig::default()
    });
    let outputs = ["TOOL_CALL: get_current_time"; 3];
    let r = turn(&mut agent, "s", "x", &outputs);
    assert_eq!(r.out.stop, TurnStop::MaxIterations);
    assert_eq!(r.out.generations.len(), 3);
    assert_eq!(r.model.remaining(), 0);
    // The turn says it has no answer: spoken, and closing the turn in the history.
    let said = Texts::new(Lang::Ru).turn_too_many_steps();
    assert_eq!(r.out.notice.as_deref(), Some(said));
    assert_eq!(r.out.reply, said);
    assert!(r.out.streamed.ends_with(said), "{}", r.out.streamed);
    assert!(history(&agent, "s").ends_with(&format!("assistant: {said}")));
    // Discarded generations count too: enable/disable ping-pong ends.
    let (mut agent, _) = fixture_with(AgentConfig {
        max_iterations: 4,
        ..AgentConfig::default()
    });
    let r = turn(
        &mut agent,
        "s",
        "x",
        &[
            "TOOL_CALL: enable_toolset|web",
            "TOOL_CALL: disable_toolset|web",
            "TOOL_CALL: enable_toolset|web",
            "TOOL_CALL: disable_toolset|web",
        ],
    );
    assert_eq!(r.out.stop, TurnStop::MaxIterations);
    assert_eq!(
        history(&agent, "s"),
        format!(
            "user: x\nassistant: {}",
            Texts::new(Lang::Ru).turn_too_many_steps()
        ),
        "no switch in the history"
    );
}

#[test]
fn cancellation_between_iterations_and_inside_a_generation() {
    let (mut agent, _) = fixture();
    let cancel = CancelToken::new();
    cancel.cancel();
    let mut model = ScriptedModel::new(["never"]);
    let out = agent
        .turn("s", "x", &mut model, &cancel, &mut |_| {})
        .unwrap();
    assert_eq!(out.stop, TurnStop::Cancelled);
    assert_eq!(model.remaining(), 1, "no model call after cancel");
    // Nothing was said: the marker alone closes the turn.
    let marker = Texts::new(Lang::Ru).turn_interrupted();
    assert_eq!(
        history(&agent, "s"),
        format!("user: x\nassistant: {marker}")
    );
    assert_eq!(
        out.notice.as_deref(),
        Some(Texts::new(Lang::Ru).turn_cancelled())
    );
    assert!(out.streamed.is_empty(), "a cancel is not spoken over");

    // Cancelled while the tool runs: the call completes (its result is kept), no new request.
    let (mut agent, _) = fixture();
    let cancel = CancelToken::new();
    let flag = cancel.clone();
    agent.register_executor(
        ExecutorTarget::Tool("media_search".into()),
        Arc::new(move |_: &ToolInvocation<'_>| {
            flag.cancel();
            Ok("found".to_string())
        }),
    );
    let mut model = ScriptedModel::new(["TOOL_CALL: media_search|x", "never"]);
    let out = agent
        .turn("s", "x", &mut model, &cancel, &mut |_| {})
        .unwrap();
    assert_eq!(out.stop, TurnStop::Cancelled);
    assert_eq!(model.remaining(), 1);
    assert!(history(&agent, "s").contains("tool(media_search): found"));

    // Cancelled mid-generation: the history keeps what was streamed, marked.
    let (mut agent, _) = fixture();
    let cancel = CancelToken::new();
    let flag = cancel.clone();
    let mut model = ScriptedModel::new(["Очень длинный ответ"]).with_piece_chars(1);
    let mut n = 0;
    let out = agent
        .turn("s", "x", &mut model, &cancel, &mut |e| {
            if matches!(e, AgentEvent::Text(_)) {
                n += 1;
                if n == 3 {
                    flag.cancel();
                }
            }
        })
        .unwrap();
    assert_eq!(out.stop, TurnStop::Cancelled);
    assert!(out.interrupted);
    assert_eq!(out.streamed, "Оче");
    assert_eq!(
        history(&agent, "s"),
        format!("user: x\nassistant: Оче\n{marker}")
    );
}

#[test]
fn model_errors_end_the_turn_and_keep_the_history() {
    let (mut agent, _) = fixture();
    turn(&mut agent, "s", "first", &["Привет."]);
    let r = turn(&mut agent, "s", "second", &["TOOL_CALL: get_current_time"]);
    let exhausted = ScriptedModel::exhausted_error();
    assert_eq!(r.out.stop, TurnStop::ModelError(exhausted.to_string()));
    assert_eq!(r.out.model_error, Some(exhausted.kind()));
    assert_history(
        &agent,
        "s",
        &[
            "user: first",
            "assistant: Привет.",
            "user: second",
            "tool(get_current_time)",
        ],
        &[],
    );
}

#[test]
fn hear_partial_hints_the_turns_request_and_changes_nothing() {
    struct Hinted {
        inner: ScriptedModel,
        prefills: Vec<(String, String, Vec<Message>)>,
    }
    impl Model for Hinted {
        fn generate(
            &mut self,
            request: &ModelRequest<'_>,
            on_text: &mut dyn FnMut(&str),
        ) -> Result<Generation, ModelError> {
            self.inner.generate(request, on_text)
        }
        fn decode_ahead(&mut self, r: &ModelRequest<'_>) -> Result<(), ModelError> {
            self.prefills.push((
                r.session.to_owned(),
                r.system.to_owned(),
                r.messages.to_vec(),
            ));
            Ok(())
        }
    }
    let (mut agent, clock) = fixture();
    turn(&mut agent, "s", "Привет", &["Здравствуйте!"]);
    agent.enable_toolset("s", "media").unwrap();
    turn(&mut agent, "s", "Что в кино?", &["Не знаю."]);
    // The set expires while the user speaks: the hint must not drop it silently.
    clock.advance(Duration::from_secs(11 * 60));
    let history = agent.history("s").to_vec();
    let mut model = Hinted {
        inner: ScriptedModel::new(["Сейчас десять."]),
        prefills: Vec::new(),
    };
    agent.hear_partial("s", "Который", &mut model).unwrap();
    agent.hear_partial("s", "Который час?", &mut model).unwrap();
    assert_eq!(agent.history("s"), history.as_slice());
    assert_eq!(agent.sessions.get("s").map(|s| s.active.len()), Some(1));
    assert_eq!(model.prefills.len(), 2);
    // (After a state change the state message follows the user's words.)
    assert!(model.prefills[0].2.iter().any(|m| m.content == "Который"));

    let mut events = Vec::new();
    let out = agent
        .turn(
            "s",
            "Который час?",
            &mut model,
            &CancelToken::new(),
            &mut |e| events.push(e),
        )
        .unwrap();
    assert_eq!(out.stop, TurnStop::Answered);
    assert!(
        events
            .iter()
            .any(|e| matches!(e, AgentEvent::ToolsetDisabled { expired: true, .. })),
        "{events:?}"
    );
    // The hint was exactly the turn's first request.
    let first = &model.inner.requests()[0];
    let (session, system, messages) = &model.prefills[1];
    assert_eq!(session, "s");
    assert_eq!(system, &first.system);
    assert_eq!(messages, &first.messages);

    // A hint for a session that does not exist yet does not create it.
    agent.hear_partial("new", "Привет", &mut model).unwrap();
    assert!(!agent.sessions().any(|s| s == "new"));
    assert_eq!(
        model.prefills[2].2.last().map(|m| m.content.as_str()),
        Some("Привет")
    );
    assert_eq!(
        agent.hear_partial(" ", "x", &mut model),
        Err(AgentError::EmptySession)
    );
    // A model without prefill support accepts the hint and does nothing.
    let mut scripted = ScriptedModel::new(Vec::<String>::new());
    agent.hear_partial("s", "Ещё", &mut scripted).unwrap();
}

#[test]
fn warm_up_hands_the_head_to_the_model() {
    struct Recorder(Vec<(String, Vec<Message>)>);
    impl Model for Recorder {
        fn generate(
            &mut self,
            _: &ModelRequest<'_>,
            _: &mut dyn FnMut(&str),
        ) -> Result<Generation, ModelError> {
            Err(ModelError::failed("not used"))
        }
        fn prepare_head(&mut self, system: &str, messages: &[Message]) -> Result<(), ModelError> {
            self.0.push((system.to_owned(), messages.to_vec()));
            Ok(())
        }
    }
    let (mut agent, _) = fixture();
    let mut model = Recorder(Vec::new());
    agent.warm_up(&mut model).unwrap();
    let head = agent.head_view();
    assert_eq!(model.0, vec![(head.system, head.messages)]);
    // A model without head support accepts the hint and does nothing.
    let mut scripted = ScriptedModel::new(Vec::<String>::new());
    agent.warm_up(&mut scripted).unwrap();
}
