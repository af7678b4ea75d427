//! Trying to break map columns (`docs/SPEC.md` §22.2, kind class 9) from the public API, as
//! an outside user would (h-break9). Every value must come back exactly in Speed, Balanced,
//! Compression and Balanced with the column index, as `T`, as `Value` (equal to the `Value`
//! of the Speed tier's row form), as `serde_json::Value` (the same outcome as row mode) and
//! skipped; the `inspect` walker must agree with the decoder on every message, truncation and
//! corruption.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Debug;

use qdf_core::inspect::{self, ColumnValues, EventKind};
use qdf_core::{Category, DecoderSession, Dictionary, EncoderSession, ErrorCode, Options, Value};
use serde::de::{DeserializeOwned, IgnoredAny};
use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize, Serializer};
use serde_bytes::ByteBuf;

use crate::common::{E, F64b, Ordered, mutate, tiers, xorshift};
use crate::inspect::{agree, agree_mutated, dictionary_disagreement};
use crate::output_limit::measure_is_exact;

/// One row: an id and the value under test.
#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Row<M> {
    id: u32,
    m: M,
}

fn rows<M>(n: usize, mut f: impl FnMut(usize) -> M) -> Vec<Row<M>> {
    (0..n)
        .map(|i| Row {
            id: i as u32,
            m: f(i),
        })
        .collect()
}

/// The entry counts of the map columns of `bytes`, nested ones too, in walk order.
fn map_columns(bytes: &[u8], opts: &Options) -> Vec<u64> {
    let mut out = Vec::new();
    inspect::message(bytes, opts, &mut |e| {
        if let EventKind::Column {
            values: ColumnValues::Map { entries, .. } | ColumnValues::KeySets { entries, .. },
            ..
        } = &e.kind
        {
            out.push(*entries);
        }
    })
    .unwrap();
    out
}

/// `v` round-trips exactly in every tier (with the column index too) as `T`; its `Value` is
/// the Speed tier's row-mode `Value` (and re-encodes to it), `serde_json::Value` has row
/// mode's outcome, `IgnoredAny` reads it, and the walker agrees. Returns the Balanced bytes.
fn exact<T: Serialize + DeserializeOwned + PartialEq + Debug>(v: &T, what: &str) -> Vec<u8> {
    let speed = qdf_core::to_vec_with(v, Options::speed()).unwrap();
    let row_value: Value = qdf_core::from_slice(&speed).unwrap();
    let row_json = qdf_core::from_slice::<serde_json::Value>(&speed).ok();
    let mut balanced = None;
    for (tier, opts) in tiers() {
        let b =
            qdf_core::to_vec_with(v, opts).unwrap_or_else(|e| panic!("{what} {tier}: encode: {e}"));
        let back: T =
            qdf_core::from_slice_with(&b, opts).unwrap_or_else(|e| panic!("{what} {tier}: {e}"));
        assert_eq!(&back, v, "{what} {tier}");
        let val: Value = qdf_core::from_slice_with(&b, opts)
            .unwrap_or_else(|e| panic!("{what} {tier}: Value: {e}"));
        assert!(
            val == row_value,
            "{what} {tier}: Value {val} vs {row_value}"
        );
        let again = qdf_core::to_vec_with(&val, opts).unwrap();
        let val2: Value = qdf_core::from_slice_with(&again, opts).unwrap();
        assert!(val2 == row_value, "{what} {tier}: Value re-encoded");
        let json = qdf_core::from_slice_with::<serde_json::Value>(&b, opts).ok();
        assert_eq!(json, row_json, "{what} {tier}: serde_json");
        qdf_core::from_slice_with::<IgnoredAny>(&b, opts)
            .unwrap_or_else(|e| panic!("{what} {tier}: IgnoredAny: {e}"));
        agree(&b, &opts, what);
        if tier == "balanced" {
            balanced = Some(b);
        }
    }
    balanced.unwrap()
}

/// [`exact`], and the Balanced bytes hold map columns of exactly `entries` entries.
fn exact_maps<T: Serialize + DeserializeOwned + PartialEq + Debug>(
    v: &T,
    what: &str,
    entries: &[u64],
) -> Vec<u8> {
    let b = exact(v, what);
    assert_eq!(map_columns(&b, &Options::balanced()), entries, "{what}");
    b
}

/// Whether `a` and `b` are both `Ok` with equal values or both errors.
fn same_outcome<T: PartialEq + Debug>(a: &qdf_core::Result<T>, b: &qdf_core::Result<T>) -> bool {
    match (a, b) {
        (Ok(x), Ok(y)) => x == y,
        (Err(_), Err(_)) => true,
        _ => false,
    }
}

/// Decodes the Speed bytes and the bytes of every other tier of `v` as `U` under `decode`
/// (the tier's options changed by `tweak`): the same outcome; returns the row-mode result.
fn as_row_mode<T: Serialize, U: DeserializeOwned + PartialEq + Debug>(
    v: &T,
    tweak: impl Fn(Options) -> Options,
    what: &str,
) -> qdf_core::Result<U> {
    let speed = qdf_core::to_vec_with(v, Options::speed()).unwrap();
    let row = qdf_core::from_slice_with::<U>(&speed, tweak(Options::speed()));
    for (tier, opts) in tiers() {
        let b = qdf_core::to_vec_with(v, opts).unwrap();
        let got = qdf_core::from_slice_with::<U>(&b, tweak(opts));
        assert!(
            same_outcome(&got, &row),
            "{what} {tier}: {got:?}, row mode {row:?}"
        );
    }
    row
}

fn hashmap(i: usize, n: usize) -> HashMap<String, u64> {
    (0..n)
        .map(|k| (format!("key-{k}"), (i * 31 + k) as u64))
        .collect()
}

#[test]
fn hashmaps_keep_their_own_iteration_order() {
    // Each HashMap has its own random state, so rows list the same keys in different orders.
    for n in [15, 16, 17, 100] {
        let v = rows(n, |i| hashmap(i, 5));
        exact_maps(&v, "HashMap<String, u64>", &[5 * n as u64]);
        let v = rows(n, |i| -> HashMap<u32, String> {
            (0..i % 7)
                .map(|k| (k as u32 * 1000, format!("v{i}")))
                .collect()
        });
        exact(&v, "HashMap<u32, String>");
    }
}

