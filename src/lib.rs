//! # qdf
//!
//! A compact, self-describing binary format for serde, built for streams of structured
//! messages (logs, spans, metrics, events, rows). This crate is a facade: the format lives in
//! [`qdf-core`](qdf_core) and is re-exported at the root; the transport adapters are modules
//! behind features:
//!
//! | feature  | module          | what it gives                                              |
//! |----------|-----------------|------------------------------------------------------------|
//! | `stream` | [`stream`]      | `tokio_util::codec` `QdfCodec`, one Dense session per connection |
//! | `axum`   | [`axum`]        | the `Qdf<T>` extractor and response, streaming bodies      |
//! | `tonic`  | [`tonic`]       | a tonic gRPC `Codec` with one session per stream direction |
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
