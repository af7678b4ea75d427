#![no_main]
//! Per-field numbers in a session (docs/SPEC.md §15.2): random records with extremes, NaN
//! payloads, renewals, failing messages and subset reads; exact round trips, a fresh
//! `Value` reader, and a flipped byte that never panics.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| qdf_fuzz::num_session(data));
