#![no_main]
//! Whole streams (header included) read by `DecoderSession` and `StreamDecoder`: the same
//! values and errors, and the session failure rules.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| qdf_fuzz::session_frames(data));
