//! Per-field strings in streams (`docs/SPEC.md` §15.3), end to end through
//! `EncoderSession` / `DecoderSession`: golden bytes of the encoder's choices, the walker
//! against the decoder, mirrored state under random streams with failed messages,
//! renewals, subset decodes, non-ASCII text and the live bound.

use crate::common::unhex;
use proptest::prelude::*;
use qdf_core::{DecoderSession, EncoderSession, Features, Options, Value};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize, Serializer};

/// Balanced with per-field strings.
fn texts() -> Options {
    Options::balanced().features(Features::BALANCED | Features::STR_STATE)
}

/// Balanced without them.
fn plain() -> Options {
    Options::balanced().features(Features::BALANCED.without(Features::STR_STATE))
}

fn stream<T: Serialize>(opts: Options, records: &[T]) -> Vec<u8> {
    let mut enc = EncoderSession::new(opts);
    let mut wire = Vec::new();
    for r in records {
        enc.encode_frame(r, &mut wire).unwrap();
    }
    wire
}

fn decode_all<T: DeserializeOwned>(wire: &[u8]) -> Vec<T> {
    let mut dec = DecoderSession::new(Options::default());
    let mut rest = wire;
    let mut out = Vec::new();
    while let Some((v, n)) = dec.decode_frame::<T>(rest).unwrap() {
        out.push(v);
        rest = &rest[n..];
    }
    assert!(rest.is_empty());
    out
}

