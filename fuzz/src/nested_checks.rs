//! The `nested_round_trip` check (issues #20 and #27): a nested batch built from the fuzz
//! input with `arbitrary` — sibling lists of records under groups (the OTLP grouping), records
//! holding attribute lists of recursive values, maps, `Vec<(K, V)>`, tuples, unit enums and
//! `Option<enum>`, packed lists, `Vec<Vec<bool>>`, optional structs, and strings that look
//! like decimal integers or hex ids, canonical or not — encoded in every tier:
//!
//! - each tier's bytes decode back to the batch (floats by bits), through the typed target
//!   and through `Value` re-encoded in the same tier;
//! - a target naming fewer fields at every level reads the projection of the batch;
//! - the input itself, and the Balanced encoding with one byte changed where the input says,
//!   decoded as the batch type never panic (errors are fine).
//!
//! Row counts favour the columnar threshold (15, 16, 17) and go up to 40 per list (issue
//! #27's sibling lists), so one run stays cheap.

use std::collections::BTreeMap;

use arbitrary::{Result as ArbResult, Unstructured};
use qdf_core::{Options, Value};
use serde::{Deserialize, Serialize};

use super::encode_checks::{F32b, F64b};

/// A unit-variant enum.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    /// Variant 0.
    Internal,
    /// Variant 1.
    Server,
    /// Variant 2.
    Client,
}

/// An attribute value: OTLP's `AnyValue` with ints as decimal strings (the JSON mapping).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
#[allow(clippy::enum_variant_names)] // the OTLP/JSON mapping's names
pub enum Val {
    /// A string.
    StringValue(String),
    /// A decimal string (canonical or not).
    IntValue(String),
    /// A bool.
    BoolValue(bool),
    /// A double.
    DoubleValue(F64b),
    /// A list of values.
    ArrayValue(Vec<Val>),
}

/// A key/value attribute.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Attr {
    /// The key.
    pub key: String,
    /// The value, absent in some.
    pub value: Option<Val>,
}

/// A 3-vector of f32.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq)]
pub struct P3 {
    /// x.
    pub x: F32b,
    /// y.
    pub y: F32b,
    /// z.
    pub z: F32b,
}

/// One record: the nested shapes of issue #20.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Rec {
    /// An id.
    pub id: u64,
    /// A decimal-looking string (a time in the OTLP/JSON mapping).
    pub time: String,
    /// A hex-looking string (a span id).
    pub hex: String,
    /// A unit enum.
    pub kind: Kind,
    /// An optional unit enum.
    pub level: Option<Kind>,
    /// Attributes.
    pub attrs: Vec<Attr>,
    /// A string-keyed map.
    pub tags: BTreeMap<String, u32>,
    /// Pairs.
    pub pairs: Vec<(String, i64)>,
    /// A tuple.
    pub tup: (u8, u32, u16),
    /// A packed list.
    pub shorts: Vec<u16>,
    /// Lists of lists.
    pub fog: Vec<Vec<bool>>,
    /// An optional struct.
    pub pos: Option<P3>,
    /// A float.
    pub weight: F64b,
    /// A nested record list (a third level of rows).
    pub children: Vec<Child>,
}

/// A record inside a record.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Child {
    /// A time.
    pub time: u64,
    /// A name.
    pub name: String,
    /// Attributes.
    pub attrs: Vec<Attr>,
}

/// A group of sibling record lists (a resource with its scope lists).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Group {
    /// The group's attributes.
    pub attrs: Vec<Attr>,
    /// Sibling lists of records.
    pub lists: Vec<Vec<Rec>>,
}

/// The fuzzed message.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Batch {
    /// Groups.
    pub groups: Vec<Group>,
}

/// [`Batch`] read with fewer fields at every level.
pub mod subset {
    use serde::Deserialize;

    /// [`super::Batch`].
    #[derive(Deserialize, Debug, PartialEq)]
    pub struct Batch {
        /// Groups.
        pub groups: Vec<Group>,
    }
    /// [`super::Group`] without attributes.
    #[derive(Deserialize, Debug, PartialEq)]
    pub struct Group {
        /// Lists.
        pub lists: Vec<Vec<Rec>>,
    }
    /// [`super::Rec`]: id, time and the children's names.
    #[derive(Deserialize, Debug, PartialEq)]
    pub struct Rec {
        /// Id.
        pub id: u64,
        /// Time.
        pub time: String,
        /// Children.
        pub children: Vec<Child>,
    }
    /// [`super::Child`]: the name only.
    #[derive(Deserialize, Debug, PartialEq)]
    pub struct Child {
        /// Name.
        pub name: String,
    }
}

