//! Sessions: the state kept across the messages of one stream, and sans-IO framing on top.
//!
//! A stream is the 5-byte header once, then per frame `uvarint(len) ‖ body` (`docs/SPEC.md`
//! §17). Transports that frame messages themselves (gRPC) use the `*_message` calls: the
//! header before the first body, then bodies without a length prefix.
//!
//! # Checksums
//!
//! [`EncoderSession::with_checksum`] ends every frame (and every message) with a CRC-32C of
//! its bytes, announced by the header flag `10` (`docs/SPEC.md` §17): a frame is then
//! `uvarint(len) ‖ body ‖ crc32c`, `len` counting the 4 checksum bytes, the checksum covering
//! the length prefix and body (and, in the first frame, the stream header), 4 bytes per frame.
//! A decoder needs no setting: it checks the frames of every stream whose header has the flag.
//! A frame that fails its check is an [`ErrorCode::ChecksumMismatch`] naming the frame's
//! index and stream offset, and breaks the session (Dense or not; see the failure rules).
//!
//! ```
//! use qdf_core::{DecoderSession, EncoderSession, ErrorCode, Options};
//!
//! let mut enc = EncoderSession::new(Options::speed()).with_checksum(true);
//! let mut wire = Vec::new();
//! enc.encode_frame("api", &mut wire)?;
//! assert_eq!(wire[..10], [0x51, 0x44, 0x46, 0x01, 0x10, 0x08, 0x83, b'a', b'p', b'i']);
//! assert_eq!(wire.len(), 14); // then the CRC-32C of those 10 bytes
//!
//! wire[8] ^= 0x01; // "aqi": one bit flipped in transit
//! let mut dec = DecoderSession::new(Options::speed());
//! let e = dec.decode_frame::<String>(&wire).unwrap_err();
//! assert!(matches!(e.code(), ErrorCode::ChecksumMismatch { frame: 0, frame_offset: 0, .. }));
//! assert!(dec.broken().is_some());
//! # Ok::<(), qdf_core::Error>(())
//! ```
//!
//! [`EncoderSession`] and [`DecoderSession`] do no I/O: they append to a `Vec<u8>` and look at
//! a `&[u8]`. [`StreamEncoder`](crate::StreamEncoder) / [`StreamDecoder`](crate::StreamDecoder)
//! drive them over `std::io`, `qdf-stream` over tokio.
//!
//! ```
//! use qdf_core::{DecoderSession, EncoderSession, FrameStatus, Options};
//!
//! let mut enc = EncoderSession::new(Options::speed());
//! let mut wire = Vec::new();
//! enc.encode_frame(&("temp", 21.5f64), &mut wire)?;
//! enc.encode_frame(&("temp", 22.0f64), &mut wire)?;
//!
//! let mut dec = DecoderSession::new(Options::speed());
//! // Only part of the first frame has arrived: the session says how much more it needs.
//! assert!(matches!(dec.frame_status(&wire[..3])?, FrameStatus::Incomplete { needed: 2 }));
//! let (first, n): ((String, f64), usize) = dec.decode_frame(&wire)?.unwrap();
//! let (second, m): ((String, f64), usize) = dec.decode_frame(&wire[n..])?.unwrap();
//! assert_eq!((first.1, second.1, n + m), (21.5, 22.0, wire.len()));
//! # Ok::<(), qdf_core::Error>(())
//! ```
//!
//! # Failure rules
//!
//! *Encode.* An error (from the value's `Serialize`, a limit, or a body above
//! [`EncoderSession::max_frame_length`]) leaves `out` and the session exactly as they were
//! before the call, so the caller may skip that value and go on.
//!
//! *Decode.* Framing errors (bad header, forbidden flags, a non-minimal or oversize length,
//! a frame failing its checksum) cannot be resynchronised: they mark the session broken, in
//! every stream. (A checksum covers the length prefix, so after a mismatch the frame's end
//! is unknown: the next "frame" might start inside this one.) A body error inside a complete
//! frame depends on the stream: a stream whose header lacks `FLAG_DENSE` has stateless
//! bodies, so the frame counts as consumed (its length is what [`DecoderSession::frame_status`]
//! reported) and the session stays usable; in a Dense stream the frame may have carried
//! state updates the decoder did not apply, so the session is marked broken. A broken
//! session answers every later call with [`ErrorCode::Broken`] (category
//! [`Category::Broken`]) naming the first error's category. A Dense
//! decoder that walks the rest of a failed frame and applies its state updates may keep the
//! session usable instead (one predicate in this module, `body_error_keeps_session`, holds
//! the rule); qdf-rs does not: a broken session never guesses (`docs/SPEC.md` §16).
//!
//! # Dense state
//!
//! With the `DENSE` feature the encoder sets `FLAG_DENSE` in the stream header and keeps the
//! intern table, predictors and shapes across frames (`docs/SPEC.md` §14–16); the decoder
//! keeps its mirror when the header has `FLAG_DENSE`, and decodes each body of any other
//! stream from empty state. The encoder checkpoints the state before each body and rolls it
//! back on any error, so a failed value costs nothing on the wire or in the state.

