//! The qdf-axum integration tests, a module a file, linked as one test binary.

mod checksum;
mod common;
mod dictionary;
mod dictionary_streams;
mod frames;
mod message;
mod renewal;
mod try_stream;
