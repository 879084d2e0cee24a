//! The JNI exports of the assistant in `app.porfiry.core.PorfiryNative`: `open`, `create`,
//! `createScripted`, then calls on a handle (`registerToolset`, `send`, `hearPartial`, `cancel`,
//! `delivered`, `endSession`, `close`, `prompt`, `stats`, `cacheReport`, `trim`).
//!
//! Every export runs through [`export`] (the error and panic policy of `boundary.rs`). The
//! bodies only convert arguments (`args.rs`) and call the runtime
//! ([`porfiry_runtime::Runtime::open`], [`Service`]); `open`'s JSON options are read in
//! [`crate::options`]; listeners and executors are wrapped in `java_host.rs`. The catalog's
//! exports are in `jni_catalog.rs`.

use std::sync::Arc;
use std::time::Duration;

use jni::objects::{JClass, JObject, JObjectArray, JString};
use jni::sys::{jboolean, jint, jlong};
use jni::{Env, EnvUnowned};
use porfiry_runtime::{load_agent, Backend, Runtime, Service};
use porfiry_seam::Paced;
use serde_json::json;

use crate::args::{lang_arg, non_negative, string_arg};
use crate::boundary::export;
use crate::error::BridgeError;
use crate::java_host::{JavaSink, JavaTool};
use crate::options::{self, OpenOptions};
use crate::registry;
use crate::script::Script;

/// A folder argument of `create` and `createScripted`: an empty string means none.
fn folders(dir: String) -> Vec<String> {
    if dir.is_empty() {
        vec![]
    } else {
        vec![dir]
    }
}

/// Opens the runtime `options` describe, starts its service and returns the new handle:
/// the one code path of `open` and `create`.
fn open_service(options: &OpenOptions) -> Result<jlong, BridgeError> {
    let config = options.config()?;
    let (runtime, report) = Runtime::open(&config, &porfiry_runtime::NoProgress)?;
    let info = options::info(&config, &report, runtime.agent());
    let service = Service::start_with(runtime, info, options.policy())?;
    Ok(registry::insert(service))
}

/// [`export`] for a call on an existing assistant: a bad or closed handle throws first.
fn on_assistant<'c, T: Default + 'c>(
    env: EnvUnowned<'c>,
    handle: jlong,
    body: impl FnOnce(&mut Env<'c>, &Service) -> Result<T, BridgeError>,
) -> T {
    export(env, |env| {
        let assistant = registry::get(handle)?;
        body(env, &assistant)
    })
}

/// `String version()`.
#[no_mangle]
pub extern "system" fn Java_app_porfiry_core_PorfiryNative_version<'c>(
    env: EnvUnowned<'c>,
    _class: JClass<'c>,
) -> JString<'c> {
    export(env, |env| {
        Ok(JString::from_str(env, env!("CARGO_PKG_VERSION"))?)
    })
}

/// `long open(String optionsJson)`: the options as a JSON object (see [`OpenOptions`]).
#[no_mangle]
pub extern "system" fn Java_app_porfiry_core_PorfiryNative_open<'c>(
    env: EnvUnowned<'c>,
    _class: JClass<'c>,
    options_json: JString<'c>,
) -> jlong {
    export(env, |env| {
        let json = string_arg(env, &options_json, "optionsJson")?;
        open_service(&OpenOptions::parse(&json)?)
    })
}

/// `long create(String modelPath, String skillsDir, String toolsetsDir, int contextTokens,
/// int threads, int maxTokens, String language)`: [`open`](Java_app_porfiry_core_PorfiryNative_open)
/// with these options, the folders over the built-in ones (an empty string: none), 0 for the
/// defaults, and the head snapshots beside the model
/// ([`porfiry_runtime::paths::kv_dir_beside`]).
#[no_mangle]
pub extern "system" fn Java_app_porfiry_core_PorfiryNative_create<'c>(
    env: EnvUnowned<'c>,
    _class: JClass<'c>,
    model_path: JString<'c>,
    skills_dir: JString<'c>,
    toolsets_dir: JString<'c>,
    context_tokens: jint,
    threads: jint,
    max_tokens: jint,
    language: JString<'c>,
) -> jlong {
    export(env, |env| {
        let model = string_arg(env, &model_path, "modelPath")?;
        let skills = folders(string_arg(env, &skills_dir, "skillsDir")?);
        let toolsets = folders(string_arg(env, &toolsets_dir, "toolsetsDir")?);
        let lang = lang_arg(env, &language)?;
        let options = OpenOptions {
            kv_dir: Some(
                porfiry_runtime::paths::kv_dir_beside(std::path::Path::new(&model))
                    .display()
                    .to_string(),
            ),
            model,
            skills,
            toolsets,
            context: Some(non_negative(context_tokens, "contextTokens")?),
            threads: Some(non_negative(threads, "threads")?),
            max_tokens: Some(non_negative(max_tokens, "maxTokens")?),
            language: Some(lang.code().to_string()),
            ..OpenOptions::default()
        };
        open_service(&options)
    })
}

