//! F6: FSST, Fast Static Symbol Tables (Boncz, Neumann, Leis, "FSST: Fast Random Access
//! String Compression", VLDB 2020).
//!
//! ```text
//! F6 uvarint(count)              count ≤ 255 symbols
//!    count × (len, bytes)        len byte 1..=8; symbol i has code i
//!    uvarint(n) uvarint(total)   rows and decoded bytes, total ≤ 8 × the code bytes
//!    n × (uvarint clen, codes)   code < count: the symbol; 255: escape, a literal byte follows
//! ```
//!
//! Training and encoding use the `fsst-rs` crate (SpiralDB), whose codes are exactly this
//! alphabet: symbol positions 0..count and 255 as the escape. Its symbol table is written
//! here in our layout; decoding is our own, bounds-checked and budgeted.

use fsst::Compressor;

use super::column::{Rows, Span, Store, StrColumn};
use super::read::{Reader, charge};
use super::table::{prefixed_cost, write_prefixed};
use super::{MAX_FSST_EXPANSION, MAX_FSST_SYMBOL_LEN, MAX_FSST_SYMBOLS};
use crate::error::{Error, ErrorCode, Result};
use crate::wire::tags::COL_STR_FSST;
use crate::wire::varint::{uvarint_len, write_uvarint};

/// The escape code: the next byte is a literal.
const ESCAPE: u8 = 255;

/// A trained symbol table and the compressed rows.
pub(crate) struct FsstPlan {
    table: Vec<u8>,
    count: usize,
    codes: Vec<u8>,
    ends: Vec<usize>,
    total: usize,
}

impl FsstPlan {
    /// Bytes of all values once decompressed (the block's `total`).
    pub(super) fn total(&self) -> usize {
        self.total
    }

    /// Trains a symbol table on `values` (the crate samples about 16 KiB) and compresses
    /// every value with greedy longest match.
    pub(super) fn train(values: &[&[u8]]) -> FsstPlan {
        let compressor = Compressor::train(&values.to_vec());
        let lens = compressor.symbol_lengths();
        let mut table = Vec::new();
        for (sym, &len) in compressor.symbol_table().iter().zip(lens) {
            table.push(len);
            table.extend_from_slice(&sym.to_u64().to_le_bytes()[..len as usize]);
        }
        let mut codes = Vec::new();
        let mut ends = Vec::with_capacity(values.len());
        for v in values {
            codes.extend_from_slice(&compressor.compress(v));
            ends.push(codes.len());
        }
        FsstPlan {
            table,
            count: lens.len(),
            codes,
            ends,
            total: values.iter().map(|v| v.len()).sum(),
        }
    }

    fn rows(&self) -> impl Iterator<Item = &[u8]> + '_ {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts.zip(&self.ends).map(|(s, &e)| &self.codes[s..e])
    }

    /// Exact size of the F6 block, tag included.
    pub(super) fn cost(&self) -> usize {
        1 + uvarint_len(self.count as u64)
            + self.table.len()
            + uvarint_len(self.ends.len() as u64)
            + uvarint_len(self.total as u64)
            + prefixed_cost(self.rows())
    }

    /// Writes the F6 block.
    pub(super) fn encode(&self, out: &mut Vec<u8>) {
        out.push(COL_STR_FSST);
        write_uvarint(out, self.count as u64);
        out.extend_from_slice(&self.table);
        write_uvarint(out, self.ends.len() as u64);
        write_uvarint(out, self.total as u64);
        write_prefixed(self.rows(), out);
    }
}

/// Reads an F6 body (after the tag).
pub(super) fn decode<'a>(
    r: &mut Reader<'a>,
    n_expected: usize,
    budget: &mut u64,
) -> Result<StrColumn<'a>> {
    let at_count = r.offset();
    let count = r.count(16)?;
    if count > MAX_FSST_SYMBOLS {
        return Err(Error::at(
            ErrorCode::BadCodec("FSST symbol count over 255"),
            at_count,
        ));
    }
    let mut syms: Vec<&[u8]> = Vec::with_capacity(count);
    for _ in 0..count {
        let at = r.offset();
        let len = r.byte("an FSST symbol length")? as usize;
        if !(1..=MAX_FSST_SYMBOL_LEN).contains(&len) {
            return Err(Error::at(
                ErrorCode::BadCodec("FSST symbol length outside 1..=8"),
                at,
            ));
        }
        syms.push(r.bytes(len)?);
    }
    r.rows(n_expected)?;
    let at_total = r.offset();
    let total = r.uvarint()?;
    // Every row takes at least its length byte.
    if n_expected > r.remaining() {
        return Err(r.err(ErrorCode::LengthOverrun {
            len: n_expected as u64,
            remaining: r.remaining() as u64,
        }));
    }
    if total > u64::from(u32::MAX) {
        return Err(Error::at(
            ErrorCode::BadCodec("FSST decoded size over u32::MAX"),
            at_total,
        ));
    }
    // More than the remaining bytes can expand to: like any length past the input, an Eof
    // (a truncated block looks exactly like this, and more input could make it valid).
    let room = r.remaining() as u64;
    if total > room.saturating_mul(MAX_FSST_EXPANSION) {
        return Err(Error::at(
            ErrorCode::LengthOverrun {
                len: total,
                remaining: room,
            },
            at_total,
        ));
    }
    charge(budget, total, at_total)?;
    let total = total as usize;
    let mut arena: Vec<u8> = Vec::with_capacity(total);
    let mut spans = Vec::with_capacity(n_expected);
    for _ in 0..n_expected {
        let clen = r.len()?;
        let at = r.offset();
        let codes = r.bytes(clen)?;
        let start = arena.len();
        expand(codes, &syms, total, &mut arena)
            .map_err(|(i, what)| Error::at(ErrorCode::BadCodec(what), at + i as u64))?;
        spans.push(Span::new(start, arena.len()));
    }
    if arena.len() != total {
        return Err(Error::at(
            ErrorCode::BadCodec("FSST rows decode to fewer bytes than announced"),
            at_total,
        ));
    }
    Ok(StrColumn::new(Store::Arena(arena), Rows::Each(spans)))
}

/// Appends the expansion of one row's codes; never grows `out` past `total`. On failure,
/// returns the offending code's position and what was wrong.
fn expand(
    codes: &[u8],
    syms: &[&[u8]],
    total: usize,
    out: &mut Vec<u8>,
) -> std::result::Result<(), (usize, &'static str)> {
    let mut i = 0;
    while i < codes.len() {
        let c = codes[i];
        let piece: &[u8] = if c == ESCAPE {
            i += 1;
            match codes.get(i) {
                Some(lit) => std::slice::from_ref(lit),
                None => return Err((i - 1, "FSST escape at the end of a row")),
            }
        } else {
            match syms.get(c as usize) {
                Some(s) => s,
                None => return Err((i, "FSST code past the symbol table")),
            }
        };
        if out.len() + piece.len() > total {
            return Err((i, "FSST rows decode to more bytes than announced"));
        }
        out.extend_from_slice(piece);
        i += 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