use serde::Serialize;
use serde::de::DeserializeOwned;

pub use crate::dense::SessionStats;

use crate::dense::DenseState;
use crate::dict::{Dictionary, DictionaryId};
use crate::error::{Category, Error, ErrorCode, Result};
use crate::frame::{self, CHECKSUM_LEN, Next};
use crate::options::{Features, Options};
use crate::wire::header::{
    self, FLAG_CHECKSUM, FLAG_DENSE, FLAG_DICT, FLAG_TEXTS, header_flags, header_len, texts_on,
};
use crate::wire::varint::uvarint_len;

/// What the front of a buffer holds, from [`DecoderSession::frame_status`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FrameStatus {
    /// At least `needed` more bytes must arrive before a frame can be decoded. `needed` is
    /// never more than the bytes still missing from the frame (so reading exactly `needed`
    /// bytes never reads past it), hence never more than a maximum-length frame.
    Incomplete {
        /// Additional bytes needed (a lower bound).
        needed: usize,
    },
    /// A whole frame is present: `len` bytes from the front of the buffer.
    Complete {
        /// Bytes the frame occupies, header and length prefix included.
        len: usize,
    },
}

/// What [`DecoderSession::decode_frame_status`] found at the front of a buffer.
#[derive(Debug)]
pub enum FrameDecode<T> {
    /// At least `needed` more bytes must arrive, as [`FrameStatus::Incomplete`].
    Incomplete {
        /// Additional bytes needed (a lower bound).
        needed: usize,
    },
    /// A whole frame of `len` bytes (header and length prefix included), consumed whether or
    /// not it decoded.
    Complete {
        /// Bytes the frame occupies.
        len: usize,
        /// The decoded value, or the frame's error (a body error leaves the session usable
        /// or broken as [`DecoderSession::decode_frame`] says).
        value: Result<T>,
    },
}

/// Stream options: the whole-message features (ColumnIndex, entropy pass) are always off in
/// streams (`docs/SPEC.md` §17.1).
fn stream_options(opts: Options) -> Options {
    let f = opts.feature_bits();
    opts.features(f.without(Features::COLUMN_INDEX).without(Features::ENTROPY))
}

fn too_large(len: usize, max: usize) -> Error {
    Error::new(ErrorCode::FrameTooLarge {
        len: len as u64,
        max: max as u64,
    })
}

/// The encoding side of a session.
#[derive(Debug)]
pub struct EncoderSession {
    opts: Options,
    max_frame_length: usize,
    started: bool,
    /// Each frame ends with a CRC-32C (header flag `FLAG_CHECKSUM`); fixed once started.
    checksum: bool,
    /// Length of the last frame (body and checksum), to guess the width of the next length
    /// prefix.
    last_len: usize,
    /// The Dense state kept across frames (`None` without the `DENSE` feature).
    dense: Option<Box<DenseState>>,
    /// The pre-shared dictionary the stream starts from, named in its header.
    dict: Option<DictionaryId>,
}

