//! The gRPC services: the OTLP reference (unary, protobuf) and the client-streaming exports
//! with qdf and with protobuf, all on one [`Collector`].
//!
//! Each `serve_*` binds `127.0.0.1:0` through `telemetry_grpc::net::serve`, whose connections
//! count the bytes they carry, accepts zstd-compressed messages and refuses messages over
//! [`MAX_DECODE`] bytes.

use std::io;

use opentelemetry_proto::tonic::collector::logs::v1::logs_service_server::LogsService;
use opentelemetry_proto::tonic::collector::logs::v1::{
    ExportLogsServiceRequest, ExportLogsServiceResponse,
};
use opentelemetry_proto::tonic::collector::metrics::v1::metrics_service_server::MetricsService;
use opentelemetry_proto::tonic::collector::metrics::v1::{
    ExportMetricsServiceRequest, ExportMetricsServiceResponse,
};
use opentelemetry_proto::tonic::collector::trace::v1::trace_service_server::TraceService;
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use telemetry_grpc::net::{self, Running};
use tonic::codec::CompressionEncoding::Zstd;
use tonic::transport::Server;
use tonic::{Request, Response, Status, Streaming};

use crate::{Collector, pb_api, qdf_api};

/// Largest message a server accepts: 64 MiB (a 1 000-span OTLP request is well below).
pub const MAX_DECODE: usize = 64 << 20;

#[tonic::async_trait]
impl TraceService for Collector {
    async fn export(
        &self,
        request: Request<ExportTraceServiceRequest>,
    ) -> Result<Response<ExportTraceServiceResponse>, Status> {
        Ok(Response::new(self.traces(request.into_inner())))
    }
}

#[tonic::async_trait]
impl LogsService for Collector {
    async fn export(
        &self,
        request: Request<ExportLogsServiceRequest>,
    ) -> Result<Response<ExportLogsServiceResponse>, Status> {
        Ok(Response::new(self.logs(request.into_inner())))
    }
}

#[tonic::async_trait]
impl MetricsService for Collector {
    async fn export(
        &self,
        request: Request<ExportMetricsServiceRequest>,
    ) -> Result<Response<ExportMetricsServiceResponse>, Status> {
        Ok(Response::new(self.metrics(request.into_inner())))
    }
}

/// Implements a generated client-streaming `Export`: every request of the stream is accepted
/// in order; the first error ends the stream with its status.
macro_rules! impl_export_stream {
    ($service:path, $req:ty, $resp:ty, $accept:ident) => {
        #[tonic::async_trait]
        impl $service for Collector {
            async fn export(
                &self,
                request: Request<Streaming<$req>>,
            ) -> Result<Response<$resp>, Status> {
                let mut stream = request.into_inner();
                let mut response = <$resp>::default();
                while let Some(req) = stream.message().await? {
                    response = self.$accept(req);
                }
                Ok(Response::new(response))
            }
        }
    };
}

/// Implements the three signals' client-streaming `Export` of one generated module.
macro_rules! impl_export_streams {
    ($api:ident) => {
        impl_export_stream!(
            $api::trace::trace_service_server::TraceService,
            ExportTraceServiceRequest,
            ExportTraceServiceResponse,
            traces
        );
        impl_export_stream!(
            $api::logs::logs_service_server::LogsService,
            ExportLogsServiceRequest,
            ExportLogsServiceResponse,
            logs
        );
        impl_export_stream!(
            $api::metrics::metrics_service_server::MetricsService,
            ExportMetricsServiceRequest,
            ExportMetricsServiceResponse,
            metrics
        );
    };
}

impl_export_streams!(qdf_api);
impl_export_streams!(pb_api);

/// Serves the trace, logs and metrics services of the generated modules on one server.
macro_rules! serve_all {
    ($trace:path, $logs:path, $metrics:path, $collector:expr) => {{
        use $logs as logs;
        use $metrics as metrics;
        use $trace as trace;
        let collector: Collector = $collector;
        let traces = trace::TraceServiceServer::new(collector.clone())
            .accept_compressed(Zstd)
            .max_decoding_message_size(MAX_DECODE);
        let logs = logs::LogsServiceServer::new(collector.clone())
            .accept_compressed(Zstd)
            .max_decoding_message_size(MAX_DECODE);
        let metrics = metrics::MetricsServiceServer::new(collector)
            .accept_compressed(Zstd)
            .max_decoding_message_size(MAX_DECODE);
        let router = Server::builder()
            .add_service(traces)
            .add_service(logs)
            .add_service(metrics);
        net::serve(router).await
    }};
}

/// Serves OTLP/gRPC exactly as an OpenTelemetry Collector does: `opentelemetry-proto`'s
/// generated `TraceService`, `LogsService` and `MetricsService`, protobuf, unary `Export`.
pub async fn serve_otlp(collector: Collector) -> io::Result<Running> {
    serve_all!(
        opentelemetry_proto::tonic::collector::trace::v1::trace_service_server,
        opentelemetry_proto::tonic::collector::logs::v1::logs_service_server,
        opentelemetry_proto::tonic::collector::metrics::v1::metrics_service_server,
        collector
    )
}

/// Serves `qdf.otlp.v1.TraceService`, `LogsService` and `MetricsService`: client-streaming `Export` with
/// [`qdf_tonic::QdfCodec`] (`DefaultLimits`: Balanced tier, one Dense session per stream).
pub async fn serve_qdf(collector: Collector) -> io::Result<Running> {
    serve_all!(
        qdf_api::trace::trace_service_server,
        qdf_api::logs::logs_service_server,
        qdf_api::metrics::metrics_service_server,
        collector
    )
}

/// Serves `pb.otlp.v1.TraceService`, `LogsService` and `MetricsService`: the same client streams with
/// protobuf, so a comparison with [`serve_qdf`] differs in the codec only.
pub async fn serve_pb_stream(collector: Collector) -> io::Result<Running> {
    serve_all!(
        pb_api::trace::trace_service_server,
        pb_api::logs::logs_service_server,
        pb_api::metrics::metrics_service_server,
        collector
    )
}
