//! Stream checksums (`docs/SPEC.md` §17, header flag `10`): every single-bit flip of a
//! checksummed Dense record stream is an error, a damaged frame breaks the session with
//! `ChecksumMismatch` naming the frame, and every decoder (sessions, `StreamDecoder`, message
//! mode) reads both kinds of stream from the header alone.

use qdf_core::{
    Category, DecoderSession, EncoderSession, ErrorCode, Options, Result, StreamDecoder,
    StreamEncoder,
};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// A log record whose Balanced (Dense) body is a little over 200 bytes.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Record {
    ts: u64,
    host: String,
    service: String,
    level: String,
    msg: String,
    took_ms: u32,
    ratio: f32,
    tags: Vec<String>,
    user: Option<String>,
}

fn record(i: u32) -> Record {
    Record {
        ts: 1_767_225_600_000 + u64::from(i) * 250,
        host: "frontend-eu-west-1.example".into(),
        service: "checkout-api".into(),
        level: "WARN".into(),
        msg: format!(
            "GET /api/v2/orders/{} took {} ms, upstream 503",
            40_000 + i,
            87 + i
        ),
        took_ms: 87 + i,
        ratio: 0.75,
        tags: vec!["retry".into(), "slow-upstream".into()],
        user: Some(format!("user-{}", 1_000 + i)),
    }
}

/// Every frame of `wire`, then the end check: the first error is returned.
fn decode_all<T: DeserializeOwned>(wire: &[u8], opts: Options) -> Result<Vec<T>> {
    let mut dec = DecoderSession::new(opts);
    let (mut rest, mut out) = (wire, Vec::new());
    loop {
        match dec.decode_frame::<T>(rest)? {
            Some((v, n)) => {
                out.push(v);
                rest = &rest[n..];
            }
            None => {
                dec.check_end(rest)?;
                return Ok(out);
            }
        }
    }
}

fn stream<T: Serialize>(opts: Options, checksum: bool, values: &[T]) -> Vec<u8> {
    let mut enc = EncoderSession::new(opts).with_checksum(checksum);
    let mut wire = Vec::new();
    for v in values {
        enc.encode_frame(v, &mut wire).unwrap();
    }
    wire
}

/// Counts the flips of `wire` that decode without error to other records than `want`, and
/// those that decode without error at all.
fn flips(wire: &[u8], want: &[Record]) -> (usize, usize) {
    let (mut silent_wrong, mut ok) = (0, 0);
    let mut m = wire.to_vec();
    for bit in 0..wire.len() * 8 {
        m[bit / 8] ^= 1 << (bit % 8);
        if let Ok(got) = decode_all::<Record>(&m, Options::balanced()) {
            ok += 1;
            silent_wrong += usize::from(got != want);
        }
        m[bit / 8] ^= 1 << (bit % 8);
    }
    (silent_wrong, ok)
}

/// The measurement: single-bit flips of one Dense record. Without the checksum many
/// decode silently to a different record; with it, every one of the flips of the stream
/// (header, length prefix, body and checksum alike) is an error.
#[test]
fn every_single_bit_flip_of_a_checksummed_dense_record_is_an_error() {
    let want = vec![record(0)];
    let plain = stream(Options::balanced(), false, &want);
    let checked = stream(Options::balanced(), true, &want);
    // Header 5, a 2-byte length prefix, a body of at least 200 bytes; the checksum adds 4.
    assert!(
        plain.len() >= 5 + 2 + 200,
        "record is {} bytes",
        plain.len()
    );
    assert_eq!(checked.len(), plain.len() + 4);
    assert_eq!(checked[4], plain[4] | 0x10);
    assert_eq!(
        decode_all::<Record>(&checked, Options::balanced()).unwrap(),
        want
    );

    let (silent_wrong, plain_ok) = flips(&plain, &want);
    println!(
        "{} flips of a {}-byte stream without the checksum: {plain_ok} decode, \
         {silent_wrong} to a different record",
        plain.len() * 8,
        plain.len()
    );
    assert!(
        silent_wrong > 100,
        "without the checksum only {silent_wrong} of {} flips decoded to a wrong record",
        plain.len() * 8
    );
    let (silent_wrong, ok) = flips(&checked, &want);
    assert_eq!(
        (silent_wrong, ok),
        (0, 0),
        "of {} flips with the checksum",
        checked.len() * 8
    );
}

