//! The encoder never returns `Ok` for bytes it would not decode (issue #16, item 3).
//!
//! A `Serialize` impl may ignore the error of an item it hands to a compound (a legal, if odd,
//! impl) and go on: the bytes written for the failed item are partial. Every tier, every
//! compound kind, nested anywhere, through `to_vec_with`, `to_writer_with`, a reused
//! [`Serializer`](qdf_core::Serializer) and sessions, must then refuse the value with the
//! first error, and a session must roll back so that its next frame still decodes on the peer.
//!
//! Also: a `Serialize` impl that announces one length and writes another, with no error, is
//! written with the true count, never as `Ok` and undecodable bytes.

use qdf_core::{
    DecoderSession, EncoderSession, ErrorCode, Features, Options, Value, from_slice_with,
    to_vec_with, to_writer_with,
};
use serde::Serialize;
use serde::ser::{
    Error as _, SerializeMap, SerializeSeq, SerializeStruct, SerializeStructVariant,
    SerializeTuple, SerializeTupleStruct, SerializeTupleVariant, Serializer,
};

/// Every tier, and the optional features that change the row path.
fn tiers() -> Vec<(&'static str, Options)> {
    let with = |o: Options, f: Features| {
        let bits = o.features.with(f);
        o.features(bits)
    };
    vec![
        ("speed", Options::speed()),
        ("balanced", Options::balanced()),
        ("compression", Options::compression()),
        (
            "balanced+map_shape",
            with(Options::balanced(), Features::MAP_SHAPE),
        ),
        (
            "compression+map_shape",
            with(Options::compression(), Features::MAP_SHAPE),
        ),
        (
            "compression+column_index",
            with(Options::compression(), Features::COLUMN_INDEX),
        ),
    ]
}

/// The compound kinds of serde, with the position a failing item takes.
#[derive(Copy, Clone, Debug, PartialEq)]
enum Ck {
    Seq,
    /// `serialize_seq(None)`.
    SeqNoLen,
    Tuple,
    TupleStruct,
    TupleVariant,
    /// Items are map values (keys `k0`, `k1`, …).
    Map,
    /// Items are map keys (values 0, 1, …).
    MapKeys,
    /// `serialize_map(None)`, items are values.
    MapNoLen,
    Struct,
    StructVariant,
}

const KINDS: [Ck; 10] = [
    Ck::Seq,
    Ck::SeqNoLen,
    Ck::Tuple,
    Ck::TupleStruct,
    Ck::TupleVariant,
    Ck::Map,
    Ck::MapKeys,
    Ck::MapNoLen,
    Ck::Struct,
    Ck::StructVariant,
];

/// A value tree built from hostile `Serialize` steps.
#[derive(Clone, Debug)]
enum Node {
    Int(u64),
    Str(&'static str),
    /// Opens a compound of this kind announcing 2 items, writes one (`1`), and fails with
    /// "bad" without ending it (the issue's `Bad` for `Ck::Seq`).
    Bad(Ck),
    /// Fails with "bad" before writing anything.
    BadNow,
    /// A compound announcing `announced` items, writing `items`; `swallow`: the errors of
    /// items are ignored.
    C {
        ck: Ck,
        announced: usize,
        items: Vec<Node>,
        swallow: bool,
    },
}

fn c(ck: Ck, items: Vec<Node>) -> Node {
    Node::C {
        ck,
        announced: items.len(),
        items,
        swallow: false,
    }
}

/// The issue's shape: a compound that ignores the error of its first item `bad`, then
/// writes `2`, then ends.
fn swallower(ck: Ck, bad: Node) -> Node {
    Node::C {
        ck,
        announced: 2,
        items: vec![bad, Node::Int(2)],
        swallow: true,
    }
}

const KEYS: [&str; 16] = [
    "k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9", "k10", "k11", "k12", "k13", "k14",
    "k15",
];

impl Serialize for Node {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Node::Int(v) => s.serialize_u64(*v),
            Node::Str(v) => s.serialize_str(v),
            Node::BadNow => Err(S::Error::custom("bad")),
            Node::Bad(ck) => {
                compound(s, *ck, 2, &[Node::Int(1)], false, true)?;
                Err(S::Error::custom("bad"))
            }
            Node::C {
                ck,
                announced,
                items,
                swallow,
            } => compound(s, *ck, *announced, items, *swallow, false).map(|r| r.expect("ended")),
        }
    }
}

