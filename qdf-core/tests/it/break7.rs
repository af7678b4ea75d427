//! Trying to break two encoder paths as a serde user would (h-break7):
//! flat struct columns (a `Vec` of ≥ 16 structs of primitives written column by column from
//! the tape, `columnar/nested.rs` `flat`) and numbers predicted within a message on a
//! pre-shared dictionary (`docs/SPEC.md` §15.2, §25.2). Every round trip is exact (floats by
//! bits) in every tier, through `T` and through `Value`.

use std::collections::BTreeMap;
use std::fmt::Debug;

use proptest::prelude::*;
use qdf_core::{Dictionary, ErrorCode, Features, Options, Value};
use serde::de::DeserializeOwned;
use serde::ser::SerializeStruct;
use serde::{Deserialize, Serialize, Serializer};

use crate::common::{F32b, F64b, NewtypeS, TIERS, UnitS, mutate, round_trip, xorshift};

// ---------------------------------------------------------------------------------------
// Flat struct columns
// ---------------------------------------------------------------------------------------

/// Every primitive the flat path may take, plus a unit struct and a newtype.
#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Prim {
    b: bool,
    u8: u8,
    i16: i16,
    u32: u32,
    i64: i64,
    u128: u128,
    i128: i128,
    f32: F32b,
    f64: F64b,
    ch: char,
    s: String,
    unit: UnitS,
    nt: NewtypeS,
    tup: (),
}

const F64_ODD: [u64; 10] = [
    0x8000_0000_0000_0000, // -0.0
    0x7ff0_0000_0000_0000, // +inf
    0xfff0_0000_0000_0000, // -inf
    0x7ff8_0000_dead_beef, // quiet NaN, payload
    0x7ff0_0000_0000_0001, // signalling NaN
    0xfff8_0000_0000_0000, // negative NaN
    0x0000_0000_0000_0001, // smallest subnormal
    0x3fb9_9999_9999_999a, // 0.1
    0x3fd3_3333_3333_3334, // 0.30000000000000004
    0x7fef_ffff_ffff_ffff, // f64::MAX
];
const F32_ODD: [u32; 6] = [
    0x8000_0000,
    0x7f80_0000,
    0xff80_0000,
    0x7fc0_0001,
    0x7f80_0001,
    0x0000_0001,
];

fn prim(r: usize) -> Prim {
    let k = r as u64;
    Prim {
        b: r.is_multiple_of(3),
        u8: (r * 37) as u8,
        i16: if r.is_multiple_of(2) {
            i16::MIN
        } else {
            r as i16
        },
        u32: u32::MAX - r as u32,
        i64: match r % 4 {
            0 => i64::MIN,
            1 => i64::MAX,
            2 => -(k as i64),
            _ => 0,
        },
        u128: if r.is_multiple_of(2) {
            u128::MAX - k as u128
        } else {
            k as u128
        },
        i128: if r.is_multiple_of(3) {
            i128::MIN + k as i128
        } else {
            -(k as i128) << 70
        },
        f32: F32b(f32::from_bits(F32_ODD[r % F32_ODD.len()])),
        f64: F64b(f64::from_bits(F64_ODD[r % F64_ODD.len()])),
        ch: ['a', '\0', '€', '\u{10FFFF}', '😀'][r % 5],
        s: if r.is_multiple_of(4) {
            String::new()
        } else {
            "x".repeat(r % 40)
        },
        unit: UnitS,
        nt: NewtypeS(r as u32 * 1000),
        tup: (),
    }
}

