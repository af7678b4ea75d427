//! The dictionary (from [`super::census`]) and the wire pieces shared by the dictionary blocks (F5, FA, FC):
//! the flat table `uvarint(d), d × (uvarint len, bytes)` and the flat index
//! `uvarint(n), ⌈n·⌈log2 d⌉/8⌉ bytes` (LSB-first, [`super::bits`]).

use super::bits::{BadCodes, IDENTITY, pack, packed_len, unpack_map, width_for};
#[cfg(test)]
use super::census::Census;
use super::column::{Rows, Span, Store, StrColumn};
use super::read::{Reader, charge};
use super::{MAX_DICT, MIN_DICT};
use crate::error::Result;
use crate::wire::varint::{uvarint_len, write_uvarint};

/// The distinct values of a column in first-seen order and each row's position among them.
pub(crate) struct Dict<'v> {
    /// Distinct values, first-seen order, at most [`MAX_DICT`].
    pub(super) entries: Vec<&'v [u8]>,
    /// One entry position per row.
    pub(super) index: Vec<u8>,
}

impl<'v> Dict<'v> {
    /// Builds the dictionary, or `None` above [`MAX_DICT`] distinct values (the picker
    /// takes it from its [`Census`]).
    #[cfg(test)]
    pub(super) fn build(values: &'v [&'v [u8]]) -> Option<Dict<'v>> {
        Census::new(values, 0).finish().dict()
    }

    /// Bits per index, `⌈log2 d⌉`.
    pub(super) fn width(&self) -> u32 {
        width_for(self.entries.len())
    }

    /// Bytes of the flat table.
    pub(super) fn table_cost(&self) -> usize {
        uvarint_len(self.entries.len() as u64) + prefixed_cost(self.entries.iter().copied())
    }

    /// Bytes of the flat index.
    pub(super) fn index_cost(&self) -> usize {
        let n = self.index.len();
        uvarint_len(n as u64) + packed_len(n, self.width()).unwrap_or(usize::MAX)
    }

    /// Writes the flat table.
    pub(super) fn write_table(&self, out: &mut Vec<u8>) {
        write_uvarint(out, self.entries.len() as u64);
        write_prefixed(self.entries.iter().copied(), out);
    }
}

/// Bytes of `items` written as `uvarint(len) bytes` each (table entries, slab and FSST rows).
pub(super) fn prefixed_cost<'x>(items: impl Iterator<Item = &'x [u8]>) -> usize {
    items.map(|e| uvarint_len(e.len() as u64) + e.len()).sum()
}

/// Writes each item as `uvarint(len) bytes`.
pub(super) fn write_prefixed<'x>(items: impl Iterator<Item = &'x [u8]>, out: &mut Vec<u8>) {
    for e in items {
        write_uvarint(out, e.len() as u64);
        out.extend_from_slice(e);
    }
}

/// Writes the flat index for `index` over a table of `d` entries.
pub(super) fn write_index(index: &[u8], d: usize, out: &mut Vec<u8>) {
    write_uvarint(out, index.len() as u64);
    pack(index.iter().copied(), width_for(d), out);
}

/// Reads a table size `d` and checks `2 ≤ d ≤ 256` (§6 limits).
pub(super) fn read_table_size(r: &mut Reader<'_>, min_bytes_each: u64) -> Result<usize> {
    let at_d = r.offset();
    let d = r.count(min_bytes_each * 8)?;
    if !(MIN_DICT..=MAX_DICT).contains(&d) {
        return Err(crate::error::Error::at(
            crate::error::ErrorCode::BadCodec("string dictionary size outside 2..=256"),
            at_d,
        ));
    }
    Ok(d)
}

/// Reads a flat table: the entries as spans of the block view.
pub(super) fn read_table(r: &mut Reader<'_>) -> Result<Vec<Span>> {
    let d = read_table_size(r, 1)?;
    let mut table = Vec::with_capacity(d);
    for _ in 0..d {
        let len = r.len()?;
        table.push(r.take(len)?);
    }
    Ok(table)
}

/// Reads a flat index of `n_expected` rows over `d` entries; every position is checked `< d`.
pub(super) fn read_index(r: &mut Reader<'_>, n_expected: usize, d: usize) -> Result<Vec<u8>> {
    r.rows(n_expected)?;
    let w = width_for(d);
    let at = r.offset();
    let bytes = match packed_len(n_expected, w) {
        Some(len) => r.bytes(len)?,
        None => return Err(r.bad("string dictionary index length overflows")),
    };
    let mut index = Vec::with_capacity(n_expected);
    match unpack_map(bytes, n_expected, w, &IDENTITY[..d], &mut index) {
        Ok(()) => {}
        Err(BadCodes::Padding) => {
            return Err(crate::error::Error::at(
                crate::error::ErrorCode::BadCodec(
                    "nonzero padding bits after a string dictionary index",
                ),
                at,
            ));
        }
        Err(BadCodes::Past(p)) => {
            let byte = at + (p as u64 * u64::from(w)) / 8;
            return Err(crate::error::Error::at(
                crate::error::ErrorCode::BadCodec("string dictionary index points past the table"),
                byte,
            ));
        }
    }
    Ok(index)
}

/// Charges a dictionary column's decoded bytes (Σ over rows of the entry length) at `at`
/// and assembles it.
pub(super) fn dict_column<'a>(
    store: Store<'a>,
    table: Vec<Span>,
    index: Vec<u8>,
    budget: &mut u64,
    at: u64,
) -> Result<StrColumn<'a>> {
    charge(budget, dict_output_bytes(&table, &index), at)?;
    Ok(StrColumn::new(store, Rows::Dict { table, index }))
}

/// Σ over rows of the entry length.
fn dict_output_bytes(table: &[Span], index: &[u8]) -> u64 {
    let mut per = [0u64; MAX_DICT];
    for &k in index {
        per[k as usize] += 1;
    }
    table
        .iter()
        .zip(per)
        .map(|(s, c)| (s.len() as u64).saturating_mul(c))
        .fold(0u64, u64::saturating_add)
}
