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
