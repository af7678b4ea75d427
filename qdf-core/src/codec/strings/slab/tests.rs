use super::super::testutil::{decode_all, mutations_never_panic, strs};
use super::*;

#[test]
fn golden_slab() {
    let vals = strs(&["ab", "", "cde"]);
    let mut out = Vec::new();
    encode_slab(&vals, &mut out);
    assert_eq!(out, [0xF8, 3, 5, 2, b'a', b'b', 0, 3, b'c', b'd', b'e']);
    assert_eq!(slab_cost(&vals), out.len());
    assert_eq!(decode_all(&out, 3).unwrap(), [&b"ab"[..], b"", b"cde"]);
}

#[test]
fn golden_const() {
    let mut out = Vec::new();
    encode_const(b"INFO", 300, &mut out);
    assert_eq!(out, [0xF9, 4, b'I', b'N', b'F', b'O', 0xAC, 0x02]);
    assert_eq!(const_cost(b"INFO", 300), out.len());
    let col = decode_all(&out, 300).unwrap();
    assert!(col.iter().all(|v| v == b"INFO") && col.len() == 300);
}

#[test]
fn slab_total_must_match() {
    assert!(decode_all(&[0xF8, 2, 3, 1, b'a', 1, b'b'], 2).is_err());
    assert!(decode_all(&[0xF8, 2, 1, 1, b'a', 1, b'b'], 2).is_err());
}

#[test]
fn const_budget_charged() {
    let mut out = Vec::new();
    encode_const(&[b'x'; 100], 1 << 20, &mut out);
    let mut budget = 1 << 20;
    let err = super::super::decode_block(&out, 0, 1 << 20, &mut budget)
        .err()
        .unwrap();
    assert_eq!(
        err.code(),
        &ErrorCode::OutputLimit {
            needed: 100 << 20,
            limit: 1 << 20
        }
    );
}

#[test]
fn hostile_bytes_never_panic() {
    let vals = strs(&["alpha", "", "βeta", "gamma"]);
    let mut out = Vec::new();
    encode_slab(&vals, &mut out);
    mutations_never_panic(&out, vals.len());
    out.clear();
    encode_const(b"same", 9, &mut out);
    mutations_never_panic(&out, 9);
}
