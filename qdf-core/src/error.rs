//! The one error type of the format, with a [`Category`] and a byte offset.
//!
//! Shaped like `serde_json::Error`: an opaque boxed value (one pointer wide, so `Result<T>`
//! stays small), a [`Category`] for callers that branch on the kind of failure (the adapters
//! map categories to HTTP statuses and gRPC codes), and [`Error::offset`] where the failing
//! byte is known.

use std::fmt::{self, Display};
use std::io;

/// `Result<T, qdf_core::Error>`.
pub type Result<T> = std::result::Result<T, Error>;

/// What kind of failure an [`Error`] is; see [`Error::classify`].
///
/// Adapters map categories the same way everywhere: HTTP `Syntax`/`Eof` → 400, `Data` → 422,
/// `Limit` → 413; gRPC `Limit` → `resource_exhausted` (or `out_of_range` for a decode size
/// limit), `Syntax`/`Eof`/`Data` → `invalid_argument`, `Io`/`Broken` → `internal`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Category {
    /// Reading or writing the underlying `io::Read`/`io::Write` failed.
    Io,
    /// The bytes are not valid qdf: bad magic, unknown tag, non-minimal varint, bad codec body,
    /// a frame failing its checksum.
    Syntax,
    /// Well-formed qdf that does not have the shape the target type wants, or a value the
    /// serializer cannot write (a custom serde error).
    Data,
    /// The input ended early, including a truncated frame.
    Eof,
    /// A configured bound was exceeded: depth, length, decoded output, frame size, session caps.
    Limit,
    /// A session refused work because an earlier error left its state unusable.
    Broken,
}

