//! Sans-IO stream framing: the 5-byte header once per direction, then `uvarint(len) ‖ body`
//! per frame (`docs/SPEC.md` §17.1).
//!
//! ```text
//! stream := header frame*
//! header := 'Q' 'D' 'F' 0x01 flags      (flags must not set ENTROPY 0x04 or COL_INDEX 0x08)
//! frame  := uvarint(len) body[len]      (len minimal, len <= the configured maximum)
//!
//! with header flag CHECKSUM (0x10), docs/SPEC.md §17:
//! frame  := uvarint(len) body[len - 4] crc32c[4]
//!           (len - 4 <= the maximum; crc32c little-endian, of every stream byte since the
//!            previous frame's crc32c: the length prefix and body, and the header too in
//!            the first frame)
//! ```
//!
//! The functions here only look at bytes: [`next_frame`] says how many more bytes a frame
//! needs or where its body lies, [`check_end`] says whether input may end here. They never
//! allocate, so a peer announcing a huge frame costs nothing until its bytes arrive, and a
//! length above the maximum is rejected as soon as its varint is complete.

use crate::error::{Error, ErrorCode, Result};
use crate::wire::header::{
    FLAG_CHECKSUM, FLAG_COL_INDEX, FLAG_ENTROPY, HEADER_LEN, header, header_len, read_header,
};
use crate::wire::varint::{read_uvarint, uvarint_len};

/// Header flags a stream may not carry: ColumnIndex and the entropy pass are whole-message
/// features and are always off in streams (`docs/SPEC.md` §17.1).
pub(crate) const STREAM_FORBIDDEN_FLAGS: u8 = FLAG_ENTROPY | FLAG_COL_INDEX;

/// Bytes of the CRC-32C that ends each frame of a stream with [`FLAG_CHECKSUM`].
pub(crate) const CHECKSUM_LEN: usize = 4;

/// Bytes a frame of a stream with header `flags` carries after its body: the checksum with
/// [`FLAG_CHECKSUM`], else none.
#[inline]
pub(crate) const fn trailer_len(flags: u8) -> usize {
    if flags & FLAG_CHECKSUM != 0 {
        CHECKSUM_LEN
    } else {
        0
    }
}

/// The CRC-32C (Castagnoli, as in iSCSI and ext4) of `covered`.
#[inline]
pub(crate) fn checksum(covered: &[u8]) -> u32 {
    crc32c::crc32c(covered)
}

/// Checks the little-endian CRC-32C in `stored` against the bytes `covered`: `Err((carried,
/// computed))` on a mismatch (also if `stored` is not 4 bytes, which callers rule out).
#[inline]
pub(crate) fn verify_checksum(
    covered: &[u8],
    stored: &[u8],
) -> std::result::Result<(), (u32, u32)> {
    let found = checksum(covered);
    match *stored {
        [a, b, c, d] if u32::from_le_bytes([a, b, c, d]) == found => Ok(()),
        [a, b, c, d] => Err((u32::from_le_bytes([a, b, c, d]), found)),
        _ => Err((!found, found)),
    }
}

/// The frame length is below the 4 checksum bytes every frame of the stream carries.
#[cold]
fn short_frame(at: usize) -> Error {
    Error::at(
        ErrorCode::UnexpectedEof {
            expected: "a frame's 4-byte checksum",
        },
        at as u64,
    )
}

/// What the front of a buffer holds.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Next {
    /// At least `needed` more bytes must arrive. Never more than the bytes still missing, so
    /// a reader may read exactly `needed` bytes without reading past the frame.
    Incomplete { needed: usize },
    /// A whole frame: the header's flags if this frame carries the stream header, the body
    /// range `body_start..body_end`, and `end` (the bytes the frame occupies from the front
    /// of the buffer). `body_end < end` exactly when the stream carries checksums: the
    /// frame's CRC-32C is `body_end..end`, over the bytes `..body_end` (not yet checked).
    Complete {
        flags: Option<u8>,
        body_start: usize,
        body_end: usize,
        end: usize,
    },
}

