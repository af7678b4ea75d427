//! A read position over a message for codec decoders: every error carries the absolute
//! byte offset where it was detected.

use crate::error::{Error, ErrorCode, Result};
use crate::wire::varint::{read_uvarint, unzigzag};

/// Decoders of constant bodies (zero bits per element, and RLE) accept at most this many
/// elements: the input cannot bound such counts, so this and the output budget do
/// (wire notes §6, "constant-codec counts ≤ 2^24").
pub const MAX_CONST_COUNT: u64 = 1 << 24;

/// Output-budget bytes charged per decoded QPack element: the width of a 64-bit element, the
/// widest kind (narrower kinds are charged the same, conservatively).
pub const ELEMENT_CHARGE: u64 = 8;

/// A position in `buf`; reads advance it. Error offsets are `base + position`.
#[derive(Clone, Debug)]
pub struct Cursor<'a> {
    buf: &'a [u8],
    pos: usize,
    base: u64,
}

impl<'a> Cursor<'a> {
    /// A cursor at byte `pos` of `buf`.
    pub fn new(buf: &'a [u8], pos: usize) -> Self {
        Cursor { buf, pos, base: 0 }
    }

    /// A cursor at the start of `buf`, whose first byte is at offset `base` of the message.
    pub fn with_base(buf: &'a [u8], base: u64) -> Self {
        Cursor { buf, pos: 0, base }
    }

    /// The absolute position of the next byte.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// The absolute offset of the next byte (`base + position`).
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// Bytes left after the position.
    pub fn remaining(&self) -> usize {
        self.buf.len().saturating_sub(self.pos)
    }

    /// An error at the current position.
    #[cold]
    pub fn err(&self, code: ErrorCode) -> Error {
        self.err_at(self.pos, code)
    }

    /// An error at position `at` of the buffer.
    #[cold]
    pub fn err_at(&self, at: usize, code: ErrorCode) -> Error {
        Error::at(code, self.base + at as u64)
    }

    /// A [`ErrorCode::BadCodec`] error at the current position.
    #[cold]
    pub fn bad(&self, what: &'static str) -> Error {
        self.err(ErrorCode::BadCodec(what))
    }

    /// A [`ErrorCode::BadCodec`] error at byte `at`.
    #[cold]
    pub fn bad_at(&self, at: usize, what: &'static str) -> Error {
        self.err_at(at, ErrorCode::BadCodec(what))
    }

    fn eof(&self, expected: &'static str) -> Error {
        self.err(ErrorCode::UnexpectedEof { expected })
    }

    /// Reads one byte.
    pub fn byte(&mut self, expected: &'static str) -> Result<u8> {
        let b = *self.buf.get(self.pos).ok_or_else(|| self.eof(expected))?;
        self.pos += 1;
        Ok(b)
    }

    /// Reads a strict uvarint.
    pub fn uvarint(&mut self, expected: &'static str) -> Result<u64> {
        let rest = self.buf.get(self.pos..).unwrap_or(&[]);
        match read_uvarint(rest) {
            Ok((v, used)) => {
                self.pos += used;
                Ok(v)
            }
            Err(e) if e.is_eof() => Err(self.eof(expected)),
            Err(e) => Err(e.with_offset(self.base + self.pos as u64)),
        }
    }

    /// Reads a scalar written by [`write_scalar`](super::write_scalar): a zigzag uvarint
    /// when `signed`, else a plain uvarint; returns the two's-complement bits.
    pub fn scalar(&mut self, signed: bool, expected: &'static str) -> Result<u64> {
        let v = self.uvarint(expected)?;
        Ok(if signed { unzigzag(v) as u64 } else { v })
    }

    /// Reads an element count and checks that `count × bits_each` bits fit in what remains
    /// (`bits_each == 0`: at most [`MAX_CONST_COUNT`]).
    pub fn count(&mut self, bits_each: u64, expected: &'static str) -> Result<usize> {
        let at = self.pos;
        let n = self.uvarint(expected)?;
        self.check_count(n, bits_each)
            .map_err(|e| self.err_at(at, e))
    }

    /// Checks `n` elements of `bits_each` bits each against the remaining input.
    pub fn check_count(&self, n: u64, bits_each: u64) -> std::result::Result<usize, ErrorCode> {
        let need_bits = (n as u128) * (bits_each as u128);
        let have_bits = (self.remaining() as u128) * 8;
        if bits_each == 0 && n > MAX_CONST_COUNT {
            return Err(ErrorCode::BadCodec(
                "constant body longer than 2^24 elements",
            ));
        }
        if need_bits > have_bits {
            return Err(ErrorCode::LengthOverrun {
                len: u64::try_from(need_bits.div_ceil(8)).unwrap_or(u64::MAX),
                remaining: self.remaining() as u64,
            });
        }
        usize::try_from(n).map_err(|_| ErrorCode::BadCodec("count does not fit in memory"))
    }

    /// Charges `n` decoded elements against `budget` at [`ELEMENT_CHARGE`] bytes each, before
    /// allocating; errors point at position `at`. A packed element can cost zero input bits (a
    /// constant FOR body), so it is charged its decoded width, not one unit as a plain array
    /// element (which always occupies at least one input byte) is.
    ///
    /// A charge that does not fit fails with [`ErrorCode::OutputLimit`] holding the charge
    /// and the budget that remained: relative to what the caller lent, which the deserializer
    /// rewrites in terms of the whole message.
    pub fn charge(&self, budget: &mut u64, n: usize, at: usize) -> Result<()> {
        let want = (n as u64).saturating_mul(ELEMENT_CHARGE);
        if want > *budget {
            let code = ErrorCode::OutputLimit {
                needed: want,
                limit: *budget,
            };
            return Err(self.err_at(at, code));
        }
        *budget -= want;
        Ok(())
    }

    /// The bytes after the position.
    pub fn rest(&self) -> &'a [u8] {
        self.buf.get(self.pos..).unwrap_or(&[])
    }

    /// Takes the next `n` bytes.
    pub fn take(&mut self, n: usize, expected: &'static str) -> Result<&'a [u8]> {
        if n > self.remaining() {
            return Err(self.eof(expected));
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
}

#[cfg(test)]
mod tests;
