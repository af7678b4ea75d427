//! Issue #25's measurements: unary batch-10 logs and spans messages, and single one-record
//! bodies, with and without a pre-shared dictionary, against protobuf, protobuf + zstd and
//! protobuf + zstd with a zstd dictionary trained on the same samples.
//!
//! The batches are those of the gRPC table's batch-10 rows (`examples/telemetry-grpc`'s
//! `log_batches` / `span_batches`: consecutive records of qdf-fixtures' Logs generator, or one
//! resource with one scope of 10 spans of its OTLP generator), in the same envelope. The
//! dictionaries (qdf's and zstd's, the same byte budget) are trained on the first
//! [`TRAIN`] batches and measured on the next [`TEST`] ones, which they never saw. Sizes are
//! message bytes (qdf: header and dictionary id included; no gRPC or HTTP framing), the mean
//! over the test messages rounded down. Deterministic.

use prost::Message;
use qdf_core::{Dictionary, Options};
use qdf_fixtures::Dataset;
use qdf_fixtures::synth::{logs, otlp};
use serde::{Deserialize, Serialize};

/// Batches the dictionaries are trained on.
pub const TRAIN: usize = 100;
/// Batches measured (after the training ones).
pub const TEST: usize = 100;
/// Records per batch.
pub const BATCH: usize = 10;
/// Bytes of each dictionary file (qdf's and zstd's).
pub const BUDGET: usize = 4096;
/// zstd level (tonic's gRPC compression level).
pub const LEVEL: i32 = 3;

/// `telemetry_grpc::model::ExportRequest`'s fields and tags (the gRPC table's message; that
/// crate is not a dependency here: it pulls in tonic).
#[derive(Clone, PartialEq, Serialize, Deserialize, prost::Message)]
pub struct ExportRequest {
    /// Exporter-chosen id.
    #[prost(uint64, tag = "1")]
    pub batch_id: u64,
    /// Log records.
    #[prost(message, repeated, tag = "2")]
    pub logs: Vec<logs::pb::LogRecord>,
    /// Spans grouped by resource.
    #[prost(message, repeated, tag = "3")]
    pub spans: Vec<otlp::pb::ResourceSpans>,
}

/// Mean message bytes of one workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sizes {
    /// qdf Balanced, `to_vec_with`.
    pub qdf: usize,
    /// qdf Balanced on the trained dictionary, `to_vec_with_dictionary`.
    pub qdf_dict: usize,
    /// protobuf (prost).
    pub prost: usize,
    /// protobuf + zstd.
    pub prost_zstd: usize,
    /// protobuf + zstd with a zstd dictionary trained on the same samples.
    pub prost_zstd_dict: usize,
    /// Entries of the qdf dictionary.
    pub dict_entries: usize,
    /// Shapes of the qdf dictionary (`docs/SPEC.md` §25.2).
    pub dict_shapes: usize,
    /// Of `qdf_dict`: what the random hex ids (trace and span ids, strings of 16 or 32 hex
    /// digits), which no dictionary can hold, add to the message: its bytes minus those of
    /// the same message with each id empty (in rows hex text, 4 bits a digit plus 3 bytes
    /// each, `docs/SPEC.md` §9; packed 4 bits a digit in a hex-text column). Their entropy is 4 bits a digit.
    pub hex_ids: usize,
}

/// Empties every hex id (a string of 16 or more hex digits) in `v` (see
/// [`Sizes::hex_ids`]).
fn blank_hex_ids(v: &mut qdf_core::Value) {
    use qdf_core::Value;
    match v {
        Value::Str(s) if s.len() >= 16 && s.bytes().all(|b| b.is_ascii_hexdigit()) => s.clear(),
        Value::Array(xs) => xs.iter_mut().for_each(blank_hex_ids),
        Value::Map(kv) => kv.iter_mut().for_each(|(_, x)| blank_hex_ids(x)),
        Value::Some(x) => blank_hex_ids(x),
        _ => {}
    }
}

