//! Every peer's bytes decode back to the exact input, on every dataset; the protobuf twins are
//! lossless; the generators are pinned (a changed draw changes every size in docs/BENCH.md).

use qdf_fixtures::outside::visit_outside;
use qdf_fixtures::peers::{peers, same_bits};
use qdf_fixtures::{Dataset, Visitor, visit_all};

/// FNV-1a 64: a small stable hash for fingerprints.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

#[derive(Default)]
struct Check {
    failures: Vec<String>,
    fingerprints: Vec<(&'static str, usize, u64)>,
}

impl Visitor for Check {
    fn visit<D: Dataset>(&mut self, name: &'static str, data: &D) {
        if !same_bits(&D::from_proto(data.to_proto()), data) {
            self.failures
                .push(format!("{name}: protobuf twin is lossy"));
        }
        for codec in peers::<D>() {
            if let Err(e) = codec.round_trip(data) {
                self.failures.push(format!("{name}: {}: {e}", codec.name));
            }
        }
        let canonical = bitcode::encode(data);
        self.fingerprints
            .push((name, canonical.len(), fnv1a(&canonical)));
    }
}

#[test]
fn every_peer_round_trips_every_dataset_bit_exactly() {
    let mut check = Check::default();
    visit_all(&mut check);
    assert_eq!(check.failures, Vec::<String>::new());
    for (name, len, hash) in &check.fingerprints {
        println!("    (\"{name}\", {len}, {hash:#018x}),");
    }
    assert_eq!(check.fingerprints, FINGERPRINTS);
}

/// (dataset, bitcode size, FNV-1a of the bitcode bytes): pins every generated value and every
/// loaded file. Regenerate with `cargo test -p qdf-fixtures --test round_trip -- --nocapture`.
const FINGERPRINTS: &[(&str, usize, u64)] = &[
    ("RTB 1024", 250169, 0xf950ca8fe69d2a8c),
    ("IoT 32x256", 198515, 0x7ff96ec01967c6cd),
    ("OTLP 4x512", 650664, 0x7321ad7f63a3f382),
    ("Logs 1024", 123302, 0xc975b2f4668c9684),
    ("Events 1024", 56493, 0xc7b3a70a496ba292),
    ("ADUser 5000", 2531625, 0x2ae2b9fbf64eabec),
    ("ADUserFlat 5000", 913740, 0x682a085a38a6027d),
    ("TelemetryBatch 1000", 109253, 0xe2dbee38d4d1e78b),
    ("MetricSeries 1024", 80022, 0x2f58b56f1936dfe3),
    ("LogBatch 1000", 102208, 0xed740f49bc0e1ef2),
    ("Wide 1000", 35339, 0x3cc992b137d7720d),
    ("Zipkin spans 1041", 271032, 0x08280ad6dd8b60be),
    ("USGS quakes 1707", 651438, 0xbdf437e702ce2e04),
    ("Seattle hourly 8759", 377741, 0x23386c810cb6b709),
];

#[test]
fn every_peer_round_trips_the_outside_shapes_bit_exactly() {
    let mut check = Check::default();
    visit_outside(&mut check);
    assert_eq!(check.failures, Vec::<String>::new());
    for (name, len, hash) in &check.fingerprints {
        println!("    (\"{name}\", {len}, {hash:#018x}),");
    }
    assert_eq!(check.fingerprints, OUTSIDE_FINGERPRINTS);
}

/// The same pins for [`visit_outside`].
const OUTSIDE_FINGERPRINTS: &[(&str, usize, u64)] = &[
    ("WebLog 10000", 641019, 0x932cec37237c93b6),
    ("SaveGame 500", 609693, 0x74aa6d73b515f733),
    ("Mesh 125000", 6000006, 0x9f32a10372120076),
    ("GameState 1000", 456378, 0x2886e6331260dae9),
];
