//! ALP-RD ("ALP for real doubles"), tag `F4` with kind `0E` (`f32`) or `0F` (`f64`):
//! Afroozeh, Kuffó, Boncz, "ALP: Adaptive Lossless floating-Point Compression", SIGMOD 2024,
//! §3.4; `docs/SPEC.md` §19, codec rule 6.
//!
//! Floats with no decimal form (random, measured, computed) still have a low-entropy top:
//! the sign and exponent take few values. Each value's `W` bits (32 or 64) are cut at `r`:
//! the right `r` bits are stored as they are, the left `W − r` bits through a dictionary of
//! at most 8 entries; a left part outside the dictionary is an exception, stored after the
//! body.
//!
//! Layout after the tag: `kind` (`0E`/`0F`), `uvarint(n)`; if n > 0: the right width byte
//! `r` (1..W−1), `uvarint(d)` (1..=8), `d` distinct left values (`uvarint`, each below
//! 2^(W−r)), `⌈n·(r+c)/8⌉` bytes of `code << r | right` bit-packed LSB-first at width
//! `r + c` (`c = ⌈log2 d⌉`; codes below `d`), `uvarint(excN)` (≤ n), then `excN` times
//! `uvarint(gap)` (as PFOR's: the first is the position, later ones > 0; positions < n) and
//! `uvarint(left value)` (below 2^(W−r)), which replaces that slot's left part (the encoder
//! writes code 0 there). Since the `d` left values are distinct and below 2^(W−r),
//! `r + c ≤ W`.
//!
//! The encoder chooses `r` (left parts of 1 to 16 bits, as in the paper) and `d` from up to
//! [`SAMPLES`] evenly spaced values, takes the most frequent left parts as the dictionary
//! and then costs every value exactly, packing it on the way (the plan holds the bytes).
//!
//! ```text
//! 15 f32 of ±[0.5, 1) and 0.001 (docs/SPEC.md §19.2), r = 23, d = 2, 0.001 an exception:
//! F4 0E 10 | 17 | 02 FE 02 7E | 48 bytes: 16 × (code << 23 | mantissa) | 01 | 05 75
//! ```

use super::alp::AlpFloat;
use super::bitpack::{
    bit_width, mask, pack_map, packed_len, padding_is_zero, unpack_add, unpack_map,
};
use super::cursor::Cursor;
use crate::error::Result;
use crate::wire::tags::QP_ALP;
use crate::wire::varint::{uvarint_len, write_uvarint};

/// Kind byte of an `f32` body.
pub const KIND_F32: u8 = 0x0E;
/// Kind byte of an `f64` body.
pub const KIND_F64: u8 = 0x0F;
/// Most dictionary entries (3-bit codes).
pub const MAX_DICT: usize = 8;
/// Widest left part the encoder considers (the paper's bound).
const MAX_LEFT: u32 = 16;
/// Values sampled to choose the cut and the dictionary.
pub const SAMPLES: usize = 256;
/// Values costed between two checks of the bound (a multiple of 8).
const CHUNK: usize = 4096;

/// The kind byte of ALP-RD bodies of `F`.
const fn kind_of<F: AlpFloat>() -> u8 {
    // `0A` → `0E`, `0B` → `0F`: the special family at the same width.
    F::KIND | 0x04
}

/// A cut and dictionary for one slice, with its exact size and its packed values and
/// exception list: costing a value exactly means finding its code, so the costing pass packs
/// it too and writing the plan is a copy (a second pass would look every left part up again).
#[derive(Clone, Debug)]
pub struct Plan {
    r: u32,
    dict: [u64; MAX_DICT],
    d: usize,
    cost: usize,
    /// `⌈n·(r+c)/8⌉` bytes of `code << r | right`.
    body: Vec<u8>,
    /// `excN`.
    exc: usize,
    /// `excN` pairs of `uvarint(gap)`, `uvarint(left value)`.
    exc_bytes: Vec<u8>,
}

impl Plan {
    /// Exact encoded size in bytes, tag included, of the slice it was made for.
    pub fn cost(&self) -> usize {
        self.cost
    }

    /// The right width `r`.
    pub fn right_bits(&self) -> u32 {
        self.r
    }

    /// The dictionary's left values, most frequent (in the sample) first.
    pub fn dict(&self) -> &[u64] {
        &self.dict[..self.d]
    }

    /// Appends the encoding of `vals`, which must be the slice the plan was made for: the
    /// plan holds its packed values (`vals` gives the kind and the count).
    pub fn encode<F: AlpFloat>(&self, vals: &[F], out: &mut Vec<u8>) {
        debug_assert_eq!(
            self.body.len(),
            packed_len(vals.len(), self.r + code_bits(self.d))
        );
        out.extend_from_slice(&[QP_ALP, kind_of::<F>()]);
        write_uvarint(out, vals.len() as u64);
        if vals.is_empty() {
            return;
        }
        out.push(self.r as u8);
        write_uvarint(out, self.d as u64);
        for &l in self.dict() {
            write_uvarint(out, l);
        }
        out.extend_from_slice(&self.body);
        write_uvarint(out, self.exc as u64);
        out.extend_from_slice(&self.exc_bytes);
    }
}

