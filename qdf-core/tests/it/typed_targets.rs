//! What typed targets read (issue 16, items 2, 5 and 6): a bare unit into `Option<T>` is
//! `None`; an integer into a float target only when the float holds it exactly; a `&str`
//! field over a rebuilt string column names the field; duplicate map keys under
//! `Options::deny_duplicate_keys`. Every path: row, Dense (intern table, shapes, map shapes),
//! columnar cells, QPack sequences, `Value`, sessions.

use std::collections::{BTreeMap, HashMap};

use qdf_core::{Category, DecoderSession, EncoderSession, ErrorCode, Features, Options, Value};
use serde::{Deserialize, Serialize};

fn unhex(s: &str) -> Vec<u8> {
    s.split_whitespace()
        .map(|b| u8::from_str_radix(b, 16).unwrap())
        .collect()
}

/// One unframed session message (the first one with the stream header).
fn msg<T: Serialize + ?Sized>(enc: &mut EncoderSession, v: &T) -> Vec<u8> {
    let mut out = Vec::new();
    enc.encode_message(v, &mut out).unwrap();
    out
}

fn tiers() -> [(&'static str, Options); 4] {
    [
        ("speed", Options::speed()),
        ("balanced", Options::balanced()),
        ("compression", Options::compression()),
        (
            "map-shape",
            Options::balanced().features(Features::BALANCED.with(Features::MAP_SHAPE)),
        ),
    ]
}

// ---------------------------------------------------------------------------------------
// Item 2: a serde `null` (unit) from another format reads as `None`.

#[derive(Deserialize, Debug, PartialEq)]
struct AB {
    a: Option<u64>,
    b: Option<String>,
}

/// The bytes of the issue: `{"a": (), "b": ()}` in the Speed tier.
#[test]
fn bare_unit_reads_as_none_in_a_struct() {
    let b = unhex("51 44 46 01 00 d5 02 81 61 f2 00 81 62 f2 00");
    assert_eq!(
        qdf_core::from_slice::<AB>(&b).unwrap(),
        AB { a: None, b: None }
    );
}

#[test]
fn bare_unit_reads_as_none_at_the_top() {
    let unit = qdf_core::to_vec(&()).unwrap();
    assert_eq!(qdf_core::from_slice::<Option<u8>>(&unit).unwrap(), None);
    assert_eq!(qdf_core::from_slice::<Option<()>>(&unit).unwrap(), None);
    assert_eq!(qdf_core::from_slice::<Option<Value>>(&unit).unwrap(), None);
    // `Some(())` keeps its wrapper, so nothing is ambiguous.
    let some_unit = qdf_core::to_vec_with(&Some(()), Options::speed()).unwrap();
    assert_eq!(&some_unit[5..], &[0xF2, 0x05, 0xF2, 0x00]);
    assert_eq!(
        qdf_core::from_slice::<Option<()>>(&some_unit).unwrap(),
        Some(())
    );
    assert_eq!(
        qdf_core::from_slice::<Option<Option<()>>>(&some_unit).unwrap(),
        Some(None)
    );
    let none = qdf_core::to_vec(&None::<()>).unwrap();
    assert_eq!(qdf_core::from_slice::<Option<()>>(&none).unwrap(), None);
    // `Value` still sees a unit, and a unit target still reads one.
    assert_eq!(qdf_core::from_slice::<Value>(&unit).unwrap(), Value::Unit);
    qdf_core::from_slice::<()>(&unit).unwrap();
    // Other extension values into an `Option` are still `Some(x)`.
    let c = qdf_core::to_vec_with(&'c', Options::speed()).unwrap();
    assert_eq!(qdf_core::from_slice::<Option<char>>(&c).unwrap(), Some('c'));
}

#[derive(Deserialize, Debug, PartialEq)]
struct Inner {
    x: Option<f64>,
    tags: Option<Vec<String>>,
}

#[derive(Deserialize, Debug, PartialEq)]
struct Doc {
    id: u64,
    name: Option<String>,
    score: Option<f64>,
    inner: Option<Inner>,
    list: Vec<Option<i64>>,
    nested: Option<Option<u8>>,
}

const DOCS: &str = r#"[
  {"id": 1, "name": null, "score": null, "inner": null, "list": [null, 3, null, -4], "nested": null},
  {"id": 2, "name": "b", "score": 1.5, "inner": {"x": null, "tags": null}, "list": [], "nested": 7},
  {"id": 3, "name": null, "score": 2, "inner": {"x": 0.25, "tags": ["t"]}, "list": [null], "nested": null},
  {"id": 4, "name": null, "score": 2, "inner": {"x": 0.25, "tags": ["t", null]}, "list": [null], "nested": null}
]"#;

