//! Strict decoding: every non-smallest form, bad tag and overrun is rejected with the right
//! code, category and offset.

use crate::{Category, ErrorCode, Value};

fn msg(body: &str) -> Vec<u8> {
    let mut m = b"QDF\x01\x00".to_vec();
    m.extend(
        body.split_whitespace()
            .map(|b| u8::from_str_radix(b, 16).unwrap()),
    );
    m
}

#[track_caller]
fn err(body: &str) -> crate::Error {
    crate::from_slice::<Value>(&msg(body)).unwrap_err()
}

#[test]
fn non_minimal_forms_are_syntax_errors() {
    for body in [
        "c3 05",
        "c4 ff 00",
        "c5 ff ff 00 00",
        "c6 ff ff ff ff 00 00 00 00",
        "c7 05",
        "c7 f8",
        "c8 80 ff",
        "c8 05 00",
        "c9 00 80 ff ff",
        "ca 00 00 00 80 ff ff ff ff",
        "cd 01 61",
        "ce 01 00 61",
        "cf 01 00 00 00 61",
        "d1 01 00 61",
        "d2 01 00 00 00 61",
        "d3 01 00 01",
        "d4 01 00 00 00 01",
        "d6 00 00",
        "d7 00 00 00 00",
        "f2 03 01 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00",
        "f2 04 ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff",
        "f2 04 01 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00",
        "f2 05 05",
        "f2 05 81 61",
    ] {
        let e = err(body);
        assert!(
            matches!(e.code(), ErrorCode::NonMinimal(_)),
            "{body}: {e:?}"
        );
        assert_eq!(e.classify(), Category::Syntax);
        assert_eq!(e.offset(), Some(5), "{body}");
    }
}

#[test]
fn non_minimal_varint_offset_points_at_the_varint() {
    let e = err("f2 02 80 00");
    assert_eq!(e.code(), &ErrorCode::NonMinimal("a uvarint"));
    assert_eq!(e.offset(), Some(7));
}

#[test]
fn bad_tags_and_payloads() {
    assert!(matches!(
        err("f2 0a").code(),
        ErrorCode::BadTag { found: 0x0a, .. }
    ));
    assert!(matches!(
        err("fd").code(),
        ErrorCode::BadTag { found: 0xfd, .. }
    ));
    assert!(matches!(
        err("ff").code(),
        ErrorCode::BadTag { found: 0xff, .. }
    ));
    // FE is an entropy-coded block: a lone tag is a truncated one.
    assert!(err("fe").is_eof());
    let e = err("83 61 ff 62");
    assert_eq!(e.code(), &ErrorCode::InvalidUtf8);
    assert_eq!(e.offset(), Some(7));
    assert_eq!(
        err("f2 02 80 b0 03").code(),
        &ErrorCode::InvalidChar(0xD800)
    );
    assert!(matches!(
        err("f2 08 81 41 05").code(),
        ErrorCode::BadTag { found: 0x05, .. }
    ));
    assert!(matches!(
        err("f2 09 81 41 a0").code(),
        ErrorCode::BadTag { found: 0xa0, .. }
    ));
}

#[test]
fn trailing_bytes_and_take() {
    let e = err("01 02");
    assert_eq!(e.code(), &ErrorCode::TrailingBytes(1));
    assert_eq!(e.offset(), Some(6));
    let m = msg("01 02");
    let (v, rest) = crate::take_from_slice::<u8>(&m).unwrap();
    assert_eq!((v, rest), (1, &[2u8][..]));
}

#[test]
fn huge_counts_fail_before_allocating() {
    for body in [
        "d4 ff ff ff ff",
        "d7 ff ff ff ff 01",
        "cf ff ff ff ff",
        "d2 00 00 01 00",
    ] {
        let e = err(body);
        assert_eq!(e.classify(), Category::Eof, "{body}: {e:?}");
    }
    // A map needs two bytes per entry: 2 entries need 4 bytes, 3 remain.
    assert!(matches!(
        err("d5 02 01 02 03").code(),
        ErrorCode::LengthOverrun {
            len: 4,
            remaining: 3
        }
    ));
}

