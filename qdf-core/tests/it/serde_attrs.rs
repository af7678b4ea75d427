//! serde attributes that buffer through `deserialize_any` (tagged, untagged, flatten) and
//! schema evolution (reordered, added, removed fields).

use std::collections::BTreeMap;

use crate::common::*;
use qdf_core::{Category, Options, Value};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
#[serde(tag = "type")]
enum Internal {
    Ping { id: u32, note: Option<Option<u8>> },
    Data(Payload),
    Empty,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Payload {
    bytes: Vec<u8>,
    unit: (),
    e: E,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
#[serde(tag = "t", content = "c")]
enum Adjacent {
    A(u8),
    B { x: String, y: Vec<E> },
    C,
    D(i64, bool),
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
#[serde(untagged)]
enum Untagged {
    Int(i64),
    Big(u64),
    Text(String),
    Pair(u8, String),
    Rec { a: bool, inner: E },
    Nothing(Option<()>),
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Flat {
    id: u32,
    #[serde(flatten)]
    inner: Inner,
    #[serde(flatten)]
    rest: BTreeMap<String, Value>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Inner {
    name: String,
    e: E,
}

#[test]
fn internally_tagged() {
    for v in [
        Internal::Ping {
            id: 300,
            note: Some(None),
        },
        Internal::Ping { id: 0, note: None },
        Internal::Data(Payload {
            bytes: vec![1, 2, 200],
            unit: (),
            e: E::C(-1, "x".into()),
        }),
        Internal::Empty,
    ] {
        round_trip(&v);
    }
}

#[test]
fn adjacently_tagged() {
    for v in [
        Adjacent::A(255),
        Adjacent::B {
            x: "b".into(),
            y: vec![E::A, E::N(Box::new(E::B(1)))],
        },
        Adjacent::C,
        Adjacent::D(-9, true),
    ] {
        round_trip(&v);
    }
}

#[test]
fn untagged() {
    for v in [
        Untagged::Int(-5),
        Untagged::Big(u64::MAX),
        Untagged::Text("t".into()),
        Untagged::Pair(1, "p".into()),
        Untagged::Rec {
            a: true,
            inner: E::D {
                x: Some(2),
                y: vec![3],
            },
        },
        Untagged::Nothing(Some(())),
    ] {
        round_trip(&v);
    }
}

#[test]
fn flatten_with_value_rest() {
    let v = Flat {
        id: 1,
        inner: Inner {
            name: "n".into(),
            e: E::O(Some(Some(3))),
        },
        rest: [
            ("z".to_string(), Value::U64(1)),
            (
                "extra".to_string(),
                Value::Array(vec![Value::Str("s".into()), Value::Nil]),
            ),
        ]
        .into(),
    };
    round_trip(&v);
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct V1 {
    a: u32,
    b: String,
    gone: Vec<E>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct V2 {
    b: String,
    a: u64,
    #[serde(default)]
    added: Vec<u8>,
    maybe: Option<u32>,
}

#[test]
fn schema_evolution() {
    let v1 = V1 {
        a: 7,
        b: "x".into(),
        gone: vec![E::A, E::N(Box::new(E::C(1, "q".into())))],
    };
    let bytes = qdf_core::to_vec_with(&v1, Options::speed()).unwrap();
    let v2: V2 = qdf_core::from_slice(&bytes).unwrap();
    assert_eq!(
        v2,
        V2 {
            b: "x".into(),
            a: 7,
            added: vec![],
            maybe: None
        }
    );
    let back = qdf_core::to_vec(&V2 {
        b: "y".into(),
        a: 9,
        added: vec![1],
        maybe: Some(2),
    })
    .unwrap();
    #[derive(Deserialize, Debug, PartialEq)]
    struct Old {
        a: u32,
        b: String,
    }
    assert_eq!(
        qdf_core::from_slice::<Old>(&back).unwrap(),
        Old {
            a: 9,
            b: "y".into()
        }
    );
}

#[test]
fn skip_serializing_if_fixes_length() {
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct S {
        #[serde(skip_serializing_if = "Option::is_none")]
        a: Option<u8>,
        b: u8,
    }
    let bytes = round_trip(&S { a: None, b: 1 });
    assert_eq!(&bytes[5..], [0xD5, 0x01, 0x81, b'b', 0x01]);
}

#[test]
fn narrowing_and_cross_sign() {
    let bytes = qdf_core::to_vec(&300u32).unwrap();
    let e = qdf_core::from_slice::<u8>(&bytes).unwrap_err();
    assert_eq!(e.classify(), Category::Data);
    assert_eq!(qdf_core::from_slice::<i64>(&bytes).unwrap(), 300);
    let neg = qdf_core::to_vec(&-1i64).unwrap();
    assert_eq!(
        qdf_core::from_slice::<u64>(&neg).unwrap_err().classify(),
        Category::Data
    );
    let big = qdf_core::to_vec(&u64::MAX).unwrap();
    assert_eq!(
        qdf_core::from_slice::<u128>(&big).unwrap(),
        u64::MAX as u128
    );
    assert_eq!(
        qdf_core::from_slice::<i64>(&big).unwrap_err().classify(),
        Category::Data
    );
    let exact = (1u64 << 53) + 1;
    assert_eq!(
        qdf_core::from_slice::<u64>(&qdf_core::to_vec(&exact).unwrap()).unwrap(),
        exact
    );
}

#[test]
fn strings_borrow_from_input() {
    #[derive(Serialize, Deserialize)]
    struct B<'a> {
        s: &'a str,
        #[serde(borrow, with = "serde_bytes")]
        b: &'a [u8],
    }
    let bytes = qdf_core::to_vec(&B {
        s: "borrowed text here",
        b: b"raw",
    })
    .unwrap();
    let back: B<'_> = qdf_core::from_slice(&bytes).unwrap();
    let range = bytes.as_ptr_range();
    assert!(range.contains(&back.s.as_ptr()));
    assert!(range.contains(&back.b.as_ptr()));
}

#[test]
fn enum_accepts_string_and_map_forms() {
    // A bare string is a unit variant; a 1-entry map is any variant.
    let s = qdf_core::to_vec(&"A").unwrap();
    assert_eq!(qdf_core::from_slice::<E>(&s).unwrap(), E::A);
    let m = qdf_core::to_vec(&BTreeMap::from([("B", 4u8)])).unwrap();
    assert_eq!(qdf_core::from_slice::<E>(&m).unwrap(), E::B(4));
    let t = qdf_core::to_vec(&BTreeMap::from([("C", (1, "c"))])).unwrap();
    assert_eq!(qdf_core::from_slice::<E>(&t).unwrap(), E::C(1, "c".into()));
}

#[test]
fn field_widened_to_option_reads_old_data() {
    #[derive(Serialize)]
    struct Old {
        e: E,
        u: (),
    }
    #[derive(Deserialize, Debug, PartialEq)]
    struct New {
        e: Option<E>,
        u: Option<()>,
    }
    let bytes = qdf_core::to_vec(&Old { e: E::A, u: () }).unwrap();
    // A bare unit is the one exception: it reads as `None` (other formats' `null` is a serde
    // unit, and serde's own `Option` visitor reads a unit as `None`; docs/SPEC.md §8).
    assert_eq!(
        qdf_core::from_slice::<New>(&bytes).unwrap(),
        New {
            e: Some(E::A),
            u: None
        }
    );
}
