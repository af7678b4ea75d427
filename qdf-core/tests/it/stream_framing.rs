//! Framed streams as a user sees them: sessions over `std::io`, multi-frame round trips,
//! truncation at every byte, and oversize frames on both sides.

use std::collections::BTreeMap;
use std::io::{self, Read};

use qdf_core::{
    Category, DecoderSession, EncoderSession, ErrorCode, FrameStatus, Options, StreamDecoder,
    StreamEncoder,
};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Reading {
    sensor: String,
    at_ms: u64,
    value: f64,
    tags: BTreeMap<String, String>,
}

fn readings(n: usize) -> Vec<Reading> {
    (0..n)
        .map(|i| Reading {
            sensor: format!("sensor-{}", i % 3),
            at_ms: 1_700_000_000_000 + i as u64 * 250,
            value: i as f64 * 0.5 - 3.0,
            tags: BTreeMap::from([("site".into(), format!("s{}", i % 2))]),
        })
        .collect()
}

fn encode_all(opts: Options, rs: &[Reading]) -> (Vec<u8>, Vec<usize>) {
    let mut enc = EncoderSession::new(opts);
    let mut out = Vec::new();
    let mut ends = Vec::new();
    for r in rs {
        enc.encode_frame(r, &mut out).unwrap();
        ends.push(out.len());
    }
    (out, ends)
}

/// A reader that hands out at most `chunk` bytes per call.
struct Trickle<'a> {
    data: &'a [u8],
    chunk: usize,
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.chunk.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// A reader that fails once with `kind` when `fail_at` bytes have been handed out (a
/// non-blocking socket's `WouldBlock`, a timeout), then goes on.
struct Hiccup<'a> {
    data: &'a [u8],
    pos: usize,
    fail_at: usize,
    kind: Option<io::ErrorKind>,
}

