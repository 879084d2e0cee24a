//! Host tools with a deadline. Every host executor (the CLI's notes, the app's Java tools)
//! runs through [`TimedExecutor`]: the call runs on its own thread; if it does not answer in
//! time the model gets a tool error and the turn goes on (a late answer is dropped). A tool
//! that never returns costs its thread, never the turn. The wait also ends when the turn's
//! budget runs out ([`ToolInvocation::time_left`]) or the turn is cancelled (its cancel token,
//! looked at every 10 ms): a barge-in never waits for a hung tool. Every text the model reads
//! comes from the agent's message texts, in the agent's language.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::{bounded, RecvTimeoutError};
use porfiry_agent::{Args, CancelToken, Texts, ToolExecutor, ToolInvocation};

/// A host's tool implementation that takes the arguments as the model wrote them, positional
/// and `|`-separated (a Java `ToolExecutor` in the app). Runs on a helper thread; may block,
/// fail (→ [`HostFailure`]) or never return.
pub trait HostCall: Send + Sync + 'static {
    /// Runs `tool` with the positional argument text.
    ///
    /// # Errors
    /// Why the tool gave no result.
    fn call(&self, tool: &str, args: &str) -> Result<String, HostFailure>;
}

/// Why a host tool gave no result. [`TimedExecutor`] turns it into the tool reply the model
/// reads, through the agent's message texts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostFailure {
    /// The tool reported an error (a Java exception, an I/O error): its text, passed on as
    /// written.
    Threw(String),
    /// The tool returned nothing (a Java `null`).
    NoResult,
    /// The call itself failed in the host's machinery (a JNI error).
    Broken(String),
    /// The tool panicked (the panic message).
    Panicked(String),
}

/// Counts of host tool trouble, shared by every timed executor of a host.
#[derive(Debug, Default)]
pub struct ToolCounters {
    /// Calls that did not answer in time.
    pub timeouts: AtomicU64,
    /// Calls that failed (threw, returned nothing, broke, panicked, could not start).
    pub failures: AtomicU64,
}

impl ToolCounters {
    /// (timeouts, failures) so far.
    pub fn get(&self) -> (u64, u64) {
        (
            self.timeouts.load(Ordering::Relaxed),
            self.failures.load(Ordering::Relaxed),
        )
    }
}

/// How often a waiting [`TimedExecutor`] looks at the turn's cancel token.
const CANCEL_POLL: Duration = Duration::from_millis(10);

/// What a [`TimedExecutor`] runs: a positional [`HostCall`] or an agent [`ToolExecutor`].
enum Target {
    Host(Arc<dyn HostCall>),
    Tool(Arc<dyn ToolExecutor>),
}

/// A host tool with a deadline (see the module docs).
pub struct TimedExecutor {
    target: Target,
    timeout: Duration,
    texts: Texts,
    counters: Arc<ToolCounters>,
}

impl std::fmt::Debug for TimedExecutor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TimedExecutor")
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl TimedExecutor {
    /// A positional host call with `timeout`; failures worded by `texts`.
    pub fn host(
        host: Arc<dyn HostCall>,
        timeout: Duration,
        texts: Texts,
        counters: Arc<ToolCounters>,
    ) -> Self {
        Self {
            target: Target::Host(host),
            timeout,
            texts,
            counters,
        }
    }

    /// An agent executor (typed arguments) with `timeout`; failures worded by `texts`.
    pub fn tool(
        tool: Arc<dyn ToolExecutor>,
        timeout: Duration,
        texts: Texts,
        counters: Arc<ToolCounters>,
    ) -> Self {
        Self {
            target: Target::Tool(tool),
            timeout,
            texts,
            counters,
        }
    }

    /// The tool reply for a failure of `tool`.
    fn failure_text(&self, tool: &str, failure: HostFailure) -> String {
        match failure {
            HostFailure::Threw(text) => text,
            HostFailure::NoResult => self.texts.host_tool_no_result(tool),
            HostFailure::Broken(why) => self.texts.host_tool_call_failed(tool, &why),
            HostFailure::Panicked(msg) => self.texts.host_tool_panicked(&msg),
        }
    }
}

