//! The input of a decode: a slice with a cursor, plus the [`Reference`] type that says
//! whether a decoded string borrows from the input or from the decoder's own storage (like
//! `serde_json::de::Reference`).
//!
//! Bounds checks compare against the remaining length (`n <= rest.len()`), so they cannot
//! overflow.

use crate::error::{Error, ErrorCode, Result};
use crate::wire::varint;

/// A string or byte string read from the input: borrowed for the input's lifetime `'de`, or
/// copied (e.g. from an intern table) and valid only until the next read.
#[derive(Debug)]
pub(crate) enum Reference<'de, 's, T: ?Sized> {
    /// Lies in the input.
    Borrowed(&'de T),
    /// Lies in decoder storage.
    Copied(&'s T),
}

impl<T: ?Sized> std::ops::Deref for Reference<'_, '_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        match self {
            Reference::Borrowed(t) => t,
            Reference::Copied(t) => t,
        }
    }
}

/// A decoded string or byte string.
#[derive(Debug)]
pub(crate) enum Text<'de, 's> {
    /// UTF-8 text.
    Str(Reference<'de, 's, str>),
    /// Raw bytes.
    Bytes(Reference<'de, 's, [u8]>),
}

/// A byte slice with a cursor; offsets in errors are `base + position`.
///
/// Holds the unread bytes as one slice (not `data` + `pos`), so each read is a single bounds
/// check against `rest.len()` with no second check that `pos` lies inside `data`; the offset
/// is derived from the end: `end - rest.len()`.
#[derive(Debug, Clone)]
pub(crate) struct SliceRead<'de> {
    rest: &'de [u8],
    /// Offset just past the last byte of the input (`base + data.len()`).
    end: u64,
}

impl<'de> SliceRead<'de> {
    /// Reads `data`, whose first byte is at offset `base` of the caller's input.
    pub(crate) fn new(data: &'de [u8], base: u64) -> Self {
        SliceRead {
            rest: data,
            end: base + data.len() as u64,
        }
    }

    /// Offset of the next byte in the caller's input.
    #[inline]
    pub(crate) fn offset(&self) -> u64 {
        self.end - self.rest.len() as u64
    }

    /// Bytes not yet read.
    #[inline]
    pub(crate) fn remaining(&self) -> usize {
        self.rest.len()
    }

    /// The unread bytes.
    #[inline(always)]
    pub(crate) fn rest(&self) -> &'de [u8] {
        self.rest
    }

    /// An `UnexpectedEof` error at the current offset.
    #[cold]
    pub(crate) fn eof(&self, expected: &'static str) -> Error {
        Error::at(ErrorCode::UnexpectedEof { expected }, self.offset())
    }

    /// An error at the current offset.
    #[cold]
    pub(crate) fn error(&self, code: ErrorCode) -> Error {
        Error::at(code, self.offset())
    }

    /// The next byte without consuming it.
    #[inline]
    pub(crate) fn peek(&self) -> Option<u8> {
        self.rest.first().copied()
    }

    /// Consumes one byte.
    #[inline]
    pub(crate) fn next(&mut self, expected: &'static str) -> Result<u8> {
        match self.rest.split_first() {
            Some((&b, r)) => {
                self.rest = r;
                Ok(b)
            }
            None => Err(self.eof(expected)),
        }
    }

    /// Consumes `n` bytes, borrowed from the input.
    #[inline(always)]
    pub(crate) fn take(&mut self, n: usize, expected: &'static str) -> Result<&'de [u8]> {
        // One bounds check: `split_at_checked` fails exactly when `n > remaining`.
        match self.rest.split_at_checked(n) {
            Some((s, r)) => {
                self.rest = r;
                Ok(s)
            }
            None => Err(self.eof(expected)),
        }
    }

    /// Consumes `N` bytes as an array.
    #[inline(always)]
    pub(crate) fn array<const N: usize>(&mut self, expected: &'static str) -> Result<[u8; N]> {
        let s = self.take(N, expected)?;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Ok(a)
    }

    /// Consumes a strict uvarint.
    #[inline]
    pub(crate) fn uvarint(&mut self) -> Result<u64> {
        // Nothing is consumed on error, so the offset is still the varint's start.
        let (v, n) = varint::read_uvarint(self.rest).map_err(|e| e.with_offset(self.offset()))?;
        self.rest = &self.rest[n..];
        Ok(v)
    }

    /// Fails unless `count` items of at least `min_bytes` each fit in the remaining input.
    /// Called before anything is allocated or announced as a size hint. A count that does not
    /// fit is an `Eof` error: more input could make it valid.
    #[inline]
    pub(crate) fn check_count(&self, count: u64, min_bytes: u64) -> Result<()> {
        let remaining = self.remaining() as u64;
        if count > remaining / min_bytes {
            return Err(self.error(ErrorCode::LengthOverrun {
                len: count.saturating_mul(min_bytes),
                remaining,
            }));
        }
        Ok(())
    }
}
