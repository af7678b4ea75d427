//! Tagged columns on the encoder side (`docs/SPEC.md` §22.3, issue #20 stage 3): columns of
//! `Option<enum>` (unit and newtype variants) and of one-entry maps (the OTLP JSON mapping's
//! `AnyValue`) become tagged columns in Balanced and Compression; round trips are exact in
//! every tier at and around the 16-row threshold, the `Value` a container gives equals the
//! one its rows give, subset decode skips the column, and no container grows.

use crate::common::{TIERS, columns, round_trip_as_rows as check};
use qdf_core::inspect::ColumnValues;
use qdf_core::{Options, Value};
use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize, Serializer};

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
enum Kind {
    Idle,
    Walk(u16),
    Say(String),
    Hit(Option<u8>),
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Unit {
    id: u32,
    kind: Option<Kind>,
    mood: Kind,
}

fn units(n: usize) -> Vec<Unit> {
    (0..n)
        .map(|i| Unit {
            id: i as u32,
            kind: match i % 5 {
                0 => None,
                1 => Some(Kind::Idle),
                2 => Some(Kind::Walk(i as u16 * 3)),
                3 => Some(Kind::Say(format!("hello {}", i % 4))),
                _ => Some(Kind::Hit(if i % 2 == 0 { None } else { Some(i as u8) })),
            },
            mood: if i % 3 == 0 {
                Kind::Idle
            } else {
                Kind::Walk(7)
            },
        })
        .collect()
}

/// An attribute value as `opentelemetry-proto`'s serde mapping writes it: a map of one
/// entry named by its kind (integers as decimal strings); read back as an enum.
#[derive(Deserialize, Debug, PartialEq, Clone)]
enum AnyValue {
    #[serde(rename = "stringValue")]
    Str(String),
    #[serde(rename = "intValue")]
    Int(String),
    #[serde(rename = "boolValue")]
    Bool(bool),
    #[serde(rename = "doubleValue")]
    Double(f64),
    #[serde(rename = "arrayValue")]
    Array(Vec<AnyValue>),
}

impl Serialize for AnyValue {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        match self {
            AnyValue::Str(v) => m.serialize_entry("stringValue", v)?,
            AnyValue::Int(v) => m.serialize_entry("intValue", v)?,
            AnyValue::Bool(v) => m.serialize_entry("boolValue", v)?,
            AnyValue::Double(v) => m.serialize_entry("doubleValue", v)?,
            AnyValue::Array(v) => m.serialize_entry("arrayValue", v)?,
        }
        m.end()
    }
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct KeyValue {
    key: String,
    value: Option<AnyValue>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Span {
    name: String,
    attributes: Vec<KeyValue>,
}

fn attr(i: usize, k: usize) -> KeyValue {
    let value = match (i + k) % 6 {
        0 => Some(AnyValue::Str(["GET", "POST", "PUT"][i % 3].to_string())),
        1 => Some(AnyValue::Int((200 + i % 4 * 100).to_string())),
        2 => Some(AnyValue::Bool(i.is_multiple_of(2))),
        3 => Some(AnyValue::Double(i as f64 / 4.0)),
        4 => Some(AnyValue::Array(vec![AnyValue::Str(format!("x{i}"))])),
        _ => None,
    };
    KeyValue {
        key: format!("http.k{}", k % 4),
        value,
    }
}

fn spans(n: usize) -> Vec<Span> {
    (0..n)
        .map(|i| Span {
            name: format!("span {}", i % 3),
            attributes: (0..1 + i % 4).map(|k| attr(i, k)).collect(),
        })
        .collect()
}

/// The tagged columns a message holds: `(depth, name, map form)`.
fn tagged_columns(bytes: &[u8], opts: &Options) -> Vec<(u32, String, bool)> {
    columns(bytes, opts, |depth, name, values| match values {
        ColumnValues::Tagged { map, .. } => Some((depth, name.to_string(), *map)),
        _ => None,
    })
}

#[test]
fn enum_columns_round_trip_at_every_size() {
    for n in [1, 2, 15, 16, 17, 100] {
        let v = units(n);
        check(&v);
    }
    // From 16 rows both enum columns are tagged columns in Balanced and Compression.
    for tier in [Options::balanced, Options::compression] {
        let opts = tier();
        let bytes = qdf_core::to_vec_with(&units(100), opts).unwrap();
        assert_eq!(
            tagged_columns(&bytes, &opts),
            [
                (2, "kind".to_string(), false),
                (2, "mood".to_string(), false)
            ]
        );
    }
}

#[test]
fn one_entry_map_columns_round_trip_at_every_size() {
    for n in [1, 2, 15, 16, 17, 100] {
        check(&spans(n));
    }
    let opts = Options::balanced();
    let bytes = qdf_core::to_vec_with(&spans(100), opts).unwrap();
    let cols = tagged_columns(&bytes, &opts);
    // `value` of the attributes, and the array values' elements inside it.
    assert!(cols.contains(&(4, "value".to_string(), true)), "{cols:?}");
}

#[test]
fn tagged_columns_make_containers_smaller() {
    for n in [16, 17, 100] {
        let v = units(n);
        let opts = Options::balanced();
        let with = qdf_core::to_vec_with(&v, opts).unwrap().len();
        let without = qdf_core::to_vec_with(
            &v,
            opts.features(opts.features.without(qdf_core::Features::NESTED_COLUMNS)),
        )
        .unwrap()
        .len();
        assert!(with < without, "{n} rows: {with} vs {without}");
    }
}

#[test]
fn subset_decode_skips_tagged_columns() {
    #[derive(Deserialize, Debug, PartialEq)]
    struct Ids {
        id: u32,
    }
    #[derive(Deserialize, Debug, PartialEq)]
    struct Mood {
        mood: Kind,
    }
    for n in [2, 16, 100] {
        let v = units(n);
        for tier in TIERS {
            let bytes = qdf_core::to_vec_with(&v, tier()).unwrap();
            let ids: Vec<Ids> = qdf_core::from_slice(&bytes).unwrap();
            assert_eq!(ids, v.iter().map(|u| Ids { id: u.id }).collect::<Vec<_>>());
            let moods: Vec<Mood> = qdf_core::from_slice(&bytes).unwrap();
            let want: Vec<Mood> = v
                .iter()
                .map(|u| Mood {
                    mood: u.mood.clone(),
                })
                .collect();
            assert_eq!(moods, want);
        }
    }
}

/// A name used as a unit and as a newtype variant, mixed maps and variants, a map of two
/// entries: the column stays as it was, and the round trip is exact.
#[test]
fn columns_a_tag_cannot_hold_stay_residual() {
    #[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
    enum One {
        A,
    }
    #[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
    enum Two {
        A(u8),
    }
    #[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
    #[serde(untagged)]
    enum Either {
        One(One),
        Two(Two),
        Map(std::collections::BTreeMap<String, u8>),
    }
    #[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
    struct R {
        v: Either,
    }
    let same_name: Vec<R> = (0..20)
        .map(|i| R {
            v: if i % 2 == 0 {
                Either::One(One::A)
            } else {
                Either::Two(Two::A(i))
            },
        })
        .collect();
    let maps: Vec<R> = (0..20)
        .map(|i| {
            let mut m = std::collections::BTreeMap::new();
            m.insert("a".to_string(), i);
            if i % 3 == 0 {
                m.insert("b".to_string(), i);
            }
            R { v: Either::Map(m) }
        })
        .collect();
    for v in [&same_name, &maps] {
        let opts = Options::balanced();
        let bytes = qdf_core::to_vec_with(v, opts).unwrap();
        assert!(tagged_columns(&bytes, &opts).is_empty());
        let rows: Value =
            qdf_core::from_slice(&qdf_core::to_vec_with(v, Options::speed()).unwrap()).unwrap();
        assert_eq!(qdf_core::from_slice::<Value>(&bytes).unwrap(), rows);
    }
}

/// Enums mixing every variant kind, payloads of every serde type, and maps of 0-2 entries beside
/// one-entry maps, at the row/column threshold and above: what may take a tagged column and what
/// must stay residual round-trip alike in every tier.
mod mixed_variants {
    use super::check;
    use serde::{Deserialize, Serialize};
    use std::collections::BTreeMap;

    #[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
    enum Mix {
        U,
        #[serde(rename = "nt")]
        N(f32),
        S {
            a: i128,
            b: char,
        },
        T(u128, Vec<u8>),
        V(Vec<Option<i8>>),
        M(BTreeMap<String, u8>),
        E(Option<Box<Mix>>),
        #[serde(with = "serde_bytes")]
        B(Vec<u8>),
    }

    #[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
    struct Row {
        a: Option<Mix>,
        b: Option<Option<Mix>>,
        m: BTreeMap<String, Option<u16>>,
        k: BTreeMap<u8, String>,
        j: serde_json::Value,
    }

    fn rows(n: usize, sel: usize) -> Vec<Row> {
        (0..n)
            .map(|i| Row {
                a: match (i * 7 + sel) % 9 {
                    0 => None,
                    1 => Some(Mix::U),
                    2 => Some(Mix::N(f32::from_bits(1 + i as u32))),
                    3 => Some(Mix::S {
                        a: i128::MIN + i as i128,
                        b: '\u{10ffff}',
                    }),
                    4 => Some(Mix::T(u128::MAX - i as u128, vec![i as u8; i % 3])),
                    5 => Some(Mix::V(vec![None, Some(-1)])),
                    6 => Some(Mix::M(
                        (0..i % 3).map(|k| (k.to_string(), k as u8)).collect(),
                    )),
                    7 => Some(Mix::E(Some(Box::new(Mix::N(-0.0))))),
                    _ => Some(Mix::B(vec![0xde, 0xad])),
                },
                b: match i % 3 {
                    0 => None,
                    1 => Some(None),
                    _ => Some(Some(Mix::U)),
                },
                m: (0..(i + sel) % 3)
                    .map(|k| (format!("k{k}"), Some(k as u16)))
                    .collect(),
                k: [(i as u8, "x".into())].into_iter().collect(),
                j: if i % 2 == 0 {
                    serde_json::json!({"intValue": i.to_string()})
                } else {
                    serde_json::json!({"doubleValue": 1.5})
                },
            })
            .collect()
    }

    #[test]
    fn mixed_variant_kinds_and_payloads() {
        for n in [1, 15, 16, 17, 100, 1000] {
            for sel in 0..3 {
                check(&rows(n, sel));
            }
        }
    }

    #[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
    struct Only {
        a: Option<Mix>,
    }

    #[test]
    fn each_variant_once_among_nones() {
        for n in [16, 17, 100] {
            for sel in 0..9 {
                let v: Vec<Only> = rows(n, 0)
                    .into_iter()
                    .enumerate()
                    .map(|(i, r)| Only {
                        a: if i == sel { r.a } else { None },
                    })
                    .collect();
                check(&v);
                let v: Vec<Vec<Vec<Only>>> = vec![vec![v.clone(), vec![]], vec![v]];
                check(&v);
            }
        }
    }
}
