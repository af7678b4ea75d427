//! Session renewal (`docs/SPEC.md` §18): the decoder's mirror equals the encoder's state after
//! every frame while renewals happen often, combined with failed messages (encoder rollback)
//! and corrupt frames (`Broken`).

use proptest::prelude::*;
use serde::ser::Error as _;

use super::*;
use crate::wire::header::HEADER_LEN;

/// The mirrored state of each side's Dense state (a decoder that has seen no Dense tag yet
/// holds the empty state).
fn digests(enc: &EncoderSession, dec: &DecoderSession) -> (u64, u64) {
    let empty = || DenseState::new_decoder(dec.options(), true).mirrored_digest();
    (
        enc.dense
            .as_deref()
            .map_or_else(empty, DenseState::mirrored_digest),
        dec.dense
            .as_deref()
            .map_or_else(empty, DenseState::mirrored_digest),
    )
}

/// A message of strings drawn from a small hot vocabulary and an endless stream of unique
/// values, and a flag that makes its `Serialize` fail half-way.
#[derive(Clone, Debug)]
struct Msg {
    words: Vec<String>,
    fail_at: Option<usize>,
}

impl Serialize for Msg {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = s.serialize_seq(Some(self.words.len()))?;
        for (i, w) in self.words.iter().enumerate() {
            if self.fail_at == Some(i) {
                return Err(S::Error::custom("refused half-way"));
            }
            seq.serialize_element(w)?;
        }
        seq.end()
    }
}

fn word() -> impl Strategy<Value = String> {
    prop_oneof![
        (0u32..24).prop_map(|i| format!("hot-{i}")),
        (0u32..4000).prop_map(|i| format!("warm-value-{i:05}")),
        "[a-f0-9]{4,40}",
        "[a-z]{0,3}",
    ]
}

fn msg() -> impl Strategy<Value = Msg> {
    (
        prop::collection::vec(word(), 0..24),
        prop::option::weighted(0.1, 0usize..24),
    )
        .prop_map(|(words, fail_at)| Msg { words, fail_at })
}

/// Small caps: the policy renews every few frames (near the caps, or after learning).
fn small_caps() -> Options {
    Options::balanced()
        .max_intern_entries(48)
        .max_intern_bytes(2048)
        .max_shapes(8)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn mirror_holds_after_every_frame_under_renewal(
        msgs in prop::collection::vec(msg(), 1..120),
        explicit in prop::collection::vec(any::<bool>(), 120),
        message_mode in any::<bool>(),
    ) {
        let opts = small_caps();
        let mut enc = EncoderSession::new(opts);
        let mut dec = DecoderSession::new(opts);
        let mut wire = Vec::new();
        for (i, m) in msgs.iter().enumerate() {
            if explicit[i] && i % 7 == 3 {
                enc.renew();
            }
            wire.clear();
            let r = if message_mode {
                enc.encode_message(m, &mut wire)
            } else {
                enc.encode_frame(m, &mut wire)
            };
            if m.fail_at.is_some_and(|k| k < m.words.len()) {
                // Rolled back: nothing written (a renewal decided for it stays due).
                prop_assert!(r.is_err());
                prop_assert!(wire.is_empty());
                continue;
            }
            r.unwrap();
            let back: Vec<String> = if message_mode {
                dec.decode_message(&wire).unwrap()
            } else {
                let (v, n) = dec.decode_frame(&wire).unwrap().unwrap();
                prop_assert_eq!(n, wire.len());
                v
            };
            prop_assert_eq!(&back, &m.words);
            let (e, d) = digests(&enc, &dec);
            prop_assert_eq!(e, d, "frame {}", i);
            let (es, ds) = (enc.stats(), dec.stats());
            prop_assert_eq!(
                (es.intern_entries, es.intern_bytes, es.shapes, es.renewals, es.evictions, es.hits),
                (ds.intern_entries, ds.intern_bytes, ds.shapes, ds.renewals, ds.evictions, ds.hits)
            );
            prop_assert!(es.intern_entries <= 48 && es.intern_bytes <= 2048);
        }
    }
}

fn strings(prefix: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{prefix}-{i:04}")).collect()
}

