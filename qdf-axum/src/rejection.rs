//! [`QdfRejection`]: why a qdf body was refused, and the HTTP status that says so.

use std::error::Error as StdError;
use std::fmt;

use axum::extract::rejection::BytesRejection;
use axum::response::{IntoResponse, Response};
use http::StatusCode;
use http::header::{CONTENT_TYPE, HeaderValue};
use qdf_core::Category;

/// Why [`Qdf`](crate::Qdf) or [`QdfFrames`](crate::QdfFrames) refused a body; also the error
/// item of a [`QdfFrames`](crate::QdfFrames) stream on the client side.
///
/// Each variant maps to one status, the same for every qdf adapter:
///
/// | variant | status |
/// |---|---|
/// | [`MissingContentType`](Self::MissingContentType) | 415 Unsupported Media Type |
/// | [`BodyTooLarge`](Self::BodyTooLarge) | 413 Payload Too Large |
/// | [`BodyRead`](Self::BodyRead) | 400 Bad Request |
/// | [`Decode`](Self::Decode) with [`Category::Limit`] | 413 Payload Too Large |
/// | [`Decode`](Self::Decode) with [`Category::Data`] | 422 Unprocessable Entity |
/// | [`Decode`](Self::Decode), any other category (`Syntax`, `Eof`) | 400 Bad Request |
/// | [`UnknownDictionary`](Self::UnknownDictionary) | 415 Unsupported Media Type |
///
/// As a response it is that status with [`body_text`](Self::body_text) as a `text/plain`
/// body, like axum's own rejections.
#[derive(Debug)]
#[non_exhaustive]
pub enum QdfRejection {
    /// The `Content-Type` is missing or does not name qdf (see [`crate::media`]).
    MissingContentType {
        /// The media type the extractor wanted: [`APPLICATION_QDF`](crate::APPLICATION_QDF)
        /// or [`APPLICATION_QDF_STREAM`](crate::APPLICATION_QDF_STREAM).
        expected: &'static str,
    },
    /// The body is longer than the route's `DefaultBodyLimit` (2 MiB unless configured),
    /// counted over the whole body, all frames together for a stream.
    BodyTooLarge(axum::Error),
    /// Reading the body failed for another reason (the peer hung up, a transport error).
    BodyRead(axum::Error),
    /// The bytes are not a qdf message of the target type; the error's
    /// [`Category`] chooses the status and its offset says where.
    Decode(qdf_core::Error),
    /// The body names a pre-shared dictionary (`docs/SPEC.md` §25) the app's registry does
    /// not hold (never registered, or retired), or the app provides no registry (see
    /// [`crate::dictionary`]). Nothing of the body was decoded. As a response it carries
    /// the registry's current id, if any, in a [`QDF_DICTIONARY`](crate::QDF_DICTIONARY)
    /// header.
    UnknownDictionary {
        /// The id the body names.
        id: qdf_core::DictionaryId,
        /// The registry's current dictionary, if any (without a registry: the dictionary the
        /// reader's session holds, if any): the one to fetch and use instead.
        current: Option<qdf_core::DictionaryId>,
        /// Whether the app provides a registry (see [`crate::dictionary`]).
        registry: bool,
    },
}

impl QdfRejection {
    /// The status this rejection answers with (see the table above).
    pub fn status(&self) -> StatusCode {
        match self {
            Self::MissingContentType { .. } => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            Self::BodyTooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            Self::BodyRead(_) => StatusCode::BAD_REQUEST,
            Self::Decode(e) => decode_status(e.classify()),
            Self::UnknownDictionary { .. } => StatusCode::UNSUPPORTED_MEDIA_TYPE,
        }
    }

    /// The plain-text body of the response: what was expected and what was found.
    pub fn body_text(&self) -> String {
        self.to_string()
    }

    /// Classifies an error from reading a body: a `http_body_util::LengthLimitError`
    /// anywhere in its source chain (axum wraps it in one or two `axum::Error` layers)
    /// means the body limit was hit.
    pub(crate) fn from_body_error(err: axum::BoxError) -> Self {
        let mut cur: Option<&(dyn StdError + 'static)> = Some(&*err);
        while let Some(e) = cur {
            if e.is::<http_body_util::LengthLimitError>() {
                return Self::BodyTooLarge(axum::Error::new(err));
            }
            cur = e.source();
        }
        Self::BodyRead(axum::Error::new(err))
    }
}

/// HTTP status for a decode failure, as documented on [`Category`].
fn decode_status(category: Category) -> StatusCode {
    match category {
        Category::Limit => StatusCode::PAYLOAD_TOO_LARGE,
        Category::Data => StatusCode::UNPROCESSABLE_ENTITY,
        _ => StatusCode::BAD_REQUEST,
    }
}

impl From<BytesRejection> for QdfRejection {
    fn from(rejection: BytesRejection) -> Self {
        if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
            Self::BodyTooLarge(axum::Error::new(rejection))
        } else {
            Self::BodyRead(axum::Error::new(rejection))
        }
    }
}

