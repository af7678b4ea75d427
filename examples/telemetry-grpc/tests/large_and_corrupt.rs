//! Messages larger than one HTTP/2 DATA frame, and corrupt messages: an error `Status` that
//! ends its own stream and leaves the others on the same connection running.

use bytes::BufMut;
use qdf_tonic::{DefaultLimits, Limits, QdfDecoder};
use telemetry_grpc::collector::Collector;
use telemetry_grpc::data::log_batch;
use telemetry_grpc::model::{ExportRequest, ExportSummary, TailRequest};
use telemetry_grpc::qdf_api::collector_client::CollectorClient;
use telemetry_grpc::serve_qdf;
use tokio::sync::mpsc;
use tokio_stream::StreamExt;
use tokio_stream::wrappers::ReceiverStream;
use tonic::codec::{Codec, EncodeBuf, Encoder};
use tonic::codegen::http::uri::PathAndQuery;
use tonic::transport::Channel;
use tonic::{Code, Request, Status};

/// HTTP/2's default (and minimum) largest DATA frame payload, RFC 9113 §4.2.
const H2_DEFAULT_MAX_FRAME: u64 = 16_384;

#[tokio::test]
async fn large_messages_split_across_data_frames_decode() {
    let server = serve_qdf(Collector::new(10), 64 << 20).await.unwrap();
    let mut client = CollectorClient::connect(server.url())
        .await
        .unwrap()
        .max_decoding_message_size(64 << 20);
    let sent: Vec<ExportRequest> = (0..2).map(|i| log_batch(i, 20_000)).collect();
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

/// Sends pre-encoded bytes as messages and decodes the reply with qdf.
#[derive(Default)]
struct RawCodec;

struct RawEncoder;

impl Encoder for RawEncoder {
    type Item = Vec<u8>;
    type Error = Status;

    fn encode(&mut self, item: Vec<u8>, dst: &mut EncodeBuf<'_>) -> Result<(), Status> {
        dst.put_slice(&item);
        Ok(())
    }
}

impl Codec for RawCodec {
    type Encode = Vec<u8>;
    type Decode = ExportSummary;
    type Encoder = RawEncoder;
    type Decoder = QdfDecoder<ExportSummary>;

    fn encoder(&mut self) -> RawEncoder {
        RawEncoder
    }

    fn decoder(&mut self) -> Self::Decoder {
        QdfDecoder::new()
    }
}

/// Messages 0.. of a qdf stream of `batches`, each as gRPC would carry it.
fn qdf_messages(batches: &[ExportRequest]) -> Vec<Vec<u8>> {
    let mut session = qdf_core::EncoderSession::new(DefaultLimits::options());
    batches
        .iter()
        .map(|b| {
            let mut out = Vec::new();
            session.encode_message(b, &mut out).expect("encode");
            out
        })
        .collect()
}

async fn raw_export(channel: Channel, messages: Vec<Vec<u8>>) -> Result<ExportSummary, Status> {
    let mut grpc = tonic::client::Grpc::new(channel);
    grpc.ready().await.expect("ready");
    let path = PathAndQuery::from_static("/telemetry.qdf.Collector/Export");
    let request = Request::new(tokio_stream::iter(messages));
    let reply = grpc.client_streaming(request, path, RawCodec).await?;
    Ok(reply.into_inner())
}

#[tokio::test]
async fn raw_path_matches_the_codec() {
    // The raw client is a faithful stand-in: valid bytes are accepted.
    let server = serve_qdf(Collector::new(0), 4 << 20).await.unwrap();
    let channel = Channel::from_shared(server.url())
        .unwrap()
        .connect()
        .await
        .unwrap();
    let batches: Vec<ExportRequest> = (0..3).map(|i| log_batch(i, 5)).collect();
    let summary = raw_export(channel, qdf_messages(&batches)).await.unwrap();
    assert_eq!((summary.batches, summary.logs), (3, 15));
    server.stop().await.unwrap();
}

#[tokio::test]
async fn corrupt_message_ends_only_its_stream() {
    let server = serve_qdf(Collector::new(100), 4 << 20).await.unwrap();
    let channel = Channel::from_shared(server.url())
        .unwrap()
        .connect()
        .await
        .unwrap();

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

    let batches: Vec<ExportRequest> = (0..3).map(|i| log_batch(i, 5)).collect();
    let good = qdf_messages(&batches);

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
