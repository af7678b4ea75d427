//! [`QdfCodec`] and its per-stream [`QdfEncoder`] / [`QdfDecoder`].
//!
//! tonic calls [`Codec::encoder`] once for the messages a call sends and
//! [`Codec::decoder`] once for the messages it receives, whatever the call kind. Each holds
//! one qdf session, so the Dense tables live exactly as long as one direction of one RPC.
//!
//! Wire of one direction (gRPC's own 5-byte prefix, compressed flag and `u32` length, wraps
//! each message and is not shown):
//!
//! ```text
//! message 0:  'Q' 'D' 'F' version flags ‖ body 0
//! message 1:  body 1
//! message n:  body n          (bodies carry no qdf length prefix)
//! ```
//!
//! Frame checksums (`docs/SPEC.md` §17): a decoder checks them when a peer's header has flag
//! `10` (each message then ends with its CRC-32C, and a damaged one is `INVALID_ARGUMENT`);
//! the encoders here never set it. gRPC runs over HTTP/2, in practice inside TLS, whose record
//! authentication already rejects damaged bytes, so the 4 bytes per message buy nothing there.

use std::fmt;
use std::marker::PhantomData;
use std::sync::{Arc, OnceLock};

use bytes::{Buf, BufMut};
use qdf_core::{DecoderSession, Dictionary, EncoderSession, Options};
use serde::Serialize;
use serde::de::DeserializeOwned;
use tonic::Status;
use tonic::codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};

use crate::limits::{DefaultLimits, Limits};
use crate::status::{Side, to_status};

/// Scratch capacity an encoder keeps between messages: 1 MiB. A larger message's buffer is
/// released after it is sent, so one huge message does not pin memory for the whole stream.
const SCRATCH_KEEP: usize = 1 << 20;

/// Marks type parameters without owning them; `fn() -> X` keeps the codec `Send + Sync`
/// whatever `X` is.
type Marker<X> = PhantomData<fn() -> X>;

/// A tonic [`Codec`](https://docs.rs/tonic/0.14/tonic/codec/trait.Codec.html) that sends `T` and receives `U` as qdf, with one session per stream
/// direction and the caps of `L`.
///
/// Built by generated code with `Default`; name it in tonic-build's `codec_path` as
/// `"qdf::tonic::QdfCodec::<_, _>"` (the turbofish is needed, see the `qdf::tonic` guide).
/// `T` and `U` are inferred from the method's input and output types.
///
/// Pre-shared dictionaries: see [`Limits::dictionaries`]. The encoder and the decoder a
/// codec hands out (one call's two directions) share what the peer's stream named, so a
/// response starts from the dictionary of its request, and the dictionary this side's
/// stream started from, so a client reads an answer in its request's dictionary even after
/// its registry retired it. That link is per codec value, as generated code builds one per
/// call; a clone starts without it. The codec never sees call metadata (tonic's `Codec` is
/// given none), so a `qdf-dictionary` header cannot steer it: a client announces its
/// dictionary by using it.
pub struct QdfCodec<T, U, L = DefaultLimits> {
    /// What this codec's encoder and decoder share; created by the first
    /// `encoder()`/`decoder()`.
    link: Option<CallLink>,
    _marker: Marker<(T, U, L)>,
}

/// The dictionaries of one call's two directions, each set once when its stream starts.
#[derive(Default)]
struct Link {
    /// The one the received stream named and this side holds: set by the decoder, the
    /// encoder answers in it.
    peer: OnceLock<Dictionary>,
    /// The one the sent stream started from: set by the encoder, the decoder reads an
    /// answer naming it even once the registry retired it (the call itself sent it).
    sent: OnceLock<Dictionary>,
}

type CallLink = Arc<Link>;

impl<T, U, L> QdfCodec<T, U, L> {
    /// A codec; the same as `Default`.
    pub const fn new() -> Self {
        QdfCodec {
            link: None,
            _marker: PhantomData,
        }
    }

    fn link(&mut self) -> CallLink {
        Arc::clone(self.link.get_or_insert_with(Default::default))
    }
}

impl<T, U, L> Default for QdfCodec<T, U, L> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T, U, L> Clone for QdfCodec<T, U, L> {
    fn clone(&self) -> Self {
        Self::new()
    }
}

impl<T, U, L> fmt::Debug for QdfCodec<T, U, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("QdfCodec")
    }
}

