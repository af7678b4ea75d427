//! The fast paths of struct child columns ([`flat`], [`uniform`]) against the plan
//! ([`planned`]): wherever a fast path takes a batch it must give the plan's fields, rows
//! and cells exactly (everything after them is shared, so the bytes are the same).

use std::collections::BTreeMap;

use serde::Serialize;
use serde::ser::{SerializeStruct, Serializer};

use super::*;
use crate::columnar::plan::Batch;
use crate::columnar::tape::Depth;

#[derive(Clone, Debug, Serialize)]
enum E {
    A,
    B(u8),
    C { x: u8 },
}

/// A struct field value of every kind the tape captures.
#[derive(Clone, Debug)]
enum Val {
    U(u64),
    I(i64),
    F(f32),
    D(f64),
    S(String),
    B(bool),
    Opt(Option<u32>),
    OptOpt(Option<Option<u32>>),
    C(char),
    L(Vec<u32>),
    M(BTreeMap<String, u32>),
    W(i128),
    X(u128),
    Inner(Dyn),
    Unit,
    UnitS,
    Nt(u32),
    NtNone,
    En(E),
    Bytes(Vec<u8>),
    /// `skip_field` (a `skip_serializing_if` that skipped).
    Skip,
}

impl Serialize for Val {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            Val::U(v) => s.serialize_u64(*v),
            Val::I(v) => s.serialize_i64(*v),
            Val::F(v) => s.serialize_f32(*v),
            Val::D(v) => s.serialize_f64(*v),
            Val::S(v) => s.serialize_str(v),
            Val::B(v) => s.serialize_bool(*v),
            Val::Opt(v) => v.serialize(s),
            Val::OptOpt(v) => v.serialize(s),
            Val::C(v) => s.serialize_char(*v),
            Val::L(v) => v.serialize(s),
            Val::M(v) => v.serialize(s),
            Val::W(v) => s.serialize_i128(*v),
            Val::X(v) => s.serialize_u128(*v),
            Val::Inner(v) => v.serialize(s),
            Val::Unit => s.serialize_unit(),
            Val::UnitS => s.serialize_unit_struct("Us"),
            Val::Nt(v) => s.serialize_newtype_struct("Nt", v),
            Val::NtNone => s.serialize_newtype_struct("Nt", &None::<u32>),
            Val::En(v) => v.serialize(s),
            Val::Bytes(v) => s.serialize_bytes(v),
            Val::Skip => unreachable!("a struct skips it"),
        }
    }
}

/// A struct with fields in any order, any names (also repeated), any values.
#[derive(Clone, Debug)]
struct Dyn {
    name: &'static str,
    fields: Vec<(&'static str, Val)>,
}

impl Serialize for Dyn {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let len = self
            .fields
            .iter()
            .filter(|f| !matches!(f.1, Val::Skip))
            .count();
        let mut st = s.serialize_struct(self.name, len)?;
        for (k, v) in &self.fields {
            match v {
                Val::Skip => st.skip_field(k)?,
                v => st.serialize_field(k, v)?,
            }
        }
        st.end()
    }
}

#[derive(Serialize)]
struct Top<'a> {
    s: &'a Dyn,
}

/// The same name at another address (what `same_name` compares by value).
fn fresh(k: &str) -> &'static str {
    Box::leak(k.to_owned().into_boxed_str())
}

