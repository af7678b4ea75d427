//! Delta + FOR, tag `E6`: the first value, then the differences of neighbours minus their
//! minimum, bit-packed. Differences wrap mod 2^64 and are compared as signed.
//!
//! Layout after the tag: `kind` (U64/I64), `bits` (1 byte, ≤ 64), `first` (uvarint;
//! zigzag when signed), `zigzag(minΔ)`, `uvarint(n)` (n ≥ 1), then the `n − 1` values
//! `Δᵢ − minΔ` at `bits` width.
//!
//! ```text
//! [10, 11, 12, 13] as u64:  E6 03 00 0A 02 04   (constant step 1: no body)
//! ```

use super::bitpack::{bit_width, pack, packed_len, padding_is_zero, unpack_add};
use super::cursor::Cursor;
use super::for_::read_width;
use super::{Kind, scalar_len, write_scalar};
use crate::error::Result;
use crate::wire::tags::QP_DELTA;
use crate::wire::varint::{uvarint_len, write_uvarint, zigzag};

/// Smallest delta and the width of `Δ − minΔ` over `vals` (at least 2 values), or `None`.
pub fn plan(vals: &[u64]) -> Option<(i64, u32)> {
    if vals.len() < 2 {
        return None;
    }
    let (mut lo, mut hi) = (i64::MAX, i64::MIN);
    for w in vals.windows(2) {
        let d = w[1].wrapping_sub(w[0]) as i64;
        lo = lo.min(d);
        hi = hi.max(d);
    }
    Some((lo, bit_width((hi as u64).wrapping_sub(lo as u64))))
}

/// Exact encoded size in bytes, tag included (`n` ≥ 1).
pub fn cost(n: usize, first: u64, min_delta: i64, bits: u32, signed: bool) -> usize {
    3 + scalar_len(first, signed)
        + uvarint_len(zigzag(min_delta))
        + uvarint_len(n as u64)
        + packed_len(n - 1, bits)
}

/// Appends the delta encoding of `vals` (non-empty, 64-bit `kind`) for a plan from
/// [`plan`] (`(0, 0)` for a single value).
pub fn encode_with(vals: &[u64], kind: Kind, min_delta: i64, bits: u32, out: &mut Vec<u8>) {
    out.extend_from_slice(&[QP_DELTA, kind.byte(), bits as u8]);
    write_scalar(out, vals[0], kind.is_signed());
    write_uvarint(out, zigzag(min_delta));
    write_uvarint(out, vals.len() as u64);
    let deltas = vals
        .windows(2)
        .map(|w| w[1].wrapping_sub(w[0]).wrapping_sub(min_delta as u64));
    pack(deltas, bits, out);
}

/// Appends the delta encoding of `vals` (non-empty) as the 64-bit `kind`.
pub fn encode(vals: &[u64], kind: Kind, out: &mut Vec<u8>) {
    let (min_delta, bits) = plan(vals).unwrap_or((0, 0));
    encode_with(vals, kind, min_delta, bits, out);
}

/// Reads the body after the kind byte. Errors: width above 64, zero values, a count the
/// remaining bytes cannot hold, non-zero padding, the output budget.
pub fn decode(cur: &mut Cursor<'_>, kind: Kind, budget: &mut u64) -> Result<Vec<u64>> {
    let bits = read_width(cur)?;
    let first = cur.scalar(kind.is_signed(), "the first delta value")?;
    let min_delta = cur.scalar(true, "the minimum delta")?;
    let at = cur.pos();
    let n = cur.uvarint("the delta count")?;
    if n == 0 {
        return Err(cur.bad("delta body with zero values"));
    }
    let rest = cur
        .check_count(n - 1, bits as u64)
        .map_err(|code| cur.err_at(at, code))?;
    let body = cur.take(packed_len(rest, bits), "the delta body")?;
    if !padding_is_zero(body, rest, bits) {
        return Err(cur.bad("non-zero padding bits after a packed body"));
    }
    cur.charge(budget, rest + 1, at)?;
    let mut out = vec![0u64; rest + 1];
    unpack_add(body, bits, min_delta, &mut out[1..]);
    out[0] = first;
    prefix_sum(&mut out);
    Ok(out)
}

/// Turns `[first, Δ1, Δ2, …]` into running sums in place (wrapping).
fn prefix_sum(vals: &mut [u64]) {
    let mut acc = 0u64;
    for v in vals {
        acc = acc.wrapping_add(*v);
        *v = acc;
    }
}

#[cfg(test)]
mod tests;
