//! Messages larger than one HTTP/2 DATA frame, and corrupt messages: an error `Status` that
//! ends its own stream and leaves the others on the same connection running.

use crate::common::{qdf_messages, raw_export};
use qdf_tonic::{DefaultLimits, Limits};
use telemetry_grpc::collector::Collector;
use telemetry_grpc::data::{log_batch, log_batches};
use telemetry_grpc::model::{ExportRequest, TailRequest};
use telemetry_grpc::qdf_api::collector_client::CollectorClient;
use telemetry_grpc::serve_qdf;
use tokio::sync::mpsc;
use tokio_stream::StreamExt;
use tokio_stream::wrappers::ReceiverStream;
use tonic::Code;

/// HTTP/2's default (and minimum) largest DATA frame payload, RFC 9113 §4.2.
const H2_DEFAULT_MAX_FRAME: u64 = 16_384;

#[tokio::test]
async fn large_messages_split_across_data_frames_decode() {
    let server = serve_qdf(Collector::new(10), 64 << 20).await.unwrap();
    let mut client = CollectorClient::connect(server.url())
        .await
        .unwrap()
        .max_decoding_message_size(64 << 20);
    let sent = log_batches(2, 20_000);
    let summary = client
        .export(tokio_stream::iter(sent.clone()))
        .await
        .unwrap();
    assert_eq!(summary.into_inner().logs, 40_000);
    let per_message = server.counters.client_to_server() / 2;
    assert!(
        per_message > 32 * H2_DEFAULT_MAX_FRAME,
        "{per_message} bytes"
    );

    let tail = client
        .tail(TailRequest::default())
        .await
        .unwrap()
        .into_inner();
    let got: Vec<ExportRequest> = tail.map(|r| r.unwrap()).collect().await;
    assert_eq!(got, sent);
    assert!(server.counters.server_to_client() > 64 * H2_DEFAULT_MAX_FRAME);
    server.stop().await.unwrap();
}

#[tokio::test]
async fn raw_path_matches_the_codec() {
    // The raw client is a faithful stand-in: valid bytes are accepted.
    let server = serve_qdf(Collector::new(0), 4 << 20).await.unwrap();
    let channel = server.channel().await.unwrap();
    let batches = log_batches(3, 5);
    let summary = raw_export(channel, qdf_messages(&batches, DefaultLimits::options()))
        .await
        .unwrap();
    assert_eq!((summary.batches, summary.logs), (3, 15));
    server.stop().await.unwrap();
}

#[tokio::test]
async fn corrupt_message_ends_only_its_stream() {
    let server = serve_qdf(Collector::new(100), 4 << 20).await.unwrap();
    let channel = server.channel().await.unwrap();

    // A healthy bidi stream on the same connection, open across the failures.
    let mut client = CollectorClient::new(channel.clone());
    let (tx, rx) = mpsc::channel(4);
    let mut acks = client
        .stream(ReceiverStream::new(rx))
        .await
        .unwrap()
        .into_inner();
    tx.send(log_batch(100, 3)).await.unwrap();
    assert_eq!(acks.next().await.unwrap().unwrap().batch_id, 100);

    let batches = log_batches(3, 5);
    let good = qdf_messages(&batches, DefaultLimits::options());

    // Message 0 with a bad header.
    let mut bad_header = good[0].clone();
    bad_header[0] = b'X';
    let err = raw_export(channel.clone(), vec![bad_header])
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument, "{err:?}");
    assert!(
        err.message().starts_with("qdf: cannot decode message 0"),
        "{err:?}"
    );

    // Message 1 cut short, then a valid-looking message 2 that must not be read.
    let mut cut = good.clone();
    let half = cut[1].len() / 2;
    cut[1].truncate(half);
    let err = raw_export(channel.clone(), cut).await.unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument, "{err:?}");
    assert!(
        err.message().starts_with("qdf: cannot decode message 1"),
        "{err:?}"
    );

    // An empty message is never valid qdf.
    let err = raw_export(channel.clone(), vec![good[0].clone(), Vec::new()])
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument, "{err:?}");

    // The healthy stream and new calls carry on.
    tx.send(log_batch(101, 3)).await.unwrap();
    assert_eq!(acks.next().await.unwrap().unwrap().batch_id, 101);
    drop(tx);
    assert!(acks.next().await.is_none());
    let summary = raw_export(channel, good).await.unwrap();
    assert_eq!(summary.batches, 3);
    server.stop().await.unwrap();
}
