#![no_main]
//! Nested batches (sibling lists of records holding lists, maps, tuples, enums, options and
//! numeric-looking strings) built with `arbitrary`, round-tripped in every tier and read with
//! fewer fields; the input and a corrupted encoding decode without panicking. See
//! `src/nested_checks.rs`.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| qdf_fuzz::nested_round_trip(data));
