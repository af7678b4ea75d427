//! Pre-shared dictionaries (`docs/SPEC.md` §25): golden bytes, round trips in every tier,
//! one-shot and session use, renewal, mismatched and absent dictionaries, hostile files,
//! training determinism.

use std::collections::BTreeMap;

use qdf_core::{
    Category, DecoderSession, Dictionary, DictionaryId, EncoderSession, ErrorCode, Options, Value,
};
use serde::{Deserialize, Serialize};

use crate::common::{TIERS, hex, unhex};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
enum Level {
    Info,
    Warn { code: u16 },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Record {
    service: String,
    host: String,
    level: Level,
    message: String,
    #[serde(with = "serde_bytes")]
    tag: Vec<u8>,
    attrs: BTreeMap<String, String>,
    seq: u64,
}

fn record(i: u64) -> Record {
    let services = ["checkout", "payment-service", "inventory"];
    let mut attrs = BTreeMap::new();
    attrs.insert(
        "region".to_string(),
        ["eu-west-1", "us-east-2"][i as usize % 2].into(),
    );
    attrs.insert(format!("request-{i:08x}"), "unique".into());
    Record {
        service: services[i as usize % 3].into(),
        host: format!("host-{:02}", i % 4),
        level: if i.is_multiple_of(5) {
            Level::Warn { code: 503 }
        } else {
            Level::Info
        },
        message: "request served".into(),
        tag: b"binary-tag".to_vec(),
        attrs,
        seq: i,
    }
}

fn trained() -> Dictionary {
    let samples: Vec<Vec<Record>> = (0..20)
        .map(|b| (b * 3..b * 3 + 3).map(record).collect())
        .collect();
    Dictionary::train(&samples, Options::balanced(), 4096).unwrap()
}

/// The file of a two-string dictionary, byte for byte (§25.3), and its id (§25.1).
#[test]
fn golden_file_and_id() {
    let dict = Dictionary::from_strs(["checkout", "payment-service"]).unwrap();
    let file = dict.to_bytes();
    assert_eq!(
        hex(&file),
        "51 44 46 44 01 02 10 63 68 65 63 6b 6f 75 74 1e 70 61 79 6d 65 6e 74 2d 73 65 72 76 69 63 65"
    );
    assert_eq!(dict.id().to_string(), GOLDEN_ID);
    assert_eq!(Dictionary::from_bytes(&file).unwrap(), dict);
    assert_eq!((dict.len(), dict.content_bytes()), (2, 23));
    assert_eq!(dict.entry(1), Some((&b"payment-service"[..], true)));
    assert_eq!(dict.entry(2), None);
}

const GOLDEN_ID: &str = "33caf7c9da194e7b";
const GOLDEN_ID_HEX: &str = "33 ca f7 c9 da 19 4e 7b";

/// A one-shot message on that dictionary: flag `20`, the id, then `E1 00` and `E1 01` where
/// the strings would be defined; a new string is defined as own id 2 (§25.2).
#[test]
fn golden_message() {
    let dict = Dictionary::from_strs(["checkout", "payment-service"]).unwrap();
    let v = ("checkout", "payment-service", "checkout", "other");
    let msg = qdf_core::to_vec_with_dictionary(&v, Options::balanced(), &dict).unwrap();
    assert_eq!(
        hex(&msg),
        format!("51 44 46 01 21 {GOLDEN_ID_HEX} a4 e1 00 e1 01 e1 00 e0 05 6f 74 68 65 72")
    );
    // Without it: 23 bytes of definitions more, 8 bytes of id less.
    let plain = qdf_core::to_vec_with(&v, Options::balanced()).unwrap();
    assert_eq!((plain.len(), msg.len()), (42, 27));
    let back: (String, String, String, String) =
        qdf_core::from_slice_with_dictionary(&msg, Options::balanced(), &dict).unwrap();
    assert_eq!(
        back,
        (
            "checkout".into(),
            "payment-service".into(),
            "checkout".into(),
            "other".into()
        )
    );
    assert_eq!(qdf_core::dictionary_id(&msg).unwrap(), Some(dict.id()));
    assert_eq!(qdf_core::dictionary_id(&plain).unwrap(), None);
    // The same bytes through the Deserializer.
    let mut de =
        qdf_core::Deserializer::from_slice_with_dictionary(&msg, Options::default(), &dict)
            .unwrap();
    let v: Value = serde::Deserialize::deserialize(&mut de).unwrap();
    de.end().unwrap();
    assert_eq!(
        v.to_string(),
        r#"["checkout", "payment-service", "checkout", "other"]"#
    );
}

/// Every tier round-trips exactly; Speed ignores the dictionary (§25.2): its bytes are
/// `to_vec_with`'s and decode without it.
#[test]
fn round_trips_in_every_tier() {
    let dict = trained();
    assert!(dict.len() > 5, "{dict:?}");
    // Record and Level::Warn's shapes: the batches below reuse them from their first record.
    assert_eq!(dict.shape_count(), 2, "{dict:?}");
    let batch: Vec<Record> = (100..110).map(record).collect();
    for tier in TIERS {
        let opts = tier();
        let msg = qdf_core::to_vec_with_dictionary(&batch, opts, &dict).unwrap();
        let back: Vec<Record> = qdf_core::from_slice_with_dictionary(&msg, opts, &dict).unwrap();
        assert_eq!(back, batch);
        let plain = qdf_core::to_vec_with(&batch, opts).unwrap();
        if opts.features.contains(qdf_core::Features::DENSE) {
            assert_eq!(msg[4] & 0x20, 0x20);
            // On a dictionary the `attrs` maps stay rows (§22.2); the dictionary pays against
            // the same rows without it. (A one-shot message without it makes them a map
            // column: 386 bytes in Balanced, against 432 on the dictionary.)
            let flat = opts.features(opts.features.without(qdf_core::Features::NESTED_COLUMNS));
            let rows = qdf_core::to_vec_with(&batch, flat).unwrap();
            assert!(msg.len() < rows.len(), "{} vs {}", msg.len(), rows.len());
            let v: Value = qdf_core::from_slice_with_dictionary(&msg, opts, &dict).unwrap();
            let direct: Value = qdf_core::from_slice_with(&plain, opts).unwrap();
            assert_eq!(v, direct);
        } else {
            assert_eq!(msg, plain);
            let back: Vec<Record> = qdf_core::from_slice_with(&msg, opts).unwrap();
            assert_eq!(back, batch);
        }
        // A message that names no dictionary decodes with one held.
        let back: Vec<Record> = qdf_core::from_slice_with_dictionary(&plain, opts, &dict).unwrap();
        assert_eq!(back, batch);
    }
}

/// A message naming a dictionary fails with `UnknownDictionary` at offset 5 without it or
/// with another one: never a wrong value.
#[test]
fn absent_or_mismatched_dictionary_is_a_typed_error() {
    let dict = Dictionary::from_strs(["checkout", "payment-service"]).unwrap();
    let other = Dictionary::from_strs(["payment-service", "checkout"]).unwrap();
    assert_ne!(dict.id(), other.id());
    let msg = qdf_core::to_vec_with_dictionary(&"checkout", Options::balanced(), &dict).unwrap();
    let e = qdf_core::from_slice::<String>(&msg).unwrap_err();
    assert_eq!(
        e.code(),
        &ErrorCode::UnknownDictionary {
            found: dict.id().to_bytes(),
            held: None
        }
    );
    assert_eq!((e.classify(), e.offset()), (Category::Syntax, Some(5)));
    let e = qdf_core::from_slice_with_dictionary::<String>(&msg, Options::balanced(), &other)
        .unwrap_err();
    assert_eq!(
        e.code(),
        &ErrorCode::UnknownDictionary {
            found: dict.id().to_bytes(),
            held: Some(other.id().to_bytes())
        }
    );
    assert!(e.to_string().contains(&dict.id().to_string()), "{e}");
    // Every strict prefix of the message fails as cut short or unknown, never decodes.
    for n in 0..msg.len() {
        let e =
            qdf_core::from_slice_with_dictionary::<String>(&msg[..n], Options::balanced(), &dict)
                .unwrap_err();
        assert!(e.is_eof(), "{n}: {e}");
    }
    // The inspector without the dictionary refuses instead of misreading.
    let mut sink = |_: &qdf_core::inspect::Event<'_>| {};
    let e = qdf_core::inspect::message(&msg, &Options::default(), &mut sink).unwrap_err();
    assert!(
        matches!(e.error.code(), ErrorCode::UnknownDictionary { .. }),
        "{e:?}"
    );
}

/// A session reading a stream on a dictionary it does not hold fails at the header's id,
/// before it reads the first frame's length: also when that length is malformed (found by
/// the `inspect` fuzz target, where the session answered `VarintOverflow` and the walker
/// `UnknownDictionary`).
#[test]
fn stream_on_unknown_dictionary_fails_before_its_first_frame() {
    let dict = Dictionary::from_strs(["checkout", "payment-service"]).unwrap();
    let mut enc = EncoderSession::new(Options::balanced()).with_dictionary(dict.clone());
    let mut good = Vec::new();
    enc.encode_frame(&"checkout", &mut good).unwrap();
    let mut bad = good[..13].to_vec();
    bad.extend_from_slice(&[0xFF; 11]);
    for stream in [&good[..], &bad[..]] {
        for n in 13..=stream.len() {
            let mut dec = DecoderSession::new(Options::balanced());
            let e = dec.decode_frame::<String>(&stream[..n]).unwrap_err();
            assert_eq!(
                e.code(),
                &ErrorCode::UnknownDictionary {
                    found: dict.id().to_bytes(),
                    held: None
                },
                "{n}"
            );
            let mut dec = DecoderSession::new(Options::balanced());
            assert!(dec.frame_status(&stream[..n]).is_err(), "{n}");
        }
    }
    // Cut inside the id: waits for more, and input that ends there is cut inside the id
    // (as the walker says; found by the `inspect` fuzz target).
    for n in 6..13 {
        let mut dec = DecoderSession::new(Options::balanced());
        assert!(dec.decode_frame::<String>(&good[..n]).unwrap().is_none());
        let e = dec.check_end(&good[..n]).unwrap_err();
        let expected = "the 8-byte dictionary id after the header";
        assert_eq!(e.code(), &ErrorCode::UnexpectedEof { expected }, "{n}");
        assert_eq!(e.offset(), Some(n as u64));
        let w = qdf_core::inspect::stream(&good[..n], &Options::balanced(), 1 << 16, &mut |_| {})
            .unwrap_err();
        assert_eq!(w.error.code(), e.code());
    }
}

/// A Dense stream on a dictionary over many frames, with renewals: values exact, the
/// dictionary's entries referenced in every generation (a renewal returns to them, §25.2).
#[test]
fn session_stream_with_renewals() {
    let dict = trained();
    for opts in [Options::balanced(), Options::compression()] {
        let mut enc = EncoderSession::new(opts).with_dictionary(dict.clone());
        assert_eq!(enc.dictionary_id(), Some(dict.id()));
        let mut wire = Vec::new();
        let mut plain_wire = Vec::new();
        let mut plain = EncoderSession::new(opts);
        let values: Vec<Record> = (200..260).map(record).collect();
        for (i, v) in values.iter().enumerate() {
            if i % 17 == 16 {
                enc.renew();
                plain.renew();
            }
            enc.encode_frame(v, &mut wire).unwrap();
            plain.encode_frame(v, &mut plain_wire).unwrap();
        }
        assert_eq!(enc.renewals(), 3);
        assert_eq!(wire[4] & 0x21, 0x21);
        assert_eq!(wire[5..13], dict.id().to_bytes());
        assert!(
            wire.len() < plain_wire.len(),
            "{} vs {}",
            wire.len(),
            plain_wire.len()
        );

        let mut dec = DecoderSession::new(opts).with_dictionary(dict.clone());
        let mut pos = 0;
        for v in &values {
            let (back, n): (Record, usize) = dec.decode_frame(&wire[pos..]).unwrap().unwrap();
            assert_eq!(&back, v);
            pos += n;
        }
        assert_eq!(pos, wire.len());
        assert_eq!(dec.renewals(), 3);
        assert_eq!(dec.dictionary_id(), Some(dict.id()));
        dec.check_end(&wire[pos..]).unwrap();
        // Own entries only: the dictionary's are shared, not in the session's counts.
        assert_eq!(dec.stats().intern_entries, enc.stats().intern_entries);

        // Without the dictionary, or with another: refused at the header, session broken.
        for mut dec in [
            DecoderSession::new(opts),
            DecoderSession::new(opts).with_dictionary(Dictionary::from_strs(["x-other"]).unwrap()),
        ] {
            let e = dec.decode_frame::<Record>(&wire).unwrap_err();
            assert!(
                matches!(e.code(), ErrorCode::UnknownDictionary { .. }),
                "{e}"
            );
            assert_eq!(e.offset(), Some(5));
            assert!(dec.broken().is_some());
        }
    }
}

/// Message mode (gRPC, §24) on a dictionary, and a lone header with an id is a valid empty
/// stream for a decoder holding that dictionary.
#[test]
fn message_mode_and_lone_header() {
    let dict = trained();
    let mut enc = EncoderSession::new(Options::balanced())
        .with_dictionary(dict.clone())
        .with_checksum(true);
    let mut dec = DecoderSession::new(Options::balanced()).with_dictionary(dict.clone());
    for i in 0..5 {
        let mut msg = Vec::new();
        enc.encode_message(&record(i), &mut msg).unwrap();
        if i == 0 {
            assert_eq!(msg[5..13], dict.id().to_bytes());
        }
        assert_eq!(dec.decode_message::<Record>(&msg).unwrap(), record(i));
    }
    let mut header = unhex("51 44 46 01 21");
    header.extend(dict.id().to_bytes());
    DecoderSession::new(Options::balanced())
        .with_dictionary(dict.clone())
        .check_end(&header)
        .unwrap();
    // Without the dictionary it names: refused, as `decode_frame` refuses it.
    let e = DecoderSession::new(Options::balanced())
        .check_end(&header)
        .unwrap_err();
    assert_eq!(
        (e.code(), e.offset()),
        (
            &ErrorCode::UnknownDictionary {
                found: dict.id().to_bytes(),
                held: None
            },
            Some(5)
        )
    );
    let e = DecoderSession::new(Options::balanced())
        .decode_frame::<Value>(&header)
        .unwrap_err();
    assert!(matches!(e.code(), ErrorCode::UnknownDictionary { .. }));
    assert!(
        DecoderSession::new(Options::balanced())
            .check_end(&header[..9])
            .unwrap_err()
            .is_eof()
    );
}

/// A stateless stream (no flag `01`) on a dictionary: every frame starts from it, and a
/// definition of one frame is unknown in the next.
#[test]
fn stateless_stream_on_a_dictionary() {
    let dict = Dictionary::from_strs(["checkout", "payment-service"]).unwrap();
    let mut wire = unhex("51 44 46 01 20");
    wire.extend(dict.id().to_bytes());
    // frame 1: ["payment-service", "attic" defined as id 2, E1 02]; frame 2: E1 00; frame 3: E1 02
    wire.extend(unhex(
        "0c a3 e1 01 e0 05 61 74 74 69 63 e1 02 02 e1 00 02 e1 02",
    ));
    let mut dec = DecoderSession::new(Options::speed()).with_dictionary(dict);
    let (a, n): (Value, usize) = dec.decode_frame(&wire).unwrap().unwrap();
    assert_eq!(a.to_string(), r#"["payment-service", "attic", "attic"]"#);
    let (b, m): (String, usize) = dec.decode_frame(&wire[n..]).unwrap().unwrap();
    assert_eq!(b, "checkout");
    let e = dec.decode_frame::<String>(&wire[n + m..]).unwrap_err();
    assert_eq!(e.code(), &ErrorCode::UnknownStateId(2));
    assert!(dec.broken().is_none());
}

/// The inspector walks messages and streams on the dictionary it is given as the decoder
/// reads them: references to the dictionary's entries resolve to their bytes, the header
/// event spans the id, every frame (renewals included) is walked, and without the
/// dictionary or with another one the walk fails as the decoder does.
#[test]
fn inspect_walks_input_on_a_dictionary() {
    use qdf_core::inspect::{self, EventKind, Intern};
    let dict = trained();
    let opts = Options::balanced();
    let base = dict.len() as u32;
    // (header end, references into the dictionary, each checked against its entry)
    let walk_sink =
        |refs: &mut Vec<u32>, header_end: &mut u64, e: &inspect::Event<'_>| match &e.kind {
            EventKind::Header { .. } => *header_end = e.end,
            EventKind::Text {
                bytes,
                intern: Intern::Ref { id, .. },
                ..
            } if *id < base => {
                assert_eq!(Some(*bytes), dict.entry(*id as usize).map(|(b, _)| b));
                refs.push(*id);
            }
            _ => {}
        };

    let msg = qdf_core::to_vec_with_dictionary(&record(7), opts, &dict).unwrap();
    let (mut refs, mut end) = (Vec::new(), 0);
    inspect::message_with_dictionary(&msg, &opts, Some(&dict), &mut |e| {
        walk_sink(&mut refs, &mut end, e)
    })
    .unwrap();
    assert_eq!(end, 13);
    assert!(refs.len() >= 4, "{refs:?}");

    let mut enc = EncoderSession::new(opts).with_dictionary(dict.clone());
    let mut wire = Vec::new();
    for i in 0..40 {
        if i % 13 == 12 {
            enc.renew();
        }
        enc.encode_frame(&record(300 + i), &mut wire).unwrap();
    }
    let (mut refs, mut end) = (Vec::new(), 0);
    let mut renewals = 0;
    let sum = inspect::stream_with_dictionary(&wire, &opts, 1 << 20, Some(&dict), &mut |e| {
        if let EventKind::Renewal { .. } = e.kind {
            renewals += 1;
        }
        walk_sink(&mut refs, &mut end, e)
    })
    .unwrap();
    assert_eq!((sum.frames, renewals, end), (40, 3, 13));
    // After a renewal the state returns to the dictionary: it is referenced again.
    assert!(refs.len() >= 40, "{}", refs.len());

    // The stateless stream of `stateless_stream_on_a_dictionary`: each body starts from it.
    let small = Dictionary::from_strs(["checkout", "payment-service"]).unwrap();
    let mut stateless = unhex("51 44 46 01 20");
    stateless.extend(small.id().to_bytes());
    stateless.extend(unhex("0c a3 e1 01 e0 05 61 74 74 69 63 e1 02 02 e1 00"));
    let mut texts = Vec::new();
    let sum = inspect::stream_with_dictionary(&stateless, &opts, 1 << 20, Some(&small), &mut |e| {
        if let EventKind::Text { bytes, .. } = e.kind {
            texts.push(String::from_utf8(bytes.to_vec()).unwrap());
        }
    })
    .unwrap();
    assert_eq!(sum.frames, 2);
    assert_eq!(texts, ["payment-service", "attic", "attic", "checkout"]);

    // Without it or with another: the decoder's error, at the id.
    for held in [None, Some(&small)] {
        let e = inspect::message_with_dictionary(&msg, &opts, held, &mut |_| {}).unwrap_err();
        let d = match held {
            Some(h) => qdf_core::from_slice_with_dictionary::<Value>(&msg, opts, h).unwrap_err(),
            None => qdf_core::from_slice_with::<Value>(&msg, opts).unwrap_err(),
        };
        assert_eq!((e.error.code(), e.error.offset()), (d.code(), d.offset()));
        let e =
            inspect::stream_with_dictionary(&wire, &opts, 1 << 20, held, &mut |_| {}).unwrap_err();
        assert_eq!(
            e.error.code(),
            &ErrorCode::UnknownDictionary {
                found: dict.id().to_bytes(),
                held: held.map(|h| h.id().to_bytes())
            }
        );
        assert_eq!(e.error.offset(), Some(5));
    }
}

/// A Speed session ignores the dictionary: a plain Speed stream.
#[test]
fn speed_session_ignores_the_dictionary() {
    let dict = trained();
    let mut a = Vec::new();
    let mut b = Vec::new();
    let mut with = EncoderSession::new(Options::speed()).with_dictionary(dict);
    let mut without = EncoderSession::new(Options::speed());
    for i in 0..3 {
        with.encode_frame(&record(i), &mut a).unwrap();
        without.encode_frame(&record(i), &mut b).unwrap();
    }
    assert_eq!(a, b);
    assert_eq!(with.dictionary_id(), None);
}

/// Hostile and malformed files: typed errors at the failing byte, nothing allocated beyond
/// what the input justifies, no panic on any prefix or any single-byte change.
#[test]
fn hostile_dictionary_files() {
    let cases: &[(&str, ErrorCode, u64)] = &[
        (
            "",
            ErrorCode::UnexpectedEof {
                expected: "the dictionary magic 'QDFD'",
            },
            0,
        ),
        ("51 44 46 45 01 00", ErrorCode::BadMagic, 3),
        ("51 44 46 44 03 00", ErrorCode::BadVersion(3), 4),
        (
            "51 44 46 44",
            ErrorCode::UnexpectedEof {
                expected: "the dictionary file version",
            },
            4,
        ),
        (
            "51 44 46 44 01",
            ErrorCode::UnexpectedEof {
                expected: "the entry count",
            },
            5,
        ),
        (
            "51 44 46 44 01 80 00",
            ErrorCode::NonMinimal("a uvarint"),
            5,
        ),
        // a count of 2^63 entries in 0 bytes: refused before any allocation
        (
            "51 44 46 44 01 ff ff ff ff ff ff ff ff 7f",
            ErrorCode::LengthOverrun {
                len: (1 << 63) - 1,
                remaining: 0,
            },
            14,
        ),
        (
            "51 44 46 44 01 01 00 00",
            ErrorCode::BadDictionary("an empty entry"),
            6,
        ),
        (
            "51 44 46 44 01 02 02 61 02 61",
            ErrorCode::BadDictionary("a repeated entry"),
            9,
        ),
        ("51 44 46 44 01 01 04 c3 28", ErrorCode::InvalidUtf8, 7),
        (
            "51 44 46 44 01 01 04 61",
            ErrorCode::UnexpectedEof {
                expected: "an entry's bytes",
            },
            8,
        ),
        ("51 44 46 44 01 01 02 61 00", ErrorCode::TrailingBytes(1), 8),
        (
            "51 44 46 44 01 01 82 80 08 61",
            ErrorCode::BadDictionary("an entry longer than 65 536 bytes"),
            6,
        ),
    ];
    for (h, code, at) in cases {
        let e = Dictionary::from_bytes(&unhex(h)).unwrap_err();
        assert_eq!((e.code(), e.offset()), (code, Some(*at)), "{h}: {e}");
    }
    // The same string as a string and as bytes: two entries, both fine.
    let d = Dictionary::from_bytes(&unhex("51 44 46 44 01 02 02 61 03 61")).unwrap();
    assert_eq!(
        (d.entry(0), d.entry(1)),
        (Some((&b"a"[..], true)), Some((&b"a"[..], false)))
    );
    // 65 536 entries: one past the id space.
    let mut big = unhex("51 44 46 44 01 80 80 04");
    for i in 0..=0xFFFFu32 {
        let s = format!("{i:x}");
        big.push((s.len() << 1) as u8);
        big.extend(s.as_bytes());
    }
    let e = Dictionary::from_bytes(&big).unwrap_err();
    assert_eq!(
        e.code(),
        &ErrorCode::BadDictionary("more than 65 535 entries")
    );

    // An empty string in a list is named as such (Syntax), not read as a file cut short:
    // the offset is the entry's in the file the list makes.
    for (strs, at) in [(&[""][..], 6), (&["a", ""][..], 8), (&["", "abc"][..], 6)] {
        let e = Dictionary::from_strs(strs).unwrap_err();
        assert_eq!(
            e.code(),
            &ErrorCode::BadDictionary("an empty entry"),
            "{strs:?}"
        );
        assert_eq!(e.classify(), Category::Syntax);
        assert_eq!(e.offset(), Some(at), "{strs:?}");
    }

    // A version 2 file (the trained dictionary holds shapes, §25.2).
    let file = trained().to_bytes();
    assert_eq!(file[4], 2);
    for n in 0..file.len() {
        assert!(Dictionary::from_bytes(&file[..n]).is_err(), "prefix {n}");
    }
    for i in 0..file.len() {
        for x in [0x01u8, 0x80, 0xFF] {
            let mut f = file.clone();
            f[i] ^= x;
            if let Ok(d) = Dictionary::from_bytes(&f) {
                assert_eq!(Dictionary::from_bytes(&d.to_bytes()).unwrap().to_bytes(), f);
            }
        }
    }
}

/// Training is deterministic (same samples, in any order → same file and id) and keeps
/// only strings seen in two samples or more, the most valuable first.
#[test]
fn training_is_deterministic() {
    let samples: Vec<Vec<Record>> = (0..20)
        .map(|b| (b * 3..b * 3 + 3).map(record).collect())
        .collect();
    let a = Dictionary::train(&samples, Options::balanced(), 4096).unwrap();
    let mut reversed = samples.clone();
    reversed.reverse();
    let b = Dictionary::train(&reversed, Options::balanced(), 4096).unwrap();
    assert_eq!(a.to_bytes(), b.to_bytes());
    assert_eq!(a.id(), b.id());
    let strings: Vec<String> = (0..a.len())
        .map(|i| String::from_utf8_lossy(a.entry(i).unwrap().0).into_owned())
        .collect();
    // Unique request keys stay out; the common values and names are in.
    assert!(
        strings.iter().all(|s| !s.starts_with("request-")),
        "{strings:?}"
    );
    for s in [
        "payment-service",
        "request served",
        "checkout",
        "region",
        "eu-west-1",
        "Warn",
    ] {
        assert!(
            strings.iter().any(|x| x == s),
            "{s} missing from {strings:?}"
        );
    }
    assert_eq!(a.entry(0).unwrap().0, TRAINED_FIRST);
    // A budget bounds the file.
    for budget in [0, 20, 64, 200] {
        let d = Dictionary::train(&samples, Options::balanced(), budget).unwrap();
        assert!(
            d.to_bytes().len() <= budget.max(8),
            "{budget}: {}",
            d.to_bytes().len()
        );
    }
}

const TRAINED_FIRST: &[u8] = b"payment-service";

/// The dictionary's strings are not in the input: a borrowed `&str` target cannot hold one
/// (`TypeMismatch`, after the reference), where the same value without the dictionary
/// borrows; owned targets read it.
#[test]
fn borrowed_targets_cannot_borrow_dictionary_strings() {
    let dict = Dictionary::from_strs(["world"]).unwrap();
    let v = ("world", "x-y-z", "x-y-z");
    let plain = qdf_core::to_vec_with(&v, Options::balanced()).unwrap();
    let back: (&str, &str, &str) = qdf_core::from_slice_with(&plain, Options::balanced()).unwrap();
    assert_eq!(back, v);
    let msg = qdf_core::to_vec_with_dictionary(&v, Options::balanced(), &dict).unwrap();
    // Header and id (13 bytes), `A3`, then `E1 00` for "world".
    assert_eq!(msg[13..16], [0xa3, 0xe1, 0x00]);
    let e = qdf_core::from_slice_with_dictionary::<(&str, &str, &str)>(
        &msg,
        Options::balanced(),
        &dict,
    )
    .unwrap_err();
    assert_eq!(
        *e.code(),
        ErrorCode::TypeMismatch {
            expected: "a borrowed string".into(),
            found: "string \"world\", which the decoder rebuilt (hex text) or copied out of \
                    its intern table or dictionary and cannot lend from the input: use `String` \
                    or `#[serde(borrow)] Cow<'a, str>`"
                .into(),
        }
    );
    assert_eq!(e.offset(), Some(16));
    let owned: (String, std::borrow::Cow<str>, String) =
        qdf_core::from_slice_with_dictionary(&msg, Options::balanced(), &dict).unwrap();
    assert_eq!((owned.0.as_str(), &*owned.1, owned.2.as_str()), v);
}

/// In message mode (gRPC) a body error's offset counts from the message's first byte, as a
/// one-shot message's does: past the header and the dictionary id in the first message.
#[test]
fn message_mode_body_errors_count_from_the_message() {
    let dict = Dictionary::from_strs(["alpha"]).unwrap();
    for (held, header) in [(None, 5u64), (Some(dict), 13)] {
        let mut enc = EncoderSession::new(Options::balanced());
        let mut dec = DecoderSession::new(Options::balanced());
        if let Some(d) = &held {
            enc = enc.with_dictionary(d.clone());
            dec = dec.with_dictionary(d.clone());
        }
        let mut first = Vec::new();
        enc.encode_message(&"zzz", &mut first).unwrap();
        // The body `["?"]` by a reference to id 0x70, which nobody defined.
        first.truncate(header as usize);
        first.extend_from_slice(&[0xa1, 0xe1, 0x70]);
        let e = dec.decode_message::<Vec<String>>(&first).unwrap_err();
        assert_eq!(*e.code(), ErrorCode::UnknownStateId(0x70));
        assert_eq!(e.offset(), Some(header + 2), "{e}");
        // The one-shot decoder of the same bytes agrees.
        let one_shot = match &held {
            Some(d) => {
                qdf_core::from_slice_with_dictionary::<Vec<String>>(&first, Options::balanced(), d)
            }
            None => qdf_core::from_slice_with::<Vec<String>>(&first, Options::balanced()),
        };
        assert_eq!(one_shot.unwrap_err().offset(), Some(header + 2));
    }
}

/// A budget above the file format's limits trains the largest file those limits allow (16
/// MiB of entries), not a file the reader refuses (`BadDictionary`).
#[test]
fn training_with_a_large_budget_stays_within_the_file_limits() {
    // 300 strings of 60 005 bytes, each in both samples: 18 MB, more than 16 MiB.
    let long = |i: usize| format!("{i:05}{}", "z".repeat(60_000));
    let samples: Vec<Vec<String>> = (0..2).map(|_| (0..300).map(long).collect()).collect();
    for budget in [usize::MAX, 32 << 20] {
        let d = Dictionary::train(&samples, Options::balanced(), budget).unwrap();
        // Equal gains, so ranked by content: the first 279 fit in 16 MiB (16 777 216 bytes).
        assert_eq!(d.len(), 279);
        assert_eq!(d.content_bytes(), 279 * 60_005);
        assert_eq!(d.entry(0).unwrap().0, long(0).as_bytes());
        assert_eq!(d.entry(278).unwrap().0, long(278).as_bytes());
        assert_eq!(Dictionary::from_bytes(&d.to_bytes()).unwrap(), d);
    }
}

#[test]
fn dictionary_id_of_headers() {
    assert_eq!(
        qdf_core::dictionary_id(&unhex("51 44 46 01 00 00")).unwrap(),
        None
    );
    let id = qdf_core::dictionary_id(&unhex("51 44 46 01 21 01 02 03 04 05 06 07 08"))
        .unwrap()
        .unwrap();
    assert_eq!(id, DictionaryId::from_bytes([1, 2, 3, 4, 5, 6, 7, 8]));
    assert_eq!(id.to_string(), "0102030405060708");
    assert!(
        qdf_core::dictionary_id(&unhex("51 44 46 01 21 01"))
            .unwrap_err()
            .is_eof()
    );
}

/// The `qdf-dictionary` examples of `docs/SPEC.md` §25.3: the dictionary file gives the stated
/// id; each message (or stream) decodes with it to the stated value or fails with the stated
/// category; the valid ones re-encode (Balanced, renewing where the stream did) to the same
/// bytes.
#[test]
fn spec_examples() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/SPEC.md");
    let text = std::fs::read_to_string(path).unwrap();
    let mut in_block = false;
    let mut dict: Option<Dictionary> = None;
    let mut checked = 0;
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if let Some(info) = t.strip_prefix("```") {
            in_block = info == "qdf-dictionary";
            continue;
        }
        if !in_block || t.is_empty() {
            continue;
        }
        let at = format!("SPEC.md line {}", i + 1);
        let (input, expect) = t.split_once(" => ").expect("` => `");
        if let Some(file) = input.strip_prefix("dictionary ") {
            let d = Dictionary::from_bytes(&unhex(file)).unwrap();
            assert_eq!(d.id().to_string(), expect, "{at}");
            dict = Some(d);
            continue;
        }
        let dict = dict.clone().expect("a dictionary line first");
        // Records of a dictionary's shapes decode as maps: shaped maps re-encode them.
        let opts = Options::balanced();
        let opts = opts.features(opts.features.with(qdf_core::Features::MAP_SHAPE));
        if let Some(stream) = input.strip_prefix("stream ") {
            let wire = unhex(stream);
            let mut dec = DecoderSession::new(opts).with_dictionary(dict.clone());
            let mut enc = EncoderSession::new(opts).with_dictionary(dict.clone());
            let (mut pos, mut got, mut again) = (0, Vec::new(), Vec::new());
            while pos < wire.len() {
                let before = dec.renewals();
                let (v, n): (Value, usize) = dec.decode_frame(&wire[pos..]).unwrap().unwrap();
                if dec.renewals() > before {
                    enc.renew();
                }
                enc.encode_frame(&v, &mut again).unwrap();
                got.push(v.to_string());
                pos += n;
            }
            assert_eq!(got.join(" | "), expect, "{at}");
            assert_eq!(hex(&again), hex(&wire), "{at}");
        } else {
            let msg = unhex(input);
            let r = qdf_core::from_slice_with_dictionary::<Value>(&msg, opts, &dict);
            match expect.strip_prefix('!') {
                Some(cat) => {
                    let e = r.unwrap_err();
                    assert_eq!(
                        format!("{:?}", e.classify()).to_lowercase(),
                        cat,
                        "{at}: {e}"
                    );
                }
                None => {
                    let v = r.unwrap();
                    assert_eq!(v.to_string(), expect, "{at}");
                    let again = qdf_core::to_vec_with_dictionary(&v, opts, &dict).unwrap();
                    assert_eq!(hex(&again), hex(&msg), "{at}");
                }
            }
        }
        checked += 1;
    }
    assert_eq!(checked, 10);
}

