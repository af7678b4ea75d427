//! FB: alphabet packing, for ids drawn from a small set of bytes (hex, base32, base64,
//! decimal).
//!
//! ```text
//! FB uvarint(a) a bytes          the alphabet, first-seen order, 2 ≤ a ≤ 64, all distinct
//!    uvarint(n) flags            bit 0: every value has the same length; other bits 0
//!    uvarint(L)                  if fixed: the common length
//!    n × uvarint(len)            otherwise: each value's length
//!    ⌈chars·⌈log2 a⌉/8⌉ bytes    one code per byte of every value, LSB-first
//! ```
//!
//! With 16 symbols each byte becomes a nibble, the first byte of a value in the low nibble:
//! a 32-character hex trace id takes 16 bytes. Rows are rebuilt into an arena.

use super::bits::{BadCodes, packed_len, unpack_map, width_for};
use super::column::{Rows, Span, Store, StrColumn};
use super::read::{Reader, charge};
use super::{MAX_ALPHABET, MIN_ALPHABET};
use crate::codec::bitpack::Packer;
use crate::error::{Error, ErrorCode, Result};
use crate::wire::tags::COL_STR_ALPHA;
use crate::wire::varint::{uvarint_len, write_uvarint};

/// Flag bit: all values have the same length.
const FIXED_LEN: u8 = 0x01;

/// The alphabet of a column and its code for each byte.
pub(crate) struct Alphabet<'v> {
    values: &'v [&'v [u8]],
    symbols: Vec<u8>,
    fixed: Option<usize>,
    chars: usize,
}

impl<'v> Alphabet<'v> {
    /// Collects the distinct bytes of `values`; `None` unless there are 2–64 of them.
    ///
    /// Two steps, so the per-byte loop has no branch: mark every byte, then, when 2–64 are
    /// marked, find their first-seen order (the wire's symbol order) in the rows from the
    /// start, which stops as soon as every marked byte is found (within the first rows for
    /// ids).
    pub(super) fn build(values: &'v [&'v [u8]]) -> Option<Alphabet<'v>> {
        let mut seen = [false; 256];
        let first = values.first().map_or(0, |v| v.len());
        let (mut chars, mut same_len) = (0usize, true);
        for v in values {
            chars += v.len();
            same_len &= v.len() == first;
            for &b in *v {
                seen[b as usize] = true;
            }
        }
        let a = seen.iter().filter(|&&s| s).count();
        if !(MIN_ALPHABET..=MAX_ALPHABET).contains(&a) {
            return None;
        }
        let mut symbols = Vec::with_capacity(a);
        'rows: for v in values {
            for &b in *v {
                if std::mem::replace(&mut seen[b as usize], false) {
                    symbols.push(b);
                    if symbols.len() == a {
                        break 'rows;
                    }
                }
            }
        }
        let fixed = (same_len && !values.is_empty()).then_some(first);
        Some(Alphabet {
            values,
            symbols,
            fixed,
            chars,
        })
    }

    /// Bytes of all values (what the decoder rebuilds and charges).
    pub(super) fn chars(&self) -> usize {
        self.chars
    }

    /// Exact size of the FB block, tag included.
    pub(super) fn cost(&self) -> usize {
        let lens = match self.fixed {
            Some(l) => uvarint_len(l as u64),
            None => self
                .values
                .iter()
                .map(|v| uvarint_len(v.len() as u64))
                .sum(),
        };
        1 + uvarint_len(self.symbols.len() as u64)
            + self.symbols.len()
            + uvarint_len(self.values.len() as u64)
            + 1
            + lens
            + packed_len(self.chars, width_for(self.symbols.len())).unwrap_or(usize::MAX)
    }

    /// Writes the FB block.
    pub(super) fn encode(&self, out: &mut Vec<u8>) {
        out.push(COL_STR_ALPHA);
        write_uvarint(out, self.symbols.len() as u64);
        out.extend_from_slice(&self.symbols);
        write_uvarint(out, self.values.len() as u64);
        match self.fixed {
            Some(l) => {
                out.push(FIXED_LEN);
                write_uvarint(out, l as u64);
            }
            None => {
                out.push(0);
                for v in self.values {
                    write_uvarint(out, v.len() as u64);
                }
            }
        }
        let mut code = [0u64; 256];
        for (k, &b) in self.symbols.iter().enumerate() {
            code[b as usize] = k as u64;
        }
        let w = width_for(self.symbols.len());
        let body = packed_len(self.chars, w).unwrap_or(0);
        out.reserve(body.saturating_add(8));
        match w {
            1 => pack_codes::<1>(self.values, &code, out),
            2 => pack_codes::<2>(self.values, &code, out),
            3 => pack_codes::<3>(self.values, &code, out),
            4 => pack_codes::<4>(self.values, &code, out),
            5 => pack_codes::<5>(self.values, &code, out),
            _ => pack_codes::<6>(self.values, &code, out),
        }
    }
}

