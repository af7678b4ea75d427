//! The tag walker (`qdf_core::inspect`): it accepts exactly what a `Value` decode accepts,
//! fails with the same error at the same offset (spec examples, every truncation and many
//! single-byte corruptions of real messages), and reports intern ids, shapes, QPack codecs
//! and columns with their byte ranges (golden event lists).

use qdf_core::inspect::{self, ColumnValues, Event, EventKind, Intern, RefForm, StringBlock};
use qdf_core::{DecoderSession, Dictionary, EncoderSession, Options, Value};
use serde::Serialize;

/// The events of a walk, one line each: `offset..end depth [k] kind`.
fn render(events: &[String]) -> String {
    events.join("\n")
}

fn line(e: &Event<'_>) -> String {
    let key = if e.key { "k " } else { "" };
    let kind = match &e.kind {
        EventKind::Text {
            bytes,
            binary,
            intern,
            hex,
        } => format!(
            "Text({:?}{}{}, {intern:?})",
            String::from_utf8_lossy(bytes),
            if *binary { " bin" } else { "" },
            if *hex { " hex" } else { "" }
        ),
        EventKind::Field { name } => format!("Field({:?})", String::from_utf8_lossy(name)),
        k => format!("{k:?}"),
    };
    format!("{}..{} {} {key}{kind}", e.offset, e.end, e.depth)
}

fn walk(bytes: &[u8], opts: &Options) -> Result<Vec<String>, inspect::InspectError> {
    let mut out = Vec::new();
    inspect::message(bytes, opts, &mut |e| out.push(line(e)))?;
    Ok(out)
}

/// Walks `bytes` and decodes them into a `Value` under `opts`: both succeed, or both fail
/// with the same code at the same offset.
pub(crate) fn agree(bytes: &[u8], opts: &Options, what: &str) {
    let walked = walk(bytes, opts);
    let decoded = qdf_core::from_slice_with::<Value>(bytes, *opts);
    match (&walked, &decoded) {
        (Ok(_), Ok(_)) => {}
        (Err(w), Err(d)) => {
            assert_eq!(
                (w.error.code(), w.error.offset()),
                (d.code(), d.offset()),
                "{what}: {bytes:02x?}"
            );
            assert!(w.frame.is_none());
        }
        _ => panic!(
            "{what}: walk {:?}, decode {:?}, bytes {bytes:02x?}",
            walked.as_ref().map(|_| ()),
            decoded.as_ref().map(|_| ())
        ),
    }
}

/// Walks the message `m` on the dictionary `d` and decodes it into a `Value` under `opts`:
/// `None` when both succeed or both fail with the same code at the same offset, else what
/// each said.
pub(crate) fn dictionary_disagreement(m: &[u8], opts: &Options, d: &Dictionary) -> Option<String> {
    let dec = qdf_core::from_slice_with_dictionary::<Value>(m, *opts, d);
    let walked = inspect::message_with_dictionary(m, opts, Some(d), &mut |_| {});
    match (&walked, &dec) {
        (Ok(()), Ok(_)) => None,
        (Err(w), Err(e)) if w.error.code() == e.code() && w.error.offset() == e.offset() => None,
        _ => Some(format!(
            "{:?}: {} walker {:?} decoder {:?}",
            opts.features,
            crate::common::hex(m),
            walked
                .as_ref()
                .err()
                .map(|w| (w.error.code().clone(), w.error.offset())),
            dec.as_ref().err().map(|e| (e.code().clone(), e.offset()))
        )),
    }
}

