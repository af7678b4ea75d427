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

/// Real encoder output with a tagged column of three variant kinds (a uint, a string, a
/// unit) among nils, mutated: every prefix, one-byte changes, and a huge uvarint put in at
/// every offset. The walker and the `Value` decoder agree on every one; a typed decode never
/// panics and, where the `Value` decode succeeds, gives the same rows.
mod encoded {
    use qdf_core::inspect::{self, ColumnValues, EventKind};
    use qdf_core::{Options, Value};
    use serde::{Deserialize, Serialize};

    #[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
    pub(crate) enum E3 {
        A(u32),
        B(String),
        C,
    }

    #[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
    pub(crate) struct R3 {
        pub(crate) v: Option<E3>,
    }

    pub(crate) fn rows(n: usize) -> Vec<R3> {
        (0..n)
            .map(|i| R3 {
                v: match i % 4 {
                    0 => Some(E3::A(i as u32 * 1000)),
                    1 => Some(E3::B(format!("s{}", i % 3))),
                    2 => Some(E3::C),
                    _ => None,
                },
            })
            .collect()
    }

    /// The `(variants, count)` of every tagged column.
    fn tagged(bytes: &[u8], opts: &Options) -> Vec<(u32, u64)> {
        let mut out = Vec::new();
        inspect::message(bytes, opts, &mut |e| {
            if let EventKind::Column {
                values: ColumnValues::Tagged { variants, .. },
                count,
                ..
            } = &e.kind
            {
                out.push((*variants as u32, *count));
            }
        })
        .unwrap();
        out
    }

    /// A typed decode of `m` never panics, and gives what decoding its `Value` (if that
    /// succeeds) re-encoded in row mode gives: the columns hold no silently different rows.
    fn typed_agrees(m: &[u8], opts: &Options) {
        let typed = qdf_core::from_slice_with::<Vec<R3>>(m, *opts);
        if let Ok(v) = qdf_core::from_slice_with::<Value>(m, *opts) {
            let rows = qdf_core::to_vec_with(&v, Options::speed()).unwrap();
            let via = qdf_core::from_slice_with::<Vec<R3>>(&rows, Options::speed());
            assert_eq!(typed.ok(), via.ok(), "{m:02x?}");
        }
    }

    #[test]
    fn mutated_encoder_output_agrees() {
        for opts in [Options::balanced(), Options::compression()] {
            let m = qdf_core::to_vec_with(&rows(32), opts).unwrap();
            assert_eq!(tagged(&m, &opts), [(3, 24)], "{m:02x?}");
            crate::inspect::agree_mutated(&[(m.clone(), opts)]);
            for i in 5..m.len() {
                for x in [0x01u8, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0xFF] {
                    let mut c = m.clone();
                    c[i] ^= x;
                    typed_agrees(&c, &opts);
                }
                for huge in [&[0xFFu8; 9][..], &[0x80, 0x80, 0x80, 0x80, 0x10]] {
                    let mut c = m.clone();
                    c.splice(i..i + 1, huge.iter().copied().chain([0x01]));
                    crate::inspect::agree(&c, &opts, "huge");
                    typed_agrees(&c, &opts);
                }
            }
        }
    }

    #[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
    enum Inner {
        P(u16),
        Q,
    }

    #[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
    enum Outer {
        X(Inner),
        Y(String),
    }

    #[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
    struct Nested {
        o: Option<Outer>,
    }

    fn nested(n: usize) -> Vec<Nested> {
        (0..n)
            .map(|i| Nested {
                o: match i % 4 {
                    0 => Some(Outer::X(Inner::P(i as u16))),
                    1 => Some(Outer::X(Inner::Q)),
                    2 => Some(Outer::Y(format!("y{}", i % 5))),
                    _ => None,
                },
            })
            .collect()
    }

    /// The smallest limit in `0..=hi` at which `ok` holds (`ok` is monotone).
    fn least(hi: u64, ok: impl Fn(u64) -> bool) -> u64 {
        let (mut lo, mut hi) = (0, hi);
        assert!(ok(hi));
        while lo < hi {
            let mid = (lo + hi) / 2;
            if ok(mid) { hi = mid } else { lo = mid + 1 }
        }
        lo
    }