/// Reads a stream header at the front of `buf` and checks the flags a stream may use.
///
/// Errors: those of [`read_header`]; at offset 4, [`ErrorCode::NotAStream`] for the
/// ColumnIndex flag (only one-shot messages set it) and [`ErrorCode::BadFlags`] for the
/// other [`STREAM_FORBIDDEN_FLAGS`].
pub(crate) fn read_stream_header(buf: &[u8]) -> Result<u8> {
    let flags = read_header(buf)?;
    if flags & FLAG_COL_INDEX != 0 {
        // Only `to_vec` sets it: a one-shot message, not a stream.
        return Err(Error::at(ErrorCode::NotAStream, 4));
    }
    if flags & STREAM_FORBIDDEN_FLAGS != 0 {
        return Err(Error::at(ErrorCode::BadFlags(flags), 4));
    }
    Ok(flags)
}

/// Parses the next frame at the front of `buf`; `stream_flags` are the flags of the stream
/// header already consumed, or `None` if it must come first. Offsets in errors are relative
/// to `buf`. `max_len` bounds the body (the checksum, if any, is not counted).
///
/// Errors: header errors, [`ErrorCode::NonMinimal`] / [`ErrorCode::VarintOverflow`] for the
/// length, [`ErrorCode::FrameTooLarge`] for a body above `max_len` and
/// [`ErrorCode::UnexpectedEof`] for a length below the checksum's 4 bytes (both checked as
/// soon as the varint is complete, before any body byte is needed);
/// [`ErrorCode::NotAStream`] when the first length is not a varint and `buf` is a whole
/// one-shot message.
#[inline(always)]
pub(crate) fn next_frame(buf: &[u8], stream_flags: Option<u8>, max_len: usize) -> Result<Next> {
    // The common frame: after the header, a one-byte length within the maximum (what the
    // general path below computes for it).
    if let Some(f) = stream_flags
        && let Some(&b) = buf.first()
        && b < 0x80
    {
        let (len, trailer) = (b as usize, trailer_len(f));
        if len >= trailer && len - trailer <= max_len {
            let end = 1 + len;
            return Ok(match buf.len().checked_sub(end) {
                None => Next::Incomplete {
                    needed: end - buf.len(),
                },
                Some(_) => Next::Complete {
                    flags: None,
                    body_start: 1,
                    body_end: end - trailer,
                    end,
                },
            });
        }
    }
    next_frame_general(buf, stream_flags, max_len)
}

/// [`next_frame`] for every frame but the common one (and the stream header), out of line:
/// the common frame's test stays small enough to inline into the session's frame loop.
#[inline(never)]
fn next_frame_general(buf: &[u8], stream_flags: Option<u8>, max_len: usize) -> Result<Next> {
    let (flags, at, trailer) = if let Some(f) = stream_flags {
        (None, 0, trailer_len(f))
    } else {
        if buf.len() < HEADER_LEN {
            // Validate the prefix that is there, so garbage fails before it is waited on.
            match read_stream_header(buf) {
                Err(e) if e.is_eof() => {}
                Err(e) => return Err(e),
                Ok(_) => {}
            }
            return Ok(Next::Incomplete {
                needed: HEADER_LEN - buf.len(),
            });
        }
        let f = read_stream_header(buf)?;
        // With flag 20 the dictionary's id follows: the header is 13 bytes (§25).
        let at = header_len(f);
        if buf.len() < at {
            return Ok(Next::Incomplete {
                needed: at - buf.len(),
            });
        }
        (Some(f), at, trailer_len(f))
    };
    let (len, prefix) = match read_uvarint(&buf[at..]) {
        Ok(v) => v,
        Err(e) if e.is_eof() => return Ok(Next::Incomplete { needed: 1 }),
        // Right after the header, a body tag where a length should be: a one-shot message.
        Err(_) if flags.is_some() && is_message(buf) => {
            return Err(Error::at(ErrorCode::NotAStream, at as u64));
        }
        Err(e) => return Err(e.with_offset(at as u64)),
    };
    let body_start = at + prefix;
    let Some(body_len) = len.checked_sub(trailer as u64) else {
        return Err(short_frame(at));
    };
    // The sum only overflows for lengths near u64::MAX with an unbounded maximum.
    let end = match body_start.checked_add(len as usize) {
        Some(end) if body_len <= max_len as u64 => end,
        _ => {
            let (len, max) = (body_len, max_len as u64);
            return Err(Error::at(ErrorCode::FrameTooLarge { len, max }, at as u64));
        }
    };
    if buf.len() < end {
        return Ok(Next::Incomplete {
            needed: end - buf.len(),
        });
    }
    Ok(Next::Complete {
        flags,
        body_start,
        body_end: end - trailer,
        end,
    })
}

