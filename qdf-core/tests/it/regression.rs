//! Regression tests for bugs found by black-box testing (helper `fresh`).

use qdf_core::{Options, Value};
use serde::Deserialize;

fn msg(flags: u8, body: &[u8]) -> Vec<u8> {
    let mut v = vec![0x51, 0x44, 0x46, 0x01, flags];
    v.extend_from_slice(body);
    v
}

#[derive(Deserialize, Debug, PartialEq)]
enum E {
    A,
    B(u8),
}

/// SPEC §9: a variant name is a string. An inline byte string (`D0`–`D2`) in its place was
/// accepted, so a Speed body decoded into a `Value` that re-encoded to different bytes
/// (`f2 06 d0 01 41` → `A` → `f2 06 81 41`), breaking §12's one-encoding rule.
#[test]
fn variant_name_as_inline_byte_string_is_rejected() {
    for body in [
        &[0xf2, 0x06, 0xd0, 0x01, 0x41][..], // unit variant, bin8 name
        &[0xf2, 0x07, 0xd0, 0x01, 0x42, 0x05][..], // newtype variant, bin8 name
        &[0xf2, 0x06, 0xd1, 0x01, 0x00, 0x41][..], // bin16 (also non-minimal)
        &[0xf2, 0x08, 0xd0, 0x01, 0x42, 0xa1, 0x05][..], // tuple variant
        &[0xf2, 0x09, 0xd0, 0x01, 0x42, 0xd5, 0x00][..], // struct variant
    ] {
        let bytes = msg(0, body);
        let v = qdf_core::from_slice_with::<Value>(&bytes, Options::speed());
        // Rejected like any other non-string name (an integer: TypeMismatch, Data).
        assert!(v.is_err(), "{body:02x?} decoded as {v:?}");
        let e = qdf_core::from_slice_with::<E>(&bytes, Options::speed());
        assert!(e.is_err(), "{body:02x?} decoded as {e:?}");
    }
    // The string forms still decode.
    let ok = msg(0, &[0xf2, 0x07, 0x81, 0x42, 0x05]);
    assert_eq!(qdf_core::from_slice::<E>(&ok).unwrap(), E::B(5));
}

/// A hand-written `Serialize` that announces the wrong field count to `serialize_struct`.
/// SPEC §7 says a wrong length is repaired (the header is rewritten); the Speed tier does so,
/// but under shape interning (Balanced, Compression) the declaration `EC 00 uvarint(N)` is
/// written up front and the encode fails with "struct Lie announced 5 fields to
/// serialize_struct but serialized 2", so the same value encodes in one tier and not another.
struct Lie;

impl serde::Serialize for Lie {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("Lie", 5)?;
        st.serialize_field("a", &1u8)?;
        st.serialize_field("b", &2u8)?;
        st.end()
    }
}

#[test]
fn struct_with_wrong_announced_len_encodes_in_speed() {
    let b = qdf_core::to_vec_with(&Lie, Options::speed()).unwrap();
    assert_eq!(
        qdf_core::from_slice::<Value>(&b).unwrap().to_string(),
        r#"{"a": 1, "b": 2}"#
    );
}

#[test]
fn struct_with_wrong_announced_len_encodes_in_every_tier() {
    for o in [Options::balanced(), Options::compression()] {
        let b = qdf_core::to_vec_with(&Lie, o).expect("encodes as in the Speed tier");
        assert_eq!(
            qdf_core::from_slice_with::<Value>(&b, o)
                .unwrap()
                .to_string(),
            r#"{"a": 1, "b": 2}"#
        );
    }
}

/// A 70 KB message used to decode into 2^24 packed elements (1 GB as `Value`): a zero-width
/// FOR body of n = 2^24 u64 costs 8 input bytes, and a 70 000-byte padding `bin` raised the
/// default budget (256 × input) above n. Packed elements are now charged 8 budget units each,
/// so the same bytes are refused with a Limit error before anything is allocated.
#[test]
fn zero_width_packed_body_cannot_amplify_past_the_budget() {
    let mut msg = b"QDF\x01\x01".to_vec();
    msg.push(0xA2); // fixarr, 2 elements
    msg.extend([0xE5, 0x03, 0x00, 0x00, 0x80, 0x80, 0x80, 0x08]); // FOR u64, width 0, n = 2^24
    msg.push(0xD2); // bin32
    msg.extend(70_000u32.to_le_bytes());
    msg.extend(std::iter::repeat_n(0u8, 70_000));
    let e = qdf_core::from_slice::<qdf_core::Value>(&msg).unwrap_err();
    assert_eq!(e.classify(), qdf_core::Category::Limit, "{e}");
    let e = qdf_core::from_slice::<serde::de::IgnoredAny>(&msg).unwrap_err();
    assert_eq!(e.classify(), qdf_core::Category::Limit, "{e}");
    // With a budget that covers 8 bytes per element the same body decodes exactly.
    let opts = qdf_core::Options::default().max_output((8 << 24) + 100_000);
    let (zeros, pad): (Vec<u64>, serde_bytes::ByteBuf) =
        qdf_core::from_slice_with(&msg, opts).unwrap();
    assert_eq!(zeros.len(), 1 << 24);
    assert!(zeros.iter().all(|&z| z == 0));
    assert_eq!(pad.len(), 70_000);
}

