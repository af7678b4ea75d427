//! Struct and list columns (`docs/SPEC.md` §22.2): golden bytes, and hostile containers that
//! must give typed errors with memory bounded by the input.

use qdf_core::{Category, Options, Value};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct P {
    x: u8,
    y: u8,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Pt {
    p: P,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct L {
    v: Vec<u16>,
}

fn hex(b: &[u8]) -> String {
    b.iter()
        .map(|x| format!("{x:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn pts() -> Vec<Pt> {
    (0..16u8)
        .map(|i| Pt {
            p: P { x: i, y: 2 },
        })
        .collect()
}

fn lists() -> Vec<L> {
    (0..16u16)
        .map(|i| L {
            v: (0..i % 3).map(|j| j * 7 + i).collect(),
        })
        .collect()
}

/// The body of a Balanced message (after its header).
fn body<T: Serialize>(v: &T) -> Vec<u8> {
    let b = qdf_core::to_vec_with(v, Options::balanced()).unwrap();
    b[5..].to_vec()
}

#[test]
fn golden_struct_and_list_columns() {
    let b = body(&pts());
    assert_eq!(
        hex(&b),
        "ef 10 00 01 81 70 05 02 81 78 01 81 79 01 e6 03 00 00 02 10 e5 03 00 02 10"
    );
    let back: Vec<Pt> = qdf_core::from_slice_with(
        &qdf_core::to_vec_with(&pts(), Options::balanced()).unwrap(),
        Options::balanced(),
    )
    .unwrap();
    assert_eq!(back, pts());
    let b = body(&lists());
    assert_eq!(
        hex(&b),
        "ef 10 00 01 81 76 07 01 e5 03 02 00 10 24 49 92 24 e6 03 04 01 09 0f c6 60 0c c6 60 0c c6"
    );
    let full = qdf_core::to_vec_with(&lists(), Options::balanced()).unwrap();
    let back: Vec<L> = qdf_core::from_slice(&full).unwrap();
    assert_eq!(back, lists());
}

/// A message of `body` after a Balanced header.
fn msg(body: &[u8]) -> Vec<u8> {
    let mut m = b"QDF\x01\x00".to_vec();
    m.extend_from_slice(body);
    m
}

#[test]
fn lengths_past_the_element_column_are_typed_errors() {
    // 16 lists of one element each, but 15 elements.
    let mut b = vec![0xef, 0x10, 0x00, 0x01, 0x81, 0x76, 0x07, 0x01, 0xb0];
    b.extend([0x01; 16]);
    b.push(0xaf);
    b.extend([0x05; 15]);
    let e = qdf_core::from_slice::<Value>(&msg(&b)).unwrap_err();
    assert_eq!(e.classify(), Category::Syntax, "{e}");
}

#[test]
fn huge_lengths_are_charged_before_allocation() {
    // 16 lists each claiming 2^40 elements: the sum is charged to the output limit before
    // the element column (a few bytes) is read.
    let mut b = vec![0xef, 0x10, 0x00, 0x01, 0x81, 0x76, 0x07, 0x01, 0xb0];
    for _ in 0..16 {
        b.extend([0xc6, 0, 0, 0, 0, 1, 0, 0, 0]);
    }
    b.extend([0xa0]);
    let e = qdf_core::from_slice::<Value>(&msg(&b)).unwrap_err();
    assert!(e.classify() == Category::Limit, "{e}");
}

#[test]
fn declarations_nested_past_the_depth_limit_are_typed_errors() {
    // A list of lists of lists ... 10 000 levels deep, declared in 10 000 kind bytes.
    let mut b = vec![0xef, 0x10, 0x00, 0x01, 0x81, 0x76];
    b.extend(std::iter::repeat_n(0x07, 10_000));
    b.push(0x01);
    let e = qdf_core::from_slice::<Value>(&msg(&b)).unwrap_err();
    assert_eq!(e.classify(), Category::Limit, "{e}");
}

#[test]
fn without_the_feature_nested_fields_stay_in_the_rows() {
    let flat = Options::balanced()
        .features(qdf_core::Features::BALANCED - qdf_core::Features::NESTED_COLUMNS);
    let b = qdf_core::to_vec_with(&pts(), flat).unwrap();
    // No column of the declaration is a struct column.
    assert!(!b.windows(2).any(|w| w == [0x70, 0x05]));
    let back: Vec<Pt> = qdf_core::from_slice(&b).unwrap();
    assert_eq!(back, pts());
}
