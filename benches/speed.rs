//! The core issue's Speed-tier benchmark: encode and decode of LogBatch 1000 and a numeric
//! batch (IoT 32×256: `i64`/`f64` vectors) by qdf speed, serde_json, rmp-serde
//! (`to_vec_named`), postcard and bitcode, side by side (see docs/BENCH.md).
//!
//! ```sh
//! cargo bench --bench speed -- --warm-up-time 1 --measurement-time 2
//! ```

#[path = "../tests/support/mod.rs"]
mod support;

mod common;

use criterion::{Criterion, criterion_group, criterion_main};
use qdf_fixtures::synth::{iot, logbatch};

fn speed(c: &mut Criterion) {
    let logs = logbatch::log_batch(1000);
    common::bench_codecs(
        c,
        "speed/LogBatch 1000",
        &logs,
        &support::speed_codecs(),
        false,
    );
    let iot = iot::iot_batch(32, 256);
    common::bench_codecs(c, "speed/IoT 32x256", &iot, &support::speed_codecs(), false);
}

criterion_group!(benches, speed);
criterion_main!(benches);
