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
//! Encoding: [`pick()`] tries the blocks in the §2.2 order and returns a [`StrBlock`] plan
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

pub(crate) use census::Census;
pub(crate) use column::{CheckedStrs, StrColumn};
pub(crate) use pick::{Pick, StrBlock, pick_borrowable, pick_with};

use crate::error::{Error, ErrorCode, Result};
use crate::wire::tags;
use read::Reader;

/// Fewest rows for which a block other than F9 is tried (§2.2: `n ≥ 16`).
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
mod tests {
    use super::testutil::decode_all;
    use super::*;

    #[test]
    fn rejects_non_block_tags() {
        let err = decode_all(&[0xC0], 1).unwrap_err();
        assert!(matches!(err.code(), ErrorCode::BadTag { found: 0xC0, .. }));
        assert!(decode_all(&[], 1).unwrap_err().is_eof());
        assert!(is_block_tag(0xF5) && !is_block_tag(0xF7) && !is_block_tag(0xFD));
    }

    #[test]
    fn row_count_must_match_the_column() {
        let slab = [0xF8, 2, 2, 1, b'a', 1, b'b'];
        assert_eq!(decode_all(&slab, 2).unwrap(), [b"a", b"b"]);
        let err = decode_all(&slab, 3).unwrap_err();
        assert_eq!(
            err.code(),
            &ErrorCode::BadCodec("string block row count differs from the column's row count")
        );
        assert_eq!(err.offset(), Some(1));
    }

    #[test]
    fn offsets_are_absolute_in_the_input() {
        let input = [0xAA, 0xBB, 0xF9, 5, b'a'];
        let mut budget = 1 << 20;
        let err = decode_block(&input, 2, 1, &mut budget).err().unwrap();
        assert_eq!(
            err.code(),
            &ErrorCode::LengthOverrun {
                len: 5,
                remaining: 1
            }
        );
        assert_eq!(err.offset(), Some(3));
    }

    /// Rows come out as `str` only after `check_utf8` passed, borrowed where the block keeps
    /// them in the input (F8) and from the arena where it rebuilds them (FA).
    #[test]
    fn text_is_handed_out_only_after_the_utf8_check() {
        let slab = [0xF8, 2, 5, 2, 0xC3, 0xA9, 3, b'a', 0xE2, 0x82];
        let mut budget = 1 << 20;
        let (mut col, _) = decode_block(&slab, 0, 2, &mut budget).unwrap();
        assert_eq!((col.text(0), col.borrowed_text(0)), (None, None));
        col.check_utf8().unwrap_err();
        assert_eq!((col.text(0), col.borrowed_text(1)), (None, None));

        let slab = [0xF8, 2, 6, 2, 0xC3, 0xA9, 4, b'a', 0xE2, 0x82, 0xAC];
        let (mut col, _) = decode_block(&slab, 0, 2, &mut budget).unwrap();
        col.check_utf8().unwrap();
        assert_eq!(col.borrowed_text(0), Some("é"));
        assert_eq!(col.text(1), Some("a€"));
        assert_eq!(col.text(2), None);
        let rows = col.into_checked().unwrap();
        assert_eq!((rows.row(1), rows.row(2)), (Some(Ok("a€")), None));

        // FA: entries "ab" and "a€" (prefix 1), rows [1, 0]; rebuilt into an arena.
        let front = [0xFA, 2, 0, 2, b'a', b'b', 1, 3, 0xE2, 0x82, 0xAC, 2, 0b01];
        let (mut col, _) = decode_block(&front, 0, 2, &mut budget).unwrap();
        col.check_utf8().unwrap();
        assert_eq!(col.borrowed_text(0), None);
        assert_eq!((col.text(0), col.text(1)), (Some("a€"), Some("ab")));
        let rows = col.into_checked().unwrap();
        assert_eq!(
            (rows.row(0), rows.row(1)),
            (Some(Err("a€")), Some(Err("ab")))
        );
    }

    /// A rebuilt ASCII store is checked in one pass; a store with other bytes row by row, so
    /// a lone lead byte still fails and a multibyte alphabet still passes.
    #[test]
    fn utf8_check_of_rebuilt_alphabet_rows() {
        let mut budget = 1 << 20;
        // FB, alphabet "0a", 3 fixed rows of 2, codes LSB first 0 1, 1 0, 1 1.
        let ascii = [0xFB, 2, b'0', b'a', 3, 1, 2, 0b11_0110];
        let (mut col, _) = decode_block(&ascii, 0, 3, &mut budget).unwrap();
        col.check_utf8().unwrap();
        assert_eq!(
            (col.text(0), col.text(1), col.text(2)),
            (Some("0a"), Some("a0"), Some("aa"))
        );
        // Alphabet [C3, A9], rows "é" (C3 A9) and "\xA9\xC3": the second is not UTF-8.
        let bad = [0xFB, 2, 0xC3, 0xA9, 2, 1, 2, 0b0110];
        let (mut col, _) = decode_block(&bad, 0, 2, &mut budget).unwrap();
        col.check_utf8().unwrap_err();
        assert_eq!(col.text(0), None);
        // The same alphabet, rows "é" "é": valid.
        let good = [0xFB, 2, 0xC3, 0xA9, 2, 1, 2, 0b1010];
        let (mut col, _) = decode_block(&good, 0, 2, &mut budget).unwrap();
        col.check_utf8().unwrap();
        assert_eq!((col.text(0), col.text(1)), (Some("é"), Some("é")));
    }

    /// Each block expanding a little input into much output hits the budget first.
    #[test]
    fn output_budget_is_charged_before_allocating() {
        let big = vec![b'x'; 1000];
        let mut dict_block = vec![0xF5, 2, 0xE8, 0x07];
        dict_block.extend_from_slice(&big);
        dict_block.extend_from_slice(&[0, 0xE8, 0x07]);
        dict_block.extend_from_slice(&[0; 125]);
        let mut fsst_block = vec![0xF6, 1, 8];
        fsst_block.extend_from_slice(&[b'y'; 8]);
        fsst_block.extend_from_slice(&[1, 0xC0, 0x3E, 0xE8, 0x07]);
        fsst_block.extend_from_slice(&[0; 1000]);
        // The error holds the charge and the budget that remained (the deserializer
        // restates both for the whole message).
        for (block, n, needed) in [(dict_block, 1000, 1_000_000), (fsst_block, 1, 8000)] {
            let mut budget = 5000;
            let err = decode_block(&block, 0, n, &mut budget).err().unwrap();
            assert_eq!(
                err.code(),
                &ErrorCode::OutputLimit {
                    needed,
                    limit: 5000
                },
                "tag {:02X}",
                block[0]
            );
            let mut budget = 1 << 24;
            let (col, used) = decode_block(&block, 0, n, &mut budget).unwrap();
            assert_eq!((col.len(), used), (n, block.len()));
        }
    }
}
