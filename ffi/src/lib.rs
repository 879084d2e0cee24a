//! Porfiry's JNI bridge: `libporfiry.so`, the native side of the app's
//! `app.porfiry.core.PorfiryNative` binding class (`app-phone/core/`).
//!
//! # How it fits
//!
//! - A Java `long` handle names an assistant in a registry (`registry`): an `Arc` per
//!   handle, handles never reused. Bad, stale or closed handles are `IllegalStateException`s.
//! - An assistant (`assistant`) is an [`porfiry_agent::Agent`] and a model (the llama.cpp
//!   [`porfiry_engine::EngineModel`], or a scripted model for tests) owned by **one worker
//!   thread** that serves a FIFO job queue: turns, executor registrations, prompt requests.
//!   Turns run one at a time in send order, whatever session they belong to — the engine is one
//!   llama.cpp context anyway — and each has its own cancel token, so `cancel(session)` reaches
//!   the running turn and the queued ones of that session only.
//! - Events of a turn go to the Java listener from the worker thread: text pieces, completed
//!   sentences (`sentences`, for text-to-speech), `show_text`, tool started/finished, then
//!   exactly one `onDone(statsJson)` or `onError(message)`.
//! - Host tools (`registerToolset`) run on a helper thread per call with a deadline: a slow or
//!   throwing Java executor becomes a tool error for the model, the turn goes on.
//!
//! # Safety at the boundary
//!
//! - Every export runs in `EnvUnowned::with_env`, which catches panics; errors and panics are
//!   thrown as Java exceptions by one policy (`jni_api::ThrowBridgeError`).
//! - Java exceptions thrown by listeners come back as caught errors, are counted
//!   (`listener_errors` in `stats`) and do not stop the turn.
//! - The worker thread attaches once (named `porfiry-worker`) and is detached when it ends,
//!   which `close` waits for; tool threads attach for the call only (`porfiry-tool`).
//! - No Rust lock is held while Java code runs, so a listener may call back into the bridge
//!   (`cancel`, `stats`, even `close`).
//! - Strings cross with the jni crate's modified-UTF-8 conversion both ways (Cyrillic, emoji).
//!
//! The mechanics are tested on a real JVM by `tests/jvm.rs`, which compiles the app's core
//! module and Java drivers with `javac` and runs them with `java -Xcheck:jni`.
#![deny(missing_docs)]

mod assistant;
mod error;
mod jni_api;
mod paced;
mod registry;
mod sentences;