/// Map keys of the kind `K`, one map of `keys` a row (rotated by the row index), in 20 rows.
fn keyed<K: Clone>(keys: &[K]) -> Vec<Row<Ordered<K, u8>>> {
    rows(20, |i| {
        let mut ks = keys.to_vec();
        ks.rotate_left(i % keys.len());
        Ordered(
            ks.into_iter()
                .enumerate()
                .map(|(j, k)| (k, j as u8))
                .collect(),
        )
    })
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Key {
    a: u8,
    b: String,
}

#[test]
fn keys_of_every_kind() {
    exact(&keyed(&[-1i64, 0, 300, i64::MIN, i64::MAX]), "i64 keys");
    exact(&keyed(&[0u128, u128::MAX, 1 << 70]), "u128 keys");
    exact(&keyed(&[i128::MIN, -1, 5]), "i128 keys");
    exact(&keyed(&[true, false]), "bool keys");
    exact(&keyed(&['a', '€', '\u{10FFFF}']), "char keys");
    exact(
        &keyed(&[F64b(-0.0), F64b(f64::NAN), F64b(1.5), F64b(0.0)]),
        "f64 keys",
    );
    exact(
        &keyed(&[(1u8, "x".to_string()), (2, String::new()), (1, "y".into())]),
        "tuple keys",
    );
    exact(
        &keyed(&[E::A, E::B(1), E::C(-1, "c".into()), E::O(Some(None))]),
        "enum keys",
    );
    exact(&keyed(&[E::A, E::U(())]), "unit-like enum keys");
    exact(&keyed(&[None, Some(0u8), Some(255)]), "Option keys");
    exact(
        &keyed(&[Some(Some(1u8)), Some(None), None]),
        "Option<Option> keys",
    );
    exact(
        &keyed(&[
            Key {
                a: 1,
                b: "k".into(),
            },
            Key {
                a: 2,
                b: "l".into(),
            },
        ]),
        "struct keys",
    );
    exact(
        &keyed(&[ByteBuf::from(vec![]), ByteBuf::from(vec![0, 0xFF, 0xC0])]),
        "byte-string keys",
    );
    exact(&keyed(&[vec![1u16, 2], vec![], vec![3]]), "list keys");
    exact(&keyed(&[(), ()]), "unit keys");
    exact(
        &keyed(&[
            BTreeMap::from([("a".to_string(), 1u8)]),
            BTreeMap::new(),
            BTreeMap::from([("b".to_string(), 2), ("c".to_string(), 3)]),
        ]),
        "map keys",
    );
    // Keys of mixed kinds in one map and across rows.
    exact(
        &keyed(&[
            Value::U64(1),
            Value::Str("1".into()),
            Value::Bytes(vec![1]),
            Value::Nil,
            Value::Bool(true),
            Value::I64(-1),
        ]),
        "mixed keys",
    );
    let strs = |s: &[&str]| -> Vec<String> { s.iter().map(|s| s.to_string()).collect() };
    exact(&keyed(&strs(&["", "a", "ab", "abc"])), "str keys");
    exact(
        &keyed(&strs(&["0x1", "12", "-3", "1e5", "2026-12-07T05:00:00Z"])),
        "number-like keys",
    );
    exact(&keyed(&strs(&["cafe", "beef", "00ff"])), "hex-like keys");
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Point {
    x: i32,
    y: Option<String>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
#[serde(tag = "type")]
enum Internal {
    Map(BTreeMap<String, u32>),
    Unit,
    S { v: u8 },
}

#[test]
fn values_of_every_kind() {
    let v = rows(20, |i| -> BTreeMap<String, Point> {
        (0..i % 3)
            .map(|k| {
                let y = (k % 2 == 0).then(|| format!("y{i}"));
                (format!("p{k}"), Point { x: -(i as i32), y })
            })
            .collect()
    });
    exact(&v, "struct values");
    let v = rows(20, |i| -> BTreeMap<u8, Vec<u16>> {
        (0..3)
            .map(|k| (k, (0..(i + k as usize) % 4).map(|x| x as u16).collect()))
            .collect()
    });
    exact(&v, "list values");
    let v = rows(20, |i| -> BTreeMap<String, E> {
        let es = [
            E::A,
            E::B(i as u8),
            E::C(1, "c".into()),
            E::O(Some(None)),
            E::U(()),
        ];
        (0..3)
            .map(|k| (format!("e{k}"), es[(i + k) % es.len()].clone()))
            .collect()
    });
    exact(&v, "enum values");
    let v = rows(20, |i| -> BTreeMap<String, Option<Option<u8>>> {
        let os = [None, Some(None), Some(Some(i as u8))];
        (0..3).map(|k| (format!("o{k}"), os[(i + k) % 3])).collect()
    });
    exact(&v, "Option<Option> values");
    let v = rows(20, |i| -> BTreeMap<String, Option<u8>> {
        [
            ("a".to_string(), (i % 2 == 0).then_some(i as u8)),
            ("b".into(), None),
        ]
        .into()
    });
    exact_maps(&v, "Option values", &[40]);
    let v = rows(20, |i| -> BTreeMap<String, (u8, String)> {
        [("t".to_string(), (i as u8, "s".repeat(i % 3)))].into()
    });
    exact(&v, "tuple values");
    let v = rows(20, |i| -> BTreeMap<String, ByteBuf> {
        [
            ("b".to_string(), ByteBuf::from(vec![i as u8; i % 4])),
            ("c".into(), ByteBuf::new()),
        ]
        .into()
    });
    exact(&v, "byte-string values");
    let v = rows(20, |i| -> BTreeMap<String, Internal> {
        let x = match i % 3 {
            0 => Internal::Map([("k".to_string(), i as u32)].into()),
            1 => Internal::Unit,
            _ => Internal::S { v: i as u8 },
        };
        [("x".to_string(), x)].into()
    });
    exact(&v, "internally tagged values");
    let v = rows(20, |i| -> BTreeMap<String, f64> {
        [
            ("f".to_string(), i as f64 / 3.0),
            ("g".into(), -0.0),
            ("n".into(), f64::INFINITY),
        ]
        .into()
    });
    exact_maps(&v, "f64 values", &[60]);
    let v = rows(20, |i| -> BTreeMap<String, ()> {
        (0..i % 3).map(|k| (k.to_string(), ())).collect()
    });
    exact(&v, "unit values");
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
enum Wrap {
    M(BTreeMap<String, u8>),
    N(u8),
    O(Option<BTreeMap<u8, String>>),
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Tagged {
    n: u8,
    tags: BTreeMap<String, String>,
}

#[test]
fn maps_under_variants_and_structs() {
    let v = rows(20, |i| match i % 4 {
        0 | 1 => Wrap::M((0..i % 3).map(|k| (format!("k{k}"), k as u8)).collect()),
        2 => Wrap::N(i as u8),
        _ => Wrap::O((i % 8 == 3).then(|| BTreeMap::from([(i as u8, "x".to_string())]))),
    });
    exact(&v, "maps in variants");
    let v = rows(20, |i| Tagged {
        n: i as u8,
        tags: (0..i % 3)
            .map(|k| (format!("k{k}"), "v".repeat(k)))
            .collect(),
    });
    exact(&v, "a map in a struct column");
    let v = rows(3, |i| -> Vec<Tagged> {
        (0..6)
            .map(|j| Tagged {
                n: j,
                tags: BTreeMap::from([("a".to_string(), format!("{i}"))]),
            })
            .collect()
    });
    exact(&v, "maps in lists of structs");
}

/// The error of a map's key or value cell says what the cell is: the element columns have no
/// name of their own (§22.2), which an error must not show as an empty name.
#[test]
fn a_cell_error_in_a_map_names_the_map_column() {
    #[derive(Deserialize, Debug)]
    struct Borrowed<'a> {
        #[allow(dead_code)]
        #[serde(borrow)]
        m: BTreeMap<&'a str, &'a str>,
    }
    // Keys sharing a long prefix: a front-coded block, whose strings are rebuilt.
    let v = rows(30, |i| -> BTreeMap<String, String> {
        (0..4)
            .map(|k| {
                (
                    format!("http.request.header.x-forwarded-{k}"),
                    format!("{}", i % 9),
                )
            })
            .collect()
    });
    let n = rows(20, |i| BTreeMap::from([("k".to_string(), i as u32 + 2)]));
    for (tier, opts) in tiers().into_iter().skip(1) {
        let b = qdf_core::to_vec_with(&v, opts).unwrap();
        let e = qdf_core::from_slice_with::<Vec<Borrowed>>(&b, opts).unwrap_err();
        assert!(!e.to_string().contains("``"), "{tier}: {e}");
        let b = qdf_core::to_vec_with(&n, opts).unwrap();
        let e =
            qdf_core::from_slice_with::<Vec<Row<BTreeMap<String, bool>>>>(&b, opts).unwrap_err();
        assert!(!e.to_string().contains("``"), "{tier}: {e}");
    }
}

#[test]
fn none_empty_and_absent_maps() {
    #[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
    struct Opt {
        id: u32,
        #[serde(skip_serializing_if = "Option::is_none", default)]
        a: Option<BTreeMap<String, u8>>,
        b: Option<BTreeMap<String, u8>>,
    }
    for n in [1, 2, 15, 16, 17, 40] {
        let v: Vec<Opt> = (0..n)
            .map(|i| {
                let m = |k: usize| -> Option<BTreeMap<String, u8>> {
                    match (i + k) % 4 {
                        0 => None,
                        1 => Some(BTreeMap::new()),
                        _ => Some([("k".to_string(), i as u8), (format!("{}", i % 3), 1)].into()),
                    }
                };
                Opt {
                    id: i as u32,
                    a: m(0),
                    b: m(1),
                }
            })
            .collect();
        exact(&v, &format!("{n} optional maps"));
    }
    // Every map empty, and every map empty but one.
    for n in [1, 16, 1000] {
        exact(&rows(n, |_| BTreeMap::<String, u8>::new()), "all empty");
        let v = rows(n, |i| -> BTreeMap<String, u8> {
            if i == n / 2 {
                [("only".to_string(), 1)].into()
            } else {
                BTreeMap::new()
            }
        });
        exact(&v, "one entry in all");
    }
}

type L1 = BTreeMap<String, u32>;
type L2 = BTreeMap<String, BTreeMap<u8, String>>;
type L3 = BTreeMap<u8, BTreeMap<String, BTreeMap<i16, bool>>>;
type L4 = BTreeMap<String, BTreeMap<String, BTreeMap<String, BTreeMap<String, u8>>>>;

fn l4(i: usize) -> L4 {
    (0..1 + i % 2)
        .map(|a| {
            let inner = (0..(i + a) % 3)
                .map(|b| {
                    let inner = (0..2)
                        .map(|c| {
                            let leaf = (0..(a + b + c) % 3)
                                .map(|d| (format!("d{d}"), (i + d) as u8))
                                .collect();
                            (format!("c{c}"), leaf)
                        })
                        .collect();
                    (format!("b{b}"), inner)
                })
                .collect();
            (format!("a{a}"), inner)
        })
        .collect()
}

#[test]
fn maps_nested_one_to_four_levels() {
    for n in [1, 3, 16, 50] {
        let v = rows(n, |i| -> L1 {
            (0..i % 4).map(|k| (format!("k{k}"), k as u32)).collect()
        });
        exact(&v, "L1");
        let v = rows(n, |i| -> L2 {
            (0..2)
                .map(|k| {
                    let inner = (0..(i + k) % 3)
                        .map(|j| (j as u8, format!("s{i}")))
                        .collect();
                    (format!("k{k}"), inner)
                })
                .collect()
        });
        exact(&v, "L2");
        let v = rows(n, |i| -> L3 {
            (0..2u8)
                .map(|k| {
                    let inner = (0..(i + k as usize) % 3)
                        .map(|j| {
                            let leaf = (0..j as i16 + 1).map(|x| (x - 1, x % 2 == 0)).collect();
                            (format!("j{j}"), leaf)
                        })
                        .collect();
                    (k, inner)
                })
                .collect()
        });
        exact(&v, "L3");
        exact(&rows(n, l4), "L4");
    }
    // The four levels are map columns in Balanced.
    let b = exact(&rows(16, l4), "L4 x16");
    assert!(map_columns(&b, &Options::balanced()).len() >= 2, "L4 x16");
}

#[test]
fn maps_inside_lists_inside_structs() {
    #[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
    struct Inner {
        name: String,
        attrs: BTreeMap<String, String>,
    }
    #[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
    struct Outer {
        id: u32,
        items: Vec<Inner>,
        maps: Vec<BTreeMap<String, u8>>,
        by_name: BTreeMap<String, Vec<Inner>>,
    }
    let inner = |i: usize, j: usize| Inner {
        name: format!("n{j}"),
        attrs: (0..(i + j) % 3)
            .map(|k| (format!("attr.{k}"), format!("value-{}", (i * j) % 5)))
            .collect(),
    };
    for n in [1, 2, 5, 16, 30] {
        let v: Vec<Outer> = (0..n)
            .map(|i| Outer {
                id: i as u32,
                items: (0..i % 4 + 1).map(|j| inner(i, j)).collect(),
                maps: (0..i % 3)
                    .map(|j| BTreeMap::from([(format!("m{j}"), j as u8)]))
                    .collect(),
                by_name: (0..i % 2 + 1)
                    .map(|j| (format!("g{j}"), (0..2).map(|k| inner(j, k)).collect()))
                    .collect(),
            })
            .collect();
        exact(&v, &format!("{n} outer rows"));
    }
}

#[test]
fn row_counts_around_the_container_threshold() {
    for n in [1, 2, 15, 16, 17, 100, 1000] {
        let v = rows(n, |i| -> BTreeMap<String, String> {
            [
                ("service".to_string(), format!("svc-{}", i % 3)),
                ("region".into(), "eu-west-1".into()),
                ("host".into(), format!("host-{i}")),
            ]
            .into()
        });
        let b = exact(&v, &format!("{n} rows"));
        // 1 000 distinct hosts make the value column a slab larger than row mode's
        // references: the column stays in the rows there (a size choice, exact either way).
        if (15..=100).contains(&n) {
            assert_eq!(map_columns(&b, &Options::balanced()), [3 * n as u64], "{n}");
        }
    }
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
#[serde(untagged)]
enum MapOr {
    M(BTreeMap<String, u8>),
    S(String),
    L(Vec<u8>),
}

#[test]
fn one_row_that_is_not_a_map() {
    for odd in [0, 7, 19] {
        let v = rows(20, |i| {
            if i == odd {
                MapOr::S("not a map".into())
            } else {
                MapOr::M([("a".to_string(), i as u8)].into())
            }
        });
        let b = exact(&v, "untagged string");
        assert_eq!(map_columns(&b, &Options::balanced()), [0u64; 0], "{odd}");
        let v = rows(20, |i| {
            if i == odd {
                MapOr::L(vec![1, 2])
            } else {
                MapOr::M(BTreeMap::new())
            }
        });
        exact(&v, "untagged list");
        let v = rows(20, |i| -> serde_json::Value {
            if i == odd {
                serde_json::Value::Null
            } else {
                serde_json::json!({"k": i, "s": "x", "nested": {"deep": [i, null]}})
            }
        });
        exact(&v, "json null");
        let v = rows(20, |i| -> serde_json::Value {
            if i == odd {
                serde_json::json!([1, 2])
            } else {
                serde_json::json!({"k": i, "t": true})
            }
        });
        exact(&v, "json array");
    }
    // Objects whose values mix kinds (the value column cannot be one class).
    let v = rows(20, |i| -> serde_json::Value {
        serde_json::json!({"v": if i % 2 == 0 { serde_json::json!(i) } else { serde_json::json!("s") }})
    });
    exact(&v, "json mixed values");
}

#[test]
fn one_huge_map_and_many_empty_ones() {
    let v = rows(100, |i| -> BTreeMap<u32, String> {
        if i == 3 {
            (0..10_000)
                .map(|k| (k * 7, format!("v{}", k % 100)))
                .collect()
        } else {
            BTreeMap::new()
        }
    });
    let b = exact(&v, "10 000 entries in one row");
    println!(
        "huge: {:?} {} bytes",
        map_columns(&b, &Options::balanced()),
        b.len()
    );
    let v = rows(20, |i| hashmap(i, if i == 0 { 10_000 } else { 1 }));
    exact(&v, "10 000 HashMap entries");
}

/// A map written entry by entry that announces `announced` entries (serde allows a wrong
/// hint, and `None`).
#[derive(Debug, PartialEq, Clone)]
struct Liar {
    announced: Option<usize>,
    entries: Vec<(String, u8)>,
}

impl Serialize for Liar {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(self.announced)?;
        for (k, v) in &self.entries {
            m.serialize_key(k)?;
            m.serialize_value(v)?;
        }
        m.end()
    }
}

#[test]
fn maps_without_or_with_wrong_length_hints() {
    for announced in [None, Some(0), Some(1), Some(100)] {
        let v = rows(20, |i| Liar {
            announced,
            entries: (0..i % 3).map(|k| (format!("k{k}"), k as u8)).collect(),
        });
        // Read back as ordered maps: the same entries.
        let want = rows(20, |i| {
            Ordered((0..i % 3).map(|k| (format!("k{k}"), k as u8)).collect())
        });
        for (tier, opts) in tiers() {
            match qdf_core::to_vec_with(&v, opts) {
                Ok(b) => {
                    let back: Vec<Row<Ordered<String, u8>>> =
                        qdf_core::from_slice_with(&b, opts).unwrap();
                    assert_eq!(back, want, "{announced:?} {tier}");
                    agree(&b, &opts, "liar");
                }
                // A wrong hint may be refused, but then by row mode too.
                Err(e) => assert!(
                    qdf_core::to_vec_with(&v, Options::speed()).is_err(),
                    "{announced:?} {tier}: {e}"
                ),
            }
        }
    }
}

#[test]
fn repeated_keys_as_row_mode() {
    let v = rows(20, |i| {
        let third = if i == 7 { "a" } else { "c" };
        Ordered(vec![
            ("a".to_string(), 1u8),
            ("b".into(), 2),
            (third.into(), 3),
        ])
    });
    let strict = |o: Options| o.deny_duplicate_keys(true);
    for (tier, opts) in tiers() {
        let e = qdf_core::to_vec_with(&v, strict(opts)).unwrap_err();
        assert_eq!(e.classify(), Category::Data, "{tier}: {e}");
        assert!(e.to_string().contains("deny_duplicate_keys"), "{tier}: {e}");
    }
    // Keys equal by value whatever their width or form.
    let w: Vec<Row<Ordered<Value, u8>>> = rows(20, |i| {
        let k2 = if i == 3 {
            Value::I64(-1)
        } else {
            Value::U64(9)
        };
        Ordered(vec![(Value::I64(-1), 0), (k2, 1)])
    });
    for (tier, opts) in tiers() {
        assert!(qdf_core::to_vec_with(&w, strict(opts)).is_err(), "{tier}");
    }
    // Written without the check: strict map targets refuse, as in row mode; structs and
    // lax targets read every entry.
    let r: qdf_core::Result<Value> = as_row_mode(&v, strict, "strict Value");
    assert!(r.is_err());
    let r: qdf_core::Result<Vec<Row<BTreeMap<String, u8>>>> =
        as_row_mode(&v, strict, "strict BTreeMap");
    assert!(r.is_err());
    let r: qdf_core::Result<Vec<Row<Ordered<String, u8>>>> =
        as_row_mode(&v, strict, "strict Ordered");
    assert!(r.is_err());
    let r: qdf_core::Result<Vec<Row<Ordered<String, u8>>>> = as_row_mode(&v, |o| o, "lax");
    assert_eq!(r.unwrap()[7].m.0.len(), 3);
    #[derive(Deserialize, Debug, PartialEq)]
    struct Abc {
        a: u8,
        b: u8,
        #[serde(default)]
        c: u8,
    }
    let r: qdf_core::Result<Vec<Row<Abc>>> = as_row_mode(&v, strict, "strict struct");
    assert!(r.is_err(), "serde derive refuses a repeated field");
    let r: qdf_core::Result<Vec<Row<BTreeMap<String, u8>>>> = as_row_mode(&v, |o| o, "lax map");
    assert_eq!(
        r.unwrap()[7].m,
        BTreeMap::from([("a".to_string(), 3u8), ("b".to_string(), 2)])
    );
    // A repeated key that a struct target ignores (not one of its fields).
    let v = rows(20, |i| {
        let third = if i == 7 { "z" } else { "c" };
        Ordered(vec![
            ("a".to_string(), 1u8),
            ("z".into(), 2),
            (third.into(), 3),
        ])
    });
    #[derive(Deserialize, Debug, PartialEq)]
    struct A {
        a: u8,
    }
    let r: qdf_core::Result<Vec<Row<A>>> = as_row_mode(&v, strict, "strict struct, unknown");
    let _ = r;
    let r: qdf_core::Result<Vec<Row<Option<A>>>> = as_row_mode(&v, strict, "strict Option");
    let _ = r;
}

#[test]
fn map_columns_into_other_targets() {
    let v = rows(20, |i| -> BTreeMap<String, u32> {
        let mut m: BTreeMap<String, u32> =
            [("x".to_string(), i as u32), ("y".into(), 2 * i as u32)].into();
        if i % 5 == 0 {
            m.insert("z".into(), 9);
        }
        m
    });
    #[derive(Deserialize, Debug, PartialEq)]
    struct Xy {
        x: u32,
        y: u32,
    }
    #[derive(Deserialize, Debug, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct XyStrict {
        x: u32,
        y: u32,
    }
    #[derive(Deserialize, Debug, PartialEq)]
    struct Xw {
        x: u32,
        w: u32,
    }
    let r: qdf_core::Result<Vec<Row<Xy>>> = as_row_mode(&v, |o| o, "struct");
    assert_eq!(r.unwrap()[5].m, Xy { x: 5, y: 10 });
    let r: qdf_core::Result<Vec<Row<XyStrict>>> = as_row_mode(&v, |o| o, "deny_unknown_fields");
    assert!(r.is_err());
    let r: qdf_core::Result<Vec<Row<Xw>>> = as_row_mode(&v, |o| o, "missing field");
    assert!(r.is_err());
    let r: qdf_core::Result<Vec<Row<Option<Xy>>>> = as_row_mode(&v, |o| o, "Option<struct>");
    assert_eq!(r.unwrap()[1].m, Some(Xy { x: 1, y: 2 }));
    type Pairs = Vec<Row<Vec<(String, u32)>>>;
    let _: qdf_core::Result<Pairs> = as_row_mode(&v, |o| o, "pairs");
    let _: qdf_core::Result<Vec<Row<(String, u32)>>> = as_row_mode(&v, |o| o, "tuple");
    let _: qdf_core::Result<Vec<Row<String>>> = as_row_mode(&v, |o| o, "string");
    let _: qdf_core::Result<Vec<Row<()>>> = as_row_mode(&v, |o| o, "unit");
    let r: qdf_core::Result<Vec<Row<BTreeMap<String, IgnoredAny>>>> =
        as_row_mode(&v, |o| o, "ignored values");
    assert_eq!(r.unwrap()[0].m.len(), 3);
    let r: qdf_core::Result<Vec<Row<BTreeMap<String, u64>>>> = as_row_mode(&v, |o| o, "wider");
    assert_eq!(r.unwrap()[3].m["y"], 6);
    let r: qdf_core::Result<Vec<Row<BTreeMap<String, f64>>>> = as_row_mode(&v, |o| o, "floats");
    assert_eq!(r.unwrap()[3].m["y"], 6.0);
    let r: qdf_core::Result<Vec<Row<BTreeMap<String, i8>>>> = as_row_mode(&v, |o| o, "narrow");
    assert_eq!(r.unwrap()[3].m["x"], 3);
    let r: qdf_core::Result<Vec<Row<HashMap<String, u32>>>> = as_row_mode(&v, |o| o, "HashMap");
    assert_eq!(r.unwrap()[10].m["z"], 9);
    let r: qdf_core::Result<Vec<Row<serde_json::Value>>> = as_row_mode(&v, |o| o, "json");
    assert_eq!(
        r.unwrap()[10].m,
        serde_json::json!({"x": 10, "y": 20, "z": 9})
    );
    let r: qdf_core::Result<Vec<serde_json::Value>> = as_row_mode(&v, |o| o, "json rows");
    assert_eq!(
        r.unwrap()[2],
        serde_json::json!({"id": 2, "m": {"x": 2, "y": 4}})
    );
}

/// Variant names enough that, one a row, most are used once: the tagged form (§22.3) wants
/// two values a variant on average, so these one-entry maps are a map column.
const NAMES: [&str; 11] = ["A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K"];

#[derive(Deserialize, Debug, PartialEq)]
enum New {
    A(u32),
    B(u32),
    C(u32),
    D(u32),
    E(u32),
    F(u32),
    G(u32),
    H(u32),
    I(u32),
    J(u32),
    K(u32),
}

#[derive(Deserialize, Debug, PartialEq)]
enum St {
    A { x: u32 },
    B { x: u32 },
    C { x: u32 },
    D { x: u32 },
    E { x: u32 },
    F { x: u32 },
    G { x: u32 },
    H { x: u32 },
    I { x: u32 },
    J { x: u32 },
    K { x: u32 },
}

#[derive(Deserialize, Debug, PartialEq)]
enum Tu {
    A(u32, u32),
    B(u32, u32),
    C(u32, u32),
    D(u32, u32),
    E(u32, u32),
    F(u32, u32),
    G(u32, u32),
    H(u32, u32),
    I(u32, u32),
    J(u32, u32),
    K(u32, u32),
}

/// 20 rows of one-entry maps `{NAMES[i % 11]: payload(i)}`.
fn named<V>(payload: impl Fn(usize) -> V) -> Vec<Row<Ordered<String, V>>> {
    rows(20, |i| {
        Ordered(vec![(NAMES[i % NAMES.len()].to_string(), payload(i))])
    })
}

#[test]
fn one_entry_maps_into_an_enum() {
    // Externally tagged enums as one-entry maps (what other formats' values produce).
    let v = named(|i| i as u32);
    let b = exact(&v, "one-entry maps");
    assert_eq!(map_columns(&b, &Options::balanced()), [20], "a map column");
    let r: qdf_core::Result<Vec<Row<New>>> = as_row_mode(&v, |o| o, "newtype variants");
    let r = r.expect("row mode reads a 1-entry map as a variant");
    assert_eq!((&r[7].m, &r[12].m), (&New::H(7), &New::B(12)));
    let r: qdf_core::Result<Vec<Row<Option<New>>>> = as_row_mode(&v, |o| o, "Option<enum>");
    assert_eq!(r.unwrap()[7].m, Some(New::H(7)));
    let v = named(|i| BTreeMap::from([("x".to_string(), i as u32)]));
    let b = exact(&v, "struct payloads");
    assert_eq!(
        map_columns(&b, &Options::balanced()),
        [20],
        "struct payloads"
    );
    let r: qdf_core::Result<Vec<Row<St>>> = as_row_mode(&v, |o| o, "struct variants");
    assert_eq!(r.unwrap()[3].m, St::D { x: 3 });
    // The variant and its struct payload are a depth level each, as in row mode.
    let speed = qdf_core::to_vec_with(&v, Options::speed()).unwrap();
    let want = least_depth::<Vec<Row<St>>>(&speed, Options::speed());
    for (tier, opts) in tiers().into_iter().skip(1) {
        let b = qdf_core::to_vec_with(&v, opts).unwrap();
        assert_eq!(least_depth::<Vec<Row<St>>>(&b, opts), want, "{tier}");
        // Cut or corrupted, the enum reads fail typed.
        for n in 0..b.len() {
            assert!(qdf_core::from_slice_with::<Vec<Row<St>>>(&b[..n], opts).is_err());
        }
        let mut c = b.clone();
        for i in 5..c.len() {
            for x in [0x01u8, 0x02, 0x10, 0x80, 0xFF] {
                c[i] ^= x;
                let _ = qdf_core::from_slice_with::<Vec<Row<St>>>(&c, opts);
                let _ = qdf_core::from_slice_with::<Vec<Row<New>>>(&c, opts);
                c[i] ^= x;
            }
        }
    }
    let v = named(|i| vec![i as u32, 1]);
    let b = exact(&v, "tuple payloads");
    assert_eq!(
        map_columns(&b, &Options::balanced()),
        [20],
        "tuple payloads"
    );
    let r: qdf_core::Result<Vec<Row<Tu>>> = as_row_mode(&v, |o| o, "tuple variants");
    assert_eq!(r.unwrap()[10].m, Tu::K(10, 1));
    // The wrong variant kind, a name no variant has, two entries, integer keys: refused,
    // as in row mode.
    let r: qdf_core::Result<Vec<Row<St>>> = as_row_mode(&named(|i| i as u32), |o| o, "kind");
    assert!(r.is_err());
    let v = rows(20, |i| Ordered(vec![(format!("Z{}", i % 11), i as u32)]));
    let r: qdf_core::Result<Vec<Row<New>>> = as_row_mode(&v, |o| o, "unknown name");
    assert!(r.is_err());
    let v = rows(20, |i| {
        let k = NAMES[i % NAMES.len()].to_string();
        Ordered(vec![(k, i as u32), ("B".into(), 1)])
    });
    let r: qdf_core::Result<Vec<Row<New>>> = as_row_mode(&v, |o| o, "two entries");
    assert!(r.is_err());
    let v = rows(20, |i| Ordered(vec![(i as u32 % 11, i as u32)]));
    let b = exact(&v, "integer keys");
    assert_eq!(map_columns(&b, &Options::balanced()), [20], "integer keys");
    let r: qdf_core::Result<Vec<Row<New>>> = as_row_mode(&v, |o| o, "integer keys");
    assert!(r.is_err());
}

#[test]
fn subset_targets_skip_the_map_column() {
    let v = rows(40, |i| -> BTreeMap<String, Vec<u16>> {
        (0..i % 4)
            .map(|k| (format!("k{k}"), vec![k as u16; k]))
            .collect()
    });
    #[derive(Deserialize, Debug, PartialEq)]
    struct OnlyId {
        id: u32,
    }
    #[derive(Deserialize, Debug, PartialEq)]
    struct Ignored {
        id: u32,
        #[allow(dead_code)]
        m: IgnoredAny,
    }
    #[derive(Deserialize, Debug, PartialEq)]
    struct Skipped {
        id: u32,
        #[serde(skip)]
        m: Option<u8>,
    }
    #[derive(Deserialize, Debug, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Strict {
        id: u32,
    }
    let ids: Vec<u32> = (0..40).collect();
    let r: qdf_core::Result<Vec<OnlyId>> = as_row_mode(&v, |o| o, "only id");
    assert_eq!(r.unwrap().iter().map(|r| r.id).collect::<Vec<_>>(), ids);
    let r: qdf_core::Result<Vec<Ignored>> = as_row_mode(&v, |o| o, "IgnoredAny");
    assert_eq!(r.unwrap().iter().map(|r| r.id).collect::<Vec<_>>(), ids);
    let r: qdf_core::Result<Vec<Skipped>> = as_row_mode(&v, |o| o, "serde(skip)");
    assert!(r.unwrap().iter().all(|r| r.m.is_none()));
    let r: qdf_core::Result<Vec<Strict>> = as_row_mode(&v, |o| o, "deny_unknown_fields");
    assert!(r.is_err());
    let _: qdf_core::Result<IgnoredAny> = as_row_mode(&v, |o| o, "IgnoredAny all");
    // Only the map, with the id skipped, then both again.
    #[derive(Deserialize, Debug, PartialEq)]
    struct OnlyM {
        m: BTreeMap<String, Vec<u16>>,
    }
    let r: qdf_core::Result<Vec<OnlyM>> = as_row_mode(&v, |o| o, "only m");
    assert_eq!(r.unwrap()[3].m.len(), 3);
}

#[test]
fn flattened_maps() {
    #[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
    struct Meta {
        kind: String,
        #[serde(flatten)]
        extra: BTreeMap<String, u32>,
    }
    let v = rows(20, |i| Meta {
        kind: format!("k{}", i % 2),
        extra: (0..i % 3).map(|k| (format!("x{k}"), k as u32)).collect(),
    });
    exact(&v, "flatten");
    #[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
    struct Outer {
        id: u32,
        #[serde(flatten)]
        meta: Meta,
    }
    let v: Vec<Outer> = (0..20)
        .map(|i| Outer {
            id: i,
            meta: Meta {
                kind: "x".into(),
                extra: [("a".to_string(), i)].into(),
            },
        })
        .collect();
    exact(&v, "flattened rows");
}

#[test]
fn borrowed_keys_and_values() {
    #[derive(Deserialize, Debug, PartialEq)]
    struct Borrowed<'a> {
        id: u32,
        #[serde(borrow)]
        m: BTreeMap<&'a str, &'a str>,
    }
    #[derive(Deserialize, Debug, PartialEq)]
    struct Cows<'a> {
        id: u32,
        #[serde(borrow)]
        m: BTreeMap<Cow<'a, str>, Cow<'a, str>>,
    }
    let short = rows(30, |i| -> BTreeMap<String, String> {
        [
            ("a".to_string(), format!("{}", i % 2)),
            ("b".into(), "x".into()),
        ]
        .into()
    });
    let long = rows(30, |i| -> BTreeMap<String, String> {
        (0..4)
            .map(|k| {
                let key = format!("http.request.header.x-forwarded-{k}");
                (key, format!("https://example.com/api/v1/items/{}", i % 9))
            })
            .collect()
    });
    for (what, v) in [("short", &short), ("long", &long)] {
        let speed = qdf_core::to_vec_with(v, Options::speed()).unwrap();
        let row: Vec<Borrowed> = qdf_core::from_slice(&speed).unwrap();
        for (tier, opts) in tiers() {
            let b = qdf_core::to_vec_with(v, opts).unwrap();
            match qdf_core::from_slice_with::<Vec<Borrowed>>(&b, opts) {
                Ok(got) => assert_eq!(got, row, "{what} {tier}"),
                // SPEC §22: a rebuilt string is a Data error naming the way out.
                Err(e) => {
                    println!("{what} {tier}: {e}");
                    assert_eq!(e.classify(), Category::Data, "{what} {tier}: {e}");
                    assert!(e.to_string().contains("String"), "{what} {tier}: {e}");
                }
            }
            let cows: Vec<Cows> = qdf_core::from_slice_with(&b, opts).unwrap();
            for (c, r) in cows.iter().zip(&row) {
                assert_eq!(c.id, r.id);
                let m: BTreeMap<&str, &str> =
                    c.m.iter().map(|(k, v)| (k.as_ref(), v.as_ref())).collect();
                assert_eq!(m, r.m, "{what} {tier}");
            }
        }
    }
}

