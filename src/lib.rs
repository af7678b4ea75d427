//! The `qdf` facade: the format from `qdf-core` at the root, the transport adapters as modules
//! behind features (`stream`, `axum`, `tonic`; `full` enables all three).
//!
#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

pub use qdf_core::*;

/// `tokio_util::codec` framing with a per-connection Dense session (feature `stream`).
#[cfg(feature = "stream")]
pub mod stream {
    pub use qdf_stream::*;
}

/// axum `Qdf<T>` extractor, response and streaming bodies (feature `axum`).
#[cfg(feature = "axum")]
pub mod axum {
    pub use qdf_axum::*;
}

/// tonic gRPC codec (feature `tonic`).
#[cfg(feature = "tonic")]
pub mod tonic {
    pub use qdf_tonic::*;
}
