use super::testutil::decode_all;
use super::*;

#[test]
fn rejects_non_block_tags() {
    let err = decode_all(&[0xC0], 1).unwrap_err();
    assert!(matches!(err.code(), ErrorCode::BadTag { found: 0xC0, .. }));
    assert!(decode_all(&[], 1).unwrap_err().is_eof());
    assert!(is_block_tag(0xF5) && !is_block_tag(0xF7) && !is_block_tag(0xFD));
}

#[test]
fn row_count_must_match_the_column() {
    let slab = [0xF8, 2, 2, 1, b'a', 1, b'b'];
    assert_eq!(decode_all(&slab, 2).unwrap(), [b"a", b"b"]);
    let err = decode_all(&slab, 3).unwrap_err();
    assert_eq!(
        err.code(),
        &ErrorCode::BadCodec("string block row count differs from the column's row count")
    );
    assert_eq!(err.offset(), Some(1));
}

#[test]
fn offsets_are_absolute_in_the_input() {
    let input = [0xAA, 0xBB, 0xF9, 5, b'a'];
    let mut budget = 1 << 20;
    let err = decode_block(&input, 2, 1, &mut budget).err().unwrap();
    assert_eq!(
        err.code(),
        &ErrorCode::LengthOverrun {
            len: 5,
            remaining: 1
        }
    );
    assert_eq!(err.offset(), Some(3));
}

/// Rows come out as `str` only after `check_utf8` passed, borrowed where the block keeps
/// them in the input (F8) and from the arena where it rebuilds them (FA).
#[test]
fn text_is_handed_out_only_after_the_utf8_check() {
    let slab = [0xF8, 2, 5, 2, 0xC3, 0xA9, 3, b'a', 0xE2, 0x82];
    let mut budget = 1 << 20;
    let (mut col, _) = decode_block(&slab, 0, 2, &mut budget).unwrap();
    assert_eq!((col.text(0), col.borrowed_text(0)), (None, None));
    col.check_utf8().unwrap_err();
    assert_eq!((col.text(0), col.borrowed_text(1)), (None, None));

    let slab = [0xF8, 2, 6, 2, 0xC3, 0xA9, 4, b'a', 0xE2, 0x82, 0xAC];
    let (mut col, _) = decode_block(&slab, 0, 2, &mut budget).unwrap();
    col.check_utf8().unwrap();
    assert_eq!(col.borrowed_text(0), Some("é"));
    assert_eq!(col.text(1), Some("a€"));
    assert_eq!(col.text(2), None);
    let rows = col.into_checked().unwrap();
    assert_eq!((rows.row(1), rows.row(2)), (Some(Ok("a€")), None));

    // FA: entries "ab" and "a€" (prefix 1), rows [1, 0]; rebuilt into an arena.
    let front = [0xFA, 2, 0, 2, b'a', b'b', 1, 3, 0xE2, 0x82, 0xAC, 2, 0b01];
    let (mut col, _) = decode_block(&front, 0, 2, &mut budget).unwrap();
    col.check_utf8().unwrap();
    assert_eq!(col.borrowed_text(0), None);
    assert_eq!((col.text(0), col.text(1)), (Some("a€"), Some("ab")));
    let rows = col.into_checked().unwrap();
    assert_eq!(
        (rows.row(0), rows.row(1)),
        (Some(Err("a€")), Some(Err("ab")))
    );
}

/// A rebuilt ASCII store is checked in one pass; a store with other bytes row by row, so
/// a lone lead byte still fails and a multibyte alphabet still passes.
#[test]
fn utf8_check_of_rebuilt_alphabet_rows() {
    let mut budget = 1 << 20;
    // FB, alphabet "0a", 3 fixed rows of 2, codes LSB first 0 1, 1 0, 1 1.
    let ascii = [0xFB, 2, b'0', b'a', 3, 1, 2, 0b11_0110];
    let (mut col, _) = decode_block(&ascii, 0, 3, &mut budget).unwrap();
    col.check_utf8().unwrap();
    assert_eq!(
        (col.text(0), col.text(1), col.text(2)),
        (Some("0a"), Some("a0"), Some("aa"))
    );
    // Alphabet [C3, A9], rows "é" (C3 A9) and "\xA9\xC3": the second is not UTF-8.
    let bad = [0xFB, 2, 0xC3, 0xA9, 2, 1, 2, 0b0110];
    let (mut col, _) = decode_block(&bad, 0, 2, &mut budget).unwrap();
    col.check_utf8().unwrap_err();
    assert_eq!(col.text(0), None);
    // The same alphabet, rows "é" "é": valid.
    let good = [0xFB, 2, 0xC3, 0xA9, 2, 1, 2, 0b1010];
    let (mut col, _) = decode_block(&good, 0, 2, &mut budget).unwrap();
    col.check_utf8().unwrap();
    assert_eq!((col.text(0), col.text(1)), (Some("é"), Some("é")));
}

/// Each block expanding a little input into much output hits the budget first.
#[test]
fn output_budget_is_charged_before_allocating() {
    let big = vec![b'x'; 1000];
    let mut dict_block = vec![0xF5, 2, 0xE8, 0x07];
    dict_block.extend_from_slice(&big);
    dict_block.extend_from_slice(&[0, 0xE8, 0x07]);
    dict_block.extend_from_slice(&[0; 125]);
    let mut fsst_block = vec![0xF6, 1, 8];
    fsst_block.extend_from_slice(&[b'y'; 8]);
    fsst_block.extend_from_slice(&[1, 0xC0, 0x3E, 0xE8, 0x07]);
    fsst_block.extend_from_slice(&[0; 1000]);
    // The error holds the charge and the budget that remained (the deserializer
    // restates both for the whole message).
    for (block, n, needed) in [(dict_block, 1000, 1_000_000), (fsst_block, 1, 8000)] {
        let mut budget = 5000;
        let err = decode_block(&block, 0, n, &mut budget).err().unwrap();
        assert_eq!(
            err.code(),
            &ErrorCode::OutputLimit {
                needed,
                limit: 5000
            },
            "tag {:02X}",
            block[0]
        );
        let mut budget = 1 << 24;
        let (col, used) = decode_block(&block, 0, n, &mut budget).unwrap();
        assert_eq!((col.len(), used), (n, block.len()));
    }
}