/// Values with map columns of several shapes, for the limit and hostile tests.
fn samples() -> Vec<(&'static str, Vec<u8>, Options)> {
    let mut out = Vec::new();
    let small = rows(3, |i| -> BTreeMap<String, Vec<u8>> {
        (0..i + 1)
            .map(|k| (format!("k{k}"), vec![k as u8; 3]))
            .collect()
    });
    let opt = rows(16, |i| -> Option<BTreeMap<u16, Option<bool>>> {
        (i % 3 != 0).then(|| {
            (0..i as u16 % 3)
                .map(|k| (k, (k > 0).then_some(i % 2 == 0)))
                .collect()
        })
    });
    let nested = rows(16, |i| -> L2 {
        BTreeMap::from([(
            "a".to_string(),
            BTreeMap::from([(i as u8 % 3, "s".to_string())]),
        )])
    });
    let tags = rows(16, |i| -> BTreeMap<String, String> {
        [
            ("env".to_string(), "prod".to_string()),
            ("i".into(), format!("{}", i % 4)),
        ]
        .into()
    });
    for (_, opts) in tiers().into_iter().skip(1) {
        out.push(("small", qdf_core::to_vec_with(&small, opts).unwrap(), opts));
        out.push(("opt", qdf_core::to_vec_with(&opt, opts).unwrap(), opts));
        out.push((
            "nested",
            qdf_core::to_vec_with(&nested, opts).unwrap(),
            opts,
        ));
        out.push(("tags", qdf_core::to_vec_with(&tags, opts).unwrap(), opts));
    }
    // Most hold map columns (a tier may keep one as rows by its sizes).
    let with = out
        .iter()
        .filter(|(_, b, o)| !map_columns(b, o).is_empty())
        .count();
    assert!(
        with >= 10,
        "{with} of {} samples hold map columns",
        out.len()
    );
    out
}