/// What exactly went wrong. Public so tests and callers can match without parsing messages.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorCode {
    /// A custom message from serde (`de::Error::custom` / `ser::Error::custom`).
    ///
    /// Category: [`Category::Data`].
    Message(Box<str>),
    /// An I/O error, kept as its kind and message.
    ///
    /// Category: [`Category::Io`].
    Io(io::ErrorKind, Box<str>),
    /// The input ended while `expected` was being read.
    ///
    /// Category: [`Category::Eof`].
    UnexpectedEof {
        /// What was being read, e.g. `"a tag"`, `"str32 length"`.
        expected: &'static str,
    },
    /// The first three bytes are not `'Q' 'D' 'F'`.
    ///
    /// Category: [`Category::Syntax`].
    BadMagic,
    /// The version byte is not one this library reads.
    ///
    /// Category: [`Category::Syntax`].
    BadVersion(u8),
    /// The flags byte sets bits this context does not allow.
    ///
    /// Category: [`Category::Syntax`].
    BadFlags(u8),
    /// A tag byte that is not valid where it stands.
    ///
    /// Category: [`Category::Syntax`].
    BadTag {
        /// The tag byte found.
        found: u8,
        /// What was expected there.
        expected: &'static str,
    },
    /// A varint longer than 10 bytes or over 64 bits.
    ///
    /// Category: [`Category::Syntax`].
    VarintOverflow,
    /// A value written in a longer form than the smallest one (non-minimal varint, a u16 tag
    /// holding a value that fits a fixint, …). The format is strict so each value has one form.
    ///
    /// Category: [`Category::Syntax`].
    NonMinimal(&'static str),
    /// A string that is not UTF-8.
    ///
    /// Category: [`Category::Syntax`].
    InvalidUtf8,
    /// A `char` payload that is not a Unicode scalar value (a surrogate or above 0x10FFFF).
    ///
    /// Category: [`Category::Syntax`].
    InvalidChar(u64),
    /// A length or count larger than the remaining input could hold. Classified as
    /// [`Category::Eof`]: a truncated message looks exactly like this, and more input could
    /// make it valid.
    ///
    /// Category: [`Category::Eof`].
    LengthOverrun {
        /// The bytes the announced length needs; for a count of elements, the least bytes
        /// they occupy (`count × minimum element size`, saturating).
        len: u64,
        /// Bytes remaining in the input.
        remaining: u64,
    },
    /// Bytes left over after the value (`from_slice` reads exactly one value).
    ///
    /// Category: [`Category::Data`].
    TrailingBytes(u64),
    /// Nesting deeper than [`Limits::max_depth`](crate::Limits#structfield.max_depth); the
    /// payload is that limit (the depth that was refused is one more). Raised by the decoder
    /// and by the encoder (which refuses what a decoder with the same options would).
    ///
    /// Category: [`Category::Limit`].
    DepthLimit(u32),
    /// The decoded output of a message would exceed its limit ([`Limits::max_output`],
    /// default [`Limits::output_budget`]; `docs/SPEC.md` §13). Raised by the decoder when a
    /// charge would pass the limit (`needed` is then what was charged so far plus that
    /// charge, a lower bound of the whole message's output), and by the encoder for a
    /// message whose decoded output is above the limit the decoder applies under the same
    /// options (`needed` is then the whole message's output).
    ///
    /// [`Limits::max_output`]: crate::Limits#structfield.max_output
    /// [`Limits::output_budget`]: crate::Limits::output_budget
    ///
    /// Category: [`Category::Limit`].
    OutputLimit {
        /// Units of decoded output asked for (bytes of strings, elements, entries; 8 per
        /// packed element).
        needed: u64,
        /// The configured limit for this message.
        limit: u64,
    },
    /// A stream decoder was given a one-shot message (the output of `to_vec`: a header, then
    /// one body with no length prefix): its header sets the whole-message ColumnIndex flag, or
    /// the bytes after the header are no valid frame length. Decode it with `from_slice`.
    ///
    /// Category: [`Category::Syntax`].
    NotAStream,
    /// An input for [`from_reader`](crate::from_reader) longer than
    /// [`Limits::max_input`](crate::Limits#structfield.max_input); nothing was decoded.
    ///
    /// Category: [`Category::Limit`].
    InputTooLarge {
        /// Bytes read: the limit plus one (the reader was not read further).
        read: u64,
        /// The configured limit.
        max: u64,
    },
    /// A frame longer than the configured maximum.
    ///
    /// Category: [`Category::Limit`].
    FrameTooLarge {
        /// The announced length.
        len: u64,
        /// The maximum allowed.
        max: u64,
    },
    /// A frame of a stream with the checksum flag (`docs/SPEC.md` §17) whose CRC-32C does not
    /// match its bytes: the frame was damaged in transit or storage. Classified as
    /// [`Category::Syntax`]; it always breaks the session, since a damaged length prefix
    /// leaves the frame boundaries unknown. The error's offset is that of the checksum field.
    ///
    /// Category: [`Category::Syntax`].
    ChecksumMismatch {
        /// The checksum the frame carries.
        expected: u32,
        /// The checksum of the bytes received.
        found: u32,
        /// The frame's index in the stream, from 0 (message mode: the message's index).
        frame: u64,
        /// Stream offset of the frame's first byte (0 for the first frame, whose checksum
        /// covers the stream header too).
        frame_offset: u64,
    },
    /// A Dense session table (entries, bytes or shapes) would exceed this side's cap: the
    /// peer's encoder has larger caps than this decoder (a decoder's caps must be at least
    /// its encoder's).
    ///
    /// Category: [`Category::Limit`].
    SessionCap {
        /// What would pass the cap: `"intern table entries"`, `"intern table bytes"`,
        /// `"shape table entries"` or `"shape table bytes"` (column shapes count as shapes).
        what: &'static str,
        /// The cap, in entries or bytes.
        cap: u64,
        /// The [`Limits`](crate::Limits) field that sets it: `"max_intern_entries"`,
        /// `"max_intern_bytes"` or `"max_shapes"`.
        limit: &'static str,
    },
    /// A session renewal (`docs/SPEC.md` §18) whose generation is not the next one: the
    /// peers' states are out of step (or the stream was spliced).
    ///
    /// Category: [`Category::Syntax`].
    BadRenewal {
        /// The generation this side expected (its renewals so far plus one).
        expected: u64,
        /// The generation the frame carries.
        found: u64,
    },
    /// A message or stream that names a pre-shared dictionary (header flag `20`,
    /// `docs/SPEC.md` §25) the decoder was not given: none, or one with another id. Nothing
    /// was decoded (a body read without its dictionary would give wrong values).
    ///
    /// Category: [`Category::Syntax`].
    UnknownDictionary {
        /// The id the input names (the first 8 bytes of the dictionary file's SHA-256).
        found: [u8; 8],
        /// The id of the dictionary the decoder holds, if any.
        held: Option<[u8; 8]>,
    },
    /// A dictionary file (`Dictionary::from_bytes`, `docs/SPEC.md` §25.3) that is malformed:
    /// `what` says which rule it breaks.
    ///
    /// Category: [`Category::Syntax`].
    BadDictionary(&'static str),
    /// A state-ref, MTF rank, pair or shape id that the decoder's table does not hold.
    ///
    /// Category: [`Category::Syntax`].
    UnknownStateId(u64),
    /// A value that does not fit the target type, or the wrong kind of value.
    ///
    /// Category: [`Category::Data`].
    TypeMismatch {
        /// What the target wanted.
        expected: Box<str>,
        /// What the input held.
        found: Box<str>,
    },
    /// A codec body that violates its layout (bit width > 64, bad kind byte, …).
    ///
    /// Category: [`Category::Syntax`].
    BadCodec(&'static str),
    /// The session failed earlier and refuses further use.
    ///
    /// Category: [`Category::Broken`].
    Broken(Category),
    /// Something this version does not support (a flag, a codec, a serde feature).
    ///
    /// Category: [`Category::Data`].
    Unsupported(&'static str),
}

struct ErrorImpl {
    code: ErrorCode,
    offset: Option<u64>,
    frame: Option<u64>,
    /// The I/O error this one was made from, for [`std::error::Error::source`].
    io: Option<io::Error>,
    /// A likely cause, displayed after the error (a stream given to `from_slice`).
    hint: Option<&'static str>,
}

/// The error of every qdf operation: a boxed [`ErrorCode`] with an optional byte offset and,
/// for errors in a stream, the index of the frame.
///
/// Displayed as `<what> at byte <offset>` for a single message, and as
/// `<what> in frame <n> at stream byte <offset>` for a stream, whose offsets count from the
/// stream's first byte (its header), not from the frame.
pub struct Error {
    inner: Box<ErrorImpl>,
}

impl Error {
    /// An error with this code and no known offset.
    #[cold]
    pub(crate) fn new(code: ErrorCode) -> Self {
        Error {
            inner: Box::new(ErrorImpl {
                code,
                offset: None,
                frame: None,
                io: None,
                hint: None,
            }),
        }
    }

    /// An error with this code at byte `offset` of the input (or output, for encode errors).
    #[cold]
    pub(crate) fn at(code: ErrorCode, offset: u64) -> Self {
        Error {
            inner: Box::new(ErrorImpl {
                code,
                offset: Some(offset),
                frame: None,
                io: None,
                hint: None,
            }),
        }
    }

    /// Sets the offset if none is known yet (inner layers know more than outer ones).
    #[cold]
    pub(crate) fn with_offset(mut self, offset: u64) -> Self {
        if self.inner.offset.is_none() {
            self.inner.offset = Some(offset);
        }
        self
    }

    /// Moves a known offset by `delta` (an inner decoder counted from a later origin).
    #[cold]
    pub(crate) fn shifted(mut self, delta: u64) -> Self {
        if let Some(o) = self.inner.offset.as_mut() {
            *o += delta;
        }
        self
    }

    /// Sets the offset to `offset`, replacing a known one (an inner decoder counted in bytes
    /// that are not in the input, such as an entropy-coded block's decoded bytes).
    #[cold]
    pub(crate) fn relocated(mut self, offset: u64) -> Self {
        self.inner.offset = Some(offset);
        self
    }

    /// Places an error of frame `frame` in its stream: the frame index is set (if none is
    /// known yet) and a known offset, counted from the frame's first byte, becomes a stream
    /// offset by adding `frame_start`, the stream offset of that byte.
    #[cold]
    pub(crate) fn in_frame(mut self, frame: u64, frame_start: u64) -> Self {
        if self.inner.frame.is_none() {
            self.inner.frame = Some(frame);
            self = self.shifted(frame_start);
        }
        self
    }

    /// Adds `hint`, a likely cause displayed after the error.
    #[cold]
    pub(crate) fn with_hint(mut self, hint: &'static str) -> Self {
        self.inner.hint = Some(hint);
        self
    }

    /// A [`ErrorCode::TypeMismatch`] error.
    #[cold]
    pub(crate) fn mismatch(expected: impl Into<Box<str>>, found: impl Into<Box<str>>) -> Self {
        Error::new(ErrorCode::TypeMismatch {
            expected: expected.into(),
            found: found.into(),
        })
    }

    /// Whether this is serde's type mismatch of a `&str` target (its visitor expects "a
    /// borrowed string") given a string that is not in the input.
    pub(crate) fn wants_borrowed_str(&self) -> bool {
        matches!(self.code(), ErrorCode::TypeMismatch { expected, .. } if &**expected == "a borrowed string")
    }

    /// An error with this code at `offset`, for the adapters' and benches' tests of their
    /// error mappings only (feature `unstable`): not a stable API. Errors are otherwise made
    /// only by this crate (and from an `io::Error`).
    #[cfg(feature = "unstable")]
    #[doc(hidden)]
    #[cold]
    pub fn __unstable_new(code: ErrorCode, offset: Option<u64>) -> Self {
        match offset {
            Some(o) => Error::at(code, o),
            None => Error::new(code),
        }
    }

    /// The detailed code.
    pub fn code(&self) -> &ErrorCode {
        &self.inner.code
    }

    /// Byte offset where the failure was detected, if known.
    ///
    /// - Decode errors: the offset into the input, from the message's first byte (its header).
    ///   For an error in a stream ([`frame`](Self::frame) is `Some`) it counts from the
    ///   stream's first byte.
    /// - Encode errors: the number of output bytes written when the value was refused (header
    ///   included), for [`ErrorCode::DepthLimit`] and [`ErrorCode::OutputLimit`]; `None` for a
    ///   custom error of a `Serialize` impl ([`ErrorCode::Message`]) and for lengths above
    ///   `u32::MAX`. The count is of the buffer being written (for a session's
    ///   `encode_frame`, the caller's `out`), and encode errors carry no frame index.
    pub fn offset(&self) -> Option<u64> {
        self.inner.offset
    }

    /// The index (from 0) of the stream frame the error is in, for errors of a stream
    /// decoder; `None` for a single message.
    pub fn frame(&self) -> Option<u64> {
        self.inner.frame
    }

    /// The kind of failure.
    pub fn classify(&self) -> Category {
        use ErrorCode::*;
        match &self.inner.code {
            Io(..) => Category::Io,
            UnexpectedEof { .. } | LengthOverrun { .. } => Category::Eof,
            Message(_) | TypeMismatch { .. } | TrailingBytes(_) | Unsupported(_) => Category::Data,
            DepthLimit(_)
            | OutputLimit { .. }
            | InputTooLarge { .. }
            | FrameTooLarge { .. }
            | SessionCap { .. } => Category::Limit,
            Broken(_) => Category::Broken,
            BadMagic
            | BadVersion(_)
            | BadFlags(_)
            | BadTag { .. }
            | VarintOverflow
            | NonMinimal(_)
            | InvalidUtf8
            | InvalidChar(_)
            | UnknownStateId(_)
            | BadRenewal { .. }
            | UnknownDictionary { .. }
            | BadDictionary(_)
            | ChecksumMismatch { .. }
            | BadCodec(_)
            | NotAStream => Category::Syntax,
        }
    }

    /// True for [`Category::Eof`]: more input would have been needed.
    pub fn is_eof(&self) -> bool {
        self.classify() == Category::Eof
    }
}

impl ErrorCode {
    /// Whether the text of this code names its frame (so a message around it need not).
    pub(crate) fn names_frame(&self) -> bool {
        matches!(self, ErrorCode::ChecksumMismatch { .. })
    }
}

/// Lowercase hex of a dictionary id, as [`DictionaryId`](crate::DictionaryId) displays it.
struct Hex<'a>(&'a [u8; 8]);

impl Display for Hex<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

impl Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use ErrorCode::*;
        match self {
            Message(m) => f.write_str(m),
            Io(kind, m) => write!(f, "I/O error ({kind:?}): {m}"),
            UnexpectedEof { expected } => write!(f, "input ended early: expected {expected}"),
            BadMagic => f.write_str("expected the header magic 'Q' 'D' 'F'"),
            BadVersion(v) => write!(f, "expected version 0x01, found 0x{v:02x}"),
            BadFlags(b) => write!(f, "header flags 0x{b:02x} are not allowed here"),
            BadTag { found, expected } => {
                write!(f, "expected {expected}, found tag 0x{found:02x}")
            }
            VarintOverflow => f.write_str("varint longer than 10 bytes or above u64::MAX"),
            NonMinimal(what) => write!(f, "non-minimal encoding of {what}"),
            InvalidUtf8 => f.write_str("expected a UTF-8 string"),
            InvalidChar(v) => write!(f, "expected a Unicode scalar value, found 0x{v:x}"),
            LengthOverrun { len, remaining } => write!(
                f,
                "length {len} is larger than the {remaining} bytes that remain"
            ),
            TrailingBytes(n) => write!(f, "expected the end of input, found {n} more bytes"),
            DepthLimit(d) => write!(f, "nesting deeper than the limit of {d}"),
            OutputLimit { needed, limit } => write!(
                f,
                "decoded output of at least {needed} units exceeds the limit of {limit} units \
                 (a unit per string byte, element or entry, 8 per packed value or columnar row)"
            ),
            NotAStream => f.write_str(
                "expected a qdf stream (a length-prefixed frame after the header), \
                 found a one-shot qdf message, not a stream (decode it with `from_slice`)",
            ),
            InputTooLarge { read, max } => write!(
                f,
                "input of at least {read} bytes exceeds the maximum of {max} bytes"
            ),
            FrameTooLarge { len, max } => {
                write!(f, "frame of {len} bytes exceeds the maximum of {max}")
            }
            ChecksumMismatch {
                expected,
                found,
                frame,
                frame_offset,
            } => write!(
                f,
                "frame {frame} (stream byte {frame_offset}) fails its CRC-32C: \
                 it carries 0x{expected:08x}, its bytes give 0x{found:08x}"
            ),
            SessionCap { what, cap, limit } => write!(
                f,
                "session cap exceeded: {what} beyond this side's cap of {cap} \
                 (`Limits::{limit}`; a decoder's caps must be at least its encoder's)"
            ),
            UnknownStateId(id) => write!(f, "unknown state id {id}"),
            UnknownDictionary { found, held } => {
                write!(f, "the input names dictionary {}", Hex(found))?;
                match held {
                    Some(h) => write!(f, ", this decoder holds dictionary {}", Hex(h)),
                    None => f.write_str(", this decoder holds no dictionary"),
                }
            }
            BadDictionary(what) => write!(f, "malformed dictionary file: {what}"),
            BadRenewal { expected, found } => write!(
                f,
                "session renewal to generation {found}, expected generation {expected}"
            ),
            TypeMismatch { expected, found } => write!(f, "expected {expected}, found {found}"),
            BadCodec(what) => write!(f, "malformed codec body: {what}"),
            Broken(cat) => write!(
                f,
                "session is broken by an earlier {cat:?} error and refuses further use"
            ),
            Unsupported(what) => write!(f, "unsupported: {what}"),
        }
    }
}

