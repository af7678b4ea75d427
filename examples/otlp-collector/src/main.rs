//! An OTLP collector on loopback, fed by exporters of every kind it serves: OTLP/gRPC
//! (protobuf, unary), qdf over gRPC (one client stream), OTLP/HTTP with protobuf, qdf and
//! qdf-stream bodies. Prints what arrived and the bytes each gRPC export put on the wire.
//!
//! ```text
//! cargo run --release -p otlp-collector
//! ```

use opentelemetry_proto::tonic::collector::logs::v1::logs_service_client::LogsServiceClient;
use opentelemetry_proto::tonic::collector::trace::v1::trace_service_client::TraceServiceClient;
use otlp_collector::http::{APPLICATION_PROTOBUF, HttpClient, qdf_stream_body};
use otlp_collector::{Collector, grpc, qdf_api};
use prost::Message;
use qdf_axum::media::{APPLICATION_QDF, APPLICATION_QDF_STREAM};
use qdf_fixtures::otel::demo;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

#[tokio::main]
async fn main() -> Result<(), BoxError> {
    let traces = demo::trace_batches(20, 100);
    let logs = demo::log_batches(20, 100);
    let collector = Collector::new(false);

    // OTLP/gRPC, the way OpenTelemetry SDKs export: one unary call per batch.
    let otlp = grpc::serve_otlp(collector.clone()).await?;
    let mut client = TraceServiceClient::new(otlp.channel().await?);
    let mut log_client = LogsServiceClient::new(otlp.channel().await?);
    for (t, l) in traces.iter().zip(&logs) {
        client.export(t.clone()).await?;
        log_client.export(l.clone()).await?;
    }
    let otlp_bytes = otlp.counters.client_to_server();

    // qdf over gRPC: each signal is one client stream with one Dense session.
    let qdf = grpc::serve_qdf(collector.clone()).await?;
    let channel = qdf.channel().await?;
    let mut client = qdf_api::trace::trace_service_client::TraceServiceClient::new(channel.clone());
    client.export(tokio_stream::iter(traces.clone())).await?;
    let mut client = qdf_api::logs::logs_service_client::LogsServiceClient::new(channel);
    client.export(tokio_stream::iter(logs.clone())).await?;
    let qdf_bytes = qdf.counters.client_to_server();
    println!("gRPC: {otlp_bytes} bytes as OTLP/protobuf, {qdf_bytes} bytes as qdf streams");

    // OTLP/HTTP: a protobuf body, a qdf body, then one qdf-stream body with all batches.
    let (addr, server) = otlp_collector::http::serve(collector.clone()).await?;
    let http = HttpClient::new(addr);
    let pb = traces[0].encode_to_vec();
    let (status, _) = http.post("/v1/traces", APPLICATION_PROTOBUF, pb).await?;
    println!("POST /v1/traces protobuf: {status}");
    let one = qdf_core::to_vec(&logs[0])?;
    let (status, _) = http.post("/v1/logs", APPLICATION_QDF, one).await?;
    println!("POST /v1/logs qdf: {status}");
    let body = qdf_stream_body(&traces)?;
    let len = body.len();
    let (status, _) = http
        .post("/v1/traces", APPLICATION_QDF_STREAM, body)
        .await?;
    println!(
        "POST /v1/traces qdf-stream ({len} bytes, {} requests): {status}",
        traces.len()
    );
    server.abort();

    let got = collector.take();
    println!(
        "received {} requests: {} spans, {} log records",
        got.requests, got.spans, got.log_records
    );
    otlp.stop().await?;
    qdf.stop().await?;
    Ok(())
}
