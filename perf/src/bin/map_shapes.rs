//! The size effect of map key-set shapes (`Features::MAP_SHAPE`, opt-in, `docs/SPEC.md`
//! §15.1) on every dataset: Balanced and Compression with and without the bit, one message
//! per dataset, each checked to decode back to the exact input. Deterministic; the table is in
//! `docs/BENCH.md`.
//!
//! ```sh
//! cargo run --release -p qdf-perf --bin map_shapes
//! ```

use qdf::{Features, Options};
use qdf_fixtures::{Dataset, Visitor, visit_all};

struct Report;

fn size<D: Dataset>(data: &D, opts: Options) -> usize {
    let bytes = qdf::to_vec_with(data, opts).expect("encodes");
    let back: D = qdf::from_slice(&bytes).expect("decodes");
    assert!(back == *data, "round trip");
    bytes.len()
}

fn with_maps(o: Options) -> Options {
    o.features(o.features.with(Features::MAP_SHAPE))
}

impl Visitor for Report {
    fn visit<D: Dataset>(&mut self, name: &'static str, data: &D) {
        let b = size(data, Options::balanced());
        let bm = size(data, with_maps(Options::balanced()));
        let c = size(data, Options::compression());
        let cm = size(data, with_maps(Options::compression()));
        let pct = |a: usize, b: usize| (a as f64 / b as f64 - 1.0) * 100.0;
        println!(
            "| {name} | {b} | {bm} | {:+.1} % | {c} | {cm} | {:+.1} % |",
            pct(bm, b),
            pct(cm, c)
        );
    }
}

fn main() {
    println!(
        "| dataset | balanced | balanced + MAP_SHAPE | Δ | compression | compression + MAP_SHAPE | Δ |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    visit_all(&mut Report);
}