/// No dictionary entry ([`Lookup::code`]).
const NONE: u8 = u8::MAX;

/// A left part's code, or [`NONE`].
trait Lookup {
    fn code(&self, left: u64) -> u8;
}

/// Codes indexed by left part, for left parts of at most [`TABLE_BITS`] bits (on the stack:
/// no allocation per column; 4 KiB, filled by one `memset`).
struct Table([u8; 1 << TABLE_BITS]);

/// Widest left part [`Table`] indexes: 12 takes the sign and exponent of an `f64` (and of an
/// `f32`, 9 bits), the usual cuts, off the search.
const TABLE_BITS: u32 = 12;

/// Fewest values for a [`Table`]: below it, searching up to 8 entries a value is assumed
/// cheaper than filling 4 KiB (an estimate, not measured).
const TABLE_MIN: usize = 64;

impl Table {
    /// A table for left parts of `lw` bits when `lw ≤ TABLE_BITS` and there are at least
    /// [`TABLE_MIN`] values (filling it costs less than searching), else `None`.
    fn new(dict: &[u64], lw: u32, n: usize) -> Option<Table> {
        if lw > TABLE_BITS || n < TABLE_MIN {
            return None;
        }
        let mut t = [NONE; 1 << TABLE_BITS];
        for (k, &l) in dict.iter().enumerate() {
            t[l as usize] = k as u8;
        }
        Some(Table(t))
    }
}

impl Lookup for Table {
    #[inline(always)]
    fn code(&self, left: u64) -> u8 {
        // Left parts of the table's width are below 2^TABLE_BITS; the mask keeps the index
        // in bounds without a check.
        self.0[(left & ((1 << TABLE_BITS) - 1)) as usize]
    }
}

/// A search of the entries, most frequent first.
struct Search<'a>(&'a [u64]);

impl<'a> Search<'a> {
    fn new(dict: &'a [u64]) -> Self {
        Search(dict)
    }
}

impl Lookup for Search<'_> {
    #[inline(always)]
    fn code(&self, left: u64) -> u8 {
        self.0
            .iter()
            .position(|&l| l == left)
            .map_or(NONE, |k| k as u8)
    }
}

/// `⌈log2 d⌉` for `d ≥ 1`.
fn code_bits(d: usize) -> u32 {
    bit_width(d as u64 - 1)
}

/// Bytes of everything but the packed values and the exceptions.
fn head_len(n: usize, dict: &[u64]) -> usize {
    let entries: usize = dict.iter().map(|&l| uvarint_len(l)).sum();
    3 + uvarint_len(n as u64) + uvarint_len(dict.len() as u64) + entries
}

/// The cut and dictionary the sample of `vals` suggests, with the estimated size in bits of
/// all `vals`: the sample's `S·(r + c)` bits and, per sampled exception, a byte of gap and
/// its left value, scaled to `n`, plus the dictionary.
fn choose<F: AlpFloat>(vals: &[F]) -> (u32, [u64; MAX_DICT], usize, u128) {
    let w = 8 * F::WIDTH as u32;
    let n = vals.len() as u128;
    let step = vals.len().div_ceil(SAMPLES).max(1);
    let mut sample: Vec<u64> = vals.iter().step_by(step).map(|v| v.bits()).collect();
    // Sorted bits give sorted left parts at every cut: one pass of runs per cut.
    sample.sort_unstable();
    let s = sample.len();
    let mut best = (u128::MAX, 0u32, [0u64; MAX_DICT], 0usize);
    for r in (w - MAX_LEFT)..w {
        // The most frequent left parts, counts descending (ties: the smaller value).
        let mut top = [(0usize, 0u64); MAX_DICT];
        let mut runs = 0usize;
        let mut i = 0;
        while i < s {
            let left = sample[i] >> r;
            let mut j = i + 1;
            while j < s && sample[j] >> r == left {
                j += 1;
            }
            runs += 1;
            let count = j - i;
            if count > top[MAX_DICT - 1].0 {
                let mut k = MAX_DICT - 1;
                while k > 0 && top[k - 1].0 < count {
                    top[k] = top[k - 1];
                    k -= 1;
                }
                top[k] = (count, left);
            }
            i = j;
        }
        let exc_bits = 8 * (1 + uvarint_len(mask(w - r)));
        let (mut covered, mut dict_bits) = (0, 0);
        for d in 1..=runs.min(MAX_DICT) {
            covered += top[d - 1].0;
            dict_bits += 8 * uvarint_len(top[d - 1].1) as u128;
            let sampled = s * (r + code_bits(d)) as usize + (s - covered) * exc_bits;
            let est = sampled as u128 * n / s as u128 + dict_bits;
            if est < best.0 {
                let mut dict = [0u64; MAX_DICT];
                for (e, t) in dict.iter_mut().zip(&top[..d]) {
                    *e = t.1;
                }
                best = (est, r, dict, d);
            }
        }
    }
    (best.1, best.2, best.3, best.0)
}

