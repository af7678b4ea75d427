//! Chimp128 XOR floats, tag `E7` with kind `0x0F`, `f64` only (Liakos, Papakonstantinopoulou,
//! Kotidis, "Chimp: Efficient Lossless Floating Point Compression for Time Series
//! Databases", VLDB 2022, §4 "Chimp128").
//!
//! Framing as [`gorilla`](super::gorilla): `uvarint(n)`, first value raw, `uvarint(totalBits)`,
//! MSB-first bits. Each later value is XORed with a reference: one of the previous 128 values
//! found through a hash of its low 14 bits when that XOR has more than 13 trailing zeros,
//! else the previous value. Per value (`ref` = ring slot `index % 128`, 7 bits; `lz` is the
//! XOR's leading-zero count rounded down to {0, 8, 12, 16, 18, 20, 22, 24}, sent as a 3-bit
//! code):
//!
//! - `00` + ref: equal to the reference;
//! - `01` + ref + lz + sig (6 bits) + sig bits: XOR with the reference, `64 − lz − sig`
//!   trailing zeros;
//! - `10` + (64 − storedLZ) bits: XOR with the previous value, same lz as last time;
//! - `11` + lz + (64 − lz) bits: XOR with the previous value; stores lz.
//!
//! `00` and `01` reset storedLZ, so a `10` right after them (or first) is an error.

use super::bits::{BitCount, BitSink};
use super::cursor::Cursor;
use super::gorilla::{frame_cost, read_frame, write_frame};
use crate::error::Result;

/// The kind byte of Chimp128 under tag `E7`.
pub const KIND: u8 = 0x0F;
const RING: usize = 128;
const HASH_MASK: u64 = (1 << 14) - 1;
/// A hash candidate is used when its XOR has more than `6 + log2(128)` trailing zeros.
const THRESHOLD: u32 = 13;
const LZ_CODES: [u32; 8] = [0, 8, 12, 16, 18, 20, 22, 24];
/// storedLZ after a reset: matches no rounded lz.
const NO_LZ: u32 = 65;

fn lz_code(x: u64) -> (u64, u32) {
    let lz = x.leading_zeros();
    let code = LZ_CODES.iter().rposition(|&c| c <= lz).unwrap_or(0);
    (code as u64, LZ_CODES[code])
}

fn encode_bits<S: BitSink>(vals: &[u64], sink: &mut S) {
    let Some(&first) = vals.first() else { return };
    let mut ring = [0u64; RING];
    // Last index + 1 of a value with these low bits; 0 = none.
    let mut last_seen = vec![0usize; 1 << 14];
    ring[0] = first;
    last_seen[(first & HASH_MASK) as usize] = 1;
    let mut stored_lz = NO_LZ;
    for (i, &v) in vals.iter().enumerate().skip(1) {
        let prev_slot = (i - 1) % RING;
        let key = (v & HASH_MASK) as usize;
        let cand = last_seen[key];
        let mut pick = (prev_slot, v ^ ring[prev_slot], false);
        if cand != 0 && i - (cand - 1) < RING {
            let slot = (cand - 1) % RING;
            let x = v ^ ring[slot];
            if x.trailing_zeros() > THRESHOLD {
                pick = (slot, x, true);
            }
        }
        let (slot, x, from_ring) = pick;
        if x == 0 {
            sink.put(0b00, 2);
            sink.put(slot as u64, 7);
            stored_lz = NO_LZ;
        } else if from_ring {
            let (code, lz) = lz_code(x);
            let tz = x.trailing_zeros();
            let sig = 64 - lz - tz;
            sink.put(0b01, 2);
            sink.put(slot as u64, 7);
            sink.put(code, 3);
            sink.put(sig as u64, 6);
            sink.put(x >> tz, sig);
            stored_lz = NO_LZ;
        } else {
            let (code, lz) = lz_code(x);
            if lz == stored_lz {
                sink.put(0b10, 2);
            } else {
                sink.put(0b11, 2);
                sink.put(code, 3);
                stored_lz = lz;
            }
            sink.put(x, 64 - lz);
        }
        ring[i % RING] = v;
        last_seen[key] = i + 1;
    }
}

fn bits_of(vals: &[f64]) -> Vec<u64> {
    vals.iter().map(|v| v.to_bits()).collect()
}

/// Exact encoded size of `vals` in bytes, tag included.
pub fn cost(vals: &[f64]) -> usize {
    let mut c = BitCount::default();
    encode_bits(&bits_of(vals), &mut c);
    frame_cost(vals.len(), 64, c.0)
}

/// Appends the Chimp128 encoding of `vals`.
pub fn encode(vals: &[f64], out: &mut Vec<u8>) {
    let bits = bits_of(vals);
    write_frame(out, KIND, &bits, 64, |w| encode_bits(&bits, w));
}

/// Reads a body after the kind byte. Errors: a count the bit stream cannot hold, a ring
/// slot not yet filled, a `10` with no stored lz, a window wider than 64, a stream that ends
/// early or has bits left over, the budget.
pub fn decode(cur: &mut Cursor<'_>, budget: &mut u64) -> Result<Vec<f64>> {
    let Some((n, first, mut r)) = read_frame(cur, 64, 2, budget)? else {
        return Ok(Vec::new());
    };
    let bad = |what| cur.bad(what);
    let eos = "Chimp128 bit stream ended early";
    let mut ring = [0u64; RING];
    ring[0] = first;
    let mut out = Vec::with_capacity(n);
    out.push(f64::from_bits(first));
    let (mut prev, mut stored_lz) = (first, NO_LZ);
    for i in 1..n {
        let flag = r.get(2).ok_or_else(|| bad(eos))?;
        let v = if flag < 0b10 {
            let slot = r.get(7).ok_or_else(|| bad(eos))? as usize;
            if slot >= i {
                return Err(bad("Chimp128 reference to a ring slot not yet filled"));
            }
            stored_lz = NO_LZ;
            if flag == 0b00 {
                ring[slot]
            } else {
                let lz = LZ_CODES[r.get(3).ok_or_else(|| bad(eos))? as usize];
                let sig = r.get(6).ok_or_else(|| bad(eos))? as u32;
                if sig == 0 || lz + sig > 64 {
                    return Err(bad("Chimp128 window wider than the value or empty"));
                }
                ring[slot] ^ (r.get(sig).ok_or_else(|| bad(eos))? << (64 - lz - sig))
            }
        } else {
            if flag == 0b11 {
                stored_lz = LZ_CODES[r.get(3).ok_or_else(|| bad(eos))? as usize];
            } else if stored_lz == NO_LZ {
                return Err(bad("Chimp128 reuse of leading zeros with none stored"));
            }
            prev ^ r.get(64 - stored_lz).ok_or_else(|| bad(eos))?
        };
        ring[i % RING] = v;
        prev = v;
        out.push(f64::from_bits(v));
    }
    if r.pos() != r.end() {
        return Err(bad("Chimp128 bit count does not match the values"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
