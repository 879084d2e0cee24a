//! The JNI exports of the catalog of skills and protocols (the app's settings screen; no
//! model needed): each converts its arguments and calls [`crate::catalog`], which holds the
//! open stores; results are the rows' JSON, refusals `CatalogException`s.

use jni::objects::{JClass, JString};
use jni::sys::{jboolean, jlong};
use jni::{Env, EnvUnowned};

use crate::args::{json_string, optional_string, string_arg};
use crate::boundary::export;
use crate::catalog::{self as store, CatalogOptions};
use crate::error::BridgeError;

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
