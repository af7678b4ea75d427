//! The qdf-stream integration tests, a module a file, linked as one test binary.

mod checksum;
mod chunked;
mod common;
mod dictionary;
mod new_user;
mod num_state;
mod renewal;
mod tcp;
mod tracing;
