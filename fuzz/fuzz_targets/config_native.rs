#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hookchain_fuzz::config_native(data));
