//! Break attempts on tuple list columns, tuple/struct variant tagged columns, and
//! lists of structs as column sets (SPEC §22.2 / §22.3).

use qdf_core::inspect::{ColumnValues, EventKind};
use qdf_core::{Options, Value};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::fmt::Debug;

/// Every column declared in a message: (name, kind).
fn kinds(bytes: &[u8], opts: &Options) -> Vec<(String, u8)> {
    let mut out = Vec::new();
    qdf_core::inspect::message(bytes, opts, &mut |e| {
        if let EventKind::Column { name, kind, .. } = &e.kind {
            out.push((name.to_string(), *kind));
        }
    })
    .expect("inspect");
    out
}

fn has_kind(bytes: &[u8], k: u8) -> bool {
    kinds(bytes, &Options::balanced())
        .iter()
        .any(|(_, x)| *x == k)
}

fn tagged(bytes: &[u8]) -> bool {
    let mut t = false;
    qdf_core::inspect::message(bytes, &Options::balanced(), &mut |e| {
        if let EventKind::Column {
            values: ColumnValues::Tagged { .. },
            ..
        } = &e.kind
        {
            t = true;
        }
    })
    .unwrap();
    t
}

/// Round trip in Balanced and Compression, typed and as `Value` (vs Speed's rows).
/// Returns the Balanced bytes.
fn rt<T: Serialize + DeserializeOwned + PartialEq + Debug>(v: &T) -> Vec<u8> {
    let speed = qdf_core::to_vec_with(v, Options::speed()).unwrap();
    let sv: Value = qdf_core::from_slice(&speed).unwrap();
    let mut bal = Vec::new();
    for opts in [Options::balanced(), Options::compression()] {
        let bytes = qdf_core::to_vec_with(v, opts).unwrap();
        let back: T = qdf_core::from_slice(&bytes).unwrap();
        assert_eq!(&back, v);
        let bv: Value = qdf_core::from_slice(&bytes).unwrap();
        assert_eq!(bv, sv, "Value differs from Speed's");
        qdf_core::inspect::message(&bytes, &opts, &mut |_| {}).unwrap();
        if bal.is_empty() {
            bal = bytes;
        }
    }
    bal
}

/// Same as `rt` for values without PartialEq (floats): Value comparison only.
fn rt_value<T: Serialize + DeserializeOwned>(v: &T) -> Vec<u8> {
    let speed = qdf_core::to_vec_with(v, Options::speed()).unwrap();
    let sv: Value = qdf_core::from_slice(&speed).unwrap();
    let bytes = qdf_core::to_vec_with(v, Options::balanced()).unwrap();
    let bv: Value = qdf_core::from_slice(&bytes).unwrap();
    assert_eq!(bv, sv);
    let back: T = qdf_core::from_slice(&bytes).unwrap();
    let again = qdf_core::to_vec_with(&back, Options::speed()).unwrap();
    assert_eq!(again, speed, "typed round trip changed the value");
    bytes
}

fn rt_check_value(a: &[u8], b: &[u8]) {
    let x: Value = qdf_core::from_slice(a).unwrap();
    let y: Value = qdf_core::from_slice(b).unwrap();
    assert_eq!(x, y);
}

