//! tANS: a table-based asymmetric numeral system coder for byte strings (J. Duda,
//! "Asymmetric numeral systems: entropy coding combining speed of Huffman coding with
//! compression rate of arithmetic coding", 2013; the table layout and symbol spread of FSE,
//! RFC 8878 §4.1). Our own code; the layout is `docs/SPEC.md` §21.
//!
//! ```text
//! tans := uvarint(n)                                  decoded bytes; n = 0 ends here
//!         00 sym                                      constant: n copies of `sym`
//!       | A uvarint(len) len bytes                    5 ≤ A ≤ 12, the accuracy log
//! ```
//!
//! The `len` bytes are one LSB-first bit stream (bit `k` is bit `k % 8` of byte `k / 8`):
//! the *description* (normalised counts summing to `L = 2^A`), the two initial decoder states
//! (`A` bits each, state 0 decodes the bytes at even positions, state 1 the odd ones), then
//! for each byte in order the bits its state transition reads; zero padding, fewer than 8
//! bits. After the last byte both states must be 0, the state the encoder started from.
//!
//! Description: `R = L`; for symbols 0, 1, … while `R > 0`: the count `c ≤ R` in
//! `bitlen(R)` bits, `R -= c`; after a zero count, the number `z` of further zero counts as
//! an Elias gamma code of `z + 1` (`k` zero bits, a one bit, then the low `k` bits, `k ≤ 8`). Every symbol has count ≥ 1 or 0; there is
//! no "−1" low-probability class (a rare symbol gets count 1). At least two symbols have a
//! count (one symbol is the constant form), and `L ≤ max(32, 2^bitlen(n))`, so a table
//! never has more entries than twice the bytes it decodes (or 32).
//!
//! Decoding (FSE): spread the symbols over `L` slots (step `L/2 + L/8 + 3`, each symbol's
//! slots in symbol order), then slot `u` holding the `k`-th occurrence of `s` gets
//! `x = count(s) + k`, `nb = A − ⌊log2 x⌋`, `base = (x << nb) − L`; a step emits `s` and
//! moves to `base + read(nb)`.

use super::bitpack::{Packer, mask};
use super::cursor::Cursor;
use crate::error::Result;
use crate::wire::varint::{uvarint_len, write_uvarint};

/// Smallest accuracy log.
pub const MIN_LOG: u32 = 5;
/// Largest accuracy log: a table of 4096 slots (16 KiB decoded).
pub const MAX_LOG: u32 = 12;
/// Mode byte of the constant form.
const CONSTANT: u8 = 0;

/// Bits needed to hold `v` (0 for 0).
#[inline]
fn bitlen(v: u64) -> u32 {
    64 - v.leading_zeros()
}

/// Largest accuracy log allowed for `n` decoded bytes.
#[inline]
fn max_log(n: usize) -> u32 {
    bitlen(n as u64).clamp(MIN_LOG, MAX_LOG)
}

/// The FSE spread: slot order in which symbols are laid out.
#[inline]
fn spread_step(l: usize) -> usize {
    (l >> 1) + (l >> 3) + 3
}

/// Symbol of every slot, `counts` summing to `l`.
fn spread(counts: &[u32; 256], l: usize) -> Vec<u8> {
    let mut slots = vec![0u8; l];
    let step = spread_step(l);
    let mut pos = 0;
    for (s, &c) in counts.iter().enumerate() {
        for _ in 0..c {
            slots[pos] = s as u8;
            pos = (pos + step) & (l - 1);
        }
    }
    slots
}

// ---------------------------------------------------------------------------------------
// Encoder

/// A normalised distribution for one block.
struct Model {
    log: u32,
    counts: [u32; 256],
}

/// Histogram of `src`.
fn histogram(src: &[u8]) -> [u64; 256] {
    // Four interleaved tables so that runs of one byte do not serialise on one counter.
    let mut h = [[0u64; 256]; 4];
    let mut chunks = src.chunks_exact(4);
    for c in &mut chunks {
        h[0][c[0] as usize] += 1;
        h[1][c[1] as usize] += 1;
        h[2][c[2] as usize] += 1;
        h[3][c[3] as usize] += 1;
    }
    for &b in chunks.remainder() {
        h[0][b as usize] += 1;
    }
    let mut out = [0u64; 256];
    for (s, o) in out.iter_mut().enumerate() {
        *o = h[0][s] + h[1][s] + h[2][s] + h[3][s];
    }
    out
}

