//! LSB-first bit packing of unsigned values, widths 0..=64 (wire notes §2).
//!
//! Value `i` of width `b` occupies bits `i·b .. (i+1)·b` of the little-endian bit stream:
//! bit `k` is bit `k % 8` of byte `k / 8`. A body of `n` values is `⌈n·b/8⌉` bytes and the
//! unused high bits of its last byte are zero.
//!
//! Unpacking is specialised per width (a const generic): a group of 8 values is exactly `b`
//! bytes, so each value is one unaligned little-endian load, a constant shift and a mask,
//! which the compiler unrolls. Loads never read past the slice: the fast loop stops while a
//! full load still fits and a bounds-checked tail finishes.

/// Bytes of `n` packed values of `bits` width: `⌈n·bits/8⌉`, saturating.
pub fn packed_len(n: usize, bits: u32) -> usize {
    let b = (n as u128) * (bits as u128);
    usize::try_from(b.div_ceil(8)).unwrap_or(usize::MAX)
}

/// The mask of the low `bits` bits (`bits` ≤ 64).
#[inline]
pub const fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// Bits needed to hold `v`: 0 for 0, else `64 − leading_zeros`.
#[inline]
pub const fn bit_width(v: u64) -> u32 {
    64 - v.leading_zeros()
}

/// Appends `vals` packed at `bits` width (each value is masked to `bits`).
pub fn pack(vals: impl IntoIterator<Item = u64>, bits: u32, out: &mut Vec<u8>) {
    debug_assert!(bits <= 64);
    if bits == 0 {
        return;
    }
    let mut p = Packer::new(bits);
    for v in vals {
        p.push(v, out);
    }
    p.finish(out);
}

/// A streaming [`pack`]: values pushed one at a time (from nested loops, where an iterator
/// chain would cost more than the packing), a word written every 64 bits.
#[derive(Debug)]
pub struct Packer {
    /// Bits not yet written, the oldest in the low bits; fewer than 64 are pending.
    acc: u64,
    filled: u32,
    bits: u32,
    mask: u64,
}

impl Packer {
    /// A packer of `bits`-wide values, `1 ≤ bits ≤ 64`.
    #[inline]
    pub fn new(bits: u32) -> Packer {
        debug_assert!((1..=64).contains(&bits));
        Packer {
            acc: 0,
            filled: 0,
            bits,
            mask: mask(bits),
        }
    }

    /// Appends `v` (masked to the width); a full 64-bit word goes to `out`.
    #[inline(always)]
    pub fn push(&mut self, v: u64, out: &mut Vec<u8>) {
        self.push_bits(v & self.mask, self.bits, out);
    }

    /// [`Packer::push`] for a packer made with `Packer::new(B)`, the width a constant.
    #[inline(always)]
    pub fn push_const<const B: u32>(&mut self, v: u64, out: &mut Vec<u8>) {
        debug_assert_eq!(self.bits, B);
        self.push_bits(v & mask(B), B, out);
    }

    /// Appends the low `n` bits of `v` (`1 ≤ n ≤ 64`, the higher bits of `v` zero) as if
    /// they were several values pushed one by one, the first in the low bits: one step for
    /// a word's worth of small codes.
    #[inline(always)]
    pub fn push_bits(&mut self, v: u64, n: u32, out: &mut Vec<u8>) {
        debug_assert!((1..=64).contains(&n) && (n == 64 || v >> n == 0));
        self.acc |= v << self.filled;
        self.filled += n;
        if self.filled >= 64 {
            out.extend_from_slice(&self.acc.to_le_bytes());
            self.filled -= 64;
            // The high `filled` bits of `v` that did not fit (`filled < n`; two shifts so that
            // `filled == 0` gives 0 even at `n == 64`).
            self.acc = (v >> 1) >> (n - 1 - self.filled);
        }
    }

    /// Writes the pending bits, the last byte padded with zeros.
    #[inline]
    pub fn finish(self, out: &mut Vec<u8>) {
        let tail = self.filled.div_ceil(8) as usize;
        out.extend_from_slice(&self.acc.to_le_bytes()[..tail]);
    }
}

/// Appends `vals.len()` values packed at `bits` width (`1 ≤ bits ≤ 64`), value `i` being
/// `f(&vals[i])`, which must be below 2^bits. The same bytes as [`Packer`], cheaper per
/// value: specialised per width as [`unpack_add`], so a group of 8 values is `bits` bytes
/// built with constant shifts and no pending-bits test.
#[inline(always)]
pub fn pack_map<T>(vals: &[T], bits: u32, out: &mut Vec<u8>, f: impl FnMut(&T) -> u64) {
    macro_rules! dispatch {
        ($($b:literal)*) => {
            match bits {
                $($b => pack_const::<$b, T>(vals, out, f),)*
                _ => panic!("pack_map: width {bits} not in 1..=64"),
            }
        };
    }
    dispatch!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
        32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61
        62 63 64);
}