fn docs_want() -> Vec<Result<Doc, ()>> {
    vec![
        Ok(Doc {
            id: 1,
            name: None,
            score: None,
            inner: None,
            list: vec![None, Some(3), None, Some(-4)],
            nested: None,
        }),
        Ok(Doc {
            id: 2,
            name: Some("b".into()),
            score: Some(1.5),
            inner: Some(Inner {
                x: None,
                tags: None,
            }),
            list: vec![],
            nested: Some(Some(7)),
        }),
        // An integer into an `f64` where it is exact.
        Ok(Doc {
            id: 3,
            name: None,
            score: Some(2.0),
            inner: Some(Inner {
                x: Some(0.25),
                tags: Some(vec!["t".into()]),
            }),
            list: vec![None],
            nested: None,
        }),
        // `["t", null]` is not a `Vec<String>`: the null there is not an `Option`.
        Err(()),
    ]
}

/// JSON documents through `serde_json::Value` (whose `Null` serializes as unit) and through
/// `qdf::Value` (which reads JSON null as `Value::Unit`), read back as typed structs.
#[test]
fn json_documents_read_back_as_typed_structs() {
    let docs: Vec<serde_json::Value> = serde_json::from_str(DOCS).unwrap();
    let want = docs_want();
    for (tier, opts) in tiers() {
        for (i, (doc, want)) in docs.iter().zip(&want).enumerate() {
            let from_json = qdf_core::to_vec_with(doc, opts).unwrap();
            let q: Value = serde_json::from_value(doc.clone()).unwrap();
            let from_value = qdf_core::to_vec_with(&q, opts).unwrap();
            for bytes in [&from_json, &from_value] {
                let got = qdf_core::from_slice_with::<Doc>(bytes, opts);
                match want {
                    Ok(w) => assert_eq!(&got.unwrap(), w, "{tier} doc {i}"),
                    Err(()) => assert_eq!(got.unwrap_err().classify(), Category::Data),
                }
            }
        }
    }
}

#[derive(Serialize)]
struct JsonRow {
    id: u64,
    v: serde_json::Value,
    w: serde_json::Value,
}

#[derive(Deserialize, Debug, PartialEq)]
struct TypedRow {
    id: u64,
    v: Option<u64>,
    w: Option<String>,
}

/// A columnar batch whose residual columns hold units: the cells read as `None`.
#[test]
fn unit_cells_of_a_columnar_batch_read_as_none() {
    let rows: Vec<JsonRow> = (0..40u64)
        .map(|i| JsonRow {
            id: i,
            v: if i % 3 == 0 {
                serde_json::Value::Null
            } else {
                i.into()
            },
            w: serde_json::Value::Null,
        })
        .collect();
    let want: Vec<TypedRow> = (0..40u64)
        .map(|i| TypedRow {
            id: i,
            v: (i % 3 != 0).then_some(i),
            w: None,
        })
        .collect();
    for opts in [Options::balanced(), Options::compression()] {
        // One struct (a struct shape), then the batch.
        let one = qdf_core::to_vec_with(&rows[0], opts).unwrap();
        assert_eq!(one[5], 0xEC);
        assert_eq!(
            qdf_core::from_slice_with::<TypedRow>(&one, opts).unwrap(),
            want[0]
        );
        let b = qdf_core::to_vec_with(&rows, opts).unwrap();
        assert_eq!(b[5], 0xF7, "a hybrid container: {:02x?}", &b[..8]);
        assert_eq!(
            qdf_core::from_slice_with::<Vec<TypedRow>>(&b, opts).unwrap(),
            want
        );
    }
}