#[test]
fn output_limit_measure_is_what_the_decoder_charges() {
    let a = rows(20, |i| hashmap(i, i % 4));
    let b = rows(3, |i| -> L2 {
        BTreeMap::from([(
            format!("k{i}"),
            (0..i as u8).map(|j| (j, "v".repeat(j as usize))).collect(),
        )])
    });
    let c = rows(16, l4);
    let d = rows(20, |i| -> BTreeMap<String, Point> {
        [(
            "p".to_string(),
            Point {
                x: i as i32,
                y: None,
            },
        )]
        .into()
    });
    for (_, opts) in tiers() {
        measure_is_exact(&a, opts);
        measure_is_exact(&b, opts);
        measure_is_exact(&c, opts);
        measure_is_exact(&d, opts);
    }
}

/// The least `max_depth` at which `bytes` decode as `T` under `opts`.
fn least_depth<T: DeserializeOwned>(bytes: &[u8], opts: Options) -> u32 {
    (1..200)
        .find(|&d| qdf_core::from_slice_with::<T>(bytes, opts.max_depth(d)).is_ok())
        .expect("decodes at some depth")
}

#[test]
fn depth_limit_as_row_mode() {
    fn check<T: Serialize + DeserializeOwned>(v: &T, what: &str) {
        let speed = qdf_core::to_vec_with(v, Options::speed()).unwrap();
        let want_value = least_depth::<Value>(&speed, Options::speed());
        let want_t = least_depth::<T>(&speed, Options::speed());
        for (tier, opts) in tiers() {
            let b = qdf_core::to_vec_with(v, opts).unwrap();
            assert_eq!(
                least_depth::<Value>(&b, opts),
                want_value,
                "{what} {tier} Value"
            );
            assert_eq!(least_depth::<T>(&b, opts), want_t, "{what} {tier} T");
            for d in [want_value - 1, want_value] {
                agree(&b, &opts.max_depth(d), what);
            }
            if let Err(e) = qdf_core::from_slice_with::<Value>(&b, opts.max_depth(want_value - 1)) {
                assert!(
                    matches!(e.code(), ErrorCode::DepthLimit(_)),
                    "{what} {tier}: {e}"
                );
            }
        }
    }
    check(&rows(20, |i| hashmap(i, 2)), "L1");
    check(
        &rows(3, |i| -> L3 {
            BTreeMap::from([(
                i as u8,
                BTreeMap::from([("a".to_string(), BTreeMap::from([(1i16, true)]))]),
            )])
        }),
        "L3",
    );
    check(&rows(16, l4), "L4");
    check(
        &rows(20, |i| -> Option<BTreeMap<String, Option<Option<u8>>>> {
            Some([("o".to_string(), Some(Some(i as u8)))].into())
        }),
        "options",
    );
    check(
        &rows(20, |i| -> BTreeMap<String, E> {
            [("e".to_string(), E::N(Box::new(E::B(i as u8))))].into()
        }),
        "enums",
    );
}