/// 0..=70 rows of every primitive (15, 16 and 17 straddle the columnar threshold).
#[test]
fn flat_primitives_round_trip_at_every_row_count() {
    for n in [0, 1, 2, 15, 16, 17, 31, 32, 33, 64, 70] {
        let rows: Vec<Prim> = (0..n).map(prim).collect();
        round_trip(&rows);
    }
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Skippy {
    id: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    a: Option<u64>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    s: String,
    #[serde(default, skip_serializing_if = "is_zero")]
    z: i32,
    opt: Option<f64>,
}

fn is_zero(x: &i32) -> bool {
    *x == 0
}

/// Fields skipped in some rows (the rows are maps of different lengths), `Option`s `None` in
/// some rows, at 15/16/17/40 rows, with the skipped rows first, last, or scattered.
#[test]
fn flat_rows_with_skipped_and_none_fields() {
    for n in [15, 16, 17, 40] {
        for pattern in 0..4usize {
            let rows: Vec<Skippy> = (0..n)
                .map(|r| {
                    let skip = match pattern {
                        0 => r == 0,
                        1 => r + 1 == n,
                        2 => r % 3 == 1,
                        _ => r >= 8,
                    };
                    Skippy {
                        id: r as u32,
                        a: (!skip).then_some(u64::MAX - r as u64),
                        s: if skip { String::new() } else { format!("s{r}") },
                        z: if skip { 0 } else { -r - 1 },
                        opt: (r % 2 == 0).then_some(r as f64 + 0.5),
                    }
                })
                .collect();
            round_trip(&rows);
        }
    }
}

/// A struct whose `Serialize` emits its fields in an order that depends on the row, under a
/// struct name that depends on the row too.
#[derive(Deserialize, Debug, PartialEq, Clone)]
struct Shuffled {
    a: u64,
    b: F64b,
    c: String,
}

impl Serialize for Shuffled {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let name = if self.a.is_multiple_of(5) {
            "Other"
        } else {
            "Shuffled"
        };
        let mut st = s.serialize_struct(name, 3)?;
        match self.a % 3 {
            0 => {
                st.serialize_field("a", &self.a)?;
                st.serialize_field("b", &self.b)?;
                st.serialize_field("c", &self.c)?;
            }
            1 => {
                st.serialize_field("c", &self.c)?;
                st.serialize_field("a", &self.a)?;
                st.serialize_field("b", &self.b)?;
            }
            _ => {
                st.serialize_field("b", &self.b)?;
                st.serialize_field("c", &self.c)?;
                st.serialize_field("a", &self.a)?;
            }
        }
        st.end()
    }
}

#[test]
fn flat_rows_with_fields_in_varying_order_and_names() {
    for n in [15, 16, 17, 48] {
        let rows: Vec<Shuffled> = (0..n as u64)
            .map(|a| Shuffled {
                a,
                b: F64b(f64::from_bits(F64_ODD[a as usize % F64_ODD.len()])),
                c: format!("c{a}"),
            })
            .collect();
        round_trip(&rows);
        // Only the first row in another order: the plan from row 0 must not be applied to
        // the others blindly.
        let mut same: Vec<Shuffled> = (0..n as u64)
            .map(|i| Shuffled {
                a: 3 * i + 3,
                b: F64b(i as f64),
                c: String::new(),
            })
            .collect();
        same[0].a = 1;
        round_trip(&same);
        let mut last = same.clone();
        last[0].a = 3;
        last[n - 1].a = 2;
        round_trip(&last);
    }
}

/// A struct serialised with one field missing in the middle rows, by hand (no serde attr):
/// the same field count would otherwise be wrong.
#[derive(Deserialize, Debug, PartialEq, Clone)]
struct Holey {
    a: u32,
    #[serde(default)]
    b: u32,
    c: u32,
}

impl Serialize for Holey {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Holey", 3)?;
        st.serialize_field("a", &self.a)?;
        if self.b == 0 {
            st.skip_field("b")?;
        } else {
            st.serialize_field("b", &self.b)?;
        }
        st.serialize_field("c", &self.c)?;
        st.end()
    }
}

