//! Telemetry batches cut from qdf-fixtures' Logs and OTLP generators (the Go library's
//! `mkLogBatch` and `mkOTLPBatch`: same pools, cardinalities, id shapes and seeds).
//!
//! A stream of `count` batches of `size` records takes consecutive records of one fixture
//! run, so the batches of a stream differ the way successive exports of one process do:
//! new ids and timestamps, the same service, host, operation and attribute names.

use qdf_fixtures::Dataset;
use qdf_fixtures::synth::{logs, otlp};

use crate::model::ExportRequest;

/// `count` batches (ids `0..count`) of `size` log records: records `i·size .. (i+1)·size`
/// of `logs::log_batch(count · size)` in batch `i`.
pub fn log_batches(count: usize, size: usize) -> Vec<ExportRequest> {
    let mut records = logs::log_batch(count * size).to_proto().records.into_iter();
    (0..count as u64)
        .map(|batch_id| ExportRequest {
            batch_id,
            logs: records.by_ref().take(size).collect(),
            spans: Vec::new(),
        })
        .collect()
}

/// `count` batches (ids `0..count`) of `size` spans: batch `i` is resource `i` of
/// `otlp::trace_export(count, size)` with its first scope (`size` spans of one trace).
pub fn span_batches(count: usize, size: usize) -> Vec<ExportRequest> {
    let export = otlp::trace_export(count, size).to_proto();
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

/// Batch `id` of [`log_batches`]`(id + 1, size)`.
pub fn log_batch(id: u64, size: usize) -> ExportRequest {
    let mut batches = log_batches(id as usize + 1, size);
    batches.pop().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_batches_are_consecutive_fixture_records() {
        let fixture = logs::log_batch(30).to_proto().records;
        let batches = log_batches(3, 10);
        assert_eq!(batches.len(), 3);
        for (i, b) in batches.iter().enumerate() {
            assert_eq!(b.batch_id, i as u64);
            assert_eq!(b.logs.len(), 10);
            assert_eq!(b.logs[0], fixture[i * 10]);
            assert!(b.spans.is_empty());
        }
        assert_eq!(log_batch(2, 10), batches[2]);
    }

    #[test]
    fn span_batches_hold_one_scope_of_size_spans() {
        let batches = span_batches(4, 25);
        assert_eq!(batches.len(), 4);
        for b in &batches {
            assert_eq!(b.span_count(), 25);
            assert_eq!(b.spans.len(), 1);
            let trace = &b.spans[0].scopes[0].spans[0].trace_id;
            assert_eq!(trace.len(), 32);
            assert!(
                b.spans[0].scopes[0]
                    .spans
                    .iter()
                    .all(|s| &s.trace_id == trace)
            );
        }
        assert_eq!(span_batches(4, 25), batches);
    }
}
