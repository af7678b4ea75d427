use super::*;
use crate::codec::{Packed, decode_one};

#[test]
fn golden_small() {
    let p = analyze(&[1.5f64, 2.25], 2);
    let mut out = Vec::new();
    p.encode(0x0B, &mut out);
    // I = 150, 225: forMin zigzag(150) = 300 = AC 02, width 7, packed 0 | 75 << 7.
    assert_eq!(
        out,
        [0xF4, 0x0B, 0x02, 0x02, 0xAC, 0x02, 0x07, 0x80, 0x25, 0x00]
    );
    assert_eq!(p.cost(), out.len());
}

#[test]
fn specials_are_exceptions() {
    let vals = [1.5f64, -0.0, f64::NAN, f64::INFINITY, 2.5];
    let p = analyze(&vals, 1);
    assert_eq!(p.exceptions.len(), 3);
    let mut out = Vec::new();
    p.encode(0x0B, &mut out);
    match decode_one(&out).unwrap() {
        Packed::F64s(v) => {
            assert_eq!(
                v.iter().map(|f| f.to_bits()).collect::<Vec<_>>(),
                vals.iter().map(|f| f.to_bits()).collect::<Vec<_>>()
            );
        }
        other => panic!("expected f64s, got {other:?}"),
    }
}