#[test]
fn hostile_prefixes_and_flips_agree_with_the_walker() {
    let msgs: Vec<(Vec<u8>, Options)> = samples().into_iter().map(|(_, b, o)| (b, o)).collect();
    agree_mutated(&msgs);
}

#[test]
fn hostile_mutations_are_typed_errors_for_every_target() {
    let samples = samples();
    let mut next = xorshift(0x9E37_79B9_7F4A_7C15);
    for round in 0..3000 {
        let (what, m, opts) = &samples[round % samples.len()];
        let mut c = m.clone();
        mutate(&mut c, &mut next);
        agree(&c, opts, what);
        let _ = qdf_core::from_slice_with::<IgnoredAny>(&c, *opts);
        let _ = qdf_core::from_slice_with::<serde_json::Value>(&c, *opts);
        let _ = qdf_core::from_slice_with::<Vec<Row<BTreeMap<String, u8>>>>(&c, *opts);
        let _ = qdf_core::from_slice_with::<Vec<Row<Ordered<Value, Value>>>>(&c, *opts);
        let _ = qdf_core::from_slice_with::<Vec<Row<IgnoredAny>>>(&c, *opts);
        let _ = qdf_core::from_slice_with::<Vec<Row<L2>>>(&c, *opts);
        let _ = qdf_core::from_slice_with::<Value>(&c, opts.deny_duplicate_keys(true));
        // A decoder with a tight output budget stays typed too.
        if let Err(e) = qdf_core::from_slice_with::<Value>(&c, opts.max_output(64)) {
            let _ = e.classify();
        }
    }
}