#[test]
fn renewal_is_two_bytes_and_empties_both_sides() {
    let mut enc = EncoderSession::new(Options::balanced());
    let mut dec = DecoderSession::new(Options::balanced());
    let mut wire = Vec::new();
    enc.encode_frame(&strings("a", 3), &mut wire).unwrap();
    let first = wire.len();
    enc.renew();
    enc.encode_frame(&strings("a", 3), &mut wire).unwrap();
    // Same body, after `FF 01`: the values are defined again from id 0.
    assert_eq!(wire[first + 1..first + 3], [0xFF, 0x01]);
    assert_eq!(wire[first + 3..], wire[HEADER_LEN + 1..first]);
    let (a, n): (Vec<String>, usize) = dec.decode_frame(&wire).unwrap().unwrap();
    let (b, m): (Vec<String>, usize) = dec.decode_frame(&wire[n..]).unwrap().unwrap();
    assert_eq!(
        (a, b, n + m),
        (strings("a", 3), strings("a", 3), wire.len())
    );
    let (e, d) = (enc.stats(), dec.stats());
    assert_eq!((e.renewals, e.evictions, e.intern_entries), (1, 3, 3));
    assert_eq!((d.renewals, d.evictions, d.intern_entries), (1, 3, 3));
    assert_eq!(digests(&enc, &dec).0, digests(&enc, &dec).1);
}

#[test]
fn a_failed_frame_keeps_the_renewal_due() {
    let mut enc = EncoderSession::new(Options::balanced());
    let mut dec = DecoderSession::new(Options::balanced());
    let mut wire = Vec::new();
    enc.encode_frame(&strings("a", 3), &mut wire).unwrap();
    enc.renew();
    let bad = Msg {
        words: strings("b", 3),
        fail_at: Some(2),
    };
    let mark = wire.len();
    assert!(enc.encode_frame(&bad, &mut wire).is_err());
    assert_eq!(wire.len(), mark);
    assert_eq!(enc.stats().renewals, 0);
    // The next frame carries the renewal (generation 1), the peer never saw the failed one.
    enc.encode_frame(&strings("a", 2), &mut wire).unwrap();
    assert_eq!(wire[mark + 1..mark + 3], [0xFF, 0x01]);
    let (_, n): (Vec<String>, usize) = dec.decode_frame(&wire).unwrap().unwrap();
    let (b, _): (Vec<String>, usize) = dec.decode_frame(&wire[n..]).unwrap().unwrap();
    assert_eq!(b, strings("a", 2));
    assert_eq!(enc.stats().renewals, 1);
    assert_eq!(digests(&enc, &dec).0, digests(&enc, &dec).1);
}

#[test]
fn bad_renewals_are_typed_errors_that_break_the_session() {
    let mut enc = EncoderSession::new(Options::balanced());
    let mut wire = Vec::new();
    enc.encode_frame(&"attic", &mut wire).unwrap();
    let first = wire.len();
    enc.renew();
    enc.encode_frame(&"attic", &mut wire).unwrap();
    // Generation 2 where 1 is due.
    let mut skipped = wire.clone();
    skipped[first + 2] = 0x02;
    let mut dec = DecoderSession::new(Options::balanced());
    let (_, n): (String, usize) = dec.decode_frame(&skipped).unwrap().unwrap();
    let e = dec.decode_frame::<String>(&skipped[n..]).unwrap_err();
    assert!(
        matches!(
            e.code(),
            ErrorCode::BadRenewal {
                expected: 1,
                found: 2
            }
        ),
        "{e}"
    );
    // At the generation byte, as a stream offset: the second frame starts at `n`, then its
    // 1-byte length prefix and the `FF` tag.
    assert_eq!(
        (e.classify(), e.offset(), e.frame()),
        (Category::Syntax, Some(n as u64 + 2), Some(1))
    );
    assert!(dec.broken().is_some());
    assert!(matches!(
        dec.decode_frame::<String>(&wire[first..])
            .unwrap_err()
            .code(),
        ErrorCode::Broken(Category::Syntax)
    ));
    // In a stream without FLAG_DENSE the tag is unassigned (a body error that skips the
    // frame there), and a single message never renews.
    let speed = [
        0x51, 0x44, 0x46, 0x01, 0x00, 0x06, 0xFF, 0x01, 0x83, b'a', b'p', b'i',
    ];
    let mut dec = DecoderSession::new(Options::speed());
    let e = dec.decode_frame::<String>(&speed).unwrap_err();
    assert!(
        matches!(e.code(), ErrorCode::BadTag { found: 0xFF, .. }),
        "{e}"
    );
    assert!(dec.broken().is_none());
    let one = [
        0x51, 0x44, 0x46, 0x01, 0x01, 0xFF, 0x01, 0x83, b'a', b'p', b'i',
    ];
    let e = crate::from_slice::<String>(&one).unwrap_err();
    assert!(
        matches!(e.code(), ErrorCode::BadTag { found: 0xFF, .. }),
        "{e}"
    );
}