fn msg(e: &qdf_core::Error) -> String {
    let s = e.to_string();
    match s.find(" at ") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

/// Decodes both the Speed (row) and Balanced bytes of `v` into `U`; they must agree.
fn same_as_rows<T: Serialize, U: DeserializeOwned + PartialEq + Debug>(v: &T) -> Result<U, String> {
    let speed = qdf_core::to_vec_with(v, Options::speed()).unwrap();
    let r1 = qdf_core::from_slice::<U>(&speed);
    for opts in [Options::balanced(), Options::compression()] {
        let bytes = qdf_core::to_vec_with(v, opts).unwrap();
        let r2 = qdf_core::from_slice::<U>(&bytes);
        match (&r1, &r2) {
            (Ok(a), Ok(b)) => assert_eq!(a, b),
            (Err(a), Err(b)) => assert_eq!(msg(a), msg(b), "rows: {a} / columns: {b}"),
            _ => panic!("rows {r1:?} vs columns {r2:?}"),
        }
    }
    r1.map_err(|e| msg(&e))
}

// ---------------------------------------------------------------- shapes

#[derive(Serialize, Deserialize, PartialEq, Debug, Clone)]
enum E {
    U,
    N(u32),
    T(u8, String),
    S { x: i64, y: Option<String> },
    T1(u16),
    T0(),
    S0 {},
}

#[derive(Serialize, Deserialize, PartialEq, Debug, Clone)]
struct Row {
    id: u32,
    e: E,
}

fn e_of(i: usize) -> E {
    match i % 7 {
        0 => E::U,
        1 => E::N(i as u32 * 3),
        2 => E::T((i % 256) as u8, format!("s{}", i % 5)),
        3 => E::S {
            x: -(i as i64),
            y: if i.is_multiple_of(2) {
                None
            } else {
                Some(format!("y{i}"))
            },
        },
        4 => E::T1(i as u16),
        5 => E::T0(),
        _ => E::S0 {},
    }
}

fn rows(n: usize) -> Vec<Row> {
    (0..n)
        .map(|i| Row {
            id: i as u32,
            e: e_of(i),
        })
        .collect()
}

#[test]
fn mixed_variants_all_sizes() {
    for n in [0, 1, 2, 14, 15, 16, 17, 100, 1000] {
        rt(&rows(n));
    }
}

/// Which subsets of E's variants become a tagged column: a variant holding a mixed-kind tuple
/// (`T(u8, String)`) or a field-less struct (`S0 {}`) keeps the whole column in rows.
#[test]
fn which_variant_sets_are_tagged() {
    let sets: &[&[usize]] = &[
        &[0, 1, 2, 3, 4, 5, 6],
        &[0, 1, 3, 4],
        &[0, 2],
        &[0, 3],
        &[0, 4],
        &[0, 5],
        &[0, 6],
        &[0, 1, 3, 4, 5],
        &[0, 1, 3, 4, 6],
    ];
    let want = [false, true, false, true, true, true, false, true, false];
    for (set, want) in sets.iter().zip(want) {
        let v: Vec<Row> = (0..200)
            .map(|i| Row {
                id: i as u32,
                e: e_of(set[i % set.len()]),
            })
            .collect();
        let b = rt(&v);
        assert_eq!(
            tagged(&b),
            want,
            "{set:?}: {:?}",
            kinds(&b, &Options::balanced())
        );
    }
}

#[test]
fn only_empty_variants() {
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    enum Z {
        A(),
        B {},
    }
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct R {
        z: Z,
    }
    for n in [1, 2, 16, 17, 100] {
        let v: Vec<R> = (0..n)
            .map(|i| R {
                z: if i % 2 == 0 { Z::A() } else { Z::B {} },
            })
            .collect();
        rt(&v);
    }
}

#[test]
fn one_field_tuple_variant_vs_newtype() {
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    enum Z {
        A(u8),
        B((u8,)),
        C(Vec<u8>),
    }
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct R {
        z: Z,
    }
    let v: Vec<R> = (0..64)
        .map(|i| R {
            z: match i % 3 {
                0 => Z::A(i as u8),
                1 => Z::B((i as u8,)),
                _ => Z::C(vec![i as u8; i % 4]),
            },
        })
        .collect();
    rt(&v);
}

#[test]
fn skip_serializing_if_in_struct_variant() {
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    enum Z {
        S {
            #[serde(skip_serializing_if = "Option::is_none", default)]
            a: Option<u32>,
            b: String,
            #[serde(skip_serializing_if = "Vec::is_empty", default)]
            c: Vec<u8>,
        },
        U,
    }
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct R {
        z: Z,
    }
    let v: Vec<R> = (0..100)
        .map(|i| R {
            z: if i % 5 == 4 {
                Z::U
            } else {
                Z::S {
                    a: (i % 3 == 0).then_some(i),
                    b: format!("b{}", i % 7),
                    c: vec![1; i as usize % 3],
                }
            },
        })
        .collect();
    rt(&v);
}

#[test]
fn nested_enum_in_struct_variant() {
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    enum Inner {
        P(u8, u8),
        Q { r: bool },
        Z,
    }
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    enum Outer {
        S { i: Inner, j: Option<Inner> },
        T(Inner, Inner),
        N(Inner),
    }
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct R {
        o: Outer,
    }
    let inner = |i: usize| match i % 3 {
        0 => Inner::P(i as u8, 1),
        1 => Inner::Q {
            r: i.is_multiple_of(2),
        },
        _ => Inner::Z,
    };
    let v: Vec<R> = (0..200)
        .map(|i| R {
            o: match i % 3 {
                0 => Outer::S {
                    i: inner(i),
                    j: (i % 4 != 0).then(|| inner(i + 1)),
                },
                1 => Outer::T(inner(i), inner(i + 2)),
                _ => Outer::N(inner(i)),
            },
        })
        .collect();
    let b = rt(&v);
    let k = kinds(&b, &Options::balanced());
    assert!(
        k.contains(&("o".into(), 0x08)) && k.contains(&("T".into(), 0x17)),
        "{k:?}"
    );
}

#[test]
fn option_enum_and_option_option_enum() {
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct R {
        a: Option<E>,
        b: Option<Option<E>>,
    }
    for n in [1, 2, 16, 17, 100] {
        let v: Vec<R> = (0..n)
            .map(|i| R {
                a: (i % 3 != 0).then(|| e_of(i)),
                b: match i % 4 {
                    0 => None,
                    1 => Some(None),
                    _ => Some(Some(e_of(i + 1))),
                },
            })
            .collect();
        rt(&v);
        // all Some(Some(..)): a uniform depth of wrapping
        let v: Vec<R> = (0..n)
            .map(|i| R {
                a: Some(e_of(i)),
                b: Some(Some(e_of(i))),
            })
            .collect();
        rt(&v);
    }
}

#[test]
fn rename_all_and_tag_forms() {
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    #[serde(rename_all = "kebab-case")]
    enum K {
        FooBar(u8, u8),
        BazQux { some_field: u8 },
        Unit,
    }
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    #[serde(tag = "t")]
    enum Internal {
        A { x: u8 },
        B { y: String },
        C,
    }
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    #[serde(tag = "t", content = "c")]
    enum Adjacent {
        A(u8, u8),
        B { y: String },
        C,
        D(u32),
    }
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    #[serde(untagged)]
    enum Untagged {
        A(u8, u8),
        B { y: String },
    }
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct R {
        k: K,
        i: Internal,
        a: Adjacent,
        u: Untagged,
    }
    for n in [1, 3, 16, 100] {
        let v: Vec<R> = (0..n)
            .map(|i| R {
                k: match i % 3 {
                    0 => K::FooBar(i as u8, 2),
                    1 => K::BazQux {
                        some_field: i as u8,
                    },
                    _ => K::Unit,
                },
                i: match i % 3 {
                    0 => Internal::A { x: i as u8 },
                    1 => Internal::B { y: format!("{i}") },
                    _ => Internal::C,
                },
                a: match i % 4 {
                    0 => Adjacent::A(i as u8, 2),
                    1 => Adjacent::B { y: format!("{i}") },
                    2 => Adjacent::C,
                    _ => Adjacent::D(i as u32),
                },
                u: if i % 2 == 0 {
                    Untagged::A(1, i as u8)
                } else {
                    Untagged::B { y: "q".into() }
                },
            })
            .collect();
        rt(&v);
    }
}

#[test]
fn flatten_with_enum() {
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Inner {
        e: E,
        t: (u8, u8),
    }
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct R {
        id: u8,
        #[serde(flatten)]
        inner: Inner,
    }
    let v: Vec<R> = (0..50)
        .map(|i| R {
            id: i as u8,
            inner: Inner {
                e: e_of(i),
                t: (i as u8, 0),
            },
        })
        .collect();
    rt(&v);
}

#[derive(Serialize, Deserialize, PartialEq, Debug, Clone)]
struct P {
    x: u16,
    y: String,
}
#[derive(Serialize, Deserialize, PartialEq, Debug, Clone)]
struct TS(u8, String, Option<u32>);
#[derive(Serialize, Deserialize, PartialEq, Debug, Clone)]
struct Unit;

#[test]
fn tuples_of_everything() {
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct R {
        tp: (P, P),
        tt: ((u8, u16), (String, (bool, char))),
        vs: Vec<(String, u64)>,
        ts: TS,
        arr: [u8; 3],
        u: (Unit, (), u8),
        big: (u128, i128),
        e: [E; 2],
    }
    for n in [0, 1, 15, 16, 17, 100, 1000] {
        let v: Vec<R> = (0..n)
            .map(|i| R {
                tp: (
                    P {
                        x: i as u16,
                        y: "a".into(),
                    },
                    P {
                        x: 7,
                        y: format!("{}", i % 3),
                    },
                ),
                tt: ((i as u8, 300), (format!("k{}", i % 4), (i % 2 == 0, 'é'))),
                vs: (0..i % 5)
                    .map(|j| (format!("n{j}"), (j * i) as u64))
                    .collect(),
                ts: TS(i as u8, "ts".into(), (i % 3 == 0).then_some(i as u32)),
                arr: [i as u8, 0, 255],
                u: (Unit, (), i as u8),
                big: if i % 2 == 0 {
                    (u128::MAX, i128::MIN)
                } else {
                    (0, i128::MAX)
                },
                e: [e_of(i), e_of(i + 3)],
            })
            .collect();
        let b = rt(&v);
        if n >= 100 {
            assert!(has_kind(&b, 0x07), "{:?}", kinds(&b, &Options::balanced()));
        }
    }
}

#[test]
fn float_tuples_nan_negzero() {
    #[derive(Serialize, Deserialize, Debug)]
    struct R {
        p: (f32, f32),
        q: (f64, f32),
    }
    let specials32 = [
        f32::NAN,
        -0.0f32,
        f32::from_bits(0x7fc0_1234),
        f32::from_bits(0xffa0_0001),
        f32::INFINITY,
        f32::MIN_POSITIVE / 2.0,
    ];
    let specials64 = [
        f64::NAN,
        -0.0,
        f64::from_bits(0x7ff0_0000_0000_0001),
        f64::NEG_INFINITY,
        1e-310,
    ];
    for n in [1, 16, 100] {
        let v: Vec<R> = (0..n)
            .map(|i| R {
                p: (specials32[i % 6], specials32[(i + 1) % 6]),
                q: (specials64[i % 5], i as f32 * 0.5),
            })
            .collect();
        let speed = qdf_core::to_vec_with(&v, Options::speed()).unwrap();
        for o in [Options::balanced(), Options::compression()] {
            let b = qdf_core::to_vec_with(&v, o).unwrap();
            let back: Vec<R> = qdf_core::from_slice(&b).unwrap();
            for (a, c) in v.iter().zip(&back) {
                assert_eq!(a.p.0.to_bits(), c.p.0.to_bits());
                assert_eq!(a.p.1.to_bits(), c.p.1.to_bits());
                assert_eq!(a.q.0.to_bits(), c.q.0.to_bits());
                assert_eq!(a.q.1.to_bits(), c.q.1.to_bits());
            }
            let sv: Value = qdf_core::from_slice(&speed).unwrap();
            let bv: Value = qdf_core::from_slice(&b).unwrap();
            assert_eq!(sv, bv);
        }
    }
}

#[test]
fn huge_tuples() {
    type H = (
        u8,
        u16,
        u32,
        u64,
        i8,
        i16,
        i32,
        i64,
        String,
        bool,
        char,
        u8,
        u8,
        u8,
        u8,
        u8,
    );
    #[derive(Serialize, Deserialize)]
    struct R {
        h: H,
        a: [u32; 32],
    }
    let v: Vec<R> = (0..100)
        .map(|i| R {
            h: (
                i as u8,
                1,
                2,
                u64::MAX - i,
                -1,
                -300,
                i32::MIN,
                i64::MAX,
                format!("{i}"),
                true,
                'x',
                1,
                2,
                3,
                4,
                5,
            ),
            a: [i as u32; 32],
        })
        .collect();
    let b = rt_value(&v);
    rt_check_value(
        &qdf_core::to_vec_with(&v, Options::compression()).unwrap(),
        &b,
    );
}

#[test]
fn lists_of_structs_any_length() {
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct R {
        k: u8,
        ps: Vec<P>,
    }
    for n in [1, 2, 16, 17, 40] {
        for per in [0usize, 1, 15, 16, 17, 50, 200] {
            let v: Vec<R> = (0..n)
                .map(|i| R {
                    k: i as u8,
                    ps: (0..(per + i) % 201)
                        .map(|j| P {
                            x: j as u16,
                            y: format!("{}", j % 9),
                        })
                        .collect(),
                })
                .collect();
            let b = rt(&v);
            // Lists averaging 16..64 structs are one column set (SPEC §22.2); longer ones stay
            // containers of their own.
            let mean = v.iter().map(|r| r.ps.len()).sum::<usize>() / n;
            if n >= 16 && (16..64).contains(&mean) {
                assert!(
                    has_kind(&b, 0x07) && has_kind(&b, 0x05),
                    "n={n} per={per} {:?}",
                    kinds(&b, &Options::balanced())
                );
            }
            if n >= 16 && mean >= 64 {
                assert!(
                    !has_kind(&b, 0x07),
                    "n={n} per={per} {:?}",
                    kinds(&b, &Options::balanced())
                );
            }
        }
    }
}

// ---------------------------------------------------------------- other targets

#[derive(Serialize, Deserialize, PartialEq, Debug, Clone)]
enum G {
    U,
    T(u8, u8),
    S { x: u8, y: Option<u16> },
    N(u32),
}
#[derive(Serialize, Deserialize, PartialEq, Debug, Clone)]
struct GR {
    id: u16,
    a: G,
}
fn g_rows(n: usize) -> Vec<GR> {
    (0..n)
        .map(|i| GR {
            id: i as u16,
            a: match i % 4 {
                0 => G::U,
                1 => G::T(i as u8, 2),
                2 => G::S {
                    x: i as u8,
                    y: (i % 3 == 0).then_some(i as u16),
                },
                _ => G::N(i as u32),
            },
        })
        .collect()
}

#[test]
fn g_is_tagged_with_17_and_15() {
    for n in [16, 100] {
        let b = rt(&g_rows(n));
        let k = kinds(&b, &Options::balanced());
        assert!(
            k.contains(&("T".into(), 0x17)) && k.contains(&("S".into(), 0x15)),
            "n={n} {k:?}"
        );
    }
}

#[test]
fn tuple_variant_read_as_struct_variant_and_back() {
    #[derive(Deserialize, PartialEq, Debug)]
    enum Swapped {
        U,
        T { a: u8, b: u8 },
        S(u8, Option<u16>),
        N(u32),
    }
    #[derive(Deserialize, PartialEq, Debug)]
    struct R {
        id: u16,
        a: Swapped,
    }
    for n in [4, 16, 100] {
        let r = same_as_rows::<_, Vec<R>>(&g_rows(n));
        assert_eq!(
            r,
            Err("expected a struct variant, found a tuple variant".to_string())
        );
    }
}

#[test]
fn variants_read_as_newtype() {
    #[derive(Deserialize, PartialEq, Debug)]
    enum AsNewtype {
        U,
        T(Vec<u8>),
        S(BTreeMap<String, Option<u16>>),
        N(u32),
    }
    #[derive(Deserialize, PartialEq, Debug)]
    struct R {
        id: u16,
        a: AsNewtype,
    }
    #[derive(Deserialize, PartialEq, Debug)]
    enum AsNewtype2 {
        U,
        T((u8, u8)),
        S(Sx),
        N(u32),
    }
    #[derive(Deserialize, PartialEq, Debug)]
    struct Sx {
        x: u8,
        y: Option<u16>,
    }
    #[derive(Deserialize, PartialEq, Debug)]
    struct R2 {
        id: u16,
        a: AsNewtype2,
    }
    for n in [4, 16, 100] {
        assert_eq!(
            same_as_rows::<_, Vec<R>>(&g_rows(n)).err().as_deref(),
            Some("expected a newtype variant, found a tuple variant")
        );
        assert_eq!(
            same_as_rows::<_, Vec<R2>>(&g_rows(n)).err().as_deref(),
            Some("expected a newtype variant, found a tuple variant")
        );
        // a unit variant read as a newtype, a newtype read as unit
        #[derive(Deserialize, PartialEq, Debug)]
        enum Wrong {
            U(u8),
            T(u8, u8),
            S { x: u8, y: Option<u16> },
            N,
        }
        #[derive(Deserialize, PartialEq, Debug)]
        struct R3 {
            id: u16,
            a: Wrong,
        }
        assert!(same_as_rows::<_, Vec<R3>>(&g_rows(n)).is_err());
        // arity mismatch
        #[derive(Deserialize, PartialEq, Debug)]
        enum Arity {
            U,
            T(u8, u8, u8),
            S { x: u8 },
            N(u32),
        }
        #[derive(Deserialize, PartialEq, Debug)]
        struct R4 {
            id: u16,
            a: Arity,
        }
        let arity = "invalid length 2, expected tuple variant Arity::T with 3 elements";
        assert_eq!(
            same_as_rows::<_, Vec<R4>>(&g_rows(n)).err().as_deref(),
            Some(arity)
        );
        #[derive(Deserialize, PartialEq, Debug)]
        enum Short {
            U,
            T(u8),
            S { x: u8, y: Option<u16> },
            N(u32),
        }
        #[derive(Deserialize, PartialEq, Debug)]
        struct R5 {
            id: u16,
            a: Short,
        }
        assert_eq!(
            same_as_rows::<_, Vec<R5>>(&g_rows(n)).err().as_deref(),
            Some("expected a newtype variant, found a tuple variant")
        );
        #[derive(Deserialize, PartialEq, Debug)]
        enum Fewer {
            U,
            T(u8, u8),
            N(u32),
        }
        #[derive(Deserialize, PartialEq, Debug)]
        struct R6 {
            id: u16,
            a: Fewer,
        }
        let fewer = "unknown variant `S`, expected one of `U`, `T`, `N`";
        assert_eq!(
            same_as_rows::<_, Vec<R6>>(&g_rows(n)).err().as_deref(),
            Some(fewer)
        );
    }
}

#[test]
fn into_json_and_maps() {
    for n in [4, 16, 100] {
        let v = g_rows(n);
        same_as_rows::<_, serde_json::Value>(&v).unwrap();
        same_as_rows::<_, Vec<HashMap<String, serde_json::Value>>>(&v).unwrap();
        same_as_rows::<_, Vec<BTreeMap<String, Value>>>(&v).unwrap();
        same_as_rows::<_, Vec<HashMap<String, Value>>>(&v).unwrap();
        // serde_json::Value of the enum itself
        #[derive(Deserialize, PartialEq, Debug)]
        struct J {
            a: serde_json::Value,
        }
        let j = same_as_rows::<_, Vec<J>>(&v).unwrap();
        assert_eq!(j[1].a, serde_json::json!({"T": [1, 2]}));
        assert_eq!(j[2].a, serde_json::json!({"S": {"x": 2, "y": null}}));
        assert_eq!(j[0].a, serde_json::json!("U"));
        // ignored
        #[derive(Deserialize, PartialEq, Debug)]
        struct Sub {
            id: u16,
        }
        same_as_rows::<_, Vec<Sub>>(&v).unwrap();
        #[derive(Deserialize, PartialEq, Debug)]
        struct Sub2 {
            a: serde::de::IgnoredAny,
            id: u16,
        }
        same_as_rows::<_, Vec<Sub2>>(&v).unwrap();
        #[derive(Deserialize, PartialEq, Debug)]
        #[serde(deny_unknown_fields)]
        struct Deny {
            id: u16,
        }
        let deny = "unknown field `a`, expected `id`";
        assert_eq!(
            same_as_rows::<_, Vec<Deny>>(&v).err().as_deref(),
            Some(deny)
        );
        #[derive(Deserialize, PartialEq, Debug)]
        #[serde(deny_unknown_fields)]
        enum DenyE {
            U,
            T(u8, u8),
            S { x: u8 },
            N(u32),
        }
        #[derive(Deserialize, PartialEq, Debug)]
        struct Deny2 {
            id: u16,
            a: DenyE,
        }
        let deny2 = "unknown field `y`, expected `x`";
        assert_eq!(
            same_as_rows::<_, Vec<Deny2>>(&v).err().as_deref(),
            Some(deny2)
        );
        // Value typed, as a Vec of (u16, Value) tuples (struct read as seq)
        // struct read as a seq: rows say "found a map" (Speed) -- compared below separately
        let speed = qdf_core::to_vec_with(&v, Options::speed()).unwrap();
        let bal = qdf_core::to_vec_with(&v, Options::balanced()).unwrap();
        assert!(qdf_core::from_slice::<Vec<(u16, Value)>>(&speed).is_err());
        assert!(qdf_core::from_slice::<Vec<(u16, Value)>>(&bal).is_err());
    }
}

// ---------------------------------------------------------------- hand-made bytes

fn hex(s: &str) -> Vec<u8> {
    let mut v = b"QDF\x01\x00".to_vec();
    v.extend(
        s.split_whitespace()
            .map(|b| u8::from_str_radix(b, 16).unwrap()),
    );
    v
}

/// Decode as Value and inspect: they must agree. Returns the decoded Value or the error.
fn check(bytes: &[u8], opts: &Options) -> Result<Value, String> {
    let d = qdf_core::from_slice_with::<Value>(bytes, *opts);
    let i = qdf_core::inspect::message(bytes, opts, &mut |_| {});
    assert_eq!(
        d.is_ok(),
        i.is_ok(),
        "decoder {d:?} vs inspect {i:?} on {bytes:02x?}"
    );
    d.map_err(|e| e.to_string())
}

#[test]
fn positive_controls() {
    let o = Options::balanced();
    // spec vector (6 rows U/T/S)
    let v = check(&hex("ef 06 00 01 81 61 08 03 81 54 17 01 81 53 15 01 81 78 01 81 55 0f a6 00 01 02 01 00 02 a2 02 02 a4 01 02 05 06 a2 03 04"), &o).unwrap();
    assert!(matches!(&v, Value::Array(rows) if rows.len() == 6), "{v:?}");
    // list column of u16 (spec)
    check(
        &hex("ef 02 00 01 81 76 07 01 a2 05 05 e6 03 00 e8 07 02 0a"),
        &o,
    )
    .unwrap();
    // struct column with a list child
    check(
        &hex("ef 02 00 01 81 70 05 01 81 76 07 01 a2 05 05 e6 03 00 e8 07 02 0a"),
        &o,
    )
    .unwrap();
    // list of struct
    check(
        &hex("ef 02 00 01 81 76 07 05 01 81 78 01 a2 01 01 a2 03 04"),
        &o,
    )
    .unwrap();
    // map whose value column is a struct
    check(
        &hex("ef 02 00 01 81 6d 09 04 05 01 81 78 01 a2 02 01 81 61 81 62 81 61 a3 01 02 03"),
        &o,
    )
    .unwrap();
    // map-form tagged column with a list payload (no bit 10): fine
    check(
        &hex("ef 02 00 01 81 61 18 01 81 54 07 01 a2 00 00 a2 02 02 a4 01 02 05 06"),
        &o,
    )
    .unwrap();
    // tuple variant whose single field is a list (element kind 07)
    let v = check(
        &hex("ef 02 00 01 81 61 08 01 81 54 17 07 01 a2 00 00 a2 01 01 a2 02 02 a4 01 02 05 06"),
        &o,
    )
    .unwrap();
    assert_eq!(
        v,
        table_of(vec![tv(vec![tv_list(&[1, 2])]), tv(vec![tv_list(&[5, 6])])])
    );
    // bit 20 (Some) around tuple variants: allowed (enum form)
    let v = check(
        &hex("ef 02 00 01 81 61 28 01 81 54 17 01 a2 00 00 a2 02 02 a4 01 02 05 06"),
        &o,
    )
    .unwrap();
    let some = |x: Value| Value::Some(Box::new(x));
    assert_eq!(
        v,
        table_of(vec![some(tv(uints(&[1, 2]))), some(tv(uints(&[5, 6])))])
    );
    // nullable tagged column (88) around tuple variants
    let v = check(
        &hex("ef 03 00 01 81 61 88 01 81 54 17 01 05 a2 00 00 a2 02 02 a4 01 02 05 06"),
        &o,
    )
    .unwrap();
    assert_eq!(
        v,
        table_of(vec![tv(uints(&[1, 2])), Value::Nil, tv(uints(&[5, 6]))])
    );
    // tuple variant whose list lengths differ per slot (rows can say that too)
    let v = check(
        &hex("ef 02 00 01 81 61 08 01 81 54 17 01 a2 00 00 a2 01 03 a4 01 02 05 06"),
        &o,
    )
    .unwrap();
    assert_eq!(v, table_of(vec![tv(uints(&[1])), tv(uints(&[2, 5, 6]))]));
    #[derive(Deserialize, Debug)]
    struct R {
        #[allow(dead_code)]
        a: G,
    }
    let e = qdf_core::from_slice::<Vec<R>>(&hex(
        "ef 02 00 01 81 61 08 01 81 54 17 01 a2 00 00 a2 01 03 a4 01 02 05 06",
    ))
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "invalid length 1, expected tuple variant G::T with 2 elements at byte 20"
    );
    // a struct variant whose fields struct has an optional child (presence mask)
    // nested: tagged variant whose payload is a tagged column with a tuple variant
    let v = check(&hex("ef 02 00 01 81 61 08 01 81 4e 08 01 81 54 17 01 a2 00 00 a2 00 00 a2 02 02 a4 01 02 05 06"), &o).unwrap();
    let n = |x: Value| var(qdf_core::VariantKind::Newtype, "N", x);
    assert_eq!(
        v,
        table_of(vec![n(tv(uints(&[1, 2]))), n(tv(uints(&[5, 6])))])
    );
}

