//! The Dense dialect end to end: golden bytes per tag, shapes, borrowing, sessions, caps,
//! failure rules and hostile input (`docs/SPEC.md` §14, §15).

use std::collections::BTreeMap;

/// The header flag of the Dense dialect (`docs/SPEC.md` §1).
const FLAG_DENSE: u8 = 0x01;
use qdf_core::{
    Category, DecoderSession, EncoderSession, ErrorCode, Features, Options, Value, from_slice,
    from_slice_with, to_vec_with,
};
use serde::ser::SerializeTuple;
use serde::{Deserialize, Serialize, Serializer};

/// A list written as a tuple (an array header, outside the sequence codecs).
struct Tup<T>(Vec<T>);

impl<T: Serialize> Serialize for Tup<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut t = s.serialize_tuple(self.0.len())?;
        for x in &self.0 {
            t.serialize_element(x)?;
        }
        t.end()
    }
}

fn balanced_body<T: Serialize + ?Sized>(v: &T) -> Vec<u8> {
    let bytes = to_vec_with(v, Options::balanced()).unwrap();
    assert_eq!(
        bytes[4] & FLAG_DENSE,
        FLAG_DENSE,
        "header flags {:#x}",
        bytes[4]
    );
    bytes[5..].to_vec()
}

#[test]
fn golden_intern_repeat_inline_ref() {
    let body = balanced_body(&("host", "host", "ab", "host"));
    assert_eq!(
        body,
        [
            0xA4, 0xE0, 4, b'h', b'o', b's', b't', 0xE8, 0x82, b'a', b'b', 0xE1, 0
        ]
    );
    let bytes = to_vec_with(&("host", "host", "ab", "host"), Options::balanced()).unwrap();
    let back: (&str, &str, &str, &str) = from_slice(&bytes).unwrap();
    assert_eq!(back, ("host", "host", "ab", "host"));
}

#[test]
fn golden_intern_bin_keeps_its_kind() {
    let b = serde_bytes::Bytes::new(b"host");
    let body = balanced_body(&("host", b, b));
    assert_eq!(
        body,
        [
            0xA3, 0xE0, 4, b'h', b'o', b's', b't', 0xE2, 4, b'h', b'o', b's', b't', 0xE8
        ]
    );
    let bytes = to_vec_with(&("host", b, b), Options::balanced()).unwrap();
    let v: Value = from_slice(&bytes).unwrap();
    let want = Value::Array(vec![
        Value::Str("host".into()),
        Value::Bytes(b"host".to_vec()),
        Value::Bytes(b"host".to_vec()),
    ]);
    assert_eq!(v, want);
}

fn fill(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("fill{i:04}")).collect()
}