impl EncoderSession {
    /// A new session with `opts` (its tier and its caps). The ColumnIndex and entropy
    /// features are cleared: streams never use them.
    pub fn new(opts: Options) -> Self {
        let opts = stream_options(opts);
        EncoderSession {
            opts,
            max_frame_length: opts.limits.max_frame_length,
            started: false,
            checksum: false,
            last_len: 0,
            dense: opts
                .has(Features::DENSE)
                .then(|| Box::new(DenseState::new_session_encoder(&opts))),
            dict: None,
        }
    }

    /// Starts the stream from the pre-shared dictionary `dict` (`docs/SPEC.md` §25): the
    /// stream header gets flag `20` and the dictionary's 8-byte id, and the Dense state
    /// starts with the dictionary's entries as ids `0..dict.len()` (shared, not copied); a
    /// renewal (§18) returns to that state, not to empty. The peer's
    /// [`DecoderSession::with_dictionary`] must hold the same dictionary.
    ///
    /// Ignored by a session that has written its header (the header names the dictionary
    /// once), and by one without the `DENSE` feature (Speed), which writes no Dense tags: its
    /// stream is a plain Speed stream.
    pub fn with_dictionary(mut self, dict: Dictionary) -> Self {
        if !self.started && self.opts.has(Features::DENSE) {
            let state = DenseState::new_session_encoder(&self.opts).on_base(dict.base());
            self.dense = Some(Box::new(state));
            self.dict = Some(dict.id());
        }
        self
    }

    /// The dictionary this session's stream names, if any.
    pub fn dictionary_id(&self) -> Option<DictionaryId> {
        self.dict
    }

    /// Renews the Dense state at the next frame (`docs/SPEC.md` §18): that frame's body
    /// starts with `FF uvarint(generation)` (2 bytes for the first 127 renewals), and both
    /// sides start it from empty state — intern table, predictors, shapes — while the
    /// encoder keeps its admission filter, primed with the entries referenced before, so hot
    /// values are interned again on first sight. For transport policies (a renewal every so
    /// many messages, bytes or seconds); [`Options::session_renewal`] renews by itself near
    /// the caps. If the next frame fails, the renewal stays due for the one after. No effect
    /// without the `DENSE` feature.
    pub fn renew(&mut self) {
        if let Some(d) = self.dense.as_deref_mut() {
            d.request_renewal();
        }
    }

    /// Sets the largest body this session writes (default: its options'
    /// [`max_frame_length`](crate::Limits#structfield.max_frame_length)); a
    /// larger one fails with [`ErrorCode::FrameTooLarge`] and writes nothing.
    pub fn with_max_frame_length(mut self, max: usize) -> Self {
        self.max_frame_length = max;
        self
    }

    /// The largest body this session writes, in bytes.
    pub fn max_frame_length(&self) -> usize {
        self.max_frame_length
    }

    /// Ends every frame with a CRC-32C of its bytes (`on = true`; default off), announced by
    /// the stream header's flag `10` (`docs/SPEC.md` §17): each frame grows by 4 bytes and
    /// the receiving decoder refuses a damaged frame with [`ErrorCode::ChecksumMismatch`]
    /// instead of decoding it. Messages ([`encode_message`](Self::encode_message)) end with
    /// the same checksum. The body limit ([`max_frame_length`](Self::max_frame_length)) does not
    /// count the 4 bytes.
    ///
    /// The header announces the choice once for the whole stream, so it is fixed by the
    /// first frame: on a session that has written its header this changes nothing.
    pub fn with_checksum(mut self, on: bool) -> Self {
        if !self.started {
            self.checksum = on;
        }
        self
    }

    /// Whether this session's frames carry a CRC-32C (see
    /// [`with_checksum`](Self::with_checksum)).
    pub fn checksum(&self) -> bool {
        self.checksum
    }

    /// The options (as used: stream-forbidden features cleared).
    pub fn options(&self) -> &Options {
        &self.opts
    }

    /// The sizes of the Dense tables (all zero without the `DENSE` feature). O(1): a few
    /// loads, cheap enough to call after every frame.
    pub fn stats(&self) -> SessionStats {
        self.dense
            .as_deref()
            .map(DenseState::stats)
            .unwrap_or_default()
    }

