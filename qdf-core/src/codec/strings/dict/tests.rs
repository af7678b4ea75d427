use super::super::testutil::{decode_all, mutations_never_panic, strs};
use super::*;

#[test]
fn golden_small() {
    let vals = strs(&["ab", "c", "ab", "ab", "d"]);
    let dict = Dict::build(&vals).unwrap();
    let mut out = Vec::new();
    encode(&dict, &mut out);
    #[rustfmt::skip]
    let want = [
        0xF5, 3, 2, b'a', b'b', 1, b'c', 1, b'd',
        5, 0b00_00_01_00, 0b10,
    ];
    assert_eq!(out, want);
    assert_eq!(cost(&dict), out.len());
    assert_eq!(
        decode_all(&out, 5).unwrap(),
        ["ab", "c", "ab", "ab", "d"].map(|s| s.as_bytes().to_vec())
    );
}

#[test]
fn rejects_sizes_outside_limits() {
    // d = 1 and d = 257 are outside 2..=256.
    let one = [0xF5, 1, 1, b'x', 2, 0];
    assert!(decode_all(&one, 2).is_err());
    let mut big = vec![0xF5, 0x81, 0x02];
    for i in 0..257u32 {
        big.extend_from_slice(&[2, (i >> 8) as u8, i as u8]);
    }
    big.extend_from_slice(&[1, 0, 0]);
    let err = decode_all(&big, 1).unwrap_err();
    assert_eq!(
        err.code(),
        &crate::error::ErrorCode::BadCodec("string dictionary size outside 2..=256")
    );
    assert_eq!(err.offset(), Some(1));
}

#[test]
fn rejects_index_past_table() {
    // d = 3 with 2-bit indices; row 1 holds 3.
    let bad = [0xF5, 3, 0, 0, 0, 2, 0b1100];
    assert!(decode_all(&bad, 2).is_err());
}

#[test]
fn hostile_bytes_never_panic() {
    let vals = strs(&["GET", "POST", "GET", "PUT", "DELETE", "GET", "GET", "POST"]);
    let mut out = Vec::new();
    encode(&Dict::build(&vals).unwrap(), &mut out);
    mutations_never_panic(&out, vals.len());
}
