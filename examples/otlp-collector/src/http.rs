//! OTLP/HTTP with qdf beside protobuf: `POST /v1/traces`, `/v1/logs` and `/v1/metrics` take
//!
//! | `Content-Type` | body | reply |
//! |---|---|---|
//! | `application/x-protobuf` | one protobuf `Export*ServiceRequest` (OTLP/HTTP) | protobuf response |
//! | `application/qdf` | one qdf message ([`qdf_axum::Qdf`], Balanced) | qdf response |
//! | `application/qdf-stream` | many requests as frames of one Dense session ([`qdf_axum::QdfFrames`]) | qdf response after the last |
//!
//! Anything else is `415`; a body over [`MAX_BODY`] is `413`; bytes that do not decode are
//! `400` (protobuf) or qdf-axum's `400`/`422`. OTLP/JSON is left out: it is the same serde
//! mapping through serde_json and adds nothing to the comparison.

use std::io;
use std::net::SocketAddr;

use axum::Router;
use axum::extract::{DefaultBodyLimit, FromRequest, Request, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use bytes::Bytes;
use futures::StreamExt;
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use prost::Message;
use qdf_axum::media::{APPLICATION_QDF, APPLICATION_QDF_STREAM};
use qdf_axum::{Qdf, QdfFrames};
use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

use crate::Collector;

/// The OTLP/HTTP protobuf media type.
pub const APPLICATION_PROTOBUF: &str = "application/x-protobuf";

/// Largest request body: 64 MiB.
pub const MAX_BODY: usize = 64 << 20;

/// The three OTLP/HTTP routes on `collector`.
pub fn router(collector: Collector) -> Router {
    Router::new()
        .route("/v1/traces", post(traces))
        .route("/v1/logs", post(logs))
        .route("/v1/metrics", post(metrics))
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .with_state(collector)
}

async fn traces(State(c): State<Collector>, req: Request) -> Response {
    export(req, |r| c.traces(r)).await
}

async fn logs(State(c): State<Collector>, req: Request) -> Response {
    export(req, |r| c.logs(r)).await
}

async fn metrics(State(c): State<Collector>, req: Request) -> Response {
    export(req, |r| c.metrics(r)).await
}

/// Decodes the body by its media type, hands each request to `accept` and answers in kind.
async fn export<T, R>(req: Request, accept: impl Fn(T) -> R) -> Response
where
    T: Message + Default + DeserializeOwned,
    R: Message + Default + Serialize,
{
    let media = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    match media.as_str() {
        APPLICATION_PROTOBUF => {
            let body = match axum::body::to_bytes(req.into_body(), MAX_BODY).await {
                Ok(body) => body,
                Err(e) => return (StatusCode::PAYLOAD_TOO_LARGE, e.to_string()).into_response(),
            };
            match T::decode(body) {
                Ok(msg) => {
                    let reply = accept(msg).encode_to_vec();
                    ([(header::CONTENT_TYPE, APPLICATION_PROTOBUF)], reply).into_response()
                }
                Err(e) => (StatusCode::BAD_REQUEST, e.to_string()).into_response(),
            }
        }
        APPLICATION_QDF => match Qdf::<T>::from_request(req, &()).await {
            Ok(Qdf(msg)) => Qdf(accept(msg)).into_response(),
            Err(rejection) => rejection.into_response(),
        },
        APPLICATION_QDF_STREAM => {
            let mut frames = match QdfFrames::<T>::from_request(req, &()).await {
                Ok(frames) => frames,
                Err(rejection) => return rejection.into_response(),
            };
            let mut reply = R::default();
            while let Some(msg) = frames.next().await {
                match msg {
                    Ok(msg) => reply = accept(msg),
                    Err(rejection) => return rejection.into_response(),
                }
            }
            Qdf(reply).into_response()
        }
        _ => (
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            format!(
                "expected {APPLICATION_PROTOBUF}, {APPLICATION_QDF} or {APPLICATION_QDF_STREAM}"
            ),
        )
            .into_response(),
    }
}

/// Serves [`router`] on `127.0.0.1` with an OS-chosen port; dropping the handle's task does
/// not stop it, abort it.
pub async fn serve(collector: Collector) -> io::Result<(SocketAddr, JoinHandle<io::Result<()>>)> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let app = router(collector);
    Ok((
        addr,
        tokio::spawn(async move { axum::serve(listener, app).await }),
    ))
}

/// A minimal OTLP/HTTP client: `POST`s bodies and returns status and reply body.
#[derive(Clone, Debug)]
pub struct HttpClient {
    client: Client<HttpConnector, Full<Bytes>>,
    base: String,
}

/// A client error (connection, HTTP or body).
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

impl HttpClient {
    /// A client of the server at `addr`.
    pub fn new(addr: SocketAddr) -> Self {
        HttpClient {
            client: Client::builder(TokioExecutor::new()).build_http(),
            base: format!("http://{addr}"),
        }
    }

    /// `POST path` with `body` as `content_type`.
    pub async fn post(
        &self,
        path: &str,
        content_type: &str,
        body: Vec<u8>,
    ) -> Result<(StatusCode, Bytes), BoxError> {
        let req = http::Request::post(format!("{}{path}", self.base))
            .header(header::CONTENT_TYPE, content_type)
            .body(Full::new(Bytes::from(body)))?;
        let resp = self.client.request(req).await?;
        let status = resp.status();
        Ok((status, resp.into_body().collect().await?.to_bytes()))
    }
}

/// An `application/qdf-stream` body of `requests`: the stream header, then one frame per
/// request, all in one Balanced session.
///
/// # Errors
/// A qdf encode error (none for `opentelemetry-proto` requests under the default limits).
pub fn qdf_stream_body<T: Serialize>(requests: &[T]) -> Result<Vec<u8>, qdf_core::Error> {
    let mut session = qdf_core::EncoderSession::new(qdf_core::Options::default());
    let mut out = Vec::new();
    for r in requests {
        session.encode_frame(r, &mut out)?;
    }
    Ok(out)
}
