//! The phone scripts (`app-phone/scripts/`) on a machine without Android tools: shellcheck, the
//! exact plans their `--dry-run` prints, the messages for every missing input, and a real run
//! against a fake `adb` that records what it was asked to do.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const SCRIPTS: [&str; 4] = ["build-android", "push-model", "push-skills", "device-test"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn scripts_dir() -> PathBuf {
    root().join("app-phone/scripts")
}

/// A scratch directory under the target dir, fresh for each test.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("ffi-scripts")
        .join(name);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(path: &Path, bytes: &[u8]) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, bytes).unwrap();
}

fn write_exec(path: &Path, text: &str) {
    write(path, text.as_bytes());
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).unwrap();
}

/// A PATH holding only the ordinary tools the scripts use (so no real adb, cargo-ndk or rustup
/// of the machine leaks in), plus whatever the test puts there.
fn tool_dir(dir: &Path) -> PathBuf {
    let bin = dir.join("bin");
    fs::create_dir_all(&bin).unwrap();
    for tool in [
        "bash", "env", "dirname", "basename", "head", "tail", "tr", "awk", "sed", "grep", "find",
        "cat", "wc", "sort", "date", "mkdir", "uname", "cargo", "printf", "rm", "ls",
    ] {
        if let Some(found) = which(tool) {
            let _ = std::os::unix::fs::symlink(found, bin.join(tool));
        }
    }
    bin
}

fn which(tool: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(tool))
        .find(|p| p.is_file())
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run(script: &str, args: &[&str], path: &Path, envs: &[(&str, &str)]) -> Run {
    let mut cmd = Command::new(scripts_dir().join(script));
    cmd.args(args)
        .current_dir(root())
        .env_clear()
        .env("PATH", path)
        .env("HOME", std::env::var_os("HOME").unwrap_or_default());
    for (k, v) in envs {
        cmd.env(k, v);
    }
    let out: Output = cmd.output().expect("run script");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn plan(r: &Run) -> Vec<String> {
    r.stdout
        .lines()
        .filter_map(|l| l.strip_prefix("+ "))
        .map(str::to_owned)
        .collect()
}

fn assert_fails_with(r: &Run, needle: &str) {
    assert_eq!(
        r.code, 2,
        "expected exit 2; stdout:\n{}\nstderr:\n{}",
        r.stdout, r.stderr
    );
    assert!(
        r.stderr.contains(needle),
        "stderr should say {needle:?}; it was:\n{}",
        r.stderr
    );
    assert!(
        plan(r).is_empty(),
        "nothing may run after a failed check: {:?}",
        plan(r)
    );
}

fn fake_gguf(path: &Path) {
    let mut bytes = b"GGUF".to_vec();
    bytes.extend_from_slice(&[3, 0, 0, 0, 0, 0, 0, 0]);
    write(path, &bytes);
}

fn fake_ndk(dir: &Path) -> PathBuf {
    let ndk = dir.join("ndk");
    fs::create_dir_all(ndk.join("toolchains/llvm/prebuilt/linux-x86_64/bin")).unwrap();
    ndk
}

/// A fake adb: `devices` prints `listing`; every call is appended to `log`; `pull SRC DEST`
/// writes the result files a successful device run leaves.
fn fake_adb(bin: &Path, listing: &str, log: &Path) {
    let script = format!(
        r#"#!/usr/bin/env bash
printf '%s\n' "$*" >> '{log}'
if [ "$1" = "-s" ]; then shift 2; fi
case "$1" in
  devices) printf 'List of devices attached\n{listing}\n' ;;
  pull) dest="${{@: -1}}"; mkdir -p "$dest"; echo 0 > "$dest/scenario.exit"; echo 0 > "$dest/bench-dialogue.exit"
        printf 'PASS a\n1 passed, 0 failed\n' > "$dest/scenario.txt" ;;
esac
exit 0
"#,
        log = log.display(),
        listing = listing
    );
    write_exec(&bin.join("adb"), &script);
}