    /// At the least output and depth limits the encoder accepts, the decoder (and walker)
    /// accept the bytes under the same options; one below, both refuse them as a limit.
    fn limits_agree<T>(v: &T)
    where
        T: Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
    {
        for base in [Options::balanced(), Options::compression()] {
            let enc = |o: Options| qdf_core::to_vec_with(v, o);
            let out = least(1 << 20, |n| enc(base.max_output(n)).is_ok());
            let depth = least(64, |d| enc(base.max_depth(d as u32)).is_ok()) as u32;
            for (at, below) in [
                (base.max_output(out), base.max_output(out - 1)),
                (base.max_depth(depth), base.max_depth(depth - 1)),
            ] {
                let m = enc(at).unwrap();
                let back: T = qdf_core::from_slice_with(&m, at).unwrap();
                assert_eq!(&back, v, "{at:?}");
                crate::inspect::agree(&m, &at, "at the limit");
                crate::inspect::agree(&m, &below, "below the limit");
                let e = qdf_core::from_slice_with::<T>(&m, below).unwrap_err();
                assert_eq!(e.classify(), qdf_core::Category::Limit, "{below:?}: {e}");
                let e = enc(below).unwrap_err();
                assert_eq!(e.classify(), qdf_core::Category::Limit, "{below:?}: {e}");
            }
        }
    }

    #[test]
    fn least_limits_the_encoder_accepts_decode() {
        let opts = Options::balanced();
        let m = qdf_core::to_vec_with(&nested(32), opts).unwrap();
        let mut depths = Vec::new();
        inspect::message(&m, &opts, &mut |e| {
            if let EventKind::Column {
                values: ColumnValues::Tagged { .. },
                name,
                ..
            } = &e.kind
            {
                depths.push((e.depth, name.to_string()));
            }
        })
        .unwrap();
        assert_eq!(
            depths,
            [(2, "o".to_string()), (3, "X".to_string())],
            "{m:02x?}"
        );
        for n in [1, 2, 5, 32, 100] {
            limits_agree(&rows(n));
            limits_agree(&nested(n));
        }
    }

    #[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
    struct Leaf {
        t: Option<Outer>,
        n: u8,
    }

    #[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
    struct Deep {
        l: Vec<Leaf>,
        s: Option<Leaf>,
    }

    /// Rows whose list-of-struct and nullable struct columns (`docs/SPEC.md` §22.2) hold
    /// tagged columns, the deepest value in a late row only.
    fn deep(n: usize) -> Vec<Deep> {
        (0..n)
            .map(|i| {
                let leaf = |k: usize| Leaf {
                    t: (!k.is_multiple_of(3))
                        .then(|| nested(k + 1)[k].o.clone())
                        .flatten(),
                    n: k as u8,
                };
                Deep {
                    l: (0..i % 3).map(|k| leaf(i + k)).collect(),
                    s: (i + 1 == n).then(|| leaf(4)),
                }
            })
            .collect()
    }

    /// Under every depth limit, the walker refuses what the `Value` decoder refuses, with
    /// the same code at the same offset: the levels a column's values are presented at
    /// count (a row, `Some` of kind bit 20, a payload, a struct or list value).
    #[test]
    fn walker_counts_the_levels_columns_are_presented_at() {
        use qdf_core::ErrorCode;
        let limit = |d: u32| Options::default().max_depth(d);
        // `Some(A)`: container, row, `Some`: depth 3; at 2 both stop at the column (16).
        let m = super::msg(super::WRAPPED);
        let e = qdf_core::from_slice_with::<Value>(&m, limit(2)).unwrap_err();
        assert_eq!(
            (e.code(), e.offset()),
            (&ErrorCode::DepthLimit(2), Some(16))
        );
        // `B(7)`: container, row, the variant's payload: depth 3; at 2 both stop at 19.
        let m = super::msg(super::ENUMS);
        let e = qdf_core::from_slice_with::<Value>(&m, limit(2)).unwrap_err();
        assert_eq!(
            (e.code(), e.offset()),
            (&ErrorCode::DepthLimit(2), Some(19))
        );
        let mut msgs: Vec<Vec<u8>> = super::samples();
        for opts in [Options::balanced(), Options::compression()] {
            msgs.push(qdf_core::to_vec_with(&rows(32), opts).unwrap());
            msgs.push(qdf_core::to_vec_with(&nested(32), opts).unwrap());
            msgs.push(qdf_core::to_vec_with(&deep(40), opts).unwrap());
        }
        let mut refused = 0;
        for m in &msgs {
            for d in 0..10 {
                crate::inspect::agree(m, &limit(d), "depth");
                refused += usize::from(qdf_core::from_slice_with::<Value>(m, limit(d)).is_err());
            }
            let v = qdf_core::from_slice_with::<Value>(m, limit(10));
            assert!(v.is_ok(), "{v:?}");
        }
        // Each message is refused below its own depth (≥ 3 for all of them).
        assert!(refused >= 3 * msgs.len(), "{refused}");
    }

