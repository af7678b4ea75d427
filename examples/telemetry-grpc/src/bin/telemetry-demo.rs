//! A telemetry collector and an exporter in one process, talking qdf over gRPC on
//! 127.0.0.1: one call of each kind.
//!
//! ```text
//! cargo run -p telemetry-grpc --bin telemetry-demo
//! ```

use telemetry_grpc::collector::Collector;
use telemetry_grpc::data::{log_batches, span_batches};
use telemetry_grpc::model::{QueryRequest, TailRequest};
use telemetry_grpc::qdf_api::collector_client::CollectorClient;
use telemetry_grpc::serve_qdf;
use tokio_stream::StreamExt;
use tonic::codec::CompressionEncoding;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

#[tokio::main]
async fn main() -> Result<(), BoxError> {
    let server = serve_qdf(Collector::new(1000), 4 << 20).await?;
    println!("collector listening on {}", server.addr);
    let mut client = CollectorClient::connect(server.url())
        .await?
        .send_compressed(CompressionEncoding::Zstd)
        .accept_compressed(CompressionEncoding::Zstd);

    // Client streaming: ten batches share one qdf session, so names repeat as references.
    let mut batches = log_batches(10, 100);
    for (batch, spans) in batches.iter_mut().zip(span_batches(10, 100)) {
        batch.spans = spans.spans;
    }
    let summary = client
        .export(tokio_stream::iter(batches))
        .await?
        .into_inner();
    println!(
        "Export: {} batches, {} logs, {} spans; {} bytes on the wire (zstd)",
        summary.batches,
        summary.logs,
        summary.spans,
        server.counters.client_to_server()
    );

    // Server streaming: the held logs of one service.
    let tail = TailRequest {
        service: "payment".into(),
    };
    let mut stream = client.tail(tail).await?.into_inner();
    let mut logs = 0;
    while let Some(batch) = stream.next().await {
        logs += batch?.logs.len();
    }
    println!("Tail(payment): {logs} log records");

    // Unary.
    let query = QueryRequest {
        service: "api".into(),
        min_level: 4,
        limit: 3,
    };
    for r in client.query(query).await?.into_inner().records {
        println!(
            "Query(api, fatal): {} {} {:?} {:?}",
            r.ts, r.host, r.message, r.fields
        );
    }

    // Bidi streaming: one acknowledgement per batch.
    let more = log_batches(3, 50);
    let mut acks = client.stream(tokio_stream::iter(more)).await?.into_inner();
    while let Some(ack) = acks.next().await {
        let ack = ack?;
        println!(
            "Stream: batch {} acknowledged, {} logs",
            ack.batch_id, ack.logs
        );
    }

    drop(client);
    server.stop().await
}
