//! The bridge on a real JVM: compiles the app's core module (`app-phone/core`) and the Java
//! drivers in `tests/jvm/` with `javac`, then runs each scenario in its own
//! `java -Xcheck:jni` process against the freshly built `libporfiry.so` (a JVM crash fails
//! one test instead of taking cargo down). Needs a JDK: no skipping; `scripts/prereqs.sh`
//! installs one.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn tool(name: &str) -> PathBuf {
    if let Some(home) = std::env::var_os("JAVA_HOME") {
        let p = Path::new(&home).join("bin").join(name);
        if p.is_file() {
            return p;
        }
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
        .unwrap_or_else(|| {
            panic!("`{name}` not found: the JNI tests need a JDK (17+). Install one with scripts/prereqs.sh (Debian: default-jdk-headless)")
        })
}

/// The cdylib cargo built for this test run. The test executable lives in
/// `target/<profile>/deps/`; cargo builds the library there for the crate's own integration
/// tests (it only copies it up to `target/<profile>/` for `cargo build`, so that copy may be
/// stale and is only a fallback).
fn library() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    let candidates = [
        deps.join("libporfiry.so"),
        deps.parent().unwrap().join("libporfiry.so"),
    ];
    candidates.iter().find(|p| p.is_file()).cloned().unwrap_or_else(|| {
        panic!(
            "libporfiry.so not found at {candidates:?}: build the bridge with `cargo build -p porfiry-ffi`"
        )
    })
}

fn model() -> PathBuf {
    let dir = std::env::var_os("PORFIRY_MODELS")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("models/cache"));
    let m = dir.join("gemma-3-270m-q4_k_m.gguf");
    assert!(
        m.is_file(),
        "the default model {} is missing: fetch it with `cargo run --release -- models fetch` \
         (or point PORFIRY_MODELS at a folder holding gemma-3-270m-q4_k_m.gguf)",
        m.display()
    );
    m
}

const MEDIA_SKILL: &str = "\
---
name: media
description: фильмы — найти и включить; вызови enable_toolset|media
toolset: media
---
Вызови enable_toolset|media, потом media_search|название.
";

/// The protocol the catalog fixture holds (a personal entry, as the user wrote it).
const SHUTDOWN: &str = "\
---
kind: protocol
name: Выключение сервера
description: Останавливает сервисы в порядке зависимостей.
area: infrastructure
tags: [power]
steps:
  - Остановить приложения
  - Остановить базы данных
  - Отмонтировать диски
post_checks:
  - Прикладных юнитов не осталось
on_deviation: Не продолжать; доложить.
on_blocked: Остановиться и доложить, что помешало.
on_already_done: Проверить статус и отметить шаг.
---
Порядок зависимостей важен.
";

/// A protocol document named `name` with one step.
fn protocol(name: &str, step: &str) -> String {
    format!(
        "---\nkind: protocol\nname: {name}\ndescription: {step}\narea: home\nsteps:\n  - {step}\n\
         post_checks:\n  - Проверено\non_deviation: Доложить.\non_blocked: Доложить.\n\
         on_already_done: Отметить.\n---\nКонтекст.\n"
    )
}

/// `fixtures/catalog-decisions.sqlite`: what the agent leaves for the settings screen —
/// the user's protocol; three pending proposals (a new one from s1, one whose name the
/// user's protocol already has — accepting it is refused —, one from s2); a run running in
/// s1 (step 1 done) and a cancelled one in s2. CatalogTests copy it to a temporary file.
fn write_catalog_fixture(path: &Path) {
    use porfiry_runtime::catalog::{Catalog, EntryId, NewProposal, RunEnd, StepMark};
    let mut c = Catalog::open(path).expect("fixture catalog");
    let shutdown: EntryId = c
        .create(SHUTDOWN, "user", "мой протокол")
        .expect("create")
        .id;
    let water = protocol("Полив цветов", "Полить цветы");
    let dup = protocol("Выключение сервера", "Выключить всё сразу");
    let backup = protocol("Проверка бэкапа", "Проверить бэкап");
    for (session, content, reason) in [
        ("s1", water.as_str(), "часто просишь полить"),
        ("s1", dup.as_str(), "короче"),
        ("s2", backup.as_str(), "для порядка"),
    ] {
        c.propose(NewProposal {
            session,
            content,
            replaces: None,
            author: "agent",
            reason,
        })
        .expect("propose");
    }
    let run = c.start_run("s1", shutdown).expect("start s1").id;
    c.mark_step(
        run,
        1,
        StepMark::Done {
            validation: "systemctl: 0 units".into(),
        },
    )
    .expect("mark");
    let other = c.start_run("s2", shutdown).expect("start s2").id;
    c.finish_run(
        other,
        RunEnd::Cancelled {
            reason: "пользователь передумал".into(),
        },
    )
    .expect("cancel");
}

