use super::*;
use crate::codec::decode_one;

#[test]
fn golden_and_errors() {
    let vals = [1, 2, 1000, 3];
    let mut out = Vec::new();
    encode_with(&vals, Kind::U64, 1, 2, &mut out);
    // Packed 0, 1, (999 & 3) = 3, 2 → 0b10_11_01_00 = 0xB4; one exception at 2, Δ 999.
    assert_eq!(
        out,
        [0xEE, 0x03, 0x04, 0x02, 0x01, 0xB4, 0x01, 0x02, 0xE7, 0x07]
    );
    assert_eq!(cost(&vals, 1, 2, false), out.len());
    assert_eq!(decode_one(&out).unwrap().ints().unwrap(), &vals);
    let mut bad = out.clone();
    bad[7] = 0x04; // position 4 of 4
    let e = decode_one(&bad).unwrap_err();
    assert_eq!(
        e.code(),
        &crate::error::ErrorCode::BadCodec("exception index out of range")
    );
    assert_eq!(e.offset(), Some(7));
    // A second exception with gap 0 repeats a position.
    let dup = [0xEE, 0x03, 0x02, 0x00, 0x00, 0x02, 0x01, 0x05, 0x00, 0x05];
    assert!(decode_one(&dup).is_err());
    let wide = [0xEE, 0x03, 0x01, 0x41, 0x00];
    assert_eq!(decode_one(&wide).unwrap_err().offset(), Some(3));
}

#[test]
fn width_choice_prefers_exceptions_for_spikes() {
    let mut vals: Vec<u64> = (0..100).map(|i| i % 7).collect();
    vals[50] = 1 << 40;
    let (b, _) = best_width(&vals, 0, 41, 56);
    assert_eq!(b, 3);
}
