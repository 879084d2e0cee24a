//! Load-time parameters of an engine, with documented defaults.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::chat::ChatFormat;

/// Data type of the KV cache (keys or values).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum KvType {
    /// 16-bit floats: llama.cpp's default, exact.
    F16,
    /// 32-bit floats: twice the memory of F16, for debugging.
    F32,
    /// 8-bit quantized: half the memory of F16, nearly lossless. Quantized values need flash
    /// attention, which llama.cpp enables automatically where it can.
    Q8_0,
    /// 4-bit quantized: a quarter of F16, noticeably lossy.
    Q4_0,
}

/// How the engine loads a model and sizes its context.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct EngineParams {
    /// Context size in tokens (KV cells shared by all sequences). Default 4096.
    pub n_ctx: u32,
    /// CPU threads for decode and prefill. Default `None`: the performance cores where the
    /// CPUs differ in speed (a phone's big and prime cores, its little ones left out:
    /// [`performance_cores`]), else the number of physical cores.
    pub threads: Option<u32>,
    /// CPU threads for prompt batches (prefill), when they should differ from `threads`
    /// (which then counts for one-token decodes only). Default `None`: `threads`.
    pub threads_batch: Option<u32>,
    /// Compute on persistent thread pools attached to the context, as llama-bench and
    /// llama-server do, instead of threads started for every graph. Default true.
    pub thread_pool: bool,
    /// Batch size: the most prompt tokens decoded per llama.cpp call (prefill chunk). Default
    /// 512. Cancel and deadline do not wait for a batch to end: llama.cpp's abort callback
    /// stops it within one graph node (the batch is then not kept).
    pub batch: u32,
    /// Keep the full KV cache on sliding-window-attention layers. Default `None`: on when the
    /// model has a sliding window (Gemma 3), because without it llama.cpp cannot truncate a
    /// sequence and every turn would be prefilled from scratch. Costs memory on SWA layers.
    pub swa_full: Option<bool>,
    /// KV cache key type. Default F16.
    pub kv_type_k: KvType,
    /// KV cache value type. Default F16.
    pub kv_type_v: KvType,
    /// Map the file instead of reading it into memory. Default true (fast load, shared pages).
    pub mmap: bool,
    /// Layers offloaded to a GPU (the `vulkan` and `opencl` features). Default `None`:
    /// llama.cpp's default, every layer when a backend found a GPU device (none on a CPU-only
    /// build); `Some(0)` keeps the weights on the CPU. What happened is in
    /// [`ModelInfo::gpu_layers`](crate::ModelInfo::gpu_layers).
    pub gpu_layers: Option<u32>,
    /// Chat format override (e.g. from the model manifest). Default `None`: detect from the
    /// GGUF metadata.
    pub chat_format: Option<ChatFormat>,
    /// Number of KV sequences (sessions kept in the cache at once). Default 1: every session
    /// shares one sequence and reuses the common prefix. More sequences share `n_ctx` cells.
    pub n_seq: u32,
    /// Where KV snapshots of the static prompt head are kept ([`Engine::prepare_head`]).
    /// Default `None`: heads are kept in memory only, and built again after a restart.
    ///
    /// [`Engine::prepare_head`]: crate::Engine::prepare_head
    pub snapshot_dir: Option<PathBuf>,
    /// SHA-256 of the model file (lowercase hex) when the caller already knows it (e.g. a
    /// verified download); snapshots are keyed by it. Default `None`: hashed once and cached
    /// in `snapshot_dir`.
    pub model_sha256: Option<String>,
    /// After a reply, decode the chat framing that opens the session's next message while
    /// idle (the user is speaking), so the next request prefills only the message and the
    /// framing that closes it. Default true.
    pub anticipate: bool,
    /// Reuse the cache across a removed span (a toolset switch removes the old state
    /// message): shift the tokens after it left instead of prefilling them again, when
    /// llama.cpp can shift this model's cache. An approximation — the shifted tokens were
    /// computed attending to the removed span — measured by `porfiry bench shift`.
    /// Default false.
    pub kv_shift: bool,
    /// The scheduling priority the compute threads ask for, as a nice value (-20 … 19; lower
    /// gets more CPU where other work shares the cores): set on the engine's worker thread
    /// before it starts the compute threads, which inherit it. A turn is work the user waits
    /// for, as a phone's foreground app is; a loop in the background is not. Default
    /// [`DEFAULT_NICE`]. `None` keeps what the process has; where the system refuses (an
    /// unprivileged desktop process may not lower its nice value) nothing changes, and
    /// [`ModelInfo::nice`](crate::ModelInfo::nice) says what the threads run at.
    pub nice: Option<i32>,
}

