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
    FLAG_CHECKSUM, FLAG_COL_INDEX, FLAG_ENTROPY, HEADER_LEN, header, read_header,
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
/// soon as the varint is complete, before any body byte is needed).
#[inline]
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
        (Some(f), HEADER_LEN, trailer_len(f))
    };
    let (len, prefix) = match read_uvarint(&buf[at..]) {
        Ok(v) => v,
        Err(e) if e.is_eof() => return Ok(Next::Incomplete { needed: 1 }),
        // Right after the header, a body tag where a length should be: a one-shot message.
        Err(_) if flags.is_some() => return Err(Error::at(ErrorCode::NotAStream, at as u64)),
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

/// Checks that input may end with `rest` unread: nothing left, or (before the first frame) a
/// lone complete header. Errors with [`ErrorCode::UnexpectedEof`] at `rest.len()` otherwise,
/// with the header's own error if `rest` is not a header prefix, or with
/// [`ErrorCode::NotAStream`] if the unread input is a whole one-shot message.
pub(crate) fn check_end(rest: &[u8], header_seen: bool) -> Result<()> {
    if rest.is_empty() {
        return Ok(());
    }
    if !header_seen {
        read_stream_header(rest).map_err(|e| e.with_offset(rest.len() as u64))?;
        if rest.len() == HEADER_LEN {
            return Ok(());
        }
        // The whole input is one valid `to_vec` message: say so rather than "ended early".
        // Not for a lone byte after the header: a stream cut after a 1-byte length prefix
        // reads as a message too (a fixint); with any byte after it, it no longer does.
        if rest.len() > HEADER_LEN + 1 && crate::from_slice::<serde::de::IgnoredAny>(rest).is_ok() {
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

/// Appends the stream header for `flags` (forbidden flags cleared).
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
mod tests {
    use super::*;
    use crate::error::Category;
    use crate::wire::header::{FLAG_CHECKSUM, FLAG_DENSE, FLAG_QPACK};
    use crate::wire::varint::write_uvarint;

    /// Header, a 3-byte frame, a 200-byte frame (2-byte prefix), an empty frame.
    fn stream() -> (Vec<u8>, Vec<usize>) {
        let mut out = Vec::new();
        write_stream_header(&mut out, FLAG_DENSE);
        let mut ends = Vec::new();
        for body in [&b"abc"[..], &[7u8; 200][..], &[][..]] {
            let slot = out.len();
            out.push(0);
            out.extend_from_slice(body);
            patch_len_prefix(&mut out, slot, 1);
            ends.push(out.len());
        }
        (out, ends)
    }

    #[test]
    fn golden_stream_bytes() {
        let (s, ends) = stream();
        assert_eq!(&s[..10], b"QDF\x01\x01\x03abc\xC8");
        assert_eq!(s[10], 0x01);
        assert_eq!(ends, [9, 211, 212]);
        assert_eq!(s[211], 0x00);
    }

    #[test]
    fn reading_exactly_needed_lands_on_every_frame_end() {
        let (s, ends) = stream();
        let (mut pos, mut header_seen) = (0, false);
        for &end in &ends {
            let mut have = pos;
            loop {
                match next_frame(&s[pos..have], header_seen.then_some(FLAG_DENSE), 1 << 20).unwrap()
                {
                    Next::Incomplete { needed } => {
                        assert!(needed >= 1);
                        have += needed;
                        assert!(have <= end, "needed overshoots the frame");
                    }
                    Next::Complete { flags, end: e, .. } => {
                        assert_eq!(pos + e, end);
                        assert_eq!(flags.is_some(), !header_seen);
                        header_seen = true;
                        break;
                    }
                }
            }
            pos = end;
        }
    }

    #[test]
    fn every_split_point_is_incomplete_or_the_same_frame() {
        let (s, ends) = stream();
        for k in 0..=s.len() {
            match next_frame(&s[..k], None, 1 << 20).unwrap() {
                Next::Incomplete { needed } => {
                    assert!(k < ends[0]);
                    assert!(k + needed <= ends[0]);
                }
                Next::Complete {
                    flags,
                    body_start,
                    body_end,
                    end,
                } => {
                    assert!(k >= ends[0]);
                    assert_eq!((flags, body_start, end), (Some(FLAG_DENSE), 6, 9));
                    assert_eq!(body_end, end);
                }
            }
        }
    }

    #[test]
    fn end_of_input_is_clean_only_between_frames() {
        let (s, ends) = stream();
        assert!(check_end(&[], false).is_ok());
        assert!(check_end(&s[..HEADER_LEN], false).is_ok());
        for k in 1..ends[0] {
            if k == HEADER_LEN {
                continue;
            }
            let e = check_end(&s[..k], false).unwrap_err();
            assert_eq!(e.classify(), Category::Eof, "k = {k}");
            assert_eq!(e.offset(), Some(k as u64));
        }
        for k in ends[0] + 1..ends[1] {
            let e = check_end(&s[ends[0]..k], true).unwrap_err();
            assert!(e.is_eof(), "k = {k}");
        }
        assert_eq!(
            check_end(b"QDX", false).unwrap_err().code(),
            &ErrorCode::BadMagic
        );
    }

    #[test]
    fn non_minimal_and_overflowing_lengths_are_syntax_errors() {
        let e = next_frame(b"\x80\x00", Some(0), 100).unwrap_err();
        assert_eq!(e.code(), &ErrorCode::NonMinimal("a uvarint"));
        assert_eq!((e.classify(), e.offset()), (Category::Syntax, Some(0)));
        let e = next_frame(&[0xFF; 10], Some(0), 100).unwrap_err();
        assert_eq!(e.code(), &ErrorCode::VarintOverflow);
    }

    /// `to_vec` output given to a stream decoder: the body's first tag is read as a length.
    #[test]
    fn a_one_shot_message_is_named_as_such() {
        // A header, then a body tag with the high bit set and a 0 after it (non-minimal).
        let msg = b"QDF\x01\x03\xde\x00\x02";
        let e = next_frame(msg, None, 1 << 20).unwrap_err();
        assert_eq!((e.code(), e.offset()), (&ErrorCode::NotAStream, Some(5)));
        assert_eq!(
            e.to_string(),
            "expected a qdf stream (a length-prefixed frame after the header), found a \
             one-shot qdf message, not a stream (decode it with `from_slice`) at byte 5"
        );
    }

    #[test]
    fn over_max_is_rejected_before_any_body_byte() {
        let mut buf = Vec::new();
        write_uvarint(&mut buf, 101);
        assert_eq!(
            next_frame(&buf, Some(0), 101).unwrap(),
            Next::Incomplete { needed: 101 }
        );
        let e = next_frame(&buf, Some(0), 100).unwrap_err();
        assert_eq!(e.code(), &ErrorCode::FrameTooLarge { len: 101, max: 100 });
        assert_eq!(e.classify(), Category::Limit);
        let mut huge = Vec::new();
        write_uvarint(&mut huge, u64::MAX);
        assert_eq!(
            next_frame(&huge, Some(0), usize::MAX)
                .unwrap_err()
                .classify(),
            Category::Limit
        );
    }

    #[test]
    fn whole_message_flags_are_refused_in_streams() {
        let e = next_frame(&header(FLAG_ENTROPY), None, 100).unwrap_err();
        assert_eq!(
            (e.code(), e.offset()),
            (&ErrorCode::BadFlags(FLAG_ENTROPY), Some(4))
        );
        for f in [FLAG_COL_INDEX, FLAG_DENSE | FLAG_COL_INDEX] {
            let e = next_frame(&header(f), None, 100).unwrap_err();
            assert_eq!((e.code(), e.offset()), (&ErrorCode::NotAStream, Some(4)));
        }
        assert!(next_frame(&header(FLAG_DENSE | FLAG_QPACK), None, 100).is_ok());
        assert_eq!(
            next_frame(b"QD!", None, 100).unwrap_err().code(),
            &ErrorCode::BadMagic
        );
    }

    #[test]
    fn checksum_is_crc32c_castagnoli() {
        // The check value of CRC-32C (RFC 3720 appendix B.4 parameters).
        assert_eq!(checksum(b"123456789"), 0xE306_9283);
        assert_eq!(
            verify_checksum(b"123456789", &[0x83, 0x92, 0x06, 0xE3]),
            Ok(())
        );
        assert_eq!(
            verify_checksum(b"123456788", &[0x83, 0x92, 0x06, 0xE3]),
            Err((0xE306_9283, checksum(b"123456788")))
        );
    }

    /// With `FLAG_CHECKSUM` the length counts the 4 checksum bytes, the maximum bounds the
    /// body alone, and a length below 4 is refused as soon as it is read, on both paths.
    #[test]
    fn checksum_frames_bound_the_body_and_need_four_bytes() {
        let f = FLAG_CHECKSUM;
        let frame = [7u8, 1, 2, 3, 9, 9, 9, 9];
        let want = Next::Complete {
            flags: None,
            body_start: 1,
            body_end: 4,
            end: 8,
        };
        assert_eq!(next_frame(&frame, Some(f), 3).unwrap(), want);
        assert_eq!(
            next_frame(&frame[..5], Some(f), 3).unwrap(),
            Next::Incomplete { needed: 3 }
        );
        let e = next_frame(&frame, Some(f), 2).unwrap_err();
        assert_eq!(e.code(), &ErrorCode::FrameTooLarge { len: 3, max: 2 });
        let mut big = Vec::new();
        write_uvarint(&mut big, 204);
        assert_eq!(
            next_frame(&big, Some(f), 200).unwrap(),
            Next::Incomplete { needed: 204 }
        );
        let e = next_frame(&big, Some(f), 199).unwrap_err();
        assert_eq!(e.code(), &ErrorCode::FrameTooLarge { len: 200, max: 199 });
        let mut first = header(f | FLAG_DENSE).to_vec();
        first.extend_from_slice(&frame);
        assert_eq!(
            next_frame(&first, None, 3).unwrap(),
            Next::Complete {
                flags: Some(f | FLAG_DENSE),
                body_start: 6,
                body_end: 9,
                end: 13,
            }
        );
        for len in 0..4u8 {
            let e = next_frame(&[len], Some(f), 100).unwrap_err();
            assert_eq!((e.classify(), e.offset()), (Category::Eof, Some(0)));
            let mut s = header(f).to_vec();
            s.push(len);
            let e = next_frame(&s, None, 100).unwrap_err();
            assert_eq!((e.classify(), e.offset()), (Category::Eof, Some(5)));
            // Without the flag such lengths are ordinary frames.
            assert!(matches!(
                next_frame(&[len, 0, 0, 0], Some(0), 100).unwrap(),
                Next::Complete { body_end, end, .. } if body_end == end
            ));
        }
    }

    #[test]
    fn prefix_patching_moves_the_body_both_ways() {
        for (reserved, len) in [(1usize, 0usize), (1, 127), (1, 128), (3, 5), (2, 20_000)] {
            let mut out = vec![9u8];
            out.resize(1 + reserved, 0);
            out.extend((0..len).map(|i| i as u8));
            patch_len_prefix(&mut out, 1, reserved);
            let mut want = vec![9u8];
            write_uvarint(&mut want, len as u64);
            want.extend((0..len).map(|i| i as u8));
            assert_eq!(out, want, "reserved {reserved} len {len}");
        }
    }
}
