//! The messages of the `Collector` service.
//!
//! Each type derives both serde (for qdf) and `prost::Message` (for protobuf), so the two
//! services carry exactly the same values and the comparison needs no conversion. Field
//! types are what a protobuf user would write: varints for integers, `string` for ids,
//! `map<string, string>` for attributes. Records have the fields, types and protobuf tags of
//! qdf-fixtures' Logs and OTLP twins (`synth::logs`, `synth::otlp`); [`crate::data`] converts
//! the fixtures' values into them.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// One log line.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, prost::Message)]
pub struct LogRecord {
    /// Unix time in nanoseconds.
    #[prost(int64, tag = "1")]
    pub ts: i64,
    /// Severity, 0 (debug) to 4 (fatal).
    #[prost(int64, tag = "2")]
    pub level: i64,
    /// Emitting service, e.g. `"api"`.
    #[prost(string, tag = "3")]
    pub service: String,
    /// Emitting host, e.g. `"host-c"`.
    #[prost(string, tag = "4")]
    pub host: String,
    /// The message text.
    #[prost(string, tag = "5")]
    pub message: String,
    /// 32 lowercase hex digits.
    #[prost(string, tag = "6")]
    pub trace_id: String,
    /// 16 lowercase hex digits.
    #[prost(string, tag = "7")]
    pub span_id: String,
    /// Structured fields, ordered by key.
    #[prost(btree_map = "string, string", tag = "8")]
    pub fields: BTreeMap<String, String>,
}

/// A key/value attribute of a span.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, prost::Message)]
pub struct KeyValue {
    /// Attribute name, e.g. `"http.method"`.
    #[prost(string, tag = "1")]
    pub key: String,
    /// Attribute value as text.
    #[prost(string, tag = "2")]
    pub value: String,
}

/// One span of a trace.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, prost::Message)]
pub struct Span {
    /// 32 lowercase hex digits, shared by the spans of one scope.
    #[prost(string, tag = "1")]
    pub trace_id: String,
    /// 16 lowercase hex digits.
    #[prost(string, tag = "2")]
    pub span_id: String,
    /// 16 lowercase hex digits.
    #[prost(string, tag = "3")]
    pub parent_id: String,
    /// Operation name, e.g. `"db.query"`.
    #[prost(string, tag = "4")]
    pub name: String,
    /// Span kind, 0 to 5.
    #[prost(int64, tag = "5")]
    pub kind: i64,
    /// Start, Unix nanoseconds.
    #[prost(int64, tag = "6")]
    pub start_ns: i64,
    /// End, Unix nanoseconds.
    #[prost(int64, tag = "7")]
    pub end_ns: i64,
    /// Attributes in recording order.
    #[prost(message, repeated, tag = "8")]
    pub attrs: Vec<KeyValue>,
    /// Status code, 0 to 2.
    #[prost(int64, tag = "9")]
    pub status: i64,
}

/// The spans of one instrumentation scope.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, prost::Message)]
pub struct ScopeSpans {
    /// Instrumentation library name.
    #[prost(string, tag = "1")]
    pub scope: String,
    /// The spans.
    #[prost(message, repeated, tag = "2")]
    pub spans: Vec<Span>,
}

/// The spans of one resource (a service instance).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, prost::Message)]
pub struct ResourceSpans {
    /// Resource attributes: `service.name`, `service.version`, `deployment.env`.
    #[prost(btree_map = "string, string", tag = "1")]
    pub resource: BTreeMap<String, String>,
    /// Scopes in order.
    #[prost(message, repeated, tag = "2")]
    pub scopes: Vec<ScopeSpans>,
}

/// One batch sent by an exporter (and the item of a `Tail` stream).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, prost::Message)]
pub struct ExportRequest {
    /// Exporter-chosen id, echoed in [`BatchStatus`].
    #[prost(uint64, tag = "1")]
    pub batch_id: u64,
    /// Log records.
    #[prost(message, repeated, tag = "2")]
    pub logs: Vec<LogRecord>,
    /// Spans grouped by resource.
    #[prost(message, repeated, tag = "3")]
    pub spans: Vec<ResourceSpans>,
}

impl ExportRequest {
    /// Spans over all resources and scopes.
    pub fn span_count(&self) -> usize {
        let scopes = self.spans.iter().flat_map(|r| &r.scopes);
        scopes.map(|s| s.spans.len()).sum()
    }
}

/// Reply to a client-streaming `Export`: what the whole stream carried.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, prost::Message)]
pub struct ExportSummary {
    /// Batches received.
    #[prost(uint64, tag = "1")]
    pub batches: u64,
    /// Log records received.
    #[prost(uint64, tag = "2")]
    pub logs: u64,
    /// Spans received.
    #[prost(uint64, tag = "3")]
    pub spans: u64,
}

/// Per-batch acknowledgement of the bidi `Stream` method (as OTel Arrow's `BatchStatus`).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, prost::Message)]
pub struct BatchStatus {
    /// The acknowledged [`ExportRequest::batch_id`].
    #[prost(uint64, tag = "1")]
    pub batch_id: u64,
    /// Log records in that batch.
    #[prost(uint32, tag = "2")]
    pub logs: u32,
    /// Spans in that batch.
    #[prost(uint32, tag = "3")]
    pub spans: u32,
}

/// Request of the server-streaming `Tail`: the held batches' logs of one service.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, prost::Message)]
pub struct TailRequest {
    /// Keep only logs of this service; empty keeps all logs and spans.
    #[prost(string, tag = "1")]
    pub service: String,
}

/// Request of the unary `Query`.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, prost::Message)]
pub struct QueryRequest {
    /// Keep only logs of this service; empty matches all.
    #[prost(string, tag = "1")]
    pub service: String,
    /// Keep only logs at this level or above.
    #[prost(int64, tag = "2")]
    pub min_level: i64,
    /// Most records returned.
    #[prost(uint32, tag = "3")]
    pub limit: u32,
}

/// Reply of `Query`: matching records, oldest first.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, prost::Message)]
pub struct QueryResponse {
    /// The records.
    #[prost(message, repeated, tag = "1")]
    pub records: Vec<LogRecord>,
}