/// `[{a: x} for x in cells]`, the rows of the hand-made messages above.
fn table_of(cells: Vec<Value>) -> Value {
    Value::Array(
        cells
            .into_iter()
            .map(|x| Value::Map(vec![(s("a"), x)]))
            .collect(),
    )
}

fn uints(xs: &[u64]) -> Vec<Value> {
    xs.iter().map(|&x| Value::U64(x)).collect()
}

/// The tuple variant `T(fields..)`.
fn tv(fields: Vec<Value>) -> Value {
    var(qdf_core::VariantKind::Tuple, "T", Value::Array(fields))
}

fn tv_list(xs: &[u64]) -> Value {
    Value::Array(uints(xs))
}

#[test]
fn forbidden_bit_10_places() {
    let o = Options::balanced();
    let bad = [
        // top level 15 / 17 (spec has 15; try 17 and nullable/optional forms)
        "ef 02 00 01 81 65 15 01 81 78 01 a2 03 04",
        "ef 02 00 01 81 76 17 01 a2 05 05 e6 03 00 e8 07 02 0a",
        "ef 02 00 01 81 76 97 01 03 a2 05 05 e6 03 00 e8 07 02 0a",
        "ef 02 00 01 81 76 57 01 03 a2 05 05 e6 03 00 e8 07 02 0a",
        // child of a struct
        "ef 02 00 01 81 70 05 01 81 76 17 01 a2 05 05 e6 03 00 e8 07 02 0a",
        "ef 02 00 01 81 65 05 01 81 53 15 01 81 78 01 a2 03 04",
        // element of a list
        "ef 02 00 01 81 76 07 15 01 81 78 01 a2 01 01 a2 03 04",
        "ef 02 00 01 81 76 07 17 01 a2 01 01 a2 01 01 a2 03 04",
        // map value column
        "ef 02 00 01 81 6d 09 04 15 01 81 78 01 a2 02 01 81 61 81 62 81 61 a3 01 02 03",
        // map key column
        "ef 02 00 01 81 6d 09 17 01 01 a2 01 01 a2 01 01 a2 03 04 a2 01 02",
        // map-form tagged with a tuple variant
        "ef 02 00 01 81 61 18 01 81 54 17 01 a2 00 00 a2 02 02 a4 01 02 05 06",
        // nullable / optional / bit-20 tuple variant
        "ef 02 00 01 81 61 08 01 81 54 97 01 a2 00 00 03 a2 02 02 a4 01 02 05 06",
        "ef 02 00 01 81 61 08 01 81 54 57 01 a2 00 00 03 a2 02 02 a4 01 02 05 06",
        "ef 02 00 01 81 61 08 01 81 54 37 01 a2 00 00 a2 02 02 a4 01 02 05 06",
        "ef 02 00 01 81 61 08 01 81 53 35 01 81 78 01 a2 00 00 a2 03 04",
        "ef 02 00 01 81 61 08 01 81 53 d5 01 81 78 01 a2 00 00 03 a2 03 04",
        // element of a tuple variant's list with bit 10
        "ef 02 00 01 81 61 08 01 81 54 17 17 01 a2 00 00 a2 01 01 a2 02 02 a4 01 02 05 06",
        // struct variant whose field is a 15
        "ef 02 00 01 81 61 08 01 81 53 15 01 81 78 15 01 81 7a 01 a2 00 00 a2 03 04",
        // bit 10 on a leaf inside a variant (uint 11 = number text?) skipped; bit 10 on a unit 1f
        "ef 02 00 01 81 61 08 01 81 55 1f a2 00 00",
        // bit 10 on a tagged variant column (18) inside an enum-form tagged column: map form nested is fine? no: unit inside map form
        "ef 02 00 01 81 61 08 01 81 4e 18 01 81 55 0f a2 00 00 a2 00 00",
    ];
    for (i, h) in bad.iter().enumerate() {
        let r = check(&hex(h), &o);
        let e = r.expect_err(h);
        assert!(e.starts_with("malformed codec body: "), "case {i}: {e}");
    }
}

