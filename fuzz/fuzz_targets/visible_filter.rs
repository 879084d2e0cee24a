//! libFuzzer target: [`porfiry_fuzz::visible_filter`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| porfiry_fuzz::visible_filter(data));
