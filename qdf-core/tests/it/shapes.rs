//! Struct shapes under wrong announced field counts, and map key-set shapes (`MAP_SHAPE`),
//! end to end: one-shot messages and sessions, typed and through `Value`
//! (`docs/SPEC.md` §15).

use std::collections::BTreeMap;

use proptest::prelude::*;
use qdf_core::{DecoderSession, EncoderSession, Features, Options, Value};
use serde::ser::{SerializeMap, SerializeStruct};
use serde::{Serialize, Serializer};

const NAMES: [&str; 5] = ["a", "b", "c", "host", "timestamp"];
const WORDS: [&str; 4] = ["x", "host", "hostname", "GET /users"];

/// A struct that announces `announced` fields to `serialize_struct` and then serializes
/// `fields` (names may repeat; a real struct's would not, the wire does not care).
#[derive(Clone, Debug)]
struct Liar {
    announced: usize,
    fields: Vec<(&'static str, Field)>,
}

#[derive(Clone, Debug)]
enum Field {
    Int(u8),
    Str(&'static str),
    Nested(Liar),
}

impl Serialize for Liar {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Liar", self.announced)?;
        for (k, v) in &self.fields {
            st.serialize_field(k, v)?;
        }
        st.end()
    }
}

impl Serialize for Field {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Field::Int(i) => s.serialize_u8(*i),
            Field::Str(w) => s.serialize_str(w),
            Field::Nested(l) => l.serialize(s),
        }
    }
}

impl Liar {
    fn value(&self) -> Value {
        Value::Map(
            self.fields
                .iter()
                .map(|(k, v)| {
                    let v = match v {
                        Field::Int(i) => Value::U64(*i as u64),
                        Field::Str(w) => Value::Str(w.to_string()),
                        Field::Nested(l) => l.value(),
                    };
                    (Value::Str(k.to_string()), v)
                })
                .collect(),
        )
    }
}

fn arb_fields(nested: bool) -> impl Strategy<Value = Vec<(&'static str, Field)>> {
    let leaf = prop_oneof![
        any::<u8>().prop_map(Field::Int),
        prop::sample::select(&WORDS[..]).prop_map(Field::Str),
    ];
    let field = if nested {
        prop_oneof![
            3 => leaf,
            1 => (0usize..5, prop::collection::vec(
                (prop::sample::select(&NAMES[..]), any::<u8>().prop_map(Field::Int)),
                0..5,
            ))
                .prop_map(|(announced, fields)| Field::Nested(Liar { announced, fields })),
        ]
        .boxed()
    } else {
        leaf.boxed()
    };
    prop::collection::vec((prop::sample::select(&NAMES[..]), field), 0..6)
}

fn arb_liar() -> impl Strategy<Value = Liar> {
    // Mostly records of one struct whose fields repeat, so shapes are declared, reused,
    // escaped, opened and recounted; the announced count is anything from 0 to 6.
    (0usize..7, arb_fields(true)).prop_map(|(announced, fields)| Liar { announced, fields })
}

fn tiers() -> [Options; 3] {
    [
        Options::balanced(),
        Options::compression(),
        Options::balanced().features(Features::BALANCED.with(Features::MAP_SHAPE)),
    ]
}

fn round_trip_value<T: Serialize>(v: &T, opts: Options) -> Value {
    let bytes = qdf_core::to_vec_with(v, opts).expect("encodes");
    qdf_core::from_slice_with(&bytes, opts).expect("decodes")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any announced count, more or fewer than the fields serialized, round-trips exactly,
    /// one message and across the frames of a session.
    #[test]
    fn announced_vs_actual_field_counts(recs in prop::collection::vec(arb_liar(), 1..12)) {
        let want = Value::Array(recs.iter().map(Liar::value).collect());
        for opts in tiers() {
            prop_assert_eq!(&round_trip_value(&recs, opts), &want);
            let mut enc = EncoderSession::new(opts);
            let mut dec = DecoderSession::new(opts);
            let mut buf = Vec::new();
            for r in &recs {
                enc.encode_frame(r, &mut buf).unwrap();
            }
            let mut at = 0;
            for r in &recs {
                let (v, used): (Value, usize) = dec.decode_frame(&buf[at..]).unwrap().unwrap();
                prop_assert_eq!(v, r.value());
                at += used;
            }
            prop_assert_eq!(at, buf.len());
        }
    }
}

