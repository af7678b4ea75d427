//! Typed qdf messages over any `AsyncRead + AsyncWrite`, with one session per connection.
//!
//! [`QdfCodec`] is a `tokio_util` codec: wrap a socket in
//! [`Framed`](tokio_util::codec::Framed) and send and receive serde values. With
//! [`QdfCodec::dense()`] each direction keeps a Dense session for the life of the
//! connection, so strings, keys and shapes are paid for once per connection rather than once
//! per message.
//!
//! # Getting started
//!
//! ```
//! use futures::{SinkExt, StreamExt};
//! use qdf_stream::QdfCodec;
//! use serde::{Deserialize, Serialize};
//! use tokio_util::codec::Framed;
//!
//! #[derive(Serialize, Deserialize, Debug, PartialEq)]
//! struct Reading {
//!     sensor: String,
//!     celsius: f64,
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), qdf_stream::QdfCodecError> {
//! // Any AsyncRead + AsyncWrite works: a TcpStream, a UnixStream, an in-memory duplex.
//! let (client, server) = tokio::io::duplex(64 * 1024);
//! let mut tx = Framed::new(client, QdfCodec::<()>::dense());
//! let mut rx = Framed::new(server, QdfCodec::<Reading>::dense());
//!
//! let r = Reading { sensor: "attic".into(), celsius: 21.5 };
//! tx.send(&r).await?; // `&T` or `T`, any `T: Serialize`
//! assert_eq!(rx.next().await.transpose()?, Some(r));
//!
//! drop(tx); // a clean end between frames ends the stream
//! assert!(rx.next().await.is_none());
//! # Ok(())
//! # }
//! ```
//!
//! The type parameter is what the codec *decodes*; encoding takes any `Serialize` value, so a
//! write-only codec can be `QdfCodec<()>`. The price of encoding any type: `Sink` methods that
//! take no item (`flush`, `close`) need the item type named, e.g.
//! `SinkExt::<&Reading>::flush(&mut tx)`; `send` flushes by itself.
//!
//! # The wire
//!
//! ```text
//! +---- once per direction ----+---- per message ----+----------------+
//! | 'Q' 'D' 'F' 0x01 flags     | uvarint(len)        | body[len] ...  |
//! +----------------------------+---------------------+----------------+
//! ```
//!
//! With [`Builder::checksum`] each body is followed by its CRC-32C (4 bytes, `len` counting
//! them; header flag `10`), and the receiving codec refuses a damaged frame with
//! [`ErrorCode::ChecksumMismatch`](qdf_core::ErrorCode::ChecksumMismatch), which breaks its
//! session, instead of decoding it.
//!
//! All of it is `qdf_core`'s sans-IO framing ([`qdf_core::session`]); this crate only maps
//! it onto `tokio_util`'s traits.
//!
//! # Settings
//!
//! [`QdfCodec::builder()`] sets the tier, `max_frame_length` (default 8 MiB), frame checksums
//! (default off), the session caps (intern entries, intern bytes, shapes) and a backpressure
//! boundary for writers:
//!
//! ```
//! use qdf_core::Options;
//! use qdf_stream::QdfCodec;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let (io, _peer) = tokio::io::duplex(1024);
//! let framed = QdfCodec::builder()
//!     .options(Options::speed())
//!     .max_frame_length(64 * 1024)
//!     .checksum(true)
//!     .backpressure_boundary(32 * 1024)
//!     .new_framed::<_, String>(io);
//! assert_eq!(framed.backpressure_boundary(), 32 * 1024);
//! assert!(framed.codec().encoder_session().checksum());
//! # }
//! ```
//!
//! # Split halves
//!
//! Each direction owns its own session, so the halves of `tokio::io::split` can be framed
//! separately and moved to different tasks:
//!
//! ```
//! use futures::{SinkExt, StreamExt};
//! use qdf_stream::QdfCodec;
//! use tokio_util::codec::{FramedRead, FramedWrite};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), qdf_stream::QdfCodecError> {
//! let (a, b) = tokio::io::duplex(4096);
//! let (read_half, write_half) = tokio::io::split(a);
//! let mut inbox = FramedRead::new(read_half, QdfCodec::<u64>::dense());
//! let mut outbox = FramedWrite::new(write_half, QdfCodec::<()>::dense());
//! let mut echo = tokio_util::codec::Framed::new(b, QdfCodec::<u64>::dense());
//!
//! outbox.send(41u64).await?;
//! let n = echo.next().await.unwrap()?;
//! echo.send(n + 1).await?;
//! assert_eq!(inbox.next().await.transpose()?, Some(42));
//! # Ok(())
//! # }
//! ```
//!
//! # Errors
//!
//! [`QdfCodecError`] has an `Io` variant, `FrameTooLarge { len, max }` and the core error;
//! [`QdfCodecError::category`] tells truncation, malformed bytes, a wrong shape, limits and a
//! broken session apart. A value too large to send fails before any byte is written, and the
//! connection stays usable:
//!
//! ```
//! use futures::{SinkExt, StreamExt};
//! use qdf_stream::{QdfCodec, QdfCodecError};
//! use tokio_util::codec::Framed;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), QdfCodecError> {
//! let (a, b) = tokio::io::duplex(4096);
//! let mut tx = QdfCodec::builder().max_frame_length(100).new_framed::<_, ()>(a);
//! let mut rx = Framed::new(b, QdfCodec::<String>::dense());
//!
//! let err = tx.send("x".repeat(500)).await.unwrap_err();
//! assert!(matches!(err, QdfCodecError::FrameTooLarge { max: 100, .. }));
//! tx.send("still fine").await?;
//! assert_eq!(rx.next().await.transpose()?.as_deref(), Some("still fine"));
//! # Ok(())
//! # }
//! ```
//!
//! A stream that ends inside a frame yields an `Eof` error; a clean end between frames ends
//! it with `None`. After a decode error in a Dense stream the decoder is broken: `Framed`
//! yields the error, then `None`; polling again yields
//! [`ErrorCode::Broken`](qdf_core::ErrorCode::Broken). A corrupt frame in a `fast()` stream
//! is skipped and, polled again, the stream goes on with the next frame, unless the stream
//! carries checksums: a frame failing its checksum breaks the decoder in any stream (its
//! length may be what was damaged).
//!
//! # Cancellation
//!
//! - `StreamExt::next` on a `FramedRead`/`Framed` is cancel-safe: bytes stay in the read
//!   buffer and a frame is decoded synchronously once complete.
//! - `SinkExt::send` may be dropped (e.g. in `select!`): encoding happens synchronously in
//!   `start_send`, so a dropped `send` has either queued the whole frame (flushed by the next
//!   `send`/`flush`) or nothing; the session never sees half a message. Which of the two
//!   happened is not reported, so resend only if the protocol tolerates duplicates.
//! - `SinkExt::flush` / `close` are cancel-safe: they can be called again.
//!
//! # Memory and backpressure
//!
//! A reader holds at most one partial frame, reserved in proportion to the bytes that
//! arrived (see [`QdfCodec`]); a writer holds at most the backpressure boundary plus one
//! frame. Session tables are capped ([`Builder::max_intern_entries`],
//! [`Builder::max_intern_bytes`], [`Builder::max_shapes`]).
//!
//! With the defaults, one direction of a connection holds at most: the read buffer (one
//! frame, ≤ 8 MiB, and only as much as the peer sent), the write buffer (8 KiB boundary plus
//! one frame), the encoder's reusable frame buffer (the largest frame sent), and a Dense
//! session's tables: ≤ 4 MiB of interned bytes in ≤ 65 535 entries and ≤ 4 096 shapes. A
//! server with many connections lowers `max_intern_bytes` and `max_frame_length`; a
//! `fast()` codec keeps no tables at all.
//!
//! # Tracing
//!
//! The codec emits `tracing` events under the target `qdf_stream::codec`, never at `info` or
//! above:
//!
//! | level | message | fields |
//! |---|---|---|
//! | `trace` | `qdf frame encoded` / `qdf frame decoded`, once per frame | `frame_len` (bytes the frame occupies in the stream: length prefix and body, plus the 5-byte stream header for the first frame), `buffered` (bytes left in the write or read buffer) |
//! | `debug` | `qdf encoder tables grew` / `qdf decoder tables grew`, after a frame that grew the session's Dense tables | `frame_len`, and the new sizes ([`SessionStats`](qdf_core::SessionStats)): `intern_entries`, `intern_bytes`, `shapes`, `col_shapes`, `shape_bytes`, `heap_bytes` |
//! | `debug` | `qdf frame not encoded` / `qdf frame failed` | `error`; on decode `frame_len` and `broken` |
//! | `debug` | `qdf encoder session renewed` / `qdf decoder session renewed`, after a frame that carried a renewal (`docs/SPEC.md` §18) | `generation`, `frame_len`; on encode the `frames` and `bytes` of the generation it ended |
//!
//! A long-lived Dense connection stops growing once its vocabulary is known, so at `debug`
//! a healthy stream logs a few growth events and then nothing. Without a subscriber the cost
//! is a cached level check per event; the table sizes are read only when `debug` is enabled.
//! [`QdfCodec::encoder_stats`] and [`QdfCodec::decoder_stats`] give the same sizes on demand.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod builder;
mod codec;
mod error;

pub use builder::Builder;
pub use codec::QdfCodec;
pub use error::QdfCodecError;