#[test]
fn sessions_and_dictionaries_round_trip_map_rows() {
    let batches: Vec<Vec<Row<BTreeMap<String, String>>>> = (0..4)
        .map(|f| {
            rows(16 + f, |i| {
                [
                    ("env".to_string(), "prod".to_string()),
                    ("n".into(), format!("{f}-{i}")),
                ]
                .into()
            })
        })
        .collect();
    for (tier, opts) in tiers() {
        let mut enc = EncoderSession::new(opts);
        let mut buf = Vec::new();
        for b in &batches {
            enc.encode_frame(b, &mut buf).unwrap();
        }
        let mut dec = DecoderSession::new(opts);
        let mut at = 0;
        for (i, want) in batches.iter().enumerate() {
            let (got, used) = dec
                .decode_frame::<Vec<Row<BTreeMap<String, String>>>>(&buf[at..])
                .unwrap()
                .unwrap();
            assert_eq!(&got, want, "{tier} frame {i}");
            at += used;
        }
        assert_eq!(at, buf.len());
    }
    let dict = Dictionary::from_strs(["env", "prod", "n", "id", "m"]).unwrap();
    for (tier, opts) in tiers() {
        for b in &batches {
            let m = qdf_core::to_vec_with_dictionary(b, opts, &dict).unwrap();
            let back: Vec<Row<BTreeMap<String, String>>> =
                qdf_core::from_slice_with_dictionary(&m, opts, &dict).unwrap();
            assert_eq!(&back, b, "{tier}");
            assert_eq!(dictionary_disagreement(&m, &opts, &dict), None, "{tier}");
        }
    }
}