impl<T, U, L> Codec for QdfCodec<T, U, L>
where
    T: Serialize + Send + 'static,
    U: DeserializeOwned + Send + 'static,
    L: Limits,
{
    type Encode = T;
    type Decode = U;
    type Encoder = QdfEncoder<T, L>;
    type Decoder = QdfDecoder<U, L>;

    fn encoder(&mut self) -> Self::Encoder {
        QdfEncoder::answering(self.link())
    }

    fn decoder(&mut self) -> Self::Decoder {
        QdfDecoder::recording(self.link())
    }
}

/// Encodes the messages of one stream direction with one [`EncoderSession`].
///
/// The first message carries the 5-byte qdf header; strings, shapes and predictor state
/// learned on earlier messages are referenced by later ones. Errors become a [`Status`](https://docs.rs/tonic/0.14/tonic/struct.Status.html)
/// (`internal`, or `resource_exhausted`/`out_of_range` for limits) and leave the session
/// as before the failed message.
///
/// Its stream starts from a pre-shared dictionary as [`Limits::dictionaries`] says, chosen
/// at the first message.
pub struct QdfEncoder<T, L = DefaultLimits> {
    session: EncoderSession,
    scratch: Vec<u8>,
    sent: u64,
    /// The call's dictionaries (see [`QdfCodec`]): the peer's, if this encoder answers
    /// one; it records its own there.
    link: CallLink,
    _marker: Marker<(T, L)>,
}

impl<T, L: Limits> QdfEncoder<T, L> {
    /// A fresh session with [`L::options`](Limits::options) (its frame length limit is
    /// the message length limit). It answers no peer: its stream starts from the
    /// dictionaries' current one if [`Limits::SEND_CURRENT_DICTIONARY`], else from none.
    pub fn new() -> Self {
        Self::answering(Default::default())
    }

    fn answering(link: CallLink) -> Self {
        QdfEncoder {
            session: EncoderSession::new(L::options()),
            scratch: Vec::new(),
            sent: 0,
            link,
            _marker: PhantomData,
        }
    }

    /// Before the first message: the dictionary to start from (the peer's, else the
    /// registry's current one if configured), if any.
    #[cold]
    fn start_dictionary(&mut self) {
        let Some(registry) = L::dictionaries() else {
            return;
        };
        // The peer's dictionary was taken from the registry when its stream arrived: it is
        // used even if retired since (the call started on it).
        let peer = self.link.peer.get().cloned();
        let dict = peer.or_else(|| L::SEND_CURRENT_DICTIONARY.then(|| registry.current())?);
        if let Some(d) = dict {
            let _ = self.link.sent.set(d.clone());
            let placeholder = EncoderSession::new(Options::speed());
            self.session = std::mem::replace(&mut self.session, placeholder).with_dictionary(d);
        }
    }
}

impl<T, L: Limits> Default for QdfEncoder<T, L> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T, L> QdfEncoder<T, L> {
    /// Messages encoded so far.
    pub fn messages(&self) -> u64 {
        self.sent
    }
}

impl<T, L> fmt::Debug for QdfEncoder<T, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("QdfEncoder")
            .field("session", &self.session)
            .field("sent", &self.sent)
            .finish()
    }
}

impl<T: Serialize, L: Limits> Encoder for QdfEncoder<T, L> {
    type Item = T;
    type Error = Status;

    fn encode(&mut self, item: T, dst: &mut EncodeBuf<'_>) -> Result<(), Status> {
        self.scratch.clear();
        if self.sent == 0 {
            self.start_dictionary();
        }
        let renewals = self.session.renewals();
        self.session
            .encode_message(&item, &mut self.scratch)
            .map_err(|e| to_status(&e, Side::Encode, self.sent))?;
        if self.session.renewals() != renewals {
            tracing::debug!(
                generation = self.session.renewals(),
                message = self.sent,
                "qdf encoder session renewed"
            );
        }
        put_message(&mut self.scratch, dst);
        self.sent += 1;
        Ok(())
    }
}

/// Copies the encoded message into tonic's buffer and trims the scratch buffer.
fn put_message(scratch: &mut Vec<u8>, dst: &mut EncodeBuf<'_>) {
    dst.reserve(scratch.len());
    dst.put_slice(scratch);
    if scratch.capacity() > SCRATCH_KEEP {
        scratch.clear();
        scratch.shrink_to(SCRATCH_KEEP);
    }
}

/// Decodes the messages of one stream direction with one [`DecoderSession`].
///
/// Each call consumes the whole message tonic hands over (tonic has already removed the
/// gRPC prefix, checked `max_decoding_message_size` and decompressed). A message that is
/// not valid qdf yields an error [`Status`](https://docs.rs/tonic/0.14/tonic/struct.Status.html). In a Dense stream the session is then broken
/// (the message may have carried table updates) and every later message of that stream
/// fails too; other streams are unaffected.
///
/// A stream naming a pre-shared dictionary is decoded with [`Limits::dictionaries`]' one.
pub struct QdfDecoder<U, L = DefaultLimits> {
    session: DecoderSession,
    received: u64,
    /// The call's dictionaries: where the one the peer's stream names is recorded for the
    /// call's encoder, and the one the encoder started from.
    link: CallLink,
    _marker: Marker<(U, L)>,
}

