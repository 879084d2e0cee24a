//! Time, injected: the agent reads the time only through a [`Clock`].
//!
//! Toolset deadlines and `get_current_time` use it; the prompt builder never sees it, so the
//! time can never leak into the prompt (a prompt that changes every second defeats the KV
//! cache — the "time in the prompt" failure class, BUG-7 in `docs/stability.md`).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::{DateTime, FixedOffset, Local, SecondsFormat};

/// A point in time with the UTC offset of the zone the clock reports in.
pub type Timestamp = DateTime<FixedOffset>;

/// A source of the current time.
pub trait Clock: Send + Sync {
    /// The current time, with the local offset.
    fn now(&self) -> Timestamp;
}

/// The machine's clock in the machine's local zone.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        Local::now().fixed_offset()
    }
}

/// A clock that moves only when told to: for tests, scenarios and benchmarks.
///
/// Clones share the same time, so a test can keep one clone and hand another to the agent.
#[derive(Debug, Clone)]
pub struct ManualClock(Arc<Mutex<Timestamp>>);

impl ManualClock {
    /// A clock standing at `start`; its offset is the zone it reports in.
    pub fn new(start: Timestamp) -> Self {
        ManualClock(Arc::new(Mutex::new(start)))
    }

    /// A clock standing at an RFC 3339 / ISO 8601 time such as `2026-08-22T10:00:00+03:00`.
    pub fn parse(text: &str) -> Result<Self, chrono::ParseError> {
        Ok(Self::new(DateTime::parse_from_rfc3339(text.trim())?))
    }

    /// Move the clock forward.
    pub fn advance(&self, by: Duration) {
        let by = chrono::Duration::from_std(by).unwrap_or(chrono::Duration::MAX);
        let mut now = self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        *now = now.checked_add_signed(by).unwrap_or(*now);
    }

    /// Put the clock at `to` (may go backwards).
    pub fn set(&self, to: Timestamp) {
        *self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = to;
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Timestamp {
        *self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// ISO 8601 with the clock's offset, to the second: `2026-08-22T10:00:00+03:00`.
pub fn iso8601(t: &Timestamp) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, false)
}

/// The error of [`parse_duration`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad duration {0:?} (expected e.g. 90s, 10m, 1h30m, 9m59s)")]
pub struct BadDuration(pub String);

/// Parse a duration written as numbers with units `h`, `m`, `s` (`9m59s`, `1h`, `90s`).
pub fn parse_duration(text: &str) -> Result<Duration, BadDuration> {
    let bad = || BadDuration(text.to_string());
    let s = text.trim();
    if s.is_empty() {
        return Err(bad());
    }
    let mut total: u64 = 0;
    let mut number: Option<u64> = None;
    for c in s.chars() {
        if let Some(d) = c.to_digit(10) {
            let n = number.unwrap_or(0);
            number = Some(
                n.checked_mul(10)
                    .and_then(|n| n.checked_add(u64::from(d)))
                    .ok_or_else(bad)?,
            );
            continue;
        }
        let unit = match c {
            'h' => 3600,
            'm' => 60,
            's' => 1,
            _ => return Err(bad()),
        };
        let n = number.take().ok_or_else(bad)?;
        total = n
            .checked_mul(unit)
            .and_then(|x| total.checked_add(x))
            .ok_or_else(bad)?;
    }
    if number.is_some() {
        return Err(bad());
    }
    Ok(Duration::from_secs(total))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        let table: &[(&str, Option<u64>)] = &[
            ("9m59s", Some(599)),
            ("10m", Some(600)),
            ("1h30m", Some(5400)),
            ("90s", Some(90)),
            (" 2h ", Some(7200)),
            ("0s", Some(0)),
            ("", None),
            ("10", None),
            ("m", None),
            ("5d", None),
            ("1m 2s", None),
            ("99999999999999999999h", None),
        ];
        for (text, want) in table {
            assert_eq!(
                parse_duration(text).ok().map(|d| d.as_secs()),
                *want,
                "{text:?}"
            );
        }
    }

    #[test]
    fn manual_clock_keeps_its_offset_and_advances() {
        let c = ManualClock::parse("2026-08-22T10:00:00+03:00").unwrap();
        let shared = c.clone();
        c.advance(Duration::from_secs(599));
        assert_eq!(iso8601(&shared.now()), "2026-08-22T10:09:59+03:00");
        c.advance(Duration::from_secs(3600 * 14));
        assert_eq!(iso8601(&c.now()), "2026-08-23T00:09:59+03:00");
        assert!(ManualClock::parse("yesterday").is_err());
    }

    #[test]
    fn system_clock_formats_with_an_offset() {
        let text = iso8601(&SystemClock.now());
        let back = DateTime::parse_from_rfc3339(&text).unwrap();
        assert_eq!(iso8601(&back), text);
    }
}