#[test]
fn output_budget_is_enforced() {
    let bytes = crate::to_vec(&"z".repeat(100)).unwrap();
    let opts = crate::Options::default().max_output(99);
    let e = crate::from_slice_with::<String>(&bytes, opts).unwrap_err();
    assert_eq!(
        e.code(),
        &ErrorCode::OutputLimit {
            needed: 100,
            limit: 99
        }
    );
    assert_eq!(e.classify(), Category::Limit);
    let ok = crate::Options::default().max_output(100);
    assert!(crate::from_slice_with::<String>(&bytes, ok).is_ok());
}

#[test]
fn decode_body_has_no_header_and_rejects_trailing() {
    let v: (u8, bool) =
        crate::de::decode_body(&[0xA2, 0x01, 0xC2], &crate::Options::speed()).unwrap();
    assert_eq!(v, (1, true));
    let e = crate::de::decode_body::<u8>(&[0x01, 0x02], &crate::Options::speed()).unwrap_err();
    assert_eq!(e.code(), &ErrorCode::TrailingBytes(1));
    assert_eq!(e.offset(), Some(1));
}

#[test]
fn type_mismatch_is_data_with_offset() {
    let m = msg("a2 01 81 61");
    let e = crate::from_slice::<(u8, u8)>(&m).unwrap_err();
    assert_eq!(e.classify(), Category::Data);
    assert_eq!(e.offset(), Some(7));
    let extra = crate::from_slice::<(u8,)>(&msg("a2 01 02")).unwrap_err();
    assert_eq!(extra.classify(), Category::Data);
}

#[test]
fn timestamps_decode_to_value_and_typed_pairs() {
    let m = msg("f3 03 e8 07");
    let v: Value = crate::from_slice(&m).unwrap();
    assert_eq!(
        v,
        Value::Timestamp {
            secs: -2,
            nanos: 1000
        }
    );
    assert_eq!(crate::to_vec_with(&v, crate::Options::speed()).unwrap(), m);
    assert_eq!(crate::from_slice::<(i64, u32)>(&m).unwrap(), (-2, 1000));
    let t = msg("f3 80 c4 9f d5 0c 05");
    let st: std::time::SystemTime = crate::from_slice(&t).unwrap();
    assert_eq!(
        st.duration_since(std::time::UNIX_EPOCH).unwrap(),
        std::time::Duration::new(1_700_000_000, 5)
    );
    let bad = Value::Timestamp {
        secs: 0,
        nanos: 1_000_000_000,
    };
    assert_eq!(crate::to_vec(&bad).unwrap_err().classify(), Category::Data);
    // Inside a Some wrapper position it needs none: F3 is not C0/F2.
    assert_eq!(Value::some(v.clone()), v);
}

/// The typed fast path (`read_short_str`, used by `String`, `&str` and struct field names)
/// keeps every check of `read_text`: minimal str8 length, bounds, UTF-8 with its offset.
#[test]
fn short_string_fast_path_keeps_checks() {
    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct S {
        a: u8,
    }
    let typed = |body: &str| crate::from_slice::<String>(&msg(body)).unwrap_err();
    let e = typed("83 61 ff 62");
    assert_eq!((e.code(), e.offset()), (&ErrorCode::InvalidUtf8, Some(7)));
    let e = typed("cd 05 61 61 61 61 61");
    assert_eq!(e.code(), &ErrorCode::NonMinimal("a str8 length"));
    assert_eq!(e.offset(), Some(5));
    assert_eq!(typed("83 61 62").classify(), Category::Eof);
    // A field name with invalid UTF-8, read through deserialize_identifier.
    let e = crate::from_slice::<S>(&msg("d5 01 81 ff 01")).unwrap_err();
    assert_eq!((e.code(), e.offset()), (&ErrorCode::InvalidUtf8, Some(8)));
    // str8 of 32 bytes is the smallest str8 and decodes.
    let mut body = String::from("cd 20");
    body.push_str(&" 61".repeat(32));
    let s = crate::from_slice::<String>(&msg(&body)).unwrap();
    assert_eq!(s, "a".repeat(32));
}

