//! # An OTLP collector that also takes qdf
//!
//! OpenTelemetry users already hold their telemetry in `opentelemetry-proto`'s types and send
//! it as OTLP. This example serves those same types, unchanged (crate feature `with-serde`),
//! three ways on one [`Collector`]:
//!
//! | endpoint | wire | module |
//! |---|---|---|
//! | `opentelemetry.proto.collector.{trace,logs,metrics}.v1.{Trace,Logs,Metrics}Service/Export` | OTLP/gRPC, protobuf, unary: the reference, `opentelemetry-proto`'s own generated server | [`grpc::serve_otlp`] |
//! | `qdf.otlp.v1.{Trace,Logs,Metrics}Service/Export` | gRPC, [`qdf_tonic::QdfCodec`], client streaming: one Dense session per stream | [`grpc::serve_qdf`] |
//! | `pb.otlp.v1.{Trace,Logs,Metrics}Service/Export` | the same stream with protobuf (`tonic_prost::ProstCodec`), for comparisons | [`grpc::serve_pb_stream`] |
//! | `POST /v1/traces`, `/v1/logs`, `/v1/metrics` | OTLP/HTTP: `application/x-protobuf`, `application/qdf` (one request), `application/qdf-stream` (many requests, one session) | [`http::router`] |
//!
//! The qdf streams carry what an exporter sends batch after batch: service names, resource
//! attributes, scope names, attribute keys and span names of batch 1 are back-references in
//! batch 2. Binaries: `otlp-collector` (everything on loopback, one export of each kind) and
//! `otlp-compare` (bytes on the wire and records/s against OTLP/protobuf, `docs/BENCH.md`,
//! "OTLP").
//!
//! ## `opentelemetry-proto`'s serde mapping and qdf
//!
//! The crate's `with-serde` mapping is OTLP/JSON's. qdf carries all of it exactly: every
//! request decodes to one equal to the original, with the same protobuf bytes (doubles by
//! their bits: `-0.0`, subnormals, ±∞; ids byte for byte), in every tier, through sessions,
//! `qdf_stream::QdfCodec`, the tonic codec and the axum bodies (`tests/round_trip.rs`,
//! `tests/collector.rs`). No qdf change was needed. What the mapping decides, and what it
//! costs:
//!
//! | field | mapping | through qdf |
//! |---|---|---|
//! | `trace_id`, `span_id`, `parent_span_id` | lowercase hex string | exact; 2 bytes per id byte outside string columns (FB packs hex at 4 bits a digit inside them) |
//! | `*_time_unix_nano`, `count`, `bucket_counts`, `intValue` | decimal string | exact; no delta or FOR coding, about 20 bytes per timestamp row-wise |
//! | `AnyValue` | `flatten`ed one-entry map, `{"stringValue": …}` | exact, as a map; decoding buffers each value in serde's `Content` first (any format) |
//! | `bytesValue` | base64 string | exact |
//! | `kind`, `severityNumber`, `code`, `aggregationTemporality` | integer | exact; a small varint |
//! | fields at their default | written (no `skip_serializing_if`, except `keyStrindex`) | exact; every span writes all 16 fields, protobuf skips defaults |
//! | `stringValueStrindex` (profiles only) | serialized, but the mapping's `AnyValue` deserializer skips it | decodes as an empty `AnyValue`, as with serde_json: the mapping's loss |
//! | `ValueAtQuantile` NaN | the string `"NaN"` | any NaN comes back as `f64::NAN` (payload bits are the mapping's loss) |
//!
//! `docs/BENCH.md` ("OTLP") measures what these choices cost against OTLP/protobuf.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod grpc;
pub mod http;
pub mod measure;

use std::sync::{Arc, Mutex, MutexGuard};

use opentelemetry_proto::tonic::collector::logs::v1::{
    ExportLogsServiceRequest, ExportLogsServiceResponse,
};
use opentelemetry_proto::tonic::collector::metrics::v1::{
    ExportMetricsServiceRequest, ExportMetricsServiceResponse,
};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use qdf_fixtures::otel::{log_count, span_count};

