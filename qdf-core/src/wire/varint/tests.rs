use super::*;

#[test]
fn golden_uvarints() {
    for (v, bytes) in [
        (0u64, &[0x00][..]),
        (127, &[0x7F]),
        (128, &[0x80, 0x01]),
        (300, &[0xAC, 0x02]),
        (
            u64::MAX,
            &[0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01],
        ),
    ] {
        let mut out = Vec::new();
        write_uvarint(&mut out, v);
        assert_eq!(out, bytes);
        assert_eq!(uvarint_len(v), bytes.len());
        assert_eq!(read_uvarint(bytes).unwrap(), (v, bytes.len()));
    }
}

#[test]
fn strict_decoding() {
    assert_eq!(
        read_uvarint(&[0x80, 0x00]).unwrap_err().code(),
        &ErrorCode::NonMinimal("a uvarint")
    );
    assert!(read_uvarint(&[0x80]).unwrap_err().is_eof());
    assert!(read_uvarint(&[]).unwrap_err().is_eof());
    let over = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02];
    assert_eq!(
        read_uvarint(&over).unwrap_err().code(),
        &ErrorCode::VarintOverflow
    );
}

#[test]
fn zigzag_round_trip() {
    for v in [0i64, -1, 1, -64, 63, i64::MIN, i64::MAX] {
        assert_eq!(unzigzag(zigzag(v)), v);
    }
    assert_eq!(zigzag(-1), 1);
    assert_eq!(zigzag(1), 2);
}
