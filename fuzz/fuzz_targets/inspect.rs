#![no_main]
//! The tag walker on arbitrary message bodies and streams: no panic, and the same verdict as
//! the decoder.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| qdf_fuzz::inspect(data));