/// Writes compound `ck` announcing `announced` items; `swallow` ignores item errors;
/// `leave_open` returns before `end` (`Ok(None)`), else the result of `end`.
fn compound<S: Serializer>(
    s: S,
    ck: Ck,
    announced: usize,
    items: &[Node],
    swallow: bool,
    leave_open: bool,
) -> Result<Option<S::Ok>, S::Error> {
    macro_rules! body {
        ($c:ident, |$i:ident, $it:ident| $call:expr) => {{
            for ($i, $it) in items.iter().enumerate() {
                let r = $call;
                if !swallow {
                    r?;
                }
            }
            if leave_open {
                return Ok(None);
            }
            $c.end().map(Some)
        }};
    }
    match ck {
        Ck::Seq | Ck::SeqNoLen => {
            let mut c = s.serialize_seq((ck == Ck::Seq).then_some(announced))?;
            body!(c, |_i, it| c.serialize_element(it))
        }
        Ck::Tuple => {
            let mut c = s.serialize_tuple(announced)?;
            body!(c, |_i, it| c.serialize_element(it))
        }
        Ck::TupleStruct => {
            let mut c = s.serialize_tuple_struct("Ts", announced)?;
            body!(c, |_i, it| c.serialize_field(it))
        }
        Ck::TupleVariant => {
            let mut c = s.serialize_tuple_variant("E", 1, "Tv", announced)?;
            body!(c, |_i, it| c.serialize_field(it))
        }
        Ck::Map | Ck::MapNoLen => {
            let mut c = s.serialize_map((ck == Ck::Map).then_some(announced))?;
            body!(c, |i, it| c.serialize_entry(KEYS[i], it))
        }
        Ck::MapKeys => {
            let mut c = s.serialize_map(Some(announced))?;
            body!(c, |i, it| {
                // The value is written even when the key failed (what a swallowing impl does).
                let k = c.serialize_key(it);
                let v = c.serialize_value(&(i as u8));
                k.and(v)
            })
        }
        Ck::Struct => {
            let mut c = s.serialize_struct("St", announced)?;
            body!(c, |i, it| c.serialize_field(KEYS[i], it))
        }
        Ck::StructVariant => {
            let mut c = s.serialize_struct_variant("E", 2, "Sv", announced)?;
            body!(c, |i, it| c.serialize_field(KEYS[i], it))
        }
    }
}

/// The failing items: each compound kind left open after one item, and an immediate error.
fn bads() -> Vec<Node> {
    KINDS
        .iter()
        .map(|&k| Node::Bad(k))
        .chain([Node::BadNow])
        .collect()
}

/// Places `n` at several depths and next to siblings: alone, in a sequence, as a struct
/// field, in a row of a `Vec` of rows (the columnar candidates), in a map value.
fn nestings(n: Node) -> Vec<Node> {
    let rows = |n: &Node| {
        (0..20)
            .map(|i| {
                let mut fields = vec![Node::Int(i), Node::Str("row text")];
                if i == 17 {
                    fields.push(n.clone());
                } else {
                    fields.push(Node::Int(i * 3));
                }
                c(Ck::Struct, fields)
            })
            .collect::<Vec<_>>()
    };
    vec![
        n.clone(),
        c(Ck::Seq, vec![Node::Int(7), n.clone(), Node::Str("after")]),
        c(Ck::Struct, vec![Node::Str("first"), n.clone()]),
        c(Ck::Seq, rows(&n)),
        c(Ck::Map, vec![c(Ck::Seq, vec![n.clone()]), Node::Int(1)]),
        c(
            Ck::TupleVariant,
            vec![c(Ck::StructVariant, vec![Node::Int(1), n])],
        ),
    ]
}

