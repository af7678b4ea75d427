use super::*;
use crate::wire::header::HEADER_LEN;
use serde::ser::{Error as _, Serializer};

/// A value whose `Serialize` always fails.
struct Unserializable;

impl Serialize for Unserializable {
    fn serialize<S: Serializer>(&self, _: S) -> std::result::Result<S::Ok, S::Error> {
        Err(S::Error::custom("refused"))
    }
}

#[test]
fn encode_errors_leave_buffer_and_session_unchanged() {
    let mut enc = EncoderSession::new(Options::speed()).with_max_frame_length(16);
    let mut out = vec![0xAA];
    assert_eq!(
        enc.encode_frame(&Unserializable, &mut out)
            .unwrap_err()
            .classify(),
        Category::Data
    );
    let e = enc.encode_frame(&"x".repeat(40), &mut out).unwrap_err();
    assert_eq!(e.classify(), Category::Limit);
    assert!(matches!(e.code(), ErrorCode::FrameTooLarge { max: 16, .. }));
    assert_eq!(out, [0xAA]);
    // The header is still owed: the next good frame starts the stream.
    enc.encode_frame(&7u8, &mut out).unwrap();
    assert_eq!(&out[1..1 + HEADER_LEN], b"QDF\x01\x00");
    let mut dec = DecoderSession::new(Options::speed());
    assert_eq!(
        dec.decode_frame::<u8>(&out[1..]).unwrap(),
        Some((7, out.len() - 1))
    );
}

#[test]
fn streams_never_carry_whole_message_features() {
    let enc = EncoderSession::new(Options::compression().features(Features(0x1FF)));
    assert!(!enc.options().has(Features::ENTROPY));
    assert!(!enc.options().has(Features::COLUMN_INDEX));
    assert!(enc.options().has(Features::DENSE));
}

fn two_frames(opts: Options, second_is_bad: bool) -> (Vec<u8>, usize) {
    let mut enc = EncoderSession::new(opts);
    let mut out = Vec::new();
    enc.encode_frame(&1u32, &mut out).unwrap();
    let first = out.len();
    if second_is_bad {
        enc.encode_frame(&"not a number", &mut out).unwrap();
    }
    enc.encode_frame(&3u32, &mut out).unwrap();
    (out, first)
}

#[test]
fn body_error_in_a_stateless_stream_skips_the_frame() {
    let (wire, first) = two_frames(Options::speed(), true);
    let mut dec = DecoderSession::new(Options::speed());
    let (v, n) = dec.decode_frame::<u32>(&wire).unwrap().unwrap();
    assert_eq!((v, n), (1, first));
    let FrameStatus::Complete { len } = dec.frame_status(&wire[n..]).unwrap() else {
        panic!("second frame is complete");
    };
    let e = dec.decode_frame::<u32>(&wire[n..]).unwrap_err();
    assert_eq!(e.classify(), Category::Data);
    assert_eq!(dec.broken(), None);
    let (v, _) = dec.decode_frame::<u32>(&wire[n + len..]).unwrap().unwrap();
    assert_eq!(v, 3);
}

#[test]
fn body_error_in_a_dense_stream_breaks_the_session() {
    // A stream that announces the Dense dialect: its bodies may carry state updates.
    let (mut wire, first) = two_frames(Options::speed(), true);
    wire[4] = crate::wire::header::FLAG_DENSE;
    let mut dec = DecoderSession::new(Options::balanced());
    dec.decode_frame::<u32>(&wire).unwrap().unwrap();
    let e = dec.decode_frame::<u32>(&wire[first..]).unwrap_err();
    assert_eq!(e.classify(), Category::Data);
    assert_eq!(dec.broken(), Some(Category::Data));
    let later = dec.decode_frame::<u32>(&wire[first..]).unwrap_err();
    assert_eq!(later.code(), &ErrorCode::Broken(Category::Data));
    assert_eq!(later.classify(), Category::Broken);
    assert!(dec.frame_status(&[]).is_err());
    assert!(dec.check_end(&[]).is_err());
}

