//! tonic's decode size limit stays in force under the qdf codec: a message over
//! `max_decoding_message_size` fails with `OutOfRange` on every call kind, in both
//! directions, before the codec sees a byte.

use telemetry_grpc::collector::Collector;
use telemetry_grpc::data::log_batch;
use telemetry_grpc::model::{ExportRequest, QueryRequest, TailRequest};
use telemetry_grpc::qdf_api::collector_client::CollectorClient;
use telemetry_grpc::serve_qdf;
use tokio_stream::StreamExt;
use tonic::Code;
use tonic::transport::Channel;

/// The server's and the small client's decode limit.
const LIMIT: usize = 4096;

/// A batch whose qdf message is well over [`LIMIT`] (200 random 32-hex-digit trace ids).
fn big() -> ExportRequest {
    log_batch(1, 200)
}

async fn setup() -> (telemetry_grpc::net::Running, CollectorClient<Channel>) {
    let server = serve_qdf(Collector::new(10), LIMIT).await.unwrap();
    let client = CollectorClient::connect(server.url()).await.unwrap();
    (server, client)
}

fn assert_too_large(status: tonic::Status) {
    assert_eq!(status.code(), Code::OutOfRange, "{status:?}");
    assert!(
        status.message().contains("message length too large"),
        "{status:?}"
    );
}

#[tokio::test]
async fn unary_request_over_the_limit_is_out_of_range() {
    let (server, mut client) = setup().await;
    let query = QueryRequest {
        service: "s".repeat(LIMIT + 1),
        min_level: 0,
        limit: 1,
    };
    assert_too_large(client.query(query).await.unwrap_err());
    // A request under the limit still works on the same connection.
    let ok = QueryRequest {
        service: "api".into(),
        min_level: 0,
        limit: 1,
    };
    assert!(
        client
            .query(ok)
            .await
            .unwrap()
            .into_inner()
            .records
            .is_empty()
    );
    server.stop().await.unwrap();
}

#[tokio::test]
async fn unary_response_over_the_client_limit_is_out_of_range() {
    let server = serve_qdf(Collector::new(10), 4 << 20).await.unwrap();
    let mut big_client = CollectorClient::connect(server.url()).await.unwrap();
    big_client
        .export(tokio_stream::iter([big()]))
        .await
        .unwrap();
    let mut client = big_client.clone().max_decoding_message_size(LIMIT);
    let query = QueryRequest {
        service: String::new(),
        min_level: 0,
        limit: 1000,
    };
    assert_too_large(client.query(query).await.unwrap_err());
    server.stop().await.unwrap();
}

#[tokio::test]
async fn client_streaming_message_over_the_limit_is_out_of_range() {
    let (server, mut client) = setup().await;
    let small = log_batch(0, 2);
    let stream = tokio_stream::iter([small, big()]);
    assert_too_large(client.export(stream).await.unwrap_err());
    server.stop().await.unwrap();
}

#[tokio::test]
async fn server_streaming_message_over_the_client_limit_is_out_of_range() {
    let server = serve_qdf(Collector::new(10), 4 << 20).await.unwrap();
    let mut client = CollectorClient::connect(server.url()).await.unwrap();
    let sent = [log_batch(0, 2), big()];
    client
        .export(tokio_stream::iter(sent.clone()))
        .await
        .unwrap();
    let mut small = client.max_decoding_message_size(LIMIT);
    let mut tail = small
        .tail(TailRequest::default())
        .await
        .unwrap()
        .into_inner();
    // The first batch fits and arrives intact; the second breaks the stream.
    assert_eq!(tail.next().await.unwrap().unwrap(), sent[0]);
    assert_too_large(tail.next().await.unwrap().unwrap_err());
    server.stop().await.unwrap();
}

#[tokio::test]
async fn server_streaming_request_over_the_limit_is_out_of_range() {
    let (server, mut client) = setup().await;
    let tail = TailRequest {
        service: "s".repeat(LIMIT + 1),
    };
    assert_too_large(client.tail(tail).await.unwrap_err());
    server.stop().await.unwrap();
}

#[tokio::test]
async fn bidi_message_over_the_limit_is_out_of_range() {
    let (server, mut client) = setup().await;
    let stream = tokio_stream::iter([log_batch(0, 2), big()]);
    let mut acks = client.stream(stream).await.unwrap().into_inner();
    assert_eq!(acks.next().await.unwrap().unwrap().batch_id, 0);
    assert_too_large(acks.next().await.unwrap().unwrap_err());
    server.stop().await.unwrap();
}
