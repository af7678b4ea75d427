//! Hex text `F2 0B` / `F2 0C` (`docs/SPEC.md` §9): a string of 2L hex digits in L bytes.
//! Decoding into every kind of target, its charges and caps, the walker's events and its
//! agreement with the decoder.

use std::borrow::Cow;

use qdf_core::inspect::{self, EventKind, Intern};
use qdf_core::{Category, ErrorCode, Options, Value};
use serde::Deserialize;

/// A message: the 5-byte header, then `body`.
fn msg(body: &[u8]) -> Vec<u8> {
    let mut m = b"QDF\x01\x00".to_vec();
    m.extend_from_slice(body);
    m
}

/// `F2 0B` (or `F2 0C` with `define`) holding `bytes`, lowercase unless `upper`.
fn hex(bytes: &[u8], upper: bool, define: bool) -> Vec<u8> {
    let n = 2 * bytes.len() + usize::from(upper);
    assert!(n < 128);
    let mut v = vec![0xF2, if define { 0x0C } else { 0x0B }, n as u8];
    v.extend_from_slice(bytes);
    v
}

const TRACE: [u8; 16] = [
    0x5b, 0x8e, 0xff, 0xf7, 0x98, 0x03, 0x81, 0x03, 0xd2, 0x69, 0xb6, 0x33, 0x81, 0x3f, 0xc6, 0x0c,
];
const TRACE_TEXT: &str = "5b8efff798038103d269b633813fc60c";

/// The walker and a `Value` decode agree: both succeed, or both fail with one code at one
/// offset.
fn agree(m: &[u8], opts: &Options) {
    let walked = inspect::message(m, opts, &mut |_| {});
    let decoded = qdf_core::from_slice_with::<Value>(m, *opts);
    match (&walked, &decoded) {
        (Ok(()), Ok(_)) => {}
        (Err(w), Err(d)) => {
            assert_eq!(w.error.code(), d.code(), "{m:02x?}");
            assert_eq!(w.error.offset(), d.offset(), "{m:02x?}");
        }
        _ => panic!("{m:02x?}: walk {walked:?}, decode {decoded:?}"),
    }
}

#[test]
fn typed_targets_read_hex_text_as_an_owned_string() {
    let m = msg(&hex(&TRACE, false, false));
    assert_eq!(qdf_core::from_slice::<String>(&m).unwrap(), TRACE_TEXT);
    assert_eq!(
        qdf_core::from_slice::<Value>(&m).unwrap(),
        Value::Str(TRACE_TEXT.into())
    );
    let cow: Cow<'_, str> = qdf_core::from_slice(&m).unwrap();
    assert!(matches!(cow, Cow::Owned(_)));
    assert_eq!(cow, TRACE_TEXT);
    // An Option reads the bare form as Some (it needs no F2 05 wrapper).
    assert_eq!(
        qdf_core::from_slice::<Option<String>>(&m).unwrap(),
        Some(TRACE_TEXT.to_string())
    );
    // Uppercase letters.
    let up = msg(&hex(&[0xAB, 0x01], true, false));
    assert_eq!(qdf_core::from_slice::<String>(&up).unwrap(), "AB01");
    // A borrowed &str cannot point into the input: a Data error.
    let e = qdf_core::from_slice::<&str>(&m).unwrap_err();
    assert_eq!(e.classify(), Category::Data, "{e}");
    assert!(
        matches!(e.code(), ErrorCode::TypeMismatch { expected, .. } if expected.contains("borrowed")),
        "{e}"
    );
}

#[test]
fn hex_text_stands_for_keys_names_and_variants() {
    #[derive(Deserialize, Debug, PartialEq)]
    #[allow(non_camel_case_types)]
    enum E {
        ab,
        cd(u8),
    }
    // A bare hex string as a unit variant, and as a newtype variant's name.
    let m = msg(&hex(&[0xAB], false, false));
    assert_eq!(qdf_core::from_slice::<E>(&m).unwrap(), E::ab);
    let mut b = vec![0xF2, 0x07];
    b.extend(hex(&[0xCD], false, false));
    b.push(5);
    assert_eq!(qdf_core::from_slice::<E>(&msg(&b)).unwrap(), E::cd(5));
    // A struct field name, in a plain map and in a shape declaration.
    #[derive(Deserialize, Debug, PartialEq)]
    struct S {
        ab: u8,
    }
    let mut b = vec![0xD5, 0x01];
    b.extend(hex(&[0xAB], false, false));
    b.push(7);
    assert_eq!(qdf_core::from_slice::<S>(&msg(&b)).unwrap(), S { ab: 7 });
    let mut b = vec![0xEC, 0x00, 0x01];
    b.extend(hex(&[0xAB], false, true));
    b.push(9);
    assert_eq!(qdf_core::from_slice::<S>(&msg(&b)).unwrap(), S { ab: 9 });
}