// ---------------------------------------------------------------- hostile bytes

#[derive(Serialize, Deserialize, PartialEq, Debug, Clone)]
struct Mix {
    g: G,
    t: (u16, u16),
    ps: Vec<P>,
    o: Option<G>,
}
fn mix_rows(n: usize) -> Vec<Mix> {
    (0..n)
        .map(|i| Mix {
            g: g_rows(i + 1).pop().unwrap().a,
            t: (i as u16, 7),
            ps: (0..i % 20)
                .map(|j| P {
                    x: j as u16,
                    y: format!("{}", j % 3),
                })
                .collect(),
            o: (i % 2 == 0).then(|| g_rows(i + 3).pop().unwrap().a),
        })
        .collect()
}

/// Every truncation, bit flip and kind-byte overwrite of `bytes`: the decoder and the walker
/// agree (`check`), and typed targets return (an error or a value) without panicking.
fn hammer(bytes: &[u8], opts: &Options) {
    let try_one = |b: &[u8]| {
        let _ = check(b, opts);
        let _ = qdf_core::from_slice_with::<Vec<Mix>>(b, *opts);
        let _ = qdf_core::from_slice_with::<Vec<GR>>(b, *opts);
        let _ = qdf_core::from_slice_with::<serde_json::Value>(b, *opts);
    };
    for len in 0..bytes.len() {
        try_one(&bytes[..len]);
    }
    for i in 5..bytes.len() {
        for x in [0x01u8, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0xff] {
            let mut b = bytes.to_vec();
            b[i] ^= x;
            try_one(&b);
        }
        for set in [0x15u8, 0x17, 0x18, 0x08, 0x97, 0x95, 0x00, 0x7f] {
            let mut b = bytes.to_vec();
            b[i] = set;
            try_one(&b);
        }
    }
}

