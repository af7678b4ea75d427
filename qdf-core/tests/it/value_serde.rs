//! serde conveniences of `Value`: `to_value` / `from_value`, `Value` and `&Value` as
//! deserializers, `From` and `Index`; and `Error::source`, the `from_reader` input limit.

use std::collections::BTreeMap;

use qdf_core::{Category, ErrorCode, Options, Value, Variant, VariantKind, from_value, to_value};
use serde::de::IntoDeserializer;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
enum Shape {
    Empty,
    Circle(f64),
    Pair(u8, i16),
    Rect { w: u32, h: u32 },
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Scene {
    name: String,
    tags: Vec<String>,
    shapes: Vec<Shape>,
    origin: Option<(i64, u64)>,
    big: u128,
    bytes: serde_bytes::ByteBuf,
    unit: (),
}

fn scene() -> Scene {
    Scene {
        name: "s".into(),
        tags: vec!["a".into(), "bb".into()],
        shapes: vec![
            Shape::Empty,
            Shape::Circle(-0.0),
            Shape::Pair(7, -300),
            Shape::Rect { w: 3, h: 4 },
        ],
        origin: Some((-5, u64::MAX)),
        big: u128::MAX,
        bytes: serde_bytes::ByteBuf::from(vec![0, 255]),
        unit: (),
    }
}

fn s(x: &str) -> Value {
    Value::Str(x.into())
}

fn variant(kind: VariantKind, name: &str, value: Value) -> Value {
    Value::Variant(Box::new(Variant {
        kind,
        name: name.into(),
        value,
    }))
}

#[test]
fn to_value_gives_the_exact_tree() {
    let v = to_value(&scene()).unwrap();
    let want = Value::Map(vec![
        (s("name"), s("s")),
        (s("tags"), Value::Array(vec![s("a"), s("bb")])),
        (
            s("shapes"),
            Value::Array(vec![
                variant(VariantKind::Unit, "Empty", Value::Unit),
                variant(VariantKind::Newtype, "Circle", Value::F64(-0.0)),
                variant(
                    VariantKind::Tuple,
                    "Pair",
                    Value::Array(vec![Value::U64(7), Value::I64(-300)]),
                ),
                variant(
                    VariantKind::Struct,
                    "Rect",
                    Value::Map(vec![(s("w"), Value::U64(3)), (s("h"), Value::U64(4))]),
                ),
            ]),
        ),
        (
            s("origin"),
            Value::Array(vec![Value::I64(-5), Value::U64(u64::MAX)]),
        ),
        (s("big"), Value::U128(u128::MAX)),
        (s("bytes"), Value::Bytes(vec![0, 255])),
        (s("unit"), Value::Unit),
    ]);
    assert_eq!(v, want);
    // `-0.0` kept by bits.
    assert_eq!(
        v["shapes"][1]
            .as_variant()
            .unwrap()
            .value
            .as_f64()
            .unwrap()
            .to_bits(),
        (-0.0f64).to_bits()
    );
}

#[test]
fn from_value_owned_and_borrowed_give_back_the_value() {
    let v = to_value(&scene()).unwrap();
    assert_eq!(Scene::deserialize(&v).unwrap(), scene());
    assert_eq!(from_value::<Scene>(v).unwrap(), scene());
}

#[test]
fn borrowed_value_lends_strings() {
    #[derive(Deserialize, Debug, PartialEq)]
    struct Borrowing<'a> {
        name: &'a str,
        #[serde(with = "serde_bytes")]
        raw: &'a [u8],
    }
    let v = Value::Map(vec![
        (s("name"), s("lent")),
        (s("raw"), Value::Bytes(vec![1, 2])),
    ]);
    let b = Borrowing::deserialize(&v).unwrap();
    assert_eq!(
        b,
        Borrowing {
            name: "lent",
            raw: &[1, 2]
        }
    );
    assert_eq!(b.name.as_ptr(), v["name"].as_str().unwrap().as_ptr());
}

