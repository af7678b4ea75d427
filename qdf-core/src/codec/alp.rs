//! ALP decimal floats, tag `F4` (Afroozeh, Kuffó, Boncz, "ALP: Adaptive Lossless
//! floating-Point Compression", SIGMOD 2024), in the single-exponent form of the wire notes
//! §2, with an exception list.
//!
//! Each value becomes the integer `I = round_half_even(v · 10^d)`; the decoder rebuilds
//! `I · 10^−d` (or `I / 10^d` when the exponent byte has bit 0x80, `f64` only). A value whose
//! rebuild is not bit-identical (−0.0, NaN, ±Inf, too many digits, |I| > 2^52) is an
//! exception, stored raw. The integers are then FOR-packed.
//!
//! Layout after the tag: `kind` (`F64`/`F32`), `uvarint(n)`; if n > 0: exponent byte
//! (`d` 0..=15, | 0x80 to divide), `zigzag(forMin)`, width byte (≤ 64), `⌈n·width/8⌉`
//! bytes of `I − forMin` (0 in exception slots), `uvarint(excN)`, then `excN` times
//! `uvarint(position)` (strictly increasing, < n) and the raw value (8 or 4 bytes LE).
//! `f32` values are rebuilt in `f64` and rounded to `f32`.
//!
//! ```text
//! [1.5, 2.25] as f64, d = 2:  F4 0B 02 02 AC 02 07 | 80 25 | 00
//! ```

use super::bitpack::bit_width;
use super::bitpack::{pack, packed_len, padding_is_zero, unpack_add};
use super::cursor::Cursor;
use super::for_::read_width;
use super::{scalar_len, write_scalar};
use crate::error::Result;
use crate::wire::tags::QP_ALP;
use crate::wire::varint::{uvarint_len, write_uvarint};

const POW10: [f64; 16] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
];
const INV10: [f64; 16] = [
    1e0, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11, 1e-12, 1e-13, 1e-14,
    1e-15,
];
/// Exponent-byte flag: rebuild by dividing by 10^d.
const DIVIDE: u8 = 0x80;
/// Largest |v · 10^d| encoded, so that `I as f64` is exact.
const MAX_INT: f64 = (1u64 << 52) as f64;
/// Values sampled to choose the exponent (wire notes §2: "exponent from 32 samples").
const SAMPLES: usize = 32;

/// A float width ALP encodes.
pub trait AlpFloat: Copy {
    /// The kind byte.
    const KIND: u8;
    /// Bytes of one raw value.
    const WIDTH: usize;
    /// Whether the divide flag is allowed.
    const DIVIDE_OK: bool;
    /// The IEEE-754 bits.
    fn bits(self) -> u64;
    /// From IEEE-754 bits (the low `8 × WIDTH`).
    fn from_bits64(b: u64) -> Self;
    /// Widened to `f64`.
    fn widen(self) -> f64;
    /// Rounded from `f64`.
    fn narrow(v: f64) -> Self;
}

impl AlpFloat for f64 {
    const KIND: u8 = 0x0B;
    const WIDTH: usize = 8;
    const DIVIDE_OK: bool = true;
    fn bits(self) -> u64 {
        self.to_bits()
    }
    fn from_bits64(b: u64) -> Self {
        f64::from_bits(b)
    }
    fn widen(self) -> f64 {
        self
    }
    fn narrow(v: f64) -> Self {
        v
    }
}

impl AlpFloat for f32 {
    const KIND: u8 = 0x0A;
    const WIDTH: usize = 4;
    const DIVIDE_OK: bool = false;
    fn bits(self) -> u64 {
        self.to_bits() as u64
    }
    fn from_bits64(b: u64) -> Self {
        f32::from_bits(b as u32)
    }
    fn widen(self) -> f64 {
        self as f64
    }
    fn narrow(v: f64) -> Self {
        v as f32
    }
}

#[inline]
fn rebuild<F: AlpFloat>(i: i64, exp: u8) -> F {
    let d = (exp & 0x0F) as usize;
    F::narrow(if exp & DIVIDE != 0 {
        i as f64 / POW10[d]
    } else {
        i as f64 * INV10[d]
    })
}

