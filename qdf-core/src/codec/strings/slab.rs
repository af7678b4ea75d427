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
mod tests;