#[test]
fn value_round_trips_through_itself() {
    // Kinds `deserialize_any` alone could not tell apart: unit struct, timestamp, variant
    // kinds, `Some(nil)`, 128-bit integers, f32.
    let v = Value::Array(vec![
        Value::UnitStruct,
        Value::Timestamp {
            secs: -1,
            nanos: 999_999_999,
        },
        variant(VariantKind::Unit, "U", Value::Unit),
        variant(VariantKind::Tuple, "T", Value::Array(vec![Value::Nil])),
        Value::Some(Box::new(Value::Nil)),
        Value::I128(i128::MIN),
        Value::F32(1.5),
        Value::Char('é'),
        Value::Map(vec![(Value::U64(1), Value::Bool(false))]),
    ]);
    assert_eq!(from_value::<Value>(v.clone()).unwrap(), v);
    assert_eq!(Value::deserialize(&v).unwrap(), v);
    // And the tree is what decoding its bytes gives.
    let bytes = qdf_core::to_vec_with(&v, Options::speed()).unwrap();
    assert_eq!(qdf_core::from_slice::<Value>(&bytes).unwrap(), v);
}

#[test]
fn into_deserializer_and_options_and_enums_from_strings() {
    let d = Value::from(Some(3u8)).into_deserializer();
    assert_eq!(Option::<u8>::deserialize(d).unwrap(), Some(3));
    assert_eq!(Option::<u8>::deserialize(Value::Nil).unwrap(), None);
    assert_eq!(
        Option::<Option<()>>::deserialize(Value::some(Value::Nil)).unwrap(),
        Some(None)
    );
    assert_eq!(Shape::deserialize(s("Empty")).unwrap(), Shape::Empty);
    let nine = Value::U64(9);
    let d = (&nine).into_deserializer();
    assert_eq!(u16::deserialize(d).unwrap(), 9);
}

#[test]
fn type_errors_use_serde_words_and_no_offset() {
    let e = from_value::<u8>(s("x")).unwrap_err();
    assert_eq!(e.to_string(), r#"expected u8, found string "x""#);
    assert_eq!((e.classify(), e.offset()), (Category::Data, None));
    let e = from_value::<u8>(Value::U64(256)).unwrap_err();
    assert_eq!(e.to_string(), "expected u8, found integer `256`");
    let e = from_value::<(u8, u8)>(Value::Array(vec![Value::U64(1)])).unwrap_err();
    assert_eq!(
        e.to_string(),
        "invalid length 1, expected a tuple of size 2"
    );
    let e = from_value::<(u8,)>(Value::Array(vec![Value::U64(1), Value::U64(2)])).unwrap_err();
    assert_eq!(
        e.to_string(),
        "invalid length 2, expected 1 element in sequence"
    );
    let e = Shape::deserialize(Value::U64(1)).unwrap_err();
    assert_eq!(e.to_string(), "expected an enum, found integer `1`");
}

#[test]
fn from_impls_are_exact_and_canonical() {
    assert_eq!(Value::from(3u8), Value::U64(3));
    assert_eq!(Value::from(7usize), Value::U64(7));
    assert_eq!(Value::from(5i32), Value::U64(5));
    assert_eq!(Value::from(-5i8), Value::I64(-5));
    assert_eq!(Value::from(i64::MIN), Value::I64(i64::MIN));
    assert_eq!(Value::from(u128::from(u64::MAX)), Value::U64(u64::MAX));
    assert_eq!(Value::from(u128::MAX), Value::U128(u128::MAX));
    assert_eq!(Value::from(-1i128), Value::I64(-1));
    assert_eq!(Value::from(i128::MIN), Value::I128(i128::MIN));
    assert_eq!(Value::from(1i128 << 70), Value::U128(1 << 70));
    assert_eq!(Value::from(1.5f32), Value::F32(1.5));
    assert_eq!(Value::from(f64::NAN), Value::F64(f64::NAN));
    assert_eq!(Value::from(true), Value::Bool(true));
    assert_eq!(Value::from('x'), Value::Char('x'));
    assert_eq!(Value::from("ab"), s("ab"));
    assert_eq!(Value::from(String::from("ab")), s("ab"));
    assert_eq!(Value::from(()), Value::Unit);
    assert_eq!(Value::from(None::<u8>), Value::Nil);
    assert_eq!(Value::from(Some(())), Value::Some(Box::new(Value::Unit)));
    assert_eq!(
        Value::from(vec![Value::from(1u8), s("a")]),
        Value::Array(vec![Value::U64(1), s("a")])
    );
    assert_eq!(
        Value::from(vec![1u8, 2]),
        Value::Array(vec![Value::U64(1), Value::U64(2)])
    );
    let m: BTreeMap<&str, i32> = [("b", -1), ("a", 2)].into_iter().collect();
    assert_eq!(
        Value::from(m),
        Value::Map(vec![(s("a"), Value::U64(2)), (s("b"), Value::I64(-1))])
    );
    assert_eq!(
        (1u8..=2).collect::<Value>(),
        Value::Array(vec![Value::U64(1), Value::U64(2)])
    );
    // `From` agrees with what encoding and decoding give.
    for (v, t) in [
        (Value::from(-7i16), to_value(&-7i16).unwrap()),
        (Value::from(u128::MAX), to_value(&u128::MAX).unwrap()),
        (Value::from(Some(())), to_value(&Some(())).unwrap()),
        (Value::from(-1i128), to_value(&-1i128).unwrap()),
    ] {
        assert_eq!(v, t);
    }
}

#[test]
fn index_by_key_and_position() {
    let v = to_value(&scene()).unwrap();
    assert_eq!(v["name"], s("s"));
    assert_eq!(v["tags"][1], s("bb"));
    assert_eq!(v["origin"][0], Value::I64(-5));
    // Missing keys, out-of-range positions and the wrong kind give nil, as in serde_json.
    assert_eq!(v["nope"], Value::Nil);
    assert_eq!(v["tags"][2], Value::Nil);
    assert_eq!(v[0], Value::Nil);
    assert_eq!(v["name"]["x"]["y"], Value::Nil);
}

#[test]
fn io_errors_keep_their_source() {
    use std::error::Error as _;
    use std::io;
    struct Failing;
    impl io::Read for Failing {
        fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
            Err(io::Error::new(io::ErrorKind::PermissionDenied, "no access"))
        }
    }
    let e = qdf_core::from_reader::<_, u8>(Failing).unwrap_err();
    assert_eq!(e.classify(), Category::Io);
    let src = e.source().unwrap().downcast_ref::<io::Error>().unwrap();
    assert_eq!(src.kind(), io::ErrorKind::PermissionDenied);
    assert_eq!(src.to_string(), "no access");
    // Back to io::Error: the original.
    let back: io::Error = e.into();
    assert_eq!(back.kind(), io::ErrorKind::PermissionDenied);
    assert_eq!(back.to_string(), "no access");
    // Decode errors have no source.
    let e = qdf_core::from_slice::<u8>(b"QDF").unwrap_err();
    assert!(e.source().is_none());
}

