use super::super::StrBlock;
use super::super::testutil::{block_bytes, decode_all, mutations_never_panic, strs};
use super::*;

fn front_bytes(vals: &[&[u8]]) -> Vec<u8> {
    let dict = Dict::build(vals).unwrap();
    let front = Front::build(&dict).unwrap();
    block_bytes(&StrBlock::Front(dict, front))
}

#[test]
fn golden_small() {
    let vals = strs(&["/api/users", "/api/items", "/api/users", "/api/item"]);
    let out = front_bytes(&vals);
    #[rustfmt::skip]
    let want = [
        0xFA, 3,
        0, 9, b'/', b'a', b'p', b'i', b'/', b'i', b't', b'e', b'm',
        9, 1, b's',
        5, 5, b'u', b's', b'e', b'r', b's',
        4, 0b00_10_01_10,
    ];
    assert_eq!(out, want);
    assert_eq!(decode_all(&out, 4).unwrap(), vals);
}

#[test]
fn needs_shared_prefix() {
    let vals = strs(&["/a", "/b"]);
    assert!(Front::build(&Dict::build(&vals).unwrap()).is_none());
    let vals = strs(&["ab1", "ab2"]);
    assert!(Front::build(&Dict::build(&vals).unwrap()).is_some());
}

#[test]
fn rejects_unsorted_and_long_prefix() {
    // "ab" then "aa": not increasing.
    let unsorted = [0xFA, 2, 0, 2, b'a', b'b', 1, 1, b'a', 1, 0b01];
    assert!(decode_all(&unsorted, 1).is_err());
    // prefixLen 3 > previous length 2.
    let long = [0xFA, 2, 0, 2, b'a', b'b', 3, 0, 1, 0b01];
    let err = decode_all(&long, 1).unwrap_err();
    assert_eq!(
        err.code(),
        &ErrorCode::BadCodec("FA prefix longer than the previous entry")
    );
    assert_eq!(err.offset(), Some(6));
    // Equal entries are not strictly increasing either.
    let dup = [0xFA, 2, 0, 1, b'a', 1, 0, 1, 0b01];
    assert!(decode_all(&dup, 1).is_err());
}

#[test]
fn hostile_bytes_never_panic() {
    let vals = strs(&[
        "https://x.io/a",
        "https://x.io/b/c",
        "https://x.io/a",
        "https://x.io/",
    ]);
    mutations_never_panic(&front_bytes(&vals), vals.len());
}
