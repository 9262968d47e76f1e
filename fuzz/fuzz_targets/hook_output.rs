#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hookchain_fuzz::hook_output(data));