/// The frames of `wire` as `Value` texts through `inspect::stream` agreeing with a
/// `DecoderSession`: the same frames, and the same error (code and offset) if any.
fn walker_agrees(wire: &[u8]) {
    let mut dec = DecoderSession::new(Options::default());
    let mut rest = wire;
    let mut frames = 0u64;
    let dec_err = loop {
        match dec.decode_frame::<Value>(rest) {
            Ok(Some((_, n))) => {
                rest = &rest[n..];
                frames += 1;
            }
            Ok(None) => break dec.check_end(rest).err(),
            Err(e) => break Some(e),
        }
    };
    let walked = qdf_core::inspect::stream(wire, &Options::default(), 8 << 20, &mut |_| {});
    match (dec_err, walked) {
        (None, Ok(s)) => assert_eq!(s.frames, frames),
        (Some(d), Err(w)) => {
            assert_eq!(d.code(), w.error.code(), "{d} vs {}", w.error);
            assert_eq!(d.offset(), w.error.offset(), "{d} vs {}", w.error);
        }
        (d, w) => panic!("decoder {d:?}, walker {:?}", w.map(|s| s.frames)),
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Quake {
    id: String,
    mag: f64,
    url: String,
    detail: String,
}

fn quake(i: u32) -> Quake {
    let id = format!("us7000{:04x}", 0x1a2b + i * 7);
    Quake {
        url: format!("https://earthquake.usgs.gov/earthquakes/eventpage/{id}"),
        detail: format!("https://earthquake.usgs.gov/earthquakes/feed/v1.0/detail/{id}.geojson"),
        id,
        mag: 1.5 + (i % 10) as f64 / 10.0,
    }
}

#[test]
fn usgs_like_records_round_trip_and_shrink() {
    let recs: Vec<Quake> = (0..300).map(quake).collect();
    let with = stream(texts(), &recs);
    let without = stream(plain(), &recs);
    assert_eq!(with[4], 0x43, "header flags 01 | 02 | 40");
    assert_eq!(without[4], 0x03);
    assert_eq!(decode_all::<Quake>(&with), recs);
    assert_eq!(decode_all::<Quake>(&without), recs);
    walker_agrees(&with);
    assert!(
        with.len() < without.len(),
        "{} vs {}",
        with.len(),
        without.len()
    );
    eprintln!("with {} without {}", with.len(), without.len());
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct U {
    u: String,
}

fn us(texts: &[&str]) -> Vec<U> {
    texts.iter().map(|t| U { u: t.to_string() }).collect()
}

/// The encoder's choices: the declaration gives no text, the first reuse defines its
/// string (the slot was empty), a new string sharing 14 bytes goes out as the prefix form
/// instead of a definition, a string the table holds stays a reference.
#[test]
fn golden_encoder_choices() {
    let recs = us(&[
        "https://x.io/a1",
        "https://x.io/a2",
        "https://x.io/a3",
        "https://x.io/a2",
        "https://x.io/a4",
    ]);
    let wire = stream(texts(), &recs);
    let want = unhex(
        "51 44 46 01 43 \
         16 ec 00 01 81 75 e0 0f 68 74 74 70 73 3a 2f 2f 78 2e 69 6f 2f 61 31 \
         13 ec 01 e0 0f 68 74 74 70 73 3a 2f 2f 78 2e 69 6f 2f 61 32 \
         07 ec 01 f2 0d 0e 81 33 \
         04 ec 01 e1 01 \
         07 ec 01 f2 0d 0e 81 34",
    );
    assert_eq!(wire, want, "{wire:02x?}");
    assert_eq!(decode_all::<U>(&wire), recs);
    walker_agrees(&wire);
    // Without the feature: flags 03 and a definition per new string.
    let old = stream(plain(), &recs);
    assert_eq!(old[4], 0x03);
    assert_eq!(old.len(), want.len() + 2 * (18 - 6));
}

/// A reference leaves the slot's text (`docs/SPEC.md` §15.3): after `".../b1"` is defined
/// (the text) and `".../a1"` comes back as a reference, the next new string keeps 14 bytes
/// of `".../b1"`, not 13 of `".../a1"`.
#[test]
fn golden_reference_leaves_the_text() {
    let recs = us(&[
        "https://x.io/a1",
        "https://x.io/b1",
        "https://x.io/a1",
        "https://x.io/b2",
    ]);
    let wire = stream(texts(), &recs);
    let want = unhex(
        "51 44 46 01 43 \
         16 ec 00 01 81 75 e0 0f 68 74 74 70 73 3a 2f 2f 78 2e 69 6f 2f 61 31 \
         13 ec 01 e0 0f 68 74 74 70 73 3a 2f 2f 78 2e 69 6f 2f 62 31 \
         04 ec 01 e1 00 \
         07 ec 01 f2 0d 0e 81 32",
    );
    assert_eq!(wire, want, "{wire:02x?}");
    assert_eq!(decode_all::<U>(&wire), recs);
    walker_agrees(&wire);
}

/// A string the Dense rules write inline (interning off) is written as the prefix form when
/// that is strictly shorter (the whole text again: an empty suffix), a tie keeps it inline,
/// and a non-ASCII text is cut at a character boundary: "café" and "cafè" share "caf" and
/// the first byte of "é"/"è", cut back to "caf" (3 bytes), whose form (2 + 1 + 8) ties the
/// inline string (11).
#[test]
fn golden_inline_and_char_boundary() {
    let opts = texts().min_intern(200);
    let recs = us(&[
        "café-0001",
        "café-0001",
        "café-0001",
        "café-0002",
        "cafè-0003",
        "ab",
        "ac",
    ]);
    let wire = stream(opts, &recs);
    let want = unhex(
        "51 44 46 01 43 \
         10 ec 00 01 81 75 8a 63 61 66 c3 a9 2d 30 30 30 31 \
         0d ec 01 8a 63 61 66 c3 a9 2d 30 30 30 31 \
         06 ec 01 f2 0d 0a 80 \
         07 ec 01 f2 0d 09 81 32 \
         0d ec 01 8a 63 61 66 c3 a8 2d 30 30 30 33 \
         05 ec 01 82 61 62 \
         05 ec 01 82 61 63",
    );
    assert_eq!(wire, want, "{wire:02x?}");
    assert_eq!(decode_all::<U>(&wire), recs);
    walker_agrees(&wire);
}

/// Hex text (§9) in a text slot: `F2 0B` gives the slot the string's own bytes (its digits),
/// as an inline string does, so a string extending it is a prefix form of 32 kept bytes;
/// `F2 0C` makes its entry the slot's text, as `E0` does, in a later frame (the session
/// table's copy) and within its own body (the decoder prints the entry's digits).
#[test]
fn golden_hex_text_in_slots() {
    let hex = "00112233445566778899aabbccddeeff";
    let packed = "20 00 11 22 33 44 55 66 77 88 99 aa bb cc dd ee ff";
    let longer = format!("{hex}-x");
    // Inline hex (interning off): F2 0B, then the prefix form against its digits.
    let recs = us(&[hex, hex, &longer]);
    let wire = stream(texts().min_intern(200), &recs);
    let want = unhex(&format!(
        "51 44 46 01 43 \
         18 ec 00 01 81 75 f2 0b {packed} \
         15 ec 01 f2 0b {packed} \
         08 ec 01 f2 0d 20 82 2d 78"
    ));
    assert_eq!(wire, want, "{wire:02x?}");
    assert_eq!(decode_all::<U>(&wire), recs);
    walker_agrees(&wire);

    // Definitions: F2 0C, a new one in the next frame, then the prefix form against it.
    let other = "00112233445566778899aabbccddeef0";
    let recs = us(&[hex, other, &format!("{other}-x")]);
    let wire = stream(texts(), &recs);
    let want = unhex(&format!(
        "51 44 46 01 43 \
         18 ec 00 01 81 75 f2 0c {packed} \
         15 ec 01 f2 0c 20 00 11 22 33 44 55 66 77 88 99 aa bb cc dd ee f0 \
         08 ec 01 f2 0d 20 82 2d 78"
    ));
    assert_eq!(wire, want, "{wire:02x?}");
    assert_eq!(decode_all::<U>(&wire), recs);
    walker_agrees(&wire);

    // All in one message: the entry the prefix form reads was defined in the same body.
    let mut enc = EncoderSession::new(texts());
    let mut msg = Vec::new();
    enc.encode_message(&recs, &mut msg).unwrap();
    assert_eq!(
        msg,
        unhex(&format!(
            "51 44 46 01 43 a3 ec 00 01 81 75 f2 0c {packed} \
             ec 01 f2 0c 20 00 11 22 33 44 55 66 77 88 99 aa bb cc dd ee f0 \
             ec 01 f2 0d 20 82 2d 78"
        )),
        "{msg:02x?}"
    );
    assert_eq!(qdf_core::from_slice::<Vec<U>>(&msg).unwrap(), recs);
    let mut dec = DecoderSession::new(Options::default());
    assert_eq!(dec.decode_message::<Vec<U>>(&msg).unwrap(), recs);
    let mut kept = Vec::new();
    qdf_core::inspect::message(&msg, &Options::default(), &mut |e| {
        if let qdf_core::inspect::EventKind::Text {
            intern: qdf_core::inspect::Intern::Prefix { kept: k },
            bytes,
            ..
        } = e.kind
        {
            kept.push((k, bytes.to_vec()));
        }
    })
    .unwrap();
    assert_eq!(kept, [(32, b"-x".to_vec())]);
}

#[test]
fn single_messages_are_unchanged() {
    let recs: Vec<Quake> = (0..40).map(quake).collect();
    assert_eq!(
        qdf_core::to_vec_with(&recs, texts()).unwrap(),
        qdf_core::to_vec_with(&recs, plain()).unwrap()
    );
}

/// A session's first message (a unary gRPC message) has flag 40 and predicts strings from
/// earlier structs of the same message: `from_slice` and `inspect::message` read it.
#[test]
fn a_first_session_message_is_a_single_message() {
    let recs: Vec<U> = (1..=4)
        .map(|i| U {
            u: format!("https://x.io/item/{i}"),
        })
        .collect();
    let mut enc = EncoderSession::new(texts());
    let mut msg = Vec::new();
    enc.encode_message(&recs, &mut msg).unwrap();
    assert_eq!(msg[4], 0x43);
    assert!(msg.windows(2).any(|w| w == [0xf2, 0x0d]), "{msg:02x?}");
    assert_eq!(qdf_core::from_slice::<Vec<U>>(&msg).unwrap(), recs);
    let mut dec = DecoderSession::new(Options::default());
    assert_eq!(dec.decode_message::<Vec<U>>(&msg).unwrap(), recs);
    let mut prefixes = 0;
    qdf_core::inspect::message(&msg, &Options::default(), &mut |e| {
        if let qdf_core::inspect::EventKind::Text {
            intern: qdf_core::inspect::Intern::Prefix { kept },
            bytes,
            ..
        } = e.kind
        {
            assert_eq!((kept, bytes.len()), (18, 1));
            prefixes += 1;
        }
    })
    .unwrap();
    assert_eq!(prefixes, 2);
}

/// Every §15.3 vector: the walker agrees with the decoder (verdict and offset).
#[test]
fn walker_agrees_on_the_spec_vectors() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../spec/vectors/spec.txt"
    ))
    .unwrap();
    let mut n = 0;
    for rec in text
        .split("\n\n")
        .filter(|r| r.contains("source: SPEC §15.3"))
    {
        let hex = rec
            .lines()
            .find_map(|l| l.strip_prefix("hex: "))
            .expect("hex");
        let wire = unhex(hex);
        if rec.contains("kind: stream") {
            walker_agrees(&wire);
        } else {
            let d = qdf_core::from_slice::<Value>(&wire).err();
            let w = qdf_core::inspect::message(&wire, &Options::default(), &mut |_| {}).err();
            assert_eq!(
                d.as_ref().map(|e| (e.code().clone(), e.offset())),
                w.as_ref()
                    .map(|e| (e.error.code().clone(), e.error.offset()))
            );
        }
        n += 1;
    }
    assert_eq!(n, 13);
}

