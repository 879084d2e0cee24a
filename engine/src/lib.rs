//! Porfiry's inference engine (placeholder crate doc; the engine work replaces it).
