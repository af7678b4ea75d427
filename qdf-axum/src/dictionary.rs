//! Pre-shared dictionaries (`docs/SPEC.md` §25) over HTTP: request bodies that name one,
//! and responses encoded with the one the client announces, after RFC 9842's pattern.
//!
//! # The server's dictionaries
//!
//! The app provides a [`DictionaryRegistry`] as a request extension, the way axum apps share
//! process-wide objects whatever their router state:
//!
//! ```rust,no_run
//! use std::sync::Arc;
//! use axum::{Extension, Router, routing::post};
//! use qdf_axum::{AvailableDictionary, Qdf, QdfWithDictionary};
//! use qdf_core::{Dictionary, DictionaryRegistry};
//!
//! async fn echo(dict: AvailableDictionary, Qdf(v): Qdf<Vec<String>>) -> QdfWithDictionary<Vec<String>> {
//!     dict.respond(v)
//! }
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let registry = Arc::new(DictionaryRegistry::new());
//! registry.rotate(Dictionary::from_strs(["checkout", "payment-service"])?)?;
//! let app: Router = Router::new()
//!     .route("/echo", post(echo))
//!     .layer(Extension(Arc::clone(&registry)));
//! # Ok(()) }
//! ```
//!
//! An extension rather than router state: [`Qdf<T>`](crate::Qdf) stays an extractor for
//! any state type `S`, and routers without a registry keep working unchanged. A registry in
//! a `static` (as qdf-tonic's `Limits::dictionaries` takes one) works too:
//! `.layer(Extension(&*REGISTRY))`, an `Extension<&'static DictionaryRegistry>`.
//!
//! # Requests
//!
//! A request body naming a dictionary (its header's flag `20` and 8-byte id) is decoded with
//! the registry's dictionary of that id. An id the registry does not hold (never registered,
//! or retired), or any id when no registry is provided, is refused with
//! [`QdfRejection::UnknownDictionary`](crate::QdfRejection::UnknownDictionary): `415
//! Unsupported Media Type` (RFC 9110 §15.5.16: a format the server cannot read, found by
//! inspecting the data), with the id in the text body and the registry's current id in a
//! [`QDF_DICTIONARY`] response header, so the client can fall back to no dictionary or fetch
//! the current one.
//!
//! # Responses
//!
//! The client announces the dictionary it holds in a request header, and the handler
//! answers with [`AvailableDictionary::respond`], which encodes with it when the registry
//! holds it too, and adds `Vary: available-dictionary, qdf-dictionary` either way (caches
//! then key the response on them). Two request headers are read, the first that names a
//! registered dictionary wins:
//!
//! - [`AVAILABLE_DICTIONARY`], RFC 9842's header: `Available-Dictionary: :<base64 of the
//!   SHA-256 of the dictionary file>:` (a structured-field byte sequence). The full hash is
//!   checked, so the 8-byte wire id's collisions cannot pick a wrong dictionary. Build it with
//!   [`available_dictionary`].
//! - [`QDF_DICTIONARY`]: `qdf-dictionary: <16 lowercase hex digits of the id>`, the id the
//!   wire itself uses ([`qdf_core::DictionaryId`]'s `Display`), for clients that only know
//!   the id (for example from an earlier response body, [`qdf_core::dictionary_id`]).
//!
//! RFC 9842's content codings (`dcb`, `dcz`) are not used: a qdf body names its dictionary
//! in its own header, so the response has no `Content-Encoding`, and a client that does not
//! hold the dictionary never receives a body that needs it.

use std::convert::Infallible;
use std::sync::Arc;

use axum::extract::FromRequestParts;
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use base64::alphabet;
use base64::engine::DecodePaddingMode;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig, STANDARD};
use http::HeaderMap;
use http::header::{HeaderValue, VARY};
use http::request::Parts;
use qdf_core::{Dictionary, DictionaryId, DictionaryRegistry, Options};
use serde::Serialize;

use crate::qdf::encoded_response;

/// RFC 9842's request header naming the dictionary a client holds by the SHA-256 of its
/// file, as a structured-field byte sequence: `:<base64>:` (44 base64 characters).
pub const AVAILABLE_DICTIONARY: &str = "available-dictionary";

/// The request header naming the dictionary a client holds by its 8-byte id, as 16
/// lowercase hex digits; also sent on a 415 response to a body naming an unknown dictionary,
/// with the server's current id.
pub const QDF_DICTIONARY: &str = "qdf-dictionary";