/// Targets of a prefix form: owned strings, `Option`, newtypes, unit variants, `Cow`
/// (owned), and a borrowed `&str`, which is a Data error.
#[test]
fn prefix_form_targets() {
    #[derive(Debug, PartialEq, Deserialize)]
    struct Name(String);
    #[derive(Debug, PartialEq, Deserialize)]
    enum E {
        #[serde(rename = "https://x.io/a3")]
        A3,
    }
    #[derive(Deserialize)]
    struct Opt {
        u: Option<Name>,
    }
    #[derive(Deserialize)]
    struct En {
        u: E,
    }
    #[derive(Deserialize)]
    struct Cowed<'a> {
        #[serde(borrow)]
        u: std::borrow::Cow<'a, str>,
    }
    #[derive(Debug, Deserialize)]
    struct Borrowed<'a> {
        #[allow(dead_code)]
        u: &'a str,
    }
    let recs = us(&["https://x.io/a1", "https://x.io/a2", "https://x.io/a3"]);
    let wire = stream(texts(), &recs);
    fn last<T: DeserializeOwned>(wire: &[u8]) -> T {
        let mut dec = DecoderSession::new(Options::default());
        let mut rest = wire;
        for _ in 0..2 {
            let (_, n) = dec.decode_frame::<Value>(rest).unwrap().unwrap();
            rest = &rest[n..];
        }
        assert_eq!(rest[1..5], [0xec, 0x01, 0xf2, 0x0d]);
        dec.decode_frame::<T>(rest).unwrap().unwrap().0
    }
    assert_eq!(last::<Opt>(&wire).u, Some(Name("https://x.io/a3".into())));
    assert_eq!(last::<En>(&wire).u, E::A3);
    // One message holding the three records: borrowing targets.
    let mut enc = EncoderSession::new(texts());
    let mut msg = Vec::new();
    enc.encode_message(&recs, &mut msg).unwrap();
    let cow: Vec<Cowed> = qdf_core::from_slice(&msg).unwrap();
    assert!(matches!(&cow[2].u, std::borrow::Cow::Owned(s) if s == "https://x.io/a3"));
    let e = qdf_core::from_slice::<Vec<Borrowed>>(&msg).unwrap_err();
    assert_eq!(e.classify(), qdf_core::Category::Data, "{e}");
}

