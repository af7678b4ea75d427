//! FC: string dictionary whose index is an integer QPack block.
//!
//! ```text
//! FC uvarint(d) d × (uvarint len, bytes)   the F5 table, first-seen order, 2 ≤ d ≤ 256
//!    a complete QPack integer block        n table positions (its own tag, kind and count)
//! ```
//!
//! FC beats F5 when the index has runs or skew that the QPack integer codecs (FOR, delta,
//! RLE, dictionary, PFOR; `codec::pick`) exploit: a column sorted by level, status codes in
//! bursts. The encoder writes a U64 block; the decoder accepts any unsigned integer block.
//! Decoded rows borrow the table bytes from the input.

use super::column::{Store, StrColumn};
use super::read::Reader;
use super::table::{Dict, dict_column, read_table};
use crate::codec::kind::Kind;
use crate::codec::pick::{choose_index, write_int};
use crate::codec::{Packed, decode_body};
use crate::error::{Error, ErrorCode, Result};
use crate::wire::tags::COL_STR_DICTQ;

/// The QPack U64 block of `dict`'s index, if it is smaller than the flat F5 index.
pub(super) fn index_block(dict: &Dict<'_>) -> Option<Vec<u8>> {
    let wide: Vec<u64> = dict.index.iter().map(|&k| u64::from(k)).collect();
    let (choice, cost) = choose_index(&wide, dict.index_cost())?;
    let mut block = Vec::with_capacity(cost);
    write_int(&wide, Kind::U64, choice, &mut block);
    debug_assert_eq!(block.len(), cost);
    Some(block)
}

/// Exact size of the FC block given the encoded index block, tag included.
pub(super) fn cost(dict: &Dict<'_>, index_block: &[u8]) -> usize {
    1 + dict.table_cost() + index_block.len()
}

/// Writes the FC block: the table of `dict`, then `index_block` (from [`index_block`]).
pub(super) fn encode(dict: &Dict<'_>, index_block: &[u8], out: &mut Vec<u8>) {
    out.push(COL_STR_DICTQ);
    dict.write_table(out);
    out.extend_from_slice(index_block);
}

/// Reads an FC body (after the tag). The QPack decoder charges the index (in elements);
/// the rows' bytes are charged here.
pub(super) fn decode<'a>(
    r: &mut Reader<'a>,
    n_expected: usize,
    budget: &mut u64,
) -> Result<StrColumn<'a>> {
    let table = read_table(r)?;
    let at = r.offset();
    let (&tag, body) = r.rest().split_first().ok_or_else(|| {
        r.err(ErrorCode::UnexpectedEof {
            expected: "the QPack index of an FC block",
        })
    })?;
    if tag == crate::wire::tags::ENTROPY {
        return Err(Error::at(
            ErrorCode::BadCodec("FC index is an entropy-coded block (not allowed inside a block)"),
            at,
        ));
    }
    let (packed, used) = decode_body(tag, body, at + 1, budget)?;
    r.bytes(1 + used)?;
    let wide = match packed {
        Packed::Ints(kind, v) if !kind.is_signed() => v,
        _ => {
            return Err(Error::at(
                ErrorCode::BadCodec("FC index is not an unsigned integer QPack block"),
                at,
            ));
        }
    };
    if wide.len() != n_expected {
        return Err(Error::at(
            ErrorCode::BadCodec("string block row count differs from the column's row count"),
            at,
        ));
    }
    let mut index = Vec::with_capacity(wide.len());
    for v in wide {
        match u8::try_from(v) {
            Ok(k) if (k as usize) < table.len() => index.push(k),
            _ => {
                return Err(Error::at(
                    ErrorCode::BadCodec("string dictionary index points past the table"),
                    at,
                ));
            }
        }
    }
    dict_column(Store::Input(r.view()), table, index, budget, at)
}

#[cfg(test)]
mod tests;
