//! Gorilla XOR floats, tag `E7` with kind `F64`/`F32` (Pelkonen et al., "Gorilla: A Fast,
//! Scalable, In-Memory Time Series Database", VLDB 2015, §4.1.2).
//!
//! Layout after the tag: `kind`, `uvarint(n)`; if n > 0: the first value raw (8 or 4 bytes
//! LE), `uvarint(totalBits)`, `⌈totalBits/8⌉` bytes of MSB-first bits (padding zero). Per
//! later value, with `x = bits ^ previous bits`:
//!
//! - `0`: x = 0;
//! - `10` + the bits of x inside the current window (leading `lz`, trailing `tz` zeros);
//! - `11` + lz (5 bits, capped at 31) + (mb − 1) (6 bits) + the mb meaningful bits; this
//!   sets the window to (lz, 64 − lz − mb). For `f32`: lz 4 bits capped at 15, mb 5 bits.
//!
//! The window starts as (0, 0), the whole word; the encoder uses `10` only when it is not
//! longer than `11`. Values are compared as bits, so −0.0, NaN payloads, ±Inf and
//! subnormals survive unchanged.

use super::bits::{BitCount, BitReader, BitSink, BitWriter};
use super::cursor::Cursor;
use crate::error::Result;
use crate::wire::tags::QP_XOR;
use crate::wire::varint::{uvarint_len, write_uvarint};

/// Field widths of one float width.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Params {
    width: u32,
    lz_bits: u32,
    lz_cap: u32,
    mb_bits: u32,
}

const P64: Params = Params {
    width: 64,
    lz_bits: 5,
    lz_cap: 31,
    mb_bits: 6,
};
const P32: Params = Params {
    width: 32,
    lz_bits: 4,
    lz_cap: 15,
    mb_bits: 5,
};

fn encode_bits<S: BitSink>(vals: &[u64], p: Params, sink: &mut S) {
    let (mut wlz, mut wtz) = (0u32, 0u32);
    for w in vals.windows(2) {
        let x = w[0] ^ w[1];
        if x == 0 {
            sink.put(0, 1);
            continue;
        }
        let lz = (x.leading_zeros() - (64 - p.width)).min(p.lz_cap);
        let tz = x.trailing_zeros();
        let mb = p.width - lz - tz;
        let reuse = p.width - wlz - wtz;
        if lz >= wlz && tz >= wtz && reuse <= p.lz_bits + p.mb_bits + mb {
            sink.put(0b10, 2);
            sink.put(x >> wtz, reuse);
        } else {
            sink.put(0b11, 2);
            sink.put(lz as u64, p.lz_bits);
            sink.put((mb - 1) as u64, p.mb_bits);
            sink.put(x >> tz, mb);
            (wlz, wtz) = (lz, tz);
        }
    }
}

/// Writes the XOR framing shared with Chimp128: kind, n, first value, bit count, bits.
pub(crate) fn write_frame(
    out: &mut Vec<u8>,
    kind: u8,
    vals: &[u64],
    width: u32,
    body: impl FnOnce(&mut BitWriter<'_>),
) {
    out.extend_from_slice(&[QP_XOR, kind]);
    write_uvarint(out, vals.len() as u64);
    let Some(&first) = vals.first() else { return };
    out.extend_from_slice(&first.to_le_bytes()[..width as usize / 8]);
    let mut scratch = Vec::new();
    let mut w = BitWriter::new(&mut scratch);
    body(&mut w);
    write_uvarint(out, w.finish());
    out.extend_from_slice(&scratch);
}

/// Size of the XOR framing around `body_bits` bits for `n` values, tag included.
pub(crate) fn frame_cost(n: usize, width: u32, body_bits: u64) -> usize {
    let head = 2 + uvarint_len(n as u64);
    if n == 0 {
        return head;
    }
    head + width as usize / 8 + uvarint_len(body_bits) + body_bits.div_ceil(8) as usize
}

/// Reads the XOR framing after the kind byte: `(n, first, bit reader)`, with `n − 1`
/// checked against the bit count at `min_bits` per value, and the budget charged.
pub(crate) fn read_frame<'a>(
    cur: &mut Cursor<'a>,
    width: u32,
    min_bits: u64,
    budget: &mut u64,
) -> Result<Option<(usize, u64, BitReader<'a>)>> {
    let n_at = cur.pos();
    let n = cur.uvarint("the float count")?;
    if n == 0 {
        return Ok(None);
    }
    let mut first = [0u8; 8];
    first[..width as usize / 8].copy_from_slice(cur.take(width as usize / 8, "a raw float")?);
    let bits_at = cur.pos();
    let total = cur.uvarint("the XOR bit count")?;
    if total.div_ceil(8) > cur.remaining() as u64 {
        return Err(cur.err(crate::error::ErrorCode::UnexpectedEof {
            expected: "the XOR bit stream",
        }));
    }
    if (n - 1).saturating_mul(min_bits) > total {
        return Err(cur.bad_at(bits_at, "float count larger than the bit stream allows"));
    }
    let bytes = cur.take(total.div_ceil(8) as usize, "the XOR bit stream")?;
    if !super::bits::padding_is_zero(bytes, total) {
        return Err(cur.bad("non-zero padding bits after a bit stream"));
    }
    cur.charge(budget, n as usize, n_at)?;
    Ok(Some((
        n as usize,
        u64::from_le_bytes(first),
        BitReader::new(bytes, total),
    )))
}

