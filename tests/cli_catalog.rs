//! `porfiry catalog`: the built binary on temporary catalog files and documents written here.
//! No model is needed. Proposals and runs, which only the agent creates, are written through
//! the library (`porfiry-catalog`) on the same file.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use porfiry_catalog::{Catalog, EntryId, NewProposal, RunEnd, StepMark};

/// A temporary folder with a catalog file path in it.
struct Fixture {
    dir: tempfile::TempDir,
}

/// What a run of the binary gave.
struct Ran {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Ran {
    fn lines(&self) -> Vec<&str> {
        self.stdout.lines().collect()
    }

    fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", self.stdout))
    }
}

impl Fixture {
    fn new() -> Fixture {
        Fixture {
            dir: tempfile::tempdir().expect("temp dir"),
        }
    }

    fn db(&self) -> PathBuf {
        self.dir.path().join("catalog.sqlite")
    }

    /// Writes `text` to `name` in the fixture's folder (sub folders created).
    fn file(&self, name: &str, text: &str) -> PathBuf {
        let path = self.dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).expect("folder");
        std::fs::write(&path, text).expect("write");
        path
    }

    /// `porfiry catalog --db <db> ARGS...`
    fn run(&self, args: &[&str]) -> Ran {
        let db = self.db();
        let mut all = vec!["--db", db.to_str().unwrap()];
        all.extend_from_slice(args);
        porfiry(&all, self.dir.path())
    }

    /// Like [`Fixture::run`], asserting exit code 0.
    fn ok(&self, args: &[&str]) -> Ran {
        let ran = self.run(args);
        assert_eq!(
            ran.code, 0,
            "{args:?} failed:\nstdout: {}\nstderr: {}",
            ran.stdout, ran.stderr
        );
        ran
    }

    /// Like [`Fixture::run`], asserting exit code 1 and returning stderr.
    fn refused(&self, args: &[&str]) -> Ran {
        let ran = self.run(args);
        assert_eq!(
            ran.code, 1,
            "{args:?} should be refused:\nstdout: {}\nstderr: {}",
            ran.stdout, ran.stderr
        );
        ran
    }

    fn catalog(&self) -> Catalog {
        Catalog::open(self.db()).expect("open the test's catalog")
    }
}

/// `porfiry catalog ARGS...` in `cwd`, with the data directory moved into it.
fn porfiry(args: &[&str], cwd: &Path) -> Ran {
    let out: Output = Command::new(env!("CARGO_BIN_EXE_porfiry"))
        .arg("catalog")
        .args(args)
        .current_dir(cwd)
        .env("PORFIRY_DATA", cwd.join("data"))
        .output()
        .expect("run porfiry");
    Ran {
        code: out.status.code().expect("exit code"),
        stdout: String::from_utf8(out.stdout).expect("UTF-8 stdout"),
        stderr: String::from_utf8(out.stderr).expect("UTF-8 stderr"),
    }
}

fn skill(name: &str, front: &str) -> String {
    format!("---\nname: {name}\ndescription: how to {name}\n{front}---\nInstructions for {name}.\n")
}

fn protocol(name: &str) -> String {
    format!(
        "---\nkind: protocol\nname: {name}\ndescription: the {name} protocol\nsteps:\n  - stop the apps\n  - sync the disks\npost_checks: [nothing runs]\non_deviation: stop and report\non_blocked: say what blocked it\non_already_done: check and mark the step\n---\nContext of {name}.\n"
    )
}

/// The ids (`#12`) starting each line.
fn ids(ran: &Ran) -> Vec<String> {
    ran.lines()
        .iter()
        .map(|l| l.split(' ').next().unwrap().to_string())
        .collect()
}

fn id_of(line: &str) -> EntryId {
    let word = line.split(' ').nth(1).expect("an id after the verb");
    EntryId::parse(word).unwrap_or_else(|| panic!("no id in {line:?}"))
}

