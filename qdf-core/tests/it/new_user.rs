//! What a new user meets first (issue: a new user's path): `&str` fields over batches and
//! repeated strings, with and without `Options::borrowable_strings`; error texts in serde's
//! words; stream errors placed in their stream; a one-shot message given to a stream decoder.

use std::collections::BTreeMap;

use qdf_core::{DecoderSession, EncoderSession, ErrorCode, FrameStatus, Options};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Span<'a> {
    name: &'a str,
    start_ns: u64,
}

fn spans(names: &[String]) -> Vec<Span<'_>> {
    names
        .iter()
        .enumerate()
        .map(|(i, name)| Span {
            name,
            start_ns: 1_700_000_000_000_000_000 + i as u64,
        })
        .collect()
}

fn names(n: usize, f: impl Fn(usize) -> String) -> Vec<String> {
    (0..n).map(f).collect()
}

/// The cliff: 15 structs are rows and borrow, 16 are a column the decoder rebuilds.
#[test]
fn sixteen_borrowed_strs_fail_with_the_field_and_the_fix() {
    let n15 = names(15, |i| format!("name-{i}"));
    let b = qdf_core::to_vec(&spans(&n15)).unwrap();
    assert_eq!(qdf_core::from_slice::<Vec<Span>>(&b).unwrap(), spans(&n15));

    let n16 = names(16, |i| format!("name-{i}"));
    let b = qdf_core::to_vec(&spans(&n16)).unwrap();
    let e = qdf_core::from_slice::<Vec<Span>>(&b).unwrap_err();
    let text = e.to_string();
    assert!(
        text.starts_with("expected a borrowed string for field `name`, found"),
        "{text}"
    );
    assert!(
        text.contains("use `String` or `#[serde(borrow)] Cow<'a, str>` for this field"),
        "{text}"
    );
}

/// Under `borrowable_strings` every `&str` borrows, whatever the batch size and repetition,
/// and the bytes decode with default options too (the wire is unchanged).
#[test]
fn borrowable_strings_keep_every_str_in_the_input() {
    let cases = [
        names(16, |i| format!("name-{i}")), // alphabet-packed by default
        names(300, |i| format!("service-{}", i % 7)), // dictionary / interned
        names(1000, |i| format!("/api/v1/users/{i}/items")), // front-coded / FSST
        names(64, |_| "GET /users".to_string()), // constant
        names(40, |i| ["a", "bb", "GET /x", "GET /x"][i % 4].to_string()),
    ];
    for opts in [Options::balanced(), Options::compression()] {
        for n in &cases {
            let want = spans(n);
            let default = qdf_core::to_vec_with(&want, opts).unwrap();
            let b = qdf_core::to_vec_with(&want, opts.borrowable_strings(true)).unwrap();
            let back: Vec<Span> = qdf_core::from_slice(&b).unwrap();
            assert_eq!(back, want);
            for s in &back {
                let r = s.name.as_bytes().as_ptr_range();
                assert!(
                    b.as_ptr_range().contains(&r.start),
                    "`{}` not borrowed",
                    s.name
                );
            }
            // The same values as the default encoding, read without the option.
            let owned: qdf_core::Value = qdf_core::from_slice(&b).unwrap();
            let dflt: qdf_core::Value = qdf_core::from_slice(&default).unwrap();
            assert_eq!(owned, dflt);
        }
    }
    // Repeated map keys borrow too.
    let maps: Vec<BTreeMap<&str, &str>> = (0..20)
        .map(|_| BTreeMap::from([("service", "checkout"), ("region", "eu-west-1")]))
        .collect();
    let b = qdf_core::to_vec_with(&maps, Options::balanced().borrowable_strings(true)).unwrap();
    assert_eq!(
        qdf_core::from_slice::<Vec<BTreeMap<&str, &str>>>(&b).unwrap(),
        maps
    );
}