fn dyn_of(fields: Vec<(&'static str, Val)>) -> Dyn {
    Dyn { name: "S", fields }
}

/// Captures `rows` as the struct field of top-level rows, asserts that [`uniform`] and
/// [`flat`] (when they take them) agree with [`planned`], and returns whether `uniform`
/// took them.
fn fast(rows: &[Dyn]) -> bool {
    fast_and_flat(rows).0
}

/// [`fast`], and whether [`flat`] took the rows (it takes only what `uniform` takes).
fn fast_and_flat(rows: &[Dyn]) -> (bool, bool) {
    let mut b = Batch::new(rows.len(), false);
    let depth = Depth {
        depth: 1,
        limit: 128,
    };
    for r in rows {
        assert_eq!(b.offer(&Top { s: r }, depth), Offer::Taken);
    }
    let ats: Vec<usize> = (0..rows.len())
        .map(|r| match b.row_fields(r)[0].cell {
            Cell::Other(at) => unwrap(&b.tape, at as usize).expect("a struct"),
            c => panic!("row {r}: {c:?}"),
        })
        .collect();
    let plan = planned(&b.tape, &ats, false);
    let got = uniform(&b.tape, &ats, false);
    if let Some(got) = &got {
        assert_eq!(Some(got), plan.as_ref(), "{rows:?}");
    }
    let flat_names = flat(&b.tape, &ats, false);
    if let Some(names) = &flat_names {
        // Field `k` of the struct at `at` is event `at + 2 + 2k`, as `structs` reads it.
        let cols: Vec<(Option<Vec<u32>>, Vec<Cell>)> = (0..names.len())
            .map(|k| {
                let cells = ats
                    .iter()
                    .map(|&at| prim_cell(b.tape.evs[at + 2 + 2 * k]).expect("a primitive event"));
                (None, cells.collect())
            })
            .collect();
        assert_eq!(Some((names.clone(), cols)), plan, "{rows:?}");
        assert!(got.is_some(), "flat without uniform: {rows:?}");
    }
    (got.is_some(), flat_names.is_some())
}

fn flat_row(i: usize) -> Dyn {
    let nan = f32::from_bits(0x7fc0_0000 | i as u32);
    dyn_of(vec![
        ("a", Val::U(i as u64)),
        ("b", Val::I(-(i as i64))),
        ("c", Val::F([nan, -0.0, 0.0, 1.5][i % 4])),
        ("d", Val::D([f64::NAN, -0.0, f64::INFINITY, 0.1][i % 4])),
        ("e", Val::S(format!("s{i}"))),
        ("f", Val::B(i.is_multiple_of(2))),
        ("g", Val::Opt(None)),
    ])
}

#[test]
fn flat_structs_take_the_fast_path_at_every_size() {
    for n in [1, 2, 15, 16, 17, 100] {
        let rows: Vec<Dyn> = (0..n).map(flat_row).collect();
        assert_eq!(fast_and_flat(&rows), (true, true), "{n} rows");
        // Every row's keys at their own address: compared by value.
        let rows: Vec<Dyn> = (0..n)
            .map(|i| {
                let mut r = flat_row(i);
                r.fields.iter_mut().for_each(|f| f.0 = fresh(f.0));
                r
            })
            .collect();
        assert!(fast(&rows), "{n} rows, fresh names");
        // Structs named apart: the name is no part of the plan.
        let rows: Vec<Dyn> = (0..n)
            .map(|i| Dyn {
                name: ["A", "B"][i % 2],
                ..flat_row(i)
            })
            .collect();
        assert!(fast(&rows), "{n} rows, two struct names");
    }
}

#[test]
fn f32_and_f64_and_ints_of_both_signs_in_one_field() {
    let rows: Vec<Dyn> = (0..17)
        .map(|i| {
            let v = match i % 4 {
                0 => Val::F(-0.0),
                1 => Val::D(-0.0),
                2 => Val::I(-3),
                _ => Val::U(u64::MAX),
            };
            dyn_of(vec![("x", v), ("y", Val::B(true))])
        })
        .collect();
    assert!(fast(&rows));
}

#[test]
fn values_that_are_not_one_event_walk_every_field() {
    let inner = |i: usize| {
        dyn_of(vec![
            ("p", Val::U(i as u64)),
            ("q", Val::Opt(i.is_multiple_of(2).then_some(i as u32))),
        ])
    };
    let kinds: Vec<fn(usize) -> Val> = vec![
        |i| Val::Opt((!i.is_multiple_of(3)).then_some(i as u32)),
        |i| Val::OptOpt([None, Some(None), Some(Some(i as u32))][i % 3]),
        |i| Val::C(char::from_u32(0x41 + i as u32).unwrap()),
        |i| Val::L(vec![i as u32; i % 3]),
        |i| Val::M((0..i % 3).map(|j| (format!("k{j}"), j as u32)).collect()),
        |i| {
            Val::W(if i.is_multiple_of(2) {
                -(i as i128)
            } else {
                i128::MAX
            })
        },
        |i| Val::X(u128::from(i as u64) << (i % 2 * 70)),
        |_| Val::Unit,
        |_| Val::UnitS,
        |i| Val::Nt(i as u32),
        |_| Val::NtNone,
        |i| Val::En([E::A, E::B(i as u8), E::C { x: 1 }][i % 3].clone()),
        |i| Val::Bytes(vec![i as u8; 2]),
    ];
    for (k, kind) in kinds.iter().enumerate() {
        let rows: Vec<Dyn> = (0..17)
            .map(|i| {
                dyn_of(vec![
                    ("a", Val::U(i as u64)),
                    ("v", kind(i)),
                    ("n", Val::Inner(inner(i))),
                ])
            })
            .collect();
        assert!(fast(&rows), "kind {k}");
    }
}

#[test]
fn batches_the_fast_path_leaves_to_the_plan() {
    let base = |i: usize| dyn_of(vec![("a", Val::U(i as u64)), ("b", Val::U(7))]);
    let with = |f: &dyn Fn(usize) -> Option<Dyn>| -> Vec<Dyn> {
        (0..17).map(|i| f(i).unwrap_or_else(|| base(i))).collect()
    };
    let cases: Vec<(&str, Vec<Dyn>)> = vec![
        (
            "reordered",
            with(&|i| (i == 5).then(|| dyn_of(vec![("b", Val::U(7)), ("a", Val::U(1))]))),
        ),
        (
            "missing last",
            with(&|i| (i == 16).then(|| dyn_of(vec![("a", Val::U(1))]))),
        ),
        (
            "missing first",
            with(&|i| (i == 9).then(|| dyn_of(vec![("b", Val::U(1))]))),
        ),
        (
            "extra",
            with(&|i| {
                (i == 3).then(|| dyn_of(vec![("a", Val::U(1)), ("b", Val::U(7)), ("c", Val::U(2))]))
            }),
        ),
        (
            "skipped in one row",
            with(&|i| (i == 2).then(|| dyn_of(vec![("a", Val::U(1)), ("b", Val::Skip)]))),
        ),
        (
            "skipped in the first row",
            with(&|i| (i == 0).then(|| dyn_of(vec![("a", Val::Skip), ("b", Val::U(1))]))),
        ),
        (
            "a repeated name later",
            with(&|i| (i == 4).then(|| dyn_of(vec![("a", Val::U(1)), ("a", Val::U(1))]))),
        ),
        (
            "a repeated name first",
            with(&|i| (i == 0).then(|| dyn_of(vec![("a", Val::U(1)), ("a", Val::U(1))]))),
        ),
        (
            "as many events, one field holding a list",
            with(&|i| (i == 7).then(|| dyn_of(vec![("a", Val::L(vec![1]))]))),
        ),
        ("empty structs", (0..17).map(|_| dyn_of(vec![])).collect()),
    ];
    for (what, rows) in cases {
        assert!(!fast(&rows), "{what}");
    }
}

/// Values of more than one event after a first struct of primitives (a `Some` after
/// `None`s, a newtype): not [`flat`]; the walk of [`uniform`] takes them.
#[test]
fn values_off_the_flat_span_are_walked() {
    let base = |i: usize| dyn_of(vec![("a", Val::U(i as u64)), ("b", Val::U(7))]);
    let rows: Vec<Dyn> = (0..17)
        .map(|i| match i {
            8 => dyn_of(vec![("a", Val::Nt(1)), ("b", Val::Unit)]),
            _ => base(i),
        })
        .collect();
    assert_eq!(fast_and_flat(&rows), (true, false));
    let rows: Vec<Dyn> = (0..17)
        .map(|i| {
            dyn_of(vec![
                ("a", Val::Opt((i > 3).then_some(1))),
                ("b", Val::U(1)),
            ])
        })
        .collect();
    assert_eq!(fast_and_flat(&rows), (true, false));
    // All `None`: one event a field again.
    let rows: Vec<Dyn> = (0..17)
        .map(|_| dyn_of(vec![("a", Val::Opt(None)), ("b", Val::U(1))]))
        .collect();
    assert_eq!(fast_and_flat(&rows), (true, true));
}

/// Batches of random shapes, mostly uniform: wherever the fast path takes one, it agrees
/// with the plan (checked in [`fast`]); it takes a fair share of them.
#[test]
fn random_batches_agree_with_the_plan() {
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let mut rnd = move |m: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % m
    };
    let names = ["a", "b", "c", "d", "e"];
    let mut taken = 0;
    for _ in 0..3000 {
        let width = 1 + rnd(4) as usize;
        let mut template: Vec<&'static str> = Vec::new();
        while template.len() < width {
            let k = names[rnd(5) as usize];
            if !template.contains(&k) {
                template.push(k);
            }
        }
        let kinds: Vec<u64> = template.iter().map(|_| rnd(12)).collect();
        let val = |kind: u64, r: u64| match kind {
            0 => Val::U(r),
            1 => Val::I(-(r as i64)),
            2 => Val::F(f32::from_bits(r as u32)),
            3 => Val::D(f64::from_bits(r.wrapping_mul(0x9E37_79B9_7F4A_7C15))),
            4 => Val::S(format!("{r}")),
            5 => Val::Opt(r.is_multiple_of(2).then_some(r as u32)),
            6 => Val::Opt(None),
            7 => Val::Nt(r as u32),
            8 => Val::W(i128::from(r) << (r % 2 * 64)),
            9 => Val::C('x'),
            10 => Val::Inner(dyn_of(vec![("p", Val::U(r))])),
            _ => Val::B(r.is_multiple_of(2)),
        };
        let n = 1 + rnd(20) as usize;
        let rows: Vec<Dyn> = (0..n)
            .map(|_| {
                let mut fields: Vec<(&'static str, Val)> = template
                    .iter()
                    .zip(&kinds)
                    .map(|(&k, &kind)| {
                        let kind = if rnd(10) == 0 { rnd(12) } else { kind };
                        (k, val(kind, rnd(1000)))
                    })
                    .collect();
                match rnd(40) {
                    0 if fields.len() > 1 => fields.swap(0, 1),
                    1 => {
                        fields.pop();
                    }
                    2 => fields.push((names[rnd(5) as usize], Val::U(1))),
                    3 => fields[0].1 = Val::Skip,
                    4 => fields.iter_mut().for_each(|f| f.0 = fresh(f.0)),
                    _ => {}
                }
                dyn_of(fields)
            })
            .collect();
        taken += usize::from(fast(&rows));
    }
    assert!(taken > 600, "the fast path took {taken} of 3000");
}