/// Client and server of `qdf.otlp.v1.TraceService` and `LogsService` (generated, qdf codec).
#[allow(missing_docs, clippy::all)]
pub mod qdf_api {
    /// `qdf.otlp.v1.TraceService`.
    pub mod trace {
        include!(concat!(env!("OUT_DIR"), "/qdf.otlp.v1.TraceService.rs"));
    }
    /// `qdf.otlp.v1.LogsService`.
    pub mod logs {
        include!(concat!(env!("OUT_DIR"), "/qdf.otlp.v1.LogsService.rs"));
    }
    /// `qdf.otlp.v1.MetricsService`.
    pub mod metrics {
        include!(concat!(env!("OUT_DIR"), "/qdf.otlp.v1.MetricsService.rs"));
    }
}

/// The protobuf twin of [`qdf_api`]: the same client streams with `ProstCodec`.
#[allow(missing_docs, clippy::all)]
pub mod pb_api {
    /// `pb.otlp.v1.TraceService`.
    pub mod trace {
        include!(concat!(env!("OUT_DIR"), "/pb.otlp.v1.TraceService.rs"));
    }
    /// `pb.otlp.v1.LogsService`.
    pub mod logs {
        include!(concat!(env!("OUT_DIR"), "/pb.otlp.v1.LogsService.rs"));
    }
    /// `pb.otlp.v1.MetricsService`.
    pub mod metrics {
        include!(concat!(env!("OUT_DIR"), "/pb.otlp.v1.MetricsService.rs"));
    }
}

/// What a collector has received; with `keep`, the requests themselves, in arrival order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Received {
    /// Trace export requests (only when keeping).
    pub traces: Vec<ExportTraceServiceRequest>,
    /// Log export requests (only when keeping).
    pub logs: Vec<ExportLogsServiceRequest>,
    /// Metric export requests (only when keeping).
    pub metrics: Vec<ExportMetricsServiceRequest>,
    /// Requests accepted, all signals.
    pub requests: u64,
    /// Spans accepted.
    pub spans: u64,
    /// Log records accepted.
    pub log_records: u64,
}

/// The sink behind every endpoint; clones share it.
#[derive(Clone, Debug, Default)]
pub struct Collector {
    received: Arc<Mutex<Received>>,
    keep: bool,
}

impl Collector {
    /// A collector that counts requests and, if `keep`, holds them for [`Collector::take`].
    pub fn new(keep: bool) -> Self {
        Collector {
            received: Arc::default(),
            keep,
        }
    }

    fn lock(&self) -> MutexGuard<'_, Received> {
        // A panic while holding the lock leaves plain data behind; keep serving it.
        self.received.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Everything received so far; the collector starts over empty.
    pub fn take(&self) -> Received {
        std::mem::take(&mut *self.lock())
    }

    /// Accepts one trace export request.
    pub fn traces(&self, req: ExportTraceServiceRequest) -> ExportTraceServiceResponse {
        let mut r = self.lock();
        r.requests += 1;
        r.spans += span_count(&req) as u64;
        if self.keep {
            r.traces.push(req);
        }
        ExportTraceServiceResponse::default()
    }

    /// Accepts one log export request.
    pub fn logs(&self, req: ExportLogsServiceRequest) -> ExportLogsServiceResponse {
        let mut r = self.lock();
        r.requests += 1;
        r.log_records += log_count(&req) as u64;
        if self.keep {
            r.logs.push(req);
        }
        ExportLogsServiceResponse::default()
    }

    /// Accepts one metric export request.
    pub fn metrics(&self, req: ExportMetricsServiceRequest) -> ExportMetricsServiceResponse {
        let mut r = self.lock();
        r.requests += 1;
        if self.keep {
            r.metrics.push(req);
        }
        ExportMetricsServiceResponse::default()
    }
}
