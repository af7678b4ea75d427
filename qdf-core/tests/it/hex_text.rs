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
    /// (body, the expected code, its offset)
    type Case = (&'static [u8], fn(&ErrorCode) -> bool, u64);
    let cases: &[Case] = &[
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

// ---- the encoder's choices (feature `HEX_TEXT`, Balanced and Compression) ----------------

use qdf_core::{DecoderSession, EncoderSession, Features};
use serde::Serialize;

/// The body `opts` writes for `v` (the message after its 5-byte header).
fn body<T: Serialize + ?Sized>(v: &T, opts: Options) -> Vec<u8> {
    qdf_core::to_vec_with(v, opts).unwrap()[5..].to_vec()
}

/// Balanced with nothing interned: every string is written inline.
fn inline() -> Options {
    Options::balanced().min_intern(1000)
}

fn cat(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}

#[test]
fn golden_inline_hex_text() {
    // 32 lowercase digits: F2 0B 20 + 16 bytes (19) instead of CD 20 + 32 (34).
    assert_eq!(
        body(TRACE_TEXT, inline()),
        cat(&[&[0xF2, 0x0B, 0x20], &TRACE])
    );
    assert_eq!(body(TRACE_TEXT, Options::speed()).len(), 34);
    // Uppercase: n odd.
    assert_eq!(
        body("AB01CDEF", inline()),
        [0xF2, 0x0B, 0x09, 0xAB, 0x01, 0xCD, 0xEF]
    );
    // Digits only, an even count: lowercase.
    assert_eq!(
        body("123456", inline()),
        [0xF2, 0x0B, 0x06, 0x12, 0x34, 0x56]
    );
    // Not shorter (5 bytes either way), odd length, mixed case, not hex: as today.
    assert_eq!(body("ab12", inline()), [0x84, b'a', b'b', b'1', b'2']);
    assert_eq!(body("abc12", inline())[0], 0x85);
    assert_eq!(body("aB12cd", inline())[0], 0x86);
    assert_eq!(body("ab12cg", inline())[0], 0x86);
    // The feature off: as today.
    let off = inline().features(Features::BALANCED - Features::HEX_TEXT);
    assert_eq!(body(TRACE_TEXT, off)[..2], [0xCD, 0x20]);
}

#[test]
fn golden_hex_definitions_and_references() {
    let b = Options::balanced();
    // A definition: F2 0C 20 + 16 (19) instead of E0 20 + 32 (34).
    assert_eq!(body(TRACE_TEXT, b), cat(&[&[0xF2, 0x0C, 0x20], &TRACE]));
    assert_eq!(
        body(TRACE_TEXT, Options::compression()),
        cat(&[&[0xF2, 0x0C, 0x20], &TRACE])
    );
    // 4 digits: F2 0C 04 ab 12 (5) is shorter than E0 04 ab12 (6).
    assert_eq!(body("ab12", b), [0xF2, 0x0C, 0x04, 0xAB, 0x12]);
    // An odd length keeps E0.
    assert_eq!(body("abc12", b)[..2], [0xE0, 0x05]);
    // Defined once, then referenced: E8 (lastID), an inline "x", E1 00.
    let span = "352bff9a74ca9ad2";
    let v = (span, span, "x", span);
    let span_bytes = [0x35, 0x2b, 0xff, 0x9a, 0x74, 0xca, 0x9a, 0xd2];
    assert_eq!(
        body(&v, b),
        cat(&[
            &[0xA4, 0xF2, 0x0C, 0x10],
            &span_bytes,
            &[0xE8, 0x81, b'x', 0xE1, 0x00]
        ])
    );
    let back: (String, String, String, String) =
        qdf_core::from_slice(&qdf_core::to_vec(&v).unwrap()).unwrap();
    assert_eq!(back, (span.into(), span.into(), "x".into(), span.into()));
    // A map key is a value; a struct field name is not.
    let m = std::collections::BTreeMap::from([("abcdef12".to_string(), 1u8)]);
    assert_eq!(
        body(&m, b),
        [0xD5, 0x01, 0xF2, 0x0C, 0x08, 0xAB, 0xCD, 0xEF, 0x12, 0x01]
    );
    #[derive(Serialize)]
    struct W {
        abcdef: u8,
    }
    let w = body(&W { abcdef: 1 }, b);
    assert!(!w.windows(2).any(|p| p[0] == 0xF2), "{w:02x?}");
    // Some around hex text needs no wrapper.
    assert_eq!(
        body(&Some(TRACE_TEXT), b),
        cat(&[&[0xF2, 0x0C, 0x20], &TRACE])
    );
    assert_eq!(
        qdf_core::from_slice::<Option<Option<String>>>(
            &qdf_core::to_vec(&Some(Some(TRACE_TEXT))).unwrap()
        )
        .unwrap(),
        Some(Some(TRACE_TEXT.to_string()))
    );
}

#[test]
fn borrowable_strings_and_speed_keep_the_text() {
    let opts = Options::balanced().borrowable_strings(true);
    let bytes = qdf_core::to_vec_with(&(TRACE_TEXT, TRACE_TEXT), opts).unwrap();
    assert!(
        !bytes[5..]
            .windows(2)
            .any(|p| p == [0xF2, 0x0B] || p == [0xF2, 0x0C])
    );
    let back: (&str, &str) = qdf_core::from_slice(&bytes).unwrap();
    assert_eq!(back, (TRACE_TEXT, TRACE_TEXT));
    // The Balanced bytes cannot lend a &str: a Data error.
    let bytes = qdf_core::to_vec(&TRACE_TEXT).unwrap();
    let e = qdf_core::from_slice::<&str>(&bytes).unwrap_err();
    assert_eq!(e.classify(), Category::Data, "{e}");
    let speed = qdf_core::to_vec_with(&TRACE_TEXT, Options::speed()).unwrap();
    assert_eq!(qdf_core::from_slice::<&str>(&speed).unwrap(), TRACE_TEXT);
}

#[test]
fn a_borrowed_field_over_hex_text_says_what_to_use() {
    // The guide's promise for rebuilt strings: the error says why and what to use instead,
    // also for hex text in row mode (no column to name).
    #[derive(Serialize, Deserialize, Debug)]
    struct Ids<'a> {
        trace: &'a str,
    }
    let bytes = qdf_core::to_vec(&Ids { trace: TRACE_TEXT }).unwrap();
    let e = qdf_core::from_slice::<Ids>(&bytes).unwrap_err();
    assert_eq!(e.classify(), Category::Data, "{e}");
    assert!(e.offset().is_some(), "{e}");
    let text = e.to_string();
    assert!(
        text.contains("use `String` or `#[serde(borrow)] Cow<'a, str>`"),
        "{text}"
    );
    assert!(text.contains(TRACE_TEXT), "{text}");
}

/// A record with hex ids in every position a string value takes.
#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Span {
    trace_id: String,
    span_id: String,
    parent_id: Option<String>,
    name: String,
    tags: std::collections::BTreeMap<String, String>,
}