/// Normalises `hist` (total `n`, at most `2^log` present symbols) to counts summing to
/// `2^log`, every present symbol at least 1: `max(1, ⌊c·L/n⌋)`, then greedy single steps
/// (the step that costs or saves the fewest estimated bits) until the sum is `L`.
fn normalise(hist: &[u64; 256], n: usize, log: u32) -> [u32; 256] {
    let l = 1u64 << log;
    let mut counts = [0u32; 256];
    let mut sum = 0u64;
    for s in 0..256 {
        if hist[s] > 0 {
            let c = ((hist[s] as u128 * l as u128) / n as u128) as u64;
            counts[s] = c.max(1) as u32;
            sum += counts[s] as u64;
        }
    }
    while sum < l {
        // Raise the symbol that gains most: hist · log2((c+1)/c).
        let mut best = (0usize, f64::MIN);
        for s in 0..256 {
            if hist[s] > 0 {
                let c = counts[s] as f64;
                let gain = hist[s] as f64 * ((c + 1.0) / c).ln();
                if gain > best.1 {
                    best = (s, gain);
                }
            }
        }
        counts[best.0] += 1;
        sum += 1;
    }
    while sum > l {
        // Lower the symbol (count ≥ 2) that loses least: hist · log2(c/(c−1)).
        let mut best = (0usize, f64::MAX);
        for s in 0..256 {
            if counts[s] > 1 {
                let c = counts[s] as f64;
                let loss = hist[s] as f64 * (c / (c - 1.0)).ln();
                if loss < best.1 {
                    best = (s, loss);
                }
            }
        }
        counts[best.0] -= 1;
        sum -= 1;
    }
    counts
}

/// Writes (or with `out = None`, counts) the description of `counts` at accuracy `log`;
/// returns its bit length.
fn describe(counts: &[u32; 256], log: u32, mut out: Option<(&mut Packer, &mut Vec<u8>)>) -> u64 {
    let mut put = |v: u64, k: u32| {
        if let Some((p, o)) = out.as_mut()
            && k > 0
        {
            p.push_bits(v, k, o);
        }
        k as u64
    };
    let mut bits = 0;
    let mut rem = 1u64 << log;
    let mut s = 0;
    while rem > 0 {
        let c = counts[s] as u64;
        bits += put(c, bitlen(rem));
        rem -= c;
        s += 1;
        if c == 0 {
            let mut run = 0;
            while s + run < 256 && counts[s + run] == 0 {
                run += 1;
            }
            s += run;
            // Elias gamma of run + 1, LSB-first: k zero bits, a one, the low k bits.
            let v = run as u64 + 1;
            let k = bitlen(v) - 1;
            bits += put(1 << k, k + 1);
            bits += put(v & mask(k), k);
        }
    }
    bits
}

/// Estimated payload bits of `hist` under `counts` (Σ −log2 p), for choosing the accuracy.
fn estimate(hist: &[u64; 256], counts: &[u32; 256], log: u32) -> f64 {
    let mut bits = 0.0;
    for s in 0..256 {
        if hist[s] > 0 {
            bits += hist[s] as f64 * (log as f64 - (counts[s] as f64).log2());
        }
    }
    bits
}

/// Picks the accuracy log and counts: each log from the smallest that holds every symbol
/// up to [`max_log`], by description bits plus the estimated payload.
fn model(hist: &[u64; 256], n: usize) -> Model {
    let present = hist.iter().filter(|&&c| c > 0).count() as u64;
    let lo = bitlen(present.saturating_sub(1)).max(MIN_LOG);
    let hi = max_log(n);
    let mut best: Option<(f64, Model)> = None;
    for log in lo..=hi {
        let counts = normalise(hist, n, log);
        let cost = describe(&counts, log, None) as f64 + estimate(hist, &counts, log);
        if best.as_ref().is_none_or(|(b, _)| cost < *b) {
            best = Some((cost, Model { log, counts }));
        }
    }
    best.expect("lo ≤ hi: 256 symbols need log 8 ≤ max_log").1
}

/// The encoder's per-symbol tables: for symbol `s` with count `c`, `k = A − ⌊log2 c⌋`, the
/// bits emitted are `k − 1` if the state `X < c << k` else `k`, and the slots of `s` in
/// increasing order start at `first[s]` of `slots`.
struct EncTable {
    l: u32,
    k: [u32; 256],
    thresh: [u32; 256],
    first: [u32; 256],
    counts: [u32; 256],
    slots: Vec<u16>,
}