/// Every valid message in `msgs`: the walk succeeds; every prefix and many one-byte changes
/// agree with the decoder.
pub(crate) fn agree_mutated(msgs: &[(Vec<u8>, Options)]) {
    for (m, opts) in msgs {
        walk(m, opts).unwrap_or_else(|e| panic!("{e}: {m:02x?}"));
        for n in 0..m.len() {
            agree(&m[..n], opts, "prefix");
            assert!(walk(&m[..n], opts).is_err(), "a strict prefix is an error");
        }
        let mut c = m.clone();
        for i in 5..m.len() {
            for x in [0x01u8, 0x02, 0x10, 0x40, 0x80, 0xFF] {
                c[i] ^= x;
                agree(&c, opts, "flip");
                c[i] ^= x;
            }
        }
    }
}

#[derive(Serialize)]
struct Point {
    name: String,
    x: i64,
    y: f64,
    ok: bool,
}

#[derive(Serialize)]
struct Rec {
    id: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    tag: Option<String>,
    #[serde(with = "serde_bytes")]
    raw: Vec<u8>,
    t: Vec<u8>,
}

#[derive(Serialize)]
enum E {
    A,
    B(u8),
    C(i8, String),
    D { x: Option<Option<()>> },
}

fn points(n: usize) -> Vec<Point> {
    (0..n)
        .map(|i| Point {
            name: ["alpha", "beta", "gamma"][i % 3].to_string(),
            x: i as i64 * 3 - 10,
            y: i as f64 * 0.25,
            ok: i % 4 == 0,
        })
        .collect()
}

fn recs(n: usize) -> Vec<Rec> {
    (0..n)
        .map(|i| Rec {
            id: i as u32 * 7,
            tag: (i % 3 == 0).then(|| format!("tag-{}", i % 2)),
            raw: vec![i as u8; i % 3],
            t: (0..(i % 4) as u8).collect(),
        })
        .collect()
}

/// Variants, extension values, timestamps and references.
type Mixed = (Vec<E>, Vec<Value>, u128, i128, char, Option<Option<()>>);

fn mixed() -> Mixed {
    let values = vec![
        Value::Timestamp {
            secs: -2,
            nanos: 1000,
        },
        Value::Str("repeated".into()),
        Value::Str("repeated".into()),
        Value::Bytes(b"repeated".to_vec()),
        Value::UnitStruct,
        Value::F32(1.5),
    ];
    (
        vec![
            E::A,
            E::B(9),
            E::C(-3, "cee".into()),
            E::D { x: Some(None) },
            E::D { x: None },
        ],
        values,
        u128::MAX,
        i128::MIN,
        '€',
        Some(Some(())),
    )
}

fn samples() -> Vec<(Vec<u8>, Options)> {
    let mut out = Vec::new();
    for opts in [
        Options::speed(),
        Options::balanced(),
        Options::compression(),
    ] {
        out.push((qdf_core::to_vec_with(&points(20), opts).unwrap(), opts));
        out.push((qdf_core::to_vec_with(&recs(18), opts).unwrap(), opts));
        out.push((qdf_core::to_vec_with(&recs(5), opts).unwrap(), opts));
        out.push((qdf_core::to_vec_with(&mixed(), opts).unwrap(), opts));
        let floats: Vec<f64> = (0..24).map(|i| 20.0 + i as f64 * 0.1).collect();
        out.push((qdf_core::to_vec_with(&floats, opts).unwrap(), opts));
    }
    out
}

#[test]
fn agrees_with_the_decoder_on_every_prefix_and_many_corruptions() {
    agree_mutated(&samples());
}

#[test]
fn agrees_with_the_decoder_on_the_spec_examples() {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/SPEC.md")).unwrap();
    let mut in_block = false;
    let mut n = 0;
    for l in text.lines() {
        let t = l.trim();
        if let Some(info) = t.strip_prefix("```") {
            in_block = matches!(info, "qdf" | "qpack" | "qdf-dense");
            continue;
        }
        if !in_block || t.is_empty() {
            continue;
        }
        let hex = t.split_once(" => ").unwrap().0;
        let mut msg = b"QDF\x01\x00".to_vec();
        msg.extend(
            hex.split_whitespace()
                .map(|b| u8::from_str_radix(b, 16).unwrap()),
        );
        agree(&msg, &Options::default(), t);
        n += 1;
    }
    assert!(n >= 128, "{n} examples");
}

