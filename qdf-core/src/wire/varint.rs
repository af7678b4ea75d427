//! ULEB128 unsigned varints ("uvarint", at most 10 bytes) and zigzag.
//!
//! Decoding is strict: a varint longer than needed (a trailing `0x00` continuation) is
//! [`ErrorCode::NonMinimal`], and a 10th byte above 1 is [`ErrorCode::VarintOverflow`].

use crate::error::{Error, ErrorCode, Result};

/// The longest uvarint: 10 bytes for a u64.
pub const MAX_UVARINT_LEN: usize = 10;

/// Appends `v` as a uvarint.
#[inline]
pub fn write_uvarint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Number of bytes `write_uvarint(v)` writes (1..=10).
#[inline]
pub const fn uvarint_len(v: u64) -> usize {
    let bits = 64 - (v | 1).leading_zeros() as usize;
    bits.div_ceil(7)
}

/// Reads a uvarint from the front of `buf`, returning the value and the bytes it used.
///
/// Errors: [`ErrorCode::UnexpectedEof`] if `buf` ends inside the varint (so a caller can
/// wait for more bytes), [`ErrorCode::VarintOverflow`], [`ErrorCode::NonMinimal`].
#[inline]
pub fn read_uvarint(buf: &[u8]) -> Result<(u64, usize)> {
    if let Some(&b) = buf.first()
        && b < 0x80
    {
        return Ok((b as u64, 1));
    }
    read_uvarint_slow(buf)
}

#[cold]
fn read_uvarint_slow(buf: &[u8]) -> Result<(u64, usize)> {
    let mut v: u64 = 0;
    for (i, &b) in buf.iter().enumerate().take(MAX_UVARINT_LEN) {
        if i == MAX_UVARINT_LEN - 1 && b > 1 {
            return Err(Error::new(ErrorCode::VarintOverflow));
        }
        v |= ((b & 0x7F) as u64) << (7 * i);
        if b < 0x80 {
            if b == 0 && i > 0 {
                return Err(Error::new(ErrorCode::NonMinimal("a uvarint")));
            }
            return Ok((v, i + 1));
        }
    }
    if buf.len() >= MAX_UVARINT_LEN {
        return Err(Error::new(ErrorCode::VarintOverflow));
    }
    Err(Error::new(ErrorCode::UnexpectedEof {
        expected: "the rest of a uvarint",
    }))
}

/// Zigzag-encodes a signed value: `(v << 1) ^ (v >> 63)`.
#[inline]
pub const fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

/// Inverse of [`zigzag`].
#[inline]
pub const fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

#[cfg(test)]
mod tests;
