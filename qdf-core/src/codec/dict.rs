//! Integer dictionary, tag `ED`: up to 64 distinct values in first-seen order, then one
//! bit-packed index per element.
//!
//! Layout after the tag: `kind` (U64/I64), `uvarint(d)` (1 ≤ d ≤ 64), `d` values (uvarint;
//! zigzag when signed), `uvarint(n)`, then `n` indexes at `⌈log2 d⌉` bits (no body when
//! d = 1). An index ≥ d is an error.
//!
//! ```text
//! [5000, 9, 5000, 9] as u64:  ED 03 02 88 27 09 04 0A   (indexes 0 1 0 1 at 1 bit)
//! ```

use super::bitpack::{pack, packed_len, padding_is_zero, unpack_add};
use super::cursor::Cursor;
use super::{Kind, scalar_len, write_scalar};
use crate::error::Result;
use crate::wire::tags::QP_DICT;
use crate::wire::varint::{uvarint_len, write_uvarint};

/// The most distinct values a dictionary holds (wire notes §6).
pub const MAX_DICT: usize = 64;

/// Index width for `d` entries: `⌈log2 d⌉`.
pub fn index_bits(d: usize) -> u32 {
    usize::BITS - d.saturating_sub(1).leading_zeros()
}

/// A small open-addressing map from value to dictionary index (at most 64 entries in 128
/// slots, Fibonacci hashing), so building and indexing cost O(1) per element.
struct Index {
    keys: [u64; 128],
    /// Index + 1; 0 = empty slot.
    ids: [u8; 128],
}

impl Index {
    fn new() -> Self {
        Index {
            keys: [0; 128],
            ids: [0; 128],
        }
    }

    /// The slot holding `v`, or the empty slot where it would go.
    #[inline]
    fn slot(&self, v: u64) -> usize {
        let mut s = (v.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 57) as usize;
        while self.ids[s] != 0 && self.keys[s] != v {
            s = (s + 1) & 127;
        }
        s
    }
}

/// The distinct values of `vals` in first-seen order, or `None` if there are more than 64.
pub fn distinct(vals: &[u64]) -> Option<Vec<u64>> {
    let mut d = [0u64; MAX_DICT];
    distinct_into(vals, &mut d).map(|len| d[..len].to_vec())
}

/// [`distinct`] into `d` without allocating (the picker costs the dictionary of every
/// integer column and rarely keeps it): how many distinct values `d` starts with, or `None`
/// past 64.
pub(crate) fn distinct_into(vals: &[u64], d: &mut [u64; MAX_DICT]) -> Option<usize> {
    let mut len = 0;
    let mut index = Index::new();
    let mut last = None;
    for &v in vals {
        // Runs are common: compare with the last value first.
        if last == Some(v) {
            continue;
        }
        last = Some(v);
        let s = index.slot(v);
        if index.ids[s] == 0 {
            if len == MAX_DICT {
                return None;
            }
            d[len] = v;
            len += 1;
            (index.keys[s], index.ids[s]) = (v, len as u8);
        }
    }
    Some(len)
}

/// Exact encoded size in bytes, tag included, for `dict` from [`distinct`].
pub fn cost(n: usize, dict: &[u64], signed: bool) -> usize {
    let values: usize = dict.iter().map(|&v| scalar_len(v, signed)).sum();
    2 + uvarint_len(dict.len() as u64)
        + values
        + uvarint_len(n as u64)
        + packed_len(n, index_bits(dict.len()))
}

/// Appends the dictionary encoding of `vals` (64-bit `kind`) with `dict` from [`distinct`].
pub fn encode_with(vals: &[u64], kind: Kind, dict: &[u64], out: &mut Vec<u8>) {
    out.extend_from_slice(&[QP_DICT, kind.byte()]);
    write_uvarint(out, dict.len() as u64);
    for &v in dict {
        write_scalar(out, v, kind.is_signed());
    }
    write_uvarint(out, vals.len() as u64);
    let mut index = Index::new();
    for (i, &v) in dict.iter().enumerate() {
        let s = index.slot(v);
        (index.keys[s], index.ids[s]) = (v, i as u8 + 1);
    }
    let id = |v: &u64| index.ids[index.slot(*v)].saturating_sub(1) as u64;
    pack(vals.iter().map(id), index_bits(dict.len()), out);
}

/// Reads the body after the kind byte. Errors: `d` of 0 or above 64, a count the remaining
/// bytes cannot hold, an index out of range, non-zero padding, the output budget.
pub fn decode(cur: &mut Cursor<'_>, kind: Kind, budget: &mut u64) -> Result<Vec<u64>> {
    let at = cur.pos();
    let d = cur.uvarint("the dictionary size")?;
    if d == 0 || d > MAX_DICT as u64 {
        return Err(cur.bad_at(at, "dictionary size outside 1..=64"));
    }
    let mut dict = [0u64; MAX_DICT];
    for slot in &mut dict[..d as usize] {
        *slot = cur.scalar(kind.is_signed(), "a dictionary value")?;
    }
    let bits = index_bits(d as usize);
    let n = cur.count(bits as u64, "the dictionary count")?;
    let body_at = cur.pos();
    let body = cur.take(packed_len(n, bits), "the dictionary indexes")?;
    if !padding_is_zero(body, n, bits) {
        return Err(cur.bad("non-zero padding bits after a packed body"));
    }
    cur.charge(budget, n, body_at)?;
    let mut out = vec![0u64; n];
    unpack_add(body, bits, 0, &mut out);
    for v in &mut out {
        *v = *dict
            .get(*v as usize)
            .filter(|_| *v < d)
            .ok_or_else(|| cur.bad_at(body_at, "dictionary index out of range"))?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