#[test]
fn from_reader_reads_at_most_the_input_limit_plus_one() {
    let bytes = qdf_core::to_vec(&"012345678x").unwrap();
    // Not hex text (the `x`, SPEC §9): E0 0A and 10 bytes.
    assert_eq!(bytes.len(), 17);
    let opts = Options::default().max_input(17);
    assert_eq!(
        qdf_core::from_reader_with::<_, String>(&bytes[..], opts).unwrap(),
        "012345678x"
    );
    // One byte over: refused with the byte count, before decoding; the reader was read for
    // exactly limit + 1 bytes.
    let mut long = bytes.clone();
    long.extend_from_slice(&[0; 100]);
    let mut reader = &long[..];
    let e = qdf_core::from_reader_with::<_, String>(&mut reader, opts.max_input(16)).unwrap_err();
    assert_eq!(e.code(), &ErrorCode::InputTooLarge { read: 17, max: 16 });
    assert_eq!(e.classify(), Category::Limit);
    assert_eq!(
        e.to_string(),
        "input of at least 17 bytes exceeds the maximum of 16 bytes"
    );
    assert_eq!(reader.len(), long.len() - 17);
    assert_eq!(Options::default().limits.max_input, 64 << 20);
}

/// A `Value` nested `depth` arrays deep, built without recursion.
fn nested_arrays(depth: usize) -> Value {
    let mut v = Value::U64(1);
    for _ in 0..depth {
        v = Value::Array(vec![v]);
    }
    v
}