fn decode_bits(cur: &mut Cursor<'_>, p: Params, budget: &mut u64) -> Result<Vec<u64>> {
    let Some((n, first, mut r)) = read_frame(cur, p.width, 1, budget)? else {
        return Ok(Vec::new());
    };
    let bad = |what| cur.bad(what);
    let mut out = Vec::with_capacity(n);
    out.push(first);
    let (mut prev, mut wlz, mut wtz) = (first, 0u32, 0u32);
    let eos = "Gorilla bit stream ended early";
    for _ in 1..n {
        if r.bit().ok_or_else(|| bad(eos))? {
            let x = if r.bit().ok_or_else(|| bad(eos))? {
                let lz = r.get(p.lz_bits).ok_or_else(|| bad(eos))? as u32;
                let mb = r.get(p.mb_bits).ok_or_else(|| bad(eos))? as u32 + 1;
                if lz + mb > p.width {
                    return Err(bad("Gorilla window wider than the value"));
                }
                (wlz, wtz) = (lz, p.width - lz - mb);
                r.get(mb).ok_or_else(|| bad(eos))? << wtz
            } else {
                r.get(p.width - wlz - wtz).ok_or_else(|| bad(eos))? << wtz
            };
            prev ^= x;
        }
        out.push(prev);
    }
    if r.pos() != r.end() {
        return Err(bad("Gorilla bit count does not match the values"));
    }
    Ok(out)
}

fn f64_bits(vals: &[f64]) -> Vec<u64> {
    vals.iter().map(|v| v.to_bits()).collect()
}

fn f32_bits(vals: &[f32]) -> Vec<u64> {
    vals.iter().map(|v| v.to_bits() as u64).collect()
}

/// Exact encoded size of `vals` in bytes, tag included.
pub fn cost_f64(vals: &[f64]) -> usize {
    cost_bits(&f64_bits(vals), P64)
}

/// Exact encoded size of `vals` in bytes, tag included.
pub fn cost_f32(vals: &[f32]) -> usize {
    cost_bits(&f32_bits(vals), P32)
}

fn cost_bits(bits: &[u64], p: Params) -> usize {
    let mut c = BitCount::default();
    encode_bits(bits, p, &mut c);
    frame_cost(bits.len(), p.width, c.0)
}

/// Appends the Gorilla encoding of `vals`.
pub fn encode_f64(vals: &[f64], out: &mut Vec<u8>) {
    let bits = f64_bits(vals);
    write_frame(out, 0x0B, &bits, 64, |w| encode_bits(&bits, P64, w));
}

/// Appends the Gorilla encoding of `vals`.
pub fn encode_f32(vals: &[f32], out: &mut Vec<u8>) {
    let bits = f32_bits(vals);
    write_frame(out, 0x0A, &bits, 32, |w| encode_bits(&bits, P32, w));
}

/// Reads an `f64` body after the kind byte. Errors: a count the bit stream cannot hold, a
/// stream that ends early or has bits left over, a window wider than 64, the budget.
pub fn decode_f64(cur: &mut Cursor<'_>, budget: &mut u64) -> Result<Vec<f64>> {
    Ok(decode_bits(cur, P64, budget)?
        .into_iter()
        .map(f64::from_bits)
        .collect())
}

/// Reads an `f32` body after the kind byte; errors as [`decode_f64`].
pub fn decode_f32(cur: &mut Cursor<'_>, budget: &mut u64) -> Result<Vec<f32>> {
    Ok(decode_bits(cur, P32, budget)?
        .into_iter()
        .map(|b| f32::from_bits(b as u32))
        .collect())
}

#[cfg(test)]
mod tests;
