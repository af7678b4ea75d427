//! FA: front-coded string dictionary.
//!
//! ```text
//! FA uvarint(d) d × (uvarint prefixLen, uvarint suffixLen, suffix)   sorted, 2 ≤ d ≤ 256
//!    uvarint(n) ⌈n·⌈log2 d⌉/8⌉ bytes                                   row → sorted position
//! ```
//!
//! Entry `i` is the first `prefixLen` bytes of entry `i − 1` followed by `suffix` (entry 0
//! has `prefixLen = 0`). The table is sorted bytewise and strictly increasing; the decoder
//! rejects anything else. Rows are rebuilt into an arena.

use super::column::{Span, Store, StrColumn};
use super::read::{Reader, charge};
use super::table::{Dict, dict_column, read_index, read_table_size, write_index};
use crate::error::{Error, ErrorCode, Result};
use crate::wire::tags::COL_STR_FRONT;
use crate::wire::varint::{uvarint_len, write_uvarint};

/// Fewest bytes every distinct value must share for FA to be tried (§20.8).
pub(super) const MIN_SHARED_PREFIX: usize = 2;

/// A dictionary in sorted order, ready to front-code.
pub(crate) struct Front<'v> {
    sorted: Vec<&'v [u8]>,
    index: Vec<u8>,
}

fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

impl<'v> Front<'v> {
    /// Sorts `dict`'s table and remaps its index; `None` unless all distinct values share a
    /// prefix of at least [`MIN_SHARED_PREFIX`] bytes.
    pub(super) fn build(dict: &Dict<'v>) -> Option<Front<'v>> {
        let mut order: Vec<u8> = (0..dict.entries.len()).map(|k| k as u8).collect();
        order.sort_by_key(|&k| dict.entries[k as usize]);
        let sorted: Vec<&[u8]> = order.iter().map(|&k| dict.entries[k as usize]).collect();
        // The prefix shared by all values is the one shared by the first and last sorted.
        if common_prefix(sorted.first()?, sorted.last()?) < MIN_SHARED_PREFIX {
            return None;
        }
        let mut rank = [0u8; 256];
        for (pos, &k) in order.iter().enumerate() {
            rank[k as usize] = pos as u8;
        }
        let index = dict.index.iter().map(|&k| rank[k as usize]).collect();
        Some(Front { sorted, index })
    }

    fn entries(&self) -> impl Iterator<Item = (usize, &'v [u8])> + '_ {
        let prev = std::iter::once(&b""[..]).chain(self.sorted.iter().copied());
        prev.zip(self.sorted.iter().copied()).map(|(p, e)| {
            let k = common_prefix(p, e);
            (k, &e[k..])
        })
    }

    /// Bytes of the table's entries once rebuilt (the decoder's arena, charged with the rows).
    pub(super) fn table_bytes(&self) -> u64 {
        self.sorted.iter().map(|e| e.len() as u64).sum()
    }

    /// Bytes of the front-coded table.
    pub(super) fn table_cost(&self) -> usize {
        uvarint_len(self.sorted.len() as u64)
            + self
                .entries()
                .map(|(p, s)| uvarint_len(p as u64) + uvarint_len(s.len() as u64) + s.len())
                .sum::<usize>()
    }

    /// Exact size of the FA block, tag included.
    pub(super) fn cost(&self, dict: &Dict<'_>) -> usize {
        1 + self.table_cost() + dict.index_cost()
    }

    /// Writes the FA block.
    pub(super) fn encode(&self, out: &mut Vec<u8>) {
        out.push(COL_STR_FRONT);
        write_uvarint(out, self.sorted.len() as u64);
        for (p, s) in self.entries() {
            write_uvarint(out, p as u64);
            write_uvarint(out, s.len() as u64);
            out.extend_from_slice(s);
        }
        write_index(&self.index, self.sorted.len(), out);
    }
}

/// Reads an FA body (after the tag).
pub(super) fn decode<'a>(
    r: &mut Reader<'a>,
    n_expected: usize,
    budget: &mut u64,
) -> Result<StrColumn<'a>> {
    let d = read_table_size(r, 2)?;
    // Pass 1: read the layout and size the arena before allocating it.
    let at_table = r.offset();
    let mut parts: Vec<(usize, &[u8])> = Vec::with_capacity(d);
    let mut prev_len = 0usize;
    let mut total = 0u64;
    for _ in 0..d {
        let at = r.offset();
        let p = r.uvarint()?;
        if p > prev_len as u64 {
            return Err(Error::at(
                ErrorCode::BadCodec("FA prefix longer than the previous entry"),
                at,
            ));
        }
        let s = r.len()?;
        let suffix = r.bytes(s)?;
        prev_len = p as usize + s;
        total += prev_len as u64;
        parts.push((p as usize, suffix));
    }
    if total > u64::from(u32::MAX) {
        let code = ErrorCode::OutputLimit {
            needed: total,
            limit: *budget,
        };
        return Err(Error::at(code, at_table));
    }
    charge(budget, total, at_table)?;
    // Pass 2: rebuild the entries.
    let mut arena: Vec<u8> = Vec::with_capacity(total as usize);
    let mut table: Vec<Span> = Vec::with_capacity(d);
    for (p, suffix) in parts {
        let start = arena.len();
        if let Some(prev) = table.last() {
            let from = prev.range().start;
            // The new entry shares `prev[..p]`, so it is greater iff its suffix is.
            if suffix <= &arena[from + p..prev.range().end] {
                return Err(Error::at(
                    ErrorCode::BadCodec("FA table not strictly increasing"),
                    at_table,
                ));
            }
            arena.extend_from_within(from..from + p);
        }
        arena.extend_from_slice(suffix);
        table.push(Span::new(start, arena.len()));
    }
    let at = r.offset();
    let index = read_index(r, n_expected, d)?;
    dict_column(Store::Arena(arena), table, index, budget, at)
}

#[cfg(test)]
mod tests;
