//! `Options::deny_duplicate_keys` on the encoder: whatever the encoder accepts, a decoder with
//! the same options accepts. A map whose key repeats is refused at encode time under the option, in every tier and inside columnar
//! containers; keys compare as the decoder compares them (by value, whatever the width or
//! the string/byte-string form).

use std::collections::BTreeMap;

use qdf_core::{Category, ErrorCode, Features, Options, Value};
use serde::ser::{SerializeMap, SerializeStruct};
use serde::{Serialize, Serializer};

fn tiers() -> [(&'static str, Options); 4] {
    [
        ("speed", Options::speed()),
        ("balanced", Options::balanced()),
        ("compression", Options::compression()),
        (
            "map-shape",
            Options::balanced().features(Features::BALANCED.with(Features::MAP_SHAPE)),
        ),
    ]
}

/// A map written entry by entry, keys of any `Serialize` type (repeats allowed).
struct Entries<K, V>(Vec<(K, V)>);

impl<K: Serialize, V: Serialize> Serialize for Entries<K, V> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

/// A struct whose hand-written `Serialize` names field `a` twice.
#[derive(Clone)]
struct TwiceA(u32);

impl Serialize for TwiceA {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("TwiceA", 3)?;
        st.serialize_field("a", &self.0)?;
        st.serialize_field("b", &1u8)?;
        st.serialize_field("a", &2u8)?;
        st.end()
    }
}

fn assert_refused(e: qdf_core::Error, key: &str, what: &str) {
    assert_eq!(e.classify(), Category::Data, "{what}: {e}");
    assert!(
        matches!(e.code(), ErrorCode::TypeMismatch { .. }),
        "{what}: {e:?}"
    );
    let msg = e.to_string();
    assert!(msg.contains("deny_duplicate_keys"), "{what}: {msg}");
    assert!(msg.contains(key), "{what}: {key} not in {msg}");
}

#[test]
fn repeated_string_key_is_refused_by_the_encoder_and_decoder_alike() {
    let dup = Entries(vec![("a", 1u8), ("b", 2), ("a", 3)]);
    for (tier, opts) in tiers() {
        let strict = opts.deny_duplicate_keys(true);
        let e = qdf_core::to_vec_with(&dup, strict).unwrap_err();
        assert_refused(e, "\"a\"", tier);
        // Without the option the encoder writes it, and a strict decoder refuses it.
        let b = qdf_core::to_vec_with(&dup, opts).unwrap();
        let back: Value = qdf_core::from_slice_with(&b, opts).unwrap();
        assert_eq!(back.as_map().unwrap().len(), 3, "{tier}");
        assert!(
            qdf_core::from_slice_with::<BTreeMap<String, u8>>(&b, strict).is_err(),
            "{tier}"
        );
    }
}

#[test]
fn unique_keys_round_trip_under_the_option() {
    let ok = Entries(vec![("a", 1u8), ("b", 2), ("c", 3)]);
    for (tier, opts) in tiers() {
        let strict = opts.deny_duplicate_keys(true);
        let b = qdf_core::to_vec_with(&ok, strict).unwrap();
        // The option changes no byte of a map it accepts.
        assert_eq!(b, qdf_core::to_vec_with(&ok, opts).unwrap(), "{tier}");
        let back: BTreeMap<String, u8> = qdf_core::from_slice_with(&b, strict).unwrap();
        assert_eq!(
            back,
            BTreeMap::from([("a".into(), 1), ("b".into(), 2), ("c".into(), 3)]),
            "{tier}"
        );
    }
}

#[test]
fn keys_compare_by_value_as_the_decoder_compares_them() {
    for (tier, opts) in tiers() {
        let strict = opts.deny_duplicate_keys(true);
        // One integer at two widths.
        let ints = Entries(vec![(Value::U64(7), 0u8), (Value::from(7u8), 1)]);
        let e = qdf_core::to_vec_with(&ints, strict).unwrap_err();
        assert_refused(e, "7", tier);
        // A string and a byte string with the same bytes.
        let mixed = Entries(vec![
            (Value::Str("k".into()), 0u8),
            (Value::Bytes(b"k".to_vec()), 1),
        ]);
        let e = qdf_core::to_vec_with(&mixed, strict).unwrap_err();
        assert_refused(e, "\"k\"", tier);
        // Tuples as keys, equal element by element.
        let tuples = Entries(vec![((1u8, "x"), 0u8), ((1u8, "y"), 1), ((1u8, "x"), 2)]);
        assert!(qdf_core::to_vec_with(&tuples, strict).is_err(), "{tier}");
        // Floats compare by bits: 0.0 and -0.0 are two keys.
        let zeros = Entries(vec![(0.0f64, 0u8), (-0.0f64, 1)]);
        let b = qdf_core::to_vec_with(&zeros, strict).unwrap();
        let back: Value = qdf_core::from_slice_with(&b, strict).unwrap();
        assert_eq!(back.as_map().unwrap().len(), 2, "{tier}");
    }
}