/// The plan for `vals` (see [`plan_below`]).
pub fn plan<F: AlpFloat>(vals: &[F]) -> Plan {
    plan_below(vals, usize::MAX).expect("no plan costs usize::MAX bytes")
}

/// The plan for `vals` when it costs fewer than `bound` bytes, else `None`: rejected from the
/// sample's estimate when that is at least `bound`, else from the exact cost, computed
/// every `CHUNK` values against the bound (the exceptions so far can only grow) while the
/// values are packed.
pub fn plan_below<F: AlpFloat>(vals: &[F], bound: usize) -> Option<Plan> {
    let n = vals.len();
    if n == 0 {
        let cost = 2 + uvarint_len(0);
        return (cost < bound).then_some(Plan {
            r: 1,
            dict: [0; MAX_DICT],
            d: 1,
            cost,
            body: Vec::new(),
            exc: 0,
            exc_bytes: Vec::new(),
        });
    }
    let (r, dict, d, est_bits) = choose(vals);
    let width = r + code_bits(d);
    let fixed = head_len(n, &dict[..d]) + packed_len(n, width);
    // A column the sample puts clearly above the bound is not costed value by value.
    let est = (3 + uvarint_len(n as u64)) as u128 + est_bits / 8;
    if fixed >= bound || est >= bound as u128 + bound as u128 / 32 {
        return None;
    }
    let room = bound - fixed;
    let packed = match Table::new(&dict[..d], 8 * F::WIDTH as u32 - r, n) {
        Some(t) => pack_below(vals, r, width, &t, room),
        None => pack_below(vals, r, width, &Search::new(&dict[..d]), room),
    }?;
    let cost = fixed + uvarint_len(packed.exc as u64) + packed.exc_bytes.len();
    (cost < bound).then_some(Plan {
        r,
        dict,
        d,
        cost,
        body: packed.body,
        exc: packed.exc,
        exc_bytes: packed.exc_bytes,
    })
}

/// What [`pack_below`] makes: the fields of a [`Plan`] past its cut and dictionary.
struct Packed {
    body: Vec<u8>,
    exc: usize,
    exc_bytes: Vec<u8>,
}

/// The exception list as it is written: `uvarint(gap)`, `uvarint(left value)` each.
#[derive(Default)]
struct Exceptions {
    n: usize,
    bytes: Vec<u8>,
    last: usize,
}

impl Exceptions {
    /// Appends the exception at position `i` (after the last one). Out of line: exceptions
    /// are rare, and the packing loop keeps its registers without this path.
    #[cold]
    #[inline(never)]
    fn push(&mut self, i: usize, left: u64) {
        write_uvarint(&mut self.bytes, (i - self.last) as u64);
        write_uvarint(&mut self.bytes, left);
        self.n += 1;
        self.last = i;
    }
}

/// `vals` cut at `r` and packed at `width` (`r` plus the code bits), with their exception
/// list, or `None` once the list (count, gaps, left parts) reaches `room` bytes: checked
/// every [`CHUNK`] values (the list only grows).
fn pack_below<F: AlpFloat, L: Lookup>(
    vals: &[F],
    r: u32,
    width: u32,
    codes: &L,
    room: usize,
) -> Option<Packed> {
    let m = mask(r);
    let mut body = Vec::with_capacity(packed_len(vals.len(), width));
    let mut exc = Exceptions::default();
    let mut i = 0;
    // `CHUNK` is a multiple of 8: every chunk packs whole bytes onto the last.
    for chunk in vals.chunks(CHUNK) {
        pack_map(chunk, width, &mut body, |v| {
            let b = v.bits();
            let left = b >> r;
            let mut code = codes.code(left);
            if code == NONE {
                exc.push(i, left);
                // The slot's left part comes from the exception.
                code = 0;
            }
            i += 1;
            // Below 2^width: codes are below 2^c and the right part is masked.
            (code as u64) << r | (b & m)
        });
        if 1 + exc.bytes.len() >= room {
            return None;
        }
    }
    Some(Packed {
        body,
        exc: exc.n,
        exc_bytes: exc.bytes,
    })
}

