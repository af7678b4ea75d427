//! qdf against prost over the same gRPC service: bytes on the wire per batch and batches
//! per second, each with and without gRPC zstd, at 10, 100 and 1 000 records per batch over
//! one client-streaming `Export` of 100 batches. Prints markdown tables.
//!
//! ```text
//! cargo run --release -p telemetry-grpc --bin grpc-compare
//! ```
//!
//! Bytes are counted on the server's TCP connection (`net::CountingStream`), client to
//! server, from the start of the `Export` call to its reply: gRPC prefixes, HTTP/2 frames
//! and the call's headers included (the same for both codecs). Each run gets a fresh server
//! and connection; a unary call first opens the connection, so the HTTP/2 preface and
//! settings are not counted. Batches/s is 100 over the median wall time of the stream
//! (client encode, loopback, server decode) over several repeats.

use std::time::{Duration, Instant};

use telemetry_grpc::collector::Collector;
use telemetry_grpc::data::{log_batches, span_batches};
use telemetry_grpc::model::{ExportRequest, QueryRequest};
use telemetry_grpc::{pb_api, qdf_api, serve_prost, serve_qdf};
use tonic::codec::CompressionEncoding::Zstd;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Batches per `Export` stream.
const MESSAGES: u64 = 100;
/// Largest message either side accepts: 64 MiB (a 1 000-span batch is well below).
const MAX_DECODE: usize = 64 << 20;

/// Wire bytes per batch and batches per second of one configuration.
#[derive(Copy, Clone, Debug)]
struct Cell {
    bytes_per_batch: u64,
    batches_per_sec: f64,
}

/// Streams `batches` through `$client` to `$server` `reps` times; bytes from the first run.
macro_rules! measure {
    ($client:ty, $server:expr, $zstd:expr, $batches:expr, $reps:expr) => {{
        let server = $server.await?;
        let mut client = <$client>::connect(server.url()).await?;
        if $zstd {
            client = client.send_compressed(Zstd);
        }
        client.query(QueryRequest::default()).await?;
        let before = server.counters.client_to_server();
        let mut bytes = 0;
        let mut times = Vec::new();
        for rep in 0..$reps {
            let input: Vec<ExportRequest> = $batches.to_vec();
            let start = Instant::now();
            let summary = client.export(tokio_stream::iter(input)).await?.into_inner();
            times.push(start.elapsed());
            assert_eq!(summary.batches, MESSAGES);
            if rep == 0 {
                bytes = server.counters.client_to_server() - before;
            }
        }
        drop(client);
        server.stop().await?;
        Cell {
            bytes_per_batch: bytes / MESSAGES,
            batches_per_sec: MESSAGES as f64 / median(&mut times).as_secs_f64(),
        }
    }};
}

fn median(times: &mut [Duration]) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// The four columns of one row: prost, prost+zstd, qdf, qdf+zstd.
async fn row(batches: &[ExportRequest], reps: usize) -> Result<[Cell; 4], BoxError> {
    type Pb = pb_api::collector_client::CollectorClient<tonic::transport::Channel>;
    type Qdf = qdf_api::collector_client::CollectorClient<tonic::transport::Channel>;
    let sink = || Collector::new(0);
    Ok([
        measure!(Pb, serve_prost(sink(), MAX_DECODE), false, batches, reps),
        measure!(Pb, serve_prost(sink(), MAX_DECODE), true, batches, reps),
        measure!(Qdf, serve_qdf(sink(), MAX_DECODE), false, batches, reps),
        measure!(Qdf, serve_qdf(sink(), MAX_DECODE), true, batches, reps),
    ])
}

#[tokio::main]
async fn main() -> Result<(), BoxError> {
    let mut rows = Vec::new();
    for (workload, make) in [
        (
            "logs",
            log_batches as fn(usize, usize) -> Vec<ExportRequest>,
        ),
        ("spans", span_batches),
    ] {
        for size in [10, 100, 1000] {
            let batches = make(MESSAGES as usize, size);
            let reps = if size >= 1000 { 5 } else { 9 };
            rows.push((workload, size, row(&batches, reps).await?));
        }
    }

    println!(
        "qdf: qdf_tonic::QdfCodec with DefaultLimits (Balanced tier, one session per stream); \
         prost: tonic_prost::ProstCodec; zstd: gRPC message compression, level 3.\n"
    );
    println!(
        "Bytes on the wire per batch (client to server, TCP payload, {MESSAGES} batches per stream):\n"
    );
    println!(
        "| workload | records/batch | prost | prost+zstd | qdf | qdf+zstd | prost+zstd ÷ qdf | prost+zstd ÷ qdf+zstd |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    for (workload, size, [pb, pbz, q, qz]) in &rows {
        let ratio = |c: &Cell| pbz.bytes_per_batch as f64 / c.bytes_per_batch as f64;
        println!(
            "| {workload} | {size} | {} | {} | {} | {} | {:.2}× | {:.2}× |",
            pb.bytes_per_batch,
            pbz.bytes_per_batch,
            q.bytes_per_batch,
            qz.bytes_per_batch,
            ratio(q),
            ratio(qz)
        );
    }
    println!(
        "\nBatches per second (one Export stream, loopback, encode + send + decode, median):\n"
    );
    println!("| workload | records/batch | prost | prost+zstd | qdf | qdf+zstd |");
    println!("|---|---:|---:|---:|---:|---:|");
    for (workload, size, cells) in &rows {
        let [a, b, c, d] = cells.map(|c| c.batches_per_sec);
        println!("| {workload} | {size} | {a:.0} | {b:.0} | {c:.0} | {d:.0} |");
    }
    Ok(())
}
