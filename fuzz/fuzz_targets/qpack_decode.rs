//! Fuzzes the QPack decoders (`decode` over arbitrary bodies); see `src/qpack_checks.rs`.
#![no_main]

#[path = "../src/qpack_checks.rs"]
#[allow(dead_code)]
mod qpack_checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| qpack_checks::qpack_decode(data));