/// The stream of `values` written by an `EncoderSession` with `opts`.
fn stream_of<T: Serialize>(values: &[T], opts: Options, checksum: bool) -> Vec<u8> {
    let mut enc = EncoderSession::new(opts).with_checksum(checksum);
    let mut out = Vec::new();
    for v in values {
        enc.encode_frame(v, &mut out).unwrap();
    }
    out
}

/// Walks a stream and decodes it with a `DecoderSession` (stopping at its first error):
/// both succeed with the same frame count, or both fail with the same code.
pub(crate) fn agree_stream(bytes: &[u8], opts: &Options) {
    let walked = inspect::stream(
        bytes,
        opts,
        qdf_core::Limits::DEFAULT.max_frame_length,
        &mut |_| {},
    );
    let mut dec = DecoderSession::new(*opts);
    let (mut pos, mut frames) = (0, 0u64);
    let decoded = loop {
        match dec.decode_frame::<Value>(&bytes[pos..]) {
            Ok(Some((_, used))) => {
                pos += used;
                frames += 1;
            }
            Ok(None) => break dec.check_end(&bytes[pos..]).map(|()| frames),
            Err(e) => break Err(e),
        }
    };
    match (&walked, &decoded) {
        (Ok(s), Ok(f)) => assert_eq!(s.frames, *f),
        (Err(w), Err(d)) => {
            assert_eq!(w.error.code(), d.code(), "{bytes:02x?}");
            // A header error is in no frame.
            let in_header = frames == 0 && w.error.offset().is_some_and(|o| o < 5);
            let frame = (!in_header).then_some(frames);
            assert_eq!(w.frame.map(|f| f.index), frame, "{bytes:02x?}");
        }
        _ => panic!(
            "walk {:?}, decode {:?}, {bytes:02x?}",
            walked.map(|_| ()),
            decoded.map(|_| ())
        ),
    }
}

#[test]
fn streams_agree_with_a_decoder_session() {
    for checksum in [false, true] {
        for opts in [Options::speed(), Options::balanced()] {
            let frames = [points(17), points(3), points(20)];
            let s = stream_of(&frames, opts, checksum);
            agree_stream(&s, &opts);
            for n in 0..s.len() {
                agree_stream(&s[..n], &opts);
            }
            let mut c = s.clone();
            for i in 0..s.len() {
                for x in [0x01u8, 0x80] {
                    c[i] ^= x;
                    agree_stream(&c, &opts);
                    c[i] ^= x;
                }
            }
        }
    }
}

