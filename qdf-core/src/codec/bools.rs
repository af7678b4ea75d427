//! Bit-packed booleans, tag `E3`: `uvarint(n)`, then `⌈n/8⌉` bytes, element `i` in bit
//! `i % 8` of byte `i / 8` (LSB-first); the padding bits are zero.
//!
//! ```text
//! [true, false, true]:  E3 03 05
//! ```

use super::cursor::Cursor;
use crate::error::Result;
use crate::wire::tags::QP_BOOL;
use crate::wire::varint::{uvarint_len, write_uvarint};

/// Exact encoded size in bytes, tag included.
pub fn cost(n: usize) -> usize {
    1 + uvarint_len(n as u64) + n.div_ceil(8)
}

/// Appends the packed encoding of `vals`.
pub fn encode(vals: &[bool], out: &mut Vec<u8>) {
    out.push(QP_BOOL);
    write_uvarint(out, vals.len() as u64);
    out.extend(vals.chunks(8).map(|c| {
        c.iter()
            .enumerate()
            .fold(0u8, |acc, (i, &b)| acc | ((b as u8) << i))
    }));
}

/// Reads the body after the tag. Errors: a count the remaining bytes cannot hold, non-zero
/// padding, the output budget.
pub fn decode(cur: &mut Cursor<'_>, budget: &mut u64) -> Result<Vec<bool>> {
    let n = cur.count(1, "the bool count")?;
    let at = cur.pos();
    let body = cur.take(n.div_ceil(8), "the bool body")?;
    if !super::bitpack::padding_is_zero(body, n, 1) {
        return Err(cur.bad("non-zero padding bits after a packed body"));
    }
    cur.charge(budget, n, at)?;
    let mut out = Vec::with_capacity(n);
    for &byte in body {
        let take = (n - out.len()).min(8);
        out.extend((0..take).map(|i| byte >> i & 1 == 1));
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
