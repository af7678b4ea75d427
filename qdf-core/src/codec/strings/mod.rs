//! String column blocks (`docs/SPEC.md` §20): how one string column of a columnar container
//! is written when a whole-column form beats per-value strings.
//!
//! | tag | block | best for |
//! |---|---|---|
//! | F5 | flat dictionary ([`dict`]) | low-cardinality columns: levels, methods, country codes |
//! | FA | front-coded dictionary ([`front`]) | low-cardinality values sharing prefixes: URLs, paths |
//! | FC | dictionary with a QPack index ([`dictq`]) | indices with runs or skew: sorted or bursty columns |
//! | F6 | FSST ([`fsst`], Compression only) | high-cardinality text: messages, user agents |
//! | FB | alphabet packing ([`alpha`]) | ids over ≤ 64 characters: hex, base32, base64, decimal |
//! | F8 | raw slab ([`slab`]) | anything, when per-value strings cost more |
//! | F9 | constant ([`slab`]) | a column of one repeated value |
//!
//! Encoding: [`pick()`] tries the blocks in the §20.8 order and returns a [`StrBlock`] plan
//! (exact cost, then `encode`) or [`Pick::PerValue`]. Decoding: [`decode_block`] reads any
//! block into a [`StrColumn`], checking every count against the remaining bytes before it
//! allocates and charging the decoded bytes to the caller's output budget.
//!
//! Limits (`docs/SPEC.md` §20): dictionaries hold 2–256 values, alphabets 2–64 bytes, FSST tables
//! at most 255 symbols of 1–8 bytes, and FSST output at most 8× its code bytes.

mod alpha;
mod bits;
mod census;
mod column;
mod dict;
mod dictq;
mod front;
mod fsst;
mod pick;
#[cfg(test)]
mod proptests;
mod read;
#[cfg(test)]
mod realistic;
mod slab;
mod table;
#[cfg(test)]
mod testutil;

pub(crate) use census::{Census, Known};
pub(crate) use column::{CheckedStrs, StrColumn};
pub(crate) use pick::{Pick, StrBlock, pick_borrowable, pick_with};

use crate::error::{Error, ErrorCode, Result};
use crate::wire::tags;
use read::Reader;

/// Fewest rows for which a block other than F9 is tried (§20.8: `n ≥ 16`).
pub(crate) const MIN_ROWS: usize = 16;
/// Smallest string dictionary (§6).
pub(crate) const MIN_DICT: usize = 2;
/// Largest string dictionary (§6); indices fit a byte.
pub(crate) const MAX_DICT: usize = 256;
/// Smallest alphabet (§6).
pub(crate) const MIN_ALPHABET: usize = 2;
/// Largest alphabet (§6): codes fit 6 bits.
pub(crate) const MAX_ALPHABET: usize = 64;
/// Most FSST symbols: code 255 is the escape (Boncz, Neumann, Leis, VLDB 2020 §3).
pub(crate) const MAX_FSST_SYMBOLS: usize = 255;
/// Longest FSST symbol in bytes.
pub(crate) const MAX_FSST_SYMBOL_LEN: usize = 8;
/// FSST decoded bytes may be at most this many times the code bytes (§6).
pub(crate) const MAX_FSST_EXPANSION: u64 = 8;

/// True for the tags of string column blocks.
pub(crate) fn is_block_tag(tag: u8) -> bool {
    matches!(
        tag,
        tags::COL_STR_DICT
            | tags::COL_STR_FSST
            | tags::COL_STR_SLAB
            | tags::COL_STR_CONST
            | tags::COL_STR_FRONT
            | tags::COL_STR_ALPHA
            | tags::COL_STR_DICTQ
            | tags::ENTROPY
    )
}

/// Decodes the string block that starts with its tag at `input[start]`, holding
/// `n_expected` rows (the column's row count M; a block whose `n` differs is rejected).
///
/// Returns the column and the bytes consumed, tag included. Decoded bytes (Σ row lengths,
/// plus the rebuilt table for FA) are charged to `budget`, the caller's remaining output
/// budget in bytes, before they are allocated. Error offsets are absolute in `input`.
///
/// Errors: [`ErrorCode::BadTag`] for a tag that is not a string block,
/// [`ErrorCode::UnexpectedEof`] / [`ErrorCode::LengthOverrun`] for truncated or oversized
/// counts, [`ErrorCode::BadCodec`] for layout violations (sizes outside the §6 limits, index or
/// code out of range, lengths that do not add up, nonzero padding), [`ErrorCode::OutputLimit`]
/// (the charge that did not fit, against the `budget` that remained), and the QPack decoder's
/// errors for FC's index.
pub(crate) fn decode_block<'a>(
    input: &'a [u8],
    start: usize,
    n_expected: usize,
    budget: &mut u64,
) -> Result<(StrColumn<'a>, usize)> {
    let mut r = Reader::new(input, start);
    let tag = r.byte("a string column block tag")?;
    let col = match tag {
        tags::COL_STR_DICT => dict::decode(&mut r, n_expected, budget)?,
        tags::COL_STR_FRONT => front::decode(&mut r, n_expected, budget)?,
        tags::COL_STR_FSST => fsst::decode(&mut r, n_expected, budget)?,
        tags::COL_STR_ALPHA => alpha::decode(&mut r, n_expected, budget)?,
        tags::COL_STR_SLAB => slab::decode_slab(&mut r, n_expected, budget)?,
        tags::COL_STR_CONST => slab::decode_const(&mut r, n_expected, budget)?,
        tags::COL_STR_DICTQ => dictq::decode(&mut r, n_expected, budget)?,
        tags::ENTROPY => {
            let base = r.offset();
            let (inner, used) = crate::codec::entropy::unwrap(r.rest(), base, budget)?;
            r.bytes(used)?;
            let col = decode_block(&inner, 0, n_expected, budget).map(|(c, u)| (c.into_owned(), u));
            crate::codec::entropy::finish(col, &inner, base)?
        }
        found => {
            return Err(Error::at(
                ErrorCode::BadTag {
                    found,
                    expected: "a string column block (F5, F6, F8, F9, FA, FB, FC, FE)",
                },
                start as u64,
            ));
        }
    };
    debug_assert_eq!(col.len(), n_expected);
    Ok((col, r.consumed()))
}

#[cfg(test)]
mod tests;
