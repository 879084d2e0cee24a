//! Conversational messages answered from the message texts, and the reply gate: debris
//! never reaches the user nor the history.

use super::super::answer::ANSWERS_SESSION;
use super::guidance::{agent_with, routed_turn};
use super::*;
use crate::judge::{judge_reply, JudgeContext};
use crate::Intent;

#[test]
fn a_greeting_is_answered_from_the_catalog_without_a_model_call() {
    let mut agent = agent_with(Guidance::default());
    let (out, model) = routed_turn(&mut agent, "Привет", &["Скиллы (read_skill|имя):"]);
    assert_eq!(out.talk, Some(Intent::Greeting), "{:?}", out.route);
    assert!(model.requests().is_empty());
    assert!(out.reply.contains("Порфирий"), "{}", out.reply);
    assert_eq!(out.streamed, out.reply);
    assert_eq!(out.stop, TurnStop::Answered);
    assert_eq!(agent.history("s").last().unwrap().content, out.reply);
    // The next greeting of the session is said another way.
    let (again, _) = routed_turn(&mut agent, "Привет", &[]);
    assert_eq!(again.talk, Some(Intent::Greeting));
    assert_ne!(again.reply, out.reply);
}

#[test]
fn what_the_assistant_can_do_is_what_this_host_runs() {
    let mut agent = agent_with(Guidance::default());
    let (out, model) = routed_turn(&mut agent, "Что ты умеешь?", &[]);
    assert_eq!(out.talk, Some(Intent::Capabilities), "{:?}", out.route);
    assert!(model.requests().is_empty());
    // Notes have an executor here; media is declared only, so it is not offered.
    assert!(out.reply.contains("время"), "{}", out.reply);
    assert!(out.reply.contains("заметки"), "{}", out.reply);
    assert!(!out.reply.contains("медиа"), "{}", out.reply);
    assert!(judge_reply(
        &out.reply,
        "Что ты умеешь?",
        Lang::Ru,
        JudgeContext::default()
    )
    .is_acceptable());
}

