//! Deterministic fixtures, real-data loaders and prost twins shared by tests, benches and examples.
