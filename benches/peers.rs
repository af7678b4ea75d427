//! Encode and decode of every dataset by every peer and qdf tier, one criterion group per
//! dataset (see docs/BENCH.md), the shapes of `qdf_fixtures::outside` last. `cargo test --benches` runs each benchmark once.
//!
//! ```sh
//! cargo bench --bench peers -- --warm-up-time 1 --measurement-time 2
//! ```

#[path = "../tests/support/mod.rs"]
mod support;

mod common;

use criterion::{Criterion, criterion_group, criterion_main};
use qdf_fixtures::outside::visit_outside;
use qdf_fixtures::{Dataset, Visitor, visit_all};

struct Groups<'a>(&'a mut Criterion);

impl Visitor for Groups<'_> {
    fn visit<D: Dataset>(&mut self, name: &'static str, data: &D) {
        common::bench_codecs(self.0, name, data, &support::all_codecs::<D>(), true);
    }
}

fn peers(c: &mut Criterion) {
    visit_all(&mut Groups(c));
    visit_outside(&mut Groups(c));
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = peers
}
criterion_main!(benches);
