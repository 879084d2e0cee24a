//! The document format: parse, validate, render, compact rendering, bounds.

use porfiry_catalog::{
    Area, CompactLabels, Document, DocumentError, FrontMatterError, Kind, Protocol,
    MAX_DOCUMENT_BYTES, MAX_FLOW_OPENINGS, MAX_YAML_DEPTH, MAX_YAML_NODES,
};
use serde_json::json;

use crate::common::{protocol, skill};

/// The protocol example of docs/design.md ("One document format"), as written there.
const DESIGN_EXAMPLE: &str = r#"---
kind: protocol
name: Корректное выключение инфраструктуры
description: Останавливает сервисы в порядке зависимостей и проверяет диск.
area: infrastructure
tags: [power, shutdown]
triggers:
  - "пользователь просит выключить сервер"
steps:
  - "Остановить приложения"
  - "Остановить базы данных"
  - "Синхронизировать и отмонтировать диски"
preconditions:
  - "Все пользователи предупреждены"
post_checks:
  - "Прикладных юнитов не осталось"
on_deviation: "Не продолжать; вернуться к предыдущему шагу и доложить."
on_blocked: "Остановить процесс и доложить, что именно не дало завершить."
on_already_done: "Проверить статус; если результат уже есть — отметить шаг."
---

Контекст: порядок зависимостей, известные ловушки, что занимает время.
"#;

fn refused(text: &str) -> DocumentError {
    match Document::parse(text) {
        Err(e) => e,
        Ok(d) => panic!("expected a refusal, got {d:?}"),
    }
}

#[test]
fn the_design_example_parses() {
    let d = Document::parse(DESIGN_EXAMPLE).expect("valid");
    assert_eq!(d.kind(), Kind::Protocol);
    assert_eq!(d.name, "Корректное выключение инфраструктуры");
    assert_eq!(d.area, Area::Infrastructure);
    assert_eq!(d.tags, ["power", "shutdown"]);
    assert_eq!(d.triggers, ["пользователь просит выключить сервер"]);
    let p = d.protocol.as_ref().expect("protocol");
    assert_eq!(p.steps.len(), 3);
    assert_eq!(p.preconditions, ["Все пользователи предупреждены"]);
    assert_eq!(
        d.body,
        "Контекст: порядок зависимостей, известные ловушки, что занимает время."
    );
    assert!(d.extra.is_empty());
}

#[test]
fn the_shipped_skills_parse_as_skills() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../skills");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).expect("skills folder") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "md") {
            let text = std::fs::read_to_string(&path).expect("read");
            let d = Document::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert_eq!(d.kind(), Kind::Skill, "{}", path.display());
            // Their `toolset:` key is not the catalog's: it is kept as an extra.
            assert!(d.extra.contains_key("toolset"), "{}", path.display());
            seen += 1;
        }
    }
    assert!(seen > 0);
}

#[test]
fn a_protocol_missing_keys_names_every_missing_key_in_one_error() {
    let e = refused("---\nkind: protocol\nname: p\nsteps: [one]\n---\n");
    assert_eq!(
        e,
        DocumentError::MissingKeys {
            kind: Kind::Protocol,
            keys: vec![
                "post_checks",
                "on_deviation",
                "on_blocked",
                "on_already_done"
            ],
        }
    );
    assert_eq!(
        e.to_string(),
        "a protocol needs these keys: missing post_checks, on_deviation, on_blocked, on_already_done"
    );
    // Nothing but the kind: the name and all five.
    assert_eq!(
        refused("---\nkind: protocol\n---\n"),
        DocumentError::MissingKeys {
            kind: Kind::Protocol,
            keys: vec![
                "name",
                "steps",
                "post_checks",
                "on_deviation",
                "on_blocked",
                "on_already_done"
            ],
        }
    );
    // Empty values count as missing: an empty escape hatch is no escape hatch.
    let empty =
        protocol("p", &["one"]).replace("on_blocked: say what blocked it", "on_blocked: ''");
    assert_eq!(
        refused(&empty),
        DocumentError::MissingKeys {
            kind: Kind::Protocol,
            keys: vec!["on_blocked"],
        }
    );
    assert_eq!(
        refused(&protocol("p", &["one"]).replace("post_checks: [all checked]", "post_checks: []")),
        DocumentError::MissingKeys {
            kind: Kind::Protocol,
            keys: vec!["post_checks"],
        }
    );
    assert_eq!(
        refused("---\nkind: protocol\nname: p\nsteps: [a]\npost_checks: [b]\non_deviation: c\non_blocked: d\n---\n")
            .to_string(),
        "a protocol needs this key: missing on_already_done"
    );
}

