//! The JNI exports of `app.porfiry.core.PorfiryNative` and the Java-backed sink and tools.
//!
//! Every export runs inside `EnvUnowned::with_env` (which catches panics) and resolves with
//! [`ThrowBridgeError`]: a [`BridgeError`] becomes the matching Java exception, a panic a
//! `RuntimeException`. Nothing unwinds into the JVM. The bodies only convert arguments and
//! call the runtime ([`porfiry_runtime::Runtime::open`], [`Service`]); `open`'s JSON options
//! are read in [`crate::options`].

use std::sync::Arc;
use std::time::Duration;

use jni::errors::{Error as JniError, ErrorPolicy};
use jni::objects::{JClass, JObject, JObjectArray, JString, JThrowable};
use jni::refs::Global;
use jni::strings::JNIString;
use jni::sys::{jboolean, jint, jlong};
use jni::vm::{AttachConfig, JavaVM};
use jni::{jni_sig, jni_str, Env, EnvUnowned, JValue};
use porfiry_agent::Lang;
use porfiry_runtime::catalog::CatalogError;
use porfiry_runtime::{
    load_agent, Backend, EventSink, HostCall, HostFailure, Runtime, Service, ServiceEvent,
};
use serde_json::json;

use crate::catalog::{self as store, CatalogOptions};
use crate::error::{BridgeError, CATALOG_EXCEPTION};
use crate::options::{self, OpenOptions};
use crate::paced::{PacedModel, Script};
use crate::registry;
/// Throws the Java exception that matches a [`BridgeError`]; a panic becomes a
/// `RuntimeException`. An exception already pending (thrown by Java code we called) wins.
struct ThrowBridgeError;

fn throw(env: &mut Env<'_>, class: &str, msg: String) {
    if env.exception_check() {
        return;
    }
    let _ = env.throw_new(JNIString::from(class), JNIString::from(msg));
}

/// Throws `app.porfiry.core.CatalogException(code, message)`: the store's message verbatim
/// (the screen shows it as it is), no prefix. Falls back to a `RuntimeException` with the same
/// text if the class cannot be built.
fn throw_catalog(env: &mut Env<'_>, code: &str, e: &CatalogError) {
    if env.exception_check() {
        return;
    }
    let message = e.to_string();
    let built = (|| -> jni::errors::Result<JThrowable<'_>> {
        let c = env.new_string(code)?;
        let m = env.new_string(&message)?;
        let ex = env.new_object(
            JNIString::from(CATALOG_EXCEPTION),
            jni_sig!("(Ljava/lang/String;Ljava/lang/String;)V"),
            &[JValue::Object(&c), JValue::Object(&m)],
        )?;
        env.cast_local::<JThrowable>(ex)
    })();
    // `throw` reports success as `JavaException`: the exception is now pending.
    let thrown = match built {
        Ok(ex) => {
            let _ = env.throw(ex);
            env.exception_check()
        }
        Err(_) => false,
    };
    if !thrown {
        if env.exception_check() {
            env.exception_clear();
        }
        throw(env, "java/lang/RuntimeException", message);
    }
}

impl<T: Default> ErrorPolicy<T, BridgeError> for ThrowBridgeError {
    type Captures<'unowned_env_local: 'native_method, 'native_method> = ();

    fn on_error<'unowned_env_local: 'native_method, 'native_method>(
        env: &mut Env<'unowned_env_local>,
        _cap: &mut (),
        err: BridgeError,
    ) -> jni::errors::Result<T> {
        match &err {
            BridgeError::Catalog(e) => throw_catalog(env, crate::catalog::error_code(e), e),
            _ => throw(env, err.java_class(), format!("porfiry: {err}")),
        }
        Ok(T::default())
    }

    fn on_panic<'unowned_env_local: 'native_method, 'native_method>(
        env: &mut Env<'unowned_env_local>,
        _cap: &mut (),
        payload: Box<dyn std::any::Any + Send + 'static>,
    ) -> jni::errors::Result<T> {
        let msg = if let Some(s) = payload.downcast_ref::<&str>() {
            (*s).to_string()
        } else if let Some(s) = payload.downcast_ref::<String>() {
            s.clone()
        } else {
            "panic".to_string()
        };
        // Leak rather than risk a panicking drop of the payload.
        std::mem::forget(payload);
        throw(
            env,
            "java/lang/RuntimeException",
            format!("porfiry: internal error: {msg}"),
        );
        Ok(T::default())
    }
}

