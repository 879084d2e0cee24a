//! How many threads compute, chosen by what they achieve ([`ThreadChooser`]).
//!
//! llama.cpp's compute threads meet at a barrier after every graph node — hundreds of times
//! per token. Where ggml's own thread pool runs the graph (llama.cpp built without OpenMP,
//! as it always is on Android) a thread that reaches the barrier first spins until the others
//! arrive; OpenMP's threads spin for a while too, unless told to wait passively. On a quiet
//! machine that costs nothing. When other work shares the cores the scheduler parks one
//! thread for a whole time slice while its sibling spins at the barrier: measured on a 2-core
//! machine under five CPU-bound processes per core, the scripted dialogue took 46.4 s on two
//! threads of ggml's pool and 5.1 s on one thread. One thread has no barrier to wait at.
//!
//! So the engine treats the thread count as a choice between two arms — all the threads it
//! may use, or one — and measures both: one chooser on the one-token decodes of replies,
//! another on batches (prefill, work ahead; their time per token), since the two suffer
//! differently. Each arm keeps a moving average of its step time, the
//! faster one is used, and the other is tried again for a few steps after a while (sooner
//! after the choice changed, up to [`MAX_INTERVAL`] steps while it holds). A step on the arm
//! in use that takes [`SWITCH_RATIO`] times the other arm's average switches at once, so a
//! sudden load costs a few slow steps, not a reply.

/// Steps an arm is tried for when it is explored.
pub(crate) const PROBE_STEPS: u32 = 3;
/// Steps on the first arm before the other is tried for the first time: early, so a
/// process that starts on a busy machine (or answers in a few words) learns both soon.
pub(crate) const FIRST_TRY: u32 = 4;
/// Steps on the chosen arm before the other is tried again, right after a change.
pub(crate) const MIN_INTERVAL: u32 = 32;
/// Most steps between tries while the choice holds (the interval doubles each time a try
/// confirms it).
pub(crate) const MAX_INTERVAL: u32 = 512;
/// A step on the arm in use this many times slower than the other arm's average switches
/// at once; this many times slower than its own average, the other arm is tried at once.
pub(crate) const SWITCH_RATIO: f64 = 2.0;
/// How much faster (a share of the chosen arm's step time) the other arm must be at the end
/// of a try to be chosen.
pub(crate) const SETTLE_MARGIN: f64 = 0.15;
/// Weight of a new step in an arm's moving average.
const ALPHA: f64 = 0.3;

/// One thread count and what it achieved.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Arm {
    threads: u32,
    /// Moving average of its step time, ms; `None` until measured.
    step_ms: Option<f64>,
}

/// The thread count to compute on, chosen between all the allowed threads and one by the
/// step times each achieved (see the module documentation). Pure logic: the worker reports
/// each one-token decode's time and applies [`ThreadChooser::threads`].
#[derive(Debug, Clone)]
pub(crate) struct ThreadChooser {
    /// `[all, one]`, or `[one]` when only one thread is allowed.
    arms: Vec<Arm>,
    /// The arm chosen.
    current: usize,
    /// The arm being tried and the steps left to try it.
    probing: Option<(usize, u32)>,
    /// The sum of the try's steps so far (a try's result is their mean, so one lucky step
    /// does not decide it).
    probe_sum: f64,
    /// Steps on the chosen arm until the other is tried.
    explore_in: u32,
    /// The current distance between tries.
    interval: u32,
}

impl ThreadChooser {
    /// A chooser that starts on `max` threads.
    pub(crate) fn new(max: u32) -> Self {
        let mut c = Self {
            arms: Vec::new(),
            current: 0,
            probing: None,
            probe_sum: 0.0,
            explore_in: FIRST_TRY,
            interval: MIN_INTERVAL,
        };
        c.set_max(max);
        c
    }

    /// The threads to compute on now.
    pub(crate) fn threads(&self) -> u32 {
        let arm = self.probing.map_or(self.current, |(a, _)| a);
        self.arms.get(arm).map_or(1, |a| a.threads)
    }

    /// The most threads allowed now (the CPUs the process may run on). A change keeps
    /// what was measured of one thread and starts the other arm afresh.
    pub(crate) fn set_max(&mut self, max: u32) {
        let max = max.max(1);
        if self.arms.first().map(|a| a.threads) == Some(max) {
            return;
        }
        let one = self
            .arms
            .iter()
            .find(|a| a.threads == 1)
            .copied()
            .unwrap_or(Arm {
                threads: 1,
                step_ms: None,
            });
        self.arms = if max == 1 {
            vec![one]
        } else {
            vec![
                Arm {
                    threads: max,
                    step_ms: None,
                },
                one,
            ]
        };
        self.current = 0;
        self.probing = None;
        self.interval = MIN_INTERVAL;
        self.explore_in = FIRST_TRY;
    }

    /// A one-token decode on [`ThreadChooser::threads`] took `ms`.
    pub(crate) fn observe_step(&mut self, ms: f64) {
        if !(ms.is_finite() && ms >= 0.0) || self.arms.len() < 2 {
            return;
        }
        let in_use = self.probing.map_or(self.current, |(a, _)| a);
        let other = 1 - in_use;
        let own = self.arms[in_use].step_ms;
        let arm = &mut self.arms[in_use];
        match self.probing {
            // A try measures the present: its mean replaces what the arm did long ago.
            Some((a, left)) if left > 1 => {
                self.probe_sum += ms;
                self.probing = Some((a, left - 1));
            }
            Some(_) => {
                arm.step_ms = Some((self.probe_sum + ms) / f64::from(PROBE_STEPS));
                self.probe_sum = 0.0;
                self.probing = None;
                self.settle();
            }
            None => {
                arm.step_ms = Some(arm.step_ms.map_or(ms, |m| m + ALPHA * (ms - m)));
                let sudden = self.arms[other]
                    .step_ms
                    .is_some_and(|o| ms > SWITCH_RATIO * o);
                let slowed = own.is_some_and(|m| ms > SWITCH_RATIO * m);
                if sudden {
                    self.current = other;
                    self.interval = MIN_INTERVAL;
                    self.explore_in = MIN_INTERVAL;
                } else if slowed || self.explore_in <= 1 {
                    self.probing = Some((other, PROBE_STEPS));
                    self.probe_sum = 0.0;
                } else {
                    self.explore_in -= 1;
                }
            }
        }
    }

