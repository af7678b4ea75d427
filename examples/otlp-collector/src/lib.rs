//! # An OTLP collector that also takes qdf
//!
//! OpenTelemetry users already hold their telemetry in `opentelemetry-proto`'s types and send
//! it as OTLP. This example serves those same types, unchanged (crate feature `with-serde`),
//! three ways on one [`Collector`]:
//!
//! | endpoint | wire | module |
//! |---|---|---|
//! | `opentelemetry.proto.collector.{trace,logs}.v1.{Trace,Logs}Service/Export` | OTLP/gRPC, protobuf, unary: the reference, `opentelemetry-proto`'s own generated server | [`grpc::serve_otlp`] |
//! | `qdf.otlp.v1.{Trace,Logs}Service/Export` | gRPC, [`qdf_tonic::QdfCodec`], client streaming: one Dense session per stream | [`grpc::serve_qdf`] |
//! | `pb.otlp.v1.{Trace,Logs}Service/Export` | the same stream with protobuf (`tonic_prost::ProstCodec`), for comparisons | [`grpc::serve_pb_stream`] |
//! | `POST /v1/traces`, `POST /v1/logs` | OTLP/HTTP: `application/x-protobuf`, `application/qdf` (one request), `application/qdf-stream` (many requests, one session) | [`http::router`] |
//!
//! The qdf streams carry what an exporter sends batch after batch: service names, resource
//! attributes, scope names, attribute keys and span names of batch 1 are back-references in
//! batch 2. Binaries: `otlp-collector` (everything on loopback, one export of each kind) and
//! `otlp-compare` (bytes on the wire and records/s against OTLP/protobuf, `docs/BENCH.md`,
//! "OTLP").
//!
//! ## What the `with-serde` mapping costs
//!
//! `opentelemetry-proto`'s serde mapping is OTLP/JSON's, and qdf carries it exactly, but it
//! shapes the bytes: trace and span ids are lowercase hex strings (32 and 16 characters, not
//! 16 and 8 bytes), `fixed64` times and `intValue`s are decimal strings, `bytesValue` is
//! base64, `AnyValue` is a one-entry map keyed by the value's kind (`{"stringValue": …}`), and
//! enums (`kind`, `severityNumber`, `code`) are integers. qdf's columns pack the hex and
//! decimal strings by alphabet (`docs/SPEC.md`, string encodings), so most of the cost is
//! won back in columnar batches.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod grpc;
pub mod http;
pub mod measure;

use std::sync::{Arc, Mutex, MutexGuard};

use opentelemetry_proto::tonic::collector::logs::v1::{
    ExportLogsServiceRequest, ExportLogsServiceResponse,
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
}

/// What a collector has received; with `keep`, the requests themselves, in arrival order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Received {
    /// Trace export requests (only when keeping).
    pub traces: Vec<ExportTraceServiceRequest>,
    /// Log export requests (only when keeping).
    pub logs: Vec<ExportLogsServiceRequest>,
    /// Requests accepted, both signals.
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
}