impl Read for Hiccup<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.pos == self.fail_at
            && let Some(kind) = self.kind.take()
        {
            return Err(kind.into());
        }
        let end = if self.pos < self.fail_at && self.kind.is_some() {
            self.fail_at
        } else {
            self.data.len()
        };
        let n = buf.len().min(end - self.pos);
        buf[..n].copy_from_slice(&self.data[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// An I/O error at any byte, the header and the middle of frames included, is an `Io` error;
/// calling `next` again resumes where the reader stopped, so every value arrives, in order
/// and exact (bytes read before the error were dropped, and the stream went on mid-frame).
#[test]
fn an_io_error_at_any_byte_resumes_on_the_next_call() {
    for opts in [Options::speed(), Options::balanced()] {
        let rs = readings(4);
        let (wire, _) = encode_all(opts, &rs);
        for fail_at in 0..wire.len() {
            for kind in [io::ErrorKind::WouldBlock, io::ErrorKind::TimedOut] {
                let reader = Hiccup {
                    data: &wire,
                    pos: 0,
                    fail_at,
                    kind: Some(kind),
                };
                let mut dec = StreamDecoder::new(reader, opts);
                let mut got = Vec::new();
                let mut io_errors = 0;
                loop {
                    match dec.next::<Reading>() {
                        Ok(Some(r)) => got.push(r),
                        Ok(None) => break,
                        Err(e) => {
                            assert_eq!(e.classify(), Category::Io, "at {fail_at}: {e}");
                            io_errors += 1;
                            assert!(io_errors == 1, "at {fail_at}: {e}");
                        }
                    }
                }
                assert_eq!((got, io_errors), (rs.clone(), 1), "{kind:?} at {fail_at}");
            }
        }
    }
}

#[test]
fn multi_frame_round_trip_through_std_io() {
    for opts in [Options::speed(), Options::balanced()] {
        let rs = readings(50);
        let mut enc = StreamEncoder::new(Vec::new(), opts);
        for r in &rs {
            enc.send(r).unwrap();
        }
        let wire = enc.into_inner();
        for chunk in [1, 3, 7, 4096] {
            let mut dec = StreamDecoder::new(Trickle { data: &wire, chunk }, opts);
            let mut got = Vec::new();
            while let Some(r) = dec.next::<Reading>().unwrap() {
                got.push(r);
            }
            assert_eq!(got, rs, "chunk {chunk}");
        }
    }
}

#[test]
fn mixed_types_share_one_stream() {
    let mut enc = StreamEncoder::new(Vec::new(), Options::balanced());
    enc.send(&readings(1)[0]).unwrap();
    enc.send(&vec![1u16, 2, 3]).unwrap();
    enc.send(&Some("end")).unwrap();
    let wire = enc.into_inner();
    let mut dec = StreamDecoder::new(&wire[..], Options::balanced());
    assert_eq!(dec.next::<Reading>().unwrap().unwrap(), readings(1)[0]);
    assert_eq!(dec.next::<Vec<u16>>().unwrap().unwrap(), [1, 2, 3]);
    assert_eq!(
        dec.next::<Option<String>>().unwrap().unwrap().as_deref(),
        Some("end")
    );
    assert!(dec.next::<u8>().unwrap().is_none());
}

#[test]
fn truncation_at_every_byte_is_eof_unless_between_frames() {
    let rs = readings(3);
    let (wire, ends) = encode_all(Options::balanced(), &rs);
    for cut in 0..=wire.len() {
        let mut dec = StreamDecoder::new(&wire[..cut], Options::balanced());
        let mut got = 0;
        let result = loop {
            match dec.next::<Reading>() {
                Ok(Some(r)) => {
                    assert_eq!(r, rs[got]);
                    got += 1;
                }
                Ok(None) => break Ok(()),
                Err(e) => break Err(e),
            }
        };
        let clean = cut == 0 || cut == 5 || ends.contains(&cut);
        match result {
            Ok(()) => assert!(clean, "cut {cut} ended cleanly"),
            Err(e) => {
                assert!(!clean, "cut {cut}: {e}");
                assert_eq!(e.classify(), Category::Eof, "cut {cut}");
            }
        }
        assert_eq!(got, ends.iter().filter(|&&e| e <= cut).count());
    }
}

#[test]
fn sans_io_status_at_every_split_point() {
    let (wire, ends) = encode_all(Options::speed(), &readings(2));
    for cut in 0..=wire.len() {
        let mut dec = DecoderSession::new(Options::speed());
        match dec.frame_status(&wire[..cut]).unwrap() {
            FrameStatus::Incomplete { needed } => {
                assert!(cut < ends[0] && cut + needed <= ends[0], "cut {cut}");
                assert!(dec.decode_frame::<Reading>(&wire[..cut]).unwrap().is_none());
            }
            FrameStatus::Complete { len } => {
                assert_eq!(len, ends[0]);
                let (_, n) = dec.decode_frame::<Reading>(&wire[..cut]).unwrap().unwrap();
                assert_eq!(n, ends[0]);
            }
        }
    }
}

#[test]
fn oversize_frames_are_refused_on_both_sides() {
    let big = "x".repeat(1000);
    let mut enc = EncoderSession::new(Options::speed()).with_max_frame_length(100);
    let mut out = Vec::new();
    let e = enc.encode_frame(&big, &mut out).unwrap_err();
    assert!(matches!(
        e.code(),
        ErrorCode::FrameTooLarge { max: 100, .. }
    ));
    assert!(out.is_empty());
    enc.encode_frame(&"small", &mut out).unwrap();

    // The decoder refuses a large frame as soon as its length prefix is read: only the
    // header and the prefix are given here, and the peer never sends the body.
    let mut wide = EncoderSession::new(Options::speed());
    let mut wire = Vec::new();
    wide.encode_frame(&big, &mut wire).unwrap();
    let prefix_end = 5 + 2;
    let dec = DecoderSession::new(Options::speed()).with_max_frame_length(100);
    let mut sd = StreamDecoder::with_session(&wire[..prefix_end], dec);
    let e = sd.next::<String>().unwrap_err();
    assert_eq!(e.classify(), Category::Limit);
    assert!(matches!(
        e.code(),
        ErrorCode::FrameTooLarge { max: 100, .. }
    ));
    assert_eq!(
        sd.next::<String>().unwrap_err().code(),
        &ErrorCode::Broken(Category::Limit)
    );
}

#[test]
fn a_frame_at_exactly_the_limit_passes() {
    let (wire, ends) = encode_all(Options::speed(), &readings(1));
    let body_len = ends[0] - 5 - 1;
    let dec = DecoderSession::new(Options::speed()).with_max_frame_length(body_len);
    let mut sd = StreamDecoder::with_session(&wire[..], dec);
    assert_eq!(sd.next::<Reading>().unwrap().unwrap(), readings(1)[0]);
    let dec = DecoderSession::new(Options::speed()).with_max_frame_length(body_len - 1);
    let mut sd = StreamDecoder::with_session(&wire[..], dec);
    assert_eq!(
        sd.next::<Reading>().unwrap_err().classify(),
        Category::Limit
    );
}

/// Same field names as `Reading`, but `at_ms` wants a string: decoding fails halfway into
/// the record, after `sensor` (a new string for the session) was read.
#[derive(Deserialize, Debug)]
#[allow(dead_code)]
struct WrongReading {
    sensor: String,
    at_ms: String,
}

#[test]
fn a_mismatch_halfway_into_a_frame_never_yields_a_wrong_later_value() {
    for opts in [Options::speed(), Options::balanced()] {
        let rs = readings(3);
        let mut enc = StreamEncoder::new(Vec::new(), opts);
        let mut second = rs[1].clone();
        second.sensor = "a sensor name never seen before".into();
        for r in [&rs[0], &second, &rs[2]] {
            enc.send(r).unwrap();
        }
        let wire = enc.into_inner();
        let mut dec = StreamDecoder::new(&wire[..], opts);
        assert_eq!(dec.next::<Reading>().unwrap().unwrap(), rs[0]);
        let e = dec.next::<WrongReading>().unwrap_err();
        assert_eq!(e.classify(), Category::Data, "{e}");
        // The third frame decodes correctly, or the session refuses: never a wrong value.
        match dec.next::<Reading>() {
            Ok(third) => assert_eq!(third.unwrap(), rs[2]),
            Err(e) => assert!(matches!(e.code(), ErrorCode::Broken(Category::Data)), "{e}"),
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    /// Any messages, read back through any chunk size, come out equal and in order.
    #[test]
    fn any_messages_through_any_chunking(
        msgs in proptest::collection::vec((".{0,40}", proptest::num::u64::ANY), 0..20),
        chunk in 1usize..64,
    ) {
        let mut enc = StreamEncoder::new(Vec::new(), Options::balanced());
        for m in &msgs {
            enc.send(m).unwrap();
        }
        let wire = enc.into_inner();
        let mut dec = StreamDecoder::new(Trickle { data: &wire, chunk }, Options::balanced());
        let mut got = Vec::new();
        while let Some(m) = dec.next::<(String, u64)>().unwrap() {
            got.push(m);
        }
        proptest::prop_assert_eq!(got, msgs);
    }
}
