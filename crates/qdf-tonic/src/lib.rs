//! # qdf-tonic: qdf messages over gRPC
//!
//! A [`tonic`] [`Codec`](tonic::codec::Codec) that carries serde types as qdf instead of
//! protobuf. Its point is streaming RPCs: every stream direction keeps one Dense session,
//! so a service name, a span name or a resource attribute that repeats across the batches
//! of a telemetry export travels once per stream, not once per message.
//!
//! ## Defining a service
//!
//! There is no `.proto` file: describe the service with `tonic_build::manual` in a build
//! script and point `codec_path` at [`QdfCodec`]. Input and output types are plain
//! `Serialize + DeserializeOwned` structs.
//!
//! ```text
//! // build.rs
//! let export = tonic_build::manual::Method::builder()
//!     .name("export")
//!     .route_name("Export")
//!     .input_type("crate::model::ExportRequest")
//!     .output_type("crate::model::ExportSummary")
//!     .codec_path("qdf_tonic::QdfCodec::<_, _>")
//!     .client_streaming()
//!     .build();
//! let service = tonic_build::manual::Service::builder()
//!     .name("Collector")
//!     .package("telemetry")
//!     .method(export)
//!     .build();
//! tonic_build::manual::Builder::new().compile(&[service]);
//! ```
//!
//! Generated code calls `<codec_path>::default()`. Write the turbofish `QdfCodec::<_, _>`:
//! Rust infers `T` and `U` from the method but applies the default limits type only when
//! some arguments are written out (a bare `QdfCodec::default()` does not compile). For other
//! caps write `"qdf_tonic::QdfCodec::<_, _, crate::MyLimits>"` (see [`Limits`]).
//!
//! The generated client and server are used exactly as with protobuf; the workspace crate
//! `examples/telemetry-grpc` is a complete collector with client-, server- and
//! bidi-streaming methods, tests over loopback and a size comparison against prost.
//!
//! ## Sessions and framing
//!
//! gRPC already frames each message (a compressed flag and a `u32` length), so qdf's own
//! length prefix is left out: the first message of each direction starts with the 5-byte
//! qdf header, later messages are bare bodies (`docs/SPEC.md`, "gRPC framing"). A unary
//! call is therefore a self-contained qdf message each way. tonic builds one encoder and
//! one decoder per call, so sessions never leak from one RPC into another.
//!
//! ## Limits
//!
//! tonic creates codecs with `Default`, so caps come from a type: `QdfCodec<T, U, L>` with
//! `L: `[`Limits`], by default [`DefaultLimits`] (16 384 intern entries, 1 MiB of interned
//! strings and 1 024 shapes per stream direction). A stream that would cross a cap fails
//! with `resource_exhausted` instead of growing the server's memory.
//!
//! ```
//! use qdf_tonic::{DefaultLimits, Limits, QdfCodec};
//! use tonic::codec::Codec;
//!
//! #[derive(Debug)]
//! struct Tiny;
//! impl Limits for Tiny {
//!     const MAX_INTERN_ENTRIES: u32 = 256;
//! }
//!
//! // What generated code does for every call:
//! let mut codec = QdfCodec::<String, String, Tiny>::default();
//! let (_encoder, _decoder) = (codec.encoder(), codec.decoder());
//! assert_eq!(Tiny::options().intern_entry_cap(), 256);
//! assert_eq!(DefaultLimits::options().intern_entry_cap(), 16_384);
//! ```
//!
//! tonic's own settings apply on top and are unchanged: `max_decoding_message_size`
//! (default 4 MiB, checked before the codec sees a byte, `out_of_range`),
//! `max_encoding_message_size`, and gzip/zstd compression (`send_compressed`,
//! `accept_compressed`), which compresses each message after qdf encoded it.
//!
//! ## Errors
//!
//! Every failure is a [`tonic::Status`] whose message names the direction, the message's
//! index in its stream and qdf's error with its byte offset:
//!
//! | qdf error | received message | message to send |
//! |---|---|---|
//! | size limit: decoded-output limit, frame too large | `out_of_range` | `out_of_range` |
//! | other limit: session caps, nesting depth | `resource_exhausted` | `resource_exhausted` |
//! | bad bytes, early end, wrong shape for the type | `invalid_argument` | `internal` |
//! | broken session, I/O | `internal` | `internal` |
//!
//! tonic reports every encoder error as `internal` ("Error encoding: …") with the codec's
//! status as text, so the codes of the last column show in the message only.
//!
//! A message that fails to decode ends its call with that status (generated servers and
//! clients stop at the first error; in a Dense stream the session is broken anyway, since
//! the message may have carried table updates). Other calls on the same channel carry on.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod codec;
mod limits;
mod status;

pub use codec::{QdfCodec, QdfDecoder, QdfEncoder};
pub use limits::{DefaultLimits, Limits};
