//! The JNI exports of `app.porfiry.core.PorfiryNative` and the Java-backed sink and tools.
//!
//! Every export runs inside `EnvUnowned::with_env` (which catches panics) and resolves with
//! [`ThrowBridgeError`]: a [`BridgeError`] becomes the matching Java exception, a panic a
//! `RuntimeException`. Nothing unwinds into the JVM.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use jni::errors::{Error as JniError, ErrorPolicy};
use jni::objects::{JClass, JObject, JObjectArray, JString};
use jni::refs::Global;
use jni::strings::JNIString;
use jni::sys::{jboolean, jint, jlong};
use jni::vm::{AttachConfig, JavaVM};
use jni::{jni_sig, jni_str, Env, EnvUnowned, JValue};
use porfiry_agent::{Agent, AgentConfig, Lang, Model, ScriptedModel, SystemClock};
use porfiry_engine::{Engine, EngineModel, EngineParams, GenerateConfig};
use serde_json::{json, Value};

use crate::assistant::{Assistant, BridgeEvent, EventSink, HostCall, HostFailure};
use crate::error::BridgeError;
use crate::paced::PacedModel;
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

impl<T: Default> ErrorPolicy<T, BridgeError> for ThrowBridgeError {
    type Captures<'unowned_env_local: 'native_method, 'native_method> = ();

    fn on_error<'unowned_env_local: 'native_method, 'native_method>(
        env: &mut Env<'unowned_env_local>,
        _cap: &mut (),
        err: BridgeError,
    ) -> jni::errors::Result<T> {
        throw(env, err.java_class(), format!("porfiry: {err}"));
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

/// A non-null Java string argument as a Rust string.
fn string_arg(env: &Env<'_>, s: &JString<'_>, what: &str) -> Result<String, BridgeError> {
    if s.is_null() {
        return Err(BridgeError::InvalidArgument(format!("{what} is null")));
    }
    Ok(s.try_to_string(env)?)
}

fn lang_arg(env: &Env<'_>, s: &JString<'_>) -> Result<Lang, BridgeError> {
    let code = string_arg(env, s, "language")?;
    code.parse::<Lang>().map_err(|_| {
        BridgeError::InvalidArgument(format!("unknown language {code:?}: use \"ru\" or \"en\""))
    })
}

/// Loads skills and toolsets; an empty path means "none"; a path that is not a folder is an error.
/// Returns the agent and its load diagnostics as text.
fn load_agent(
    skills: &str,
    toolsets: &str,
    lang: Lang,
) -> Result<(Agent, Vec<String>), BridgeError> {
    for (what, dir) in [("skills", skills), ("toolsets", toolsets)] {
        if !dir.is_empty() && !Path::new(dir).is_dir() {
            return Err(BridgeError::InvalidArgument(format!(
                "{what} folder {dir} does not exist"
            )));
        }
    }
    let dirs = |d: &str| {
        if d.is_empty() {
            vec![]
        } else {
            vec![d.to_string()]
        }
    };
    let config = AgentConfig {
        lang,
        ..AgentConfig::default()
    };
    let loaded = Agent::load(
        config,
        &dirs(skills),
        &dirs(toolsets),
        Arc::new(SystemClock),
    );
    let diagnostics = loaded.diagnostics.iter().map(|d| d.to_string()).collect();
    Ok((loaded.value, diagnostics))
}

fn non_negative(v: jint, what: &str) -> Result<u32, BridgeError> {
    u32::try_from(v)
        .map_err(|_| BridgeError::InvalidArgument(format!("{what} must be >= 0, got {v}")))
}

/// The agent arguments of `create` and `createScripted`: two folders and a language.
struct AgentArgs {
    skills: String,
    toolsets: String,
    lang: Lang,
}

impl AgentArgs {
    fn read(
        env: &Env<'_>,
        skills: &JString<'_>,
        toolsets: &JString<'_>,
        language: &JString<'_>,
    ) -> Result<Self, BridgeError> {
        Ok(AgentArgs {
            skills: string_arg(env, skills, "skillsDir")?,
            toolsets: string_arg(env, toolsets, "toolsetsDir")?,
            lang: lang_arg(env, language)?,
        })
    }

    /// Loads the agent and starts an assistant on `model`; `info` (a JSON object) gets the
    /// loaded skills, toolsets and diagnostics added. Returns the new handle.
    fn start(
        self,
        model: impl FnOnce() -> Result<(Box<dyn Model + Send>, Value), BridgeError>,
    ) -> Result<jlong, BridgeError> {
        let (agent, diagnostics) = load_agent(&self.skills, &self.toolsets, self.lang)?;
        let (model, mut info) = model()?;
        if let Value::Object(map) = &mut info {
            map.insert("skills".into(), json!(agent.skills().names()));
            map.insert("toolsets".into(), json!(agent.toolsets().names()));
            map.insert("diagnostics".into(), json!(diagnostics));
        }
        let assistant = Assistant::start(agent, model, info)?;
        Ok(registry::insert(assistant))
    }
}

/// Runs the body of an export: a [`BridgeError`] or a panic becomes a Java exception
/// ([`ThrowBridgeError`]) and the export returns `T::default()`.
fn export<'c, T: Default + 'c>(
    mut env: EnvUnowned<'c>,
    body: impl FnOnce(&mut Env<'c>) -> Result<T, BridgeError>,
) -> T {
    env.with_env(body).resolve::<ThrowBridgeError>()
}

/// [`export`] for a call on an existing assistant: a bad or closed handle throws first.
fn on_assistant<'c, T: Default + 'c>(
    env: EnvUnowned<'c>,
    handle: jlong,
    body: impl FnOnce(&mut Env<'c>, &Assistant) -> Result<T, BridgeError>,
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

/// `long create(String modelPath, String skillsDir, String toolsetsDir, int contextTokens,
/// int threads, int maxTokens, String language)`.
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
        let model_path = string_arg(env, &model_path, "modelPath")?;
        let agent = AgentArgs::read(env, &skills_dir, &toolsets_dir, &language)?;
        let n_ctx = non_negative(context_tokens, "contextTokens")?;
        let threads = non_negative(threads, "threads")?;
        let max_tokens = non_negative(max_tokens, "maxTokens")?;
        agent.start(|| {
            let mut params = EngineParams::default();
            // KV snapshots of the static prompt head (`$PORFIRY_KV_DIR`, else `kv/` beside the
            // model, else the temporary directory), so the first request after an app start
            // restores the head instead of prefilling it.
            params.snapshot_dir = Some(crate::assistant::snapshot_dir(std::path::Path::new(
                &model_path,
            )));
            if n_ctx > 0 {
                params.n_ctx = n_ctx;
            }
            if threads > 0 {
                params.threads = Some(threads);
            }
            let mut generate = GenerateConfig::default();
            if max_tokens > 0 {
                generate.max_tokens = max_tokens as usize;
            }
            let engine = Engine::load(&model_path, params).map_err(|e| {
                BridgeError::InvalidArgument(format!("cannot load model {model_path}: {e}"))
            })?;
            let info = engine.info();
            let info = json!({
                "kind": "gguf",
                "path": model_path,
                "name": info.name,
                "chat_format": format!("{:?}", info.chat_format),
                "n_ctx": info.n_ctx,
                "threads": info.threads,
                "load_ms": info.load_ms,
                "max_tokens": generate.max_tokens,
            });
            Ok((Box::new(EngineModel::new(engine, generate)), info))
        })
    })
}

/// `long createScripted(String[] script, int pieceDelayMs, String skillsDir,
/// String toolsetsDir, String language)`.
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
        let agent = AgentArgs::read(env, &skills_dir, &toolsets_dir, &language)?;
        agent.start(|| {
            let info = json!({
                "kind": "scripted",
                "outputs": outputs.len(),
                "piece_delay_ms": delay,
            });
            let model = PacedModel::new(
                ScriptedModel::new(outputs),
                Duration::from_millis(delay.into()),
            );
            Ok((Box::new(model), info))
        })
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
        assistant.register_toolset(&toolset, Arc::new(host), Duration::from_millis(timeout))
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
        assistant.send(&session, &text, Box::new(sink))
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
        assistant.prepare(&session, &partial)
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
        assistant.cancel(&string_arg(env, &session, "session")?)
    })
}