/// The projection of `b` onto [`subset::Batch`].
pub fn project(b: &Batch) -> subset::Batch {
    let rec = |r: &Rec| subset::Rec {
        id: r.id,
        time: r.time.clone(),
        children: r
            .children
            .iter()
            .map(|c| subset::Child {
                name: c.name.clone(),
            })
            .collect(),
    };
    subset::Batch {
        groups: b
            .groups
            .iter()
            .map(|g| subset::Group {
                lists: g
                    .lists
                    .iter()
                    .map(|l| l.iter().map(rec).collect())
                    .collect(),
            })
            .collect(),
    }
}

const KEYS: [&str; 6] = [
    "http.method",
    "http.status_code",
    "rpc.service",
    "db.system",
    "peer",
    "",
];

/// A row count: the threshold and its neighbours often, else up to `max`.
fn count(u: &mut Unstructured<'_>, max: usize) -> ArbResult<usize> {
    Ok(match u.int_in_range(0u8..=7)? {
        0 => 15,
        1 => 16,
        2 => 17,
        3 => 1,
        4 => 0,
        _ => u.int_in_range(0..=max)?,
    })
}

/// A decimal-looking string: canonical integers of every width, and the non-canonical forms
/// (`007`, `+1`, `-0`, `1e3`, past u128) that must come back as written.
fn decimal(u: &mut Unstructured<'_>) -> ArbResult<String> {
    let n: u64 = u.arbitrary()?;
    Ok(match u.int_in_range(0u8..=9)? {
        0..=3 => (1_748_779_200_000_000_000u64.wrapping_add(n % 1_000_000_000)).to_string(),
        4 => (n as i64).to_string(),
        5 => u.arbitrary::<i128>()?.to_string(),
        6 => u.arbitrary::<u128>()?.to_string(),
        7 => ["007", "+1", "-0", "1e3", "", "00", "-", " 5"][(n % 8) as usize].to_owned(),
        8 => format!("{}0", u128::MAX),
        _ => format!("0{n}"),
    })
}

/// A hex-looking string: lower or upper case of a fixed length usually, else odd lengths,
/// mixed case and a non-hex digit.
fn hex(u: &mut Unstructured<'_>, fixed: usize) -> ArbResult<String> {
    let n: u128 = u.arbitrary()?;
    let lower = format!("{n:032x}");
    Ok(match u.int_in_range(0u8..=7)? {
        0..=3 => lower[..fixed].to_owned(),
        4 => lower[..fixed].to_uppercase(),
        5 => lower[..fixed - 1].to_owned(),
        6 => format!("A{}", &lower[1..fixed]),
        _ => format!("{}g", &lower[1..fixed]),
    })
}

fn val(u: &mut Unstructured<'_>, depth: u32) -> ArbResult<Val> {
    let top = if depth == 0 { 3 } else { 4 };
    Ok(match u.int_in_range(0u8..=top)? {
        0 => Val::StringValue(KEYS[u.choose_index(KEYS.len())?].to_owned()),
        1 => Val::IntValue(decimal(u)?),
        2 => Val::BoolValue(u.arbitrary()?),
        3 => Val::DoubleValue(F64b(f64::from_bits(u.arbitrary()?))),
        _ => {
            let n = u.int_in_range(0..=3)?;
            Val::ArrayValue(
                (0..n)
                    .map(|_| val(u, depth - 1))
                    .collect::<ArbResult<_>>()?,
            )
        }
    })
}

fn attrs(u: &mut Unstructured<'_>) -> ArbResult<Vec<Attr>> {
    let n = u.int_in_range(0..=5)?;
    (0..n)
        .map(|_| {
            Ok(Attr {
                key: KEYS[u.choose_index(KEYS.len())?].to_owned(),
                value: if u.ratio(1, 6)? {
                    None
                } else {
                    Some(val(u, 2)?)
                },
            })
        })
        .collect()
}

fn kind(u: &mut Unstructured<'_>) -> ArbResult<Kind> {
    Ok([Kind::Internal, Kind::Server, Kind::Client][u.choose_index(3)?])
}

fn f32b(u: &mut Unstructured<'_>) -> ArbResult<F32b> {
    Ok(F32b(f32::from_bits(u.arbitrary()?)))
}

