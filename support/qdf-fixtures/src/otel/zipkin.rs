//! The shipped Zipkin trace ([`crate::real::zipkin`], 1,041 spans of 16 services) as OTLP
//! spans, by the Zipkin → OTLP mapping of the OpenTelemetry specification
//! (`specification/trace/sdk_exporters/zipkin.md`, read in reverse, as the Collector's Zipkin
//! receiver does):
//!
//! | Zipkin v2 | OTLP |
//! |---|---|
//! | `localEndpoint.serviceName` | resource attribute `service.name` (one `ResourceSpans` per service) |
//! | `localEndpoint.ipv4` / `.port` | span attributes `net.host.ip` / `net.host.port` (int) |
//! | `remoteEndpoint.serviceName` / `.ipv4` / `.port` | `peer.service` / `net.peer.ip` / `net.peer.port` (int) |
//! | `traceId` (16 or 32 hex digits) | `trace_id`, 16 bytes, a 64-bit id left-padded with zero bytes |
//! | `id`, `parentId` | `span_id`, `parent_span_id`, 8 bytes (no parent: empty) |
//! | `kind` `CLIENT`/`SERVER`/`PRODUCER`/`CONSUMER`, absent | the same `SpanKind`, absent → `INTERNAL` |
//! | `name` (absent → empty) | `name` |
//! | `timestamp`, `duration` (µs) | `start_time_unix_nano` = ts·1000, `end_time_unix_nano` = (ts + duration)·1000 (absent → 0) |
//! | `annotations` | `events`: `time_unix_nano` = ts·1000, `name` = value |
//! | `tags` | string attributes, except `error`, which becomes status `ERROR` with the tag's text as message |
//! | `shared` | attribute `zipkin.shared` = true (OTLP has no field for a span id shared by client and server) |
//!
//! One scope without name or version (Zipkin has no instrumentation scope), as the Collector's
//! receiver does.

use opentelemetry_proto::tonic::common::v1::InstrumentationScope;
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::span::{Event, SpanKind};
use opentelemetry_proto::tonic::trace::v1::status::StatusCode;
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span, Status};

use super::{ExportTraceServiceRequest, group, kv_bool, kv_int, kv_str};
use crate::real::zipkin as z;

/// The OTLP span of one Zipkin span (without its resource: see [`export`]).
///
/// # Panics
/// If an id is not hex of the lengths Zipkin v2 allows (16 or 32 digits for trace ids, 16 for
/// span ids); the shipped file's are.
pub fn span(s: &z::Span) -> Span {
    let mut attributes = Vec::new();
    if let Some(local) = &s.local_endpoint {
        if let Some(ip) = &local.ipv4 {
            attributes.push(kv_str("net.host.ip", ip.clone()));
        }
        if let Some(port) = local.port {
            attributes.push(kv_int("net.host.port", i64::from(port)));
        }
    }
    if let Some(remote) = &s.remote_endpoint {
        if let Some(name) = &remote.service_name {
            attributes.push(kv_str("peer.service", name.clone()));
        }
        if let Some(ip) = &remote.ipv4 {
            attributes.push(kv_str("net.peer.ip", ip.clone()));
        }
        if let Some(port) = remote.port {
            attributes.push(kv_int("net.peer.port", i64::from(port)));
        }
    }
    let mut status = None;
    for (key, value) in &s.tags {
        if key == "error" {
            status = Some(Status {
                message: value.clone(),
                code: StatusCode::Error as i32,
            });
        } else {
            attributes.push(kv_str(key, value.clone()));
        }
    }
    if s.shared == Some(true) {
        attributes.push(kv_bool("zipkin.shared", true));
    }
    let kind = match s.kind.as_deref() {
        Some("CLIENT") => SpanKind::Client,
        Some("SERVER") => SpanKind::Server,
        Some("PRODUCER") => SpanKind::Producer,
        Some("CONSUMER") => SpanKind::Consumer,
        _ => SpanKind::Internal,
    };
    let start = s.timestamp.unwrap_or(0);
    let events = s.annotations.iter().map(|a| Event {
        time_unix_nano: a.timestamp * 1000,
        name: a.value.clone(),
        attributes: Vec::new(),
        dropped_attributes_count: 0,
    });
    Span {
        trace_id: trace_id(&s.trace_id),
        span_id: id_bytes(&s.id, 8),
        trace_state: String::new(),
        parent_span_id: s
            .parent_id
            .as_deref()
            .map_or_else(Vec::new, |p| id_bytes(p, 8)),
        flags: 0,
        name: s.name.clone().unwrap_or_default(),
        kind: kind as i32,
        start_time_unix_nano: start * 1000,
        end_time_unix_nano: s
            .timestamp
            .map_or(0, |t| (t + s.duration.unwrap_or(0)) * 1000),
        attributes,
        dropped_attributes_count: 0,
        events: events.collect(),
        dropped_events_count: 0,
        links: Vec::new(),
        dropped_links_count: 0,
        status,
    }
}