#[test]
fn a_definition_is_a_string_entry_that_references_yield() {
    // [F2 0C id, E8, E1 00]: every element the text, owned.
    let mut b = vec![0xA3];
    b.extend(hex(&TRACE[..8], false, true));
    b.extend([0xE8, 0xE1, 0x00]);
    let m = msg(&b);
    let v: Vec<String> = qdf_core::from_slice(&m).unwrap();
    assert_eq!(v, vec!["5b8efff798038103".to_string(); 3]);
    let v: Vec<Cow<'_, str>> = qdf_core::from_slice(&m).unwrap();
    assert!(v.iter().all(|c| matches!(c, Cow::Owned(_))));
    assert!(qdf_core::from_slice::<Vec<&str>>(&m).is_err());
    // The walker names the form: hex, defining id 0; then two references to id 0.
    let mut texts = Vec::new();
    inspect::message(&m, &Options::default(), &mut |e| {
        if let EventKind::Text {
            bytes, intern, hex, ..
        } = &e.kind
        {
            texts.push((e.offset, bytes.to_vec(), *intern, *hex));
        }
    })
    .unwrap();
    let t = b"5b8efff798038103".to_vec();
    assert_eq!(texts.len(), 3);
    assert_eq!(texts[0], (6, t.clone(), Intern::Define(0), true));
    assert_eq!((texts[1].1.clone(), texts[1].3), (t.clone(), false));
    assert!(matches!(texts[1].2, Intern::Ref { id: 0, .. }));
    assert!(matches!(texts[2].2, Intern::Ref { id: 0, .. }));
    // An inline F2 0B leaves lastID invalid: E8 after it is refused, at its tag.
    let mut b = vec![0xA2];
    b.extend(hex(&[1, 2], false, false));
    b.push(0xE8);
    let e = qdf_core::from_slice::<Value>(&msg(&b)).unwrap_err();
    assert!(matches!(e.code(), ErrorCode::UnknownStateId(_)), "{e}");
    agree(&msg(&b), &Options::default());
}

#[test]
fn output_is_charged_the_text_length() {
    // 16 bytes stand for 32 characters: 32 units, at the form and at each reference.
    let m = msg(&hex(&TRACE, false, false));
    assert!(qdf_core::from_slice_with::<String>(&m, Options::default().max_output(32)).is_ok());
    let e = qdf_core::from_slice_with::<String>(&m, Options::default().max_output(31)).unwrap_err();
    assert!(
        matches!(
            e.code(),
            ErrorCode::OutputLimit {
                needed: 32,
                limit: 31
            }
        ),
        "{e}"
    );
    let mut b = vec![0xA2];
    b.extend(hex(&TRACE, false, true));
    b.push(0xE8);
    let m = msg(&b);
    // 2 elements + 32 + 32.
    assert!(qdf_core::from_slice_with::<Value>(&m, Options::default().max_output(66)).is_ok());
    let e = qdf_core::from_slice_with::<Value>(&m, Options::default().max_output(65)).unwrap_err();
    assert!(
        matches!(e.code(), ErrorCode::OutputLimit { needed: 66, .. }),
        "{e}"
    );
    agree(&m, &Options::default().max_output(65));
}

#[test]
fn a_definition_counts_its_text_toward_the_intern_byte_cap() {
    let m = msg(&hex(&TRACE, false, true));
    let ok = Options::default().max_intern_bytes(32);
    assert_eq!(
        qdf_core::from_slice_with::<String>(&m, ok).unwrap(),
        TRACE_TEXT
    );
    let tight = Options::default().max_intern_bytes(31);
    let e = qdf_core::from_slice_with::<String>(&m, tight).unwrap_err();
    assert!(matches!(e.code(), ErrorCode::SessionCap { .. }), "{e}");
    assert_eq!(e.offset(), Some(7), "{e}");
    agree(&m, &tight);
}

#[test]
fn errors_are_typed_at_their_offsets() {
    let cases: &[(&[u8], fn(&ErrorCode) -> bool, u64)] = &[
        (
            &[0xF2, 0x0B, 0x00],
            |c| matches!(c, ErrorCode::BadCodec(_)),
            7,
        ),
        (
            &[0xF2, 0x0C, 0x01],
            |c| matches!(c, ErrorCode::BadCodec(_)),
            7,
        ),
        (
            &[0xF2, 0x0B, 0x06, 0xAB],
            |c| matches!(c, ErrorCode::LengthOverrun { .. }),
            8,
        ),
        (
            &[0xF2, 0x0B, 0x80],
            |c| matches!(c, ErrorCode::UnexpectedEof { .. }),
            7,
        ),
        (
            &[0xF2, 0x05, 0xF2, 0x0B, 0x02, 0xFF],
            |c| matches!(c, ErrorCode::NonMinimal(_)),
            5,
        ),
    ];
    for &(body, code, at) in cases {
        let m = msg(body);
        let e = qdf_core::from_slice::<Value>(&m).unwrap_err();
        assert!(code(e.code()), "{body:02x?}: {e}");
        assert_eq!(e.offset(), Some(at), "{body:02x?}: {e}");
        agree(&m, &Options::default());
        // Typed targets fail the same way.
        let t = qdf_core::from_slice::<Option<String>>(&m).unwrap_err();
        assert_eq!(t.code(), e.code(), "{body:02x?}");
    }
}

#[test]
fn walker_agrees_with_the_decoder_on_every_prefix_and_byte_change() {
    let mut b = vec![0xA4];
    b.extend(hex(&TRACE, false, true));
    b.extend(hex(&[0xAB, 0xCD], true, false));
    b.extend([0xE1, 0x00]);
    b.extend([0xD5, 0x01]);
    b.extend(hex(&[0x12], false, false));
    b.extend(hex(&[0x34, 0x56], false, true));
    let m = msg(&b);
    assert_eq!(
        qdf_core::from_slice::<Value>(&m).unwrap().to_string(),
        format!("[\"{TRACE_TEXT}\", \"ABCD\", \"{TRACE_TEXT}\", {{\"12\": \"3456\"}}]")
    );
    for n in 0..m.len() {
        agree(&m[..n], &Options::default());
    }
    for i in 5..m.len() {
        for x in [0x01, 0x02, 0x0C, 0x80, 0xFF] {
            let mut c = m.clone();
            c[i] ^= x;
            agree(&c, &Options::default());
        }
    }
}
