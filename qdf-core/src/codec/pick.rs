//! The pickers: for one slice, every codec that applies is costed exactly and the smallest
//! is written; a candidate replaces the current best only when **strictly** smaller, so raw
//! wins ties (wire notes §2).
//!
//! Integers (order: raw, FOR, delta, RLE, dict, PFOR):
//! - raw at the slice's native width is the baseline; the other codecs write the widened
//!   kind (`U64`/`I64`) and must beat native raw;
//! - FOR and delta need a width ≤ 56 (what the Go decoders accept), delta needs n ≥ 4;
//! - RLE needs n ≥ 8 and at most 16 runs among the first 32 values; dict needs n ≥ 8 and at
//!   most 64 distinct values; PFOR needs n ≥ 8 and a FOR width ≥ 2, and tries every width
//!   below it (exceptions charged `uvl(n) + uvl(maxΔ)` to choose, exact cost to compare);
//! - above 2^24 values, bodies of zero bits per value (and RLE) are skipped: the decoder
//!   cannot bound them by the input.
//!
//! Floats: raw; with [`Features::FLOAT_XOR`] Gorilla, Chimp128 (`f64` only) and ALP, then
//! with [`Features::FLOAT_SPLIT`] ALP-RD, in that order, each when strictly smaller than the
//! best so far.

use super::cursor::MAX_CONST_COUNT;
use super::{Kind, alp, alp_rd, bools, chimp, delta, dict, for_, gorilla, pfor, raw, rle};
use crate::options::Features;

/// The widest bit-packing the encoders write (Go's limit; decoders accept 64).
pub const MAX_ENCODE_BITS: u32 = 56;

/// The integer codec the picker chose.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IntChoice {
    /// Raw at the native width.
    Raw,
    /// FOR with frame `min` and width `bits`.
    For {
        /// The frame.
        min: u64,
        /// The width.
        bits: u32,
    },
    /// Delta + FOR.
    Delta {
        /// The smallest delta.
        min_delta: i64,
        /// The width.
        bits: u32,
    },
    /// Run-length.
    Rle,
    /// Dictionary with these entries.
    Dict(Vec<u64>),
    /// PFOR with frame `min` and width `b`.
    Pfor {
        /// The frame.
        min: u64,
        /// The width.
        b: u32,
    },
}

/// Chooses the codec for `vals` (two's-complement bits of a `kind` slice) and returns it with
/// its exact size in bytes.
pub fn choose_int(vals: &[u64], kind: Kind) -> (IntChoice, usize) {
    search(vals, kind, usize::MAX, false)
}

/// [`choose_int`] for the index of a dictionary of `d` entries whose every id `0..d` occurs
/// in `vals`, if some codec is smaller than `bound` bytes (the plain bit-packed index). FOR
/// (frame 0) and the integer dictionary (`d` values) pack at that index's width plus a
/// header, so they never beat it and are not costed.
pub(crate) fn choose_index(vals: &[u64], bound: usize) -> Option<(IntChoice, usize)> {
    Some(search(vals, Kind::U64, bound, true)).filter(|&(_, cost)| cost < bound)
}

