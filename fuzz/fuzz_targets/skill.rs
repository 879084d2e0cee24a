//! libFuzzer target: [`porfiry_fuzz::skill`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| porfiry_fuzz::skill(data));