/// Packs the code of every byte of `values`, `W` bits each (`W = width_for(a)`, at most 6
/// for the 64 symbols of the largest alphabet). Nested loops and a constant width: this is
/// the per-symbol hot loop of the encoder.
/// Each value goes by chunks of the `64 / W` codes that fill one word, gathered with
/// constant shifts and pushed at once, then its tail code by code.
fn pack_codes<const W: u32>(values: &[&[u8]], code: &[u64; 256], out: &mut Vec<u8>) {
    let k = (64 / W) as usize;
    let mut p = Packer::new(W);
    for v in values {
        let mut chunks = v.chunks_exact(k);
        for c in &mut chunks {
            let mut w = 0u64;
            for (i, &b) in c.iter().enumerate() {
                w |= code[b as usize] << (W as usize * i);
            }
            p.push_bits(w, k as u32 * W, out);
        }
        for &b in chunks.remainder() {
            p.push_const::<W>(code[b as usize], out);
        }
    }
    p.finish(out);
}

/// Reads an FB body (after the tag).
pub(super) fn decode<'a>(
    r: &mut Reader<'a>,
    n_expected: usize,
    budget: &mut u64,
) -> Result<StrColumn<'a>> {
    let at_a = r.offset();
    let a = r.len()?;
    if !(MIN_ALPHABET..=MAX_ALPHABET).contains(&a) {
        return Err(Error::at(
            ErrorCode::BadCodec("alphabet size outside 2..=64"),
            at_a,
        ));
    }
    let symbols = r.bytes(a)?;
    let mut seen = [false; 256];
    for &b in symbols {
        if std::mem::replace(&mut seen[b as usize], true) {
            return Err(Error::at(
                ErrorCode::BadCodec("alphabet byte repeated"),
                at_a,
            ));
        }
    }
    r.rows(n_expected)?;
    let flags = r.byte("FB flags")?;
    if flags & !FIXED_LEN != 0 {
        return Err(r.bad("FB flags set reserved bits"));
    }
    let at_lens = r.offset();
    let (rows, chars) = if flags & FIXED_LEN != 0 {
        let l = r.uvarint()?;
        let chars = l.checked_mul(n_expected as u64);
        let len = usize::try_from(l).ok();
        match (chars, len) {
            (Some(c), Some(len)) => (Rows::Fixed { len, n: n_expected }, c),
            _ => return Err(r.bad("FB length × rows overflows")),
        }
    } else {
        // Each length takes at least one byte: check before allocating the spans.
        if n_expected > r.remaining() {
            return Err(r.err(ErrorCode::LengthOverrun {
                len: n_expected as u64,
                remaining: r.remaining() as u64,
            }));
        }
        let mut spans = Vec::with_capacity(n_expected);
        let mut chars = 0u64;
        for _ in 0..n_expected {
            let end = chars.saturating_add(r.uvarint()?);
            if end > u64::from(u32::MAX) {
                return Err(r.bad("FB values add up to more than 4 GiB"));
            }
            spans.push(Span::new(chars as usize, end as usize));
            chars = end;
        }
        (Rows::Each(spans), chars)
    };
    let w = width_for(a);
    let packed = usize::try_from(chars)
        .ok()
        .and_then(|c| packed_len(c, w))
        .filter(|&p| p <= r.remaining());
    let Some(packed) = packed else {
        return Err(Error::at(
            ErrorCode::LengthOverrun {
                len: chars.saturating_mul(u64::from(w)).div_ceil(8),
                remaining: r.remaining() as u64,
            },
            at_lens,
        ));
    };
    charge(budget, chars, at_lens)?;
    let at_codes = r.offset();
    let bytes = r.bytes(packed)?;
    let mut arena = Vec::with_capacity(chars as usize);
    match unpack_map(bytes, chars as usize, w, symbols, &mut arena) {
        Ok(()) => {}
        Err(BadCodes::Padding) => {
            return Err(Error::at(
                ErrorCode::BadCodec("nonzero padding bits after FB codes"),
                at_codes,
            ));
        }
        Err(BadCodes::Past(i)) => {
            let at = at_codes + (i as u64 * u64::from(w)) / 8;
            return Err(Error::at(
                ErrorCode::BadCodec("FB code past the alphabet"),
                at,
            ));
        }
    }
    Ok(StrColumn::new(Store::Arena(arena), rows))
}

#[cfg(test)]
mod tests;
