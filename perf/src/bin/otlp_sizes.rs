//! Prints the baseline table of issues #20 and #27: OTLP traces in `opentelemetry-proto`'s
//! types (issue #27's 40-span, 7-list trace; demo exports of 100 and 1 000 spans; the Zipkin
//! trace grouped by service) in the three qdf tiers against OTLP protobuf and bitcode, raw and
//! after zstd level 3. Deterministic (`perf/tests/otlp_sizes.rs` pins the figures).
//!
//! ```sh
//! cargo run --release -p qdf-perf --bin otlp_sizes
//! ```

#[path = "../otlp_sizes.rs"]
mod otlp_sizes;

fn main() {
    print!("{}", otlp_sizes::table());
}
