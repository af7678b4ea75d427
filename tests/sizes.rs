//! Pins qdf's encoded size of every dataset in every tier, so a size regression fails CI.
//!
//! The sizes are exact byte counts of bytes that decode back to the exact input. When a codec
//! improves (the Dense and QPack work changes Balanced and Compression), update the pins
//! deliberately: run
//!
//! ```sh
//! cargo test --test sizes -- --nocapture
//! ```
//!
//! copy the printed `PINS` rows below, and refresh docs/BENCH.md with
//! `cargo run --release -p qdf-perf --bin sizes`.

#[path = "support/mod.rs"]
mod support;

use qdf_fixtures::outside::visit_outside;
use qdf_fixtures::{Dataset, Visitor, visit_all};

/// (dataset, [speed, balanced, compression] bytes).
const PINS: &[(&str, [usize; 3])] = &[
    ("RTB 1024", [439_487, 112_851, 77_059]),
    ("IoT 32x256", [224_599, 128_081, 127_845]),
    ("OTLP 4x512", [1_133_127, 91_665, 91_665]),
    ("Logs 1024", [195_777, 29_539, 29_539]),
    ("Events 1024", [85_172, 39_140, 39_140]),
    ("ADUser 5000", [3_661_388, 781_928, 528_946]),
    ("ADUserFlat 5000", [1_898_198, 520_720, 304_157]),
    ("TelemetryBatch 1000", [186_739, 20_107, 19_912]),
    ("MetricSeries 1024", [111_633, 7_324, 6_782]),
    ("LogBatch 1000", [185_369, 33_857, 33_857]),
    ("Wide 1000", [128_632, 20_607, 280]),
    ("Zipkin spans 1041", [432_372, 40_629, 35_201]),
    ("USGS quakes 1707", [1_032_473, 423_846, 149_064]),
    ("Seattle hourly 8759", [700_728, 168_936, 19_446]),
];

#[derive(Default)]
struct Sizes(Vec<(&'static str, [usize; 3])>);

impl Visitor for Sizes {
    fn visit<D: Dataset>(&mut self, name: &'static str, data: &D) {
        let sizes = support::qdf_tiers::<D>().map(|tier| match tier.round_trip(data) {
            Ok(bytes) => bytes.len(),
            Err(e) => panic!("{name}: {e}"),
        });
        self.0.push((name, sizes));
    }
}

#[test]
fn qdf_sizes_are_pinned() {
    let mut sizes = Sizes::default();
    visit_all(&mut sizes);
    for (name, [s, b, c]) in &sizes.0 {
        println!("    (\"{name}\", [{s}, {b}, {c}]),");
    }
    assert_eq!(sizes.0, PINS);
}

/// The same pins for the shapes not designed for (`docs/BENCH.md` "Shapes not designed for").
const OUTSIDE_PINS: &[(&str, [usize; 3])] = &[
    ("WebLog 10000", [1_335_725, 155_568, 115_837]),
    ("SaveGame 500", [1_164_869, 97_162, 93_693]),
    ("Mesh 125000", [13_750_022, 5_100_719, 5_093_659]),
    ("GameState 1000", [2_988_877, 395_443, 388_198]),
];

#[test]
fn outside_sizes_are_pinned() {
    let mut sizes = Sizes::default();
    visit_outside(&mut sizes);
    for (name, [s, b, c]) in &sizes.0 {
        println!("    (\"{name}\", [{s}, {b}, {c}]),");
    }
    assert_eq!(sizes.0, OUTSIDE_PINS);
}
