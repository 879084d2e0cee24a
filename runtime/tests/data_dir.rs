//! The `notes` host tools on a data directory that is full or read-only (RELIABILITY.md): a write
//! that cannot be done is a tool error reply in the catalog's words, the notes stay as they were, nothing
//! is left behind on the full disk, reading still works, and the next turn runs.
//!
//! Mounts a tmpfs: here as root (CI runs as root), else inside a user namespace; where
//! neither is allowed the test fails under `CI` and is skipped, saying why, elsewhere
//! (`support/tmpfs.rs`).

use std::path::Path;
use std::sync::Arc;

use porfiry_agent::{
    Agent, AgentConfig, CancelToken, ExecutorTarget, Lang, ManualClock, ScriptedModel, TurnOutcome,
};
use porfiry_runtime::NotesExecutor;

#[path = "support/tmpfs.rs"]
mod tmpfs;

use tmpfs::tmpfs_for;

/// A Russian agent with the shipped skills and toolsets and the notes in `notes`.
fn agent(notes: &Path) -> Agent {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let clock = Arc::new(ManualClock::parse("2026-12-01T10:00:00+03:00").unwrap());
    let loaded = Agent::load(
        AgentConfig {
            lang: Lang::Ru,
            ..AgentConfig::default()
        },
        &[root.join("skills")],
        &[root.join("toolsets")],
        clock,
    );
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    let mut agent = loaded.value;
    agent.register_executor(
        ExecutorTarget::Toolset("notes".into()),
        Arc::new(NotesExecutor::new(notes, Lang::Ru)),
    );
    agent
}

fn turn(agent: &mut Agent, outputs: &[&str]) -> TurnOutcome {
    let mut model = ScriptedModel::new(outputs.iter().map(|s| s.to_string()));
    agent
        .turn("s", "заметки", &mut model, &CancelToken::new(), &mut |_| {})
        .expect("the turn runs")
}

/// Every one of `calls` fails as a tool reply, the file keeps `before`, reading works, the
/// turn ends with the model's answer.
fn writes_fail_as_tool_replies(
    agent: &mut Agent,
    calls: &[&str],
    file: &Path,
    before: &str,
    why: &str,
) {
    for call in calls {
        let out = turn(agent, &[call, "Не получилось."]);
        let reply = &out.executed[0];
        assert!(!reply.ok, "{call}: {reply:?}");
        assert!(
            reply.result.contains("файл заметок недоступен") && reply.result.contains(why),
            "{call}: {}",
            reply.result
        );
        assert_eq!(out.reply, "Не получилось.");
        assert_eq!(std::fs::read_to_string(file).unwrap_or_default(), before);
    }
    let out = turn(agent, &["TOOL_CALL: notes_list", "Вот."]);
    assert!(out.executed[0].ok, "{:?}", out.executed[0]);
    let expected = if before.is_empty() {
        "Заметок нет.".to_string()
    } else {
        format!("1. {}", before.trim_end())
    };
    assert_eq!(out.executed[0].result, expected);
}

#[test]
fn notes_on_a_full_disk_are_tool_errors_and_leave_nothing_behind() {
    let test = "notes_on_a_full_disk_are_tool_errors_and_leave_nothing_behind";
    let Some(disk) = tmpfs_for(test, "size=64k") else {
        return;
    };
    let file = disk.path().join("notes.txt");
    let mut a = agent(&file);
    assert!(turn(&mut a, &["TOOL_CALL: notes_add|старая заметка", "ok"]).executed[0].ok);
    // Fill the disk to the last byte.
    {
        use std::io::Write;
        let mut f = std::fs::File::create(disk.path().join("filler")).unwrap();
        while f.write_all(&[0u8; 4096]).is_ok() {}
        while f.write_all(&[0u8]).is_ok() {}
    }
    // Adding fails; deleting would shrink the file, which a full disk still allows.
    writes_fail_as_tool_replies(
        &mut a,
        &["TOOL_CALL: notes_add|купить хлеб"],
        &file,
        "старая заметка\n",
        "No space left",
    );
    let mut names: Vec<String> = std::fs::read_dir(disk.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["filler", "notes.txt"], "no temporary file is left");
    // Space again: the next write works.
    std::fs::remove_file(disk.path().join("filler")).unwrap();
    let out = turn(&mut a, &["TOOL_CALL: notes_add|новая", "ok"]);
    assert_eq!(out.executed[0].result, "Заметка 2 сохранена.");
}

#[test]
fn notes_on_a_read_only_disk_are_tool_errors() {
    let Some(disk) = tmpfs_for("notes_on_a_read_only_disk_are_tool_errors", "size=64k") else {
        return;
    };
    let file = disk.path().join("notes.txt");
    let mut a = agent(&file);
    assert!(turn(&mut a, &["TOOL_CALL: notes_add|старая заметка", "ok"]).executed[0].ok);
    disk.make_read_only();
    writes_fail_as_tool_replies(
        &mut a,
        &[
            "TOOL_CALL: notes_add|купить хлеб",
            "TOOL_CALL: notes_delete|1",
        ],
        &file,
        "старая заметка\n",
        "Read-only",
    );
    // A read-only folder where the notes file was never written: no notes, no crash.
    let mut fresh = agent(&disk.path().join("sub").join("notes.txt"));
    writes_fail_as_tool_replies(
        &mut fresh,
        &["TOOL_CALL: notes_add|купить хлеб"],
        &disk.path().join("sub").join("notes.txt"),
        "",
        "Read-only",
    );
}
