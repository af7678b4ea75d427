use super::super::StrBlock;
use super::super::testutil::{block_bytes, decode_all, mutations_never_panic, strs};
use super::*;

fn alpha_bytes<'v>(vals: &'v [&'v [u8]]) -> Vec<u8> {
    block_bytes(&StrBlock::Alpha(Alphabet::build(vals).unwrap()))
}

#[test]
fn golden_fixed_hex() {
    let vals = strs(&["a1", "1f", "ff"]);
    let out = alpha_bytes(&vals);
    // alphabet a,1,f → codes 0,1,2 in 2 bits: a1 1f ff = 0 1 1 2 2 2
    #[rustfmt::skip]
    let want = [
        0xFB, 3, b'a', b'1', b'f', 3, 0x01, 2,
        0b10_01_01_00, 0b10_10,
    ];
    assert_eq!(out, want);
    assert_eq!(decode_all(&out, 3).unwrap(), vals);
}

#[test]
fn golden_variable_nibbles() {
    // 16 symbols: 4-bit codes, first char in the low nibble.
    let vals = strs(&["0123456789", "abcdef", "", "f0"]);
    let out = alpha_bytes(&vals);
    #[rustfmt::skip]
    let want = [
        0xFB, 16, b'0', b'1', b'2', b'3', b'4', b'5', b'6', b'7', b'8', b'9',
        b'a', b'b', b'c', b'd', b'e', b'f',
        4, 0x00, 10, 6, 0, 2,
        0x10, 0x32, 0x54, 0x76, 0x98, 0xBA, 0xDC, 0xFE, 0x0F,
    ];
    assert_eq!(out, want);
    assert_eq!(decode_all(&out, 4).unwrap(), vals);
}

#[test]
fn build_limits() {
    assert!(Alphabet::build(&strs(&["aaaa", "aa"])).is_none());
    let wide: Vec<u8> = (0..65u8).collect();
    assert!(Alphabet::build(&[&wide[..]]).is_none());
    assert!(Alphabet::build(&[&wide[..64]]).is_some());
}

#[test]
fn rejects_bad_alphabets() {
    let one = [0xFB, 1, b'a', 1, 0x01, 1, 0x00];
    let err = decode_all(&one, 1).unwrap_err();
    assert_eq!(
        err.code(),
        &ErrorCode::BadCodec("alphabet size outside 2..=64")
    );
    assert_eq!(err.offset(), Some(1));
    let mut big = vec![0xFB, 65];
    big.extend(0..65u8);
    big.extend_from_slice(&[1, 0x01, 0]);
    assert!(decode_all(&big, 1).is_err());
    let dup = [0xFB, 2, b'a', b'a', 1, 0x01, 1, 0x00];
    assert!(decode_all(&dup, 1).is_err());
    // 3 symbols, code 3 is past the alphabet.
    let past = [0xFB, 3, b'a', b'b', b'c', 1, 0x01, 1, 0b11];
    assert!(decode_all(&past, 1).is_err());
    // Reserved flag bits.
    let flags = [0xFB, 2, b'a', b'b', 1, 0x02, 1, 0x00];
    assert!(decode_all(&flags, 1).is_err());
}

#[test]
fn huge_fixed_length_is_refused_before_allocating() {
    let huge = [
        0xFB, 2, b'a', b'b', 2, 0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0x00,
    ];
    let err = decode_all(&huge, 2).unwrap_err();
    assert!(matches!(err.code(), ErrorCode::LengthOverrun { .. }));
}

#[test]
fn hostile_bytes_never_panic() {
    let vals = strs(&[
        "4bf92f3577b34da6",
        "00f067aa0ba902b7",
        "a3ce929d0e0e4736",
        "1",
    ]);
    mutations_never_panic(&alpha_bytes(&vals), vals.len());
}
