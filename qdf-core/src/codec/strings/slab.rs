//! F8 raw slab and F9 constant.
//!
//! ```text
//! F8 uvarint(n) uvarint(total) n × (uvarint len, bytes)    Σ len = total
//! F9 uvarint(len) bytes uvarint(n)                         n copies of one value
//! ```
//!
//! Decoded rows borrow from the input.

use super::column::{Rows, Span, Store, StrColumn};
use super::read::{Reader, charge};
use super::table::{prefixed_cost, write_prefixed};
use crate::error::{Error, ErrorCode, Result};
use crate::wire::tags::{COL_STR_CONST, COL_STR_SLAB};
use crate::wire::varint::{uvarint_len, write_uvarint};

/// Exact size of `values` as an F8 block, tag included.
pub(super) fn slab_cost(values: &[&[u8]]) -> usize {
    let total: usize = values.iter().map(|v| v.len()).sum();
    1 + uvarint_len(values.len() as u64)
        + uvarint_len(total as u64)
        + prefixed_cost(values.iter().copied())
}

/// Writes `values` as an F8 block.
pub(super) fn encode_slab(values: &[&[u8]], out: &mut Vec<u8>) {
    out.push(COL_STR_SLAB);
    write_uvarint(out, values.len() as u64);
    write_uvarint(out, values.iter().map(|v| v.len() as u64).sum());
    write_prefixed(values.iter().copied(), out);
}

/// Reads an F8 body (after the tag).
pub(super) fn decode_slab<'a>(
    r: &mut Reader<'a>,
    n_expected: usize,
    budget: &mut u64,
) -> Result<StrColumn<'a>> {
    r.rows(n_expected)?;
    let at_total = r.offset();
    let total = r.len()?;
    // Each row takes at least its length byte, on top of the `total` value bytes.
    if n_expected > r.remaining() - total {
        return Err(r.err(ErrorCode::LengthOverrun {
            len: n_expected as u64,
            remaining: (r.remaining() - total) as u64,
        }));
    }
    charge(budget, total as u64, at_total)?;
    let mut spans = Vec::with_capacity(n_expected);
    let mut sum = 0usize;
    for _ in 0..n_expected {
        let len = r.len()?;
        sum += len;
        if sum > total {
            return Err(r.bad("F8 value lengths add up to more than the announced total"));
        }
        spans.push(r.take(len)?);
    }
    if sum != total {
        return Err(Error::at(
            ErrorCode::BadCodec("F8 value lengths add up to less than the announced total"),
            at_total,
        ));
    }
    Ok(StrColumn::new(Store::Input(r.view()), Rows::Each(spans)))
}

/// Exact size of `n` copies of `value` as an F9 block, tag included.
pub(super) fn const_cost(value: &[u8], n: usize) -> usize {
    1 + uvarint_len(value.len() as u64) + value.len() + uvarint_len(n as u64)
}

/// Writes `n` copies of `value` as an F9 block.
pub(super) fn encode_const(value: &[u8], n: usize, out: &mut Vec<u8>) {
    out.push(COL_STR_CONST);
    write_uvarint(out, value.len() as u64);
    out.extend_from_slice(value);
    write_uvarint(out, n as u64);
}

/// Reads an F9 body (after the tag). Charges `n · len` output bytes.
pub(super) fn decode_const<'a>(
    r: &mut Reader<'a>,
    n_expected: usize,
    budget: &mut u64,
) -> Result<StrColumn<'a>> {
    let len = r.len()?;
    let span: Span = r.take(len)?;
    let at = r.offset();
    r.rows(n_expected)?;
    charge(budget, (len as u64).saturating_mul(n_expected as u64), at)?;
    Ok(StrColumn::new(
        Store::Input(r.view()),
        Rows::Repeat {
            span,
            n: n_expected,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{decode_all, mutations_never_panic, strs};
    use super::*;

    #[test]
    fn golden_slab() {
        let vals = strs(&["ab", "", "cde"]);
        let mut out = Vec::new();
        encode_slab(&vals, &mut out);
        assert_eq!(out, [0xF8, 3, 5, 2, b'a', b'b', 0, 3, b'c', b'd', b'e']);
        assert_eq!(slab_cost(&vals), out.len());
        assert_eq!(decode_all(&out, 3).unwrap(), [&b"ab"[..], b"", b"cde"]);
    }

    #[test]
    fn golden_const() {
        let mut out = Vec::new();
        encode_const(b"INFO", 300, &mut out);
        assert_eq!(out, [0xF9, 4, b'I', b'N', b'F', b'O', 0xAC, 0x02]);
        assert_eq!(const_cost(b"INFO", 300), out.len());
        let col = decode_all(&out, 300).unwrap();
        assert!(col.iter().all(|v| v == b"INFO") && col.len() == 300);
    }

    #[test]
    fn slab_total_must_match() {
        assert!(decode_all(&[0xF8, 2, 3, 1, b'a', 1, b'b'], 2).is_err());
        assert!(decode_all(&[0xF8, 2, 1, 1, b'a', 1, b'b'], 2).is_err());
    }

    #[test]
    fn const_budget_charged() {
        let mut out = Vec::new();
        encode_const(&[b'x'; 100], 1 << 20, &mut out);
        let mut budget = 1 << 20;
        let err = super::super::decode_block(&out, 0, 1 << 20, &mut budget)
            .err()
            .unwrap();
        assert_eq!(
            err.code(),
            &ErrorCode::OutputLimit {
                needed: 100 << 20,
                limit: 1 << 20
            }
        );
    }

    #[test]
    fn hostile_bytes_never_panic() {
        let vals = strs(&["alpha", "", "βeta", "gamma"]);
        let mut out = Vec::new();
        encode_slab(&vals, &mut out);
        mutations_never_panic(&out, vals.len());
        out.clear();
        encode_const(b"same", 9, &mut out);
        mutations_never_panic(&out, 9);
    }
}