#[test]
fn nested_maps_are_checked_each_on_its_own() {
    // The same key in two sibling maps, and in a map and its parent, is no repeat.
    let inner = Entries(vec![("a", 1u8)]);
    let outer = Entries(vec![("a", Entries(vec![("a", 1u8)])), ("b", inner)]);
    for (tier, opts) in tiers() {
        let strict = opts.deny_duplicate_keys(true);
        let b = qdf_core::to_vec_with(&outer, strict).unwrap();
        let back: Value = qdf_core::from_slice_with(&b, strict).unwrap();
        assert_eq!(back.as_map().unwrap().len(), 2, "{tier}");
        // A repeat deep inside is found.
        let deep = Entries(vec![("a", Entries(vec![("x", 1u8), ("x", 2)]))]);
        let e = qdf_core::to_vec_with(&deep, strict).unwrap_err();
        assert_refused(e, "\"x\"", tier);
    }
}

/// Struct field names are not checked by the encoder (documented): a derived `Serialize`
/// never repeats one, and a derived `Deserialize` refuses a hand-written repeat whatever the
/// options, so the check would only tax every field.
#[test]
fn a_repeated_struct_field_is_left_to_serde() {
    #[derive(serde::Deserialize, Debug)]
    #[allow(dead_code)]
    struct A {
        a: u32,
        b: u8,
    }
    for (tier, opts) in tiers() {
        let strict = opts.deny_duplicate_keys(true);
        let one = qdf_core::to_vec_with(&TwiceA(5), strict).unwrap();
        let e = qdf_core::from_slice_with::<A>(&one, opts).unwrap_err();
        assert!(e.to_string().contains("duplicate field"), "{tier}: {e}");
        let rows = qdf_core::to_vec_with(&vec![TwiceA(5); 40], strict).unwrap();
        let e = qdf_core::from_slice_with::<Vec<A>>(&rows, opts).unwrap_err();
        assert!(e.to_string().contains("duplicate field"), "{tier}: {e}");
    }
}

#[test]
fn columnar_rows_holding_maps_are_checked() {
    #[derive(Serialize)]
    struct Row {
        id: u32,
        attrs: Entries<&'static str, u8>,
    }
    for (tier, opts) in tiers() {
        let strict = opts.deny_duplicate_keys(true);
        let mut rows: Vec<Row> = (0..40)
            .map(|id| Row {
                id,
                attrs: Entries(vec![("k", 1), ("l", 2)]),
            })
            .collect();
        let b = qdf_core::to_vec_with(&rows, strict).unwrap();
        // The same bytes as without the option (columnar in Balanced and Compression).
        assert_eq!(b, qdf_core::to_vec_with(&rows, opts).unwrap(), "{tier}");
        let back: Value = qdf_core::from_slice_with(&b, strict).unwrap();
        assert_eq!(back.as_array().unwrap().len(), 40, "{tier}");
        rows[33].attrs = Entries(vec![("k", 1), ("k", 2)]);
        let e = qdf_core::to_vec_with(&rows, strict).unwrap_err();
        assert_refused(e, "\"k\"", tier);
    }
}

#[test]
fn sessions_refuse_a_repeated_key_and_stay_usable() {
    for (tier, opts) in tiers() {
        let strict = opts.deny_duplicate_keys(true);
        let mut enc = qdf_core::EncoderSession::new(strict);
        let mut dec = qdf_core::DecoderSession::new(strict);
        let good = Entries(vec![("a", 1u8), ("b", 2)]);
        let bad = Entries(vec![("a", 1u8), ("a", 2)]);
        let mut wire = Vec::new();
        enc.encode_message(&good, &mut wire).unwrap();
        let first = wire.len();
        assert!(enc.encode_message(&bad, &mut wire).is_err(), "{tier}");
        assert_eq!(
            wire.len(),
            first,
            "{tier}: a refused message leaves no bytes"
        );
        enc.encode_message(&good, &mut wire).unwrap();
        for msg in [&wire[..first], &wire[first..]] {
            let v: BTreeMap<String, u8> = dec.decode_message(msg).unwrap();
            assert_eq!(
                v,
                BTreeMap::from([("a".into(), 1), ("b".into(), 2)]),
                "{tier}"
            );
        }
    }
}
