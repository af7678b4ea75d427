//! Serves a real Zipkin trace (1 041 spans, shipped in `support/qdf-fixtures/data`) as qdf or
//! JSON from one endpoint, and as a stream of qdf frames.
//!
//! ```text
//! cargo run --example axum_server --features axum
//! curl -s localhost:3000/spans | wc -c                                   # JSON
//! curl -s -H 'accept: application/qdf' localhost:3000/spans | wc -c      # one qdf message
//! curl -s localhost:3000/spans/stream | wc -c                            # qdf frames, one session
//! ```
//!
//! Ctrl-C stops it after the requests in flight are answered.

use std::sync::Arc;

use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use futures::{Stream, stream};
use qdf::axum::{Qdf, QdfStream, wants_qdf};
use qdf_fixtures::real::zipkin::{self, Span};

type Spans = Arc<Vec<Span>>;

/// qdf for clients that ask for it in `Accept`, JSON for everyone else.
async fn negotiated(State(spans): State<Spans>, headers: HeaderMap) -> Response {
    if wants_qdf(&headers) {
        Qdf(&*spans).into_response()
    } else {
        Json(&*spans).into_response()
    }
}

/// One frame per span; service names, IPs and tag keys go over the wire once per response.
async fn stream_spans(State(spans): State<Spans>) -> QdfStream<impl Stream<Item = Span>> {
    QdfStream::new(stream::iter(
        (0..spans.len()).map(move |i| spans[i].clone()),
    ))
}

#[tokio::main]
async fn main() {
    let spans: Spans = Arc::new(zipkin::load().expect("the shipped trace loads").0);

    let app = Router::new()
        .route("/spans", get(negotiated))
        .route("/spans/stream", get(stream_spans))
        .with_state(spans);

    let listener = tokio::net::TcpListener::bind("127.0.0.1:3000")
        .await
        .unwrap();
    println!("listening on http://{}", listener.local_addr().unwrap());
    axum::serve(listener, app)
        .with_graceful_shutdown(async { tokio::signal::ctrl_c().await.unwrap() })
        .await
        .unwrap();
}