impl EncTable {
    fn new(m: &Model) -> EncTable {
        let l = 1usize << m.log;
        let mut first = [0u32; 256];
        let mut acc = 0;
        for (f, &c) in first.iter_mut().zip(&m.counts) {
            *f = acc;
            acc += c;
        }
        let mut next = first;
        let mut slots = vec![0u16; l];
        for (u, &s) in spread(&m.counts, l).iter().enumerate() {
            slots[next[s as usize] as usize] = u as u16;
            next[s as usize] += 1;
        }
        let mut k = [0u32; 256];
        let mut thresh = [0u32; 256];
        for s in 0..256 {
            let c = m.counts[s];
            if c > 0 {
                k[s] = m.log - (31 - c.leading_zeros());
                thresh[s] = c << k[s];
            }
        }
        EncTable {
            l: l as u32,
            k,
            thresh,
            first,
            counts: m.counts,
            slots,
        }
    }

    /// One encoder step from state `x` (in `[L, 2L)`) for symbol `s`: the bits to emit, how
    /// many, and the new state.
    #[inline(always)]
    fn step(&self, x: u32, s: u8) -> (u32, u32, u32) {
        let s = s as usize;
        let nb = self.k[s] - u32::from(x < self.thresh[s]);
        let bits = x & ((1u32 << nb) - 1);
        let occ = (x >> nb) - self.counts[s];
        let u = self.slots[(self.first[s] + occ) as usize] as u32;
        (bits, nb, self.l + u)
    }

    /// Runs the encoder backwards over `src` (both states start at slot 0), calling `emit`
    /// with each byte's bits in reverse byte order; returns the two final slots.
    #[inline(always)]
    fn run(&self, src: &[u8], mut emit: impl FnMut(u32, u32)) -> [u32; 2] {
        let mut st = [self.l; 2];
        for (i, &s) in src.iter().enumerate().rev() {
            let (bits, nb, x) = self.step(st[i & 1], s);
            emit(bits, nb);
            st[i & 1] = x;
        }
        [st[0] - self.l, st[1] - self.l]
    }
}

/// The tANS form of `src`, planned once: exact size, then the bytes.
pub struct Plan<'a> {
    src: &'a [u8],
    form: Form,
}

enum Form {
    Empty,
    Constant(u8),
    /// Boxed: the tables are 4 KiB, the other forms a byte.
    Coded(Box<Coded>),
}

struct Coded {
    model: Model,
    table: EncTable,
    /// Bytes of the bit stream.
    len: usize,
}

impl<'a> Plan<'a> {
    /// Plans `src`: histogram, accuracy and normalisation, and one counting pass of the
    /// encoder, so that [`Plan::cost`] is exact.
    pub fn new(src: &'a [u8]) -> Plan<'a> {
        let n = src.len();
        if n == 0 {
            return Plan {
                src,
                form: Form::Empty,
            };
        }
        let hist = histogram(src);
        if hist[src[0] as usize] == n as u64 {
            return Plan {
                src,
                form: Form::Constant(src[0]),
            };
        }
        let model = model(&hist, n);
        let table = EncTable::new(&model);
        let mut bits = describe(&model.counts, model.log, None) + 2 * model.log as u64;
        table.run(src, |_, nb| bits += nb as u64);
        let len = bits.div_ceil(8) as usize;
        Plan {
            src,
            form: Form::Coded(Box::new(Coded { model, table, len })),
        }
    }

    /// Exact bytes [`Plan::encode`] appends.
    pub fn cost(&self) -> usize {
        let n = uvarint_len(self.src.len() as u64);
        n + match &self.form {
            Form::Empty => 0,
            Form::Constant(_) => 2,
            Form::Coded(c) => 1 + uvarint_len(c.len as u64) + c.len,
        }
    }

    /// Appends the tANS block.
    pub fn encode(&self, out: &mut Vec<u8>) {
        write_uvarint(out, self.src.len() as u64);
        match &self.form {
            Form::Empty => {}
            Form::Constant(s) => out.extend_from_slice(&[CONSTANT, *s]),
            Form::Coded(c) => {
                let Coded { model, table, len } = &**c;
                out.push(model.log as u8);
                write_uvarint(out, *len as u64);
                let start = out.len();
                // The bits of each byte, in encoder (reverse) order: `bits << 4 | nb`.
                let mut rev = Vec::with_capacity(self.src.len());
                let st = table.run(self.src, |bits, nb| rev.push(bits << 4 | nb));
                let mut p = Packer::new(64);
                describe(&model.counts, model.log, Some((&mut p, out)));
                p.push_bits(st[0] as u64, model.log, out);
                p.push_bits(st[1] as u64, model.log, out);
                for &e in rev.iter().rev() {
                    let nb = e & 15;
                    if nb > 0 {
                        p.push_bits((e >> 4) as u64, nb, out);
                    }
                }
                p.finish(out);
                debug_assert_eq!(out.len() - start, *len);
            }
        }
    }
}

/// Appends the tANS block of `src` (see the module docs).
pub fn encode(src: &[u8], out: &mut Vec<u8>) {
    Plan::new(src).encode(out);
}

/// Exact bytes [`encode`] appends for `src`.
pub fn cost(src: &[u8]) -> usize {
    Plan::new(src).cost()
}

// ---------------------------------------------------------------------------------------
// Decoder

/// A decode table slot: the symbol, the bits to read and the base of the next state.
#[derive(Copy, Clone, Default)]
#[repr(C)]
struct Slot {
    base: u16,
    /// `2^nb − 1`: the step masks without computing it.
    mask: u16,
    sym: u8,
    nb: u8,
}

/// LSB-first reads from a byte slice, bounds-checked (the description and the tail).
struct Bits<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl Bits<'_> {
    /// Reads `k ≤ 32` bits; `None` past the end.
    #[inline]
    fn read(&mut self, k: u32) -> Option<u32> {
        if k == 0 {
            return Some(0);
        }
        let end = self.pos + k as usize;
        if end > self.buf.len() * 8 {
            return None;
        }
        let byte = self.pos >> 3;
        let mut w = [0u8; 8];
        let avail = (self.buf.len() - byte).min(8);
        w[..avail].copy_from_slice(&self.buf[byte..byte + avail]);
        let v = (u64::from_le_bytes(w) >> (self.pos & 7)) & mask(k);
        self.pos = end;
        Some(v as u32)
    }
}

