//! Shared by the integration tests: a real server on 127.0.0.1, a real hyper client,
//! request bodies sent in chosen chunk sizes, response bodies re-split into chosen chunks,
//! and small span-like records.
#![allow(dead_code)] // each test binary uses a different part

use std::convert::Infallible;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use axum::Router;
use bytes::Bytes;
use futures::stream;
use http::{Method, Request, Response};
use http_body::{Body, Frame};
use http_body_util::{BodyExt, StreamBody, combinators::BoxBody};
use hyper::body::Incoming;
use hyper_util::client::legacy::{Client, connect::HttpConnector};
use hyper_util::rt::TokioExecutor;
use rand_core::{RngCore, SeedableRng};
use rand_pcg::Pcg32;
use serde::{Deserialize, Serialize};

/// A span-like record: repeated strings (intern table), integers, a float, an option, a list.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Span {
    pub trace_id: String,
    pub name: String,
    pub service: String,
    pub timestamp_us: u64,
    pub duration_us: u32,
    pub sampled_ratio: f64,
    pub error: Option<String>,
    pub tags: Vec<(String, String)>,
}

/// `n` deterministic spans.
pub fn spans(n: usize) -> Vec<Span> {
    const SERVICES: [&str; 4] = ["platformapi", "pusher", "archiver", "installedapp"];
    (0..n)
        .map(|i| Span {
            trace_id: format!("{:016x}", 0x14b6_0fd9_ae50_4820u64 + (i / 50) as u64),
            name: ["post", "get /events", "process.archiver"][i % 3].to_string(),
            service: SERVICES[i % SERVICES.len()].to_string(),
            timestamp_us: 1_543_549_826_259_342 + 37 * i as u64,
            duration_us: (i as u32 * 7919) % 100_000,
            sampled_ratio: 1.0 / (1 + i % 10) as f64,
            error: (i % 97 == 0).then(|| format!("timeout after {i} ms")),
            tags: vec![
                ("lc".into(), "EventProcessor".into()),
                ("i".into(), i.to_string()),
            ],
        })
        .collect()
}

/// Asserts equality with floats compared by their bits (so -0.0 and NaN payloads count).
pub fn assert_same(got: &[Span], want: &[Span]) {
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(want) {
        assert_eq!(g.sampled_ratio.to_bits(), w.sampled_ratio.to_bits());
        assert_eq!(g, w);
    }
}

/// Serves `app` on an ephemeral port of 127.0.0.1 until the test's runtime ends.
pub async fn serve(app: Router) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    addr
}

pub type ClientBody = BoxBody<Bytes, Infallible>;

/// A hyper client over plain HTTP/1.1.
pub fn client() -> Client<HttpConnector, ClientBody> {
    Client::builder(TokioExecutor::new()).build_http()
}

/// `bytes` as a body of chunks whose sizes come from `sizes` (no `Content-Length`, so it is
/// sent with chunked transfer coding and the server sees it arrive piece by piece).
pub fn chunked(bytes: Vec<u8>, mut sizes: impl FnMut() -> usize) -> ClientBody {
    let mut rest = Bytes::from(bytes);
    let mut chunks = Vec::new();
    while !rest.is_empty() {
        let n = sizes().clamp(1, rest.len());
        chunks.push(Ok(Frame::data(rest.split_to(n))));
    }
    StreamBody::new(stream::iter(chunks)).boxed()
}

/// A whole body in one piece.
pub fn full(bytes: impl Into<Bytes>) -> ClientBody {
    http_body_util::Full::new(bytes.into()).boxed()
}

/// Sends `body` to `addr` + `path`, with `content_type` if given.
pub async fn send(
    addr: SocketAddr,
    method: Method,
    path: &str,
    content_type: Option<&str>,
    body: ClientBody,
) -> Response<Incoming> {
    let mut req = Request::builder()
        .method(method)
        .uri(format!("http://{addr}{path}"));
    if let Some(ct) = content_type {
        req = req.header(http::header::CONTENT_TYPE, ct);
    }
    client().request(req.body(body).unwrap()).await.unwrap()
}

/// The status, the `Content-Type` and the whole body of a response.
pub async fn read(res: Response<Incoming>) -> (u16, String, Bytes) {
    let status = res.status().as_u16();
    let ct = res
        .headers()
        .get(http::header::CONTENT_TYPE)
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    let body = res.into_body().collect().await.unwrap().to_bytes();
    (status, ct, body)
}

/// Serializes as its number, except 3, which fails: a stream that breaks mid-response.
pub struct FailsAtThree(pub u32);

impl Serialize for FailsAtThree {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.0 == 3 {
            return Err(serde::ser::Error::custom("item 3 refuses"));
        }
        s.serialize_u32(self.0)
    }
}

/// Chunk sizes 1..=max from a seeded PCG (deterministic per seed).
pub fn random_sizes(seed: u64, max: u32) -> impl FnMut() -> usize + Send + 'static {
    let mut rng = Pcg32::seed_from_u64(seed);
    move || 1 + (rng.next_u32() % max) as usize
}

/// A body that re-splits the data of `inner` into chunks of sizes from `sizes`, so a
/// reader sees frames cut at every possible place.
pub struct Rechunk<B, F> {
    inner: B,
    pending: Bytes,
    sizes: F,
}

impl<B, F> Rechunk<B, F> {
    pub fn new(inner: B, sizes: F) -> Self {
        Rechunk {
            inner,
            pending: Bytes::new(),
            sizes,
        }
    }
}

impl<B, F> Body for Rechunk<B, F>
where
    B: Body<Data = Bytes> + Unpin,
    F: FnMut() -> usize + Unpin,
{
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, B::Error>>> {
        let this = self.get_mut();
        loop {
            if !this.pending.is_empty() {
                let n = (this.sizes)().clamp(1, this.pending.len());
                return Poll::Ready(Some(Ok(Frame::data(this.pending.split_to(n)))));
            }
            match ready!(Pin::new(&mut this.inner).poll_frame(cx)) {
                Some(Ok(frame)) => match frame.into_data() {
                    Ok(data) => this.pending = data,
                    Err(frame) => return Poll::Ready(Some(Ok(frame))),
                },
                other => return Poll::Ready(other),
            }
        }
    }
}