impl Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let code = &self.inner.code;
        match (self.inner.frame, self.inner.offset) {
            // The code names its frame already.
            (Some(_), Some(off)) if code.names_frame() => {
                write!(f, "{code} at stream byte {off}")
            }
            (Some(n), Some(off)) => write!(f, "{code} in frame {n} at stream byte {off}"),
            (Some(n), None) => write!(f, "{code} in frame {n}"),
            (None, Some(off)) => write!(f, "{code} at byte {off}"),
            (None, None) => Display::fmt(code, f),
        }?;
        match self.inner.hint {
            Some(hint) => write!(f, " ({hint})"),
            None => Ok(()),
        }
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error")
            .field("code", &self.inner.code)
            .field("offset", &self.inner.offset)
            .field("frame", &self.inner.frame)
            .finish()
    }
}

impl PartialEq for Error {
    fn eq(&self, other: &Self) -> bool {
        self.inner.code == other.inner.code
            && self.inner.offset == other.inner.offset
            && self.inner.frame == other.inner.frame
    }
}

impl std::error::Error for Error {
    /// The `io::Error` a [`Category::Io`] (or reader `Eof`) error was made from.
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.inner.io.as_ref().map(|e| e as _)
    }
}

impl serde::ser::Error for Error {
    fn custom<T: Display>(msg: T) -> Self {
        Error::new(ErrorCode::Message(msg.to_string().into()))
    }
}

