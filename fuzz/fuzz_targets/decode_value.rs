#![no_main]
//! Arbitrary bodies decoded into `Value`: no panic, canonical re-encoding.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| qdf_fuzz::decode_value(data));
