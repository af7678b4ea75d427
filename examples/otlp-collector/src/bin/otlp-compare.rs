//! qdf against OTLP/protobuf on `opentelemetry-proto`'s own request types: bytes on the wire
//! per batch and records per second, for traces and logs from the OpenTelemetry-demo
//! generator in batches of 10, 100 and 1 000, each with and without gRPC zstd. Prints
//! markdown tables (`docs/BENCH.md`, "OTLP").
//!
//! ```text
//! cargo run --release -p otlp-collector --bin otlp-compare
//! ```
//!
//! Bytes are counted as `grpc-compare` counts them (`telemetry_grpc::net::CountingStream`):
//! the TCP payload from client to server during the export, gRPC prefixes, HTTP/2 frames and
//! headers included, on a fresh server and connection opened by an empty call first. Three
//! ways to send the same 100 requests:
//!
//! - OTLP: `opentelemetry-proto`'s generated client and server, one unary `Export` per batch
//!   (what SDK exporters do);
//! - protobuf stream: one client-streaming `Export` with `ProstCodec` (`pb.otlp.v1`);
//! - qdf stream: the same stream with `QdfCodec` (`qdf.otlp.v1`), one Dense session.
//!
//! Records/s is 100 × batch size over the median wall time of the whole export (client
//! encode, loopback, server decode) over several repeats.

use std::io;
use std::time::{Duration, Instant};

use opentelemetry_proto::tonic::collector::logs::v1::logs_service_client::LogsServiceClient;
use opentelemetry_proto::tonic::collector::trace::v1::trace_service_client::TraceServiceClient;
use otlp_collector::{Collector, grpc, pb_api, qdf_api};
use qdf_fixtures::otel::{ExportLogsServiceRequest, ExportTraceServiceRequest, demo};
use telemetry_grpc::net::Running;
use tonic::codec::CompressionEncoding::Zstd;
use tonic::transport::Channel;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Batches per export.
const MESSAGES: usize = 100;

/// Wire bytes per batch and records per second of one configuration.
#[derive(Copy, Clone, Debug)]
struct Cell {
    bytes_per_batch: u64,
    records_per_sec: f64,
}

fn median(times: &mut [Duration]) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// A generated gRPC client sending export requests `R` to the server it belongs to.
trait Exporter<R>: Sized {
    /// Starts that server on loopback.
    async fn serve(collector: Collector) -> io::Result<Running>;
    /// The client on `channel`.
    fn connect(channel: Channel) -> Self;
    /// The client with gRPC zstd message compression.
    fn zstd(self) -> Self;
    /// Sends `batches`: one unary `Export` each, or one client-streaming `Export` of all.
    async fn send(&mut self, batches: Vec<R>) -> Result<(), tonic::Status>;
}

/// Implements [`Exporter`] for the client `$client` of `$serve`, `unary` or `stream`.
macro_rules! exporter {
    ($kind:ident, $client:ty, $req:ty, $serve:path) => {
        impl Exporter<$req> for $client {
            async fn serve(collector: Collector) -> io::Result<Running> {
                $serve(collector).await
            }
            fn connect(channel: Channel) -> Self {
                <$client>::new(channel)
            }
            fn zstd(self) -> Self {
                self.send_compressed(Zstd)
            }
            async fn send(&mut self, batches: Vec<$req>) -> Result<(), tonic::Status> {
                exporter!(@send $kind, self, batches)
            }
        }
    };
    (@send unary, $client:expr, $batches:expr) => {{
        for r in $batches {
            $client.export(r).await?;
        }
        Ok(())
    }};
    (@send stream, $client:expr, $batches:expr) => {
        $client.export(tokio_stream::iter($batches)).await.map(drop)
    };
}

exporter!(
    unary,
    TraceServiceClient<Channel>,
    ExportTraceServiceRequest,
    grpc::serve_otlp
);
exporter!(
    unary,
    LogsServiceClient<Channel>,
    ExportLogsServiceRequest,
    grpc::serve_otlp
);
exporter!(
    stream,
    pb_api::trace::trace_service_client::TraceServiceClient<Channel>,
    ExportTraceServiceRequest,
    grpc::serve_pb_stream
);
exporter!(
    stream,
    pb_api::logs::logs_service_client::LogsServiceClient<Channel>,
    ExportLogsServiceRequest,
    grpc::serve_pb_stream
);
exporter!(
    stream,
    qdf_api::trace::trace_service_client::TraceServiceClient<Channel>,
    ExportTraceServiceRequest,
    grpc::serve_qdf
);
exporter!(
    stream,
    qdf_api::logs::logs_service_client::LogsServiceClient<Channel>,
    ExportLogsServiceRequest,
    grpc::serve_qdf
);

/// A signal's export request and its three clients: OTLP unary, pb stream, qdf stream.
trait Signal: Clone + Default {
    type Otlp: Exporter<Self>;
    type Pb: Exporter<Self>;
    type Qdf: Exporter<Self>;
}