#[test]
fn refusals_name_the_problem() {
    let long = format!("---\nname: {}\n---\nx", "n".repeat(65));
    let cases: Vec<(String, DocumentError)> = vec![
        (
            "no front matter".into(),
            DocumentError::FrontMatter(FrontMatterError::NoFrontMatter),
        ),
        (
            "---\nname: x\nbody".into(),
            DocumentError::FrontMatter(FrontMatterError::UnclosedFrontMatter),
        ),
        (
            "---".into(),
            DocumentError::FrontMatter(FrontMatterError::UnclosedFrontMatter),
        ),
        (
            "---\n- a\n- b\n---\nx".into(),
            DocumentError::FrontMatter(FrontMatterError::NotAMapping),
        ),
        (
            "---\n---\nx".into(),
            DocumentError::MissingKeys {
                kind: Kind::Skill,
                keys: vec!["name"],
            },
        ),
        ("---\nname: x\n---\n\n  \n".into(), DocumentError::EmptyBody),
        (
            "---\nname: x\nkind: recipe\n---\nx".into(),
            DocumentError::BadKind("recipe".into()),
        ),
        (
            "---\nname: x\narea: garden\n---\nx".into(),
            DocumentError::BadArea {
                value: "garden".into(),
            },
        ),
        (
            "---\nname: a|b\n---\nx".into(),
            DocumentError::BadName {
                name: "a|b".into(),
                why: "contains |",
            },
        ),
        (
            long,
            DocumentError::BadName {
                name: "n".repeat(65),
                why: "longer than 64 characters",
            },
        ),
        (
            "---\nname: 12\n---\nx".into(),
            DocumentError::WrongType {
                key: "name",
                expected: "text",
            },
        ),
        (
            "---\nname: x\ntags: power\n---\nx".into(),
            DocumentError::WrongType {
                key: "tags",
                expected: "a list of texts",
            },
        ),
        (
            "---\nname: x\ntriggers: [a, 3]\n---\nx".into(),
            DocumentError::WrongType {
                key: "triggers",
                expected: "a list of texts",
            },
        ),
        (
            "---\nname: x\ntags: [a, '  ']\n---\nx".into(),
            DocumentError::EmptyItem {
                key: "tags",
                item: 2,
            },
        ),
        (
            "---\nname: x\nsteps: [a]\non_blocked: b\n---\nx".into(),
            DocumentError::ProtocolKeysInSkill {
                keys: vec!["steps", "on_blocked"],
            },
        ),
        (
            "---\nname: x\nname: y\n---\nx".into(),
            DocumentError::FrontMatter(FrontMatterError::DuplicateKey { key: "name".into() }),
        ),
        (
            "---\nname: x\n7: seven\n---\nx".into(),
            DocumentError::FrontMatter(FrontMatterError::Unsupported {
                what: "a key that is not text",
            }),
        ),
        (
            "---\nname: x\nwhen: !date 2024-01-01\n---\nx".into(),
            DocumentError::FrontMatter(FrontMatterError::Unsupported { what: "a YAML tag" }),
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(Document::parse(&text), Err(expected), "{text:?}");
    }
    let e = refused("---\nname: x\nlist:\n\t- a\n---\nx");
    assert!(
        matches!(
            e,
            DocumentError::FrontMatter(FrontMatterError::Yaml { line: Some(4), .. })
        ),
        "{e:?}"
    );
    println!("{e}");
    assert_eq!(
        DocumentError::ProtocolKeysInSkill {
            keys: vec!["steps"]
        }
        .to_string(),
        "this key is only for protocols: add `kind: protocol` or remove steps"
    );
}

#[test]
fn kind_and_area_ignore_case_and_render_canonically() {
    let d = Document::parse("---\nname: x\nkind: ' Skill '\narea: HOME\n---\nx").expect("valid");
    assert_eq!((d.kind(), d.area), (Kind::Skill, Area::Home));
    assert!(d.render().contains("kind: skill\n"));
    assert!(d.render().contains("area: home\n"));
}

#[test]
fn a_document_over_the_limit_is_refused_before_parsing() {
    let big = format!("---\nname: big\n---\n{}", "x".repeat(MAX_DOCUMENT_BYTES));
    assert!(matches!(
        Document::parse(&big),
        Err(DocumentError::FrontMatter(FrontMatterError::TooLarge {
            limit: MAX_DOCUMENT_BYTES,
            ..
        }))
    ));
    assert!(matches!(
        Document::parse_bytes(big.as_bytes()),
        Err(DocumentError::FrontMatter(
            FrontMatterError::TooLarge { .. }
        ))
    ));
    let fits = format!(
        "---\nname: big\n---\n{}",
        "x".repeat(MAX_DOCUMENT_BYTES - 100)
    );
    assert!(Document::parse(&fits).is_ok());
    assert_eq!(
        Document::parse_bytes(b"---\nname: \xff\n---\nx"),
        Err(DocumentError::NotUtf8)
    );
}

#[test]
fn a_billion_laughs_document_is_refused_without_blowing_up() {
    // Ten levels of ten aliases each: 10^10 strings if expanded.
    let mut yaml = String::from(
        "---\nname: laughs\na0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n",
    );
    for i in 1..10 {
        let refs = vec![format!("*a{}", i - 1); 10].join(", ");
        yaml.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
    }
    yaml.push_str("---\nha\n");
    assert_eq!(
        Document::parse(&yaml),
        Err(DocumentError::FrontMatter(FrontMatterError::TooManyNodes {
            limit: MAX_YAML_NODES
        }))
    );
    // The quadratic variant serde_norway's own alias guard lets through: one anchored list
    // referenced many times, all inside the size limit.
    let items = vec!["x"; 20_000].join(",");
    let refs = vec!["*a"; 20_000].join(",");
    let wide = format!("---\nname: wide\na: &a [{items}]\nb: [{refs}]\n---\nha\n");
    assert!(wide.len() < MAX_DOCUMENT_BYTES);
    assert_eq!(
        Document::parse(&wide),
        Err(DocumentError::FrontMatter(FrontMatterError::TooManyNodes {
            limit: MAX_YAML_NODES
        }))
    );
    // A few aliases within the budget are fine.
    let d =
        Document::parse("---\nname: ok\ncommon: &c {team: ops}\nother: *c\n---\nx").expect("valid");
    assert_eq!(d.extra["other"], json!({"team": "ops"}));
}

#[test]
fn deep_nesting_is_refused_quickly() {
    let started = std::time::Instant::now();
    let deep = format!("---\nname: deep\nx:\n  {}1\n---\nx", "- ".repeat(10_000));
    assert_eq!(
        Document::parse(&deep),
        Err(DocumentError::FrontMatter(FrontMatterError::TooDeep {
            limit: MAX_YAML_DEPTH
        }))
    );
    let flow = format!(
        "---\nname: deep\nx: {}1{}\n---\nx",
        "[".repeat(40),
        "]".repeat(40)
    );
    assert_eq!(
        Document::parse(&flow),
        Err(DocumentError::FrontMatter(FrontMatterError::TooDeep {
            limit: MAX_YAML_DEPTH
        }))
    );
    // Unclosed flow nesting as big as a document may be: libyaml's scanner would take
    // minutes on it; it is refused before parsing.
    let unclosed = format!("---\nname: deep\nx: {}\n---\nx", "{a: ".repeat(60_000));
    assert!(unclosed.len() < MAX_DOCUMENT_BYTES);
    assert_eq!(
        Document::parse(&unclosed),
        Err(DocumentError::FrontMatter(
            FrontMatterError::TooManyBrackets {
                limit: MAX_FLOW_OPENINGS
            }
        ))
    );
    let fits = format!(
        "---\nname: many\nx: [{}]\n---\nx",
        vec!["[a]"; MAX_FLOW_OPENINGS - 1].join(", ")
    );
    assert!(Document::parse(&fits).is_ok());
    assert!(
        started.elapsed() < std::time::Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn unknown_keys_survive_a_round_trip_with_the_same_meaning() {
    let text = "---\nname: extras\nowner_team: ops\nreviewed_by: [ann, bob]\nlimits: {cpu: 2, ratio: 0.5, big: 18446744073709551615, neg: -3, float_one: 1.0}\nflags: {on: true, off: false, none: null}\nquoted: ['yes', '1.0', 'null', '---', '#hash', 'a: b']\nmulti: |\n  line one\n  line two\n'---': dash key\n---\nBody.\n";
    let d = Document::parse(text).expect("valid");
    let expected = json!({
        "owner_team": "ops",
        "reviewed_by": ["ann", "bob"],
        "limits": {"cpu": 2, "ratio": 0.5, "big": 18446744073709551615u64, "neg": -3, "float_one": 1.0},
        "flags": {"on": true, "off": false, "none": null},
        "quoted": ["yes", "1.0", "null", "---", "#hash", "a: b"],
        "multi": "line one\nline two\n",
        "---": "dash key",
    });
    assert_eq!(serde_json::Value::Object(d.extra.clone()), expected);
    let rendered = d.render();
    let again = Document::parse(&rendered).expect("the rendering parses");
    assert_eq!(again, d, "{rendered}");
    assert_eq!(again.render(), rendered, "rendering is stable");
    // Through JSON text, as the store keeps them.
    let stored = serde_json::to_string(&d.extra).expect("json");
    let back: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&stored).expect("json back");
    assert_eq!(back, d.extra);
}

#[test]
fn render_writes_known_keys_in_order_then_extras() {
    let d = Document::parse(
        &protocol("Shutdown", &["stop apps", "stop db"])
            .replace("---\nContext", "zeta: 1\nalpha: two\n---\nContext"),
    )
    .expect("valid");
    assert_eq!(
        d.render(),
        "---\nkind: protocol\nname: Shutdown\ndescription: the Shutdown protocol\narea: general\nsteps:\n- stop apps\n- stop db\npost_checks:\n- all checked\non_deviation: stop and report\non_blocked: say what blocked it\non_already_done: check and mark the step\nalpha: two\nzeta: 1\n---\n\nContext of Shutdown.\n"
    );
}

#[test]
fn the_design_example_round_trips() {
    let d = Document::parse(DESIGN_EXAMPLE).expect("valid");
    assert_eq!(Document::parse(&d.render()), Ok(d));
}

#[test]
fn validate_checks_documents_built_in_code() {
    let mut d = Document {
        name: "built".into(),
        protocol: Some(Protocol::default()),
        ..Document::default()
    };
    assert_eq!(
        d.validate(),
        Err(DocumentError::MissingKeys {
            kind: Kind::Protocol,
            keys: vec![
                "steps",
                "post_checks",
                "on_deviation",
                "on_blocked",
                "on_already_done"
            ],
        })
    );
    d.protocol = Some(Protocol {
        steps: vec!["a".into()],
        post_checks: vec!["b".into()],
        on_deviation: "c".into(),
        on_blocked: "d".into(),
        on_already_done: "e".into(),
        ..Protocol::default()
    });
    assert_eq!(d.validate(), Ok(()));
    assert_eq!(Document::parse(&d.render()), Ok(d.clone()));
    d.extra.insert("steps".into(), json!("x"));
    assert_eq!(
        d.validate(),
        Err(DocumentError::FrontMatter(FrontMatterError::DuplicateKey {
            key: "steps".into()
        }))
    );
    let skill = Document {
        name: "s".into(),
        ..Document::default()
    };
    assert_eq!(skill.validate(), Err(DocumentError::EmptyBody));
}

#[test]
fn compact_rendering_of_a_skill_is_its_instructions() {
    let d = Document::parse(&skill("brew", "1. Boil.\n2. Pour.")).expect("valid");
    assert_eq!(
        d.render_compact(&CompactLabels::ENGLISH),
        "brew — how to brew\n1. Boil.\n2. Pour."
    );
}

#[test]
fn compact_rendering_of_a_protocol_numbers_the_steps_and_keeps_the_escape_hatches() {
    let d = Document::parse(DESIGN_EXAMPLE).expect("valid");
    let labels = CompactLabels {
        preconditions: "Условия",
        steps: "Шаги",
        post_checks: "Проверки",
        on_deviation: "При отклонении",
        on_blocked: "Если не выходит",
        on_already_done: "Если уже сделано",
        context: "Контекст",
    };
    assert_eq!(
        d.render_compact(&labels),
        "Корректное выключение инфраструктуры — Останавливает сервисы в порядке зависимостей и проверяет диск.
Условия:
- Все пользователи предупреждены
Шаги:
1. Остановить приложения
2. Остановить базы данных
3. Синхронизировать и отмонтировать диски
Проверки:
- Прикладных юнитов не осталось
При отклонении: Не продолжать; вернуться к предыдущему шагу и доложить.
Если не выходит: Остановить процесс и доложить, что именно не дало завершить.
Если уже сделано: Проверить статус; если результат уже есть — отметить шаг.
Контекст:
Контекст: порядок зависимостей, известные ловушки, что занимает время."
    );
}
