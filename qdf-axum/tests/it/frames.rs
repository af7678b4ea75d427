//! `QdfStream` responses and `QdfFrames` (extractor and client reader) against a real
//! server: 10 000 records cut into 1-byte and random chunks, the body limit across frames,
//! and the failures a stream can end with.

use crate::common::*;
use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};
use futures::{Stream, StreamExt, stream};
use http::Method;
use qdf_axum::{Qdf, QdfFrames, QdfRejection, QdfStream, TryItems};
use qdf_core::{EncoderSession, ErrorCode, Options};
use qdf_fixtures::real::zipkin;
use serde::Serialize;

const RECORDS: usize = 10_000;
/// The body limit of the upload route.
const LIMIT: usize = 4096;
const STREAM: &str = "application/qdf-stream";

/// Sums what a server received, so the reply pins every record.
#[derive(Serialize, serde::Deserialize, Debug, PartialEq)]
struct Received {
    count: u64,
    duration_sum: u64,
    last: Option<Span>,
}

async fn upload(mut frames: QdfFrames<Span>) -> Result<Qdf<Received>, QdfRejection> {
    let mut got = Received {
        count: 0,
        duration_sum: 0,
        last: None,
    };
    while let Some(span) = frames.next().await {
        let span = span?;
        got.count += 1;
        got.duration_sum += u64::from(span.duration_us);
        got.last = Some(span);
    }
    Ok(Qdf(got))
}

/// Collects a streamed upload of spans and streams them back in the same order.
async fn echo_trace(
    mut frames: QdfFrames<zipkin::Span>,
) -> Result<QdfStream<impl Stream<Item = zipkin::Span>>, QdfRejection> {
    let mut spans = Vec::new();
    while let Some(span) = frames.next().await {
        spans.push(span?);
    }
    Ok(QdfStream::new(stream::iter(spans)))
}

/// Streams an upload of numbers back doubled, frame by frame as they arrive: a broken
/// upload aborts the response.
async fn relay(
    frames: QdfFrames<u32>,
) -> QdfStream<TryItems<impl Stream<Item = Result<u32, QdfRejection>>>> {
    QdfStream::from_try_stream(frames.map(|n| n.map(|n| 2 * n)))
}

async fn app() -> std::net::SocketAddr {
    let app = Router::new()
        .route(
            "/spans",
            get(|| async { QdfStream::new(stream::iter(spans(RECORDS))) }),
        )
        .route(
            "/broken",
            get(|| async {
                // A pause before each item: the server sits idle, so hyper flushes each frame
                // before the next (a yield alone would not let it go idle).
                let items = stream::iter(0..10).then(|n| async move {
                    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
                    FailsAtThree(n)
                });
                QdfStream::new(items)
            }),
        )
        .route(
            "/source_fails",
            get(|| async {
                // The third item is the source's error: the items after it are never sent.
                // All are ready at once, so the two frames before it are in one chunk that
                // hyper still holds when the error comes.
                QdfStream::from_try_stream(stream::iter([
                    Ok(0u32),
                    Ok(1),
                    Err("source failed"),
                    Ok(3),
                ]))
            }),
        )
        .route("/relay", post(relay))
        .route("/upload", post(upload))
        .route("/trace", post(echo_trace))
        .route(
            "/upload_small",
            post(upload).layer(DefaultBodyLimit::max(LIMIT)),
        );
    serve(app).await
}

/// The whole stream body of `items` as one session would write it.
fn encode_frames<T: Serialize>(items: &[T]) -> Vec<u8> {
    let mut session = EncoderSession::new(Options::default());
    let mut out = Vec::new();
    for item in items {
        session.encode_frame(item, &mut out).unwrap();
    }
    out
}

async fn download_in_chunks(sizes: impl FnMut() -> usize + Unpin) -> Vec<Span> {
    let res = send(app().await, Method::GET, "/spans", None, full("")).await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["content-type"], "application/qdf-stream");
    let body = Rechunk::new(res.into_body(), sizes);
    QdfFrames::<Span, _>::new(body)
        .map(|r| r.unwrap())
        .collect()
        .await
}

#[tokio::test]
async fn ten_thousand_records_in_one_byte_chunks() {
    assert_same(&download_in_chunks(|| 1).await, &spans(RECORDS));
}

#[tokio::test]
async fn ten_thousand_records_in_random_chunks() {
    for seed in [1, 2] {
        let got = download_in_chunks(random_sizes(seed, 700)).await;
        assert_same(&got, &spans(RECORDS));
    }
}