/// Scenario stand-ins timed as this host times its tools: each runs through a
/// [`TimedExecutor`] with `timeout` (so `tool_hangs` scenarios run: the hung stand-in
/// becomes a tool error after the timeout).
pub fn timed_scenario_tools(timeout: Duration) -> porfiry_agent::scenario::TimedTools {
    let counters = Arc::new(ToolCounters::default());
    porfiry_agent::scenario::TimedTools(Arc::new(move |tool, lang| {
        Arc::new(TimedExecutor::tool(
            tool,
            timeout,
            Texts::new(lang),
            counters.clone(),
        ))
    }))
}

/// The text of a panic payload.
pub(crate) fn panic_message(payload: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic".to_string()
    }
}

/// An owned copy of a call, for the tool's thread.
struct OwnedCall {
    session: String,
    toolset: String,
    tool: String,
    args: Args,
    cancel: CancelToken,
    time_left: Option<Duration>,
}

impl ToolExecutor for TimedExecutor {
    fn execute(&self, call: &ToolInvocation<'_>) -> Result<String, String> {
        let (tx, rx) = bounded(1);
        let job: Box<dyn FnOnce() -> Result<String, HostFailure> + Send> = match &self.target {
            Target::Host(host) => {
                // Positional: values in declaration order, `|`-separated, as the model wrote them.
                let args = call
                    .args
                    .iter()
                    .map(|(_, v)| v.to_string())
                    .collect::<Vec<_>>()
                    .join("|");
                let tool = call.tool.to_string();
                let host = host.clone();
                Box::new(move || host.call(&tool, &args))
            }
            Target::Tool(exec) => {
                let exec = exec.clone();
                let owned = OwnedCall {
                    session: call.session.to_string(),
                    toolset: call.toolset.to_string(),
                    tool: call.tool.to_string(),
                    args: call.args.clone(),
                    cancel: call.cancel.clone(),
                    time_left: call.time_left,
                };
                Box::new(move || {
                    exec.execute(&ToolInvocation {
                        session: &owned.session,
                        toolset: &owned.toolset,
                        tool: &owned.tool,
                        args: &owned.args,
                        cancel: &owned.cancel,
                        time_left: owned.time_left,
                    })
                    .map_err(HostFailure::Threw)
                })
            }
        };
        let spawned = std::thread::Builder::new()
            .name("porfiry-tool".into())
            .spawn(move || {
                let result = catch_unwind(AssertUnwindSafe(job))
                    .unwrap_or_else(|p| Err(HostFailure::Panicked(panic_message(&p))));
                let _ = tx.send(result);
            });
        if let Err(e) = spawned {
            self.counters.failures.fetch_add(1, Ordering::Relaxed);
            return Err(self.texts.host_tool_not_started(&e.to_string()));
        }
        // Wait for the tool, the timeout, the turn's budget or its cancel, whichever first.
        let wait = call.time_left.map_or(self.timeout, |t| t.min(self.timeout));
        let until = Instant::now() + wait;
        let result = loop {
            let left = until.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left.min(CANCEL_POLL)) {
                Err(RecvTimeoutError::Timeout) if call.cancel.is_cancelled() => {
                    return Err(self.texts.host_tool_stopped().to_string());
                }
                Err(RecvTimeoutError::Timeout) if !left.is_zero() => continue,
                other => break other,
            }
        };
        match result {
            Ok(Ok(text)) => Ok(text),
            Ok(Err(failure)) => {
                self.counters.failures.fetch_add(1, Ordering::Relaxed);
                Err(self.failure_text(call.tool, failure))
            }
            Err(RecvTimeoutError::Timeout) => {
                self.counters.timeouts.fetch_add(1, Ordering::Relaxed);
                Err(self.texts.host_tool_timeout(wait.as_millis()))
            }
            Err(RecvTimeoutError::Disconnected) => {
                self.counters.failures.fetch_add(1, Ordering::Relaxed);
                Err(self.texts.host_tool_vanished())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use porfiry_agent::Lang;

    struct Sleeps(Duration);
    impl ToolExecutor for Sleeps {
        fn execute(&self, call: &ToolInvocation<'_>) -> Result<String, String> {
            std::thread::sleep(self.0);
            Ok(format!("done {}", call.tool))
        }
    }

    fn run(exec: &TimedExecutor) -> Result<String, String> {
        run_with(exec, &CancelToken::new(), None)
    }

    fn run_with(
        exec: &TimedExecutor,
        cancel: &CancelToken,
        time_left: Option<Duration>,
    ) -> Result<String, String> {
        let args = Args::default();
        exec.execute(&ToolInvocation {
            session: "s",
            toolset: "notes",
            tool: "notes_list",
            args: &args,
            cancel,
            time_left,
        })
    }

    #[test]
    fn a_waiting_tool_stops_at_the_turn_budget_and_at_a_cancel() {
        let counters = Arc::new(ToolCounters::default());
        let hung = TimedExecutor::tool(
            Arc::new(Sleeps(Duration::from_secs(30))),
            Duration::from_secs(20),
            Texts::new(Lang::En),
            counters.clone(),
        );
        // The turn has 60 ms left: the wait is that, not the tool's 20 s timeout.
        let started = std::time::Instant::now();
        let err =
            run_with(&hung, &CancelToken::new(), Some(Duration::from_millis(60))).unwrap_err();
        assert_eq!(err, Texts::new(Lang::En).host_tool_timeout(60));
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "bounded by the budget"
        );
        // A cancel (the user spoke over the turn) ends the wait.
        let cancel = CancelToken::new();
        let flag = cancel.clone();
        let canceller = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(30));
            flag.cancel();
        });
        let started = std::time::Instant::now();
        let err = run_with(&hung, &cancel, None).unwrap_err();
        assert_eq!(err, Texts::new(Lang::En).host_tool_stopped());
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "not the 20 s timeout"
        );
        canceller.join().unwrap();
    }

    #[test]
    fn an_agent_executor_gets_a_deadline() {
        let counters = Arc::new(ToolCounters::default());
        let quick = TimedExecutor::tool(
            Arc::new(Sleeps(Duration::ZERO)),
            Duration::from_secs(5),
            Texts::new(Lang::En),
            counters.clone(),
        );
        assert_eq!(run(&quick).unwrap(), "done notes_list");
        let hung = TimedExecutor::tool(
            Arc::new(Sleeps(Duration::from_secs(30))),
            Duration::from_millis(50),
            Texts::new(Lang::En),
            counters.clone(),
        );
        let err = run(&hung).unwrap_err();
        assert_eq!(err, Texts::new(Lang::En).host_tool_timeout(50));
        assert_eq!(counters.get(), (1, 0));
    }

    #[test]
    fn errors_and_panics_of_an_agent_executor_are_tool_errors() {
        let counters = Arc::new(ToolCounters::default());
        let failing = TimedExecutor::tool(
            Arc::new(|_: &ToolInvocation<'_>| -> Result<String, String> {
                Err("disk full".into())
            }),
            Duration::from_secs(5),
            Texts::new(Lang::Ru),
            counters.clone(),
        );
        assert_eq!(run(&failing).unwrap_err(), "disk full");
        let panicking = TimedExecutor::tool(
            Arc::new(|_: &ToolInvocation<'_>| -> Result<String, String> { panic!("boom") }),
            Duration::from_secs(5),
            Texts::new(Lang::Ru),
            counters.clone(),
        );
        assert_eq!(
            run(&panicking).unwrap_err(),
            Texts::new(Lang::Ru).host_tool_panicked("boom")
        );
        assert_eq!(counters.get(), (0, 2));
    }
}