/// Reads a body after the kind byte. Errors (`BadCodec` at the byte): `r` outside
/// `1..W`, `d` outside `1..=8`, a left value not below 2^(W−r) or repeated, non-zero
/// padding, a code not below `d`, an exception count above `n`, an exception position out of
/// range or not increasing; the output budget; a count of values or exceptions the remaining
/// bytes cannot hold is `LengthOverrun` and a truncated body `UnexpectedEof` (both Eof).
pub fn decode<F: AlpFloat>(cur: &mut Cursor<'_>, budget: &mut u64) -> Result<Vec<F>> {
    let w = 8 * F::WIDTH as u32;
    let n_at = cur.pos();
    let n = cur.uvarint("the ALP-RD count")?;
    if n == 0 {
        return Ok(Vec::new());
    }
    let r_at = cur.pos();
    let r = cur.byte("the ALP-RD right width")? as u32;
    if r == 0 || r >= w {
        return Err(cur.bad_at(r_at, "ALP-RD right width out of range"));
    }
    let left_max = mask(w - r);
    let d_at = cur.pos();
    let d = cur.uvarint("the ALP-RD dictionary size")?;
    if d == 0 || d > MAX_DICT as u64 {
        return Err(cur.bad_at(d_at, "ALP-RD dictionary size not in 1..=8"));
    }
    let d = d as usize;
    // Each entry pre-shifted; unused slots stay 0 (codes there are rejected below).
    let mut table = [0u64; MAX_DICT];
    for k in 0..d {
        let at = cur.pos();
        let l = cur.uvarint("an ALP-RD dictionary entry")?;
        if l > left_max {
            return Err(cur.bad_at(at, "ALP-RD left value wider than W − r bits"));
        }
        if table[..k].contains(&(l << r)) {
            return Err(cur.bad_at(at, "ALP-RD dictionary entry repeated"));
        }
        table[k] = l << r;
    }
    let width = r + code_bits(d);
    let n = cur
        .check_count(n, width as u64)
        .map_err(|c| cur.err_at(n_at, c))?;
    let body_at = cur.pos();
    let body = cur.take(packed_len(n, width), "the ALP-RD body")?;
    if !padding_is_zero(body, n, width) {
        return Err(cur.bad("non-zero padding bits after a packed body"));
    }
    let exc_at = cur.pos();
    let exc = cur.uvarint("the ALP-RD exception count")?;
    if exc > n as u64 {
        return Err(cur.bad_at(exc_at, "ALP-RD exception count above n"));
    }
    // Each exception takes at least two bytes: fewer left is a truncated body (Eof).
    cur.check_count(exc, 16)
        .map_err(|c| cur.err_at(exc_at, c))?;
    cur.charge(budget, n, n_at)?;
    let m = mask(r);
    let mut out = vec![F::from_bits64(0); n];
    // Codes are below 2^c, so below `d` too when `d` is a power of two: no test then.
    let bad = if d.is_power_of_two() {
        rebuild::<F, false>(body, width, &table, r, d, &mut out)
    } else {
        rebuild::<F, true>(body, width, &table, r, d, &mut out)
    };
    if bad {
        // Hostile input only: unpack again to find the first bad code.
        let mut codes = vec![0u64; n];
        unpack_add(body, width, 0, &mut codes);
        let j = codes
            .iter()
            .position(|&v| (v >> r) >= d as u64)
            .unwrap_or(0);
        return Err(cur.bad_at(
            body_at + j * width as usize / 8,
            "ALP-RD code not below the dictionary size",
        ));
    }
    let mut pos = 0u64;
    for k in 0..exc {
        let gap_at = cur.pos();
        let gap = cur.uvarint("an ALP-RD exception gap")?;
        pos = pos.saturating_add(gap);
        if (k > 0 && gap == 0) || pos >= n as u64 {
            return Err(cur.bad_at(gap_at, "exception index out of range"));
        }
        let at = cur.pos();
        let left = cur.uvarint("an ALP-RD exception left value")?;
        if left > left_max {
            return Err(cur.bad_at(at, "ALP-RD left value wider than W − r bits"));
        }
        let slot = &mut out[pos as usize];
        *slot = F::from_bits64(left << r | (slot.bits() & m));
    }
    Ok(out)
}

/// Fills `out` with the values packed in `body` at `width` (`code << r | right`), each left
/// part from `table` (pre-shifted); with `CHECK`, returns whether a code is not below `d`,
/// else `false`.
#[inline(always)]
fn rebuild<F: AlpFloat, const CHECK: bool>(
    body: &[u8],
    width: u32,
    table: &[u64; MAX_DICT],
    r: u32,
    d: usize,
    out: &mut [F],
) -> bool {
    let m = mask(r);
    let mut bad = false;
    unpack_map(body, width, out, |v| {
        let code = (v >> r) as usize;
        if CHECK {
            bad |= code >= d;
        }
        F::from_bits64(table[code & (MAX_DICT - 1)] | (v & m))
    });
    bad
}

#[cfg(test)]
mod tests;
