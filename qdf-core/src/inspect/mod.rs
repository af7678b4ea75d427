//! A tag walker for qdf bytes without a schema: the `protoc --decode_raw` of qdf.
//!
//! [`message`] walks one message (header, one body), [`stream`] a stream (header, then
//! `uvarint(len) body [crc]` frames, `docs/SPEC.md` §17), and each hands every tag it reads
//! to a callback as an [`Event`] with its byte offsets: scalars, numbers predicted from their
//! field's last one with their form (`docs/SPEC.md` §15.2), strings with their intern
//! form (inline, a definition with the id it gets, or a reference with the id and the
//! resolved bytes, §14), containers, struct and map shapes (§15) with the field names the
//! shape table supplies, QPack bodies with their codec (§19), columnar containers with
//! each column's codec and byte cost (§22), and stream frames.
//!
//! ```
//! use qdf_core::inspect::{self, EventKind};
//! let bytes = qdf_core::to_vec(&("host", 7u8))?;
//! let mut lines = Vec::new();
//! inspect::message(&bytes, &qdf_core::Options::default(), &mut |e| {
//!     if let EventKind::Text { bytes, .. } = e.kind {
//!         lines.push(format!("{}: {:?}", e.offset, std::str::from_utf8(bytes).unwrap()));
//!     }
//! })?;
//! assert_eq!(lines, ["6: \"host\""]);
//! # Ok::<(), qdf_core::inspect::InspectError>(())
//! ```
//!
//! **Same rules as the decoder.** The walk reads with the decoder's own parsing (the header
//! and frame checks, strict numbers and lengths, the Dense state's definitions and
//! references, the shape table, the QPack and string-block codecs, the columnar reader), so
//! it accepts exactly the bytes a [`Value`](crate::Value) decode accepts under the same
//! [`Options`] and fails with the same error at the same offset.
//!
//! **Bounded on hostile input.** Nesting is limited by [`Options::max_depth`] (counted as the
//! decoder counts it), every length and count is checked against the bytes that remain
//! before it is used, and decoded output is charged to the message's output limit (§13), so
//! the walk never panics, never loops without consuming input and allocates only what the
//! decoder would: the intern and shape tables (bounded by the input and the session caps)
//! and the decoded values of QPack bodies and columns (bounded by the output limit) while
//! they are checked. Events borrow from the input or the tables; nothing is collected.
//!
//! Offsets are absolute in the input given (the header is at 0). A columnar container's
//! column values are not presented one by one: each column is one [`EventKind::Column`]
//! with its codec and byte range; intern entries defined inside a container's column
//! declaration or per-value string columns are given as id ranges.
mod event;
mod walk;

pub use event::*;
use walk::Walker;

use std::fmt;

use crate::dense::DenseState;
use crate::dict::Dictionary;
use crate::error::{Error, ErrorCode};
use crate::frame::{self, Next};
use crate::options::Options;
use crate::source::Source;
use crate::wire::header::{
    FLAG_CHECKSUM, FLAG_DENSE, FLAG_DICT, FLAG_TEXTS, header_len, read_dict_id, unknown_dictionary,
};
use crate::wire::tags::*;

/// Where a frame of a stream starts.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct FrameAt {
    /// Index in the stream, from 0.
    pub index: u64,
    /// Stream offset of the frame's first byte (its length prefix).
    pub offset: u64,
}

/// A walk's failure: the decoder's error, its offset absolute in the walked input, and for
/// a stream the frame it happened in.
#[derive(Debug)]
pub struct InspectError {
    /// The error; [`Error::offset`] is absolute in the input.
    pub error: Error,
    /// The frame, in a stream (after its header).
    pub frame: Option<FrameAt>,
}

impl fmt::Display for InspectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.frame {
            // The error's own text names the frame.
            Some(_) if self.error.code().names_frame() => fmt::Display::fmt(&self.error, f),
            Some(fr) => write!(
                f,
                "frame {} (at stream byte {}): {}",
                fr.index, fr.offset, self.error
            ),
            None => fmt::Display::fmt(&self.error, f),
        }
    }
}

impl std::error::Error for InspectError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

impl From<Error> for InspectError {
    fn from(error: Error) -> Self {
        InspectError { error, frame: None }
    }
}

/// What a [`stream`] walk saw.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct StreamSummary {
    /// Frames walked.
    pub frames: u64,
    /// The header's flags.
    pub flags: u8,
}

