use super::super::StrBlock;
use super::super::testutil::{block_bytes, decode_all, mutations_never_panic, strs};
use super::*;
use crate::codec::pick::encode_u64s;

fn runs() -> Vec<&'static [u8]> {
    let mut v: Vec<&[u8]> = vec![b"INFO"; 40];
    v.extend(vec![&b"WARN"[..]; 30]);
    v.extend(vec![&b"INFO"[..]; 20]);
    v
}

#[test]
fn golden_runs() {
    let vals = runs();
    let dict = Dict::build(&vals).unwrap();
    let idx = index_block(&dict).expect("runs beat 90 flat bits");
    let out = block_bytes(&StrBlock::DictQ(dict, idx));
    #[rustfmt::skip]
    let want = [
        0xFC, 2, 4, b'I', b'N', b'F', b'O', 4, b'W', b'A', b'R', b'N',
        0xEB, 0x03, 90, 0, 40, 1, 30, 0, 20,
    ];
    assert_eq!(out, want);
    assert_eq!(decode_all(&out, vals.len()).unwrap(), vals);
}

#[test]
fn no_qpack_block_when_flat_is_smaller() {
    let vals = strs(&["a", "b", "a", "b", "b", "a", "a", "b", "a", "b"]);
    assert!(index_block(&Dict::build(&vals).unwrap()).is_none());
}

#[test]
fn rejects_bad_index_kind_and_row_count() {
    let vals = strs(&["x", "yz"]);
    let dict = Dict::build(&vals).unwrap();
    for (idx, n) in [(vec![0, 2], 2), (vec![0, 256], 2), (vec![0, 1], 3)] {
        let mut block = Vec::new();
        encode_u64s(&idx, &mut block);
        let mut out = Vec::new();
        encode(&dict, &block, &mut out);
        assert!(decode_all(&out, n).is_err(), "{idx:?} n={n}");
    }
    // A signed block (E5 kind I64) and a bool block are refused at the block's offset.
    for block in [&[0xE5, 0x07, 0x00, 0x00, 0x02][..], &[0xE3, 0x02, 0x01]] {
        let mut out = Vec::new();
        encode(&dict, block, &mut out);
        let err = decode_all(&out, 2).unwrap_err();
        assert_eq!(err.offset(), Some(7), "{block:02X?}: {err}");
    }
    // A non-QPack tag where the index belongs.
    let mut out = Vec::new();
    encode(&dict, &[0xC0], &mut out);
    assert!(matches!(
        decode_all(&out, 2).unwrap_err().code(),
        ErrorCode::BadTag { .. }
    ));
}

#[test]
fn hostile_bytes_never_panic() {
    let vals = runs();
    let dict = Dict::build(&vals).unwrap();
    let idx = index_block(&dict).unwrap();
    mutations_never_panic(&block_bytes(&StrBlock::DictQ(dict, idx)), vals.len());
}
