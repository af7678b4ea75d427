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
//! `cargo run --release --example sizes`.

#[path = "support/mod.rs"]
mod support;

use qdf_fixtures::{Dataset, Visitor, visit_all};

/// (dataset, [speed, balanced, compression] bytes).
const PINS: &[(&str, [usize; 3])] = &[
    ("RTB 1024", [439_487, 256_994, 256_994]),
    ("IoT 32x256", [224_599, 158_474, 129_211]),
    ("OTLP 4x512", [1_133_127, 337_679, 337_679]),
    ("Logs 1024", [195_777, 89_310, 89_310]),
    ("Events 1024", [85_172, 52_668, 52_668]),
    ("ADUser 5000", [3_661_388, 1_013_247, 1_013_247]),
    ("ADUserFlat 5000", [1_898_198, 662_280, 662_280]),
    ("TelemetryBatch 1000", [186_739, 50_148, 50_148]),
    ("MetricSeries 1024", [111_633, 27_758, 27_758]),
    ("LogBatch 1000", [185_369, 85_471, 85_471]),
    ("Wide 1000", [128_632, 66_702, 66_702]),
    ("Zipkin spans 1041", [432_372, 83_606, 83_606]),
    ("USGS quakes 1707", [1_032_473, 592_997, 592_997]),
    ("Seattle hourly 8759", [700_728, 437_994, 437_994]),
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
