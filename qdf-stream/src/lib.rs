//! Typed qdf messages over any `AsyncRead + AsyncWrite`, with one session per connection:
//! [`QdfCodec`], a `tokio_util` codec.
//!
//! This crate is the implementation behind the `qdf` crate's `qdf::stream` module (feature
//! `stream`); its guide (getting started, the wire, settings, split halves, errors,
//! cancellation, memory, tracing) is that module's page. Depend on `qdf` rather than on this
//! crate.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod builder;
mod codec;
mod error;

pub use builder::Builder;
pub use codec::QdfCodec;
pub use error::QdfCodecError;