impl Signal for ExportTraceServiceRequest {
    type Otlp = TraceServiceClient<Channel>;
    type Pb = pb_api::trace::trace_service_client::TraceServiceClient<Channel>;
    type Qdf = qdf_api::trace::trace_service_client::TraceServiceClient<Channel>;
}

impl Signal for ExportLogsServiceRequest {
    type Otlp = LogsServiceClient<Channel>;
    type Pb = pb_api::logs::logs_service_client::LogsServiceClient<Channel>;
    type Qdf = qdf_api::logs::logs_service_client::LogsServiceClient<Channel>;
}

/// Sends `batches` `reps` times through client `C` on a fresh server of its own, after one
/// empty request that opens the connection; bytes per batch from the first run, and the median
/// time.
async fn measure<R: Clone + Default, C: Exporter<R>>(
    zstd: bool,
    batches: &[R],
    reps: usize,
) -> Result<(u64, Duration), BoxError> {
    let collector = Collector::new(false);
    let server = C::serve(collector.clone()).await?;
    let mut client = C::connect(server.channel().await?);
    if zstd {
        client = client.zstd();
    }
    client.send(vec![R::default()]).await?;
    let before = server.counters.client_to_server();
    let mut bytes = 0;
    let mut times = Vec::new();
    for rep in 0..reps {
        let input = batches.to_vec();
        let start = Instant::now();
        client.send(input).await?;
        times.push(start.elapsed());
        if rep == 0 {
            bytes = server.counters.client_to_server() - before;
        }
    }
    let got = collector.take();
    assert_eq!(got.requests as usize, reps * MESSAGES + 1);
    drop(client);
    server.stop().await?;
    Ok((bytes / MESSAGES as u64, median(&mut times)))
}

/// One table row: OTLP unary, OTLP unary+zstd, pb stream, pb stream+zstd, qdf, qdf+zstd.
type Row = [Cell; 6];

fn cell((bytes, time): (u64, Duration), records: usize) -> Cell {
    Cell {
        bytes_per_batch: bytes,
        records_per_sec: (MESSAGES * records) as f64 / time.as_secs_f64(),
    }
}

/// The row of `batches` (of `size` records each) for signal `S`.
async fn row<S: Signal>(batches: &[S], size: usize, reps: usize) -> Result<Row, BoxError> {
    let mut cells = Vec::new();
    for zstd in [false, true] {
        cells.push(cell(
            measure::<S, S::Otlp>(zstd, batches, reps).await?,
            size,
        ));
    }
    for zstd in [false, true] {
        cells.push(cell(measure::<S, S::Pb>(zstd, batches, reps).await?, size));
    }
    for zstd in [false, true] {
        cells.push(cell(measure::<S, S::Qdf>(zstd, batches, reps).await?, size));
    }
    Ok(cells.try_into().expect("six cells"))
}

#[tokio::main]
async fn main() -> Result<(), BoxError> {
    let mut rows = Vec::new();
    for size in [10, 100, 1000] {
        let reps = if size >= 1000 { 3 } else { 7 };
        let traces = demo::trace_batches(MESSAGES, size);
        rows.push(("traces", size, row(&traces, size, reps).await?));
        let logs = demo::log_batches(MESSAGES, size);
        rows.push(("logs", size, row(&logs, size, reps).await?));
    }
    println!(
        "OTLP: opentelemetry-proto's TraceService/LogsService, unary Export per batch; pb stream: \
         one client-streaming Export with tonic_prost::ProstCodec; qdf: the same stream with \
         qdf_tonic::QdfCodec (DefaultLimits: Balanced, one session per stream); zstd: gRPC \
         message compression (tonic, level 3). {MESSAGES} batches per export.\n"
    );
    println!("Bytes on the wire per batch (client to server, TCP payload):\n");
    println!(
        "| signal | records/batch | OTLP | OTLP+zstd | pb stream | pb stream+zstd | qdf | qdf+zstd | pb stream+zstd ÷ qdf | pb stream+zstd ÷ qdf+zstd |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (signal, size, cells) in &rows {
        let [o, oz, p, pz, q, qz] = cells.map(|c| c.bytes_per_batch);
        let ratio = |x: u64| pz as f64 / x as f64;
        println!(
            "| {signal} | {size} | {o} | {oz} | {p} | {pz} | {q} | {qz} | {:.2}× | {:.2}× |",
            ratio(q),
            ratio(qz)
        );
    }
    println!("\nRecords per second (whole export, loopback, encode + send + decode, median):\n");
    println!(
        "| signal | records/batch | OTLP | OTLP+zstd | pb stream | pb stream+zstd | qdf | qdf+zstd |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    for (signal, size, cells) in &rows {
        let [a, b, c, d, e, f] = cells.map(|c| c.records_per_sec);
        println!("| {signal} | {size} | {a:.0} | {b:.0} | {c:.0} | {d:.0} | {e:.0} | {f:.0} |");
    }
    Ok(())
}