/// A flipped interned string travels into later frames of a Dense session without the
/// checksum; with it, the damaged frame fails with `ChecksumMismatch` (its index, its stream
/// offset, the checksum's offset in the buffer) and the session refuses every later frame.
#[test]
fn a_damaged_frame_breaks_the_session_with_the_typed_error() {
    let values: Vec<Record> = (0..3).map(record).collect();
    let host = b"frontend-eu-west-1.example";
    let flip_host = |wire: &mut Vec<u8>| {
        let at = wire.windows(host.len()).position(|w| w == host).unwrap();
        wire[at + 3] ^= 0x02; // "frontend" -> "froltend"
    };

    let mut plain = stream(Options::balanced(), false, &values);
    flip_host(&mut plain);
    let got = decode_all::<Record>(&plain, Options::balanced()).unwrap();
    let hosts: Vec<&str> = got.iter().map(|r| r.host.as_str()).collect();
    assert_eq!(hosts, ["froltend-eu-west-1.example"; 3]);

    let clean = stream(Options::balanced(), true, &values);
    let mut wire = clean.clone();
    flip_host(&mut wire);
    let mut dec = DecoderSession::new(Options::balanced());
    let e = dec.decode_frame::<Record>(&wire).unwrap_err();
    let Some(qdf_core::FrameStatus::Complete { len: first }) =
        DecoderSession::new(Options::balanced())
            .frame_status(&clean)
            .ok()
    else {
        panic!("first frame is complete");
    };
    let ErrorCode::ChecksumMismatch {
        expected,
        found,
        frame,
        frame_offset,
    } = *e.code()
    else {
        panic!("{e}");
    };
    assert_eq!((frame, frame_offset), (0, 0));
    assert_eq!(
        expected,
        u32::from_le_bytes(clean[first - 4..first].try_into().unwrap())
    );
    assert_ne!(expected, found);
    assert_eq!(
        (e.classify(), e.offset()),
        (Category::Syntax, Some(first as u64 - 4))
    );
    assert_eq!(dec.broken(), Some(Category::Syntax));
    let later = dec.decode_frame::<Record>(&wire[first..]).unwrap_err();
    assert_eq!(later.code(), &ErrorCode::Broken(Category::Syntax));

    // A flip in the second frame: the first decodes, the second names frame 1 at its offset.
    let mut wire = clean.clone();
    wire[first + 20] ^= 0x40;
    let mut dec = DecoderSession::new(Options::balanced());
    let (r, n) = dec.decode_frame::<Record>(&wire).unwrap().unwrap();
    assert_eq!((r, n), (values[0].clone(), first));
    let e = dec.decode_frame::<Record>(&wire[n..]).unwrap_err();
    assert!(
        matches!(
            e.code(),
            ErrorCode::ChecksumMismatch { frame: 1, frame_offset, .. } if *frame_offset == first as u64
        ),
        "{e}"
    );
    assert_eq!(
        e.to_string().split(": it carries").next(),
        Some(format!("frame 1 (stream byte {first}) fails its CRC-32C").as_str())
    );
    // The frame is named once, the checksum's offset last.
    let text = e.to_string();
    assert_eq!(text.matches("frame ").count(), 1, "{text}");
    assert!(
        text.ends_with(&format!(" at stream byte {}", e.offset().unwrap())),
        "{text}"
    );
}

/// A stateless (Speed) stream is broken by a checksum failure too (the length prefix may be
/// what was damaged), while a body error under a good checksum still only skips its frame.
#[test]
fn a_checksum_failure_breaks_even_a_stateless_stream() {
    let mut enc = EncoderSession::new(Options::speed()).with_checksum(true);
    let mut wire = Vec::new();
    enc.encode_frame(&1u32, &mut wire).unwrap();
    let first = wire.len();
    enc.encode_frame(&"not a number", &mut wire).unwrap();
    let second = wire.len();
    enc.encode_frame(&3u32, &mut wire).unwrap();

    let mut dec = DecoderSession::new(Options::speed());
    assert_eq!(dec.decode_frame::<u32>(&wire).unwrap(), Some((1, first)));
    let e = dec.decode_frame::<u32>(&wire[first..]).unwrap_err();
    assert_eq!((e.classify(), dec.broken()), (Category::Data, None));
    let (v, _) = dec.decode_frame::<u32>(&wire[second..]).unwrap().unwrap();
    assert_eq!(v, 3);

    let mut bad = wire.clone();
    *bad.last_mut().unwrap() ^= 0x80; // the third frame's checksum itself
    let mut dec = DecoderSession::new(Options::speed());
    dec.decode_frame::<u32>(&bad).unwrap();
    let _ = dec.decode_frame::<u32>(&bad[first..]);
    let e = dec.decode_frame::<u32>(&bad[second..]).unwrap_err();
    assert!(
        matches!(e.code(), ErrorCode::ChecksumMismatch { frame: 2, frame_offset, .. }
            if *frame_offset == second as u64),
        "{e}"
    );
    assert_eq!(dec.broken(), Some(Category::Syntax));
}