struct Prepared {
    classes: PathBuf,
    fixtures: PathBuf,
}

/// Compiles the Java sources and writes the fixtures, once per test process.
fn prepared() -> &'static Prepared {
    static P: OnceLock<Prepared> = OnceLock::new();
    P.get_or_init(|| {
        let base = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ffi-jvm");
        let _ = std::fs::remove_dir_all(&base);
        let classes = base.join("classes");
        let fixtures = base.join("fixtures");
        std::fs::create_dir_all(&classes).unwrap();
        std::fs::create_dir_all(fixtures.join("skills")).unwrap();
        std::fs::create_dir_all(fixtures.join("toolsets")).unwrap();
        // The toolset the app ships (its tools are what `MediaToolExecutor` implements).
        std::fs::copy(
            root().join("toolsets/media.yaml"),
            fixtures.join("toolsets/media.yaml"),
        )
        .unwrap();
        std::fs::write(fixtures.join("skills/media.md"), MEDIA_SKILL).unwrap();
        write_catalog_fixture(&fixtures.join("catalog-decisions.sqlite"));
        let mut sources = Vec::new();
        for dir in [
            root().join("app-phone/core/src/main/java"),
            root().join("ffi/tests/jvm"),
        ] {
            collect_java(&dir, &mut sources);
        }
        assert!(sources.len() > 5, "Java sources not found: {sources:?}");
        let out = Command::new(tool("javac"))
            .args(["-encoding", "UTF-8", "-Xlint:all", "-Werror", "-d"])
            .arg(&classes)
            .args(&sources)
            .output()
            .expect("run javac");
        assert!(
            out.status.success(),
            "javac failed:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        Prepared { classes, fixtures }
    })
}

fn collect_java(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let p = entry.unwrap().path();
        if p.is_dir() {
            collect_java(&p, out);
        } else if p.extension().is_some_and(|e| e == "java") {
            out.push(p);
        }
    }
}

/// Runs `BridgeTests <name>` in a fresh `java -Xcheck:jni` and checks that it passed with no
/// JNI warning. Kills the JVM after `limit` (a hang is a failure, not a stuck test run).
fn jvm(name: &str, limit: Duration, with_model: bool) -> String {
    jvm_class("BridgeTests", name, limit, with_model)
}

/// Runs `CatalogTests <name>` (the catalog calls and the settings screen; no model).
fn catalog_jvm(name: &str) -> String {
    jvm_class("CatalogTests", name, QUICK, false)
}

/// Runs `app.porfiry.tests.<class> <name>` as [`jvm`] does.
fn jvm_class(class: &str, name: &str, limit: Duration, with_model: bool) -> String {
    jvm_with(class, name, limit, with_model, &[], &[])
}

/// [`jvm_class`] with extra JVM options (`extra`, before the class name) and environment
/// variables.
fn jvm_with(
    class: &str,
    name: &str,
    limit: Duration,
    with_model: bool,
    extra: &[String],
    env: &[(&str, &str)],
) -> String {
    let p = prepared();
    let mut cmd = Command::new(tool("java"));
    cmd.args(extra).envs(env.iter().copied());
    cmd.arg("-Xcheck:jni")
        .arg("-Dfile.encoding=UTF-8")
        .arg(format!("-Dporfiry.library={}", library().display()))
        .arg(format!("-Dporfiry.fixtures={}", p.fixtures.display()))
        .arg("-cp")
        .arg(&p.classes);
    if with_model {
        cmd.arg(format!("-Dporfiry.model={}", model().display()));
    }
    cmd.arg(format!("app.porfiry.tests.{class}")).arg(name);
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("start java");
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let out = out_reader.join().unwrap();
    let err = err_reader.join().unwrap();
    let report = format!("--- stdout\n{out}\n--- stderr\n{err}");
    let Some(status) = status else {
        panic!("{name}: the JVM did not finish within {limit:?} (hang)\n{report}");
    };
    assert!(status.success(), "{name}: {status}\n{report}");
    assert!(
        out.contains(&format!("PASS {name}")),
        "{name} did not pass\n{report}"
    );
    for bad in [
        "WARNING in native method",
        "FATAL ERROR in native method",
        "JNI local refs",
        "Rust panic",
        "panicked at",
    ] {
        assert!(
            !err.contains(bad) && !out.contains(bad),
            "{name}: `{bad}` in the output\n{report}"
        );
    }
    out
}

