//! The checks the fuzz targets run. Shared verbatim with the stable replay test
//! (`qdf-core/tests/it/fuzz_corpus.rs` includes this file), so the committed corpora run
//! through the same code on stable on every `cargo test`.
//!
//! Fuzz inputs are message *bodies*: the 5-byte header is prepended here so the fuzzer does
//! not spend its time rediscovering the magic.

use qdf_core::{Options, Value};
use serde::{Deserialize, Serialize};

#[path = "encode_checks.rs"]
pub mod encode_checks;
pub use encode_checks::encode_round_trip;
#[path = "nested_checks.rs"]
pub mod nested_checks;
pub use nested_checks::nested_round_trip;
#[path = "num_checks.rs"]
pub mod num_checks;
pub use num_checks::num_session;
#[path = "dict_checks.rs"]
pub mod dict_checks;
pub use dict_checks::dictionary_file;

/// Builds a message from a fuzz input.
pub fn message(body: &[u8]) -> Vec<u8> {
    let mut m = b"QDF\x01\x00".to_vec();
    m.extend_from_slice(body);
    m
}

/// Decodes into `Value` and `IgnoredAny`: never panics, both accept the same inputs, and
/// whatever decodes re-encodes (Speed) to bytes that decode to the same `Value` and are a
/// fixpoint (the Speed wire has one form per value; Dense input re-encodes to its Speed form).
pub fn decode_value(body: &[u8]) {
    let msg = message(body);
    let opts = Options::speed().max_output(1 << 20);
    let value = qdf_core::from_slice_with::<Value>(&msg, opts);
    let ignored = qdf_core::from_slice_with::<serde::de::IgnoredAny>(&msg, opts);
    assert_eq!(
        value.is_ok(),
        ignored.is_ok(),
        "Value and IgnoredAny disagree"
    );
    if let Ok(v) = value {
        let again = qdf_core::to_vec_with(&v, Options::speed()).expect("re-encode");
        let v2: Value = qdf_core::from_slice_with(&again, opts).expect("decode re-encoding");
        assert_eq!(v2, v, "decoded Value re-encodes differently");
        let fix = qdf_core::to_vec_with(&v2, Options::speed()).expect("re-encode");
        assert_eq!(fix, again, "the Speed form is not a fixpoint");
        let _ = v.to_string();
    }
}

/// A typed target with every kind of field, for the typed decode paths.
#[derive(Serialize, Deserialize, Debug, PartialEq)]
pub enum Shape {
    /// A unit variant.
    Empty,
    /// A newtype variant.
    Num(i64),
    /// A tuple variant.
    Pair(Option<u8>, String),
    /// A struct variant.
    Rec {
        /// Bytes.
        #[serde(with = "serde_bytes_compat")]
        data: Vec<u8>,
        /// Nested.
        inner: Option<Box<Shape>>,
    },
}

/// `Vec<u8>` as serde bytes, without a serde_bytes dependency.
mod serde_bytes_compat {
    use serde::{Deserializer, Serializer};
    pub fn serialize<S: Serializer>(v: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(v)
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        struct B;
        impl<'de> serde::de::Visitor<'de> for B {
            type Value = Vec<u8>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("bytes")
            }
            fn visit_bytes<E>(self, v: &[u8]) -> Result<Vec<u8>, E> {
                Ok(v.to_vec())
            }
        }
        d.deserialize_bytes(B)
    }
}

/// Decodes into `Value` and typed targets, then round-trips whatever decoded through every
/// tier: typed → bytes → typed and Value → bytes → Value must give back the same thing.
pub fn round_trip(body: &[u8]) {
    let msg = message(body);
    let opts = Options::speed().max_output(1 << 20);
    for tier in [
        Options::speed(),
        Options::balanced(),
        Options::compression(),
    ] {
        if let Ok(v) = qdf_core::from_slice_with::<Value>(&msg, opts) {
            let bytes = qdf_core::to_vec_with(&v, tier).expect("encode Value");
            let back: Value = qdf_core::from_slice_with(&bytes, tier).expect("decode Value");
            assert_eq!(back, v);
        }
        if let Ok(s) = qdf_core::from_slice_with::<Vec<Shape>>(&msg, opts) {
            let bytes = qdf_core::to_vec_with(&s, tier).expect("encode typed");
            let back: Vec<Shape> = qdf_core::from_slice_with(&bytes, tier).expect("decode typed");
            assert_eq!(back, s);
            let v: Value = qdf_core::from_slice_with(&bytes, tier).expect("typed bytes as Value");
            let again = qdf_core::to_vec_with(&v, tier).expect("re-encode");
            if tier.features.contains(qdf_core::Features::SHAPE_INTERN) {
                // Struct shapes (EC) read back as maps; `Value` writes maps.
                let v2: Value = qdf_core::from_slice_with(&again, tier).expect("decode");
                assert_eq!(v2, v);
            } else {
                assert_eq!(again, bytes);
            }
        }
    }
}

