//! Porfiry's JNI bridge: `libporfiry.so`, the native side of the app's
//! `app.porfiry.core.PorfiryNative` binding class (`app-phone/core/`).
//!
//! # How it fits
//!
//! The bridge is a thin JNI layer over `porfiry-runtime`: it converts arguments, calls the
//! runtime and turns errors into Java exceptions. Everything else — the worker thread, the
//! job queue, cancel tokens, sentences, timed host tools, the `onDone` JSON — is the
//! runtime's [`porfiry_runtime::Service`].
//!
//! - A Java `long` handle names a service in a registry (`registry`): an `Arc` per handle,
//!   handles never reused. Bad, stale or closed handles are `IllegalStateException`s.
//! - `open(optionsJson)` (`options`: model, the user's skill and toolset folders over the
//!   built-in ones, context, threads, sessions, language, chat format, data and snapshot
//!   folders) opens a [`porfiry_runtime::Runtime`] and starts its service; `create(...)` is
//!   `open` with the old positional arguments (head snapshots beside the model);
//!   `createScripted` puts a scripted model (`script`, paced) under the same agent.
//! - Events of a turn go to the Java listener (`JavaSink`) from the worker thread; host
//!   tools (`registerToolset`) are Java `ToolExecutor`s (`JavaTool`) run by the runtime's
//!   timed executor. `endSession` ends a conversation (history and KV cache).
//!
//! # Safety at the boundary
//!
//! - Every export runs in `EnvUnowned::with_env`, which catches panics; errors and panics are
//!   thrown as Java exceptions by one policy (`boundary::ThrowBridgeError`).
//! - Java exceptions thrown by listeners come back as caught errors, are counted
//!   (`listener_errors` in `stats`) and do not stop the turn.
//! - The worker thread attaches once (named `porfiry-worker`) and is detached when it ends,
//!   which `close` waits for; tool threads attach for the call only (`porfiry-tool`).
//! - No Rust lock is held while Java code runs, so a listener may call back into the bridge
//!   (`cancel`, `stats`, even `close`).
//! - Java strings enter Rust as their UTF-16 units (`GetStringRegion`): U+0000 and surrogate
//!   pairs arrive as themselves, an unpaired surrogate as one U+FFFD, at any length. Rust
//!   strings go out through the jni crate's modified-UTF-8 conversion.
//!
//! The mechanics are tested on a real JVM by `tests/jvm.rs`, which compiles the app's core
//! module and Java drivers with `javac` and runs them with `java -Xcheck:jni`.
#![deny(missing_docs)]

mod args;
mod boundary;
mod catalog;
mod error;
mod java_host;
mod jni_api;
mod jni_catalog;
mod logs;
mod options;
mod registry;
mod script;