#[test]
fn check_prints_ok_or_error_per_file_and_exits_1_on_any_error() {
    let f = Fixture::new();
    let good = f.file("tea.md", &skill("tea", "tags: [kitchen]\n"));
    let proto = f.file("shutdown.md", &protocol("Shutdown"));
    let ran = porfiry(
        &["check", good.to_str().unwrap(), proto.to_str().unwrap()],
        f.dir.path(),
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(ran.lines(), ["ok skill tea", "ok protocol Shutdown"]);
    assert!(!f.db().exists(), "check opens no catalog");

    let bad = f.file("bad.md", "no front matter here\n");
    let missing = f.dir.path().join("missing.md");
    let ran = porfiry(
        &[
            "check",
            good.to_str().unwrap(),
            bad.to_str().unwrap(),
            missing.to_str().unwrap(),
        ],
        f.dir.path(),
    );
    assert_eq!(ran.code, 1);
    let lines = ran.lines();
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert_eq!(lines[0], "ok skill tea");
    assert_eq!(
        lines[1],
        format!(
            "error {}: the document does not start with a `---` front matter line",
            bad.display()
        )
    );
    assert!(
        lines[2].starts_with(&format!("error {}: ", missing.display())),
        "{}",
        lines[2]
    );
}

#[test]
fn a_protocol_missing_keys_is_refused_with_every_key_named() {
    let f = Fixture::new();
    let doc = f.file(
        "half.md",
        "---\nkind: protocol\nname: Half\npreconditions: [ready]\n---\nContext.\n",
    );
    let expected =
        "a protocol needs these keys: missing steps, post_checks, on_deviation, on_blocked, on_already_done";
    let ran = f.run(&["check", doc.to_str().unwrap()]);
    assert_eq!(ran.code, 1);
    assert_eq!(
        ran.lines(),
        [format!("error {}: {expected}", doc.display()).as_str()]
    );

    let ran = f.refused(&["add", doc.to_str().unwrap()]);
    assert!(ran.stderr.contains(expected), "{}", ran.stderr);
    assert!(ran.stdout.is_empty());
    assert!(
        f.ok(&["list"]).stdout.is_empty(),
        "nothing written for a refused document"
    );
}

#[test]
fn import_takes_the_shipped_skills_folder_as_shared_entries() {
    let f = Fixture::new();
    let shipped = concat!(env!("CARGO_MANIFEST_DIR"), "/skills");
    let mut names: Vec<String> = std::fs::read_dir(shipped)
        .unwrap()
        .filter_map(|e| {
            let p = e.unwrap().path();
            (p.extension()? == "md").then(|| p.file_stem().unwrap().to_str().unwrap().to_string())
        })
        .collect();
    names.sort();
    assert!(!names.is_empty());

    let ran = f.ok(&["import", shipped]);
    let mut added: Vec<String> = ran
        .lines()
        .iter()
        .map(|l| {
            assert!(l.starts_with("added #") && l.ends_with(" v1"), "{l}");
            l.split(' ').nth(3).unwrap().to_string()
        })
        .collect();
    added.sort();
    assert_eq!(added, names, "every shipped skill imported, by its name");

    let list = f.ok(&["list", "--json"]).json();
    let rows = list.as_array().unwrap();
    assert_eq!(rows.len(), names.len());
    assert!(rows
        .iter()
        .all(|r| r["owner"] == "shared" && r["kind"] == "skill"));

    // Again: nothing changes.
    let again = f.ok(&["import", shipped]);
    assert!(
        again.lines().iter().all(|l| l.starts_with("unchanged #")),
        "{}",
        again.stdout
    );

    // A shared entry is read-only; the error says what to do.
    let doc = f.file("mine.md", &skill(&names[0], ""));
    let ran = f.refused(&["edit", &names[0], doc.to_str().unwrap()]);
    assert!(ran.stderr.contains("shared entry"), "{}", ran.stderr);
    assert!(
        ran.stderr.contains("porfiry catalog add FILE"),
        "{}",
        ran.stderr
    );
}

#[test]
fn import_reports_a_bad_file_and_exits_1_but_imports_the_rest() {
    let f = Fixture::new();
    f.file("folder/good.md", &skill("good", ""));
    let bad = f.file("folder/bad.md", "---\nname: [unclosed\n---\nx\n");
    let ran = f.run(&["import", f.dir.path().join("folder").to_str().unwrap()]);
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    let lines = ran.lines();
    assert!(lines
        .iter()
        .any(|l| l.starts_with("added #") && l.contains(" skill good ")));
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with(&format!("error {}: ", bad.display()))),
        "{lines:?}"
    );
}

