//! The telemetry-grpc example's integration tests, a module a file, linked as one test binary.

mod common;
mod decode_limit;
mod large_and_corrupt;
mod lifetime;
mod round_trip;
mod session_caps;
