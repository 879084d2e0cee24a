//! Handles: Java holds a `long`; the registry maps it to an `Arc<Service>`.
//!
//! Handles count up from 1 and are never reused, so a stale handle is an error, never
//! another assistant. A call holds its own `Arc` for its duration: `close` racing with
//! `cancel` or `send` is safe (the loser sees `Closed`).

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use porfiry_runtime::Service;

use crate::error::BridgeError;

static NEXT: AtomicI64 = AtomicI64::new(1);

type Map = HashMap<i64, Arc<Service>>;

fn map() -> &'static Mutex<Map> {
    static MAP: OnceLock<Mutex<Map>> = OnceLock::new();
    MAP.get_or_init(|| Mutex::new(HashMap::new()))
}

fn locked() -> std::sync::MutexGuard<'static, Map> {
    map().lock().unwrap_or_else(|p| p.into_inner())
}

/// Stores a service; returns its new handle.
pub(crate) fn insert(service: Service) -> i64 {
    let handle = NEXT.fetch_add(1, Ordering::Relaxed);
    locked().insert(handle, Arc::new(service));
    handle
}

/// The service behind `handle`.
pub(crate) fn get(handle: i64) -> Result<Arc<Service>, BridgeError> {
    locked()
        .get(&handle)
        .cloned()
        .ok_or(BridgeError::BadHandle(handle))
}

/// Takes the service out of the registry (only one caller can).
pub(crate) fn remove(handle: i64) -> Result<Arc<Service>, BridgeError> {
    locked()
        .remove(&handle)
        .ok_or(BridgeError::BadHandle(handle))
}