#[test]
fn from_value_stops_at_the_default_depth_limit() {
    // At the limit: read back exactly, owned and borrowed.
    let ok = nested_arrays(128);
    assert_eq!(from_value::<Value>(ok.clone()).unwrap(), ok);
    assert_eq!(Value::deserialize(&ok).unwrap(), ok);
    // One past it, and far past it (a hand-built value would overflow the stack without
    // the limit): `DepthLimit`, category `Limit`.
    for depth in [129, 100_000] {
        let deep = nested_arrays(depth);
        let e = Value::deserialize(&deep).unwrap_err();
        assert_eq!(e.code(), &ErrorCode::DepthLimit(128), "{depth}: {e}");
        assert_eq!(e.classify(), Category::Limit);
        let e = from_value::<Value>(deep).unwrap_err();
        assert_eq!(e.code(), &ErrorCode::DepthLimit(128), "{depth}: {e}");
    }
    // Maps, options and variants count as levels too.
    let mut v = Value::Nil;
    for i in 0..200u32 {
        v = match i % 3 {
            0 => Value::Map(vec![(Value::from("k"), v)]),
            1 => Value::Some(Box::new(v)),
            _ => Value::Variant(Box::new(Variant {
                kind: VariantKind::Newtype,
                name: "V".into(),
                value: v,
            })),
        };
    }
    let e = from_value::<Value>(v).unwrap_err();
    assert_eq!(e.code(), &ErrorCode::DepthLimit(128), "{e}");
}

#[test]
fn borrowed_value_hands_out_borrowed_strings_and_checks_lengths() {
    #[derive(Deserialize, Debug, PartialEq)]
    struct B<'a> {
        name: &'a str,
        #[serde(borrow)]
        raw: &'a [u8],
        list: Vec<&'a str>,
    }
    let v = Value::Map(vec![
        (Value::from("name"), Value::from("n")),
        (Value::from("raw"), Value::Bytes(vec![1, 2])),
        (
            Value::from("list"),
            Value::Array(vec![Value::from("x"), Value::from("y")]),
        ),
    ]);
    let b = B::deserialize(&v).unwrap();
    assert_eq!(
        b,
        B {
            name: "n",
            raw: &[1, 2],
            list: vec!["x", "y"],
        }
    );
    // A tuple shorter than the array: serde's `invalid_length` words.
    let three = Value::Array(vec![Value::U64(1), Value::U64(2), Value::U64(3)]);
    let e = <(u8, u8)>::deserialize(&three).unwrap_err();
    assert!(e.to_string().contains("invalid length 3"), "{e}");
    let e = from_value::<(u8, u8)>(three).unwrap_err();
    assert!(e.to_string().contains("2 elements in sequence"), "{e}");
}

#[test]
fn index_takes_a_string_reference() {
    let v = Value::Map(vec![(Value::from("host"), Value::from("a"))]);
    let key = String::from("host");
    assert_eq!(v[&key], Value::from("a"));
    assert_eq!(v[&String::from("none")], Value::Nil);
}

#[test]
fn integers_compare_by_value_whatever_their_variant() {
    assert_eq!(Value::U128(5), Value::U64(5));
    assert_eq!(Value::I128(-1), Value::I64(-1));
    assert_eq!(Value::I128(7), Value::U64(7));
    assert_ne!(Value::U128(u128::MAX), Value::U128(u128::MAX - 1));
    assert_ne!(Value::U128(u128::MAX), Value::I128(-1));
    assert_ne!(Value::I64(-1), Value::U64(u64::MAX));
    assert_ne!(Value::U64(1), Value::F64(1.0));
    // A hand-built `U128(5)` reads back as the canonical `U64(5)`, which equals it.
    let back = from_value::<Value>(Value::U128(5)).unwrap();
    assert!(matches!(back, Value::U64(5)), "{back:?}");
    assert_eq!(back, Value::U128(5));
}

#[test]
fn features_debug_names_the_bits() {
    use qdf_core::Features;
    assert_eq!(
        format!("{:?}", Features::BALANCED),
        "Features(DENSE | QPACK | SHAPE_INTERN | PAIR_PRED | MTF | NUM_STATE | NESTED_COLUMNS | HEX_TEXT | STR_STATE | FLOAT_SPLIT)"
    );
    assert_eq!(format!("{:?}", Features::NONE), "Features(NONE)");
    assert_eq!(
        format!("{:?}", Features::FSST | Features::MAP_SHAPE),
        "Features(FSST | MAP_SHAPE)"
    );
}
