//! The `qdf` facade: the format from `qdf-core` at the root, the transport adapters as modules
//! behind features (`stream`, `axum`, `tonic`; `full` enables all three). Each adapter
//! module's page is its guide.
//!
#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

pub use qdf_core::*;

#[cfg(feature = "stream")]
#[doc = include_str!("guide/stream.md")]
pub mod stream {
    pub use qdf_stream::*;
}

#[cfg(feature = "axum")]
#[doc = include_str!("guide/axum.md")]
pub mod axum {
    pub use qdf_axum::*;
}

#[cfg(feature = "tonic")]
#[doc = include_str!("guide/tonic.md")]
pub mod tonic {
    pub use qdf_tonic::*;
}
