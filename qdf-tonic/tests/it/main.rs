//! The qdf-tonic integration tests, a module a file, linked as one test binary.

mod common;
mod dictionary;
mod dictionary_calls;
mod framing;
mod lifetime;
