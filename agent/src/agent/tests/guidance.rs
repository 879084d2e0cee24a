//! Guidance: routing by similarity, the calls a request may make, the shape of replies,
//! and the sets a host cannot run left out of the prompt.

use super::*;
use crate::prompt::SectionKind;

const NOTES: &str = "\
name: notes
description: заметки
tools:
  - name: notes_add
    description: записать заметку
    args:
      - {name: text, type: string, required: true}
    examples:
      ru: [\"Запиши заметку купить молоко\", \"Добавь заметку\"]
  - name: notes_list
    description: показать заметки
    examples:
      ru: [\"Покажи мои заметки\"]
  - name: notes_delete
    description: удалить заметку
    args:
      - {name: number, type: integer, required: true}
    examples:
      ru: [\"Удали заметку номер три\", \"Сотри первую заметку\"]
";

/// Notes (with an executor), media (declared only) and a skill bound to media.
pub(super) fn agent_with(guidance: Guidance) -> Agent {
    let clock = ManualClock::parse("2026-08-22T10:00:00+03:00").unwrap();
    let skills = SkillRegistry::from_skills([skill(
        "---\nname: media\ndescription: фильмы; вызови enable_toolset|media\ntoolset: media\n---\nШаги.",
    )]);
    let toolsets = ToolsetRegistry::from_toolsets([
        parse_toolset(NOTES, Path::new("notes.yaml")).unwrap(),
        parse_toolset(MEDIA, Path::new("media.yaml")).unwrap(),
    ]);
    let config = AgentConfig {
        guidance,
        ..AgentConfig::default()
    };
    let mut agent = Agent::new(config, skills, toolsets, Arc::new(clock));
    agent.register_executor(
        ExecutorTarget::Toolset("notes".into()),
        Arc::new(|_: &ToolInvocation<'_>| Ok("Заметка 1 сохранена.".to_string())),
    );
    agent
}

pub(super) fn routed_turn(
    agent: &mut Agent,
    user: &str,
    outputs: &[&str],
) -> (TurnOutcome, ScriptedModel) {
    let mut model = ScriptedModel::new(outputs.iter().copied()).with_embeddings();
    let out = agent
        .turn("s", user, &mut model, &CancelToken::new(), &mut |_| {})
        .unwrap();
    (out, model)
}

#[test]
fn a_call_without_arguments_is_decided_and_the_answer_is_made_of_its_reply() {
    let mut agent = agent_with(Guidance::default());
    let (out, model) = routed_turn(&mut agent, "Который час сейчас?", &["10:00, суббота."]);
    assert_eq!(
        out.route.as_ref().unwrap().target.as_deref(),
        Some("get_current_time")
    );
    let r = model.requests();
    assert_eq!(
        r[0].forced_reply.as_deref(),
        Some("TOOL_CALL: get_current_time")
    );
    assert_eq!(out.executed[0].name, "get_current_time");
    // After the reply: plain text, one sentence, made of the reply's words (the
    // parenthesised timestamp left out).
    assert_eq!(r[1].calls, Some(vec![]));
    assert_eq!(r[1].max_sentences, Some(1));
    let words = r[1].words.clone().unwrap();
    assert_eq!(words[..4], ["10:00,", "суббота,", "22", "августа"]);
    assert!(!words.iter().any(|w| w.contains("T10")), "{words:?}");
    assert_eq!(out.reply, "10:00, суббота.");
    assert_eq!(out.stop, TurnStop::Answered);
}

#[test]
fn a_call_with_arguments_gets_its_name_and_the_request_s_words() {
    let mut agent = agent_with(Guidance::default());
    let (out, model) = routed_turn(
        &mut agent,
        "Запиши заметку купить хлеб",
        &["купить хлеб", "Заметка 1 сохранена."],
    );
    let r = model.requests();
    assert_eq!(
        out.route.as_ref().unwrap().target.as_deref(),
        Some("notes_add"),
        "{:?}",
        out.route
    );
    assert_eq!(r[0].prefix.as_deref(), Some("TOOL_CALL: notes_add|"));
    assert_eq!(r[0].stop, ["\n"]);
    assert_eq!(r[0].calls, Some(vec!["notes_add".to_string()]));
    // A tool of an inactive set, executed directly.
    assert_eq!(out.executed[0].name, "notes_add");
    assert_eq!(out.executed[0].args.str("text"), Some("купить хлеб"));
    assert_eq!(out.reply, "Заметка 1 сохранена.");
}

#[test]
fn a_plain_request_gets_a_reply_without_calls() {
    // In the chat prompt (a question would be asked in the transcript).
    let mut agent = agent_with(Guidance::default().without(Technique::AnswerTranscript));
    let (out, model) = routed_turn(
        &mut agent,
        "Почему небо голубое?",
        &["Из-за рассеяния света."],
    );
    assert_eq!(out.route.as_ref().unwrap().target, None);
    let r = &model.requests()[0];
    assert_eq!(r.calls, Some(vec![]));
    assert!(r.stop.contains(&"TOOL_CALL:".to_string()), "{:?}", r.stop);
    assert_eq!(r.forced_reply, None);
    assert_eq!(out.reply, "Из-за рассеяния света.");
}

#[test]
fn without_embeddings_the_state_s_calls_constrain_and_replies_stay_short() {
    let mut agent = agent_with(Guidance::default());
    let out = turn(
        &mut agent,
        "s",
        "Расскажи о себе",
        &["Я помощник. Я умею многое. Я отвечаю. Я молчу.\nПользователь: а ещё?"],
    );
    assert_eq!(out.out.route, None);
    let r = &out.model.requests()[0];
    let calls = r.calls.clone().unwrap();
    assert!(calls.contains(&"get_current_time".to_string()));
    assert!(calls.contains(&"notes_add".to_string()), "{calls:?}");
    // Media has no executor: nothing of it can be called.
    assert!(!calls.iter().any(|c| c.starts_with("media_")), "{calls:?}");
    assert!(r.stop.contains(&"\nПользователь:".to_string()));
    assert!(r.stop.contains(&"\n\n".to_string()));
    assert_eq!(r.max_sentences, Some(3));
    assert_eq!(out.out.reply, "Я помощник. Я умею многое. Я отвечаю.");
}

#[test]
fn no_guidance_sends_bare_requests() {
    let mut agent = agent_with(Guidance::none());
    let mut model = ScriptedModel::new(["Долгий ответ. Ещё. Ещё. Ещё."]).with_embeddings();
    let out = agent
        .turn(
            "s",
            "Который час?",
            &mut model,
            &CancelToken::new(),
            &mut |_| {},
        )
        .unwrap();
    assert_eq!(out.route, None);
    let r = &model.requests()[0];
    assert_eq!(
        (r.calls.clone(), r.prefix.clone(), r.forced_reply.clone()),
        (None, None, None)
    );
    assert!(r.stop.is_empty() && r.max_sentences.is_none() && r.words.is_none());
    assert_eq!(out.reply, "Долгий ответ. Ещё. Ещё. Ещё.");
    // Every declared set is advertised.
    assert!(agent.hidden_toolsets().is_empty());
}

#[test]
fn a_set_without_an_executor_is_left_out_until_one_is_registered() {
    let mut agent = agent_with(Guidance::default());
    assert_eq!(agent.hidden_toolsets(), ["media"]);
    let p = agent.prompt("s");
    assert!(p.text().contains("notes — заметки"), "{}", p.text());
    assert!(!p.text().contains("media"), "{}", p.text());
    // Its examples do not route either.
    let (out, _) = routed_turn(&mut agent, "Найди фильм Титаник", &["Не знаю."]);
    let route = out.route.expect("routed");
    assert!(
        !route
            .target
            .as_deref()
            .is_some_and(|t| t.starts_with("media_")),
        "{route:?}"
    );
    agent.register_executor(
        ExecutorTarget::Toolset("media".into()),
        Arc::new(|_: &ToolInvocation<'_>| Ok(String::new())),
    );
    assert!(agent.hidden_toolsets().is_empty());
    let p = agent.prompt("s");
    assert!(p.text().contains("media — "), "{}", p.text());
    assert!(
        p.text().contains("фильмы; вызови enable_toolset|media"),
        "{}",
        p.text()
    );
}

#[test]
fn few_shot_examples_are_a_static_section_of_the_head() {
    let mut agent = agent_with(Guidance::default().with(Technique::FewShot));
    let p = agent.prompt("s");
    let kinds: Vec<_> = p.sections().iter().map(|s| s.kind).collect();
    assert_eq!(
        kinds[..3],
        [
            SectionKind::Core,
            SectionKind::ToolsetIndex,
            SectionKind::Examples
        ]
    );
    assert!(p.static_prefix().contains("TOOL_CALL: get_current_time"));
    agent.enable_toolset("s", "notes").unwrap();
    assert_eq!(agent.prompt("s").static_prefix(), p.static_prefix());
}

#[test]
fn a_number_or_a_skill_the_request_names_decides_the_call() {
    let mut agent = agent_with(Guidance::default());
    let (out, model) = routed_turn(&mut agent, "Удали вторую заметку", &["Готово."]);
    assert_eq!(
        out.route.as_ref().unwrap().target.as_deref(),
        Some("notes_delete")
    );
    assert_eq!(
        model.requests()[0].forced_reply.as_deref(),
        Some("TOOL_CALL: notes_delete|2")
    );
    assert_eq!(
        out.executed[0].args.get("number"),
        Some(&crate::args::ArgValue::Int(2))
    );
    // Without a number in the request it is asked for: no model call, no note deleted.
    let (out, model) = routed_turn(&mut agent, "Удали заметку", &["1"]);
    assert!(model.requests().is_empty(), "{:?}", model.requests());
    assert_eq!(out.asked_for.as_deref(), Some("notes_delete"));
    assert!(out.executed.is_empty());
    // Without `said-args` the model fills it in (under the grammar).
    let mut agent = agent_with(Guidance::default().without(Technique::SaidArgs));
    let (_, model) = routed_turn(&mut agent, "Удали заметку", &["1"]);
    let r = &model.requests()[0];
    assert_eq!(r.forced_reply, None);
    assert_eq!(r.prefix.as_deref(), Some("TOOL_CALL: notes_delete|"));
}

/// A call whose every value was said, or pointed at in a list, is decided outright: the
/// model writes none of it ("Включи второй" plays the second film, no action added).
#[test]
fn a_call_whose_every_value_was_said_is_decided() {
    let mut agent = agent_with_lists(Guidance::default());
    routed_turn(&mut agent, "Найди фильм Матрица", &["Матрица", "Нашла."]);
    let (out, model) = routed_turn(&mut agent, "Включи второй", &["Готово."]);
    assert_eq!(
        model.requests()[0].forced_reply.as_deref(),
        Some("TOOL_CALL: films_play|tt0234215"),
        "{:?}",
        out.route
    );
    assert_eq!(out.executed[0].args.str("id"), Some("tt0234215"));
}

#[test]
fn a_text_the_request_sets_apart_decides_the_call() {
    let mut agent = agent_with(Guidance::default());
    let (out, model) = routed_turn(
        &mut agent,
        "Запиши заметку: позвонить врачу в 9:30.",
        &["Заметка 1 сохранена."],
    );
    assert_eq!(
        out.route.as_ref().unwrap().target.as_deref(),
        Some("notes_add")
    );
    let r = &model.requests()[0];
    assert_eq!(
        r.forced_reply.as_deref(),
        Some("TOOL_CALL: notes_add|позвонить врачу в 9:30")
    );
    assert_eq!(
        out.executed[0].args.str("text"),
        Some("позвонить врачу в 9:30")
    );
}

#[test]
fn a_tool_s_list_is_said_as_its_items_without_numbers_or_ids() {
    // The request's own words whole: where the text starts is `content-start`'s (its test).
    let mut agent = agent_with(Guidance::default().without(Technique::ContentStart));
    agent.register_executor(
        ExecutorTarget::Toolset("notes".into()),
        Arc::new(|_: &ToolInvocation<'_>| {
            Ok("1. купить хлеб\n2. позвонить врачу (завтра) id=tt01\n3) 2 яблока.".to_string())
        }),
    );
    let (out, model) = routed_turn(
        &mut agent,
        "Покажи мои заметки",
        &["купить хлеб, позвонить врачу"],
    );
    assert_eq!(out.executed[0].name, "notes_list");
    let words = model.requests()[1].words.clone().unwrap();
    assert_eq!(
        words,
        ["купить", "хлеб,", "позвонить", "врачу,", "2", "яблока"],
        "{words:?}"
    );
    // The user's own words keep their numbers.
    let (_, model) = routed_turn(
        &mut agent,
        "Запиши заметку 1. хлеб x=2",
        &["1. хлеб x=2", "Ок."],
    );
    let specs = model.requests()[0].call_specs.clone().unwrap();
    assert_eq!(
        specs[0].args[0].kind,
        crate::model::ArgKind::TailOf(
            ["Запиши", "заметку", "1", "хлеб", "x=2"]
                .map(str::to_owned)
                .to_vec()
        )
    );
}

#[test]
fn a_plain_reply_that_repeats_the_request_or_the_prompt_is_not_said() {
    let mut agent = agent_with(Guidance::default().without(Technique::HonestDecline));
    let user = "Объясни, почему небо голубое днём";
    let (out, model) = routed_turn(&mut agent, user, &[&format!("{user}setInput")]);
    assert_eq!(out.route.as_ref().unwrap().target, None, "{:?}", out.route);
    let stop = &model.requests()[0].stop;
    assert!(stop.contains(&user.to_owned()), "{stop:?}");
    assert!(
        stop.contains(&"Ты — Порфирий, голосовой помощник.".to_owned()),
        "{stop:?}"
    );
    // The echo was cut before a word of it was released: the catalog's phrase instead.
    let phrase = Texts::new(Lang::Ru).turn_no_reply();
    assert_eq!(out.reply, phrase);
    assert_eq!(out.streamed, phrase);
    assert_eq!(agent.history("s").last().unwrap().content, phrase);
    // The prompt recited: cut where it begins, what came before stays.
    let (out, _) = routed_turn(
        &mut agent,
        "Придумай стишок про осень",
        &["Листья падают! Ты — Порфирий, голосовой помощник. Отвечай коротко."],
    );
    assert_eq!(out.reply, "Листья падают!");
    // A short greeting may be answered by the same words: no echo stop for it.
    assert_eq!(crate::guidance::echo_stop("Привет!"), None);
    assert_eq!(crate::guidance::echo_stop("Hi there"), None);
    let long = "слово ".repeat(100);
    assert_eq!(
        crate::guidance::echo_stop(&long).unwrap().chars().count(),
        119
    );
}

#[test]
fn a_colon_or_quotes_set_a_text_apart() {
    use crate::guidance::delimited_text as d;
    let some = |s: &str| Some(s.to_owned());
    // After the first colon, not one inside a time; enclosing quotes and final stops go.
    assert_eq!(
        d("Show on my glasses: meeting at 3 pm."),
        some("meeting at 3 pm")
    );
    assert_eq!(d("Запиши: в 9:15 к врачу"), some("в 9:15 к врачу"));
    assert_eq!(d("Покажи на очках: «Перезвоню»!"), some("Перезвоню"));
    assert_eq!(
        d("Напиши: Маша сказала «привет»"),
        some("Маша сказала «привет»")
    );
    // Else the first quoted span, whatever the quotes.
    assert_eq!(d("Поищи «Начало» Нолана"), some("Начало"));
    assert_eq!(
        d("Write 'Be right back' on the screen"),
        some("Be right back")
    );
    assert_eq!(d("Put \"Gate 12\" on my display"), some("Gate 12"));
    assert_eq!(d("Найди „Солярис“ Тарковского"), some("Солярис"));
    assert_eq!(d("Show “Back at 5” please"), some("Back at 5"));
    // Apostrophes inside words quote nothing; a time's colon sets nothing apart.
    assert_eq!(d("What's the capital, isn't it Paris"), None);
    assert_eq!(d("Remind me at 9:15 to call"), None);
    assert_eq!(d("Сделай заметку купить хлеб"), None);
    // Nothing inside, nothing after, or too long to decide: the model fills it in.
    assert_eq!(d("Запиши:   "), None);
    assert_eq!(d("Покажи «»"), None);
    assert_eq!(d(&format!("Запиши: {}", "а".repeat(401))), None);
    // On one line.
    assert_eq!(d("Запиши:\nкупить\n хлеб"), some("купить хлеб"));
}

#[test]
fn a_number_said_in_groups_is_one_word_of_a_text_argument() {
    use crate::guidance::number_groups;
    let words = |s: &str| s.split(' ').map(str::to_owned).collect::<Vec<_>>();
    assert_eq!(
        number_groups(words("Выведи номер 8 800 555-35 35 сейчас")),
        ["Выведи", "номер", "8 800 555-35 35", "сейчас"]
    );
    assert_eq!(
        number_groups(words("at 9 then 10")),
        ["at", "9", "then", "10"]
    );
    assert_eq!(number_groups(words("- +")), ["-", "+"]);
    // The request's own words whole: where the text starts is `content-start`'s.
    let mut agent = agent_with(Guidance::default().without(Technique::ContentStart));
    let (out, model) = routed_turn(
        &mut agent,
        "Запиши заметку номер 8 800 555 35 35",
        &["8 800 555 35 35", "Заметка 1 сохранена."],
    );
    let specs = model.requests()[0].call_specs.clone().unwrap();
    assert_eq!(specs[0].name, "notes_add", "{:?}", out.route);
    assert_eq!(
        specs[0].args[0].kind,
        crate::model::ArgKind::TailOf(vec![
            "Запиши".to_owned(),
            "заметку".to_owned(),
            "номер".to_owned(),
            "8 800 555 35 35".to_owned()
        ])
    );
}

/// R11 (RELIABILITY.md): a routed call's prefix (`TOOL_CALL: notes_add|`) is decoded with the
/// prompt, so a request cut to the budget must leave room for it. Over-long words to note
/// are cut until the request and the prefix fit; the reply room stays free.
#[test]
fn a_routed_call_s_prefix_counts_against_the_context_budget() {
    use crate::agent::compact::ContextBudget;
    use crate::model::Model;
    for filler in [150, 400, 1000] {
        let mut agent = agent_with(Guidance::default());
        let mut user = String::from("Запиши заметку: купить хлеб");
        for _ in 0..filler {
            user.push_str(" и заметку");
        }
        let mut model = ScriptedModel::new(["купить хлеб", "Заметка 1 сохранена."])
            .with_embeddings()
            .with_context(240, 12);
        let out = agent
            .turn("s", &user, &mut model, &CancelToken::new(), &mut |_| {})
            .unwrap();
        let budget = ContextBudget::of(model.context_window().unwrap());
        let r = model.requests();
        assert_eq!(
            r[0].prefix.as_deref(),
            Some("TOOL_CALL: notes_add|"),
            "{filler}: {:?}",
            out.route
        );
        assert!(out.context.messages_cut > 0, "{filler}: {:?}", out.context);
        for (i, req) in r.iter().enumerate() {
            let tokens = req.tokens.unwrap();
            assert!(
                tokens <= budget.request,
                "{filler}, request {i}: {tokens} tokens (prefix included) > {}",
                budget.request
            );
        }
        assert_eq!(out.stop, TurnStop::Answered, "{filler}: {:?}", out.stop);
    }
}

/// A voice user's last partial transcript is routed while they speak: the turn with the same
/// final text takes its embedding from the router instead of the model, and routes the same.
#[test]
fn the_last_partial_is_embedded_once_for_its_turn() {
    use crate::model::{Generation, Model, ModelError, ModelRequest};
    struct Queries {
        inner: ScriptedModel,
        queries: Vec<String>,
    }
    impl Model for Queries {
        fn generate(
            &mut self,
            request: &ModelRequest<'_>,
            on_text: &mut dyn FnMut(&str),
        ) -> Result<Generation, ModelError> {
            self.inner.generate(request, on_text)
        }
        fn embed(&mut self, texts: &[&str]) -> Result<Option<Vec<Vec<f32>>>, ModelError> {
            self.inner.embed(texts)
        }
        fn embed_query(&mut self, text: &str) -> Result<Option<Vec<f32>>, ModelError> {
            self.queries.push(text.to_owned());
            self.inner.embed_query(text)
        }
    }
    let said = "Который час сейчас?";
    let (want, _) = routed_turn(&mut agent_with(Guidance::default()), said, &["10:00."]);

    let mut agent = agent_with(Guidance::default());
    let mut model = Queries {
        inner: ScriptedModel::new(["10:00."]).with_embeddings(),
        queries: Vec::new(),
    };
    agent.hear_partial("s", "Который час", &mut model).unwrap();
    agent.hear_partial("s", said, &mut model).unwrap();
    assert_eq!(model.queries, ["Который час", said]);
    assert!(agent.history("s").is_empty(), "a hint changes nothing");
    let out = agent
        .turn("s", said, &mut model, &CancelToken::new(), &mut |_| {})
        .unwrap();
    assert_eq!(model.queries.len(), 2, "{:?}", model.queries);
    assert_eq!(out.route, want.route);
    assert_eq!(out.executed[0].name, "get_current_time");

    // Another final text is embedded as usual.
    agent
        .turn(
            "s",
            "Покажи мои заметки",
            &mut model,
            &CancelToken::new(),
            &mut |_| {},
        )
        .ok();
    assert_eq!(
        model.queries.last().map(String::as_str),
        Some("Покажи мои заметки")
    );
}

/// A model that writes its script whatever a request asks of its reply (no forced reply,
/// no stops, no cap: the guide is left out before the script is played), and embeds by
/// words: with it, every guidance makes the same history, and what guidance changes in
/// the requests shows alone.
struct Deaf(ScriptedModel);

impl crate::model::Model for Deaf {
    fn generate(
        &mut self,
        request: &crate::model::ModelRequest<'_>,
        on_text: &mut dyn FnMut(&str),
    ) -> Result<crate::model::Generation, crate::model::ModelError> {
        let unguided = crate::model::ModelRequest {
            forced_reply: None,
            guide: Default::default(),
            ..*request
        };
        self.0.generate(&unguided, on_text)
    }
    fn embed(&mut self, texts: &[&str]) -> Result<Option<Vec<Vec<f32>>>, crate::model::ModelError> {
        self.0.embed(texts)
    }
}

/// The requests (system text, messages) of one conversation under `guidance`, with every
/// request's reply written the same. The techniques that decide the reply
/// ([`Technique::decides_reply`]) are off: a route that moves to a conversational intent
/// makes no request at all.
fn requests_under(guidance: Guidance) -> Vec<(String, Vec<crate::model::Message>)> {
    let guidance = Technique::ALL
        .into_iter()
        .filter(|t| t.decides_reply())
        .fold(guidance, Guidance::without);
    let mut agent = agent_with(guidance);
    let turns: [(&str, &[&str]); 5] = [
        (
            "Который час сейчас?",
            &["TOOL_CALL: get_current_time", "10:00, суббота."],
        ),
        (
            "Запиши заметку купить хлеб",
            &["TOOL_CALL: notes_add|купить хлеб", "Заметка 1 сохранена."],
        ),
        (
            "Запиши: забрать посылку",
            &[
                "TOOL_CALL: notes_add|забрать посылку",
                "Заметка 2 сохранена.",
            ],
        ),
        ("Почему небо голубое?", &["Из-за рассеяния света."]),
        (
            "Удали вторую заметку",
            &["TOOL_CALL: notes_delete|2", "Готово, удалена."],
        ),
    ];
    let mut model = Deaf(
        ScriptedModel::new(turns.iter().flat_map(|(_, o)| o.iter().copied())).with_embeddings(),
    );
    for (user, _) in turns {
        let out = agent
            .turn("s", user, &mut model, &CancelToken::new(), &mut |_| {})
            .unwrap();
        assert_eq!(out.stop, TurnStop::Answered, "{user}");
    }
    model
        .0
        .requests()
        .iter()
        .map(|r| (r.system.clone(), r.messages.clone()))
        .collect()
}

/// The guidance invariant (ARCHITECTURE.md): guidance narrows what a request may produce
/// and what the turn does with the reply; it never edits the history or a request's
/// messages. For every technique switched off alone, and for no guidance at all, the
/// requests of one conversation carry the same system text and messages as under the
/// default guidance — but for the two techniques that decide what the prompt shows.
#[test]
fn guidance_never_edits_a_request_s_messages() {
    let shipped = requests_under(Guidance::default());
    assert_eq!(shipped.len(), 9);
    let mut variants: Vec<(String, Guidance)> = Technique::ALL
        .into_iter()
        .filter(|t| !t.shapes_prompt() && !t.decides_reply())
        .map(|t| (format!("without {t}"), Guidance::default().without(t)))
        .collect();
    let mut none = Guidance::none();
    none.set(Technique::HideUnexecutable, true);
    variants.push(("none (the same sets shown)".into(), none));
    for (name, guidance) in variants {
        assert!(requests_under(guidance) == shipped, "{name}");
    }
    // The two that shape the prompt do change it.
    for t in [Technique::FewShot, Technique::HideUnexecutable] {
        let g = Guidance::default();
        let flipped = if g.is_on(t) { g.without(t) } else { g.with(t) };
        let other = requests_under(flipped);
        assert!(other != shipped, "{t}");
        assert_eq!(other.len(), shipped.len(), "{t}");
    }
}

const FILMS: &str = "\
name: films
description: фильмы
tools:
  - name: films_search
    description: найти фильм
    args:
      - {name: query, type: string, required: true}
    examples:
      ru: [\"Найди фильм Титаник\", \"Поищи кино про войну\"]
  - name: films_info
    description: о фильме
    args:
      - {name: id, type: string, required: true}
    examples:
      ru: [\"Расскажи подробнее про фильм\"]
  - name: films_play
    description: включить
    args:
      - {name: id, type: string, required: true}
      - {name: action, type: enum, values: [play, pause, stop], required: false, said: {stop: [останови, стоп]}}
    examples:
      ru: [\"Запусти найденный фильм\", \"Поставь на паузу\", \"Останови просмотр\"]
";

/// An agent with notes that list two and add the third, and films found by id.
fn agent_with_lists(guidance: Guidance) -> Agent {
    let clock = ManualClock::parse("2026-08-22T10:00:00+03:00").unwrap();
    let toolsets = ToolsetRegistry::from_toolsets([
        parse_toolset(NOTES, Path::new("notes.yaml")).unwrap(),
        parse_toolset(FILMS, Path::new("films.yaml")).unwrap(),
    ]);
    let config = AgentConfig {
        guidance,
        ..AgentConfig::default()
    };
    let mut agent = Agent::new(config, SkillRegistry::default(), toolsets, Arc::new(clock));
    agent.register_executor(
        ExecutorTarget::Toolset("notes".into()),
        Arc::new(|c: &ToolInvocation<'_>| {
            Ok(match c.tool {
                "notes_list" => "1. купить хлеб\n2. позвонить врачу".to_string(),
                "notes_add" => "Заметка 3 сохранена.".to_string(),
                _ => "Заметка удалена.".to_string(),
            })
        }),
    );
    agent.register_executor(
        ExecutorTarget::Toolset("films".into()),
        Arc::new(|c: &ToolInvocation<'_>| {
            Ok(match c.tool {
                "films_search" => {
                    "1. Матрица (1999) id=tt0133093\n2. Матрица 2 (2003) id=tt0234215".to_string()
                }
                _ => "Готово.".to_string(),
            })
        }),
    );
    agent
}

#[test]
fn a_follow_up_points_at_an_item_of_the_latest_list() {
    // The references alone: the item's id is the one value the model may write (with
    // `said-args` the call is decided outright: `a_call_whose_every_value_was_said_is_decided`).
    let mut agent = agent_with_lists(Guidance::default().without(Technique::SaidArgs));
    let (out, _) = routed_turn(&mut agent, "Найди фильм Матрица", &["Матрица", "Нашла."]);
    assert_eq!(out.executed[0].name, "films_search");
    // «Включи второй»: no new search; the runtime fills in the id.
    let (out, model) = routed_turn(&mut agent, "Включи второй", &["tt0234215", "Готово."]);
    assert_eq!(
        out.route.as_ref().unwrap().target.as_deref(),
        Some("films_play")
    );
    let r = &model.requests()[0];
    assert_eq!(r.prefix.as_deref(), Some("TOOL_CALL: films_play|"));
    let spec = &r.call_specs.as_ref().unwrap()[0];
    assert_eq!(
        spec.args[0].kind,
        crate::model::ArgKind::OneOf(vec!["tt0234215".into()])
    );
    // A call of one id is decided outright; "it" is the film the conversation is about.
    let (out, model) = routed_turn(&mut agent, "Расскажи подробнее про него", &["Готово."]);
    assert_eq!(
        out.route.as_ref().unwrap().target.as_deref(),
        Some("films_info")
    );
    assert_eq!(
        model.requests()[0].forced_reply.as_deref(),
        Some("TOOL_CALL: films_info|tt0234215")
    );

    // An item named by its words: the 1999 one, not the film the conversation is about.
    let (out, model) = routed_turn(&mut agent, "Включи фильм 1999 года", &["Готово."]);
    let forced = model.requests()[0].forced_reply.clone().unwrap_or_default();
    assert!(forced.ends_with("|tt0133093"), "{forced:?} {:?}", out.route);

    // Notes: «последнюю» is the list's last, «её» the note just added.
    let (out, _) = routed_turn(&mut agent, "Покажи мои заметки", &["купить хлеб"]);
    assert_eq!(out.executed[0].name, "notes_list");
    let (out, model) = routed_turn(&mut agent, "Удали последнюю", &["Готово."]);
    assert_eq!(
        model.requests()[0].forced_reply.as_deref(),
        Some("TOOL_CALL: notes_delete|2"),
        "{:?}",
        out.route
    );
    // An item named by its words: the note about the doctor.
    routed_turn(&mut agent, "Покажи мои заметки", &["купить хлеб"]);
    let (out, model) = routed_turn(&mut agent, "Удали ту, что про врача", &["Готово."]);
    assert_eq!(
        model.requests()[0].forced_reply.as_deref(),
        Some("TOOL_CALL: notes_delete|2"),
        "{:?}",
        out.route
    );
    let (out, _) = routed_turn(
        &mut agent,
        "Запиши заметку купить молоко",
        &["купить молоко", "Ок."],
    );
    assert_eq!(
        out.executed[0].name, "notes_add",
        "{:?} {:?}",
        out.route, out.executed
    );
    let (_, model) = routed_turn(&mut agent, "Ой, удали её", &["Готово."]);
    assert_eq!(
        model.requests()[0].forced_reply.as_deref(),
        Some("TOOL_CALL: notes_delete|3")
    );

    // Without the technique the model is left to copy the id.
    let mut agent = agent_with_lists(Guidance::default().without(Technique::References));
    routed_turn(&mut agent, "Найди фильм Матрица", &["Матрица", "Нашла."]);
    let (_, model) = routed_turn(&mut agent, "Расскажи подробнее про него", &["x", "Готово."]);
    assert_eq!(model.requests()[0].forced_reply, None);
}

/// An agent with notes only (listing one note) whose tools run only once their set is
/// enabled (no direct execution): a routed notes tool is a decided switch first.
fn notes_by_switch() -> Agent {
    let clock = ManualClock::parse("2026-08-22T10:00:00+03:00").unwrap();
    let toolsets =
        ToolsetRegistry::from_toolsets([parse_toolset(NOTES, Path::new("notes.yaml")).unwrap()]);
    let config = AgentConfig {
        direct_execution: false,
        ..AgentConfig::default()
    };
    let mut agent = Agent::new(config, SkillRegistry::default(), toolsets, Arc::new(clock));
    agent.register_executor(
        ExecutorTarget::Toolset("notes".into()),
        Arc::new(|_: &ToolInvocation<'_>| Ok("1. купить хлеб".to_string())),
    );
    agent
}

#[test]
fn a_routed_switch_asks_nothing_of_the_model() {
    let mut agent = notes_by_switch();
    let mut model = ScriptedModel::new(["купить хлеб"]).with_embeddings();
    let mut enabled = Vec::new();
    let out = agent
        .turn(
            "s",
            "Покажи мои заметки",
            &mut model,
            &CancelToken::new(),
            &mut |e| {
                if let AgentEvent::ToolsetEnabled { name } = e {
                    enabled.push(name);
                }
            },
        )
        .unwrap();
    // The switch came first, yet no request was made for it: the model's first request
    // already sees the set active and is the routed call.
    assert_eq!(enabled, ["notes"]);
    let r = model.requests();
    assert_eq!(r[0].forced_reply.as_deref(), Some("TOOL_CALL: notes_list"));
    assert_eq!(
        out.executed
            .iter()
            .map(|e| e.name.as_str())
            .collect::<Vec<_>>(),
        ["notes_list"]
    );
    assert_eq!(out.reply, "купить хлеб");
}

#[test]
fn a_value_the_request_says_is_the_argument() {
    let mut agent = agent_with_lists(Guidance::default());
    routed_turn(&mut agent, "Найди фильм Матрица", &["Матрица", "Нашла."]);
    let (out, model) = routed_turn(&mut agent, "Поставь на паузу, pause", &["Готово."]);
    assert_eq!(
        out.route.as_ref().unwrap().target.as_deref(),
        Some("films_play")
    );
    assert_eq!(
        model.requests()[0].forced_reply.as_deref(),
        Some("TOOL_CALL: films_play|tt0133093|pause")
    );
    // A word said for a value (`said:`): «останови» is `stop`.
    let (_, model) = routed_turn(&mut agent, "Останови просмотр", &["Готово."]);
    assert_eq!(
        model.requests()[0].forced_reply.as_deref(),
        Some("TOOL_CALL: films_play|tt0133093|stop")
    );
    // Off (and no argument taken from what was said): the model chooses the action.
    let mut agent = agent_with_lists(
        Guidance::default()
            .without(Technique::SaidValue)
            .without(Technique::SaidArgs),
    );
    routed_turn(&mut agent, "Найди фильм Матрица", &["Матрица", "Нашла."]);
    let (_, model) = routed_turn(
        &mut agent,
        "Поставь на паузу, pause",
        &["tt0133093", "Готово."],
    );
    assert_eq!(model.requests()[0].forced_reply, None);
}

#[test]
fn a_word_said_for_a_value_routes_to_its_tool_while_the_list_is_recent() {
    let mut agent = agent_with_lists(Guidance::default());
    routed_turn(&mut agent, "Найди фильм Матрица", &["Матрица", "Нашла."]);
    // No pointer, no words of the tool's examples: the said word «стоп» names films_play.
    let (out, model) = routed_turn(&mut agent, "Ну всё, стоп", &["Готово."]);
    assert_eq!(
        out.route.as_ref().unwrap().target.as_deref(),
        Some("films_play")
    );
    assert_eq!(
        model.requests()[0].forced_reply.as_deref(),
        Some("TOOL_CALL: films_play|tt0133093|stop")
    );
    // Without a list of the set, the word routes like any other.
    let mut agent = agent_with_lists(Guidance::default());
    let (out, _) = routed_turn(&mut agent, "Ну всё, стоп", &["Хорошо."]);
    assert_ne!(
        out.route.as_ref().and_then(|r| r.target.as_deref()),
        Some("films_play")
    );
}

#[test]
fn a_question_of_tomorrow_is_answered_from_the_clock() {
    let mut agent = agent_with(Guidance::default());
    let (out, model) = routed_turn(&mut agent, "А завтра какой день недели будет?", &[]);
    assert_eq!(out.reply, "Завтра — воскресенье, 23 августа.");
    assert!(out.computed && model.requests().is_empty());
    // Off: the turn goes to the model.
    let mut agent = agent_with(Guidance::default().without(Technique::DayQuestions));
    let (out, model) = routed_turn(
        &mut agent,
        "А завтра какой день недели будет?",
        &["10:00.", "Суббота."],
    );
    assert!(!out.computed && !model.requests().is_empty());
}

/// A partial transcript routed to a tool of an inactive set prepares the request after the
/// switch: the turn's first model request is the one prefilled while the user spoke.
/// A scripted model that records what it was asked to decode ahead.
struct Prepared {
    inner: ScriptedModel,
    prefills: Vec<(String, Vec<crate::model::Message>)>,
}

impl Model for Prepared {
    fn generate(
        &mut self,
        request: &crate::model::ModelRequest<'_>,
        on_text: &mut dyn FnMut(&str),
    ) -> Result<crate::model::Generation, ModelError> {
        self.inner.generate(request, on_text)
    }
    fn decode_ahead(&mut self, r: &crate::model::ModelRequest<'_>) -> Result<(), ModelError> {
        self.prefills
            .push((r.system.to_owned(), r.messages.to_vec()));
        Ok(())
    }
    fn embed(&mut self, texts: &[&str]) -> Result<Option<Vec<Vec<f32>>>, ModelError> {
        self.inner.embed(texts)
    }
}

#[test]
fn a_partial_routed_to_an_inactive_set_prepares_the_request_after_the_switch() {
    let mut agent = notes_by_switch();
    let mut model = Prepared {
        inner: ScriptedModel::new(["купить хлеб"]).with_embeddings(),
        prefills: Vec::new(),
    };
    let said = "Покажи мои заметки";
    agent.hear_partial("s", said, &mut model).unwrap();
    // Preparing changed nothing in the session.
    assert!(agent.sessions.get("s").is_none_or(|s| s.active.is_empty()));
    agent
        .turn("s", said, &mut model, &CancelToken::new(), &mut |_| {})
        .unwrap();
    let first = &model.inner.requests()[0];
    assert_eq!(first.forced_reply.as_deref(), Some("TOOL_CALL: notes_list"));
    assert_eq!(
        model.prefills[0],
        (first.system.clone(), first.messages.clone())
    );
}

/// Direct execution: a decided call of a tool of an inactive set opens the set before the
/// turn's first request, so the request after the call only adds the call and its reply, and
/// the partial transcript prepared that first request.
#[test]
fn a_set_a_direct_call_opened_shows_from_the_turn_s_end_decoded_ahead() {
    let mut agent = agent_with(Guidance::default());
    let mut model = Prepared {
        inner: ScriptedModel::new(["Заметка сохранена.", "У тебя одна заметка."]).with_embeddings(),
        prefills: Vec::new(),
    };
    let said = "Запиши: купить хлеб";
    agent.hear_partial("s", said, &mut model).unwrap();
    let mut enabled = Vec::new();
    let out = agent
        .turn("s", said, &mut model, &CancelToken::new(), &mut |e| {
            if let AgentEvent::ToolsetEnabled { name } = e {
                enabled.push(name);
            }
        })
        .unwrap();
    assert_eq!(out.executed[0].name, "notes_add");
    assert_eq!(enabled, ["notes"], "told once");
    let r = model.inner.requests();
    assert_eq!(
        r[0].forced_reply.as_deref(),
        Some("TOOL_CALL: notes_add|купить хлеб")
    );
    // The turn's requests keep the state as it was: the partial prepared the first, and
    // the request after the call adds only the call and its reply.
    let shows_notes = |m: &[crate::model::Message]| {
        m.iter()
            .any(|m| m.role == crate::model::Role::User && m.content.contains("notes_add"))
    };
    assert!(!shows_notes(&r[0].messages) && !shows_notes(&r[1].messages));
    assert_eq!(
        model.prefills[0],
        (r[0].system.clone(), r[0].messages.clone())
    );
    assert_eq!(r[1].messages[..r[0].messages.len()], r[0].messages[..]);
    assert_eq!(
        r[1].messages.len(),
        r[0].messages.len() + 2,
        "the call and its reply"
    );
    // At the turn's end the new state goes after the reply and is decoded ahead, with the
    // opening of the user's next message.
    let (system, ahead) = model.prefills.last().unwrap().clone();
    assert_eq!(model.prefills.len(), 2);
    let n = ahead.len();
    assert!(shows_notes(&ahead[n - 2..n - 1]), "{:?}", ahead[n - 2]);
    assert_eq!(ahead[n - 1].content, "");
    assert_eq!(ahead[n - 3].content, out.reply);
    // The next turn's request starts with exactly that head.
    agent
        .turn(
            "s",
            "Что у меня записано?",
            &mut model,
            &CancelToken::new(),
            &mut |_| {},
        )
        .unwrap();
    let next = model.inner.requests().last().unwrap().clone();
    assert_eq!(next.system, system);
    assert_eq!(next.messages[..n - 1], ahead[..n - 1]);
    assert_eq!(model.prefills.len(), 2, "an ordinary turn holds nothing");
}

#[test]
fn a_question_of_units_of_time_is_computed() {
    let mut agent = agent_with(Guidance::default());
    let (out, model) = routed_turn(&mut agent, "А сколько минут в часе?", &[]);
    assert_eq!(out.reply, "В часе 60 минут.");
    assert!(out.computed && model.requests().is_empty());
    // In the language of the message.
    let (out, _) = routed_turn(&mut agent, "How many days are there in a week?", &[]);
    assert_eq!(out.reply, "There are 7 days in a week.");
    // Off: the turn goes to the model.
    let mut agent = agent_with(Guidance::default().without(Technique::UnitQuestions));
    let (out, model) = routed_turn(&mut agent, "А сколько минут в часе?", &["Шестьдесят."]);
    assert!(!out.computed && !model.requests().is_empty());
}

#[test]
fn a_question_of_how_a_skill_s_subject_works_reads_the_skill() {
    // Nearest to a media search by its words; it asks how films are handled.
    let said = "Как ты работаешь с фильмами?";
    // The media set runs here, so its skill is advertised.
    let with_media = |guidance: Guidance| {
        let mut agent = agent_with(guidance);
        agent.register_executor(
            ExecutorTarget::Toolset("media".into()),
            Arc::new(|_: &ToolInvocation<'_>| Ok("1. Титаник id=tt1".to_string())),
        );
        agent
    };
    let first = |guidance: Guidance| {
        let mut agent = with_media(guidance);
        let (out, model) = routed_turn(&mut agent, said, &["Сначала поиск, потом просмотр."]);
        let route = out.route.and_then(|r| r.target);
        (
            route,
            model
                .requests()
                .first()
                .and_then(|r| r.forced_reply.clone()),
        )
    };
    let (route, forced) = first(Guidance::default());
    assert_eq!(route.as_deref(), Some("read_skill"));
    assert_eq!(forced.as_deref(), Some("TOOL_CALL: read_skill|media"));
    let (route, _) = first(Guidance::default().without(Technique::SkillQuestions));
    assert_ne!(
        route.as_deref(),
        Some("read_skill"),
        "the words pull elsewhere"
    );
    // A request about films that asks no how-to goes where it went.
    let mut agent = with_media(Guidance::default());
    let (out, _) = routed_turn(&mut agent, "Найди фильм про космос", &["Ищу."]);
    assert_ne!(
        out.route.and_then(|r| r.target).as_deref(),
        Some("read_skill")
    );
}

#[test]
fn an_id_said_aloud_routes_to_a_tool_that_takes_it_and_is_its_argument() {
    // No search yet: a tool that needs an id is routable only because the request says one.
    let mut agent = agent_with_lists(Guidance::default());
    let (out, model) = routed_turn(
        &mut agent,
        "Расскажи подробнее про фильм tt0234215",
        &["Готово."],
    );
    assert_eq!(
        out.route.as_ref().unwrap().target.as_deref(),
        Some("films_info")
    );
    assert_eq!(
        model.requests()[0].forced_reply.as_deref(),
        Some("TOOL_CALL: films_info|tt0234215")
    );
    // After a search, the id said beats the list's first item.
    let mut agent = agent_with_lists(Guidance::default());
    routed_turn(&mut agent, "Найди фильм Матрица", &["Матрица", "Нашла."]);
    let (_, model) = routed_turn(
        &mut agent,
        "Расскажи подробнее про фильм tt0234215",
        &["Готово."],
    );
    assert_eq!(
        model.requests()[0].forced_reply.as_deref(),
        Some("TOOL_CALL: films_info|tt0234215")
    );
    // Saying no id before any search, the same words are no call by id.
    let mut agent = agent_with_lists(Guidance::default());
    let (out, _) = routed_turn(&mut agent, "Расскажи подробнее про фильм", &["Хорошо."]);
    assert_ne!(
        out.route.as_ref().and_then(|r| r.target.as_deref()),
        Some("films_info")
    );
}

#[test]
fn after_a_skill_read_the_reply_says_what_its_set_does_and_a_request_to_say() {
    let notes = "\
name: notes
description: заметки
spoken: {ru: \"записывать и показывать заметки\", en: \"take and list notes\"}
tools:
  - name: notes_add
    description: записать заметку
    args:
      - {name: text, type: string, required: true}
    examples:
      ru: [\"Запиши: купить молоко.\"]
      en: [\"Write down: buy milk\"]
  - name: notes_list
    description: показать заметки
    examples:
      ru: [\"Покажи мои заметки\"]
";
    let agent = |guidance: Guidance| {
        let clock = ManualClock::parse("2026-08-22T10:00:00+03:00").unwrap();
        let skills = SkillRegistry::from_skills([skill(
            "---\nname: notes\ndescription: как вести заметки\ntoolset: notes\n---\nШаги.",
        )]);
        let toolsets =
            ToolsetRegistry::from_toolsets(
                [parse_toolset(notes, Path::new("notes.yaml")).unwrap()],
            );
        let config = AgentConfig {
            guidance,
            ..AgentConfig::default()
        };
        let mut agent = Agent::new(config, skills, toolsets, Arc::new(clock));
        agent.register_executor(
            ExecutorTarget::Toolset("notes".into()),
            Arc::new(|_: &ToolInvocation<'_>| Ok("1. купить хлеб".to_string())),
        );
        agent
    };
    let mut a = agent(Guidance::default());
    let (out, model) = routed_turn(&mut a, "Как у тебя устроены заметки?", &[]);
    assert_eq!(out.executed[0].name, "read_skill");
    assert_eq!(
        out.reply,
        "Я умею записывать и показывать заметки. Например, скажите: «Запиши: купить молоко»."
    );
    // Decided: the model writes neither the call nor the answer.
    assert!(model.requests().iter().all(|r| r.forced_reply.is_some()));
    // In the language of the message.
    let (out, _) = routed_turn(&mut a, "How do notes work here?", &[]);
    assert_eq!(
        out.reply,
        "I can take and list notes. For example, say: \"Write down: buy milk\"."
    );
    // Off: the model answers after the skill.
    let mut a = agent(Guidance::default().without(Technique::SkillSummary));
    let (out, _) = routed_turn(
        &mut a,
        "Как у тебя устроены заметки?",
        &["Записываю по просьбе."],
    );
    assert_eq!(out.executed[0].name, "read_skill");
    assert_eq!(out.reply, "Записываю по просьбе.");
}

/// A tool's action said by a word its set gives for it (`said:`) routes to it, however the
/// rest of the request's words pull, unless the word is negated or another tool's is said.
#[test]
fn a_request_that_says_a_tool_s_action_is_routed_to_it() {
    const SAID: &str = "\
name: notes
description: заметки
tools:
  - name: notes_list
    description: показать заметки
    examples:
      ru: [\"Покажи мои заметки\", \"Какие у меня заметки\"]
  - name: notes_delete
    description: удалить заметку
    said: [вычеркнуть, выкинуть]
    args:
      - {name: number, type: integer, required: true}
    examples:
      ru: [\"Удали заметку номер три\"]
";
    let route = |guidance: Guidance, text: &str| route_in_notes(SAID, guidance, text);
    // The words of the request are not the deletion's examples' words.
    let said = "Вычеркни мои заметки";
    let delete = Some("notes_delete");
    assert_ne!(
        route(Guidance::default().without(Technique::SaidAction), said).as_deref(),
        delete
    );
    assert_eq!(route(Guidance::default(), said).as_deref(), delete);
    assert_eq!(
        route(Guidance::default(), "Выкинь мои заметки, покажи их").as_deref(),
        delete
    );
    assert_ne!(
        route(Guidance::default(), "Не вычеркивай мои заметки").as_deref(),
        delete
    );
    // A core tool's words: the display `show_text` writes on (here over the listing's words).
    let glasses = "Покажи мои заметки на очках";
    assert_ne!(
        route(Guidance::default().without(Technique::SaidAction), glasses).as_deref(),
        Some("show_text")
    );
    assert_eq!(
        route(Guidance::default(), glasses).as_deref(),
        Some("show_text")
    );
    // A set's verb and a core tool's word: the set's verb is the more telling.
    let both = "Вычеркни мои заметки на очки";
    assert_eq!(route(Guidance::default(), both).as_deref(), delete);
    assert_ne!(
        route(Guidance::default().without(Technique::SaidAction), both).as_deref(),
        delete
    );
}

/// A question of what is there, routed to a tool that keeps a text, goes to the set's
/// lister; a request to keep one, even asked as a question, stays.
#[test]
fn a_question_of_what_was_kept_goes_to_the_set_s_lister() {
    let route = |guidance: Guidance, text: &str| {
        let mut agent = agent_with(guidance);
        let mut model = ScriptedModel::new(Vec::<String>::new()).with_embeddings();
        agent.route("s", text, &mut model).and_then(|r| r.target)
    };
    let asked = "Что за заметку купить молоко я добавил?";
    assert_eq!(
        route(Guidance::default().without(Technique::QuestionLists), asked).as_deref(),
        Some("notes_add")
    );
    assert_eq!(
        route(Guidance::default(), asked).as_deref(),
        Some("notes_list")
    );
    let request = "Можешь добавить заметку купить молоко?";
    assert_eq!(
        route(Guidance::default(), request).as_deref(),
        Some("notes_add")
    );
}

/// A request going on with the previous turn's («И ещё …», "… too") is for the tool that
/// turn called; a question, or a request said alone, is routed on its own words.
#[test]
fn a_request_going_on_with_the_last_is_for_the_tool_it_called() {
    let target = |out: &TurnOutcome| out.route.as_ref().and_then(|r| r.target.clone());
    let run = |guidance: Guidance, then: &str| {
        let mut agent = agent_with_lists(guidance);
        let (out, _) = routed_turn(
            &mut agent,
            "Запиши заметку купить молоко",
            &["купить молоко", "Ок."],
        );
        assert_eq!(out.executed[0].name, "notes_add");
        let (out, _) = routed_turn(&mut agent, then, &["x", "Ок."]);
        target(&out)
    };
    let more = "И ещё закажи пиццу";
    assert_ne!(
        // (A follow-up staying in the set the last turn acted in is the same evidence
        // for a set's tool: switched off too, to see this one alone.)
        run(
            Guidance::default()
                .without(Technique::Continuation)
                .without(Technique::StayInSet),
            more
        )
        .as_deref(),
        Some("notes_add")
    );
    assert_eq!(run(Guidance::default(), more).as_deref(), Some("notes_add"));
    // Said alone, or asked, it is no continuation.
    assert_ne!(
        run(Guidance::default(), "Закажи пиццу").as_deref(),
        Some("notes_add")
    );
    assert_ne!(
        run(Guidance::default(), "И ещё, какая погода?").as_deref(),
        Some("notes_add")
    );
}

/// "The older one", «поновее» point at the list's item of the earliest or latest year.
#[test]
fn an_item_older_or_newer_is_the_one_of_its_year() {
    for (request, id) in [
        ("Включи тот, что постарше", "tt0133093"),
        ("Включи тот, что поновее", "tt0234215"),
    ] {
        let mut agent = agent_with_lists(Guidance::default().without(Technique::SaidArgs));
        routed_turn(&mut agent, "Найди фильм Матрица", &["Матрица", "Нашла."]);
        let (out, model) = routed_turn(&mut agent, request, &[id, "Готово."]);
        let r = &model.requests()[0];
        let spec = &r.call_specs.as_ref().expect(request)[0];
        assert_eq!(
            spec.args[0].kind,
            crate::model::ArgKind::OneOf(vec![id.into()]),
            "{request}: {:?}",
            out.route
        );
    }
}

/// «Он», «её» after a list point at its item for sure: no clock, no plain reply.
#[test]
fn a_pronoun_after_a_list_is_about_its_item() {
    let mut agent = agent_with_lists(Guidance::default());
    routed_turn(&mut agent, "Найди фильм Матрица", &["Матрица", "Нашла."]);
    let mut model = ScriptedModel::new(Vec::<String>::new()).with_embeddings();
    let route = agent.route("s", "Сколько времени он идёт?", &mut model);
    let target = route.and_then(|r| r.target).unwrap_or_default();
    assert!(target.starts_with("films_"), "{target}");
}

/// "The last one" before any list is shown: the list is read first, no guessed number is
/// deleted; once the list is known, the last item is deleted.
#[test]
fn the_last_item_before_a_list_is_shown_reads_the_list_first() {
    let target = |out: &TurnOutcome| out.route.as_ref().and_then(|r| r.target.clone());
    let request = "Удали последнюю заметку";
    let mut agent = agent_with_lists(Guidance::default().without(Technique::References));
    let (out, _) = routed_turn(&mut agent, request, &["1", "Удалила."]);
    assert_eq!(target(&out).as_deref(), Some("notes_delete"));
    let mut agent = agent_with_lists(Guidance::default());
    let (out, _) = routed_turn(&mut agent, request, &["Вот они."]);
    assert_eq!(target(&out).as_deref(), Some("notes_list"));
    assert_eq!(out.executed[0].name, "notes_list");
    let (out, model) = routed_turn(&mut agent, request, &["Удалила."]);
    assert_eq!(target(&out).as_deref(), Some("notes_delete"));
    assert_eq!(
        model.requests()[0].forced_reply.as_deref(),
        Some("TOOL_CALL: notes_delete|2")
    );
    // A number said is a place without a list.
    let mut agent = agent_with_lists(Guidance::default());
    let (out, _) = routed_turn(&mut agent, "Удали вторую заметку", &["Удалила."]);
    assert_eq!(target(&out).as_deref(), Some("notes_delete"));
}

/// "Remind me which notes I added" asks what is kept: the list, not a new note of its words.
#[test]
fn a_question_told_after_remind_me_reads_the_list() {
    let request = "Напомни, какие заметки я добавлял";
    let mut model = ScriptedModel::new(Vec::<String>::new()).with_embeddings();
    let route = |guidance: Guidance, model: &mut ScriptedModel| {
        let mut agent = agent_with_lists(guidance);
        agent
            .route("s", request, model)
            .and_then(|r| r.target)
            .unwrap_or_default()
    };
    let without = route(
        Guidance::default().without(Technique::QuestionLists),
        &mut model,
    );
    assert_eq!(without, "notes_add");
    assert_eq!(route(Guidance::default(), &mut model), "notes_list");
}

#[test]
fn a_long_message_is_routed_by_its_head() {
    // The request, then more than routing reads of filler, then another tool's words many
    // times: what the message asks is said at its head.
    let request = "Покажи мои заметки ";
    let filler = "ну ".repeat(400);
    let tail = "Добавь заметку купить хлеб ".repeat(100);
    let message = format!("{request}{filler}{tail}");
    let mut model = ScriptedModel::new(Vec::<String>::new()).with_embeddings();
    let mut agent = agent_with_lists(Guidance::default());
    let routed = |agent: &mut Agent, text: &str, model: &mut ScriptedModel| {
        agent
            .route("s", text, model)
            .and_then(|r| r.target)
            .unwrap_or_default()
    };
    assert_eq!(routed(&mut agent, request, &mut model), "notes_list");
    assert_eq!(routed(&mut agent, &message, &mut model), "notes_list");
}

/// A request opening as only one tool's examples open («Запиши…» opens notes_add's alone)
/// is for that tool, though its other words are nearer another's ("номер три" of «Удали
/// заметку номер три»); addressed by the assistant's name first, it opens the same.
#[test]
fn a_request_opening_as_one_tool_s_examples_alone_open_is_for_that_tool() {
    let route = |guidance: Guidance, text: &str| {
        let mut agent = agent_with(guidance);
        let mut model = ScriptedModel::new(Vec::<String>::new()).with_embeddings();
        agent.route("s", text, &mut model).and_then(|r| r.target)
    };
    for request in [
        "Запиши, что номер три у мастера",
        "Порфирий, запиши: первую заметку сотри",
    ] {
        assert_eq!(
            route(
                Guidance::default().without(Technique::OpeningWords),
                request
            )
            .as_deref(),
            Some("notes_delete"),
            "{request}"
        );
        assert_eq!(
            route(Guidance::default(), request).as_deref(),
            Some("notes_add"),
            "{request}"
        );
    }
}

/// A request to show what names a set's subject and no place to show it on («Выведи
/// напоминание из заметок») asks for the set, not for a text on the glasses; said with a place
/// («Покажи на экране слово заметки») it shows the text.
#[test]
fn a_request_to_show_a_set_s_subject_without_a_place_is_for_the_set() {
    let route = |guidance: Guidance, text: &str| {
        let mut agent = agent_with(guidance);
        let mut model = ScriptedModel::new(Vec::<String>::new()).with_embeddings();
        agent.route("s", text, &mut model).and_then(|r| r.target)
    };
    let request = "Выведи напоминание из заметок";
    let without = route(Guidance::default().without(Technique::SaidAction), request);
    assert_eq!(without.as_deref(), Some("show_text"));
    let with = route(Guidance::default(), request);
    assert!(with.is_some_and(|t| t.starts_with("notes_")), "{request}");
    for request in [
        "Покажи на экране слово заметки",
        "Show the word films on my glasses",
    ] {
        assert_eq!(
            route(Guidance::default(), request).as_deref(),
            Some("show_text"),
            "{request}"
        );
    }
}

#[test]
fn a_request_going_on_with_nothing_before_it_goes_on_with_the_one_active_set() {
    let route = |guidance: Guidance, active: &[&str], text: &str| {
        let mut agent = agent_with(guidance);
        agent.register_executor(
            ExecutorTarget::Toolset("media".into()),
            Arc::new(|_: &ToolInvocation<'_>| Ok("1. Up (2009) id=tt1049413".to_string())),
        );
        for set in active {
            agent.enable_toolset("s", set).unwrap();
        }
        let mut model = ScriptedModel::new(Vec::<String>::new()).with_embeddings();
        agent.route("s", text, &mut model).and_then(|r| r.target)
    };
    let request = "and also the car wash tokens";
    let without = route(
        Guidance::default().without(Technique::Continuation),
        &["notes"],
        request,
    );
    assert!(
        without.as_deref().is_none_or(|t| !t.starts_with("notes_")),
        "{without:?}"
    );
    let with = route(Guidance::default(), &["notes"], request);
    assert!(with.is_some_and(|t| t.starts_with("notes_")), "{request}");
    // Nothing active, or two sets: nothing to go on with, the route is the router's.
    for active in [&[][..], &["notes", "media"][..]] {
        let off = Guidance::default().without(Technique::Continuation);
        assert_eq!(
            route(Guidance::default(), active, request),
            route(off, active, request),
            "{active:?}"
        );
    }
}

/// Where `text` is routed in a session with one notes set declared by `notes` (with an
/// executor, so the set is offered).
fn route_in_notes(notes: &str, guidance: Guidance, text: &str) -> Option<String> {
    let set = parse_toolset(notes, Path::new("notes.yaml")).unwrap();
    let config = AgentConfig {
        guidance,
        ..AgentConfig::default()
    };
    let mut agent = Agent::new(
        config,
        SkillRegistry::default(),
        ToolsetRegistry::from_toolsets([set]),
        Arc::new(ManualClock::parse("2026-08-22T10:00:00+03:00").unwrap()),
    );
    agent.register_executor(
        ExecutorTarget::Toolset("notes".into()),
        Arc::new(|_: &ToolInvocation<'_>| Ok("1. купить хлеб".to_string())),
    );
    let mut model = ScriptedModel::new(Vec::<String>::new()).with_embeddings();
    agent.route("s", text, &mut model).and_then(|r| r.target)
}

#[test]
fn a_word_of_deleting_in_what_a_note_says_does_not_delete() {
    // The notes, their deleting said by its own verbs (`said:`).
    let notes = NOTES.replace(
        "    description: удалить заметку\n",
        "    description: удалить заметку\n    said: [выкинуть, сотри]\n",
    );
    assert!(notes.contains("said:"));
    let routed = |guidance: Guidance, text: &str| route_in_notes(&notes, guidance, text);
    // The request opens as only the adding examples open: the verb is in the note.
    let note = "Запиши выкинуть старый диван";
    assert_eq!(
        routed(Guidance::default(), note).as_deref(),
        Some("notes_add")
    );
    // Opening with no tool's verb, the word says the action.
    assert_eq!(
        routed(Guidance::default(), "Вторую можно выкинуть").as_deref(),
        Some("notes_delete")
    );
    // Without the opening verbs, the word of deleting decides.
    assert_eq!(
        routed(Guidance::default().without(Technique::OpeningWords), note).as_deref(),
        Some("notes_delete")
    );
}
