//! The built-in dialogue plays through the real agent loop exactly as scripted, in every
//! prompt layout, and covers what BENCHMARKS.md measures with it.

use porfiry_agent::{PromptLayout, ScriptedModel};
use porfiry_bench::{run_dialogue, BenchError, Dialogue, ForcedModel};

fn play(d: &Dialogue, layout: PromptLayout) -> Result<porfiry_bench::DialogueReport, BenchError> {
    let mut agent = d.agent(layout)?;
    let mut model = ForcedModel::new(ScriptedModel::new(Vec::<String>::new()), d.replies());
    let report = run_dialogue(d, &mut agent, &mut model, true)?;
    assert_eq!(model.remaining(), 0, "every scripted reply was used");
    Ok(report)
}

#[test]
fn builtin_dialogue_covers_the_required_events() {
    let d = Dialogue::builtin().unwrap();
    assert!(d.turns.len() >= 10, "at least 10 user turns");
    let calls: Vec<&str> = d
        .replies()
        .filter(|r| r.starts_with("TOOL_CALL:"))
        .collect();
    for needed in [
        "enable_toolset|media",
        "media_search|",
        "read_skill|media",
        "disable_toolset|media",
    ] {
        assert!(calls.iter().any(|c| c.contains(needed)), "{needed}");
    }
    for layout in PromptLayout::ALL {
        let r = play(&d, layout).unwrap();
        assert_eq!(r.turns.len(), d.turns.len());
        let changes: Vec<usize> = r
            .turns
            .iter()
            .filter(|t| t.toolset_change)
            .map(|t| t.turn)
            .collect();
        assert_eq!(
            changes,
            [4, 8],
            "{layout}: activation in turn 4, deactivation in turn 8"
        );
        // The enable and disable generations are discarded (invisible), the rest kept.
        let discarded = r.generations.iter().filter(|g| g.discarded).count();
        assert_eq!(discarded, 2, "{layout}");
        assert_eq!(r.layout, layout.as_str());
    }
}

#[test]
fn a_script_out_of_step_with_the_agent_fails_the_run() {
    let mut d = Dialogue::builtin().unwrap();
    // Turn 1 answers with its first generation; a second scripted reply is out of step.
    d.turns[0].replies.push("Лишний ответ.".into());
    let err = play(&d, PromptLayout::SystemFirst).unwrap_err();
    assert!(
        matches!(err, BenchError::OutOfStep { turn: 1, .. }),
        "{err}"
    );
    assert!(
        err.to_string()
            .contains("1 model calls, the script has 2 replies"),
        "{err}"
    );

    let mut d = Dialogue::builtin().unwrap();
    d.turns[7].expect_active = Some(vec!["media".into()]);
    let err = play(&d, PromptLayout::SystemFirst).unwrap_err();
    assert!(err.to_string().contains("expected [\"media\"]"), "{err}");
}

#[test]
fn bad_dialogues_are_rejected() {
    let cases = [
        ("name: x\nclock: '2026-01-01T00:00:00+00:00'\nsession: s\nturns: []\n", "no turns"),
        (
            "name: x\nclock: '2026-01-01T00:00:00+00:00'\nsession: s\nturns: [{user: hi, replies: []}]\n",
            "no replies",
        ),
        (
            "name: x\nclock: '2026-01-01T00:00:00+00:00'\nsession: s\nturns: [{user: hi, replies: ['TOOL_CALL: get_current_time']}]\n",
            "must answer",
        ),
        ("name: x\nclock: yesterday\nsession: s\nturns: [{user: hi, replies: [ok]}]\n", "clock"),
        ("name: x\nclock: '2026-01-01T00:00:00+00:00'\nsession: s\nturns: [{user: hi, replies: [ok], extra: 1}]\n", "unknown field"),
    ];
    for (text, why) in cases {
        let err = Dialogue::parse(text, "test").unwrap_err();
        assert!(err.to_string().contains(why), "{why}: {err}");
    }
}

#[test]
fn turns_can_be_limited() {
    let d = Dialogue::builtin().unwrap();
    assert_eq!(d.take(Some(3)).unwrap().turns.len(), 3);
    assert_eq!(d.take(None).unwrap().turns.len(), d.turns.len());
    assert!(matches!(d.take(Some(0)), Err(BenchError::Turns { .. })));
    assert!(matches!(
        d.take(Some(d.turns.len() + 1)),
        Err(BenchError::Turns { .. })
    ));
    let r = play(&d.take(Some(3)).unwrap(), PromptLayout::default()).unwrap();
    assert_eq!(r.totals.sums.turns, 3);
}