#[test]
fn golden_mtf_and_pair() {
    // 300 distinct values; then 150 (out of the ring: E1), 180 (in the ring: E9 120),
    // 150 (E9 1), 180 (pair 150 → 180 known: EA 00).
    let mut v = fill(300);
    for s in ["fill0150", "fill0180", "fill0150", "fill0180"] {
        v.push(s.into());
    }
    let body = balanced_body(&Tup(v.clone()));
    assert_eq!(
        &body[body.len() - 9..],
        [0xE1, 0x96, 0x01, 0xE9, 120, 0xE9, 1, 0xEA, 0x00]
    );
    let bytes = to_vec_with(&Tup(v.clone()), Options::balanced()).unwrap();
    let back: Vec<String> = from_slice(&bytes).unwrap();
    assert_eq!(back, v);
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Point {
    x: u8,
    y: u8,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Rec {
    a: u8,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    b: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    c: Option<u8>,
}

#[test]
fn golden_shape_declare_and_reuse() {
    let v = (Point { x: 1, y: 2 }, Point { x: 3, y: 4 });
    let body = balanced_body(&v);
    assert_eq!(
        body,
        [
            0xA2, 0xEC, 0, 2, 0x81, b'x', 1, 0x81, b'y', 2, 0xEC, 1, 3, 4
        ]
    );
    let bytes = to_vec_with(&v, Options::balanced()).unwrap();
    assert_eq!(from_slice::<(Point, Point)>(&bytes).unwrap(), v);
    // Self-describing: a shape reads as a map.
    let val: Value = from_slice(&bytes).unwrap();
    let p = |x: u8, y: u8| {
        Value::Map(vec![
            (Value::Str("x".into()), Value::U64(x as u64)),
            (Value::Str("y".into()), Value::U64(y as u64)),
        ])
    };
    assert_eq!(val, Value::Array(vec![p(1, 2), p(3, 4)]));
}

fn rec(a: u8, b: Option<u8>, c: Option<u8>) -> Rec {
    Rec { a, b, c }
}

#[test]
fn golden_shape_escape() {
    let v = (
        rec(1, Some(2), None),
        rec(1, None, Some(2)),
        rec(5, Some(6), None),
    );
    let body = balanced_body(&v);
    assert_eq!(
        body,
        [
            0xA3, 0xEC, 0, 2, 0x81, b'a', 1, 0x81, b'b', 2, // declaration (a, b)
            0xEC, 1, 1, 0xF2, 0x0A, 0x81, b'c', 2, 0xC0, // reuse, escape at `c`
            0xEC, 1, 5, 6 // the shape with those names is predicted again
        ]
    );
    let bytes = to_vec_with(&v, Options::balanced()).unwrap();
    assert_eq!(from_slice::<(Rec, Rec, Rec)>(&bytes).unwrap(), v);
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Opt2 {
    #[serde(skip_serializing_if = "Option::is_none", default)]
    a: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    b: Option<u8>,
    c: u8,
}

#[test]
fn golden_shape_restart_on_the_first_field() {
    let r = |a, b| Opt2 { a, b, c: 3 };
    let v = (r(Some(1), None), r(None, Some(2)), r(Some(5), None));
    let body = balanced_body(&v);
    assert_eq!(
        body,
        [
            0xA3, 0xEC, 0, 2, 0x81, b'a', 1, 0x81, b'c', 3, // declares (a, c)
            0xEC, 0, 2, 0x81, b'b', 2, 0x81, b'c',
            3, // predicted (a, c), got b: declares (b, c)
            0xEC, 1, 5, 3 // predicted (b, c), got a: restarts as a reuse of (a, c)
        ]
    );
    let bytes = to_vec_with(&v, Options::balanced()).unwrap();
    assert_eq!(from_slice::<(Opt2, Opt2, Opt2)>(&bytes).unwrap(), v);
}

#[test]
fn shapes_decode_into_maps_and_ignored_fields() {
    #[derive(Deserialize, Debug, PartialEq)]
    struct OnlyY {
        y: u8,
    }
    let v = (Point { x: 1, y: 2 }, Point { x: 3, y: 4 });
    let bytes = to_vec_with(&v, Options::balanced()).unwrap();
    let m: (BTreeMap<String, u8>, BTreeMap<String, u8>) = from_slice(&bytes).unwrap();
    assert_eq!(m.1["x"], 3);
    let o: (OnlyY, OnlyY) = from_slice(&bytes).unwrap();
    assert_eq!(o, (OnlyY { y: 2 }, OnlyY { y: 4 }));
}

#[test]
fn back_references_within_one_message_borrow() {
    let bytes = to_vec_with(&("service", "service", "service"), Options::balanced()).unwrap();
    let v: (&str, &str, &str) = from_slice(&bytes).unwrap();
    assert_eq!(v, ("service", "service", "service"));
    let start = bytes.as_ptr() as usize;
    let inside = |s: &str| (start..start + bytes.len()).contains(&(s.as_ptr() as usize));
    assert!(inside(v.0) && inside(v.1) && inside(v.2));
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct LogRecord {
    ts: u64,
    level: String,
    service: String,
    host: String,
    message: String,
    attrs: BTreeMap<String, String>,
}

fn log(i: u64) -> LogRecord {
    LogRecord {
        ts: 1_700_000_000_000 + i,
        level: if i.is_multiple_of(5) { "WARN" } else { "INFO" }.into(),
        service: "checkout-service".into(),
        host: format!("node-{:02}.eu-west-1.internal", i % 3),
        message: format!("request {i} served"),
        attrs: [
            ("http.method".to_string(), "GET".to_string()),
            ("http.route".to_string(), "/api/v1/cart".to_string()),
        ]
        .into(),
    }
}

#[test]
fn second_identical_record_costs_at_most_30_percent() {
    let mut enc = EncoderSession::new(Options::balanced());
    let mut out = Vec::new();
    enc.encode_frame(&log(1), &mut out).unwrap();
    let first = out.len() - 5;
    let before = out.len();
    enc.encode_frame(&log(1), &mut out).unwrap();
    let second = out.len() - before;
    assert!(
        second * 10 <= first * 3,
        "first {first} bytes, second {second} bytes"
    );
    let mut dec = DecoderSession::new(Options::balanced());
    let (a, n) = dec.decode_frame::<LogRecord>(&out).unwrap().unwrap();
    let (b, m) = dec.decode_frame::<LogRecord>(&out[n..]).unwrap().unwrap();
    assert_eq!((a, b), (log(1), log(1)));
    assert_eq!(n + m, out.len());
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Good {
    name: String,
    tags: Vec<String>,
    n: u32,
}

#[derive(Deserialize, Debug)]
#[allow(dead_code)]
struct Wrong {
    name: String,
    tags: Vec<String>,
    n: String,
}

#[test]
fn three_frames_failure_in_the_middle_breaks_the_decoder() {
    let mut enc = EncoderSession::new(Options::balanced());
    let mut out = Vec::new();
    let g = |name: &str, tag: &str, n| Good {
        name: name.into(),
        tags: vec![tag.into(), "common-tag".into()],
        n,
    };
    enc.encode_frame(&g("first-name", "alpha-tag", 1), &mut out)
        .unwrap();
    let f1 = out.len();
    enc.encode_frame(&g("second-name", "beta-tag", 2), &mut out)
        .unwrap();
    let f2 = out.len();
    enc.encode_frame(&g("second-name", "beta-tag", 3), &mut out)
        .unwrap();

    let mut dec = DecoderSession::new(Options::balanced());
    let (a, n) = dec.decode_frame::<Good>(&out).unwrap().unwrap();
    assert_eq!((a, n), (g("first-name", "alpha-tag", 1), f1));
    // Frame 2 defines new strings, then fails on `n` (a number where a string is wanted).
    let err = dec.decode_frame::<Wrong>(&out[f1..]).unwrap_err();
    assert_eq!(err.classify(), Category::Data, "{err}");
    // Frame 3 refers to strings frame 2 defined: the decoder refuses instead of guessing.
    let err = dec.decode_frame::<Good>(&out[f2..]).unwrap_err();
    assert_eq!(err.classify(), Category::Broken, "{err}");
}

#[test]
fn encoder_error_rolls_the_session_back() {
    struct Fails;
    impl Serialize for Fails {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut t = s.serialize_tuple(2)?;
            t.serialize_element("a-brand-new-string")?;
            Err(serde::ser::Error::custom("boom"))
        }
    }
    let mut enc = EncoderSession::new(Options::balanced());
    let mut out = Vec::new();
    enc.encode_frame(&log(1), &mut out).unwrap();
    let len = out.len();
    assert!(enc.encode_frame(&Fails, &mut out).is_err());
    assert_eq!(out.len(), len);
    enc.encode_frame(&("a-brand-new-string", log(2)), &mut out)
        .unwrap();
    let mut dec = DecoderSession::new(Options::balanced());
    let (_, n) = dec.decode_frame::<LogRecord>(&out).unwrap().unwrap();
    let (v, _) = dec
        .decode_frame::<(String, LogRecord)>(&out[n..])
        .unwrap()
        .unwrap();
    assert_eq!(v, ("a-brand-new-string".to_string(), log(2)));
}

/// `QDF 01 <flags>` then frames `uvarint(len) body`.
fn stream(frames: &[Vec<u8>]) -> Vec<u8> {
    let mut out = b"QDF\x01\x01".to_vec();
    for f in frames {
        assert!(f.len() < 128);
        out.push(f.len() as u8);
        out.extend_from_slice(f);
    }
    out
}

fn defines(strings: &[&str]) -> Vec<u8> {
    let mut body = vec![0xA0 | strings.len() as u8];
    for s in strings {
        body.push(0xE0);
        body.push(s.len() as u8);
        body.extend_from_slice(s.as_bytes());
    }
    body
}

#[test]
fn hand_built_frames_exceeding_the_decoder_caps_are_refused() {
    let bytes = stream(&[defines(&["aaaa", "bbbb"]), defines(&["cccc"])]);
    let opts = Options::balanced().max_intern_entries(2);
    let mut dec = DecoderSession::new(opts);
    let (v, n) = dec.decode_frame::<Vec<String>>(&bytes).unwrap().unwrap();
    assert_eq!(v, ["aaaa", "bbbb"]);
    let err = dec.decode_frame::<Vec<String>>(&bytes[n..]).unwrap_err();
    assert_eq!(
        err.code(),
        &ErrorCode::SessionCap {
            what: "intern table entries",
            cap: 2,
            limit: "max_intern_entries",
        }
    );
    assert_eq!(err.classify(), Category::Limit);
    // The text names the cap and the remedy.
    assert_eq!(
        err.to_string(),
        "session cap exceeded: intern table entries beyond this side's cap of 2 \
         (`Limits::max_intern_entries`; a decoder's caps must be at least its encoder's) in \
         frame 1 at stream byte 22"
    );

    let opts = Options::balanced().max_intern_bytes(10);
    let mut dec = DecoderSession::new(opts);
    let (_, n) = dec.decode_frame::<Vec<String>>(&bytes).unwrap().unwrap();
    let err = dec.decode_frame::<Vec<String>>(&bytes[n..]).unwrap_err();
    assert_eq!(
        err.code(),
        &ErrorCode::SessionCap {
            what: "intern table bytes",
            cap: 10,
            limit: "max_intern_bytes",
        }
    );

    // Shapes: two declarations against a cap of one.
    let decl = |name: u8| vec![0xEC, 0, 1, 0x81, name, 7];
    let bytes = stream(&[decl(b'p'), decl(b'q')]);
    let mut dec = DecoderSession::new(Options::balanced().max_shapes(1));
    let (_, n) = dec.decode_frame::<Value>(&bytes).unwrap().unwrap();
    let err = dec.decode_frame::<Value>(&bytes[n..]).unwrap_err();
    assert_eq!(
        err.code(),
        &ErrorCode::SessionCap {
            what: "shape table entries",
            cap: 1,
            limit: "max_shapes",
        }
    );
}

#[test]
fn references_across_frames_resolve_from_the_session() {
    // Ring after frame 1: aaaa, bbbb. E1 1 pushes bbbb, E8 pushes nothing, so rank 2 is
    // aaaa.
    let bytes = stream(&[
        defines(&["aaaa", "bbbb"]),
        vec![0xA3, 0xE1, 1, 0xE8, 0xE9, 2],
    ]);
    let mut dec = DecoderSession::new(Options::balanced());
    let (_, n) = dec.decode_frame::<Vec<String>>(&bytes).unwrap().unwrap();
    let (v, _) = dec
        .decode_frame::<Vec<String>>(&bytes[n..])
        .unwrap()
        .unwrap();
    assert_eq!(v, ["bbbb", "bbbb", "aaaa"]);
}

fn sample() -> (Vec<LogRecord>, Rec, Rec, (Point, Point), Vec<String>) {
    (
        (0..4).map(log).collect(),
        rec(1, Some(2), None),
        rec(1, None, Some(2)),
        (Point { x: 1, y: 2 }, Point { x: 3, y: 4 }),
        fill(5),
    )
}

#[test]
fn hostile_dense_bytes_never_panic() {
    let bytes = to_vec_with(&sample(), Options::balanced()).unwrap();
    type S = (Vec<LogRecord>, Rec, Rec, (Point, Point), Vec<String>);
    assert_eq!(from_slice::<S>(&bytes).unwrap(), sample());
    for cut in 0..bytes.len() {
        assert!(from_slice::<Value>(&bytes[..cut]).is_err());
        assert!(from_slice::<S>(&bytes[..cut]).is_err());
    }
    let opts = Options::balanced().max_output(1 << 16);
    for i in 5..bytes.len() {
        for x in [0x01, 0x80, 0xFF, 0x20, 0x0A] {
            let mut m = bytes.clone();
            m[i] ^= x;
            let _ = from_slice_with::<Value>(&m, opts);
            let _ = from_slice_with::<S>(&m, opts);
        }
        for t in [0xE0, 0xE1, 0xE2, 0xE8, 0xE9, 0xEA, 0xEC, 0xC0] {
            let mut m = bytes.clone();
            m[i] = t;
            let _ = from_slice_with::<Value>(&m, opts);
        }
    }
}

#[test]
fn balanced_is_smaller_than_speed_on_records() {
    let recs: Vec<LogRecord> = (0..100).map(log).collect();
    let speed = to_vec_with(&recs, Options::speed()).unwrap().len();
    let balanced = to_vec_with(&recs, Options::balanced()).unwrap().len();
    assert!(balanced * 2 < speed, "speed {speed}, balanced {balanced}");
    let dense_only = Options::balanced().features(Features::DENSE);
    let d = to_vec_with(&recs, dense_only).unwrap().len();
    assert!(balanced < d && d < speed, "dense only {d}");
}

mod props {
    use super::*;
    use proptest::prelude::*;

    #[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
    enum Msg {
        Log(LogRecord),
        Point(Point),
        Words(Vec<String>),
        Pair(String, Option<String>),
        Blob(#[serde(with = "serde_bytes")] Vec<u8>),
        Unit,
    }

    fn word() -> impl Strategy<Value = String> {
        prop_oneof![
            prop::sample::select(vec![
                "info",
                "warn",
                "checkout",
                "payments-api",
                "x",
                "",
                "node-1"
            ])
            .prop_map(String::from),
            "[a-z]{0,12}",
        ]
    }

    fn msg() -> impl Strategy<Value = Msg> {
        prop_oneof![
            (0u64..50, word(), word()).prop_map(|(i, a, b)| {
                let mut l = log(i);
                l.level = a;
                l.attrs.insert(b.clone(), b);
                Msg::Log(l)
            }),
            (any::<u8>(), any::<u8>()).prop_map(|(x, y)| Msg::Point(Point { x, y })),
            prop::collection::vec(word(), 0..8).prop_map(Msg::Words),
            (word(), prop::option::of(word())).prop_map(|(a, b)| Msg::Pair(a, b)),
            word().prop_map(|w| Msg::Blob(w.into_bytes())),
            Just(Msg::Unit),
        ]
    }

    /// Optional fields in every combination: speculative reuse, restarts and escapes.
    #[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
    struct Sparse {
        #[serde(skip_serializing_if = "Option::is_none", default)]
        w: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none", default)]
        x: Option<u8>,
        id: u32,
        #[serde(skip_serializing_if = "Option::is_none", default)]
        y: Option<Box<Sparse>>,
        #[serde(skip_serializing_if = "Option::is_none", default)]
        z: Option<Vec<String>>,
    }

    fn sparse() -> impl Strategy<Value = Sparse> {
        let leaf = (
            prop::option::of(word()),
            prop::option::of(any::<u8>()),
            0u32..5,
            prop::option::of(prop::collection::vec(word(), 0..3)),
        )
            .prop_map(|(w, x, id, z)| Sparse {
                w,
                x,
                id,
                y: None,
                z,
            });
        leaf.prop_recursive(2, 6, 1, |inner| {
            (inner.clone(), prop::option::of(inner)).prop_map(|(mut s, y)| {
                s.y = y.map(Box::new);
                s
            })
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(96))]

        #[test]
        fn sparse_structs_round_trip_through_sessions(
            msgs in prop::collection::vec(prop::collection::vec(sparse(), 1..4), 1..30),
            cap in 1u32..6,
        ) {
            let opts = Options::balanced().max_shapes(cap);
            let mut enc = EncoderSession::new(opts);
            let mut out = Vec::new();
            for m in &msgs {
                enc.encode_frame(m, &mut out).unwrap();
            }
            let mut dec = DecoderSession::new(opts);
            let mut at = 0;
            for m in &msgs {
                let (v, n) = dec.decode_frame::<Vec<Sparse>>(&out[at..]).unwrap().unwrap();
                prop_assert_eq!(&v, m);
                at += n;
            }
            prop_assert_eq!(at, out.len());
        }

        #[test]
        fn sessions_round_trip_many_messages(msgs in prop::collection::vec(msg(), 1..40)) {
            let mut enc = EncoderSession::new(Options::balanced());
            let mut out = Vec::new();
            for m in &msgs {
                enc.encode_frame(m, &mut out).unwrap();
            }
            let mut dec = DecoderSession::new(Options::balanced());
            let mut at = 0;
            for m in &msgs {
                let (v, n) = dec.decode_frame::<Msg>(&out[at..]).unwrap().unwrap();
                prop_assert_eq!(&v, m);
                at += n;
            }
            prop_assert_eq!(at, out.len());
        }

        /// Balanced ≤ Speed + distinct interned values + shape declarations. Every
        /// distinct string of ≥ 4 bytes may be interned once, and each struct type
        /// (Log, Point, and the enum's wrapping) may be declared once per field count.
        #[test]
        fn balanced_size_bound(msgs in prop::collection::vec(msg(), 1..40)) {
            let speed = to_vec_with(&msgs, Options::speed()).unwrap().len();
            let balanced = to_vec_with(&msgs, Options::balanced()).unwrap().len();
            let mut distinct = std::collections::BTreeSet::new();
            for m in &msgs {
                collect_strings(m, &mut distinct);
            }
            let declarations = 2;
            // Field and variant names of 4 bytes or more: level service host message attrs,
            // Point Words Pair Blob Unit.
            let names = 10;
            prop_assert!(
                balanced <= speed + distinct.len() + names + declarations,
                "balanced {} speed {} distinct {}", balanced, speed, distinct.len()
            );
        }
    }

    fn collect_strings(m: &Msg, out: &mut std::collections::BTreeSet<(bool, Vec<u8>)>) {
        let mut add = |bin: bool, b: &[u8]| {
            if b.len() >= 4 {
                out.insert((bin, b.to_vec()));
            }
        };
        match m {
            Msg::Log(l) => {
                for s in [&l.level, &l.service, &l.host, &l.message] {
                    add(false, s.as_bytes());
                }
                for (k, v) in &l.attrs {
                    add(false, k.as_bytes());
                    add(false, v.as_bytes());
                }
            }
            Msg::Words(w) => w.iter().for_each(|s| add(false, s.as_bytes())),
            Msg::Pair(a, b) => {
                add(false, a.as_bytes());
                if let Some(b) = b {
                    add(false, b.as_bytes());
                }
            }
            Msg::Blob(b) => add(true, b),
            Msg::Point(_) | Msg::Unit => {}
        }
    }
}

#[test]
fn hostile_dense_frames_never_panic_or_decode_after_an_error() {
    let mut enc = EncoderSession::new(Options::balanced());
    let mut out = Vec::new();
    for i in 0..3 {
        enc.encode_frame(&log(i), &mut out).unwrap();
    }
    let decode_all = |bytes: &[u8]| {
        let mut dec = DecoderSession::new(Options::balanced().max_output(1 << 16));
        let mut at = 0;
        let mut got = Vec::new();
        while at < bytes.len() {
            match dec.decode_frame::<LogRecord>(&bytes[at..]) {
                Ok(Some((v, n))) => {
                    got.push(v);
                    at += n;
                }
                Ok(None) => break,
                Err(e) => {
                    // After any error inside a Dense frame nothing more decodes.
                    if dec.broken().is_some() {
                        let again = dec.decode_frame::<LogRecord>(&bytes[at..]).unwrap_err();
                        assert_eq!(again.classify(), Category::Broken, "{e}");
                    }
                    break;
                }
            }
        }
        got
    };
    assert_eq!(decode_all(&out), (0..3).map(log).collect::<Vec<_>>());
    for i in 5..out.len() {
        for x in [0x01, 0x80, 0xFF, 0x0A] {
            let mut m = out.clone();
            m[i] ^= x;
            let _ = decode_all(&m);
        }
    }
    for cut in 0..out.len() {
        assert!(decode_all(&out[..cut]).len() < 3);
    }
}
