//! Per-stream table caps: a long-lived stream cannot grow the server's session tables past
//! `DefaultLimits`. A peer that keeps interning past the caps is refused with
//! `ResourceExhausted`; a peer using the same limits stops interning and carries on.

use crate::common::{qdf_messages, raw_export};
use qdf_core::Options;
use qdf_tonic::{DefaultLimits, Limits};
use telemetry_grpc::collector::Collector;
use telemetry_grpc::data::log_batches;
use telemetry_grpc::model::ExportRequest;
use telemetry_grpc::qdf_api::collector_client::CollectorClient;
use telemetry_grpc::serve_qdf;
use tonic::Code;

/// 12 000 batches of one record, each with a fresh 32- and 16-hex-digit id: 24 000 distinct
/// strings, over the 16 384 intern entries of `DefaultLimits`. One record is a row (batches
/// of several may be columnar containers, small ones too, whose id columns are packed blocks
/// that intern nothing).
fn unique_heavy() -> Vec<ExportRequest> {
    log_batches(BATCHES, 1)
}

const BATCHES: usize = 12_000;

#[tokio::test]
async fn peer_over_the_caps_is_resource_exhausted() {
    let server = serve_qdf(Collector::new(0), 4 << 20).await.unwrap();
    let channel = server.channel().await.unwrap();
    // Core's default caps (65 535 entries, 4 MiB) are far above the server's; without
    // renewal (which would keep a peer's table small, docs/SPEC.md §18) the table grows past
    // them.
    let generous = Options::balanced().session_renewal(false);
    assert!(
        generous.limits.max_intern_entries > DefaultLimits::options().limits.max_intern_entries
    );
    let err = raw_export(channel, qdf_messages(&unique_heavy(), generous))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::ResourceExhausted, "{err:?}");
    assert!(
        err.message().starts_with("qdf: cannot decode message"),
        "{err:?}"
    );
    server.stop().await.unwrap();
}

#[tokio::test]
async fn peer_within_the_caps_streams_on() {
    let server = serve_qdf(Collector::new(0), 4 << 20).await.unwrap();
    let mut client = CollectorClient::connect(server.url()).await.unwrap();
    let summary = client
        .export(tokio_stream::iter(unique_heavy()))
        .await
        .unwrap();
    assert_eq!(summary.into_inner().logs, BATCHES as u64);
    server.stop().await.unwrap();
}