/// The shape of a generated value (one per trial, so rows are alike and make columns).
#[derive(Clone, Debug)]
enum Shape {
    Leaf(u8),
    Map(Box<Shape>, Box<Shape>),
    List(Box<Shape>),
}

fn shape(next: &mut impl FnMut() -> u64, depth: u32) -> Shape {
    match next() % if depth == 0 { 1 } else { 6 } {
        0..=2 => Shape::Leaf((next() % 9) as u8),
        3 | 4 => Shape::Map(
            Box::new(shape(next, depth / 2)),
            Box::new(shape(next, depth - 1)),
        ),
        _ => Shape::List(Box::new(shape(next, depth - 1))),
    }
}

/// A value of `shape`; with `odd` > 0, one in `odd` is of another kind (a null, a string).
fn generate(next: &mut impl FnMut() -> u64, s: &Shape, odd: u64) -> Value {
    match (odd > 0).then(|| next() % odd) {
        Some(0) => return Value::Nil,
        Some(1) => return Value::Str("odd".into()),
        _ => {}
    }
    let words = ["GET", "POST", "service.name", "", "x", "http.status_code"];
    match s {
        Shape::Leaf(k) => match k {
            0 => Value::U64(next() % 300),
            1 => Value::I64(-((next() % 70_000) as i64) - 1),
            2 => Value::F64((next() % 1000) as f64 / 8.0),
            3 => Value::Bool(next().is_multiple_of(2)),
            4 => Value::Str(words[(next() % words.len() as u64) as usize].into()),
            5 => Value::Str(format!("v{}", next() % 50)),
            6 => Value::Bytes(vec![next() as u8; (next() % 4) as usize]),
            7 => Value::Char(char::from(b'a' + (next() % 26) as u8)),
            _ => Value::Unit,
        },
        Shape::Map(k, v) => Value::Map(
            (0..next() % 5)
                .map(|_| (generate(next, k, odd), generate(next, v, odd)))
                .collect(),
        ),
        Shape::List(e) => Value::Array((0..next() % 4).map(|_| generate(next, e, odd)).collect()),
    }
}

