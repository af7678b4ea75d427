#![no_main]
//! A Dense session with small caps that renews often (explicitly and by its own policy),
//! with failing messages in between: exact round trips and mirrored tables.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| qdf_fuzz::renewing_session(data));