const QUICK: Duration = Duration::from_secs(60);

#[test]
fn scripted_turn_streams_text_sentences_and_done() {
    jvm("scriptedTurnStreamsTextSentencesAndDone", QUICK, false);
}

#[test]
fn utf8_round_trips_both_ways() {
    jvm("utf8RoundTripsBothWays", QUICK, false);
}

/// Lone surrogates, NUL, pairs and texts of 5,000,000 chars and 2,000,000 emoji through
/// `send` and `hearPartial` (the JNI string conversion itself; RELIABILITY.md §6, §7). Prints
/// each case's times.
#[test]
fn hostile_strings_cross_the_bridge() {
    let out = jvm(
        "hostileStringsCrossTheBridge",
        Duration::from_secs(300),
        false,
    );
    println!("{out}");
}

#[test]
fn cancel_stops_the_running_turn_quickly() {
    jvm("cancelStopsTheRunningTurnQuickly", QUICK, false);
}

#[test]
fn cancel_reaches_the_turns_of_that_session_only() {
    jvm("cancelReachesTheTurnsOfThatSessionOnly", QUICK, false);
}

#[test]
fn barge_in_keeps_what_was_heard_and_merges_queued_speech() {
    jvm(
        "bargeInKeepsWhatWasHeardAndMergesQueuedSpeech",
        QUICK,
        false,
    );
}

#[test]
fn concurrent_sends_from_many_threads() {
    jvm("concurrentSendsFromManyThreads", QUICK, false);
}

#[test]
fn close_during_generation_ends_every_turn_and_detaches() {
    jvm(
        "closeDuringGenerationEndsEveryTurnAndDetaches",
        QUICK,
        false,
    );
}

#[test]
fn bad_handles_and_arguments_are_exceptions() {
    jvm("badHandlesAndArgumentsAreExceptions", QUICK, false);
}

#[test]
fn throwing_listener_is_contained() {
    jvm("throwingListenerIsContained", QUICK, false);
}

#[test]
fn listener_may_call_back_into_the_bridge() {
    jvm("listenerMayCallBackIntoTheBridge", QUICK, false);
}

#[test]
fn slow_executor_becomes_a_tool_error() {
    jvm("slowExecutorBecomesAToolError", QUICK, false);
}

#[test]
fn throwing_executor_becomes_a_tool_error() {
    jvm("throwingExecutorBecomesAToolError", QUICK, false);
}

#[test]
fn end_session_forgets_the_history() {
    jvm("endSessionForgetsTheHistory", QUICK, false);
}

#[test]
fn open_takes_json_options() {
    jvm("openTakesJsonOptions", QUICK, false);
}

#[test]
fn media_executor_through_the_bridge() {
    jvm("mediaExecutorThroughTheBridge", QUICK, false);
}

#[test]
fn controller_speaks_sentences_and_barges_in() {
    jvm("controllerSpeaksSentencesAndBargesIn", QUICK, false);
}

#[test]
fn controller_starts_a_new_conversation_after_idle() {
    jvm("controllerStartsANewConversationAfterIdle", QUICK, false);
}

#[test]
fn files_report_and_settings() {
    jvm("filesReportAndSettings", QUICK, false);
}

#[test]
fn catalog_calls_work_without_a_model() {
    catalog_jvm("catalogCallsWorkWithoutAModel");
}

#[test]
fn catalog_refusals_are_catalog_exceptions_with_the_stores_text() {
    catalog_jvm("catalogRefusalsAreCatalogExceptionsWithTheStoresText");
}

#[test]
fn catalog_handles_of_one_file_share_one_store() {
    catalog_jvm("catalogHandlesOfOneFileShareOneStore");
}

#[test]
fn catalog_open_syncs_the_skill_folders_as_shared_entries() {
    catalog_jvm("catalogOpenSyncsTheSkillFoldersAsSharedEntries");
}

#[test]
fn catalog_of_the_app_files_syncs_its_skills_folder() {
    catalog_jvm("catalogOfTheAppFilesSyncsItsSkillsFolder");
}

