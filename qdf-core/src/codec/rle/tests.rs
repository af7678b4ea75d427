use super::*;
use crate::codec::decode_one;

#[test]
fn golden_and_errors() {
    let mut out = Vec::new();
    encode(&[7, 7, 7, 9], Kind::U64, &mut out);
    assert_eq!(out, [0xEB, 0x03, 0x04, 0x07, 0x03, 0x09, 0x01]);
    assert_eq!(cost(&[7, 7, 7, 9], false), out.len());
    let neg = [-1i64 as u64; 3];
    let mut out = Vec::new();
    encode(&neg, Kind::I64, &mut out);
    assert_eq!(out, [0xEB, 0x07, 0x03, 0x01, 0x03]);
    assert_eq!(decode_one(&out).unwrap().ints().unwrap(), &neg);
    let zero = decode_one(&[0xEB, 0x03, 0x02, 0x07, 0x00]).unwrap_err();
    assert_eq!(zero.offset(), Some(4));
    let over = decode_one(&[0xEB, 0x03, 0x02, 0x07, 0x03]).unwrap_err();
    assert_eq!(
        over.code(),
        &crate::error::ErrorCode::BadCodec("RLE runs beyond the count")
    );
    assert!(
        decode_one(&[0xEB, 0x03, 0x02, 0x07, 0x01])
            .unwrap_err()
            .is_eof()
    );
    let huge = decode_one(&[0xEB, 0x03, 0x81, 0x80, 0x80, 0x08]).unwrap_err();
    assert_eq!(huge.offset(), Some(2));
    let mut budget = 1;
    let e = crate::codec::decode(&[0xEB, 0x03, 0x02, 0x07, 0x02], 0, &mut budget);
    assert_eq!(
        e.unwrap_err().code(),
        &crate::error::ErrorCode::OutputLimit {
            needed: 16,
            limit: 1
        }
    );
}