/// The smallest codec of `vals`, or `(Raw, bound)` when none is below `bound`; FOR and the
/// integer dictionary skipped when `every_id` (see [`choose_index`]).
fn search(vals: &[u64], kind: Kind, bound: usize, every_id: bool) -> (IntChoice, usize) {
    let n = vals.len();
    let signed = kind.is_signed();
    let const_ok = n as u64 <= MAX_CONST_COUNT;
    let mut best = (IntChoice::Raw, raw::cost(n, kind).min(bound));
    let mut consider = |choice: IntChoice, cost: usize| {
        if cost < best.1 {
            best = (choice, cost);
        }
    };
    let Some((min, max)) = for_::min_max(vals, signed) else {
        return best;
    };
    let bits = for_::width(min, max);
    if !every_id && bits <= MAX_ENCODE_BITS && (bits > 0 || const_ok) {
        consider(
            IntChoice::For { min, bits },
            for_::cost(n, min, bits, signed),
        );
    }
    if n >= 4
        && let Some((min_delta, dbits)) = delta::plan(vals)
        && dbits <= MAX_ENCODE_BITS
        && (dbits > 0 || const_ok)
    {
        let c = delta::cost(n, vals[0], min_delta, dbits, signed);
        consider(
            IntChoice::Delta {
                min_delta,
                bits: dbits,
            },
            c,
        );
    }
    if n >= 8 && const_ok && rle::runs(&vals[..n.min(32)]).count() <= 16 {
        consider(IntChoice::Rle, rle::cost(vals, signed));
    }
    let mut d = [0u64; dict::MAX_DICT];
    if n >= 8
        && !every_id
        && let Some(len) = dict::distinct_into(vals, &mut d)
        && (len > 1 || const_ok)
    {
        let d = &d[..len];
        let c = dict::cost(n, d, signed);
        // The entries are copied out only for a dictionary that wins so far.
        if c < best.1 {
            best = (IntChoice::Dict(d.to_vec()), c);
        }
    }
    if n >= 8 && bits >= 2 {
        let (b, exceptions) = pfor::best_width(vals, min, bits, MAX_ENCODE_BITS);
        // The exact pass only when PFOR's floor beats the best so far (`consider` is done).
        if (b > 0 || const_ok) && pfor::cost_floor(n, min, b, exceptions, signed) < best.1 {
            let c = pfor::cost(vals, min, b, signed);
            if c < best.1 {
                best = (IntChoice::Pfor { min, b }, c);
            }
        }
    }
    best
}

/// Appends the smallest QPack encoding of `vals`: two's-complement bits (sign-extended for
/// signed kinds) of a slice whose elements are `kind`.
pub fn encode_ints(vals: &[u64], kind: Kind, out: &mut Vec<u8>) {
    write_int(vals, kind, choose_int(vals, kind).0, out);
}

/// Appends `vals` (a `kind` slice) with the codec `choice` from [`choose_int`].
pub fn write_int(vals: &[u64], kind: Kind, choice: IntChoice, out: &mut Vec<u8>) {
    let wide = kind.widened();
    match choice {
        IntChoice::Raw => raw::encode(vals.iter().copied(), kind, out),
        IntChoice::For { min, bits } => for_::encode_with(vals, wide, min, bits, out),
        IntChoice::Delta { min_delta, bits } => {
            delta::encode_with(vals, wide, min_delta, bits, out)
        }
        IntChoice::Rle => rle::encode(vals, wide, out),
        IntChoice::Dict(d) => dict::encode_with(vals, wide, &d, out),
        IntChoice::Pfor { min, b } => pfor::encode_with(vals, wide, min, b, out),
    }
}

/// [`encode_ints`] for an `i64` slice.
pub fn encode_i64s(vals: &[i64], out: &mut Vec<u8>) {
    let bits: Vec<u64> = vals.iter().map(|&v| v as u64).collect();
    encode_ints(&bits, Kind::I64, out);
}

/// [`encode_ints`] for a `u64` slice.
pub fn encode_u64s(vals: &[u64], out: &mut Vec<u8>) {
    encode_ints(vals, Kind::U64, out);
}

/// Appends bit-packed booleans (the only bool codec).
pub fn encode_bools(vals: &[bool], out: &mut Vec<u8>) {
    bools::encode(vals, out);
}

/// The float codec the picker chose.
#[derive(Clone, Debug)]
pub enum FloatChoice {
    /// Raw IEEE-754 bits.
    Raw,
    /// Gorilla XOR.
    Gorilla,
    /// Chimp128 (`f64` only).
    Chimp,
    /// ALP with this plan.
    Alp(alp::Plan),
    /// ALP-RD with this plan.
    AlpRd(alp_rd::Plan),
}

/// ALP when it costs fewer than `best` bytes (the cheapest codec so far, which it must beat).
fn alp_candidate<F: alp::AlpFloat>(vals: &[F], best: usize) -> Option<(FloatChoice, usize)> {
    let plan = alp::plan_below(vals, best)?;
    let c = plan.cost();
    (vals.len() as u64 <= MAX_CONST_COUNT || plan.width() > 0)
        .then_some((FloatChoice::Alp(plan), c))
}

