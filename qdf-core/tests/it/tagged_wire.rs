//! Tagged (enum and one-entry map) columns (`docs/SPEC.md` §22.3): hand-built containers
//! decoded to `Value` and typed targets, subset decode, and hostile ones that must give
//! typed errors.

use std::collections::BTreeMap;

use qdf_core::{Category, ErrorCode, Value};
use serde::{Deserialize, Serialize};

/// A message of hex `body` after a header with no flags.
fn msg(body: &str) -> Vec<u8> {
    let mut m = b"QDF\x01\x00".to_vec();
    m.extend(
        body.split_whitespace()
            .map(|b| u8::from_str_radix(b, 16).unwrap()),
    );
    m
}

/// Enum form: `A`, `B(7)`, nil, `B(9)` (nullable, a unit and a newtype variant).
const ENUMS: &str = "ef 04 00 01 81 65 88 02 81 41 0f 81 42 01 0b a3 00 01 01 a2 07 09";
/// One-entry maps: `{s: "GET"}`, `{i: "200"}` (decimal text), `{s: "POST"}`.
const MAPS: &str =
    "ef 03 00 01 81 76 18 02 81 73 04 81 69 14 a3 00 01 00 83 47 45 54 84 50 4f 53 54 a1 c3 c8";
/// `Some(A)` (kind bit 20), nil.
const WRAPPED: &str = "ef 02 00 01 81 65 a8 01 81 41 0f 01 a1 00";
/// One-entry maps whose key `ab` and strings are hex text (`docs/SPEC.md` §9), which no
/// encoder writes there: `{ab: "cafe"}` (an `F2 0C` definition), `{i: "200"}`, `{ab: "cafe"}`
/// (an `E8` reference), `{ab: "0A1B"}` (uppercase `F2 0B`).
const HEX: &str = "ef 04 00 01 81 76 18 02 f2 0b 02 ab 04 81 69 14 a4 00 01 00 00 \
                   f2 0c 04 ca fe e8 f2 0b 05 0a 1b a1 c3 c8";
