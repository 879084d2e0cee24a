//! libFuzzer target: [`porfiry_fuzz::snapshot`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| porfiry_fuzz::snapshot(data));
