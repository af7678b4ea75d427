//! Hostile input: truncation and byte-mutation matrices over representative encodings, random
//! bytes, depth limits.

use crate::common::*;
use proptest::prelude::*;
use qdf_core::{Category, ErrorCode, Options, Value};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, PartialEq)]
#[serde(tag = "kind")]
enum Tagged {
    Rec {
        id: u32,
        e: E,
        opt: Option<Option<()>>,
    },
}

/// Representative encodings, each at most 4 KiB.
fn corpus() -> Vec<Vec<u8>> {
    let mut out = vec![
        qdf_core::to_vec(&sample()).unwrap(),
        qdf_core::to_vec(&Tagged::Rec {
            id: 70000,
            e: E::D {
                x: Some(1),
                y: vec![2, 300],
            },
            opt: Some(None),
        })
        .unwrap(),
        qdf_core::to_vec(&vec![Some(Some(())), None, Some(None)]).unwrap(),
        qdf_core::to_vec(&(u128::MAX, i128::MIN, '🦀', -0.0f32, f64::NAN)).unwrap(),
        qdf_core::to_vec(&"s".repeat(300)).unwrap(),
    ];
    for b in &out {
        assert!(b.len() <= 4096);
    }
    out.push(qdf_core::to_vec(&vec![vec![vec![E::N(Box::new(E::A))]]]).unwrap());
    out
}

/// Decodes into the typed targets that fit some corpus entries and into `Value`.
fn decode_all(bytes: &[u8]) -> Vec<Result<(), qdf_core::Error>> {
    vec![
        qdf_core::from_slice::<Value>(bytes).map(drop),
        qdf_core::from_slice::<Everything>(bytes).map(drop),
        qdf_core::from_slice::<Tagged>(bytes).map(drop),
        qdf_core::from_slice::<Vec<Option<Option<()>>>>(bytes).map(drop),
        qdf_core::from_slice::<(u128, i128, char, F32b, F64b)>(bytes).map(drop),
        qdf_core::from_slice::<String>(bytes).map(drop),
        qdf_core::from_slice::<Vec<Vec<Vec<E>>>>(bytes).map(drop),
        qdf_core::from_slice::<serde::de::IgnoredAny>(bytes).map(drop),
    ]
}

#[test]
fn every_strict_prefix_is_eof() {
    for full in corpus() {
        let fits: Vec<bool> = decode_all(&full).iter().map(|r| r.is_ok()).collect();
        assert!(
            fits.iter().filter(|&&f| f).count() >= 3,
            "Value, IgnoredAny and a typed target"
        );
        for n in 0..full.len() {
            for (i, r) in decode_all(&full[..n]).into_iter().enumerate() {
                let e = r.expect_err("a strict prefix decoded");
                // Typed targets that do not fit this entry may fail with Data first.
                if fits[i] {
                    assert_eq!(
                        e.classify(),
                        Category::Eof,
                        "prefix {n} of {full:02x?}: {e}"
                    );
                }
                assert!(e.offset().is_some(), "{e:?}");
            }
        }
    }
}

