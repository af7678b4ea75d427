//! Test helpers: a raw client that sends pre-encoded qdf messages.

use bytes::BufMut;
use qdf_tonic::QdfDecoder;
use telemetry_grpc::model::{ExportRequest, ExportSummary};
use tonic::codec::{Codec, EncodeBuf, Encoder};
use tonic::codegen::http::uri::PathAndQuery;
use tonic::transport::Channel;
use tonic::{Request, Status};

/// Sends pre-encoded bytes as messages and decodes the reply with qdf.
#[derive(Default)]
pub struct RawCodec;

/// The encoder of [`RawCodec`]: copies each message.
pub struct RawEncoder;

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
pub fn qdf_messages(batches: &[ExportRequest], opts: qdf_core::Options) -> Vec<Vec<u8>> {
    let mut session = qdf_core::EncoderSession::new(opts);
    batches
        .iter()
        .map(|b| {
            let mut out = Vec::new();
            session.encode_message(b, &mut out).expect("encode");
            out
        })
        .collect()
}

/// A client-streaming `Export` of `messages` as they are, bypassing the qdf encoder.
pub async fn raw_export(channel: Channel, messages: Vec<Vec<u8>>) -> Result<ExportSummary, Status> {
    let mut grpc = tonic::client::Grpc::new(channel);
    grpc.ready().await.expect("ready");
    let path = PathAndQuery::from_static("/telemetry.qdf.Collector/Export");
    let request = Request::new(tokio_stream::iter(messages));
    let reply = grpc.client_streaming(request, path, RawCodec).await?;
    Ok(reply.into_inner())
}
