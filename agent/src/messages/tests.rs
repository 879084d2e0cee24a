//! The messages' tests: both tables complete and alike, every text filled in.

use super::*;

fn both() -> [Texts; 2] {
    [Texts::new(Lang::Ru), Texts::new(Lang::En)]
}

#[test]
fn lang_parses_and_prints() {
    assert_eq!("ru".parse::<Lang>(), Ok(Lang::Ru));
    assert_eq!(" EN ".parse::<Lang>(), Ok(Lang::En));
    assert!("de".parse::<Lang>().is_err());
    assert_eq!(Lang::default(), Lang::Ru);
    assert_eq!(Lang::En.to_string(), "en");
}

#[test]
fn design_phrases_are_present() {
    let ru = Texts::new(Lang::Ru);
    let en = Texts::new(Lang::En);
    let avail = vec!["a".to_string(), "b".to_string()];
    let cases: Vec<(String, &str)> = vec![
        (
            ru.toolset_already_active("media"),
            "уже активен, продлеваю таймаут",
        ),
        (
            en.toolset_already_active("media"),
            "already active, timeout extended",
        ),
        (ru.nothing_active(), "нет активных наборов"),
        (en.nothing_active(), "no active toolsets"),
        (
            ru.unknown_toolset("X", &avail),
            "набора X нет, доступны: a, b",
        ),
        (
            en.unknown_toolset("X", &avail),
            "no toolset X; available: a, b",
        ),
        (
            ru.substituted("media", "r", "s"),
            "Тулсет media активирован. Реестр:",
        ),
        (
            ru.substituted("media", "r", "s"),
            "Вызов ещё НЕ выполнялся.",
        ),
        (
            en.substituted("media", "r", "s"),
            "Toolset media activated. Registry:",
        ),
        (
            en.substituted("media", "r", "s"),
            "The call was NOT executed yet.",
        ),
        (en.no_executor("media_play"), "no executor on this host"),
    ];
    for (text, phrase) in cases {
        assert!(text.contains(phrase), "{text:?} lacks {phrase:?}");
    }
}

#[test]
fn every_core_tool_has_a_description_in_both_languages() {
    for t in both() {
        for name in crate::tools::CORE_TOOL_NAMES {
            assert!(!t.core_tool(name).is_empty(), "{name} in {t:?}");
        }
    }
}

#[test]
fn languages_differ_for_every_reply() {
    let [ru, en] = both();
    let p = ArgProblem::Missing("q".into());
    assert_ne!(ru.bad_args("t", &p, "s"), en.bad_args("t", &p, "s"));
    assert_ne!(ru.shown(), en.shown());
    assert_ne!(ru.core_header(), en.core_header());
    assert_ne!(ru.unknown_tool("x", &[], ""), en.unknown_tool("x", &[], ""));
}

/// The `{name}` placeholders of a template, sorted.
fn placeholders(template: &str) -> Vec<&str> {
    let mut names: Vec<&str> = template
        .split('{')
        .skip(1)
        .filter_map(|rest| rest.split_once('}').map(|(name, _)| name))
        .collect();
    names.sort_unstable();
    names
}

#[test]
fn both_tables_have_every_key_with_the_same_placeholders() {
    assert!(Key::ALL.len() > 40);
    for &key in Key::ALL {
        let (r, e) = (ru(key), en(key));
        assert!(!r.is_empty() && !e.is_empty(), "{key:?} is empty");
        assert_ne!(r, e, "{key:?} is not translated");
        assert_eq!(placeholders(r), placeholders(e), "{key:?}: {r:?} vs {e:?}");
        for name in placeholders(r) {
            assert!(
                !name.is_empty() && name.chars().all(|c| c.is_ascii_lowercase()),
                "{key:?}: odd placeholder {name:?}"
            );
        }
    }
}

