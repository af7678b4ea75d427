//! The messages of the `Collector` service.
//!
//! Each type derives both serde (for qdf) and `prost::Message` (for protobuf), so the two
//! services carry exactly the same values and the comparison needs no conversion. Field
//! types are what a protobuf user would write: varints for integers, `string` for ids,
//! `map<string, string>` for attributes. The records are qdf-fixtures' protobuf twins of its
//! Logs and OTLP fixtures (`synth::logs::pb`, `synth::otlp::pb`), re-exported here; the
//! envelopes and replies below are this service's own.

use serde::{Deserialize, Serialize};

pub use qdf_fixtures::synth::logs::pb::LogRecord;
pub use qdf_fixtures::synth::otlp::pb::{KeyValue, ResourceSpans, ScopeSpans, Span};

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
