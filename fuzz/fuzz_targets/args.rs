//! libFuzzer target: [`porfiry_fuzz::args`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| porfiry_fuzz::args(data));
