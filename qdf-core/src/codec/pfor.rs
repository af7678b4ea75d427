//! Patched frame-of-reference (PFOR), tag `EE`: FOR at a narrow width, with the values that
//! do not fit patched from an exception list.
//!
//! Layout after the tag: `kind` (U64/I64), `uvarint(n)`, `b` (1 byte, ≤ 64), `min` (uvarint;
//! zigzag when signed), `⌈n·b/8⌉` bytes of `(v − min) & mask(b)`, `uvarint(excN)`, then
//! `excN` pairs `(uvarint gap, uvarint (v − min))`. The first gap is the position itself,
//! later gaps are the distance from the previous exception (> 0); positions are < n.
//!
//! ```text
//! [1, 2, 1000, 3] as u64, b = 2:  EE 03 04 02 01 | B4 | 01 02 E7 07
//! ```

use super::bitpack::{bit_width, mask, pack, packed_len, padding_is_zero, unpack_add};
use super::cursor::Cursor;
use super::{Kind, scalar_len, write_scalar};
use crate::error::Result;
use crate::wire::tags::QP_PFOR;
use crate::wire::varint::{uvarint_len, write_uvarint};

/// Exact encoded size in bytes, tag included, of `vals` with frame `min` at width `b`.
pub fn cost(vals: &[u64], min: u64, b: u32, signed: bool) -> usize {
    let (mut exc, mut exc_bytes, mut last) = (0usize, 0usize, 0usize);
    for (i, v) in vals.iter().enumerate() {
        let d = v.wrapping_sub(min);
        if d > mask(b) {
            exc_bytes += uvarint_len((i - last) as u64) + uvarint_len(d);
            exc += 1;
            last = i;
        }
    }
    3 + uvarint_len(vals.len() as u64)
        + scalar_len(min, signed)
        + packed_len(vals.len(), b)
        + uvarint_len(exc as u64)
        + exc_bytes
}

/// A lower bound of [`cost`] at width `b` with `exceptions` values above it: every
/// exception takes at least a byte of gap and a byte of value. Lets the picker skip the exact
/// pass when PFOR cannot win.
pub fn cost_floor(n: usize, min: u64, b: u32, exceptions: usize, signed: bool) -> usize {
    3 + uvarint_len(n as u64)
        + scalar_len(min, signed)
        + packed_len(n, b)
        + uvarint_len(exceptions as u64)
        + 2 * exceptions
}

/// The width below `for_bits` with the smallest size when each exception is charged
/// `uvl(n) + uvl(max Δ)` bytes (wire notes §2), from a histogram of the value widths, and the
/// number of values above that width (its exceptions).
pub fn best_width(vals: &[u64], min: u64, for_bits: u32, max_width: u32) -> (u32, usize) {
    let mut hist = [0usize; 65];
    for v in vals {
        hist[bit_width(v.wrapping_sub(min)) as usize] += 1;
    }
    let n = vals.len();
    let per_exc = uvarint_len(n as u64) + uvarint_len(mask(for_bits));
    let mut above = n - hist[0];
    let (mut best, mut best_cost, mut best_above) = (0, usize::MAX, above);
    for b in 0..for_bits.min(max_width + 1) {
        if b > 0 {
            above -= hist[b as usize];
        }
        let c = packed_len(n, b) + uvarint_len(above as u64) + above * per_exc;
        if c < best_cost {
            (best, best_cost, best_above) = (b, c, above);
        }
    }
    (best, best_above)
}

/// Appends the PFOR encoding of `vals` (64-bit `kind`) with frame `min` (≤ every value)
/// at width `b`.
pub fn encode_with(vals: &[u64], kind: Kind, min: u64, b: u32, out: &mut Vec<u8>) {
    out.push(QP_PFOR);
    out.push(kind.byte());
    write_uvarint(out, vals.len() as u64);
    out.push(b as u8);
    write_scalar(out, min, kind.is_signed());
    pack(vals.iter().map(|v| v.wrapping_sub(min)), b, out);
    let excs = || {
        vals.iter()
            .enumerate()
            .map(move |(i, v)| (i, v.wrapping_sub(min)))
            .filter(move |&(_, d)| d > mask(b))
    };
    write_uvarint(out, excs().count() as u64);
    let mut last = 0;
    for (i, d) in excs() {
        write_uvarint(out, (i - last) as u64);
        write_uvarint(out, d);
        last = i;
    }
}

/// Reads the body after the kind byte. Errors: width above 64, a count the remaining bytes
/// cannot hold, an exception position out of range or not increasing, non-zero padding, the
/// output budget.
pub fn decode(cur: &mut Cursor<'_>, kind: Kind, budget: &mut u64) -> Result<Vec<u64>> {
    let n_at = cur.pos();
    let n = cur.uvarint("the PFOR count")?;
    let b = super::for_::read_width(cur)?;
    let min = cur.scalar(kind.is_signed(), "the PFOR minimum")?;
    let n = cur
        .check_count(n, b as u64)
        .map_err(|c| cur.err_at(n_at, c))?;
    let body_at = cur.pos();
    let body = cur.take(packed_len(n, b), "the PFOR body")?;
    if !padding_is_zero(body, n, b) {
        return Err(cur.bad("non-zero padding bits after a packed body"));
    }
    let exc_at = cur.pos();
    let exc = cur.uvarint("the PFOR exception count")?;
    // Each exception takes at least two bytes.
    if exc > n as u64 || exc.saturating_mul(2) > cur.remaining() as u64 {
        return Err(cur.bad_at(exc_at, "PFOR exception count larger than the body allows"));
    }
    cur.charge(budget, n, body_at)?;
    let mut out = vec![0u64; n];
    unpack_add(body, b, min, &mut out);
    let mut pos = 0u64;
    for k in 0..exc {
        let gap_at = cur.pos();
        let gap = cur.uvarint("a PFOR exception gap")?;
        pos = pos.saturating_add(gap);
        if (k > 0 && gap == 0) || pos >= n as u64 {
            return Err(cur.bad_at(gap_at, "exception index out of range"));
        }
        let d = cur.uvarint("a PFOR exception value")?;
        out[pos as usize] = min.wrapping_add(d);
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