/// Walks one message (header, one body) with the decode limits of `opts`, handing each
/// event to `sink` in wire order.
///
/// Errors: exactly those of `from_slice_with::<Value>(input, opts)` (a bad header, flag `10`
/// or `04`, any body error, trailing bytes), at the same offsets; a message on a pre-shared
/// dictionary (flag `20`) is [`ErrorCode::UnknownDictionary`]: walk it with
/// [`message_with_dictionary`].
pub fn message(
    input: &[u8],
    opts: &Options,
    sink: &mut dyn FnMut(&Event<'_>),
) -> std::result::Result<(), InspectError> {
    message_with_dictionary(input, opts, None, sink)
}

/// [`message`] for a message that may start from the pre-shared dictionary `dict`
/// (`docs/SPEC.md` §25): references to its entries resolve to their bytes. The
/// [`EventKind::Header`] event then spans the 13 bytes of header and dictionary id.
///
/// Errors: exactly those of `from_slice_with_dictionary::<Value>(input, opts, dict)`, at the
/// same offsets ([`ErrorCode::UnknownDictionary`] at offset 5 for a message naming another
/// dictionary, or one when `dict` is `None`).
pub fn message_with_dictionary(
    input: &[u8],
    opts: &Options,
    dict: Option<&Dictionary>,
    sink: &mut dyn FnMut(&Event<'_>),
) -> std::result::Result<(), InspectError> {
    let mut src = Source::message_with(input, opts, dict)?;
    let flags = input[4];
    let start = header_len(flags);
    sink(&Event {
        offset: 0,
        end: start as u64,
        depth: 0,
        key: false,
        kind: EventKind::Header { flags },
    });
    // Keep the entries' bytes so every reference resolves from the table.
    let mut state = DenseState::new_decoder(opts, true).for_flags(flags);
    if flags & FLAG_DICT != 0
        && let Some(d) = dict
    {
        state = state.on_base(d.base());
    }
    src.carry_dense(opts, Some(Box::new(state)));
    let mut w = Walker {
        src,
        input: &input[start..],
        base: start as u64,
        sink,
        depth: 1,
    };
    w.value(false)?;
    w.src.end()?;
    Ok(())
}

/// Walks a stream (header, then frames, §17) with the decode limits of `opts` and frame
/// bodies of at most `max_frame_len` bytes, carrying the Dense state from frame to frame as
/// a [`DecoderSession`](crate::DecoderSession) does (when the header has flag `01`).
///
/// Errors: those of a `DecoderSession` reading the same bytes into `Value`s, stopping at the
/// first (also a body error of a stateless stream, which a session would skip), with the
/// offset absolute in `input` and the frame it happened in; input that ends inside a frame
/// is `UnexpectedEof`. Empty input is an empty stream (no event), as for a session. A
/// stream on a pre-shared dictionary (flag `20`) is [`ErrorCode::UnknownDictionary`]: walk
/// it with [`stream_with_dictionary`].
pub fn stream(
    input: &[u8],
    opts: &Options,
    max_frame_len: usize,
    sink: &mut dyn FnMut(&Event<'_>),
) -> std::result::Result<StreamSummary, InspectError> {
    stream_with_dictionary(input, opts, max_frame_len, None, sink)
}

/// [`stream`] for a stream that may start from the pre-shared dictionary `dict`
/// (`docs/SPEC.md` §25), as a [`DecoderSession`](crate::DecoderSession) given
/// `with_dictionary(dict)` reads it: a Dense stream's state starts from the dictionary (and
/// returns to it at a renewal), each body of a stateless one does. The
/// [`EventKind::Header`] event then spans the 13 bytes of header and dictionary id.
///
/// Errors: those of [`stream`]; [`ErrorCode::UnknownDictionary`] at offset 5 when the
/// header names another dictionary, or one when `dict` is `None`, checked before the first
/// frame is read.
pub fn stream_with_dictionary(
    input: &[u8],
    opts: &Options,
    max_frame_len: usize,
    dict: Option<&Dictionary>,
    sink: &mut dyn FnMut(&Event<'_>),
) -> std::result::Result<StreamSummary, InspectError> {
    if input.is_empty() {
        return Ok(StreamSummary::default());
    }
    let flags = frame::read_stream_header(input)?;
    let base = match read_dict_id(input, flags)? {
        None => None,
        Some(found) => match dict {
            Some(d) if d.id().to_bytes() == found => Some(d.base()),
            _ => return Err(unknown_dictionary(found, dict.map(|d| d.id().to_bytes())).into()),
        },
    };
    sink(&Event {
        offset: 0,
        end: header_len(flags) as u64,
        depth: 0,
        key: false,
        kind: EventKind::Header { flags },
    });
    // As `DecoderSession` creates it: from the dictionary, or (flag 40) from the header.
    let mut dense: Option<Box<DenseState>> = match &base {
        Some(b) if flags & FLAG_DENSE != 0 => Some(Box::new(
            DenseState::new_session_decoder(opts)
                .for_flags(flags)
                .on_base(b.clone()),
        )),
        _ if flags & FLAG_TEXTS != 0 => Some(Box::new(
            DenseState::new_session_decoder(opts).for_flags(flags),
        )),
        _ => None,
    };
    let mut pos = header_len(flags);
    // The first frame's checksum also covers the header.
    let mut covered_from = 0;
    let mut index = 0u64;
    while pos < input.len() {
        let at = FrameAt {
            index,
            offset: pos as u64,
        };
        let fail = |e: Error| InspectError {
            error: e,
            frame: Some(at),
        };
        // The first frame is read together with the header, as `DecoderSession` reads it,
        // so that a one-shot message fails the same way (`NotAStream`).
        let (from, known) = if index == 0 {
            (0, None)
        } else {
            (pos, Some(flags))
        };
        let rest = &input[from..];
        let (body_start, body_end, end) = match frame::next_frame(rest, known, max_frame_len) {
            Ok(Next::Complete {
                body_start,
                body_end,
                end,
                ..
            }) => (from + body_start, from + body_end, from + end),
            Ok(Next::Incomplete { .. }) => {
                // Input that ends inside a frame (`check_end` always fails here: `rest` is
                // more than a lone header).
                let e = frame::check_end(rest, index != 0).err().unwrap_or_else(|| {
                    let code = ErrorCode::UnexpectedEof {
                        expected: "the rest of a frame",
                    };
                    Error::at(code, rest.len() as u64)
                });
                return Err(fail(e.shifted(from as u64)));
            }
            Err(e) => return Err(fail(e.shifted(from as u64))),
        };
        let checksum = if flags & FLAG_CHECKSUM != 0 {
            let (covered, stored) = (&input[covered_from..body_end], &input[body_end..end]);
            if let Err((expected, found)) = frame::verify_checksum(covered, stored) {
                let code = ErrorCode::ChecksumMismatch {
                    expected,
                    found,
                    frame: index,
                    frame_offset: covered_from as u64,
                };
                return Err(fail(Error::at(code, body_end as u64)));
            }
            Some(u32::from_le_bytes([
                stored[0], stored[1], stored[2], stored[3],
            ]))
        } else {
            None
        };
        sink(&Event {
            offset: pos as u64,
            end: body_start as u64,
            depth: 0,
            key: false,
            kind: EventKind::Frame {
                index,
                body_len: (body_end - body_start) as u64,
                checksum,
            },
        });
        let mut body_start = body_start;
        if flags & FLAG_DENSE != 0 && input[body_start..body_end].first() == Some(&RENEW) {
            // Read and applied as `DecoderSession` does; its errors are body errors.
            let d = dense.get_or_insert_with(|| Box::new(DenseState::new_session_decoder(opts)));
            let at = body_start as u64;
            body_start += d
                .apply_renewal(&input[body_start..body_end])
                .map_err(|e| fail(e.shifted(at)))?;
            let found = d.generation();
            sink(&Event {
                offset: at,
                end: body_start as u64,
                depth: 1,
                key: false,
                kind: EventKind::Renewal { generation: found },
            });
        }
        let body = &input[body_start..body_end];
        let mut src = Source::new(body, body_start as u64, opts);
        let carried = if flags & FLAG_DENSE != 0 {
            dense.take()
        } else {
            // A stateless body on a dictionary starts from it; the entries keep their bytes.
            base.as_ref()
                .map(|b| Box::new(DenseState::new_decoder(opts, true).on_base(b.clone())))
        };
        src.carry_dense(opts, carried);
        let mut w = Walker {
            src,
            input: body,
            base: body_start as u64,
            sink: &mut *sink,
            depth: 1,
        };
        let r = w.value(false).and_then(|()| w.src.end());
        let Walker { src, sink: _, .. } = w;
        dense = src.into_dense();
        r.map_err(|e| fail(e.with_offset(body_start as u64)))?;
        sink(&Event {
            offset: end as u64,
            end: end as u64,
            depth: 0,
            key: false,
            kind: EventKind::Close,
        });
        pos = end;
        covered_from = end;
        index += 1;
    }
    Ok(StreamSummary {
        frames: index,
        flags,
    })
}
