//! The entropy stage (tag `FE`, header flag `04`; docs/SPEC.md §21):
//! Compression writes it in one-shot messages only, when it shrinks a block; sessions never
//! write it; decoding is exact.

use qdf_core::{EncoderSession, Features, Options, Value};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Req {
    path: String,
    status: u32,
    ms: u64,
}

fn rows() -> Vec<Req> {
    (0..500u64)
        .map(|i| Req {
            path: format!(
                "GET /api/v1/{}/{} HTTP/1.1 from host-{}",
                ["users", "items", "orders"][(i % 3) as usize],
                i * 7919 % 1000,
                i % 5
            ),
            status: [200, 200, 200, 404, 500][(i % 5) as usize],
            ms: 10 + i * i % 300,
        })
        .collect()
}

fn no_entropy() -> Options {
    Options::compression().features(Features::COMPRESSION.without(Features::ENTROPY))
}

#[test]
fn one_shot_messages_use_it_when_smaller_and_round_trip() {
    let v = rows();
    let with = qdf_core::to_vec_with(&v, Options::compression()).unwrap();
    let without = qdf_core::to_vec_with(&v, no_entropy()).unwrap();
    assert_eq!(with[4] & 0x04, 0x04, "header flag 04 set");
    assert_eq!(without[4] & 0x04, 0, "no flag 04 without the feature");
    assert!(with.contains(&0xFE));
    assert!(
        with.len() < without.len(),
        "{} vs {}",
        with.len(),
        without.len()
    );
    assert_eq!(qdf_core::from_slice::<Vec<Req>>(&with).unwrap(), v);
    let a: Value = qdf_core::from_slice(&with).unwrap();
    let b: Value = qdf_core::from_slice(&without).unwrap();
    assert_eq!(a, b);
    // Balanced (no ENTROPY bit in its preset) never sets the flag.
    let bal = qdf_core::to_vec_with(&v, Options::balanced()).unwrap();
    assert_eq!(bal[4] & 0x04, 0);
}

#[test]
fn sessions_never_write_it() {
    let v = rows();
    let frames = |opts: Options| {
        let mut enc = EncoderSession::new(opts);
        let mut wire = Vec::new();
        enc.encode_frame(&v, &mut wire).unwrap();
        enc.encode_frame(&v, &mut wire).unwrap();
        wire
    };
    let comp = frames(Options::compression());
    assert_eq!(comp[4] & 0x04, 0, "a stream header never sets 04");
    assert_eq!(
        comp,
        frames(no_entropy()),
        "the feature changes no stream byte"
    );
}

#[test]
fn a_damaged_entropy_block_is_an_error_or_other_values_never_a_panic() {
    let v = rows();
    let good = qdf_core::to_vec_with(&v, Options::compression()).unwrap();
    let at = good.iter().position(|&b| b == 0xFE).unwrap();
    let mut errors = 0;
    for i in at..(at + 40).min(good.len()) {
        for x in [0x01u8, 0x80, 0xFF] {
            let mut m = good.clone();
            m[i] ^= x;
            match qdf_core::from_slice::<Vec<Req>>(&m) {
                Ok(back) => assert_ne!(back, v, "byte {i} ^ {x:02x} changed nothing"),
                Err(_) => errors += 1,
            }
        }
    }
    assert!(errors > 0);
}