/// `count` log batches (ids `0..count`), as `telemetry_grpc::data::log_batches`.
pub fn log_batches(count: usize) -> Vec<ExportRequest> {
    let mut records = logs::log_batch(count * BATCH)
        .to_proto()
        .records
        .into_iter();
    (0..count as u64)
        .map(|batch_id| ExportRequest {
            batch_id,
            logs: records.by_ref().take(BATCH).collect(),
            spans: Vec::new(),
        })
        .collect()
}

/// `count` span batches, as `telemetry_grpc::data::span_batches`.
pub fn span_batches(count: usize) -> Vec<ExportRequest> {
    let export = otlp::trace_export(count, BATCH).to_proto();
    (0..)
        .zip(export.resource_spans)
        .map(|(batch_id, mut resource)| {
            resource.scopes.truncate(1);
            ExportRequest {
                batch_id,
                logs: Vec::new(),
                spans: vec![resource],
            }
        })
        .collect()
}

/// Trains on `train`, measures `test`; every qdf message is checked to decode back exactly.
pub fn measure<T>(train: &[T], test: &[T]) -> Sizes
where
    T: Serialize + for<'de> Deserialize<'de> + Message + PartialEq + std::fmt::Debug,
{
    let opts = Options::balanced();
    let dict = Dictionary::train(train, opts, BUDGET).expect("trains");
    let protos: Vec<Vec<u8>> = train.iter().map(Message::encode_to_vec).collect();
    let zdict = zstd::dict::from_samples(&protos, BUDGET).expect("zstd trains");
    let mut plain_z = zstd::bulk::Compressor::new(LEVEL).expect("zstd");
    let mut dict_z = zstd::bulk::Compressor::with_dictionary(LEVEL, &zdict).expect("zstd");
    let mut s = [0usize; 6];
    for v in test {
        let a = qdf_core::to_vec_with(v, opts).expect("encodes");
        let b = qdf_core::to_vec_with_dictionary(v, opts, &dict).expect("encodes");
        let back: T = qdf_core::from_slice_with_dictionary(&b, opts, &dict).expect("decodes");
        assert_eq!(&back, v);
        let p = v.encode_to_vec();
        s[0] += a.len();
        s[1] += b.len();
        s[2] += p.len();
        s[3] += plain_z.compress(&p).expect("zstd").len();
        s[4] += dict_z.compress(&p).expect("zstd").len();
        let mut blank = qdf_core::to_value(v).expect("to_value");
        blank_hex_ids(&mut blank);
        let blank: T = qdf_core::from_value(blank).expect("from_value");
        let c = qdf_core::to_vec_with_dictionary(&blank, opts, &dict).expect("encodes");
        s[5] += b.len() - c.len();
    }
    let n = test.len().max(1);
    Sizes {
        qdf: s[0] / n,
        qdf_dict: s[1] / n,
        prost: s[2] / n,
        prost_zstd: s[3] / n,
        prost_zstd_dict: s[4] / n,
        dict_entries: dict.len(),
        dict_shapes: dict.shape_count(),
        hex_ids: s[5] / n,
    }
}

/// The four rows: (workload, sizes).
pub fn rows() -> Vec<(&'static str, Sizes)> {
    let (n, t) = (TRAIN, TRAIN + TEST);
    let logs = log_batches(t);
    let spans = span_batches(t);
    let log_records: Vec<logs::pb::LogRecord> = logs.iter().flat_map(|b| b.logs.clone()).collect();
    let span_records: Vec<otlp::pb::Span> = spans
        .iter()
        .flat_map(|b| b.spans[0].scopes[0].spans.clone())
        .collect();
    // One-record bodies: train on the records of the training batches, measure the next
    // TEST records.
    let m = n * BATCH;
    vec![
        ("logs, batch of 10", measure(&logs[..n], &logs[n..])),
        ("spans, batch of 10", measure(&spans[..n], &spans[n..])),
        (
            "logs, one record",
            measure(&log_records[..m], &log_records[m..m + TEST]),
        ),
        (
            "spans, one record",
            measure(&span_records[..m], &span_records[m..m + TEST]),
        ),
    ]
}
