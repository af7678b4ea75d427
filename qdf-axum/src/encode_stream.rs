//! [`QdfStream`]: a response body of qdf frames encoded from a `Stream`, one Dense session
//! for the whole response.
//!
//! Body layout (`docs/SPEC.md` §17): the 5-byte stream header, then for each item
//! `uvarint(len) ‖ body` (`‖ crc32c` with [`QdfStream::checksum`]), each body encoded by
//! [`EncoderSession::encode_frame`] against the intern table of everything sent before it in
//! this response.

use std::pin::Pin;
use std::task::{Context, Poll};

use axum::BoxError;
use axum::body::{Body, Bytes};
use axum::response::{IntoResponse, Response};
use futures_core::Stream;
use http::header::{CONTENT_TYPE, HeaderValue};
use qdf_core::{EncoderSession, Options};
use serde::Serialize;

use crate::media::APPLICATION_QDF_STREAM;

/// Frames are gathered into one body chunk while the source stream has items ready, up to
/// this many bytes: large enough to amortise a chunk header and a write, small enough to
/// keep the first bytes of a slow stream moving.
const FLUSH_BYTES: usize = 16 << 10;

/// A streamed response: each item of `S` becomes one qdf frame, all frames sharing one
/// [`EncoderSession`] (Balanced options unless given), sent as `application/qdf-stream`.
///
/// Frames are sent as soon as the source stream is pending, so a slow stream (a log tail)
/// reaches the client item by item, while a fast one is sent in chunks of about 16 KiB.
/// Read it with [`QdfFrames`](crate::QdfFrames), on the server or a client.
///
/// If an item fails to encode, the body ends with an error after the frames before it,
/// which aborts the response (HTTP/1.1 closes the connection without the final chunk,
/// HTTP/2 resets the stream), so a client sees a failed read, never a short but
/// valid-looking body. The status is already sent by then, so it stays 200. The frames
/// before the error reach the client as far as the server wrote them out: the body waits
/// one turn for hyper to flush what it holds, but a client reading slower than the
/// socket drains can lose the frames still in hyper's write buffer (up to about 400 KiB)
/// with the connection. A source that can itself fail (a relay of a request stream, a
/// database cursor) is a stream of `Result`s given to
/// [`from_try_stream`](Self::from_try_stream): its `Err` aborts the body the same way.
///
/// ```rust,no_run
/// use axum::{Router, routing::get};
/// use futures::stream;
/// use qdf_axum::QdfStream;
/// # #[derive(serde::Serialize)] struct LogLine { seq: u64, text: String }
///
/// async fn tail() -> QdfStream<impl futures::Stream<Item = LogLine>> {
///     QdfStream::new(stream::iter((0..3).map(|seq| LogLine { seq, text: "ok".into() })))
/// }
///
/// let app: Router = Router::new().route("/tail", get(tail));
/// ```
#[derive(Debug)]
#[must_use]
pub struct QdfStream<S> {
    stream: S,
    session: EncoderSession,
    /// Set by [`dictionary`](Self::dictionary): the response depends on request headers.
    vary: bool,
}

impl<S> QdfStream<S> {
    /// Streams `stream` with a Balanced session ([`Options::default`]).
    ///
    /// Every item is a frame, a `Result` too (an `Err` with a serializable error is sent
    /// as a frame like an `Ok`): a stream of `Result`s whose `Err` must end the response
    /// goes to [`from_try_stream`](Self::from_try_stream).
    pub fn new(stream: S) -> Self {
        Self::with_session(stream, EncoderSession::new(Options::default()))
    }

    /// Streams `stream` with `session` (its tier, its table caps, its checksum setting).
    pub fn with_session(stream: S, session: EncoderSession) -> Self {
        QdfStream {
            stream,
            session,
            vary: false,
        }
    }

    /// Streams `stream`, a stream of `Result`s, with a Balanced session
    /// ([`Options::default`]): each `Ok` item is a frame; the first `Err` ends the body with
    /// that error after the frames before it, which aborts the response (as an item that
    /// fails to encode does), and nothing after it is polled.
    ///
    /// ```rust,no_run
    /// use axum::Router;
    /// use axum::response::IntoResponse;
    /// use axum::routing::post;
    /// use futures::StreamExt;
    /// use qdf_axum::{QdfFrames, QdfStream};
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct Span { id: u64 }
    ///
    /// // Relays the request's frames back: a broken upload aborts the response.
    /// async fn relay(frames: QdfFrames<Span>) -> impl IntoResponse {
    ///     QdfStream::from_try_stream(frames.map(|span| span.map(|s| Span { id: s.id + 1 })))
    /// }
    ///
    /// let app: Router = Router::new().route("/relay", post(relay));
    /// ```
    pub fn from_try_stream(stream: S) -> QdfStream<TryItems<S>> {
        QdfStream::with_session(TryItems(stream), EncoderSession::new(Options::default()))
    }

    /// [`from_try_stream`](Self::from_try_stream) with `session` (its tier, its table caps, its checksum
    /// setting).
    pub fn from_try_stream_with_session(
        stream: S,
        session: EncoderSession,
    ) -> QdfStream<TryItems<S>> {
        QdfStream::with_session(TryItems(stream), session)
    }

