//! The codec inside tonic's own framing, without a network: `EncodeBody` writes the gRPC
//! messages a call would send, `Streaming` reads them back from a body cut into chunks the
//! way HTTP/2 DATA frames cut it. Golden bytes, compression, limits and corrupt input.

use std::convert::Infallible;

use bytes::Bytes;
use http_body::Frame;
use http_body_util::{BodyExt, StreamBody};
use qdf_core::Options;
use qdf_tonic::{DefaultLimits, Limits, QdfDecoder, QdfEncoder};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize, Serializer};
use tokio_stream::StreamExt;
use tonic::codec::{CompressionEncoding, EncodeBody, Streaming};
use tonic::{Code, Status};

/// Plain tags, so golden bytes do not depend on the Dense dialect.
struct SpeedTier;

impl Limits for SpeedTier {
    fn options() -> Options {
        Options::speed()
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Record {
    service: String,
    host: String,
    ts: i64,
    latency_ms: f64,
    tags: Vec<String>,
}

fn records(n: usize) -> Vec<Record> {
    (0..n)
        .map(|i| Record {
            service: ["api", "worker", "ingest"][i % 3].to_owned(),
            host: format!("host-{}", i % 5),
            ts: 1_700_000_000_000 + i as i64 * 1000,
            latency_ms: i as f64 * 0.25,
            tags: vec!["prod".to_owned(), format!("shard-{}", i % 7)],
        })
        .collect()
}

/// The request body a client would send for `items`.
async fn encode<T, L>(
    items: Vec<T>,
    compression: Option<CompressionEncoding>,
) -> Result<Bytes, Status>
where
    T: Serialize + Send + 'static,
    L: Limits,
{
    let source = tokio_stream::iter(items.into_iter().map(Ok));
    let body = EncodeBody::new_client(QdfEncoder::<T, L>::new(), source, compression, None);
    Ok(body.collect().await?.to_bytes())
}

/// Decodes `wire` delivered in `chunk`-byte DATA frames; stops after the first error.
async fn decode<U: DeserializeOwned + Send + 'static>(
    wire: &[u8],
    chunk: usize,
    compression: Option<CompressionEncoding>,
    max: Option<usize>,
) -> Vec<Result<U, Status>> {
    decode_with::<U, DefaultLimits>(wire, chunk, compression, max).await
}

/// [`decode`] with the limits `L`.
async fn decode_with<U: DeserializeOwned + Send + 'static, L: Limits>(
    wire: &[u8],
    chunk: usize,
    compression: Option<CompressionEncoding>,
    max: Option<usize>,
) -> Vec<Result<U, Status>> {
    let frames: Vec<Result<Frame<Bytes>, Infallible>> = wire
        .chunks(chunk)
        .map(|c| Ok(Frame::data(Bytes::copy_from_slice(c))))
        .collect();
    let body = StreamBody::new(tokio_stream::iter(frames));
    let mut stream = Streaming::new_request(QdfDecoder::<U, L>::new(), body, compression, max);
    let mut out = Vec::new();
    while let Some(item) = stream.next().await {
        let failed = item.is_err();
        out.push(item);
        if failed {
            break;
        }
    }
    out
}

/// Splits a gRPC body into its messages (compressed flag, payload).
fn messages(wire: &[u8]) -> Vec<(u8, Vec<u8>)> {
    let mut out = Vec::new();
    let mut rest = wire;
    while !rest.is_empty() {
        let len = u32::from_be_bytes(rest[1..5].try_into().unwrap()) as usize;
        out.push((rest[0], rest[5..5 + len].to_vec()));
        rest = &rest[5 + len..];
    }
    out
}

/// Joins uncompressed messages into a gRPC body.
fn body_of(msgs: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    for m in msgs {
        out.push(0);
        out.extend_from_slice(&(m.len() as u32).to_be_bytes());
        out.extend_from_slice(m);
    }
    out
}

#[tokio::test]
async fn header_goes_on_the_first_message_only() {
    let wire = encode::<String, SpeedTier>(vec!["api".into(), "api".into()], None)
        .await
        .unwrap();
    #[rustfmt::skip]
    let expect = [
        0x00, 0x00, 0x00, 0x00, 0x09, 0x51, 0x44, 0x46, 0x01, 0x00, 0x83, 0x61, 0x70, 0x69,
        0x00, 0x00, 0x00, 0x00, 0x04, 0x83, 0x61, 0x70, 0x69,
    ];
    assert_eq!(&wire[..], &expect);
}

#[tokio::test]
async fn stream_round_trips_whatever_the_data_frame_size() {
    let sent = records(200);
    let wire = encode::<_, DefaultLimits>(sent.clone(), None)
        .await
        .unwrap();
    assert_eq!(messages(&wire).len(), 200);
    for chunk in [1, 7, 4096, 16_384, wire.len()] {
        let got: Vec<Record> = decode(&wire, chunk, None, None)
            .await
            .into_iter()
            .map(|r| r.expect("decode"))
            .collect();
        assert_eq!(got, sent, "chunk {chunk}");
    }
}