#[test]
fn catalog_screen_lists_and_filters() {
    catalog_jvm("catalogScreenListsAndFilters");
}

#[test]
fn catalog_screen_creates_from_templates_and_edits() {
    catalog_jvm("catalogScreenCreatesFromTemplatesAndEdits");
}

#[test]
fn catalog_screen_shows_validation_errors_verbatim() {
    catalog_jvm("catalogScreenShowsValidationErrorsVerbatim");
}

#[test]
fn catalog_screen_keeps_shared_entries_read_only() {
    catalog_jvm("catalogScreenKeepsSharedEntriesReadOnly");
}

#[test]
fn catalog_screen_decides_proposals() {
    catalog_jvm("catalogScreenDecidesProposals");
}

#[test]
fn catalog_screen_shows_runs_by_session() {
    catalog_jvm("catalogScreenShowsRunsBySession");
}

#[test]
fn json_reader_reads_what_the_library_writes() {
    catalog_jvm("jsonReaderReadsWhatTheLibraryWrites");
}

#[test]
fn gemma_assistant_and_screen_share_the_catalog_file() {
    let out = jvm_class(
        "CatalogTests",
        "gemmaAssistantAndScreenShareTheCatalogFile",
        Duration::from_secs(600),
        true,
    );
    println!("{out}");
}

#[test]
fn gemma_streams_a_turn() {
    let out = jvm("gemmaStreamsATurn", Duration::from_secs(600), true);
    println!("{out}");
}

#[test]
fn gemma_cancel() {
    let out = jvm("gemmaCancel", Duration::from_secs(600), true);
    println!("{out}");
}

#[test]
fn gemma_barge_in() {
    let out = jvm("gemmaBargeIn", Duration::from_secs(600), true);
    println!("{out}");
}

#[test]
fn gemma_survives_a_dialogue_longer_than_its_context() {
    let out = jvm(
        "gemmaSurvivesADialogueLongerThanItsContext",
        Duration::from_secs(900),
        true,
    );
    println!("{out}");
}

/// Messages of 5,000,000 chars and 2,000,000 emoji through the bridge's send on Gemma at a
/// 512-token context: cut to the budget and answered (RELIABILITY.md §7).
#[test]
fn gemma_answers_messages_of_millions_of_chars() {
    let out = jvm(
        "gemmaAnswersMessagesOfMillionsOfChars",
        Duration::from_secs(900),
        true,
    );
    println!("{out}");
}

/// A data folder that cannot be written: `unwritable_data` in stats' model JSON (the warning
/// the app shows), the turn answered.
#[test]
fn gemma_reports_an_unwritable_data_folder() {
    let out = jvm(
        "gemmaReportsAnUnwritableDataFolder",
        Duration::from_secs(600),
        true,
    );
    println!("{out}");
}

#[test]
fn gemma_end_session_starts_from_the_head() {
    let out = jvm(
        "gemmaEndSessionStartsFromTheHead",
        Duration::from_secs(600),
        true,
    );
    println!("{out}");
}

/// The storm (`StormTests`, RELIABILITY.md §8): 8 Java threads × 4 sessions of random
/// sends, prepares, cancels, session ends and queries on the real Gemma, hostile listeners and
/// a tool executor that never returns, closes during generation, calls after close; thread
/// counts and anonymous RSS checked round after round. The Java heap is fixed and pre-touched
/// so its growth cannot pass for a native leak, and glibc keeps one malloc arena
/// (`MALLOC_ARENA_MAX=1`): with one arena per thread, memory freed by the threads of a
/// finished assistant stays in their arenas (measured: +62 MB anonymous per open/close of
/// the Gemma assistant with the default arenas, none after the first with one arena), which
/// would hide a real leak or fake one. `PORFIRY_STORM_SEED=N` replays a seed's random
/// choices (the seed is printed).
#[test]
fn gemma_storm() {
    let mut extra = vec![
        "-Xms96m".to_string(),
        "-Xmx96m".to_string(),
        "-XX:+AlwaysPreTouch".to_string(),
    ];
    if let Ok(seed) = std::env::var("PORFIRY_STORM_SEED") {
        extra.push(format!("-Dporfiry.seed={seed}"));
    }
    let out = jvm_with(
        "StormTests",
        "gemmaStorm",
        Duration::from_secs(900),
        true,
        &extra,
        &[("MALLOC_ARENA_MAX", "1")],
    );
    println!("{out}");
}