/// `void close(long handle)`.
#[no_mangle]
pub extern "system" fn Java_app_porfiry_core_PorfiryNative_close<'c>(
    env: EnvUnowned<'c>,
    _class: JClass<'c>,
    handle: jlong,
) {
    export(env, |_env| registry::remove(handle)?.close())
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
    fn call(&self, event: BridgeEvent) -> Result<(), JniError> {
        let listener: &JObject<'static> = &self.listener;
        self.vm.attach_current_thread_with_config(
            worker_attach,
            Some(16),
            |env| -> Result<(), JniError> {
                // Most events are one string for a one-string method.
                let (method, text) = match event {
                    BridgeEvent::Text(t) => (jni_str!("onText"), t),
                    BridgeEvent::Sentence(t) => (jni_str!("onSentence"), t),
                    BridgeEvent::ShowText(t) => (jni_str!("onShowText"), t),
                    BridgeEvent::Done(v) => (jni_str!("onDone"), v.to_string()),
                    BridgeEvent::Error(t) => (jni_str!("onError"), t),
                    BridgeEvent::ToolStarted { name, args } => {
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
                    BridgeEvent::ToolFinished { name, result, ok } => {
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
    fn deliver(&mut self, event: BridgeEvent) -> bool {
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
            |env| -> Result<Option<String>, JniError> {
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
                Ok(Some(s.try_to_string(env)?))
            },
        );
        match outcome {
            Ok(Some(text)) => Ok(text),
            Ok(None) => Err(HostFailure::NoResult),
            Err(JniError::CaughtJavaException { name, msg, .. }) => {
                Err(HostFailure::Threw(if msg.is_empty() {
                    name
                } else {
                    format!("{name}: {msg}")
                }))
            }
            Err(e) => Err(HostFailure::Broken(e.to_string())),
        }
    }
}