/// The fixstr fast path (`peek_str`: field names and short values) charges exactly one unit
/// per byte, like every other string read: map entry 1 + name 1 + value 3 = 5 units.
#[test]
fn fixstr_fast_path_charges_the_budget_exactly() {
    #[derive(Debug, PartialEq, serde::Deserialize)]
    struct S {
        a: String,
    }
    let bytes = msg("d5 01 81 61 83 78 79 7a");
    let with = |max| crate::from_slice_with::<S>(&bytes, crate::Options::default().max_output(max));
    assert_eq!(with(5).unwrap(), S { a: "xyz".into() });
    // Over by the value: detected after its bytes (offset 13 = header 5 + body 8).
    let e = with(4).unwrap_err();
    assert_eq!(
        (e.code(), e.offset()),
        (
            &ErrorCode::OutputLimit {
                needed: 5,
                limit: 4
            },
            Some(13)
        )
    );
    // Over by the field name: detected after the name (offset 9).
    let e = with(1).unwrap_err();
    assert_eq!(
        (e.code(), e.offset()),
        (
            &ErrorCode::OutputLimit {
                needed: 2,
                limit: 1
            },
            Some(9)
        )
    );
}

/// The str8 fast path of typed string values (`peek_str::<true>`, `String` and `&str`
/// targets) is as strict as the tag-by-tag path: exact budget charge and offset, a str8 that a
/// fixstr could hold is `NonMinimal`, invalid UTF-8 is reported at its byte, and every cut is
/// `Eof`.
#[test]
fn str8_fast_path_is_strict_and_charges_exactly() {
    let bytes = msg(&format!("cd 20{}", " 61".repeat(32)));
    let owned =
        |max| crate::from_slice_with::<String>(&bytes, crate::Options::default().max_output(max));
    assert_eq!(owned(32).unwrap(), "a".repeat(32));
    assert_eq!(crate::from_slice::<&str>(&bytes).unwrap(), "a".repeat(32));
    // Over by the value: detected after its bytes (offset 39 = header 5 + 2 + 32).
    let e = owned(31).unwrap_err();
    assert_eq!(
        (e.code(), e.offset()),
        (
            &ErrorCode::OutputLimit {
                needed: 32,
                limit: 31
            },
            Some(39)
        )
    );
    let short = msg(&format!("cd 1f{}", " 61".repeat(31)));
    let e = crate::from_slice::<String>(&short).unwrap_err();
    assert!(matches!(e.code(), ErrorCode::NonMinimal(_)), "{e:?}");
    assert_eq!((e.classify(), e.offset()), (Category::Syntax, Some(5)));
    let e = crate::from_slice::<&str>(&short).unwrap_err();
    assert!(matches!(e.code(), ErrorCode::NonMinimal(_)), "{e:?}");
    let mut bad = bytes.clone();
    bad[5 + 2 + 3] = 0xff;
    for e in [
        crate::from_slice::<String>(&bad).unwrap_err(),
        crate::from_slice::<&str>(&bad).unwrap_err(),
    ] {
        assert_eq!((e.code(), e.offset()), (&ErrorCode::InvalidUtf8, Some(10)));
    }
    for cut in 5..bytes.len() {
        let e = crate::from_slice::<String>(&bytes[..cut]).unwrap_err();
        assert_eq!(e.classify(), Category::Eof, "cut at {cut}: {e:?}");
        let e = crate::from_slice::<&str>(&bytes[..cut]).unwrap_err();
        assert_eq!(e.classify(), Category::Eof, "cut at {cut}: {e:?}");
    }
}