fn spans(n: u64) -> Vec<Span> {
    spans_tagged(n, 1)
}

/// [`spans`] whose `tags` hold `k` (1 or 2) entries: with one, a one-shot Balanced message makes the
/// column of `tags` a tagged column (`docs/SPEC.md` §22.3); with two it stays row-mode maps.
fn spans_tagged(n: u64, k: u64) -> Vec<Span> {
    (0..n)
        .map(|i| Span {
            trace_id: format!(
                "{:032x}",
                u128::from(i / 3).wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835)
            ),
            span_id: format!("{:016x}", i.wrapping_mul(0xBF58_476D_1CE4_E5B9)),
            parent_id: (i % 3 != 0)
                .then(|| format!("{:016X}", (i - 1).wrapping_mul(0xBF58_476D_1CE4_E5B9))),
            name: ["get", "put", "cafe"][(i % 3) as usize].into(),
            tags: (0..k)
                .map(|t| {
                    (
                        ["peer", "zone"][t as usize].to_string(),
                        format!("{:08x}", i % 4 + t),
                    )
                })
                .collect(),
        })
        .collect()
}

/// `(hex text, without it)` byte counts of `v` in Speed, Balanced and Compression, after
/// checking the round trips.
fn hex_sizes(v: &Vec<Span>) -> Vec<(usize, usize)> {
    hex_sizes_without(v, Features::NONE)
}