/// A non-null Java string argument as a Rust string ([`java_text`]).
fn string_arg(env: &Env<'_>, s: &JString<'_>, what: &str) -> Result<String, BridgeError> {
    if s.is_null() {
        return Err(BridgeError::InvalidArgument(format!("{what} is null")));
    }
    java_text(env, s)
}

/// The text of a non-null Java string, read as its UTF-16 code units (`GetStringLength`,
/// `GetStringRegion`) and decoded by [`text_of_utf16`]: an unpaired surrogate becomes one
/// U+FFFD and every other character arrives as itself (U+0000 and pairs included), at any
/// length. Every Java string that enters Rust goes through here.
///
/// Not the jni crate's `try_to_string`: it reads modified UTF-8 (`GetStringUTFChars`), and
/// when that does not decode — any lone surrogate — it decodes the whole string's bytes as
/// plain UTF-8 with replacement, so the surrogate became three U+FFFD and, in the same
/// string, every character above U+FFFF six and every U+0000 two (RELIABILITY.md, R14).
///
/// # Errors
/// [`BridgeError::Jni`] when a Java exception is pending before or after the reads (it then
/// propagates to Java as it is).
fn java_text(env: &Env<'_>, s: &JString<'_>) -> Result<String, BridgeError> {
    if env.exception_check() {
        return Err(JniError::JavaException.into());
    }
    let raw_env = env.get_raw();
    let string = s.as_raw();
    // SAFETY: `raw_env` is the JNIEnv of this thread (`Env` holds it only there), `string` a
    // live local or global reference to a `java.lang.String` (a `JString`; null is checked by
    // every caller), and no exception is pending (checked above), which GetStringLength
    // (JNI 1.1) requires.
    let len = unsafe { ((**raw_env).v1_1.GetStringLength)(raw_env, string) };
    let Ok(units) = usize::try_from(len) else {
        return Err(BridgeError::Internal(format!(
            "GetStringLength returned {len}"
        )));
    };
    let mut buf = vec![0u16; units];
    if units > 0 {
        // SAFETY: as above; GetStringRegion is JNI 1.2 (every JVM and ART have it; jni 0.22
        // asks for 1.4), and it writes exactly `len` units into `buf`, which holds `len`.
        // The region 0..len is within the string, so it throws nothing.
        unsafe { ((**raw_env).v1_2.GetStringRegion)(raw_env, string, 0, len, buf.as_mut_ptr()) };
    }
    if env.exception_check() {
        return Err(JniError::JavaException.into());
    }
    Ok(text_of_utf16(&buf))
}

/// UTF-16 code units as text: each unpaired surrogate (a high one not followed by a low one, a
/// low one not preceded by a high one) becomes one U+FFFD; nothing is dropped or reordered.
fn text_of_utf16(units: &[u16]) -> String {
    char::decode_utf16(units.iter().copied())
        .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
        .collect()
}

fn lang_arg(env: &Env<'_>, s: &JString<'_>) -> Result<Lang, BridgeError> {
    options::lang(&string_arg(env, s, "language")?)
}

fn non_negative(v: jint, what: &str) -> Result<u32, BridgeError> {
    u32::try_from(v)
        .map_err(|_| BridgeError::InvalidArgument(format!("{what} must be >= 0, got {v}")))
}

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

