use super::*;
use crate::codec::decode_one;

#[test]
fn golden_and_errors() {
    let vals = [5000, 9, 5000, 9];
    let dict = distinct(&vals).unwrap();
    assert_eq!(dict, [5000, 9]);
    let mut out = Vec::new();
    encode_with(&vals, Kind::U64, &dict, &mut out);
    assert_eq!(out, [0xED, 0x03, 0x02, 0x88, 0x27, 0x09, 0x04, 0x0A]);
    assert_eq!(cost(4, &dict, false), out.len());
    assert_eq!(decode_one(&out).unwrap().ints().unwrap(), &vals);
    // Three entries use 2-bit indexes; index 3 is out of range.
    let bad = decode_one(&[0xED, 0x03, 0x03, 1, 2, 3, 0x01, 0x03]).unwrap_err();
    assert_eq!(
        bad.code(),
        &crate::error::ErrorCode::BadCodec("dictionary index out of range")
    );
    assert!(decode_one(&[0xED, 0x03, 0x41]).is_err());
    assert!(decode_one(&[0xED, 0x03, 0x00, 0x00]).is_err());
    assert_eq!(
        [1, 2, 3, 4, 5, 64, 65].map(index_bits),
        [0, 1, 2, 2, 3, 6, 7]
    );
    assert!(distinct(&(0..65).collect::<Vec<u64>>()).is_none());
}