#[tokio::test]
async fn a_message_larger_than_many_data_frames_decodes() {
    // One message of over 256 KiB (about 375 KB in Balanced), delivered in 16 KiB frames,
    // HTTP/2's default maximum DATA payload (RFC 9113 §4.2).
    let sent = vec![records(40_000)];
    let wire = encode::<_, DefaultLimits>(sent.clone(), None)
        .await
        .unwrap();
    assert!(wire.len() > 16 * 16_384, "{} bytes", wire.len());
    let got = decode::<Vec<Record>>(&wire, 16_384, None, Some(64 << 20)).await;
    assert_eq!(
        got.into_iter().map(Result::unwrap).collect::<Vec<_>>(),
        sent
    );
}

#[tokio::test]
async fn compression_applies_on_top_of_qdf() {
    let sent = records(100);
    for enc in [CompressionEncoding::Zstd, CompressionEncoding::Gzip] {
        let wire = encode::<_, DefaultLimits>(sent.clone(), Some(enc))
            .await
            .unwrap();
        let msgs = messages(&wire);
        assert_eq!(msgs.len(), 100);
        assert!(
            msgs.iter().all(|(flag, _)| *flag == 1),
            "{enc:?}: all compressed"
        );
        let got = decode::<Record>(&wire, 1000, Some(enc), None).await;
        assert_eq!(
            got.into_iter().map(Result::unwrap).collect::<Vec<_>>(),
            sent
        );
    }
}

#[tokio::test]
async fn a_unary_message_is_a_whole_qdf_message() {
    let sent = records(1).pop().unwrap();
    let wire = encode::<_, DefaultLimits>(vec![sent.clone()], None)
        .await
        .unwrap();
    let msgs = messages(&wire);
    assert_eq!(msgs.len(), 1);
    assert_eq!(qdf_core::from_slice::<Record>(&msgs[0].1).unwrap(), sent);
    // A few records in one message: the later ones predict numbers from the earlier ones
    // (`docs/SPEC.md` §15.2), which a single-message decoder reads too.
    let sent = records(4);
    let wire = encode::<_, DefaultLimits>(vec![sent.clone()], None)
        .await
        .unwrap();
    let msgs = messages(&wire);
    assert!(msgs[0].1.contains(&0xF0), "{:02x?}", msgs[0].1);
    assert_eq!(
        qdf_core::from_slice::<Vec<Record>>(&msgs[0].1).unwrap(),
        sent
    );
}

#[tokio::test]
async fn corrupt_message_fails_with_its_index_after_the_good_ones() {
    let sent = records(3);
    let wire = encode::<_, DefaultLimits>(sent.clone(), None)
        .await
        .unwrap();
    let mut msgs: Vec<Vec<u8>> = messages(&wire).into_iter().map(|(_, m)| m).collect();
    let half = msgs[1].len() / 2;
    msgs[1].truncate(half);
    let got = decode::<Record>(&body_of(&msgs), 5, None, None).await;
    assert_eq!(got.len(), 2);
    assert_eq!(got[0].as_ref().unwrap(), &sent[0]);
    let err = got[1].as_ref().unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument, "{err:?}");
    assert!(
        err.message()
            .starts_with("qdf: cannot decode message 1 of this stream: ")
    );
}

#[tokio::test]
async fn bad_header_and_empty_message_are_invalid_argument() {
    let wire = encode::<_, DefaultLimits>(records(1), None).await.unwrap();
    let mut msg = messages(&wire).pop().unwrap().1;
    msg[0] = b'X';
    let err = decode::<Record>(&body_of(&[msg]), 64, None, None)
        .await
        .pop()
        .unwrap();
    let err = err.unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    assert!(err.message().contains("magic"), "{err:?}");

    let err = decode::<Record>(&body_of(&[Vec::new()]), 64, None, None)
        .await
        .pop()
        .unwrap();
    assert_eq!(err.unwrap_err().code(), Code::InvalidArgument);
}

#[tokio::test]
async fn tonic_size_limits_stay_in_force() {
    let wire = encode::<_, DefaultLimits>(records(10), None).await.unwrap();
    let got = decode::<Record>(&wire, 100, None, Some(16)).await;
    let err = got.into_iter().next().unwrap().unwrap_err();
    assert_eq!(err.code(), Code::OutOfRange, "{err:?}");

    let source = tokio_stream::iter(records(10).into_iter().map(Ok));
    let body = EncodeBody::new_client(QdfEncoder::<Record>::new(), source, None, Some(16));
    let err = body.collect().await.unwrap_err();
    assert_eq!(err.code(), Code::OutOfRange, "{err:?}");
}

/// Bodies of at most 64 bytes.
struct Tiny;

impl Limits for Tiny {
    const LIMITS: qdf_core::Limits = qdf_core::Limits::MANY_STREAMS.max_frame_length(64);
}

#[tokio::test]
async fn qdf_message_cap_is_out_of_range_on_receive() {
    let wire = encode::<_, DefaultLimits>(records(1), None).await.unwrap();
    let body_len = messages(&wire)[0].1.len() - 5;
    assert!(body_len > 64, "{body_len}");
    let got = decode_with::<Record, Tiny>(&wire, 100, None, None).await;
    let err = got.into_iter().next().unwrap().unwrap_err();
    assert_eq!(err.code(), Code::OutOfRange, "{err:?}");
    let want = format!("frame of {body_len} bytes exceeds the maximum of 64");
    assert!(err.message().contains(&want), "{err:?}");
}

