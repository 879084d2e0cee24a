//! Requests inside a bounded context: the budget, compaction (tool results first, then
//! whole exchanges), its stability and determinism, cutting, refusal, the report — and the
//! history that keeps everything.

use super::*;
use crate::agent::compact::{estimate_tokens, ContextBudget};
use crate::model::{
    ContextWindow, Generation, Message, Model, ModelError, ModelErrorKind, ModelRequest, Role,
    StopReason,
};
use crate::scripted::RecordedRequest;

/// A listing of `n` lines, the first one `1. Tomb Raider (2018) id=tt1365519`.
fn listing(n: usize) -> String {
    let mut lines = vec!["1. Tomb Raider (2018) id=tt1365519".to_string()];
    lines.extend((2..=n).map(|i| format!("{i}. Фильм номер {i} (20{i:02}) id=tt{i:07}")));
    lines.join("\n")
}

/// The fixture with `media_search` answering a 12-line listing (about 60 words).
fn long_results(config: AgentConfig) -> Agent {
    let (mut agent, _) = fixture_with(config);
    agent.register_executor(
        ExecutorTarget::Tool("media_search".into()),
        Arc::new(|_: &ToolInvocation<'_>| Ok(listing(12))),
    );
    agent
}

/// A user turn against a scripted model with a `context`-token context (reply limit a
/// quarter of it).
fn bounded(agent: &mut Agent, session: &str, user: &str, outputs: &[&str], context: usize) -> Run {
    let mut model = ScriptedModel::new(outputs.iter().copied()).with_context(context, context / 4);
    let out = agent
        .turn(session, user, &mut model, &CancelToken::new(), &mut |_| {})
        .unwrap();
    Run {
        out,
        events: Vec::new(),
        model,
    }
}

/// `n` words of user text, tagged so each turn's text is recognisable.
fn words(tag: &str, n: usize) -> String {
    (0..n)
        .map(|i| format!("{tag}{i}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Every request of the run fits the budget of its model.
fn assert_fits(r: &Run) {
    let budget = ContextBudget::of(r.model.context_window().unwrap());
    for req in r.model.requests() {
        let tokens = req.tokens.unwrap();
        assert!(
            tokens <= budget.request,
            "{tokens} > {}: {}",
            budget.request,
            text_of(req)
        );
    }
}

#[test]
fn budget_and_estimate_rules() {
    // (context, reply limit) → (reply room, request budget)
    let table = [
        ((768, 512), (192, 576)),
        ((768, 100), (100, 668)),
        ((300, 75), (75, 225)),
        ((8, 0), (1, 7)),
    ];
    for ((tokens, reply_tokens), want) in table {
        let b = ContextBudget::of(ContextWindow {
            tokens,
            reply_tokens,
        });
        assert_eq!((b.reply_room, b.request), want, "{tokens}/{reply_tokens}");
    }
    let b = ContextBudget::of(ContextWindow {
        tokens: 300,
        reply_tokens: 75,
    });
    assert_eq!(b.low_water(100), 100 + 125 * 60 / 100);
    assert_eq!(b.low_water(400), 400, "no room: the fixed part");
    // UTF-8 bytes / 2 rounded up + 8, the system text counted as a message.
    assert_eq!(
        estimate_tokens("abc", &[Message::user("абв")]),
        2 + 8 + 3 + 8
    );
    assert_eq!(estimate_tokens("", &[]), 8);
}

#[test]
fn an_unbounded_model_gets_the_whole_history() {
    let (mut agent, _) = fixture();
    for i in 0..30 {
        turn(&mut agent, "s", &words(&format!("u{i}_"), 40), &["Да."]);
    }
    let r = turn(&mut agent, "s", "последний", &["Да."]);
    assert_eq!(r.out.context, ContextReport::default());
    let seen = &r.model.requests()[0].messages;
    // The state message, 30 exchanges of two messages and the current one.
    assert_eq!(seen.len(), 1 + 30 * 2 + 1);
    assert_eq!(r.model.requests()[0].tokens, None);
}

#[test]
fn old_tool_results_go_first_keeping_name_args_and_first_line() {
    let mut agent = long_results(AgentConfig::default());
    let r = bounded(
        &mut agent,
        "s",
        "Найди Лару Крофт, Дюну и Чужого",
        &[
            "TOOL_CALL: media_search|Лара Крофт",
            // The k-th result after an output answers its k-th call.
            "Ищу.\nTOOL_CALL: media_search|Дюна\nTOOL_CALL: media_search|query=Alien",
            "Нашёл все три.",
        ],
        600,
    );
    assert_eq!(r.out.context.compactions, 0);
    // A message the context cannot hold beside three listings.
    let r = bounded(&mut agent, "s", &words("w", 100), &["Понял."], 600);
    assert_fits(&r);
    assert_eq!(r.out.stop, TurnStop::Answered);
    let c = &r.out.context;
    assert_eq!(
        (c.compactions, c.tool_results_shortened, c.messages_dropped),
        (1, 3, 0),
        "{c:?}"
    );
    assert!(c.tokens_dropped > 150, "{c:?}");
    let seen = text_of(&r.model.requests()[0]);
    for call in [
        "media_search|Лара Крофт",
        "media_search|Дюна",
        "media_search|query=Alien",
    ] {
        let placeholder = format!(
            "tool(media_search): 1. Tomb Raider (2018) id=tt1365519 … \
             [старый результат {call} сокращён]"
        );
        assert!(seen.contains(&placeholder), "{placeholder}: {seen}");
    }
    assert!(!seen.contains("Фильм номер 2"), "{seen}");
    assert!(!seen.contains("опущена"), "no exchange dropped: {seen}");
    assert!(seen.contains("user: Найди Лару Крофт, Дюну и Чужого"));
    // The history keeps every listing.
    assert_eq!(history(&agent, "s").matches(&listing(12)).count(), 3);
}

#[test]
fn whole_exchanges_go_next_with_one_marker_never_the_current_turn() {
    for (lang, marker) in [
        (Lang::Ru, "[Более ранняя часть разговора опущена.]"),
        (
            Lang::En,
            "[Earlier parts of the conversation were left out.]",
        ),
    ] {
        let (mut agent, _) = fixture_with(AgentConfig {
            lang,
            ..AgentConfig::default()
        });
        let mut dropped = 0;
        for i in 0..6 {
            let r = bounded(
                &mut agent,
                "s",
                &words(&format!("t{i}_"), 30),
                &["Да."],
                300,
            );
            assert_fits(&r);
            dropped += r.out.context.messages_dropped;
            let seen = text_of(&r.model.requests()[0]);
            // The current turn is always there, the system text and the state too.
            assert!(seen.contains(&format!("t{i}_29")), "{seen}");
            assert!(seen.starts_with(&format!("system: {}", agent.prompt("s").static_prefix())));
            assert_eq!(
                r.model.requests()[0].messages[0].content,
                agent.prompt("s").dynamic_part()
            );
            if dropped > 0 {
                assert_eq!(seen.matches(marker).count(), 1, "{seen}");
                assert!(
                    !seen.contains("t0_0 "),
                    "the oldest exchange went first: {seen}"
                );
            }
        }
        assert!(dropped >= 2, "{lang}: {dropped}");
        // Dropped from the request only.
        assert_history(&agent, "s", &["t0_0 ", "t5_29"], &[marker]);
        assert_eq!(agent.history("s").len(), 12);
    }
}

#[test]
fn a_compaction_keeps_its_prefix_until_the_next_one() {
    let (mut agent, _) = fixture();
    let mut previous: Option<RecordedRequest> = None;
    let (mut compacting, mut appending) = (0, 0);
    for i in 0..40 {
        let r = bounded(
            &mut agent,
            "s",
            &words(&format!("t{i}_"), 12),
            &["Хорошо, понял."],
            300,
        );
        assert_fits(&r);
        let request = r.model.requests()[0].clone();
        match r.out.context.compactions {
            0 => {
                if let Some(p) = &previous {
                    appending += 1;
                    assert!(
                        request.messages.starts_with(&p.messages),
                        "turn {i} does not extend the previous request"
                    );
                }
            }
            1 => compacting += 1,
            n => panic!("{n} compactions in one turn"),
        }
        previous = Some(request);
    }
    // One re-prefill per compaction, not one per turn.
    assert!(compacting >= 3, "{compacting}");
    assert!(appending >= 2 * compacting, "{appending} vs {compacting}");
}

#[test]
fn the_same_history_and_budget_give_the_same_requests() {
    let play = || {
        let mut agent = long_results(AgentConfig::default());
        let mut requests = Vec::new();
        for i in 0..12 {
            let outputs: &[&str] = if i % 3 == 0 {
                &["TOOL_CALL: media_search|Лара", "Нашёл."]
            } else {
                &["Да."]
            };
            let r = bounded(&mut agent, "s", &words(&format!("t{i}_"), 20), outputs, 350);
            assert_fits(&r);
            requests.extend(r.model.requests().iter().cloned());
        }
        requests
    };
    assert_eq!(play(), play());
}

#[test]
fn every_layout_compacts_and_keeps_the_state() {
    for layout in PromptLayout::ALL {
        let mut agent = long_results(AgentConfig {
            layout,
            ..AgentConfig::default()
        });
        agent.enable_toolset("s", "media").unwrap();
        for i in 0..15 {
            let outputs: &[&str] = if i % 2 == 0 {
                &["TOOL_CALL: media_search|Лара", "Нашёл."]
            } else {
                &["Да."]
            };
            let r = bounded(&mut agent, "s", &words(&format!("t{i}_"), 15), outputs, 350);
            assert_fits(&r);
            assert_eq!(r.out.stop, TurnStop::Answered, "{layout}");
            let prompt = agent.prompt("s");
            for req in r.model.requests() {
                assert!(
                    text_of(req).contains("Активные тулсеты: media"),
                    "{layout}: {}",
                    text_of(req)
                );
                assert!(req.system.starts_with(prompt.static_prefix()), "{layout}");
            }
        }
    }
}

#[test]
fn a_message_too_long_for_the_context_is_cut_and_the_session_goes_on() {
    let (mut agent, _) = fixture();
    let huge = words("h", 1000);
    let r = bounded(&mut agent, "s", &huge, &["Слишком длинно, но понял."], 300);
    assert_fits(&r);
    assert_eq!(r.out.stop, TurnStop::Answered);
    assert_eq!(r.out.context.messages_cut, 1);
    let seen = text_of(&r.model.requests()[0]);
    assert!(seen.contains("user: h0 h1 h2"), "{seen}");
    assert!(
        seen.contains("… [обрезано: сообщение не помещалось в контекст]"),
        "{seen}"
    );
    assert!(!seen.contains("h999"));
    assert_history(&agent, "s", &["h999"], &["обрезано"]);
    // A huge tool result in the current turn is cut too.
    agent.register_executor(
        ExecutorTarget::Tool("media_search".into()),
        Arc::new(|_: &ToolInvocation<'_>| Ok(listing(400))),
    );
    let r = bounded(
        &mut agent,
        "s",
        "Найди всё",
        &["TOOL_CALL: media_search|все", "Нашёл много."],
        300,
    );
    assert_fits(&r);
    assert_eq!(r.out.stop, TurnStop::Answered);
    let seen = text_of(&r.model.requests()[1]);
    assert!(
        seen.contains("tool(media_search): 1. Tomb Raider (2018) id=tt1365519\n2. "),
        "{seen}"
    );
    assert!(seen.contains("[обрезано:"), "{seen}");
    // And the session answers the next turn as usual.
    let r = bounded(&mut agent, "s", "Спасибо", &["Пожалуйста."], 300);
    assert_fits(&r);
    assert_eq!(r.out.reply, "Пожалуйста.");
}

#[test]
fn a_turn_that_cannot_fit_is_refused_clearly_and_the_session_goes_on() {
    for (lang, text) in [
        (Lang::Ru, "сообщение слишком длинное: запрос занимает"),
        (Lang::En, "message too long: the request takes"),
    ] {
        let (mut agent, _) = fixture_with(AgentConfig {
            lang,
            ..AgentConfig::default()
        });
        // The system text alone is larger than a 40-token context.
        let r = bounded(&mut agent, "s", "Привет", &["Не дойдёт."], 40);
        let TurnStop::ModelError(why) = &r.out.stop else {
            panic!("{:?}", r.out.stop);
        };
        assert!(why.contains(text), "{why}");
        assert!(why.ends_with("30"), "the budget is named: {why}");
        assert_eq!(r.out.model_error, Some(ModelErrorKind::ContextFull));
        assert!(r.model.requests().is_empty(), "nothing was sent");
        assert_eq!(r.model.remaining(), 1);
        assert!(r.out.context.request_tokens > 30);
        assert_eq!(r.out.context.compactions, 0, "a refusal compacts nothing");
        assert_eq!(agent.sessions["s"].compacted, Default::default());
        // The next turn, with room, works and sees the refused words.
        let r = bounded(&mut agent, "s", "Ещё раз", &["Здравствуйте."], 1000);
        assert_eq!(r.out.stop, TurnStop::Answered);
        let seen = text_of(&r.model.requests()[0]);
        // The refused turn said so, and its answer closes it in the history.
        let said = Texts::new(lang).turn_too_long();
        assert!(
            seen.contains(&format!("user: Привет\nassistant: {said}\nuser: Ещё раз")),
            "{seen}"
        );
    }
}

#[test]
fn a_reply_cut_by_the_context_is_flagged() {
    let (mut agent, _) = fixture();
    // The request takes about 100 of 110 tokens: the context ends the reply, not its limit.
    let mut model = ScriptedModel::new([words("r", 40)]).with_context(110, 60);
    let out = agent
        .turn(
            "s",
            "Расскажи",
            &mut model,
            &CancelToken::new(),
            &mut |_| {},
        )
        .unwrap();
    assert_eq!(out.stop, TurnStop::Answered);
    assert_eq!(out.generations[0].stop, StopReason::MaxTokens);
    assert!(out.context.reply_cut_by_context, "{:?}", out.context);
    assert!(out.reply.starts_with("r0 r1") && !out.reply.contains("r39"));
    // The reply limit, with room to spare, is not the context.
    let mut model = ScriptedModel::new([words("r", 40)]).with_context(2000, 10);
    let out = agent
        .turn("s", "Ещё", &mut model, &CancelToken::new(), &mut |_| {})
        .unwrap();
    assert_eq!(out.generations[0].stop, StopReason::MaxTokens);
    assert!(!out.context.reply_cut_by_context);
    assert_eq!(out.reply.split_whitespace().count(), 10);
}

/// A model with a bounded context that cannot count: the agent estimates.
struct Uncounted(ScriptedModel);

impl Model for Uncounted {
    fn generate(
        &mut self,
        request: &ModelRequest<'_>,
        on_text: &mut dyn FnMut(&str),
    ) -> Result<Generation, ModelError> {
        self.0.generate(request, on_text)
    }
    fn context_window(&self) -> Option<ContextWindow> {
        Some(ContextWindow {
            tokens: 900,
            reply_tokens: 200,
        })
    }
}

#[test]
fn without_a_count_the_agent_estimates_on_the_large_side() {
    let (mut agent, _) = fixture();
    let mut model = Uncounted(ScriptedModel::new(Vec::<String>::new()));
    for i in 0..20 {
        model.0.push(["Да, конечно."]);
        let out = agent
            .turn(
                "s",
                &words(&format!("t{i}_"), 25),
                &mut model,
                &CancelToken::new(),
                &mut |_| {},
            )
            .unwrap();
        assert_eq!(out.stop, TurnStop::Answered);
        assert!(out.context.estimated);
        assert!(out.context.request_tokens <= 900 - 200);
    }
    for r in model.0.requests() {
        assert!(estimate_tokens(&r.system, &r.messages) <= 700);
    }
    assert!(model.0.requests().last().unwrap().messages.len() < 41);
}

#[test]
fn hear_partial_hints_the_fitted_request_and_leaves_the_record() {
    struct Hinted {
        inner: ScriptedModel,
        prefills: Vec<Vec<Message>>,
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
            self.prefills.push(r.messages.to_vec());
            Ok(())
        }
        fn context_window(&self) -> Option<ContextWindow> {
            self.inner.context_window()
        }
        fn count_tokens(&mut self, system: &str, messages: &[Message]) -> Option<usize> {
            self.inner.count_tokens(system, messages)
        }
    }
    let (mut agent, _) = fixture();
    for i in 0..4 {
        bounded(
            &mut agent,
            "s",
            &words(&format!("t{i}_"), 30),
            &["Да."],
            300,
        );
    }
    let record = agent.sessions["s"].compacted.clone();
    let mut model = Hinted {
        inner: ScriptedModel::new(["Да."]).with_context(300, 75),
        prefills: Vec::new(),
    };
    let next = words("t4_", 30);
    agent.hear_partial("s", &next, &mut model).unwrap();
    assert_eq!(agent.sessions["s"].compacted, record);
    let out = agent
        .turn("s", &next, &mut model, &CancelToken::new(), &mut |_| {})
        .unwrap();
    assert_eq!(out.stop, TurnStop::Answered);
    assert_eq!(model.prefills[0], model.inner.requests()[0].messages);
    // A hint that cannot fit is simply not given.
    let mut tiny = Hinted {
        inner: ScriptedModel::new(Vec::<String>::new()).with_context(40, 10),
        prefills: Vec::new(),
    };
    agent.hear_partial("s", "x", &mut tiny).unwrap();
    assert!(tiny.prefills.is_empty());
}

#[test]
fn the_report_serializes_for_hosts() {
    let (mut agent, _) = fixture();
    let r = bounded(&mut agent, "s", "Привет", &["Привет!"], 300);
    let json = serde_json::to_value(&r.out).unwrap();
    assert_eq!(
        json["context"]["budget"],
        serde_json::json!({
            "window": {"tokens": 300, "reply_tokens": 75},
            "reply_room": 75,
            "request": 225,
        })
    );
    assert_eq!(json["context"]["compactions"], 0);
    assert_eq!(json["context"]["reply_cut_by_context"], false);
    assert_eq!(
        json["context"]["request_tokens"],
        r.model.requests()[0].tokens.unwrap()
    );
    let last = agent.history("s").last().unwrap();
    assert_eq!(
        (last.role, last.content.as_str()),
        (Role::Assistant, "Привет!")
    );
}

/// R12 (RELIABILITY.md): a message far longer than the context is cut to what the budget
/// could hold at `MAX_TOKEN_BYTES` a token before anything is counted, so no count reads
/// megabytes; the turn is answered and its request fits.
#[test]
fn a_huge_message_is_cut_before_it_is_counted() {
    use crate::agent::compact::MAX_TOKEN_BYTES;
    struct Counting {
        inner: ScriptedModel,
        largest: usize,
    }
    impl Model for Counting {
        fn generate(
            &mut self,
            request: &ModelRequest<'_>,
            on_text: &mut dyn FnMut(&str),
        ) -> Result<Generation, ModelError> {
            self.inner.generate(request, on_text)
        }
        fn context_window(&self) -> Option<ContextWindow> {
            self.inner.context_window()
        }
        fn count_tokens(&mut self, system: &str, messages: &[Message]) -> Option<usize> {
            let longest = messages.iter().map(|m| m.content.len()).max().unwrap_or(0);
            self.largest = self.largest.max(longest);
            self.inner.count_tokens(system, messages)
        }
    }
    let (mut agent, _) = fixture();
    let mut model = Counting {
        inner: ScriptedModel::new(["Да."]).with_context(300, 75),
        largest: 0,
    };
    // 2 MB of one-letter words: 1M tokens for the scripted model.
    let huge = "а ".repeat(1_000_000);
    let out = agent
        .turn("s", &huge, &mut model, &CancelToken::new(), &mut |_| {})
        .unwrap();
    assert_eq!(out.stop, TurnStop::Answered);
    let budget = ContextBudget::of(model.context_window().unwrap());
    // The cut's marker is added to the kept part.
    let bound = budget.request * MAX_TOKEN_BYTES + 200;
    assert!(
        model.largest <= bound,
        "a count read a {}-byte message (bound {bound})",
        model.largest
    );
    assert!(
        out.context.request_tokens <= budget.request,
        "{:?}",
        out.context
    );
    assert_eq!(out.context.messages_cut, 1, "{:?}", out.context);
    // What was cut before counting is in the figure, as an estimate: 1M words (tokens).
    assert!(out.context.estimated);
    let dropped = out.context.tokens_dropped;
    assert!((900_000..=1_100_000).contains(&dropped), "{dropped}");
    // The history keeps the whole message.
    assert_eq!(agent.history("s")[0].content.len(), huge.len());
}