#[test]
fn lying_struct_golden_bytes() {
    let rec = |announced, fields: &[(&'static str, u8)]| Liar {
        announced,
        fields: fields.iter().map(|&(k, v)| (k, Field::Int(v))).collect(),
    };
    // Announced 5, serialized 2: the declaration's count is rewritten to 2. Then a record
    // with a third field opens the reuse (`F2 0A` after `EC 01`), and an empty record is an
    // empty plain map.
    let recs = [
        rec(5, &[("a", 1), ("b", 2)]),
        rec(5, &[("a", 3), ("b", 4), ("c", 5)]),
        rec(5, &[]),
        rec(1, &[("a", 6), ("b", 7)]),
    ];
    let bytes = qdf_core::to_vec_with(&recs, Options::balanced()).unwrap();
    assert_eq!(
        bytes[5..],
        [
            0xA4, // 4 records
            0xEC, 0x00, 0x02, 0x81, b'a', 0x01, 0x81, b'b', 0x02, // declaration, 2 fields
            0xEC, 0x01, 0xF2, 0x0A, 0x03, 0x04, 0x81, b'c', 0x05, 0xC0, // open reuse
            0xD5, 0x00, // nothing serialized: {}
            0xEC, 0x00, 0x02, 0x81, b'a', 0x06, 0x81, b'b', 0x07, // announced 1: declared
        ]
    );
    let v: Value = qdf_core::from_slice(&bytes).unwrap();
    assert_eq!(
        v.to_string(),
        r#"[{"a": 1, "b": 2}, {"a": 3, "b": 4, "c": 5}, {}, {"a": 6, "b": 7}]"#
    );
}

// ---- map key-set shapes -------------------------------------------------------------------

fn map_shape() -> Options {
    Options::balanced().features(Features::BALANCED.with(Features::MAP_SHAPE))
}

#[derive(Clone, Debug)]
enum Key {
    S(&'static str),
    I(u8),
    Nil,
}

/// A map written entry by entry in the given order, announcing `len` (possibly wrong, or
/// `None`).
#[derive(Clone, Debug)]
struct Entries {
    len: Option<usize>,
    entries: Vec<(Key, u8)>,
}

impl Serialize for Key {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Key::S(k) => s.serialize_str(k),
            Key::I(i) => s.serialize_u8(*i),
            Key::Nil => s.serialize_none(),
        }
    }
}

