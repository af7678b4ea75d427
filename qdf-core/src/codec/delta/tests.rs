use super::*;
use crate::codec::decode_one;

#[test]
fn golden_and_round_trip() {
    let mut out = Vec::new();
    encode(&[10, 11, 12, 13], Kind::U64, &mut out);
    assert_eq!(out, [0xE6, 0x03, 0x00, 0x0A, 0x02, 0x04]);
    assert_eq!(out.len(), cost(4, 10, 1, 0, false));
    // Wrapping deltas: MAX then MIN (step +1 mod 2^64), then back.
    let vals = [i64::MAX as u64, i64::MIN as u64, i64::MAX as u64, 0];
    let mut out = Vec::new();
    encode(&vals, Kind::I64, &mut out);
    assert_eq!(decode_one(&out).unwrap().ints().unwrap(), &vals);
    let mut out = Vec::new();
    encode(&[5], Kind::I64, &mut out);
    assert_eq!(out, [0xE6, 0x07, 0x00, 0x0A, 0x00, 0x01]);
    assert_eq!(decode_one(&out).unwrap().ints().unwrap(), &[5]);
}

#[test]
fn errors() {
    let zero = decode_one(&[0xE6, 0x03, 0x00, 0x00, 0x00, 0x00]).unwrap_err();
    assert_eq!(
        zero.code(),
        &crate::error::ErrorCode::BadCodec("delta body with zero values")
    );
    let short = decode_one(&[0xE6, 0x03, 0x08, 0x00, 0x00, 0x03, 0x01]).unwrap_err();
    assert_eq!(short.offset(), Some(5));
    let wide = decode_one(&[0xE6, 0x03, 0x41, 0x00, 0x00, 0x01]).unwrap_err();
    assert_eq!(wide.offset(), Some(2));
}