/// The nice value the compute threads ask for by default ([`EngineParams::nice`]): what
/// llama.cpp's own `--prio 1` ("medium") gives a process. Measured by `porfiry bench
/// contention` (BENCHMARKS.md, "A busy phone").
pub const DEFAULT_NICE: i32 = -5;

impl Default for EngineParams {
    fn default() -> Self {
        Self {
            n_ctx: 4096,
            threads: None,
            threads_batch: None,
            thread_pool: true,
            batch: 512,
            swa_full: None,
            kv_type_k: KvType::F16,
            kv_type_v: KvType::F16,
            mmap: true,
            gpu_layers: None,
            chat_format: None,
            n_seq: 1,
            snapshot_dir: None,
            model_sha256: None,
            anticipate: true,
            kv_shift: false,
            nice: Some(DEFAULT_NICE),
        }
    }
}

impl EngineParams {
    /// The thread count to use: `threads`, else the performance cores, else the physical
    /// core count.
    pub fn effective_threads(&self) -> u32 {
        self.threads
            .filter(|t| *t > 0)
            .or_else(performance_cores)
            .unwrap_or_else(physical_cores)
    }

    /// The thread count for prompt batches: `threads_batch`, else [`Self::effective_threads`].
    pub fn effective_threads_batch(&self) -> u32 {
        self.threads_batch
            .filter(|t| *t > 0)
            .unwrap_or_else(|| self.effective_threads())
    }
}

/// The CPUs this process may run on now: its scheduler affinity (`sched_getaffinity`), which
/// a phone's scheduler narrows when it moves an app between CPU sets (foreground, background)
/// and a host narrows with `taskset`; `None` where it cannot be read (then the core count
/// stands). Cheap (one system call): the engine asks before every request.
pub fn allowed_cpus() -> Option<u32> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        // SAFETY: `set` is a zeroed cpu_set_t that sched_getaffinity fills for this process
        // (pid 0); CPU_COUNT only reads it.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
                return None;
            }
            u32::try_from(libc::CPU_COUNT(&set)).ok().filter(|n| *n > 0)
        }
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        None
    }
}

/// Ask for nice value `nice` (clamped to -20 … 19) for the calling thread; threads it starts
/// afterwards inherit it. Returns the nice value the thread runs at afterwards — unchanged
/// where the system refused — or `None` where it cannot be read (no such notion here).
pub fn set_thread_nice(nice: i32) -> Option<i32> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        let nice = nice.clamp(-20, 19);
        // SAFETY: setpriority and getpriority take plain integers; on Linux `who` 0 with
        // PRIO_PROCESS is the calling thread (a nice value belongs to a thread there). A
        // refusal (EPERM, EACCES) leaves the value as it was, which is read back below.
        unsafe {
            let _ = libc::setpriority(libc::PRIO_PROCESS, 0, nice);
        }
        thread_nice()
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        let _ = nice;
        None
    }
}

/// The calling thread's nice value, `None` where it cannot be read.
pub fn thread_nice() -> Option<i32> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        // getpriority returns the nice value itself, and -1 both for nice -1 and for an
        // error: errno, cleared first, tells them apart.
        // SAFETY: errno is this thread's; getpriority takes plain integers.
        unsafe {
            #[cfg(target_os = "android")]
            let errno = libc::__errno();
            #[cfg(target_os = "linux")]
            let errno = libc::__errno_location();
            *errno = 0;
            let n = libc::getpriority(libc::PRIO_PROCESS, 0);
            (*errno == 0).then_some(n)
        }
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        None
    }
}

/// `wanted` threads fitted to the CPUs the process may run on ([`allowed_cpus`]): never
/// more threads than CPUs, since threads that wait for each other at every graph node lose
/// most of their time when two of them share one CPU.
pub fn fit_threads(wanted: u32, allowed: Option<u32>) -> u32 {
    allowed.map_or(wanted, |a| wanted.min(a)).max(1)
}

