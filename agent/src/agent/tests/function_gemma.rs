//! A model that speaks FunctionGemma's call syntax ([`CallSyntax::FunctionGemma`]): the
//! prompt declares the tools in its form, its call blocks are parsed into the same calls
//! (same dispatch, same validation), the host hears only its text, and routed calls are
//! written in its syntax.

use super::*;
use crate::function_gemma::DEVELOPER_TURN;
use crate::model::{CallSyntax, Role};

const TIME_CALL: &str = "<start_function_call>call:get_current_time{}<end_function_call>";

fn fg_turn(agent: &mut Agent, user: &str, outputs: &[&str]) -> Run {
    let mut model =
        ScriptedModel::new(outputs.iter().copied()).with_call_syntax(CallSyntax::FunctionGemma);
    let mut events = Vec::new();
    let out = agent
        .turn("s", user, &mut model, &CancelToken::new(), &mut |e| {
            events.push(e)
        })
        .unwrap();
    Run { out, events, model }
}

fn spoken(events: &[AgentEvent]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Text(t) => Some(t.as_str()),
            _ => None,
        })
        .collect()
}

#[test]
fn a_function_gemma_turn_calls_get_current_time_and_answers_after_the_result() {
    let (mut agent, _) = fixture();
    // The model's call, then (cut by the format's stop) the result it would invent.
    let first = format!(
        "Сейчас посмотрю.{TIME_CALL}<start_function_response>response:get_current_time{{value:<escape>полночь<escape>}}<end_function_response>"
    );
    let r = fg_turn(&mut agent, "Который час?", &[&first, "Сейчас 10:00."]);
    assert_eq!(executed(&r.out), ["get_current_time"]);
    assert_eq!(r.out.stop, TurnStop::Answered);
    assert_eq!(r.out.reply, "Сейчас 10:00.");
    // The host hears the text around the call, never a block or the invented result.
    let heard = spoken(&r.events);
    assert_eq!(heard, "Сейчас посмотрю.Сейчас 10:00.");
    assert_eq!(r.out.streamed, heard);
    // The history: the call as the model wrote it, the tool's real reply, the answer.
    let h = agent.history("s");
    assert_eq!(h.len(), 4, "{h:?}");
    assert_eq!(
        h[1],
        Message::assistant(format!("Сейчас посмотрю.{TIME_CALL}"))
    );
    assert_eq!(h[2].role, Role::Tool);
    assert_eq!(h[2].name.as_deref(), Some("get_current_time"));
    assert!(h[2].content.contains("2026-08-22"), "{:?}", h[2].content);
    assert!(!h[2].content.contains("полночь"));
    assert_eq!(h[3], Message::assistant("Сейчас 10:00."));
    // The requests: tools declared in the system text (the developer turn), in
    // FunctionGemma's form, no `TOOL_CALL:` protocol; the history right after it (no state
    // message); the second request carries the call and its result.
    let reqs = r.model.requests();
    assert_eq!(reqs.len(), 2);
    let system = &reqs[0].system;
    assert!(system.contains(DEVELOPER_TURN), "{system}");
    assert!(
        system.contains("<start_function_declaration>declaration:get_current_time{"),
        "{system}"
    );
    assert!(!system.contains("TOOL_CALL"), "{system}");
    assert_eq!(reqs[0].messages, [Message::user("Который час?")]);
    assert_eq!(reqs[1].messages[..], h[..3]);
    assert!(!reqs[0].stop.iter().any(|s| s.contains("TOOL_CALL")));
}

#[test]
fn function_gemma_calls_go_through_the_same_dispatch_and_validation() {
    let (mut agent, _) = fixture();
    let enable =
        "<start_function_call>call:enable_toolset{name:<escape>media<escape>}<end_function_call>";
    let search = "<start_function_call>call:media_search{query:<escape>Лара Крофт<escape>}<end_function_call>";
    let r = fg_turn(
        &mut agent,
        "Найди фильм про Лару Крофт",
        &[enable, search, "Нашёл Tomb Raider."],
    );
    assert_eq!(executed(&r.out), ["media_search"]);
    assert_eq!(r.out.executed[0].args.str("query"), Some("Лара Крофт"));
    assert_eq!(r.out.reply, "Нашёл Tomb Raider.");
    // The set's tools are declared once it is active (in the system text).
    let reqs = r.model.requests();
    assert!(!reqs[0].system.contains("declaration:media_search{"));
    assert!(
        reqs[1].system.contains("declaration:media_search{"),
        "{}",
        reqs[1].system
    );
    // A bad argument is the dispatcher's error for the model, as for a `TOOL_CALL:` line.
    let bad = "<start_function_call>call:media_play{}<end_function_call>";
    let r = fg_turn(&mut agent, "Включи", &[bad, "Не вышло."]);
    assert!(!r.out.tool_replies[0].ok, "{:?}", r.out.tool_replies);
    assert!(r.out.executed.is_empty());
    // A block cut short is the call it would be once closed.
    let cut = "<start_function_call>call:get_current_time{";
    let r = fg_turn(&mut agent, "Время?", &[cut, "10:00."]);
    assert_eq!(executed(&r.out), ["get_current_time"]);
    assert!(agent.history("s").iter().any(|m| m.content == TIME_CALL));
}

