//! [`QdfCodec`]: the `Decoder`/`Encoder` pair, one qdf session per direction.

use std::fmt;
use std::marker::PhantomData;

use bytes::{Buf, BytesMut};
use qdf_core::{DecoderSession, EncoderSession, FrameDecode, Options, SessionStats};
use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio_util::codec::{Decoder, Encoder};
use tracing::{Level, debug, trace};

use crate::builder::{DictionaryLookup, RenewPolicy};
use crate::{Builder, QdfCodecError};

/// Bytes reserved at once for a frame whose bytes are still arriving, before the frame has
/// shown that it is larger (then the reservation grows with what arrived, see
/// [`QdfCodec`]'s memory notes).
const MIN_RESERVE: usize = 8 * 1024;

/// A `tokio_util` codec that receives `D` and sends `&E` (by default `E = D`) as qdf frames:
/// the stream header once per direction, then `uvarint(len) ‖ body` per value.
///
/// The codec is an `Encoder<&E>` and nothing else, so the sink's item type is fixed by the
/// codec's type: a write-only `Framed::new(io, QdfCodec::dense())` takes its type from the
/// first `send(&value)`, and `flush()`/`close()` need no annotation. A peer that sends one
/// type and receives another is a `QdfCodec<Incoming, Outgoing>`, built with
/// [`QdfCodec::builder()`]`.new_codec()`. `E` may be unsized: a `QdfCodec<String, str>`
/// sends `&str`.
///
/// Each direction owns its session (an [`EncoderSession`] for `encode`, a
/// [`DecoderSession`] for `decode`), so after `tokio::io::split` a `FramedRead` and a
/// `FramedWrite` each holding a `QdfCodec` work independently. The guide is the `qdf` crate's
/// `qdf::stream` module page.
///
/// # Memory
///
/// `decode` reserves read-buffer space only for bytes the current frame is known to miss,
/// and never more than the bytes of that frame already received (or 8 KiB): a peer that
/// announces a frame of the maximum length and stalls costs about twice what it sent.
/// A length above `max_frame_length` is refused as soon as its prefix arrives.
///
/// # Errors
///
/// Encode errors (a value that cannot be serialized, a body above the maximum frame length)
/// write nothing to the buffer and leave the session as it was: the connection stays usable.
/// Decode errors follow [`qdf_core::DecoderSession`]'s failure rules: framing errors and body
/// errors in a Dense stream break the decoder (every later `decode` fails with
/// [`qdf_core::ErrorCode::Broken`]); a body error in a stateless (`fast()`) stream skips that
/// frame, but a frame failing its checksum ([`Builder::checksum`]) breaks the decoder in any
/// stream. The decoder never returns a value after an error that could have corrupted it.
///
/// Note that `tokio_util`'s `Framed`/`FramedRead` end the stream after yielding any decoder
/// error: the next `next()` returns `None`, and a frame already buffered behind the failed
/// one is only delivered if the stream is polled again *and* more bytes arrive. With
/// `Framed`, treat a decode error as the end of the connection, even in a `fast()` stream.
pub struct QdfCodec<D, E: ?Sized = D> {
    enc: EncoderSession,
    dec: DecoderSession,
    /// Reused encode buffer: a frame is built here, then copied whole into the write buffer.
    scratch: Vec<u8>,
    /// The table sizes last reported at `debug` level, per direction (see [`grew`]).
    enc_reported: SessionStats,
    dec_reported: SessionStats,
    /// The transport's renewal schedule ([`Builder::renew_after_messages`] …) and the
    /// frames, bytes and start time of the encoder's current generation.
    renew: RenewPolicy,
    since: Generation,
    /// Set by [`Builder::dictionary_registry`] until the peer's stream header has been seen.
    lookup: Option<Box<DictionaryLookup>>,
    _item: Marker<D, E>,
}

/// What the encoder wrote since its last renewal.
#[derive(Copy, Clone, Debug)]
struct Generation {
    renewals: u64,
    frames: u64,
    bytes: u64,
    /// Set at the first frame of the generation when an age is configured.
    started: Option<std::time::Instant>,
}

impl RenewPolicy {
    /// Whether the generation `g` is due for a renewal before the next frame.
    fn due(&self, g: &Generation) -> bool {
        self.messages.is_some_and(|n| g.frames >= n)
            || self.bytes.is_some_and(|n| g.bytes >= n)
            || self
                .age
                .zip(g.started)
                .is_some_and(|(age, t)| t.elapsed() >= age)
    }
}

/// Marks the message types without owning them (`fn` pointers keep the codec `Send + Sync`
/// whatever they are).
type Marker<D, E> = PhantomData<(fn() -> D, fn(&E))>;

