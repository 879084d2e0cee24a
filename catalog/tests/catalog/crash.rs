//! Crash safety: a writer process killed with SIGKILL at random points loses nothing it
//! acknowledged and leaves no half-written row.
//!
//! The test binary runs this same test again as the writer (with `WRITER_DB` set the test
//! is the writer, not the parent, so an ordinary run counts one test): it creates, updates,
//! runs protocols and accepts proposals in a loop, printing one `ack …` line after each
//! write returned `Ok`. The parent kills it after a
//! random delay, reopens the file and checks every acknowledged write, and the whole
//! file's consistency. Several rounds on the same file: recovery, then more writes.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use porfiry_catalog::{
    content_hash, Catalog, Document, EntryId, NewProposal, ProposalId, ProposalStatus, RunEnd,
    RunId, RunStatus, StepMark, StepStatus,
};

use crate::common::{protocol, skill};

/// Set in the child: the catalog file to write.
const WRITER_DB: &str = "PORFIRY_CATALOG_CRASH_DB";
/// Set in the child: the round, so names do not collide across rounds.
const WRITER_ROUND: &str = "PORFIRY_CATALOG_CRASH_ROUND";
const ROUNDS: u32 = 8;
/// The crash test's name in this binary: the child runs it alone, as the writer.
const CRASH_TEST: &str = "crash::a_writer_killed_at_random_points_loses_nothing_acknowledged";

fn ack(line: String) {
    let mut out = std::io::stdout().lock();
    // A failed print only loses an acknowledgement, which the check tolerates.
    let _ = writeln!(out, "ack {line}");
    let _ = out.flush();
}

/// The writer: the test below, run as its own child process with `WRITER_DB` set.
fn write_until_killed(path: &str) {
    let round = std::env::var(WRITER_ROUND).unwrap_or_default();
    let mut catalog = Catalog::open(path).expect("open");
    let steps = ["one", "two", "three"];
    let proto = catalog
        .create(
            &protocol(&format!("r{round} protocol"), &steps),
            "writer",
            "crash test",
        )
        .expect("protocol");
    ack(format!(
        "create {} {}",
        proto.id.get(),
        content_hash(&protocol(&format!("r{round} protocol"), &steps))
    ));
    for i in 0..100_000u32 {
        let name = format!("r{round} e{i}");
        let text = skill(&name, &format!("body {i}\n{}", "filler ".repeat(200)));
        let e = catalog
            .create(&text, "writer", "crash test")
            .expect("create");
        ack(format!("create {} {}", e.id.get(), content_hash(&text)));
        if i % 2 == 0 {
            let text = skill(&name, &format!("body {i}, second version"));
            let u = catalog
                .update(e.id, &text, "writer", "edit")
                .expect("update");
            ack(format!(
                "update {} {} {}",
                e.id.get(),
                u.entry().version,
                content_hash(&text)
            ));
        }
        if i % 3 == 0 {
            let run = catalog
                .start_run(&format!("r{round} s{i}"), proto.id)
                .expect("start");
            for n in 1..=steps.len() as u32 {
                catalog
                    .mark_step(
                        run.id,
                        n,
                        StepMark::Done {
                            validation: format!("checked {n}"),
                        },
                    )
                    .expect("step");
            }
            catalog
                .finish_run(
                    run.id,
                    RunEnd::Done {
                        report: "all steps done".into(),
                    },
                )
                .expect("finish");
            ack(format!("run {}", run.id.get()));
        }
        if i % 5 == 0 {
            let p = catalog
                .propose(NewProposal {
                    session: "writer",
                    content: &protocol(&format!("r{round} proposed {i}"), &steps),
                    replaces: None,
                    author: "agent",
                    reason: "crash test",
                })
                .expect("propose");
            let entry = catalog.accept_proposal(p.id, "user").expect("accept");
            ack(format!("accept {} {}", p.id.get(), entry.id.get()));
        }
    }
}

/// What the writer acknowledged.
#[derive(Debug)]
enum Ack {
    Create { id: i64, hash: String },
    Update { id: i64, version: u32, hash: String },
    Run { id: i64 },
    Accept { proposal: i64, entry: i64 },
}

fn parse_ack(line: &str) -> Option<Ack> {
    let words: Vec<&str> = line.strip_prefix("ack ")?.split(' ').collect();
    match words.as_slice() {
        ["create", id, hash] => Some(Ack::Create {
            id: id.parse().ok()?,
            hash: hash.to_string(),
        }),
        ["update", id, version, hash] => Some(Ack::Update {
            id: id.parse().ok()?,
            version: version.parse().ok()?,
            hash: hash.to_string(),
        }),
        ["run", id] => Some(Ack::Run {
            id: id.parse().ok()?,
        }),
        ["accept", p, e] => Some(Ack::Accept {
            proposal: p.parse().ok()?,
            entry: e.parse().ok()?,
        }),
        _ => None,
    }
}

/// xorshift64*: enough randomness for kill delays, and the seed is printed.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n
    }
}

