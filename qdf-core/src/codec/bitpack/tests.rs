use super::*;
use proptest::prelude::*;

#[test]
fn golden_lsb_first() {
    let mut out = Vec::new();
    pack([1, 2, 3, 4, 5], 3, &mut out);
    // 1 | 2<<3 | 3<<6 | 4<<9 | 5<<12 = 0x58D1: 15 bits in 2 bytes.
    assert_eq!(out, [0xD1, 0x58]);
    assert_eq!(packed_len(5, 3), 2);
    let mut back = [0u64; 5];
    unpack_add(&out, 3, 0, &mut back);
    assert_eq!(back, [1, 2, 3, 4, 5]);
    assert!(padding_is_zero(&out, 5, 3));
    assert!(!padding_is_zero(&[0xD1, 0xD8], 5, 3));
    let mut out = Vec::new();
    pack([u64::MAX, 0], 64, &mut out);
    assert_eq!(
        out,
        [0xFF; 8]
            .iter()
            .chain(&[0u8; 8])
            .copied()
            .collect::<Vec<_>>()
    );
}

#[test]
fn every_width_and_length() {
    for bits in 0..=64u32 {
        for n in [0usize, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 200] {
            let vals: Vec<u64> = (0..n as u64)
                .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(i as u32) & mask(bits))
                .collect();
            let mut buf = Vec::new();
            pack(vals.iter().copied(), bits, &mut buf);
            assert_eq!(buf.len(), packed_len(n, bits));
            assert!(padding_is_zero(&buf, n, bits));
            let mut back = vec![0u64; n];
            unpack_add(&buf, bits, 7, &mut back);
            let want: Vec<u64> = vals.iter().map(|v| v.wrapping_add(7)).collect();
            assert_eq!(back, want, "bits {bits} n {n}");
        }
    }
}

/// The packer against a bit-at-a-time reference, at every width.
#[test]
fn packer_matches_a_bitwise_reference() {
    for bits in 1..=64u32 {
        let vals: Vec<u64> = (0..131u64)
            .map(|i| {
                i.wrapping_mul(0xD6E8_FEB8_6659_FD93)
                    .rotate_left(i as u32 * 7)
            })
            .collect();
        let mut want = vec![0u8; packed_len(vals.len(), bits)];
        for (i, v) in vals.iter().enumerate() {
            for k in 0..bits as usize {
                if v >> k & 1 == 1 {
                    let bit = i * bits as usize + k;
                    want[bit / 8] |= 1 << (bit % 8);
                }
            }
        }
        let mut got = vec![0xAA];
        pack(vals.iter().copied(), bits, &mut got);
        assert_eq!(got[1..], want[..], "bits {bits}");
    }
}

/// `pack_map` writes `pack`'s bytes at every width, for whole groups of 8, tails and both,
/// after bytes already in the buffer.
#[test]
fn pack_map_equals_pack() {
    let vals: Vec<u64> = (0..131u64)
        .map(|i| {
            i.wrapping_mul(0x9E37_79B9_7F4A_7C15)
                .rotate_left(i as u32 * 5)
        })
        .collect();
    for bits in 1..=64u32 {
        for n in [0usize, 1, 7, 8, 9, 64, 131] {
            let mut want = vec![0xAA];
            pack(vals[..n].iter().copied(), bits, &mut want);
            let mut got = vec![0xAA];
            pack_map(&vals[..n], bits, &mut got, |&v| v & mask(bits));
            assert_eq!(got, want, "bits {bits} n {n}");
        }
    }
}

/// A word of codes pushed at once packs like the codes one by one.
#[test]
fn push_bits_equals_single_pushes() {
    for w in 1..=8u32 {
        let k = 64 / w;
        let codes: Vec<u64> = (0..3 * k as u64 + 5)
            .map(|i| (i * 7 + 3) & mask(w))
            .collect();
        let mut one = Vec::new();
        pack(codes.iter().copied(), w, &mut one);
        let (mut words, mut p) = (Vec::new(), Packer::new(w));
        p.push(codes[0], &mut words);
        for c in codes[1..].chunks(k as usize) {
            let v = c
                .iter()
                .enumerate()
                .fold(0, |a, (i, &x)| a | x << (w * i as u32));
            p.push_bits(v, w * c.len() as u32, &mut words);
        }
        p.finish(&mut words);
        assert_eq!(words, one, "width {w}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]
    #[test]
    fn pack_unpack(bits in 0u32..=64, vals in proptest::collection::vec(any::<u64>(), 0..300)) {
        let masked: Vec<u64> = vals.iter().map(|v| v & mask(bits)).collect();
        let mut buf = Vec::new();
        pack(vals.iter().copied(), bits, &mut buf);
        let mut back = vec![0u64; vals.len()];
        unpack_add(&buf, bits, 0, &mut back);
        prop_assert_eq!(back, masked);
    }
}
