//! The tool-use eval's mechanics: the shipped case files parse and fit the shipped skills and
//! toolsets, malformed files are clear errors, and the smoke cases run on the real default
//! model (Gemma 3 270M) with a scored result for every case, totals that add up and the
//! documented JSON. No accuracy is asserted: accuracy is what the eval reports.
//!
//! The model file must be in the models directory (`$PORFIRY_MODELS` or `models/cache/`):
//! `./run models fetch` fetches it; the model test fails, never skips, without it.

use std::path::{Path, PathBuf};

use porfiry_bench::builtin_dir;
use porfiry_bench::eval::{
    find_variant, load_eval_file, parse_eval_file, run_eval, CaseDone, EvalError, EvalFile,
    EvalModel, EvalOptions, EvalPlan, EvalTurn, Expected, FirstAction, Totals, TurnScope, Variant,
};

fn evals(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../evals")
        .join(name)
}

fn checkout_folders() -> (Vec<PathBuf>, Vec<PathBuf>) {
    (vec![builtin_dir("skills")], vec![builtin_dir("toolsets")])
}

fn load(name: &str) -> EvalFile {
    load_eval_file(&evals(name)).unwrap_or_else(|e| panic!("{e}"))
}

/// The eval's base setup with short generations, so the test takes seconds per case.
fn short(setup: &mut porfiry_bench::eval::EvalSetup) {
    setup.generate.max_tokens = 24;
}

static SHORT: Variant = Variant::new("short", "24 tokens per generation", short);
static SHORT_AGAIN: Variant = Variant::new("short_again", "the same, run again", short);

