//! A tmpfs for the tests of a full or read-only data folder, mounted wherever the machine
//! allows one, and a loud refusal where it allows none.
//!
//! [`tmpfs_for`] decides where a test's body runs ([`decide`]):
//! 1. here, when this process may mount a tmpfs (root, as CI runs);
//! 2. in a user and mount namespace, when it may not but unprivileged user namespaces are
//!    allowed (most Linux machines): the test binary runs again under
//!    `unshare --user --map-root-user --mount` (util-linux), filtered to the one test, and
//!    mounts there — an unprivileged user may mount a tmpfs inside its own namespace. This
//!    process then only checks that the child ran the test and passed;
//! 3. nowhere: with `CI` set the test fails, saying why (a test that cannot run must not
//!    pass in CI); otherwise it prints `SKIPPED` with the reasons and returns.
//!
//! Shared by `runtime/tests/data_dir.rs` and `tests/cli_hostile.rs` (included by path).
#![allow(dead_code)] // Each including test uses part of it.

use std::path::Path;
use std::process::Command;

/// Set in the child that re-runs a test inside a namespace: mount there, never re-run again.
const IN_NAMESPACE: &str = "PORFIRY_TEST_IN_MOUNT_NAMESPACE";

/// A tmpfs mounted on a fresh folder, unmounted on drop.
pub struct Tmpfs {
    dir: tempfile::TempDir,
}

impl Tmpfs {
    /// Mounts a tmpfs with `options` (`ro`, `size=64k`…), or says why it cannot.
    pub fn mount(options: &str) -> Result<Self, String> {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", options, "porfiry-test"])
            .arg(dir.path())
            .output()
            .map_err(|e| format!("cannot run mount: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "mount -t tmpfs -o {options}: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(Self { dir })
    }

    /// The mounted folder.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Makes the mount read-only from now on (`remount,bind,ro`: the mount point's flag, which
    /// a namespace's root may set too).
    pub fn make_read_only(&self) {
        let ok = Command::new("mount")
            .args(["-o", "remount,bind,ro"])
            .arg(self.dir.path())
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "mount -o remount,bind,ro {}", self.dir.path().display());
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.dir.path()).status();
    }
}

/// Where a test that needs a tmpfs runs.
#[derive(Debug, PartialEq, Eq)]
pub enum Decision {
    /// Here: the tmpfs is mounted.
    Here,
    /// In a child process inside a user and mount namespace.
    InNamespace,
    /// Nowhere, and the test must fail: the message says why.
    Fail(String),
    /// Nowhere, outside CI: the message says why.
    Skip(String),
}

/// Where the test `test` runs: `here` is the outcome of mounting in this process,
/// `in_namespace` whether this process is already the namespace child, `namespace` probes a
/// mount inside a fresh namespace (called only when needed), `ci` whether `CI` is set.
pub fn decide(
    test: &str,
    here: Result<(), String>,
    in_namespace: bool,
    namespace: impl FnOnce() -> Result<(), String>,
    ci: bool,
) -> Decision {
    let here_err = match here {
        Ok(()) => return Decision::Here,
        Err(e) => e,
    };
    if in_namespace {
        return Decision::Fail(format!(
            "{test}: cannot mount a tmpfs even inside a user namespace ({here_err})"
        ));
    }
    let namespace_err = match namespace() {
        Ok(()) => return Decision::InNamespace,
        Err(e) => e,
    };
    let why = format!(
        "{test} needs a tmpfs: this process cannot mount one ({here_err}), nor can a user \
         namespace ({namespace_err}); run it as root or where unprivileged user namespaces \
         are allowed"
    );
    if ci {
        Decision::Fail(format!(
            "{why}. CI is set, so the test fails rather than pass without having run"
        ))
    } else {
        Decision::Skip(why)
    }
}

/// Whether the `CI` variable is set (to anything but empty, `0` or `false`).
fn ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !matches!(v.trim(), "" | "0" | "false"))
}

/// Mounts a 4 KiB tmpfs inside a fresh user and mount namespace and lets it go with it.
fn probe_namespace() -> Result<(), String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let out = Command::new("unshare")
        .args(["--user", "--map-root-user", "--mount"])
        .args(["mount", "-t", "tmpfs", "-o", "size=4k", "porfiry-probe"])
        .arg(dir.path())
        .output()
        .map_err(|e| format!("cannot run unshare: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "unshare --user --map-root-user --mount mount -t tmpfs: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(())
}

/// Runs the test `test` of this test binary again inside a user and mount namespace and
/// fails unless it ran there and passed.
fn run_in_namespace(test: &str) {
    let exe = std::env::current_exe().expect("the test binary's path");
    let out = Command::new("unshare")
        .args(["--user", "--map-root-user", "--mount"])
        .arg(&exe)
        .args([test, "--exact", "--nocapture", "--test-threads", "1"])
        .env(IN_NAMESPACE, "1")
        .output()
        .expect("unshare runs");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    eprintln!("{test}: ran inside a user and mount namespace:\n{stdout}{stderr}");
    assert!(
        out.status.success(),
        "{test} failed inside the namespace: {}",
        out.status
    );
    assert!(
        stdout.contains("test result: ok. 1 passed"),
        "{test} did not run inside the namespace:\n{stdout}"
    );
}

/// A tmpfs mounted with `options` for the test `test` (its function name), when its body
/// is to run in this process; `None` when it ran in a namespace child (and passed) or was
/// skipped outside CI. Fails the test where it must (see the module docs).
pub fn tmpfs_for(test: &str, options: &str) -> Option<Tmpfs> {
    let mut mounted = None;
    let here = Tmpfs::mount(options).map(|t| mounted = Some(t));
    let in_namespace = std::env::var_os(IN_NAMESPACE).is_some();
    match decide(test, here, in_namespace, probe_namespace, ci()) {
        Decision::Here => mounted,
        Decision::InNamespace => {
            run_in_namespace(test);
            None
        }
        Decision::Fail(why) => panic!("{why}"),
        Decision::Skip(why) => {
            eprintln!("SKIPPED {why}");
            None
        }
    }
}

#[test]
fn a_tmpfs_test_runs_where_it_can_and_fails_in_ci_where_it_cannot() {
    let refused = || Err::<(), _>("refused".to_string());
    let unreachable = || -> Result<(), String> { panic!("no probe needed") };
    assert_eq!(
        decide("t", Ok(()), false, unreachable, true),
        Decision::Here
    );
    assert_eq!(
        decide("t", Ok(()), true, unreachable, false),
        Decision::Here
    );
    assert_eq!(
        decide("t", refused(), false, || Ok(()), true),
        Decision::InNamespace
    );
    // Inside the namespace child a refused mount is a failure, never another re-run.
    assert!(matches!(
        decide("t", refused(), true, unreachable, false),
        Decision::Fail(m) if m.contains("inside a user namespace")
    ));
    // Nowhere to mount: CI fails the test, a workstation skips it; both say why.
    assert!(matches!(
        decide("t", refused(), false, refused, true),
        Decision::Fail(m) if m.contains("CI is set") && m.contains("refused")
    ));
    assert!(matches!(
        decide("t", refused(), false, refused, false),
        Decision::Skip(m) if m.starts_with("t needs a tmpfs") && m.contains("refused")
    ));
}