#[test]
fn list_filters_and_puts_personal_entries_first() {
    let f = Fixture::new();
    f.file(
        "shared/stew.md",
        &skill("stew", "tags: [kitchen]\narea: home\n"),
    );
    f.file(
        "shared/backup.md",
        &skill("backup", "tags: [disks]\narea: infrastructure\n"),
    );
    f.file("shared/shutdown.md", &protocol("Shutdown"));
    f.ok(&["import", f.dir.path().join("shared").to_str().unwrap()]);
    let tea = f.file(
        "tea.md",
        &skill("tea", "tags: [Kitchen]\narea: home\ntriggers: [thirsty]\n"),
    );
    let tea_id = id_of(f.ok(&["add", tea.to_str().unwrap()]).lines()[0]);

    let all = f.ok(&["list"]);
    assert_eq!(all.lines().len(), 4, "{}", all.stdout);
    assert_eq!(ids(&all)[0], tea_id.to_string(), "personal first");
    assert!(
        all.lines()[0].starts_with(&format!("{tea_id} personal skill v1 tea — how to tea")),
        "{}",
        all.lines()[0]
    );
    assert!(all.lines()[1..].iter().all(|l| l.contains(" shared ")));

    let names = |ran: &Ran| -> Vec<String> {
        ran.lines()
            .iter()
            .map(|l| l.split(' ').nth(4).unwrap().to_string())
            .collect()
    };
    assert_eq!(names(&f.ok(&["list", "--kind", "protocol"])), ["Shutdown"]);
    assert_eq!(names(&f.ok(&["list", "--tag", "kitchen"])), ["tea", "stew"]);
    assert_eq!(
        names(&f.ok(&["list", "--area", "infrastructure"])),
        ["backup"]
    );
    assert_eq!(names(&f.ok(&["list", "--query", "thirsty"])), ["tea"]);
    assert_eq!(
        names(&f.ok(&["list", "--kind", "skill", "--area", "home", "--query", "stew"])),
        ["stew"]
    );
    let none = f.ok(&["list", "--query", "nothing-like-this"]);
    assert!(none.stdout.is_empty());
    assert!(none.stderr.contains("no entries match"), "{}", none.stderr);

    // A bad filter value is a usage error.
    assert_eq!(f.run(&["list", "--kind", "recipe"]).code, 2);
    assert_eq!(f.run(&["list", "--area", "garden"]).code, 2);
}

#[test]
fn show_and_versions_follow_add_and_edit() {
    let f = Fixture::new();
    let v1 = f.file("tea-1.md", &skill("tea", ""));
    let v2 = f.file(
        "tea-2.md",
        "---\nname: tea\ndescription: how to brew tea\nowner_team: kitchen\n---\nWarm the pot first.\n",
    );
    let added = f.ok(&["add", v1.to_str().unwrap(), "--reason", "first try"]);
    assert_eq!(added.lines().len(), 1);
    let id = id_of(added.lines()[0]);
    assert_eq!(added.lines()[0], format!("added {id} skill tea v1"));

    let edited = f.ok(&[
        "edit",
        "tea",
        v2.to_str().unwrap(),
        "--reason",
        "warm the pot",
    ]);
    assert_eq!(
        edited.lines(),
        [format!("updated {id} skill tea v2").as_str()]
    );
    let same = f.ok(&["edit", &id.to_string(), v2.to_str().unwrap()]);
    assert_eq!(
        same.lines(),
        [format!("unchanged {id} skill tea v2").as_str()]
    );

    let shown = f.ok(&["show", "TEA"]);
    let mut lines = shown.stdout.lines();
    let head = lines.next().unwrap();
    assert!(
        head.starts_with(&format!("{id} personal skill tea v2 (updated ")),
        "{head}"
    );
    assert!(head.ends_with("by user)"), "{head}");
    assert_eq!(
        lines.collect::<Vec<_>>().join("\n") + "\n",
        std::fs::read_to_string(&v2).unwrap(),
        "show prints the document as written"
    );

    let json = f.ok(&["show", &id.get().to_string(), "--json"]).json();
    assert_eq!(json["id"], id.get());
    assert_eq!(json["version"], 2);
    assert_eq!(json["owner"], "personal");
    assert_eq!(json["document"]["name"], "tea");
    assert_eq!(
        json["document"]["extra"]["owner_team"], "kitchen",
        "unknown keys kept: {json}"
    );

    let versions = f.ok(&["versions", "tea"]);
    let lines = versions.lines();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[0].starts_with("v2 ") && lines[0].ends_with(" by user: warm the pot"));
    assert!(lines[1].starts_with("v1 ") && lines[1].ends_with(" by user: first try"));
    let json = f.ok(&["versions", "tea", "--json"]).json();
    assert_eq!(json[0]["version"], 2);
    assert_eq!(json[1]["reason"], "first try");

    let nothing = f.refused(&["show", "coffee"]);
    assert!(nothing
        .stderr
        .contains("no skill or protocol named \"coffee\""));
    assert!(
        nothing.stderr.contains("porfiry catalog list"),
        "{}",
        nothing.stderr
    );
}

