//! Stream lifetime: a long-lived exporter that rebalances over several collectors.
//!
//! One `Export` call that lives for hours stays on the collector it was balanced to, and
//! its Dense sessions keep the tables of hours ago. With a [`StreamLifetime`]:
//!
//! - the exporter sends through a [`Rotation`] ([`export_rotating`]): it closes its stream
//!   after the lifetime (say 10 000 batches or 5 minutes), awaits the summary and opens the
//!   next `Export` on the same channel; a balanced channel ([`balanced_channel`], tonic's
//!   `Channel::balance_list`) places each new stream anew;
//! - each collector ([`Collector::with_lifetime`](crate::collector::Collector::with_lifetime))
//!   enforces a lifetime of its own as a backstop for exporters that never rotate; its
//!   summary carries the number of batches it read (`qdf-accepted`), and the rotation
//!   resends the batches it sent past that count on the next stream.
//!
//! No batch is lost or delivered twice across the cuts, and every stream starts new Dense
//! sessions both ways. `cargo run -p telemetry-grpc --bin lifetime-demo` runs three
//! collectors and one exporter on loopback.

use qdf_tonic::{Rotation, RotationStats, StreamLifetime};
use tokio_stream::Stream;
use tonic::Status;
use tonic::codegen::http::uri::InvalidUri;
use tonic::transport::Channel;

use crate::model::ExportRequest;
use crate::qdf_api::collector_client::CollectorClient;

/// One channel over all `urls` (`http://host:port`), balanced per call by tower's
/// power-of-two-choices. Connections are made lazily, on the first calls.
pub fn balanced_channel<I>(urls: I) -> Result<Channel, InvalidUri>
where
    I: IntoIterator,
    I::Item: Into<bytes::Bytes>,
{
    let endpoints = urls
        .into_iter()
        .map(Channel::from_shared)
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Channel::balance_list(endpoints.into_iter()))
}

/// Exports every batch of `batches` over `channel` in `Export` streams of at most
/// `lifetime`; returns the rotation's counters. On an error the unacknowledged batches
/// are dropped with the rotation (keep the [`Rotation`] to resume instead, see its docs).
pub async fn export_rotating<S>(
    channel: Channel,
    batches: S,
    lifetime: StreamLifetime<ExportRequest>,
) -> Result<RotationStats, Status>
where
    S: Stream<Item = ExportRequest> + Send + 'static,
{
    let client = CollectorClient::new(channel);
    let mut rotation = Rotation::new(batches, lifetime);
    rotation
        .run(|stream| {
            let mut client = client.clone();
            async move { client.export(stream).await }
        })
        .await?;
    Ok(rotation.stats())
}
