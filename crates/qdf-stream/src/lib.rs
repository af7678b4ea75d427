//! qdf adapter for stream (to be built: see the issue tracker).
#![forbid(unsafe_code)]
