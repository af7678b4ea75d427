use super::*;
use crate::codec::{Packed, decode_one};

#[test]
fn golden_small() {
    let mut out = Vec::new();
    encode(&[1.0, 1.0, 2.0], &mut out);
    // 00 0000000: equal to slot 0. Then 2.0 ^ slot 1 = 0x7FF0… has 52 trailing zeros:
    // 01 0000001, lz 1 → code 000, sig 12 = 001100, then 0x7FF in 12 bits (39 bits).
    assert_eq!(
        &out[..12],
        &[0xE7, 0x0F, 0x03, 0, 0, 0, 0, 0, 0, 0xF0, 0x3F, 39]
    );
    assert_eq!(&out[12..], &[0x00, 0x20, 0x41, 0x8F, 0xFE]);
    assert_eq!(cost(&[1.0, 1.0, 2.0]), out.len());
    match decode_one(&out).unwrap() {
        Packed::F64s(v) => assert_eq!(v, [1.0, 1.0, 2.0]),
        other => panic!("expected f64s, got {other:?}"),
    }
}

#[test]
fn errors() {
    // 00 + slot 5 at value 1: slot not filled.
    let unfilled = [0xE7, 0x0F, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 9, 0x02, 0x80];
    let e = decode_one(&unfilled).unwrap_err();
    assert_eq!(
        e.code(),
        &crate::error::ErrorCode::BadCodec("Chimp128 reference to a ring slot not yet filled")
    );
    // 10 first: no stored lz.
    let reuse = [0xE7, 0x0F, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0x80];
    assert!(decode_one(&reuse).is_err());
    // Two values but only 1 bit.
    let short = [0xE7, 0x0F, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0x00];
    assert!(decode_one(&short).is_err());
}