fn assert_bad(r: qdf_core::Result<Vec<u8>>, what: &str) {
    match r {
        Ok(bytes) => panic!("{what}: Ok({bytes:02x?}), want the item's error"),
        Err(e) => assert_eq!(e.code(), &ErrorCode::Message("bad".into()), "{what}"),
    }
}

/// The issue's example, byte for byte: `{x: Bad, y: 2}` where `x`'s error is ignored.
/// Speed wrote `51 44 46 01 00 d5 02 81 78 a2 01 81 79 02` (the seq of 2 holds 1 and the
/// next key), which does not decode.
#[test]
fn issue_example_is_refused() {
    struct Bad;
    impl Serialize for Bad {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut seq = s.serialize_seq(Some(2))?;
            seq.serialize_element(&1u8)?;
            Err(S::Error::custom("bad"))
        }
    }
    struct Outer;
    impl Serialize for Outer {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut st = s.serialize_struct("Outer", 2)?;
            let _ = st.serialize_field("x", &Bad);
            st.serialize_field("y", &2u8)?;
            st.end()
        }
    }
    for (name, opts) in tiers() {
        assert_bad(to_vec_with(&Outer, opts), name);
        let mut w = Vec::new();
        let e = to_writer_with(&mut w, &Outer, opts).unwrap_err();
        assert_eq!(e.code(), &ErrorCode::Message("bad".into()), "{name}");
        assert!(w.is_empty(), "{name}: nothing written");
        let mut ser = qdf_core::Serializer::new(opts);
        assert!(Outer.serialize(&mut ser).is_err(), "{name}: Serializer");
    }
}

/// Every compound kind swallowing every kind of failing item, nested in every way, in every
/// tier: refused with the item's error.
#[test]
fn swallowed_item_errors_are_refused_everywhere() {
    let mut cases = 0;
    for (name, opts) in tiers() {
        for &ck in &KINDS {
            for bad in bads() {
                for n in nestings(swallower(ck, bad.clone())) {
                    assert_bad(
                        to_vec_with(&n, opts),
                        &format!("{name} {ck:?} {bad:?} {n:?}"),
                    );
                    cases += 1;
                }
            }
        }
    }
    assert_eq!(cases, 6 * 10 * 11 * 6);
}

/// A swallowed error inside a swallowed error: still the first error.
#[test]
fn doubly_swallowed_errors_are_refused() {
    for (name, opts) in tiers() {
        for &outer in &KINDS {
            for &inner in &KINDS {
                let n = swallower(outer, swallower(inner, Node::Bad(Ck::Seq)));
                assert_bad(
                    to_vec_with(&n, opts),
                    &format!("{name} {outer:?} {inner:?}"),
                );
            }
        }
    }
}

/// An item that fails and whose error the compound passes on is not affected (the error
/// was always returned): the same error, and a following good value in a session is fine.
#[test]
fn sessions_refuse_the_frame_and_the_next_one_decodes() {
    let good = |i: u64| {
        c(
            Ck::Struct,
            vec![
                Node::Int(i),
                Node::Str("a string long enough to intern"),
                c(Ck::Map, vec![Node::Str("map value"), Node::Int(i + 1)]),
                c(Ck::Seq, (0..12).map(|k| Node::Int(k * i)).collect()),
            ],
        )
    };
    for (name, opts) in tiers() {
        for &ck in &KINDS {
            for bad in bads() {
                let mut enc = EncoderSession::new(opts);
                let mut dec = DecoderSession::new(opts);
                let mut wire = Vec::new();
                let mut want = Vec::new();
                for (i, n) in nestings(swallower(ck, bad.clone())).into_iter().enumerate() {
                    let i = i as u64;
                    enc.encode_frame(&good(i), &mut wire).unwrap();
                    want.push(good(i));
                    let before = wire.clone();
                    let e = enc.encode_frame(&n, &mut wire).unwrap_err();
                    assert_eq!(e.code(), &ErrorCode::Message("bad".into()), "{name} {ck:?}");
                    assert_eq!(wire, before, "{name}: a refused frame writes nothing");
                    let mut msg = Vec::new();
                    assert!(enc.encode_message(&n, &mut msg).is_err());
                }
                enc.encode_frame(&good(99), &mut wire).unwrap();
                want.push(good(99));
                let mut at = 0;
                for w in &want {
                    let (v, used): (Value, usize) = dec
                        .decode_frame(&wire[at..])
                        .unwrap_or_else(|e| panic!("{name} {ck:?} {bad:?}: {e}"))
                        .unwrap();
                    at += used;
                    assert_eq!(v, speed_value(w), "{name} {ck:?} {bad:?}");
                }
                assert_eq!(at, wire.len());
            }
        }
    }
}