#[inline(always)]
fn pack_const<const B: usize, T>(vals: &[T], out: &mut Vec<u8>, mut f: impl FnMut(&T) -> u64) {
    out.reserve(packed_len(vals.len(), B as u32));
    let groups = vals.chunks_exact(8);
    let tail = groups.remainder();
    for g in groups {
        // Value `j` at bit `j·B` of 8 words; every shift is a constant once unrolled.
        let mut words = [0u64; 8];
        for (j, v) in g.iter().enumerate() {
            let v = f(v);
            debug_assert!(B == 64 || v >> B == 0);
            let (word, sh) = (j * B / 64, j * B % 64);
            words[word] |= v << sh;
            if sh + B > 64 {
                words[word + 1] |= v >> (64 - sh);
            }
        }
        let mut bytes = [0u8; 64];
        for (b, w) in bytes.chunks_exact_mut(8).zip(words) {
            b.copy_from_slice(&w.to_le_bytes());
        }
        out.extend_from_slice(&bytes[..B]);
    }
    // The groups end on a byte, so the tail packs on its own.
    if !tail.is_empty() {
        let mut p = Packer::new(B as u32);
        for v in tail {
            p.push_bits(f(v), B as u32, out);
        }
        p.finish(out);
    }
}

/// True if the bits after the first `n·bits` of `src` (the last byte's padding) are zero.
pub fn padding_is_zero(src: &[u8], n: usize, bits: u32) -> bool {
    let used = (n as u128 * bits as u128 % 8) as u32;
    match src.last() {
        Some(&last) if used != 0 => last >> used == 0,
        _ => true,
    }
}

/// Fills `out` with the `out.len()` values packed in `src` at `bits` width, each plus
/// `base` (wrapping). `src` must hold at least [`packed_len`]`(out.len(), bits)` bytes.
pub fn unpack_add(src: &[u8], bits: u32, base: u64, out: &mut [u64]) {
    unpack_map(src, bits, out, |v| base.wrapping_add(v));
}

/// Fills `out` with `f` of each of the `out.len()` values packed in `src` at `bits` width
/// (≤ 64), in order: the values go straight where they are wanted, with no buffer between.
/// `src` must hold at least [`packed_len`]`(out.len(), bits)` bytes (else a panic).
#[inline(always)]
pub fn unpack_map<T>(src: &[u8], bits: u32, out: &mut [T], mut f: impl FnMut(u64) -> T) {
    assert!(bits <= 64 && src.len() >= packed_len(out.len(), bits));
    macro_rules! dispatch {
        ($($b:literal)*) => {
            match bits {
                0 => out.iter_mut().for_each(|d| *d = f(0)),
                $($b => unpack_const::<$b, T>(src, out, &mut f),)*
                _ => unreachable!("width checked above"),
            }
        };
    }
    dispatch!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
        32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61
        62 63 64);
}

/// Value at bit `bit` of width `b` ≤ 64, reading up to 16 bytes with zero padding.
#[inline]
fn get_slow(src: &[u8], bit: usize, b: u32) -> u64 {
    let byte = bit / 8;
    let mut w = [0u8; 16];
    let end = src.len().min(byte + 16);
    w[..end - byte].copy_from_slice(&src[byte..end]);
    ((u128::from_le_bytes(w) >> (bit % 8)) as u64) & mask(b)
}

#[inline(always)]
fn unpack_const<const B: usize, T>(src: &[u8], out: &mut [T], f: &mut impl FnMut(u64) -> T) {
    // Widths up to 56 fit one 8-byte load after a shift of at most 7; wider ones load 16.
    let look = if B <= 56 { 8 } else { 16 };
    let m = mask(B as u32);
    let fast_groups = if src.len() >= B + look {
        ((src.len() - look) / B).min(out.len() / 8)
    } else {
        0
    };
    for (g, dst) in out.chunks_exact_mut(8).take(fast_groups).enumerate() {
        let chunk = &src[g * B..g * B + B + look];
        for (j, d) in dst.iter_mut().enumerate() {
            let bit = j * B;
            let (byte, sh) = (bit / 8, bit % 8);
            let w = if B <= 56 {
                u64::from_le_bytes(chunk[byte..byte + 8].try_into().unwrap()) >> sh
            } else {
                (u128::from_le_bytes(chunk[byte..byte + 16].try_into().unwrap()) >> sh) as u64
            };
            *d = f(w & m);
        }
    }
    for (i, d) in out.iter_mut().enumerate().skip(fast_groups * 8) {
        *d = f(get_slow(src, i * B, B as u32));
    }
}

#[cfg(test)]
mod tests;