/// Reads the description at accuracy `log` from `bits`; errors name the failing symbol.
fn read_description(
    bits: &mut Bits<'_>,
    log: u32,
) -> std::result::Result<[u32; 256], &'static str> {
    const TRUNC: &str = "tANS description runs past its block";
    let mut counts = [0u32; 256];
    let mut rem = 1u32 << log;
    let mut s = 0usize;
    let mut present = 0;
    while rem > 0 {
        if s > 255 {
            return Err("tANS description: counts sum below 2^A after symbol 255");
        }
        let c = bits.read(bitlen(rem as u64)).ok_or(TRUNC)?;
        if c > rem {
            return Err("tANS description: count above the probability left (overflow)");
        }
        counts[s] = c;
        rem -= c;
        s += 1;
        if c == 0 {
            let mut k = 0;
            while bits.read(1).ok_or(TRUNC)? == 0 {
                k += 1;
                if k > 8 {
                    return Err("tANS description: zero run past symbol 255");
                }
            }
            s += ((1usize << k) | bits.read(k).ok_or(TRUNC)? as usize) - 1;
            if s > 256 {
                return Err("tANS description: zero run past symbol 255");
            }
        } else {
            present += 1;
        }
    }
    if present < 2 {
        return Err("tANS description with one symbol (the constant form is required)");
    }
    Ok(counts)
}

/// Builds the decode table of `counts` at accuracy `log`.
fn decode_table(counts: &[u32; 256], log: u32) -> Vec<Slot> {
    let l = 1usize << log;
    let mut next = *counts;
    spread(counts, l)
        .into_iter()
        .map(|s| {
            let x = next[s as usize];
            next[s as usize] += 1;
            let nb = log - (31 - x.leading_zeros());
            Slot {
                base: ((x << nb) - l as u32) as u16,
                mask: ((1u32 << nb) - 1) as u16,
                sym: s,
                nb: nb as u8,
            }
        })
        .collect()
}

