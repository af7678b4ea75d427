//! # qdf-axum
//!
//! Take and return [qdf](qdf_core) bodies in [axum] handlers the way [`axum::Json`](https://docs.rs/axum/0.8/axum/struct.Json.html) does
//! JSON, and stream long responses (a log tail, an export) as frames that share one Dense
//! session, so a string sent once is a back-reference ever after.
//!
//! | type | role | media type | session |
//! |---|---|---|---|
//! | [`Qdf<T>`] | extractor and response | `application/qdf` | one per body (Balanced) |
//! | [`QdfStream<S>`] | response from a `Stream<Item = T>` | `application/qdf-stream` | one for all frames |
//! | [`QdfFrames<T, B>`] | extractor, and client-side reader of any `http_body::Body` | `application/qdf-stream` | one for all frames |
//! | [`QdfRejection`] | why a body was refused: 415, 413, 400, 422 | `text/plain` | |
//!
//! ## One message per body
//!
//! [`Qdf<T>`] decodes a request body with [`qdf_core::from_slice`] and encodes a response
//! with [`qdf_core::to_vec`]. Each body is a self-contained Balanced message, so any qdf
//! decoder reads it without context.
//!
//! ```rust,no_run
//! use axum::{Router, routing::post};
//! use qdf_axum::Qdf;
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Deserialize, Serialize)]
//! struct Span { trace_id: String, name: String, duration_us: u64 }
//!
//! // 415 without `Content-Type: application/qdf`, 413 over the body limit,
//! // 400 for bytes that are not qdf, 422 for qdf that is not a `Vec<Span>`.
//! async fn slowest(Qdf(mut spans): Qdf<Vec<Span>>) -> Qdf<Option<Span>> {
//!     spans.sort_by_key(|s| s.duration_us);
//!     Qdf(spans.pop())
//! }
//!
//! # async fn run() {
//! let app = Router::new().route("/slowest", post(slowest));
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:3000").await.unwrap();
//! axum::serve(listener, app).await.unwrap();
//! # }
//! ```
//!
//! Body size is capped by axum's [`DefaultBodyLimit`](axum::extract::DefaultBodyLimit)
//! (2 MiB unless a route sets another), and decoding by the limits of
//! [`qdf_core::Options`]: depth, and the decoded-output limit (64 MiB per message by
//! default, `Options::max_output`), which the encoding side checks too.
//!
//! ## Streams of frames
//!
//! [`QdfStream`] turns any `Stream` of serializable items into a chunked response: the
//! stream header once, then one `uvarint(len) ‖ body` frame per item, all encoded by one
//! [`qdf_core::EncoderSession`]. [`QdfFrames`] reads such a body back, on the server as an
//! extractor or on a client from a hyper or reqwest response body. [`QdfStream::checksum`]
//! adds a CRC-32C to each frame (`docs/SPEC.md` §17); [`QdfFrames`] checks it whenever the
//! body's header announces it, and a client uploads with one through
//! `EncoderSession::new(opts).with_checksum(true)`.
//!
//! ```rust,no_run
//! use axum::{Router, routing::{get, post}};
//! use futures::{Stream, StreamExt, stream};
//! use qdf_axum::{QdfFrames, QdfRejection, QdfStream};
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Deserialize, Serialize)]
//! struct Reading { sensor: String, celsius: f64 }
//!
//! async fn export() -> QdfStream<impl Stream<Item = Reading>> {
//!     QdfStream::new(stream::iter((0..10_000).map(|i| Reading {
//!         sensor: format!("sensor-{}", i % 8),
//!         celsius: 20.0 + (i % 50) as f64 / 10.0,
//!     })))
//! }
//!
//! // The body limit counts all frames together; a frame past it is a 413.
//! async fn import(mut readings: QdfFrames<Reading>) -> Result<String, QdfRejection> {
//!     let mut n = 0;
//!     while let Some(reading) = readings.next().await {
//!         reading?;
//!         n += 1;
//!     }
//!     Ok(format!("{n} readings"))
//! }
//!
//! let app: Router = Router::new().route("/readings", get(export).post(import));
//! ```
//!
//! A client decodes the response as it arrives:
//!
//! ```rust,no_run
//! use futures::StreamExt;
//! use http_body_util::Empty;
//! use hyper_util::{client::legacy::Client, rt::TokioExecutor};
//! use qdf_axum::QdfFrames;
//! # #[derive(serde::Deserialize)] struct Reading { sensor: String, celsius: f64 }
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let client = Client::builder(TokioExecutor::new()).build_http::<Empty<bytes::Bytes>>();
//! let response = client.get("http://127.0.0.1:3000/readings".parse()?).await?;
//! let mut readings = QdfFrames::<Reading, _>::new(response.into_body());
//! while let Some(reading) = readings.next().await {
//!     let reading = reading?;
//!     println!("{} {}", reading.sensor, reading.celsius);
//! }
//! # Ok(())
//! # }
//! ```
//!
//! ## Content negotiation
//!
//! [`wants_qdf`] reads the `Accept` header, so one endpoint can answer qdf clients with
//! [`Qdf`] and everyone else with [`axum::Json`](https://docs.rs/axum/0.8/axum/struct.Json.html) (see `examples/axum_server.rs`).
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod encode_stream;
mod frames;
pub mod media;
mod qdf;
mod rejection;

pub use encode_stream::QdfStream;
pub use frames::QdfFrames;
pub use media::{APPLICATION_QDF, APPLICATION_QDF_STREAM, wants_qdf};
pub use qdf::Qdf;
pub use rejection::QdfRejection;
