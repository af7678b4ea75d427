//! The collector on loopback: every request sent through each endpoint arrives exactly
//! (protobuf bytes equal), traces, logs and metrics, through the OTLP reference server, the qdf and protobuf client
//! streams (with and without zstd) and the three OTLP/HTTP body types.

use opentelemetry_proto::tonic::collector::logs::v1::logs_service_client::LogsServiceClient;
use opentelemetry_proto::tonic::collector::trace::v1::trace_service_client::TraceServiceClient;
use otlp_collector::http::{APPLICATION_PROTOBUF, HttpClient, qdf_stream_body};
use otlp_collector::{Collector, Received, grpc, pb_api, qdf_api};
use prost::Message;
use qdf_axum::media::{APPLICATION_QDF, APPLICATION_QDF_STREAM};
use qdf_fixtures::otel::{ExportLogsServiceRequest, ExportTraceServiceRequest, demo, zipkin};
use tonic::codec::CompressionEncoding::Zstd;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

fn data() -> (
    Vec<ExportTraceServiceRequest>,
    Vec<ExportLogsServiceRequest>,
) {
    let mut traces = demo::trace_batches(8, 100);
    traces.extend(zipkin::batches(250));
    (traces, demo::log_batches(8, 100))
}

/// What `collector` holds is exactly `traces` and `logs`, in order.
fn assert_received(
    got: Received,
    traces: &[ExportTraceServiceRequest],
    logs: &[ExportLogsServiceRequest],
    via: &str,
) {
    assert_eq!(got.requests as usize, traces.len() + logs.len(), "{via}");
    assert_eq!(got.traces.len(), traces.len(), "{via}");
    assert_eq!(got.logs.len(), logs.len(), "{via}");
    for (i, (a, b)) in got.traces.iter().zip(traces).enumerate() {
        assert_eq!(
            a.encode_to_vec(),
            b.encode_to_vec(),
            "{via}: trace request {i}"
        );
        assert_eq!(a, b, "{via}: trace request {i}");
    }
    for (i, (a, b)) in got.logs.iter().zip(logs).enumerate() {
        assert_eq!(
            a.encode_to_vec(),
            b.encode_to_vec(),
            "{via}: log request {i}"
        );
        assert_eq!(a, b, "{via}: log request {i}");
    }
}

#[tokio::test]
async fn otlp_reference_server() -> Result<(), BoxError> {
    let (traces, logs) = data();
    let collector = Collector::new(true);
    let server = grpc::serve_otlp(collector.clone()).await?;
    let mut t = TraceServiceClient::new(server.channel().await?);
    let mut l = LogsServiceClient::new(server.channel().await?).send_compressed(Zstd);
    for r in &traces {
        t.export(r.clone()).await?;
    }
    for r in &logs {
        l.export(r.clone()).await?;
    }
    assert_received(collector.take(), &traces, &logs, "OTLP/gRPC");
    server.stop().await?;
    Ok(())
}

#[tokio::test]
async fn qdf_client_streams() -> Result<(), BoxError> {
    let (traces, logs) = data();
    for zstd in [false, true] {
        let collector = Collector::new(true);
        let server = grpc::serve_qdf(collector.clone()).await?;
        let channel = server.channel().await?;
        let mut t = qdf_api::trace::trace_service_client::TraceServiceClient::new(channel.clone());
        let mut l = qdf_api::logs::logs_service_client::LogsServiceClient::new(channel);
        if zstd {
            t = t.send_compressed(Zstd);
            l = l.send_compressed(Zstd);
        }
        t.export(tokio_stream::iter(traces.clone())).await?;
        l.export(tokio_stream::iter(logs.clone())).await?;
        assert_received(
            collector.take(),
            &traces,
            &logs,
            &format!("qdf stream, zstd {zstd}"),
        );
        server.stop().await?;
    }
    Ok(())
}

#[tokio::test]
async fn protobuf_client_streams() -> Result<(), BoxError> {
    let (traces, logs) = data();
    let collector = Collector::new(true);
    let server = grpc::serve_pb_stream(collector.clone()).await?;
    let channel = server.channel().await?;
    let mut t = pb_api::trace::trace_service_client::TraceServiceClient::new(channel.clone());
    let mut l = pb_api::logs::logs_service_client::LogsServiceClient::new(channel);
    t.export(tokio_stream::iter(traces.clone())).await?;
    l.export(tokio_stream::iter(logs.clone())).await?;
    assert_received(collector.take(), &traces, &logs, "protobuf stream");
    server.stop().await?;
    Ok(())
}