#[test]
fn a_name_both_kinds_share_needs_a_kind_or_an_id() {
    let f = Fixture::new();
    f.ok(&["add", f.file("s.md", &skill("twin", "")).to_str().unwrap()]);
    f.ok(&["add", f.file("p.md", &protocol("twin")).to_str().unwrap()]);
    let ran = f.refused(&["show", "twin"]);
    assert!(ran.stderr.contains("say which"), "{}", ran.stderr);
    assert!(ran.stderr.contains("--kind"), "{}", ran.stderr);
    let shown = f.ok(&["show", "twin", "--kind", "protocol"]);
    assert!(shown.lines()[0].contains(" personal protocol twin v1 "));
}

#[test]
fn rm_removes_a_personal_entry_and_uncovers_the_shared_one() {
    let f = Fixture::new();
    f.file("shared/tea.md", &skill("tea", ""));
    f.ok(&["import", f.dir.path().join("shared").to_str().unwrap()]);
    let mine = f.file("tea.md", &skill("tea", "tags: [mine]\n"));
    let id = id_of(f.ok(&["add", mine.to_str().unwrap()]).lines()[0]);
    assert!(f.ok(&["show", "tea"]).lines()[0].contains(" personal "));

    let ran = f.ok(&["rm", "tea"]);
    assert_eq!(ran.lines(), [format!("removed {id} skill tea").as_str()]);
    let left = f.ok(&["list"]);
    assert_eq!(left.lines().len(), 1);
    assert!(left.lines()[0].contains(" shared skill v1 tea"));

    let ran = f.refused(&["rm", "tea"]);
    assert!(ran.stderr.contains("shared entry"), "{}", ran.stderr);
    let ran = f.refused(&["rm", &id.to_string()]);
    assert!(
        ran.stderr
            .contains(&format!("no skill or protocol named \"{id}\"")),
        "{}",
        ran.stderr
    );
}

#[test]
fn proposals_are_listed_accepted_and_rejected() {
    let f = Fixture::new();
    let (first, second, clash) = {
        let mut c = f.catalog();
        let propose = |c: &mut Catalog, name: &str| {
            c.propose(NewProposal {
                session: "s1",
                content: &protocol(name),
                replaces: None,
                author: "agent",
                reason: "asked for it",
            })
            .expect("propose")
            .id
        };
        (
            propose(&mut c, "Shutdown"),
            propose(&mut c, "Backup"),
            propose(&mut c, "Taken"),
        )
    };
    let ran = f.ok(&["proposals"]);
    let lines = ran.lines();
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert_eq!(
        lines[2],
        format!("{first} pending protocol Shutdown (session s1)")
    );
    assert!(
        f.ok(&["list"]).stdout.is_empty(),
        "a pending proposal is no entry"
    );

    let ran = f.ok(&["accept", &first.to_string()]);
    let line = ran.lines()[0].to_string();
    assert!(
        line.starts_with(&format!("accepted {first}: #"))
            && line.ends_with(" protocol Shutdown v1"),
        "{line}"
    );
    let list = f.ok(&["list"]);
    assert_eq!(list.lines().len(), 1);
    assert!(list.lines()[0].contains(" personal protocol v1 Shutdown"));
    let versions = f.ok(&["versions", "Shutdown"]);
    assert!(
        versions.lines()[0].contains(&format!(" by user: proposal {first}: asked for it")),
        "{}",
        versions.stdout
    );

    let ran = f.refused(&["accept", &first.get().to_string()]);
    assert!(ran.stderr.contains("already accepted"), "{}", ran.stderr);

    let ran = f.ok(&["reject", &second.to_string(), "--reason", "not now"]);
    assert_eq!(
        ran.lines(),
        [format!("rejected {second} protocol Backup").as_str()]
    );
    assert_eq!(f.ok(&["list", "--query", "Backup"]).stdout, "");

    // Accepting a proposal the store then refuses leaves it pending with the reason.
    f.ok(&[
        "add",
        f.file("taken.md", &protocol("Taken")).to_str().unwrap(),
    ]);
    let ran = f.refused(&["accept", &clash.to_string()]);
    assert!(ran.stderr.contains("it stays pending"), "{}", ran.stderr);
    let pending = f.ok(&["proposals", "--pending"]);
    assert_eq!(pending.lines().len(), 1);
    assert!(
        pending.lines()[0].starts_with(&format!("{clash} pending protocol Taken (session s1) — refused: a personal protocol named \"Taken\" already exists")),
        "{}",
        pending.stdout
    );

    let json = f.ok(&["proposals", "--json"]).json();
    let statuses: Vec<&str> = json
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["pending", "rejected", "accepted"]);
    assert_eq!(json[1]["decision_reason"], "not now");

    let ran = f.refused(&["accept", "soon"]);
    assert!(
        ran.stderr.contains("porfiry catalog proposals"),
        "{}",
        ran.stderr
    );
    assert!(f
        .refused(&["reject", "#99"])
        .stderr
        .contains("no proposal #99"));
}

