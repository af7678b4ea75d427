use super::*;
use crate::codec::{Packed, decode_one};

#[test]
fn golden_and_errors() {
    let mut out = Vec::new();
    encode(&[true, false, true], &mut out);
    assert_eq!(out, [0xE3, 0x03, 0x05]);
    assert_eq!(cost(3), 3);
    let nine = [true; 9];
    let mut out = Vec::new();
    encode(&nine, &mut out);
    assert_eq!(out, [0xE3, 0x09, 0xFF, 0x01]);
    match decode_one(&out).unwrap() {
        Packed::Bools(b) => assert_eq!(b, nine),
        other => panic!("expected bools, got {other:?}"),
    }
    assert!(decode_one(&[0xE3, 0x03, 0x0D]).is_err());
    assert!(decode_one(&[0xE3, 0x09, 0xFF]).is_err());
}