#[inline]
fn to_int<F: AlpFloat>(v: F, exp: u8) -> Option<i64> {
    let x = v.widen() * POW10[(exp & 0x0F) as usize];
    // NaN and ±Inf fail this test too.
    if x.is_nan() || x.abs() > MAX_INT {
        return None;
    }
    let i = x.round_ties_even() as i64;
    (rebuild::<F>(i, exp).bits() == v.bits()).then_some(i)
}

/// An analysed encoding: the integers (exception slots hold `for_min`), the exceptions as
/// `(position, raw bits)`, the frame and width.
#[derive(Clone, Debug)]
pub struct Plan {
    exp: u8,
    ints: Vec<u64>,
    exceptions: Vec<(usize, u64)>,
    for_min: u64,
    width: u32,
    raw_width: usize,
}

impl Plan {
    /// Exact encoded size in bytes, tag included.
    pub fn cost(&self) -> usize {
        let n = self.ints.len();
        let head = 2 + uvarint_len(n as u64);
        if n == 0 {
            return head;
        }
        let exc: usize = self
            .exceptions
            .iter()
            .map(|&(p, _)| uvarint_len(p as u64))
            .sum();
        head + 2
            + scalar_len(self.for_min, true)
            + packed_len(n, self.width)
            + uvarint_len(self.exceptions.len() as u64)
            + exc
            + self.exceptions.len() * self.raw_width
    }

    /// The packed width of `I − forMin`.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Appends the encoding.
    pub fn encode(&self, kind: u8, out: &mut Vec<u8>) {
        out.extend_from_slice(&[QP_ALP, kind]);
        write_uvarint(out, self.ints.len() as u64);
        if self.ints.is_empty() {
            return;
        }
        out.push(self.exp);
        write_scalar(out, self.for_min, true);
        out.push(self.width as u8);
        pack(
            self.ints.iter().map(|i| i.wrapping_sub(self.for_min)),
            self.width,
            out,
        );
        write_uvarint(out, self.exceptions.len() as u64);
        for &(pos, bits) in &self.exceptions {
            write_uvarint(out, pos as u64);
            out.extend_from_slice(&bits.to_le_bytes()[..self.raw_width]);
        }
    }
}

/// Analyses `vals` at exponent byte `exp` (see [`choose_exp`]).
pub fn analyze<F: AlpFloat>(vals: &[F], exp: u8) -> Plan {
    analyze_below(vals, exp, usize::MAX).expect("no plan costs usize::MAX bytes")
}

/// Values analysed between two checks of [`analyze_below`]'s bound.
const CHUNK: usize = 4096;

/// [`analyze`], or `None` as soon as the plan's [`cost`](Plan::cost) is sure to be at least
/// `bound` bytes: checked every [`CHUNK`] values on the width and the exceptions so far,
/// which the rest of the values can only raise.
fn analyze_below<F: AlpFloat>(vals: &[F], exp: u8, bound: usize) -> Option<Plan> {
    let mut ints = Vec::with_capacity(vals.len());
    let mut exceptions = Vec::new();
    let (mut lo, mut hi) = (i64::MAX, i64::MIN);
    let head = 4 + uvarint_len(vals.len() as u64);
    for (k, chunk) in vals.chunks(CHUNK).enumerate() {
        for (j, &v) in chunk.iter().enumerate() {
            match to_int(v, exp) {
                Some(i) => {
                    (lo, hi) = (lo.min(i), hi.max(i));
                    ints.push(i as u64);
                }
                None => {
                    exceptions.push((k * CHUNK + j, v.bits()));
                    ints.push(0);
                }
            }
        }
        let width = if lo > hi {
            0
        } else {
            bit_width((hi as u64).wrapping_sub(lo as u64))
        };
        let least = head + packed_len(vals.len(), width) + exceptions.len() * F::WIDTH;
        if least >= bound {
            return None;
        }
    }
    if lo > hi {
        (lo, hi) = (0, 0);
    }
    for &(p, _) in &exceptions {
        ints[p] = lo as u64;
    }
    Some(Plan {
        exp,
        ints,
        exceptions,
        for_min: lo as u64,
        width: bit_width((hi as u64).wrapping_sub(lo as u64)),
        raw_width: F::WIDTH,
    })
}

