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
        unpack_map(&out, 3, 4, &IDENTITY, &mut back).unwrap();
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
        unpack_map(&out, 6, 3, &IDENTITY, &mut back).unwrap();
        assert_eq!(back, codes);
    }

    #[test]
    fn padding_bits_rejected() {
        let mut back = Vec::new();
        assert_eq!(
            unpack_map(&[0x21, 0x13], 3, 4, &IDENTITY, &mut back),
            Err(BadCodes::Padding)
        );
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
            unpack_map(&out, codes.len(), w, &IDENTITY, &mut back).unwrap();
            assert_eq!(back, codes);
        }
    }

    /// Columns long enough for the two-codes-a-lookup path, every width it takes: the same
    /// codes back, and a code past the table still found at its position.
    #[test]
    fn paired_lookups_round_trip_and_find_bad_codes() {
        for w in 1..=6u32 {
            let n = (2 << (2 * w)) + 13;
            let codes: Vec<u8> = (0..n).map(|i| ((i * 37 + 11) % (1 << w)) as u8).collect();
            let mut out = Vec::new();
            pack(codes.iter().copied(), w, &mut out);
            let mut back = Vec::new();
            unpack_map(&out, n, w, &IDENTITY, &mut back).unwrap();
            assert_eq!(back, codes, "width {w}");
            // A table one short: the first code equal to its length is past it.
            let table = &IDENTITY[..(1 << w) - 1];
            let first = codes
                .iter()
                .position(|&c| c as usize == table.len())
                .unwrap();
            assert_eq!(
                unpack_map(&out, n, w, table, &mut back),
                Err(BadCodes::Past(first)),
                "width {w}"
            );
            // Past the table in the tail (after the last whole group of 8) only.
            let mut tail = vec![0u8; n];
            tail[n - 1] = (1 << w) - 1;
            let mut out = Vec::new();
            pack(tail.iter().copied(), w, &mut out);
            assert_eq!(
                unpack_map(&out, n, w, table, &mut back),
                Err(BadCodes::Past(n - 1))
            );
        }
    }

    #[test]
    fn codes_past_the_table_are_found_at_their_position() {
        // 20 codes of 3 bits (a word group, then a tail): code 13 is 6, past a table of 5.
        let codes: Vec<u8> = (0..20)
            .map(|i| if i == 13 { 6 } else { (i % 5) as u8 })
            .collect();
        let mut out = Vec::new();
        pack(codes.iter().copied(), 3, &mut out);
        let mut back = vec![9];
        let table = [b'a', b'b', b'c', b'd', b'e'];
        assert_eq!(
            unpack_map(&out, 20, 3, &table, &mut back),
            Err(BadCodes::Past(13))
        );
        assert_eq!(back, [9], "nothing appended on error");
        let ok: Vec<u8> = codes.iter().map(|&c| c.min(4)).collect();
        let mut out = Vec::new();
        pack(ok.iter().copied(), 3, &mut out);
        unpack_map(&out, 20, 3, &table, &mut back).unwrap();
        let want: Vec<u8> = std::iter::once(9)
            .chain(ok.iter().map(|&c| table[c as usize]))
            .collect();
        assert_eq!(back, want);
    }
}
