//! Round trips over the whole serde data model, typed and through `Value`, in every tier.

use crate::common::*;
use qdf_core::Value;

#[test]
fn everything_round_trips() {
    round_trip(&sample());
}

#[test]
fn options_are_all_distinct() {
    let vals: Vec<Option<Option<()>>> = vec![None, Some(None), Some(Some(()))];
    let mut seen = Vec::new();
    for v in &vals {
        let b = round_trip(v);
        assert!(!seen.contains(&b));
        seen.push(b);
    }
    let unit_vs_none = [
        qdf_core::to_vec(&()).unwrap(),
        qdf_core::to_vec(&None::<u8>).unwrap(),
    ];
    assert_ne!(unit_vs_none[0], unit_vs_none[1]);
}

#[test]
fn value_display_of_sample() {
    let bytes = qdf_core::to_vec(&E::D {
        x: Some(1),
        y: vec![2],
    })
    .unwrap();
    let v: Value = qdf_core::from_slice(&bytes).unwrap();
    assert_eq!(v.to_string(), r#"D {"x": 1, "y": [2]}"#);
}