/// `long createScripted(String[] script, int pieceDelayMs, String skillsDir,
/// String toolsetsDir, String language)`: the agent of [`load_agent`] (the folders over the
/// built-in ones) over a scripted model ([`Script`], paced).
#[no_mangle]
pub extern "system" fn Java_app_porfiry_core_PorfiryNative_createScripted<'c>(
    env: EnvUnowned<'c>,
    _class: JClass<'c>,
    script: JObjectArray<'c, JString<'c>>,
    piece_delay_ms: jint,
    skills_dir: JString<'c>,
    toolsets_dir: JString<'c>,
    language: JString<'c>,
) -> jlong {
    export(env, |env| {
        if script.is_null() {
            return Err(BridgeError::InvalidArgument("script is null".into()));
        }
        let mut outputs = Vec::new();
        for i in 0..script.len(env)? {
            let item = script.get_element(env, i)?;
            outputs.push(string_arg(env, &item, "script element")?);
            // Long scripts must not exhaust the native method's local reference capacity.
            env.delete_local_ref(item);
        }
        let delay = non_negative(piece_delay_ms, "pieceDelayMs")?;
        let options = OpenOptions {
            skills: folders(string_arg(env, &skills_dir, "skillsDir")?),
            toolsets: folders(string_arg(env, &toolsets_dir, "toolsetsDir")?),
            language: Some(lang_arg(env, &language)?.code().to_string()),
            ..OpenOptions::default()
        };
        let config = options.config()?;
        let (agent, diagnostics, _builtin) = load_agent(&config)?;
        let mut info = json!({
            "kind": "scripted",
            "outputs": outputs.len(),
            "piece_delay_ms": delay,
        });
        options::add_agent_info(&mut info, &agent, &diagnostics);
        let model = Paced::new(Script::new(outputs), Duration::from_millis(delay.into()));
        let runtime =
            Runtime::from_parts(agent, Backend::Other(Box::new(model)), config.tool_timeout);
        Ok(registry::insert(Service::start(runtime, info)?))
    })
}

/// `void registerToolset(long handle, String toolset, ToolExecutor executor, long timeoutMs)`.
#[no_mangle]
pub extern "system" fn Java_app_porfiry_core_PorfiryNative_registerToolset<'c>(
    env: EnvUnowned<'c>,
    _class: JClass<'c>,
    handle: jlong,
    toolset: JString<'c>,
    executor: JObject<'c>,
    timeout_ms: jlong,
) {
    on_assistant(env, handle, |env, assistant| {
        let toolset = string_arg(env, &toolset, "toolset")?;
        if executor.is_null() {
            return Err(BridgeError::InvalidArgument("executor is null".into()));
        }
        let timeout = u64::try_from(timeout_ms)
            .ok()
            .filter(|t| *t > 0)
            .ok_or_else(|| {
                BridgeError::InvalidArgument(format!("timeoutMs must be > 0, got {timeout_ms}"))
            })?;
        let host = JavaTool::new(env, &executor)?;
        Ok(assistant.register_toolset(&toolset, Arc::new(host), Duration::from_millis(timeout))?)
    })
}

/// `void send(long handle, String session, String text, PorfiryListener listener)`.
#[no_mangle]
pub extern "system" fn Java_app_porfiry_core_PorfiryNative_send<'c>(
    env: EnvUnowned<'c>,
    _class: JClass<'c>,
    handle: jlong,
    session: JString<'c>,
    text: JString<'c>,
    listener: JObject<'c>,
) {
    on_assistant(env, handle, |env, assistant| {
        let session = string_arg(env, &session, "session")?;
        let text = string_arg(env, &text, "text")?;
        if listener.is_null() {
            return Err(BridgeError::InvalidArgument("listener is null".into()));
        }
        let sink = JavaSink::new(env, &listener)?;
        Ok(assistant.send(&session, &text, Box::new(sink))?)
    })
}

/// `void hearPartial(long handle, String session, String partialText)`.
#[no_mangle]
pub extern "system" fn Java_app_porfiry_core_PorfiryNative_hearPartial<'c>(
    env: EnvUnowned<'c>,
    _class: JClass<'c>,
    handle: jlong,
    session: JString<'c>,
    partial: JString<'c>,
) {
    on_assistant(env, handle, |env, assistant| {
        let session = string_arg(env, &session, "session")?;
        let partial = string_arg(env, &partial, "partialText")?;
        Ok(assistant.hear_partial(&session, &partial)?)
    })
}

