//! [`QdfFrames`]: a `Stream` of values decoded from any HTTP body of qdf frames, and the
//! extractor for a streamed request body.
//!
//! Sans-IO: body chunks are appended to a `BytesMut`; [`DecoderSession::frame_status`] says
//! whether a whole frame is at its front (checking the announced length against the
//! session's maximum before anything is buffered for it), and
//! [`DecoderSession::decode_frame`] decodes it. Memory held is at most one maximum frame
//! plus one body chunk.

use std::fmt;
use std::marker::PhantomData;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use axum::RequestExt;
use axum::body::Body;
use axum::extract::{FromRequest, Request};
use bytes::{Buf, BufMut, BytesMut};
use futures_core::{FusedStream, Stream};
use http_body::Body as HttpBody;
use std::sync::Arc;

use qdf_core::{DecoderSession, DictionaryRegistry, FrameStatus, Limits, Options};
use serde::de::DeserializeOwned;

use crate::dictionary::Registry;
use crate::media::{APPLICATION_QDF_STREAM, has_qdf_stream_content_type};
use crate::rejection::QdfRejection;

/// A stream of `T` decoded from a body of qdf frames sharing one [`DecoderSession`].
///
/// - **On a client**: `QdfFrames::new(response.into_body())` reads a
///   [`QdfStream`](crate::QdfStream) response item by item as the chunks arrive, from any
///   [`http_body::Body`] (hyper's `Incoming`, axum's `Body`, …). A reqwest response becomes
///   one with `http_body_util::StreamBody::new(res.bytes_stream().map_ok(Frame::data))`.
/// - **As an extractor** (`QdfFrames<T>`, body type [`axum::body::Body`]): checks
///   `Content-Type: application/qdf-stream` (else 415) and reads the request body through
///   axum's limited body, so the route's `DefaultBodyLimit` caps all frames together.
///
/// Each item is `Ok(value)` or one [`QdfRejection`]; after an error the stream ends. A body
/// that ends inside a frame yields a [`Decode`](QdfRejection::Decode) error of category
/// `Eof`; an empty body is an empty stream. A body whose header has the checksum flag
/// (`docs/SPEC.md` §17, written by [`QdfStream::checksum`](crate::QdfStream::checksum) or
/// any session with `with_checksum(true)`) has every frame checked before it is decoded: a
/// damaged one is a `Decode` error
/// ([`ChecksumMismatch`](qdf_core::ErrorCode::ChecksumMismatch), category `Syntax`, so 400).
///
/// A body whose stream header names a pre-shared dictionary (`docs/SPEC.md` §25) is read
/// with the one [`with_registry`](Self::with_registry) (as an extractor: the app's
/// `Extension<Arc<DictionaryRegistry>>`, see [`crate::dictionary`]) holds, or with the one
/// a [`with_session`](Self::with_session) session holds; any other id is a
/// [`QdfRejection::UnknownDictionary`] (415) before any item.
///
/// ```rust,no_run
/// use axum::{Router, routing::post};
/// use futures::StreamExt;
/// use qdf_axum::{QdfFrames, QdfRejection};
/// # #[derive(serde::Deserialize)] struct Span { duration: u64 }
///
/// async fn ingest(mut spans: QdfFrames<Span>) -> Result<String, QdfRejection> {
///     let mut total = 0;
///     while let Some(span) = spans.next().await {
///         total += span?.duration;
///     }
///     Ok(total.to_string())
/// }
///
/// let app: Router = Router::new().route("/spans", post(ingest));
/// ```
#[must_use = "streams do nothing unless polled"]
pub struct QdfFrames<T, B = Body> {
    body: Pin<Box<B>>,
    reader: FrameReader,
    _item: PhantomData<fn() -> T>,
}

impl<T, B> QdfFrames<T, B> {
    /// Decodes the frames of `body` under [`Limits::DEFAULT`] (frames up to 8 MiB).
    pub fn new(body: B) -> Self {
        Self::with_limits(body, Limits::DEFAULT)
    }

    /// Decodes the frames of `body` under `limits`: depth, decoded output, session caps and
    /// [`max_frame_length`](Limits#structfield.max_frame_length).
    pub fn with_limits(body: B, limits: Limits) -> Self {
        Self::with_session(body, DecoderSession::new(Options::default().limits(limits)))
    }

    /// Decodes the frames of `body` with `session` (its decode limits, table caps and
    /// maximum frame length).
    pub fn with_session(body: B, session: DecoderSession) -> Self {
        QdfFrames {
            body: Box::pin(body),
            reader: FrameReader {
                buf: BytesMut::new(),
                session,
                header: Header::Unread(None),
                unknown_current: None,
                done: false,
            },
            _item: PhantomData,
        }
    }
}

impl<T, B> QdfFrames<T, B> {
    /// Reads a body whose stream header names a dictionary `registry` holds with that
    /// dictionary (looked up once, when the header arrives; the body keeps it whatever the
    /// registry does after). An id `registry` does not hold (never registered, or retired)
    /// ends the stream with [`QdfRejection::UnknownDictionary`] (415) as its first item,
    /// unless this reader's session holds that dictionary itself.
    pub fn with_registry(mut self, registry: Arc<DictionaryRegistry>) -> Self {
        if let Header::Unread(r) = &mut self.reader.header {
            *r = Some(Registry::Shared(registry));
        }
        self
    }
}

impl<T, B> fmt::Debug for QdfFrames<T, B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("QdfFrames")
            .field("buffered", &self.reader.buf.len())
            .field("done", &self.reader.done)
            .finish_non_exhaustive()
    }
}

