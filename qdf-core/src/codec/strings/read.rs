//! A bounds-checked cursor over one string block, shared by every block decoder.
//!
//! Every count and length is checked against the bytes that remain *before* anything is
//! allocated, and every error carries the absolute byte offset where it was detected.

use super::column::Span;
use crate::error::{Error, ErrorCode, Result};
use crate::wire::varint::read_uvarint;

/// Cursor over a block. Positions inside the block fit a `u32` (a block view is capped at
/// 4 GiB, far above the 256 MiB columnar output limit), so spans stay 8 bytes.
pub(super) struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
    base: u64,
}

impl<'a> Reader<'a> {
    /// A reader over `input[start..]`; error offsets are absolute in `input`.
    pub(super) fn new(input: &'a [u8], start: usize) -> Self {
        let rest = input.get(start..).unwrap_or(&[]);
        let cap = rest.len().min(u32::MAX as usize);
        Reader {
            buf: &rest[..cap],
            pos: 0,
            base: start as u64,
        }
    }

    /// The whole block view (spans index into it).
    pub(super) fn view(&self) -> &'a [u8] {
        self.buf
    }

    /// The bytes not read yet.
    pub(super) fn rest(&self) -> &'a [u8] {
        &self.buf[self.pos..]
    }

    /// Bytes read so far.
    pub(super) fn consumed(&self) -> usize {
        self.pos
    }

    /// Bytes left.
    pub(super) fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    /// Absolute offset of the next byte.
    pub(super) fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// An error at the current position.
    #[cold]
    pub(super) fn err(&self, code: ErrorCode) -> Error {
        Error::at(code, self.offset())
    }

    /// [`ErrorCode::BadCodec`] at the current position.
    #[cold]
    pub(super) fn bad(&self, what: &'static str) -> Error {
        self.err(ErrorCode::BadCodec(what))
    }

    /// One byte.
    pub(super) fn byte(&mut self, expected: &'static str) -> Result<u8> {
        let b = *self
            .buf
            .get(self.pos)
            .ok_or_else(|| self.err(ErrorCode::UnexpectedEof { expected }))?;
        self.pos += 1;
        Ok(b)
    }

    /// One uvarint.
    pub(super) fn uvarint(&mut self) -> Result<u64> {
        let (v, used) =
            read_uvarint(&self.buf[self.pos..]).map_err(|e| e.with_offset(self.offset()))?;
        self.pos += used;
        Ok(v)
    }

    /// A uvarint count of items that take at least `min_bits` bits each of what remains
    /// (`min_bits = 0` skips the check). Errors with [`ErrorCode::LengthOverrun`].
    pub(super) fn count(&mut self, min_bits: u64) -> Result<usize> {
        let at = self.offset();
        let n = self.uvarint()?;
        let room = self.remaining() as u64;
        if n.saturating_mul(min_bits) > room.saturating_mul(8) {
            return Err(Error::at(
                ErrorCode::LengthOverrun {
                    len: n,
                    remaining: room,
                },
                at,
            ));
        }
        usize::try_from(n).map_err(|_| {
            Error::at(
                ErrorCode::LengthOverrun {
                    len: n,
                    remaining: room,
                },
                at,
            )
        })
    }

    /// A uvarint byte length that must fit in what remains.
    pub(super) fn len(&mut self) -> Result<usize> {
        self.count(8)
    }

    /// The uvarint row count; it must equal the column's row count `expected`.
    pub(super) fn rows(&mut self, expected: usize) -> Result<()> {
        let at = self.offset();
        let n = self.uvarint()?;
        if n != expected as u64 {
            return Err(Error::at(
                ErrorCode::BadCodec("string block row count differs from the column's row count"),
                at,
            ));
        }
        Ok(())
    }

    /// The next `len` bytes as a span of the view.
    pub(super) fn take(&mut self, len: usize) -> Result<Span> {
        if len > self.remaining() {
            return Err(self.err(ErrorCode::LengthOverrun {
                len: len as u64,
                remaining: self.remaining() as u64,
            }));
        }
        let span = Span::new(self.pos, self.pos + len);
        self.pos += len;
        Ok(span)
    }

    /// The next `len` bytes.
    pub(super) fn bytes(&mut self, len: usize) -> Result<&'a [u8]> {
        let s = self.take(len)?;
        Ok(&self.buf[s.range()])
    }
}

/// Charges `bytes` of decoded output against `budget` (remaining bytes), failing with
/// [`ErrorCode::OutputLimit`] (`bytes` against the budget that remained) at `at` before
/// anything is allocated.
pub(super) fn charge(budget: &mut u64, bytes: u64, at: u64) -> Result<()> {
    if bytes > *budget {
        let code = ErrorCode::OutputLimit {
            needed: bytes,
            limit: *budget,
        };
        return Err(Error::at(code, at));
    }
    *budget -= bytes;
    Ok(())
}
