#![no_main]
//! Arbitrary dictionary files, and bodies read on a fixed dictionary (`docs/SPEC.md` §25).
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| qdf_fuzz::dictionary_file(data));
