//! How a qdf [`Error`] becomes a gRPC [`Status`].
//!
//! | qdf [`Category`] / code | decoding a received message | encoding a message to send |
//! |---|---|---|
//! | `Limit`: [`OutputLimit`](ErrorCode::OutputLimit), [`FrameTooLarge`](ErrorCode::FrameTooLarge) (a size limit) | `out_of_range` | `out_of_range` |
//! | `Limit`: depth, session caps | `resource_exhausted` | `resource_exhausted` |
//! | `Syntax`, `Eof`, `Data` | `invalid_argument` | `internal` |
//! | `Io`, `Broken`, others | `internal` | `internal` |
//!
//! `out_of_range` for a size limit matches tonic's own `max_decoding_message_size` check,
//! so a client sees one code for "message too large" whichever layer caught it. Bytes that
//! are not valid qdf are the peer's fault (`invalid_argument`); a value this side cannot
//! encode is a bug on this side (`internal`). The message names the direction, the index
//! of the message in its stream (0-based) and qdf's own message with its byte offset.
//! tonic itself turns any encoder error into `internal` ("Error encoding: …"), keeping the
//! status built here as its text.

use qdf_core::{Category, Error, ErrorCode};
use tonic::{Code, Status};

/// Which side of the codec failed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Side {
    Encode,
    Decode,
}

/// The gRPC code for `err` raised while `side`-ing a message (table in the module docs).
pub(crate) fn code_for(err: &Error, side: Side) -> Code {
    match err.classify() {
        Category::Limit => match err.code() {
            ErrorCode::OutputLimit { .. } | ErrorCode::FrameTooLarge { .. } => Code::OutOfRange,
            _ => Code::ResourceExhausted,
        },
        Category::Syntax | Category::Eof | Category::Data => match side {
            Side::Decode => Code::InvalidArgument,
            Side::Encode => Code::Internal,
        },
        _ => Code::Internal,
    }
}

/// The [`Status`] for `err` raised on message `index` of a stream direction.
pub(crate) fn to_status(err: &Error, side: Side, index: u64) -> Status {
    let verb = match side {
        Side::Encode => "encode",
        Side::Decode => "decode",
    };
    Status::new(
        code_for(err, side),
        format!("qdf: cannot {verb} message {index} of this stream: {err}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(code: ErrorCode) -> Error {
        Error::__unstable_new(code, None)
    }

    #[test]
    fn size_limits_are_out_of_range() {
        for side in [Side::Encode, Side::Decode] {
            assert_eq!(
                code_for(
                    &err(ErrorCode::OutputLimit {
                        needed: 2 << 20,
                        limit: 1 << 20
                    }),
                    side
                ),
                Code::OutOfRange
            );
            let big = ErrorCode::FrameTooLarge { len: 9, max: 8 };
            assert_eq!(code_for(&err(big), side), Code::OutOfRange);
        }
    }

    #[test]
    fn caps_are_resource_exhausted() {
        for side in [Side::Encode, Side::Decode] {
            let cap = err(ErrorCode::SessionCap {
                what: "intern table entries",
                cap: 1,
                limit: "max_intern_entries",
            });
            assert_eq!(code_for(&cap, side), Code::ResourceExhausted);
            let deep = err(ErrorCode::DepthLimit(128));
            assert_eq!(code_for(&deep, side), Code::ResourceExhausted);
        }
    }

    #[test]
    fn bad_bytes_blame_the_sender() {
        let cases = [
            ErrorCode::BadMagic,
            ErrorCode::UnexpectedEof { expected: "a tag" },
            ErrorCode::TrailingBytes(3),
            ErrorCode::UnknownStateId(7),
        ];
        for c in cases {
            assert_eq!(
                code_for(&err(c.clone()), Side::Decode),
                Code::InvalidArgument
            );
            assert_eq!(code_for(&err(c), Side::Encode), Code::Internal);
        }
    }

    #[test]
    fn broken_and_io_are_internal() {
        let broken = err(ErrorCode::Broken(Category::Syntax));
        assert_eq!(code_for(&broken, Side::Decode), Code::Internal);
        let io = err(ErrorCode::Io(std::io::ErrorKind::Other, "x".into()));
        assert_eq!(code_for(&io, Side::Encode), Code::Internal);
    }

    #[test]
    fn message_names_side_index_and_offset() {
        let e = Error::__unstable_new(
            ErrorCode::BadTag {
                found: 0xff,
                expected: "a string",
            },
            Some(7),
        );
        let s = to_status(&e, Side::Decode, 3);
        assert_eq!(s.code(), Code::InvalidArgument);
        assert_eq!(
            s.message(),
            "qdf: cannot decode message 3 of this stream: expected a string, found tag 0xff at byte 7"
        );
    }
}