#[test]
fn generated_maps_round_trip_and_survive_corruption() {
    let mut next = xorshift(0x5DEE_CE66_D1CE_B00C);
    let mut with_maps = 0;
    for trial in 0..1000 {
        let top = Shape::Map(Box::new(shape(&mut next, 1)), Box::new(shape(&mut next, 3)));
        let n = [1, 2, 3, 15, 16, 17, 40][trial % 7];
        // One trial in four has values of other kinds here and there.
        let odd = [0, 0, 0, 60][trial % 4];
        let v = rows(n, |_| generate(&mut next, &top, odd));
        let what = format!("trial {trial}: {top:?}");
        let b = exact(&v, &what);
        if map_columns(&b, &Options::balanced()).is_empty() {
            continue;
        }
        with_maps += 1;
        if trial % 10 == 0 {
            measure_is_exact(&v, Options::balanced());
            let speed = qdf_core::to_vec_with(&v, Options::speed()).unwrap();
            assert_eq!(
                least_depth::<Value>(&b, Options::balanced()),
                least_depth::<Value>(&speed, Options::speed()),
                "{what}"
            );
        }
        for _ in 0..20 {
            let mut c = b.clone();
            mutate(&mut c, &mut next);
            agree(&c, &Options::balanced(), &what);
            let _ = qdf_core::from_slice::<Vec<Row<Value>>>(&c);
            let _ = qdf_core::from_slice::<Vec<Row<IgnoredAny>>>(&c);
        }
    }
    assert!(
        with_maps >= 150,
        "{with_maps} of 1000 trials wrote map columns"
    );
}
