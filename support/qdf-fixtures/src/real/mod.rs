//! Typed models and loaders for the real datasets shipped in `data/` (licences in
//! `data/README.md`), and the HDFS log line parser.
//!
//! Loaders read the files at run time from `CARGO_MANIFEST_DIR/data`, so the bytes stay out of
//! every binary that does not load them.

pub mod hdfs;
pub mod seattle;
pub mod usgs;
pub mod zipkin;

use std::path::PathBuf;

/// An error loading a shipped dataset: the file is missing or does not parse as the model.
#[derive(Debug)]
pub struct LoadError {
    /// The file's name under `data/`.
    pub file: &'static str,
    /// What went wrong.
    pub reason: String,
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "loading data/{}: {}", self.file, self.reason)
    }
}

impl std::error::Error for LoadError {}

/// The contents of `data/<file>`.
pub(crate) fn read(file: &'static str) -> Result<String, LoadError> {
    let path: PathBuf = [env!("CARGO_MANIFEST_DIR"), "data", file].iter().collect();
    std::fs::read_to_string(&path).map_err(|e| LoadError {
        file,
        reason: e.to_string(),
    })
}

/// Parses `data/<file>` as JSON into `T`.
pub(crate) fn read_json<T: serde::de::DeserializeOwned>(
    file: &'static str,
) -> Result<T, LoadError> {
    serde_json::from_str(&read(file)?).map_err(|e| LoadError {
        file,
        reason: e.to_string(),
    })
}
