//! Frame-of-reference (FOR), tag `E5`: every value minus the minimum, bit-packed.
//!
//! Layout after the tag: `kind` (U64/I64), `bits` (1 byte, ≤ 64), `min` (uvarint; zigzag
//! when signed), `uvarint(n)`, then [`bitpack`](super::bitpack) of `v − min` (mod 2^64) at
//! `bits` width. `bits = 0` means every value equals `min`.
//!
//! ```text
//! [100, 101, 103] as u64:  E5 03 02 64 03 | 0x34 (0, 1, 3 at 2 bits)
//! ```

use super::bitpack::{bit_width, pack, packed_len, padding_is_zero, unpack_add};
use super::cursor::Cursor;
use super::{Kind, scalar_len, write_scalar};
use crate::error::Result;
use crate::wire::tags::QP_FOR;
use crate::wire::varint::{uvarint_len, write_uvarint};

/// Minimum and maximum of `vals` (two's-complement bits), compared signed when `signed`.
/// `None` for an empty slice.
pub fn min_max(vals: &[u64], signed: bool) -> Option<(u64, u64)> {
    // Flipping the sign bit maps signed order onto unsigned order.
    let flip = if signed { 1u64 << 63 } else { 0 };
    let (mut lo, mut hi) = (u64::MAX, 0u64);
    for &v in vals {
        let o = v ^ flip;
        lo = lo.min(o);
        hi = hi.max(o);
    }
    (!vals.is_empty()).then_some((lo ^ flip, hi ^ flip))
}

/// Width FOR needs for values between `min` and `max`.
pub fn width(min: u64, max: u64) -> u32 {
    bit_width(max.wrapping_sub(min))
}

/// Exact encoded size in bytes, tag included.
pub fn cost(n: usize, min: u64, bits: u32, signed: bool) -> usize {
    3 + scalar_len(min, signed) + uvarint_len(n as u64) + packed_len(n, bits)
}

/// Appends the FOR encoding of `vals` (a 64-bit `kind`) with frame `min` and width `bits`,
/// which must cover every value (see [`min_max`] and [`width`]).
pub fn encode_with(vals: &[u64], kind: Kind, min: u64, bits: u32, out: &mut Vec<u8>) {
    out.extend_from_slice(&[QP_FOR, kind.byte(), bits as u8]);
    write_scalar(out, min, kind.is_signed());
    write_uvarint(out, vals.len() as u64);
    pack(vals.iter().map(|v| v.wrapping_sub(min)), bits, out);
}

/// Appends the FOR encoding of `vals` as the 64-bit `kind`.
pub fn encode(vals: &[u64], kind: Kind, out: &mut Vec<u8>) {
    let (min, max) = min_max(vals, kind.is_signed()).unwrap_or((0, 0));
    encode_with(vals, kind, min, width(min, max), out);
}

/// Reads the body after the kind byte. Errors: width above 64, a count the remaining bytes
/// cannot hold, non-zero padding, the output budget.
pub fn decode(cur: &mut Cursor<'_>, kind: Kind, budget: &mut u64) -> Result<Vec<u64>> {
    let bits = read_width(cur)?;
    let min = cur.scalar(kind.is_signed(), "the FOR minimum")?;
    let n = cur.count(bits as u64, "the FOR count")?;
    let at = cur.pos();
    let body = cur.take(packed_len(n, bits), "the FOR body")?;
    if !padding_is_zero(body, n, bits) {
        return Err(cur.bad("non-zero padding bits after a packed body"));
    }
    cur.charge(budget, n, at)?;
    let mut out = vec![0u64; n];
    unpack_add(body, bits, min, &mut out);
    Ok(out)
}

/// Reads a bit-width byte, rejecting widths above 64.
pub fn read_width(cur: &mut Cursor<'_>) -> Result<u32> {
    let at = cur.pos();
    let bits = cur.byte("a bit width")?;
    if bits > 64 {
        return Err(cur.bad_at(at, "bit width above 64"));
    }
    Ok(bits as u32)
}

#[cfg(test)]
mod tests;