impl serde::de::Error for Error {
    fn custom<T: Display>(msg: T) -> Self {
        Error::new(ErrorCode::Message(msg.to_string().into()))
    }

    fn invalid_type(unexp: serde::de::Unexpected<'_>, exp: &dyn serde::de::Expected) -> Self {
        Error::mismatch(exp.to_string(), unexp.to_string())
    }

    fn invalid_value(unexp: serde::de::Unexpected<'_>, exp: &dyn serde::de::Expected) -> Self {
        Error::mismatch(exp.to_string(), unexp.to_string())
    }
}

impl From<io::Error> for Error {
    /// An [`ErrorCode::Io`] (`UnexpectedEof` for an early end) that keeps `e` as its
    /// [`source`](std::error::Error::source).
    fn from(e: io::Error) -> Self {
        let code = if e.kind() == io::ErrorKind::UnexpectedEof {
            ErrorCode::UnexpectedEof {
                expected: "more bytes from the reader",
            }
        } else {
            ErrorCode::Io(e.kind(), e.to_string().into())
        };
        let mut err = Error::new(code);
        err.inner.io = Some(e);
        err
    }
}

impl From<Error> for io::Error {
    /// The original `io::Error` for an error made from one; else an `io::Error` of the
    /// matching kind (`InvalidData` for `Syntax`, `Data` and `Limit`) wrapping `e`.
    fn from(mut e: Error) -> Self {
        if let Some(io) = e.inner.io.take() {
            return io;
        }
        let kind = match e.classify() {
            Category::Io => match e.code() {
                ErrorCode::Io(kind, _) => *kind,
                _ => io::ErrorKind::Other,
            },
            Category::Eof => io::ErrorKind::UnexpectedEof,
            Category::Syntax | Category::Data | Category::Limit => io::ErrorKind::InvalidData,
            Category::Broken => io::ErrorKind::Other,
        };
        io::Error::new(kind, e)
    }
}

#[cfg(test)]
mod tests;