/// Whether `bytes` is one whole one-shot message (header and one value, nothing after).
fn is_message(bytes: &[u8]) -> bool {
    use serde::Deserialize as _;
    let Ok(mut de) = crate::de::Deserializer::from_slice_with(bytes, Default::default()) else {
        return false;
    };
    serde::de::IgnoredAny::deserialize(&mut de).is_ok() && de.end().is_ok()
}

/// Whether `bytes` is a whole stream: a stream header, then one or more frames
/// (`uvarint(len)` and exactly `len` bytes each, a non-empty body) and nothing after. For the
/// hint on a stream given to `from_slice` (the reverse of [`is_message`]); the bodies are not
/// decoded.
pub(crate) fn is_stream(bytes: &[u8]) -> bool {
    let (mut pos, mut flags) = (0, None);
    while let Ok(Next::Complete {
        flags: f,
        body_start,
        body_end,
        end,
    }) = next_frame(&bytes[pos..], flags, usize::MAX)
    {
        if body_end == body_start {
            return false;
        }
        flags = flags.or(f);
        pos += end;
        if pos == bytes.len() {
            return true;
        }
    }
    false
}

/// Checks that input may end with `rest` unread: nothing left, or (before the first frame) a
/// lone complete header. Errors with [`ErrorCode::UnexpectedEof`] at `rest.len()` otherwise,
/// with the header's own error if `rest` is not a header prefix, or with
/// [`ErrorCode::NotAStream`] if the unread input is a whole one-shot message.
pub(crate) fn check_end(rest: &[u8], header_seen: bool) -> Result<()> {
    if rest.is_empty() {
        return Ok(());
    }
    if !header_seen {
        let flags = read_stream_header(rest).map_err(|e| e.with_offset(rest.len() as u64))?;
        if rest.len() == header_len(flags) {
            return Ok(());
        }
        // The whole input is one valid `to_vec` message: say so rather than "ended early".
        // Not for a lone byte after the header: a stream cut after a 1-byte length prefix
        // reads as a message too (a fixint); with any byte after it, it no longer does.
        if rest.len() > HEADER_LEN + 1 && is_message(rest) {
            return Err(Error::at(ErrorCode::NotAStream, HEADER_LEN as u64));
        }
    }
    Err(Error::at(
        ErrorCode::UnexpectedEof {
            expected: "the rest of a frame",
        },
        rest.len() as u64,
    ))
}

/// Appends the stream header for `flags` (forbidden flags cleared); the caller appends the
/// dictionary id when `flags` has `FLAG_DICT`.
pub(crate) fn write_stream_header(out: &mut Vec<u8>, flags: u8) {
    out.extend_from_slice(&header(flags & !STREAM_FORBIDDEN_FLAGS));
}

/// Writes `uvarint(body_len)` in front of a body already appended to `out` at
/// `slot..slot + reserved + body_len`, where `reserved` bytes were left for the prefix.
/// Moves the body when the prefix needs more or fewer bytes than were reserved.
pub(crate) fn patch_len_prefix(out: &mut Vec<u8>, slot: usize, reserved: usize) {
    let body_start = slot + reserved;
    let body_len = out.len() - body_start;
    if reserved == 1 && body_len < 0x80 {
        // The common small frame: the guess was right and the prefix is one byte.
        out[slot] = body_len as u8;
        return;
    }
    let need = uvarint_len(body_len as u64);
    if need > reserved {
        let grow = need - reserved;
        out.resize(out.len() + grow, 0);
        out.copy_within(body_start..body_start + body_len, body_start + grow);
    } else if need < reserved {
        out.copy_within(body_start..body_start + body_len, slot + need);
        out.truncate(slot + need + body_len);
    }
    // The prefix is minimal by construction: `need` is exactly `uvarint_len(body_len)`.
    let mut v = body_len as u64;
    for b in &mut out[slot..slot + need] {
        *b = (v as u8 & 0x7F) | if v >= 0x80 { 0x80 } else { 0 };
        v >>= 7;
    }
}

#[cfg(test)]
mod tests;
