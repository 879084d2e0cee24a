//! libFuzzer target: [`porfiry_fuzz::toolset`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| porfiry_fuzz::toolset(data));
