//! Telemetry in `opentelemetry-proto`'s own request types (OTLP, crate feature `with-serde`),
//! for measuring qdf on what OpenTelemetry users already hold.
//!
//! - [`demo`]: a seeded generator shaped like the OpenTelemetry demo ("Astronomy shop",
//!   formerly "Hipster shop"): 11 services with resource attributes, traces of 5–50 spans with
//!   HTTP, RPC, database and messaging semantic-convention attributes, log records carrying the
//!   trace and span ids of their span, and a few metrics of every data-point kind.
//! - [`zipkin`]: the shipped Zipkin trace ([`crate::real::zipkin`]) mapped to OTLP spans by the
//!   Zipkin → OTLP mapping of the OpenTelemetry specification.
//!
//! Batches are grouped the way exporters and collectors send them: one `Resource*` entry per
//! service (in the order services first appear in the batch) and inside it one `Scope*` entry
//! per instrumentation scope (same order).

pub mod demo;
pub mod zipkin;

use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value::Value};

pub use opentelemetry_proto::tonic::collector::logs::v1::ExportLogsServiceRequest;
pub use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
pub use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;

/// A string attribute.
pub fn kv_str(key: &str, value: impl Into<String>) -> KeyValue {
    kv(key, Value::StringValue(value.into()))
}

/// An integer attribute.
pub fn kv_int(key: &str, value: i64) -> KeyValue {
    kv(key, Value::IntValue(value))
}

/// A double attribute.
pub fn kv_f64(key: &str, value: f64) -> KeyValue {
    kv(key, Value::DoubleValue(value))
}

/// A boolean attribute.
pub fn kv_bool(key: &str, value: bool) -> KeyValue {
    kv(key, Value::BoolValue(value))
}

/// An attribute with any value.
pub fn kv(key: &str, value: Value) -> KeyValue {
    KeyValue {
        key: key.to_owned(),
        value: Some(AnyValue { value: Some(value) }),
        key_strindex: 0,
    }
}

/// Records grouped by resource index, then by scope index.
pub(crate) type Groups<T> = Vec<(usize, Vec<(usize, Vec<T>)>)>;

/// Groups `items` tagged with `(resource, scope)` indexes into nested groups, resources and
/// scopes in the order they first appear, items in their original order.
pub(crate) fn group<T>(items: impl IntoIterator<Item = (usize, usize, T)>) -> Groups<T> {
    let mut out: Groups<T> = Vec::new();
    for (resource, scope, item) in items {
        let r = match out.iter().position(|(r, _)| *r == resource) {
            Some(i) => i,
            None => {
                out.push((resource, Vec::new()));
                out.len() - 1
            }
        };
        let scopes = &mut out[r].1;
        match scopes.iter_mut().find(|(s, _)| *s == scope) {
            Some((_, v)) => v.push(item),
            None => scopes.push((scope, vec![item])),
        }
    }
    out
}

/// Span count of a trace export request.
pub fn span_count(req: &ExportTraceServiceRequest) -> usize {
    let scopes = req.resource_spans.iter().flat_map(|r| &r.scope_spans);
    scopes.map(|s| s.spans.len()).sum()
}

/// Log record count of a logs export request.
pub fn log_count(req: &ExportLogsServiceRequest) -> usize {
    let scopes = req.resource_logs.iter().flat_map(|r| &r.scope_logs);
    scopes.map(|s| s.log_records.len()).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn group_keeps_first_appearance_order() {
        let items = [
            (2, 0, 'a'),
            (1, 1, 'b'),
            (2, 1, 'c'),
            (2, 0, 'd'),
            (1, 0, 'e'),
        ];
        let g = group(items);
        assert_eq!(
            g,
            vec![
                (2, vec![(0, vec!['a', 'd']), (1, vec!['c'])]),
                (1, vec![(1, vec!['b']), (0, vec!['e'])]),
            ]
        );
    }
}
