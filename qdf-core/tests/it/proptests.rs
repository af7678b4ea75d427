//! Property round trips over the data model in all three tiers, typed and through `Value`.

use crate::common::*;
use proptest::prelude::*;
use qdf_core::{Value, Variant, VariantKind};
use serde_bytes::ByteBuf;

fn arb_e() -> impl Strategy<Value = E> {
    let leaf = prop_oneof![
        Just(E::A),
        any::<u8>().prop_map(E::B),
        (any::<i32>(), ".{0,40}").prop_map(|(a, b)| E::C(a, b)),
        (
            any::<Option<u8>>(),
            prop::collection::vec(any::<u16>(), 0..40)
        )
            .prop_map(|(x, y)| E::D { x, y }),
        Just(E::U(())),
        any::<Option<Option<u8>>>().prop_map(E::O),
    ];
    leaf.prop_recursive(4, 16, 1, |inner| inner.prop_map(|e| E::N(Box::new(e))))
}

fn arb_everything() -> impl Strategy<Value = Everything> {
    let ints = (
        any::<bool>(),
        any::<i8>(),
        any::<i16>(),
        any::<i32>(),
        any::<i64>(),
        any::<i128>(),
        any::<u8>(),
        any::<u16>(),
        any::<u32>(),
        any::<u64>(),
        any::<u128>(),
    );
    let scalars = (
        any::<u32>().prop_map(|b| F32b(f32::from_bits(b))),
        any::<u64>().prop_map(|b| F64b(f64::from_bits(b))),
        any::<char>(),
        ".{0,70}",
        prop::collection::vec(any::<u8>(), 0..300).prop_map(ByteBuf::from),
        any::<u32>().prop_map(NewtypeS),
        (any::<u8>(), ".{0,5}", any::<bool>()),
        (any::<i8>(), ".{0,5}").prop_map(|(a, b)| TupleS(a, b)),
    );
    let opts = (
        any::<Option<u32>>(),
        any::<Option<()>>(),
        any::<Option<Option<u8>>>(),
        prop::option::of(arb_e()),
        prop::collection::vec(any::<i64>(), 0..40),
        prop::collection::btree_map(".{0,8}", any::<u32>(), 0..8),
    );
    let keyed = (
        prop::collection::vec((any::<i64>(), ".{0,4}"), 0..6).prop_map(Ordered),
        prop::collection::vec(((any::<u8>(), ".{0,4}"), any::<bool>()), 0..6).prop_map(Ordered),
        prop::collection::vec(
            (
                prop::collection::vec(any::<u8>(), 0..6).prop_map(ByteBuf::from),
                any::<u8>(),
            ),
            0..6,
        )
        .prop_map(Ordered),
        prop::collection::vec((arb_e(), any::<u8>()), 0..6).prop_map(Ordered),
        prop::collection::vec(arb_e(), 0..8),
    );
    (ints, scalars, opts, keyed).prop_map(|(i, s, o, k)| Everything {
        b: i.0,
        i8: i.1,
        i16: i.2,
        i32: i.3,
        i64: i.4,
        i128: i.5,
        u8: i.6,
        u16: i.7,
        u32: i.8,
        u64: i.9,
        u128: i.10,
        f32: s.0,
        f64: s.1,
        ch: s.2,
        s: s.3,
        bytes: s.4,
        unit: (),
        unit_s: UnitS,
        newtype: s.5,
        tuple: s.6,
        tuple_s: s.7,
        opt: o.0,
        opt_unit: o.1,
        opt_opt: o.2,
        opt_e: o.3,
        seq: o.4,
        map: o.5,
        int_keys: k.0,
        tuple_keys: k.1,
        bytes_keys: k.2,
        enum_keys: k.3,
        enums: k.4,
    })
}

/// Canonical `Value`s: what the decoder can produce.
fn arb_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Nil),
        Just(Value::Unit),
        Just(Value::UnitStruct),
        any::<bool>().prop_map(Value::Bool),
        any::<u64>().prop_map(Value::U64),
        (i64::MIN..0).prop_map(Value::I64),
        ((u64::MAX as u128 + 1)..=u128::MAX).prop_map(Value::U128),
        (i128::MIN..(i64::MIN as i128)).prop_map(Value::I128),
        any::<u32>().prop_map(|b| Value::F32(f32::from_bits(b))),
        any::<u64>().prop_map(|b| Value::F64(f64::from_bits(b))),
        any::<char>().prop_map(Value::Char),
        ".{0,40}".prop_map(Value::Str),
        prop::collection::vec(any::<u8>(), 0..40).prop_map(Value::Bytes),
        "[A-Z][a-z]{0,6}".prop_map(|name| variant(VariantKind::Unit, name, Value::Unit)),
        (any::<i64>(), 0u32..1_000_000_000)
            .prop_map(|(secs, nanos)| Value::Timestamp { secs, nanos }),
    ];
    leaf.prop_recursive(5, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::vec((inner.clone(), inner.clone()), 0..6).prop_map(Value::Map),
            inner.clone().prop_map(Value::some),
            ("[A-Z][a-z]{0,6}", inner.clone()).prop_map(|(n, v)| variant(
                VariantKind::Newtype,
                n,
                v
            )),
            (
                "[A-Z][a-z]{0,6}",
                prop::collection::vec(inner.clone(), 0..4)
            )
                .prop_map(|(n, v)| variant(VariantKind::Tuple, n, Value::Array(v))),
            (
                "[A-Z][a-z]{0,6}",
                prop::collection::vec((".{0,6}", inner), 0..4)
            )
                .prop_map(|(n, fields)| {
                    let m = fields
                        .into_iter()
                        .map(|(k, v)| (Value::Str(k), v))
                        .collect();
                    variant(VariantKind::Struct, n, Value::Map(m))
                }),
        ]
    })
}

fn variant(kind: VariantKind, name: String, value: Value) -> Value {
    Value::Variant(Box::new(Variant { kind, name, value }))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn everything_round_trips_in_all_tiers(v in arb_everything()) {
        round_trip(&v);
    }

    #[test]
    fn values_round_trip_bit_exact(v in arb_value()) {
        for tier in TIERS {
            let bytes = qdf_core::to_vec_with(&v, tier()).unwrap();
            let back: Value = qdf_core::from_slice_with(&bytes, tier()).unwrap();
            prop_assert_eq!(&back, &v);
            prop_assert_eq!(qdf_core::to_vec_with(&back, tier()).unwrap(), bytes);
        }
    }

    #[test]
    fn option_chains_stay_distinct(depth in 0usize..6, leaf in prop_oneof![Just(None), Just(Some(()))]) {
        // Some^depth(leaf) for every depth and leaf decodes back to the same chain.
        let mut v = match leaf { None => Value::Nil, Some(()) => Value::Unit };
        for _ in 0..depth { v = Value::Some(Box::new(v)); }
        let bytes = qdf_core::to_vec(&v).unwrap();
        let back: Value = qdf_core::from_slice(&bytes).unwrap();
        prop_assert_eq!(back, v);
    }
}
