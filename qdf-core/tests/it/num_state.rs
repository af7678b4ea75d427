//! Per-field numbers in streams (`docs/SPEC.md` §15.2), end to end through
//! `EncoderSession` / `DecoderSession`: golden bytes, mirrored state under random streams
//! with failed messages, renewals, subset decodes and corrupt frames, and single messages
//! unchanged.

use crate::common::unhex;
use proptest::prelude::*;
use qdf_core::{DecoderSession, EncoderSession, Features, Options, Value};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize, Serializer};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct P {
    t: u64,
    v: f64,
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
    out
}

#[test]
fn golden_spec_example() {
    let recs = [
        (1_700_000_000, 20.5),
        (1_700_000_060, 20.7),
        (1_700_000_120, 20.6),
        (1_700_000_180, 20.6),
        (1_700_000_241, 20.8),
    ]
    .map(|(t, v)| P { t, v });
    let wire = stream(Options::balanced(), &recs);
    // docs/SPEC.md §15.2, first example.
    let want = unhex(
        "51 44 46 01 43 15 ec 00 02 81 74 c5 00 f1 53 65 81 76 cc 00 00 00 00 00 80 34 40 \
         10 ec 01 c5 3c f1 53 65 cc 33 33 33 33 33 b3 34 40 08 ec 01 f1 f0 01 fd 01 01 \
         04 ec 01 f0 f0 06 ec 01 f1 05 f1 04",
    );
    assert_eq!(wire, want, "{wire:02x?}");
    assert_eq!(decode_all::<P>(&wire), recs);
    // Without the feature every reuse is `EC 01`, a u32 and an f64 (17 bytes framed).
    let plain = stream(
        Options::balanced().features(Features::BALANCED.without(Features::NUM_STATE)),
        &recs,
    );
    assert_eq!(plain.len(), 5 + 22 + 4 * 17);
    assert_eq!(decode_all::<P>(&plain), recs);
}

#[test]
fn single_messages_are_unchanged() {
    let recs: Vec<P> = (0..50)
        .map(|i| P {
            t: 1_700_000_000 + 60 * i,
            v: 20.0 + i as f64 / 10.0,
        })
        .collect();
    let with = qdf_core::to_vec_with(&recs, Options::balanced()).unwrap();
    let without = qdf_core::to_vec_with(
        &recs,
        Options::balanced().features(Features::BALANCED.without(Features::NUM_STATE)),
    )
    .unwrap();
    assert_eq!(with, without);
}

/// A session's first message predicts fields from earlier structs of the same message (3
/// structs: too few for a column); `from_slice` and `inspect::message` read it too (§24's
/// unary call is such a message).
#[test]
fn a_first_session_message_is_a_single_message() {
    let ps: Vec<P> = (0..3u64)
        .map(|i| P {
            t: 1_700_000_000 + 60 * i,
            v: 20.5 + i as f64 / 10.0,
        })
        .collect();
    let mut enc = EncoderSession::new(Options::balanced());
    let mut msg = Vec::new();
    enc.encode_message(&ps, &mut msg).unwrap();
    assert!(
        msg.contains(&0xF1),
        "the third struct predicts its fields: {msg:02x?}"
    );
    let mut dec = DecoderSession::new(Options::balanced());
    assert_eq!(dec.decode_message::<Vec<P>>(&msg).unwrap(), ps);
    let one = qdf_core::from_slice::<Vec<P>>(&msg).unwrap();
    assert_eq!(one, ps);
    assert_eq!(one[2].v.to_bits(), ps[2].v.to_bits());
    let mut events = 0;
    qdf_core::inspect::message(&msg, &Options::default(), &mut |_| events += 1).unwrap();
    assert!(events > 8, "{events} events");
}

#[test]
fn renewal_empties_the_slots() {
    let rec = P { t: 1000, v: 1.5 };
    let mut enc = EncoderSession::new(Options::balanced());
    let mut wire = Vec::new();
    for _ in 0..3 {
        enc.encode_frame(&rec, &mut wire).unwrap();
    }
    // The declaration gives the slots no number, the first reuse does (plain), the second
    // reuse predicts both: `EC 01 F0 F0`.
    assert_eq!(wire[wire.len() - 5..], [0x04, 0xec, 0x01, 0xf0, 0xf0]);
    let end = wire.len();
    enc.renew();
    enc.encode_frame(&rec, &mut wire).unwrap();
    enc.encode_frame(&rec, &mut wire).unwrap();
    // After the renewal: the shape declared again, then a plain reuse.
    assert_eq!(wire[end + 1..end + 5], [0xff, 0x01, 0xec, 0x00]);
    assert_eq!(
        wire[wire.len() - 14..wire.len() - 10],
        [0xec, 0x01, 0xc4, 0xe8]
    );
    assert_eq!(decode_all::<P>(&wire), vec![rec.clone(); 5]);
}

/// One field of a random record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Rec {
    a: u64,
    b: i64,
    c: f64,
    d: f32,
    e: u128,
    f: Option<i64>,
    g: String,
    h: Inner,
    i: i128,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Inner {
    x: f64,
    y: u32,
}

/// A reader that wants only some fields: serde ignores the others, and their slots must
/// still follow.
#[derive(Clone, Debug, PartialEq, Deserialize)]
struct Few {
    b: i64,
    h: Inner,
}

/// `Rec`, or `Rec` with a field whose serialization fails after the numbers were written.
#[derive(Clone, Debug)]
struct Maybe {
    rec: Rec,
    fail: bool,
}