/// `Rec`, or `Rec` with a field whose serialization fails after the strings were written.
#[derive(Clone, Debug)]
struct Maybe {
    rec: Rec,
    fail: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Rec {
    a: String,
    b: Option<String>,
    #[serde(with = "serde_bytes")]
    c: Vec<u8>,
    d: String,
    n: u32,
}

/// A reader that skips `a` and `d`: their texts must still follow.
#[derive(Clone, Debug, PartialEq, Deserialize)]
struct Few {
    b: Option<String>,
    n: u32,
}

impl Serialize for Maybe {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error, SerializeStruct};
        let r = &self.rec;
        let mut st = s.serialize_struct("Rec", 5)?;
        st.serialize_field("a", &r.a)?;
        st.serialize_field("b", &r.b)?;
        st.serialize_field("c", serde_bytes::Bytes::new(&r.c))?;
        st.serialize_field("d", &r.d)?;
        if self.fail {
            return Err(S::Error::custom("refused"));
        }
        st.serialize_field("n", &r.n)?;
        st.end()
    }
}

/// Strings that share prefixes: a few stems, ASCII and not, and suffixes; sometimes long
/// (around the live bound when several slots hold them).
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => (
            prop::sample::select(vec!["https://x.io/", "café/é", "€€", "", "日本語/"]),
            "[a-c0-9é]{0,6}"
        )
            .prop_map(|(a, b)| format!("{a}{b}")),
        1 => (20_000usize..34_000, "[a-b]{0,3}").prop_map(|(n, s)| format!("{}{s}", "x".repeat(n))),
        1 => "[a-z]{0,40}",
        // Hex text (§9) and strings that extend it: F2 0B/F2 0C update the slot's text.
        1 => (
            prop::sample::select(vec!["00112233445566778899aabbccddeeff", "DEADBEEF00C0FFEE"]),
            "[0-9a-fA-F]{0,4}",
            prop::sample::select(vec!["", "-x"]),
        )
            .prop_map(|(a, b, c)| format!("{a}{b}{c}")),
    ]
}