impl Serialize for Entries {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(self.len)?;
        for (k, v) in &self.entries {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

impl Entries {
    fn value(&self) -> Value {
        Value::Map(
            self.entries
                .iter()
                .map(|(k, v)| {
                    let k = match k {
                        Key::S(s) => Value::Str(s.to_string()),
                        Key::I(i) => Value::U64(*i as u64),
                        Key::Nil => Value::Nil,
                    };
                    (k, Value::U64(*v as u64))
                })
                .collect(),
        )
    }
}

fn arb_entries() -> impl Strategy<Value = Entries> {
    let key = prop_oneof![
        8 => prop::sample::select(&NAMES[..]).prop_map(Key::S),
        1 => any::<u8>().prop_map(Key::I),
        1 => Just(Key::Nil),
    ];
    (
        prop::collection::vec((key, any::<u8>()), 0..6),
        prop_oneof![
            Just(None),
            Just(Some(usize::MAX)),
            (0usize..7).prop_map(Some)
        ],
    )
        .prop_map(|(entries, len)| {
            // usize::MAX stands for "the true count".
            let len = len.map(|l| if l == usize::MAX { entries.len() } else { l });
            Entries { len, entries }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Maps with varying key sets and orders, string and other keys, true, wrong and absent
    /// lengths: exact round trips in Balanced + MAP_SHAPE, one message, through `Value` and
    /// back, and across a session's frames.
    #[test]
    fn map_shapes_round_trip(maps in prop::collection::vec(arb_entries(), 1..16)) {
        let want = Value::Array(maps.iter().map(Entries::value).collect());
        let got = round_trip_value(&maps, map_shape());
        prop_assert_eq!(&got, &want);
        prop_assert_eq!(&round_trip_value(&got, map_shape()), &want);
        let mut enc = EncoderSession::new(map_shape());
        let mut dec = DecoderSession::new(map_shape());
        let mut buf = Vec::new();
        for m in &maps {
            enc.encode_frame(m, &mut buf).unwrap();
        }
        let mut at = 0;
        for m in &maps {
            let (v, used): (Value, usize) = dec.decode_frame(&buf[at..]).unwrap().unwrap();
            prop_assert_eq!(v, m.value());
            at += used;
        }
    }

    /// Typed string maps round-trip and keep their entry order (`BTreeMap`: sorted).
    #[test]
    fn string_maps_typed(maps in prop::collection::vec(
        prop::collection::btree_map(prop::sample::select(&NAMES[..]), "[a-z]{0,6}", 0..5), 1..10)
    ) {
        let bytes = qdf_core::to_vec_with(&maps, map_shape()).unwrap();
        let back: Vec<BTreeMap<String, String>> = qdf_core::from_slice(&bytes).unwrap();
        let want: Vec<BTreeMap<String, String>> = maps
            .iter()
            .map(|m| m.iter().map(|(k, v)| (k.to_string(), v.clone())).collect())
            .collect();
        prop_assert_eq!(back, want);
    }
}

#[test]
fn map_shape_golden_bytes() {
    let m = |entries: &[(Key, u8)]| Entries {
        len: Some(entries.len()),
        entries: entries.to_vec(),
    };
    let maps = [
        m(&[(Key::S("k"), 1), (Key::S("v"), 2)]),
        m(&[(Key::S("k"), 3), (Key::S("v"), 4)]),
        m(&[(Key::S("k"), 5), (Key::I(9), 6)]),
        m(&[(Key::I(1), 7)]),
    ];
    let bytes = qdf_core::to_vec_with(&maps, map_shape()).unwrap();
    assert_eq!(
        bytes[5..],
        [
            0xA4, // 4 maps
            0xEC, 0x00, 0x02, 0x81, b'k', 0x01, 0x81, b'v', 0x02, // declaration
            0xEC, 0x01, 0x03, 0x04, // reuse: values only
            0xEC, 0x01, 0x05, 0xF2, 0x0A, 0xF2, 0x0A, 0x09, 0x06,
            0xC0, // escape, marked key 9
            0xD5, 0x01, 0x01, 0x07, // first key not a string: a plain map
        ]
    );
    let v: Value = qdf_core::from_slice(&bytes).unwrap();
    assert_eq!(
        v.to_string(),
        r#"[{"k": 1, "v": 2}, {"k": 3, "v": 4}, {"k": 5, 9: 6}, {1: 7}]"#
    );
    // Without the feature maps are never shaped.
    let plain = qdf_core::to_vec_with(&maps, Options::balanced()).unwrap();
    assert_eq!(plain[5..8], [0xA4, 0xD5, 0x02]);
}

/// Across the frames of a session the key set is declared once: the second identical frame
/// costs the values and a 2-byte reuse header.
#[test]
fn map_shapes_across_session_frames() {
    let attrs: BTreeMap<&str, &str> = [
        ("http.method", "GET"),
        ("http.route", "/users/:id"),
        ("service.name", "frontend"),
    ]
    .into();
    let sizes = |opts: Options| {
        let mut enc = EncoderSession::new(opts);
        let mut dec = DecoderSession::new(opts);
        let mut sizes = Vec::new();
        let mut buf = Vec::new();
        for _ in 0..3 {
            let before = buf.len();
            enc.encode_frame(&attrs, &mut buf).unwrap();
            sizes.push(buf.len() - before);
            let (back, _): (BTreeMap<String, String>, usize) =
                dec.decode_frame(&buf[before..]).unwrap().unwrap();
            assert_eq!(back.len(), 3);
            assert_eq!(back["http.route"], "/users/:id");
        }
        sizes
    };
    let shaped = sizes(map_shape());
    let plain = sizes(Options::balanced());
    // Frame 1 includes the 5-byte stream header. Later frames: the length prefix, then plain:
    // map header `D5 03`, 3 key refs (`E1 id`), values "GET" inline (4 bytes) and 2 refs;
    // shaped: `EC 01` and the same values.
    let values = 4 + 2 + 2;
    assert_eq!(plain[1..], [1 + 2 + 3 * 2 + values; 2]);
    assert_eq!(shaped[1..], [1 + 2 + values; 2]);
    assert_eq!(
        shaped[0],
        plain[0] + 1,
        "a declaration costs one byte over a map header"
    );
}