/// The debug event after a frame that grew a session's tables: `frame_len` and the new
/// [`SessionStats`] (one field list for both directions; the message names the side).
macro_rules! tables_grew {
    ($msg:literal, $len:expr, $t:expr) => {
        debug!(
            frame_len = $len,
            intern_entries = $t.intern_entries,
            intern_bytes = $t.intern_bytes,
            shapes = $t.shapes,
            col_shapes = $t.col_shapes,
            shape_bytes = $t.shape_bytes,
            heap_bytes = $t.heap_bytes,
            $msg
        )
    };
}

/// `Some(now)` if a `debug` subscriber listens and the tables of `now` differ from
/// `reported`, which then becomes `now`. The stats are only read once `debug` is enabled, so
/// without a subscriber this is one cached level check.
#[inline]
fn grew(reported: &mut SessionStats, now: impl FnOnce() -> SessionStats) -> Option<SessionStats> {
    if !tracing::enabled!(Level::DEBUG) {
        return None;
    }
    let now = now();
    // The tables, not the reference counters (which move on every frame).
    let tables = |s: &SessionStats| {
        (
            s.intern_entries,
            s.intern_bytes,
            s.shapes,
            s.col_shapes,
            s.shape_bytes,
            s.heap_bytes,
        )
    };
    (tables(&now) != tables(reported)).then(|| {
        *reported = now;
        now
    })
}

impl<T> QdfCodec<T> {
    /// A codec that sends and receives `T`, with the Balanced tier (the Dense dialect:
    /// strings, keys and shapes are sent once per connection) and the default limits: 8 MiB
    /// frames, default session caps. `T` is inferred from what the `Framed` sends or yields.
    pub fn dense() -> Self {
        Builder::new().new_codec()
    }

    /// A codec that sends and receives `T`, with the Speed tier: plain tags, no session
    /// state, cheapest to encode.
    pub fn fast() -> Self {
        Builder::new().options(Options::speed()).new_codec()
    }
}

impl<D, E: ?Sized> QdfCodec<D, E> {
    pub(crate) fn from_sessions(
        enc: EncoderSession,
        dec: DecoderSession,
        renew: RenewPolicy,
        lookup: Option<DictionaryLookup>,
    ) -> Self {
        QdfCodec {
            enc,
            dec,
            scratch: Vec::new(),
            enc_reported: SessionStats::default(),
            dec_reported: SessionStats::default(),
            renew,
            since: Generation {
                renewals: 0,
                frames: 0,
                bytes: 0,
                started: None,
            },
            lookup: lookup.map(Box::new),
            _item: PhantomData,
        }
    }

    /// The largest frame body this codec writes or accepts, in bytes.
    pub fn max_frame_length(&self) -> usize {
        self.dec.max_frame_length()
    }

    /// The limits this codec decodes under (set by the [`Builder`](crate::Builder)).
    pub fn limits(&self) -> qdf_core::Limits {
        self.dec
            .options()
            .limits
            .max_frame_length(self.dec.max_frame_length())
    }

    /// The encoding session (its options and limits).
    pub fn encoder_session(&self) -> &EncoderSession {
        &self.enc
    }

    /// The decoding session (whether it is broken, its options and limits).
    pub fn decoder_session(&self) -> &DecoderSession {
        &self.dec
    }

    /// The sizes of the encoding session's Dense tables (see [`SessionStats`]; all zero for a
    /// [`fast()`](Self::fast) codec).
    pub fn encoder_stats(&self) -> SessionStats {
        self.enc.stats()
    }

    /// The sizes of the peer's Dense tables as this codec's decoder mirrors them.
    pub fn decoder_stats(&self) -> SessionStats {
        self.dec.stats()
    }
}

impl<D, E: ?Sized> QdfCodec<D, E> {
    /// Counts a written frame in the encoder's generation; reports a renewal it carried.
    #[inline]
    fn count_frame(&mut self, len: usize) {
        let renewals = self.enc.renewals();
        if renewals != self.since.renewals {
            debug!(
                generation = renewals,
                frame_len = len,
                frames = self.since.frames,
                bytes = self.since.bytes,
                "qdf encoder session renewed"
            );
            self.since = Generation {
                renewals,
                frames: 0,
                bytes: 0,
                started: None,
            };
        }
        self.since.frames += 1;
        self.since.bytes += len as u64;
        if self.renew.age.is_some() && self.since.started.is_none() {
            self.since.started = Some(std::time::Instant::now());
        }
    }
}