/// The knob's price is pinned: the same 300 spans with 7 service names.
#[test]
fn borrowable_strings_sizes() {
    let n = names(300, |i| format!("service-{}", i % 7));
    let s = spans(&n);
    let dflt = qdf_core::to_vec(&s).unwrap().len();
    let borrowable = qdf_core::to_vec_with(&s, Options::balanced().borrowable_strings(true))
        .unwrap()
        .len();
    // The default interns the 7 names and packs the column; borrowable keeps them inline.
    assert_eq!((dflt, borrowable), (189, 228));
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
enum Level {
    Info,
    Warn(u8),
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Target {
    a: u32,
}

fn err<T: for<'de> Deserialize<'de> + std::fmt::Debug>(v: &impl Serialize) -> String {
    let b = qdf_core::to_vec(v).unwrap();
    qdf_core::from_slice::<T>(&b).unwrap_err().to_string()
}

#[test]
fn type_errors_use_serde_words() {
    assert_eq!(
        err::<u32>(&Level::Info),
        "expected a number, found a unit variant at byte 5"
    );
    assert_eq!(
        err::<String>(&Level::Warn(3)),
        "expected a string, found a newtype variant at byte 5"
    );
    assert_eq!(
        err::<String>(&()),
        "expected a string, found unit at byte 5"
    );
    assert_eq!(
        err::<Target>(&7u32),
        "expected struct Target, found an integer at byte 5"
    );
    assert_eq!(
        err::<Target>(&Level::Info),
        "expected struct Target, found a unit variant at byte 5"
    );
    assert_eq!(
        err::<Level>(&7u32),
        "expected enum Level, found an integer at byte 5"
    );
}

/// Three Speed frames `"a"`, `"b"`, `"c"`, the third damaged into invalid UTF-8.
fn stream_with_bad_third_frame() -> Vec<u8> {
    let mut enc = EncoderSession::new(Options::speed());
    let mut wire = Vec::new();
    for s in ["a", "b", "c"] {
        enc.encode_frame(s, &mut wire).unwrap();
    }
    // header 5 | 01 a1 61 | 01 a1 62 | 01 a1 63
    assert_eq!(wire.len(), 14);
    wire[13] = 0xff;
    wire
}

#[test]
fn stream_errors_carry_the_frame_and_the_stream_offset() {
    let wire = stream_with_bad_third_frame();
    let mut dec = DecoderSession::new(Options::speed());
    let mut at = 0;
    let mut got = Vec::new();
    let e = loop {
        match dec.decode_frame::<String>(&wire[at..]) {
            Ok(Some((v, used))) => {
                got.push(v);
                at += used;
            }
            Ok(None) => panic!("incomplete"),
            Err(e) => break e,
        }
    };
    assert_eq!(got, ["a", "b"]);
    assert_eq!(e.code(), &ErrorCode::InvalidUtf8);
    assert_eq!((e.frame(), e.offset()), (Some(2), Some(13)));
    assert_eq!(
        e.to_string(),
        "expected a UTF-8 string in frame 2 at stream byte 13"
    );
}

#[test]
fn a_one_shot_message_is_not_a_stream() {
    let msg = qdf_core::to_vec(&Target { a: 1 }).unwrap();
    let mut dec = DecoderSession::new(Options::balanced());
    // Either the first "length" is refused at once, or the input ends inside it.
    let e = match dec.frame_status(&msg) {
        Err(e) => e,
        Ok(FrameStatus::Incomplete { .. }) => dec.check_end(&msg).unwrap_err(),
        Ok(FrameStatus::Complete { .. }) => panic!("a message read as a frame"),
    };
    assert_eq!(e.code(), &ErrorCode::NotAStream);
    assert_eq!(
        e.to_string(),
        "expected a qdf stream (a length-prefixed frame after the header), found a one-shot \
         qdf message, not a stream (decode it with `from_slice`) in frame 0 at stream byte 5"
    );
}

/// A stream given to `from_slice` fails as before, with a hint that it is a stream (the
/// reverse of `NotAStream`); a broken message that is no stream gets no hint.
#[test]
fn a_stream_given_to_from_slice_says_it_is_a_stream() {
    #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
    struct Rec {
        id: u32,
        name: String,
    }
    const HINT: &str = " (the input is a qdf stream, frames after the header: decode it with \
                        `DecoderSession` or `StreamDecoder`)";
    for checksum in [false, true] {
        let mut enc = qdf_core::EncoderSession::new(Options::balanced()).with_checksum(checksum);
        let mut stream = Vec::new();
        for id in 0..3 {
            let name = format!("n{id}");
            enc.encode_frame(&Rec { id, name }, &mut stream).unwrap();
        }
        let e = qdf_core::from_slice::<Rec>(&stream).unwrap_err();
        let text = e.to_string();
        assert!(text.ends_with(HINT), "{text}");
        let e = qdf_core::from_slice::<qdf_core::Value>(&stream).unwrap_err();
        assert!(e.to_string().ends_with(HINT), "{e}");
    }
    let mut enc = qdf_core::EncoderSession::new(Options::speed());
    let mut stream = Vec::new();
    enc.encode_frame(
        &Rec {
            id: 7,
            name: "x".into(),
        },
        &mut stream,
    )
    .unwrap();
    enc.encode_frame(&5u8, &mut stream).unwrap();
    let e = qdf_core::from_slice::<qdf_core::Value>(&stream).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!("expected the end of input, found 15 more bytes at byte 6{HINT}")
    );
    // A message with a type error, a cut stream: no hint.
    let msg = qdf_core::to_vec(&0u8).unwrap();
    let e = qdf_core::from_slice::<String>(&msg).unwrap_err();
    assert!(!e.to_string().contains("stream"), "{e}");
    let e = qdf_core::from_slice::<Rec>(&stream[..stream.len() - 1]).unwrap_err();
    assert!(!e.to_string().contains("stream"), "{e}");
}
