//! Small codes (1–8 bits: dictionary indices, alphabet codes) over the crate's LSB-first
//! [`bitpack`]: code `i` of width `w` occupies bits `[i·w, (i+1)·w)`, bit 0 being the low bit
//! of byte 0, so with `w = 4` the first code is the low nibble. Padding bits are zero and the
//! decoder rejects other padding, so each column has one encoding.

use crate::codec::bitpack;

/// `⌈log2 d⌉`: bits per code for `d` symbols (0 for `d ≤ 1`).
pub(super) fn width_for(d: usize) -> u32 {
    if d <= 1 {
        0
    } else {
        bitpack::bit_width(d as u64 - 1)
    }
}

/// `⌈n·w/8⌉` bytes, or `None` on overflow.
pub(super) fn packed_len(n: usize, w: u32) -> Option<usize> {
    Some(bitpack::packed_len(n, w)).filter(|&l| l != usize::MAX)
}

/// Appends the codes, `w` bits each (`1 ≤ w ≤ 8`, every code `< 2^w`).
pub(super) fn pack(codes: impl IntoIterator<Item = u8>, w: u32, out: &mut Vec<u8>) {
    debug_assert!((1..=8).contains(&w));
    bitpack::pack(codes.into_iter().map(u64::from), w, out);
}

/// `IDENTITY[c] == c`: the [`unpack_map`] table of plain codes (dictionary indices).
pub(super) const IDENTITY: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = i as u8;
        i += 1;
    }
    t
};

/// Why [`unpack_map`] refused its input.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum BadCodes {
    /// A padding bit after the last code is set.
    Padding,
    /// Code `i` (counting from 0) is not below the table's length.
    Past(usize),
}

/// Unpacks `n` codes of `w` bits from `src`, which must be exactly [`packed_len`] bytes,
/// and appends `table[code]` for each (the code itself for an identity table, an alphabet's
/// symbol): one pass, eight codes per word load. Every code must be below `table.len()`.
pub(super) fn unpack_map(
    src: &[u8],
    n: usize,
    w: u32,
    table: &[u8],
    dst: &mut Vec<u8>,
) -> Result<(), BadCodes> {
    debug_assert!((1..=8).contains(&w));
    debug_assert_eq!(Some(src.len()), packed_len(n, w));
    if !bitpack::padding_is_zero(src, n, w) {
        return Err(BadCodes::Padding);
    }
    // Codes past the table map to 0x100: one OR over the outputs finds any.
    let mut lut = [0x100u16; 256];
    for (l, &t) in lut.iter_mut().zip(table) {
        *l = u16::from(t);
    }
    let start = dst.len();
    dst.resize(start + n, 0);
    let out = &mut dst[start..];
    // Long columns of narrow codes map two codes a lookup, once the pair table (2^2w
    // entries) costs less than the lookups it saves.
    let paired = w <= 6 && n >= 2 << (2 * w);
    macro_rules! dispatch {
        ($($w:literal)*) => {
            match (w, paired) {
                $(($w, false) => codes::<$w>(src, out, &lut),)*
                $(($w, true) if $w <= 6 => code_pairs::<$w>(src, out, &lut),)*
                _ => unreachable!("code widths are 1..=8"),
            }
        };
    }
    if dispatch!(1 2 3 4 5 6 7 8) < 0x100 {
        return Ok(());
    }
    let mask = (1u64 << w) - 1;
    let past = (0..n)
        .position(|i| {
            let bit = i * w as usize;
            (load8(src, bit / 8) >> (bit % 8) & mask) as usize >= table.len()
        })
        .unwrap_or(0);
    dst.truncate(start);
    Err(BadCodes::Past(past))
}

/// Fills `out` with `lut[code]` for the codes of width `W`; returns the OR of the entries
/// (bit 8 set when some code was past the table). Eight codes take exactly `W` bytes, so
/// group `g` starts at byte `g·W`.
#[inline(always)]
fn codes<const W: usize>(src: &[u8], out: &mut [u8], lut: &[u16; 256]) -> u16 {
    let mask = (1u64 << W) - 1;
    let mut acc = 0u16;
    let mut groups = out.chunks_exact_mut(8);
    let mut at = 0;
    for o in &mut groups {
        let x = load8(src, at);
        for (j, d) in o.iter_mut().enumerate() {
            let e = lut[((x >> (j * W)) & mask) as usize];
            acc |= e;
            *d = e as u8;
        }
        at += W;
    }
    let rest = groups.into_remainder();
    let x = load8(src, at);
    for (j, d) in rest.iter_mut().enumerate() {
        let e = lut[((x >> (j * W)) & mask) as usize];
        acc |= e;
        *d = e as u8;
    }
    acc
}

/// [`codes`] two codes a lookup: `pairs[a | b << W]` holds the symbols of codes `a` then
/// `b` (low byte first), with bit 8 set when either is past the table; returns the OR of
/// the entries used, as [`codes`] does.
#[inline(always)]
fn code_pairs<const W: usize>(src: &[u8], out: &mut [u8], lut: &[u16; 256]) -> u16 {
    let mask = (1usize << W) - 1;
    let n2 = 1usize << (2 * W);
    let pairs: Vec<u32> = (0..n2)
        .map(|i| {
            let (a, b) = (lut[i & mask], lut[i >> W]);
            u32::from(a & 0xFF) | u32::from(b & 0xFF) << 8 | u32::from((a | b) & 0x100) << 8
        })
        .collect();
    // A constant length, so the masked lookups below need no bounds check.
    let pairs = &pairs[..n2];
    let mut acc = 0u32;
    let mut groups = out.chunks_exact_mut(8);
    let mut at = 0;
    for o in &mut groups {
        let x = load8(src, at) as usize;
        for (j, d) in o.chunks_exact_mut(2).enumerate() {
            let e = pairs[(x >> (2 * j * W)) & (n2 - 1)];
            acc |= e;
            d.copy_from_slice(&(e as u16).to_le_bytes());
        }
        at += W;
    }
    let tail = codes::<W>(&src[at.min(src.len())..], groups.into_remainder(), lut);
    (acc >> 8) as u16 & 0x100 | tail
}

/// The 8 bytes of `src` from `at` as a little-endian word, zero past the end.
#[inline(always)]
fn load8(src: &[u8], at: usize) -> u64 {
    match src.get(at..at + 8) {
        Some(b) => u64::from_le_bytes(b.try_into().expect("8 bytes")),
        None => {
            let tail = src.get(at..).unwrap_or(&[]);
            let mut buf = [0u8; 8];
            buf[..tail.len()].copy_from_slice(tail);
            u64::from_le_bytes(buf)
        }
    }
}

#[cfg(test)]
mod tests;
