//! The main job until the streaming pipeline lands: encode the real datasets shipped in
//! `crates/qdf-fixtures/data/` and generated telemetry with every qdf tier and with serde_json,
//! decode them back, check the values are exactly the input (floats by bits), and print sizes.
//! Exits with status 1 if any value does not come back.
//!
//! ```sh
//! cargo run --release --example pipeline
//! ```

#[path = "../tests/support/mod.rs"]
mod support;

use qdf_fixtures::peers::{Codec, peers};
use qdf_fixtures::synth::{logs, otlp, telemetry};
use qdf_fixtures::{Dataset, Visitor, visit_real};

#[derive(Default)]
struct Pipeline {
    failures: usize,
}

impl Visitor for Pipeline {
    fn visit<D: Dataset>(&mut self, name: &'static str, data: &D) {
        let json = peers::<D>().into_iter().find(|c| c.name == "serde_json");
        let codecs: Vec<Codec<D>> = json.into_iter().chain(support::qdf_tiers::<D>()).collect();
        let mut cells = Vec::new();
        let mut json_len = None;
        for c in &codecs {
            match c.round_trip(data) {
                Ok(bytes) => {
                    let base = *json_len.get_or_insert(bytes.len());
                    let pct = 100.0 * bytes.len() as f64 / base as f64;
                    cells.push(format!("{:>10} B {pct:>5.1} %", bytes.len()));
                }
                Err(e) => {
                    self.failures += 1;
                    cells.push(format!("FAILED: {e}"));
                }
            }
        }
        println!("| {name:<20} | {} |", cells.join(" | "));
    }
}

fn main() {
    let names = ["serde_json", "qdf speed", "qdf balanced", "qdf compression"];
    println!(
        "| {:<20} | {} |",
        "dataset",
        names.map(|n| format!("{n:>20}")).join(" | ")
    );
    println!("|{}", "---|".repeat(names.len() + 1));
    let mut p = Pipeline::default();
    visit_real(&mut p);
    p.visit("TelemetryBatch 1000", &telemetry::telemetry_batch(1000));
    p.visit("OTLP 4x512", &otlp::trace_export(4, 512));
    p.visit("Logs 1024", &logs::log_batch(1024));
    if p.failures > 0 {
        eprintln!("{} encodings did not decode to the input", p.failures);
        std::process::exit(1);
    }
    println!("\nall values decoded back bit-exactly (sizes: bytes and % of serde_json)");
}