/// What one `decode_frame` or `next` call gave, compared across the two stream readers.
#[derive(Debug, PartialEq)]
enum Step {
    Value(Value),
    Failed(qdf_core::Category),
    End,
}

/// A whole stream, header included (so the fuzzer also flips the header flags), read frame by
/// frame by a `DecoderSession` into `Value`, then by a `StreamDecoder`: both give the same
/// values and errors, and the failure rules of `docs/SPEC.md` §16 hold — after an error the
/// session is either broken (every later call fails with `Broken`) or, only in a stream
/// without `FLAG_DENSE`, usable with the failed frame consumed at the length `frame_status`
/// reported. The typed target runs the same frames for the typed decode paths.
pub fn session_frames(data: &[u8]) {
    use qdf_core::{Category, DecoderSession, FrameStatus, StreamDecoder};
    let opts = Options::speed().max_output(1 << 20);
    let dense = data.len() > 4 && data[4] & 0x01 != 0;
    let mut steps = Vec::new();
    let mut dec = DecoderSession::new(opts);
    let mut rest = data;
    loop {
        let status = match dec.frame_status(rest) {
            Ok(s) => s,
            Err(e) => {
                // Framing errors cannot be resynchronised.
                assert!(dec.broken().is_some(), "usable after a framing error {e}");
                steps.push(Step::Failed(e.classify()));
                break;
            }
        };
        match dec.decode_frame::<Value>(rest) {
            Ok(Some((v, n))) => {
                assert_eq!(status, FrameStatus::Complete { len: n });
                rest = &rest[n..];
                steps.push(Step::Value(v));
            }
            Ok(None) => {
                assert!(matches!(status, FrameStatus::Incomplete { .. }));
                steps.push(match dec.check_end(rest) {
                    Ok(()) => Step::End,
                    Err(e) => Step::Failed(e.classify()),
                });
                break;
            }
            Err(e) => {
                steps.push(Step::Failed(e.classify()));
                if dec.broken().is_some() {
                    let again = dec.decode_frame::<Value>(rest).unwrap_err();
                    assert_eq!(again.classify(), Category::Broken, "usable after breaking");
                    break;
                }
                assert!(!dense, "a Dense session stayed usable after {e}");
                let FrameStatus::Complete { len } = status else {
                    panic!("a usable session failed on an incomplete frame: {e}");
                };
                rest = &rest[len..];
            }
        }
    }
    let mut sd = StreamDecoder::new(data, opts);
    // As many calls as the session made: an input cut inside a frame repeats its Eof.
    let again: Vec<Step> = (0..steps.len())
        .map(|_| match sd.next::<Value>() {
            Ok(Some(v)) => Step::Value(v),
            Ok(None) => Step::End,
            Err(e) => Step::Failed(e.classify()),
        })
        .collect();
    assert_eq!(again, steps, "StreamDecoder and DecoderSession disagree");
    let mut typed = DecoderSession::new(opts);
    let mut rest = data;
    while let Ok(Some((_, n))) = typed.decode_frame::<Vec<Shape>>(rest) {
        rest = &rest[n..];
    }
}