impl From<qdf_core::Error> for QdfRejection {
    fn from(err: qdf_core::Error) -> Self {
        Self::Decode(err)
    }
}

impl fmt::Display for QdfRejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::MissingContentType { expected } => {
                write!(f, "Expected request with `Content-Type: {expected}`")
            }
            Self::BodyTooLarge(e) => write!(f, "Request body is larger than the limit: {e}"),
            Self::BodyRead(e) => write!(f, "Failed to read the request body: {e}"),
            Self::Decode(e) => write!(f, "Failed to decode the qdf body: {e}"),
            Self::UnknownDictionary {
                id,
                current,
                registry,
            } => {
                // The reader may be a server (a request) or a client (a response): the
                // words name neither.
                write!(f, "The qdf body names dictionary {id}, ")?;
                match (registry, current) {
                    (false, None) => f.write_str("and the reader holds no dictionaries"),
                    (false, Some(c)) => {
                        write!(f, "which the reader does not hold (it holds {c})")
                    }
                    (true, None) => {
                        f.write_str("which the reader does not hold (it has none current)")
                    }
                    (true, Some(c)) => {
                        write!(f, "which the reader does not hold (its current one is {c})")
                    }
                }
            }
        }
    }
}

impl StdError for QdfRejection {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        match self {
            Self::MissingContentType { .. } => None,
            Self::BodyTooLarge(e) | Self::BodyRead(e) => Some(e),
            Self::Decode(e) => Some(e),
            Self::UnknownDictionary { .. } => None,
        }
    }
}

impl IntoResponse for QdfRejection {
    fn into_response(self) -> Response {
        let current = match &self {
            Self::UnknownDictionary { current, .. } => *current,
            _ => None,
        };
        let mut res = text_response(self.status(), self.body_text());
        if let Some(c) = current {
            res.headers_mut()
                .insert(crate::QDF_DICTIONARY, crate::dictionary::qdf_dictionary(c));
        }
        res
    }
}

/// `status` with a `text/plain; charset=utf-8` body; shared with the 500 of a failed encode.
pub(crate) fn text_response(status: StatusCode, text: String) -> Response {
    (
        status,
        [(
            CONTENT_TYPE,
            HeaderValue::from_static(mime::TEXT_PLAIN_UTF_8.as_ref()),
        )],
        text,
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;
    use qdf_core::ErrorCode;

    #[test]
    fn decode_statuses_follow_categories() {
        let cases = [
            (ErrorCode::BadMagic, 400),
            (ErrorCode::UnexpectedEof { expected: "a tag" }, 400),
            (
                ErrorCode::TypeMismatch {
                    expected: "u8".into(),
                    found: "a string".into(),
                },
                422,
            ),
            (ErrorCode::DepthLimit(128), 413),
            (ErrorCode::FrameTooLarge { len: 9, max: 8 }, 413),
        ];
        for (code, status) in cases {
            let r = QdfRejection::from(qdf_core::Error::__unstable_new(code, Some(3)));
            assert_eq!(r.status().as_u16(), status, "{r}");
        }
    }

    #[test]
    fn body_errors_find_the_length_limit() {
        use http_body_util::{BodyExt, Full, Limited};
        // A real over-limit error, wrapped twice the way axum's limited body wraps it.
        let over = Limited::new(Full::new(bytes::Bytes::from_static(b"abc")), 2);
        let err = futures::executor::block_on(over.collect()).unwrap_err();
        let limit: axum::BoxError = Box::new(axum::Error::new(axum::Error::new(err)));
        let r = QdfRejection::from_body_error(limit);
        assert_eq!(r.status(), StatusCode::PAYLOAD_TOO_LARGE);
        let other: axum::BoxError = "connection reset".into();
        let r = QdfRejection::from_body_error(other);
        assert_eq!(r.status(), StatusCode::BAD_REQUEST);
        assert_eq!(
            r.body_text(),
            "Failed to read the request body: connection reset"
        );
    }

    #[test]
    fn body_text_names_expected_type_and_offset() {
        let r = QdfRejection::MissingContentType {
            expected: crate::APPLICATION_QDF,
        };
        assert_eq!(
            r.body_text(),
            "Expected request with `Content-Type: application/qdf`"
        );
        let r = QdfRejection::from(qdf_core::Error::__unstable_new(
            ErrorCode::BadMagic,
            Some(0),
        ));
        assert_eq!(
            r.body_text(),
            "Failed to decode the qdf body: expected the header magic 'Q' 'D' 'F' at byte 0"
        );
    }
}