/// Runs the body of an export: a [`BridgeError`] or a panic becomes a Java exception
/// ([`ThrowBridgeError`]) and the export returns `T::default()`.
fn export<'c, T: Default + 'c>(
    mut env: EnvUnowned<'c>,
    body: impl FnOnce(&mut Env<'c>) -> Result<T, BridgeError>,
) -> T {
    // The first call of the process installs the log set-up (logcat on a phone).
    crate::logs::init();
    env.with_env(body).resolve::<ThrowBridgeError>()
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
        let model = PacedModel::new(Script::new(outputs), Duration::from_millis(delay.into()));
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
        let host = JavaTool {
            vm: env.get_java_vm()?,
            executor: env.new_global_ref(&executor)?,
        };
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
        let sink = JavaSink {
            vm: env.get_java_vm()?,
            listener: env.new_global_ref(&listener)?,
        };
        Ok(assistant.send(&session, &text, Box::new(sink))?)
    })
}

/// `void prepare(long handle, String session, String partialText)`.
#[no_mangle]
pub extern "system" fn Java_app_porfiry_core_PorfiryNative_prepare<'c>(
    env: EnvUnowned<'c>,
    _class: JClass<'c>,
    handle: jlong,
    session: JString<'c>,
    partial: JString<'c>,
) {
    on_assistant(env, handle, |env, assistant| {
        let session = string_arg(env, &session, "session")?;
        let partial = string_arg(env, &partial, "partialText")?;
        Ok(assistant.prepare(&session, &partial)?)
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

// ---------------------------------------------------------------------------------------
// The catalog of skills and protocols (the app's settings screen; no model needed).

/// [`export`] for a call on an open catalog: a bad or closed handle throws first; the
/// store's lock is held for the body (which runs no Java code).
fn on_catalog<'c, T: Default + 'c>(
    env: EnvUnowned<'c>,
    handle: jlong,
    body: impl FnOnce(&mut Env<'c>, &mut porfiry_runtime::catalog::Catalog) -> Result<T, BridgeError>,
) -> T {
    export(env, |env| {
        let s = store::get(handle)?;
        let mut catalog = s.lock();
        body(env, &mut catalog)
    })
}

/// A JSON value as a Java string.
fn json_string<'c>(
    env: &mut Env<'c>,
    value: &serde_json::Value,
) -> Result<JString<'c>, BridgeError> {
    Ok(JString::from_str(env, value.to_string())?)
}

/// A nullable Java string argument: `None` for null.
fn optional_string(env: &Env<'_>, s: &JString<'_>) -> Result<Option<String>, BridgeError> {
    if s.is_null() {
        return Ok(None);
    }
    java_text(env, s).map(Some)
}

/// `long catalogOpen(String optionsJson)`: opens the catalog file (see [`CatalogOptions`]),
/// or joins the store already open for it; returns a new handle.
#[no_mangle]
pub extern "system" fn Java_app_porfiry_core_PorfiryNative_catalogOpen<'c>(
    env: EnvUnowned<'c>,
    _class: JClass<'c>,
    options_json: JString<'c>,
) -> jlong {
    export(env, |env| {
        let json = string_arg(env, &options_json, "optionsJson")?;
        store::open(&CatalogOptions::parse(&json)?)
    })
}

/// `void catalogClose(long catalog)`.
#[no_mangle]
pub extern "system" fn Java_app_porfiry_core_PorfiryNative_catalogClose<'c>(
    env: EnvUnowned<'c>,
    _class: JClass<'c>,
    handle: jlong,
) {
    export(env, |_env| store::close(handle))
}

/// `String catalogInfo(long catalog)`: the file, what opening did, the handles sharing it.
#[no_mangle]
pub extern "system" fn Java_app_porfiry_core_PorfiryNative_catalogInfo<'c>(
    env: EnvUnowned<'c>,
    _class: JClass<'c>,
    handle: jlong,
) -> JString<'c> {
    export(env, |env| {
        let info = store::info(&store::get(handle)?);
        json_string(env, &info)
    })
}

/// `String catalogList(long catalog, String queryJson)`: a JSON array of entry summaries.
#[no_mangle]
pub extern "system" fn Java_app_porfiry_core_PorfiryNative_catalogList<'c>(
    env: EnvUnowned<'c>,
    _class: JClass<'c>,
    handle: jlong,
    query_json: JString<'c>,
) -> JString<'c> {
    on_catalog(env, handle, |env, catalog| {
        let query = store::parse_query(&string_arg(env, &query_json, "queryJson")?)?;
        let value = store::list(catalog, &query)?;
        json_string(env, &value)
    })
}

