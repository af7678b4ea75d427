//! The `qdf` facade: the format from `qdf-core` at the root, the transport adapters as modules
//! behind features (`stream`, `axum`, `tonic`; `full` enables all three). Each adapter
//! module's page is its guide.
//!
#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

pub use qdf_core::*;

#[cfg(feature = "stream")]
pub mod stream {
    // Inner, so that the guide's links resolve inside this module.
    #![doc = include_str!("guide/stream.md")]
    pub use qdf_stream::*;
}

#[cfg(feature = "axum")]
pub mod axum {
    // Inner, so that the guide's links resolve inside this module.
    #![doc = include_str!("guide/axum.md")]
    pub use qdf_axum::*;
}

#[cfg(feature = "tonic")]
pub mod tonic {
    // Inner, so that the guide's links resolve inside this module.
    #![doc = include_str!("guide/tonic.md")]
    pub use qdf_tonic::*;
}