#[test]
fn hostile_flips_and_truncations() {
    for opts in [
        Options::balanced().max_output(4096),
        Options::balanced().max_output(200),
        Options::balanced(),
    ] {
        for enc in [Options::balanced(), Options::compression()] {
            let b = qdf_core::to_vec_with(&g_rows(16), enc).unwrap();
            assert!(has_kind(&b, 0x17));
            hammer(&b, &opts);
            let b = qdf_core::to_vec_with(&mix_rows(20), enc).unwrap();
            assert!(
                has_kind(&b, 0x15) && has_kind(&b, 0x17),
                "{:?}",
                kinds(&b, &Options::balanced())
            );
            hammer(&b, &opts);
        }
    }
}

#[test]
fn mix_round_trips() {
    for n in [1, 2, 3, 16, 17, 100, 500] {
        rt(&mix_rows(n));
    }
}

// ---------------------------------------------------------------- sessions

#[derive(Debug)]
struct FailAt(usize);
impl Serialize for FailAt {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.0 == 13 {
            Err(serde::ser::Error::custom("boom"))
        } else {
            s.serialize_u64(self.0 as u64)
        }
    }
}
#[derive(Serialize)]
struct Failing {
    g: G,
    t: (u16, u16),
    ps: Vec<P>,
    f: FailAt,
}

#[test]
fn sessions_with_tuple_and_variant_columns() {
    for opts in [Options::balanced(), Options::compression()] {
        let mut enc = qdf_core::EncoderSession::new(opts);
        let mut buf = Vec::new();
        let mut expect: Vec<Vec<Mix>> = Vec::new();
        for round in 0..12usize {
            let v = mix_rows([16, 17, 1, 100, 2, 40][round % 6] + round);
            if round == 5 || round == 9 {
                // a frame whose serialization fails in the middle (after the columns were planned)
                let bad: Vec<Failing> = (0..40)
                    .map(|i| Failing {
                        g: g_rows(i + 1).pop().unwrap().a,
                        t: (1, 2),
                        ps: vec![
                            P {
                                x: 1,
                                y: format!("fresh{round}-{i}")
                            };
                            i % 3
                        ],
                        f: FailAt(i),
                    })
                    .collect();
                let before = buf.len();
                assert!(enc.encode_frame(&bad, &mut buf).is_err());
                assert_eq!(buf.len(), before);
            }
            enc.encode_frame(&v, &mut buf).unwrap();
            expect.push(v);
        }
        let mut dec = qdf_core::DecoderSession::new(opts);
        let mut at = 0;
        for (k, want) in expect.iter().enumerate() {
            let (got, used): (Vec<Mix>, usize) = dec
                .decode_frame(&buf[at..])
                .unwrap_or_else(|e| panic!("frame {k}: {e}"))
                .unwrap();
            assert_eq!(&got, want, "frame {k}");
            at += used;
        }
        assert_eq!(at, buf.len());
        // the same stream read as Values vs a Speed session's
        let mut enc2 = qdf_core::EncoderSession::new(Options::speed());
        let mut buf2 = Vec::new();
        for v in &expect {
            enc2.encode_frame(v, &mut buf2).unwrap();
        }
        let mut d1 = qdf_core::DecoderSession::new(opts);
        let mut d2 = qdf_core::DecoderSession::new(Options::speed());
        let (mut a1, mut a2) = (0, 0);
        for _ in &expect {
            let (x, u1): (Value, usize) = d1.decode_frame(&buf[a1..]).unwrap().unwrap();
            let (y, u2): (Value, usize) = d2.decode_frame(&buf2[a2..]).unwrap().unwrap();
            assert_eq!(x, y);
            a1 += u1;
            a2 += u2;
        }
    }
}

