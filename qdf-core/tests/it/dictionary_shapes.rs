//! Pre-shared dictionaries with shapes (`docs/SPEC.md` §25.2, file version 2): golden file
//! and messages, reuse from the first message, own shapes after the dictionary's, escapes,
//! sessions with per-field numbers and renewals, training, caps and hostile files.

use qdf_core::{DecoderSession, Dictionary, EncoderSession, ErrorCode, Features, Options, Value};
use serde::{Deserialize, Serialize};

use crate::common::{TIERS, hex, unhex};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Point {
    x: i32,
    y: i32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Span {
    service: String,
    op: String,
    start: u64,
    point: Point,
}

/// Entries `["checkout"]`, shapes `[["service", "op"], ["x", "y"]]`.
fn dict() -> Dictionary {
    Dictionary::from_strs(["checkout"])
        .unwrap()
        .with_shapes([vec!["service", "op"], vec!["x", "y"]])
        .unwrap()
}

const FILE: &str = "51 44 46 44 02 01 10 63 68 65 63 6b 6f 75 74 \
                    02 02 07 73 65 72 76 69 63 65 02 6f 70 02 01 78 01 79";

/// The version 2 file, byte for byte (§25.3); a dictionary without shapes keeps version 1.
#[test]
fn golden_file_with_shapes() {
    let d = dict();
    assert_eq!(hex(&d.to_bytes()), hex(&unhex(FILE)));
    assert_eq!(Dictionary::from_bytes(&unhex(FILE)).unwrap(), d);
    assert_eq!(d.id().to_string(), "0bf0e0988a69903c");
    assert_eq!((d.len(), d.shape_count()), (1, 2));
    assert_eq!(d.shape(1), Some(vec!["service", "op"]));
    assert_eq!(d.shape(2), Some(vec!["x", "y"]));
    assert_eq!((d.shape(0), d.shape(3)), (None, None));
    let v1 = Dictionary::from_strs(["checkout"]).unwrap();
    assert_eq!(v1.to_bytes()[4], 0x01);
    assert_eq!(v1.shape_count(), 0);
    // Adding shapes later appends them: ids continue.
    let more = d.with_shapes([["a"]]).unwrap();
    assert_eq!(more.shape(3), Some(vec!["a"]));
    assert_eq!(more.shape(1), d.shape(1));
    assert_ne!(more.id(), d.id());
}

/// A struct whose field count and first name match a dictionary shape is its reuse from the
/// first message: `EC id` and the values, no name (§25.2). A shape the dictionary lacks is
/// declared as the dictionary's count + 1.
#[test]
fn structs_reuse_dictionary_shapes_from_the_first_message() {
    let d = dict();
    let id = "0b f0 e0 98 8a 69 90 3c";
    let opts = Options::balanced();
    let p = Point { x: 1, y: 2 };
    let msg = qdf_core::to_vec_with_dictionary(&p, opts, &d).unwrap();
    assert_eq!(hex(&msg), format!("51 44 46 01 21 {id} ec 02 01 02"));
    let back: Point = qdf_core::from_slice_with_dictionary(&msg, opts, &d).unwrap();
    assert_eq!(back, p);

    let span = Span {
        service: "checkout".into(),
        op: "GET /".into(),
        start: 7,
        point: p.clone(),
    };
    let msg = qdf_core::to_vec_with_dictionary(&span, opts, &d).unwrap();
    // Span has 4 fields: declared as shape 3 (its names inline, "checkout" a reference), its
    // Point the reuse of shape 2.
    assert_eq!(
        hex(&msg[13..]),
        "ec 00 04 e0 07 73 65 72 76 69 63 65 e1 00 82 6f 70 e0 05 47 45 54 20 2f \
         e0 05 73 74 61 72 74 07 e0 05 70 6f 69 6e 74 ec 02 01 02"
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    );
    let back: Span = qdf_core::from_slice_with_dictionary(&msg, opts, &d).unwrap();
    assert_eq!(back, span);
    // Without the shapes: Point is declared (`EC 00 02 81 78 01 81 79 02`), 5 bytes more.
    let plain = Dictionary::from_strs(["checkout"]).unwrap();
    let without = qdf_core::to_vec_with_dictionary(&span, opts, &plain).unwrap();
    assert_eq!(without.len(), msg.len() + 5);

    // Two spans: the second reuses the own shape 3.
    let two = vec![span.clone(), span.clone()];
    let msg = qdf_core::to_vec_with_dictionary(&two, opts, &d).unwrap();
    let back: Vec<Span> = qdf_core::from_slice_with_dictionary(&msg, opts, &d).unwrap();
    assert_eq!(back, two);
    let v: Value = qdf_core::from_slice_with_dictionary(&msg, opts, &d).unwrap();
    assert_eq!(
        v.to_string(),
        r#"[{"service": "checkout", "op": "GET /", "start": 7, "point": {"x": 1, "y": 2}}, {"service": "checkout", "op": "GET /", "start": 7, "point": {"x": 1, "y": 2}}]"#
    );
    assert!(hex(&msg).contains("ec 03 e1 00"), "{}", hex(&msg));
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Call {
    service: String,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    op: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    port: Option<u16>,
}

/// A record that leaves the dictionary's shape escapes from it (§15), a map of another
/// count is declared (the count is part of the match), and a record whose first field is
/// another shape's restarts onto it.
#[test]
fn escapes_open_reuses_and_restarts_on_dictionary_shapes() {
    let d = dict();
    let opts = Options::balanced();
    let calls = vec![
        Call {
            service: "a".into(),
            op: Some("b".into()),
            port: None,
        },
        Call {
            service: "a".into(),
            op: None,
            port: Some(80),
        },
        Call {
            service: "c".into(),
            op: Some("d".into()),
            port: None,
        },
    ];
    let msg = qdf_core::to_vec_with_dictionary(&calls, opts, &d).unwrap();
    // serde announces 2 fields for each: shape 1 for the first, an escape at "port" for
    // the second (no shape of count 2 starts with "service" and has it), shape 1 again.
    assert_eq!(
        hex(&msg[13..]),
        "a3 ec 01 81 61 81 62 ec 01 81 61 f2 0a e0 04 70 6f 72 74 50 c0 ec 01 81 63 81 64"
    );
    let back: Vec<Call> = qdf_core::from_slice_with_dictionary(&msg, opts, &d).unwrap();
    assert_eq!(back, calls);

    // A map (MAP_SHAPE) with one key more than shape 2: its reuse, opened.
    let map_opts = opts.features(opts.features.with(Features::MAP_SHAPE));
    let mut m = std::collections::BTreeMap::new();
    m.insert("x", 1);
    m.insert("y", 2);
    let msg = qdf_core::to_vec_with_dictionary(&m, map_opts, &d).unwrap();
    assert_eq!(hex(&msg[13..]), "ec 02 01 02");
    let back: std::collections::BTreeMap<String, i32> =
        qdf_core::from_slice_with_dictionary(&msg, map_opts, &d).unwrap();
    assert_eq!(back.len(), 2);
    let v = Value::Map(vec![
        (Value::Str("x".into()), Value::U64(1)),
        (Value::Str("y".into()), Value::U64(2)),
        (Value::Str("z".into()), Value::U64(3)),
    ]);
    let msg = qdf_core::to_vec_with_dictionary(&v, map_opts, &d).unwrap();
    // Three keys: no dictionary shape has that count, so it is declared as shape 3.
    assert_eq!(hex(&msg[13..]), "ec 00 03 81 78 01 81 79 02 81 7a 03");
    let back: Value = qdf_core::from_slice_with_dictionary(&msg, map_opts, &d).unwrap();
    assert_eq!(back, v);

    // Restart: the first two maps declare and reuse shape 3 ["y", "x"]; the third, of the
    // same count, starts with "x": its reuse of 3 restarts onto the dictionary's shape 2.
    let v = Value::Array(vec![
        Value::Map(vec![
            (Value::Str("y".into()), Value::U64(1)),
            (Value::Str("x".into()), Value::U64(2)),
        ]),
        Value::Map(vec![
            (Value::Str("y".into()), Value::U64(3)),
            (Value::Str("x".into()), Value::U64(4)),
        ]),
        Value::Map(vec![
            (Value::Str("x".into()), Value::U64(5)),
            (Value::Str("y".into()), Value::U64(6)),
        ]),
    ]);
    let msg = qdf_core::to_vec_with_dictionary(&v, map_opts, &d).unwrap();
    assert_eq!(
        hex(&msg[13..]),
        "a3 ec 00 02 81 79 01 81 78 02 ec 03 03 04 ec 02 05 06"
    );
    let back: Value = qdf_core::from_slice_with_dictionary(&msg, map_opts, &d).unwrap();
    assert_eq!(back, v);
}

/// In a session the dictionary's shapes have per-field number slots like declared ones
/// (§15.2), and a renewal (§18) returns to them: the next generation reuses shape 2 at once.
#[test]
fn sessions_keep_number_slots_and_renew_to_the_dictionary_shapes() {
    let d = dict();
    for tier in [Options::balanced, Options::compression] {
        let opts = tier();
        let mut enc = EncoderSession::new(opts).with_dictionary(d.clone());
        let mut dec = DecoderSession::new(opts).with_dictionary(d.clone());
        let mut wire = Vec::new();
        let points: Vec<Point> = (0..6)
            .map(|i| Point {
                x: 1_000_000 + 1000 * i,
                y: 700_000,
            })
            .collect();
        let mut ends = Vec::new();
        for (i, p) in points.iter().enumerate() {
            if i == 3 {
                enc.renew();
            }
            enc.encode_frame(p, &mut wire).unwrap();
            ends.push(wire.len());
        }
        let body = |k: usize| {
            let start = if k == 0 { 0 } else { ends[k - 1] };
            hex(&wire[start..ends[k]])
        };
        // Header, id, then frames: the first writes both numbers plain (`C5` and 4 bytes),
        // the second a delta of 1000 for x (`F1 uvarint(4000)`) and the same y (`F0`), the
        // third steps x by that delta (`F0`).
        assert_eq!(
            body(0),
            "51 44 46 01 63 0b f0 e0 98 8a 69 90 3c 0c ec 02 c5 40 42 0f 00 c5 60 ae 0a 00"
        );
        assert_eq!(body(1), "06 ec 02 f1 a0 1f f0");
        assert_eq!(body(2), "04 ec 02 f0 f0");
        // After the renewal the slots are empty again; the shape is still the dictionary's.
        assert_eq!(body(3), "0e ff 01 ec 02 c5 f8 4d 0f 00 c5 60 ae 0a 00");
        assert_eq!(body(4), "06 ec 02 f1 a0 1f f0");
        let mut pos = 0;
        for p in &points {
            let (back, n): (Point, usize) = dec.decode_frame(&wire[pos..]).unwrap().unwrap();
            assert_eq!(&back, p);
            pos += n;
        }
        assert_eq!(pos, wire.len());
    }
}

/// Every tier round-trips a batch on a trained dictionary with shapes, and the shapes make
/// the one-shot messages smaller than the same dictionary's entries alone.
#[test]
fn trained_shapes_round_trip_and_save_bytes() {
    let sample = |i: u64| Span {
        service: ["checkout", "payment"][i as usize % 2].into(),
        op: format!("op-{}", i % 3),
        start: 1_700_000_000 + i * 17,
        point: Point {
            x: i as i32,
            y: -(i as i32),
        },
    };
    let samples: Vec<Span> = (0..40).map(sample).collect();
    let d = Dictionary::train(&samples, Options::balanced(), 4096).unwrap();
    assert_eq!(d.shape_count(), 2, "{d:?}");
    // Span (9 bytes saved a message: 1 + 2 × 4) ranks before Point (1 + 2 × 2).
    assert_eq!(d.shape(1), Some(vec!["service", "op", "start", "point"]));
    assert_eq!(d.shape(2), Some(vec!["x", "y"]));
    assert_eq!(
        Dictionary::train(&samples, Options::balanced(), 4096)
            .unwrap()
            .id(),
        d.id()
    );
    let entries_only = Dictionary::from_bytes(&{
        let mut f = d.to_bytes();
        // The same entries in a version 1 file: cut the shapes off.
        let cut = f.len() - (1 + (1 + 8 + 3 + 6 + 6)) - (1 + 2 + 2);
        f.truncate(cut);
        f[4] = 1;
        f
    })
    .unwrap();
    assert_eq!(
        (entries_only.len(), entries_only.shape_count()),
        (d.len(), 0)
    );
    let s = sample(1000);
    for tier in TIERS {
        let opts = tier();
        let msg = qdf_core::to_vec_with_dictionary(&s, opts, &d).unwrap();
        let back: Span = qdf_core::from_slice_with_dictionary(&msg, opts, &d).unwrap();
        assert_eq!(back, s);
        if opts.features.contains(Features::SHAPE_INTERN) {
            let without = qdf_core::to_vec_with_dictionary(&s, opts, &entries_only).unwrap();
            assert!(
                msg.len() + 8 <= without.len(),
                "{} vs {}",
                msg.len(),
                without.len()
            );
        }
    }
    // Training without SHAPE_INTERN finds no shape: a version 1 file.
    let speed = Dictionary::train(&samples, Options::speed(), 4096).unwrap();
    assert_eq!(speed.shape_count(), 0);
    assert_eq!(speed.to_bytes()[4], 1);
}

/// The dictionary's shapes hold shape ids: a decoder whose `max_shapes` they fill refuses
/// one more declaration (`SessionCap`), and an encoder with the same options writes a plain
/// map instead, which that decoder reads.
#[test]
fn dictionary_shapes_count_toward_max_shapes() {
    let d = dict();
    let opts = Options::balanced().max_shapes(2);
    let v = vec![Span {
        service: "s".into(),
        op: "o".into(),
        start: 1,
        point: Point { x: 1, y: 2 },
    }];
    let msg = qdf_core::to_vec_with_dictionary(&v, opts, &d).unwrap();
    let back: Vec<Span> = qdf_core::from_slice_with_dictionary(&msg, opts, &d).unwrap();
    assert_eq!(back, v);
    assert!(!hex(&msg[13..]).contains("ec 00"), "{}", hex(&msg));
    // A declaration under those options: refused.
    let mut bad = msg[..13].to_vec();
    bad.extend(unhex("ec 00 01 81 61 01"));
    let e = qdf_core::from_slice_with_dictionary::<Value>(&bad, opts, &d).unwrap_err();
    assert!(matches!(e.code(), ErrorCode::SessionCap { .. }), "{e}");
    // Shape 3 is undefined: a Syntax error, never a value.
    let mut undefined = msg[..13].to_vec();
    undefined.extend(unhex("ec 03 01"));
    assert!(
        qdf_core::from_slice_with_dictionary::<Value>(&undefined, Options::balanced(), &d).is_err()
    );
}

/// Version 2 files that are not canonical or lie about their sizes: typed errors at the
/// failing byte (§25.3), nothing allocated beyond the input.
#[test]
fn hostile_files_with_shapes() {
    let cases: &[(&str, ErrorCode, u64)] = &[
        ("51 44 46 44 03 00", ErrorCode::BadVersion(3), 4),
        (
            "51 44 46 44 02 00",
            ErrorCode::UnexpectedEof {
                expected: "the shape count",
            },
            6,
        ),
        (
            "51 44 46 44 02 00 00",
            ErrorCode::BadDictionary("a version 2 file without shapes"),
            6,
        ),
        (
            "51 44 46 44 02 00 01 00",
            ErrorCode::LengthOverrun {
                len: 1,
                remaining: 1,
            },
            7,
        ),
        (
            "51 44 46 44 02 00 01 00 00",
            ErrorCode::BadDictionary("an empty shape"),
            7,
        ),
        (
            "51 44 46 44 02 00 01 05 01 61",
            ErrorCode::LengthOverrun {
                len: 5,
                remaining: 2,
            },
            8,
        ),
        (
            "51 44 46 44 02 00 02 01 01 61 01 01 61",
            ErrorCode::BadDictionary("a repeated shape"),
            10,
        ),
        (
            "51 44 46 44 02 00 01 01 02 c3 28",
            ErrorCode::InvalidUtf8,
            9,
        ),
        (
            "51 44 46 44 02 00 01 01 05 61",
            ErrorCode::UnexpectedEof {
                expected: "a field name's bytes",
            },
            10,
        ),
        (
            "51 44 46 44 02 00 01 01 01 61 00",
            ErrorCode::TrailingBytes(1),
            10,
        ),
        (
            "51 44 46 44 02 00 01 01 82 80 04",
            ErrorCode::BadDictionary("a field name longer than 65 536 bytes"),
            11,
        ),
    ];
    for (h, code, at) in cases {
        let e = Dictionary::from_bytes(&unhex(h)).unwrap_err();
        assert_eq!((e.code(), e.offset()), (code, Some(*at)), "{h}: {e}");
    }
    // 4 097 shapes, with the bytes to hold them: over the cap, refused at the count.
    let mut big = unhex("51 44 46 44 02 00 81 20");
    big.extend(std::iter::repeat_n(0u8, 2 * 4097));
    let e = Dictionary::from_bytes(&big).unwrap_err();
    assert_eq!(
        (e.code(), e.offset()),
        (&ErrorCode::BadDictionary("more than 4 096 shapes"), Some(6))
    );
    // An empty name is a name (a map's "" key); a shape of it reads and writes back.
    let f = unhex("51 44 46 44 02 00 01 01 00");
    assert_eq!(Dictionary::from_bytes(&f).unwrap().to_bytes(), f);
    assert_eq!(
        Dictionary::from_strs(["a"])
            .unwrap()
            .with_shapes([Vec::<&str>::new()])
            .unwrap_err()
            .code(),
        &ErrorCode::BadDictionary("an empty shape")
    );
    // Every prefix and byte flip of a version 2 file: `dictionary::hostile_dictionary_files`
    // (its trained dictionary holds shapes).
}