#[test]
fn stream_errors_name_the_frame_and_absolute_offsets() {
    let s = stream_of(&["attic", "attic", "cellar"], Options::balanced(), false);
    let mut events = Vec::new();
    let sum = inspect::stream(&s, &Options::balanced(), 1 << 20, &mut |e| {
        events.push(line(e))
    })
    .unwrap();
    assert_eq!(sum.frames, 3);
    assert_eq!(
        render(&events),
        "0..5 0 Header { flags: 67 }
5..6 0 Frame { index: 0, body_len: 7, checksum: None }
6..13 1 Text(\"attic\", Define(0))
13..13 0 Close
13..14 0 Frame { index: 1, body_len: 1, checksum: None }
14..15 1 Text(\"attic\", Ref { id: 0, form: Repeat })
15..15 0 Close
15..16 0 Frame { index: 2, body_len: 8, checksum: None }
16..24 1 Text(\"cellar\", Define(1))
24..24 0 Close"
    );
    // The third frame cut short; then its definition's length byte damaged.
    let e = inspect::stream(&s[..20], &Options::balanced(), 1 << 20, &mut |_| {}).unwrap_err();
    assert_eq!(
        (
            e.frame.map(|f| (f.index, f.offset)),
            e.error.offset(),
            e.to_string()
        ),
        (
            Some((2, 15)),
            Some(20),
            "frame 2 (at stream byte 15): input ended early: expected the rest of a frame \
             at byte 20"
                .to_string()
        )
    );
    let mut bad = s.clone();
    bad[17] = 0x09; // "cellar" announced as 9 bytes in an 8-byte body
    let e = inspect::stream(&bad, &Options::balanced(), 1 << 20, &mut |_| {}).unwrap_err();
    assert_eq!(e.frame.map(|f| f.index), Some(2));
    assert!(e.error.is_eof(), "{e}");
    assert!((16..=24).contains(&e.error.offset().unwrap()), "{e}");
}

#[test]
fn golden_events_of_a_small_dense_message() {
    #[derive(Serialize)]
    struct Host<'a> {
        host: &'a str,
        port: u16,
    }
    let v = (
        vec![
            Host {
                host: "db-1",
                port: 5432,
            },
            Host {
                host: "db-1",
                port: 80,
            },
        ],
        vec![1u32, 2, 3, 4, 5, 6, 7, 8],
        E::B(1),
    );
    let bytes = qdf_core::to_vec(&v).unwrap();
    let events = walk(&bytes, &Options::default()).unwrap();
    assert_eq!(
        render(&events),
        "0..5 0 Header { flags: 3 }
5..6 1 Array { count: 3 }
6..7 2 Array { count: 2 }
7..10 3 Shape { reuse: None, fields: 2 }
10..16 4 k Text(\"host\", Define(0))
16..22 4 Text(\"db-1\", Define(1))
22..28 4 k Text(\"port\", Define(2))
28..31 4 Int(U64(5432))
31..31 4 ShapeDefined { id: 1, fields: 2 }
31..31 3 Close
31..33 3 Shape { reuse: Some(1), fields: 2 }
33..33 4 k Field(\"host\")
33..35 4 Text(\"db-1\", Ref { id: 1, form: StateRef })
35..35 4 k Field(\"port\")
35..36 4 Int(U64(80))
36..36 3 Close
36..36 2 Close
36..42 2 Packed { codec: Delta, kind: Some(3), count: 8 }
42..44 2 Variant(Newtype)
44..46 3 Text(\"B\", Inline)
46..47 3 Int(U64(1))
47..47 2 Close
47..47 1 Close"
    );
}

#[test]
fn columns_report_codecs_and_cover_the_container() {
    let bytes = qdf_core::to_vec(&points(40)).unwrap();
    let mut cols = Vec::new();
    let mut container = None;
    let mut closes = Vec::new();
    inspect::message(&bytes, &Options::default(), &mut |e| match &e.kind {
        EventKind::Columnar {
            rows,
            hybrid,
            declared,
            interned,
            ..
        } => container = Some((e.offset, e.end, *rows, *hybrid, *declared, interned.clone())),
        EventKind::Column {
            name,
            values,
            count,
            ..
        } => cols.push((name.to_string(), *values, *count, e.offset, e.end)),
        EventKind::Close => closes.push(e.offset),
        _ => {}
    })
    .unwrap();
    let (start, header_end, rows, hybrid, declared, interned) = container.unwrap();
    assert_eq!((start, rows, hybrid, declared), (5, 40, false, true));
    // "name" is interned by the declaration (id 0); the shorter names stay inline.
    assert_eq!(interned, 0..1);
    let names: Vec<_> = cols.iter().map(|c| c.0.as_str()).collect();
    assert_eq!(names, ["name", "x", "y", "ok"]);
    assert_eq!(cols[0].1, ColumnValues::Block(StringBlock::Dict));
    assert_eq!(cols[3].1, ColumnValues::Packed(inspect::Codec::Bools, None));
    assert!(cols.iter().all(|c| c.2 == 40));
    // The columns tile the container from its header to its end.
    assert_eq!(cols[0].3, header_end);
    for w in cols.windows(2) {
        assert_eq!(w[0].4, w[1].3);
    }
    assert_eq!(cols[3].4, bytes.len() as u64);
    assert_eq!(closes, [bytes.len() as u64]);
}

#[test]
fn hybrid_rows_and_per_value_references() {
    let bytes = qdf_core::to_vec(&recs(18)).unwrap();
    let mut kinds = Vec::new();
    let mut rows = 0;
    inspect::message(&bytes, &Options::default(), &mut |e| match &e.kind {
        EventKind::Columnar { hybrid, .. } => kinds.push(format!("hybrid {hybrid}")),
        EventKind::Column { name, values, .. } => kinds.push(format!("{name}: {values}")),
        EventKind::Row { .. } => rows += 1,
        _ => {}
    })
    .unwrap();
    assert_eq!(rows, 18);
    assert_eq!(kinds[0], "hybrid true");
    // `raw` (bytes) stays in the rows; `t` (0–3 small ints a row, 25 in all) is a list
    // column (`docs/SPEC.md` §22.2) whose element column has no name.
    assert_eq!(
        kinds[1..],
        [
            "id: delta+FOR u64",
            "tag: residual (in the rows)",
            "raw: residual (in the rows)",
            "t: list of 25 elements, lengths FOR",
            ": FOR u64",
        ]
    );
}

#[test]
fn intern_references_resolve_to_their_strings() {
    let s = stream_of(
        &[vec!["aaaa", "bbbb"], vec!["aaaa", "bbbb", "bbbb", "aaaa"]],
        Options::balanced(),
        true,
    );
    let mut refs = Vec::new();
    inspect::stream(&s, &Options::balanced(), 1 << 20, &mut |e| {
        if let EventKind::Text { bytes, intern, .. } = &e.kind {
            refs.push((String::from_utf8_lossy(bytes).into_owned(), *intern));
        }
    })
    .unwrap();
    let a = || "aaaa".to_string();
    let b = || "bbbb".to_string();
    let r = |id, form| Intern::Ref { id, form };
    assert_eq!(
        refs,
        [
            (a(), Intern::Define(0)),
            (b(), Intern::Define(1)),
            (a(), r(0, RefForm::StateRef)),
            (b(), r(1, RefForm::StateRef)),
            (b(), r(1, RefForm::Repeat)),
            (a(), r(0, RefForm::StateRef)),
        ]
    );
}

#[test]
fn depth_limit_is_the_decoders() {
    let mut v = Value::U64(1);
    for _ in 0..40 {
        v = Value::Array(vec![v]);
    }
    let bytes = qdf_core::to_vec(&v).unwrap();
    let opts = Options::default().max_depth(20);
    agree(&bytes, &opts, "deep");
    let e = walk(&bytes, &opts).unwrap_err();
    assert_eq!(e.error.code(), &qdf_core::ErrorCode::DepthLimit(20));
}

#[test]
fn per_value_columns_report_their_own_intern_ids() {
    #[derive(Serialize)]
    struct Pair {
        a: String,
        b: String,
    }
    // 24 bytes from a 94-letter alphabet (too many distinct bytes for alphabet packing).
    let word = |seed: usize| -> String {
        let tail: String = (0..20)
            .map(|k| (33 + (seed * 31 + k * 17) % 94) as u8 as char)
            .collect();
        format!("{seed}:{tail}")
    };
    // 64 distinct values per column, first all distinct (too many for a dictionary), then
    // repeated three times (2-byte references: per-value strings beat any block).
    let rows: Vec<Pair> = (0..256)
        .map(|i| Pair {
            a: word(1000 + i % 64),
            b: word(5000 + i % 64),
        })
        .collect();
    let opts = Options::balanced();
    let mut enc = EncoderSession::new(opts);
    let mut s = Vec::new();
    enc.encode_frame(&rows, &mut s).unwrap();
    let mut ranges = Vec::new();
    inspect::stream(&s, &opts, 1 << 20, &mut |e| match &e.kind {
        EventKind::Columnar { interned, .. } => {
            ranges.push(("names".to_string(), interned.clone()))
        }
        EventKind::Column {
            name,
            interned,
            values,
            ..
        } => {
            assert_eq!(*values, ColumnValues::PerValue, "{name}");
            ranges.push((name.to_string(), interned.clone()));
        }
        _ => {}
    })
    .unwrap();
    let mut dec = DecoderSession::new(opts);
    dec.decode_frame::<Value>(&s).unwrap().unwrap();
    // The short names stay inline; each column defines its own 64 values.
    assert_eq!(
        ranges,
        [
            ("names".to_string(), 0..0),
            ("a".to_string(), 0..64),
            ("b".to_string(), 64..128)
        ]
    );
    assert_eq!(dec.stats().intern_entries, 128);
}

#[test]
fn agrees_with_the_decoder_on_random_multi_byte_mutations() {
    let mut next = crate::common::xorshift(0x9E37_79B9_7F4A_7C15u64);
    let samples = samples();
    let streams: Vec<(Vec<u8>, Options)> = [Options::speed(), Options::balanced()]
        .into_iter()
        .flat_map(|o| {
            [false, true].map(|c| (stream_of(&[points(17), points(2), points(18)], o, c), o))
        })
        .collect();
    for round in 0..60_000 {
        let (base, opts) = if round % 3 == 0 {
            &streams[round % streams.len()]
        } else {
            &samples[round % samples.len()]
        };
        let mut m = base.clone();
        crate::common::mutate(&mut m, &mut next);
        if round % 3 == 0 {
            agree_stream(&m, opts);
        } else {
            agree(&m, opts, "mutation");
        }
    }
}

#[test]
fn a_string_column_without_values_has_no_value_bytes() {
    // 16 rows: `s` a nullable string column, null in every row (its non-null mask `00 00`,
    // then no string), `n` a delta-coded column whose `E6` must not be taken for `s`'s.
    let mut bytes = b"QDF\x01\x01".to_vec();
    bytes.extend([
        0xef, 0x10, 0x00, 0x02, 0x81, b's', 0x84, 0x81, b'n', 0x01, 0x00, 0x00, 0xe6, 0x03, 0x00,
        0x00, 0x02, 0x10,
    ]);
    let mut cols = Vec::new();
    inspect::message(&bytes, &Options::default(), &mut |e| {
        if let EventKind::Column {
            name,
            values,
            count,
            ..
        } = &e.kind
        {
            cols.push((name.to_string(), *values, *count, e.end - e.offset));
        }
    })
    .unwrap();
    agree(&bytes, &Options::default(), "null column");
    let delta = ColumnValues::Packed(inspect::Codec::Delta, Some(3));
    assert_eq!(
        cols,
        [
            ("s".to_string(), ColumnValues::PerValue, 0, 2),
            ("n".to_string(), delta, 16, 6)
        ]
    );
}

/// A struct column and a list column (`docs/SPEC.md` §22.2, the golden bytes of the spec
/// examples): each opens, its child columns follow one level deeper with their own classes,
/// counts and byte ranges (tiling the parent's), then a `Close` at the parent's end.
#[test]
fn nested_columns_show_their_children() {
    let msg = |hex: &str| {
        let mut b = vec![0x51, 0x44, 0x46, 0x01, 0x00];
        b.extend(hex.split(' ').map(|h| u8::from_str_radix(h, 16).unwrap()));
        b
    };
    let opts = Options::default();
    let structs = msg("ef 10 00 01 81 70 05 02 81 78 01 81 79 01 e6 03 00 00 02 10 e5 03 00 02 10");
    // The struct column `p` covers its children x (delta) and y (FOR at 2 bits).
    assert_eq!(
        walk(&structs, &opts).unwrap()[2..],
        [
            "19..30 2 Column { index: 0, name: \"p\", kind: 5, values: Struct(2), count: 16, interned: 0..0 }",
            "19..25 3 Column { index: 0, name: \"x\", kind: 1, values: Packed(Delta, Some(3)), count: 16, interned: 0..0 }",
            "25..30 3 Column { index: 1, name: \"y\", kind: 1, values: Packed(For, Some(3)), count: 16, interned: 0..0 }",
            "30..30 2 Close",
            "30..30 1 Close",
        ]
    );
    let lists = msg(
        "ef 10 00 01 81 76 07 01 e5 03 02 00 10 24 49 92 24 e6 03 04 01 09 0f c6 60 0c c6 60 0c c6",
    );
    // The list column `v`: its lengths (FOR, 9 bytes) then the element column (15 values).
    assert_eq!(
        walk(&lists, &opts).unwrap()[2..],
        [
            "13..35 2 Column { index: 0, name: \"v\", kind: 7, values: List { elements: 15, lengths: Some(For) }, count: 16, interned: 0..0 }",
            "22..35 3 Column { index: 0, name: \"\", kind: 1, values: Packed(Delta, Some(3)), count: 15, interned: 0..0 }",
            "35..35 2 Close",
            "35..35 1 Close",
        ]
    );
    // Encoded rows: a list of structs whose element column holds a list column; each
    // column's (depth, name, kind byte, values) as the walk reports them.
    #[derive(Serialize)]
    struct Ev {
        t: u32,
        tags: Vec<u8>,
    }
    #[derive(Serialize)]
    struct Row {
        id: u32,
        evs: Vec<Ev>,
    }
    let rows: Vec<Row> = (0..20u32)
        .map(|i| Row {
            id: i,
            evs: (0..i % 3)
                .map(|k| Ev {
                    t: i + k,
                    tags: vec![k as u8; (i % 2) as usize],
                })
                .collect(),
        })
        .collect();
    let bytes = qdf_core::to_vec(&rows).unwrap();
    let mut cols = Vec::new();
    inspect::message(&bytes, &opts, &mut |e| {
        if let EventKind::Column {
            name, kind, count, ..
        } = &e.kind
        {
            cols.push((e.depth, name.to_string(), *kind, *count));
        }
    })
    .unwrap();
    // 20 rows hold 19 events (i % 3), those of odd rows one tag each (10).
    let evs: u64 = (0..20).map(|i| i % 3).sum();
    let tags: u64 = (0..20).filter(|i| i % 2 == 1).map(|i| i % 3).sum();
    assert_eq!((evs, tags), (19, 10));
    assert_eq!(
        cols,
        [
            (2, "id".to_string(), 0x01, 20),
            (2, "evs".to_string(), 0x07, 20),
            (3, String::new(), 0x05, evs),
            (4, "t".to_string(), 0x01, evs),
            (4, "tags".to_string(), 0x07, evs),
            (5, String::new(), 0x01, tags),
        ]
    );
}

/// Tagged columns (`docs/SPEC.md` §22.3): the walk agrees with the decoder on the
/// hand-built containers, every prefix and many one-byte changes of them; a tagged column
/// opens, its variants follow one level deeper (a unit variant with no bytes).
#[test]
fn tagged_columns_agree_and_show_their_variants() {
    let opts = Options::default();
    let samples = crate::tagged_wire::samples();
    agree_mutated(
        &samples
            .iter()
            .map(|m| (m.clone(), opts))
            .collect::<Vec<_>>(),
    );
    assert_eq!(
        walk(&samples[0], &opts).unwrap()[2..],
        [
            "19..27 2 Column { index: 0, name: \"e\", kind: 136, values: Tagged { variants: 2, map: false, tags: None }, count: 3, interned: 0..0 }",
            "24..24 3 Column { index: 0, name: \"A\", kind: 15, values: Unit, count: 1, interned: 0..0 }",
            "24..27 3 Column { index: 1, name: \"B\", kind: 1, values: Array, count: 2, interned: 0..0 }",
            "27..27 2 Close",
            "27..27 1 Close",
        ]
    );
    // Hex text as a variant's name and per-value strings (a definition, a reference, an
    // uppercase inline form).
    assert_eq!(
        walk(&samples[4], &opts).unwrap()[2..],
        [
            "21..40 2 Column { index: 0, name: \"v\", kind: 24, values: Tagged { variants: 2, map: true, tags: None }, count: 4, interned: 0..0 }",
            "26..37 3 Column { index: 0, name: \"ab\", kind: 4, values: PerValue, count: 3, interned: 0..1 }",
            "37..40 3 Column { index: 1, name: \"i\", kind: 20, values: Array, count: 1, interned: 1..1 }",
            "40..40 2 Close",
            "40..40 1 Close",
        ]
    );
}

/// Predicted numbers (`docs/SPEC.md` §15.2's stream example) are events of their own, with
/// the value and the form: the decimal step's exponent, the delta of the delta.
#[test]
fn predicted_numbers_show_their_form() {
    use qdf_core::inspect::{Int, Number, Prediction};
    let hex = "51 44 46 01 03 15 ec 00 02 81 74 c5 00 f1 53 65 81 76 cc 00 00 00 00 00 80 34 40 \
               10 ec 01 c5 3c f1 53 65 cc 33 33 33 33 33 b3 34 40 08 ec 01 f1 f0 01 fd 01 01 04 \
               ec 01 f0 f0 06 ec 01 f1 05 f1 04";
    let s: Vec<u8> = hex
        .split_whitespace()
        .map(|b| u8::from_str_radix(b, 16).unwrap())
        .collect();
    let mut got = Vec::new();
    inspect::stream(&s, &Options::balanced(), 1 << 20, &mut |e| {
        if let EventKind::Predicted { value, form } = e.kind {
            got.push((e.offset, e.end, value, form));
        }
    })
    .unwrap();
    let t = |v: u64| Number::Int(Int::U64(v));
    assert_eq!(
        got,
        [
            (47, 50, t(1_700_000_120), Prediction::Delta(60)),
            (
                50,
                53,
                Number::F64(20.6),
                Prediction::DecimalAt { step: -1, exp: 1 }
            ),
            (56, 57, t(1_700_000_180), Prediction::SameStep),
            (57, 58, Number::F64(20.6), Prediction::Same),
            (61, 63, t(1_700_000_241), Prediction::DeltaOfDelta(1)),
            (
                63,
                65,
                Number::F64(20.8),
                Prediction::Decimal { step: 2, exp: 1 }
            ),
        ]
    );
    agree_stream(&s, &Options::balanced());
    // After a declaration and a plain 1.0: 1.0 again (`F0`), 1.0 + 2^-52 flips bit 0 of the
    // bits (`FD 40 01`), and 1.0 is a decimal step of 0 at exponent 0 from it (`F1 00`).
    let mut enc = EncoderSession::new(Options::balanced());
    let mut out = Vec::new();
    #[derive(Serialize)]
    struct F {
        v: f64,
    }
    for v in [1.0, 1.0, 1.0, 1.0 + f64::EPSILON, 1.0] {
        enc.encode_frame(&F { v }, &mut out).unwrap();
    }
    let mut forms = Vec::new();
    inspect::stream(&out, &Options::balanced(), 1 << 20, &mut |e| {
        if let EventKind::Predicted { form, .. } = e.kind {
            forms.push(form);
        }
    })
    .unwrap();
    assert_eq!(
        forms,
        [
            Prediction::Same,
            Prediction::Xor { bits: 1, shift: 0 },
            Prediction::Decimal { step: 0, exp: 0 }
        ]
    );
}