/// What Speed writes for `n`, decoded.
fn speed_value(n: &Node) -> Value {
    let bytes = to_vec_with(n, Options::speed()).unwrap();
    from_slice_with(&bytes, Options::speed()).unwrap()
}

/// `n` with every announced count made true.
fn fixed(n: &Node) -> Node {
    match n {
        Node::C { ck, items, .. } => c(*ck, items.iter().map(fixed).collect()),
        other => other.clone(),
    }
}

/// A compound that announces `announced` items and writes `written`, no error anywhere.
fn miscounted(ck: Ck, announced: usize, written: usize, item: &dyn Fn(usize) -> Node) -> Node {
    Node::C {
        ck,
        announced,
        items: (0..written).map(item).collect(),
        swallow: false,
    }
}

/// Announced counts that differ from the items written: each tier writes the true count
/// (the bytes decode to what the same value with true counts gives) or refuses the value;
/// never `Ok` with bytes that do not decode or decode to something else. Items are plain
/// (ints, strings) and packable runs (QPack), at the top, nested and in columnar rows.
#[test]
fn announced_counts_that_lie_are_written_true() {
    let int = |i: usize| Node::Int(i as u64 * 1000);
    let text = |i: usize| Node::Str(["alpha", "beta", "gamma"][i % 3]);
    let mut refused = Vec::new();
    for (name, opts) in tiers() {
        for &ck in &KINDS {
            for (announced, written) in [(2, 0), (2, 1), (2, 3), (0, 2), (5, 9), (12, 8), (8, 12)] {
                for item in [&int as &dyn Fn(usize) -> Node, &text] {
                    let n = miscounted(ck, announced, written, item);
                    // Alone, twice in a row (shape reuse), and as a field of 20 rows.
                    let rows = c(
                        Ck::Seq,
                        (0..20)
                            .map(|i| c(Ck::Struct, vec![Node::Int(i), n.clone()]))
                            .collect(),
                    );
                    let shaped_rows = c(
                        Ck::Seq,
                        (0..20)
                            .map(|i| miscounted(Ck::Struct, announced, written, &|k| int(k + i)))
                            .collect(),
                    );
                    // Rows under a sequence whose own count lies (columnar candidates).
                    let row = |i: usize| c(Ck::Struct, vec![Node::Int(i as u64), n.clone()]);
                    let lying_rows = [
                        miscounted(Ck::Seq, 30, 20, &row),
                        miscounted(Ck::Seq, 10, 20, &row),
                        miscounted(Ck::Tuple, 16, 17, &row),
                    ];
                    let pair = c(Ck::Seq, vec![n.clone(), n.clone()]);
                    for v in [n.clone(), pair, rows, shaped_rows]
                        .into_iter()
                        .chain(lying_rows)
                    {
                        let what = format!("{name} {ck:?} {announced}/{written} {v:?}");
                        let want = speed_value(&fixed(&v));
                        match to_vec_with(&v, opts) {
                            Ok(bytes) => {
                                let got: Value = from_slice_with(&bytes, opts)
                                    .unwrap_or_else(|e| panic!("{what}: Ok but {e}"));
                                assert_eq!(got, want, "{what}");
                            }
                            Err(e) => refused.push(format!("{what}: {e}")),
                        }
                    }
                }
            }
        }
    }
    // Only a `Value` variant carrier can refuse (none here): every lie is written true.
    assert!(refused.is_empty(), "{refused:#?}");
}

