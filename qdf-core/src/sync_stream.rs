//! Blocking streams over `std::io`: [`StreamEncoder`] writes frames to a `Write`,
//! [`StreamDecoder`] reads them from a `Read`, each driving one session.
//!
//! ```
//! use qdf_core::{Options, StreamDecoder, StreamEncoder};
//!
//! let mut enc = StreamEncoder::new(Vec::new(), Options::speed());
//! for n in 0..3u32 {
//!     enc.send(&n)?;
//! }
//! let wire = enc.into_inner();
//!
//! let mut dec = StreamDecoder::new(&wire[..], Options::speed());
//! let mut got = Vec::new();
//! while let Some(n) = dec.next::<u32>()? {
//!     got.push(n);
//! }
//! assert_eq!(got, [0, 1, 2]);
//! # Ok::<(), qdf_core::Error>(())
//! ```

use std::io::{Read, Write};

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::{Category, Error, ErrorCode, Result};
use crate::options::Options;
use crate::session::{DecoderSession, EncoderSession, FrameStatus};

/// Writes one frame per [`send`](Self::send) to a `Write` (wrap it in a `BufWriter` to batch
/// small frames into fewer writes).
#[derive(Debug)]
pub struct StreamEncoder<W: Write> {
    writer: W,
    session: EncoderSession,
    buf: Vec<u8>,
    /// Set when a write failed part-way: the peer may hold a partial frame.
    broken: bool,
}

impl<W: Write> StreamEncoder<W> {
    /// A stream writing to `writer` with `opts`.
    pub fn new(writer: W, opts: Options) -> Self {
        Self::with_session(writer, EncoderSession::new(opts))
    }

    /// A stream driving a configured session (e.g. one with a different maximum frame length,
    /// or with [`EncoderSession::with_checksum`] for a file whose every frame carries a
    /// CRC-32C, so that damage on disk is an error rather than a different value).
    ///
    /// ```
    /// use qdf_core::{EncoderSession, ErrorCode, Options, StreamDecoder, StreamEncoder};
    ///
    /// let session = EncoderSession::new(Options::balanced()).with_checksum(true);
    /// let mut enc = StreamEncoder::with_session(Vec::new(), session);
    /// enc.send("attic")?;
    /// let mut file = enc.into_inner();
    /// file[9] ^= 0x20; // a flipped bit on disk
    /// let mut dec = StreamDecoder::new(&file[..], Options::balanced());
    /// let e = dec.next::<String>().unwrap_err();
    /// assert!(matches!(e.code(), ErrorCode::ChecksumMismatch { frame: 0, .. }));
    /// # Ok::<(), qdf_core::Error>(())
    /// ```
    pub fn with_session(writer: W, session: EncoderSession) -> Self {
        StreamEncoder {
            writer,
            session,
            buf: Vec::new(),
            broken: false,
        }
    }

    /// Encodes `value` as one frame and writes it (the stream header before the first).
    ///
    /// Errors: encode errors (nothing is written, the stream stays usable); I/O errors, after
    /// which the stream refuses further use with [`ErrorCode::Broken`]`(Io)`.
    pub fn send<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        if self.broken {
            return Err(Error::new(ErrorCode::Broken(Category::Io)));
        }
        self.buf.clear();
        self.session.encode_frame(value, &mut self.buf)?;
        self.writer.write_all(&self.buf).map_err(|e| {
            self.broken = true;
            Error::from(e)
        })
    }

    /// Flushes the writer (every frame [`send`](Self::send) wrote is in it already).
    ///
    /// Errors: the writer's I/O error ([`ErrorCode::Io`], category `Io`, the `io::Error` as
    /// its source). The stream is not marked broken, but a buffering writer may have passed
    /// on part of a frame before it failed: treat the destination as suspect, as after a
    /// failed `send`.
    pub fn flush(&mut self) -> Result<()> {
        self.writer.flush().map_err(Error::from)
    }

    /// The writer.
    pub fn get_ref(&self) -> &W {
        &self.writer
    }

    /// Returns the writer (not flushed: call [`flush`](Self::flush) first if it buffers).
    pub fn into_inner(self) -> W {
        self.writer
    }
}

/// Reads frames from a `Read`, asking it only for bytes the current frame announces, so it
/// never reads past a frame and never holds more than one frame (at most the session's
/// maximum frame length). A stream whose header has the checksum flag has each frame's
/// CRC-32C checked before the frame is decoded (`docs/SPEC.md` §17).
#[derive(Debug)]
pub struct StreamDecoder<R: Read> {
    reader: R,
    session: DecoderSession,
    buf: Vec<u8>,
}

impl<R: Read> StreamDecoder<R> {
    /// A stream reading from `reader` with `opts` (limits and caps).
    pub fn new(reader: R, opts: Options) -> Self {
        Self::with_session(reader, DecoderSession::new(opts))
    }

    /// A stream driving a configured session (e.g. one with a different maximum frame length).
    pub fn with_session(reader: R, session: DecoderSession) -> Self {
        StreamDecoder {
            reader,
            session,
            buf: Vec::new(),
        }
    }

    /// The next value: `Ok(None)` when the input ends cleanly between frames.
    ///
    /// Errors: [`ErrorCode::UnexpectedEof`] (category `Eof`) when the input ends inside a
    /// frame; framing and body errors per the session's failure rules (a body error in a
    /// stateless stream skips that frame and the next call goes on); I/O errors, after which
    /// the next call resumes where the reader stopped (the bytes already read are kept).
    #[allow(clippy::should_implement_trait)] // generic over T per call, so not an Iterator
    pub fn next<T: DeserializeOwned>(&mut self) -> Result<Option<T>> {
        // `buf` holds the bytes of the current frame read so far, kept across an I/O error
        // (`WouldBlock`, a timeout) so that the next call resumes inside the frame.
        loop {
            match self.session.frame_status(&self.buf)? {
                FrameStatus::Complete { .. } => {
                    let decoded = self.session.decode_frame(&self.buf);
                    self.buf.clear();
                    return Ok(decoded?.map(|(v, _)| v));
                }
                FrameStatus::Incomplete { needed } => {
                    // `needed` never passes the frame's end and is bounded by the maximum
                    // frame length; `take` grows the buffer only as bytes arrive.
                    let got = (&mut self.reader)
                        .take(needed as u64)
                        .read_to_end(&mut self.buf)
                        .map_err(Error::from)?;
                    if got < needed {
                        self.session.check_end(&self.buf)?;
                        return Ok(None);
                    }
                }
            }
        }
    }

    /// The session (for its state and limits).
    pub fn session(&self) -> &DecoderSession {
        &self.session
    }

    /// Returns the reader. The bytes of a frame read only in part (after an I/O error of
    /// [`next`](Self::next)) are dropped with the decoder, and the reader stands inside that
    /// frame; between frames (after `next` returned a value or `Ok(None)`) nothing is lost
    /// and the reader stands at the next frame's length prefix.
    pub fn into_inner(self) -> R {
        self.reader
    }
}