    /// Renewals written so far (`docs/SPEC.md` §18): one load, for transports that report
    /// each renewal.
    pub fn renewals(&self) -> u64 {
        self.dense.as_deref().map_or(0, DenseState::generation)
    }

    /// Appends one frame to `out`: the stream header before the first frame, then
    /// `uvarint(len) ‖ body`, or `uvarint(len) ‖ body ‖ crc32c` with
    /// [`with_checksum`](Self::with_checksum). On error `out` and the session are as before
    /// the call.
    ///
    /// Errors: the value's own serde errors and encode limits (depth, and
    /// [`ErrorCode::OutputLimit`] for a frame whose decoded output is above
    /// `opts.limits.output_budget(body length)`, which the peer's decoder would refuse); and
    /// [`ErrorCode::FrameTooLarge`] (category `Limit`) for a body above
    /// [`max_frame_length`](Self::max_frame_length).
    pub fn encode_frame<T: ?Sized + Serialize>(
        &mut self,
        value: &T,
        out: &mut Vec<u8>,
    ) -> Result<()> {
        let mark = out.len();
        self.push_header(out);
        let slot = out.len();
        let reserved = uvarint_len(self.last_len as u64);
        out.resize(slot + reserved, 0);
        match self.encode_body_into(value, out) {
            Ok(()) => {
                if self.checksum {
                    // Counted in the length; filled once the prefix (which it covers) is final.
                    out.extend_from_slice(&[0; CHECKSUM_LEN]);
                }
                self.last_len = out.len() - slot - reserved;
                frame::patch_len_prefix(out, slot, reserved);
                if self.checksum {
                    let at = out.len() - CHECKSUM_LEN;
                    let crc = frame::checksum(&out[mark..at]);
                    out[at..].copy_from_slice(&crc.to_le_bytes());
                }
                self.started = true;
                Ok(())
            }
            Err(e) => {
                out.truncate(mark);
                Err(e)
            }
        }
    }

    /// Appends one unframed message: the header before the first, then the body alone (then
    /// its CRC-32C with [`with_checksum`](Self::with_checksum), covering the message's bytes
    /// before it, header included). The same rules and errors as
    /// [`encode_frame`](Self::encode_frame).
    pub fn encode_message<T: ?Sized + Serialize>(
        &mut self,
        value: &T,
        out: &mut Vec<u8>,
    ) -> Result<()> {
        let mark = out.len();
        self.push_header(out);
        match self.encode_body_into(value, out) {
            Ok(()) => {
                if self.checksum {
                    let crc = frame::checksum(&out[mark..]);
                    out.extend_from_slice(&crc.to_le_bytes());
                }
                self.started = true;
                Ok(())
            }
            Err(e) => {
                out.truncate(mark);
                Err(e)
            }
        }
    }

    fn push_header(&self, out: &mut Vec<u8>) {
        if !self.started {
            let crc = if self.checksum { FLAG_CHECKSUM } else { 0 };
            let dict = if self.dict.is_some() { FLAG_DICT } else { 0 };
            let texts = if texts_on(&self.opts) { FLAG_TEXTS } else { 0 };
            frame::write_stream_header(out, header_flags(&self.opts) | crc | dict | texts);
            if let Some(id) = self.dict {
                out.extend_from_slice(&id.to_bytes());
            }
        }
    }

    /// Appends a body, enforcing the frame limit; on error `out` keeps only what it had.
    fn encode_body_into<T: ?Sized + Serialize>(
        &mut self,
        value: &T,
        out: &mut Vec<u8>,
    ) -> Result<()> {
        let start = out.len();
        let mut renewing = false;
        if let Some(d) = self.dense.as_deref_mut() {
            // A renewal rides in front of the body; it is applied before the checkpoint, so
            // a failed body rolls back to the renewed (empty) state and the renewal stays
            // due: the peer has seen neither.
            if d.renewal_due() {
                renewing = true;
                out.push(crate::wire::tags::RENEW);
                crate::wire::varint::write_uvarint(out, d.generation() + 1);
                d.renew();
            }
            d.checkpoint();
        }
        let r = crate::ser::encode_body_with_state(value, &self.opts, out, &mut self.dense)
            .and_then(|()| {
                let len = out.len() - start;
                if len > self.max_frame_length {
                    out.truncate(start);
                    return Err(too_large(len, self.max_frame_length));
                }
                Ok(())
            });
        if let Some(d) = self.dense.as_deref_mut() {
            match r {
                Ok(()) => {
                    d.commit();
                    if renewing {
                        d.renewed();
                    }
                }
                Err(_) => {
                    d.rollback();
                    out.truncate(start);
                }
            }
        }
        r
    }
}

