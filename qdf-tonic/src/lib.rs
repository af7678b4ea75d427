//! qdf messages over gRPC: [`QdfCodec`], a tonic `Codec` with one Dense session per stream
//! direction, caps by [`Limits`], and stream lifetimes ([`StreamLifetime`], [`Rotation`],
//! [`LifetimeStream`]).
//!
//! This crate is the implementation behind the `qdf` crate's `qdf::tonic` module (feature
//! `tonic`); its guide (defining a service with tonic-build and the `codec_path` to write,
//! sessions and framing, limits, stream lifetime, errors) is that module's page. Depend on
//! `qdf` rather than on this crate; in `codec_path` write `qdf::tonic::QdfCodec::<_, _>`.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod codec;
mod lifetime;
mod limits;
mod rotation;
mod status;

pub use codec::{QdfCodec, QdfDecoder, QdfEncoder};
pub use lifetime::{ACCEPTED_HEADER, LifetimeEnd, LifetimeStream, StreamLifetime, encoded_len};
pub use limits::{DefaultLimits, Limits};
pub use rotation::{RotatingStream, Rotation, RotationStats};
