//! Porfiry's JNI bridge: the native library `libporfiry.so` behind the app's `PorfiryNative`
//! binding class. (Being built; see ARCHITECTURE.md.)
#![deny(missing_docs)]
