//! Asking when unsure: a narrow route is asked about, and the next message settles it.

use super::*;

const NOTES: &str = "\
name: notes
description: заметки
tools:
  - name: notes_add
    description: записать заметку
    ask: {ru: \"Записать это в заметки?\", en: \"Should I note that down?\"}
    args:
      - {name: text, type: string, required: true}
    examples:
      ru: [\"Запиши заметку купить молоко\", \"Добавь заметку\"]
      en: [\"Note down that I call mom\"]
  - name: notes_list
    description: показать заметки
    examples:
      ru: [\"Покажи мои заметки\"]
";

/// An agent whose every tool route counts as narrow (the margin to ask under is above any
/// route's, and a request's opening verb settles none: no `opening-words`), with notes whose
/// executor records the text of every note added.
fn asking_agent_in(lang: Lang) -> (Agent, Arc<Mutex<Vec<String>>>) {
    asking_agent_with(lang, Guidance::default().without(Technique::OpeningWords))
}

fn asking_agent_with(lang: Lang, mut guidance: Guidance) -> (Agent, Arc<Mutex<Vec<String>>>) {
    let clock = ManualClock::parse("2026-08-22T10:00:00+03:00").unwrap();
    let toolsets =
        ToolsetRegistry::from_toolsets([parse_toolset(NOTES, Path::new("notes.yaml")).unwrap()]);
    guidance.ask_margin = 10.0;
    let config = AgentConfig {
        guidance,
        lang,
        ..AgentConfig::default()
    };
    let mut agent = Agent::new(config, SkillRegistry::default(), toolsets, Arc::new(clock));
    let added: Arc<Mutex<Vec<String>>> = Arc::default();
    let seen = Arc::clone(&added);
    agent.register_executor(
        ExecutorTarget::Toolset("notes".into()),
        Arc::new(move |call: &ToolInvocation<'_>| {
            if let Some(text) = call.args.str("text") {
                seen.lock().unwrap().push(text.to_string());
            }
            Ok("Заметка 1 сохранена.".to_string())
        }),
    );
    (agent, added)
}

fn asking_agent() -> (Agent, Arc<Mutex<Vec<String>>>) {
    asking_agent_in(Lang::Ru)
}

fn turn(agent: &mut Agent, model: &mut ScriptedModel, user: &str) -> TurnOutcome {
    agent
        .turn("s", user, model, &CancelToken::new(), &mut |_| {})
        .unwrap()
}

#[test]
fn a_narrow_route_is_asked_about_and_a_yes_runs_it_for_the_request_asked_about() {
    let (mut agent, added) = asking_agent();
    let mut model = ScriptedModel::new(["Заметка сохранена."]).with_embeddings();
    let out = turn(&mut agent, &mut model, "Запиши: купить хлеб");
    assert_eq!(out.asked.as_deref(), Some("notes_add"));
    assert_eq!(out.reply, "Записать это в заметки?");
    assert!(model.requests().is_empty(), "asking takes no model call");
    assert!(
        added.lock().unwrap().is_empty(),
        "nothing is done before the yes"
    );

    let out = turn(&mut agent, &mut model, "Да, давай");
    assert!(out.confirmed && out.asked.is_none(), "{out:?}");
    assert_eq!(
        out.route.as_ref().and_then(|r| r.target.as_deref()),
        Some("notes_add")
    );
    // The call is made of the request asked about, not of the yes.
    assert_eq!(*added.lock().unwrap(), ["купить хлеб"]);
    assert_eq!(
        model.requests()[0].forced_reply.as_deref(),
        Some("TOOL_CALL: notes_add|купить хлеб")
    );
    let history = render_history(&agent.history("s"));
    assert!(
        history.contains(
            "user: Запиши: купить хлеб\nassistant: Записать это в заметки?\nuser: Да, давай"
        ),
        "{history}"
    );
}

#[test]
fn the_call_s_text_comes_from_the_request_asked_about_when_the_model_writes_it() {
    let (mut agent, added) = asking_agent();
    // No text set apart: the model writes the text, out of the asked request's words.
    let mut model = ScriptedModel::new(["купить молоко", "Готово."]).with_embeddings();
    turn(&mut agent, &mut model, "Запиши заметку купить молоко");
    let out = turn(&mut agent, &mut model, "Ага");
    assert!(out.confirmed);
    let r = &model.requests()[0];
    assert_eq!(r.prefix.as_deref(), Some("TOOL_CALL: notes_add|"));
    let words = match &r.call_specs.as_deref().unwrap()[0].args[0].kind {
        crate::model::ArgKind::TailOf(words) => words.clone(),
        other => panic!("{other:?}"),
    };
    // From the first word that says what the note is (`content-start`): the asked request's.
    assert_eq!(words, ["купить молоко"]);
    assert_eq!(*added.lock().unwrap(), ["купить молоко"]);
}

#[test]
fn a_no_is_acknowledged_and_nothing_is_done() {
    let (mut agent, added) = asking_agent();
    let mut model = ScriptedModel::new(["Хм."]).with_embeddings();
    turn(&mut agent, &mut model, "Запиши: купить хлеб");
    let out = turn(&mut agent, &mut model, "Нет, не надо");
    assert_eq!(out.reply, Texts::new(Lang::Ru).ask_declined());
    assert!(!out.confirmed && out.executed.is_empty());
    assert!(model.requests().is_empty());
    assert!(added.lock().unwrap().is_empty());
    // The question is settled: a later yes is an ordinary message.
    let out = turn(&mut agent, &mut model, "Да");
    assert!(!out.confirmed, "{out:?}");
}

#[test]
fn anything_else_is_a_new_request_and_the_question_is_dropped() {
    let (mut agent, added) = asking_agent();
    let mut model = ScriptedModel::new(["Хм."]).with_embeddings();
    turn(&mut agent, &mut model, "Запиши: купить хлеб");
    // notes_list has no question: a route to it is acted on however narrow.
    let out = turn(&mut agent, &mut model, "Покажи мои заметки");
    assert!(!out.confirmed && out.asked.is_none(), "{out:?}");
    assert_eq!(out.executed[0].name, "notes_list");
    assert!(added.lock().unwrap().is_empty());
}

#[test]
fn an_english_question_for_an_english_request() {
    let (mut agent, _) = asking_agent_in(Lang::En);
    let mut model = ScriptedModel::new(["Hm."]).with_embeddings();
    let out = turn(&mut agent, &mut model, "Note down: buy milk");
    assert_eq!(out.asked.as_deref(), Some("notes_add"), "{:?}", out.route);
    assert_eq!(out.reply, "Should I note that down?");
    let out = turn(&mut agent, &mut model, "No thanks");
    assert_eq!(out.reply, Texts::new(Lang::En).ask_declined());
}

#[test]
fn a_clear_route_is_acted_on_under_the_shipped_margin() {
    let (mut agent, added) = asking_agent();
    agent.shared.config.guidance.ask_margin = crate::ASK_MARGIN;
    let mut model = ScriptedModel::new(["Готово."]).with_embeddings();
    let out = turn(&mut agent, &mut model, "Запиши: купить хлеб");
    let margin = out.route.as_ref().map(|r| r.margin).unwrap();
    assert!(margin >= crate::ASK_MARGIN, "{margin}");
    assert!(out.asked.is_none());
    assert_eq!(*added.lock().unwrap(), ["купить хлеб"]);
    // Off, even a narrow route is acted on.
    let (mut agent, added) = asking_agent();
    agent
        .shared
        .config
        .guidance
        .set(Technique::AskWhenUnsure, false);
    turn(&mut agent, &mut model, "Запиши: купить хлеб");
    assert_eq!(*added.lock().unwrap(), ["купить хлеб"]);
}

#[test]
fn a_request_that_opens_as_only_the_routed_tool_s_examples_is_not_asked_about() {
    let (mut agent, added) = asking_agent_with(Lang::Ru, Guidance::default());
    let mut model =
        ScriptedModel::new(["TOOL_CALL: notes_add|купить хлеб", "Сохранено."]).with_embeddings();
    let out = turn(&mut agent, &mut model, "Добавь заметку: купить хлеб");
    assert_eq!(out.asked, None);
    // Without `opening-words` it is asked about.
    let (mut agent, _) = asking_agent();
    let out = turn(&mut agent, &mut model, "Добавь заметку: купить хлеб");
    assert_eq!(out.asked.as_deref(), Some("notes_add"));
    assert_eq!(added.lock().unwrap().as_slice(), ["купить хлеб"]);
}