/// The decoding side of a session.
#[derive(Debug)]
pub struct DecoderSession {
    opts: Options,
    max_frame_length: usize,
    /// The stream header's flags once read.
    flags: Option<u8>,
    /// Frames (or messages) consumed, and the stream bytes they occupied: where the next
    /// frame starts, for [`ErrorCode::ChecksumMismatch`].
    frames: u64,
    consumed: u64,
    /// Set by the first error that leaves the state unusable.
    broken: Option<Category>,
    /// The Dense state of a `FLAG_DENSE` stream, created by its first body.
    dense: Option<Box<DenseState>>,
    /// The pre-shared dictionary this side holds.
    dict: Option<Dictionary>,
    /// Its entries, once the stream header named it: every body starts from them.
    base: Option<crate::dense::DictBase>,
}

impl DecoderSession {
    /// A new session with `opts` (its limits and caps).
    pub fn new(opts: Options) -> Self {
        DecoderSession {
            opts,
            max_frame_length: opts.limits.max_frame_length,
            flags: None,
            frames: 0,
            consumed: 0,
            broken: None,
            dense: None,
            dict: None,
            base: None,
        }
    }

    /// Holds the pre-shared dictionary `dict` (`docs/SPEC.md` §25) for a stream whose header
    /// names it (flag `20` and its id): the Dense state then starts from its entries, and a
    /// renewal returns to them. A stream that names no dictionary is read as usual; one
    /// that names another fails at its header with [`ErrorCode::UnknownDictionary`]
    /// (`Syntax`, at stream offset 5), which breaks the session. Ignored once the header has
    /// been read.
    pub fn with_dictionary(mut self, dict: Dictionary) -> Self {
        if self.flags.is_none() {
            self.dict = Some(dict);
        }
        self
    }

    /// The dictionary the stream's header named and this session holds (`None` before the
    /// header, or when the stream names none).
    pub fn dictionary_id(&self) -> Option<DictionaryId> {
        self.base.as_ref().and(self.dict.as_ref()).map(|d| d.id())
    }

    /// Sets the largest frame body accepted (default: its options'
    /// [`max_frame_length`](crate::Limits#structfield.max_frame_length)).
    pub fn with_max_frame_length(mut self, max: usize) -> Self {
        self.max_frame_length = max;
        self
    }

    /// The largest frame body accepted, in bytes.
    pub fn max_frame_length(&self) -> usize {
        self.max_frame_length
    }

    /// The options.
    pub fn options(&self) -> &Options {
        &self.opts
    }

    /// The sizes of the peer's Dense tables as mirrored here (all zero before the first
    /// body of a Dense stream, and for any other stream). O(1).
    pub fn stats(&self) -> SessionStats {
        self.dense
            .as_deref()
            .map(DenseState::stats)
            .unwrap_or_default()
    }

    /// Renewals read so far (`docs/SPEC.md` §18): one load.
    pub fn renewals(&self) -> u64 {
        self.dense.as_deref().map_or(0, DenseState::generation)
    }

    /// Whether the stream's frames carry a CRC-32C (header flag `10`, `docs/SPEC.md` §17),
    /// which this session then checks: `None` until the stream header has been read.
    pub fn checksum(&self) -> Option<bool> {
        self.flags.map(|f| f & FLAG_CHECKSUM != 0)
    }

    /// `Some(category of the first error)` once the session refuses further use.
    pub fn broken(&self) -> Option<Category> {
        self.broken
    }

