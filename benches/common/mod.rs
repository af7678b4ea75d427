//! Shared by the benches: one criterion group per dataset with encode and decode per codec.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput};

/// The benches' criterion settings: ten samples a benchmark (the `peers` bench runs every
/// dataset × codec), which `--sample-size N` on the command line overrides for a steadier median.
pub fn config() -> Criterion {
    Criterion::default().sample_size(10)
}
use qdf_fixtures::Dataset;
use qdf_fixtures::peers::Codec;

/// Benches `codecs` on `data` in group `group`: `encode/<codec>` and `decode/<codec>`, each
/// with `Throughput::Bytes` of the serde_json size, so MB/s compare across codecs; with
/// `prost_msg`, also prost on an already built message (`encode/prost-msg`, `decode/prost-msg`).
/// Sample count and times come from [`config`] and the command line (`--sample-size`,
/// `--measurement-time`).
///
/// # Panics
/// If a codec fails to round-trip `data` (its speed would not count).
pub fn bench_codecs<D: Dataset>(
    c: &mut Criterion,
    group: &str,
    data: &D,
    codecs: &[Codec<D>],
    prost_msg: bool,
) {
    let json_len = serde_json::to_vec(data).expect("serde_json encodes").len();
    let mut g = c.benchmark_group(group);
    g.throughput(Throughput::Bytes(json_len as u64));
    for codec in codecs {
        let bytes = codec
            .round_trip(data)
            .unwrap_or_else(|e| panic!("{group}: {e}"));
        g.bench_function(BenchmarkId::new("encode", codec.name), |b| {
            b.iter(|| (codec.encode)(black_box(data)).expect("encodes"))
        });
        g.bench_function(BenchmarkId::new("decode", codec.name), |b| {
            b.iter(|| (codec.decode)(black_box(&bytes)).expect("decodes"))
        });
    }
    if prost_msg {
        bench_prost_message(&mut g, data);
    }
    g.finish();
}

/// prost without the serde-type conversion: encode an already built message, decode into the
/// message type (what a prost-native service does; the `prost` codec includes the conversion).
fn bench_prost_message<D: Dataset>(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    data: &D,
) {
    use prost::Message;
    let msg = data.to_proto();
    let bytes = msg.encode_to_vec();
    g.bench_function(BenchmarkId::new("encode", "prost-msg"), |b| {
        b.iter(|| black_box(&msg).encode_to_vec())
    });
    g.bench_function(BenchmarkId::new("decode", "prost-msg"), |b| {
        b.iter(|| D::Proto::decode(black_box(bytes.as_slice())).expect("decodes"))
    });
}
