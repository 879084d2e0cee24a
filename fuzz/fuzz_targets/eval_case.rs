//! libFuzzer target: [`porfiry_fuzz::eval_case`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| porfiry_fuzz::eval_case(data));
