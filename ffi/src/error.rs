//! The bridge's errors and how each becomes a Java exception.

use porfiry_runtime::catalog::CatalogError;
use porfiry_runtime::{RuntimeError, ServiceError};

/// What can go wrong in a bridge call. Each maps to one Java exception class.
#[derive(Debug, thiserror::Error)]
pub(crate) enum BridgeError {
    /// No assistant has this handle (never created, or closed). → `IllegalStateException`.
    #[error("no assistant with handle {0} (closed or never created)")]
    BadHandle(i64),
    /// The assistant was closed while the call ran. → `IllegalStateException`.
    #[error("the assistant is closed")]
    Closed,
    /// A null or invalid argument, an unreadable model or folder. → `IllegalArgumentException`.
    #[error("{0}")]
    InvalidArgument(String),
    /// No open catalog has this handle (never opened, or closed). → `IllegalStateException`.
    #[error("no catalog with handle {0} (closed or never opened)")]
    BadCatalogHandle(i64),
    /// The catalog store refused or failed (a document it does not accept, a duplicate name,
    /// a shared entry, a newer file…). → `app.porfiry.core.CatalogException` with the store's
    /// message verbatim and a code (`crate::catalog::error_code`).
    #[error("{0}")]
    Catalog(#[from] CatalogError),
    /// A JNI failure (including a pending Java exception). → `RuntimeException` unless a
    /// Java exception is already pending, which then propagates as is.
    #[error("JNI error: {0}")]
    Jni(#[from] jni::errors::Error),
    /// Anything else (thread creation, ...). → `RuntimeException`.
    #[error("{0}")]
    Internal(String),
}

/// The Java class of [`BridgeError::Catalog`] (binary name): its constructor takes
/// `(String code, String message)`.
pub(crate) const CATALOG_EXCEPTION: &str = "app/porfiry/core/CatalogException";

impl BridgeError {
    /// The Java exception class this error is thrown as (binary name).
    pub(crate) fn java_class(&self) -> &'static str {
        match self {
            BridgeError::BadHandle(_) | BridgeError::BadCatalogHandle(_) | BridgeError::Closed => {
                "java/lang/IllegalStateException"
            }
            BridgeError::Catalog(_) => CATALOG_EXCEPTION,
            BridgeError::InvalidArgument(_) => "java/lang/IllegalArgumentException",
            BridgeError::Jni(_) | BridgeError::Internal(_) => "java/lang/RuntimeException",
        }
    }
}

impl From<ServiceError> for BridgeError {
    fn from(e: ServiceError) -> Self {
        match e {
            ServiceError::Closed => BridgeError::Closed,
            ServiceError::InvalidArgument(msg) => BridgeError::InvalidArgument(msg),
            ServiceError::Internal(msg) => BridgeError::Internal(msg),
        }
    }
}

impl From<RuntimeError> for BridgeError {
    /// What the caller gave is wrong (a model that cannot be found or loaded, a missing
    /// folder) → an invalid argument; the rest is internal.
    fn from(e: RuntimeError) -> Self {
        match e {
            RuntimeError::Models(_)
            | RuntimeError::Engine { .. }
            | RuntimeError::MissingFolder { .. }
            | RuntimeError::Agent(_) => BridgeError::InvalidArgument(e.to_string()),
            _ => BridgeError::Internal(e.to_string()),
        }
    }
}
