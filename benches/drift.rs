//! Per-message speed of a long-lived session under drift (issue #17, scenario (a) of
//! perf/src/bin/drift.rs): encode + decode of one 10-record message through a long `EncoderSession`
//! / `DecoderSession` pair (Balanced) with renewal (`docs/SPEC.md` §18), the same without
//! renewal (`session_renewal(false)`), and a fresh pair without renewal every 1 000 messages.
//! Each sample first streams [`WARM`] messages untimed (the table fills and, with renewal, the
//! session renews), then times `iters` further messages; a deploy replaces the pod names at
//! message [`WARM`] + 500. Messages are generated before timing. Throughput is in messages.
//!
//! `cargo bench --bench drift`

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use qdf_core::{DecoderSession, EncoderSession, Options};
use qdf_fixtures::synth::drift::{LogGen, Rec};

/// Untimed messages before each sample: past the point where the default intern table fills.
const WARM: usize = 8_000;
/// The naive lane opens a fresh session pair every this many messages.
const FRESH_EVERY: usize = 1_000;

/// Encodes and decodes messages `WARM..WARM + iters` of scenario (a) with `opts`, opening a
/// fresh session pair every `fresh_every` messages if set; the time of the timed part.
fn run(opts: Options, fresh_every: Option<usize>, iters: u64) -> Duration {
    let total = WARM + iters as usize;
    let mut g = LogGen::new(true, WARM + 500);
    let msgs: Vec<Vec<Rec>> = (0..total).map(|n| g.message(n)).collect();
    let mut enc = EncoderSession::new(opts);
    let mut dec = DecoderSession::new(opts);
    let mut buf = Vec::new();
    let mut step = |n: usize, enc: &mut EncoderSession, dec: &mut DecoderSession| {
        if fresh_every.is_some_and(|k| n > 0 && n.is_multiple_of(k)) {
            *enc = EncoderSession::new(opts);
            *dec = DecoderSession::new(opts);
        }
        buf.clear();
        enc.encode_frame(&msgs[n], &mut buf).expect("encodes");
        let (back, _): (Vec<Rec>, usize) = dec
            .decode_frame(&buf)
            .expect("decodes")
            .expect("a whole frame");
        black_box(back);
    };
    for n in 0..WARM {
        step(n, &mut enc, &mut dec);
    }
    let start = Instant::now();
    for n in WARM..total {
        step(n, &mut enc, &mut dec);
    }
    let took = start.elapsed();
    // The renewing lane must measure a session that has renewed, or it measures nothing new.
    assert!(
        !opts.session_renewal || enc.stats().renewals > 0,
        "no renewal within {total} messages"
    );
    took
}

fn drift(c: &mut Criterion) {
    let balanced = Options::balanced();
    let off = balanced.session_renewal(false);
    let mut g = c.benchmark_group("drift_a");
    g.throughput(Throughput::Elements(1));
    g.bench_function("long session, renewal", |b| {
        b.iter_custom(|iters| run(balanced, None, iters))
    });
    g.bench_function("long session, renewal off", |b| {
        b.iter_custom(|iters| run(off, None, iters))
    });
    g.bench_function("fresh every 1000, renewal off", |b| {
        b.iter_custom(|iters| run(off, Some(FRESH_EVERY), iters))
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10).measurement_time(Duration::from_secs(3));
    targets = drift
}
criterion_main!(benches);