fn rec() -> impl Strategy<Value = Rec> {
    (
        text(),
        proptest::option::of(text()),
        proptest::collection::vec(any::<u8>(), 0..6),
        text(),
        any::<u32>(),
    )
        .prop_map(|(a, b, c, d, n)| Rec { a, b, c, d, n })
}

#[derive(Clone, Debug)]
enum Step {
    Send(Rec),
    Fail(Rec),
    Subset(Rec),
    Renew,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        6 => rec().prop_map(Step::Send),
        1 => rec().prop_map(Step::Fail),
        2 => rec().prop_map(Step::Subset),
        1 => Just(Step::Renew),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(120))]

    #[test]
    fn random_streams_mirror(steps in proptest::collection::vec(step(), 1..20)) {
        let mut enc = EncoderSession::new(texts());
        let mut dec = DecoderSession::new(Options::default());
        let mut wire = Vec::new();
        for s in &steps {
            let start = wire.len();
            match s {
                Step::Renew => {
                    enc.renew();
                    continue;
                }
                Step::Fail(r) => {
                    let m = Maybe { rec: r.clone(), fail: true };
                    prop_assert!(enc.encode_frame(&m, &mut wire).is_err());
                    prop_assert_eq!(wire.len(), start);
                    continue;
                }
                Step::Send(r) | Step::Subset(r) => {
                    let m = Maybe { rec: r.clone(), fail: false };
                    enc.encode_frame(&m, &mut wire).unwrap();
                }
            }
            match s {
                Step::Subset(r) => {
                    let (got, n) = dec.decode_frame::<Few>(&wire[start..]).unwrap().unwrap();
                    prop_assert_eq!(n, wire.len() - start);
                    prop_assert_eq!(&got.b, &r.b);
                    prop_assert_eq!(got.n, r.n);
                }
                Step::Send(r) => {
                    let (got, n) = dec.decode_frame::<Rec>(&wire[start..]).unwrap().unwrap();
                    prop_assert_eq!(n, wire.len() - start);
                    prop_assert_eq!(&got, r);
                }
                _ => unreachable!(),
            }
        }
        walker_agrees(&wire);
    }

    #[test]
    fn corrupt_frames_agree_and_never_panic(
        recs in proptest::collection::vec(rec(), 2..6),
        at in any::<prop::sample::Index>(),
        flip in 1u8..=255,
    ) {
        let sent: Vec<Maybe> = recs.iter().map(|r| Maybe { rec: r.clone(), fail: false }).collect();
        let mut wire = stream(texts(), &sent);
        let i = at.index(wire.len());
        wire[i] ^= flip;
        walker_agrees(&wire);
    }
}

/// Body lengths of the frames of `wire` (no checksums).
fn frame_lens(wire: &[u8]) -> Vec<usize> {
    let mut rest = &wire[5..];
    let mut out = Vec::new();
    while !rest.is_empty() {
        let (mut len, mut shift, mut i) = (0usize, 0, 0);
        loop {
            let b = rest[i];
            len |= ((b & 0x7f) as usize) << shift;
            shift += 7;
            i += 1;
            if b < 0x80 {
                break;
            }
        }
        out.push(len);
        rest = &rest[i + len..];
    }
    out
}