/// `String catalogShow(long catalog, long id)`: the whole entry as JSON.
#[no_mangle]
pub extern "system" fn Java_app_porfiry_core_PorfiryNative_catalogShow<'c>(
    env: EnvUnowned<'c>,
    _class: JClass<'c>,
    handle: jlong,
    id: jlong,
) -> JString<'c> {
    on_catalog(env, handle, |env, catalog| {
        let value = store::show(catalog, id)?;
        json_string(env, &value)
    })
}

/// `String catalogVersions(long catalog, long id)`: the entry's history, newest first.
#[no_mangle]
pub extern "system" fn Java_app_porfiry_core_PorfiryNative_catalogVersions<'c>(
    env: EnvUnowned<'c>,
    _class: JClass<'c>,
    handle: jlong,
    id: jlong,
) -> JString<'c> {
    on_catalog(env, handle, |env, catalog| {
        let value = store::versions(catalog, id)?;
        json_string(env, &value)
    })
}

/// `String catalogCreate(long catalog, String document, String reason)`: a personal entry.
#[no_mangle]
pub extern "system" fn Java_app_porfiry_core_PorfiryNative_catalogCreate<'c>(
    env: EnvUnowned<'c>,
    _class: JClass<'c>,
    handle: jlong,
    document: JString<'c>,
    reason: JString<'c>,
) -> JString<'c> {
    on_catalog(env, handle, |env, catalog| {
        let text = string_arg(env, &document, "document")?;
        let reason = optional_string(env, &reason)?.unwrap_or_default();
        let value = store::create(catalog, &text, &reason)?;
        json_string(env, &value)
    })
}

/// `String catalogEdit(long catalog, long id, String document, String reason)`.
#[no_mangle]
pub extern "system" fn Java_app_porfiry_core_PorfiryNative_catalogEdit<'c>(
    env: EnvUnowned<'c>,
    _class: JClass<'c>,
    handle: jlong,
    id: jlong,
    document: JString<'c>,
    reason: JString<'c>,
) -> JString<'c> {
    on_catalog(env, handle, |env, catalog| {
        let text = string_arg(env, &document, "document")?;
        let reason = optional_string(env, &reason)?.unwrap_or_default();
        let value = store::edit(catalog, id, &text, &reason)?;
        json_string(env, &value)
    })
}

/// `String catalogDelete(long catalog, long id)`.
#[no_mangle]
pub extern "system" fn Java_app_porfiry_core_PorfiryNative_catalogDelete<'c>(
    env: EnvUnowned<'c>,
    _class: JClass<'c>,
    handle: jlong,
    id: jlong,
) -> JString<'c> {
    on_catalog(env, handle, |env, catalog| {
        let value = store::delete(catalog, id)?;
        json_string(env, &value)
    })
}

/// `String catalogProposals(long catalog, boolean pendingOnly)`.
#[no_mangle]
pub extern "system" fn Java_app_porfiry_core_PorfiryNative_catalogProposals<'c>(
    env: EnvUnowned<'c>,
    _class: JClass<'c>,
    handle: jlong,
    pending_only: jboolean,
) -> JString<'c> {
    on_catalog(env, handle, |env, catalog| {
        let value = store::proposals(catalog, pending_only)?;
        json_string(env, &value)
    })
}

/// `String catalogAccept(long catalog, long proposalId)`: the entry written.
#[no_mangle]
pub extern "system" fn Java_app_porfiry_core_PorfiryNative_catalogAccept<'c>(
    env: EnvUnowned<'c>,
    _class: JClass<'c>,
    handle: jlong,
    proposal: jlong,
) -> JString<'c> {
    on_catalog(env, handle, |env, catalog| {
        let value = store::accept(catalog, proposal)?;
        json_string(env, &value)
    })
}