/// The kernel's CPU tables: `/sys/devices/system/cpu`.
pub const CPU_SYSFS: &str = "/sys/devices/system/cpu";

/// The performance cores of a CPU whose cores differ in speed (big.LITTLE phones, hybrid
/// desktops), from [`CPU_SYSFS`]: see [`performance_cores_in`]. `None` where every core is
/// alike or the tables are missing (then use [`physical_cores`]).
pub fn performance_cores() -> Option<u32> {
    let allowed = std::thread::available_parallelism().map_or(u32::MAX, |n| n.get() as u32);
    performance_cores_in(Path::new(CPU_SYSFS)).map(|n| n.min(allowed))
}

/// The performance cores under a sysfs CPU folder (`root` holds `cpu0/`, `cpu1/`, …): the
/// online CPUs whose speed — `cpu_capacity` (arm64, 0–1024) where every CPU has one, else
/// `cpufreq/cpuinfo_max_freq` — is above the slowest CPU's, counted once per physical core
/// (`topology/physical_package_id` + `topology/core_id`, so SMT siblings count once).
///
/// On a phone with 4 little, 3 big and 1 prime core that is 4: llama.cpp's threads wait for
/// each other at every graph node, so one thread on a little core slows all of them, and
/// the little cores add little. `None` when there are no such tables, when fewer than two
/// CPUs report a speed, or when every CPU is equally fast (a desktop or server: use
/// [`physical_cores`]). Unreadable or malformed files count as missing, never as an error.
pub fn performance_cores_in(root: &Path) -> Option<u32> {
    let online = std::fs::read_to_string(root.join("online"))
        .ok()
        .and_then(|list| parse_cpu_list(&list));
    let mut cpus: Vec<u32> = std::fs::read_dir(root)
        .ok()?
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name();
            let id = name.to_str()?.strip_prefix("cpu")?;
            id.parse::<u32>().ok()
        })
        .filter(|id| online.as_ref().is_none_or(|set| set.contains(id)))
        .collect();
    cpus.sort_unstable();
    let read = |cpu: u32, file: &str| -> Option<u64> {
        let text = std::fs::read_to_string(root.join(format!("cpu{cpu}")).join(file)).ok()?;
        text.trim().parse().ok()
    };
    let by = |file: &str| -> Option<Vec<(u32, u64)>> {
        cpus.iter()
            .map(|&c| read(c, file).filter(|v| *v > 0).map(|v| (c, v)))
            .collect()
    };
    let speeds = by("cpu_capacity").or_else(|| by("cpufreq/cpuinfo_max_freq"))?;
    if speeds.len() < 2 {
        return None;
    }
    let slowest = speeds.iter().map(|&(_, v)| v).min()?;
    let fast: Vec<u32> = speeds
        .iter()
        .filter(|&&(_, v)| v > slowest)
        .map(|&(c, _)| c)
        .collect();
    if fast.is_empty() {
        return None;
    }
    let cores: HashSet<(Option<u64>, Option<u64>, u32)> = fast
        .iter()
        .map(|&c| {
            let package = read(c, "topology/physical_package_id");
            match read(c, "topology/core_id") {
                Some(core) => (package, Some(core), 0),
                None => (package, None, c),
            }
        })
        .collect();
    u32::try_from(cores.len()).ok()
}

/// A kernel CPU list such as `0-3,5,7-8`; `None` when malformed.
fn parse_cpu_list(text: &str) -> Option<HashSet<u32>> {
    let mut set = HashSet::new();
    for part in text.trim().split(',').filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((lo, hi)) => {
                let (lo, hi): (u32, u32) = (lo.parse().ok()?, hi.parse().ok()?);
                if hi < lo || hi - lo > 4096 {
                    return None;
                }
                set.extend(lo..=hi);
            }
            None => {
                set.insert(part.parse().ok()?);
            }
        }
    }
    Some(set)
}