/// Starting from a large dictionary and using two of its last ids costs O(1) state, not a
/// slot per dictionary id (the pair table keeps a dictionary's ids sparse).
#[test]
fn large_dictionary_state_is_o1() {
    let strs: Vec<String> = (0..30_000).map(|i| format!("entry-{i:05}")).collect();
    let dict = Dictionary::from_strs(strs.iter().map(String::as_str)).unwrap();
    let value = vec![
        strs[29_998].clone(),
        strs[29_999].clone(),
        strs[29_998].clone(),
    ];
    for opts in [Options::balanced(), Options::compression()] {
        let mut enc = EncoderSession::new(opts).with_dictionary(dict.clone());
        let mut dec = DecoderSession::new(opts).with_dictionary(dict.clone());
        let mut fresh = EncoderSession::new(opts);
        let mut wire = Vec::new();
        enc.encode_frame(&value, &mut wire).unwrap();
        fresh.encode_frame(&value, &mut Vec::new()).unwrap();
        let (back, _): (Vec<String>, usize) = dec.decode_frame(&wire).unwrap().unwrap();
        assert_eq!(back, value);
        // Without a dictionary the state holds the three strings; with one, a few pair
        // slots more: far below the 120 KB of one u32 slot per dictionary id.
        let base = fresh.stats().heap_bytes;
        for held in [enc.stats().heap_bytes, dec.stats().heap_bytes] {
            assert!(held < base + 4096, "{held} vs {base}");
        }
    }
}
