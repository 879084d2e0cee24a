//! Java objects behind the runtime's seams: a `PorfiryListener` as a turn's [`EventSink`]
//! ([`JavaSink`], called on the worker thread, attached once as `porfiry-worker`) and a
//! `ToolExecutor` as a [`HostCall`] ([`JavaTool`], on a tool thread attached for the call
//! only as `porfiry-tool`).

use jni::errors::Error as JniError;
use jni::objects::{JObject, JString};
use jni::refs::Global;
use jni::vm::{AttachConfig, JavaVM};
use jni::{jni_sig, jni_str, Env, JValue};
use porfiry_runtime::{EventSink, HostCall, HostFailure, ServiceEvent};

use crate::args::java_text;
use crate::error::BridgeError;

/// Attach config of the worker thread: permanent (detached when the thread ends), named.
fn worker_attach() -> AttachConfig<'static> {
    AttachConfig::new().thread_name(jni_str!("porfiry-worker"))
}

/// A Java `PorfiryListener` as the sink of one turn.
pub(crate) struct JavaSink {
    vm: JavaVM,
    listener: Global<JObject<'static>>,
}

impl JavaSink {
    /// The sink of a non-null `listener` (held as a global reference).
    pub(crate) fn new(env: &mut Env<'_>, listener: &JObject<'_>) -> Result<Self, BridgeError> {
        Ok(Self {
            vm: env.get_java_vm()?,
            listener: env.new_global_ref(listener)?,
        })
    }

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
pub(crate) struct JavaTool {
    vm: JavaVM,
    executor: Global<JObject<'static>>,
}

impl JavaTool {
    /// The host tool of a non-null `executor` (held as a global reference).
    pub(crate) fn new(env: &mut Env<'_>, executor: &JObject<'_>) -> Result<Self, BridgeError> {
        Ok(Self {
            vm: env.get_java_vm()?,
            executor: env.new_global_ref(executor)?,
        })
    }
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
