//! qdf adapter for tonic (to be built: see the issue tracker).
#![forbid(unsafe_code)]