    /// Starts the stream from the dictionary the client announced
    /// ([`AvailableDictionary`](crate::AvailableDictionary), `docs/SPEC.md` §25), if any,
    /// as [`EncoderSession::with_dictionary`]: the stream header names it (8 bytes more)
    /// and the strings it holds are 2-byte references from the first frame on. Either way
    /// the response gets `Vary: available-dictionary, qdf-dictionary`. A reader needs the
    /// same dictionary ([`QdfFrames::with_registry`](crate::QdfFrames::with_registry) or a
    /// session holding it). Ignored by a Speed session, which writes no Dense tags.
    ///
    /// ```rust,no_run
    /// # use futures::stream;
    /// use qdf_axum::{AvailableDictionary, QdfStream};
    /// async fn tail(dict: AvailableDictionary) -> QdfStream<impl futures::Stream<Item = String>> {
    ///     QdfStream::new(stream::iter(["checkout".to_string()])).dictionary(dict)
    /// }
    /// ```
    pub fn dictionary(mut self, dict: crate::AvailableDictionary) -> Self {
        if let Some(d) = dict.0 {
            self.session = self.session.with_dictionary(d);
        }
        self.vary = true;
        self
    }

    /// Ends every frame with a CRC-32C of its bytes (default off; header flag `10`,
    /// `docs/SPEC.md` §17), as [`EncoderSession::with_checksum`]: 4 bytes per frame, and a
    /// reader ([`QdfFrames`](crate::QdfFrames), any qdf-rs decoder) refuses a damaged frame
    /// with [`ErrorCode::ChecksumMismatch`](qdf_core::ErrorCode::ChecksumMismatch) and stops.
    /// Readers need no setting. Over HTTPS, TLS already rejects damaged bytes.
    ///
    /// ```rust,no_run
    /// # use futures::stream;
    /// # use qdf_axum::QdfStream;
    /// async fn tail() -> QdfStream<impl futures::Stream<Item = u64>> {
    ///     QdfStream::new(stream::iter(0..3u64)).checksum(true)
    /// }
    /// ```
    pub fn checksum(mut self, on: bool) -> Self {
        self.session = self.session.with_checksum(on);
        self
    }
}

impl<S, T> IntoResponse for QdfStream<S>
where
    S: Stream<Item = T> + Send + 'static,
    T: Serialize,
{
    fn into_response(self) -> Response {
        let (stream, session, vary) = (Plain(Box::pin(self.stream)), self.session, self.vary);
        EncodeFrames::response(stream, session, vary)
    }
}

/// The source of a [`QdfStream::from_try_stream`] response: a stream of `Result<T, E>`, each `Ok`
/// a frame, the first `Err` (any error axum can carry: `E: Into<axum::BoxError>`) the end
/// of the body.
#[derive(Debug)]
pub struct TryItems<S>(S);

impl<S, T, E> IntoResponse for QdfStream<TryItems<S>>
where
    S: Stream<Item = Result<T, E>> + Send + 'static,
    T: Serialize,
    E: Into<BoxError>,
{
    fn into_response(self) -> Response {
        EncodeFrames::response(Box::pin(self.stream.0), self.session, self.vary)
    }
}

/// A plain stream's items, each `Ok`.
struct Plain<S>(Pin<Box<S>>);

impl<S: Stream> Stream for Plain<S> {
    type Item = Result<S::Item, std::convert::Infallible>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.0.as_mut().poll_next(cx).map(|item| item.map(Ok))
    }
}

/// Not generic, so it is compiled once.
fn stream_response(body: Body) -> Response {
    (
        [(
            CONTENT_TYPE,
            HeaderValue::from_static(APPLICATION_QDF_STREAM),
        )],
        body,
    )
        .into_response()
}

/// The body stream: polls items, encodes them into `buf`, yields `buf` as one chunk when it
/// passes [`FLUSH_BYTES`] or the source is pending or finished.
struct EncodeFrames<S> {
    stream: S,
    session: EncoderSession,
    buf: Vec<u8>,
    /// An encode or source error held back until the frames before it are sent.
    failed: Option<BoxError>,
    /// The body was pending once with `failed` set (the frames before it went out).
    held: bool,
    done: bool,
}

impl<S, T, E> EncodeFrames<S>
where
    S: Stream<Item = Result<T, E>> + Unpin + Send + 'static,
    T: Serialize,
    E: Into<BoxError>,
{
    fn response(stream: S, session: EncoderSession, vary: bool) -> Response {
        let frames = EncodeFrames {
            stream,
            session,
            buf: Vec::new(),
            failed: None,
            held: false,
            done: false,
        };
        let mut res = stream_response(Body::from_stream(frames));
        if vary {
            crate::dictionary::add_vary(&mut res);
        }
        res
    }
}

impl<S, T, E> Stream for EncodeFrames<S>
where
    S: Stream<Item = Result<T, E>> + Unpin,
    T: Serialize,
    E: Into<BoxError>,
{
    type Item = Result<Bytes, BoxError>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        while !this.done && this.buf.len() < FLUSH_BYTES {
            match Pin::new(&mut this.stream).poll_next(cx) {
                Poll::Ready(Some(Ok(item))) => {
                    if let Err(err) = this.session.encode_frame(&item, &mut this.buf) {
                        this.done = true;
                        this.failed = Some(err.into());
                    }
                }
                Poll::Ready(Some(Err(err))) => {
                    this.done = true;
                    this.failed = Some(err.into());
                }
                Poll::Ready(None) => this.done = true,
                Poll::Pending if this.buf.is_empty() => return Poll::Pending,
                Poll::Pending => break,
            }
        }
        if !this.buf.is_empty() {
            let chunk = Bytes::from(std::mem::take(&mut this.buf));
            return Poll::Ready(Some(Ok(chunk)));
        }
        match this.failed.take() {
            None => Poll::Ready(None),
            Some(err) if this.held => Poll::Ready(Some(Err(err))),
            // One `Pending` before the error: hyper writes out the chunks it holds when its
            // body is pending, and drops the connection, unwritten chunks too, on an error.
            Some(err) => {
                this.failed = Some(err);
                this.held = true;
                cx.waker().wake_by_ref();
                Poll::Pending
            }
        }
    }
}
