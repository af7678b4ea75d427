//! TEMPORARY stand-in for the body hooks the helper "core" provides (`encode_body`,
//! `decode_body`, `header_flags`). It writes serde_json bodies so that framing and sessions
//! can be built and tested before the Serializer lands. Deleted when branch `core` is merged;
//! nothing outside `session.rs` may call it.

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::wire::header::{FLAG_DENSE, FLAG_QPACK};
use crate::{Error, ErrorCode, Features, Options, Result};

/// Appends a headerless body for `value`; on error `out` is truncated back.
pub(crate) fn encode_body<T: ?Sized + Serialize>(
    value: &T,
    _opts: &Options,
    out: &mut Vec<u8>,
) -> Result<()> {
    let mark = out.len();
    serde_json::to_writer(&mut *out, value).map_err(|e| {
        out.truncate(mark);
        Error::new(ErrorCode::Message(e.to_string().into()))
    })
}

/// Decodes a headerless body that must occupy all of `body`.
pub(crate) fn decode_body<T: DeserializeOwned>(body: &[u8], _opts: &Options) -> Result<T> {
    serde_json::from_slice(body).map_err(|e| {
        if e.is_eof() {
            Error::new(ErrorCode::UnexpectedEof {
                expected: "a value",
            })
        } else if e.is_syntax() {
            Error::new(ErrorCode::BadCodec("stand-in json"))
        } else {
            Error::mismatch("the target type", e.to_string())
        }
    })
}

/// The header flags a message encoded with `opts` carries.
pub(crate) fn header_flags(opts: &Options) -> u8 {
    let mut f = 0;
    if opts.has(Features::DENSE) {
        f |= FLAG_DENSE;
    }
    if opts.has(Features::QPACK) {
        f |= FLAG_QPACK;
    }
    f
}
