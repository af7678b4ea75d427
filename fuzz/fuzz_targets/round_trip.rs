#![no_main]
//! Arbitrary bodies decoded into `Value` and typed targets, then round-tripped in every tier.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| qdf_fuzz::round_trip(data));
