//! Fuzzes the QPack pickers with arbitrary slices; see `src/qpack_checks.rs`.
#![no_main]

#[path = "../src/qpack_checks.rs"]
#[allow(dead_code)]
mod qpack_checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| qpack_checks::qpack_roundtrip(data));