impl Serialize for Maybe {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error, SerializeStruct};
        let r = &self.rec;
        let mut st = s.serialize_struct("Rec", 9)?;
        st.serialize_field("a", &r.a)?;
        st.serialize_field("b", &r.b)?;
        st.serialize_field("c", &r.c)?;
        st.serialize_field("d", &r.d)?;
        st.serialize_field("e", &r.e)?;
        st.serialize_field("f", &r.f)?;
        st.serialize_field("g", &r.g)?;
        st.serialize_field("h", &r.h)?;
        if self.fail {
            return Err(S::Error::custom("refused"));
        }
        st.serialize_field("i", &r.i)?;
        st.end()
    }
}

fn float64() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<f64>(),
        (-2000i32..2000).prop_map(|n| n as f64 / 10.0),
        Just(-0.0),
        Just(f64::from_bits(0x7ff8_0000_0000_0001)),
        Just(f64::from_bits(0xfff0_0000_0000_0002)),
    ]
}

fn rec() -> impl Strategy<Value = Rec> {
    (
        prop_oneof![
            any::<u64>(),
            1_700_000_000u64..1_700_000_010,
            Just(u64::MAX)
        ],
        prop_oneof![any::<i64>(), -5i64..5, Just(i64::MIN)],
        float64(),
        prop_oneof![any::<f32>(), (-100i32..100).prop_map(|n| n as f32 / 4.0)],
        prop_oneof![any::<u128>(), 0u128..300, Just(u64::MAX as u128 + 1)],
        proptest::option::of(-3i64..3),
        "[a-c]{0,6}",
        (float64(), any::<u32>()).prop_map(|(x, y)| Inner { x, y }),
        prop_oneof![any::<i128>(), -10i128..10],
    )
        .prop_map(|(a, b, c, d, e, f, g, h, i)| Rec {
            a,
            b,
            c,
            d,
            e,
            f,
            g,
            h,
            i,
        })
}

/// What happens around one frame of a random stream.
#[derive(Clone, Debug)]
enum Step {
    Send(Rec),
    /// A record that fails half-way: rolled back, nothing written.
    Fail(Rec),
    /// A record read into [`Few`].
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

fn same_bits(a: &Rec, b: &Rec) -> bool {
    a.c.to_bits() == b.c.to_bits()
        && a.d.to_bits() == b.d.to_bits()
        && a.h.x.to_bits() == b.h.x.to_bits()
        && a.a == b.a
        && a.b == b.b
        && a.e == b.e
        && a.f == b.f
        && a.g == b.g
        && a.h.y == b.h.y
        && a.i == b.i
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn random_streams_mirror(steps in proptest::collection::vec(step(), 1..24)) {
        let mut enc = EncoderSession::new(Options::balanced());
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
                    prop_assert_eq!(got.b, r.b);
                    prop_assert_eq!(got.h.x.to_bits(), r.h.x.to_bits());
                    prop_assert_eq!(got.h.y, r.h.y);
                }
                Step::Send(r) => {
                    let (got, n) = dec.decode_frame::<Rec>(&wire[start..]).unwrap().unwrap();
                    prop_assert_eq!(n, wire.len() - start);
                    prop_assert!(same_bits(&got, r), "{:?} != {:?}", got, r);
                }
                _ => unreachable!(),
            }
        }
        // Through `Value` too: a fresh decoder reads the whole stream.
        let mut dec = DecoderSession::new(Options::default());
        let mut rest = wire.as_slice();
        while let Some((_, n)) = dec.decode_frame::<Value>(rest).unwrap() {
            rest = &rest[n..];
        }
        // The state never makes a frame larger than without the feature.
        let sent: Vec<Maybe> = steps
            .iter()
            .filter_map(|s| match s {
                Step::Send(r) | Step::Subset(r) => Some(Maybe { rec: r.clone(), fail: false }),
                _ => None,
            })
            .collect();
        let with = stream(Options::balanced(), &sent);
        let without = stream(
            Options::balanced().features(Features::BALANCED.without(Features::NUM_STATE)),
            &sent,
        );
        prop_assert!(with.len() <= without.len());
    }

    #[test]
    fn corrupt_frames_never_panic(
        recs in proptest::collection::vec(rec(), 2..8),
        at in any::<prop::sample::Index>(),
        flip in 1u8..=255,
    ) {
        let sent: Vec<Maybe> = recs.iter().map(|r| Maybe { rec: r.clone(), fail: false }).collect();
        let mut wire = stream(Options::balanced(), &sent);
        let i = at.index(wire.len());
        wire[i] ^= flip;
        let mut dec = DecoderSession::new(Options::default());
        let mut rest = wire.as_slice();
        while let Ok(Some((_, n))) = dec.decode_frame::<Value>(rest) {
            rest = &rest[n..];
        }
    }
}

#[test]
fn steady_sensor_stream_costs_few_bytes() {
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Point {
        ts: i64,
        value: f64,
        count: u64,
    }
    let recs: Vec<Point> = (0..100)
        .map(|i| Point {
            ts: 1_700_000_000_000 + 1000 * i,
            value: (200 + i % 7) as f64 / 10.0,
            count: 1_000_000 + 17 * i as u64,
        })
        .collect();
    let wire = stream(Options::balanced(), &recs);
    assert_eq!(decode_all::<Point>(&wire), recs);
    let mut enc = EncoderSession::new(Options::balanced());
    let mut sizes = Vec::new();
    for r in &recs {
        let mut w = Vec::new();
        enc.encode_frame(r, &mut w).unwrap();
        sizes.push(w.len());
    }
    // After warm-up: length, `EC 01`, ts `F0`, value a decimal step `F1 z`, count `F0`.
    assert!(sizes[10..].iter().all(|&n| n == 7), "{sizes:?}");
}