/// `spans` as one export request: one `ResourceSpans` per local service name (a span without
/// one goes to a resource without attributes), one unnamed scope each.
pub fn export(spans: &[z::Span]) -> ExportTraceServiceRequest {
    let mut services: Vec<Option<&str>> = Vec::new();
    let tagged = spans.iter().map(|s| {
        let name = s
            .local_endpoint
            .as_ref()
            .and_then(|e| e.service_name.as_deref());
        let r = services.iter().position(|n| *n == name).unwrap_or_else(|| {
            services.push(name);
            services.len() - 1
        });
        (r, 0, span(s))
    });
    let grouped = group(tagged.collect::<Vec<_>>());
    let resource_spans = grouped.into_iter().map(|(r, scopes)| ResourceSpans {
        resource: Some(Resource {
            attributes: services[r]
                .map(|n| kv_str("service.name", n))
                .into_iter()
                .collect(),
            dropped_attributes_count: 0,
            entity_refs: Vec::new(),
        }),
        scope_spans: scopes
            .into_iter()
            .map(|(_, spans)| ScopeSpans {
                scope: Some(InstrumentationScope::default()),
                spans,
                schema_url: String::new(),
            })
            .collect(),
        schema_url: String::new(),
    });
    ExportTraceServiceRequest {
        resource_spans: resource_spans.collect(),
    }
}

/// The shipped trace in file order, cut into requests of `size` spans (the last may be
/// shorter).
///
/// # Panics
/// If the shipped file fails to load (it is part of the crate) or `size == 0`.
pub fn batches(size: usize) -> Vec<ExportTraceServiceRequest> {
    let trace = z::load().expect("shipped Zipkin file parses");
    trace.0.chunks(size).map(export).collect()
}

/// A 16-byte OTLP trace id from 16 or 32 hex digits (64-bit ids are left-padded with zeros).
fn trace_id(hex: &str) -> Vec<u8> {
    let mut id = vec![0; 16 - hex.len() / 2];
    id.extend(id_bytes(hex, hex.len() / 2));
    id
}

/// `len` bytes from `2·len` hex digits.
fn id_bytes(hex: &str, len: usize) -> Vec<u8> {
    assert_eq!(
        hex.len(),
        2 * len,
        "Zipkin id {hex:?} is not {len} bytes of hex"
    );
    (0..len)
        .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).expect("Zipkin ids are hex"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_the_whole_trace() {
        let all = batches(2000);
        assert_eq!(all.len(), 1);
        let req = &all[0];
        assert_eq!(super::super::span_count(req), 1041);
        assert_eq!(req.resource_spans.len(), 16);
        let spans: Vec<&Span> = req
            .resource_spans
            .iter()
            .flat_map(|r| &r.scope_spans)
            .flat_map(|s| &s.spans)
            .collect();
        assert!(
            spans
                .iter()
                .all(|s| s.trace_id.len() == 16 && s.span_id.len() == 8)
        );
        assert_eq!(spans.iter().map(|s| s.events.len()).sum::<usize>(), 92);
        let errors = spans.iter().filter(|s| s.status.is_some()).count();
        assert_eq!(errors, 2);
        let clients = spans
            .iter()
            .filter(|s| s.kind == SpanKind::Client as i32)
            .count();
        assert_eq!(clients, 628);
    }

    #[test]
    fn maps_one_span_field_by_field() {
        let s: z::Span = serde_json::from_str(
            r#"{"traceId":"14b60fd9ae504820","parentId":"017bfc73a014d42c","id":"60e1ace16723844a",
            "kind":"CLIENT","name":"post /events","timestamp":1543549826259342,"duration":2120,
            "localEndpoint":{"serviceName":"pusher","ipv4":"10.6.83.20","port":8197},
            "annotations":[{"timestamp":1543549826261000,"value":"Headers Received"}],
            "tags":{"http.url":"http://archiver.st.internal/events"}}"#,
        )
        .unwrap();
        let o = span(&s);
        assert_eq!(
            o.trace_id,
            [
                0, 0, 0, 0, 0, 0, 0, 0, 0x14, 0xb6, 0x0f, 0xd9, 0xae, 0x50, 0x48, 0x20
            ]
        );
        assert_eq!(o.span_id, [0x60, 0xe1, 0xac, 0xe1, 0x67, 0x23, 0x84, 0x4a]);
        assert_eq!(
            o.parent_span_id,
            [0x01, 0x7b, 0xfc, 0x73, 0xa0, 0x14, 0xd4, 0x2c]
        );
        assert_eq!(o.kind, SpanKind::Client as i32);
        assert_eq!(o.start_time_unix_nano, 1_543_549_826_259_342_000);
        assert_eq!(o.end_time_unix_nano, 1_543_549_826_261_462_000);
        assert_eq!(o.events[0].time_unix_nano, 1_543_549_826_261_000_000);
        assert_eq!(o.events[0].name, "Headers Received");
        let keys: Vec<&str> = o.attributes.iter().map(|kv| kv.key.as_str()).collect();
        assert_eq!(keys, ["net.host.ip", "net.host.port", "http.url"]);
    }
}
