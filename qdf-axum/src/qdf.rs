//! [`Qdf<T>`]: one self-contained qdf message as a request or response body.

use axum::body::Bytes;
use axum::extract::{FromRequest, OptionalFromRequest, Request};
use axum::response::{IntoResponse, Response};
use http::StatusCode;
use http::header::{CONTENT_TYPE, HeaderValue};
use serde::Serialize;
use serde::de::DeserializeOwned;

use qdf_core::{DictionaryRegistry, Options};

use crate::media::{APPLICATION_QDF, has_qdf_content_type};
use crate::rejection::{QdfRejection, text_response};

/// qdf extractor and response, the counterpart of [`axum::Json`](https://docs.rs/axum/0.8/axum/struct.Json.html).
///
/// # As an extractor
///
/// Reads the whole body (through axum's limited body, so `DefaultBodyLimit` applies per
/// route) and decodes it with [`qdf_core::from_slice`]: one Balanced message with its own
/// intern table, no trailing bytes. The request is refused with a [`QdfRejection`] if
///
/// - the `Content-Type` is not `application/qdf`, `application/x-qdf` or `…+qdf` (415);
/// - the body is longer than the limit (413);
/// - the bytes are not qdf or end early (400), exceed a decode limit (413), or are qdf of
///   another shape than `T` (422);
/// - the body names a pre-shared dictionary (`docs/SPEC.md` §25) that the app's
///   `Extension<Arc<DictionaryRegistry>>` does not hold, or the app provides none (415,
///   [`QdfRejection::UnknownDictionary`]; see [`crate::dictionary`]).
///
/// A body naming a dictionary the registry holds is decoded with it
/// ([`qdf_core::from_slice_with_dictionary`]).
///
/// It consumes the body, so it must be the last extractor of a handler. As an
/// `Option<Qdf<T>>` it yields `None` when the request has no `Content-Type` at all.
///
/// # As a response
///
/// Encodes `T` with [`qdf_core::to_vec`] and sets `Content-Type: application/qdf`. If `T`'s
/// `Serialize` fails, the response is 500 with the error as a `text/plain` body.
///
/// ```rust,no_run
/// use axum::{Router, routing::post};
/// use qdf_axum::Qdf;
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Deserialize)]
/// struct Query { service: String }
/// #[derive(Serialize)]
/// struct Count { service: String, spans: u64 }
///
/// async fn count(Qdf(q): Qdf<Query>) -> Qdf<Count> {
///     Qdf(Count { service: q.service, spans: 42 })
/// }
///
/// let app: Router = Router::new().route("/count", post(count));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[must_use]
pub struct Qdf<T>(pub T);

impl<T, S> FromRequest<S> for Qdf<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = QdfRejection;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        if !has_qdf_content_type(req.headers()) {
            return Err(missing_content_type());
        }
        let registry = crate::dictionary::registry(req.extensions());
        let bytes = Bytes::from_request(req, state).await?;
        Self::from_bytes_with_registry(&bytes, registry.as_deref())
    }
}

impl<T, S> OptionalFromRequest<S> for Qdf<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = QdfRejection;

    async fn from_request(req: Request, state: &S) -> Result<Option<Self>, Self::Rejection> {
        if req.headers().get(CONTENT_TYPE).is_none() {
            return Ok(None);
        }
        <Self as FromRequest<S>>::from_request(req, state)
            .await
            .map(Some)
    }
}

/// Kept out of the generic code so it is compiled once.
fn missing_content_type() -> QdfRejection {
    QdfRejection::MissingContentType {
        expected: APPLICATION_QDF,
    }
}

impl<T: DeserializeOwned> Qdf<T> {
    /// Decodes one self-contained message from `bytes` (no `Content-Type` check): the same
    /// decoding and the same rejections as the extractor without a dictionary registry (a
    /// body naming a dictionary is refused with [`QdfRejection::UnknownDictionary`]).
    ///
    /// ```
    /// use qdf_axum::Qdf;
    ///
    /// let r = Qdf::<u32>::from_bytes(b"not qdf").unwrap_err();
    /// assert_eq!(r.status(), http::StatusCode::BAD_REQUEST);
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, QdfRejection> {
        Self::from_bytes_with_registry(bytes, None)
    }

    /// [`from_bytes`](Self::from_bytes) for a body that may name a dictionary `registry`
    /// holds (`docs/SPEC.md` §25): the extractor's decoding. A body naming a dictionary that
    /// `registry` does not hold (or any, for `None`) is refused with
    /// [`QdfRejection::UnknownDictionary`] (415) before its body is decoded; other errors as
    /// [`from_bytes`](Self::from_bytes).
    pub fn from_bytes_with_registry(
        bytes: &[u8],
        registry: Option<&DictionaryRegistry>,
    ) -> Result<Self, QdfRejection> {
        // A header that is not qdf, or cut short, is reported by the decode below.
        let named = qdf_core::dictionary_id(bytes).ok().flatten();
        let decoded = match named {
            None => qdf_core::from_slice(bytes),
            Some(id) => match registry.and_then(|r| r.get(id)) {
                Some(dict) => {
                    qdf_core::from_slice_with_dictionary(bytes, Options::default(), &dict)
                }
                None => {
                    return Err(QdfRejection::UnknownDictionary {
                        id,
                        current: registry.and_then(|r| r.current()).map(|d| d.id()),
                        registry: registry.is_some(),
                    });
                }
            },
        };
        decoded.map(Qdf).map_err(QdfRejection::Decode)
    }
}

impl<T> std::ops::Deref for Qdf<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> std::ops::DerefMut for Qdf<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}

impl<T> From<T> for Qdf<T> {
    fn from(inner: T) -> Self {
        Self(inner)
    }
}

impl<T: Serialize> IntoResponse for Qdf<T> {
    fn into_response(self) -> Response {
        encoded_response(qdf_core::to_vec(&self.0))
    }
}

/// The response for an encode result; not generic, so it is compiled once for all `T`.
pub(crate) fn encoded_response(encoded: qdf_core::Result<Vec<u8>>) -> Response {
    match encoded {
        Ok(buf) => (
            [(CONTENT_TYPE, HeaderValue::from_static(APPLICATION_QDF))],
            buf,
        )
            .into_response(),
        Err(err) => text_response(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("Failed to encode the qdf response: {err}"),
        ),
    }
}