fn rec(u: &mut Unstructured<'_>) -> ArbResult<Rec> {
    let small = |u: &mut Unstructured<'_>| u.int_in_range(0..=4usize);
    Ok(Rec {
        id: u.arbitrary()?,
        time: decimal(u)?,
        hex: hex(u, 16)?,
        kind: kind(u)?,
        level: if u.arbitrary()? { Some(kind(u)?) } else { None },
        attrs: attrs(u)?,
        tags: (0..small(u)?)
            .map(|_| Ok((KEYS[u.choose_index(KEYS.len())?].to_owned(), u.arbitrary()?)))
            .collect::<ArbResult<_>>()?,
        pairs: (0..small(u)?)
            .map(|_| Ok((decimal(u)?, u.arbitrary()?)))
            .collect::<ArbResult<_>>()?,
        tup: u.arbitrary()?,
        shorts: (0..small(u)?)
            .map(|_| u.arbitrary())
            .collect::<ArbResult<_>>()?,
        fog: (0..small(u)?)
            .map(|_| {
                let n = small(u)?;
                (0..n).map(|_| u.arbitrary()).collect::<ArbResult<_>>()
            })
            .collect::<ArbResult<_>>()?,
        pos: if u.arbitrary()? {
            Some(P3 {
                x: f32b(u)?,
                y: f32b(u)?,
                z: f32b(u)?,
            })
        } else {
            None
        },
        weight: F64b(f64::from_bits(u.arbitrary()?)),
        children: {
            let n = if u.ratio(1, 8)? {
                count(u, 20)?
            } else {
                small(u)?
            };
            (0..n)
                .map(|_| {
                    Ok(Child {
                        time: u.arbitrary()?,
                        name: ["exception", "retry", ""][u.choose_index(3)?].to_owned(),
                        attrs: attrs(u)?,
                    })
                })
                .collect::<ArbResult<_>>()?
        },
    })
}

/// A batch from `u`: 1–3 groups of 1–7 sibling lists of up to 40 records (an input that
/// runs out gives what it has built so far, `arbitrary` filling the rest with zeros).
pub fn batch(u: &mut Unstructured<'_>) -> ArbResult<Batch> {
    let groups = u.int_in_range(1..=3)?;
    let groups = (0..groups)
        .map(|_| {
            let lists = u.int_in_range(1..=7)?;
            Ok(Group {
                attrs: attrs(u)?,
                lists: (0..lists)
                    .map(|_| {
                        let n = count(u, 40)?;
                        (0..n).map(|_| rec(u)).collect::<ArbResult<_>>()
                    })
                    .collect::<ArbResult<_>>()?,
            })
        })
        .collect::<ArbResult<_>>()?;
    Ok(Batch { groups })
}

/// Encodes, decodes and re-decodes `b` in every tier (see the module doc).
///
/// # Panics
/// On any mismatch or unexpected error: that is the finding.
pub fn check_batch(b: &Batch) {
    for opts in [
        Options::speed(),
        Options::balanced(),
        Options::compression(),
    ] {
        let bytes = qdf_core::to_vec_with(b, opts).expect("a nested batch encodes");
        let back: Batch = qdf_core::from_slice_with(&bytes, opts).expect("decodes typed");
        assert_eq!(&back, b, "typed round trip");
        let value: Value = qdf_core::from_slice_with(&bytes, opts).expect("decodes as Value");
        let again = qdf_core::to_vec_with(&value, opts).expect("Value re-encodes");
        let back2: Batch = qdf_core::from_slice_with(&again, opts).expect("Value bytes decode");
        assert_eq!(&back2, b, "round trip through Value");
        let sub: subset::Batch = qdf_core::from_slice_with(&bytes, opts).expect("subset decodes");
        assert_eq!(sub, project(b), "subset decode");
    }
}

/// The fuzz target's body: build a batch and check it; then decode the raw input, and the
/// Balanced encoding with one byte changed, as a batch (no panic allowed).
pub fn nested_round_trip(data: &[u8]) {
    let _ = qdf_core::from_slice::<Batch>(&super::message(data));
    let mut u = Unstructured::new(data);
    let Ok(b) = batch(&mut u) else { return };
    check_batch(&b);
    let mut bytes = qdf_core::to_vec_with(&b, Options::balanced()).expect("encodes");
    if let (Ok(at), Ok(x)) = (u.arbitrary::<u32>(), u.arbitrary::<u8>()) {
        let at = 5 + at as usize % (bytes.len() - 5);
        bytes[at] ^= x.max(1);
        let _ = qdf_core::from_slice::<Batch>(&bytes);
        let _ = qdf_core::from_slice::<subset::Batch>(&bytes);
        let _ = qdf_core::from_slice::<Value>(&bytes);
    }
}
