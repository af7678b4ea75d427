//! The streamed benchmark's sizes (docs/BENCH.md): 10 000 Logs records sent one per frame
//! through one `EncoderSession`, in bytes per record, against each record as a one-shot
//! Balanced message, the whole batch as one message, and serde_json lines. Deterministic;
//! `tests/stream_logs.rs` pins the same numbers and `benches/speed.rs` times the session.
//!
//! ```sh
//! cargo run --release -p qdf-perf --bin stream_logs
//! ```

#[path = "../../../tests/support/mod.rs"]
mod support;

use qdf_fixtures::synth::logs;

fn main() {
    let n = 10_000;
    let recs = logs::log_batch(n).records;
    let s = support::stream_sizes(&recs);
    let per = |b: usize| b as f64 / n as f64;
    println!("| {n} Logs records | bytes | bytes / record | vs session |");
    println!("|---|---:|---:|---:|");
    for (name, b) in [
        ("one EncoderSession (Balanced)", s.session),
        (
            "one EncoderSession (Balanced + MAP_SHAPE)",
            s.session_map_shape,
        ),
        ("one-shot Balanced per record", s.one_shot),
        ("one Balanced message (whole batch)", s.batch),
        ("serde_json lines", s.json_lines),
    ] {
        println!(
            "| {name} | {b} | {:.1} | {:.2}× |",
            per(b),
            b as f64 / s.session as f64
        );
    }
}