#[test]
fn session_output_limit_failure_midway() {
    // a frame refused for the output limit, then more frames
    let opts = Options::balanced().max_output(20_000);
    let mut enc = qdf_core::EncoderSession::new(opts);
    let mut buf = Vec::new();
    let mut expect = Vec::new();
    for round in 0..6 {
        if round == 3 {
            let huge = mix_rows(3000);
            assert!(enc.encode_frame(&huge, &mut buf).is_err());
        }
        let v = mix_rows(20 + round);
        enc.encode_frame(&v, &mut buf).unwrap();
        expect.push(v);
    }
    let mut dec = qdf_core::DecoderSession::new(opts);
    let mut at = 0;
    for want in &expect {
        let (got, used): (Vec<Mix>, usize) = dec.decode_frame(&buf[at..]).unwrap().unwrap();
        assert_eq!(&got, want);
        at += used;
    }
}

// ---------------------------------------------------------------- Value-built variants

fn var(kind: qdf_core::VariantKind, name: &str, value: Value) -> Value {
    Value::Variant(Box::new(qdf_core::Variant {
        kind,
        name: name.into(),
        value,
    }))
}
fn s(x: &str) -> Value {
    Value::Str(x.into())
}
#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct VR {
    id: u64,
    v: Value,
}
fn table(n: usize, f: impl Fn(usize) -> Value) -> Vec<VR> {
    (0..n)
        .map(|i| VR {
            id: i as u64,
            v: f(i),
        })
        .collect()
}

/// Value round trip in every tier; returns the Balanced bytes' column kinds (none when the
/// rows are too few for columns, or when every tier refuses the value alike).
fn vrt(v: &[VR]) -> Vec<(String, u8)> {
    let speed = qdf_core::to_vec_with(v, Options::speed());
    let mut k = Vec::new();
    for o in [Options::balanced(), Options::compression()] {
        let b = qdf_core::to_vec_with(v, o);
        match (&speed, &b) {
            (Ok(sp), Ok(b)) => {
                let x: Value = qdf_core::from_slice(sp).unwrap();
                let y: Value = qdf_core::from_slice(b).unwrap_or_else(|e| panic!("decode: {e}"));
                assert_eq!(x, y, "kinds {:?}", kinds(b, &Options::balanced()));
                let typed: Vec<VR> =
                    qdf_core::from_slice(b).unwrap_or_else(|e| panic!("typed decode: {e}"));
                assert_eq!(&typed, v);
                if k.is_empty() {
                    k = kinds(b, &Options::balanced());
                }
            }
            (Err(a), Err(b)) => assert_eq!(msg(a), msg(b)),
            _ => panic!("speed {:?} vs {:?}", speed.as_ref().err(), b.as_ref().err()),
        }
    }
    k
}

#[test]
fn value_variants_odd_shapes() {
    // Shapes a tagged column does not take: the column stays in rows (kind 0f).
    fn rows(n: usize, f: impl Fn(usize) -> Value) {
        let k = vrt(&table(n, f));
        let want: Vec<(String, u8)> = if n < 16 {
            vec![]
        } else {
            vec![("id".into(), 0x01), ("v".into(), 0x0f)]
        };
        assert_eq!(k, want, "n={n}");
    }
    fn refused(k: Vec<(String, u8)>) {
        assert!(k.is_empty(), "{k:?}");
    }
    use qdf_core::VariantKind::*;
    for n in [2, 16, 40] {
        // ragged tuple variants
        rows(n, |i| {
            var(
                Tuple,
                "T",
                Value::Array((0..i % 4).map(|j| Value::U64(j as u64)).collect()),
            )
        });
        // struct variant fields in varying order
        rows(n, |i| {
            let m = if i % 2 == 0 {
                vec![(s("x"), Value::U64(1)), (s("y"), Value::U64(2))]
            } else {
                vec![(s("y"), Value::U64(3)), (s("x"), Value::U64(4))]
            };
            var(Struct, "S", Value::Map(m))
        });
        // struct variant fields, some missing
        rows(n, |i| {
            let mut m = vec![(s("x"), Value::U64(i as u64))];
            if i % 3 == 0 {
                m.push((s("y"), s("yy")));
            }
            var(Struct, "S", Value::Map(m))
        });
        // duplicate field names in a struct variant
        rows(n, |i| {
            var(
                Struct,
                "S",
                Value::Map(vec![
                    (s("x"), Value::U64(i as u64)),
                    (s("x"), Value::U64(9)),
                ]),
            )
        });
        // non-string keys in a struct variant
        rows(n, |i| {
            var(
                Struct,
                "S",
                Value::Map(vec![(Value::U64(1), Value::U64(i as u64))]),
            )
        });
        // same name as tuple and struct variant
        rows(n, |i| {
            if i % 2 == 0 {
                var(Tuple, "A", Value::Array(vec![Value::U64(1), Value::U64(2)]))
            } else {
                var(Struct, "A", Value::Map(vec![(s("x"), Value::U64(1))]))
            }
        });
        // empty and unicode variant names
        rows(n, |i| {
            if i % 2 == 0 {
                var(Tuple, "", Value::Array(vec![Value::U64(1), Value::U64(2)]))
            } else {
                var(Struct, "ünï\u{0}", Value::Map(vec![(s(""), Value::U64(1))]))
            }
        });
        // tuple variant of mixed element kinds
        rows(n, |i| {
            var(
                Tuple,
                "T",
                Value::Array(vec![Value::U64(i as u64), s("x"), Value::Nil]),
            )
        });
        // tuple variant holding Nil / Some(Nil) / Unit elements
        rows(n, |i| {
            var(
                Tuple,
                "T",
                Value::Array(vec![
                    if i % 2 == 0 {
                        Value::Nil
                    } else {
                        Value::U64(3)
                    },
                    Value::Some(Box::new(Value::Nil)),
                    Value::Unit,
                ]),
            )
        });
        // tuple variant of floats f32/f64 mixed
        rows(n, |i| {
            var(
                Tuple,
                "T",
                Value::Array(vec![
                    Value::F32(-0.0),
                    Value::F64(f64::NAN),
                    Value::F32(i as f32),
                ]),
            )
        });
        // int/uint extremes in a tuple variant
        rows(n, |i| {
            var(
                Tuple,
                "T",
                Value::Array(vec![
                    Value::U64(u64::MAX),
                    Value::I64(i64::MIN + i as i64),
                    Value::U128(u128::MAX),
                    Value::I128(i128::MIN),
                ]),
            )
        });
        // Some-wrapped struct variant alongside bare ones
        rows(n, |i| {
            let v = var(
                Struct,
                "S",
                Value::Map(vec![(s("x"), Value::U64(i as u64))]),
            );
            if i % 2 == 0 {
                Value::Some(Box::new(v))
            } else {
                v
            }
        });
        // nested tuple variants inside tuple variants
        rows(n, |i| {
            var(
                Tuple,
                "T",
                Value::Array(vec![
                    var(
                        Tuple,
                        "I",
                        Value::Array(vec![Value::U64(i as u64), Value::U64(1)]),
                    ),
                    var(Tuple, "I", Value::Array(vec![Value::U64(2), Value::U64(3)])),
                ]),
            )
        });
        // struct variant whose field holds a list of struct variants
        rows(n, |i| {
            var(
                Struct,
                "S",
                Value::Map(vec![(
                    s("l"),
                    Value::Array(
                        (0..i % 20)
                            .map(|j| {
                                var(
                                    Struct,
                                    "Q",
                                    Value::Map(vec![(s("q"), Value::U64(j as u64))]),
                                )
                            })
                            .collect(),
                    ),
                )]),
            )
        });
        // tuple variant with a bytes element and a char element
        rows(n, |i| {
            var(
                Tuple,
                "T",
                Value::Array(vec![
                    Value::Bytes(vec![i as u8; i % 3]),
                    Value::Bytes(vec![]),
                ]),
            )
        });
        rows(n, |i| {
            var(
                Tuple,
                "T",
                Value::Array(vec![
                    Value::Char('é'),
                    Value::Char(char::from_u32(0x10000 + i as u32).unwrap()),
                ]),
            )
        });
        // a Tuple-kind variant whose payload is not an array, Struct-kind not a map
        refused(vrt(&table(n, |i| var(Tuple, "T", Value::U64(i as u64)))));
        refused(vrt(&table(n, |i| {
            var(Struct, "S", Value::Array(vec![Value::U64(i as u64)]))
        })));
    }
}