#[test]
fn framing_errors_break_even_stateless_sessions() {
    let mut dec = DecoderSession::new(Options::speed()).with_max_frame_length(4);
    let mut wire = b"QDF\x01\x00".to_vec();
    wire.push(5);
    assert_eq!(
        dec.frame_status(&wire).unwrap_err().classify(),
        Category::Limit
    );
    assert_eq!(
        dec.frame_status(&wire[..HEADER_LEN]).unwrap_err().code(),
        &ErrorCode::Broken(Category::Limit)
    );
}

#[test]
fn messages_carry_the_header_once() {
    let mut enc = EncoderSession::new(Options::speed());
    let (mut a, mut b) = (Vec::new(), Vec::new());
    enc.encode_message(&"first", &mut a).unwrap();
    enc.encode_message(&"second", &mut b).unwrap();
    assert_eq!(&a[..HEADER_LEN], b"QDF\x01\x00");
    assert_ne!(&b[..3], b"QDF");
    let mut dec = DecoderSession::new(Options::speed());
    assert_eq!(dec.decode_message::<String>(&a).unwrap(), "first");
    assert_eq!(dec.decode_message::<String>(&b).unwrap(), "second");
    let mut fresh = DecoderSession::new(Options::speed());
    assert_eq!(
        fresh.decode_message::<String>(&b).unwrap_err().classify(),
        Category::Syntax
    );
}

#[test]
fn oversize_messages_break_the_decoder() {
    let mut enc = EncoderSession::new(Options::speed());
    let mut m = Vec::new();
    enc.encode_message(&"0123456789", &mut m).unwrap();
    let mut dec = DecoderSession::new(Options::speed()).with_max_frame_length(3);
    let e = dec.decode_message::<String>(&m).unwrap_err();
    assert!(matches!(e.code(), ErrorCode::FrameTooLarge { max: 3, .. }));
    assert_eq!(dec.broken(), Some(Category::Limit));
}

#[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
struct Reading {
    sensor: String,
    celsius: f64,
}

fn reading(sensor: &str) -> Reading {
    Reading {
        sensor: sensor.into(),
        celsius: 1.5,
    }
}

/// The mirrored table sizes of `s` (not `heap_bytes`, which is each side's own, nor the
/// reference counters, checked on their own).
fn tables(s: SessionStats) -> SessionStats {
    SessionStats {
        heap_bytes: 0,
        hits: 0,
        misses: 0,
        ..s
    }
}