/// Decodes one tANS block at the cursor, charging its `n` decoded bytes to `budget`
/// (bytes of output) before allocating.
///
/// Errors, at the failing byte: [`crate::error::ErrorCode::UnexpectedEof`] or
/// [`crate::error::ErrorCode::LengthOverrun`] for a truncated block,
/// [`crate::error::ErrorCode::OutputLimit`] when `n` does not fit the budget, and
/// [`crate::error::ErrorCode::BadCodec`] for a mode byte or accuracy log out of range (`A` above
/// `max(5, bitlen(n))` or 12), a count of zero symbols summing short of `2^A` or one above the
/// probability left, a single-symbol table, a description or state stream past the block,
/// final states that are not 0, a block with unused bytes, or set padding bits.
pub fn decode(cur: &mut Cursor<'_>, budget: &mut u64) -> Result<Vec<u8>> {
    let at = cur.pos();
    let n64 = cur.uvarint("a tANS byte count")?;
    if n64 > *budget {
        let code = crate::error::ErrorCode::OutputLimit {
            needed: n64,
            limit: *budget,
        };
        return Err(cur.err_at(at, code));
    }
    let n = usize::try_from(n64).map_err(|_| cur.bad_at(at, "tANS byte count"))?;
    if n == 0 {
        return Ok(Vec::new());
    }
    let mode_at = cur.pos();
    let mode = cur.byte("a tANS mode byte")?;
    if mode == CONSTANT {
        let s = cur.byte("the constant byte")?;
        *budget -= n64;
        return Ok(vec![s; n]);
    }
    let log = mode as u32;
    if !(MIN_LOG..=max_log(n)).contains(&log) {
        return Err(cur.bad_at(mode_at, "tANS accuracy log out of range"));
    }
    let len_at = cur.pos();
    let len = cur.count(8, "the tANS bit stream length")?;
    let data = cur.take(len, "the tANS bit stream")?;
    let mut bits = Bits { buf: data, pos: 0 };
    let counts = read_description(&mut bits, log).map_err(|w| cur.bad_at(len_at, w))?;
    let table = decode_table(&counts, log);
    let s0 = bits.read(log);
    let s1 = bits.read(log);
    let (Some(s0), Some(s1)) = (s0, s1) else {
        return Err(cur.bad_at(len_at, "tANS initial states run past the block"));
    };
    *budget -= n64;
    let mut out = vec![0u8; n];
    let end = run(&table, data, bits.pos, [s0, s1], &mut out).map_err(|w| cur.bad_at(len_at, w))?;
    if end.div_ceil(8) != len {
        return Err(cur.bad_at(len_at, "tANS bit stream longer than its bytes"));
    }
    if end % 8 != 0 && data[len - 1] >> (end % 8) != 0 {
        return Err(cur.bad_at(len_at, "tANS padding bits are not zero"));
    }
    Ok(out)
}

/// The decode loop: fills `out` from `data` starting at bit `pos` with slots `st`; returns
/// the bit position after the last byte. Four bytes per 64-bit load while 8 bytes remain;
/// bounds-checked reads for the tail.
#[allow(unused_assignments)] // the last step's shift of `w`
fn run(
    table: &[Slot],
    data: &[u8],
    mut pos: usize,
    st: [u32; 2],
    out: &mut [u8],
) -> std::result::Result<usize, &'static str> {
    let lmask = table.len() - 1;
    // A slice of exactly `lmask + 1` slots: indexing it with `s & lmask` needs no bounds check.
    let table = &table[..=lmask];
    let (mut a, mut b) = (st[0] as usize, st[1] as usize);
    let mut quads = out.chunks_exact_mut(4);
    let mut done = 0;
    for q in &mut quads {
        let byte = pos >> 3;
        let Some(w) = data.get(byte..byte + 8) else {
            break;
        };
        // 57 valid bits ≥ 4 × 12.
        let mut w = u64::from_le_bytes(w.try_into().expect("8 bytes")) >> (pos & 7);
        let mut used = 0;
        macro_rules! step {
            ($s:ident, $i:expr) => {
                let e = table[$s & lmask];
                q[$i] = e.sym;
                $s = e.base as usize + (w as usize & e.mask as usize);
                w >>= e.nb;
                used += e.nb as usize;
            };
        }
        step!(a, 0);
        step!(b, 1);
        step!(a, 2);
        step!(b, 3);
        pos += used;
        done += 4;
    }
    let mut bits = Bits { buf: data, pos };
    for (i, o) in out.iter_mut().enumerate().skip(done) {
        let s = if i & 1 == 0 { &mut a } else { &mut b };
        let e = table[*s & lmask];
        *o = e.sym;
        let v = bits
            .read(e.nb as u32)
            .ok_or("tANS bit stream ends before its last byte")?;
        *s = e.base as usize + v as usize;
    }
    if bits.pos > data.len() * 8 {
        return Err("tANS bit stream ends before its last byte");
    }
    if a != 0 || b != 0 {
        return Err("tANS final state differs from the initial one");
    }
    Ok(bits.pos)
}

#[cfg(test)]
mod tests;
