//! Fuzzes the tANS entropy coder; see `src/tans_checks.rs`.
#![no_main]

#[path = "../src/tans_checks.rs"]
#[allow(dead_code)]
mod tans_checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| tans_checks::tans_roundtrip(data));