/// The same through a session (the Dense state carries over frames).
#[test]
fn unit_reads_as_none_in_a_session() {
    let docs: Vec<serde_json::Value> = serde_json::from_str(DOCS).unwrap();
    let want = docs_want();
    let mut enc = EncoderSession::new(Options::balanced());
    let mut dec = DecoderSession::new(Options::balanced());
    for _ in 0..3 {
        for (doc, want) in docs.iter().zip(&want) {
            let frame = msg(&mut enc, doc);
            let got = dec.decode_message::<Doc>(&frame);
            match want {
                Ok(w) => assert_eq!(&got.unwrap(), w),
                // A Data error breaks the session: start a new one.
                Err(()) => {
                    assert_eq!(got.unwrap_err().classify(), Category::Data);
                    enc = EncoderSession::new(Options::balanced());
                    dec = DecoderSession::new(Options::balanced());
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Item 5: an integer into a float target only when exact.

fn assert_inexact(e: qdf_core::Error, n: &str, float: &str, offset: u64) {
    assert_eq!(e.classify(), Category::Data, "{e}");
    assert_eq!(e.offset(), Some(offset), "{e}");
    let msg = e.to_string();
    assert!(
        msg.contains(n) && msg.contains(float) && msg.contains("exactly"),
        "{msg}"
    );
}

#[test]
fn integers_into_floats_only_when_exact_row_mode() {
    let p53 = 1u64 << 53;
    for opts in [Options::speed(), Options::balanced()] {
        let enc = |v: &dyn erased::Ser| v.bytes(opts);
        // Exact ones read as before.
        assert_eq!(
            qdf_core::from_slice::<f64>(&enc(&p53)).unwrap(),
            9007199254740992.0
        );
        assert_eq!(
            qdf_core::from_slice::<f64>(&enc(&(-(p53 as i64)))).unwrap(),
            -9007199254740992.0
        );
        assert_eq!(
            qdf_core::from_slice::<f64>(&enc(&i64::MIN)).unwrap(),
            -9223372036854775808.0
        );
        assert_eq!(
            qdf_core::from_slice::<f64>(&enc(&(1u128 << 100))).unwrap(),
            2f64.powi(100)
        );
        assert_eq!(
            qdf_core::from_slice::<f64>(&enc(&i128::MIN)).unwrap(),
            -(2f64.powi(127))
        );
        assert_eq!(
            qdf_core::from_slice::<f32>(&enc(&16_777_216u32)).unwrap(),
            16_777_216.0
        );
        assert_eq!(qdf_core::from_slice::<f32>(&enc(&7u8)).unwrap(), 7.0);
        assert_eq!(qdf_core::from_slice::<f64>(&enc(&-3i8)).unwrap(), -3.0);
        // Inexact ones are Data errors at the integer.
        let cases: [(&dyn erased::Ser, &str, bool); 8] = [
            (&(p53 + 1), "9007199254740993", true),
            (&u64::MAX, "18446744073709551615", true),
            (&i64::MAX, "9223372036854775807", true),
            (&(-(p53 as i64) - 1), "-9007199254740993", true),
            (&u128::MAX, "340282366920938463463374607431768211455", true),
            (
                &(i128::MIN + 1),
                "-170141183460469231731687303715884105727",
                true,
            ),
            (&16_777_217u32, "16777217", false),
            (&u64::MAX, "18446744073709551615", false),
        ];
        for (v, n, is_f64) in cases {
            let b = enc(v);
            let e = if is_f64 {
                qdf_core::from_slice::<f64>(&b).map(|_| ()).unwrap_err()
            } else {
                qdf_core::from_slice::<f32>(&b).map(|_| ()).unwrap_err()
            };
            assert_inexact(e, n, if is_f64 { "f64" } else { "f32" }, 5);
        }
        // In a struct field, the offset is the integer's.
        #[derive(Serialize)]
        struct W {
            a: u8,
            x: u64,
        }
        #[derive(Deserialize, Debug)]
        #[allow(dead_code)]
        struct R {
            a: u8,
            x: f64,
        }
        let b = qdf_core::to_vec_with(&W { a: 1, x: p53 + 1 }, Options::speed()).unwrap();
        let e = qdf_core::from_slice::<R>(&b).unwrap_err();
        // 05: d5 02, 81 61 01, 81 78 at 10..12, the integer at 12.
        assert_inexact(e, "9007199254740993", "f64", 12);
    }
}

/// `Value` keeps integers as integers: nothing is rounded there.
#[test]
fn value_keeps_large_integers() {
    let b = qdf_core::to_vec(&((1u64 << 53) + 1)).unwrap();
    assert_eq!(
        qdf_core::from_slice::<Value>(&b).unwrap(),
        Value::U64((1 << 53) + 1)
    );
    // And `Value` → bytes → f64 refuses like the integer itself.
    let v = Value::U64((1 << 53) + 1);
    let b = qdf_core::to_vec(&v).unwrap();
    assert_eq!(
        qdf_core::from_slice::<f64>(&b).unwrap_err().classify(),
        Category::Data
    );
}

#[test]
fn integers_into_floats_only_when_exact_packed() {
    let p53 = 1u64 << 53;
    let exact: Vec<u64> = (0..32).map(|i| p53 - 64 + 2 * i).collect();
    let b = qdf_core::to_vec(&exact).unwrap();
    assert!(
        matches!(b[5], 0xE3..=0xE7 | 0xEB | 0xED | 0xEE | 0xF4),
        "packed: {:02x}",
        b[5]
    );
    let got: Vec<f64> = qdf_core::from_slice(&b).unwrap();
    assert_eq!(got, exact.iter().map(|&x| x as f64).collect::<Vec<_>>());

    let mut odd = exact.clone();
    odd[20] = p53 + 1;
    let b = qdf_core::to_vec(&odd).unwrap();
    let e = qdf_core::from_slice::<Vec<f64>>(&b).unwrap_err();
    assert_eq!(e.classify(), Category::Data, "{e}");
    assert!(e.to_string().contains("9007199254740993"), "{e}");

    let signed: Vec<i64> = (0..32).map(|i| -(1 << 24) - i).collect();
    let b = qdf_core::to_vec(&signed).unwrap();
    let e = qdf_core::from_slice::<Vec<f32>>(&b).unwrap_err();
    assert!(e.to_string().contains("-16777217"), "{e}");
    assert_eq!(e.classify(), Category::Data, "{e}");
}

#[derive(Serialize)]
struct IntRow {
    n: u64,
    m: i64,
}

#[derive(Deserialize, Debug, PartialEq)]
struct FloatRow {
    n: f64,
    m: f32,
}

#[test]
fn integers_into_floats_only_when_exact_columnar() {
    let rows: Vec<IntRow> = (0..32)
        .map(|i| IntRow {
            n: (1 << 53) - i,
            m: -(1 << 24) + i as i64,
        })
        .collect();
    let b = qdf_core::to_vec(&rows).unwrap();
    assert_eq!(b[5], 0xEF);
    let got: Vec<FloatRow> = qdf_core::from_slice(&b).unwrap();
    for (g, r) in got.iter().zip(&rows) {
        assert_eq!(g.n.to_bits(), (r.n as f64).to_bits());
        assert_eq!(g.m.to_bits(), (r.m as f32).to_bits());
    }
    let mut rows = rows;
    rows[9].n = (1 << 53) + 1;
    let b = qdf_core::to_vec(&rows).unwrap();
    assert_eq!(b[5], 0xEF);
    let e = qdf_core::from_slice::<Vec<FloatRow>>(&b).unwrap_err();
    assert_eq!(e.classify(), Category::Data, "{e}");
    assert!(e.to_string().contains("9007199254740993"), "{e}");
    assert!(e.to_string().contains("`n`"), "{e}");
    rows[9].n = 0;
    rows[3].m = -(1 << 24) - 1;
    let b = qdf_core::to_vec(&rows).unwrap();
    let e = qdf_core::from_slice::<Vec<FloatRow>>(&b).unwrap_err();
    assert!(e.to_string().contains("-16777217"), "{e}");
    assert!(e.to_string().contains("`m`"), "{e}");
}

// ---------------------------------------------------------------------------------------
// Item 6: the `&str` borrow error, duplicate map keys.

#[derive(Serialize)]
struct S {
    id: u32,
    s: String,
}

#[derive(Deserialize, Debug)]
struct StrRow<'a> {
    #[allow(dead_code)]
    id: u32,
    #[allow(dead_code)]
    s: &'a str,
}

/// A `&str` field over a rebuilt string column (FA front coding): the error names the field,
/// points at the column and says what to use instead.
#[test]
fn borrowed_str_over_a_rebuilt_column_names_the_field() {
    let rows: Vec<S> = (0..64)
        .map(|i| S {
            id: i,
            s: format!(
                "/api/v1/resource/{}",
                ["users", "items", "orders", "carts"][(i as usize * 3) % 4]
            ),
        })
        .collect();
    let b = qdf_core::to_vec(&rows).unwrap();
    // EF 40 00 02 "id" 01 "s" 04 at 5..16, the `id` column (delta + FOR, 6 bytes), then the
    // `s` column: a front-coded block.
    let s_col = 22;
    assert_eq!(b[s_col], 0xFA, "{:02x?}", &b[..32]);
    let s_col = s_col as u64;
    let e = qdf_core::from_slice::<Vec<StrRow>>(&b).unwrap_err();
    assert_eq!(e.classify(), Category::Data, "{e}");
    assert_eq!(e.offset(), Some(s_col), "{e}");
    let msg = e.to_string();
    for part in ["`s`", "String", "Cow<'a, str>", "#[serde(borrow)]"] {
        assert!(msg.contains(part), "{part}: {msg}");
    }
}

fn strict() -> Options {
    Options::default().deny_duplicate_keys(true)
}

fn assert_dup(e: qdf_core::Error, offset: u64, key: &str) {
    assert_eq!(e.classify(), Category::Data, "{e}");
    assert!(matches!(e.code(), ErrorCode::TypeMismatch { .. }), "{e:?}");
    assert_eq!(e.offset(), Some(offset), "{e}");
    assert!(e.to_string().contains(key), "{e}");
}

/// `{"a": 1, "a": 2}`: last wins by default (what serde's map visitors do with the entries
/// they are handed); a typed error at the second key under `deny_duplicate_keys`.
#[test]
fn duplicate_map_keys_default_and_strict() {
    let b = unhex("51 44 46 01 00 d5 02 81 61 01 81 61 02");
    let h: HashMap<String, u8> = qdf_core::from_slice(&b).unwrap();
    assert_eq!(h, HashMap::from([("a".to_string(), 2)]));
    let t: BTreeMap<&str, u8> = qdf_core::from_slice(&b).unwrap();
    assert_eq!(t, BTreeMap::from([("a", 2)]));
    let v: Value = qdf_core::from_slice(&b).unwrap();
    assert_eq!(v.as_map().unwrap().len(), 2);
    assert!(!Options::default().deny_duplicate_keys);
    assert!(strict().deny_duplicate_keys);

    assert_dup(
        qdf_core::from_slice_with::<HashMap<String, u8>>(&b, strict()).unwrap_err(),
        10,
        "\"a\"",
    );
    assert_dup(
        qdf_core::from_slice_with::<BTreeMap<&str, u8>>(&b, strict()).unwrap_err(),
        10,
        "\"a\"",
    );
    assert_dup(
        qdf_core::from_slice_with::<Value>(&b, strict()).unwrap_err(),
        10,
        "\"a\"",
    );
    // Distinct keys pass; a string and a byte string with the same bytes are one key (a
    // `String` target reads both).
    let ok = unhex("51 44 46 01 00 d5 02 81 61 01 81 62 02");
    let h: HashMap<String, u8> = qdf_core::from_slice_with(&ok, strict()).unwrap();
    assert_eq!(h.len(), 2);
    let mixed = unhex("51 44 46 01 00 d5 02 81 61 01 d0 01 61 02");
    assert_dup(
        qdf_core::from_slice_with::<HashMap<String, u8>>(&mixed, strict()).unwrap_err(),
        10,
        "\"a\"",
    );
    // Structs refuse duplicate fields with or without the option (serde derive).
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct A {
        a: u8,
    }
    for o in [Options::default(), strict()] {
        let e = qdf_core::from_slice_with::<A>(&b, o).unwrap_err();
        assert!(e.to_string().contains("duplicate field"), "{e}");
    }
}

/// Non-string keys: integers, tuples, enum variants, nested maps inside keys and values.
#[test]
fn duplicate_keys_of_other_kinds() {
    #[derive(Serialize, Deserialize, PartialEq, Eq, Hash, PartialOrd, Ord, Debug, Clone)]
    enum K {
        A,
        B(u8),
    }
    let ints = Value::Map(vec![
        (Value::U64(300), Value::Unit),
        (Value::I64(-5), Value::Unit),
        (Value::U64(300), Value::Unit),
    ]);
    let tuples = Value::Map(vec![
        (
            Value::Array(vec![Value::U64(1), Value::Str("x".into())]),
            Value::U64(1),
        ),
        (
            Value::Array(vec![Value::U64(1), Value::Str("y".into())]),
            Value::U64(2),
        ),
        (
            Value::Array(vec![Value::U64(1), Value::Str("x".into())]),
            Value::U64(3),
        ),
    ]);
    for (tier, opts) in tiers() {
        let s = opts.deny_duplicate_keys(true);
        let b = qdf_core::to_vec_with(&ints, opts).unwrap();
        assert_eq!(qdf_core::from_slice_with::<Value>(&b, opts).unwrap(), ints);
        let e = qdf_core::from_slice_with::<HashMap<u64, ()>>(&b, s);
        assert_eq!(
            e.unwrap_err().classify(),
            Category::Data,
            "{tier} (a negative key: also a Data error)"
        );
        let e = qdf_core::from_slice_with::<BTreeMap<i64, ()>>(&b, s).unwrap_err();
        assert!(e.to_string().contains("300"), "{tier}: {e}");

        let b = qdf_core::to_vec_with(&tuples, opts).unwrap();
        let e = qdf_core::from_slice_with::<Value>(&b, s).unwrap_err();
        assert_eq!(e.classify(), Category::Data, "{tier}: {e}");
        let e = qdf_core::from_slice_with::<HashMap<(u8, String), u8>>(&b, s).unwrap_err();
        assert_eq!(e.classify(), Category::Data, "{tier}: {e}");
        let h: HashMap<(u8, String), u8> = qdf_core::from_slice_with(&b, opts).unwrap();
        assert_eq!(h[&(1, "x".to_string())], 3, "{tier}: last wins");

        let enums: Vec<(K, u8)> = vec![(K::A, 1), (K::B(2), 2), (K::B(3), 3), (K::B(2), 4)];
        let pairs = Value::Map(
            enums
                .iter()
                .map(|(k, v)| {
                    let kb = qdf_core::to_vec(k).unwrap();
                    (
                        qdf_core::from_slice::<Value>(&kb).unwrap(),
                        Value::U64(*v as u64),
                    )
                })
                .collect(),
        );
        let b = qdf_core::to_vec_with(&pairs, opts).unwrap();
        let m: BTreeMap<K, u8> = qdf_core::from_slice_with(&b, opts).unwrap();
        assert_eq!(m[&K::B(2)], 4);
        let e = qdf_core::from_slice_with::<BTreeMap<K, u8>>(&b, s).unwrap_err();
        assert_eq!(e.classify(), Category::Data, "{tier}: {e}");
        // Distinct keys of every kind pass under the option.
        let distinct: BTreeMap<K, u8> = enums[..3].iter().cloned().collect();
        let b = qdf_core::to_vec_with(&distinct, opts).unwrap();
        assert_eq!(
            qdf_core::from_slice_with::<BTreeMap<K, u8>>(&b, s).unwrap(),
            distinct
        );
    }
}

/// Dense: the second key is a back-reference (or a map shape name), not the same bytes.
#[test]
fn duplicate_keys_through_the_dense_dialect() {
    let m = Value::Map(vec![
        (Value::Str("repeated-key".into()), Value::U64(1)),
        (Value::Str("other-key".into()), Value::U64(2)),
        (Value::Str("repeated-key".into()), Value::U64(3)),
    ]);
    for (tier, opts) in tiers() {
        let b = qdf_core::to_vec_with(&m, opts).unwrap();
        // Round trip by default.
        assert_eq!(
            qdf_core::from_slice_with::<Value>(&b, opts).unwrap(),
            m,
            "{tier}"
        );
        let h: HashMap<String, u8> = qdf_core::from_slice_with(&b, opts).unwrap();
        assert_eq!(h["repeated-key"], 3, "{tier}");
        let s = opts.deny_duplicate_keys(true);
        for e in [
            qdf_core::from_slice_with::<Value>(&b, s).map(|_| ()),
            qdf_core::from_slice_with::<HashMap<String, u8>>(&b, s).map(|_| ()),
            qdf_core::from_slice_with::<HashMap<&str, u8>>(&b, s).map(|_| ()),
        ] {
            let e = e.unwrap_err();
            assert_eq!(e.classify(), Category::Data, "{tier}: {e}");
            assert!(e.to_string().contains("repeated-key"), "{tier}: {e}");
        }
        // Vec of maps with the same keys (the intern table and map shapes reused) passes.
        let ok: Vec<BTreeMap<String, u8>> = (0..20)
            .map(|i| BTreeMap::from([("repeated-key".into(), i), ("other-key".into(), i)]))
            .collect();
        let b = qdf_core::to_vec_with(&ok, opts).unwrap();
        assert_eq!(
            qdf_core::from_slice_with::<Vec<BTreeMap<String, u8>>>(&b, s).unwrap(),
            ok
        );
        assert_eq!(
            qdf_core::from_slice_with::<Value>(&b, s)
                .unwrap()
                .as_array()
                .unwrap()
                .len(),
            20
        );
    }
}

/// A session decoder built with the option refuses a repeated key in a later frame.
#[test]
fn duplicate_keys_in_a_session() {
    let opts = Options::balanced();
    let mut enc = EncoderSession::new(opts);
    let mut dec = DecoderSession::new(opts.deny_duplicate_keys(true));
    let good = BTreeMap::from([("alpha".to_string(), 1u8), ("beta".to_string(), 2)]);
    let f = msg(&mut enc, &good);
    assert_eq!(
        dec.decode_message::<BTreeMap<String, u8>>(&f).unwrap(),
        good
    );
    let bad = Value::Map(vec![
        (Value::Str("beta".into()), Value::U64(1)),
        (Value::Str("beta".into()), Value::U64(2)),
    ]);
    let f = msg(&mut enc, &bad);
    let e = dec.decode_message::<BTreeMap<String, u8>>(&f).unwrap_err();
    assert_eq!(e.classify(), Category::Data, "{e}");
}

/// A columnar declaration naming one column twice (no encoder writes it) is a repeated key
/// in every row: refused under the option at the second name.
#[test]
fn duplicate_column_names_under_the_option() {
    // EF, 16 rows, a declaration of two uint columns both named "x", two FOR bodies.
    let b =
        unhex("51 44 46 01 03 ef 10 00 02 81 78 01 81 78 01 e6 03 00 00 02 10 e6 03 00 00 02 10");
    let v: Value = qdf_core::from_slice(&b).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 16);
    let e = qdf_core::from_slice_with::<Vec<HashMap<String, u64>>>(&b, strict()).unwrap_err();
    assert_dup(e, 12, "\"x\"");
}

/// Large keys or many entries: the check keeps a set of what it saw, nothing more.
#[test]
fn many_distinct_keys_under_the_option() {
    let m: HashMap<String, u32> = (0..5000).map(|i| (format!("key-{i}"), i)).collect();
    for (tier, opts) in tiers() {
        let b = qdf_core::to_vec_with(&m, opts).unwrap();
        let s = opts.deny_duplicate_keys(true);
        assert_eq!(
            qdf_core::from_slice_with::<HashMap<String, u32>>(&b, s).unwrap(),
            m,
            "{tier}"
        );
    }
}

/// Encodes a value of any of the test's integer types.
mod erased {
    pub trait Ser {
        fn bytes(&self, opts: qdf_core::Options) -> Vec<u8>;
    }
    impl<T: serde::Serialize> Ser for T {
        fn bytes(&self, opts: qdf_core::Options) -> Vec<u8> {
            qdf_core::to_vec_with(self, opts).unwrap()
        }
    }
}

/// `Value` enum keys compare by kind, name and payload; keys two containers deep are not
/// compared (documented limit), so they pass under the option.
#[test]
fn duplicate_keys_variants_and_deep_keys() {
    let variant = |name: &str, v: u64| {
        Value::Variant(Box::new(qdf_core::Variant {
            kind: qdf_core::VariantKind::Newtype,
            name: name.into(),
            value: Value::U64(v),
        }))
    };
    let m = Value::Map(vec![
        (variant("B", 2), Value::Unit),
        (variant("B", 3), Value::Unit),
        (variant("C", 2), Value::Unit),
    ]);
    let dup = Value::Map(vec![
        (variant("B", 2), Value::Unit),
        (variant("B", 2), Value::Unit),
    ]);
    let deep = Value::Map(vec![
        (
            Value::Array(vec![Value::Array(vec![Value::U64(1)])]),
            Value::Unit,
        ),
        (
            Value::Array(vec![Value::Array(vec![Value::U64(1)])]),
            Value::Unit,
        ),
    ]);
    for (tier, opts) in tiers() {
        let s = opts.deny_duplicate_keys(true);
        let b = qdf_core::to_vec_with(&m, opts).unwrap();
        assert_eq!(
            qdf_core::from_slice_with::<Value>(&b, s).unwrap(),
            m,
            "{tier}"
        );
        let b = qdf_core::to_vec_with(&dup, opts).unwrap();
        let e = qdf_core::from_slice_with::<Value>(&b, s).unwrap_err();
        assert_eq!(e.classify(), Category::Data, "{tier}: {e}");
        let b = qdf_core::to_vec_with(&deep, opts).unwrap();
        assert_eq!(
            qdf_core::from_slice_with::<Value>(&b, s).unwrap(),
            deep,
            "{tier}"
        );
    }
}

/// A map inside a key and a map inside a value are map targets too: their own repeated keys
/// are refused under the option.
#[test]
fn duplicate_keys_in_nested_maps() {
    let inner_dup = Value::Map(vec![
        (Value::Str("k".into()), Value::U64(1)),
        (Value::Str("k".into()), Value::U64(2)),
    ]);
    let in_value = Value::Map(vec![(Value::Str("outer".into()), inner_dup.clone())]);
    let in_key = Value::Map(vec![(inner_dup, Value::Unit)]);
    for (tier, opts) in tiers() {
        let s = opts.deny_duplicate_keys(true);
        for v in [&in_value, &in_key] {
            let b = qdf_core::to_vec_with(v, opts).unwrap();
            assert_eq!(&qdf_core::from_slice_with::<Value>(&b, opts).unwrap(), v);
            let e = qdf_core::from_slice_with::<Value>(&b, s).unwrap_err();
            assert!(e.to_string().contains("\"k\""), "{tier}: {e}");
        }
        let b = qdf_core::to_vec_with(&in_value, opts).unwrap();
        let e = qdf_core::from_slice_with::<HashMap<String, HashMap<String, u8>>>(&b, s);
        assert_eq!(e.unwrap_err().classify(), Category::Data, "{tier}");
    }
}

/// Struct targets are not checked by the option (serde derive refuses its own duplicate
/// fields; unknown ones are ignored as without it), also through struct shapes.
#[test]
fn struct_targets_are_left_to_serde() {
    let twice = Value::Map(vec![
        (Value::Str("a".into()), Value::U64(1)),
        (Value::Str("zz".into()), Value::U64(2)),
        (Value::Str("zz".into()), Value::U64(3)),
    ]);
    #[derive(Deserialize, Debug, PartialEq)]
    struct A {
        a: u8,
    }
    for (tier, opts) in tiers() {
        let b = qdf_core::to_vec_with(&twice, opts).unwrap();
        let s = opts.deny_duplicate_keys(true);
        assert_eq!(
            qdf_core::from_slice_with::<A>(&b, s).unwrap(),
            A { a: 1 },
            "{tier}"
        );
    }
}

/// The float rule in structs decoded from struct shapes and through a session.
#[test]
fn integers_into_floats_in_shapes_and_sessions() {
    #[derive(Serialize)]
    struct W {
        id: u32,
        x: u64,
    }
    #[derive(Deserialize, Debug, PartialEq)]
    struct R {
        id: u32,
        x: f64,
    }
    let b = qdf_core::to_vec(&W { id: 1, x: 1 << 40 }).unwrap();
    assert_eq!(b[5], 0xEC);
    assert_eq!(
        qdf_core::from_slice::<R>(&b).unwrap(),
        R {
            id: 1,
            x: (1u64 << 40) as f64
        }
    );
    let mut enc = EncoderSession::new(Options::balanced());
    let mut dec = DecoderSession::new(Options::balanced());
    let f = msg(&mut enc, &W { id: 1, x: 3 });
    assert_eq!(dec.decode_message::<R>(&f).unwrap(), R { id: 1, x: 3.0 });
    let f = msg(&mut enc, &W { id: 2, x: u64::MAX });
    let e = dec.decode_message::<R>(&f).unwrap_err();
    assert_eq!(e.classify(), Category::Data, "{e}");
    assert!(e.to_string().contains("18446744073709551615"), "{e}");
}

mod dup_prop {
    use super::*;
    use proptest::prelude::*;

    fn key() -> impl Strategy<Value = Value> {
        let word = prop::sample::select(vec!["a", "bb", "key-one", "key-two", "longer key 3"]);
        prop_oneof![
            word.clone().prop_map(|s| Value::Str(s.into())),
            (0u64..4).prop_map(Value::U64),
            (-3i64..0).prop_map(Value::I64),
            (0u64..2, word)
                .prop_map(|(n, s)| Value::Array(vec![Value::U64(n), Value::Str(s.into())])),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        /// Under the option a map decodes exactly when no key repeats (keys compared as
        /// values, whatever the tier wrote), and by default it always round-trips.
        #[test]
        fn strict_decode_fails_exactly_on_a_repeat(
            keys in prop::collection::vec(key(), 0..12),
        ) {
            let m = Value::Map(keys.iter().cloned().map(|k| (k, Value::U64(1))).collect());
            let repeat = keys.iter().enumerate().any(|(i, k)| keys[..i].contains(k));
            for (tier, opts) in tiers() {
                let b = qdf_core::to_vec_with(&m, opts).unwrap();
                prop_assert_eq!(&qdf_core::from_slice_with::<Value>(&b, opts).unwrap(), &m);
                let strict = qdf_core::from_slice_with::<Value>(&b, opts.deny_duplicate_keys(true));
                match strict {
                    Ok(v) => prop_assert!(!repeat && v == m, "{}", tier),
                    Err(e) => {
                        prop_assert!(repeat, "{}: {}", tier, e);
                        prop_assert_eq!(e.classify(), Category::Data);
                    }
                }
            }
        }
    }
}