#[tokio::test]
async fn otlp_http_every_body_type() -> Result<(), BoxError> {
    let (traces, logs) = data();
    let collector = Collector::new(true);
    let (addr, server) = otlp_collector::http::serve(collector.clone()).await?;
    let http = HttpClient::new(addr);
    // Protobuf and single qdf messages: one POST per request.
    for (media, encode) in [
        (
            APPLICATION_PROTOBUF,
            (|r: &ExportTraceServiceRequest| r.encode_to_vec()) as fn(&_) -> Vec<u8>,
        ),
        (APPLICATION_QDF, |r| qdf_core::to_vec(r).unwrap()),
    ] {
        for r in &traces {
            let (status, _) = http.post("/v1/traces", media, encode(r)).await?;
            assert_eq!(status, 200, "{media}");
        }
        let got = collector.take();
        assert_received(got, &traces, &[], media);
    }
    for r in &logs {
        let (status, reply) = http
            .post("/v1/logs", APPLICATION_QDF, qdf_core::to_vec(r)?)
            .await?;
        assert_eq!(status, 200);
        let _: opentelemetry_proto::tonic::collector::logs::v1::ExportLogsServiceResponse =
            qdf_core::from_slice(&reply)?;
    }
    // qdf-stream: all requests of a signal in one body, one session.
    let (status, _) = http
        .post(
            "/v1/traces",
            APPLICATION_QDF_STREAM,
            qdf_stream_body(&traces)?,
        )
        .await?;
    assert_eq!(status, 200);
    let (status, _) = http
        .post("/v1/logs", APPLICATION_QDF_STREAM, qdf_stream_body(&logs)?)
        .await?;
    assert_eq!(status, 200);
    let got = collector.take();
    let (qdf_logs, stream_logs) = got.logs.split_at(logs.len());
    assert_eq!(qdf_logs, &logs[..]);
    assert_eq!(stream_logs, &logs[..]);
    assert_eq!(got.traces, traces);
    // Wrong media type: 415, nothing accepted.
    let (status, _) = http
        .post("/v1/traces", "application/json", b"{}".to_vec())
        .await?;
    assert_eq!(status, 415);
    assert_eq!(collector.take().requests, 0);
    server.abort();
    Ok(())
}

/// Metrics (every data-point kind, edge-case floats) through all three gRPC services and
/// OTLP/HTTP's qdf-stream body.
#[tokio::test]
async fn metrics_every_endpoint() -> Result<(), BoxError> {
    use opentelemetry_proto::tonic::collector::metrics::v1::metrics_service_client::MetricsServiceClient;
    let batches = demo::metric_batches(5);
    let check = |got: Received, via: &str| {
        assert_eq!(got.metrics.len(), batches.len(), "{via}");
        for (i, (a, b)) in got.metrics.iter().zip(&batches).enumerate() {
            assert_eq!(
                a.encode_to_vec(),
                b.encode_to_vec(),
                "{via}: metric request {i}"
            );
        }
    };
    let collector = Collector::new(true);
    let otlp = grpc::serve_otlp(collector.clone()).await?;
    let mut c = MetricsServiceClient::new(otlp.channel().await?);
    for r in &batches {
        c.export(r.clone()).await?;
    }
    check(collector.take(), "OTLP/gRPC");
    otlp.stop().await?;

    let qdf = grpc::serve_qdf(collector.clone()).await?;
    let mut c =
        qdf_api::metrics::metrics_service_client::MetricsServiceClient::new(qdf.channel().await?);
    c.export(tokio_stream::iter(batches.clone())).await?;
    check(collector.take(), "qdf stream");
    qdf.stop().await?;

    let pb = grpc::serve_pb_stream(collector.clone()).await?;
    let mut c =
        pb_api::metrics::metrics_service_client::MetricsServiceClient::new(pb.channel().await?);
    c.export(tokio_stream::iter(batches.clone())).await?;
    check(collector.take(), "protobuf stream");
    pb.stop().await?;

    let (addr, server) = otlp_collector::http::serve(collector.clone()).await?;
    let (status, _) = HttpClient::new(addr)
        .post(
            "/v1/metrics",
            APPLICATION_QDF_STREAM,
            qdf_stream_body(&batches)?,
        )
        .await?;
    assert_eq!(status, 200);
    check(collector.take(), "OTLP/HTTP qdf-stream");
    server.abort();
    Ok(())
}