/// [`hex_sizes`] with `off` taken out of each tier's features.
fn hex_sizes_without(v: &Vec<Span>, off: Features) -> Vec<(usize, usize)> {
    let mut sizes = Vec::new();
    for opts in [
        Options::speed(),
        Options::balanced(),
        Options::compression(),
    ] {
        let opts = opts.features(opts.features - off);
        let bytes = qdf_core::to_vec_with(v, opts).unwrap();
        assert_eq!(&qdf_core::from_slice::<Vec<Span>>(&bytes).unwrap(), v);
        let val: Value = qdf_core::from_slice(&bytes).unwrap();
        assert_eq!(
            &qdf_core::from_slice::<Vec<Span>>(&qdf_core::to_vec(&val).unwrap()).unwrap(),
            v
        );
        let off = opts.features(opts.features - Features::HEX_TEXT);
        let plain = qdf_core::to_vec_with(v, off).unwrap();
        sizes.push((bytes.len(), plain.len()));
    }
    sizes
}

#[test]
fn records_round_trip_in_every_tier_and_shrink() {
    // Two-entry `tags` in the rows (without nested columns), whose hex values hex text
    // shrinks.
    let sizes = hex_sizes_without(&spans_tagged(10, 2), Features::NESTED_COLUMNS);
    assert_eq!(sizes[0].0, sizes[0].1, "Speed writes no hex text");
    for &(hex, plain) in &sizes[1..] {
        assert!(hex < plain, "{sizes:?}");
    }
    // With them the maps are a map column (§22.2, by key sets: 426 bytes in Balanced
    // before) whose value column is a string block: hex text changes nothing there either.
    assert_eq!(
        hex_sizes(&spans_tagged(10, 2)),
        [(1355, 1355), (425, 425), (426, 426)]
    );
    // One-entry `tags` are a tagged column in Balanced and Compression; its variant's string
    // column keeps its form as every string column does (§9): hex text changes nothing.
    assert_eq!(
        hex_sizes(&spans(10)),
        [(1215, 1215), (425, 425), (415, 415)]
    );
}

#[test]
fn a_session_defines_once_and_references_later() {
    for opts in [
        Options::speed(),
        Options::balanced(),
        Options::compression(),
    ] {
        let mut enc = EncoderSession::new(opts);
        let mut wire = Vec::new();
        let v = spans(4);
        for _ in 0..3 {
            enc.encode_frame(&v, &mut wire).unwrap();
        }
        let mut dec = DecoderSession::new(opts);
        let mut rest = &wire[..];
        for _ in 0..3 {
            let (back, n) = dec.decode_frame::<Vec<Span>>(rest).unwrap().unwrap();
            assert_eq!(back, v);
            rest = &rest[n..];
        }
        assert!(rest.is_empty());
    }
}

mod props {
    use super::*;
    use proptest::prelude::*;

    /// Strings that are hex text of every case and length, near misses, and anything.
    fn arb_str() -> impl Strategy<Value = String> {
        prop_oneof![
            "[0-9a-f]{0,70}",
            "[0-9A-F]{0,70}",
            "[0-9]{0,12}",
            "[0-9a-fA-F]{0,12}",
            "[0-9a-gx]{0,12}",
            "\\PC{0,20}",
        ]
    }

    proptest! {
        #[test]
        fn any_string_round_trips_exactly(
            v in prop::collection::vec((arb_str(), prop::option::of(arb_str())), 0..12)
        ) {
            for opts in [Options::speed(), Options::balanced(), Options::compression(), inline()] {
                let bytes = qdf_core::to_vec_with(&v, opts).unwrap();
                let back: Vec<(String, Option<String>)> = qdf_core::from_slice(&bytes).unwrap();
                prop_assert_eq!(&back, &v);
                let val: Value = qdf_core::from_slice(&bytes).unwrap();
                let again = qdf_core::to_vec_with(&val, opts).unwrap();
                prop_assert_eq!(&qdf_core::from_slice::<Value>(&again).unwrap(), &val);
                // A session stream: the same strings again are references to hex definitions.
                let mut enc = EncoderSession::new(opts);
                let mut wire = Vec::new();
                enc.encode_frame(&v, &mut wire).unwrap();
                enc.encode_frame(&v, &mut wire).unwrap();
                let mut dec = DecoderSession::new(opts);
                let (a, n) = dec.decode_frame::<Vec<(String, Option<String>)>>(&wire).unwrap().unwrap();
                let (b, m) = dec.decode_frame::<Vec<(String, Option<String>)>>(&wire[n..]).unwrap().unwrap();
                prop_assert_eq!(n + m, wire.len());
                prop_assert_eq!(&a, &v);
                prop_assert_eq!(&b, &v);
            }
        }
    }
}