#[test]
fn tuple_float_widths_and_int_signs() {
    #[derive(Serialize, Deserialize, Debug)]
    struct R {
        a: (f32, f64),
        b: (u8, i64),
        c: (u64, i8),
        d: (char, String),
        e: (Option<u8>, u8),
        f: (Option<()>, Option<Option<u8>>),
    }
    #[derive(Serialize, Deserialize, Debug)]
    enum V {
        F(f32, f64),
        I(u64, i64),
        O(Option<u8>, Option<u8>),
    }
    #[derive(Serialize, Deserialize, Debug)]
    struct R2 {
        v: V,
    }
    for n in [1, 16, 100] {
        let v: Vec<R> = (0..n)
            .map(|i| R {
                a: (i as f32 * 0.1, -(i as f64) * 1e300),
                b: (i as u8, -(i as i64)),
                c: (u64::MAX - i as u64, -1),
                d: ('x', format!("{i}")),
                e: ((i % 2 == 0).then_some(1), 2),
                f: (
                    (i % 2 == 0).then_some(()),
                    match i % 3 {
                        0 => None,
                        1 => Some(None),
                        _ => Some(Some(i as u8)),
                    },
                ),
            })
            .collect();
        let b = rt_value(&v);
        assert_eq!(kinds(&b, &Options::balanced()).is_empty(), n < 16);
        let v: Vec<R2> = (0..n)
            .map(|i| R2 {
                v: match i % 3 {
                    0 => V::F(f32::from_bits(0x7fa0_0000 + i as u32), -0.0),
                    1 => V::I(u64::MAX, i64::MIN),
                    _ => V::O(None, Some(i as u8)),
                },
            })
            .collect();
        rt_value(&v);
    }
}

// ---------------------------------------------------------------- hand-driven serializers

