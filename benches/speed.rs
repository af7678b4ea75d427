//! The core issue's Speed-tier benchmark: encode and decode of LogBatch 1000 and a numeric
//! batch (IoT 32×256: `i64`/`f64` vectors) by qdf speed, serde_json, rmp-serde
//! (`to_vec_named`), postcard and bitcode, side by side (see docs/BENCH.md).
//!
//! The Dense issue's rows: `balanced/Logs 1024` (Balanced encode against Speed encode, Balanced
//! decode against rmp-serde decode, one group) and `stream/Logs 10000` (10 000 log records one
//! per frame through one session, against serde_json lines; sizes in
//! `perf/src/bin/stream_logs.rs`). Both take the fixture's types as they are, so they keep
//! applying when the encoder's layout of `Vec<struct>` changes.
//!
//! ```sh
//! cargo bench --bench speed -- --warm-up-time 1 --measurement-time 2
//! cargo bench --bench speed -- --warm-up-time 1 --measurement-time 3 '(balanced|stream)/'
//! cargo bench --bench speed -- --sample-size 50 --measurement-time 5 'speed/LogBatch'
//! ```

#[path = "../tests/support/mod.rs"]
mod support;

mod common;

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use qdf::{DecoderSession, EncoderSession, Options};
use qdf_fixtures::synth::{iot, logbatch, logs};

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

/// Balanced against Speed (encode) and rmp-serde (decode) on Logs 1024, in one group.
fn balanced(c: &mut Criterion) {
    let data = logs::log_batch(1024);
    let wanted = ["rmp-serde", "qdf speed", "qdf balanced"];
    let codecs: Vec<_> = support::all_codecs()
        .into_iter()
        .filter(|c| wanted.contains(&c.name))
        .collect();
    common::bench_codecs(c, "balanced/Logs 1024", &data, &codecs, false);
}

/// 10 000 log records, one per frame: one Balanced `EncoderSession` (fresh per iteration)
/// and its `DecoderSession`, against serde_json lines. Throughput in records.
fn stream(c: &mut Criterion) {
    let recs = logs::log_batch(10_000).records;
    let mut g = c.benchmark_group("stream/Logs 10000");
    g.throughput(Throughput::Elements(recs.len() as u64));
    let encode = |opts: Options| {
        let mut enc = EncoderSession::new(opts);
        let mut out = Vec::with_capacity(1 << 20);
        for r in &recs {
            enc.encode_frame(black_box(r), &mut out).expect("encodes");
        }
        out
    };
    let frames = encode(Options::balanced());
    g.bench_function("encode/qdf balanced session", |b| {
        b.iter(|| encode(Options::balanced()))
    });
    g.bench_function("decode/qdf balanced session", |b| {
        b.iter(|| {
            let mut dec = DecoderSession::new(Options::balanced());
            let mut at = 0;
            while at < frames.len() {
                let (r, used): (logs::LogRecord, usize) = dec
                    .decode_frame(&frames[at..])
                    .expect("decodes")
                    .expect("whole frame");
                black_box(r);
                at += used;
            }
        })
    });
    let lines: Vec<u8> = recs
        .iter()
        .flat_map(|r| {
            let mut l = serde_json::to_vec(r).expect("encodes");
            l.push(b'\n');
            l
        })
        .collect();
    g.bench_function("encode/serde_json lines", |b| {
        b.iter(|| {
            let mut out = Vec::with_capacity(1 << 21);
            for r in &recs {
                serde_json::to_writer(&mut out, black_box(r)).expect("encodes");
                out.push(b'\n');
            }
            out
        })
    });
    g.bench_function("decode/serde_json lines", |b| {
        b.iter(|| {
            for l in lines.split(|&c| c == b'\n').filter(|l| !l.is_empty()) {
                let r: logs::LogRecord = serde_json::from_slice(l).expect("decodes");
                black_box(r);
            }
        })
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = speed, balanced, stream
}
criterion_main!(benches);
