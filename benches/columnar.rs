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
use std::hint::black_box;

#[path = "../tests/support/subset.rs"]
mod subset;
use subset::{Three, Wide, wide};

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
