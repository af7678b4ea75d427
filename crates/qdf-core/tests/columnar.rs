//! Columnar containers (`docs/SPEC.md` §Columnar containers): tags, equality with row mode,
//! subset decode, hostile input.

use qdf_core::{Options, Value};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Rec {
    id: u64,
    level: String,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    opt: Option<i32>,
    score: f64,
    ok: bool,
}

fn recs(n: usize) -> Vec<Rec> {
    (0..n)
        .map(|i| Rec {
            id: 1000 + i as u64,
            level: ["INFO", "WARN", "ERROR"][i % 3].to_string(),
            opt: (i % 4 == 0).then_some(-(i as i32)),
            score: i as f64 * 0.5,
            ok: i % 2 == 0,
        })
        .collect()
}

#[test]
fn smoke() {
    let v = recs(20);
    let b = qdf_core::to_vec(&v).unwrap();
    println!("{:02x?}", &b);
    assert!(b[5] == 0xEF || b[5] == 0xF7);
    let back: Vec<Rec> = qdf_core::from_slice(&b).unwrap();
    assert_eq!(back, v);
    let val: Value = qdf_core::from_slice(&b).unwrap();
    let row = qdf_core::to_vec_with(&v, Options::speed()).unwrap();
    let val2: Value = qdf_core::from_slice(&row).unwrap();
    assert_eq!(val, val2);
}