    /// Looks at the front of `buf` without consuming: is a whole frame there?
    ///
    /// Errors on a bad header, forbidden header flags ([`ErrorCode::BadFlags`]), a
    /// non-minimal length, or a length above the maximum ([`ErrorCode::FrameTooLarge`],
    /// raised as soon as the length is read, before any body byte is waited for; in a stream
    /// with checksums, also a length below their 4 bytes). The checksum itself is checked by
    /// [`decode_frame`](Self::decode_frame), so a `Complete` frame may still fail it. Such
    /// framing errors cannot be resynchronised, so they mark the session broken: this is why
    /// the method takes `&mut self`.
    pub fn frame_status(&mut self, buf: &[u8]) -> Result<FrameStatus> {
        Ok(match self.next(buf)? {
            Next::Incomplete { needed } => FrameStatus::Incomplete { needed },
            Next::Complete { end, .. } => FrameStatus::Complete { len: end },
        })
    }

    /// Decodes one frame from the front of `buf`: `Ok(None)` if more bytes are needed,
    /// else the value and the bytes consumed.
    ///
    /// On an error, [`broken`](Self::broken) tells whether the session is still usable; if it
    /// is, the failed frame counts as consumed (its length is what
    /// [`frame_status`](Self::frame_status) reports for the same `buf`).
    ///
    /// In a stream with checksums the frame's CRC-32C is checked before its body is read: a
    /// mismatch is [`ErrorCode::ChecksumMismatch`] (category `Syntax`, at the checksum's
    /// offset in the stream, as every error of a session counts from the stream's first
    /// byte, not from `buf`) and breaks the session.
    #[inline]
    pub fn decode_frame<T: DeserializeOwned>(&mut self, buf: &[u8]) -> Result<Option<(T, usize)>> {
        match self.next(buf)? {
            Next::Incomplete { .. } => Ok(None),
            Next::Complete {
                flags,
                body_start,
                body_end,
                end,
            } => {
                // Matched, not mapped: a `map` moved the value once more.
                match self.frame_body(buf, flags, body_start, body_end, end) {
                    Ok(v) => Ok(Some((v, end))),
                    Err(e) => Err(e),
                }
            }
        }
    }

    /// [`frame_status`](Self::frame_status) and [`decode_frame`](Self::decode_frame) of the
    /// same `buf` in one call, the frame's header read once: for a codec that must know the
    /// frame's length whether or not its body decodes.
    ///
    /// Errors: `frame_status`'s (framing errors; nothing is consumed). Else
    /// [`FrameDecode::Incomplete`], or [`FrameDecode::Complete`] with the frame's length and
    /// what `decode_frame` would have returned for it, its errors included (the frame counts
    /// as consumed either way).
    #[inline]
    pub fn decode_frame_status<T: DeserializeOwned>(
        &mut self,
        buf: &[u8],
    ) -> Result<FrameDecode<T>> {
        Ok(match self.next(buf)? {
            Next::Incomplete { needed } => FrameDecode::Incomplete { needed },
            Next::Complete {
                flags,
                body_start,
                body_end,
                end,
            } => FrameDecode::Complete {
                len: end,
                value: self.frame_body(buf, flags, body_start, body_end, end),
            },
        })
    }

    /// The body of the whole frame at the front of `buf` that [`next`](Self::next) found:
    /// the checksum checked, the value decoded, the frame counted as consumed.
    #[inline(always)]
    fn frame_body<T: DeserializeOwned>(
        &mut self,
        buf: &[u8],
        flags: Option<u8>,
        body_start: usize,
        body_end: usize,
        end: usize,
    ) -> Result<T> {
        if let Some(f) = flags {
            self.set_flags(f);
        }
        // Errors are placed in the stream: this frame's index, offsets from its first byte.
        let (frame, start) = (self.frames, self.consumed);
        if body_end != end {
            self.verify(&buf[..body_end], &buf[body_end..end])
                .map_err(|e| e.in_frame(frame, start))?;
        }
        let value = self
            .decode_body_checked(&buf[body_start..body_end])
            .map_err(|e| {
                let at = body_start as u64;
                e.shifted(at).with_offset(at).in_frame(frame, start)
            });
        self.frames += 1;
        self.consumed += end as u64;
        value
    }