/// A variant written by hand: (variant index, name, kind, fields).
#[derive(Clone, Debug)]
enum HV {
    Tup(u32, &'static str, usize, Vec<u64>), // declared len, actual fields
    Str(
        u32,
        &'static str,
        usize,
        Vec<(&'static str, u64)>,
        Vec<&'static str>,
    ), // len, fields, skipped
    Unit(u32, &'static str),
    New(u32, &'static str, u64),
}
impl Serialize for HV {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeStructVariant, SerializeTupleVariant};
        match self {
            HV::Tup(i, n, len, f) => {
                let mut t = s.serialize_tuple_variant("HV", *i, n, *len)?;
                for x in f {
                    t.serialize_field(x)?;
                }
                t.end()
            }
            HV::Str(i, n, len, f, skip) => {
                let mut t = s.serialize_struct_variant("HV", *i, n, *len)?;
                for (k, x) in f {
                    t.serialize_field(k, x)?;
                }
                for k in skip {
                    t.skip_field(k)?;
                }
                t.end()
            }
            HV::Unit(i, n) => s.serialize_unit_variant("HV", *i, n),
            HV::New(i, n, x) => s.serialize_newtype_variant("HV", *i, n, x),
        }
    }
}
#[derive(Serialize)]
struct HR {
    id: u64,
    v: HV,
}

/// Round trip of hand-serialized variants in every tier (as `Value`, against the Speed rows).
/// Returns whether the Balanced bytes of 200 rows hold a tagged column (`None`: every tier
/// refuses the value alike).
fn hrt(name: &str, f: impl Fn(usize) -> HV) -> Option<bool> {
    let mut tagged_at_200 = None;
    for n in [2, 16, 40, 200] {
        let v: Vec<HR> = (0..n)
            .map(|i| HR {
                id: i as u64,
                v: f(i),
            })
            .collect();
        let speed = qdf_core::to_vec_with(&v, Options::speed());
        for o in [Options::balanced(), Options::compression()] {
            let b = qdf_core::to_vec_with(&v, o);
            match (&speed, &b) {
                (Ok(sp), Ok(b)) => {
                    let x: Value = qdf_core::from_slice(sp).unwrap();
                    let y: Value = qdf_core::from_slice(b).unwrap_or_else(|e| {
                        panic!("{name} n={n}: decode: {e}; kinds {:?}", kinds(b, &o))
                    });
                    assert_eq!(x, y, "{name} n={n}: kinds {:?}", kinds(b, &o));
                    if n == 200 && o == Options::balanced() {
                        tagged_at_200 = Some(tagged(b));
                    }
                }
                (Err(a), Err(c)) => assert_eq!(msg(a), msg(c), "{name} n={n}"),
                _ => panic!(
                    "{name} n={n}: speed {:?} vs {:?}",
                    speed.as_ref().err(),
                    b.as_ref().err()
                ),
            }
        }
    }
    tagged_at_200
}

#[test]
fn hand_driven_variants() {
    // A tagged column takes a variant name of one kind with fields in one order (skips are
    // absent fields); any other mix keeps the column in rows.
    assert_eq!(
        hrt("control", |i| if i % 2 == 0 {
            HV::Tup(1, "T", 2, vec![i as u64, 1])
        } else {
            HV::Str(2, "S", 1, vec![("x", i as u64)], vec![])
        }),
        Some(true)
    );
    assert_eq!(
        hrt("ragged tuple", |i| HV::Tup(
            1,
            "T",
            i % 4,
            (0..i % 4).map(|j| j as u64).collect()
        )),
        Some(true)
    );
    assert_eq!(
        hrt("lying len", |i| HV::Tup(
            1,
            "T",
            2,
            (0..1 + i % 3).map(|j| j as u64).collect()
        )),
        Some(true)
    );
    assert_eq!(
        hrt("field order", |i| if i % 2 == 0 {
            HV::Str(2, "S", 2, vec![("x", 1), ("y", i as u64)], vec![])
        } else {
            HV::Str(2, "S", 2, vec![("y", i as u64), ("x", 1)], vec![])
        }),
        Some(false)
    );
    assert_eq!(
        hrt("skipped fields", |i| if i % 2 == 0 {
            HV::Str(2, "S", 2, vec![("x", 1), ("y", i as u64)], vec![])
        } else {
            HV::Str(2, "S", 2, vec![("x", i as u64)], vec!["y"])
        }),
        Some(true)
    );
    assert_eq!(
        hrt("all skipped", |i| if i % 2 == 0 {
            HV::Str(2, "S", 1, vec![("x", i as u64)], vec![])
        } else {
            HV::Str(2, "S", 1, vec![], vec!["x"])
        }),
        Some(true)
    );
    assert_eq!(
        hrt("dup fields", |i| HV::Str(
            2,
            "S",
            2,
            vec![("x", 1), ("x", i as u64)],
            vec![]
        )),
        Some(false)
    );
    assert_eq!(
        hrt("same name two kinds", |i| if i % 2 == 0 {
            HV::Tup(1, "A", 2, vec![i as u64, 1])
        } else {
            HV::Str(1, "A", 1, vec![("x", i as u64)], vec![])
        }),
        Some(false)
    );
    assert_eq!(
        hrt("same name tuple/newtype", |i| if i % 2 == 0 {
            HV::Tup(1, "A", 2, vec![i as u64, 1])
        } else {
            HV::New(1, "A", i as u64)
        }),
        Some(false)
    );
    assert_eq!(
        hrt("same name tuple/unit", |i| if i % 2 == 0 {
            HV::Tup(1, "A", 2, vec![i as u64, 1])
        } else {
            HV::Unit(1, "A")
        }),
        Some(false)
    );
    assert_eq!(
        hrt("same index two names", |i| if i % 2 == 0 {
            HV::Tup(1, "A", 2, vec![i as u64, 1])
        } else {
            HV::Tup(1, "B", 2, vec![i as u64, 1])
        }),
        Some(true)
    );
    assert_eq!(
        hrt("one each", |i| match i {
            0 => HV::Tup(1, "T", 2, vec![1, 2]),
            1 => HV::Str(2, "S", 1, vec![("x", 1)], vec![]),
            _ => HV::Unit(0, "U"),
        }),
        Some(true)
    );
    assert_eq!(
        hrt("many variants", |i| HV::Tup(
            i as u32 % 50,
            ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"][i % 10],
            2,
            vec![i as u64, 1]
        )),
        Some(true)
    );
    assert_eq!(
        hrt("field named empty", |i| HV::Str(
            2,
            "S",
            1,
            vec![("", i as u64)],
            vec![]
        )),
        Some(true)
    );
    assert_eq!(
        hrt("variant named like field", |i| if i % 2 == 0 {
            HV::Str(2, "id", 1, vec![("id", i as u64)], vec![])
        } else {
            HV::Tup(1, "v", 1, vec![1])
        }),
        Some(true)
    );
}

// ---------------------------------------------------------------- limits agree

#[test]
fn encoder_and_decoder_limits_agree() {
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    enum Deep {
        T(Box<Deep>, u8),
        S { d: Option<Box<Deep>> },
        L,
    }
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct DR {
        d: Deep,
        ps: Vec<Vec<P>>,
    }
    fn deep(i: usize, k: usize) -> Deep {
        if k == 0 {
            Deep::L
        } else if (i + k).is_multiple_of(2) {
            Deep::T(Box::new(deep(i, k - 1)), k as u8)
        } else {
            Deep::S {
                d: Some(Box::new(deep(i, k - 1))),
            }
        }
    }
    let dr: Vec<DR> = (0..40)
        .map(|i| DR {
            d: deep(i, 3),
            ps: vec![
                vec![
                    P {
                        x: 1,
                        y: "p".into()
                    };
                    i % 18
                ];
                i % 3
            ],
        })
        .collect();
    let mix = mix_rows(40);
    let g = g_rows(40);
    for enc in [Options::balanced(), Options::compression()] {
        let full: [Vec<u8>; 3] = [
            qdf_core::to_vec_with(&dr, enc).unwrap(),
            qdf_core::to_vec_with(&mix, enc).unwrap(),
            qdf_core::to_vec_with(&g, enc).unwrap(),
        ];
        assert!(has_kind(&full[1], 0x17) && has_kind(&full[2], 0x15));
        for depth in 1..14u32 {
            let o = enc.max_depth(depth);
            let e = [
                qdf_core::to_vec_with(&dr, o).is_ok(),
                qdf_core::to_vec_with(&mix, o).is_ok(),
                qdf_core::to_vec_with(&g, o).is_ok(),
            ];
            for (k, full) in full.iter().enumerate() {
                let d = qdf_core::from_slice_with::<Value>(full, o).is_ok();
                let d2 = qdf_core::inspect::message(full, &o, &mut |_| {}).is_ok();
                // encode Ok => decode Ok; not the converse (`Some` levels, see below)
                assert!(
                    !e[k] || d,
                    "depth {depth} case {k}: encode ok={} decode ok={d}",
                    e[k]
                );
                assert_eq!(d, d2, "depth {depth} case {k}: inspect");
            }
        }
        for (k, full) in full.iter().enumerate() {
            for limit in (0..40_000u64).step_by(97) {
                let o = enc.max_output(limit);
                let e = match k {
                    0 => qdf_core::to_vec_with(&dr, o),
                    1 => qdf_core::to_vec_with(&mix, o),
                    _ => qdf_core::to_vec_with(&g, o),
                };
                let d = qdf_core::from_slice_with::<Value>(full, o);
                let d2 = qdf_core::inspect::message(full, &o, &mut |_| {}).is_ok();
                if let Ok(bytes) = &e {
                    assert!(
                        qdf_core::from_slice_with::<Value>(bytes, o).is_ok(),
                        "limit {limit} case {k}: encoder wrote what decoder refuses"
                    );
                }
                if e.as_ref().ok() == Some(full) || e.is_err() {
                    assert_eq!(
                        e.is_ok(),
                        d.is_ok(),
                        "limit {limit} case {k}: encode {:?} decode {:?}",
                        e.as_ref().err(),
                        d.as_ref().err()
                    );
                }
                assert_eq!(d.is_ok(), d2, "limit {limit} case {k}: inspect");
            }
        }
    }
}

/// SPEC §13 "Depth": the encoder and a typed `Option` target count `Some(x)` as a level even
/// when no wrapper is on the wire; a `Value` decode of an unwrapped `Some` does not, so it
/// accepts at least as much. Columns count as rows do.
#[test]
fn some_depth_asymmetry_through_new_columns_is_the_same() {
    // g_rows (S { y: Some(..) } in a struct-variant column) at depth 4: Value decode accepts,
    // typed decode and encode refuse, exactly as for the Speed rows.
    for enc in [Options::speed(), Options::balanced()] {
        let b = qdf_core::to_vec_with(&g_rows(16), enc).unwrap();
        let o = enc.max_depth(4);
        assert!(qdf_core::from_slice_with::<Value>(&b, o).is_ok());
        assert!(qdf_core::from_slice_with::<Vec<GR>>(&b, o).is_err());
        assert!(qdf_core::to_vec_with(&g_rows(16), o).is_err());
        let o = enc.max_depth(5);
        assert!(qdf_core::from_slice_with::<Vec<GR>>(&b, o).is_ok());
        assert!(qdf_core::to_vec_with(&g_rows(16), o).is_ok());
    }
}

// ---------------------------------------------------------------- dictionary and session shapes

#[test]
fn dictionary_and_session_have_no_tagged_columns() {
    let dict = qdf_core::Dictionary::from_strs(["s1", "s2", "payload-string", "fresh"]).unwrap();
    let v = mix_rows(100);
    for o in [Options::balanced(), Options::compression()] {
        let b = qdf_core::to_vec_with_dictionary(&v, o, &dict).unwrap();
        let back: Vec<Mix> = qdf_core::from_slice_with_dictionary(&b, o, &dict).unwrap();
        assert_eq!(back, v);
        let mut t = false;
        let mut cols = Vec::new();
        qdf_core::inspect::message_with_dictionary(&b, &o, Some(&dict), &mut |e| {
            if let EventKind::Column { values, kind, .. } = &e.kind {
                cols.push(*kind);
                t |= matches!(values, ColumnValues::Tagged { .. });
            }
        })
        .unwrap();
        assert!(!t, "tagged column with a dictionary: {cols:?}");
    }
    // session frames: list/struct columns yes, tagged no
    let mut enc = qdf_core::EncoderSession::new(Options::balanced());
    let mut buf = Vec::new();
    enc.encode_frame(&v, &mut buf).unwrap();
    enc.encode_frame(&v, &mut buf).unwrap();
    let mut dec = qdf_core::DecoderSession::new(Options::balanced());
    let (a, u): (Vec<Mix>, usize) = dec.decode_frame(&buf).unwrap().unwrap();
    let (b, _): (Vec<Mix>, usize) = dec.decode_frame(&buf[u..]).unwrap().unwrap();
    assert_eq!(a, v);
    assert_eq!(b, v);
}