#[test]
fn the_dev_set_covers_the_shipped_tools_in_both_languages() {
    let files = vec![load("dev_ru.yaml"), load("dev_en.yaml")];
    let langs: Vec<&str> = files.iter().map(|f| f.lang.code()).collect();
    assert_eq!(langs, ["ru", "en"]);
    let cases: Vec<_> = files.iter().flat_map(|f| &f.cases).collect();
    assert!(cases.len() >= 60, "{} cases", cases.len());
    // One turn each: (the case's active sets, its turn).
    let turns: Vec<(&[String], &EvalTurn)> = cases
        .iter()
        .flat_map(|c| c.turns.iter().map(|t| (c.active.as_slice(), t)))
        .collect();
    let calls = |name: &str, active: Option<&str>| {
        turns.iter().any(|(set, t)| {
            active.is_none_or(|a| set.iter().any(|s| s == a))
                && t.expect
                    .iter()
                    .any(|e| matches!(e, Expected::Call { name: n, .. } if n == name))
        })
    };
    for tool in [
        "get_current_time",
        "show_text",
        "read_skill",
        "enable_toolset",
        "disable_toolset",
        "notes_add",
        "notes_list",
        "notes_delete",
        "media_search",
    ] {
        assert!(calls(tool, None), "no case expects {tool}");
    }
    assert!(calls("notes_add", Some("notes")) && calls("media_search", Some("media")));
    assert!(turns.iter().filter(|(_, t)| t.expects_text()).count() >= 10);
    assert!(
        turns
            .iter()
            .filter(|(_, t)| !t.reply_contains.is_empty())
            .count()
            >= 4
    );
    for f in &files {
        let texts = f
            .cases
            .iter()
            .flat_map(|c| &c.turns)
            .filter(|t| t.expects_text())
            .count();
        assert!(texts >= 5, "{}: {texts} plain-reply cases", f.label());
    }
    assert!((3..=6).contains(&load("smoke.yaml").cases.len()));
    // Every file fits the shipped skills and toolsets (sets, tools, argument names), the
    // second dev sets, the conversations and the sealed sets too.
    let mut all = files;
    all.push(load("smoke.yaml"));
    for name in ["dev2_ru.yaml", "dev2_en.yaml"] {
        let f = load(name);
        assert!(f.cases.len() >= 20, "{name}: {} cases", f.cases.len());
        all.push(f);
    }
    for name in ["sealed_ru.yaml", "sealed_en.yaml"] {
        let f = load(name);
        assert!(f.cases.len() >= 40, "{name}: {} cases", f.cases.len());
        assert!(
            f.cases.iter().all(|c| !c.conversation),
            "{name}: one turn per case"
        );
        all.push(f);
    }
    let talk = [load("talk_ru.yaml"), load("talk_en.yaml")];
    let langs: Vec<&str> = talk.iter().map(|f| f.lang.code()).collect();
    assert_eq!(langs, ["ru", "en"]);
    let conversations: Vec<_> = talk.iter().flat_map(|f| &f.cases).collect();
    let talk_turns: Vec<&EvalTurn> = conversations.iter().flat_map(|c| &c.turns).collect();
    assert!(
        conversations.len() >= 30,
        "{} conversations",
        conversations.len()
    );
    assert!(conversations
        .iter()
        .all(|c| c.conversation && c.turns.len() >= 3));
    assert!(talk_turns.len() >= 150, "{} turns", talk_turns.len());
    for kind in [
        "text",
        "refuse",
        "get_current_time",
        "notes_delete",
        "media_play",
    ] {
        assert!(
            talk_turns.iter().any(|t| t
                .expect
                .iter()
                .any(|e| e.to_string().split('{').next() == Some(kind))),
            "no conversation turn expects {kind}"
        );
    }
    all.extend(talk);
    EvalPlan::new(all, &[&SHORT], checkout_folders(), EvalOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
}

/// Lower case words (letters and digits): how two wordings are compared.
fn words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// Whether `a` and `b` are the same wording or nearly: equal, the same words reordered, or —
/// for four words or more — one word changed, added or left out.
fn near_copy(a: &[String], b: &[String]) -> bool {
    if a == b {
        return true;
    }
    let sorted = |w: &[String]| {
        let mut w = w.to_vec();
        w.sort();
        w
    };
    if a.len() >= 2 && sorted(a) == sorted(b) {
        return true;
    }
    if a.len().max(b.len()) < 4 {
        return false;
    }
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    match long.len() - short.len() {
        0 => short.iter().zip(long).filter(|(x, y)| x != y).count() <= 1,
        1 => (0..long.len()).any(|i| long[..i].iter().chain(&long[i + 1..]).eq(short.iter())),
        _ => false,
    }
}

#[test]
fn near_copies_are_caught() {
    let w = |t: &str| words(t);
    assert!(near_copy(&w("Который час?"), &w("который час")));
    assert!(near_copy(
        &w("Какой день недели сегодня"),
        &w("Какой сегодня день недели?")
    ));
    assert!(near_copy(
        &w("Erase note number five"),
        &w("erase note number one")
    ));
    assert!(near_copy(
        &w("Какое сегодня число?"),
        &w("Подскажи, какое сегодня число?")
    ));
    assert!(!near_copy(&w("Включи первый"), &w("Включи второй")));
    assert!(!near_copy(
        &w("Найди фильм Матрица"),
        &w("Найди мне, пожалуйста, фильм Титаник")
    ));
}

/// The eval measures tool use on wordings the toolsets' routing examples do not contain: no
/// case's or conversation turn's request is an example of a shipped or runtime toolset, or
/// a near copy of one (one word changed, added, left out, or the words reordered). (The
/// message texts's own example requests are compared in the agent crate's tests.)
#[test]
fn no_eval_request_copies_a_toolset_example() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut examples = Vec::new();
    for dir in ["toolsets", "runtime/toolsets"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            let set = porfiry_agent::parse_toolset(&text, &path).unwrap();
            for tool in set.tools {
                examples.extend(tool.examples.into_iter().map(|(_, e)| e));
            }
        }
    }
    assert!(examples.len() > 50, "{} examples", examples.len());
    let examples: Vec<(String, Vec<String>)> = examples
        .into_iter()
        .map(|e| {
            let w = words(&e);
            (e, w)
        })
        .collect();
    let mut requests = 0;
    let mut copies = Vec::new();
    for entry in std::fs::read_dir(root.join("evals")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "yaml") {
            continue;
        }
        let file = load_eval_file(&path).unwrap_or_else(|e| panic!("{e}"));
        for turn in file.cases.iter().flat_map(|c| &c.turns) {
            requests += 1;
            let user = words(&turn.user);
            for (example, w) in &examples {
                if near_copy(&user, w) {
                    copies.push(format!("{}: {:?} ~ {example:?}", path.display(), turn.user));
                }
            }
        }
    }
    assert!(requests >= 400, "{requests} requests");
    assert!(copies.is_empty(), "{copies:#?}");
}

