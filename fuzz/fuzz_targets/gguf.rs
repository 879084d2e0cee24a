//! libFuzzer target: [`porfiry_fuzz::gguf`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| porfiry_fuzz::gguf(data));
