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

/// `plan_below` gives `plan`'s bytes when they are under the bound and nothing at or above
/// it, also when it stops early: many chunks of values whose width (or exceptions) rule ALP
/// out before the last chunk.
#[test]
fn plan_below_agrees_with_plan() {
    let bytes = |p: &Plan| {
        let mut out = Vec::new();
        p.encode(0x0A, &mut out);
        out
    };
    // Decimal values: a narrow plan, far under the raw size.
    let dec: Vec<f32> = (0..10_000).map(|i| (i % 1000) as f32 / 100.0).collect();
    let full = plan(&dec);
    let cost = full.cost();
    assert!(cost < 4 * dec.len(), "ALP wins on decimals: {cost}");
    assert_eq!(bytes(&plan_below(&dec, cost + 1).unwrap()), bytes(&full));
    assert!(plan_below(&dec, cost).is_none());
    // Values of every bit pattern: ALP costs more than raw, and stops before the end.
    let mut x = 0x9E37_79B9u32;
    let noisy: Vec<f32> = (0..20_000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            f32::from_bits(x & 0x3FFF_FFFF)
        })
        .collect();
    let full = plan(&noisy);
    assert!(full.cost() >= 4 * noisy.len(), "{}", full.cost());
    assert!(plan_below(&noisy, 4 * noisy.len()).is_none());
    assert_eq!(
        bytes(&plan_below(&noisy, full.cost() + 1).unwrap()),
        bytes(&full)
    );
}
