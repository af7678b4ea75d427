//! FC: string dictionary whose index is an integer QPack block.
//!
//! ```text
//! FC uvarint(d) d × (uvarint len, bytes)   the F5 table, first-seen order, 2 ≤ d ≤ 256
//!    a complete U64 QPack block            n table positions (its own tag, kind and count)
//! ```
//!
//! FC beats F5 when the index has runs or skew that FOR/RLE/PFOR exploit. The QPack codec
//! lives in `codec` (helper "qpack"); until it is merged this module takes the index block
//! ready-made on encode and a decoder function on decode, and `decode_block` reports FC as
//! unsupported. TODO(qpack merge): pass `codec`'s U64 encoder/decoder in `pick` and
//! `decode_block`.

use super::column::{Store, StrColumn};
use super::read::Reader;
use super::table::{Dict, dict_column, read_table};
use crate::error::{Error, ErrorCode, Result};
use crate::wire::tags::COL_STR_DICTQ;

/// Decodes the integer QPack block at the front of `block` (tag first), whose first byte is
/// at absolute offset `base` (for error offsets), charging `budget`; returns the values and
/// the bytes used, tag included. After the merge: `codec::decode_body` on `block[1..]` with
/// `base + 1`, keeping unsigned integer bodies.
pub(crate) type IndexDecoder = fn(&[u8], u64, &mut u64) -> Result<(Vec<u64>, usize)>;

/// Exact size of the FC block given the encoded index block, tag included.
pub(super) fn cost(dict: &Dict<'_>, index_block: &[u8]) -> usize {
    1 + dict.table_cost() + index_block.len()
}

/// Writes the FC block: the table of `dict`, then `index_block`, the QPack encoding of
/// `dict.index` as U64.
pub(super) fn encode(dict: &Dict<'_>, index_block: &[u8], out: &mut Vec<u8>) {
    out.push(COL_STR_DICTQ);
    dict.write_table(out);
    out.extend_from_slice(index_block);
}

/// Reads an FC body (after the tag); `decode_index` reads the QPack block.
pub(super) fn decode<'a>(
    r: &mut Reader<'a>,
    n_expected: usize,
    budget: &mut u64,
    decode_index: IndexDecoder,
) -> Result<StrColumn<'a>> {
    let table = read_table(r)?;
    let at = r.offset();
    let (wide, used) = decode_index(r.rest(), at, budget).map_err(|e| e.with_offset(at))?;
    r.bytes(used)?;
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
mod tests {
    use super::super::testutil::strs;
    use super::*;
    use crate::wire::varint::{read_uvarint, write_uvarint};

    /// A raw U64 QPack block (`E4 03 uvarint(n) n × u64 LE`, wire notes §2): the one integer
    /// layout simple enough to write here; the real picker will pass the smallest codec.
    fn raw_u64_block(vals: &[u64]) -> Vec<u8> {
        let mut out = vec![0xE4, 0x03];
        write_uvarint(&mut out, vals.len() as u64);
        vals.iter()
            .for_each(|v| out.extend_from_slice(&v.to_le_bytes()));
        out
    }

    fn read_raw_u64(rest: &[u8], base: u64, budget: &mut u64) -> Result<(Vec<u64>, usize)> {
        let bad = || Error::at(ErrorCode::BadCodec("test: not a raw U64 block"), base);
        if rest.get(..2) != Some(&[0xE4, 0x03]) {
            return Err(bad());
        }
        let (n, used) = read_uvarint(&rest[2..])?;
        let body = &rest[2 + used..];
        if n > (body.len() / 8) as u64 || n * 8 > *budget {
            return Err(bad());
        }
        *budget -= n * 8;
        let vals = body[..n as usize * 8]
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect();
        Ok((vals, 2 + used + n as usize * 8))
    }

    fn decode_fc(block: &[u8], n: usize) -> Result<Vec<Vec<u8>>> {
        let mut r = Reader::new(block, 1);
        let mut budget = 1 << 20;
        let col = decode(&mut r, n, &mut budget, read_raw_u64)?;
        assert_eq!(r.consumed() + 1, block.len());
        Ok(col.iter().map(<[u8]>::to_vec).collect())
    }

    #[test]
    fn golden_with_a_raw_index() {
        let vals = strs(&["x", "yz", "x"]);
        let dict = Dict::build(&vals).unwrap();
        let idx = raw_u64_block(&[0, 1, 0]);
        let mut out = Vec::new();
        encode(&dict, &idx, &mut out);
        #[rustfmt::skip]
        let want = [
            0xFC, 2, 1, b'x', 2, b'y', b'z',
            0xE4, 0x03, 3, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        ];
        assert_eq!(out, want);
        assert_eq!(cost(&dict, &idx), out.len());
        assert_eq!(decode_fc(&out, 3).unwrap(), vals);
    }

    #[test]
    fn rejects_bad_index_and_row_count() {
        let vals = strs(&["x", "yz"]);
        let dict = Dict::build(&vals).unwrap();
        for (idx, n) in [(vec![0, 2], 2), (vec![0, 256], 2), (vec![0, 1], 3)] {
            let mut out = Vec::new();
            encode(&dict, &raw_u64_block(&idx), &mut out);
            assert!(decode_fc(&out, n).is_err(), "{idx:?} n={n}");
        }
        // The index decoder's errors carry the block's absolute offset (table is 6 bytes).
        let mut out = Vec::new();
        encode(&dict, &[0xE5, 0x03], &mut out);
        assert_eq!(decode_fc(&out, 2).unwrap_err().offset(), Some(7));
    }
}