/// Runs one writer until it acknowledged something, kills it `delay` later, and returns
/// the acknowledgements it printed in full.
fn write_and_kill(path: &Path, round: u32, delay: Duration) -> Vec<Ack> {
    let exe = std::env::current_exe().expect("test binary");
    let mut child = Command::new(exe)
        .args(["--exact", CRASH_TEST, "--nocapture", "--test-threads=1"])
        .env(WRITER_DB, path)
        .env(WRITER_ROUND, round.to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn the writer");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut reader = BufReader::new(stdout);
        let mut line = Vec::new();
        loop {
            line.clear();
            match reader.read_until(b'\n', &mut line) {
                // A line cut by the kill has no newline: it was never acknowledged.
                Ok(n) if n > 0 && line.ends_with(b"\n") => {
                    let text = String::from_utf8_lossy(&line).trim_end().to_string();
                    if tx.send(text).is_err() {
                        return;
                    }
                }
                _ => return,
            }
        }
    });
    let mut lines = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(120);
    while !lines.iter().any(|l: &String| l.starts_with("ack ")) {
        match rx.recv_timeout(Duration::from_millis(50)) {
            Ok(line) => lines.push(line),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if let Ok(Some(status)) = child.try_wait() {
                    panic!("the writer exited before writing: {status}");
                }
                assert!(Instant::now() < deadline, "the writer never wrote");
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => panic!("the writer closed its output"),
        }
    }
    std::thread::sleep(delay);
    child.kill().expect("SIGKILL");
    let status = child.wait().expect("wait");
    assert!(
        !status.success(),
        "the writer was killed, not finished: {status}"
    );
    reader.join().expect("reader");
    lines.extend(rx.try_iter());
    lines.iter().filter_map(|l| parse_ack(l)).collect()
}

/// Every acknowledged write is there and whole; every row in the file is consistent.
fn check(path: &Path, acks: &[Ack]) {
    let catalog = Catalog::open(path).expect("reopen after the crash");
    catalog.check_integrity().expect("integrity");
    for a in acks {
        match a {
            Ack::Create { id, hash } => {
                let versions = catalog.versions(EntryId(*id)).expect("acknowledged entry");
                let first = versions.iter().find(|v| v.version == 1).expect("version 1");
                assert_eq!(&first.content_hash, hash, "entry {id} version 1");
            }
            Ack::Update { id, version, hash } => {
                let entry = catalog.entry(EntryId(*id)).expect("updated entry");
                assert!(entry.version >= *version);
                let versions = catalog.versions(EntryId(*id)).expect("versions");
                let v = versions
                    .iter()
                    .find(|v| v.version == *version)
                    .expect("the version");
                assert_eq!(&v.content_hash, hash, "entry {id} version {version}");
            }
            Ack::Run { id } => {
                let run = catalog.run(RunId(*id)).expect("acknowledged run");
                assert_eq!(run.status, RunStatus::Done);
                assert_eq!(run.report.as_deref(), Some("all steps done"));
                assert!(run.steps.iter().all(|s| s.status == StepStatus::Done));
            }
            Ack::Accept { proposal, entry } => {
                let p = catalog
                    .proposal(ProposalId(*proposal))
                    .expect("acknowledged proposal");
                assert_eq!(p.status, ProposalStatus::Accepted);
                assert_eq!(p.entry, Some(EntryId(*entry)));
                catalog.entry(EntryId(*entry)).expect("accepted entry");
            }
        }
    }
    // Whole rows everywhere, acknowledged or not.
    let raw = rusqlite::Connection::open(path).expect("raw");
    let broken: i64 = raw
        .query_row(
            "SELECT count(*) FROM entries e
             WHERE (SELECT count(*) FROM versions v WHERE v.entry_id = e.id) != e.version
                OR NOT EXISTS (SELECT 1 FROM versions v WHERE v.entry_id = e.id
                               AND v.version = e.version AND v.content_hash = e.content_hash)",
            [],
            |r| r.get(0),
        )
        .expect("entries check");
    assert_eq!(broken, 0, "entries without their full history");
    let mut stmt = raw
        .prepare("SELECT id, content, content_hash FROM entries")
        .expect("stmt");
    let rows: Vec<(i64, String, String)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .expect("rows")
        .collect::<Result<_, _>>()
        .expect("rows");
    for (id, content, hash) in rows {
        assert_eq!(content_hash(&content), hash, "entry {id}");
        catalog.entry(EntryId(id)).expect("every entry reads back");
    }
    for run in catalog.runs(None).expect("runs") {
        let doc = Document::parse(&run.protocol_content).expect("snapshot");
        let steps = doc.protocol.expect("protocol").steps.len();
        assert_eq!(run.steps.len(), steps, "run {} has all its steps", run.id);
        assert_eq!(run.status == RunStatus::Running, run.finished_at.is_none());
    }
    for p in catalog
        .proposals(Some(ProposalStatus::Accepted))
        .expect("proposals")
    {
        let entry = p.entry.expect("accepted proposals name their entry");
        catalog.entry(entry).expect("the accepted entry exists");
    }
}

#[test]
fn a_writer_killed_at_random_points_loses_nothing_acknowledged() {
    if let Ok(path) = std::env::var(WRITER_DB) {
        write_until_killed(&path);
        return;
    }
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("crash.db");
    let seed = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(1)
        ^ u64::from(std::process::id())
        | 1;
    println!("crash test seed {seed:#x}");
    let mut rng = Rng(seed);
    let mut acks = Vec::new();
    for round in 0..ROUNDS {
        let delay = Duration::from_millis(rng.below(250));
        let got = write_and_kill(&path, round, delay);
        assert!(!got.is_empty(), "round {round}: nothing acknowledged");
        acks.extend(got);
        check(&path, &acks);
    }
    let runs = acks.iter().filter(|a| matches!(a, Ack::Run { .. })).count();
    println!(
        "{} acknowledged writes over {ROUNDS} kills, {runs} runs",
        acks.len()
    );
}