/// Golden bytes, the CRC computed by an independent bitwise CRC-32C (reflected polynomial
/// 0x82F63B78): the first frame's checksum covers the header, later ones their prefix and
/// body. The same bytes are SPEC.md §17's example.
#[test]
fn golden_checksummed_stream() {
    let wire = stream(Options::speed(), true, &["api", "api"]);
    assert_eq!(
        wire,
        [
            0x51, 0x44, 0x46, 0x01, 0x10, 0x08, 0x83, 0x61, 0x70, 0x69, 0x14, 0x82, 0xfe, 0x46,
            0x08, 0x83, 0x61, 0x70, 0x69, 0x38, 0x48, 0xda, 0x95,
        ]
    );
    assert_eq!(
        decode_all::<String>(&wire, Options::speed()).unwrap(),
        ["api", "api"]
    );
    // Without the flag, the same frames are 4 bytes shorter and the header says 00.
    assert_eq!(
        stream(Options::speed(), false, &["api", "api"]),
        b"QDF\x01\x00\x04\x83api\x04\x83api"
    );
}

/// The decoder needs no setting: it follows each stream's header, and reports it.
#[test]
fn one_decoder_setting_reads_both_kinds_of_stream() {
    let values: Vec<Record> = (0..20).map(record).collect();
    for opts in [
        Options::speed(),
        Options::balanced(),
        Options::compression(),
    ] {
        for checksum in [false, true] {
            let wire = stream(opts, checksum, &values);
            let mut dec = DecoderSession::new(Options::default());
            assert_eq!(dec.checksum(), None);
            let (v, _) = dec.decode_frame::<Record>(&wire).unwrap().unwrap();
            assert_eq!((v, dec.checksum()), (values[0].clone(), Some(checksum)));
            assert_eq!(
                decode_all::<Record>(&wire, Options::default()).unwrap(),
                values
            );
        }
    }
    // A batch (columnar in Balanced) in one frame, and a frame whose length needs 2 bytes.
    let batch = stream(Options::balanced(), true, &[values.clone(), values.clone()]);
    assert_eq!(
        decode_all::<Vec<Record>>(&batch, Options::balanced()).unwrap(),
        [values.clone(), values]
    );
}

/// The body limit does not count the checksum: whatever the encoder accepts under a maximum,
/// the decoder accepts under the same one.
#[test]
fn the_frame_limit_bounds_the_body_on_both_sides() {
    let body = "x".repeat(124); // 2-byte string head + 124 = 126 bytes of body
    let mut enc = EncoderSession::new(Options::speed())
        .with_checksum(true)
        .with_max_frame_length(126);
    let mut wire = Vec::new();
    enc.encode_frame(&body, &mut wire).unwrap();
    assert_eq!(wire.len(), 5 + 2 + 126 + 4, "a 2-byte prefix for len 130");
    let e = enc
        .encode_frame(&"x".repeat(125), &mut Vec::new())
        .unwrap_err();
    assert!(matches!(
        e.code(),
        ErrorCode::FrameTooLarge { len: 127, max: 126 }
    ));

    let mut dec = DecoderSession::new(Options::speed()).with_max_frame_length(126);
    assert_eq!(dec.decode_frame::<String>(&wire).unwrap().unwrap().0, body);
    let mut dec = DecoderSession::new(Options::speed()).with_max_frame_length(125);
    let e = dec.decode_frame::<String>(&wire).unwrap_err();
    assert_eq!(e.code(), &ErrorCode::FrameTooLarge { len: 126, max: 125 });
}

/// A length below the 4 checksum bytes cannot be a frame of this stream.
#[test]
fn a_frame_shorter_than_its_checksum_breaks_the_session() {
    for len in 0..4u8 {
        let wire = [0x51, 0x44, 0x46, 0x01, 0x10, len, 0, 0, 0];
        let mut dec = DecoderSession::new(Options::speed());
        let e = dec.frame_status(&wire).unwrap_err();
        assert_eq!((e.classify(), e.offset()), (Category::Eof, Some(5)));
        assert!(dec.broken().is_some());
    }
}

/// The checksum is announced once: a session that has written its header keeps its choice.
#[test]
fn the_choice_is_fixed_by_the_first_frame() {
    let mut enc = EncoderSession::new(Options::speed());
    let mut wire = Vec::new();
    enc.encode_frame(&1u8, &mut wire).unwrap();
    let mut enc = enc.with_checksum(true);
    assert!(!enc.checksum());
    enc.encode_frame(&2u8, &mut wire).unwrap();
    assert_eq!(wire, b"QDF\x01\x00\x01\x01\x01\x02");
}

