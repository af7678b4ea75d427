//! [`QdfCodecError`]: what a [`QdfCodec`](crate::QdfCodec) read or write can fail with.

use std::io;

use qdf_core::{Category, ErrorCode};

/// The error of [`QdfCodec`](crate::QdfCodec): I/O, an oversize frame, or a format error.
///
/// Match on the variant, or ask [`category`](Self::category) to tell truncation (`Eof`),
/// malformed bytes (`Syntax`), the wrong shape for the target type (`Data`), limits
/// (`Limit`) and a session refusing further use after an earlier error (`Broken`) apart.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum QdfCodecError {
    /// Reading or writing the transport failed.
    #[error("I/O error: {0}")]
    Io(#[from] io::Error),
    /// A frame body above the configured maximum. On encode it is raised before any byte is
    /// written and the connection stays usable; on decode it is raised as soon as the length
    /// prefix arrives (the stream cannot be resynchronised after it).
    #[error("frame of {len} bytes exceeds the maximum of {max}{}", place(.frame, .offset))]
    FrameTooLarge {
        /// The frame body length, in bytes (announced by the peer, or produced by the encoder).
        len: u64,
        /// The configured maximum, in bytes.
        max: u64,
        /// On decode, the frame's index in the stream, from 0 (`None` on encode).
        frame: Option<u64>,
        /// On decode, the stream offset of the length prefix's first byte, counted from the
        /// stream's header (`None` on encode).
        offset: Option<u64>,
    },
    /// A qdf format error from the session: see its [`Category`] and [`qdf_core::ErrorCode`].
    #[error(transparent)]
    Qdf(qdf_core::Error),
}

/// ` in frame N at stream byte O`, as the core session's errors say it, when known.
fn place(frame: &Option<u64>, offset: &Option<u64>) -> String {
    match (frame, offset) {
        (Some(n), Some(o)) => format!(" in frame {n} at stream byte {o}"),
        (Some(n), None) => format!(" in frame {n}"),
        (None, Some(o)) => format!(" at byte {o}"),
        (None, None) => String::new(),
    }
}

impl QdfCodecError {
    /// The kind of failure: `Io` for [`Io`](Self::Io), `Limit` for
    /// [`FrameTooLarge`](Self::FrameTooLarge), else the core error's category.
    pub fn category(&self) -> Category {
        match self {
            QdfCodecError::Io(_) => Category::Io,
            QdfCodecError::FrameTooLarge { .. } => Category::Limit,
            QdfCodecError::Qdf(e) => e.classify(),
        }
    }
}

impl From<qdf_core::Error> for QdfCodecError {
    fn from(e: qdf_core::Error) -> Self {
        match *e.code() {
            ErrorCode::FrameTooLarge { len, max } => QdfCodecError::FrameTooLarge {
                len,
                max,
                frame: e.frame(),
                offset: e.offset().filter(|_| e.frame().is_some()),
            },
            _ => QdfCodecError::Qdf(e),
        }
    }
}

impl From<QdfCodecError> for io::Error {
    fn from(e: QdfCodecError) -> Self {
        match e {
            QdfCodecError::Io(e) => e,
            QdfCodecError::Qdf(e) => e.into(),
            e @ QdfCodecError::FrameTooLarge { .. } => {
                io::Error::new(io::ErrorKind::InvalidData, e)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn categories_and_conversions() {
        let big: QdfCodecError =
            qdf_core::Error::__unstable_new(ErrorCode::FrameTooLarge { len: 9, max: 4 }, None)
                .into();
        assert!(matches!(
            big,
            QdfCodecError::FrameTooLarge {
                len: 9,
                max: 4,
                frame: None,
                offset: None
            }
        ));
        assert_eq!(big.category(), Category::Limit);
        assert_eq!(big.to_string(), "frame of 9 bytes exceeds the maximum of 4");
        let eof: QdfCodecError =
            qdf_core::Error::__unstable_new(ErrorCode::UnexpectedEof { expected: "x" }, None)
                .into();
        assert_eq!(eof.category(), Category::Eof);
        assert_eq!(io::Error::from(eof).kind(), io::ErrorKind::UnexpectedEof);
        let io: QdfCodecError = io::Error::from(io::ErrorKind::BrokenPipe).into();
        assert_eq!(io.category(), Category::Io);
        assert_eq!(io::Error::from(io).kind(), io::ErrorKind::BrokenPipe);
    }
}