/// `stats()` reports the real table sizes: the first record declares one shape (its two
/// names are charged `len + 4` each and, written in the declaration, interned) and interns
/// its value; a repeat adds nothing; a new value adds one entry; a failed message is rolled
/// back; the decoder mirrors every step; a Speed session keeps no tables. `heap_bytes` is
/// each side's own: the encoder's exceeds the decoder's by its index and predictions.
#[test]
fn stats_report_the_dense_tables_on_both_sides() {
    let mut enc = EncoderSession::new(Options::balanced());
    let mut dec = DecoderSession::new(Options::balanced());
    assert_eq!(tables(enc.stats()), SessionStats::default());
    let mut wire = Vec::new();
    let mut frames = Vec::new();
    let mut encode = |enc: &mut EncoderSession, r: &Reading, wire: &mut Vec<u8>| {
        let at = wire.len();
        enc.encode_frame(r, wire).unwrap();
        frames.push(at..wire.len());
        tables(enc.stats())
    };
    let first = SessionStats {
        intern_entries: 3,
        intern_bytes: ("sensor".len() + "celsius".len() + "attic".len()) as u64,
        shapes: 1,
        col_shapes: 0,
        shape_bytes: ("sensor".len() + 4 + "celsius".len() + 4) as u64,
        ..SessionStats::default()
    };
    assert_eq!(encode(&mut enc, &reading("attic"), &mut wire), first);
    assert_eq!(encode(&mut enc, &reading("attic"), &mut wire), first);
    let third = SessionStats {
        intern_entries: 4,
        intern_bytes: first.intern_bytes + "cellar".len() as u64,
        ..first
    };
    assert_eq!(encode(&mut enc, &reading("cellar"), &mut wire), third);
    // A message that fails after interning a new string leaves the tables as they were.
    let err = enc
        .encode_frame(&("brand-new", Unserializable), &mut wire)
        .unwrap_err();
    assert_eq!(err.classify(), Category::Data);
    assert_eq!(tables(enc.stats()), third);

    assert_eq!(dec.stats(), SessionStats::default());
    for (range, want) in frames.iter().zip([first, first, third]) {
        let (r, n): (Reading, usize) = dec.decode_frame(&wire[range.clone()]).unwrap().unwrap();
        assert_eq!((n, r.celsius), (range.len(), 1.5));
        assert_eq!(tables(dec.stats()), want);
    }
    // One reference ("attic" again), four definitions, on both sides (the failed message's
    // are rolled back).
    let (e, d) = (enc.stats(), dec.stats());
    assert_eq!((e.hits, e.misses), (1, 4));
    assert_eq!((d.hits, d.misses), (1, 4));
    // The decoder keeps no content index, front cache or predictions.
    let (e, d) = (enc.stats().heap_bytes, dec.stats().heap_bytes);
    assert!(d > 0 && e > d + 1024, "{e} {d}");

    let mut fast = EncoderSession::new(Options::speed());
    fast.encode_frame(&reading("attic"), &mut Vec::new())
        .unwrap();
    assert_eq!(fast.stats(), SessionStats::default());
}

/// `decode_frame_status` is `frame_status` and `decode_frame` of the same buffer in one
/// call: the same status, the same values and errors, the frame consumed after a body error
/// (a stateless stream goes on after it; a Dense one is run without it, as it would break).
#[test]
fn decode_frame_status_is_status_then_frame() {
    for (opts, bad, expected) in [
        (Options::speed(), true, &[Some(1), None, Some(3)][..]),
        (Options::balanced(), false, &[Some(1), Some(3)][..]),
    ] {
        let (wire, first) = two_frames(opts, bad);
        let mut dec = DecoderSession::new(opts);
        let mut twin = DecoderSession::new(opts);
        // A cut first frame: the bytes `frame_status` asks for.
        let FrameStatus::Incomplete { needed } = twin.frame_status(&wire[..first - 1]).unwrap()
        else {
            panic!("complete");
        };
        assert_eq!(needed, 1);
        match dec.decode_frame_status::<u32>(&wire[..first - 1]).unwrap() {
            FrameDecode::Incomplete { needed } => assert_eq!(needed, 1),
            FrameDecode::Complete { len, .. } => panic!("complete at {len}"),
        }
        // The whole stream: each frame's length and value, a bad one an error it consumes.
        let mut at = 0;
        let mut seen = Vec::new();
        while at < wire.len() {
            let FrameStatus::Complete { len } = twin.frame_status(&wire[at..]).unwrap() else {
                panic!("incomplete at {at}");
            };
            let FrameDecode::Complete { len: got, value } =
                dec.decode_frame_status::<u32>(&wire[at..]).unwrap()
            else {
                panic!("incomplete at {at}");
            };
            assert_eq!(got, len);
            match (value, twin.decode_frame::<u32>(&wire[at..])) {
                (Ok(v), Ok(Some((w, n)))) => {
                    assert_eq!((v, len), (w, n));
                    seen.push(Some(v));
                }
                (Err(e), Err(f)) => {
                    assert_eq!(e.to_string(), f.to_string());
                    assert_eq!(e.classify(), Category::Data);
                    seen.push(None);
                }
                (v, w) => panic!("{v:?} against {w:?}"),
            }
            at += len;
        }
        assert_eq!(seen, expected);
        assert_eq!(dec.stats(), twin.stats());
        assert_eq!(dec.broken(), None);
    }
}