/// A single message never carries the flag: `from_slice` refuses it.
#[test]
fn single_messages_refuse_the_stream_flag() {
    let e = qdf_core::from_slice::<u8>(b"QDF\x01\x10\x01").unwrap_err();
    assert_eq!(
        (e.code(), e.offset()),
        (&ErrorCode::BadFlags(0x10), Some(4))
    );
}

/// Files: `StreamEncoder` over a session with checksums, `StreamDecoder` reading it back,
/// and a flipped byte on disk caught as `ChecksumMismatch`, then `Broken`.
#[test]
fn files_through_stream_encoder_and_decoder() {
    let path = std::env::temp_dir().join(format!("qdf-checksum-{}.qdfs", std::process::id()));
    let values: Vec<Record> = (0..50).map(record).collect();
    let session = EncoderSession::new(Options::balanced()).with_checksum(true);
    let mut enc = StreamEncoder::with_session(std::fs::File::create(&path).unwrap(), session);
    for v in &values {
        enc.send(v).unwrap();
    }
    enc.flush().unwrap();
    drop(enc);
    let mut bytes = std::fs::read(&path).unwrap();
    assert_eq!(bytes[4], 0x53, "Dense, QPack, checksums, per-field strings");

    let read = |file: std::fs::File| {
        let mut dec = StreamDecoder::new(file, Options::balanced());
        let mut got = Vec::new();
        let err = loop {
            match dec.next::<Record>() {
                Ok(Some(r)) => got.push(r),
                Ok(None) => break None,
                Err(e) => break Some((e, dec.next::<Record>().unwrap_err())),
            }
        };
        (got, err)
    };
    let (got, err) = read(std::fs::File::open(&path).unwrap());
    assert_eq!((got, err.is_none()), (values.clone(), true));

    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x08;
    std::fs::write(&path, &bytes).unwrap();
    let (got, err) = read(std::fs::File::open(&path).unwrap());
    std::fs::remove_file(&path).unwrap();
    let (e, after) = err.expect("the flipped byte is caught");
    assert_eq!(got, values[..got.len()]);
    assert!(
        matches!(e.code(), ErrorCode::ChecksumMismatch { frame, .. } if *frame == got.len() as u64),
        "{e}"
    );
    assert_eq!(after.code(), &ErrorCode::Broken(Category::Syntax));
}

/// Message mode (gRPC's framing): each message ends with the checksum of its bytes, the
/// header's included in the first.
#[test]
fn messages_carry_the_checksum_too() {
    let mut enc = EncoderSession::new(Options::balanced()).with_checksum(true);
    let (mut a, mut b) = (Vec::new(), Vec::new());
    enc.encode_message(&record(0), &mut a).unwrap();
    enc.encode_message(&record(1), &mut b).unwrap();
    assert_eq!(a[4], 0x53);
    let crc = |m: &[u8]| u32::from_le_bytes(m[m.len() - 4..].try_into().unwrap());
    assert_eq!(crc(&a), crc32c_reference(&a[..a.len() - 4]));
    assert_eq!(crc(&b), crc32c_reference(&b[..b.len() - 4]));

    let mut dec = DecoderSession::new(Options::balanced());
    assert_eq!(dec.decode_message::<Record>(&a).unwrap(), record(0));
    assert_eq!(dec.decode_message::<Record>(&b).unwrap(), record(1));

    let mut dec = DecoderSession::new(Options::balanced());
    dec.decode_message::<Record>(&a).unwrap();
    let mut bad = b.clone();
    bad[10] ^= 0x01;
    let e = dec.decode_message::<Record>(&bad).unwrap_err();
    assert!(
        matches!(e.code(), ErrorCode::ChecksumMismatch { frame: 1, frame_offset, .. }
            if *frame_offset == a.len() as u64),
        "{e}"
    );
    assert_eq!(e.offset(), Some(b.len() as u64 - 4));
    assert_eq!(dec.broken(), Some(Category::Syntax));

    let mut dec = DecoderSession::new(Options::balanced());
    let e = dec.decode_message::<Record>(&a[..9]).unwrap_err();
    assert!(
        matches!(e.code(), ErrorCode::ChecksumMismatch { .. }),
        "{e}"
    );
    let mut dec = DecoderSession::new(Options::balanced());
    let e = dec.decode_message::<Record>(&a[..8]).unwrap_err();
    assert_eq!((e.classify(), e.offset()), (Category::Eof, Some(8)));
}

/// Bitwise CRC-32C, independent of the `crc32c` crate the library uses.
fn crc32c_reference(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0x82F6_3B78
            } else {
                crc >> 1
            };
        }
    }
    !crc
}