#[test]
fn byte_mutations_never_panic() {
    for full in corpus() {
        for i in 0..full.len() {
            for m in [
                0x00,
                0xFF,
                0xC0,
                0xF2,
                0xD4,
                0x7F,
                full[i] ^ 0x01,
                full[i] ^ 0x80,
            ] {
                let mut b = full.clone();
                b[i] = m;
                for r in decode_all(&b) {
                    if let Err(e) = r {
                        let _ = e.to_string();
                    }
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Random bodies never panic; whatever decodes as a `Value` re-encodes to the same bytes
    /// (the strict wire has one form per value), unless the body holds a Dense tag byte
    /// (`E0`–`EF`): those are read in any message (spec §14) and re-encode in their inline
    /// Speed forms, so there the value must come back instead.
    #[test]
    fn random_bytes_never_panic(body in prop::collection::vec(
        prop_oneof![any::<u8>(), prop::sample::select(vec![0xA1u8, 0xA2, 0xC0, 0xD5, 0x01, 0xF2, 0x05, 0x81])],
        0..64,
    )) {
        let mut msg = b"QDF\x01\x00".to_vec();
        msg.extend_from_slice(&body);
        if let Ok(v) = qdf_core::from_slice::<Value>(&msg) {
            let again = qdf_core::to_vec_with(&v, Options::speed()).unwrap();
            if body.iter().all(|b| !(0xE0..=0xEF).contains(b)) {
                prop_assert_eq!(&again, &msg);
            } else {
                prop_assert_eq!(qdf_core::from_slice::<Value>(&again).unwrap(), v);
            }
        }
        let _ = qdf_core::from_slice::<Everything>(&msg);
        let _ = qdf_core::from_slice::<Tagged>(&msg);
        let _ = qdf_core::from_slice::<Vec<E>>(&msg);
    }
}

fn nested_arrays(depth: usize) -> Value {
    let mut v = Value::U64(1);
    for _ in 0..depth {
        v = Value::Array(vec![v]);
    }
    v
}

#[test]
fn depth_limit_default_is_128_both_ways() {
    let ok = qdf_core::to_vec(&nested_arrays(128)).unwrap();
    assert!(qdf_core::from_slice::<Value>(&ok).is_ok());
    let e = qdf_core::to_vec(&nested_arrays(129)).unwrap_err();
    assert_eq!(e.code(), &ErrorCode::DepthLimit(128));
    let mut deep = b"QDF\x01\x00".to_vec();
    deep.extend(std::iter::repeat_n(0xA1, 129));
    deep.push(0x01);
    let e = qdf_core::from_slice::<Value>(&deep).unwrap_err();
    assert_eq!(e.code(), &ErrorCode::DepthLimit(128));
    assert_eq!(e.classify(), Category::Limit);
    // The skip path counts too.
    assert_eq!(
        qdf_core::from_slice::<serde::de::IgnoredAny>(&deep)
            .unwrap_err()
            .code(),
        &ErrorCode::DepthLimit(128)
    );
}

fn chain(depth: usize) -> E {
    let mut e = E::A;
    for _ in 0..depth {
        e = E::N(Box::new(e));
    }
    e
}

#[test]
fn encode_accepts_exactly_what_decode_accepts() {
    let limit = 6;
    let opts = Options::speed().max_depth(limit);
    let big = Options::speed().max_depth(1000);
    for depth in 0..12usize {
        // Enum chains, option chains, and a struct field skipped by the target.
        let e = chain(depth);
        let bytes = qdf_core::to_vec_with(&e, big).unwrap();
        let enc_ok = qdf_core::to_vec_with(&e, opts).is_ok();
        assert_eq!(enc_ok, depth <= limit as usize, "enum depth {depth}");
        assert_eq!(qdf_core::from_slice_with::<E>(&bytes, opts).is_ok(), enc_ok);
        assert_eq!(
            qdf_core::from_slice_with::<Value>(&bytes, opts).is_ok(),
            enc_ok
        );

        let mut opt = Value::Nil;
        for _ in 0..depth {
            opt = Value::Some(Box::new(opt));
        }
        let bytes = qdf_core::to_vec_with(&opt, big).unwrap();
        let enc_ok = qdf_core::to_vec_with(&opt, opts).is_ok();
        assert_eq!(enc_ok, depth <= limit as usize, "option depth {depth}");
        assert_eq!(
            qdf_core::from_slice_with::<Value>(&bytes, opts).is_ok(),
            enc_ok
        );

        #[derive(Serialize)]
        struct Outer {
            a: u8,
            skipped: Value,
        }
        #[derive(Deserialize)]
        struct OnlyA {
            #[allow(dead_code)]
            a: u8,
        }
        let outer = Outer {
            a: 1,
            skipped: nested_arrays(depth),
        };
        let bytes = qdf_core::to_vec_with(&outer, big).unwrap();
        let enc_ok = qdf_core::to_vec_with(&outer, opts).is_ok();
        assert_eq!(enc_ok, depth < limit as usize, "skip depth {depth}");
        assert_eq!(
            qdf_core::from_slice_with::<OnlyA>(&bytes, opts).is_ok(),
            enc_ok
        );
    }
}

#[test]
fn typed_options_count_like_the_encoder() {
    // Option<Option<Option<u8>>>: three levels whether or not wrappers are written.
    let v: Option<Option<Option<u8>>> = Some(Some(Some(1)));
    let opts = Options::speed().max_depth(2);
    assert!(qdf_core::to_vec_with(&v, opts).is_err());
    let bytes = qdf_core::to_vec(&v).unwrap();
    assert!(qdf_core::from_slice_with::<Option<Option<Option<u8>>>>(&bytes, opts).is_err());
    let ok = Options::speed().max_depth(3);
    assert!(qdf_core::to_vec_with(&v, ok).is_ok());
    assert_eq!(
        qdf_core::from_slice_with::<Option<Option<Option<u8>>>>(&bytes, ok).unwrap(),
        v
    );
}

#[test]
fn from_reader_and_to_writer() {
    let mut buf = Vec::new();
    qdf_core::to_writer(&mut buf, &sample()).unwrap();
    let back: Everything = qdf_core::from_reader(&buf[..]).unwrap();
    assert_eq!(back, sample());
    let e = qdf_core::from_reader::<_, Everything>(&buf[..buf.len() - 1]).unwrap_err();
    assert!(e.is_eof());
}
