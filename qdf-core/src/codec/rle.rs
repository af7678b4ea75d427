//! Run-length encoding (RLE), tag `EB`: `(value, run length)` pairs.
//!
//! Layout after the tag: `kind` (U64/I64), `uvarint(n)`, then pairs of `value` (uvarint;
//! zigzag when signed) and `uvarint(run ≥ 1)` whose runs sum to exactly `n`. A decoder
//! accepts at most 2^24 values (the input cannot bound them).
//!
//! ```text
//! [7, 7, 7, 9] as u64:  EB 03 04 07 03 09 01
//! ```

use super::cursor::{Cursor, MAX_CONST_COUNT};
use super::{Kind, scalar_len, write_scalar};
use crate::error::Result;
use crate::wire::tags::QP_RLE;
use crate::wire::varint::{uvarint_len, write_uvarint};

/// Iterates the runs of `vals` as `(value, length)`.
pub fn runs(vals: &[u64]) -> impl Iterator<Item = (u64, usize)> + '_ {
    vals.chunk_by(|a, b| a == b).map(|r| (r[0], r.len()))
}

/// Exact encoded size in bytes, tag included.
pub fn cost(vals: &[u64], signed: bool) -> usize {
    let pairs: usize = runs(vals)
        .map(|(v, len)| scalar_len(v, signed) + uvarint_len(len as u64))
        .sum();
    2 + uvarint_len(vals.len() as u64) + pairs
}

/// Appends the RLE encoding of `vals` as the 64-bit `kind`.
pub fn encode(vals: &[u64], kind: Kind, out: &mut Vec<u8>) {
    out.extend_from_slice(&[QP_RLE, kind.byte()]);
    write_uvarint(out, vals.len() as u64);
    for (v, len) in runs(vals) {
        write_scalar(out, v, kind.is_signed());
        write_uvarint(out, len as u64);
    }
}

/// Reads the body after the kind byte. Errors: more than 2^24 values, a zero run, runs
/// that overshoot `n`, the output budget.
pub fn decode(cur: &mut Cursor<'_>, kind: Kind, budget: &mut u64) -> Result<Vec<u64>> {
    let at = cur.pos();
    let n = cur.uvarint("the RLE count")?;
    if n > MAX_CONST_COUNT {
        return Err(cur.bad_at(at, "RLE body longer than 2^24 values"));
    }
    let n = n as usize;
    cur.charge(budget, n, at)?;
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let v = cur.scalar(kind.is_signed(), "an RLE value")?;
        let run_at = cur.pos();
        let run = cur.uvarint("an RLE run length")?;
        if run == 0 || run > (n - out.len()) as u64 {
            let what = if run == 0 {
                "an RLE run of zero"
            } else {
                "RLE runs beyond the count"
            };
            return Err(cur.bad_at(run_at, what));
        }
        out.resize(out.len() + run as usize, v);
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
