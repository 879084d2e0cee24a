//! libFuzzer target: [`porfiry_fuzz::catalog_document`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| porfiry_fuzz::catalog_document(data));
