//! Columnar containers on the fixtures: Logs 1024 and ADUser 5000 are written as `EF`/`F7`
//! containers; the real Zipkin and USGS data round-trip exactly through typed structs and
//! through `Value` (equal to the `Value` of their row-mode encoding).

use qdf::{Options, Value};
use qdf_fixtures::{real, synth};
use serde::Serialize;
use serde::de::DeserializeOwned;

/// The offset of the container of `rows` rows: its tag (`EF`/`F7`), `uvarint(rows)`.
fn container_at(b: &[u8], rows: u64) -> Option<(usize, u8)> {
    let mut m = Vec::new();
    let mut v = rows;
    loop {
        let byte = (v & 0x7F) as u8;
        v >>= 7;
        if v == 0 {
            m.push(byte);
            break;
        }
        m.push(byte | 0x80);
    }
    b.windows(1 + m.len())
        .position(|w| (w[0] == 0xEF || w[0] == 0xF7) && w[1..] == m[..])
        .map(|i| (i, b[i]))
}

fn round_trip<T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug>(
    v: &T,
    opts: Options,
) -> Vec<u8> {
    let b = qdf::to_vec_with(v, opts).unwrap();
    let back: T = qdf::from_slice(&b).unwrap();
    assert_eq!(&back, v);
    let row = qdf::to_vec_with(v, Options::speed()).unwrap();
    let want = qdf::from_slice::<Value>(&row).unwrap();
    let got = qdf::from_slice::<Value>(&b).unwrap();
    assert_eq!(got.to_string(), want.to_string());
    b
}

#[test]
fn logs_and_adusers_are_containers() {
    let logs = synth::logs::log_batch(1024);
    let b = round_trip(&logs, Options::balanced());
    let (at, tag) = container_at(&b, 1024).expect("Logs 1024 is columnar");
    assert!(at < 32, "the records field holds the container (at {at})");
    assert!(tag == 0xEF || tag == 0xF7);
    let users = synth::aduser::ad_users(5000);
    for opts in [Options::balanced(), Options::compression()] {
        let b = round_trip(&users, opts);
        let (at, _) = container_at(&b, 5000).expect("ADUser 5000 is columnar");
        assert!(at < 32, "at {at}");
    }
    // Fifteen records stay an array without nested columns; with them their `fields` map
    // column makes a small container (`docs/SPEC.md` §22.2) smaller than the rows.
    let mut few = synth::logs::log_batch(15);
    few.records.truncate(15);
    let flat = Options::balanced();
    let flat = flat.features(flat.features.without(qdf::Features::NESTED_COLUMNS));
    let b = round_trip(&few, flat);
    assert_eq!(container_at(&b, 15), None);
    let b = round_trip(&few, Options::balanced());
    let (at, _) = container_at(&b, 15).expect("a small container");
    assert!(at < 32, "at {at}");
}

#[test]
fn real_data_round_trips_exactly() {
    let zipkin = real::zipkin::load().unwrap();
    let usgs = real::usgs::load().unwrap();
    for opts in [Options::balanced(), Options::compression()] {
        let z = round_trip(&zipkin, opts);
        assert!(
            container_at(&z, zipkin_len(&zipkin)).is_some(),
            "Zipkin spans are columnar"
        );
        let u = round_trip(&usgs, opts);
        assert!(u.len() < qdf::to_vec_with(&usgs, Options::speed()).unwrap().len());
    }
}

fn zipkin_len(t: &real::zipkin::Trace) -> u64 {
    t.0.len() as u64
}