#[test]
fn flat_rows_with_a_hand_skipped_field() {
    for n in [16, 17, 33] {
        let rows: Vec<Holey> = (0..n as u32)
            .map(|r| Holey {
                a: r,
                b: if (5..9).contains(&r) { 0 } else { r + 100 },
                c: r * 2,
            })
            .collect();
        round_trip(&rows);
    }
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Inner {
    x: i32,
    y: F32b,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct WithFlatten {
    id: u64,
    #[serde(flatten)]
    inner: Inner,
    tail: bool,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct WithFlattenMap {
    id: u64,
    #[serde(flatten)]
    rest: BTreeMap<String, i64>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Nested {
    id: u16,
    p: Inner,
    q: Option<Inner>,
    nt: NewtypeS,
}

#[test]
fn flat_rows_with_flatten_and_nested_structs() {
    for n in [15, 16, 17, 40] {
        let fl: Vec<WithFlatten> = (0..n)
            .map(|r| WithFlatten {
                id: r as u64,
                inner: Inner {
                    x: -(r as i32),
                    y: F32b(f32::from_bits(F32_ODD[r % F32_ODD.len()])),
                },
                tail: r % 2 == 0,
            })
            .collect();
        round_trip(&fl);
        let fm: Vec<WithFlattenMap> = (0..n)
            .map(|r| WithFlattenMap {
                id: r as u64,
                rest: (0..r % 4).map(|k| (format!("k{k}"), -(k as i64))).collect(),
            })
            .collect();
        round_trip(&fm);
        let ne: Vec<Nested> = (0..n)
            .map(|r| Nested {
                id: r as u16,
                p: Inner {
                    x: r as i32,
                    y: F32b(-0.0),
                },
                q: (r % 3 != 0).then_some(Inner {
                    x: i32::MIN,
                    y: F32b(f32::NAN),
                }),
                nt: NewtypeS(u32::MAX),
            })
            .collect();
        round_trip(&ne);
    }
}

/// A field that changes type from row to row (integer, negative, float, string, bool, null).
#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
#[serde(untagged)]
enum Any {
    U(u64),
    I(i64),
    F(F64b),
    S(String),
    B(bool),
    N(Option<()>),
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Switch {
    k: u32,
    v: Any,
}

#[test]
fn flat_rows_whose_field_switches_type() {
    let vals = |r: usize| match r % 6 {
        0 => Any::U(u64::MAX - r as u64),
        1 => Any::I(i64::MIN + r as i64),
        2 => Any::F(F64b(r as f64 + 0.25)),
        3 => Any::S(format!("{r}")),
        4 => Any::B(r.is_multiple_of(4)),
        _ => Any::N(None),
    };
    for n in [15, 16, 17, 36] {
        let rows: Vec<Switch> = (0..n)
            .map(|r| Switch {
                k: r as u32,
                v: vals(r),
            })
            .collect();
        round_trip(&rows);
        // All integers except one float in the last row.
        let mut ints: Vec<Switch> = (0..n)
            .map(|r| Switch {
                k: r as u32,
                v: Any::U(r as u64),
            })
            .collect();
        ints[n - 1].v = Any::F(F64b(-0.0));
        round_trip(&ints);
        // u64 then i64 in the same column (the sign flips at row 8).
        let signs: Vec<Switch> = (0..n)
            .map(|r| Switch {
                k: 0,
                v: if r < 8 {
                    Any::U(r as u64)
                } else {
                    Any::I(-(r as i64))
                },
            })
            .collect();
        round_trip(&signs);
    }
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Empty {}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct One {
    only: u8,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct OneF {
    only: F64b,
}

#[test]
fn flat_rows_of_zero_and_one_field_structs() {
    for n in [15, 16, 17, 100] {
        round_trip(&vec![Empty {}; n]);
        round_trip(&(0..n).map(|r| One { only: r as u8 }).collect::<Vec<_>>());
        round_trip(
            &(0..n)
                .map(|r| OneF {
                    only: F64b(f64::from_bits(F64_ODD[r % F64_ODD.len()])),
                })
                .collect::<Vec<_>>(),
        );
        round_trip(&vec![UnitS; n]);
    }
}
/// 70 fields of u32 (a plan far wider than any preset).
#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Wide70 {
    f0: u32,
    f1: u32,
    f2: u32,
    f3: u32,
    f4: u32,
    f5: u32,
    f6: u32,
    f7: u32,
    f8: u32,
    f9: u32,
    f10: u32,
    f11: u32,
    f12: u32,
    f13: u32,
    f14: u32,
    f15: u32,
    f16: u32,
    f17: u32,
    f18: u32,
    f19: u32,
    f20: u32,
    f21: u32,
    f22: u32,
    f23: u32,
    f24: u32,
    f25: u32,
    f26: u32,
    f27: u32,
    f28: u32,
    f29: u32,
    f30: u32,
    f31: u32,
    f32: u32,
    f33: u32,
    f34: u32,
    f35: u32,
    f36: u32,
    f37: u32,
    f38: u32,
    f39: u32,
    f40: u32,
    f41: u32,
    f42: u32,
    f43: u32,
    f44: u32,
    f45: u32,
    f46: u32,
    f47: u32,
    f48: u32,
    f49: u32,
    f50: u32,
    f51: u32,
    f52: u32,
    f53: u32,
    f54: u32,
    f55: u32,
    f56: u32,
    f57: u32,
    f58: u32,
    f59: u32,
    f60: u32,
    f61: u32,
    f62: u32,
    f63: u32,
    f64: u32,
    f65: u32,
    f66: u32,
    f67: u32,
    f68: u32,
    f69: u32,
}

fn wide70(r: u32) -> Wide70 {
    Wide70 {
        f0: r.wrapping_mul(1),
        f1: r.wrapping_mul(1 + 1) ^ 7919,
        f2: r.wrapping_mul(2 + 1) ^ 15838,
        f3: r.wrapping_mul(3 + 1) ^ 23757,
        f4: r.wrapping_mul(4 + 1) ^ 31676,
        f5: r.wrapping_mul(5 + 1) ^ 39595,
        f6: r.wrapping_mul(6 + 1) ^ 47514,
        f7: r.wrapping_mul(7 + 1) ^ 55433,
        f8: r.wrapping_mul(8 + 1) ^ 63352,
        f9: r.wrapping_mul(9 + 1) ^ 71271,
        f10: r.wrapping_mul(10 + 1) ^ 79190,
        f11: r.wrapping_mul(11 + 1) ^ 87109,
        f12: r.wrapping_mul(12 + 1) ^ 95028,
        f13: r.wrapping_mul(13 + 1) ^ 102947,
        f14: r.wrapping_mul(14 + 1) ^ 110866,
        f15: r.wrapping_mul(15 + 1) ^ 118785,
        f16: r.wrapping_mul(16 + 1) ^ 126704,
        f17: r.wrapping_mul(17 + 1) ^ 134623,
        f18: r.wrapping_mul(18 + 1) ^ 142542,
        f19: r.wrapping_mul(19 + 1) ^ 150461,
        f20: r.wrapping_mul(20 + 1) ^ 158380,
        f21: r.wrapping_mul(21 + 1) ^ 166299,
        f22: r.wrapping_mul(22 + 1) ^ 174218,
        f23: r.wrapping_mul(23 + 1) ^ 182137,
        f24: r.wrapping_mul(24 + 1) ^ 190056,
        f25: r.wrapping_mul(25 + 1) ^ 197975,
        f26: r.wrapping_mul(26 + 1) ^ 205894,
        f27: r.wrapping_mul(27 + 1) ^ 213813,
        f28: r.wrapping_mul(28 + 1) ^ 221732,
        f29: r.wrapping_mul(29 + 1) ^ 229651,
        f30: r.wrapping_mul(30 + 1) ^ 237570,
        f31: r.wrapping_mul(31 + 1) ^ 245489,
        f32: r.wrapping_mul(32 + 1) ^ 253408,
        f33: r.wrapping_mul(33 + 1) ^ 261327,
        f34: r.wrapping_mul(34 + 1) ^ 269246,
        f35: r.wrapping_mul(35 + 1) ^ 277165,
        f36: r.wrapping_mul(36 + 1) ^ 285084,
        f37: r.wrapping_mul(37 + 1) ^ 293003,
        f38: r.wrapping_mul(38 + 1) ^ 300922,
        f39: r.wrapping_mul(39 + 1) ^ 308841,
        f40: r.wrapping_mul(40 + 1) ^ 316760,
        f41: r.wrapping_mul(41 + 1) ^ 324679,
        f42: r.wrapping_mul(42 + 1) ^ 332598,
        f43: r.wrapping_mul(43 + 1) ^ 340517,
        f44: r.wrapping_mul(44 + 1) ^ 348436,
        f45: r.wrapping_mul(45 + 1) ^ 356355,
        f46: r.wrapping_mul(46 + 1) ^ 364274,
        f47: r.wrapping_mul(47 + 1) ^ 372193,
        f48: r.wrapping_mul(48 + 1) ^ 380112,
        f49: r.wrapping_mul(49 + 1) ^ 388031,
        f50: r.wrapping_mul(50 + 1) ^ 395950,
        f51: r.wrapping_mul(51 + 1) ^ 403869,
        f52: r.wrapping_mul(52 + 1) ^ 411788,
        f53: r.wrapping_mul(53 + 1) ^ 419707,
        f54: r.wrapping_mul(54 + 1) ^ 427626,
        f55: r.wrapping_mul(55 + 1) ^ 435545,
        f56: r.wrapping_mul(56 + 1) ^ 443464,
        f57: r.wrapping_mul(57 + 1) ^ 451383,
        f58: r.wrapping_mul(58 + 1) ^ 459302,
        f59: r.wrapping_mul(59 + 1) ^ 467221,
        f60: r.wrapping_mul(60 + 1) ^ 475140,
        f61: r.wrapping_mul(61 + 1) ^ 483059,
        f62: r.wrapping_mul(62 + 1) ^ 490978,
        f63: r.wrapping_mul(63 + 1) ^ 498897,
        f64: r.wrapping_mul(64 + 1) ^ 506816,
        f65: r.wrapping_mul(65 + 1) ^ 514735,
        f66: r.wrapping_mul(66 + 1) ^ 522654,
        f67: r.wrapping_mul(67 + 1) ^ 530573,
        f68: r.wrapping_mul(68 + 1) ^ 538492,
        f69: r.wrapping_mul(69 + 1) ^ 546411,
    }
}

#[test]
fn flat_rows_of_seventy_fields() {
    for n in [15, 16, 17, 40] {
        let rows: Vec<Wide70> = (0..n as u32)
            .map(|r| wide70(r.wrapping_mul(0x9e37_79b9)))
            .collect();
        round_trip(&rows);
    }
}

fn f64_any() -> impl Strategy<Value = F64b> {
    prop_oneof![
        any::<u64>().prop_map(|b| F64b(f64::from_bits(b))),
        (0..F64_ODD.len()).prop_map(|i| F64b(f64::from_bits(F64_ODD[i]))),
        (-1000i32..1000).prop_map(|i| F64b(i as f64 / 10.0)),
    ]
}

fn prim_any() -> impl Strategy<Value = Prim> {
    (
        (
            any::<bool>(),
            any::<u8>(),
            any::<i16>(),
            any::<u32>(),
            any::<i64>(),
        ),
        (any::<u128>(), any::<i128>(), any::<u32>(), f64_any()),
        (any::<char>(), "[a-z€]{0,5}", any::<u32>()),
    )
        .prop_map(
            |((b, u8, i16, u32, i64), (u128, i128, f32, f64), (ch, s, nt))| Prim {
                b,
                u8,
                i16,
                u32,
                i64,
                u128,
                i128,
                f32: F32b(f32::from_bits(f32)),
                f64,
                ch,
                s,
                unit: UnitS,
                nt: NewtypeS(nt),
                tup: (),
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Any rows of primitives, any count around the threshold.
    #[test]
    fn flat_any_primitive_rows(rows in prop::collection::vec(prim_any(), 12..40)) {
        round_trip(&rows);
    }

    /// Rows with fields skipped, `None`, or switching type, in any mix.
    #[test]
    fn flat_any_ragged_rows(rows in prop::collection::vec(
        (any::<u32>(), prop::option::of(any::<u64>()), "[a-c]{0,2}", any::<i32>(),
         prop::option::of(f64_any()), 0..6usize, any::<u64>()),
        14..36,
    )) {
        let sk: Vec<Skippy> = rows.iter().map(|(id, a, s, z, opt, _, _)| Skippy {
            id: *id, a: *a, s: s.clone(), z: *z, opt: opt.map(|f| f.0),
        }).collect();
        // Skippy's `opt` holds a plain f64: compare by bits.
        for tier in TIERS {
            let opts = tier();
            let bytes = qdf_core::to_vec_with(&sk, opts).unwrap();
            let back: Vec<Skippy> = qdf_core::from_slice_with(&bytes, opts).unwrap();
            prop_assert_eq!(back.len(), sk.len());
            for (x, y) in back.iter().zip(&sk) {
                prop_assert_eq!((x.id, x.a, &x.s, x.z), (y.id, y.a, &y.s, y.z));
                prop_assert_eq!(x.opt.map(f64::to_bits), y.opt.map(f64::to_bits));
            }
            let val: Value = qdf_core::from_slice_with(&bytes, opts).unwrap();
            let again = qdf_core::to_vec_with(&val, opts).unwrap();
            let back2: Vec<Skippy> = qdf_core::from_slice_with(&again, opts).unwrap();
            for (x, y) in back2.iter().zip(&sk) {
                prop_assert_eq!(x.opt.map(f64::to_bits), y.opt.map(f64::to_bits));
                prop_assert_eq!(x.a, y.a);
            }
        }
        let sw: Vec<Switch> = rows.iter().map(|(id, _, s, z, f, kind, u)| Switch {
            k: *id,
            v: match kind {
                0 => Any::U(*u),
                1 => Any::I(-1 - (*z as i64).abs()),
                2 => Any::F(f.unwrap_or(F64b(1.5))),
                3 => Any::S(s.clone()),
                4 => Any::B(*u % 2 == 0),
                _ => Any::N(None),
            },
        }).collect();
        // An untagged F holding an integral float still reads back as F (floats stay floats).
        round_trip(&sw);
    }
}

// ---------------------------------------------------------------------------------------
// Numbers predicted within a message on a pre-shared dictionary
// ---------------------------------------------------------------------------------------

/// On `d`, in every tier (and with MAP_SHAPE when `maps`): `v` round-trips typed, its `Value`
/// equals the one of the same records written without the dictionary, the inspector walks the
/// message, and every strict prefix of it is an error. Returns the Balanced message.
fn dict_rt<T: Serialize + DeserializeOwned + PartialEq + Debug>(
    v: &T,
    d: &Dictionary,
    maps: bool,
) -> Vec<u8> {
    let mut balanced = Vec::new();
    for (t, tier) in TIERS.iter().enumerate() {
        let mut opts = tier();
        if maps {
            opts = opts.features(opts.features.with(Features::MAP_SHAPE));
        }
        let msg = qdf_core::to_vec_with_dictionary(v, opts, d).unwrap();
        let back: T = qdf_core::from_slice_with_dictionary(&msg, opts, d).unwrap();
        assert_eq!(&back, v, "{:?}", opts.features);
        let val: Value = qdf_core::from_slice_with_dictionary(&msg, opts, d).unwrap();
        let plain = qdf_core::to_vec_with(v, opts).unwrap();
        let pval: Value = qdf_core::from_slice_with(&plain, opts).unwrap();
        assert_eq!(val, pval, "{:?}", opts.features);
        // Value → dictionary message → T.
        let again = qdf_core::to_vec_with_dictionary(&val, opts, d).unwrap();
        let back2: T = qdf_core::from_slice_with_dictionary(&again, opts, d).unwrap();
        assert_eq!(&back2, v, "{:?} via Value", opts.features);
        qdf_core::inspect::message_with_dictionary(&msg, &opts, Some(d), &mut |_| {})
            .unwrap_or_else(|e| panic!("{:?}: inspect {e:?}", opts.features));
        for k in 0..msg.len() {
            assert!(
                qdf_core::from_slice_with_dictionary::<Value>(&msg[..k], opts, d).is_err(),
                "{:?}: prefix {k} of {} decoded",
                opts.features,
                msg.len()
            );
        }
        if t == 1 {
            balanced = msg;
        }
    }
    balanced
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Rec {
    ts: u64,
    i: i64,
    v: F64b,
    g: F32b,
    n: Option<u64>,
    name: String,
}

fn rec_dict() -> Dictionary {
    Dictionary::from_strs(["alpha", "beta"])
        .unwrap()
        .with_shapes([
            vec!["ts", "i", "v", "g", "n", "name"],
            vec!["id", "v", "inner"],
            vec!["id", "v"],
            vec!["k", "v"],
        ])
        .unwrap()
}

/// Awkward float steps: decimal steps that round badly, large magnitudes with a half, then
/// subnormals, extremes, NaNs and zeros of both signs.
const STEPS: [f64; 16] = [
    0.1,
    0.2,
    0.30000000000000004,
    0.3,
    1e15 + 0.5,
    1e15 + 1.5,
    1e15 + 2.5,
    5e-324,
    1e-323,
    2.2250738585072014e-308,
    -0.0,
    0.0,
    f64::MAX,
    f64::MIN,
    f64::INFINITY,
    f64::NAN,
];

fn rec(r: usize) -> Rec {
    let us = [u64::MAX, 0, 1, u64::MAX, u64::MAX - 1, 1 << 63, 7, 7, 7];
    let is = [i64::MIN, i64::MAX, i64::MIN, -1, 0, i64::MAX, -5, -5];
    Rec {
        ts: us[r % us.len()],
        i: is[r % is.len()],
        v: F64b(STEPS[r % STEPS.len()]),
        g: F32b(f32::from_bits(F32_ODD[r % F32_ODD.len()])),
        n: (r % 3 != 1).then_some(u64::MAX - (r as u64 % 2)),
        name: ["alpha", "beta", "", "gamma"][r % 4].to_string(),
    }
}

/// Batches in row form (< 16) and columnar form (≥ 16) with wrapping deltas, bad decimal
/// steps and an `Option<u64>` that is sometimes `None`.
#[test]
fn dictionary_batches_with_wrapping_and_awkward_steps() {
    let d = rec_dict();
    for n in [1, 2, 3, 15, 16, 17, 40] {
        let rows: Vec<Rec> = (0..n).map(rec).collect();
        dict_rt(&rows, &d, false);
        dict_rt(&rows, &d, true);
    }
    // Arithmetic progressions of decimals (each step is a few units at some exponent).
    let prog: Vec<Rec> = (0..20)
        .map(|r| Rec {
            ts: 1_700_000_000_000 + r as u64 * 10,
            i: -(r as i64) * 3,
            v: F64b(0.1 * r as f64),
            g: F32b(0.1 * r as f32),
            n: Some(r as u64),
            name: "alpha".into(),
        })
        .collect();
    // Columnar (20 records): the dictionary costs at most its 8-byte id.
    let on_dict = dict_rt(&prog, &d, false);
    let plain = qdf_core::to_vec_with(&prog, Options::balanced()).unwrap();
    assert!(
        on_dict.len() <= plain.len() + 8,
        "{} vs {}",
        on_dict.len(),
        plain.len()
    );
    // Row form (5 records): shapes from the dictionary and predicted numbers make it smaller.
    let on_dict = dict_rt(&prog[..5].to_vec(), &d, false);
    let plain = qdf_core::to_vec_with(&prog[..5], Options::balanced()).unwrap();
    assert!(
        on_dict.len() < plain.len(),
        "{} vs {}",
        on_dict.len(),
        plain.len()
    );
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct In2 {
    id: i64,
    v: F64b,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Out2 {
    id: u64,
    v: F64b,
    inner: In2,
}

/// Inner and outer records share field names (`id`, `v`) but hold other types and ranges:
/// a prediction must be per field *of its record*, not per name.
#[test]
fn dictionary_nested_records_sharing_field_names() {
    let d = rec_dict();
    for n in [1, 3, 15, 16, 20] {
        let rows: Vec<Out2> = (0..n)
            .map(|r| Out2 {
                id: u64::MAX - r as u64,
                v: F64b(STEPS[r % STEPS.len()]),
                inner: In2 {
                    id: i64::MIN + r as i64,
                    v: F64b(-(r as f64) * 0.1),
                },
            })
            .collect();
        dict_rt(&rows, &d, false);
        dict_rt(&rows, &d, true);
    }
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
enum Ev {
    A { id: u64, v: F64b },
    B { id: i64, v: String },
    C(u64),
    D,
}

#[test]
fn dictionary_enums_with_struct_variants() {
    let d = rec_dict();
    for n in [2, 7, 16, 30] {
        let evs: Vec<Ev> = (0..n)
            .map(|r| match r % 4 {
                0 => Ev::A {
                    id: if r % 8 == 0 { u64::MAX } else { 0 },
                    v: F64b(STEPS[r % STEPS.len()]),
                },
                1 => Ev::B {
                    id: if r % 8 == 1 { i64::MIN } else { i64::MAX },
                    v: format!("b{r}"),
                },
                2 => Ev::C(r as u64),
                _ => Ev::D,
            })
            .collect();
        dict_rt(&evs, &d, false);
        dict_rt(&evs, &d, true);
    }
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct KV {
    k: u32,
    v: Any,
}

/// Maps with the same keys in every record (MAP_SHAPE), and a field `v` that switches between
/// integer, float, string, bool and null from record to record.
#[test]
fn dictionary_maps_and_fields_switching_type() {
    let d = rec_dict();
    for n in [3, 15, 16, 25] {
        let maps: Vec<BTreeMap<String, i64>> = (0..n)
            .map(|r| {
                [("k", i64::MIN + r as i64), ("v", i64::MAX - r as i64)]
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), v))
                    .collect()
            })
            .collect();
        dict_rt(&maps, &d, true);
        dict_rt(&maps, &d, false);
        let kv: Vec<KV> = (0..n)
            .map(|r| KV {
                k: r as u32,
                v: match r % 5 {
                    0 => Any::U(u64::MAX),
                    1 => Any::F(F64b(0.1 * r as f64)),
                    2 => Any::I(i64::MIN),
                    3 => Any::S("alpha".into()),
                    _ => Any::U(0),
                },
            })
            .collect();
        dict_rt(&kv, &d, false);
        dict_rt(&kv, &d, true);
    }
}

/// A dictionary trained on the records themselves.
#[test]
fn dictionary_trained_on_the_records() {
    let samples: Vec<Vec<Rec>> = (0..8).map(|s| (s..s + 4).map(rec).collect()).collect();
    let d = Dictionary::train(&samples, Options::balanced(), 4096).unwrap();
    for n in [1, 4, 16, 33] {
        let rows: Vec<Rec> = (0..n).map(|r| rec(r * 7 + 1)).collect();
        dict_rt(&rows, &d, false);
    }
}

/// Flipped bytes in the dictionary id are `UnknownDictionary` at offset 5; random edits of
/// the body never panic, and the inspector and the decoder agree on every one (same code,
/// same offset).
#[test]
fn dictionary_messages_with_hostile_edits() {
    let d = rec_dict();
    let seeds: Vec<(Options, Vec<u8>)> = TIERS
        .iter()
        .flat_map(|t| {
            let opts = t();
            let rows: Vec<Rec> = (0..20).map(rec).collect();
            let nested: Vec<Out2> = (0..4)
                .map(|r| Out2 {
                    id: r,
                    v: F64b(0.1 * r as f64),
                    inner: In2 {
                        id: -(r as i64),
                        v: F64b(0.2),
                    },
                })
                .collect();
            [
                qdf_core::to_vec_with_dictionary(&rows, opts, &d).unwrap(),
                qdf_core::to_vec_with_dictionary(&rows[..3], opts, &d).unwrap(),
                qdf_core::to_vec_with_dictionary(&nested, opts, &d).unwrap(),
            ]
            .map(|m| (opts, m))
        })
        .collect();
    let mut next = xorshift(0xb7ea_c0de);
    let mut bad = Vec::new();
    for (opts, seed) in &seeds {
        if seed[4] & 0x20 != 0 {
            for i in 5..13 {
                let mut m = seed.clone();
                m[i] ^= 0x40;
                let e =
                    qdf_core::from_slice_with_dictionary::<Vec<Rec>>(&m, *opts, &d).unwrap_err();
                assert!(
                    matches!(e.code(), ErrorCode::UnknownDictionary { .. }),
                    "{e}"
                );
                assert_eq!(e.offset(), Some(5));
            }
        }
        for _ in 0..400 {
            let mut m = seed.clone();
            let keep = if seed[4] & 0x20 != 0 { 13 } else { 5 };
            let mut body = m.split_off(keep);
            body.splice(0..0, [0u8; 5]);
            mutate(&mut body, &mut next);
            m.extend_from_slice(&body[5..]);
            let _ = qdf_core::from_slice_with_dictionary::<Vec<Rec>>(&m, *opts, &d);
            let _ = qdf_core::from_slice_with_dictionary::<Vec<Out2>>(&m, *opts, &d);
            bad.extend(crate::inspect::dictionary_disagreement(&m, opts, &d));
        }
    }
    assert!(
        bad.is_empty(),
        "{} disagreements, first: {}",
        bad.len(),
        bad[0]
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Any records on the dictionary, row form and columnar.
    #[test]
    fn dictionary_any_records(rows in prop::collection::vec(
        (any::<u64>(), any::<i64>(), f64_any(), any::<u32>(), prop::option::of(any::<u64>()), 0..4usize),
        0..24,
    )) {
        let d = rec_dict();
        let rows: Vec<Rec> = rows.into_iter().map(|(ts, i, v, g, n, s)| Rec {
            ts, i, v, g: F32b(f32::from_bits(g)), n,
            name: ["alpha", "beta", "", "zeta"][s].into(),
        }).collect();
        dict_rt(&rows, &d, false);
    }
}

/// A hand-written `Serialize` that adds a field `d` to some rows only (a derived
/// `Deserialize` would ignore it, so compare the decoded `Value` with `to_value`).
#[derive(Debug, PartialEq, Clone)]
struct Extra {
    a: u32,
    c: i64,
}

impl Serialize for Extra {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let extra = self.a % 5 == 3;
        let mut st = s.serialize_struct("Extra", 2 + usize::from(extra))?;
        st.serialize_field("a", &self.a)?;
        if extra {
            st.serialize_field("d", &(self.a as f64 + 0.5))?;
        }
        st.serialize_field("c", &self.c)?;
        st.end()
    }
}

/// Decoded `Value` equals `to_value` of the rows in every tier: no field dropped, added or
/// moved (rows in varying field order, with a field missing or extra in some rows).
#[test]
fn flat_rows_keep_every_field_of_every_row() {
    fn check<T: Serialize>(rows: &T) {
        let want = qdf_core::to_value(rows).unwrap();
        for tier in TIERS {
            let opts = tier();
            let bytes = qdf_core::to_vec_with(rows, opts).unwrap();
            let got: Value = qdf_core::from_slice_with(&bytes, opts).unwrap();
            assert_eq!(got, want, "{:?}", opts.features);
        }
    }
    for n in [15, 16, 17, 40] {
        check(
            &(0..n as u32)
                .map(|a| Extra { a, c: -(a as i64) })
                .collect::<Vec<_>>(),
        );
        check(
            &(0..n as u64)
                .map(|a| Shuffled {
                    a,
                    b: F64b(a as f64),
                    c: String::new(),
                })
                .collect::<Vec<_>>(),
        );
        check(
            &(0..n as u32)
                .map(|r| Holey {
                    a: r,
                    b: if r % 4 == 2 { 0 } else { r },
                    c: r,
                })
                .collect::<Vec<_>>(),
        );
    }
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Big {
    ts: u128,
    v: i128,
    w: u64,
}

/// 128-bit integers in a shaped record: steps between them exceed 64 bits.
#[test]
fn dictionary_records_of_128_bit_integers() {
    let d = Dictionary::from_strs(["x"])
        .unwrap()
        .with_shapes([["ts", "v", "w"]])
        .unwrap();
    let us = [
        u128::MAX,
        0,
        u64::MAX as u128 + 1,
        u64::MAX as u128,
        u128::MAX - 1,
        1,
        1,
        1 << 100,
    ];
    let is = [
        i128::MIN,
        i128::MAX,
        i64::MIN as i128 - 1,
        0,
        -1,
        i128::MIN,
        i128::MIN,
    ];
    for n in [2, 8, 16, 20] {
        let rows: Vec<Big> = (0..n)
            .map(|r| Big {
                ts: us[r % us.len()],
                v: is[r % is.len()],
                w: if r % 2 == 0 { u64::MAX } else { 0 },
            })
            .collect();
        dict_rt(&rows, &d, false);
    }
}