#[test]
fn runs_are_listed_newest_first_and_by_session() {
    let f = Fixture::new();
    let id = id_of(
        f.ok(&[
            "add",
            f.file("p.md", &protocol("Shutdown")).to_str().unwrap(),
        ])
        .lines()[0],
    );
    assert!(f.ok(&["runs"]).stderr.contains("no protocol runs"));
    let (done, running) = {
        let mut c = f.catalog();
        let done = c.start_run("s1", id).unwrap().id;
        for step in [1, 2] {
            c.mark_step(
                done,
                step,
                StepMark::Done {
                    validation: "checked".into(),
                },
            )
            .unwrap();
        }
        c.finish_run(
            done,
            RunEnd::Done {
                report: "all stopped,\nnothing runs".into(),
            },
        )
        .unwrap();
        let running = c.start_run("s2", id).unwrap().id;
        c.mark_step(
            running,
            1,
            StepMark::Skipped {
                reason: "nothing to stop".into(),
            },
        )
        .unwrap();
        (done, running)
    };
    let all = f.ok(&["runs"]);
    let lines = all.lines();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(
        lines[0].starts_with(&format!(
            "{running} running Shutdown v1 (session s2, started "
        )) && lines[0].ends_with(") steps 1/2 closed"),
        "{}",
        lines[0]
    );
    assert!(
        lines[1].starts_with(&format!("{done} done Shutdown v1 (session s1, "))
            && lines[1].ends_with(" steps 2/2 closed — all stopped, nothing runs"),
        "{}",
        lines[1]
    );
    assert_eq!(ids(&f.ok(&["runs", "--session", "s1"])), [done.to_string()]);
    let json = f.ok(&["runs", "--session", "s2", "--json"]).json();
    assert_eq!(json.as_array().unwrap().len(), 1);
    assert_eq!(json[0]["status"], "running");
    assert_eq!(json[0]["steps"][0]["status"], "skipped");
    assert_eq!(json[0]["steps"][1]["status"], "open");
}

#[test]
fn a_catalog_of_a_newer_schema_is_refused_clearly_and_left_untouched() {
    let f = Fixture::new();
    f.ok(&["list"]);
    {
        let raw = rusqlite::Connection::open(f.db()).unwrap();
        raw.pragma_update(None, "user_version", 999).unwrap();
    }
    let before = std::fs::read(f.db()).unwrap();
    let doc = f.file("tea.md", &skill("tea", ""));
    for args in [vec!["list"], vec!["add", doc.to_str().unwrap()]] {
        let ran = f.refused(&args);
        assert!(
            ran.stderr
                .contains("written by a newer Porfiry (schema version 999")
                && ran.stderr.contains("update Porfiry"),
            "{}",
            ran.stderr
        );
    }
    assert_eq!(
        std::fs::read(f.db()).unwrap(),
        before,
        "the file is not changed"
    );

    let junk = f.file("junk.sqlite", "this is not a database at all, just text\n");
    let ran = porfiry(&["--db", junk.to_str().unwrap(), "list"], f.dir.path());
    assert_eq!(ran.code, 1);
    assert!(
        ran.stderr.contains("not a Porfiry catalog"),
        "{}",
        ran.stderr
    );
}

#[test]
fn the_default_catalog_lives_in_the_data_directory() {
    let f = Fixture::new();
    let doc = f.file("tea.md", &skill("tea", ""));
    let ran = porfiry(&["add", doc.to_str().unwrap()], f.dir.path());
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(f.dir.path().join("data").join("catalog.sqlite").is_file());
    // `--db` also works after the command.
    let ran = porfiry(&["list", "--db", f.db().to_str().unwrap()], f.dir.path());
    assert_eq!(ran.code, 0);
    assert!(ran.stdout.is_empty(), "another file: {}", ran.stdout);
}

#[test]
fn usage_errors_exit_2() {
    let f = Fixture::new();
    assert_eq!(f.run(&[]).code, 2);
    assert_eq!(f.run(&["frobnicate"]).code, 2);
    assert_eq!(f.run(&["check"]).code, 2, "check needs a file");
    assert_eq!(f.run(&["show"]).code, 2);
    assert_eq!(f.run(&["edit", "tea"]).code, 2);
}