/// A uint column `n` (0..4) before [`ENUMS`]'s column `e`.
const TWO: &str =
    "ef 04 00 02 81 6e 01 81 65 88 02 81 41 0f 81 42 01 a4 00 01 02 03 0b a3 00 01 01 a2 07 09";

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
enum E {
    A,
    B(u8),
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Row {
    e: Option<E>,
}

/// [`MAPS`] read as an enum (the 1-entry map form).
#[derive(Deserialize, Debug, PartialEq)]
enum Av {
    #[serde(rename = "s")]
    S(String),
    #[serde(rename = "i")]
    I(String),
}

#[derive(Deserialize, Debug, PartialEq)]
struct MapRow<T> {
    v: T,
}

/// `AnyValue`'s shape in `opentelemetry-proto`: the map flattened into a struct.
#[derive(Deserialize, Debug, PartialEq)]
struct Flat {
    #[serde(flatten)]
    rest: BTreeMap<String, String>,
}

#[test]
fn values() {
    let v: Value = qdf_core::from_slice(&msg(ENUMS)).unwrap();
    assert_eq!(
        v.to_string(),
        r#"[{"e": A}, {"e": B(7)}, {"e": nil}, {"e": B(9)}]"#
    );
    let v: Value = qdf_core::from_slice(&msg(MAPS)).unwrap();
    assert_eq!(
        v.to_string(),
        r#"[{"v": {"s": "GET"}}, {"v": {"i": "200"}}, {"v": {"s": "POST"}}]"#
    );
    let v: Value = qdf_core::from_slice(&msg(WRAPPED)).unwrap();
    assert_eq!(v.to_string(), r#"[{"e": Some(A)}, {"e": nil}]"#);
    let v: Value = qdf_core::from_slice(&msg(HEX)).unwrap();
    assert_eq!(
        v.to_string(),
        r#"[{"v": {"ab": "cafe"}}, {"v": {"i": "200"}}, {"v": {"ab": "cafe"}}, {"v": {"ab": "0A1B"}}]"#
    );
    // Typed: the hex key names the variant, the hex strings are rebuilt (owned).
    #[derive(Deserialize, Debug, PartialEq)]
    enum Hx {
        #[serde(rename = "ab")]
        Ab(String),
        #[serde(rename = "i")]
        I(String),
    }
    let rows: Vec<MapRow<Hx>> = qdf_core::from_slice(&msg(HEX)).unwrap();
    let want = [
        Hx::Ab("cafe".into()),
        Hx::I("200".into()),
        Hx::Ab("cafe".into()),
        Hx::Ab("0A1B".into()),
    ];
    assert_eq!(rows, want.map(|v| MapRow { v }));
}

#[test]
fn typed_targets() {
    let rows: Vec<Row> = qdf_core::from_slice(&msg(ENUMS)).unwrap();
    let want = [Some(E::A), Some(E::B(7)), None, Some(E::B(9))];
    assert_eq!(rows, want.map(|e| Row { e }));
    let rows: Vec<Row> = qdf_core::from_slice(&msg(WRAPPED)).unwrap();
    assert_eq!(rows, [Row { e: Some(E::A) }, Row { e: None }]);

    let rows: Vec<MapRow<Av>> = qdf_core::from_slice(&msg(MAPS)).unwrap();
    let want = [
        Av::S("GET".into()),
        Av::I("200".into()),
        Av::S("POST".into()),
    ];
    assert_eq!(rows, want.map(|v| MapRow { v }));
    let rows: Vec<MapRow<BTreeMap<String, String>>> = qdf_core::from_slice(&msg(MAPS)).unwrap();
    let one = |k: &str, v: &str| BTreeMap::from([(k.to_string(), v.to_string())]);
    assert_eq!(
        rows.iter().map(|r| r.v.clone()).collect::<Vec<_>>(),
        [one("s", "GET"), one("i", "200"), one("s", "POST")]
    );
    let rows: Vec<MapRow<Flat>> = qdf_core::from_slice(&msg(MAPS)).unwrap();
    assert_eq!(rows[1].v.rest, one("i", "200"));
    assert_eq!(rows[2].v.rest, one("s", "POST"));

    // serde's buffered `Content` (an untagged enum) sees row mode's `deserialize_any`.
    #[derive(Deserialize, Debug, PartialEq)]
    #[serde(untagged)]
    enum Any {
        Name(String),
        Map(BTreeMap<String, u8>),
        Nil(Option<u8>),
    }
    let rows: Vec<MapRow<Any>> =
        qdf_core::from_slice(&msg(&ENUMS.replace("81 65", "81 76"))).unwrap();
    assert_eq!(
        rows,
        [
            Any::Name("A".into()),
            Any::Map(BTreeMap::from([("B".to_string(), 7)])),
            Any::Nil(None),
            Any::Map(BTreeMap::from([("B".to_string(), 9)])),
        ]
        .map(|v| MapRow { v })
    );
}

#[test]
fn wrong_variant_kinds_are_data_errors() {
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    enum Swapped {
        A(u8),
        B,
    }
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct R {
        e: Option<Swapped>,
    }
    let e = qdf_core::from_slice::<Vec<R>>(&msg(ENUMS)).unwrap_err();
    assert_eq!(e.classify(), Category::Data, "{e}");
    assert!(e.to_string().contains("a newtype variant"), "{e}");
}

#[test]
fn subset_decode_skips_the_tagged_column() {
    #[derive(Deserialize, Debug, PartialEq)]
    struct N {
        n: u8,
    }
    let rows: Vec<N> = qdf_core::from_slice(&msg(TWO)).unwrap();
    assert_eq!(rows, [0, 1, 2, 3].map(|n| N { n }));
    #[derive(Deserialize, Debug, PartialEq)]
    struct Both {
        n: u8,
        e: Option<E>,
    }
    let rows: Vec<Both> = qdf_core::from_slice(&msg(TWO)).unwrap();
    assert_eq!(
        rows[3],
        Both {
            n: 3,
            e: Some(E::B(9))
        }
    );
    // Ignored values step the variant columns: the rows after still line up.
    let rows: Vec<serde::de::IgnoredAny> = qdf_core::from_slice(&msg(TWO)).unwrap();
    assert_eq!(rows.len(), 4);
}

/// The error code and offset of decoding `body` as a `Value`.
fn fails(body: &str) -> (Category, ErrorCode, Option<u64>) {
    let e = qdf_core::from_slice::<Value>(&msg(body)).unwrap_err();
    (e.classify(), e.code().clone(), e.offset())
}

#[test]
fn hostile_containers_are_typed_errors() {
    // A tag past the variants, at the tag column.
    let (c, code, at) = fails("ef 04 00 01 81 65 88 02 81 41 0f 81 42 01 0b a3 00 02 01 a2 07 09");
    assert_eq!(c, Category::Syntax);
    assert!(matches!(code, ErrorCode::BadCodec(_)), "{code:?}");
    assert_eq!(at, Some(5 + 15));
    // A variant column of 3 values for 2 tags, and of 1.
    for body in [
        "ef 04 00 01 81 65 88 02 81 41 0f 81 42 01 0b a3 00 01 01 a3 07 09 09",
        "ef 04 00 01 81 65 88 02 81 41 0f 81 42 01 0b a3 00 01 01 a1 07",
    ] {
        let (c, code, at) = fails(body);
        assert_eq!(c, Category::Syntax, "{body}");
        assert!(matches!(code, ErrorCode::BadCodec(_)), "{code:?}");
        assert_eq!(at, Some(5 + 19), "{body}");
    }
    // Declarations: a unit variant in the map form, bits 10 and 20, no variant, an
    // optional variant column, a unit variant with flags.
    for body in [
        "ef 01 00 01 81 76 18 01 81 41 0f a1 00",
        "ef 01 00 01 81 65 38 01 81 41 0f a1 00",
        "ef 01 00 01 81 65 08 00",
        "ef 01 00 01 81 65 08 01 81 42 41 a1 00 00 a0",
        "ef 01 00 01 81 65 08 01 81 42 4f a1 00",
    ] {
        let (c, code, _) = fails(body);
        assert_eq!(c, Category::Syntax, "{body}");
        assert!(matches!(code, ErrorCode::BadCodec(_)), "{body}: {code:?}");
    }
    // The tags cut short.
    let (c, _, _) = fails("ef 04 00 01 81 65 88 02 81 41 0f 81 42 01 0b a3 00 01");
    assert_eq!(c, Category::Eof);
}

#[test]
fn declarations_past_the_depth_limit_are_refused() {
    // Tagged columns nested 300 deep: one variant each, the last a uint.
    let mut body = String::from("ef 01 00 01 81 65");
    for _ in 0..300 {
        body.push_str(" 08 01 81 41");
    }
    body.push_str(" 01");
    let (c, code, _) = fails(&body);
    assert_eq!(c, Category::Limit);
    assert!(matches!(code, ErrorCode::DepthLimit(_)), "{code:?}");
}

/// The valid hand-built messages (for the walker's agreement test).
pub(crate) fn samples() -> Vec<Vec<u8>> {
    [ENUMS, MAPS, WRAPPED, TWO, HEX].map(msg).to_vec()
}