#[test]
fn a_corrupt_renewal_frame_breaks_without_renewing() {
    let mut enc = EncoderSession::new(Options::balanced()).with_checksum(true);
    let mut wire = Vec::new();
    enc.encode_frame(&"attic", &mut wire).unwrap();
    let first = wire.len();
    enc.renew();
    enc.encode_frame(&"attic", &mut wire).unwrap();
    wire[first + 3] ^= 0x01; // inside the renewed body
    let mut dec = DecoderSession::new(Options::balanced());
    let (_, n): (String, usize) = dec.decode_frame(&wire).unwrap().unwrap();
    let e = dec.decode_frame::<String>(&wire[n..]).unwrap_err();
    assert!(
        matches!(e.code(), ErrorCode::ChecksumMismatch { frame: 1, .. }),
        "{e}"
    );
    assert!(dec.broken().is_some());
    // The checksum is checked first: the state was not renewed.
    assert_eq!((dec.stats().renewals, dec.stats().intern_entries), (0, 1));
}

/// The policy: unique values make the session learn second sight and renew once; the hot
/// values come back on first sight (defined in the first frame after the renewal).
#[test]
fn unique_values_learn_second_sight_and_renew() {
    let mut enc = EncoderSession::new(Options::balanced());
    let mut dec = DecoderSession::new(Options::balanced());
    let mut wire = Vec::new();
    let mut renewed_at = None;
    for i in 0..600u32 {
        let mut words = strings("hot", 4);
        words.extend((0..10).map(|k| format!("unique-{i:05}-{k}")));
        wire.clear();
        enc.encode_frame(&words, &mut wire).unwrap();
        let (back, _): (Vec<String>, usize) = dec.decode_frame(&wire).unwrap().unwrap();
        assert_eq!(back, words);
        assert_eq!(digests(&enc, &dec).0, digests(&enc, &dec).1);
        if renewed_at.is_none() && enc.stats().renewals == 1 {
            renewed_at = Some(i);
            // The hot values are defined again right away, the unique ones go inline.
            assert_eq!(enc.stats().intern_entries, 4, "frame {i}");
        }
    }
    // 4 096 definitions (4 hot + 10 unique a frame): learned after frame 409.
    assert_eq!(renewed_at, Some(410));
    let s = enc.stats();
    assert_eq!((s.renewals, s.intern_entries), (1, 4));
    assert_eq!(s.evictions, 4 + 410 * 10);
    // A frame of 4 hot references and 10 inline values after the renewal (158 bytes, a
    // 2-byte length prefix).
    assert_eq!(wire.len(), 2 + 1 + 4 * 2 + 10 * (1 + 14));
}

#[test]
fn renewal_off_keeps_the_old_behaviour() {
    let opts = Options::balanced().session_renewal(false);
    let mut enc = EncoderSession::new(opts);
    let mut wire = Vec::new();
    for i in 0..600u32 {
        let words: Vec<String> = (0..10).map(|k| format!("unique-{i:05}-{k}")).collect();
        enc.encode_frame(&words, &mut wire).unwrap();
    }
    let s = enc.stats();
    assert_eq!((s.renewals, s.intern_entries, s.misses), (0, 6000, 6000));
}

#[test]
fn the_policy_renews_near_the_caps() {
    let opts = Options::balanced().max_intern_entries(160);
    let mut enc = EncoderSession::new(opts);
    let mut dec = DecoderSession::new(opts);
    let mut wire = Vec::new();
    // 10 new values a frame, each referenced once more in the same frame (so the table is
    // "useful" and only the cap triggers): 150 = 15/16 of 160 after 15 frames.
    for i in 0..40u32 {
        let mut words: Vec<String> = (0..10).map(|k| format!("value-{i:03}-{k}")).collect();
        words.extend(words.clone());
        wire.clear();
        enc.encode_frame(&words, &mut wire).unwrap();
        let (back, _): (Vec<String>, usize) = dec.decode_frame(&wire).unwrap().unwrap();
        assert_eq!(back, words);
        assert!(enc.stats().intern_entries <= 150);
    }
    assert_eq!(enc.stats().renewals, 2);
    assert_eq!(dec.stats().renewals, 2);
}
