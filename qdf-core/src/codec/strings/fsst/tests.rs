use super::super::StrBlock;
use super::super::testutil::{block_bytes, decode_all, mutations_never_panic, strs};
use super::*;

fn fsst_bytes(vals: &[&[u8]]) -> Vec<u8> {
    block_bytes(&StrBlock::Fsst(FsstPlan::train(vals)))
}

#[test]
fn golden_decode() {
    // Symbols "ab" (code 0) and "c" (code 1); row 2 escapes 'x'.
    #[rustfmt::skip]
    let block = [
        0xF6, 2, 2, b'a', b'b', 1, b'c',
        2, 6,
        2, 0, 1,
        3, 255, b'x', 0,
    ];
    assert_eq!(decode_all(&block, 2).unwrap(), [b"abc", b"xab"]);
}

#[test]
fn round_trips_and_compresses_text() {
    let owned: Vec<String> = (0..200)
        .map(|i| format!("GET /api/v1/users/{i}/profile HTTP/1.1 status=200"))
        .collect();
    let vals: Vec<&[u8]> = owned.iter().map(|s| s.as_bytes()).collect();
    let out = fsst_bytes(&vals);
    assert_eq!(decode_all(&out, vals.len()).unwrap(), vals);
    let raw: usize = vals.iter().map(|v| v.len() + 1).sum();
    assert!(out.len() * 3 < raw, "{} vs raw {raw}", out.len());
}

#[test]
fn escapes_binary_and_empty() {
    let vals: Vec<&[u8]> = vec![b"", &[255, 0, 255], b"\xff\xfe", b"", &[7; 40]];
    let out = fsst_bytes(&vals);
    assert_eq!(decode_all(&out, vals.len()).unwrap(), vals);
}

#[test]
fn rejects_bad_tables_and_codes() {
    // Symbol length 0 and 9.
    assert!(decode_all(&[0xF6, 1, 0, 1, 0, 0], 1).is_err());
    let mut nine = vec![0xF6, 1, 9];
    nine.extend_from_slice(&[b'a'; 9]);
    nine.extend_from_slice(&[1, 9, 1, 0]);
    let err = decode_all(&nine, 1).unwrap_err();
    assert_eq!(
        err.code(),
        &ErrorCode::BadCodec("FSST symbol length outside 1..=8")
    );
    assert_eq!(err.offset(), Some(2));
    // 256 symbols.
    let mut many = vec![0xF6, 0x80, 0x02];
    for _ in 0..256 {
        many.extend_from_slice(&[1, b'a']);
    }
    many.extend_from_slice(&[1, 1, 1, 0]);
    assert!(decode_all(&many, 1).is_err());
    // Code 1 with one symbol; escape at the end of a row.
    assert!(decode_all(&[0xF6, 1, 1, b'a', 1, 1, 1, 1], 1).is_err());
    assert!(decode_all(&[0xF6, 1, 1, b'a', 1, 1, 1, 255], 1).is_err());
    // Announced total larger or smaller than the rows.
    assert!(decode_all(&[0xF6, 1, 1, b'a', 1, 2, 1, 0], 1).is_err());
    assert!(decode_all(&[0xF6, 1, 2, b'a', b'b', 1, 1, 1, 0], 1).is_err());
}

#[test]
fn expansion_over_eight_times_rejected() {
    // Two code bytes cannot announce 17 decoded bytes.
    let block = [
        0xF6, 1, 8, b'a', b'a', b'a', b'a', b'a', b'a', b'a', b'a', 1, 17, 1, 0,
    ];
    let err = decode_all(&block, 1).unwrap_err();
    assert_eq!(
        (err.code(), err.offset()),
        (
            &ErrorCode::LengthOverrun {
                len: 17,
                remaining: 2
            },
            Some(12)
        )
    );
}

#[test]
fn hostile_bytes_never_panic() {
    let vals = strs(&[
        "connection reset by peer",
        "connection refused",
        "timeout after 30s",
        "connection reset by peer",
    ]);
    mutations_never_panic(&fsst_bytes(&vals), vals.len());
}
