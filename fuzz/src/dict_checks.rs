//! The `dictionary_file` target (`docs/SPEC.md` §25): arbitrary dictionary files, and
//! arbitrary message bodies read on a fixed dictionary.
//!
//! Input: the first byte picks the mode. Even: the rest is a dictionary file. It either fails
//! with a typed error at an offset within the input, or it is canonical (its `to_bytes` is
//! the input, its id the hash of it) and a value made of its entries, and maps keyed by its
//! shapes' names, round-trip on it in every tier. Odd: the rest is a body after a header
//! naming [`fixed`] (bit 1 clear) or [`fixed_with_shapes`] (bit 1 set); it decodes on that
//! dictionary to a `Value` (or fails), and whatever decodes re-encodes on it (with and
//! without shaped maps) to bytes that decode to the same `Value`; the same bytes without
//! the dictionary fail with `UnknownDictionary`; the tag walker on the dictionary accepts
//! and refuses as the decoder does.

use qdf_core::{Category, Dictionary, ErrorCode, Features, Options, Value};

/// The dictionary of the odd mode.
pub fn fixed() -> Dictionary {
    Dictionary::from_strs([
        "checkout",
        "payment-service",
        "region",
        "eu-west-1",
        "host-01",
    ])
    .expect("a valid dictionary")
}

/// [`fixed`] with shapes (`docs/SPEC.md` §25.2): ids 1 to 3 are defined before the body.
pub fn fixed_with_shapes() -> Dictionary {
    fixed()
        .with_shapes([vec!["service", "op"], vec!["x", "y"], vec!["region"]])
        .expect("a valid dictionary")
}

/// `opts` with map key-set shapes, so maps can reuse a dictionary's shapes.
fn shaped_maps(opts: Options) -> Options {
    opts.features(opts.features.with(Features::MAP_SHAPE))
}

/// The fuzz target's check.
pub fn dictionary_file(data: &[u8]) {
    match data.split_first() {
        Some((m, rest)) if m & 1 == 0 => file(rest),
        Some((m, rest)) if m & 2 == 0 => message(rest, fixed()),
        Some((_, rest)) => message(rest, fixed_with_shapes()),
        None => {}
    }
}

fn file(bytes: &[u8]) {
    let d = match Dictionary::from_bytes(bytes) {
        Ok(d) => d,
        Err(e) => {
            assert!(e.offset().is_some_and(|o| o <= bytes.len() as u64), "{e}");
            assert!(
                matches!(
                    e.classify(),
                    Category::Syntax | Category::Eof | Category::Data
                ),
                "{e}"
            );
            return;
        }
    };
    assert_eq!(d.to_bytes(), bytes, "not canonical");
    assert_eq!(
        qdf_core::Dictionary::from_bytes(&d.to_bytes())
            .unwrap()
            .id(),
        d.id()
    );
    let v = Value::Array(
        (0..d.len().min(64))
            .map(|i| match d.entry(i).expect("i < len") {
                (b, true) => Value::Str(String::from_utf8(b.to_vec()).expect("UTF-8 entry")),
                (b, false) => Value::Bytes(b.to_vec()),
            })
            .collect(),
    );
    // One map per shape, keyed by its names (a shape may repeat a name: a map may too).
    let maps = Value::Array(
        (1..=d.shape_count().min(64))
            .map(|id| {
                let names = d.shape(id).expect("id <= shape_count");
                let mut seen = std::collections::HashSet::new();
                Value::Map(
                    names
                        .into_iter()
                        .filter(|n| seen.insert(*n))
                        .enumerate()
                        .map(|(i, n)| (Value::Str(n.to_string()), Value::U64(i as u64)))
                        .collect(),
                )
            })
            .collect(),
    );
    for opts in [
        Options::speed(),
        Options::balanced(),
        Options::compression(),
        shaped_maps(Options::balanced()),
    ] {
        for v in [&v, &maps] {
            let msg = qdf_core::to_vec_with_dictionary(v, opts, &d).expect("encodes");
            let back: Value =
                qdf_core::from_slice_with_dictionary(&msg, opts, &d).expect("decodes");
            assert_eq!(&back, v);
        }
    }
}

fn message(body: &[u8], d: Dictionary) {
    let mut msg = b"QDF\x01\x21".to_vec();
    msg.extend_from_slice(&d.id().to_bytes());
    msg.extend_from_slice(body);
    let opts = Options::balanced().max_output(1 << 20);
    let without = qdf_core::from_slice_with::<Value>(&msg, opts).unwrap_err();
    assert!(
        matches!(without.code(), ErrorCode::UnknownDictionary { .. }),
        "{without}"
    );
    let decoded = qdf_core::from_slice_with_dictionary::<Value>(&msg, opts, &d);
    // The tag walker on the same dictionary gives the decoder's verdict, at the same offset.
    let walked = qdf_core::inspect::message_with_dictionary(&msg, &opts, Some(&d), &mut |_| {});
    match (&walked, &decoded) {
        (Ok(()), Ok(_)) => {}
        (Err(w), Err(e)) => {
            assert_eq!(w.error.code(), e.code(), "inspect and decoder disagree");
            assert_eq!(w.error.offset(), e.offset(), "inspect and decoder disagree");
        }
        _ => panic!("inspect {walked:?}, decoder {decoded:?}"),
    }
    let Ok(v) = decoded else {
        return;
    };
    for enc in [opts, shaped_maps(opts)] {
        let again = qdf_core::to_vec_with_dictionary(&v, enc, &d).expect("re-encodes");
        let back: Value = qdf_core::from_slice_with_dictionary(&again, opts, &d).expect("decodes");
        assert_eq!(back, v);
    }
}
