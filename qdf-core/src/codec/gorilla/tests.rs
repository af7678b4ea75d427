use super::*;
use crate::codec::{Packed, decode_one};

#[test]
fn golden_small() {
    let mut out = Vec::new();
    encode_f64(&[1.0, 1.0, 2.0], &mut out);
    // 1.0 ^ 2.0 = 0x7FF0…: lz 1, mb 11 → 0 | 11 00001 001010 11111111111 (25 bits).
    assert_eq!(
        out,
        [
            0xE7, 0x0B, 0x03, 0, 0, 0, 0, 0, 0, 0xF0, 0x3F, 25, 0x61, 0x2B, 0xFF, 0x80
        ]
    );
    assert_eq!(cost_f64(&[1.0, 1.0, 2.0]), out.len());
    let mut one = Vec::new();
    encode_f32(&[-0.0], &mut one);
    assert_eq!(one, [0xE7, 0x0A, 0x01, 0, 0, 0, 0x80, 0x00]);
    let mut none = Vec::new();
    encode_f32(&[], &mut none);
    assert_eq!(none, [0xE7, 0x0A, 0x00]);
    match decode_one(&out).unwrap() {
        Packed::F64s(v) => assert_eq!(v, [1.0, 1.0, 2.0]),
        other => panic!("expected f64s, got {other:?}"),
    }
}

#[test]
fn errors() {
    let mut out = Vec::new();
    encode_f64(&[1.0, 1.0, 2.0], &mut out);
    // Claim 30 values: more than 25 bits allow.
    let mut more = out.clone();
    more[2] = 30;
    assert!(decode_one(&more).is_err());
    // A bit count that leaves bits unread.
    let mut extra = out.clone();
    extra[11] = 26;
    assert!(decode_one(&extra).is_err());
    // lz 31 + mb 64 is wider than the value.
    let wide = [0xE7, 0x0B, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 13, 0xFF, 0xF8];
    let e = decode_one(&wide).unwrap_err();
    assert_eq!(
        e.code(),
        &crate::error::ErrorCode::BadCodec("Gorilla window wider than the value")
    );
}
