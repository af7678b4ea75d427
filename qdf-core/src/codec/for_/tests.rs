use super::*;
use crate::codec::decode_one;

#[test]
fn golden_and_round_trip() {
    let mut out = Vec::new();
    encode(&[100, 101, 103], Kind::U64, &mut out);
    assert_eq!(out, [0xE5, 0x03, 0x02, 0x64, 0x03, 0x34]);
    assert_eq!(out.len(), cost(3, 100, 2, false));
    let vals = [-5i64 as u64, 3, -1i64 as u64];
    let mut out = Vec::new();
    encode(&vals, Kind::I64, &mut out);
    // min −5 → zigzag 9; width of 8 is 4 bits: 0, 8, 4.
    assert_eq!(out, [0xE5, 0x07, 0x04, 0x09, 0x03, 0x80, 0x04]);
    assert_eq!(decode_one(&out).unwrap().ints().unwrap(), &vals);
}

#[test]
fn constant_and_errors() {
    let mut out = Vec::new();
    encode(&[7; 5], Kind::U64, &mut out);
    assert_eq!(out, [0xE5, 0x03, 0x00, 0x07, 0x05]);
    let e = decode_one(&[0xE5, 0x03, 65, 0, 1, 0]).unwrap_err();
    assert_eq!(e.offset(), Some(2));
    let e = decode_one(&[0xE5, 0x03, 0x08, 0x00, 0x03, 1, 2]).unwrap_err();
    assert_eq!(
        e.code(),
        &crate::error::ErrorCode::LengthOverrun {
            len: 3,
            remaining: 2
        }
    );
    assert!(decode_one(&[0xE5, 0x03, 0x02, 0x00, 0x03, 0xC0]).is_err());
}
