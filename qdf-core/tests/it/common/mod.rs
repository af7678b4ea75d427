//! Shared test types covering the serde data model, and round-trip helpers.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::fmt::Debug;

use qdf_core::{Options, Value};
use serde::de::{DeserializeOwned, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_bytes::ByteBuf;

pub mod dates;

/// The three tiers and Balanced with the column index, by name: the option sets the
/// number-text tests round-trip through.
pub fn tiers() -> [(&'static str, Options); 4] {
    [
        ("speed", Options::speed()),
        ("balanced", Options::balanced()),
        ("compression", Options::compression()),
        (
            "indexed",
            Options::balanced()
                .features(qdf_core::Features::BALANCED.with(qdf_core::Features::COLUMN_INDEX)),
        ),
    ]
}

/// An f64 compared by bits (transparent on the wire: a newtype struct).
#[derive(Serialize, Deserialize, Debug, Clone, Copy)]
pub struct F64b(pub f64);
impl PartialEq for F64b {
    fn eq(&self, o: &Self) -> bool {
        self.0.to_bits() == o.0.to_bits()
    }
}

/// An f32 compared by bits.
#[derive(Serialize, Deserialize, Debug, Clone, Copy)]
pub struct F32b(pub f32);
impl PartialEq for F32b {
    fn eq(&self, o: &Self) -> bool {
        self.0.to_bits() == o.0.to_bits()
    }
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
pub struct UnitS;

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
pub struct NewtypeS(pub u32);

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
pub struct TupleS(pub i8, pub String);

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone, PartialOrd)]
pub enum E {
    A,
    B(u8),
    C(i32, String),
    D { x: Option<u8>, y: Vec<u16> },
    U(()),
    O(Option<Option<u8>>),
    N(Box<E>),
}

/// A map that keeps entry order and allows any key type.
#[derive(Debug, PartialEq, Clone)]
pub struct Ordered<K, V>(pub Vec<(K, V)>);

impl<K: Serialize, V: Serialize> Serialize for Ordered<K, V> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

impl<'de, K: Deserialize<'de>, V: Deserialize<'de>> Deserialize<'de> for Ordered<K, V> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Vis<K, V>(std::marker::PhantomData<(K, V)>);
        impl<'de, K: Deserialize<'de>, V: Deserialize<'de>> Visitor<'de> for Vis<K, V> {
            type Value = Ordered<K, V>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a map")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some(kv) = a.next_entry()? {
                    out.push(kv);
                }
                Ok(Ordered(out))
            }
        }
        d.deserialize_map(Vis(std::marker::PhantomData))
    }
}

/// Every kind of the serde data model in one struct.
#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
pub struct Everything {
    pub b: bool,
    pub i8: i8,
    pub i16: i16,
    pub i32: i32,
    pub i64: i64,
    pub i128: i128,
    pub u8: u8,
    pub u16: u16,
    pub u32: u32,
    pub u64: u64,
    pub u128: u128,
    pub f32: F32b,
    pub f64: F64b,
    pub ch: char,
    pub s: String,
    pub bytes: ByteBuf,
    pub unit: (),
    pub unit_s: UnitS,
    pub newtype: NewtypeS,
    pub tuple: (u8, String, bool),
    pub tuple_s: TupleS,
    pub opt: Option<u32>,
    pub opt_unit: Option<()>,
    pub opt_opt: Option<Option<u8>>,
    pub opt_e: Option<E>,
    pub seq: Vec<i64>,
    pub map: BTreeMap<String, u32>,
    pub int_keys: Ordered<i64, String>,
    pub tuple_keys: Ordered<(u8, String), bool>,
    pub bytes_keys: Ordered<ByteBuf, u8>,
    pub enum_keys: Ordered<E, u8>,
    pub enums: Vec<E>,
}

pub fn sample() -> Everything {
    Everything {
        b: true,
        i8: -100,
        i16: -30000,
        i32: -2_000_000_000,
        i64: i64::MIN,
        i128: i128::MIN,
        u8: 200,
        u16: 60000,
        u32: 4_000_000_000,
        u64: (1 << 53) + 1,
        u128: u128::MAX,
        f32: F32b(f32::from_bits(0x7fc0_0001)),
        f64: F64b(-0.0),
        ch: '€',
        s: "héllo, a string longer than thirty-one bytes".into(),
        bytes: ByteBuf::from(vec![0, 1, 2, 0xC0, 0xF2]),
        unit: (),
        unit_s: UnitS,
        newtype: NewtypeS(7),
        tuple: (1, "x".into(), false),
        tuple_s: TupleS(-1, "t".into()),
        opt: Some(5),
        opt_unit: Some(()),
        opt_opt: Some(None),
        opt_e: Some(E::A),
        seq: vec![0, -1, 127, 128, -129, i64::MAX],
        map: [("a".to_string(), 1), ("b".to_string(), 300)].into(),
        int_keys: Ordered(vec![(3, "c".into()), (-1, "m".into()), (1, "a".into())]),
        tuple_keys: Ordered(vec![((2, "b".into()), true), ((1, "a".into()), false)]),
        bytes_keys: Ordered(vec![
            (ByteBuf::from(vec![9]), 1),
            (ByteBuf::from(vec![]), 2),
        ]),
        enum_keys: Ordered(vec![(E::B(2), 1), (E::A, 2), (E::C(1, "z".into()), 3)]),
        enums: vec![
            E::A,
            E::B(9),
            E::C(-5, "c".into()),
            E::D {
                x: None,
                y: vec![1, 65535],
            },
            E::U(()),
            E::O(Some(None)),
            E::O(None),
            E::O(Some(Some(1))),
            E::N(Box::new(E::N(Box::new(E::A)))),
        ],
    }
}