#[tokio::test]
async fn qdf_message_cap_applies_on_send() {
    let err = encode::<_, Tiny>(records(1), None).await.unwrap_err();
    assert!(
        err.message().contains("qdf: cannot encode message 0"),
        "{err:?}"
    );
    assert!(
        err.message().contains("exceeds the maximum of 64"),
        "{err:?}"
    );
}

/// A value whose `Serialize` fails.
struct Unwritable;

impl Serialize for Unwritable {
    fn serialize<S: Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
        Err(serde::ser::Error::custom("no wire form"))
    }
}

#[tokio::test]
async fn encode_error_is_internal_with_the_message_index() {
    let err = encode::<_, DefaultLimits>(vec![Unwritable], None)
        .await
        .unwrap_err();
    // tonic wraps every encoder error as `internal` and keeps the codec's status as text.
    assert_eq!(err.code(), Code::Internal);
    let ours = "message: \"qdf: cannot encode message 0 of this stream: no wire form\"";
    assert!(err.message().starts_with("Error encoding: "), "{err:?}");
    assert!(err.message().ends_with(ours), "{err:?}");
}

/// Message mode with checksums (`docs/SPEC.md` §17, header flag `10`): `QdfEncoder` does not
/// write them, but `QdfDecoder` reads a peer that does (each message ends with its CRC-32C)
/// and refuses a damaged message with `INVALID_ARGUMENT`, then every later one.
#[tokio::test]
async fn checksummed_messages_from_a_peer_are_checked() {
    let sent = records(4);
    let mut session = qdf_core::EncoderSession::new(DefaultLimits::options()).with_checksum(true);
    let msgs: Vec<Vec<u8>> = sent
        .iter()
        .map(|r| {
            let mut m = Vec::new();
            session.encode_message(r, &mut m).unwrap();
            m
        })
        .collect();
    assert_eq!(msgs[0][4] & 0x10, 0x10);
    let got = decode::<Record>(&body_of(&msgs), 7, None, None).await;
    let got: Vec<Record> = got.into_iter().map(|r| r.unwrap()).collect();
    assert_eq!(got, sent);

    let mut bad = msgs.clone();
    bad[2][3] ^= 0x04;
    let got = decode::<Record>(&body_of(&bad), 7, None, None).await;
    assert_eq!(got.len(), 3);
    let err = got[2].as_ref().unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument, "{err:?}");
    assert!(
        err.message()
            .starts_with("qdf: cannot decode message 2 of this stream: frame 2 (stream byte "),
        "{err:?}"
    );
    assert!(err.message().contains("fails its CRC-32C"), "{err:?}");
}

/// Small caps so the encoder renews within a short stream.
struct TinyTables;

impl Limits for TinyTables {
    const LIMITS: qdf_core::Limits = qdf_core::Limits::MANY_STREAMS.max_intern_entries(64);
}

/// [`TinyTables`] without renewal.
struct TinyTablesNoRenewal;

impl Limits for TinyTablesNoRenewal {
    const LIMITS: qdf_core::Limits = qdf_core::Limits::MANY_STREAMS.max_intern_entries(64);
    const SESSION_RENEWAL: bool = false;
}

/// 2 000 records, each with a new host and shard name among repeated service names.
fn drifting(n: usize) -> Vec<Record> {
    (0..n)
        .map(|i| Record {
            service: ["api", "worker", "ingest"][i % 3].to_owned(),
            host: format!("host-{:05}", i / 3),
            ts: 1_700_000_000_000 + i as i64 * 1000,
            latency_ms: i as f64 * 0.25,
            tags: vec!["production".to_owned(), format!("shard-{:04}", i / 2)],
        })
        .collect()
}

/// Renewals a decoding session sees in the messages of `wire`.
fn renewals_in<L: Limits>(wire: &[u8]) -> u64 {
    let mut session = qdf_core::DecoderSession::new(L::options());
    for (_, m) in messages(wire) {
        let _: Record = session.decode_message(&m).expect("decodes");
    }
    session.renewals()
}

/// Sends `items` through the codec with limits `L` and checks they arrive exactly; the wire.
async fn exact_round_trip<L: Limits>(items: &[Record]) -> Bytes {
    let wire = encode::<Record, L>(items.to_vec(), None).await.unwrap();
    let back: Vec<Record> = decode_with::<Record, L>(&wire, 1000, None, None)
        .await
        .into_iter()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(back, items);
    wire
}

#[tokio::test]
async fn small_caps_stream_renews_and_round_trips() {
    let items = drifting(2000);
    let wire = exact_round_trip::<TinyTables>(&items).await;
    assert!(renewals_in::<TinyTables>(&wire) > 0);
    let wire_off = exact_round_trip::<TinyTablesNoRenewal>(&items).await;
    assert_eq!(renewals_in::<TinyTablesNoRenewal>(&wire_off), 0);
}
