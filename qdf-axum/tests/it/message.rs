//! `Qdf<T>` against a real server: every rejection status, provoked by a request built for
//! it, and round trips in both directions.

use crate::common::*;
use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};
use http::Method;
use qdf_axum::Qdf;
use qdf_fixtures::real::zipkin;
use serde::{Deserialize, Serialize, Serializer};

/// The body limit of the test routes.
const LIMIT: usize = 1024;

/// Nesting one level per `Vec`, to provoke the decoder's depth limit.
#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Deep(Vec<Deep>);

fn deep(levels: usize) -> Deep {
    (0..levels).fold(Deep(Vec::new()), |inner, _| Deep(vec![inner]))
}

/// A value whose `Serialize` always fails.
struct Refuses;

impl Serialize for Refuses {
    fn serialize<S: Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
        Err(serde::ser::Error::custom(
            "this value refuses to be serialized",
        ))
    }
}

async fn echo_first(Qdf(mut spans): Qdf<Vec<Span>>) -> Qdf<Option<Span>> {
    spans.truncate(1);
    Qdf(spans.pop())
}

async fn app() -> std::net::SocketAddr {
    let app = Router::new()
        .route("/first", post(echo_first))
        .route(
            "/deep",
            post(|Qdf(d): Qdf<Deep>| async move { d.0.len().to_string() }),
        )
        .route(
            "/optional",
            post(|q: Option<Qdf<Vec<Span>>>| async move {
                q.map_or("none".to_string(), |Qdf(s)| format!("{} spans", s.len()))
            }),
        )
        .route("/refuses", get(|| async { Qdf(Refuses) }))
        .layer(DefaultBodyLimit::max(LIMIT))
        // Added after the layer: the default 2 MiB limit applies.
        .route(
            "/trace",
            post(|Qdf(t): Qdf<zipkin::Trace>| async move { Qdf(t) }),
        );
    serve(app).await
}

async fn post_to(path: &str, ct: Option<&str>, body: ClientBody) -> (u16, String, bytes::Bytes) {
    read(send(app().await, Method::POST, path, ct, body).await).await
}

#[tokio::test]
async fn missing_or_wrong_content_type_is_415() {
    let body = qdf_core::to_vec(&spans(2)).unwrap();
    for ct in [
        None,
        Some("application/json"),
        Some("application/qdf-stream"),
    ] {
        let (status, text_ct, text) = post_to("/first", ct, full(body.clone())).await;
        assert_eq!(status, 415, "{ct:?}");
        assert_eq!(text_ct, "text/plain; charset=utf-8");
        assert_eq!(
            text,
            "Expected request with `Content-Type: application/qdf`"
        );
    }
}

#[tokio::test]
async fn body_of_limit_plus_one_in_small_chunks_is_413() {
    let (status, _, text) = post_to(
        "/first",
        Some("application/qdf"),
        chunked(vec![0xC0; LIMIT + 1], || 16),
    )
    .await;
    assert_eq!(status, 413);
    assert!(
        text.starts_with(b"Request body is larger than the limit"),
        "{text:?}"
    );
}

#[tokio::test]
async fn body_of_exactly_the_limit_is_read_and_decoded() {
    // Same bytes, one fewer: the limit is inclusive, so this reaches the decoder (400).
    let (status, _, text) = post_to(
        "/first",
        Some("application/qdf"),
        chunked(vec![0xC0; LIMIT], || 16),
    )
    .await;
    assert_eq!(status, 400, "{text:?}");
}

#[tokio::test]
async fn nesting_past_the_depth_limit_is_413() {
    let opts = qdf_core::Options::default().max_depth(1000);
    let body = qdf_core::to_vec_with(&deep(200), opts).unwrap();
    assert!(body.len() <= LIMIT, "{} bytes", body.len());
    let (status, _, text) = post_to("/deep", Some("application/qdf"), full(body)).await;
    assert_eq!(status, 413, "{text:?}");
    // The same shape within the limit decodes.
    let body = qdf_core::to_vec(&deep(100)).unwrap();
    let (status, _, text) = post_to("/deep", Some("application/qdf"), full(body)).await;
    assert_eq!((status, &text[..]), (200, &b"1"[..]));
}