/// The `Vary` value of a response whose encoding depends on the announced dictionary.
const VARY_VALUE: &str = "available-dictionary, qdf-dictionary";

/// The `Available-Dictionary` value announcing `dict`: `:` base64(SHA-256 of its file) `:`
/// (46 bytes).
///
/// ```
/// let dict = qdf_core::Dictionary::from_strs(["checkout"])?;
/// let v = qdf_axum::available_dictionary(&dict);
/// assert_eq!(v.len(), 46);
/// assert!(v.to_str().unwrap().starts_with(':'));
/// # Ok::<(), qdf_core::Error>(())
/// ```
pub fn available_dictionary(dict: &Dictionary) -> HeaderValue {
    let s = format!(":{}:", STANDARD.encode(dict.sha256()));
    HeaderValue::from_str(&s).expect("base64 is visible ASCII")
}

/// The `qdf-dictionary` value announcing `id`: its 16 hex digits.
pub fn qdf_dictionary(id: DictionaryId) -> HeaderValue {
    HeaderValue::from_str(&id.to_string()).expect("hex is visible ASCII")
}

/// The registry the app provides as an `Extension<Arc<DictionaryRegistry>>` or, as tonic's
/// `Limits::dictionaries` takes it, an `Extension<&'static DictionaryRegistry>`, if any.
pub(crate) fn registry(ext: &http::Extensions) -> Option<Registry> {
    ext.get::<Arc<DictionaryRegistry>>()
        .map(|r| Registry::Shared(Arc::clone(r)))
        .or_else(|| {
            ext.get::<&'static DictionaryRegistry>()
                .map(|r| Registry::Static(r))
        })
}

/// A registry as the app provides it (see [`registry`]).
#[derive(Clone, Debug)]
pub(crate) enum Registry {
    Shared(Arc<DictionaryRegistry>),
    Static(&'static DictionaryRegistry),
}

impl std::ops::Deref for Registry {
    type Target = DictionaryRegistry;

    fn deref(&self) -> &DictionaryRegistry {
        match self {
            Registry::Shared(r) => r,
            Registry::Static(r) => r,
        }
    }
}

/// Extractor: the dictionary the client announces ([`AVAILABLE_DICTIONARY`] or
/// [`QDF_DICTIONARY`]) if the app's registry holds it, else `None` (no header, a malformed
/// one, an unknown or retired dictionary, or no registry extension). Never rejects: a
/// response without a dictionary is always possible.
///
/// Reads only headers, so it may come before a body extractor. Costs one registry lookup
/// (a read lock and an `Arc` clone).
#[derive(Clone, Debug, Default)]
pub struct AvailableDictionary(pub Option<Dictionary>);

impl AvailableDictionary {
    /// The dictionary `headers` announce that `registry` holds (see the type's docs).
    pub fn from_headers(headers: &HeaderMap, registry: Option<&DictionaryRegistry>) -> Self {
        let Some(registry) = registry else {
            return AvailableDictionary(None);
        };
        let by_hash = headers
            .get(AVAILABLE_DICTIONARY)
            .and_then(|v| parse_sf_binary_32(v.as_bytes()))
            .and_then(|hash| {
                let id = DictionaryId::from_bytes(hash[..8].try_into().expect("8 of 32"));
                registry.get(id).filter(|d| d.sha256() == hash)
            });
        let by_id = || {
            headers
                .get(QDF_DICTIONARY)
                .and_then(|v| parse_hex_id(v.as_bytes()))
                .and_then(|id| registry.get(id))
        };
        AvailableDictionary(by_hash.or_else(by_id))
    }

