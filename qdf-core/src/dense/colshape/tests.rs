use super::*;

#[test]
fn define_find_and_roll_back() {
    let mut t = ColShapes::default();
    let a: &[(&[u8], u8)] = &[(b"id", 1), (b"msg", 0x44)];
    assert_eq!(t.define(a, 10, 1000, true).unwrap(), 1);
    assert_eq!(t.find(&encode_key(a)), Some(1));
    assert_eq!(t.column(1, 1), Some((&b"msg"[..], 0x44)));
    assert_eq!(t.columns(1), Some(2));
    assert_eq!(t.charged(), 2 + 1 + 3 + 1 + 8);
    let m = t.mark();
    let b: &[(&[u8], u8)] = &[(b"x", 2)];
    assert_eq!(t.define(b, 10, 1000, true).unwrap(), 2);
    t.rollback(&m);
    assert_eq!((t.len(), t.find(&encode_key(b))), (1, None));
    assert!(t.define(b, 1, 1000, true).is_err(), "shape cap");
}