#[test]
fn shellcheck_passes_on_every_script() {
    let shellcheck = which("shellcheck").unwrap_or_else(|| {
        panic!("shellcheck is not installed: run scripts/prereqs.sh (Debian package shellcheck)")
    });
    let mut cmd = Command::new(shellcheck);
    cmd.current_dir(scripts_dir()).arg("-x").arg("lib.sh");
    cmd.args(SCRIPTS);
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "shellcheck found problems:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn every_script_is_executable_and_has_help() {
    let dir = scratch("help");
    let path = tool_dir(&dir);
    for s in SCRIPTS {
        let mode = fs::metadata(scripts_dir().join(s))
            .unwrap()
            .permissions()
            .mode();
        assert!(mode & 0o111 != 0, "{s} is not executable");
        let r = run(s, &["--help"], &path, &[]);
        assert_eq!(r.code, 0, "{s} --help: {}", r.stderr);
        assert!(
            r.stdout.contains("Usage: app-phone/scripts/"),
            "{s} --help:\n{}",
            r.stdout
        );
        assert!(r.stdout.contains("--dry-run"), "{s} --help lacks --dry-run");
        let r = run(s, &["--no-such-option"], &path, &[]);
        assert_fails_with(&r, "unknown");
    }
}

#[test]
fn build_android_dry_run_prints_the_exact_plan() {
    let dir = scratch("build-plan");
    let path = tool_dir(&dir);
    let ndk = fake_ndk(&dir);
    let ndk_s = ndk.to_str().unwrap();
    let r = run(
        "build-android",
        &["--dry-run"],
        &path,
        &[("ANDROID_NDK_ROOT", ndk_s)],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let jni = root().join("app-phone/app/src/main/jniLibs");
    let envs = format!(
        "env ANDROID_NDK_ROOT={ndk_s} ANDROID_NDK_HOME={ndk_s} \
         'CARGO_TARGET_AARCH64_LINUX_ANDROID_RUSTFLAGS=-C link-arg=-Wl,-z,max-page-size=16384' \
         GGML_CPU_ARM_ARCH=armv8.2-a+dotprod"
    );
    let prebuilt = format!("{ndk_s}/toolchains/llvm/prebuilt/linux-x86_64");
    assert_eq!(
        plan(&r),
        vec![
            format!(
                "{envs} cargo ndk -t arm64-v8a -P 28 -o {} build --release -p porfiry-ffi",
                jni.display()
            ),
            format!("{envs} cargo ndk -t arm64-v8a -P 28 build --release -p porfiry --bin porfiry"),
            format!(
                "cp {prebuilt}/sysroot/usr/lib/aarch64-linux-android/libc++_shared.so {}/arm64-v8a/libc++_shared.so",
                jni.display()
            ),
            format!("{prebuilt}/bin/llvm-readelf -lW {}/arm64-v8a/libporfiry.so", jni.display()),
        ]
    );
    // Without cargo-ndk and the Rust target on this machine the dry run says what a real run lacks.
    assert!(
        r.stderr.contains("dry run: would stop here: no cargo-ndk"),
        "{}",
        r.stderr
    );
}

#[test]
fn build_android_cpu_levels_api_and_abis() {
    let dir = scratch("build-cpu");
    let path = tool_dir(&dir);
    let ndk = fake_ndk(&dir);
    let env = [("ANDROID_NDK_ROOT", ndk.to_str().unwrap())];
    for (level, arch) in [
        ("baseline", "armv8-a"),
        ("dotprod", "armv8.2-a+dotprod"),
        ("i8mm", "armv8.2-a+dotprod+i8mm"),
    ] {
        let r = run(
            "build-android",
            &["--dry-run", "--cpu", level, "--no-cli"],
            &path,
            &env,
        );
        assert_eq!(r.code, 0, "{}", r.stderr);
        let p = plan(&r);
        assert_eq!(p.len(), 3, "--no-cli builds only the library: {p:?}");
        assert!(
            p[0].contains(&format!("GGML_CPU_ARM_ARCH={arch} ")),
            "{}",
            p[0]
        );
    }
    let r = run(
        "build-android",
        &[
            "--dry-run",
            "--abi",
            "x86_64",
            "--api",
            "30",
            "--debug",
            "--no-cli",
        ],
        &path,
        &env,
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let p = plan(&r);
    assert!(p[0].contains("cargo ndk -t x86_64 -P 30 -o "), "{}", p[0]);
    assert!(
        p[0].ends_with(" build -p porfiry-ffi"),
        "debug has no --release: {}",
        p[0]
    );
    assert!(
        !p[0].contains("GGML_CPU_ARM_ARCH"),
        "no ARM flags for x86_64: {}",
        p[0]
    );
    assert!(
        p[0].contains("CARGO_TARGET_X86_64_LINUX_ANDROID_RUSTFLAGS"),
        "{}",
        p[0]
    );

    assert_fails_with(
        &run("build-android", &["--dry-run", "--api", "21"], &path, &env),
        "llama.cpp needs API 28 or newer",
    );
    assert_fails_with(
        &run("build-android", &["--dry-run", "--cpu", "sve"], &path, &env),
        "unknown --cpu sve: use baseline, dotprod or i8mm",
    );
    assert_fails_with(
        &run(
            "build-android",
            &["--dry-run", "--abi", "armeabi-v7a"],
            &path,
            &env,
        ),
        "unsupported --abi armeabi-v7a",
    );
}

#[test]
fn build_android_says_what_is_missing() {
    let dir = scratch("build-missing");
    let path = tool_dir(&dir);
    let r = run("build-android", &[], &path, &[]);
    assert_fails_with(&r, "no NDK: set ANDROID_NDK_ROOT");
    assert!(
        r.stderr
            .contains("no cargo-ndk: install it with: cargo install cargo-ndk"),
        "{}",
        r.stderr
    );
    let r = run(
        "build-android",
        &[],
        &path,
        &[("ANDROID_NDK_ROOT", "/nonexistent/ndk")],
    );
    assert_fails_with(&r, "no NDK at /nonexistent/ndk");
}

#[test]
fn push_model_plans_and_input_checks() {
    let dir = scratch("push-model");
    let path = tool_dir(&dir);
    let model = dir.join("tiny model.gguf");
    fake_gguf(&model);
    let m = model.to_str().unwrap();
    let r = run("push-model", &["--dry-run", m], &path, &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        plan(&r),
        vec![
            "adb shell mkdir -p /data/local/tmp/porfiry/models".to_string(),
            format!("adb push '{m}' '/data/local/tmp/porfiry/models/tiny model.gguf'"),
        ]
    );
    let r = run(
        "push-model",
        &["--dry-run", "--app", "--serial", "R58M", m],
        &path,
        &[],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let p = plan(&r);
    assert_eq!(p.len(), 3, "{p:?}");
    assert!(p.iter().all(|l| l.starts_with("adb -s R58M ")), "{p:?}");
    assert!(p[2].contains("run-as app.porfiry.phone"), "{}", p[2]);

    assert_fails_with(&run("push-model", &[], &path, &[]), "no model given");
    assert_fails_with(
        &run(
            "push-model",
            &["--dry-run", "/nonexistent/x.gguf"],
            &path,
            &[],
        ),
        "no model: /nonexistent/x.gguf does not exist",
    );
    let not_gguf = dir.join("notes.gguf");
    write(&not_gguf, b"hello world");
    assert_fails_with(
        &run(
            "push-model",
            &["--dry-run", not_gguf.to_str().unwrap()],
            &path,
            &[],
        ),
        "is not a GGUF file",
    );
    // Real runs: no adb, then an adb without a device, an unauthorized one, several devices.
    assert_fails_with(&run("push-model", &[m], &path, &[]), "adb not found");
    let log = dir.join("adb.log");
    fake_adb(&path, "", &log);
    assert_fails_with(
        &run("push-model", &[m], &path, &[]),
        "no device: connect a phone",
    );
    fake_adb(&path, "R58M\tunauthorized", &log);
    assert_fails_with(&run("push-model", &[m], &path, &[]), "unauthorized");
    fake_adb(&path, "A1\tdevice\nB2\tdevice", &log);
    assert_fails_with(&run("push-model", &[m], &path, &[]), "several devices");
    assert_fails_with(
        &run("push-model", &["--serial", "C3", m], &path, &[]),
        "no device C3",
    );
}

#[test]
fn push_model_real_run_executes_exactly_the_plan() {
    let dir = scratch("push-model-real");
    let path = tool_dir(&dir);
    let model = dir.join("m.gguf");
    fake_gguf(&model);
    let log = dir.join("adb.log");
    fake_adb(&path, "R58M\tdevice", &log);
    let m = model.to_str().unwrap();
    let dry = run("push-model", &["--dry-run", "--app", m], &path, &[]);
    assert_eq!(
        fs::read_to_string(&log).unwrap_or_default(),
        "",
        "a dry run calls nothing"
    );
    let real = run("push-model", &["--app", m], &path, &[]);
    assert_eq!(real.code, 0, "{}", real.stderr);
    assert_eq!(plan(&dry), plan(&real));
    let calls: Vec<String> = fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(calls[0], "devices");
    assert_eq!(calls.len(), 1 + plan(&real).len(), "{calls:?}");
    assert_eq!(
        calls[2],
        format!("push {m} /data/local/tmp/porfiry/stage/m.gguf")
    );
}

#[test]
fn push_skills_plans_and_input_checks() {
    let dir = scratch("push-skills");
    let path = tool_dir(&dir);
    let skills = dir.join("skills");
    let toolsets = dir.join("toolsets");
    write(
        &skills.join("media.md"),
        "---\nname: media\n---\nbody".as_bytes(),
    );
    write(&toolsets.join("media.yaml"), b"name: media\n");
    let (s, t) = (skills.to_str().unwrap(), toolsets.to_str().unwrap());
    let r = run(
        "push-skills",
        &["--dry-run", "--skills", s, "--toolsets", t],
        &path,
        &[],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        plan(&r),
        vec![
            "adb shell rm -rf /data/local/tmp/porfiry/skills".to_string(),
            "adb shell mkdir -p /data/local/tmp/porfiry".to_string(),
            format!("adb push {s} /data/local/tmp/porfiry/skills"),
            "adb shell rm -rf /data/local/tmp/porfiry/toolsets".to_string(),
            "adb shell mkdir -p /data/local/tmp/porfiry".to_string(),
            format!("adb push {t} /data/local/tmp/porfiry/toolsets"),
        ]
    );
    let r = run(
        "push-skills",
        &["--dry-run", "--app", "--skills", s, "--toolsets", t],
        &path,
        &[],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let p = plan(&r);
    assert!(
        p.iter()
            .any(|l| l.contains("run-as app.porfiry.phone tar -C files/skills -xf -")),
        "{p:?}"
    );
    assert!(
        p.iter()
            .any(|l| l.contains("run-as app.porfiry.phone tar -C files/toolsets -xf -")),
        "{p:?}"
    );
    assert_eq!(
        p.last().unwrap(),
        "adb shell rm -rf /data/local/tmp/porfiry/stage"
    );

    let empty = dir.join("empty");
    fs::create_dir_all(&empty).unwrap();
    assert_fails_with(
        &run(
            "push-skills",
            &[
                "--dry-run",
                "--skills",
                empty.to_str().unwrap(),
                "--toolsets",
                t,
            ],
            &path,
            &[],
        ),
        "no skills: directory",
    );
    assert_fails_with(
        &run(
            "push-skills",
            &["--dry-run", "--skills", s, "--toolsets", "/nonexistent"],
            &path,
            &[],
        ),
        "no toolsets: directory /nonexistent does not exist",
    );
}

struct DeviceFixture {
    path: PathBuf,
    model: PathBuf,
    skills: PathBuf,
    toolsets: PathBuf,
    scenarios: PathBuf,
    binary: PathBuf,
    out: PathBuf,
}

fn device_fixture(name: &str) -> DeviceFixture {
    let dir = scratch(name);
    let path = tool_dir(&dir);
    let model = dir.join("models/g.gguf");
    fake_gguf(&model);
    let skills = dir.join("skills");
    write(&skills.join("media.md"), b"---\nname: media\n---\n");
    let toolsets = dir.join("toolsets");
    write(&toolsets.join("media.yaml"), b"name: media\n");
    let scenarios = dir.join("scenarios");
    write(&scenarios.join("b.yaml"), b"name: b\n");
    write(&scenarios.join("a.yaml"), b"name: a\n");
    // A fixture next to the scenarios is pushed but is not a scenario itself.
    write(&scenarios.join("fixtures/toolsets/x.yaml"), b"name: x\n");
    let binary = dir.join("android/porfiry");
    write(&binary, b"\x7fELF\x02\x01\x01");
    write(&dir.join("android/libc++_shared.so"), b"\x7fELF");
    DeviceFixture {
        path,
        model,
        skills,
        toolsets,
        scenarios,
        binary,
        out: dir.join("out"),
    }
}

fn device_args(f: &DeviceFixture) -> Vec<String> {
    [
        ("--model", &f.model),
        ("--skills", &f.skills),
        ("--toolsets", &f.toolsets),
        ("--scenarios", &f.scenarios),
        ("--binary", &f.binary),
        ("--out", &f.out),
    ]
    .iter()
    .flat_map(|(k, v)| [k.to_string(), v.to_str().unwrap().to_string()])
    .collect()
}

#[test]
fn device_test_dry_run_prints_the_exact_plan() {
    let f = device_fixture("device-plan");
    let mut args = vec![
        "--dry-run".to_string(),
        "--turns".to_string(),
        "12".to_string(),
    ];
    args.extend(device_args(&f));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let r = run("device-test", &args, &f.path, &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let d = "/data/local/tmp/porfiry";
    let env = format!("cd {d} && LD_LIBRARY_PATH={d} PORFIRY_MODELS={d}/models");
    let lib = f.binary.parent().unwrap().join("libc++_shared.so");
    assert_eq!(
        plan(&r),
        vec![
            format!("adb shell rm -rf {d}/skills {d}/toolsets {d}/scenarios {d}/results"),
            format!("adb shell mkdir -p {d}/models {d}/results"),
            format!("adb push {} {d}/porfiry", f.binary.display()),
            format!("adb push {} {d}/libc++_shared.so", lib.display()),
            format!("adb shell chmod 755 {d}/porfiry"),
            format!("adb push {} {d}/models/g.gguf", f.model.display()),
            format!("adb push {} {d}/skills", f.skills.display()),
            format!("adb push {} {d}/toolsets", f.toolsets.display()),
            format!("adb push {} {d}/scenarios", f.scenarios.display()),
            format!(
                "adb shell '{env} ./porfiry scenario scenarios/a.yaml scenarios/b.yaml > results/scenario.txt 2>&1; echo $? > results/scenario.exit'"
            ),
            format!(
                "adb shell '{env} ./porfiry bench dialogue --model {d}/models/g.gguf --json --turns 12 > results/bench-dialogue.json 2> results/bench-dialogue.log; echo $? > results/bench-dialogue.exit'"
            ),
            format!(
                "adb shell 'getprop ro.product.model > {d}/results/device.txt; getprop ro.build.version.release >> {d}/results/device.txt; cat /proc/cpuinfo | grep -m1 -i features >> {d}/results/device.txt'"
            ),
            format!("mkdir -p {}", f.out.display()),
            format!("adb pull {d}/results/. {}/", f.out.display()),
        ]
    );
    assert!(
        r.stderr
            .contains("dry run: adb and the device are not checked"),
        "{}",
        r.stderr
    );
}

#[test]
fn device_test_says_what_is_missing() {
    let f = device_fixture("device-missing");
    let base = device_args(&f);
    let with = |k: &str, v: &str| -> Vec<String> {
        let mut a = base.clone();
        let i = a.iter().position(|x| x == k).unwrap();
        a[i + 1] = v.to_string();
        a
    };
    let go = |a: Vec<String>| {
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        run("device-test", &a, &f.path, &[])
    };
    assert_fails_with(
        &go(with("--model", "/nonexistent/m.gguf")),
        "no model: /nonexistent/m.gguf",
    );
    assert_fails_with(
        &go(with("--scenarios", "/nonexistent")),
        "no scenarios: directory /nonexistent",
    );
    let empty = f.out.parent().unwrap().join("empty");
    fs::create_dir_all(&empty).unwrap();
    assert_fails_with(
        &go(with("--scenarios", empty.to_str().unwrap())),
        "has no *.yaml file",
    );
    assert_fails_with(
        &go(with("--skills", empty.to_str().unwrap())),
        "no skills: directory",
    );
    let r = go(with("--binary", "/nonexistent/porfiry"));
    assert_fails_with(
        &r,
        "no Android build of porfiry at /nonexistent/porfiry: run app-phone/scripts/build-android",
    );
    // Everything present but no adb on this machine.
    assert_fails_with(&go(base.clone()), "adb not found");
}

#[test]
fn device_test_real_run_against_a_fake_device() {
    let f = device_fixture("device-real");
    let log = f.out.parent().unwrap().join("adb.log");
    fake_adb(&f.path, "emulator-5554\tdevice", &log);
    let args = device_args(&f);
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    let r = run("device-test", &a, &f.path, &[]);
    assert_eq!(r.code, 0, "stdout:\n{}\nstderr:\n{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("scenario: exit 0"), "{}", r.stdout);
    assert!(r.stdout.contains("bench-dialogue: exit 0"), "{}", r.stdout);
    assert!(r.stdout.contains("1 passed, 0 failed"), "{}", r.stdout);
    let calls = fs::read_to_string(&log).unwrap();
    assert_eq!(
        calls.lines().count(),
        1 + plan(&r).len() - 1,
        "every adb step ran once (mkdir is local):\n{calls}"
    );
    // A failing scenario run makes the script fail.
    write(&f.path.join("adb"), b"");
    let failing = "#!/usr/bin/env bash\ncase \"$1\" in devices) printf 'List of devices attached\\nX\\tdevice\\n';; pull) d=\"${@: -1}\"; mkdir -p \"$d\"; echo 1 > \"$d/scenario.exit\"; echo 0 > \"$d/bench-dialogue.exit\"; echo '0 passed, 1 failed' > \"$d/scenario.txt\";; esac\n".to_string();
    write_exec(&f.path.join("adb"), &failing);
    let r = run("device-test", &a, &f.path, &[]);
    assert_eq!(r.code, 1, "{}\n{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("scenario: exit 1"), "{}", r.stdout);
}