impl<U, L: Limits> QdfDecoder<U, L> {
    /// A fresh session with [`L::options`](Limits::options) (its frame length limit is
    /// the message length limit).
    pub fn new() -> Self {
        Self::recording(Default::default())
    }

    fn recording(link: CallLink) -> Self {
        QdfDecoder {
            session: DecoderSession::new(L::options()),
            received: 0,
            link,
            _marker: PhantomData,
        }
    }
}

/// Before the first message of a stream: gives `session` the dictionary that `msg`'s
/// header names, from `L`'s registry or, if the registry no longer holds it, the one this
/// call's own stream started from (an answer in the request's dictionary), and records it
/// in `link.peer`. A miss leaves the session to report
/// [`UnknownDictionary`](qdf_core::ErrorCode::UnknownDictionary) (holding the registry's
/// current dictionary, so the error names it); a header that is not qdf is left to the
/// session too.
#[cold]
fn pick_dictionary<L: Limits>(session: &mut DecoderSession, link: &Link, msg: &[u8]) {
    let Some(registry) = L::dictionaries() else {
        return;
    };
    let Ok(Some(id)) = qdf_core::dictionary_id(msg) else {
        return;
    };
    let own = || link.sent.get().filter(|d| d.id() == id).cloned();
    let found = registry.get(id).or_else(own);
    if let Some(d) = &found {
        let _ = link.peer.set(d.clone());
    }
    if let Some(d) = found.or_else(|| registry.current()) {
        let placeholder = DecoderSession::new(Options::speed());
        *session = std::mem::replace(session, placeholder).with_dictionary(d);
    }
}

impl<U, L: Limits> Default for QdfDecoder<U, L> {
    fn default() -> Self {
        Self::new()
    }
}

impl<U, L> QdfDecoder<U, L> {
    /// Messages handed to the decoder so far, failed ones included.
    pub fn messages(&self) -> u64 {
        self.received
    }
}

impl<U, L> fmt::Debug for QdfDecoder<U, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("QdfDecoder")
            .field("session", &self.session)
            .field("received", &self.received)
            .finish()
    }
}

impl<U: DeserializeOwned, L: Limits> Decoder for QdfDecoder<U, L> {
    type Item = U;
    type Error = Status;

    fn decode(&mut self, src: &mut DecodeBuf<'_>) -> Result<Option<U>, Status> {
        let index = self.received;
        self.received += 1;
        let (session, link) = (&mut self.session, &self.link);
        let renewals = session.renewals();
        let decoded = with_whole_message(src, |msg| {
            if index == 0 {
                pick_dictionary::<L>(session, link, msg);
            }
            session.decode_message(msg)
        });
        if self.session.renewals() != renewals {
            tracing::debug!(
                generation = self.session.renewals(),
                message = index,
                "qdf decoder session renewed"
            );
        }
        decoded
            .map(Some)
            .map_err(|e| to_status(&e, Side::Decode, index))
    }
}

/// Runs `f` on the whole message in `src` and consumes it, also when `f` fails: tonic would
/// otherwise hand the same bytes over again.
fn with_whole_message<R>(src: &mut DecodeBuf<'_>, f: impl FnOnce(&[u8]) -> R) -> R {
    let len = src.remaining();
    // tonic's message buffer is one `BytesMut`, so the message is one contiguous chunk; copy
    // only if a future tonic hands over a chained buffer.
    let out = if src.chunk().len() == len {
        f(src.chunk())
    } else {
        f(&src.copy_to_bytes(len))
    };
    src.advance(src.remaining());
    out
}

#[cfg(test)]
mod tests {
    use qdf_core::{EncoderSession, Options};

    /// The example of `docs/SPEC.md`, "gRPC framing": the header on message 0 only.
    #[test]
    fn spec_grpc_framing_example() {
        let mut session = EncoderSession::new(Options::speed());
        let (mut first, mut second) = (Vec::new(), Vec::new());
        session.encode_message("api", &mut first).unwrap();
        session.encode_message("api", &mut second).unwrap();
        assert_eq!(
            first,
            [0x51, 0x44, 0x46, 0x01, 0x00, 0x83, 0x61, 0x70, 0x69]
        );
        assert_eq!(second, [0x83, 0x61, 0x70, 0x69]);
    }
}
