use super::*;

#[test]
fn golden_msb_first_and_round_trip() {
    let mut out = Vec::new();
    let mut w = BitWriter::new(&mut out);
    w.put(0b1, 1);
    w.put(0b01, 2);
    w.put(0xABCD, 16);
    w.put(u64::MAX, 64);
    w.put(0, 0);
    assert_eq!(w.finish(), 83);
    assert_eq!(out.len(), 11);
    // 1 01 then 0xABCD: 101 1010 1011 1100 1101 ...
    assert_eq!(&out[..2], &[0b1011_0101, 0b0111_1001]);
    let mut r = BitReader::new(&out, 83);
    assert_eq!(r.bit(), Some(true));
    assert_eq!(r.get(2), Some(1));
    assert_eq!(r.get(16), Some(0xABCD));
    assert_eq!(r.get(64), Some(u64::MAX));
    assert_eq!(r.pos(), 83);
    assert_eq!(r.get(1), None);
    let mut c = BitCount::default();
    c.put(5, 3);
    c.put(0, 64);
    assert_eq!(c.0, 67);
}
