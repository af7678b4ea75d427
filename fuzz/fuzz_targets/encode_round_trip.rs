#![no_main]
//! Arbitrary values (built with `arbitrary`) encoded in every tier and in sessions: whatever the
//! encoder accepts decodes back, exactly, under the same options; see `src/encode_checks.rs`.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| qdf_fuzz::encode_round_trip(data));