/// ALP-RD when `feats` has [`Features::FLOAT_SPLIT`] and it beats `best`, else `best`.
fn split_candidate<F: alp::AlpFloat>(
    vals: &[F],
    feats: Features,
    best: (FloatChoice, usize),
) -> (FloatChoice, usize) {
    if !feats.contains(Features::FLOAT_SPLIT) || vals.is_empty() {
        return best;
    }
    match alp_rd::plan_below(vals, best.1) {
        Some(plan) => {
            let c = plan.cost();
            (FloatChoice::AlpRd(plan), c)
        }
        None => best,
    }
}

/// Chooses the codec for an `f64` slice under `feats`, with its exact size.
pub fn choose_f64(vals: &[f64], feats: Features) -> (FloatChoice, usize) {
    let mut best = (FloatChoice::Raw, raw::cost(vals.len(), Kind::F64));
    if feats.contains(Features::FLOAT_XOR) && !vals.is_empty() {
        for (choice, c) in [
            (FloatChoice::Gorilla, gorilla::cost_f64(vals)),
            (FloatChoice::Chimp, chimp::cost(vals)),
        ] {
            if c < best.1 {
                best = (choice, c);
            }
        }
        best = alp_candidate(vals, best.1).unwrap_or(best);
    }
    split_candidate(vals, feats, best)
}

/// Chooses the codec for an `f32` slice under `feats`, with its exact size.
pub fn choose_f32(vals: &[f32], feats: Features) -> (FloatChoice, usize) {
    let mut best = (FloatChoice::Raw, raw::cost(vals.len(), Kind::F32));
    if feats.contains(Features::FLOAT_XOR) && !vals.is_empty() {
        let gorilla = gorilla::cost_f32(vals);
        if gorilla < best.1 {
            best = (FloatChoice::Gorilla, gorilla);
        }
        best = alp_candidate(vals, best.1).unwrap_or(best);
    }
    split_candidate(vals, feats, best)
}

/// Appends the smallest encoding of `vals` allowed by `feats` (raw unless
/// [`Features::FLOAT_XOR`] or [`Features::FLOAT_SPLIT`]).
pub fn encode_f64s(vals: &[f64], out: &mut Vec<u8>, feats: Features) {
    write_f64(vals, choose_f64(vals, feats).0, out);
}

/// Appends `vals` with the codec `choice` from [`choose_f64`].
pub fn write_f64(vals: &[f64], choice: FloatChoice, out: &mut Vec<u8>) {
    match choice {
        FloatChoice::Raw => raw::encode(vals.iter().map(|v| v.to_bits()), Kind::F64, out),
        FloatChoice::Gorilla => gorilla::encode_f64(vals, out),
        FloatChoice::Chimp => chimp::encode(vals, out),
        FloatChoice::Alp(plan) => plan.encode(Kind::F64.byte(), out),
        FloatChoice::AlpRd(plan) => plan.encode(vals, out),
    }
}

/// Appends the smallest encoding of `vals` allowed by `feats`.
pub fn encode_f32s(vals: &[f32], out: &mut Vec<u8>, feats: Features) {
    write_f32(vals, choose_f32(vals, feats).0, out);
}

/// Appends `vals` with the codec `choice` from [`choose_f32`].
pub fn write_f32(vals: &[f32], choice: FloatChoice, out: &mut Vec<u8>) {
    match choice {
        FloatChoice::Raw => raw::encode(vals.iter().map(|v| v.to_bits() as u64), Kind::F32, out),
        // `choose_f32` never offers Chimp128 (it is `f64` only).
        FloatChoice::Gorilla | FloatChoice::Chimp => gorilla::encode_f32(vals, out),
        FloatChoice::Alp(plan) => plan.encode(Kind::F32.byte(), out),
        FloatChoice::AlpRd(plan) => plan.encode(vals, out),
    }
}
