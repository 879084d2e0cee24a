//! The boundary every export goes through: [`export`] runs an export's body inside
//! `EnvUnowned::with_env` (which catches panics) and resolves it with [`ThrowBridgeError`] —
//! a [`BridgeError`] becomes the matching Java exception (a catalog refusal
//! `app.porfiry.core.CatalogException` with the store's text), a panic a
//! `RuntimeException`. Nothing unwinds into the JVM.

use jni::errors::ErrorPolicy;
use jni::objects::JThrowable;
use jni::strings::JNIString;
use jni::{jni_sig, Env, EnvUnowned, JValue};
use porfiry_runtime::catalog::CatalogError;

use crate::error::{BridgeError, CATALOG_EXCEPTION};

/// Throws the Java exception that matches a [`BridgeError`]; a panic becomes a
/// `RuntimeException`. An exception already pending (thrown by Java code we called) wins.
pub(crate) struct ThrowBridgeError;

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

/// Runs the body of an export: a [`BridgeError`] or a panic becomes a Java exception
/// ([`ThrowBridgeError`]) and the export returns `T::default()`.
pub(crate) fn export<'c, T: Default + 'c>(
    mut env: EnvUnowned<'c>,
    body: impl FnOnce(&mut Env<'c>) -> Result<T, BridgeError>,
) -> T {
    // The first call of the process installs the log set-up (logcat on a phone).
    crate::logs::init();
    env.with_env(body).resolve::<ThrowBridgeError>()
}
