//! Getting a wheel onto the disk: the [`Downloader`] trait and its real implementation,
//! [`PipDownloader`], which runs the ordinary Python package client.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// Environment variable naming the Python interpreter to run pip with (default `python3`).
pub const PYTHON_ENV: &str = "PORFIRY_PYTHON";

/// Why a download failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DownloadError {
    /// The download tool itself is missing or broken.
    Unavailable(String),
    /// The tool ran and failed.
    Failed {
        /// Exit status as text.
        status: String,
        /// The last lines of the tool's output.
        output: String,
    },
    /// The tool succeeded but no wheel appeared.
    NoWheel,
}

/// Something that puts the wheel of a pip requirement into a directory.
///
/// The store calls [`Downloader::check`] once before a fetch, then [`Downloader::download`] once
/// per part, each time with a fresh, empty `dest`.
pub trait Downloader: Send + Sync {
    /// The command this downloader runs, for messages (e.g. `python3 -m pip`).
    fn tool(&self) -> String;
    /// Whether the tool works at all (so a missing tool is reported before anything starts).
    fn check(&self) -> Result<(), DownloadError>;
    /// Download the wheel of `requirement` into `dest` and return its path. Calls `on_bytes`
    /// with the number of bytes downloaded so far, when it can tell.
    fn download(
        &self,
        requirement: &str,
        dest: &Path,
        on_bytes: &mut dyn FnMut(u64),
    ) -> Result<PathBuf, DownloadError>;
}

/// Runs `<python> -m pip download --no-deps -d <dest> <requirement>`.
///
/// pip's own progress bar is off; progress is measured by watching the size of pip's temporary
/// directory (pointed at `dest` through `TMPDIR`) and of `dest` itself.
#[derive(Debug, Clone)]
pub struct PipDownloader {
    /// The interpreter to run (`python3` unless `$PORFIRY_PYTHON` says otherwise).
    pub python: String,
}

impl Default for PipDownloader {
    fn default() -> Self {
        let python = std::env::var(PYTHON_ENV)
            .ok()
            .filter(|p| !p.trim().is_empty())
            .unwrap_or_else(|| "python3".to_string());
        Self { python }
    }
}

impl Downloader for PipDownloader {
    fn tool(&self) -> String {
        format!("{} -m pip", self.python)
    }

    fn check(&self) -> Result<(), DownloadError> {
        let out = Command::new(&self.python)
            .args(["-m", "pip", "--version"])
            .stdin(Stdio::null())
            .output()
            .map_err(|e| {
                DownloadError::Unavailable(format!("cannot run `{}`: {e}", self.python))
            })?;
        if out.status.success() {
            Ok(())
        } else {
            Err(DownloadError::Unavailable(tail(
                &String::from_utf8_lossy(&out.stderr),
                3,
            )))
        }
    }

    fn download(
        &self,
        requirement: &str,
        dest: &Path,
        on_bytes: &mut dyn FnMut(u64),
    ) -> Result<PathBuf, DownloadError> {
        let io_err = |e: std::io::Error| DownloadError::Failed {
            status: "not started".into(),
            output: e.to_string(),
        };
        let wheels = dest.join("wheels");
        let tmp = dest.join("tmp");
        std::fs::create_dir_all(&wheels).map_err(io_err)?;
        std::fs::create_dir_all(&tmp).map_err(io_err)?;
        let log_path = dest.join("pip.log");
        let log = File::create(&log_path).map_err(io_err)?;
        let log2 = log.try_clone().map_err(io_err)?;
        let mut child = Command::new(&self.python)
            .args([
                "-m",
                "pip",
                "download",
                "--no-deps",
                "--only-binary=:all:",
                "--no-cache-dir",
                "--disable-pip-version-check",
                "--no-input",
                "--progress-bar",
                "off",
                "--retries",
                "3",
                "--timeout",
                "60",
                "-d",
            ])
            .arg(&wheels)
            .arg(requirement)
            .env("TMPDIR", &tmp)
            .stdin(Stdio::null())
            .stdout(Stdio::from(log))
            .stderr(Stdio::from(log2))
            .spawn()
            .map_err(|e| {
                DownloadError::Unavailable(format!("cannot run `{}`: {e}", self.python))
            })?;
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) => {
                    on_bytes(tree_size(&tmp).max(tree_size(&wheels)));
                    std::thread::sleep(Duration::from_millis(250));
                }
                Err(e) => {
                    return Err(DownloadError::Failed {
                        status: "unknown".into(),
                        output: e.to_string(),
                    })
                }
            }
        };
        if !status.success() {
            let output = std::fs::read_to_string(&log_path).unwrap_or_default();
            return Err(DownloadError::Failed {
                status: status.to_string(),
                output: tail(&output, 12),
            });
        }
        let wheel = std::fs::read_dir(&wheels)
            .map_err(io_err)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .find(|p| p.extension().is_some_and(|x| x == "whl"))
            .ok_or(DownloadError::NoWheel)?;
        on_bytes(tree_size(&wheels));
        Ok(wheel)
    }
}

/// Total size of the regular files under `dir` (0 when it cannot be read).
fn tree_size(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .filter_map(|e| e.ok())
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => tree_size(&e.path()),
            Ok(t) if t.is_file() => e.metadata().map(|m| m.len()).unwrap_or(0),
            _ => 0,
        })
        .sum()
}

/// The last `n` non-empty lines of `text`.
fn tail(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tail_keeps_the_last_non_empty_lines() {
        assert_eq!(tail("a\n\nb\nc\n\n", 2), "b\nc");
        assert_eq!(tail("", 3), "");
        assert_eq!(tail("x", 3), "x");
    }

    #[test]
    fn tree_size_counts_nested_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("a")).unwrap();
        std::fs::write(dir.path().join("a/one"), [0u8; 10]).unwrap();
        std::fs::write(dir.path().join("two"), [0u8; 5]).unwrap();
        assert_eq!(tree_size(dir.path()), 15);
        assert_eq!(tree_size(&dir.path().join("absent")), 0);
    }
}
