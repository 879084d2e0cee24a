//! Arguments from what the user said ([`Technique::SaidArgs`]) on a host's own sets: a
//! timer with a duration in minutes and a home set of rooms and states, with the scripted
//! model (routing by its word embeddings and the examples' stems).

use super::guidance::routed_turn;
use super::*;
use crate::args::ArgValue;

const TIMER: &str = "\
name: timer
description: timers
tools:
  - name: timer_start
    description: start a timer
    args:
      - {name: minutes, type: integer, required: true, min: 1, max: 1440, unit: minutes,
         ask_for: {en: 'For how many minutes?'}}
      - {name: label, type: string}
    examples:
      en: ['Set a timer for 5 minutes', 'Start a 20 minute timer for the pasta']
  - name: timer_list
    description: list the timers
    examples:
      en: ['Which timers are running?']
";

const HOME: &str = "\
name: home
description: the smart home
tools:
  - name: home_light
    description: switch a light
    args:
      - {name: room, type: enum, values: [kitchen, hallway, bedroom], required: true}
      - {name: state, type: enum, values: ['on', 'off'], required: true}
    examples:
      en: ['Turn on the kitchen light', 'Switch the bedroom light off']
";

/// An English agent with the timer and home sets active, every call answered.
fn host_agent(guidance: Guidance) -> Agent {
    let clock = ManualClock::parse("2026-08-22T10:00:00+03:00").unwrap();
    let toolsets = ToolsetRegistry::from_toolsets([
        parse_toolset(TIMER, Path::new("timer.yaml")).unwrap(),
        parse_toolset(HOME, Path::new("home.yaml")).unwrap(),
    ]);
    let config = AgentConfig {
        guidance,
        lang: Lang::En,
        ..AgentConfig::default()
    };
    let mut agent = Agent::new(config, SkillRegistry::default(), toolsets, Arc::new(clock));
    for set in ["timer", "home"] {
        agent.register_executor(
            ExecutorTarget::Toolset(set.into()),
            Arc::new(|_: &ToolInvocation<'_>| Ok("Done.".to_string())),
        );
        agent.enable_toolset("s", set).unwrap();
    }
    agent
}

#[test]
fn a_number_said_in_words_is_the_argument_and_the_model_writes_none() {
    let mut agent = host_agent(Guidance::default());
    let (out, model) = routed_turn(
        &mut agent,
        "set a timer for twenty-five minutes",
        &["Done."],
    );
    assert_eq!(
        out.route.as_ref().and_then(|r| r.target.as_deref()),
        Some("timer_start")
    );
    assert_eq!(
        model.requests()[0].forced_reply.as_deref(),
        Some("TOOL_CALL: timer_start|25")
    );
    assert_eq!(
        out.executed[0].args.get("minutes"),
        Some(&ArgValue::Int(25))
    );
    // Half an hour is thirty of the argument's minutes.
    let (out, _) = routed_turn(&mut agent, "set a timer for half an hour", &["Done."]);
    assert_eq!(
        out.executed[0].args.get("minutes"),
        Some(&ArgValue::Int(30))
    );
    // Without the technique the model writes the number (here, a wrong one).
    let mut agent = host_agent(Guidance::default().without(Technique::SaidArgs));
    let (_, model) = routed_turn(&mut agent, "set a timer for twenty-five minutes", &["1"]);
    assert_eq!(model.requests()[0].forced_reply, None);
}

#[test]
fn a_missing_value_is_asked_for_and_the_answer_fills_it() {
    let mut agent = host_agent(Guidance::default());
    let (out, model) = routed_turn(&mut agent, "set a timer", &[]);
    assert!(model.requests().is_empty());
    assert_eq!(out.asked_for.as_deref(), Some("timer_start"));
    assert_eq!(out.reply, "For how many minutes?");
    assert!(out.executed.is_empty());
    let (out, model) = routed_turn(&mut agent, "eight", &["Done."]);
    assert!(out.filled);
    assert_eq!(
        model.requests()[0].forced_reply.as_deref(),
        Some("TOOL_CALL: timer_start|8")
    );
    assert_eq!(out.executed[0].args.get("minutes"), Some(&ArgValue::Int(8)));
    // A no drops the waiting call.
    routed_turn(&mut agent, "set a timer", &[]);
    let (out, model) = routed_turn(&mut agent, "never mind", &[]);
    assert!(model.requests().is_empty() && out.executed.is_empty());
    assert_eq!(out.reply, Texts::new(Lang::En).fill_dropped());
}

#[test]
fn a_value_outside_its_range_is_never_executed_and_the_range_is_said() {
    let mut agent = host_agent(Guidance::default());
    let (out, model) = routed_turn(&mut agent, "set a timer for 2000 minutes", &[]);
    assert!(model.requests().is_empty() && out.executed.is_empty());
    assert_eq!(out.out_of_range.as_deref(), Some("timer_start"));
    assert_eq!(out.reply, "I can't do that: it can be from 1 to 1440.");
}

#[test]
fn enum_values_come_from_their_words_and_a_follow_up_keeps_the_rest() {
    let mut agent = host_agent(Guidance::default());
    let (out, model) = routed_turn(&mut agent, "turn on the kitchen light", &["Done."]);
    assert_eq!(
        model.requests()[0].forced_reply.as_deref(),
        Some("TOOL_CALL: home_light|kitchen|on")
    );
    assert_eq!(out.executed[0].name, "home_light");
    // "it" goes on with the call before: the room is the kitchen's.
    let (out, model) = routed_turn(&mut agent, "now turn it off", &["Done."]);
    assert!(!model.requests().is_empty(), "{out:?}");
    assert_eq!(
        model.requests()[0].forced_reply.as_deref(),
        Some("TOOL_CALL: home_light|kitchen|off"),
        "{:?}",
        out.route
    );
    // Two rooms joined in one request: one call each, in order, both executed.
    let (out, model) = routed_turn(
        &mut agent,
        "switch the kitchen and bedroom light off",
        &["Done."],
    );
    assert_eq!(
        model.requests()[0].forced_reply.as_deref(),
        Some("TOOL_CALL: home_light|kitchen|off\nTOOL_CALL: home_light|bedroom|off")
    );
    let rooms: Vec<_> = out.executed.iter().map(|e| e.args.str("room")).collect();
    assert_eq!(rooms, [Some("kitchen"), Some("bedroom")]);
    // "them both": the rooms of the calls before, each switched.
    let (out, _) = routed_turn(&mut agent, "turn them both on", &["Done."]);
    assert!(
        !out.executed.is_empty(),
        "{:?} {:?} {:?}",
        out.route,
        out.asked_for,
        out.reply
    );
    let calls: Vec<_> = out
        .executed
        .iter()
        .map(|e| (e.args.str("room"), e.args.str("state")))
        .collect();
    assert_eq!(
        calls,
        [(Some("kitchen"), Some("on")), (Some("bedroom"), Some("on"))]
    );
}

#[test]
fn a_question_naming_the_subject_without_values_is_no_call() {
    let mut agent = host_agent(Guidance::default());
    let (out, _) = routed_turn(
        &mut agent,
        "why does my kitchen light keep flickering?",
        &["It may be a loose bulb."],
    );
    assert!(out.executed.is_empty(), "{:?}", out.executed);
    assert_eq!(out.asked_for, None);
}

const MUSIC: &str = "\
name: music
description: the music player
tools:
  - name: music_volume
    description: set the volume
    args:
      - {name: level, type: integer, required: true, min: 0, max: 100}
    examples:
      en: ['Volume 50', 'Turn the volume down to 20']
";

const MEMO: &str = "\
name: memo
description: memos
spoken: {en: keep memos}
tools:
  - name: memo_add
    description: make a memo
    ask: {en: 'Should I make a memo?'}
    args:
      - {name: text, type: string, required: true}
      - {name: count, type: integer, min: 1, max: 99}
    examples:
      en: ['Make it a memo: buy milk', 'Make a memo to call Bob']
";

const KITCHEN: &str = "\
name: kitchen
description: kitchen timers
tools:
  - name: kitchen_start
    description: set a kitchen timer
    args:
      - {name: minutes, type: integer, required: true, min: 1, max: 600, unit: minutes,
         ask_for: {en: 'For how long?'}}
    examples:
      en: ['Start a 20 minute timer']
  - name: kitchen_cancel
    description: cancel a kitchen timer
    args:
      - {name: number, type: integer, required: true, min: 1,
         ask_for: {en: 'Which timer?'}}
    examples:
      en: ['Cancel the timer number two', 'Stop the timer two']
";

/// An English agent with the given host sets declared and active, every call answered.
fn sets_agent(guidance: Guidance, sets: &[(&str, &str)]) -> Agent {
    let clock = ManualClock::parse("2026-08-22T10:00:00+03:00").unwrap();
    let toolsets = ToolsetRegistry::from_toolsets(
        sets.iter()
            .map(|(name, yaml)| parse_toolset(yaml, Path::new(&format!("{name}.yaml"))).unwrap()),
    );
    let config = AgentConfig {
        guidance,
        lang: Lang::En,
        ..AgentConfig::default()
    };
    let mut agent = Agent::new(config, SkillRegistry::default(), toolsets, Arc::new(clock));
    for (name, _) in sets {
        agent.register_executor(
            ExecutorTarget::Toolset((*name).into()),
            Arc::new(|_: &ToolInvocation<'_>| Ok("Done.".to_string())),
        );
        agent.enable_toolset("s", name).unwrap();
    }
    agent
}

fn routed_to(out: &TurnOutcome) -> Option<&str> {
    out.route.as_ref().and_then(|r| r.target.as_deref())
}

#[test]
fn a_follow_up_saying_a_value_stays_in_the_set_the_previous_turn_acted_in() {
    let sets = [("music", MUSIC), ("memo", MEMO)];
    let mut agent = sets_agent(Guidance::default(), &sets);
    let (out, _) = routed_turn(&mut agent, "volume 30", &["Done."]);
    assert_eq!(out.executed[0].name, "music_volume");
    let (out, model) = routed_turn(&mut agent, "make it 20", &["Done."]);
    assert_eq!(routed_to(&out), Some("music_volume"));
    assert_eq!(
        model.requests()[0].forced_reply.as_deref(),
        Some("TOOL_CALL: music_volume|20")
    );
    // Without the technique the follow-up's few words go to the memo they came nearest.
    let mut agent = sets_agent(Guidance::default().without(Technique::StayInSet), &sets);
    routed_turn(&mut agent, "volume 30", &["Done."]);
    let (out, _) = routed_turn(&mut agent, "make it 20", &["Done."]);
    assert_eq!(routed_to(&out), Some("memo_add"));
    // A request naming another set's subject leaves the set.
    let mut agent = sets_agent(Guidance::default(), &sets);
    routed_turn(&mut agent, "volume 30", &["Done."]);
    let (out, _) = routed_turn(&mut agent, "make a memo: 20 eggs", &["Done."]);
    assert_eq!(routed_to(&out), Some("memo_add"));
}

const TV: &str = "\
name: tv
description: the television
tools:
  - name: tv_channel
    description: switch the channel
    args:
      - {name: channel, type: integer, required: true, min: 1, max: 999}
    examples:
      en: ['Switch to channel 5', 'Put on channel 24']
  - name: tv_volume
    description: set the TV volume
    args:
      - {name: level, type: integer, required: true, min: 0, max: 30}
    examples:
      en: ['Make it 20 on the TV volume', 'TV volume 10', 'Make it quieter, 8']
";

#[test]
fn a_short_request_pointing_back_with_a_value_is_the_previous_call_again() {
    let sets = [("tv", TV)];
    let mut agent = sets_agent(Guidance::default(), &sets);
    let (out, _) = routed_turn(&mut agent, "Let's watch channel 12", &["Done."]);
    assert_eq!(out.executed[0].name, "tv_channel");
    let (out, model) = routed_turn(&mut agent, "hmm, make it fourteen", &["Done."]);
    assert_eq!(routed_to(&out), Some("tv_channel"), "{:?}", out.route);
    assert_eq!(
        model.requests()[0].forced_reply.as_deref(),
        Some("TOOL_CALL: tv_channel|14")
    );
    // Said with a word of another tool of the set: that tool, wherever it was routed (the
    // music's volume came nearer).
    let sets = [("tv", TV), ("music", MUSIC)];
    let mut agent = sets_agent(Guidance::default(), &sets);
    routed_turn(&mut agent, "Let's watch channel 12", &["Done."]);
    let (out, model) = routed_turn(&mut agent, "and a bit quieter, volume ten", &["Done."]);
    assert_eq!(routed_to(&out), Some("tv_volume"), "{:?}", out.route);
    assert_eq!(
        model.requests()[0].forced_reply.as_deref(),
        Some("TOOL_CALL: tv_volume|10")
    );
    // A word of another tool of the set said: that tool.
    let mut agent = sets_agent(Guidance::default(), &sets);
    routed_turn(&mut agent, "Let's watch channel 12", &["Done."]);
    let (out, _) = routed_turn(&mut agent, "make it 8 on the TV volume", &["Done."]);
    assert_eq!(routed_to(&out), Some("tv_volume"), "{:?}", out.route);
}

#[test]
fn a_verb_only_one_tool_declares_routes_to_it() {
    let sets = [("kitchen", KITCHEN)];
    let mut agent = sets_agent(Guidance::default(), &sets);
    let (out, model) = routed_turn(&mut agent, "set the timer", &[]);
    assert_eq!(routed_to(&out), Some("kitchen_start"));
    assert_eq!(out.asked_for.as_deref(), Some("kitchen_start"));
    assert!(model.requests().is_empty());
    let mut agent = sets_agent(Guidance::default().without(Technique::DeclaredWords), &sets);
    let (out, _) = routed_turn(&mut agent, "set the timer", &[]);
    assert_eq!(routed_to(&out), Some("kitchen_cancel"));
}

#[test]
fn a_duration_is_no_place_in_a_list() {
    let mut agent = sets_agent(Guidance::default(), &[("kitchen", KITCHEN)]);
    let (out, model) = routed_turn(&mut agent, "set a timer for two hours", &["Done."]);
    assert_eq!(routed_to(&out), Some("kitchen_start"));
    assert_eq!(
        model.requests()[0].forced_reply.as_deref(),
        Some("TOOL_CALL: kitchen_start|120")
    );
}

#[test]
fn a_required_text_of_nothing_but_the_tools_own_words_is_asked_for() {
    let mut agent = sets_agent(Guidance::default(), &[("memo", MEMO)]);
    let (out, model) = routed_turn(&mut agent, "make a memo of something", &[]);
    assert_eq!(out.asked_for.as_deref(), Some("memo_add"));
    assert!(model.requests().is_empty() && out.executed.is_empty());
    let (out, _) = routed_turn(
        &mut agent,
        "make a memo: buy bread",
        &["TOOL_CALL: memo_add|buy bread", "Done."],
    );
    assert!(out.asked_for.is_none());
    assert_eq!(out.executed[0].name, "memo_add");
    assert!(out.executed[0]
        .args
        .get("text")
        .is_some_and(|t| t.to_string().contains("bread")));
}

const HOUSE: &str = "\
name: house
description: the house
tools:
  - name: house_light
    description: switch a light
    args:
      - {name: room, type: enum, values: [kitchen, hallway], required: true}
      - {name: state, type: enum, values: ['on', 'off'], required: true}
    examples:
      en: ['Turn on the kitchen light', 'Switch the hallway light off', 'Kitchen light on']
  - name: house_status
    description: what is on in the house
    examples:
      en: ['What is on in the house?', 'Which rooms are lit?']
";

#[test]
fn a_question_of_how_things_stand_goes_to_the_sets_reader() {
    let sets = [("house", HOUSE)];
    let mut agent = sets_agent(Guidance::default(), &sets);
    let (out, _) = routed_turn(
        &mut agent,
        "did I leave the kitchen light on?",
        &["Done.", "Done."],
    );
    assert_eq!(routed_to(&out), Some("house_status"));
    assert_eq!(out.executed[0].name, "house_status");
    // Advice or a cause is no state: it stays where its words route it.
    let (out, _) = routed_turn(
        &mut agent,
        "why is the kitchen light on?",
        &["TOOL_CALL: house_light|kitchen|on", "Done."],
    );
    assert_ne!(routed_to(&out), Some("house_status"));
    // Without the technique the question switches the light.
    let mut agent = sets_agent(
        Guidance::default().without(Technique::StateQuestions),
        &sets,
    );
    let (out, _) = routed_turn(
        &mut agent,
        "did I leave the kitchen light on?",
        &["Done.", "Done."],
    );
    assert_eq!(routed_to(&out), Some("house_light"));
}

#[test]
fn an_optional_text_said_beside_a_value_is_written() {
    let mut agent = host_agent(Guidance::default());
    let (out, model) = routed_turn(
        &mut agent,
        "Set a 12 minute rice timer",
        &["TOOL_CALL: timer_start|12|rice", "Done."],
    );
    assert_eq!(routed_to(&out), Some("timer_start"));
    let calls = model.requests()[0]
        .call_specs
        .clone()
        .expect("a guided call");
    let label = &calls[0].args[1];
    assert!(label.required, "{calls:?}");
    assert!(
        matches!(&label.kind, crate::model::ArgKind::TailOf(words) if words.iter().any(|w| w.contains("rice"))),
        "{calls:?}"
    );
    // Nothing beside the value: the label is left out, decided without the model.
    let (_, model) = routed_turn(&mut agent, "Set a timer for 12 minutes", &["Done."]);
    assert_eq!(
        model.requests()[0].forced_reply.as_deref(),
        Some("TOOL_CALL: timer_start|12")
    );
}

#[test]
fn an_optional_text_said_before_the_asked_value_is_kept() {
    let mut agent = host_agent(Guidance::default());
    let (out, _) = routed_turn(&mut agent, "Set a timer for the rice", &[]);
    assert_eq!(out.asked_for.as_deref(), Some("timer_start"));
    let (out, model) = routed_turn(
        &mut agent,
        "twenty minutes",
        &["TOOL_CALL: timer_start|20|rice", "Done."],
    );
    assert!(out.filled);
    let calls = model.requests()[0]
        .call_specs
        .clone()
        .expect("a guided call");
    assert!(
        matches!(&calls[0].args[1].kind, crate::model::ArgKind::TailOf(words)
            if words.last().is_some_and(|w| w == "rice")),
        "{calls:?}"
    );
    assert_eq!(
        out.executed[0].args.get("minutes"),
        Some(&ArgValue::Int(20))
    );
    // A first request of nothing but the tool's frame gives no text.
    let (out, _) = routed_turn(&mut agent, "Set a timer", &[]);
    assert_eq!(out.asked_for.as_deref(), Some("timer_start"));
    let (_, model) = routed_turn(&mut agent, "twenty minutes", &["Done."]);
    assert_eq!(
        model.requests()[0].forced_reply.as_deref(),
        Some("TOOL_CALL: timer_start|20")
    );
}

#[test]
fn a_question_of_advice_or_cause_is_no_request_of_a_tool_that_acts() {
    let sets = [("house", HOUSE)];
    let mut agent = sets_agent(Guidance::default(), &sets);
    let (out, _) = routed_turn(
        &mut agent,
        "why is the kitchen light on?",
        &["It may have been left on."],
    );
    assert!(out.executed.is_empty(), "{:?}", out.executed);
    assert!(
        routed_to(&out).is_none_or(|t| t.is_empty() || t.starts_with("talk:")),
        "{:?}",
        out.route
    );
    // A request put as a question is still a request.
    let (out, _) = routed_turn(
        &mut agent,
        "can you turn on the kitchen light, the good one?",
        &["Done.", "Done."],
    );
    assert_eq!(routed_to(&out), Some("house_light"));
    // Without the technique the question switches the light.
    let mut agent = sets_agent(
        Guidance::default().without(Technique::AdviceQuestions),
        &sets,
    );
    let (out, _) = routed_turn(
        &mut agent,
        "why is the kitchen light on?",
        &["TOOL_CALL: house_light|kitchen|on", "Done."],
    );
    assert_eq!(routed_to(&out), Some("house_light"));
}

const GROCERIES: &str = "\
name: groceries
description: the grocery list
tools:
  - name: groceries_add
    description: add an item
    args:
      - {name: item, type: string, required: true}
    examples:
      en: ['Put milk on the grocery list', 'Add bread to the groceries']
  - name: groceries_remove
    description: cross an item off by its number
    args:
      - {name: number, type: integer, required: true, min: 1}
    examples:
      en: ['Cross off item two', 'Remove the first item from the grocery list']
  - name: groceries_clear
    description: clear the whole list
    examples:
      en: ['Empty the grocery list']
";

#[test]
fn a_request_for_the_whole_list_goes_to_the_tool_that_declares_the_whole() {
    let mut agent = sets_agent(Guidance::default(), &[("groceries", GROCERIES)]);
    let (out, _) = routed_turn(
        &mut agent,
        "remove the whole grocery list, I bought it all",
        &["Done.", "Done."],
    );
    assert_eq!(routed_to(&out), Some("groceries_clear"));
    assert_eq!(out.executed[0].name, "groceries_clear");
    // One item's removal stays one item's.
    let (out, _) = routed_turn(&mut agent, "remove item two", &["Done.", "Done."]);
    assert_eq!(routed_to(&out), Some("groceries_remove"));
    // Without the declared words the whole list goes to one item's removal.
    let guidance = Guidance::default().without(Technique::DeclaredWords);
    let mut agent = sets_agent(guidance, &[("groceries", GROCERIES)]);
    let (out, _) = routed_turn(
        &mut agent,
        "remove the whole grocery list, I bought it all",
        &["Which item?"],
    );
    assert_ne!(routed_to(&out), Some("groceries_clear"));
}

const CHAT: &str = "\
name: chat
description: messages
tools:
  - name: chat_send
    description: send a message
    args:
      - {name: contact, type: string, required: true, values_from: contacts}
      - {name: text, type: string, required: true}
    examples:
      en: ['Text Mum that I am on my way', 'Send Bob a message saying hello']
";

#[test]
fn several_targets_with_one_text_are_one_call_each() {
    let mut agent = sets_agent(Guidance::default(), &[("chat", CHAT)]);
    // The host's list in another order: the calls follow the order said.
    agent.set_values("contacts", vec!["Mum".into(), "Ann".into(), "Bob".into()]);
    let (out, model) = routed_turn(
        &mut agent,
        "text Bob and Ann that dinner is at eight",
        &["Sent.", "Sent."],
    );
    assert_eq!(routed_to(&out), Some("chat_send"));
    let forced = model.requests()[0].forced_reply.clone().unwrap_or_default();
    let lines: Vec<&str> = forced.lines().collect();
    assert_eq!(lines.len(), 2, "{forced}");
    assert!(
        lines[0].starts_with("TOOL_CALL: chat_send|Bob|"),
        "{forced}"
    );
    assert!(
        lines[1].starts_with("TOOL_CALL: chat_send|Ann|"),
        "{forced}"
    );
    assert!(
        lines.iter().all(|l| l.contains("dinner is at eight")),
        "{forced}"
    );
    assert_eq!(out.executed.len(), 2);
}

#[test]
fn a_name_the_host_list_lacks_is_answered_with_the_list_and_the_answer_fills_it() {
    let mut agent = sets_agent(Guidance::default(), &[("chat", CHAT)]);
    agent.set_values("contacts", vec!["Mum".into(), "Ann".into(), "Bob".into()]);
    let (out, model) = routed_turn(&mut agent, "Text Dmitry that I am late", &[]);
    assert!(model.requests().is_empty() && out.executed.is_empty());
    assert_eq!(out.out_of_range.as_deref(), Some("chat_send"));
    assert_eq!(
        out.reply,
        Texts::new(Lang::En).not_in_list(&["Mum".into(), "Ann".into(), "Bob".into()])
    );
    // The call waits: the next turn names an entry.
    let (out, _) = routed_turn(&mut agent, "Bob", &["Bob|I am late", "Sent."]);
    assert!(out.filled, "{out:?}");
    assert_eq!(out.executed[0].args.str("contact"), Some("Bob"));
    // Nothing said of whom: asked which, no range.
    let (out, _) = routed_turn(&mut agent, "send a message that I am late", &[]);
    assert_eq!(out.out_of_range, None);
}

const PANTRY: &str = "\
name: pantry
description: the pantry list
tools:
  - name: pantry_add
    description: add an item to the pantry list
    args:
      - {name: item, type: string, required: true}
      - {name: count, type: integer, min: 1, max: 99}
    examples:
      en: ['We need three tins of beans', 'Add rice to the pantry list', 'Pantry: rice']
";

#[test]
fn the_declarations_own_words_at_either_end_of_a_text_are_its_frame() {
    let mut agent = sets_agent(Guidance::default(), &[("pantry", PANTRY)]);
    let (out, model) = routed_turn(
        &mut agent,
        "add to the pantry list oranges, five of them",
        &["Done."],
    );
    assert!(!model.requests().is_empty(), "{out:?}");
    assert_eq!(
        model.requests()[0].forced_reply.as_deref(),
        None,
        "a text is the model's to write within its words"
    );
    let calls = model.requests()[0]
        .call_specs
        .clone()
        .expect("a guided call");
    assert!(
        matches!(&calls[0].args[0].kind, crate::model::ArgKind::TailOf(words)
            if words.first().is_some_and(|w| w.starts_with("oranges"))),
        "{calls:?}"
    );
}

const DIARY: &str = "\
name: diary
description: the diary
tools:
  - name: diary_add
    description: add an event on a weekday at an hour
    args:
      - {name: title, type: string, required: true, ask_for: {en: 'What is the event?'}}
      - {name: day, type: enum, values: [monday, thursday, friday], required: true,
         said: {thursday: [четверг, четверга]}}
      - {name: hour, type: integer, required: true, min: 0, max: 23}
      - {name: minute, type: integer, required: false, min: 0, max: 59}
    examples:
      en: ['Add a dentist appointment on Monday at 9 am', 'Put lunch with Kate in the diary for Thursday at 1 pm']
";

#[test]
fn a_text_is_never_the_frame_said_after_the_values_nor_a_decided_value_s_word() {
    let mut agent = sets_agent(Guidance::default(), &[("diary", DIARY)]);
    let (out, model) = routed_turn(
        &mut agent,
        "The plumber is coming on Monday at quarter to eight, put that in",
        &["TOOL_CALL: diary_add|The plumber|monday|7|45", "Done."],
    );
    assert_eq!(routed_to(&out), Some("diary_add"));
    let calls = model.requests()[0]
        .call_specs
        .clone()
        .expect("a guided call");
    assert!(
        matches!(&calls[0].args[0].kind, crate::model::ArgKind::TailOf(words)
            if words.iter().any(|w| w.contains("plumber")) && !words.iter().any(|w| w.contains("put"))),
        "{calls:?}"
    );
    // The day's word is no title: nothing else named, the title is asked for.
    let (out, _) = routed_turn(&mut agent, "Add an event on Friday at noon", &[]);
    assert_eq!(out.asked_for.as_deref(), Some("diary_add"));
    assert_eq!(out.reply, "What is the event?");
}

const UNITS: &str = "\
name: units
description: a unit converter
tools:
  - name: units_length
    description: convert a length
    args:
      - {name: amount, type: number, required: true}
      - {name: from, type: enum, values: [mile, kilometer], required: true,
         said: {mile: [miles], kilometer: [kilometres, kilometers]}}
      - {name: to, type: enum, values: [mile, kilometer], required: true,
         said: {mile: [miles], kilometer: [kilometres, kilometers]}}
    examples:
      en: ['Convert 5 kilometers to miles', 'Ten miles in kilometres, please']
";

#[test]
fn units_said_go_one_to_each_argument_and_a_number_goes_on_with_the_last_call() {
    let mut agent = sets_agent(Guidance::default(), &[("units", UNITS)]);
    let (out, model) = routed_turn(
        &mut agent,
        "how many kilometres is twenty-six miles?",
        &["Done.", "Done."],
    );
    assert_eq!(routed_to(&out), Some("units_length"));
    assert_eq!(
        model.requests()[0].forced_reply.as_deref(),
        Some("TOOL_CALL: units_length|26|mile|kilometer")
    );
    let (_, model) = routed_turn(&mut agent, "and fifteen?", &["Done.", "Done."]);
    assert_eq!(
        model.requests()[0].forced_reply.as_deref(),
        Some("TOOL_CALL: units_length|15|mile|kilometer")
    );
}

const PHONE: &str = "\
name: phone
description: calls and messages
tools:
  - name: phone_dial
    description: call a contact
    args:
      - {name: contact, type: enum, values: [bob, sarah], required: true}
    examples:
      en: ['Call Bob', 'Ring Sarah please', 'Phone Bob now']
  - name: phone_message
    description: send a message to a contact
    args:
      - {name: contact, type: enum, values: [bob, sarah], required: true}
      - {name: text, type: string, required: true}
    examples:
      en: ['Message Sarah: running late']
";

#[test]
fn what_to_tell_said_after_a_name_goes_to_the_tool_that_takes_a_text() {
    let mut agent = sets_agent(Guidance::default(), &[("phone", PHONE)]);
    let (out, _) = routed_turn(
        &mut agent,
        "Ring Bob and say that dinner is at eight",
        &["TOOL_CALL: phone_message|bob|dinner is at eight", "Done."],
    );
    assert_eq!(routed_to(&out), Some("phone_message"));
    let (out, _) = routed_turn(&mut agent, "Ring Bob please", &["Done.", "Done."]);
    assert_eq!(routed_to(&out), Some("phone_dial"));
}

#[test]
fn a_number_that_counts_the_sets_things_is_how_many_calls_not_a_value() {
    let mut agent = host_agent(Guidance::default());
    let (out, model) = routed_turn(
        &mut agent,
        "set two timers, one for five minutes and one for ten",
        &["Done.", "Done.", "Done."],
    );
    assert_eq!(routed_to(&out), Some("timer_start"));
    assert_eq!(
        model.requests()[0].forced_reply.as_deref(),
        Some("TOOL_CALL: timer_start|5\nTOOL_CALL: timer_start|10")
    );
    let minutes: Vec<_> = out
        .executed
        .iter()
        .map(|c| c.args.get("minutes").cloned())
        .collect();
    assert_eq!(minutes, [Some(ArgValue::Int(5)), Some(ArgValue::Int(10))]);
}
