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
            match next_frame(&s[pos..have], header_seen.then_some(FLAG_DENSE), 1 << 20).unwrap() {
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
    // `[0]`: a header, then an array tag with the high bit set and a 0 after it (read as a
    // non-minimal length).
    let msg = b"QDF\x01\x00\xa1\x00";
    assert_eq!(crate::from_slice::<Vec<u8>>(msg).unwrap(), [0]);
    let e = next_frame(msg, None, 1 << 20).unwrap_err();
    assert_eq!((e.code(), e.offset()), (&ErrorCode::NotAStream, Some(5)));
    assert_eq!(
        e.to_string(),
        "expected a qdf stream (a length-prefixed frame after the header), found a \
         one-shot qdf message, not a stream (decode it with `from_slice`) at byte 5"
    );
}

/// A bad first length that is not a one-shot message either keeps its varint error.
#[test]
fn a_bad_first_length_that_is_no_message_is_a_varint_error() {
    let e = next_frame(b"QDF\x01\x03\x81\x00\xc0", None, 1 << 20).unwrap_err();
    assert_eq!(
        (e.code(), e.offset()),
        (&ErrorCode::NonMinimal("a uvarint"), Some(5))
    );
    let mut over = b"QDF\x01\x03".to_vec();
    over.extend([0xFF; 10]);
    over.push(0x01);
    let e = next_frame(&over, None, 1 << 20).unwrap_err();
    assert_eq!(
        (e.code(), e.offset()),
        (&ErrorCode::VarintOverflow, Some(5))
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