impl<T, S> FromRequest<S> for QdfFrames<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = QdfRejection;

    async fn from_request(req: Request, _state: &S) -> Result<Self, Self::Rejection> {
        if !has_qdf_stream_content_type(req.headers()) {
            return Err(QdfRejection::MissingContentType {
                expected: APPLICATION_QDF_STREAM,
            });
        }
        let registry = crate::dictionary::registry(req.extensions());
        let mut frames = QdfFrames::new(req.into_limited_body());
        frames.reader.header = Header::Unread(registry);
        Ok(frames)
    }
}

/// The part of the reader that depends on neither `T` nor the body type.
struct FrameReader {
    buf: BytesMut,
    session: DecoderSession,
    /// Whether the stream header's dictionary id has been looked at, and the registry to
    /// look it up in until then.
    header: Header,
    /// For an `UnknownDictionary` rejection: `Some(the registry's current id)` when there
    /// is a registry.
    unknown_current: Option<Option<qdf_core::DictionaryId>>,
    done: bool,
}

enum Header {
    Unread(Option<Registry>),
    Read,
}

impl FrameReader {
    /// Bytes of the whole frame at the front of the buffer, if one is there.
    fn complete_len(&mut self) -> Result<Option<usize>, QdfRejection> {
        if let Header::Unread(registry) = &self.header {
            match qdf_core::dictionary_id(&self.buf) {
                Err(e) if e.is_eof() => return Ok(None),
                Ok(Some(id)) => {
                    let registry = registry.clone();
                    self.pick_dictionary(id, registry.as_deref());
                }
                // No dictionary, or not qdf (which the session reports).
                _ => {}
            }
            self.header = Header::Read;
        }
        let status = self
            .session
            .frame_status(&self.buf)
            .map_err(|e| unknown(e, self.unknown_current))?;
        match status {
            FrameStatus::Complete { len } => Ok(Some(len)),
            FrameStatus::Incomplete { .. } => Ok(None),
        }
    }

    /// The stream names dictionary `id`: the session takes the registry's, if it has it.
    /// Else the session's own dictionary, if it holds that one, reads the stream; if not,
    /// `frame_status` fails with `UnknownDictionary`, made a 415 by [`unknown`].
    #[cold]
    fn pick_dictionary(
        &mut self,
        id: qdf_core::DictionaryId,
        registry: Option<&DictionaryRegistry>,
    ) {
        if let Some(d) = registry.and_then(|r| r.get(id)) {
            let placeholder = DecoderSession::new(Options::speed());
            self.session = std::mem::replace(&mut self.session, placeholder).with_dictionary(d);
        }
        self.unknown_current = registry.map(|r| r.current().map(|d| d.id()));
    }

    /// Decodes the complete frame of `len` bytes at the front and drops its bytes.
    fn decode<T: DeserializeOwned>(&mut self, len: usize) -> Result<T, QdfRejection> {
        match self.session.decode_frame(&self.buf[..len])? {
            Some((value, used)) => {
                self.buf.advance(used);
                Ok(value)
            }
            None => Err(truncated()),
        }
    }

    /// The body ended: fine between frames (or after a lone stream header), an `Eof` error
    /// inside one, as [`DecoderSession::check_end`] rules for every transport.
    fn finish(&mut self) -> Option<QdfRejection> {
        self.done = true;
        self.session
            .check_end(&self.buf)
            .err()
            .map(QdfRejection::from)
    }
}

/// The rejection for a session error: [`QdfRejection::UnknownDictionary`] for a stream
/// naming a dictionary this reader does not hold (`registry`: `Some(its current id)` when
/// there is a registry; without one, the dictionary the session holds is named), else
/// [`QdfRejection::Decode`].
fn unknown(e: qdf_core::Error, registry: Option<Option<qdf_core::DictionaryId>>) -> QdfRejection {
    match *e.code() {
        qdf_core::ErrorCode::UnknownDictionary { found, held } => QdfRejection::UnknownDictionary {
            id: qdf_core::DictionaryId::from_bytes(found),
            current: registry.unwrap_or_else(|| held.map(qdf_core::DictionaryId::from_bytes)),
            registry: registry.is_some(),
        },
        _ => QdfRejection::Decode(e),
    }
}

/// `frame_status` saw a whole frame that `decode_frame` then found incomplete (they agree, so
/// this is a guard, not a path).
fn truncated() -> QdfRejection {
    // An `Eof` error (`UnexpectedEof`), through the one public way to make a core error.
    QdfRejection::Decode(std::io::Error::from(std::io::ErrorKind::UnexpectedEof).into())
}

impl<T, B> Stream for QdfFrames<T, B>
where
    T: DeserializeOwned,
    B: HttpBody,
    B::Error: Into<axum::BoxError>,
{
    type Item = Result<T, QdfRejection>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        while !this.reader.done {
            let step = match this.reader.complete_len() {
                Ok(Some(len)) => Some(this.reader.decode(len)),
                Ok(None) => None,
                Err(e) => Some(Err(e)),
            };
            if let Some(item) = step {
                this.reader.done = item.is_err();
                return Poll::Ready(Some(item));
            }
            match ready!(this.body.as_mut().poll_frame(cx)) {
                Some(Ok(frame)) => {
                    if let Ok(data) = frame.into_data() {
                        this.reader.buf.put(data);
                    }
                }
                Some(Err(e)) => {
                    this.reader.done = true;
                    return Poll::Ready(Some(Err(QdfRejection::from_body_error(e.into()))));
                }
                None => {
                    return Poll::Ready(this.reader.finish().map(Err));
                }
            }
        }
        Poll::Ready(None)
    }
}

impl<T, B> FusedStream for QdfFrames<T, B>
where
    T: DeserializeOwned,
    B: HttpBody,
    B::Error: Into<axum::BoxError>,
{
    fn is_terminated(&self) -> bool {
        self.reader.done
    }
}