/// The tag walker (`qdf_core::inspect`) on `data` as a message body (the header prepended)
/// and as a whole stream: never panics, and accepts exactly what a `Value` decode and a
/// `DecoderSession` (stopping at its first error) accept, failing with the same error code
/// (for a message also at the same offset).
pub fn inspect(data: &[u8]) {
    use qdf_core::DecoderSession;
    use qdf_core::inspect;
    let opts = Options::default().max_output(1 << 20);
    let msg = message(data);
    // Also under a small depth limit (2..=5, from the input's length), where the levels a
    // columnar container presents its values at must be counted alike.
    let shallow = opts.max_depth(2 + (data.len() % 4) as u32);
    for opts in [opts, shallow] {
        let mut events = 0u64;
        let walked = inspect::message(&msg, &opts, &mut |_| events += 1);
        let decoded = qdf_core::from_slice_with::<Value>(&msg, opts);
        match (&walked, &decoded) {
            (Ok(()), Ok(_)) => assert!(events >= 2, "a header and a value"),
            (Err(w), Err(d)) => {
                assert_eq!(w.error.code(), d.code(), "inspect and Value disagree");
                assert_eq!(w.error.offset(), d.offset(), "inspect and Value disagree");
            }
            _ => panic!("inspect {walked:?}, Value decode {decoded:?}"),
        }
    }
    let walked = inspect::stream(data, &opts, 1 << 16, &mut |_| {});
    let mut dec = DecoderSession::new(opts).with_max_frame_length(1 << 16);
    let (mut rest, mut frames) = (data, 0u64);
    let decoded = loop {
        match dec.decode_frame::<Value>(rest) {
            Ok(Some((_, n))) => {
                rest = &rest[n..];
                frames += 1;
            }
            Ok(None) => break dec.check_end(rest).map(|()| frames),
            Err(e) => break Err(e),
        }
    };
    match (&walked, &decoded) {
        (Ok(s), Ok(n)) => assert_eq!(s.frames, *n),
        (Err(w), Err(d)) => assert_eq!(w.error.code(), d.code(), "inspect and session disagree"),
        _ => panic!("inspect {walked:?}, session {decoded:?}"),
    }
}

/// A Dense session with small caps driven by the input, so it renews often (`docs/SPEC.md`
/// §18): each input byte is one step — a message of strings (hot ones from a small pool,
/// warm ones from a larger one, unique ones), an explicit renewal, or a message whose
/// `Serialize` fails half-way (rolled back, its renewal kept due). Frames and messages
/// alternate by the first byte. Every message that encodes decodes to itself, and after
/// every one the decoder's mirrored tables (entries, bytes, shapes, renewals, evictions,
/// references) equal the encoder's, within the caps.
pub fn renewing_session(data: &[u8]) {
    use qdf_core::{DecoderSession, EncoderSession};
    use serde::ser::{Error as _, SerializeSeq};

    struct Msg<'a>(&'a [String], Option<usize>);
    impl Serialize for Msg<'_> {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut seq = s.serialize_seq(Some(self.0.len()))?;
            for (i, w) in self.0.iter().enumerate() {
                if self.1 == Some(i) {
                    return Err(S::Error::custom("refused half-way"));
                }
                seq.serialize_element(w)?;
            }
            seq.end()
        }
    }

    let Some((&mode, steps)) = data.split_first() else {
        return;
    };
    let entries = 8 + u32::from(mode >> 4) * 4;
    let opts = Options::balanced()
        .max_intern_entries(entries)
        .max_intern_bytes(1024)
        .max_shapes(4);
    let frames = mode & 1 == 0;
    let mut enc = EncoderSession::new(opts).with_checksum(mode & 2 != 0);
    let mut dec = DecoderSession::new(opts);
    let mut wire = Vec::new();
    let mut unique = 0u32;
    for (i, &b) in steps.iter().enumerate() {
        if b == 0xFF {
            enc.renew();
            continue;
        }
        let words: Vec<String> = (0..(b & 15))
            .map(|k| {
                let x = b.wrapping_mul(k + 1) ^ (i as u8);
                match x % 4 {
                    0 | 1 => format!("hot-{}", x % 5),
                    2 => format!("warm-{:03}", x.wrapping_add(b >> 4)),
                    _ => {
                        unique += 1;
                        format!("unique-{unique:06}")
                    }
                }
            })
            .collect();
        let fail = (b & 0xF0 == 0xE0 && !words.is_empty()).then_some(words.len() / 2);
        wire.clear();
        let r = if frames {
            enc.encode_frame(&Msg(&words, fail), &mut wire)
        } else {
            enc.encode_message(&Msg(&words, fail), &mut wire)
        };
        if fail.is_some() {
            assert!(r.is_err(), "a failing Serialize was accepted");
            assert!(wire.is_empty(), "a refused message wrote bytes");
            continue;
        }
        r.expect("strings within the caps encode");
        let back: Vec<String> = if frames {
            let (v, n) = dec
                .decode_frame(&wire)
                .expect("decodes")
                .expect("a whole frame");
            assert_eq!(n, wire.len());
            v
        } else {
            dec.decode_message(&wire).expect("decodes")
        };
        assert_eq!(back, words);
        let (e, d) = (enc.stats(), dec.stats());
        let mirrored = |s: qdf_core::SessionStats| {
            (
                s.intern_entries,
                s.intern_bytes,
                s.shapes,
                s.renewals,
                s.evictions,
                s.hits,
            )
        };
        assert_eq!(mirrored(e), mirrored(d), "step {i}");
        assert!(e.intern_entries <= entries && e.intern_bytes <= 1024);
    }
}
