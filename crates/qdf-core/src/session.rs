//! Sessions: Dense state kept across the messages of one stream, and sans-IO framing.
//!
//! SKELETON: signatures fixed for the adapters; bodies are being built.
//!
//! A stream is the 5-byte header once, then per frame `uvarint(len) ‖ body`. Transports
//! that frame messages themselves (gRPC) use the `*_message` calls: header before the first
//! body, then bodies without a length prefix.

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::{Error, ErrorCode, Options, Result};

/// Default largest frame body a [`DecoderSession`] accepts: 8 MiB.
pub const DEFAULT_MAX_FRAME_LEN: usize = 8 << 20;

/// What the front of a buffer holds, from [`DecoderSession::frame_status`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FrameStatus {
    /// At least `needed` more bytes must arrive before a frame can be decoded. `needed` is
    /// never more than the bytes of a frame of the maximum length.
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

/// The encoding side of a session.
#[derive(Debug)]
pub struct EncoderSession {
    opts: Options,
    started: bool,
}

impl EncoderSession {
    /// A new session with `opts` (its tier and its caps).
    pub fn new(opts: Options) -> Self {
        EncoderSession {
            opts,
            started: false,
        }
    }

    /// The options.
    pub fn options(&self) -> &Options {
        &self.opts
    }

    /// Appends one frame to `out`: the stream header before the first frame, then
    /// `uvarint(len) ‖ body`. On error `out` and the session are as before the call.
    pub fn encode_frame<T: ?Sized + Serialize>(
        &mut self,
        _value: &T,
        _out: &mut Vec<u8>,
    ) -> Result<()> {
        let _ = self.started;
        Err(Error::new(ErrorCode::Unsupported("not built yet")))
    }

    /// Appends one unframed message: the header before the first, then the body alone.
    pub fn encode_message<T: ?Sized + Serialize>(
        &mut self,
        _value: &T,
        _out: &mut Vec<u8>,
    ) -> Result<()> {
        Err(Error::new(ErrorCode::Unsupported("not built yet")))
    }
}

/// The decoding side of a session.
#[derive(Debug)]
pub struct DecoderSession {
    opts: Options,
    max_frame_len: usize,
}

impl DecoderSession {
    /// A new session with `opts` (its limits and caps).
    pub fn new(opts: Options) -> Self {
        DecoderSession {
            opts,
            max_frame_len: DEFAULT_MAX_FRAME_LEN,
        }
    }

    /// Sets the largest frame body accepted (default [`DEFAULT_MAX_FRAME_LEN`]).
    pub fn with_max_frame_len(mut self, max: usize) -> Self {
        self.max_frame_len = max;
        self
    }

    /// The options.
    pub fn options(&self) -> &Options {
        &self.opts
    }

    /// Looks at the front of `buf` without consuming: is a whole frame there? Errors on a bad
    /// header, a non-minimal length, or a length above the maximum (before any reservation).
    pub fn frame_status(&self, _buf: &[u8]) -> Result<FrameStatus> {
        let _ = self.max_frame_len;
        Err(Error::new(ErrorCode::Unsupported("not built yet")))
    }

    /// Decodes one frame from the front of `buf`: `Ok(None)` if more bytes are needed,
    /// else the value and the bytes consumed.
    pub fn decode_frame<T: DeserializeOwned>(&mut self, _buf: &[u8]) -> Result<Option<(T, usize)>> {
        Err(Error::new(ErrorCode::Unsupported("not built yet")))
    }

    /// Decodes one unframed message that occupies all of `msg` (the header before the first).
    pub fn decode_message<T: DeserializeOwned>(&mut self, _msg: &[u8]) -> Result<T> {
        Err(Error::new(ErrorCode::Unsupported("not built yet")))
    }
}