    #[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
    struct Wide {
        id: u32,
        v: Option<E3>,
        s: String,
    }

    fn wide(n: usize) -> Vec<Wide> {
        rows(n)
            .into_iter()
            .enumerate()
            .map(|(i, r)| Wide {
                id: i as u32,
                v: r.v,
                s: format!("t{}", i % 7),
            })
            .collect()
    }

    /// Subset targets before and after the tagged column, `Value` and `serde_json::Value`
    /// targets (the same as row mode's), and an enum target missing a variant.
    #[test]
    fn subset_value_and_missing_variant_targets() {
        #[derive(Deserialize, Debug, PartialEq)]
        struct Id {
            id: u32,
        }
        #[derive(Deserialize, Debug, PartialEq)]
        struct S {
            s: String,
        }
        #[derive(Deserialize, Debug, PartialEq)]
        struct IdS {
            s: String,
            id: u32,
        }
        #[derive(Deserialize, Debug)]
        #[allow(dead_code)]
        enum NoB {
            A(u32),
            C,
        }
        #[derive(Deserialize, Debug)]
        #[allow(dead_code)]
        struct W2 {
            id: u32,
            v: Option<NoB>,
        }
        let v = wide(32);
        let row_mode = qdf_core::to_vec_with(&v, Options::speed()).unwrap();
        let json_want = serde_json::to_value(&v).unwrap();
        let value_want: Value = qdf_core::from_slice_with(&row_mode, Options::speed()).unwrap();
        for opts in [Options::balanced(), Options::compression()] {
            let m = qdf_core::to_vec_with(&v, opts).unwrap();
            assert_eq!(tagged(&m, &opts), [(3, 24)], "{m:02x?}");
            let ids: Vec<Id> = qdf_core::from_slice_with(&m, opts).unwrap();
            assert_eq!(ids, v.iter().map(|w| Id { id: w.id }).collect::<Vec<_>>());
            let ss: Vec<S> = qdf_core::from_slice_with(&m, opts).unwrap();
            assert_eq!(
                ss,
                v.iter().map(|w| S { s: w.s.clone() }).collect::<Vec<_>>()
            );
            let both: Vec<IdS> = qdf_core::from_slice_with(&m, opts).unwrap();
            assert_eq!(
                both[31],
                IdS {
                    s: "t3".into(),
                    id: 31
                }
            );
            let val: Value = qdf_core::from_slice_with(&m, opts).unwrap();
            assert_eq!(val, value_want);
            let json: serde_json::Value = qdf_core::from_slice_with(&m, opts).unwrap();
            assert_eq!(json, json_want);
            assert_eq!(json[1]["v"], serde_json::json!({"B": "s1"}));
            assert_eq!(json[2]["v"], serde_json::json!("C"));
            let e = qdf_core::from_slice_with::<Vec<W2>>(&m, opts).unwrap_err();
            assert_eq!(e.classify(), qdf_core::Category::Data, "{e}");
            assert!(e.to_string().contains("unknown variant `B`"), "{e}");
        }
        let json: serde_json::Value = qdf_core::from_slice(&row_mode).unwrap();
        assert_eq!(json, json_want);
    }
}