pub const TIERS: [fn() -> Options; 3] = [Options::speed, Options::balanced, Options::compression];

/// T → bytes → T, and T → bytes → Value → bytes (identical) → T, in every tier.
pub fn round_trip<T: Serialize + DeserializeOwned + PartialEq + Debug>(v: &T) -> Vec<u8> {
    let mut first = None;
    for tier in TIERS {
        let opts = tier();
        let bytes = qdf_core::to_vec_with(v, opts).expect("encode");
        let back: T = qdf_core::from_slice_with(&bytes, opts).expect("decode typed");
        assert_eq!(&back, v);
        let val: Value = qdf_core::from_slice_with(&bytes, opts).expect("decode Value");
        let again = qdf_core::to_vec_with(&val, opts).expect("encode Value");
        if opts.features.contains(qdf_core::Features::SHAPE_INTERN) {
            // A struct shape (EC) reads back as a map and `Value` re-encodes maps as maps.
            let val2: Value = qdf_core::from_slice_with(&again, opts).expect("decode Value");
            assert_eq!(val2, val, "Value re-encoding differs for {val}");
        } else {
            assert_eq!(again, bytes, "Value re-encoding differs for {val}");
        }
        let back2: T = qdf_core::from_slice_with(&again, opts).expect("decode from Value bytes");
        assert_eq!(&back2, v);
        first.get_or_insert(bytes);
    }
    first.unwrap()
}

/// Bytes as lowercase hex pairs separated by spaces (`51 44 46 01 03`).
pub fn hex(b: &[u8]) -> String {
    b.iter()
        .map(|x| format!("{x:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The bytes of whitespace-separated hex pairs (the inverse of [`hex`]).
pub fn unhex(s: &str) -> Vec<u8> {
    s.split_whitespace()
        .map(|b| u8::from_str_radix(b, 16).unwrap())
        .collect()
}

/// xorshift64* (Vigna, 2016) from `seed` (not 0): deterministic, so a failure reproduces.
pub fn xorshift(seed: u64) -> impl FnMut() -> u64 {
    let mut x = seed;
    move || {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

/// One to four random edits of `m` after its 5-byte header (a byte set, a bit flipped, a
/// byte inserted or removed), drawn from `next`.
pub fn mutate(m: &mut Vec<u8>, next: &mut impl FnMut() -> u64) {
    for _ in 0..1 + next() % 4 {
        let i = 5 + (next() as usize) % (m.len() - 5);
        match next() % 4 {
            0 => m[i] = next() as u8,
            1 => m[i] ^= 1 << (next() % 8),
            2 => m.insert(i, next() as u8),
            _ => {
                m.remove(i);
            }
        }
    }
}

/// [`round_trip`], then in Speed, Balanced, Compression and Balanced with the column index:
/// the typed value back exactly and the `Value` equal to the one row mode (Speed) gives, so
/// a container and its rows present the same value.
pub fn round_trip_as_rows<T: Serialize + DeserializeOwned + PartialEq + Debug>(v: &T) {
    round_trip(v);
    let rows: Value =
        qdf_core::from_slice(&qdf_core::to_vec_with(v, Options::speed()).unwrap()).unwrap();
    let indexed = Options::balanced()
        .features(qdf_core::Features::BALANCED.with(qdf_core::Features::COLUMN_INDEX));
    for opts in TIERS.map(|t| t()).into_iter().chain([indexed]) {
        let bytes = qdf_core::to_vec_with(v, opts).unwrap();
        let back: T = qdf_core::from_slice_with(&bytes, opts).unwrap();
        assert_eq!(&back, v, "{opts:?}");
        let val: Value = qdf_core::from_slice_with(&bytes, opts).unwrap();
        assert_eq!(val, rows, "{opts:?}");
    }
}

/// What `pick` makes of each column event of a message (depth, name, values), in order.
pub fn columns<T>(
    bytes: &[u8],
    opts: &Options,
    mut pick: impl FnMut(u32, &str, &qdf_core::inspect::ColumnValues) -> Option<T>,
) -> Vec<T> {
    let mut out = Vec::new();
    qdf_core::inspect::message(bytes, opts, &mut |e| {
        if let qdf_core::inspect::EventKind::Column { name, values, .. } = &e.kind {
            out.extend(pick(e.depth, name, values));
        }
    })
    .unwrap();
    out
}
