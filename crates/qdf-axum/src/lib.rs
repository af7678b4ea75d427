//! qdf adapter for axum (to be built: see the issue tracker).
#![forbid(unsafe_code)]