/// Number of physical CPU cores (Linux: distinct `physical id`/`core id` pairs in
/// `/proc/cpuinfo`); falls back to the logical CPU count where that is not available
/// (Android kernels usually do not list core ids).
pub fn physical_cores() -> u32 {
    let logical = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
    let Ok(info) = std::fs::read_to_string("/proc/cpuinfo") else {
        return logical;
    };
    let mut cores = std::collections::HashSet::new();
    let mut physical = String::new();
    for line in info.lines() {
        let Some((k, v)) = line.split_once(':') else {
            continue;
        };
        match k.trim() {
            "physical id" => physical = v.trim().to_owned(),
            "core id" => {
                cores.insert((physical.clone(), v.trim().to_owned()));
            }
            _ => {}
        }
    }
    if cores.is_empty() {
        logical
    } else {
        (cores.len() as u32).clamp(1, logical)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn physical_cores_is_within_logical() {
        let n = physical_cores();
        let logical = std::thread::available_parallelism().unwrap().get() as u32;
        assert!(n >= 1 && n <= logical, "{n} of {logical}");
    }

    #[test]
    fn a_thread_sets_its_own_nice_value_and_the_threads_it_starts_inherit_it() {
        let Some(main) = thread_nice() else {
            return; // no nice values on this system
        };
        // Asking for a higher value (less CPU) is always allowed.
        let (own, child) = std::thread::spawn(move || {
            let own = set_thread_nice(main + 3);
            let child = std::thread::spawn(thread_nice).join().ok().flatten();
            (own, child)
        })
        .join()
        .expect("the thread ran");
        let wanted = (main + 3).min(19);
        assert_eq!(own, Some(wanted));
        assert_eq!(child, Some(wanted), "a thread started later inherits it");
        assert_eq!(thread_nice(), Some(main), "the other threads keep theirs");
        // Out of range is clamped, not an error.
        let clamped = std::thread::spawn(|| set_thread_nice(99))
            .join()
            .ok()
            .flatten();
        assert_eq!(clamped, Some(19));
    }

    #[test]
    fn threads_never_outnumber_the_allowed_cpus() {
        assert_eq!(fit_threads(2, Some(1)), 1);
        assert_eq!(fit_threads(2, Some(8)), 2);
        assert_eq!(fit_threads(4, None), 4);
        assert_eq!(fit_threads(0, Some(2)), 1);
        let allowed = allowed_cpus().expect("this process may run somewhere");
        let logical = std::thread::available_parallelism().unwrap().get() as u32;
        assert!(allowed >= 1 && allowed <= logical, "{allowed} of {logical}");
    }

    #[test]
    fn explicit_threads_win() {
        let p = EngineParams {
            threads: Some(3),
            ..EngineParams::default()
        };
        assert_eq!(p.effective_threads(), 3);
        let p = EngineParams {
            threads: Some(0),
            ..EngineParams::default()
        };
        assert_eq!(
            p.effective_threads(),
            performance_cores().unwrap_or_else(physical_cores)
        );
    }

    /// A fake `/sys/devices/system/cpu`: one `(max kHz, capacity, core id)` per CPU.
    fn tree(
        cpus: &[(Option<u64>, Option<u64>, Option<u64>)],
        online: Option<&str>,
    ) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (i, (freq, capacity, core)) in cpus.iter().enumerate() {
            let cpu = dir.path().join(format!("cpu{i}"));
            std::fs::create_dir_all(cpu.join("cpufreq")).unwrap();
            std::fs::create_dir_all(cpu.join("topology")).unwrap();
            if let Some(f) = freq {
                std::fs::write(cpu.join("cpufreq/cpuinfo_max_freq"), format!("{f}\n")).unwrap();
            }
            if let Some(c) = capacity {
                std::fs::write(cpu.join("cpu_capacity"), format!("{c}\n")).unwrap();
            }
            if let Some(id) = core {
                std::fs::write(cpu.join("topology/core_id"), format!("{id}\n")).unwrap();
                std::fs::write(cpu.join("topology/physical_package_id"), "0\n").unwrap();
            }
        }
        // Folders the kernel keeps beside the CPUs.
        std::fs::create_dir_all(dir.path().join("cpufreq")).unwrap();
        std::fs::create_dir_all(dir.path().join("cpuidle")).unwrap();
        if let Some(list) = online {
            std::fs::write(dir.path().join("online"), list).unwrap();
        }
        dir
    }

    #[test]
    fn a_phone_counts_its_big_and_prime_cores() {
        // 4 × 1.8 GHz little, 3 × 2.4 GHz big, 1 × 3.0 GHz prime (arm64 lists each core alone).
        let mut cpus = vec![(Some(1_800_000), None, None); 4];
        cpus.extend(vec![(Some(2_400_000), None, None); 3]);
        cpus.push((Some(3_000_000), None, None));
        assert_eq!(
            performance_cores_in(tree(&cpus, Some("0-7\n")).path()),
            Some(4)
        );
        // 6 little + 2 big.
        let mut cpus = vec![(Some(2_000_000), None, None); 6];
        cpus.extend(vec![(Some(2_600_000), None, None); 2]);
        assert_eq!(performance_cores_in(tree(&cpus, None).path()), Some(2));
    }

    #[test]
    fn capacity_wins_over_frequency_where_every_cpu_has_one() {
        // Same top frequency, different capacity (a mid and a big cluster at one clock).
        let cpus = [
            (Some(2_000_000), Some(400), None),
            (Some(2_000_000), Some(400), None),
            (Some(2_000_000), Some(1024), None),
            (Some(2_000_000), Some(1024), None),
        ];
        assert_eq!(performance_cores_in(tree(&cpus, None).path()), Some(2));
        // One CPU without a capacity: the frequencies decide (all equal here).
        let cpus = [
            (Some(2_000_000), Some(400), None),
            (Some(2_000_000), None, None),
        ];
        assert_eq!(performance_cores_in(tree(&cpus, None).path()), None);
    }

    #[test]
    fn offline_cpus_and_smt_siblings_do_not_count() {
        // Hybrid desktop: 2 P-cores with 2 threads each (core ids 0, 1), 4 E-cores.
        let cpus = [
            (Some(5_000_000), None, Some(0)),
            (Some(5_000_000), None, Some(0)),
            (Some(5_000_000), None, Some(1)),
            (Some(5_000_000), None, Some(1)),
            (Some(3_800_000), None, Some(8)),
            (Some(3_800_000), None, Some(9)),
            (Some(3_800_000), None, Some(10)),
            (Some(3_800_000), None, Some(11)),
        ];
        assert_eq!(performance_cores_in(tree(&cpus, None).path()), Some(2));
        // A phone with its prime core offline (hot-unplugged): the big cluster is left.
        let mut cpus = vec![(Some(1_800_000), None, None); 4];
        cpus.extend(vec![(Some(2_400_000), None, None); 3]);
        cpus.push((Some(3_000_000), None, None));
        assert_eq!(
            performance_cores_in(tree(&cpus, Some("0-6")).path()),
            Some(3)
        );
    }

    #[test]
    fn alike_cores_missing_or_broken_tables_say_none() {
        let alike = vec![(Some(2_000_000), None, None); 4];
        assert_eq!(performance_cores_in(tree(&alike, None).path()), None);
        let missing = vec![(None, None, None); 4];
        assert_eq!(performance_cores_in(tree(&missing, None).path()), None);
        let one = [(Some(2_000_000), None, None)];
        assert_eq!(performance_cores_in(tree(&one, None).path()), None);
        let dir = tree(&[(Some(1), None, None), (Some(2), None, None)], None);
        std::fs::write(dir.path().join("cpu1/cpufreq/cpuinfo_max_freq"), "fast\n").unwrap();
        assert_eq!(performance_cores_in(dir.path()), None);
        assert_eq!(performance_cores_in(Path::new("/nonexistent/cpu")), None);
        // A malformed online list is ignored, not fatal.
        let mut cpus = vec![(Some(1_000), None, None); 2];
        cpus.push((Some(2_000), None, None));
        assert_eq!(
            performance_cores_in(tree(&cpus, Some("x-y")).path()),
            Some(1)
        );
    }

    #[test]
    fn cpu_lists_parse_as_the_kernel_writes_them() {
        let set = parse_cpu_list("0-3,5,7-8\n").unwrap();
        let mut v: Vec<u32> = set.into_iter().collect();
        v.sort_unstable();
        assert_eq!(v, [0, 1, 2, 3, 5, 7, 8]);
        assert!(parse_cpu_list("3-1").is_none());
        assert!(parse_cpu_list("a").is_none());
        assert_eq!(parse_cpu_list("").map(|s| s.len()), Some(0));
    }
}