#[tokio::test]
async fn response_is_the_frames_of_one_session() {
    let res = send(app().await, Method::GET, "/spans", None, full("")).await;
    let (_, _, body) = read(res).await;
    let whole = encode_frames(&spans(RECORDS));
    assert_eq!(body.len(), whole.len());
    assert!(body[..] == whole[..]);
}

#[test]
fn one_session_shares_its_table_across_frames() {
    let whole = encode_frames(&spans(RECORDS));
    // Frames of a fresh session each, less the header each repeats: what sharing nothing
    // would cost. One session must beat it by far (service names, IDs, tag keys are sent
    // once); half is a loose bound for these records.
    let header = qdf_core::wire::header::HEADER_LEN;
    let unshared: usize = spans(RECORDS)
        .iter()
        .map(|s| encode_frames(std::slice::from_ref(s)).len() - header)
        .sum::<usize>()
        + header;
    assert!(whole.len() * 2 < unshared, "{} vs {unshared}", whole.len());
}

#[tokio::test]
async fn upload_in_random_chunks_round_trips() {
    let sent = spans(2000);
    let body = chunked(encode_frames(&sent), random_sizes(3, 40));
    let res = send(app().await, Method::POST, "/upload", Some(STREAM), body).await;
    let (status, ct, bytes) = read(res).await;
    assert_eq!((status, ct.as_str()), (200, "application/qdf"));
    let got: Received = qdf_core::from_slice(&bytes).unwrap();
    assert_eq!(got.count, 2000);
    let want_sum: u64 = sent.iter().map(|s| u64::from(s.duration_us)).sum();
    assert_eq!(got.duration_sum, want_sum);
    assert_same(&got.last.into_iter().collect::<Vec<_>>(), &sent[1999..]);
}

#[tokio::test]
async fn empty_upload_is_an_empty_stream() {
    let res = send(app().await, Method::POST, "/upload", Some(STREAM), full("")).await;
    let (status, _, bytes) = read(res).await;
    assert_eq!(status, 200);
    let got: Received = qdf_core::from_slice(&bytes).unwrap();
    assert_eq!((got.count, got.last), (0, None));
}

/// A body of the stream header alone ends between frames, as `DecoderSession::check_end`
/// (and the tokio codec's `decode_eof`) say: no records, not a truncated frame. A cut header
/// is still a 400.
#[tokio::test]
async fn header_only_upload_is_an_empty_stream() {
    let addr = app().await;
    for (body, want) in [(&b"QDF\x01\x01"[..], 200), (&b"QDF\x01"[..], 400)] {
        let res = send(
            addr,
            Method::POST,
            "/upload",
            Some(STREAM),
            full(body.to_vec()),
        )
        .await;
        let (status, _, bytes) = read(res).await;
        assert_eq!(status, want, "{body:?}: {bytes:?}");
        if want == 200 {
            let got: Received = qdf_core::from_slice(&bytes).unwrap();
            assert_eq!((got.count, got.last), (0, None));
        }
    }
}

#[tokio::test]
async fn upload_without_stream_content_type_is_415() {
    let body = encode_frames(&spans(2));
    for ct in [None, Some("application/qdf")] {
        let res = send(app().await, Method::POST, "/upload", ct, full(body.clone())).await;
        let (status, _, text) = read(res).await;
        assert_eq!(status, 415);
        assert_eq!(
            text,
            "Expected request with `Content-Type: application/qdf-stream`"
        );
    }
}

#[tokio::test]
async fn body_limit_counts_all_frames_together() {
    // The most spans whose frames fit the limit are accepted; one more span is a 413,
    // though every frame on its own is far below the limit.
    let all = spans(400);
    let fit = (1..all.len())
        .take_while(|&n| encode_frames(&all[..n]).len() <= LIMIT)
        .last()
        .unwrap();
    let addr = app().await;
    for (n, want) in [(fit, 200), (fit + 1, 413)] {
        let body = chunked(encode_frames(&all[..n]), || 16);
        let res = send(addr, Method::POST, "/upload_small", Some(STREAM), body).await;
        let (status, _, text) = read(res).await;
        assert_eq!(status, want, "{n} spans: {text:?}");
        if want == 200 {
            let got: Received = qdf_core::from_slice(&text).unwrap();
            assert_eq!(got.count, n as u64);
        }
    }
}

#[tokio::test]
async fn body_ending_inside_a_frame_is_400() {
    let mut frames = encode_frames(&spans(3));
    frames.pop();
    let res = send(
        app().await,
        Method::POST,
        "/upload",
        Some(STREAM),
        chunked(frames, || 5),
    )
    .await;
    let (status, _, text) = read(res).await;
    assert_eq!(status, 400, "{text:?}");
}