#[test]
fn a_host_with_many_sets_says_the_first_ones_and_more() {
    let clock = ManualClock::parse("2026-08-22T10:00:00+03:00").unwrap();
    let names = [
        "lights", "music", "radio", "calls", "mail", "maps", "alarms", "recipes",
    ];
    let sets = names.iter().map(|n| {
        let yaml = format!(
            "name: {n}\ndescription: d\nspoken: {{ru: \"управлять всем, что связано с {n}\"}}\n\
             tools: [{{name: {n}_do}}]"
        );
        parse_toolset(&yaml, Path::new("x.yaml")).unwrap()
    });
    let mut agent = Agent::new(
        AgentConfig::default(),
        SkillRegistry::default(),
        ToolsetRegistry::from_toolsets(sets),
        Arc::new(clock),
    );
    for n in names {
        agent.register_executor(
            ExecutorTarget::Toolset(n.into()),
            Arc::new(|_: &ToolInvocation<'_>| Ok("ok".to_string())),
        );
    }
    let (out, _) = routed_turn(&mut agent, "Что ты умеешь?", &[]);
    assert_eq!(out.talk, Some(Intent::Capabilities), "{:?}", out.route);
    let words = out.reply.split_whitespace().count();
    assert!(words <= crate::judge::MAX_WORDS, "{words}: {}", out.reply);
    assert!(out.reply.contains("lights"), "{}", out.reply);
    assert!(!out.reply.contains("recipes"), "{}", out.reply);
    assert!(out.reply.contains("и не только"), "{}", out.reply);
}

#[test]
fn a_long_message_goes_to_the_model_whatever_its_route() {
    let mut agent = agent_with(Guidance::default());
    let long = "Привет, расскажи мне подробно и по порядку, как прошёл твой день, что ты видел и \
                что тебе больше всего понравилось";
    let (out, model) = routed_turn(&mut agent, long, &["День был хороший."]);
    assert_eq!(out.talk, None);
    assert_eq!(model.requests().len(), 1);
}

#[test]
fn without_the_technique_a_greeting_goes_to_the_model() {
    let mut agent = agent_with(Guidance::default().without(Technique::TalkIntents));
    let (out, model) = routed_turn(&mut agent, "Привет", &["Здравствуйте!"]);
    assert_eq!(out.talk, None);
    assert_eq!(model.requests().len(), 1);
    assert_eq!(out.reply, "Здравствуйте!");
}

#[test]
fn debris_is_held_back_and_never_reaches_the_next_request() {
    // The chat prompt's reply (a question would be asked in the transcript), without the
    // honest decline (which would replace the phrase).
    let mut agent = agent_with(
        Guidance::default()
            .without(Technique::AnswerTranscript)
            .without(Technique::HonestDecline),
    );
    let debris = "Скиллы (read_skill|имя): купить фильм. alimentaire";
    let mut model = ScriptedModel::new([debris, "Из-за хлорофилла."]).with_embeddings();
    let mut heard = String::new();
    let out = agent
        .turn(
            "s",
            "Почему небо голубое?",
            &mut model,
            &CancelToken::new(),
            &mut |e| {
                if let AgentEvent::Text(t) = e {
                    heard.push_str(&t);
                }
            },
        )
        .unwrap();
    let phrase = Texts::new(Lang::Ru).turn_no_reply();
    assert!(out.gated.is_some(), "{out:?}");
    assert_eq!(out.reply, phrase);
    assert_eq!(heard, phrase);
    assert_eq!(agent.history("s").last().unwrap().content, phrase);
    // The next turn's request holds what the user was given, not the debris.
    let out = agent
        .turn(
            "s",
            "Почему трава зелёная?",
            &mut model,
            &CancelToken::new(),
            &mut |_| {},
        )
        .unwrap();
    assert_eq!(out.gated, None);
    assert_eq!(out.reply, "Из-за хлорофилла.");
    let last = model.requests().last().unwrap();
    for m in &last.messages {
        assert!(
            !m.content.contains("alimentaire") && !m.content.contains("read_skill|"),
            "{m:?}"
        );
    }
    assert!(last.messages.iter().any(|m| m.content == phrase));
}

#[test]
fn a_clean_beginning_is_kept_when_the_gate_closes_later() {
    // The chat prompt's reply (a question would be asked in the transcript), without the
    // honest decline (which would replace the phrase).
    let mut agent = agent_with(
        Guidance::default()
            .without(Technique::AnswerTranscript)
            .without(Technique::HonestDecline),
    );
    let (out, _) = routed_turn(
        &mut agent,
        "Почему небо голубое?",
        &["Из-за рассеяния света. user: TOOL_RESULT ещё"],
    );
    assert!(out.gated.is_some(), "{out:?}");
    assert_eq!(out.reply, "Из-за рассеяния света.");
    assert_eq!(out.streamed, "Из-за рассеяния света.");
    assert_eq!(agent.history("s").last().unwrap().content, out.reply);
}

#[test]
fn a_message_that_sets_a_text_apart_is_no_small_talk() {
    // A thanks example with a text set apart: without the rule it routes to thanks.
    let said = "Спасибо, ты мне очень помог: «синий зонт»";
    let target = |guidance: Guidance| {
        let mut agent = agent_with(guidance);
        let (out, _) = routed_turn(&mut agent, said, &["Ок."]);
        out.route.and_then(|r| r.target)
    };
    let routed = target(Guidance::default());
    assert!(
        routed
            .as_deref()
            .is_none_or(|t| Intent::from_target(t).is_none()),
        "{routed:?}"
    );
}

#[test]
fn a_message_without_the_words_its_intent_needs_is_routed_among_the_rest() {
    // Nearest to a joke example, but no joke is asked for by name.
    let said = "Расскажи что-нибудь про этот фильм";
    let target = |guidance: Guidance| {
        let mut agent = agent_with(guidance);
        let (out, _) = routed_turn(&mut agent, said, &["Ок."]);
        out.route.and_then(|r| r.target)
    };
    let joke = Intent::Joke.target();
    let routed = target(Guidance::default());
    assert_ne!(routed.as_deref(), Some(joke.as_str()), "{routed:?}");
    // Nor any intent of small talk: only a task no tool does needs no words of its own.
    assert!(
        routed
            .as_deref()
            .and_then(Intent::from_target)
            .is_none_or(|i| i == Intent::OutOfScope),
        "{routed:?}"
    );
    // The same words with a joke asked for stay small talk.
    let mut agent = agent_with(Guidance::default());
    let (out, _) = routed_turn(&mut agent, "Расскажи что-нибудь смешное, анекдот", &[]);
    assert_eq!(out.talk, Some(Intent::Joke), "{:?}", out.route);
}

#[test]
fn a_question_is_asked_in_the_transcript_and_its_answer_kept() {
    let mut agent = agent_with(transcript_on());
    let (out, model) = routed_turn(
        &mut agent,
        "Почему небо голубое?",
        &[" Из-за рассеяния света."],
    );
    assert_eq!(out.route.as_ref().unwrap().target, None);
    assert_eq!(out.reply, "Из-за рассеяния света.");
    let r = &model.requests()[0];
    assert_eq!(r.session, ANSWERS_SESSION);
    assert_eq!(r.prefix.as_deref(), Some("Ответ:"));
    assert_eq!(r.stop, ["\n"]);
    assert_eq!(r.calls, Some(vec![]));
    assert_eq!(r.messages.len(), 1);
    assert!(r.messages[0]
        .content
        .ends_with("Вопрос: Почему небо голубое?"));
    // The user's session holds the question and the answer, never the transcript.
    let history = agent.history("s");
    assert_eq!(history.len(), 2);
    assert_eq!(history[1].content, "Из-за рассеяния света.");
    // A question that goes on from it is asked after that exchange.
    let (out, model) = routed_turn(
        &mut agent,
        "А закат почему красный?",
        &[" Тоже из-за него."],
    );
    assert_eq!(out.reply, "Тоже из-за него.");
    let asked = &model.requests()[0].messages[0].content;
    assert!(
        asked.ends_with(
            "Вопрос: Почему небо голубое?\nОтвет: Из-за рассеяния света.\n\nВопрос: А закат почему красный?"
        ),
        "{asked}"
    );
}

#[test]
fn an_unacceptable_answer_falls_back_to_the_chat_prompt() {
    let mut agent = agent_with(transcript_on());
    // An echo of the question: the judge refuses it; the turn asks in the chat prompt.
    let (out, model) = routed_turn(
        &mut agent,
        "Почему небо голубое?",
        &[" Почему небо голубое?", "Небо голубое из-за рассеяния."],
    );
    assert_eq!(model.requests().len(), 2);
    assert_eq!(model.requests()[1].session, "s");
    assert_eq!(out.reply, "Небо голубое из-за рассеяния.");
    // Off: the chat prompt at once.
    let mut agent = agent_with(Guidance::default().without(Technique::AnswerTranscript));
    let (_, model) = routed_turn(
        &mut agent,
        "Почему небо голубое?",
        &["Из-за рассеяния света."],
    );
    assert_eq!(model.requests()[0].session, "s");
}

/// The shipped guidance with [`Technique::AnswerTranscript`] on (it is off by default).
fn transcript_on() -> Guidance {
    let mut g = Guidance::default();
    g.set(Technique::AnswerTranscript, true);
    g
}

/// A model that embeds a text without a word as it embeds a request to delete a note (an
/// embedding of emoji is near some request or other).
struct Misreads(ScriptedModel);

impl Model for Misreads {
    fn generate(
        &mut self,
        request: &crate::model::ModelRequest<'_>,
        on_text: &mut dyn FnMut(&str),
    ) -> Result<crate::model::Generation, crate::model::ModelError> {
        self.0.generate(request, on_text)
    }
    fn embed(&mut self, texts: &[&str]) -> Result<Option<Vec<Vec<f32>>>, crate::model::ModelError> {
        let read = |t: &&str| {
            if t.chars().any(char::is_alphanumeric) {
                ScriptedModel::embedding_of(t)
            } else {
                ScriptedModel::embedding_of("Удали заметку")
            }
        };
        Ok(Some(texts.iter().map(read).collect()))
    }
}

#[test]
fn a_message_without_a_word_is_answered_as_a_reaction() {
    // Emoji and punctuation name no tool: a reaction gets a short acknowledgement, no model
    // call and no tool.
    for text in ["😀", "👍👍", "❤️ !!!"] {
        let mut agent = agent_with(Guidance::default());
        let mut model = Misreads(ScriptedModel::new(["TOOL_CALL: notes_delete|1"]));
        let out = agent
            .turn("s", text, &mut model, &CancelToken::new(), &mut |_| {})
            .unwrap();
        assert_eq!(
            out.talk,
            Some(Intent::Acknowledgement),
            "{text}: {:?}",
            out.route
        );
        assert!(model.0.requests().is_empty(), "{text}");
        assert!(out.executed.is_empty(), "{text}");
    }
    // A wordless question asks something the words do not say: the model answers it.
    let mut agent = agent_with(Guidance::default());
    let (out, model) = routed_turn(&mut agent, "??", &["Что вы имели в виду?"]);
    assert!(out.route.is_none(), "{:?}", out.route);
    assert_eq!(out.talk, None);
    assert_eq!(model.requests().len(), 1);
}

#[test]
fn a_no_said_when_nothing_was_asked_is_answered_as_a_reaction() {
    // "nevermind" asks for nothing: the model is not given the chance to note it down.
    for text in ["nevermind", "Не надо", "nope, never mind"] {
        let mut agent = agent_with(Guidance::default());
        let mut model = ScriptedModel::new([format!("TOOL_CALL: notes_add|{text}")]);
        let out = agent
            .turn("s", text, &mut model, &CancelToken::new(), &mut |_| {})
            .unwrap();
        assert_eq!(
            out.talk,
            Some(Intent::Acknowledgement),
            "{text}: {:?}",
            out.route
        );
        assert!(model.requests().is_empty(), "{text}");
        assert!(out.executed.is_empty(), "{text}");
    }
}

#[test]
fn an_intent_that_wins_only_narrowly_takes_nothing() {
    // Won outright, the intent answers from the catalog.
    let mut agent = agent_with(Guidance::default());
    let (out, model) = routed_turn(&mut agent, "Ты дурак", &[]);
    assert_eq!(out.talk, Some(Intent::Insult), "{:?}", out.route);
    assert!(model.requests().is_empty());
    // With a margin no route reaches, no intent takes the request: the model answers it.
    let mut guidance = Guidance::default();
    guidance.intent_margin = 10.0;
    let mut agent = agent_with(guidance.clone());
    let (out, model) = routed_turn(&mut agent, "Доброе утро", &["Доброе утро!"]);
    assert_eq!(out.talk, None, "{:?}", out.route);
    assert!(out.route.as_ref().is_some_and(|r| r.target.is_none()));
    assert_eq!(model.requests().len(), 1);
    // Unless it says the formula in its words: thanks is thanks however narrowly it won.
    let mut agent = agent_with(guidance.clone());
    let (out, model) = routed_turn(&mut agent, "Понятно, спасибо", &[]);
    assert_eq!(out.talk, Some(Intent::Thanks), "{:?}", out.route);
    assert!(model.requests().is_empty());
    // Unless the request is the intent by its form: a rude word said to the assistant.
    let mut agent = agent_with(guidance.clone());
    let (out, model) = routed_turn(&mut agent, "Ты дурак", &[]);
    assert_eq!(out.talk, Some(Intent::Insult), "{:?}", out.route);
    assert!(model.requests().is_empty());
    // Without the technique the margin is not looked at.
    let mut agent = agent_with(guidance.without(Technique::IntentMargin));
    let (out, _) = routed_turn(&mut agent, "Ты дурак", &[]);
    assert_eq!(out.talk, Some(Intent::Insult), "{:?}", out.route);
}

#[test]
fn feelings_news_praise_insults_and_laughter_are_answered_in_the_product_s_words() {
    for (text, intent, says) in [
        ("Мне очень тоскливо", Intent::Feeling, "Сочувствую"),
        ("Меня повысили!", Intent::GoodNews, "Поздравляю"),
        ("Ты умница", Intent::Compliment, "Спасибо"),
        ("Ты никчёмный", Intent::Insult, "постараюсь"),
        ("Ты меня слушаешь?", Intent::HearMe, "слышу"),
        ("Ахахах", Intent::Laughter, "весело"),
    ] {
        // The catalog's replies, whatever the margin of the route.
        let mut agent = agent_with(Guidance::default().without(Technique::IntentMargin));
        let (out, model) = routed_turn(&mut agent, text, &[]);
        assert_eq!(out.talk, Some(intent), "{text}: {:?}", out.route);
        assert!(model.requests().is_empty(), "{text}");
        assert!(out.reply.contains(says), "{text}: {}", out.reply);
    }
}

#[test]
fn a_question_about_feelings_is_no_feeling_of_the_user_s() {
    for text in ["Do you feel awful?", "Тебе тоскливо?"] {
        assert_eq!(crate::guidance::refine_intent(Intent::Feeling, text), None);
    }
    assert!(crate::guidance::refine_intent(Intent::Feeling, "Мне тоскливо").is_some());
}

#[test]
fn an_empty_reply_to_a_question_is_an_honest_decline_naming_what_the_assistant_can_do() {
    let mut agent = agent_with(Guidance::default());
    let (out, _) = routed_turn(&mut agent, "Почему трава зелёная?", &[""]);
    assert!(out.reply.contains("не знаю"), "{}", out.reply);
    assert!(out.reply.contains("заметки"), "{}", out.reply);
    assert!(!crate::judge::is_refusal(&out.reply), "{}", out.reply);
    assert_eq!(agent.history("s").last().unwrap().content, out.reply);
    // Without it, the no-reply phrase as before.
    let mut agent = agent_with(Guidance::default().without(Technique::HonestDecline));
    let (out, _) = routed_turn(&mut agent, "Почему трава зелёная?", &[""]);
    assert!(crate::judge::is_refusal(&out.reply), "{}", out.reply);
}

#[test]
fn a_reply_the_gate_holds_back_whole_is_an_honest_decline() {
    let mut agent = agent_with(Guidance::default());
    let user = "Почему небо голубое?";
    let (out, _) = routed_turn(&mut agent, user, &["Скиллы (read_skill|имя):"]);
    assert!(out.declined, "{out:?}");
    assert!(out.reply.starts_with("Этого я не знаю"), "{}", out.reply);
    assert!(out.reply.contains("заметки"), "{}", out.reply);
    assert!(judge_reply(&out.reply, user, Lang::Ru, JudgeContext::default()).is_acceptable());
    // A reply the judge rejects as a whole (the catch-all refusal where an answer is due)
    // is never heard: the decline instead.
    let mut agent = agent_with(Guidance::default());
    let refusal = Texts::new(Lang::Ru).turn_no_reply();
    let mut heard = String::new();
    let mut model = ScriptedModel::new([refusal]).with_embeddings();
    let out = agent
        .turn("s", user, &mut model, &CancelToken::new(), &mut |e| {
            if let AgentEvent::Text(t) = e {
                heard.push_str(&t);
            }
        })
        .unwrap();
    assert!(out.declined, "{out:?}");
    assert_eq!(heard, out.reply);
    assert!(!crate::judge::is_refusal(&heard), "{heard}");
}

#[test]
fn a_calendar_fact_is_computed_from_the_clock_without_a_model_call() {
    let mut agent = agent_with(Guidance::default());
    let (out, model) = routed_turn(&mut agent, "Сколько дней в феврале?", &["Сейчас 10:00."]);
    assert!(out.computed);
    assert!(model.requests().is_empty());
    assert_eq!(
        out.reply,
        "В феврале 2026 года 28 дней, в високосный год — 29."
    );
    let mut agent = agent_with(Guidance::default());
    let (out, _) = routed_turn(&mut agent, "How many days until New Year?", &[]);
    // The clock reads 2026-08-22.
    assert_eq!(out.reply, "There are 132 days until New Year.");
    let mut agent = agent_with(Guidance::default().without(Technique::CalendarQuestions));
    let (out, _) = routed_turn(&mut agent, "Сколько дней в феврале?", &["Не знаю."]);
    assert!(!out.computed);
}

#[test]
fn weekdays_counted_and_a_units_question_going_on_are_computed() {
    let mut agent = agent_with(Guidance::default());
    let (out, model) = routed_turn(
        &mut agent,
        "Если сегодня пятница, какой день будет через три дня?",
        &["Сейчас 10:00."],
    );
    assert!(out.computed);
    assert!(model.requests().is_empty());
    assert_eq!(out.reply, "Через 3 дня после пятницы — понедельник.");
    let mut agent = agent_with(Guidance::default());
    let (out, _) = routed_turn(&mut agent, "How many minutes are in an hour?", &[]);
    assert!(out.computed, "{}", out.reply);
    let (out, model) = routed_turn(&mut agent, "And in a day?", &["Сейчас 10:00."]);
    assert!(out.computed, "{}", out.reply);
    assert!(model.requests().is_empty());
    assert_eq!(out.reply, "There are 1440 minutes in a day.");
}

#[test]
fn more_of_a_story_after_a_feeling_gets_sympathy_in_other_words() {
    let mut agent = agent_with(Guidance::default());
    let (out, _) = routed_turn(&mut agent, "У меня умерла кошка", &[]);
    assert_eq!(out.talk, Some(Intent::Feeling), "{:?}", out.route);
    let first = out.reply;
    let (out, model) = routed_turn(&mut agent, "Она прожила у нас двенадцать лет", &["Привет!"]);
    assert_eq!(out.talk, Some(Intent::Feeling), "{:?}", out.route);
    assert!(model.requests().is_empty());
    assert_ne!(out.reply, first);
    assert!(out.reply.contains("жаль"), "{}", out.reply);
}

#[test]
fn what_the_assistant_is_like_beside_a_person_is_answered_as_a_program() {
    for (text, intent, says) in [
        ("Тебе бывает скучно по ночам?", Intent::Nature, "программа"),
        ("Are you ever lonely?", Intent::Nature, "program"),
        ("А ты меня любишь?", Intent::Fondness, "Конечно"),
    ] {
        let mut agent = agent_with(Guidance::default());
        let (out, model) = routed_turn(&mut agent, text, &["Привет!"]);
        assert_eq!(out.talk, Some(intent), "{text}: {:?}", out.route);
        assert!(model.requests().is_empty(), "{text}");
        assert!(out.reply.contains(says), "{text}: {}", out.reply);
    }
}

/// A turn on the scripted model whose outputs report these mean log-probabilities: the
/// outcome and what the user heard.
fn turn_with_confidence(
    agent: &mut Agent,
    user: &str,
    outputs: &[&str],
    confidences: &[f64],
) -> (TurnOutcome, String) {
    let mut model = ScriptedModel::new(outputs.iter().copied())
        .with_embeddings()
        .with_confidences(confidences.iter().copied());
    let mut heard = String::new();
    let out = agent
        .turn("s", user, &mut model, &CancelToken::new(), &mut |e| {
            if let AgentEvent::Text(t) = e {
                heard.push_str(&t);
            }
        })
        .unwrap();
    (out, heard)
}

#[test]
fn a_reply_the_model_was_unsure_of_is_an_honest_decline() {
    let user = "Почему небо голубое?";
    let reply = "Потому что воздух рассеивает синий свет.";
    let low = crate::MIN_CONFIDENCE - 1.0;
    let mut agent = agent_with(Guidance::default());
    let (out, heard) = turn_with_confidence(&mut agent, user, &[reply], &[low]);
    assert!(out.declined && out.unsure, "{out:?}");
    assert!(out.reply.starts_with("Этого я не знаю"), "{}", out.reply);
    assert_eq!(heard, out.reply, "the unsure reply is never heard");
    assert_eq!(agent.history("s").last().unwrap().content, out.reply);
    assert!(out
        .confidence
        .is_some_and(|c| c.mean_logprob() < Some(crate::MIN_CONFIDENCE)));
    // Without the technique the same reply is spoken.
    let mut agent = agent_with(Guidance::default().without(Technique::ConfidenceGate));
    let (out, heard) = turn_with_confidence(&mut agent, user, &[reply], &[low]);
    assert!(!out.declined && !out.unsure, "{out:?}");
    assert_eq!(out.reply, reply);
    assert_eq!(heard, reply);
}

#[test]
fn a_reply_the_model_was_sure_of_is_spoken() {
    let user = "Почему небо голубое?";
    let reply = "Потому что воздух рассеивает синий свет.";
    let high = crate::MIN_CONFIDENCE + 0.5;
    let mut agent = agent_with(Guidance::default());
    let (out, heard) = turn_with_confidence(&mut agent, user, &[reply], &[high]);
    assert!(!out.declined && !out.unsure, "{out:?}");
    assert_eq!(out.reply, reply);
    assert_eq!(heard, reply);
    // A model that reports no confidence is never doubted.
    let mut agent = agent_with(Guidance::default());
    let (out, _) = turn_with_confidence(&mut agent, user, &[reply], &[]);
    assert!(!out.unsure && out.confidence.is_none(), "{out:?}");
    assert_eq!(out.reply, reply);
}

#[test]
fn the_confidence_gate_leaves_tool_calls_and_their_answers_alone() {
    let low = crate::MIN_CONFIDENCE - 3.0;
    // A routed call (decided: forced, no confidence) and the answer after the tool's reply,
    // however unsure the model was of it.
    let mut agent = agent_with(Guidance::default());
    let (out, heard) = turn_with_confidence(
        &mut agent,
        "Который час сейчас?",
        &["10:00, суббота."],
        &[low],
    );
    assert_eq!(out.executed[0].name, "get_current_time");
    assert!(!out.declined && !out.unsure, "{out:?}");
    assert_eq!(out.reply, "10:00, суббота.");
    assert_eq!(heard, out.reply);
    // A call line the model wrote itself, unsure of it: run as always.
    let mut agent = agent_with(Guidance::default().without(Technique::Route));
    let (out, _) = turn_with_confidence(
        &mut agent,
        "Который час сейчас?",
        &["TOOL_CALL: get_current_time", "Сейчас 10:00."],
        &[low, low],
    );
    assert_eq!(out.executed[0].name, "get_current_time");
    assert!(!out.declined && !out.unsure, "{out:?}");
    assert_eq!(out.reply, "Сейчас 10:00.");
}