    /// Decodes one unframed message that occupies all of `msg` (the header before the first).
    ///
    /// Errors: header errors, a body above the maximum length and (in a stream with
    /// checksums) a message shorter than its checksum or failing it
    /// ([`ErrorCode::ChecksumMismatch`]) break the session; body errors follow the module's
    /// failure rules.
    pub fn decode_message<T: DeserializeOwned>(&mut self, msg: &[u8]) -> Result<T> {
        self.check_usable()?;
        let mut body = msg;
        if self.flags.is_none() {
            let f = frame::read_stream_header(msg).map_err(|e| self.fail(e))?;
            self.accept_dictionary(msg, f).map_err(|e| self.fail(e))?;
            self.set_flags(f);
            body = &msg[header_len(f)..];
        }
        let at = (msg.len() - body.len()) as u64;
        let checksum = self.flags.is_some_and(|f| f & FLAG_CHECKSUM != 0);
        if checksum {
            // The checksum ends the message, after the header (if this one carries it).
            let Some(body_len) = body.len().checked_sub(CHECKSUM_LEN) else {
                let e = ErrorCode::UnexpectedEof {
                    expected: "a message's 4-byte checksum",
                };
                return Err(self.fail(Error::at(e, msg.len() as u64)));
            };
            body = &body[..body_len];
        }
        if body.len() > self.max_frame_length {
            return Err(self.fail(too_large(body.len(), self.max_frame_length)));
        }
        if checksum {
            let crc_at = msg.len() - CHECKSUM_LEN;
            self.verify(&msg[..crc_at], &msg[crc_at..])?;
        }
        // Body errors count from the body: placed in the message, as header and checksum
        // errors are (the first message's header and dictionary id come before its body).
        let r = self
            .decode_body_checked(body)
            .map_err(|e| e.shifted(at).with_offset(at));
        self.frames += 1;
        self.consumed += msg.len() as u64;
        r
    }

    /// Checks that input may end with `rest` still unread: Ok if `rest` is empty, or is a
    /// lone stream header before any frame; else [`ErrorCode::UnexpectedEof`] (a stream cut
    /// inside a frame, or inside the dictionary id after the header). A lone header naming a
    /// dictionary this session does not hold is [`ErrorCode::UnknownDictionary`], as
    /// [`decode_frame`](Self::decode_frame) answers it.
    /// Transports call this when their input ends.
    pub fn check_end(&self, rest: &[u8]) -> Result<()> {
        self.check_usable()?;
        if self.flags.is_none()
            && let Ok(f) = frame::read_stream_header(rest)
        {
            // Input that ends inside the id is cut there (`UnexpectedEof` naming the id).
            let id = header::read_dict_id(rest, f).map_err(|e| e.in_frame(0, 0))?;
            let held = self.dict.as_ref().map(|d| d.id().to_bytes());
            if let Some(found) = id
                && held != Some(found)
            {
                return Err(header::unknown_dictionary(found, held).in_frame(0, 0));
            }
        }
        frame::check_end(rest, self.flags.is_some())
            .map_err(|e| e.in_frame(self.frames, self.consumed))
    }

    /// Whether a body error leaves the session usable (see the module's failure rules):
    /// only when the stream's bodies carry no state, i.e. its header lacks `FLAG_DENSE`.
    fn body_error_keeps_session(&self) -> bool {
        self.flags.is_some_and(|f| f & FLAG_DENSE == 0)
    }

    fn next(&mut self, buf: &[u8]) -> Result<Next> {
        self.check_usable()?;
        if self.flags.is_none() {
            // The header's dictionary id is checked before the first frame is read: a stream
            // on a dictionary not held fails as that, whatever its first frame holds.
            if let Ok(f) = frame::read_stream_header(buf)
                && buf.len() >= header_len(f)
            {
                self.accept_dictionary(buf, f)
                    .map_err(|e| self.fail(e.in_frame(self.frames, self.consumed)))?;
            }
        }
        frame::next_frame(buf, self.flags, self.max_frame_length)
            .map_err(|e| self.fail(e.in_frame(self.frames, self.consumed)))
    }