#[tokio::test]
async fn garbage_upload_is_400() {
    let res = send(
        app().await,
        Method::POST,
        "/upload",
        Some(STREAM),
        full("not qdf frames"),
    )
    .await;
    let (status, _, text) = read(res).await;
    assert_eq!(status, 400, "{text:?}");
}

#[tokio::test]
async fn encode_failure_mid_stream_aborts_the_body() {
    let res = send(app().await, Method::GET, "/broken", None, full("")).await;
    assert_eq!(res.status(), 200);
    let items: Vec<Result<u32, QdfRejection>> = QdfFrames::new(res.into_body()).collect().await;
    // The three frames before the failure arrive intact; then the read fails instead of
    // the body ending as if it were complete.
    let (last, prefix) = items.split_last().unwrap();
    let prefix: Vec<u32> = prefix.iter().map(|r| *r.as_ref().unwrap()).collect();
    assert_eq!(prefix, [0, 1, 2]);
    let err = last.as_ref().unwrap_err();
    assert!(matches!(err, QdfRejection::BodyRead(_)), "{err:?}");
}

#[tokio::test]
async fn source_error_mid_stream_aborts_the_body() {
    let res = send(app().await, Method::GET, "/source_fails", None, full("")).await;
    assert_eq!(res.status(), 200);
    let items: Vec<Result<u32, QdfRejection>> = QdfFrames::new(res.into_body()).collect().await;
    let (last, prefix) = items.split_last().unwrap();
    let prefix: Vec<u32> = prefix.iter().map(|r| *r.as_ref().unwrap()).collect();
    assert_eq!(prefix, [0, 1]);
    let err = last.as_ref().unwrap_err();
    assert!(matches!(err, QdfRejection::BodyRead(_)), "{err:?}");
}

#[tokio::test]
async fn relay_streams_back_and_aborts_on_a_broken_upload() {
    let addr = app().await;
    let whole = encode_frames(&[1u32, 2, 3]);
    let res = send(
        addr,
        Method::POST,
        "/relay",
        Some(STREAM),
        full(whole.clone()),
    )
    .await;
    assert_eq!(res.status(), 200);
    let items: Vec<u32> = QdfFrames::<u32, _>::new(res.into_body())
        .map(Result::unwrap)
        .collect()
        .await;
    assert_eq!(items, [2, 4, 6]);
    // The upload ends inside its last frame: the two whole frames come back, then the
    // response fails instead of ending as a complete stream.
    let cut = whole[..whole.len() - 1].to_vec();
    let res = send(addr, Method::POST, "/relay", Some(STREAM), full(cut)).await;
    assert_eq!(res.status(), 200);
    let items: Vec<Result<u32, QdfRejection>> = QdfFrames::new(res.into_body()).collect().await;
    let (last, prefix) = items.split_last().unwrap();
    let prefix: Vec<u32> = prefix.iter().map(|r| *r.as_ref().unwrap()).collect();
    assert_eq!(prefix, [2, 4]);
    let err = last.as_ref().unwrap_err();
    assert!(matches!(err, QdfRejection::BodyRead(_)), "{err:?}");
}

#[tokio::test]
async fn client_reader_refuses_a_frame_above_its_maximum() {
    // The length prefix alone decides: the reader fails before buffering the frame's body.
    let wire = encode_frames(&spans(1));
    let body = http_body_util::Full::new(bytes::Bytes::from(wire));
    let limits = qdf_core::Limits::DEFAULT.max_frame_length(16);
    let items: Vec<Result<Span, QdfRejection>> =
        QdfFrames::with_limits(body, limits).collect().await;
    assert_eq!(items.len(), 1);
    let err = items[0].as_ref().unwrap_err();
    assert_eq!(err.status(), 413, "{err}");
    let QdfRejection::Decode(e) = err else {
        panic!("{err:?}")
    };
    assert!(
        matches!(e.code(), ErrorCode::FrameTooLarge { max: 16, .. }),
        "{e:?}"
    );
}

#[tokio::test]
async fn real_zipkin_trace_streams_both_ways_in_random_chunks() {
    let trace = zipkin::load().unwrap().0;
    let body = chunked(encode_frames(&trace), random_sizes(4, 300));
    let res = send(app().await, Method::POST, "/trace", Some(STREAM), body).await;
    assert_eq!(res.status(), 200);
    let back = Rechunk::new(res.into_body(), random_sizes(5, 300));
    let got: Vec<zipkin::Span> = QdfFrames::new(back).map(|r| r.unwrap()).collect().await;
    assert_eq!(got, trace);
}