    /// A response of `value` encoded with this dictionary when there is one (see
    /// [`QdfWithDictionary`]).
    pub fn respond<T>(self, value: T) -> QdfWithDictionary<T> {
        QdfWithDictionary(value, self.0)
    }
}

impl<S: Send + Sync> FromRequestParts<S> for AvailableDictionary {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Infallible> {
        Ok(Self::from_headers(
            &parts.headers,
            registry(&parts.extensions).as_deref(),
        ))
    }
}

/// Response: `T` as one qdf message (`Content-Type: application/qdf`), encoded from the
/// dictionary when `Some` ([`qdf_core::to_vec_with_dictionary`], Balanced options: the
/// body's header names the dictionary, 8 bytes more than without, and the strings it holds
/// are 2-byte references), else as [`Qdf<T>`](crate::Qdf) does. Either way the response
/// carries `Vary: available-dictionary, qdf-dictionary`. If `T`'s `Serialize` fails, the
/// response is 500 with the error as a `text/plain` body.
///
/// Build it with [`AvailableDictionary::respond`], so the dictionary is one the client
/// announced.
#[derive(Clone, Debug)]
#[must_use]
pub struct QdfWithDictionary<T>(pub T, pub Option<Dictionary>);

impl<T: Serialize> IntoResponse for QdfWithDictionary<T> {
    fn into_response(self) -> Response {
        let encoded = match &self.1 {
            Some(d) => qdf_core::to_vec_with_dictionary(&self.0, Options::default(), d),
            None => qdf_core::to_vec(&self.0),
        };
        let mut res = encoded_response(encoded);
        add_vary(&mut res);
        res
    }
}

/// Adds `Vary: available-dictionary, qdf-dictionary` (after any `Vary` already there).
pub(crate) fn add_vary(res: &mut Response) {
    res.headers_mut()
        .append(VARY, HeaderValue::from_static(VARY_VALUE));
}

/// RFC 8941's base64 (the standard alphabet) with or without padding; trailing bits must
/// be zero, so one value has one spelling.
const SF_BASE64: GeneralPurpose = GeneralPurpose::new(
    &alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// A structured-field byte sequence (`:base64:`, RFC 8941 §3.3.5) holding exactly 32
/// bytes, else `None`. Padding may be omitted, as RFC 8941 lets parsers accept; the item's
/// parameters (`;key=value` after it, §3.1.2) are ignored, as RFC 9842 defines none.
fn parse_sf_binary_32(v: &[u8]) -> Option<[u8; 32]> {
    let rest = v.strip_prefix(b":")?;
    let end = rest.iter().position(|&c| c == b':')?;
    let (inner, params) = (&rest[..end], &rest[end + 1..]);
    if !(params.is_empty() || params.starts_with(b";")) {
        return None;
    }
    let mut out = [0u8; 32];
    match SF_BASE64.decode_slice(inner, &mut out) {
        Ok(32) => Some(out),
        _ => None,
    }
}

/// 16 hex digits (either case) as an id, else `None`.
fn parse_hex_id(v: &[u8]) -> Option<DictionaryId> {
    std::str::from_utf8(v).ok()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_values_parse_back() {
        let dict = Dictionary::from_strs(["checkout", "payment-service"]).unwrap();
        let v = available_dictionary(&dict);
        assert_eq!(parse_sf_binary_32(v.as_bytes()), Some(dict.sha256()));
        // Unpadded is accepted; other lengths, alphabets and framings are not.
        let s = v.to_str().unwrap();
        let unpadded = format!("{}:", &s[..s.len() - 2]);
        assert_eq!(parse_sf_binary_32(unpadded.as_bytes()), Some(dict.sha256()));
        assert_eq!(parse_sf_binary_32(&s.as_bytes()[1..]), None);
        assert_eq!(parse_sf_binary_32(b":AAAA:"), None);
        // Parameters after the item are ignored; anything else after it is refused.
        let with_params = format!("{s};x=1;y");
        assert_eq!(
            parse_sf_binary_32(with_params.as_bytes()),
            Some(dict.sha256())
        );
        let list = format!("{s}, {s}");
        assert_eq!(parse_sf_binary_32(list.as_bytes()), None);
        let bad = s.replace(&s[1..2], "*");
        assert_eq!(parse_sf_binary_32(bad.as_bytes()), None);
        // Known vector: SHA-256("") in RFC 9842's example form.
        let empty = [
            0xe3, 0xb0, 0xc4, 0x42, 0x98, 0xfc, 0x1c, 0x14, 0x9a, 0xfb, 0xf4, 0xc8, 0x99, 0x6f,
            0xb9, 0x24, 0x27, 0xae, 0x41, 0xe4, 0x64, 0x9b, 0x93, 0x4c, 0xa4, 0x95, 0x99, 0x1b,
            0x78, 0x52, 0xb8, 0x55,
        ];
        let enc = format!(":{}:", STANDARD.encode(empty));
        assert_eq!(enc, ":47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:");
        assert_eq!(parse_sf_binary_32(enc.as_bytes()), Some(empty));
        // A non-canonical last character (trailing bits set) is refused.
        let loose = enc.replace("uFU=", "uFV=");
        assert_eq!(parse_sf_binary_32(loose.as_bytes()), None);
        let id = qdf_dictionary(dict.id());
        assert_eq!(parse_hex_id(id.as_bytes()), Some(dict.id()));
        assert_eq!(parse_hex_id(b"0123"), None);
        assert_eq!(parse_hex_id(b"0123456789abcdeg"), None);
    }
}