#[tokio::test]
async fn bytes_that_are_not_qdf_are_400() {
    let (status, _, text) = post_to(
        "/first",
        Some("application/qdf"),
        full(&b"{\"json\": true}"[..]),
    )
    .await;
    assert_eq!(status, 400);
    assert!(
        text.starts_with(b"Failed to decode the qdf body: "),
        "{text:?}"
    );
}

#[tokio::test]
async fn truncated_message_is_400() {
    let mut body = qdf_core::to_vec(&spans(3)).unwrap();
    body.pop();
    let (status, _, text) = post_to("/first", Some("application/qdf"), full(body)).await;
    assert_eq!(status, 400, "{text:?}");
}

#[tokio::test]
async fn qdf_of_the_wrong_shape_is_422() {
    let body = qdf_core::to_vec(&42u64).unwrap();
    let (status, _, text) = post_to("/first", Some("application/qdf"), full(body)).await;
    assert_eq!(status, 422, "{text:?}");
    assert!(
        text.starts_with(b"Failed to decode the qdf body: "),
        "{text:?}"
    );
}

#[tokio::test]
async fn failing_serialize_is_500_with_text() {
    let (status, ct, text) =
        read(send(app().await, Method::GET, "/refuses", None, full("")).await).await;
    assert_eq!(status, 500);
    assert_eq!(ct, "text/plain; charset=utf-8");
    assert_eq!(
        text,
        "Failed to encode the qdf response: this value refuses to be serialized"
    );
}

#[tokio::test]
async fn round_trip_both_ways_under_every_accepted_content_type() {
    let sent = spans(5);
    let body = qdf_core::to_vec(&sent).unwrap();
    for ct in [
        "application/qdf",
        "application/x-qdf",
        "application/vnd.acme.spans+qdf",
        "Application/QDF; charset=binary",
    ] {
        let (status, resp_ct, bytes) = post_to("/first", Some(ct), full(body.clone())).await;
        assert_eq!((status, resp_ct.as_str()), (200, "application/qdf"), "{ct}");
        let got: Option<Span> = qdf_core::from_slice(&bytes).unwrap();
        assert_same(&got.into_iter().collect::<Vec<_>>(), &sent[..1]);
        // A response is itself a self-contained message: `Qdf::from_bytes` reads it.
        let Qdf(again) = Qdf::<Option<Span>>::from_bytes(&bytes).unwrap();
        assert_same(&again.into_iter().collect::<Vec<_>>(), &sent[..1]);
    }
}

#[tokio::test]
async fn optional_extractor() {
    let (status, _, text) = post_to("/optional", None, full("")).await;
    assert_eq!((status, &text[..]), (200, &b"none"[..]));
    let (status, _, _) = post_to("/optional", Some("text/plain"), full("hi")).await;
    assert_eq!(status, 415);
    let body = qdf_core::to_vec(&spans(2)).unwrap();
    assert!(body.len() <= LIMIT, "{} bytes", body.len());
    let (status, _, text) = post_to("/optional", Some("application/qdf"), full(body)).await;
    assert_eq!((status, &text[..]), (200, &b"2 spans"[..]));
}

#[tokio::test]
async fn real_zipkin_trace_round_trips_both_ways() {
    let trace = zipkin::load().unwrap();
    assert_eq!(trace.0.len(), 1041);
    let body = qdf_core::to_vec(&trace).unwrap();
    let (status, ct, bytes) = post_to("/trace", Some("application/qdf"), full(body)).await;
    assert_eq!((status, ct.as_str()), (200, "application/qdf"));
    let back: zipkin::Trace = qdf_core::from_slice(&bytes).unwrap();
    assert_eq!(back, trace);
}