/// A plain string between Dense references resets `lastID` (SPEC §14), also when the Dense
/// state only hears of it later: at the next Dense tag, or when the state goes back to a
/// session at the end of the body.
#[test]
fn plain_string_resets_last_id_before_the_next_dense_tag() {
    let opts = crate::Options::balanced();
    // Control: E0 defines "host" (lastID = 0), E8 repeats it.
    let v: (String, String) = crate::from_slice(&msg("a2 e0 04 68 6f 73 74 e8")).unwrap();
    assert_eq!(v, ("host".into(), "host".into()));
    // "ab" (plain) in between: E8 has no lastID to repeat.
    let e = crate::from_slice::<(String, String, String)>(&msg("a3 e0 04 68 6f 73 74 82 61 62 e8"))
        .unwrap_err();
    assert_eq!(e.classify(), Category::Syntax, "{e:?}");
    // Across bodies of a session: the plain string ends body 1, E8 starts body 2.
    let body1 = [0xA2, 0xE0, 4, b'h', b'o', b's', b't', 0x82, b'a', b'b'];
    let mut state = None;
    let v: (String, String) = super::decode_body_with_state(&body1, &opts, &mut state).unwrap();
    assert_eq!(v, ("host".into(), "ab".into()));
    let e = super::decode_body_with_state::<String>(&[0xE8], &opts, &mut state).unwrap_err();
    assert_eq!(e.classify(), Category::Syntax, "{e:?}");
    // Control for the session: with "ab" first, "host" is last and E8 repeats it.
    let body1 = [0xA2, 0x82, b'a', b'b', 0xE0, 4, b'h', b'o', b's', b't'];
    let mut state = None;
    let _: (String, String) = super::decode_body_with_state(&body1, &opts, &mut state).unwrap();
    let v: String = super::decode_body_with_state(&[0xE8], &opts, &mut state).unwrap();
    assert_eq!(v, "host");
}

/// The typed number fast paths (`deserialize_num`: fixint, f64, u64 read with their tag in one
/// step) keep the checks of `read_num`: a u64 that fits 32 bits is not minimal, a cut payload
/// is Eof, and values come back exactly (floats by bits).
#[test]
fn typed_number_fast_paths_keep_checks() {
    let e = crate::from_slice::<u64>(&msg("c6 ff ff ff ff 00 00 00 00")).unwrap_err();
    assert_eq!(e.code(), &ErrorCode::NonMinimal("a u64 holding a u32"));
    assert_eq!(e.offset(), Some(5));
    let e = crate::from_slice::<i64>(&msg("c6 ff ff ff ff 00 00 00 00")).unwrap_err();
    assert_eq!(e.code(), &ErrorCode::NonMinimal("a u64 holding a u32"));
    for cut in [
        "c6 00 00 00 00 01 00 00",
        "cc 00 00 00 00 00 00 f0",
        "cc",
        "c6",
    ] {
        let e = crate::from_slice::<u64>(&msg(cut)).unwrap_err();
        assert_eq!(e.classify(), Category::Eof, "{cut}: {e:?}");
        let e = crate::from_slice::<f64>(&msg(cut)).unwrap_err();
        assert_eq!(e.classify(), Category::Eof, "{cut}: {e:?}");
    }
    let v: u64 = crate::from_slice(&msg("c6 00 00 00 00 01 00 00 00")).unwrap();
    assert_eq!(v, 1 << 32);
    let v: (u64, i64, u8) = crate::from_slice(&msg(
        "a3 c6 ff ff ff ff ff ff ff ff c6 00 00 00 00 01 00 00 00 7f",
    ))
    .unwrap();
    assert_eq!(v, (u64::MAX, 1 << 32, 127));
    // u64::MAX into an i64 is out of range (Data), not wrapped.
    let e = crate::from_slice::<i64>(&msg("c6 ff ff ff ff ff ff ff ff")).unwrap_err();
    assert_eq!(e.classify(), Category::Data);
    let nan = f64::from_bits(0xFFF8_0000_0000_0001);
    for x in [-0.0f64, nan, f64::MIN_POSITIVE / 2.0, 1.5] {
        let bytes = crate::to_vec(&x).unwrap();
        let back: f64 = crate::from_slice(&bytes).unwrap();
        assert_eq!(back.to_bits(), x.to_bits());
    }
}