impl QdfCodec<()> {
    /// A builder for every setting, in the style of `LengthDelimitedCodec::builder()`; its
    /// `new_*` methods choose the message types.
    pub fn builder() -> Builder {
        Builder::new()
    }
}

impl<D, E: ?Sized> fmt::Debug for QdfCodec<D, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("QdfCodec")
            .field("enc", &self.enc)
            .field("dec", &self.dec)
            .finish_non_exhaustive()
    }
}

impl<D, E: ?Sized> Default for QdfCodec<D, E> {
    /// [`QdfCodec::dense`]'s settings.
    fn default() -> Self {
        Builder::new().new_codec()
    }
}

impl<D: DeserializeOwned, E: ?Sized> Decoder for QdfCodec<D, E> {
    type Item = D;
    type Error = QdfCodecError;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<D>, QdfCodecError> {
        if self.lookup.is_some() && !self.pick_dictionary(src) {
            return Ok(None);
        }
        let renewals = self.dec.renewals();
        // One header read for the status and the frame (`frame_status` then `decode_frame`
        // read it twice).
        let (len, decoded) = match self.dec.decode_frame_status::<D>(src)? {
            FrameDecode::Complete { len, value } => (len, value),
            FrameDecode::Incomplete { needed } => {
                // Known-missing bytes only, grown in proportion to what arrived.
                src.reserve(needed.min(src.len().max(MIN_RESERVE)));
                return Ok(None);
            }
        };
        if self.dec.renewals() != renewals {
            debug!(
                generation = self.dec.renewals(),
                frame_len = len,
                "qdf decoder session renewed"
            );
        }
        // Consumed whether or not the body decoded: on an error the session either stays
        // usable with this frame skipped, or refuses everything that follows.
        src.advance(len);
        match decoded {
            // The value bound where it lies: a `map` over the result moved it once more.
            Ok(v) => {
                trace!(frame_len = len, buffered = src.len(), "qdf frame decoded");
                if let Some(t) = grew(&mut self.dec_reported, || self.dec.stats()) {
                    tables_grew!("qdf decoder tables grew", len, t);
                }
                Ok(Some(v))
            }
            Err(e) => {
                debug!(frame_len = len, error = %e, broken = ?self.dec.broken(), "qdf frame failed");
                Err(e.into())
            }
        }
    }

    fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<D>, QdfCodecError> {
        if let Some(v) = self.decode(src)? {
            return Ok(Some(v));
        }
        self.dec.check_end(src)?;
        Ok(None)
    }
}

impl<D, E: ?Sized> QdfCodec<D, E> {
    /// With a registry to look the peer's dictionary up in, before its stream header has
    /// been read: reads the id the header names, if the bytes are there, and gives the
    /// decoder the dictionary for it. `false` while the header (and its id) is incomplete.
    /// A header that is not qdf is left to the session, which reports it.
    #[cold]
    fn pick_dictionary(&mut self, src: &mut BytesMut) -> bool {
        let found = match qdf_core::dictionary_id(src) {
            Ok(found) => found,
            Err(e) if e.is_eof() => {
                src.reserve(16);
                return false;
            }
            Err(_) => None,
        };
        let lookup = self.lookup.take().expect("checked by the caller");
        let Some(id) = found else {
            return true;
        };
        if let Some(dict) = lookup.resolve(id) {
            debug!(found = %id, held = %dict.id(), "qdf peer stream names a dictionary");
            let placeholder = DecoderSession::new(Options::speed());
            let dec = std::mem::replace(&mut self.dec, placeholder);
            self.dec = dec.with_dictionary(dict);
        }
        true
    }
}

/// One impl, for `&E` only: a generic `Encoder<T: Serialize>` would leave `Sink::Item`
/// open, so `flush()`/`close()` could not be resolved without an annotation (E0283).
impl<D, E: Serialize + ?Sized> Encoder<&E> for QdfCodec<D, E> {
    type Error = QdfCodecError;

    fn encode(&mut self, item: &E, dst: &mut BytesMut) -> Result<(), QdfCodecError> {
        self.scratch.clear();
        if self.renew.due(&self.since) {
            self.enc.renew();
        }
        if let Err(e) = self.enc.encode_frame(item, &mut self.scratch) {
            debug!(error = %e, "qdf frame not encoded");
            return Err(e.into());
        }
        dst.extend_from_slice(&self.scratch);
        let len = self.scratch.len();
        self.count_frame(len);
        trace!(frame_len = len, buffered = dst.len(), "qdf frame encoded");
        if let Some(t) = grew(&mut self.enc_reported, || self.enc.stats()) {
            tables_grew!("qdf encoder tables grew", len, t);
        }
        Ok(())
    }
}
