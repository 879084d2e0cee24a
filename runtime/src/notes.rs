//! The `notes` toolset's executor: the user's notes kept in a local text file, one per line.
//!
//! The runtime's one built-in host tool set (`toolsets/notes.yaml`, skill `skills/notes.md`),
//! registered when [`crate::RuntimeConfig::notes`] is on (the CLI), so `ask`/`chat` show a
//! whole tool round trip on this machine; notes live in `<data>/notes.txt`. Replies are short, in
//! the agent's language, and come from the agent's message texts ([`Texts`]).

use std::path::PathBuf;
use std::sync::Mutex;

use porfiry_agent::{ArgValue, Lang, Texts, ToolExecutor, ToolInvocation};

/// The executor for `notes_add|text`, `notes_list`, `notes_delete|number`.
#[derive(Debug)]
pub struct NotesExecutor {
    path: PathBuf,
    texts: Texts,
    /// Serialises read-modify-write of the file within this process.
    lock: Mutex<()>,
}

impl NotesExecutor {
    /// Notes kept in `path` (created on the first note), replies in `lang`.
    pub fn new(path: impl Into<PathBuf>, lang: Lang) -> Self {
        Self {
            path: path.into(),
            texts: Texts::new(lang),
            lock: Mutex::new(()),
        }
    }

    fn read(&self) -> Result<Vec<String>, String> {
        match std::fs::read_to_string(&self.path) {
            Ok(text) => Ok(text
                .lines()
                .filter(|l| !l.trim().is_empty())
                .map(str::to_string)
                .collect()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
            Err(e) => Err(self.failed(e)),
        }
    }

    /// The reply for a notes file that cannot be read or written.
    fn failed(&self, e: std::io::Error) -> String {
        self.texts
            .notes_file_failed(&format!("{}: {e}", self.path.display()))
    }

    /// Replaces the file through a temporary sibling (renamed into place); on failure the
    /// old file stands and the temporary is removed (on a full disk it would hold the space).
    fn write(&self, notes: &[String]) -> Result<(), String> {
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| self.failed(e))?;
        }
        let tmp = self
            .path
            .with_extension(format!("tmp-{}", std::process::id()));
        let mut text = notes.join("\n");
        if !text.is_empty() {
            text.push('\n');
        }
        let written = std::fs::write(&tmp, text).and_then(|()| std::fs::rename(&tmp, &self.path));
        if let Err(e) = written {
            let _ = std::fs::remove_file(&tmp);
            return Err(self.failed(e));
        }
        Ok(())
    }

    fn add(&self, text: &str) -> Result<String, String> {
        // One note per line: line breaks inside a note become spaces.
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        if text.is_empty() {
            return Err(self.texts.note_empty());
        }
        let mut notes = self.read()?;
        notes.push(text);
        self.write(&notes)?;
        Ok(self.texts.note_saved(notes.len()))
    }

    fn list(&self) -> Result<String, String> {
        let notes = self.read()?;
        if notes.is_empty() {
            return Ok(self.texts.notes_none());
        }
        Ok(notes
            .iter()
            .enumerate()
            .map(|(i, n)| format!("{}. {n}", i + 1))
            .collect::<Vec<_>>()
            .join("\n"))
    }

    fn delete(&self, number: i64) -> Result<String, String> {
        let mut notes = self.read()?;
        let count = notes.len();
        if number < 1 || number as usize > count {
            return Err(self.texts.note_missing(number, count));
        }
        let removed = notes.remove(number as usize - 1);
        self.write(&notes)?;
        Ok(self.texts.note_deleted(number, &removed))
    }
}

