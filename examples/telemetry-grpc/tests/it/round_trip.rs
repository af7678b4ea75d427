//! Every call kind of the qdf `Collector` over a real server on 127.0.0.1: values come back
//! exactly as sent, plain and with gzip/zstd compression on top of qdf.

use telemetry_grpc::collector::Collector;
use telemetry_grpc::data::{log_batches, span_batches};
use telemetry_grpc::model::{
    BatchStatus, ExportRequest, ExportSummary, LogRecord, QueryRequest, TailRequest,
};
use telemetry_grpc::qdf_api::collector_client::CollectorClient;
use telemetry_grpc::serve_qdf;
use tokio_stream::StreamExt;
use tonic::codec::CompressionEncoding;
use tonic::transport::Channel;

const MAX_DECODE: usize = 4 << 20;

/// Logs and spans, mixed, as an exporter would send them.
fn batches(n: usize) -> Vec<ExportRequest> {
    let spans = span_batches(n, 70);
    let mut batches = log_batches(n, 40);
    for (batch, s) in batches.iter_mut().zip(spans) {
        batch.spans = s.spans;
    }
    batches
}

async fn client(url: String, compression: Option<CompressionEncoding>) -> CollectorClient<Channel> {
    let client = CollectorClient::connect(url).await.expect("connect");
    match compression {
        Some(enc) => client.send_compressed(enc).accept_compressed(enc),
        None => client,
    }
}

async fn export_tail_query(compression: Option<CompressionEncoding>) {
    let server = serve_qdf(Collector::new(100), MAX_DECODE).await.unwrap();
    let mut client = client(server.url(), compression).await;
    let sent = batches(6);

    // client streaming
    let summary = client
        .export(tokio_stream::iter(sent.clone()))
        .await
        .expect("export")
        .into_inner();
    let expect = ExportSummary {
        batches: 6,
        logs: 6 * 40,
        spans: 6 * 70,
    };
    assert_eq!(summary, expect);

    // server streaming: the held batches, exactly as sent
    let tail = TailRequest::default();
    let stream = client.tail(tail).await.expect("tail").into_inner();
    let got: Vec<ExportRequest> = stream.map(|r| r.expect("tail item")).collect().await;
    assert_eq!(got, sent);

    // server streaming with a filter: one service's logs, no spans
    let tail = TailRequest {
        service: "api".into(),
    };
    let stream = client.tail(tail).await.expect("tail").into_inner();
    let got: Vec<ExportRequest> = stream.map(|r| r.expect("tail item")).collect().await;
    assert_eq!(got.len(), 6);
    for (g, s) in got.iter().zip(&sent) {
        let api: Vec<&LogRecord> = s.logs.iter().filter(|r| r.service == "api").collect();
        assert_eq!(g.logs.iter().collect::<Vec<_>>(), api);
        assert!(g.spans.is_empty());
    }

    // unary
    let query = QueryRequest {
        service: "worker".into(),
        min_level: 3,
        limit: 1000,
    };
    let got = client.query(query).await.expect("query").into_inner();
    let want: Vec<LogRecord> = sent
        .iter()
        .flat_map(|b| &b.logs)
        .filter(|r| r.service == "worker" && r.level >= 3)
        .cloned()
        .collect();
    assert!(!want.is_empty());
    assert_eq!(got.records, want);
    server.stop().await.unwrap();
}

#[tokio::test]
async fn export_tail_and_query_round_trip() {
    export_tail_query(None).await;
}

#[tokio::test]
async fn round_trip_with_zstd() {
    export_tail_query(Some(CompressionEncoding::Zstd)).await;
}

#[tokio::test]
async fn round_trip_with_gzip() {
    export_tail_query(Some(CompressionEncoding::Gzip)).await;
}

#[tokio::test]
async fn bidi_stream_acks_every_batch_in_order() {
    let server = serve_qdf(Collector::new(100), MAX_DECODE).await.unwrap();
    let mut client = client(server.url(), None).await;
    let sent = batches(5);
    let acks = client
        .stream(tokio_stream::iter(sent.clone()))
        .await
        .expect("stream")
        .into_inner();
    let acks: Vec<BatchStatus> = acks.map(|r| r.expect("ack")).collect().await;
    let want: Vec<BatchStatus> = (0..5)
        .map(|batch_id| BatchStatus {
            batch_id,
            logs: 40,
            spans: 70,
        })
        .collect();
    assert_eq!(acks, want);
    let held = client
        .tail(TailRequest::default())
        .await
        .unwrap()
        .into_inner();
    let held: Vec<ExportRequest> = held.map(|r| r.unwrap()).collect().await;
    assert_eq!(held, sent);
    server.stop().await.unwrap();
}

#[tokio::test]
async fn zstd_shrinks_the_wire_of_a_qdf_stream() {
    // The same stream with and without zstd: compression is really applied on top of qdf.
    let mut wire = Vec::new();
    for compression in [None, Some(CompressionEncoding::Zstd)] {
        let server = serve_qdf(Collector::new(0), MAX_DECODE).await.unwrap();
        let mut client = client(server.url(), compression).await;
        let summary = client
            .export(tokio_stream::iter(batches(10)))
            .await
            .unwrap();
        assert_eq!(summary.into_inner().batches, 10);
        wire.push(server.counters.client_to_server());
        server.stop().await.unwrap();
    }
    assert!(wire[1] < wire[0], "zstd {} vs plain {}", wire[1], wire[0]);
}