fn plan_error(text: &str) -> String {
    let file = parse_eval_file(text, Path::new("evals/bad.yaml")).unwrap_or_else(|e| panic!("{e}"));
    EvalPlan::new(
        vec![file],
        &[&SHORT],
        checkout_folders(),
        EvalOptions::default(),
    )
    .unwrap_err()
    .to_string()
}

#[test]
fn malformed_case_files_are_clear_errors() {
    let e = parse_eval_file(
        "cases:\n  - user: Который час?\n    expect: [{call: get_current_time}]\n  - user: Привет\n    expected: [{text: true}]\n",
        Path::new("evals/bad.yaml"),
    )
    .unwrap_err();
    assert!(matches!(e, EvalError::BadCase { case: 2, .. }), "{e:?}");
    let e = e.to_string();
    assert!(
        e.starts_with("evals/bad.yaml: case 2 (\"Привет\"): ") && e.contains("expected"),
        "{e}"
    );
    let e = parse_eval_file("cases: []\nsteps: []\n", Path::new("evals/bad.yaml")).unwrap_err();
    assert!(
        matches!(e, EvalError::BadFile { .. }) && e.to_string().contains("steps"),
        "{e}"
    );
    let e = load_eval_file(Path::new("evals/missing.yaml"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("missing.yaml") && e.contains("cannot read"),
        "{e}"
    );

    let e = plan_error("cases: [{user: a, active: [weather], expect: [{text: true}]}]");
    assert!(e.contains("case 1") && e.contains("weather"), "{e}");
    let e = plan_error(
        "cases: [{user: a, expect: [{text: true}]}, {user: b, expect: [{call: notes_ad}]}]",
    );
    assert!(
        e.contains("case 2 (\"b\")") && e.contains("notes_ad"),
        "{e}"
    );
    let e = plan_error("cases: [{user: a, expect: [{call: notes_add, args: {txt: x}}]}]");
    assert!(e.contains("txt") && e.contains("text"), "{e}");
    let e = plan_error("tool_results: {notes_ad: ok}\ncases: [{user: a, expect: [{text: true}]}]");
    assert!(
        e.starts_with("evals/bad.yaml: ") && e.contains("notes_ad"),
        "{e}"
    );
    let e = plan_error("skills: [nowhere]\ncases: [{user: a, expect: [{text: true}]}]");
    assert!(e.contains("nowhere"), "{e}");
}

/// A case that calls the catalog's `skills_search`: only the `catalog` variant declares it.
const CATALOG_CASE: &str = "cases:
  - user: Какие у тебя есть скилы?
    expect: [{call: enable_toolset, args: {name: skills}}, {call: skills_search}]
  - user: Который час?
    expect: [{call: get_current_time}]
";

#[test]
fn the_catalog_variant_declares_the_catalog_toolsets() {
    let e = plan_error(CATALOG_CASE);
    assert!(e.contains("skills_search"), "{e}");
    let file = parse_eval_file(CATALOG_CASE, Path::new("evals/catalog.yaml")).unwrap();
    let catalog = find_variant("catalog").unwrap();
    let baseline = find_variant("baseline").unwrap();
    let plan = EvalPlan::new(
        vec![file],
        &[catalog],
        checkout_folders(),
        EvalOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(plan.total(), 2);
    // Mixed with a variant without it, the case is still one the baseline cannot run.
    let file = parse_eval_file(CATALOG_CASE, Path::new("evals/catalog.yaml")).unwrap();
    let e = EvalPlan::new(
        vec![file],
        &[catalog, baseline],
        checkout_folders(),
        EvalOptions::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("skills_search"), "{e}");
}

#[test]
fn the_catalog_variant_routes_over_a_fresh_catalog_on_the_real_model() {
    let file = parse_eval_file(CATALOG_CASE, Path::new("evals/catalog.yaml")).unwrap();
    let plan = EvalPlan::new(
        vec![file],
        &[find_variant("catalog").unwrap()],
        checkout_folders(),
        EvalOptions {
            routes_only: true,
            ..EvalOptions::default()
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let mut model = EvalModel::open(None, None).unwrap_or_else(|e| {
        panic!("{e} (the default model is needed: `./run models fetch`, or PORFIRY_MODELS)")
    });
    let report = run_eval(plan, &mut model, &mut |_| {}).unwrap_or_else(|e| panic!("{e}"));
    let cases = &report.variants[0].cases;
    assert_eq!(cases.len(), 2);
    for c in cases {
        // Routing alone: the route's call line or a plain reply, never a failure.
        assert!(
            !matches!(c.first_action, FirstAction::NoOutput { .. }),
            "{c:?}"
        );
        assert!(
            c.route.is_some(),
            "routed over the catalog's examples too: {c:?}"
        );
    }
}

/// Fields of the documented JSON (the module docs of `porfiry_bench::eval`).
const TOTALS_FIELDS: &[&str] = &[
    "cases",
    "correct",
    "accuracy",
    "tool_cases",
    "tool_correct",
    "name_correct",
    "calls",
    "plain_cases",
    "false_calls",
    "malformed",
    "no_output",
    "whole_turn_cases",
    "whole_turn_ok",
    "reply_ok",
    "reply_tokens",
    "reply_tokens_mean",
    "ttft_ms_mean",
    "prompt_tokens",
    "prefilled_tokens",
    "generated_tokens",
    "generations",
    "turn_ms",
    "by_expected",
    "judged",
    "judged_accuracy",
    "replies_judged",
    "acceptable",
    "debris",
    "by_rule",
    "matches_cases",
    "matches_ok",
    "conversations",
    "conversations_ok",
];
const CASE_FIELDS: &[&str] = &[
    "file",
    "case",
    "user",
    "lang",
    "active",
    "expected",
    "first_action",
    "first_output",
    "correct",
    "name_correct",
    "false_call",
    "malformed",
    "turn",
    "stop",
    "reply",
    "reply_tokens",
    "reply_ok",
    "turn_ok",
    "executed",
    "turn_index",
    "turns",
    "conversation",
    "matches_ok",
    "verdict",
    "judged",
    "generations",
    "prompt_tokens",
    "reused_tokens",
    "prefilled_tokens",
    "generated_tokens",
    "ttft_ms",
    "turn_ms",
];

fn has_fields(v: &serde_json::Value, fields: &[&str]) {
    for f in fields {
        assert!(v.get(f).is_some(), "no {f:?} in {v}");
    }
}

#[test]
fn smoke_cases_run_on_the_real_model_and_are_all_scored() {
    let smoke = load("smoke.yaml");
    let n = smoke.cases.len();
    let plan = EvalPlan::new(
        vec![smoke.clone()],
        &[&SHORT, &SHORT_AGAIN],
        checkout_folders(),
        EvalOptions::default(),
    )
    .unwrap();
    assert_eq!(plan.total(), 2 * n);
    let mut model = EvalModel::open(None, None).unwrap_or_else(|e| {
        panic!("{e} (the default model is needed: `./run models fetch`, or PORFIRY_MODELS)")
    });
    let mut seen = Vec::new();
    let report = run_eval(plan, &mut model, &mut |d: CaseDone<'_>| {
        assert_eq!(d.total, 2 * n);
        seen.push((d.variant.to_string(), d.done, d.result.case));
    })
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(seen.len(), 2 * n, "one progress call per case run");
    assert!(seen.iter().enumerate().all(|(i, s)| s.1 == i + 1));
    assert_eq!(seen[0].0, "short");
    assert_eq!(seen[n].0, "short_again");

    assert_eq!(report.variants.len(), 2);
    assert_eq!(report.files, [smoke.label()]);
    for v in &report.variants {
        assert_eq!(v.cases.len(), n, "{}", v.variant);
        for (c, case) in v.cases.iter().zip(&smoke.cases) {
            let turn = &case.turns[0];
            assert_eq!((c.case, c.user.as_str()), (case.index, turn.user.as_str()));
            assert!(
                !matches!(c.first_action, FirstAction::NoOutput { .. }),
                "{}: the model failed: {:?}",
                c.user,
                c.first_action
            );
            assert!(c.stats.generations >= 1 && c.stats.ttft_ms > 0.0, "{c:?}");
            assert_eq!(
                c.stats.prompt_tokens,
                c.stats.reused_tokens + c.stats.prefilled_tokens
            );
            assert!(
                c.stats.reused_tokens > 0,
                "every case starts from the prepared head"
            );
            match c.turn {
                TurnScope::Whole => assert!(!turn.reply_contains.is_empty()),
                TurnScope::FirstGeneration => {
                    assert!(turn.reply_contains.is_empty());
                    assert_eq!(c.stats.generations, 1, "stopped after the first: {c:?}");
                }
            }
            assert_eq!(c.reply_ok.is_some(), !turn.reply_contains.is_empty());
            assert_eq!(c.turn_ok, c.reply_ok.map(|ok| ok && c.correct));
            // Scores are consistent with the action (not a measure of it).
            assert!(!c.correct || c.name_correct);
            assert_eq!(c.malformed, c.first_action.is_malformed());
            if c.false_call {
                assert!(turn.expects_text() && matches!(c.first_action, FirstAction::Call { .. }));
            }
            if matches!(c.first_action, FirstAction::Text) {
                assert!(c.first_output.to_lowercase().find("tool_call").is_none());
                // A plain reply is always judged; a judged-right turn has a right first action.
                assert!(c.verdict.is_some(), "{c:?}");
            }
            assert!(!c.judged || c.correct, "{c:?}");
        }
        // Totals add up: over the cases, per file and per expected action.
        let t = &v.totals;
        assert_eq!(*t, Totals::of(&v.cases));
        assert_eq!(t.cases, n);
        assert_eq!(t.correct, v.cases.iter().filter(|c| c.correct).count());
        assert_eq!(
            t.false_calls,
            v.cases.iter().filter(|c| c.false_call).count()
        );
        assert_eq!(t.malformed, v.cases.iter().filter(|c| c.malformed).count());
        assert_eq!(t.whole_turn_cases, 1);
        assert_eq!(t.plain_cases, 1);
        assert_eq!(t.tool_cases + t.plain_cases, n);
        assert_eq!(t.by_expected.values().map(|x| x.cases).sum::<usize>(), n);
        assert_eq!(
            t.by_expected.values().map(|x| x.correct).sum::<usize>(),
            t.correct
        );
        assert_eq!(
            t.reply_tokens,
            v.cases.iter().map(|c| c.reply_tokens).sum::<usize>()
        );
        assert_eq!(v.by_file.len(), 1);
        assert_eq!(v.by_file[&smoke.label()], *t);
    }
    // Deterministic: the same settings give the same generations.
    for (a, b) in report.variants[0]
        .cases
        .iter()
        .zip(&report.variants[1].cases)
    {
        assert_eq!(a.first_output, b.first_output, "{}", a.user);
        assert_eq!(a.reply, b.reply, "{}", a.user);
    }

    let json = serde_json::to_value(&report).unwrap();
    assert!(
        json["model"]["n_ctx"].as_u64().unwrap() > 0,
        "{}",
        json["model"]
    );
    assert_eq!(json["files"].as_array().unwrap().len(), 1);
    for v in json["variants"].as_array().unwrap() {
        has_fields(v, &["variant", "about", "totals", "by_file", "cases"]);
        has_fields(&v["totals"], TOTALS_FIELDS);
        for c in v["cases"].as_array().unwrap() {
            has_fields(c, CASE_FIELDS);
            let kind = c["first_action"]["kind"].as_str().unwrap();
            assert!(["text", "call"].contains(&kind), "{c}");
            if kind == "call" {
                has_fields(&c["first_action"], &["name", "line", "args", "verdict"]);
            }
            assert!(["whole", "first_generation"].contains(&c["turn"].as_str().unwrap()));
        }
    }
    let text = report.text();
    for needle in [
        "short_again",
        "first action correct",
        "false calls",
        "Который час?",
    ] {
        assert!(text.contains(needle), "{needle:?} in\n{text}");
    }
}