/// A turn of `agent` on a scripted FunctionGemma model that embeds (so the turn is routed).
fn routed_fg(agent: &mut Agent, user: &str, outputs: &[&str]) -> (TurnOutcome, ScriptedModel) {
    let mut model = ScriptedModel::new(outputs.iter().copied())
        .with_embeddings()
        .with_call_syntax(CallSyntax::FunctionGemma);
    let out = agent
        .turn("s", user, &mut model, &CancelToken::new(), &mut |_| {})
        .unwrap();
    (out, model)
}

#[test]
fn routed_calls_are_written_in_the_model_s_syntax() {
    let mut agent = super::guidance::agent_with(Guidance::default());
    let (out, model) = routed_fg(&mut agent, "Который час сейчас?", &["10:00, суббота."]);
    let r = model.requests();
    assert_eq!(r[0].forced_reply.as_deref(), Some(TIME_CALL));
    assert_eq!(out.executed[0].name, "get_current_time");
    // A number the request names, typed as the declaration says.
    let (out, model) = routed_fg(&mut agent, "Удали вторую заметку", &["Готово."]);
    assert_eq!(
        model.requests()[0].forced_reply.as_deref(),
        Some("<start_function_call>call:notes_delete{number:2}<end_function_call>")
    );
    assert_eq!(
        out.executed[0].args.get("number"),
        Some(&crate::args::ArgValue::Int(2))
    );
    // Arguments the model writes: the call's opening as the prefix, no line stop.
    let (out, model) = routed_fg(
        &mut agent,
        "Запиши заметку купить хлеб",
        &[
            "text:<escape>купить хлеб<escape>}<end_function_call>",
            "Записал.",
        ],
    );
    let r = &model.requests()[0];
    assert_eq!(
        r.prefix.as_deref(),
        Some("<start_function_call>call:notes_add{")
    );
    assert!(r.stop.is_empty(), "{:?}", r.stop);
    assert_eq!(out.executed[0].args.str("text"), Some("купить хлеб"));
    // A text the request sets apart decides the call, in the model's syntax.
    let (out, model) = routed_fg(&mut agent, "Запиши заметку: купить хлеб", &["Записал."]);
    assert_eq!(
        model.requests()[0].forced_reply.as_deref(),
        Some("<start_function_call>call:notes_add{text:<escape>купить хлеб<escape>}<end_function_call>")
    );
    assert_eq!(out.executed[0].args.str("text"), Some("купить хлеб"));
    // A plain reply stops where a call would begin.
    let (_, model) = routed_fg(
        &mut agent,
        "Почему небо голубое?",
        &["Из-за рассеяния света."],
    );
    let stop = &model.requests()[0].stop;
    assert!(
        stop.contains(&"<start_function_call>".to_string()),
        "{stop:?}"
    );
    assert!(!stop.iter().any(|s| s.contains("TOOL_CALL")), "{stop:?}");
}

#[test]
fn the_tool_call_line_path_is_unchanged_by_the_syntax_seam() {
    // The same agent, a default model: the `TOOL_CALL:` prompt and layout, byte for byte
    // what the prompt builder gives.
    let (mut agent, _) = fixture();
    let r = turn(
        &mut agent,
        "s",
        "Который час?",
        &["TOOL_CALL: get_current_time", "10:00."],
    );
    let system = &r.model.requests()[0].system;
    let a = &agent.shared.advertised;
    let plain = crate::prompt::build_prompt_with(Lang::Ru, &a.toolsets, &a.skills, &[], &[]);
    assert_eq!(system, plain.static_prefix());
    assert!(!system.contains(DEVELOPER_TURN));
    assert_eq!(executed(&r.out), ["get_current_time"]);
}