/// `String catalogReject(long catalog, long proposalId, String reason)`: the proposal.
#[no_mangle]
pub extern "system" fn Java_app_porfiry_core_PorfiryNative_catalogReject<'c>(
    env: EnvUnowned<'c>,
    _class: JClass<'c>,
    handle: jlong,
    proposal: jlong,
    reason: JString<'c>,
) -> JString<'c> {
    on_catalog(env, handle, |env, catalog| {
        let reason = optional_string(env, &reason)?.unwrap_or_default();
        let value = store::reject(catalog, proposal, &reason)?;
        json_string(env, &value)
    })
}

/// `String catalogRuns(long catalog, String session)`: runs newest first (null or empty
/// session: every session's).
#[no_mangle]
pub extern "system" fn Java_app_porfiry_core_PorfiryNative_catalogRuns<'c>(
    env: EnvUnowned<'c>,
    _class: JClass<'c>,
    handle: jlong,
    session: JString<'c>,
) -> JString<'c> {
    on_catalog(env, handle, |env, catalog| {
        let session = optional_string(env, &session)?;
        let value = store::runs(catalog, session.as_deref())?;
        json_string(env, &value)
    })
}

/// `String catalogCheck(String document)`: `{"kind", "name"}` of a document the store
/// accepts, or its refusal (no file needed).
#[no_mangle]
pub extern "system" fn Java_app_porfiry_core_PorfiryNative_catalogCheck<'c>(
    env: EnvUnowned<'c>,
    _class: JClass<'c>,
    document: JString<'c>,
) -> JString<'c> {
    export(env, |env| {
        let value = store::check(&string_arg(env, &document, "document")?)?;
        json_string(env, &value)
    })
}

/// `String catalogTemplate(String kind, String language)`: a new skill or protocol document
/// in `ru` or `en` that the store accepts as it is.
#[no_mangle]
pub extern "system" fn Java_app_porfiry_core_PorfiryNative_catalogTemplate<'c>(
    env: EnvUnowned<'c>,
    _class: JClass<'c>,
    kind: JString<'c>,
    language: JString<'c>,
) -> JString<'c> {
    export(env, |env| {
        let kind = string_arg(env, &kind, "kind")?;
        let language = string_arg(env, &language, "language")?;
        Ok(JString::from_str(env, store::template(&kind, &language)?)?)
    })
}

/// Attach config of the worker thread: permanent (detached when the thread ends), named.
fn worker_attach() -> AttachConfig<'static> {
    AttachConfig::new().thread_name(jni_str!("porfiry-worker"))
}

/// A Java `PorfiryListener` as the sink of one turn.
struct JavaSink {
    vm: JavaVM,
    listener: Global<JObject<'static>>,
}

impl JavaSink {
    fn call(&self, event: ServiceEvent) -> Result<(), JniError> {
        let listener: &JObject<'static> = &self.listener;
        self.vm.attach_current_thread_with_config(
            worker_attach,
            Some(16),
            |env| -> Result<(), JniError> {
                // Most events are one string for a one-string method.
                let (method, text) = match event {
                    ServiceEvent::Text(t) => (jni_str!("onText"), t),
                    ServiceEvent::Sentence(t) => (jni_str!("onSentence"), t),
                    ServiceEvent::ShowText(t) => (jni_str!("onShowText"), t),
                    ServiceEvent::Done(v) => (jni_str!("onDone"), v.to_string()),
                    ServiceEvent::Error(t) => (jni_str!("onError"), t),
                    ServiceEvent::ToolStarted { name, args } => {
                        let n = env.new_string(name)?;
                        let a = env.new_string(args)?;
                        env.call_method(
                            listener,
                            jni_str!("onToolStarted"),
                            jni_sig!("(Ljava/lang/String;Ljava/lang/String;)V"),
                            &[JValue::Object(&n), JValue::Object(&a)],
                        )?;
                        return Ok(());
                    }
                    ServiceEvent::ToolFinished { name, result, ok } => {
                        let n = env.new_string(name)?;
                        let r = env.new_string(result)?;
                        env.call_method(
                            listener,
                            jni_str!("onToolFinished"),
                            jni_sig!("(Ljava/lang/String;Ljava/lang/String;Z)V"),
                            &[JValue::Object(&n), JValue::Object(&r), JValue::Bool(ok)],
                        )?;
                        return Ok(());
                    }
                };
                let s = env.new_string(text)?;
                env.call_method(
                    listener,
                    method,
                    jni_sig!("(Ljava/lang/String;)V"),
                    &[JValue::Object(&s)],
                )?;
                Ok(())
            },
        )
    }
}

