//! F5: flat string dictionary.
//!
//! ```text
//! F5 uvarint(d) d × (uvarint len, bytes)   table, first-seen order, 2 ≤ d ≤ 256
//!    uvarint(n) ⌈n·⌈log2 d⌉/8⌉ bytes        row → table position, LSB-first
//! ```
//!
//! Decoded rows borrow the table bytes from the input.

use super::column::{Store, StrColumn};
use super::read::Reader;
use super::table::{Dict, dict_column, read_index, read_table, write_index};
use crate::error::Result;
use crate::wire::tags::COL_STR_DICT;

/// Exact encoded size of `dict` as an F5 block, tag included.
pub(super) fn cost(dict: &Dict<'_>) -> usize {
    1 + dict.table_cost() + dict.index_cost()
}

/// Writes `dict` as an F5 block (`2 ≤ d ≤ 256` is the caller's gate).
pub(super) fn encode(dict: &Dict<'_>, out: &mut Vec<u8>) {
    out.push(COL_STR_DICT);
    dict.write_table(out);
    write_index(&dict.index, dict.entries.len(), out);
}

/// Reads an F5 body (after the tag).
pub(super) fn decode<'a>(
    r: &mut Reader<'a>,
    n_expected: usize,
    budget: &mut u64,
) -> Result<StrColumn<'a>> {
    let table = read_table(r)?;
    let at = r.offset();
    let index = read_index(r, n_expected, table.len())?;
    dict_column(Store::Input(r.view()), table, index, budget, at)
}

#[cfg(test)]
mod tests;
