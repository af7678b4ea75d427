//! Numbers predicted within a message on a pre-shared dictionary (`docs/SPEC.md` §15.2,
//! §25.2): golden bytes against the same records without a dictionary (plain), extremes and
//! float payloads round-tripped by bits in every tier, and a decoder that takes them from
//! any single message.

use qdf_core::{Dictionary, Options};
use serde::{Deserialize, Serialize};

use crate::common::{TIERS, hex};

#[derive(Clone, Debug, Serialize, Deserialize)]
struct Reading {
    ts: u64,
    v: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct Wide {
    u: u64,
    i: i64,
    f: f64,
    g: f32,
}

fn le(f: f64) -> String {
    hex(&f.to_le_bytes())
}

/// Three readings: on a dictionary holding their shape, `ts` goes plain, then as a delta
/// (`F1 28`: +10), then as the repeated step (`F0`); `v` plain, then a decimal step at
/// exponent 1 (`FD 01 04`: 205 → 207), then a step at the kept exponent (`F1 04`). Without
/// the dictionary the same records are plain (a one-shot message does not predict).
#[test]
fn a_message_on_a_dictionary_predicts_numbers_from_the_last_record() {
    let d = Dictionary::from_strs(["unused"])
        .unwrap()
        .with_shapes([["ts", "v"]])
        .unwrap();
    let rs = [(1000, 20.5), (1010, 20.7), (1020, 20.9)].map(|(ts, v)| Reading { ts, v });
    let opts = Options::balanced();
    let msg = qdf_core::to_vec_with_dictionary(&rs, opts, &d).unwrap();
    assert_eq!(
        hex(&msg[13..]),
        format!(
            "a3 ec 01 c4 e8 03 cc {} ec 01 f1 28 fd 01 04 ec 01 f0 f1 04",
            le(20.5)
        )
    );
    let back: Vec<Reading> = qdf_core::from_slice_with_dictionary(&msg, opts, &d).unwrap();
    let bits = |r: &[Reading]| r.iter().map(|r| (r.ts, r.v.to_bits())).collect::<Vec<_>>();
    assert_eq!(bits(&back), bits(&rs));

    let plain = qdf_core::to_vec_with(&rs, opts).unwrap();
    assert_eq!(
        hex(&plain[5..]),
        format!(
            "a3 ec 00 02 82 74 73 c4 e8 03 81 76 cc {} ec 01 c4 f2 03 cc {} ec 01 c4 fc 03 cc {}",
            le(20.5),
            le(20.7),
            le(20.9)
        )
    );
}

/// Extremes, wrapping steps, NaN payloads, −0.0 and subnormals, one record after another on
/// a dictionary: every tier gives them back bit for bit (Balanced and Compression predict the
/// repeats and steps among them).
#[test]
fn extremes_round_trip_by_bits_on_a_dictionary() {
    let d = Dictionary::from_strs(["unused"])
        .unwrap()
        .with_shapes([["u", "i", "f", "g"]])
        .unwrap();
    let us = [0, u64::MAX, 0, 1, u64::MAX - 1, u64::MAX, 7, 7, 7, 1 << 63];
    let is = [i64::MIN, i64::MAX, i64::MIN, -1, 0, 1, i64::MAX, -5, -5, -5];
    let fs = [
        -0.0,
        0.0,
        f64::from_bits(0x7ff8_0000_dead_beef),
        f64::from_bits(0xfff0_0000_0000_0001),
        f64::MIN_POSITIVE / 4.0,
        f64::MAX,
        f64::INFINITY,
        20.5,
        20.6,
        20.6,
    ];
    let gs = [
        -0.0f32,
        f32::from_bits(0x7fc0_1234),
        1.5,
        1.5,
        f32::MIN,
        f32::NEG_INFINITY,
        0.1,
        0.2,
        0.3,
        f32::from_bits(1),
    ];
    let rs: Vec<Wide> = (0..10)
        .map(|k| Wide {
            u: us[k],
            i: is[k],
            f: fs[k],
            g: gs[k],
        })
        .collect();
    let bits = |r: &[Wide]| {
        r.iter()
            .map(|w| (w.u, w.i, w.f.to_bits(), w.g.to_bits()))
            .collect::<Vec<_>>()
    };
    for tier in TIERS {
        let opts = tier();
        let msg = qdf_core::to_vec_with_dictionary(&rs, opts, &d).unwrap();
        let back: Vec<Wide> = qdf_core::from_slice_with_dictionary(&msg, opts, &d).unwrap();
        assert_eq!(bits(&back), bits(&rs), "{opts:?}");
    }
}
