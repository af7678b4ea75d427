use super::*;

#[test]
fn reads_and_offsets() {
    let buf = [0xAA, 0x05, 0x80, 0x01, 0x03, 1, 2];
    let mut c = Cursor::new(&buf, 1);
    assert_eq!(c.uvarint("n").unwrap(), 5);
    assert_eq!(c.uvarint("n").unwrap(), 128);
    assert_eq!(c.scalar(true, "v").unwrap(), (-2i64) as u64);
    assert_eq!(c.take(2, "body").unwrap(), &[1, 2]);
    let e = c.byte("kind").unwrap_err();
    assert!(e.is_eof());
    assert_eq!(e.offset(), Some(7));
    let mut c = Cursor::new(&[0x80, 0x00], 0);
    assert_eq!(c.uvarint("n").unwrap_err().offset(), Some(0));
}

#[test]
fn counts_are_checked_before_allocation() {
    let buf = [0x10, 0, 0];
    let mut c = Cursor::new(&buf, 0);
    // 16 elements of 1 bit need 2 bytes: fits.
    assert_eq!(c.count(1, "n").unwrap(), 16);
    let mut c = Cursor::new(&buf, 0);
    let e = c.count(8, "n").unwrap_err();
    assert_eq!(
        e.code(),
        &ErrorCode::LengthOverrun {
            len: 16,
            remaining: 2
        }
    );
    let big = [0x81, 0x80, 0x80, 0x08];
    let e = Cursor::new(&big, 0).count(0, "n").unwrap_err();
    assert_eq!(
        e.code(),
        &ErrorCode::BadCodec("constant body longer than 2^24 elements")
    );
    // Each element costs ELEMENT_CHARGE (8) bytes of budget.
    let mut b = 80;
    let c = Cursor::with_base(&buf, 100);
    assert!(c.charge(&mut b, 8, 0).is_ok());
    assert_eq!(b, 16);
    let e = c.charge(&mut b, 3, 1).unwrap_err();
    assert_eq!(
        e.code(),
        &ErrorCode::OutputLimit {
            needed: 24,
            limit: 16
        }
    );
    assert_eq!(e.offset(), Some(101));
}