/// A hand-written `Serialize` that writes a map key and no value used to encode bytes that no
/// decoder accepts; it is now an encode error (`Data`) in every tier, and so is a value
/// without a key.
#[test]
fn map_key_without_value_is_an_encode_error() {
    use serde::ser::{Serialize, SerializeMap, Serializer};
    struct KeyOnly;
    impl Serialize for KeyOnly {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut m = s.serialize_map(Some(1))?;
            m.serialize_key("k")?;
            m.end()
        }
    }
    struct ValueOnly;
    impl Serialize for ValueOnly {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut m = s.serialize_map(Some(1))?;
            m.serialize_value(&1u8)?;
            m.end()
        }
    }
    for opts in [
        Options::speed(),
        Options::balanced(),
        Options::compression(),
    ] {
        let e = qdf_core::to_vec_with(&KeyOnly, opts).unwrap_err();
        assert_eq!(e.classify(), qdf_core::Category::Data, "{e}");
        let e = qdf_core::to_vec_with(&ValueOnly, opts).unwrap_err();
        assert_eq!(e.classify(), qdf_core::Category::Data, "{e}");
    }
    // The ordinary path still works: a map entry through serialize_entry.
    let m: std::collections::BTreeMap<&str, u8> = [("k", 1)].into();
    let bytes = qdf_core::to_vec(&m).unwrap();
    let back: std::collections::BTreeMap<String, u8> = qdf_core::from_slice(&bytes).unwrap();
    assert_eq!(back.get("k"), Some(&1));
}

/// An `EF` declaring no column (`K = 0`) used to decode: 11 bytes stood for 131 072 empty
/// rows (4 MB as `Value`, four times the 1 MiB default budget). The encoder never writes one
/// (a batch without a column stays in row mode), so it is now rejected like an `F7` without a
/// transposed column (Syntax).
#[test]
fn columnar_container_with_no_column_is_rejected() {
    let bomb = msg(0x03, &[0xEF, 0x80, 0x80, 0x08, 0x00, 0x00]); // M = 131072, K = 0
    let e = qdf_core::from_slice::<Value>(&bomb).unwrap_err();
    assert_eq!(e.classify(), qdf_core::Category::Syntax, "{e}");
    let e = qdf_core::from_slice::<serde::de::IgnoredAny>(&bomb).unwrap_err();
    assert_eq!(e.classify(), qdf_core::Category::Syntax, "{e}");
    let small = msg(0x03, &[0xEF, 0x10, 0x00, 0x00]);
    let e = qdf_core::from_slice::<Value>(&small).unwrap_err();
    assert_eq!(e.classify(), qdf_core::Category::Syntax, "{e}");
    // Sixteen empty structs still round-trip (as a plain array of empty maps).
    #[derive(serde::Serialize, Deserialize, Debug, PartialEq)]
    struct Empty {}
    let rows: Vec<Empty> = (0..16).map(|_| Empty {}).collect();
    let b = qdf_core::to_vec(&rows).unwrap();
    assert_eq!(b[5], 0xB0, "a fixarr of 16, not a container");
    assert_eq!(qdf_core::from_slice::<Vec<Empty>>(&b).unwrap(), rows);
}

/// The `Value` docs promised `T → bytes → Value → bytes` gives equal bytes for every `T`; in
/// the default (Balanced) tier a struct is a shape (`EC`) and comes back from `Value` as a
/// plain map, so the bytes differ (the docs now say the byte equality is the Speed tier's).
/// `T` itself comes back exactly in every tier.
#[test]
fn value_reencode_bytes_equal_only_in_speed() {
    #[derive(serde::Serialize, Deserialize, Debug, PartialEq)]
    struct P {
        x: u8,
        name: String,
    }
    let p = P {
        x: 7,
        name: "seven".into(),
    };
    let speed = qdf_core::to_vec_with(&p, Options::speed()).unwrap();
    let v: Value = qdf_core::from_slice(&speed).unwrap();
    assert_eq!(qdf_core::to_vec_with(&v, Options::speed()).unwrap(), speed);
    let dense = qdf_core::to_vec(&p).unwrap();
    assert_eq!(dense[5], 0xEC, "a struct shape");
    let v: Value = qdf_core::from_slice(&dense).unwrap();
    let again = qdf_core::to_vec(&v).unwrap();
    assert_ne!(again, dense);
    assert_eq!(again[5], 0xD5, "a plain map8");
    assert_eq!(qdf_core::from_slice::<P>(&again).unwrap(), p);
}

/// SPEC §22: a string column's values are a block when the column body starts with a block
/// tag, so a string column with no value (every row `None`) must not be followed by a
/// column whose block a decoder would take as its own. Whatever the encoder writes for such
/// rows, in every tier, decodes to the same rows.
#[test]
fn string_column_without_values_before_a_block_column_round_trips() {
    #[derive(serde::Serialize, Deserialize, Debug, PartialEq)]
    struct R {
        a: Option<String>,
        b: String,
        c: Option<String>,
    }
    let words = [
        "GET /api/v1/users",
        "POST /api/v1/orders",
        "GET /healthz",
        "PUT /api/v1/items",
    ];
    for rows in [16usize, 17, 64, 300] {
        let v: Vec<R> = (0..rows)
            .map(|i| R {
                a: None,
                b: format!(
                    "{} request {} from host-{}",
                    words[i % 4],
                    i * 7919 % 1000,
                    i % 13
                ),
                c: if i % 3 == 0 {
                    None
                } else {
                    Some(format!("trace-{i:08x}"))
                },
            })
            .collect();
        for opts in crate::common::TIERS {
            let bytes = qdf_core::to_vec_with(&v, opts()).unwrap();
            let back: Vec<R> = qdf_core::from_slice(&bytes)
                .unwrap_or_else(|e| panic!("{rows} rows, {:?}: {e}", opts().features));
            assert_eq!(back, v, "{rows} rows");
        }
    }
}