/// Own-bytes texts hold at most 65 536 bytes together, on both sides alike: with two
/// fields of 40 001-byte strings, `a`'s prefix form keeps its bytes, `b`'s would pass the
/// bound and leaves its slot empty, so `b`'s next string is a definition again.
#[test]
fn live_bound_mirrors() {
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    struct Two {
        a: String,
        b: String,
    }
    let big = |c: &str, i: u32| format!("{}{i}", c.repeat(40_000));
    let recs: Vec<Two> = (0..6)
        .map(|i| Two {
            a: big("a", i),
            b: big("b", i),
        })
        .collect();
    let wire = stream(texts(), &recs);
    assert_eq!(decode_all::<Two>(&wire), recs);
    walker_agrees(&wire);
    let lens = frame_lens(&wire);
    // Declaration and first reuse define both; then `a` is a 7-byte form every time, and
    // `b` alternates between a form (its text then emptied) and a definition (`E0`, a
    // 3-byte length, 40 001 bytes).
    assert_eq!(
        lens[2..],
        [2 + 7 + 7, 2 + 7 + 40_005, 2 + 7 + 7, 2 + 7 + 40_005]
    );
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct TwoFirsts {
    #[serde(skip_serializing_if = "Option::is_none", default)]
    a: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    b: Option<String>,
    c: u8,
}

/// A record whose first field is not its predicted shape's restarts onto another shape
/// (§15); its first value is a slotted string like any other, so both sides learn it as
/// that slot's text, and a later prefix form keeps the right bytes.
#[test]
fn a_restarted_reuse_gives_its_first_value_a_text() {
    let r = |a: Option<&str>, b: Option<&str>| TwoFirsts {
        a: a.map(Into::into),
        b: b.map(Into::into),
        c: 1,
    };
    let records = vec![
        r(Some("AAAAAAAAAAAAAAAA-1"), None),
        r(Some("AAAAAAAAAAAAAAAA-0"), None),
        r(None, Some("x")),
        r(None, Some("y")),
        r(Some("BBBBBBBBBBBBBBBB-1"), None),
        r(Some("AAAAAAAAAAAAAAAA-2"), None),
    ];
    let wire = stream(texts(), &records);
    assert_eq!(decode_all::<TwoFirsts>(&wire), records);
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct OneText {
    s: String,
}

/// A text slot's offset belongs to its message: the last message ended inside the value of
/// slot `s` (a reference, which leaves the slot pending), and the next one writes a string
/// that is no slot's value at that same offset of its own buffer. It must not become a
/// prefix form of `s`'s text, which the decoder would refuse outside a slot.
#[test]
fn a_slot_of_the_last_message_is_not_the_next_ones() {
    let mut enc = EncoderSession::new(texts());
    let mut frames: Vec<Vec<u8>> = Vec::new();
    let one = OneText {
        s: "abcdefghijklmnop-1".into(),
    };
    for _ in 0..4 {
        let mut out = Vec::new();
        enc.encode_frame(&one, &mut out).unwrap();
        frames.push(out);
    }
    // The last frame is `len EC id E8`: the slot's value at offset 3, a reference (the
    // repeat of `lastID`).
    let last = frames.last().unwrap();
    assert_eq!(last, &[3, 0xEC, 1, 0xE8]);
    let other = (0u8, "abcdefghijklmnop-2".to_string());
    let mut out = Vec::new();
    enc.encode_frame(&other, &mut out).unwrap();
    // `len A2 00` then the string at offset 3, written whole (no `F2 0D`).
    assert_eq!(&out[..3], &[out.len() as u8 - 1, 0xA2, 0x00], "{out:02x?}");
    assert_ne!(out[3], 0xF2, "{out:02x?}");
    frames.push(out);
    let wire = frames.concat();
    let mut dec = DecoderSession::new(Options::default());
    let mut rest = &wire[..];
    for _ in 0..4 {
        let (v, n) = dec.decode_frame::<OneText>(rest).unwrap().unwrap();
        assert_eq!(v, one);
        rest = &rest[n..];
    }
    let (v, n) = dec.decode_frame::<(u8, String)>(rest).unwrap().unwrap();
    assert_eq!(v, other);
    assert_eq!(n, rest.len());
    walker_agrees(&wire);
}
