//! Stream lifetime over a balanced channel: three collectors on 127.0.0.1, one exporter
//! whose `Export` stream rotates every 100 batches, so the batches spread over all three.
//!
//! ```text
//! cargo run -p telemetry-grpc --bin lifetime-demo
//! ```

use std::time::Duration;

use qdf_tonic::StreamLifetime;
use telemetry_grpc::collector::Collector;
use telemetry_grpc::data::log_batches;
use telemetry_grpc::lifetime::{balanced_channel, export_rotating};
use telemetry_grpc::serve_qdf;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

#[tokio::main]
async fn main() -> Result<(), BoxError> {
    // Collectors: a backstop of 250 batches or 30 s per stream, for exporters that do not
    // rotate by themselves.
    let backstop = StreamLifetime::unlimited()
        .max_messages(250)
        .max_age(Duration::from_secs(30));
    let mut collectors = Vec::new();
    let mut servers = Vec::new();
    for _ in 0..3 {
        let collector = Collector::new(0).with_lifetime(backstop);
        servers.push(serve_qdf(collector.clone(), 4 << 20).await?);
        collectors.push(collector);
    }
    let channel = balanced_channel(servers.iter().map(|s| s.url()))?;

    // Exporter: a new stream every 100 batches or 10 s, whichever comes first.
    let lifetime = StreamLifetime::unlimited()
        .max_messages(100)
        .max_age(Duration::from_secs(10));
    let batches = tokio_stream::iter(log_batches(2000, 10));
    let stats = export_rotating(channel, batches, lifetime).await?;
    println!(
        "exported 2000 batches in {} streams ({} accepted, {} resent)",
        stats.streams, stats.accepted, stats.resent
    );
    for (server, collector) in servers.iter().zip(&collectors) {
        let totals = collector.totals();
        println!(
            "collector {}: {} batches, {} log records",
            server.addr, totals.batches, totals.logs
        );
    }
    for server in servers {
        server.stop().await?;
    }
    Ok(())
}
