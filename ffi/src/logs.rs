//! The bridge's one `tracing` set-up: on Android every log line goes to logcat (tag
//! `porfiry`), elsewhere (the JVM tests) to stderr. The engine routes llama.cpp's own lines into
//! `tracing`, so they land here too. Quiet by default (Porfiry's warnings, llama.cpp's errors);
//! `PORFIRY_LOG` takes a `RUST_LOG`-style filter (e.g. `debug`).

use std::io::Write;
use std::sync::Once;

/// The filter used when `PORFIRY_LOG` is not set.
const DEFAULT_FILTER: &str =
    "error,porfiry=warn,porfiry_runtime=warn,porfiry_engine=warn,porfiry_agent=warn";

/// Installs the subscriber once per process (later calls do nothing; a subscriber the host
/// installed first wins).
pub(crate) fn init() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let filter = std::env::var("PORFIRY_LOG").unwrap_or_else(|_| DEFAULT_FILTER.to_string());
        let filter = tracing_subscriber::EnvFilter::try_new(&filter)
            .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(DEFAULT_FILTER));
        let _ = tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_ansi(false)
            .with_writer(|| LineWriter(Vec::new()))
            .try_init();
    });
}

/// Collects one formatted event and hands it to the platform's log when dropped.
struct LineWriter(Vec<u8>);

impl Write for LineWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for LineWriter {
    fn drop(&mut self) {
        let line = String::from_utf8_lossy(&self.0);
        let line = line.trim_end();
        if !line.is_empty() {
            emit(line);
        }
    }
}

#[cfg(target_os = "android")]
fn emit(line: &str) {
    use std::ffi::CString;
    use std::os::raw::{c_char, c_int};
    #[link(name = "log")]
    extern "C" {
        fn __android_log_write(prio: c_int, tag: *const c_char, text: *const c_char) -> c_int;
    }
    const ANDROID_LOG_INFO: c_int = 4;
    let tag = c"porfiry";
    // A NUL inside the text would end it early: replace it.
    let text = CString::new(line.replace('\0', " ")).unwrap_or_default();
    // SAFETY: both pointers are valid NUL-terminated strings for the duration of the call.
    unsafe {
        __android_log_write(ANDROID_LOG_INFO, tag.as_ptr(), text.as_ptr());
    }
}

#[cfg(not(target_os = "android"))]
fn emit(line: &str) {
    let _ = writeln!(std::io::stderr(), "porfiry: {line}");
}
