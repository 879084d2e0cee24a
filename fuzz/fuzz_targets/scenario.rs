//! libFuzzer target: [`porfiry_fuzz::scenario`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| porfiry_fuzz::scenario(data));
