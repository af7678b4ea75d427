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

/// Unpacks `n` codes of `w` bits from `src`, which must be exactly [`packed_len`] bytes.
/// Returns the largest code, or `None` when a padding bit is set.
pub(super) fn unpack(src: &[u8], n: usize, w: u32, dst: &mut Vec<u8>) -> Option<u8> {
    unpack_map(src, n, w, |c| c, dst)
}

/// [`unpack`], appending `map(code)` for each code (an alphabet's symbol): one pass, eight
/// codes per word load. Returns the largest code (not mapped), or `None` when a padding bit
/// is set.
pub(super) fn unpack_map(
    src: &[u8],
    n: usize,
    w: u32,
    map: impl Fn(u8) -> u8 + Copy,
    dst: &mut Vec<u8>,
) -> Option<u8> {
    debug_assert!((1..=8).contains(&w));
    debug_assert_eq!(Some(src.len()), packed_len(n, w));
    if !bitpack::padding_is_zero(src, n, w) {
        return None;
    }
    let start = dst.len();
    dst.resize(start + n, 0);
    let out = &mut dst[start..];
    macro_rules! dispatch {
        ($($w:literal)*) => {
            match w {
                $($w => codes::<$w>(src, out, map),)*
                _ => unreachable!("code widths are 1..=8"),
            }
        };
    }
    Some(dispatch!(1 2 3 4 5 6 7 8))
}

/// Fills `out` with the mapped codes of width `W`; returns the largest code. Eight codes
/// take exactly `W` bytes, so group `g` starts at byte `g·W`.
#[inline(always)]
fn codes<const W: usize>(src: &[u8], out: &mut [u8], map: impl Fn(u8) -> u8) -> u8 {
    let mask = (1u64 << W) - 1;
    let mut max = 0u8;
    let mut groups = out.chunks_exact_mut(8);
    let mut at = 0;
    for o in &mut groups {
        let x = load8(src, at);
        for (j, d) in o.iter_mut().enumerate() {
            let c = ((x >> (j * W)) & mask) as u8;
            max = max.max(c);
            *d = map(c);
        }
        at += W;
    }
    let rest = groups.into_remainder();
    let x = load8(src, at);
    for (j, d) in rest.iter_mut().enumerate() {
        let c = ((x >> (j * W)) & mask) as u8;
        max = max.max(c);
        *d = map(c);
    }
    max
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
mod tests {
    use super::*;

    #[test]
    fn widths() {
        let got: Vec<u32> = [1, 2, 3, 4, 5, 16, 17, 64, 256].map(width_for).to_vec();
        assert_eq!(got, [0, 1, 2, 2, 3, 4, 5, 6, 8]);
    }

    #[test]
    fn nibbles_low_first() {
        let mut out = Vec::new();
        pack([0x1, 0x2, 0x3], 4, &mut out);
        assert_eq!(out, [0x21, 0x03]);
        let mut back = Vec::new();
        unpack(&out, 3, 4, &mut back).unwrap();
        assert_eq!(back, [1, 2, 3]);
    }

    #[test]
    #[allow(clippy::unusual_byte_groupings)] // groups show the 3-bit codes
    fn three_bit_codes_straddle_bytes() {
        let codes = [7u8, 0, 5, 3, 1, 6];
        let mut out = Vec::new();
        pack(codes, 3, &mut out);
        // bit i·3.. holds code i: byte 0 = c2.lo2 | c1 | c0, byte 1 = c5.lo1 | c4 | c3 | c2.hi1
        assert_eq!(out, [0b01_000_111, 0b0_001_011_1, 0b0000_0011]);
        let mut back = Vec::new();
        unpack(&out, 6, 3, &mut back).unwrap();
        assert_eq!(back, codes);
    }

    #[test]
    fn padding_bits_rejected() {
        let mut back = Vec::new();
        assert!(unpack(&[0x21, 0x13], 3, 4, &mut back).is_none());
    }

    #[test]
    fn round_trip_all_widths() {
        for w in 1..=8u32 {
            let codes: Vec<u8> = (0..613u32)
                .map(|i| ((i * 37 + 11) % (1 << w)) as u8)
                .collect();
            let mut out = Vec::new();
            pack(codes.iter().copied(), w, &mut out);
            assert_eq!(Some(out.len()), packed_len(codes.len(), w));
            let mut back = Vec::new();
            unpack(&out, codes.len(), w, &mut back).unwrap();
            assert_eq!(back, codes);
        }
    }
}