/// A tuple variant's payload is an array (`docs/SPEC.md` §8: `F2 08 name array`),
/// so its fields are never packed (QPack) or written as a columnar container, whatever they
/// are; typed, through [`Value`], and in sessions.
#[test]
fn tuple_variant_fields_stay_an_array() {
    #[derive(Serialize, serde::Deserialize, Debug, PartialEq)]
    enum E {
        Ints(u64, u64, u64, u64, u64, u64, u64, u64, u64),
        Floats(f64, f64, f64, f64, f64, f64, f64, f64),
        Bools(bool, bool, bool, bool, bool, bool, bool, bool, bool, bool),
    }
    let typed = [
        E::Ints(1, 2, 3, 4, 5, 6, 7, 8, 9),
        E::Floats(0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5),
        E::Bools(
            true, false, true, true, false, true, false, false, true, true,
        ),
    ];
    let rows = miscounted(Ck::TupleVariant, 20, 20, &|i| {
        c(Ck::Struct, vec![Node::Int(i as u64), Node::Str("row")])
    });
    for (name, opts) in tiers() {
        for v in &typed {
            let bytes = to_vec_with(v, opts).unwrap();
            let back: E =
                from_slice_with(&bytes, opts).unwrap_or_else(|e| panic!("{name} {v:?}: {e}"));
            assert_eq!(&back, v, "{name}");
            // The same through `Value`: identical bytes.
            let val: Value = from_slice_with(&bytes, opts).unwrap();
            assert_eq!(
                to_vec_with(&val, opts).unwrap(),
                bytes,
                "{name} {v:?} as Value"
            );
        }
        let bytes = to_vec_with(&rows, opts).unwrap();
        let got: Value = from_slice_with(&bytes, opts).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(got, speed_value(&rows), "{name}");
        let mut enc = EncoderSession::new(opts);
        let mut dec = DecoderSession::new(opts);
        let mut wire = Vec::new();
        for v in &typed {
            enc.encode_frame(v, &mut wire).unwrap();
        }
        let mut at = 0;
        for v in &typed {
            let (back, n): (E, usize) = dec.decode_frame(&wire[at..]).unwrap().unwrap();
            assert_eq!(&back, v, "{name} session");
            at += n;
        }
    }
}

/// A hand-built [`Value::Variant`] whose payload does not fit its kind (a tuple variant
/// holding no array, a struct variant holding no map) is refused, since no decoder accepts
/// it; well-formed ones round-trip in every tier, a tuple variant of 9 integers included.
#[test]
fn value_variants_with_a_foreign_payload_are_refused() {
    use qdf_core::{Variant, VariantKind};
    let var = |kind, value| {
        Value::Variant(Box::new(Variant {
            kind,
            name: "V".into(),
            value,
        }))
    };
    let ints = Value::Array((0..9u64).map(Value::U64).collect());
    let map = Value::Map(vec![(Value::Str("a".into()), Value::U64(1))]);
    for (name, opts) in tiers() {
        for bad in [
            var(VariantKind::Tuple, Value::U64(1)),
            var(VariantKind::Tuple, map.clone()),
            var(VariantKind::Struct, ints.clone()),
            var(VariantKind::Struct, Value::Nil),
            Value::Array(vec![Value::U64(1), var(VariantKind::Tuple, Value::Unit)]),
        ] {
            let e = to_vec_with(&bad, opts).unwrap_err();
            assert!(
                matches!(e.code(), ErrorCode::TypeMismatch { .. }),
                "{name} {bad:?}: {e}"
            );
        }
        for good in [
            var(VariantKind::Tuple, ints.clone()),
            var(VariantKind::Struct, map.clone()),
            var(VariantKind::Newtype, ints.clone()),
            var(VariantKind::Tuple, Value::Array(vec![])),
        ] {
            let bytes = to_vec_with(&good, opts).unwrap();
            let back: Value =
                from_slice_with(&bytes, opts).unwrap_or_else(|e| panic!("{name} {good:?}: {e}"));
            assert_eq!(back, good, "{name}");
        }
    }
}
