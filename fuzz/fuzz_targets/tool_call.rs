//! libFuzzer target: [`porfiry_fuzz::tool_call`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| porfiry_fuzz::tool_call(data));
