use super::*;
use crate::codec::decode_one;

#[test]
fn golden_every_kind() {
    let mut out = Vec::new();
    encode([1u64, -2i64 as u64].into_iter(), Kind::I16, &mut out);
    assert_eq!(out, [0xE4, 0x05, 0x02, 0x01, 0x00, 0xFE, 0xFF]);
    assert_eq!(cost(2, Kind::I16), out.len());
    assert_eq!(
        decode_one(&out).unwrap().ints().unwrap(),
        &[1, -2i64 as u64]
    );
    let mut out = Vec::new();
    encode([0xFFu64].into_iter(), Kind::U8, &mut out);
    assert_eq!(decode_one(&out).unwrap().ints().unwrap(), &[0xFF]);
    let mut out = Vec::new();
    encode([(-0.0f64).to_bits()].into_iter(), Kind::F64, &mut out);
    assert_eq!(out, [0xE4, 0x0B, 0x01, 0, 0, 0, 0, 0, 0, 0, 0x80]);
    match decode_one(&out).unwrap() {
        Packed::F64s(f) => assert_eq!(f[0].to_bits(), (-0.0f64).to_bits()),
        other => panic!("expected f64s, got {other:?}"),
    }
    assert!(decode_one(&[0xE4, 0x0D, 0x00]).is_err());
    assert!(decode_one(&[0xE4, 0x03, 0x02, 1, 2, 3, 4, 5, 6, 7, 8]).is_err());
}