impl ToolExecutor for NotesExecutor {
    fn execute(&self, call: &ToolInvocation<'_>) -> Result<String, String> {
        // A panic while the lock was held cannot leave a half-written file (writes are
        // renames), so a poisoned lock is simply taken over.
        let _guard = self.lock.lock().unwrap_or_else(|p| p.into_inner());
        match call.tool {
            "notes_add" => self.add(call.args.str("text").unwrap_or_default()),
            "notes_list" => self.list(),
            "notes_delete" => match call.args.get("number") {
                Some(ArgValue::Int(n)) => self.delete(*n),
                _ => Err(self.texts.note_number_needed()),
            },
            other => Err(self.texts.notes_unknown_tool(other)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use porfiry_agent::{
        Agent, AgentConfig, CancelToken, ExecutorTarget, ManualClock, ScriptedModel,
    };
    use std::sync::Arc;

    fn agent(notes: &std::path::Path, lang: Lang) -> Agent {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let clock = Arc::new(ManualClock::parse("2026-08-22T10:00:00+03:00").unwrap());
        let loaded = Agent::load(
            AgentConfig {
                lang,
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
            Arc::new(NotesExecutor::new(notes, lang)),
        );
        agent
    }

    fn turn(agent: &mut Agent, outputs: &[&str]) -> porfiry_agent::TurnOutcome {
        let mut model = ScriptedModel::new(outputs.iter().map(|s| s.to_string()));
        agent
            .turn("s", "заметки", &mut model, &CancelToken::new(), &mut |_| {})
            .unwrap()
    }

    #[test]
    fn add_list_delete_through_the_agent_and_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("sub/notes.txt");
        let mut a = agent(&file, Lang::Ru);
        assert!(a
            .missing_executors()
            .iter()
            .all(|t| !t.starts_with("notes_")));

        let out = turn(
            &mut a,
            &[
                "TOOL_CALL: notes_add|купить хлеб\nTOOL_CALL: notes_add|позвонить маме",
                "Записал.",
            ],
        );
        let results: Vec<&str> = out.executed.iter().map(|e| e.result.as_str()).collect();
        assert_eq!(results, ["Заметка 1 сохранена.", "Заметка 2 сохранена."]);
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            "купить хлеб\nпозвонить маме\n"
        );

        // A fresh executor over the same file (a new `ask` process) sees the notes.
        let mut b = agent(&file, Lang::En);
        let out = turn(&mut b, &["TOOL_CALL: notes_list", "ok"]);
        assert_eq!(out.executed[0].result, "1. купить хлеб\n2. позвонить маме");
        let out = turn(&mut b, &["TOOL_CALL: notes_delete|1", "ok"]);
        assert_eq!(out.executed[0].result, "Note 1 deleted: купить хлеб");
        assert!(out.executed[0].ok);
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "позвонить маме\n");
    }

    #[test]
    fn bad_numbers_and_empty_notes_are_tool_errors() {
        let dir = tempfile::tempdir().unwrap();
        let ex = NotesExecutor::new(dir.path().join("notes.txt"), Lang::Ru);
        assert_eq!(ex.list().unwrap(), "Заметок нет.");
        assert!(ex.delete(1).unwrap_err().contains("нет заметки 1"));
        assert!(ex.add(" \n ").is_err());
        assert_eq!(ex.add("a\nb").unwrap(), "Заметка 1 сохранена.");
        assert_eq!(ex.list().unwrap(), "1. a b");
        assert!(ex.delete(0).is_err() && ex.delete(2).is_err() && ex.delete(-3).is_err());
        assert_eq!(ex.delete(1).unwrap(), "Заметка 1 удалена: a b");
        assert_eq!(ex.list().unwrap(), "Заметок нет.");
        let en = NotesExecutor::new(dir.path().join("notes.txt"), Lang::En);
        assert_eq!(en.list().unwrap(), "No notes.");
        assert_eq!(en.delete(4).unwrap_err(), "no note 4; there are 0 notes");
        assert_eq!(en.add(" ").unwrap_err(), "an empty note was not saved");
    }

    #[test]
    fn media_stays_declaration_only() {
        let dir = tempfile::tempdir().unwrap();
        let mut a = agent(&dir.path().join("notes.txt"), Lang::En);
        let out = turn(&mut a, &["TOOL_CALL: media_search|Tomb Raider", "done"]);
        let reply = out
            .tool_replies
            .iter()
            .find(|r| r.name == "media_search")
            .expect("a reply to media_search");
        assert!(!reply.ok);
        assert!(
            reply.text.contains("no executor on this host"),
            "{}",
            reply.text
        );
    }
}
