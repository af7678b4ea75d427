use super::*;

#[test]
fn header_round_trip_and_errors() {
    assert_eq!(header(FLAG_DENSE), [0x51, 0x44, 0x46, 0x01, 0x01]);
    assert_eq!(read_header(&header(0x03)).unwrap(), 0x03);
    assert_eq!(read_header(&header(0x13)).unwrap(), 0x13);
    for n in 0..5 {
        assert!(read_header(&header(0)[..n]).unwrap_err().is_eof());
    }
    assert_eq!(read_header(b"QDX\x01\x00").unwrap_err().offset(), Some(2));
    assert_eq!(
        read_header(b"QDF\x02\x00").unwrap_err().code(),
        &ErrorCode::BadVersion(2)
    );
    assert_eq!(
        read_header(b"QDF\x01\x40").unwrap_err().code(),
        &ErrorCode::BadFlags(0x40)
    );
    // Flag 40 (slot texts) needs the Dense flag; bit 7 stays reserved.
    assert_eq!(read_header(&header(0x43)).unwrap(), 0x43);
    assert_eq!(
        read_header(b"QDF\x01\x83").unwrap_err().code(),
        &ErrorCode::BadFlags(0x83)
    );
}