/// `boolean cancel(long handle, String session)`.
#[no_mangle]
pub extern "system" fn Java_app_porfiry_core_PorfiryNative_cancel<'c>(
    env: EnvUnowned<'c>,
    _class: JClass<'c>,
    handle: jlong,
    session: JString<'c>,
) -> jboolean {
    on_assistant(env, handle, |env, assistant| {
        Ok(assistant.cancel(&string_arg(env, &session, "session")?)?)
    })
}

/// `boolean delivered(long handle, String session, int chars)`.
#[no_mangle]
pub extern "system" fn Java_app_porfiry_core_PorfiryNative_delivered<'c>(
    env: EnvUnowned<'c>,
    _class: JClass<'c>,
    handle: jlong,
    session: JString<'c>,
    chars: jint,
) -> jboolean {
    on_assistant(env, handle, |env, assistant| {
        let session = string_arg(env, &session, "session")?;
        let chars = usize::try_from(chars).map_err(|_| {
            BridgeError::InvalidArgument(format!("chars must be >= 0, got {chars}"))
        })?;
        Ok(assistant.delivered(&session, chars)?)
    })
}

/// `void endSession(long handle, String session)`.
#[no_mangle]
pub extern "system" fn Java_app_porfiry_core_PorfiryNative_endSession<'c>(
    env: EnvUnowned<'c>,
    _class: JClass<'c>,
    handle: jlong,
    session: JString<'c>,
) {
    on_assistant(env, handle, |env, assistant| {
        Ok(assistant.end_session(&string_arg(env, &session, "session")?)?)
    })
}

/// `void close(long handle)`.
#[no_mangle]
pub extern "system" fn Java_app_porfiry_core_PorfiryNative_close<'c>(
    env: EnvUnowned<'c>,
    _class: JClass<'c>,
    handle: jlong,
) {
    export(env, |_env| Ok(registry::remove(handle)?.close()?))
}

/// `String prompt(long handle, String session)`.
#[no_mangle]
pub extern "system" fn Java_app_porfiry_core_PorfiryNative_prompt<'c>(
    env: EnvUnowned<'c>,
    _class: JClass<'c>,
    handle: jlong,
    session: JString<'c>,
) -> JString<'c> {
    on_assistant(env, handle, |env, assistant| {
        let text = assistant.prompt(&string_arg(env, &session, "session")?)?;
        Ok(JString::from_str(env, text)?)
    })
}

/// `String stats(long handle)`.
#[no_mangle]
pub extern "system" fn Java_app_porfiry_core_PorfiryNative_stats<'c>(
    env: EnvUnowned<'c>,
    _class: JClass<'c>,
    handle: jlong,
) -> JString<'c> {
    on_assistant(env, handle, |env, assistant| {
        Ok(JString::from_str(env, assistant.stats()?.to_string())?)
    })
}

/// `String trim(long handle, int level)`: give memory back for one of Android's
/// `onTrimMemory` levels (`porfiry_runtime::TrimLevel::from_android`: below 10 nothing, 10 the
/// caches, 15 and above the whole chat context). Returns what was released as JSON
/// (`sessions`, `context`, `embedder`, `heads`), `"null"` when nothing was asked for, the
/// model keeps no memory to give (a scripted model) or the trim waits behind a turn for
/// longer than two seconds (it still happens). Blocks up to those two seconds: call it off
/// the main thread.
#[no_mangle]
pub extern "system" fn Java_app_porfiry_core_PorfiryNative_trim<'c>(
    env: EnvUnowned<'c>,
    _class: JClass<'c>,
    handle: jlong,
    level: jint,
) -> JString<'c> {
    on_assistant(env, handle, |env, assistant| {
        let report = match porfiry_runtime::TrimLevel::from_android(level) {
            Some(level) => assistant.trim(level, std::time::Duration::from_secs(2))?,
            None => None,
        };
        let report = report.unwrap_or(serde_json::Value::Null);
        Ok(JString::from_str(env, report.to_string())?)
    })
}

/// `String cacheReport(long handle)`: the KV cache as JSON, `"null"` when there is none to
/// report (a scripted model, a busy worker).
#[no_mangle]
pub extern "system" fn Java_app_porfiry_core_PorfiryNative_cacheReport<'c>(
    env: EnvUnowned<'c>,
    _class: JClass<'c>,
    handle: jlong,
) -> JString<'c> {
    on_assistant(env, handle, |env, assistant| {
        let report = assistant.cache_report()?.unwrap_or(serde_json::Value::Null);
        Ok(JString::from_str(env, report.to_string())?)
    })
}
