use super::*;

#[test]
fn kind_bytes_round_trip() {
    let all = [
        Kind::U8,
        Kind::U16,
        Kind::U32,
        Kind::U64,
        Kind::I8,
        Kind::I16,
        Kind::I32,
        Kind::I64,
        Kind::F32,
        Kind::F64,
    ];
    for k in all {
        assert_eq!(Kind::from_byte(k.byte()), Some(k));
    }
    for b in [0x08, 0x09, 0x0C, 0x0D, 0x0E, 0x0F, 0x10, 0xFF] {
        assert_eq!(Kind::from_byte(b), None);
    }
    assert_eq!(Kind::I32.width(), 4);
    assert!(Kind::I8.is_signed() && !Kind::U64.is_signed() && !Kind::F64.is_signed());
    assert!(Kind::F32.is_float() && !Kind::I64.is_float());
    assert_eq!(Kind::U16.widened(), Kind::U64);
    assert_eq!(Kind::I8.widened(), Kind::I64);
}
