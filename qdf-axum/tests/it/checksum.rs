//! `application/qdf-stream` bodies with frame checksums (`docs/SPEC.md` §17): a
//! `QdfStream::checksum(true)` response read by `QdfFrames` in random chunks, a checksummed
//! upload through the extractor, and a flipped bit refused both ways (400 on the server, a
//! `ChecksumMismatch` on the client).

use crate::common::*;
use axum::Router;
use axum::routing::{get, post};
use futures::{StreamExt, stream};
use http::Method;
use qdf_axum::{Qdf, QdfFrames, QdfRejection, QdfStream};
use qdf_core::{Category, EncoderSession, ErrorCode, Options};

const STREAM: &str = "application/qdf-stream";
const RECORDS: usize = 2000;

#[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
struct Received {
    count: u64,
    duration_sum: u64,
}

async fn upload(mut frames: QdfFrames<Span>) -> Result<Qdf<Received>, QdfRejection> {
    let mut got = Received {
        count: 0,
        duration_sum: 0,
    };
    while let Some(span) = frames.next().await {
        got.count += 1;
        got.duration_sum += u64::from(span?.duration_us);
    }
    Ok(Qdf(got))
}

async fn app() -> std::net::SocketAddr {
    let app = Router::new()
        .route(
            "/spans",
            get(|| async { QdfStream::new(stream::iter(spans(RECORDS))).checksum(true) }),
        )
        .route("/upload", post(upload));
    serve(app).await
}

fn encode_frames(items: &[Span], checksum: bool) -> Vec<u8> {
    let mut session = EncoderSession::new(Options::default()).with_checksum(checksum);
    let mut out = Vec::new();
    for item in items {
        session.encode_frame(item, &mut out).unwrap();
    }
    out
}

#[tokio::test]
async fn a_checksummed_response_reads_back_in_random_chunks() {
    let addr = app().await;
    let res = send(addr, Method::GET, "/spans", None, full("")).await;
    let (status, ct, body) = read(res).await;
    assert_eq!((status, ct.as_str()), (200, STREAM));
    assert_eq!(body[4], 0x53, "Balanced flags and the checksum flag");
    assert!(body[..] == encode_frames(&spans(RECORDS), true)[..]);
    assert_eq!(
        body.len(),
        encode_frames(&spans(RECORDS), false).len() + 4 * RECORDS,
        "4 bytes per frame (no length prefix changes width for these spans)"
    );

    let res = send(addr, Method::GET, "/spans", None, full("")).await;
    let chunks = Rechunk::new(res.into_body(), random_sizes(7, 300));
    let got: Vec<Span> = QdfFrames::new(chunks).map(|r| r.unwrap()).collect().await;
    assert_same(&got, &spans(RECORDS));
}

#[tokio::test]
async fn a_damaged_response_frame_stops_the_client_reader() {
    let mut wire = encode_frames(&spans(50), true);
    let at = wire.len() / 2;
    wire[at] ^= 0x01;
    let body = http_body_util::Full::new(bytes::Bytes::from(wire));
    let items: Vec<Result<Span, QdfRejection>> = QdfFrames::new(body).collect().await;
    let (last, good) = items.split_last().unwrap();
    let good: Vec<Span> = good.iter().map(|r| r.as_ref().unwrap().clone()).collect();
    assert_same(&good, &spans(50)[..good.len()]);
    let err = last.as_ref().unwrap_err();
    assert_eq!(err.status(), 400, "{err}");
    let QdfRejection::Decode(e) = err else {
        panic!("{err:?}")
    };
    assert!(
        matches!(e.code(), ErrorCode::ChecksumMismatch { frame, .. } if *frame == good.len() as u64),
        "{e}"
    );
    assert_eq!(e.classify(), Category::Syntax);
}

#[tokio::test]
async fn checksummed_uploads_are_checked_by_the_extractor() {
    let addr = app().await;
    let sent = spans(RECORDS);
    let wire = encode_frames(&sent, true);
    let res = send(
        addr,
        Method::POST,
        "/upload",
        Some(STREAM),
        chunked(wire.clone(), random_sizes(8, 64)),
    )
    .await;
    let (status, _, bytes) = read(res).await;
    assert_eq!(status, 200);
    let got: Received = qdf_core::from_slice(&bytes).unwrap();
    let sum: u64 = sent.iter().map(|s| u64::from(s.duration_us)).sum();
    assert_eq!(
        got,
        Received {
            count: RECORDS as u64,
            duration_sum: sum
        }
    );

    let mut bad = wire;
    let at = bad.len() / 3;
    bad[at] ^= 0x20;
    let res = send(
        addr,
        Method::POST,
        "/upload",
        Some(STREAM),
        chunked(bad, || 100),
    )
    .await;
    let (status, _, text) = read(res).await;
    assert_eq!(status, 400);
    let text = String::from_utf8_lossy(&text);
    assert!(text.contains("fails its CRC-32C"), "{text}");
}