/// Chooses the exponent byte from up to 32 evenly spaced samples: the one with the smallest
/// estimated size (packed width plus raw exceptions); ties go to the smaller exponent and to
/// multiplying, which decodes faster.
pub fn choose_exp<F: AlpFloat>(vals: &[F]) -> u8 {
    let step = vals.len().div_ceil(SAMPLES).max(1);
    let sample: Vec<F> = vals.iter().step_by(step).copied().collect();
    let modes: &[u8] = if F::DIVIDE_OK { &[0, DIVIDE] } else { &[0] };
    let mut best = (usize::MAX, 0u8);
    for d in 0..16u8 {
        for &mode in modes {
            let p = analyze(&sample, d | mode);
            let est = sample.len() * p.width as usize + p.exceptions.len() * 8 * (F::WIDTH + 2);
            if est < best.0 {
                best = (est, d | mode);
            }
        }
    }
    best.1
}

/// Chooses an exponent and analyses `vals` with it.
pub fn plan<F: AlpFloat>(vals: &[F]) -> Plan {
    analyze(vals, choose_exp(vals))
}

/// [`plan`] when it costs fewer than `bound` bytes, else `None` (found without analysing
/// every value when the values show it early: a caller holding a codec of `bound` bytes
/// would not take the plan).
pub fn plan_below<F: AlpFloat>(vals: &[F], bound: usize) -> Option<Plan> {
    analyze_below(vals, choose_exp(vals), bound).filter(|p| p.cost() < bound)
}

/// Reads a body after the kind byte. Errors: an exponent above 15 (or the divide flag on
/// `f32`), a width above 64, a count the remaining bytes cannot hold, an exception position
/// out of range or not increasing, non-zero padding, the output budget.
pub fn decode<F: AlpFloat>(cur: &mut Cursor<'_>, budget: &mut u64) -> Result<Vec<F>> {
    let n_at = cur.pos();
    let n = cur.uvarint("the ALP count")?;
    if n == 0 {
        return Ok(Vec::new());
    }
    let exp_at = cur.pos();
    let exp = cur.byte("the ALP exponent")?;
    if exp & 0x70 != 0 || (exp & DIVIDE != 0 && !F::DIVIDE_OK) {
        return Err(cur.bad_at(exp_at, "ALP exponent byte"));
    }
    let for_min = cur.scalar(true, "the ALP frame")?;
    let bits = read_width(cur)?;
    let n = cur
        .check_count(n, bits as u64)
        .map_err(|c| cur.err_at(n_at, c))?;
    let body = cur.take(packed_len(n, bits), "the ALP body")?;
    if !padding_is_zero(body, n, bits) {
        return Err(cur.bad("non-zero padding bits after a packed body"));
    }
    let exc_at = cur.pos();
    let exc = cur.uvarint("the ALP exception count")?;
    if exc > n as u64 || exc.saturating_mul(1 + F::WIDTH as u64) > cur.remaining() as u64 {
        return Err(cur.bad_at(exc_at, "ALP exception count larger than the body allows"));
    }
    cur.charge(budget, n, n_at)?;
    let mut ints = vec![0u64; n];
    unpack_add(body, bits, for_min, &mut ints);
    let mut out: Vec<F> = ints.iter().map(|&i| rebuild(i as i64, exp)).collect();
    let mut next = 0u64;
    for _ in 0..exc {
        let pos_at = cur.pos();
        let pos = cur.uvarint("an ALP exception position")?;
        if pos < next || pos >= n as u64 {
            return Err(cur.bad_at(pos_at, "exception index out of range"));
        }
        next = pos + 1;
        let raw = cur.take(F::WIDTH, "an ALP exception value")?;
        let mut b = [0u8; 8];
        b[..F::WIDTH].copy_from_slice(raw);
        out[pos as usize] = F::from_bits64(u64::from_le_bytes(b));
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