#[test]
fn every_placeholder_is_filled() {
    let avail = vec!["a".to_string()];
    for t in both() {
        let problems = [
            ArgProblem::Missing("q".into()),
            ArgProblem::Unknown("q".into()),
            ArgProblem::TooMany(3),
            ArgProblem::NotA("q".into(), "integer"),
            ArgProblem::NotOneOf("q".into(), avail.clone()),
            ArgProblem::Repeated("q".into()),
        ];
        let mut texts = vec![
            t.active_header(&avail),
            t.toolset_enabled("s", "r"),
            t.toolset_already_active("s"),
            t.substituted("s", "r", "x"),
            t.toolset_disabled("s"),
            t.toolset_not_active("s", &avail),
            t.unknown_toolset("s", &[]),
            t.toolset_name_needed(&avail),
            t.unknown_skill("n", &avail),
            t.skill_body("n", "b"),
            t.unknown_tool("n", &avail, "c"),
            t.unknown_tool_in_set("n", "s", &avail),
            t.no_executor("x"),
            t.tool_failed("x", "e"),
            t.tool_result_shortened("x|q", "first"),
            t.message_cut("kept"),
            t.message_too_long(900, 576),
            t.host_tool_timeout(5),
            t.host_tool_not_started("e"),
            t.host_tool_panicked("e"),
            t.host_tool_no_result("x"),
            t.host_tool_call_failed("x", "e"),
            t.note_saved(1),
            t.note_missing(2, 1),
            t.note_deleted(1, "n"),
            t.notes_unknown_tool("notes_x"),
            t.catalog_skill_created("n", "#1"),
            t.catalog_skill_updated("n", 2),
            t.catalog_skill_unchanged("n"),
            t.catalog_protocol_via_create("n"),
            t.catalog_protocol_via_update("n"),
            t.catalog_skill_proposed("n"),
            t.catalog_proposed("#1", "n", 3),
            t.catalog_proposed_replacing("#1", "n", "#2", 3),
            t.catalog_refused("r"),
            t.catalog_unknown_tool("skills_x"),
            t.catalog_index_line(false, "n", "d"),
            t.catalog_index_line(true, "n", "d"),
            t.proposal_accepted("#1", "n", "#2"),
            t.proposal_rejected("#1", "n", Some("r")),
            t.proposal_rejected("#1", "n", None),
            t.protocol_started("n", "#1", "1. a"),
            t.protocol_step_marked(1, "done", "2"),
            t.protocol_step_marked(1, "done", ""),
            t.protocol_step_failed(1),
            t.protocol_finished("n"),
            t.protocol_cancelled("n", "r"),
            t.protocol_failed("n", "r"),
            t.protocol_status_header("n", "#1", 2),
            t.protocol_no_run(),
            t.protocol_unknown_tool("protocol_x"),
            t.protocol_reminder("n", "2. b"),
            t.protocol_reminder_closed("n"),
            t.protocol_reminder_failed("n", 1),
            t.protocol_finish_nudge("n"),
        ];
        texts.extend(problems.iter().map(|p| t.bad_args("x", p, "x|q")));
        for text in texts {
            assert!(
                !text.contains('{') && !text.contains('}'),
                "{t:?}: {text:?}"
            );
        }
    }
}

#[test]
fn fill_expands_each_placeholder_once() {
    assert_eq!(fill("a {x} b {x}", &[("x", "{x}")]), "a {x} b {x}");
    assert_eq!(fill("{y} {x", &[("x", "1")]), "{y} {x");
    assert_eq!(fill("{x}{x}", &[("x", "Ж")]), "ЖЖ");
}

#[test]
fn host_replies_come_in_the_agent_language() {
    let [ru, en] = both();
    assert_eq!(ru.host_tool_timeout(50), "инструмент не ответил за 50 мс");
    assert_eq!(
        en.host_tool_timeout(50),
        "the tool did not answer within 50 ms"
    );
    assert_eq!(ru.note_saved(2), "Заметка 2 сохранена.");
    assert_eq!(en.note_deleted(1, "x"), "Note 1 deleted: x");
    assert_eq!(en.lang(), Lang::En);
}
