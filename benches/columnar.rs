//! Subset decode of a columnar container: 3 of 16 columns of a 5 000-row batch, against a full
//! decode of the same bytes, with the column index (`Features::COLUMN_INDEX`, the skipped
//! columns are jumped over) and without it (they are decoded and dropped). Issue 6 target:
//! with the index, the subset decode is at least 3× faster than the full one.
//!
//! ```sh
//! cargo bench --bench columnar -- --warm-up-time 1 --measurement-time 3
//! ```

use criterion::{Criterion, criterion_group, criterion_main};
use qdf::{Features, Options};
use serde::{Deserialize, Serialize};
use std::hint::black_box;

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Wide {
    f00: u32,
    f01: String,
    f02: f64,
    f03: bool,
    f04: u32,
    f05: String,
    f06: i64,
    f07: f64,
    f08: u32,
    f09: String,
    f10: u64,
    f11: f32,
    f12: u32,
    f13: String,
    f14: i32,
    f15: bool,
}

#[derive(Deserialize, Debug, PartialEq)]
struct Three {
    f02: f64,
    f09: String,
    f14: i32,
}

fn wide(n: usize) -> Vec<Wide> {
    (0..n)
        .map(|i| Wide {
            f00: i as u32,
            f01: format!("host-{}", i % 10),
            f02: i as f64 * 1.25,
            f03: i % 3 == 0,
            f04: (i * 7 % 1000) as u32,
            f05: format!("user{}@example.com", i * 37),
            f06: -(i as i64) * 1000,
            f07: (i as f64).sqrt(),
            f08: 42,
            f09: format!("{:016x}", (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)),
            f10: i as u64 * 1_000_000,
            f11: i as f32 / 3.0,
            f12: (i % 5) as u32,
            f13: ["GET", "POST", "PUT"][i % 3].to_string(),
            f14: -(i as i32 % 50),
            f15: true,
        })
        .collect()
}

fn subset(c: &mut Criterion) {
    let v = wide(5000);
    let indexed_opts =
        Options::balanced().features(Features::BALANCED.with(Features::COLUMN_INDEX));
    for (label, opts) in [("indexed", indexed_opts), ("no index", Options::balanced())] {
        let bytes = qdf::to_vec_with(&v, opts).unwrap();
        let three: Vec<Three> = qdf::from_slice(&bytes).unwrap();
        assert_eq!(three.len(), 5000);
        let mut g = c.benchmark_group(format!("columnar subset 3 of 16, 5000 rows, {label}"));
        g.bench_function("full decode", |b| {
            b.iter(|| qdf::from_slice::<Vec<Wide>>(black_box(&bytes)).unwrap())
        });
        g.bench_function("3 columns", |b| {
            b.iter(|| qdf::from_slice::<Vec<Three>>(black_box(&bytes)).unwrap())
        });
        g.finish();
    }
}

criterion_group!(benches, subset);
criterion_main!(benches);
