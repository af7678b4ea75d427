//! Telemetry batches cut from qdf-fixtures' Logs and OTLP generators (the Go library's
//! `mkLogBatch` and `mkOTLPBatch`: same pools, cardinalities, id shapes and seeds).
//!
//! A stream of `count` batches of `size` records takes consecutive records of one fixture
//! run, so the batches of a stream differ the way successive exports of one process do:
//! new ids and timestamps, the same service, host, operation and attribute names.

use qdf_fixtures::synth::{logs, otlp};

use crate::model::{ExportRequest, KeyValue, LogRecord, ResourceSpans, ScopeSpans, Span};

/// `count` batches (ids `0..count`) of `size` log records: records `i·size .. (i+1)·size`
/// of `logs::log_batch(count · size)` in batch `i`.
pub fn log_batches(count: usize, size: usize) -> Vec<ExportRequest> {
    let mut records = logs::log_batch(count * size).records.into_iter();
    (0..count as u64)
        .map(|batch_id| ExportRequest {
            batch_id,
            logs: records.by_ref().take(size).map(LogRecord::from).collect(),
            spans: Vec::new(),
        })
        .collect()
}

/// `count` batches (ids `0..count`) of `size` spans: batch `i` is resource `i` of
/// `otlp::trace_export(count, size)` with its first scope (`size` spans of one trace).
pub fn span_batches(count: usize, size: usize) -> Vec<ExportRequest> {
    let export = otlp::trace_export(count, size);
    (0..)
        .zip(export.resource_spans)
        .map(|(batch_id, mut resource)| {
            resource.scopes.truncate(1);
            ExportRequest {
                batch_id,
                logs: Vec::new(),
                spans: vec![ResourceSpans::from(resource)],
            }
        })
        .collect()
}

/// Batch `id` of [`log_batches`]`(id + 1, size)`.
pub fn log_batch(id: u64, size: usize) -> ExportRequest {
    let mut batches = log_batches(id as usize + 1, size);
    batches.pop().unwrap_or_default()
}

impl From<logs::LogRecord> for LogRecord {
    fn from(r: logs::LogRecord) -> Self {
        LogRecord {
            ts: r.ts,
            level: r.level,
            service: r.service,
            host: r.host,
            message: r.message,
            trace_id: r.trace_id,
            span_id: r.span_id,
            fields: r.fields,
        }
    }
}

impl From<otlp::ResourceSpans> for ResourceSpans {
    fn from(r: otlp::ResourceSpans) -> Self {
        let scopes = r.scopes.into_iter().map(|s| ScopeSpans {
            scope: s.scope,
            spans: s.spans.into_iter().map(Span::from).collect(),
        });
        ResourceSpans {
            resource: r.resource,
            scopes: scopes.collect(),
        }
    }
}

impl From<otlp::Span> for Span {
    fn from(s: otlp::Span) -> Self {
        let attrs = s.attrs.into_iter().map(|kv| KeyValue {
            key: kv.key,
            value: kv.value,
        });
        Span {
            trace_id: s.trace_id,
            span_id: s.span_id,
            parent_id: s.parent_id,
            name: s.name,
            kind: s.kind,
            start_ns: s.start_ns,
            end_ns: s.end_ns,
            attrs: attrs.collect(),
            status: s.status,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_batches_are_consecutive_fixture_records() {
        let fixture = logs::log_batch(30).records;
        let batches = log_batches(3, 10);
        assert_eq!(batches.len(), 3);
        for (i, b) in batches.iter().enumerate() {
            assert_eq!(b.batch_id, i as u64);
            assert_eq!(b.logs.len(), 10);
            assert_eq!(b.logs[0], LogRecord::from(fixture[i * 10].clone()));
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
