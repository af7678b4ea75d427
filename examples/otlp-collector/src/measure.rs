//! Deterministic message sizes of a stream of OTLP requests under each codec: what the gRPC
//! `Export` stream carries before gRPC's 5-byte prefixes and HTTP/2 framing.
//!
//! `otlp-compare` measures the wire of real calls; these figures are the codec's share of it,
//! identical on every run and machine, so tests pin them.

use prost::Message;
use qdf_tonic::{DefaultLimits, Limits};
use serde::Serialize;

/// zstd level of tonic's gRPC compression (`CompressionLevel::Default`).
pub const ZSTD_LEVEL: i32 = 3;

/// Total message bytes of one stream under each codec.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MessageBytes {
    /// Protobuf (`prost`), one message per request.
    pub protobuf: u64,
    /// Each protobuf message compressed with zstd at [`ZSTD_LEVEL`].
    pub protobuf_zstd: u64,
    /// qdf through one `EncoderSession` with qdf-tonic's [`DefaultLimits`] (what
    /// `QdfCodec` sends: header on the first message, bare bodies after).
    pub qdf: u64,
    /// Each qdf message compressed with zstd at [`ZSTD_LEVEL`].
    pub qdf_zstd: u64,
}

/// The sizes of `requests` sent as one stream.
///
/// # Errors
/// A qdf or zstd error (none for `opentelemetry-proto` requests).
pub fn message_bytes<T: Message + Serialize>(
    requests: &[T],
) -> Result<MessageBytes, Box<dyn std::error::Error>> {
    let mut session = qdf_core::EncoderSession::new(DefaultLimits::options());
    let mut out = MessageBytes::default();
    let mut buf = Vec::new();
    for r in requests {
        let pb = r.encode_to_vec();
        out.protobuf += pb.len() as u64;
        out.protobuf_zstd += zstd::bulk::compress(&pb, ZSTD_LEVEL)?.len() as u64;
        buf.clear();
        session.encode_message(r, &mut buf)?;
        out.qdf += buf.len() as u64;
        out.qdf_zstd += zstd::bulk::compress(&buf, ZSTD_LEVEL)?.len() as u64;
    }
    Ok(out)
}
