//! Media types: which `Content-Type` a qdf body carries, and whether a client's `Accept`
//! header asks for qdf.
//!
//! A single self-contained message is [`APPLICATION_QDF`]; the extractor also accepts the
//! unregistered `application/x-qdf` and any structured-syntax suffix `+qdf`
//! (`application/vnd.acme.trace+qdf`, RFC 6838 §4.2.8). A body of frames sharing one Dense
//! session is [`APPLICATION_QDF_STREAM`] (or `application/x-qdf-stream`). Parameters such as
//! `; charset=…` are ignored; names compare case-insensitively (RFC 9110 §8.3.1).

use http::HeaderMap;
use http::header::{ACCEPT, CONTENT_TYPE};
use mime::Mime;

/// The media type of one self-contained qdf message: `application/qdf`.
pub const APPLICATION_QDF: &str = "application/qdf";

/// The media type of a body of qdf frames sharing one session: `application/qdf-stream`.
pub const APPLICATION_QDF_STREAM: &str = "application/qdf-stream";

/// True if `mime` names one qdf message: `application/qdf`, `application/x-qdf` or
/// `application/…+qdf`.
fn is_qdf_message(mime: &Mime) -> bool {
    mime.type_() == mime::APPLICATION
        && (mime.subtype() == "qdf"
            || mime.subtype() == "x-qdf"
            || mime.suffix().is_some_and(|s| s == "qdf"))
}

/// True if `mime` names a stream of qdf frames.
fn is_qdf_frames(mime: &Mime) -> bool {
    mime.type_() == mime::APPLICATION
        && (mime.subtype() == "qdf-stream" || mime.subtype() == "x-qdf-stream")
}

/// The request's `Content-Type`, parsed; `None` if absent or not a valid media type.
fn content_type(headers: &HeaderMap) -> Option<Mime> {
    headers.get(CONTENT_TYPE)?.to_str().ok()?.parse().ok()
}

/// True if the `Content-Type` names one qdf message.
pub(crate) fn has_qdf_content_type(headers: &HeaderMap) -> bool {
    content_type(headers).is_some_and(|m| is_qdf_message(&m))
}

/// True if the `Content-Type` names a stream of qdf frames.
pub(crate) fn has_qdf_stream_content_type(headers: &HeaderMap) -> bool {
    content_type(headers).is_some_and(|m| is_qdf_frames(&m))
}

/// The `q` weight of one `Accept` entry in thousandths (RFC 9110 §12.4.2); 1000 if absent,
/// 0 if malformed (a malformed weight must not win the negotiation).
fn weight(mime: &Mime) -> u16 {
    let Some(q) = mime.get_param("q") else {
        return 1000;
    };
    match q.as_str().parse::<f32>() {
        Ok(q) if (0.0..=1.0).contains(&q) => (q * 1000.0).round() as u16,
        _ => 0,
    }
}

/// Content negotiation between qdf and JSON: true if the request's `Accept` header lists a
/// qdf media type (a message or a stream, see the module docs) with a weight above zero
/// and at least the weight of any JSON type (`application/json` or a `+json` suffix).
///
/// Wildcards (`*/*`, `application/*`) count for neither side, so a request without an
/// explicit preference gets the server's default, which this helper leaves to the caller.
///
/// ```
/// use http::{HeaderMap, HeaderValue, header::ACCEPT};
/// use qdf_axum::wants_qdf;
///
/// let mut h = HeaderMap::new();
/// assert!(!wants_qdf(&h));
/// h.insert(ACCEPT, HeaderValue::from_static("application/json;q=0.5, application/qdf"));
/// assert!(wants_qdf(&h));
/// h.insert(ACCEPT, HeaderValue::from_static("application/qdf;q=0.2, application/json"));
/// assert!(!wants_qdf(&h));
/// ```
pub fn wants_qdf(headers: &HeaderMap) -> bool {
    let (mut qdf, mut json) = (0u16, 0u16);
    let entries = headers
        .get_all(ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(|e| e.trim().parse::<Mime>().ok());
    for m in entries {
        if is_qdf_message(&m) || is_qdf_frames(&m) {
            qdf = qdf.max(weight(&m));
        } else if m.type_() == mime::APPLICATION
            && (m.subtype() == mime::JSON || m.suffix() == Some(mime::JSON))
        {
            json = json.max(weight(&m));
        }
    }
    qdf > 0 && qdf >= json
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderValue;

    fn with(name: http::HeaderName, value: &'static str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(name, HeaderValue::from_static(value));
        h
    }

    #[test]
    fn message_content_types() {
        for ok in [
            "application/qdf",
            "Application/QDF",
            "application/x-qdf",
            "application/qdf; charset=utf-8",
            "application/vnd.acme.trace+qdf",
        ] {
            assert!(has_qdf_content_type(&with(CONTENT_TYPE, ok)), "{ok}");
        }
        for bad in [
            "text/qdf",
            "application/json",
            "application/qdf-stream",
            "application/qdfx",
            "qdf",
            "",
        ] {
            assert!(!has_qdf_content_type(&with(CONTENT_TYPE, bad)), "{bad}");
        }
        assert!(!has_qdf_content_type(&HeaderMap::new()));
    }

    #[test]
    fn stream_content_types() {
        assert!(has_qdf_stream_content_type(&with(
            CONTENT_TYPE,
            "application/qdf-stream"
        )));
        assert!(has_qdf_stream_content_type(&with(
            CONTENT_TYPE,
            "application/x-qdf-stream"
        )));
        assert!(!has_qdf_stream_content_type(&with(
            CONTENT_TYPE,
            "application/qdf"
        )));
    }

    #[test]
    fn negotiation_by_weight() {
        let cases = [
            ("application/qdf", true),
            ("application/qdf-stream", true),
            ("application/json", false),
            ("*/*", false),
            ("application/qdf;q=0", false),
            ("application/json, application/qdf", true),
            ("application/json;q=0.9, application/qdf;q=0.8", false),
            ("application/ld+json;q=0.3, application/x-qdf;q=0.4", true),
            ("application/qdf;q=banana, application/json;q=0.1", false),
        ];
        for (accept, want) in cases {
            assert_eq!(wants_qdf(&with(ACCEPT, accept)), want, "{accept}");
        }
    }
}