impl EventSink for JavaSink {
    fn deliver(&mut self, event: ServiceEvent) -> bool {
        // A listener exception comes back as CaughtJavaException (already cleared): counted,
        // never propagated, and the turn goes on.
        self.call(event).is_ok()
    }
}

/// A Java `ToolExecutor` as a host tool. Runs on a helper thread attached for the call only.
struct JavaTool {
    vm: JavaVM,
    executor: Global<JObject<'static>>,
}

impl HostCall for JavaTool {
    fn call(&self, tool: &str, args: &str) -> Result<String, HostFailure> {
        let executor: &JObject<'static> = &self.executor;
        let outcome = self.vm.attach_current_thread_with_config(
            || {
                AttachConfig::new()
                    .scoped(true)
                    .thread_name(jni_str!("porfiry-tool"))
            },
            Some(16),
            |env| -> Result<Option<String>, BridgeError> {
                let t = env.new_string(tool)?;
                let a = env.new_string(args)?;
                let ret = env
                    .call_method(
                        executor,
                        jni_str!("execute"),
                        jni_sig!("(Ljava/lang/String;Ljava/lang/String;)Ljava/lang/String;"),
                        &[JValue::Object(&t), JValue::Object(&a)],
                    )?
                    .l()?;
                if ret.is_null() {
                    return Ok(None);
                }
                let s = env.cast_local::<JString>(ret)?;
                java_text(env, &s).map(Some)
            },
        );
        match outcome {
            Ok(Some(text)) => Ok(text),
            Ok(None) => Err(HostFailure::NoResult),
            Err(BridgeError::Jni(JniError::CaughtJavaException { name, msg, .. })) => {
                Err(HostFailure::Threw(if msg.is_empty() {
                    name
                } else {
                    format!("{name}: {msg}")
                }))
            }
            Err(BridgeError::Jni(e)) => Err(HostFailure::Broken(e.to_string())),
            Err(e) => Err(HostFailure::Broken(e.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::text_of_utf16;

    fn units(s: &str) -> Vec<u16> {
        s.encode_utf16().collect()
    }

    #[test]
    fn lone_surrogates_become_one_replacement_each_and_nothing_else_changes() {
        assert_eq!(
            text_of_utf16(&[0x61, 0xD800, 0x62]),
            "a\u{FFFD}b",
            "lone high"
        );
        assert_eq!(
            text_of_utf16(&[0x61, 0xDC00, 0x62]),
            "a\u{FFFD}b",
            "lone low"
        );
        assert_eq!(
            text_of_utf16(&[0xDC00, 0xD83C]),
            "\u{FFFD}\u{FFFD}",
            "reversed pair"
        );
        assert_eq!(
            text_of_utf16(&[0xD83D]),
            "\u{FFFD}",
            "a high at the very end"
        );
        // Beside lone surrogates, a valid pair and U+0000 arrive as themselves.
        let mut mixed = vec![0xD83D];
        mixed.extend(units("🎬\0"));
        mixed.push(0xDE00);
        mixed.extend(units("ёж"));
        assert_eq!(text_of_utf16(&mixed), "\u{FFFD}🎬\0\u{FFFD}ёж");
        let plain = "Лара Крофт 🎬 𝄞 «ёжик» \0 end";
        assert_eq!(text_of_utf16(&units(plain)), plain);
        assert_eq!(text_of_utf16(&[]), "");
        let emoji = "😀".repeat(100_000);
        assert_eq!(text_of_utf16(&units(&emoji)), emoji);
    }
}
