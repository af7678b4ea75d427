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
//! ## Stream lifetime
//!
//! A client stream that lives for hours stays on the backend it was balanced to when it
//! opened, so backends added or restarted since get none of its traffic, and its Dense
//! sessions keep tables learned hours ago. A [`StreamLifetime`] bounds one stream by
//! messages, bytes (measured by a size function such as [`encoded_len`]) and age; after
//! it the stream ends cleanly and the next one starts, with fresh sessions both ways, on
//! whatever backend the channel picks (OTel Arrow's `max_stream_lifetime`, STEF's
//! periodic close).
//!
//! - Client: a [`Rotation`] splits one long source of messages into successive calls of
//!   the generated method, each at most one lifetime long. Over a balanced channel
//!   (`tonic::transport::Channel::balance_list`, or `balance_channel` for a changing set)
//!   every call is placed anew.
//! - Server: a [`LifetimeStream`] around the handler's `Streaming<T>` ends the stream at
//!   the server's own lifetime, the backstop for clients that never rotate. The handler
//!   answers `OK` as usual with [`LifetimeStream::respond`], which adds the number of
//!   messages it read as the `qdf-accepted` response metadata ([`ACCEPTED_HEADER`]).
//!
//! ```text
//! // server: the generated trait's method
//! async fn export(&self, req: Request<Streaming<Batch>>) -> Result<Response<Summary>, Status> {
//!     let mut batches = LifetimeStream::new(req.into_inner(), self.lifetime);
//!     let mut summary = Summary::default();
//!     while let Some(batch) = batches.message().await? { summary.add(batch); }
//!     Ok(batches.respond(summary))                  // OK + qdf-accepted: <read>
//! }
//!
//! // client: one channel over three backends, a new stream every 10 000 batches or 5 min
//! let channel = Channel::balance_list(urls.map(|u| Channel::from_shared(u).unwrap()));
//! let client = CollectorClient::new(channel);
//! let lifetime = StreamLifetime::unlimited()
//!     .max_messages(10_000)
//!     .max_age(Duration::from_secs(300));
//! let mut rotation = Rotation::new(batches, lifetime);
//! rotation
//!     .run(|stream| { let mut c = client.clone(); async move { c.export(stream).await } })
//!     .await?;
//! ```
//!
//! No message is lost or delivered twice across a cut. gRPC client streaming acknowledges
//! nothing per message: when a server stops reading, messages tonic already sent may sit
//! unread in HTTP/2 buffers. The rotation therefore keeps a clone of each message of the
//! current call (messages must be `Clone`; memory is one lifetime's worth) and, when the
//! response says `qdf-accepted: n`, sends the messages past `n` first on the next call.
//! When the client's lifetime is the shorter one, the client closes each stream itself
//! and nothing is resent. A response without the count is refused unless the server is
//! known to read every stream to the end ([`Rotation::trust_unstamped`]). A failed call
//! returns its status from [`Rotation::run`]; its unacknowledged messages stay queued and
//! a later `run` sends them first (at least once, as for any retried call). Rotations and
//! lifetime ends emit `tracing` events at debug level (targets `qdf_tonic::rotation` and
//! `qdf_tonic::lifetime`), and so does a Dense session renewal (`docs/SPEC.md` §18) read or
//! written by a codec (target `qdf_tonic::codec`, `qdf encoder session renewed` /
//! `qdf decoder session renewed`, fields `generation` and the message index `message`).
//!
//! The workspace example `examples/telemetry-grpc` runs it end to end: the
//! `lifetime-demo` binary exports 2 000 batches in streams of 100 over three collectors
//! behind `Channel::balance_list`.
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
mod lifetime;
mod limits;
mod rotation;
mod status;

pub use codec::{QdfCodec, QdfDecoder, QdfEncoder};
pub use lifetime::{ACCEPTED_HEADER, LifetimeEnd, LifetimeStream, StreamLifetime, encoded_len};
pub use limits::{DefaultLimits, Limits};
pub use rotation::{RotatingStream, Rotation, RotationStats};
