//! QPack codec throughput: encode and decode of 1 024- and 65 536-element slices per codec,
//! reported as elements/s (criterion `Elements`) and, in a second group, decoded bytes/s.
//!
//! Inputs (deterministic SplitMix64): FOR = values in a 2^20 window (20-bit body), delta =
//! timestamps with jitter (5-bit body), FOR32 = a 2^31 window (32-bit body), RLE = runs of 50,
//! dict = 40 distinct large values, PFOR = 4-bit values with 1 % 40-bit spikes, raw = full
//! range, bools = alternating, floats: prices (ALP), a low-bit walk (Gorilla), a cycle of 10
//! (Chimp128).
//!
//! `cargo bench --bench qpack -- --quick`

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use qdf_core::__qpack::{
    Kind, alp, chimp, decode, encode_bools, encode_ints, encode_u64s, gorilla,
};
use qdf_core::Features;
use qdf_fixtures::SplitMix64;
use std::hint::black_box;

fn int_inputs(n: usize) -> Vec<(&'static str, Vec<u64>)> {
    let r = SplitMix64::u64s(7, n);
    vec![
        (
            "for20",
            r.iter().map(|v| 1_000_000 + (v & 0xF_FFFF)).collect(),
        ),
        ("for32", r.iter().map(|v| v & 0x7FFF_FFFF).collect()),
        (
            "delta5",
            r.iter()
                .enumerate()
                .map(|(i, v)| 1_700_000_000_000 + 20 * i as u64 + (v & 15))
                .collect(),
        ),
        ("rle", (0..n as u64).map(|i| i / 50 % 7).collect()),
        ("dict", r.iter().map(|v| (v % 40) * 1_000_000_007).collect()),
        (
            "pfor",
            r.iter()
                .map(|v| if v % 100 == 0 { v >> 24 } else { v & 15 })
                .collect(),
        ),
        ("raw", r.clone()),
    ]
}

fn bench_ints(c: &mut Criterion) {
    for n in [1024usize, 65_536] {
        for (name, vals) in int_inputs(n) {
            let mut enc = Vec::new();
            encode_u64s(&vals, &mut enc);
            let mut g = c.benchmark_group(format!("qpack/{name}/{n}"));
            g.throughput(Throughput::Elements(n as u64));
            g.bench_function(
                BenchmarkId::new("encode", format!("tag {:02X}", enc[0])),
                |b| {
                    let mut out = Vec::with_capacity(enc.len());
                    b.iter(|| {
                        out.clear();
                        encode_ints(black_box(&vals), Kind::U64, &mut out);
                    })
                },
            );
            g.throughput(Throughput::Bytes(8 * n as u64));
            g.bench_function(
                BenchmarkId::new("decode_bytes", format!("{} B in", enc.len())),
                |b| b.iter(|| decode(black_box(&enc), 0, &mut u64::MAX.clone()).unwrap()),
            );
            g.finish();
        }
    }
}

fn bench_floats(c: &mut Criterion) {
    for n in [1024usize, 65_536] {
        let r = SplitMix64::u64s(9, n);
        let prices: Vec<f64> = r.iter().map(|v| (v % 1_000_000) as f64 / 100.0).collect();
        let walk: Vec<f64> = (0..n as u64)
            .map(|i| f64::from_bits(0x4009_21FB_5444_2D18 + (r[i as usize] & 255)))
            .collect();
        let cycle: Vec<f64> = (0..n).map(|i| f64::from_bits(r[i % 10] >> 2)).collect();
        type Enc = fn(&[f64], &mut Vec<u8>);
        let alp_enc: Enc = |v, out| alp::plan(v).encode(0x0B, out);
        let cases: [(&str, &Vec<f64>, Enc); 3] = [
            ("alp", &prices, alp_enc),
            ("gorilla", &walk, gorilla::encode_f64),
            ("chimp128", &cycle, chimp::encode),
        ];
        for (name, vals, enc_fn) in cases {
            let mut enc = Vec::new();
            enc_fn(vals, &mut enc);
            let mut g = c.benchmark_group(format!("qpack/{name}/{n}"));
            g.throughput(Throughput::Elements(n as u64));
            g.bench_function(
                BenchmarkId::new("encode", format!("{} B out", enc.len())),
                |b| {
                    let mut out = Vec::with_capacity(enc.len());
                    b.iter(|| {
                        out.clear();
                        enc_fn(black_box(vals), &mut out);
                    })
                },
            );
            g.throughput(Throughput::Bytes(8 * n as u64));
            g.bench_function("decode_bytes", |b| {
                b.iter(|| decode(black_box(&enc), 0, &mut u64::MAX.clone()).unwrap())
            });
            g.finish();
        }
        let mut g = c.benchmark_group(format!("qpack/pick_f64_compression/{n}"));
        g.throughput(Throughput::Elements(n as u64));
        g.bench_function("encode", |b| {
            let mut out = Vec::new();
            b.iter(|| {
                out.clear();
                qdf_core::__qpack::encode_f64s(black_box(&prices), &mut out, Features::COMPRESSION);
            })
        });
        g.finish();
        let bools: Vec<bool> = (0..n).map(|i| i % 3 == 0).collect();
        let mut enc = Vec::new();
        encode_bools(&bools, &mut enc);
        let mut g = c.benchmark_group(format!("qpack/bools/{n}"));
        g.throughput(Throughput::Elements(n as u64));
        g.bench_function("decode", |b| {
            b.iter(|| decode(black_box(&enc), 0, &mut u64::MAX.clone()).unwrap())
        });
        g.finish();
    }
}

/// End to end through serde: a `Vec<i64>` of jittered timestamps, packed (Balanced) versus
/// plain (Speed), encode and decode into `Vec<i64>`.
fn bench_serde(c: &mut Criterion) {
    let n = 65_536usize;
    let r = SplitMix64::u64s(11, n);
    let ts: Vec<i64> = r
        .iter()
        .enumerate()
        .map(|(i, v)| 1_700_000_000_000 + 20 * i as i64 + (v & 15) as i64)
        .collect();
    for (tier, opts) in [
        ("balanced", qdf_core::Options::balanced()),
        ("speed", qdf_core::Options::speed()),
    ] {
        let bytes = qdf_core::to_vec_with(&ts, opts).unwrap();
        let mut g = c.benchmark_group(format!("qpack/serde_vec_i64/{n}/{tier}"));
        g.throughput(Throughput::Elements(n as u64));
        g.bench_function(
            BenchmarkId::new("encode", format!("{} B", bytes.len())),
            |b| b.iter(|| qdf_core::to_vec_with(black_box(&ts), opts).unwrap()),
        );
        g.bench_function("decode", |b| {
            b.iter(|| qdf_core::from_slice::<Vec<i64>>(black_box(&bytes)).unwrap())
        });
        g.finish();
    }
}

criterion_group!(benches, bench_ints, bench_floats, bench_serde);
criterion_main!(benches);