    /// After a try: keep the faster arm; the interval doubles when the choice held.
    fn settle(&mut self) {
        let other = 1 - self.current;
        let faster = match (self.arms[self.current].step_ms, self.arms[other].step_ms) {
            // The other arm must be clearly faster: on a busy machine step times scatter,
            // and every change costs steps on the worse arm before it is undone.
            (Some(now), Some(then)) if then < now * (1.0 - SETTLE_MARGIN) => other,
            _ => self.current,
        };
        if faster == self.current {
            self.interval = (self.interval * 2).min(MAX_INTERVAL);
        } else {
            self.current = faster;
            self.interval = MIN_INTERVAL;
        }
        self.explore_in = self.interval;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feed steps whose time depends on the thread count.
    fn run(c: &mut ThreadChooser, steps: usize, mut ms: impl FnMut(u32) -> f64) -> Vec<u32> {
        (0..steps)
            .map(|_| {
                let t = c.threads();
                c.observe_step(ms(t));
                t
            })
            .collect()
    }

    #[test]
    fn a_quiet_machine_keeps_every_thread_and_tries_one_ever_more_rarely() {
        let mut c = ThreadChooser::new(2);
        let used = run(&mut c, 4_000, |t| if t == 2 { 14.0 } else { 21.0 });
        let on_one = used.iter().filter(|t| **t == 1).count();
        assert_eq!(c.threads(), 2);
        // Tries after 4, then 64, 128, 256, 512, 512… steps apart, three steps each.
        assert!(on_one <= 3 * 12, "{on_one} steps on one thread");
        assert!(on_one >= 3 * 5, "it keeps trying: {on_one}");
    }

    #[test]
    fn spinning_threads_on_shared_cores_fall_back_to_one_and_come_back_when_it_is_quiet() {
        let mut c = ThreadChooser::new(2);
        run(&mut c, 100, |t| if t == 2 { 14.0 } else { 21.0 });
        // Load arrives: two threads crawl, one thread is slowed by its share only.
        let loaded = run(&mut c, 600, |t| if t == 2 { 120.0 } else { 32.0 });
        assert_eq!(c.threads(), 1);
        let slow = loaded.iter().filter(|t| **t == 2).count();
        assert!(slow <= 3 * 6 + 1, "{slow} steps on two threads under load");
        // The first slow step switches at once (one thread's average is known).
        assert_eq!(loaded[1], 1, "{:?}", &loaded[..4]);
        // The load is gone: the next try of two threads brings them back.
        let quiet = run(&mut c, 1_200, |t| if t == 2 { 14.0 } else { 21.0 });
        assert_eq!(c.threads(), 2);
        assert!(quiet.iter().filter(|t| **t == 1).count() < 600);
    }

    #[test]
    fn a_process_that_starts_on_a_busy_machine_learns_within_a_short_reply() {
        let mut c = ThreadChooser::new(2);
        let used = run(&mut c, 12, |t| if t == 2 { 300.0 } else { 40.0 });
        assert_eq!(c.threads(), 1, "{used:?}");
        assert!(used[8..].iter().all(|t| *t == 1), "{used:?}");
    }

    #[test]
    fn a_sudden_slowdown_tries_the_other_arm_at_once() {
        let mut c = ThreadChooser::new(2);
        // Quiet long enough that the next scheduled try is far off.
        run(&mut c, 300, |t| if t == 2 { 14.0 } else { 21.0 });
        let used = run(&mut c, 8, |t| if t == 2 { 100.0 } else { 30.0 });
        assert_eq!(c.threads(), 1, "{used:?}");
    }

    #[test]
    fn scattered_steps_on_a_busy_machine_do_not_lure_it_back_to_every_thread() {
        let mut c = ThreadChooser::new(2);
        let mut k = 0u32;
        // Two threads: now and then a lucky step, mostly a crawl; one thread: steady.
        let used = run(&mut c, 2_000, |t| {
            k += 1;
            match t {
                2 if k % 3 == 0 => 20.0,
                2 => 300.0,
                _ => 60.0,
            }
        });
        let on_all = used.iter().filter(|t| **t == 2).count();
        assert!(on_all < 100, "{on_all} of 2,000 steps on two threads");
    }

    #[test]
    fn one_allowed_cpu_means_one_thread_and_nothing_to_try() {
        let mut c = ThreadChooser::new(4);
        run(&mut c, 50, |t| 10.0 / f64::from(t));
        c.set_max(1);
        assert_eq!(c.threads(), 1);
        assert_eq!(run(&mut c, 100, |_| 5.0), vec![1; 100]);
        c.set_max(2);
        assert_eq!(c.threads(), 2, "more CPUs again: all of them first");
    }

    #[test]
    fn nonsense_times_are_ignored() {
        let mut c = ThreadChooser::new(2);
        for ms in [f64::NAN, f64::INFINITY, -1.0] {
            c.observe_step(ms);
        }
        assert_eq!(c.arms[0].step_ms, None);
        assert_eq!(c.threads(), 2);
    }
}