    /// The stream header with `flags` at the front of `buf` was read: if it names a
    /// dictionary, checks it is the one held and starts the state from it (idempotent: a
    /// header looked at by `frame_status` is read again by `decode_frame`).
    fn accept_dictionary(&mut self, buf: &[u8], flags: u8) -> Result<()> {
        let Some(found) = header::read_dict_id(buf, flags)? else {
            return Ok(());
        };
        let base = match self.dict.as_ref() {
            Some(d) if d.id().to_bytes() == found => d.base(),
            held => {
                let held = held.map(|d| d.id().to_bytes());
                return Err(header::unknown_dictionary(found, held));
            }
        };
        if flags & FLAG_DENSE != 0 && self.dense.is_none() {
            let state = DenseState::new_session_decoder(&self.opts)
                .for_flags(flags)
                .on_base(base.clone());
            self.dense = Some(Box::new(state));
        }
        self.base = Some(base);
        Ok(())
    }

    /// The stream header's flags were read: a stream with flag `40` keeps per-field strings
    /// (`docs/SPEC.md` §15.3), so its Dense state exists from the first body on (a state
    /// created lazily by a body's first Dense tag would not know the flag).
    #[inline(always)]
    fn set_flags(&mut self, f: u8) {
        self.flags = Some(f);
        if f & FLAG_TEXTS != 0 && self.dense.is_none() {
            self.start_texts(f);
        }
    }

    /// [`set_flags`](Self::set_flags)'s state creation, out of line: the frame loop of other
    /// streams keeps its size (and its inlined frame parser).
    #[cold]
    #[inline(never)]
    fn start_texts(&mut self, f: u8) {
        self.dense = Some(Box::new(
            DenseState::new_session_decoder(&self.opts).for_flags(f),
        ));
    }

    /// Checks the CRC-32C `stored` of the current frame's bytes `covered` (which start at
    /// the frame's first byte); a mismatch breaks the session.
    #[inline]
    fn verify(&mut self, covered: &[u8], stored: &[u8]) -> Result<()> {
        frame::verify_checksum(covered, stored).map_err(|(expected, found)| {
            let code = ErrorCode::ChecksumMismatch {
                expected,
                found,
                frame: self.frames,
                frame_offset: self.consumed,
            };
            self.fail(Error::at(code, covered.len() as u64))
        })
    }

    #[inline]
    fn decode_body_checked<T: DeserializeOwned>(&mut self, body: &[u8]) -> Result<T> {
        let r = if self.flags.is_some_and(|f| f & FLAG_DENSE != 0) {
            if body.first() == Some(&crate::wire::tags::RENEW) {
                self.decode_renewing(body)
            } else {
                crate::de::decode_body_with_state(body, &self.opts, &mut self.dense)
            }
        } else if let Some(base) = &self.base {
            // A stateless stream on a dictionary: each body starts from it (O(1)).
            let state = DenseState::new_decoder(&self.opts, false).on_base(base.clone());
            crate::de::decode_body_with_state(body, &self.opts, &mut Some(Box::new(state)))
        } else {
            crate::de::decode_body(body, &self.opts)
        };
        r.map_err(|e| {
            if self.body_error_keeps_session() {
                e
            } else {
                self.fail(e)
            }
        })
    }

    /// A Dense body that starts with a renewal (`FF uvarint(generation)`, `docs/SPEC.md`
    /// §18): checks the generation, empties the state, decodes the rest.
    #[cold]
    #[inline(never)]
    fn decode_renewing<T: DeserializeOwned>(&mut self, body: &[u8]) -> Result<T> {
        let skip = self
            .dense
            .get_or_insert_with(|| Box::new(DenseState::new_session_decoder(&self.opts)))
            .apply_renewal(body)?;
        crate::de::decode_body_with_state(&body[skip..], &self.opts, &mut self.dense)
            .map_err(|e| e.shifted(skip as u64).with_offset(skip as u64))
    }

    fn check_usable(&self) -> Result<()> {
        match self.broken {
            None => Ok(()),
            Some(c) => Err(Error::new(ErrorCode::Broken(c))),
        }
    }

    /// Marks the session broken by `e` and hands `e` back.
    fn fail(&mut self, e: Error) -> Error {
        self.broken.get_or_insert(e.classify());
        e
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod renewal_tests;