/// `deserialize_string` builds the `String` itself for fixstr and str8 (`owned_str`, with its
/// `unsafe` `set_len` and `from_utf8_unchecked`): every length through its copy classes
/// decodes exactly, with capacity equal to the length; multi-byte UTF-8 too; a visitor that
/// only implements `visit_str` still gets the text.
#[test]
fn owned_strings_decode_exactly() {
    for n in 0..=80usize {
        let s: String = (0..n).map(|i| char::from(b'!' + (i % 90) as u8)).collect();
        let bytes = crate::to_vec(&s).unwrap();
        let back: String = crate::from_slice(&bytes).unwrap();
        assert_eq!((back.as_str(), back.capacity()), (s.as_str(), n));
    }
    let multi = "h\u{e9}llo w\u{f6}rld \u{1f600} \u{4e16}\u{754c}";
    let back: String = crate::from_slice(&crate::to_vec(&multi).unwrap()).unwrap();
    assert_eq!(back, multi);

    struct OnlyStr;
    impl<'de> serde::de::Visitor<'de> for OnlyStr {
        type Value = usize;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a string")
        }
        fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<usize, E> {
            Ok(v.len())
        }
    }
    struct Len(usize);
    impl<'de> serde::Deserialize<'de> for Len {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            d.deserialize_string(OnlyStr).map(Len)
        }
    }
    let Len(n) = crate::from_slice(&crate::to_vec(&"abc").unwrap()).unwrap();
    assert_eq!(n, 3);
    let Len(n) = crate::from_slice(&crate::to_vec(&"x".repeat(40)).unwrap()).unwrap();
    assert_eq!(n, 40);
}

/// A variant name held by a Dense bytes entry is a name when it is UTF-8 (SPEC §14) and a
/// Data error otherwise, the same for `Value`, `IgnoredAny` and a typed enum (the skip path
/// accepted a non-UTF-8 name that `Value` refused).
#[test]
fn dense_bytes_entry_as_variant_name() {
    #[derive(serde::Deserialize, Debug, PartialEq)]
    enum One {
        A,
    }
    let ok = msg("f2 06 e2 01 41");
    assert_eq!(crate::from_slice::<Value>(&ok).unwrap().to_string(), "A");
    assert_eq!(crate::from_slice::<One>(&ok).unwrap(), One::A);
    crate::from_slice::<serde::de::IgnoredAny>(&ok).unwrap();
    // The name as the second use of the entry (E8), and as a newtype variant's name.
    type Skip = serde::de::IgnoredAny;
    let one = |b: &[u8]| crate::from_slice::<One>(b).map(drop);
    let pair = |b: &[u8]| crate::from_slice::<(Skip, One)>(b).map(drop);
    type Typed<'a> = &'a dyn Fn(&[u8]) -> crate::Result<()>;
    let cases: [(&str, u64, Typed); 3] = [
        ("f2 06 e2 01 81", 7, &one),
        ("a2 e2 01 81 f2 06 e8", 11, &pair),
        ("f2 07 e2 01 ff 01", 7, &one),
    ];
    for (body, at, typed) in cases {
        let bad = msg(body);
        for e in [
            crate::from_slice::<Value>(&bad).unwrap_err(),
            crate::from_slice::<Skip>(&bad).unwrap_err(),
            typed(&bad).unwrap_err(),
        ] {
            assert_eq!(
                (e.code(), e.offset()),
                (
                    &ErrorCode::TypeMismatch {
                        expected: "a variant name".into(),
                        found: "a byte string that is not UTF-8".into()
                    },
                    Some(at)
                ),
                "{body}"
            );
        }
    }
}

/// A shape's names are string entries (SPEC §15): a bytes entry as a declared name is a
/// TypeMismatch for every target, while the same entry as a plain map key is a key (SPEC §14).
#[test]
fn dense_bytes_entry_as_shape_name_is_refused() {
    #[derive(serde::Deserialize, Debug, PartialEq)]
    struct S {
        abc: u8,
    }
    let key = msg("d5 01 e2 03 61 62 63 01");
    assert_eq!(crate::from_slice::<S>(&key).unwrap(), S { abc: 1 });
    assert_eq!(
        crate::from_slice::<Value>(&key).unwrap().to_string(),
        r#"{b"abc": 1}"#
    );
    let shape = msg("ec 00 01 e2 03 61 62 63 01");
    for e in [
        crate::from_slice::<S>(&shape).unwrap_err(),
        crate::from_slice::<Value>(&shape).unwrap_err(),
        crate::from_slice::<serde::de::IgnoredAny>(&shape).unwrap_err(),
    ] {
        assert_eq!(
            (e.code(), e.offset()),
            (
                &ErrorCode::TypeMismatch {
                    expected: "a field name".into(),
                    found: "a byte string".into()
                },
                Some(12)
            )
        );
    }
}
