#[test]
fn utf8_fast_path_agrees_with_std() {
    let cases: [&[u8]; 7] = [
        b"",
        b"plain ascii",
        b"\x7f",
        "h\u{e9}llo".as_bytes(),
        b"\xff",
        b"ab\xc3",
        b"\x80",
    ];
    for c in cases {
        assert_eq!(super::utf8(c).ok(), std::str::from_utf8(c).ok(), "{c:?}");
    }
}

/// Every length through the overlapping-word branches and past them, with one high byte
/// at every position (and none): the word loads must cover every byte.
#[test]
fn short_ascii_test_sees_every_byte() {
    for n in 0..=40usize {
        let plain = vec![b'a'; n];
        assert!(super::is_ascii(&plain), "len {n}");
        for at in 0..n {
            for high in [0x80u8, 0xC3, 0xFF] {
                let mut b = plain.clone();
                b[at] = high;
                assert!(!super::is_ascii(&b), "len {n}, {high:#x} at {at}");
            }
        }
    }
}
