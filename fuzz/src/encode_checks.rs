//! The encoder-side check (`encode_round_trip`): arbitrary values, built from the fuzz input
//! with the `arbitrary` crate, through every tier and through sessions, with the rule of
//! `docs/SPEC.md` that whatever the encoder accepts the decoder accepts under the same options.
//!
//! For each generated message and each option set of [`option_sets`]:
//!
//! - `to_vec_with` either refuses (a `Limit` error, or any error for a value whose
//!   `Serialize` fails) or gives bytes that decode under the same options into the typed
//!   target (equal to the value, floats by bits), into [`Value`] (equal to the `Value` of the
//!   Speed encoding) and into `IgnoredAny`; the `Value` re-encodes in the tier and decodes back
//!   to the typed value;
//! - a value whose `Serialize` returns an error is refused;
//! - a value whose `Serialize` swallows an inner error is refused or decodes;
//! - cross-type reads: integers into float targets are exact or refused, a unit (serde's
//!   `null`) reads as `None` in an `Option` target.
//!
//! Then the messages, twice over, are frames of one `EncoderSession` per option set: a refused
//! frame leaves the output as it was, and every accepted frame decodes, in order, in a
//! `DecoderSession` (typed and `Value`), so a refusal never breaks the peer.

use std::collections::BTreeMap;
use std::fmt::{self, Debug};

use arbitrary::{Result as ArbResult, Unstructured};
use qdf_core::{Category, DecoderSession, EncoderSession, Error, Features, Options, Value};
use serde::de::DeserializeOwned;
use serde::ser::{
    SerializeMap, SerializeSeq, SerializeStruct, SerializeStructVariant, SerializeTupleStruct,
};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

// ---------------------------------------------------------------------------------------------
// The generated types.

/// An `f64` compared by bits; serialized as a plain `f64` (not a newtype struct), so a
/// `Vec<F64b>` takes the packed float paths like a `Vec<f64>`.
#[derive(Clone, Copy)]
pub struct F64b(pub f64);
/// An `f32` compared by bits; serialized as a plain `f32`.
#[derive(Clone, Copy)]
pub struct F32b(pub f32);

macro_rules! bits_float {
    ($t:ident, $f:ty, $ser:ident) => {
        impl PartialEq for $t {
            fn eq(&self, o: &Self) -> bool {
                self.0.to_bits() == o.0.to_bits()
            }
        }
        impl Debug for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{:?}(0x{:x})", self.0, self.0.to_bits())
            }
        }
        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.$ser(self.0)
            }
        }
        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                <$f>::deserialize(d).map($t)
            }
        }
    };
}
bits_float!(F64b, f64, serialize_f64);
bits_float!(F32b, f32, serialize_f32);

/// Bytes written with `serialize_bytes` (not as a sequence of `u8`).
#[derive(Clone, PartialEq)]
pub struct Blob(pub Vec<u8>);

impl Debug for Blob {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Blob[{}]", self.0.len())
    }
}
impl Serialize for Blob {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(&self.0)
    }
}
impl<'de> Deserialize<'de> for Blob {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Blob;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("bytes")
            }
            fn visit_bytes<E>(self, v: &[u8]) -> Result<Blob, E> {
                Ok(Blob(v.to_vec()))
            }
        }
        d.deserialize_byte_buf(V)
    }
}

/// A map that keeps entry order and allows any key type (keys may repeat: the decoder hands
/// every entry to the visitor).
#[derive(Clone, PartialEq, Debug)]
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
        impl<'de, K: Deserialize<'de>, V: Deserialize<'de>> serde::de::Visitor<'de> for Vis<K, V> {
            type Value = Ordered<K, V>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut a: A,
            ) -> Result<Self::Value, A::Error> {
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

/// A unit struct.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct UnitS;

/// A newtype struct.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct NewS(pub i32);

/// A tuple struct.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct TupS(pub u16, pub String, pub Option<i8>);

/// Any value of the serde model, as an externally tagged enum (so a typed target can read it
/// back exactly: every variant names its kind).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub enum Node {
    /// A unit variant.
    Empty,
    /// `()`.
    Unit(()),
    /// A unit struct.
    UnitStruct(UnitS),
    /// A newtype struct.
    New(NewS),
    /// A tuple struct.
    Tup(TupS),
    /// bool.
    Bool(bool),
    /// u8.
    U8(u8),
    /// u16.
    U16(u16),
    /// u32.
    U32(u32),
    /// u64.
    U64(u64),
    /// u128.
    U128(u128),
    /// i8.
    I8(i8),
    /// i16.
    I16(i16),
    /// i32.
    I32(i32),
    /// i64.
    I64(i64),
    /// i128.
    I128(i128),
    /// f32 (by bits).
    F32(F32b),
    /// f64 (by bits).
    F64(F64b),
    /// char.
    Char(char),
    /// A string.
    Str(String),
    /// Bytes.
    Bytes(Blob),
    /// An option of anything.
    Opt(Option<Box<Node>>),
    /// Nested options.
    OptOpt(Option<Option<()>>),
    /// A sequence.
    Seq(Vec<Node>),
    /// A tuple variant.
    Pair(i64, String),
    /// A struct variant.
    Rec {
        /// Anything.
        a: Box<Node>,
        /// A packable sequence.
        b: Vec<u8>,
        /// A string.
        c: String,
    },
    /// A string-keyed map.
    Map(BTreeMap<String, Node>),
    /// A map with keys of any kind, in order.
    AnyMap(Ordered<Node, Node>),
    /// A batch of rows (columnar from 16 rows in the Dense tiers).
    Rows(Vec<Row>),
    /// Packable sequences.
    Nums(Box<Nums>),
}

/// A row of flat fields (columns: ints, floats, bools, strings, presence and null masks).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Row {
    /// An id (progressions).
    pub id: u32,
    /// A signed value.
    pub delta: i64,
    /// A small value.
    pub small: u8,
    /// A flag.
    pub flag: bool,
    /// A string (from the input's pool, so repeated across rows and frames).
    pub name: String,
    /// An f64.
    pub took: F64b,
    /// An f32.
    pub ratio: F32b,
    /// Present in some rows only (a presence mask).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag: Option<String>,
    /// `None` in some rows (a null mask).
    pub maybe: Option<i16>,
}

/// A row with fields that are not one primitive kind (hybrid containers, residual columns).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Wide {
    /// A big unsigned.
    pub big: u128,
    /// A big signed.
    pub neg: i128,
    /// A char.
    pub ch: char,
    /// `()`.
    pub unit: (),
    /// Nested options of unit.
    pub oo: Option<Option<()>>,
    /// Bytes.
    pub bytes: Blob,
    /// A string.
    pub s: String,
    /// Anything.
    pub node: Node,
    /// A short sequence.
    pub list: Vec<u16>,
    /// A nested row.
    pub row: Option<Box<Row>>,
}

/// Sequences of one numeric kind (the QPack paths).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Nums {
    /// Signed.
    pub i: Vec<i64>,
    /// Unsigned.
    pub u: Vec<u32>,
    /// f64.
    pub f: Vec<F64b>,
    /// f32.
    pub g: Vec<F32b>,
    /// Bools.
    pub b: Vec<bool>,
    /// Small signed.
    pub s: Vec<i8>,
}

/// The `{id, s}` record of issue #16.1.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct IdStr {
    /// An id.
    pub id: u32,
    /// A (long, repeated) string.
    pub s: String,
}

/// Integers, to be read back into [`FloatsRow`].
#[derive(Serialize, Debug, Clone)]
pub struct IntsRow {
    /// Into an f64.
    pub a: i64,
    /// Into an f64.
    pub b: u64,
    /// Into an f32.
    pub c: u32,
    /// Into an f32 (always exact).
    pub d: i16,
}

/// [`IntsRow`] as floats.
#[derive(Deserialize, Debug, Clone, PartialEq)]
pub struct FloatsRow {
    /// From an i64.
    pub a: F64b,
    /// From a u64.
    pub b: F64b,
    /// From a u32.
    pub c: F32b,
    /// From an i16.
    pub d: F32b,
}

/// Integers read into float targets on the row, columnar and packed paths.
#[derive(Serialize, Debug, Clone)]
pub struct IntFloat {
    /// Row path.
    pub one: IntsRow,
    /// Columnar path (when 16 rows or more).
    pub rows: Vec<IntsRow>,
    /// Packed path.
    pub packed: Vec<i64>,
    /// Packed path, into f32.
    pub packed32: Vec<u32>,
}

/// [`IntFloat`] as floats.
#[derive(Deserialize, Debug, Clone, PartialEq)]
pub struct IntFloatTarget {
    /// See [`IntFloat::one`].
    pub one: FloatsRow,
    /// See [`IntFloat::rows`].
    pub rows: Vec<FloatsRow>,
    /// See [`IntFloat::packed`].
    pub packed: Vec<F64b>,
    /// See [`IntFloat::packed32`].
    pub packed32: Vec<F32b>,
}

/// An option written the way other formats' `null` arrives (serde_json's `Value::Null`):
/// `None` as a unit, `Some(x)` as `x` itself.
#[derive(Debug, Clone)]
pub struct NullOr<T>(pub Option<T>);

impl<T: Serialize> Serialize for NullOr<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            None => s.serialize_unit(),
            Some(x) => x.serialize(s),
        }
    }
}

/// Nulls as units, to be read back into [`OptRow`].
#[derive(Serialize, Debug, Clone)]
pub struct NullRow {
    /// An optional number.
    pub a: NullOr<u64>,
    /// An optional string.
    pub b: NullOr<String>,
    /// Always there.
    pub c: u8,
}

/// [`NullRow`] as options.
#[derive(Deserialize, Debug, Clone, PartialEq)]
pub struct OptRow {
    /// See [`NullRow::a`].
    pub a: Option<u64>,
    /// See [`NullRow::b`].
    pub b: Option<String>,
    /// See [`NullRow::c`].
    pub c: u8,
}

/// Nulls on the row and columnar paths and bare.
#[derive(Serialize, Debug, Clone)]
pub struct Nulls {
    /// Row path.
    pub one: NullRow,
    /// Columnar path (when 16 rows or more).
    pub rows: Vec<NullRow>,
    /// A bare null or number.
    pub bare: NullOr<i32>,
}

/// [`Nulls`] as options.
#[derive(Deserialize, Debug, Clone, PartialEq)]
pub struct NullsTarget {
    /// See [`Nulls::one`].
    pub one: OptRow,
    /// See [`Nulls::rows`].
    pub rows: Vec<OptRow>,
    /// See [`Nulls::bare`].
    pub bare: Option<i32>,
}

/// How a [`Bad`] value fails.
#[derive(Debug, Clone, Copy)]
pub enum BadKind {
    /// Returns an error at once.
    Now,
    /// Opens a 2-element sequence, writes one element, fails.
    SeqHalf,
    /// Opens a map, writes a key, fails before the value.
    MapHalf,
    /// Opens a 2-field struct, writes one field, fails.
    StructHalf,
    /// Writes a field holding a fresh string (interned in the Dense tiers), then fails.
    InternThenFail,
    /// A sequence holding a `SeqHalf` failure one level down.
    Deep,
}

/// A value whose `Serialize` fails part-way.
#[derive(Debug, Clone)]
pub struct Bad {
    /// How.
    pub kind: BadKind,
    /// A string it may write before failing.
    pub text: String,
}

fn bad<E: serde::ser::Error>() -> E {
    E::custom("fuzz: a Serialize impl failed")
}

impl Serialize for Bad {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.kind {
            BadKind::Now => Err(bad()),
            BadKind::SeqHalf => {
                let mut q = s.serialize_seq(Some(2))?;
                q.serialize_element(&1u8)?;
                Err(bad())
            }
            BadKind::MapHalf => {
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_key(&self.text)?;
                Err(bad())
            }
            BadKind::StructHalf => {
                let mut st = s.serialize_struct("Bad", 2)?;
                st.serialize_field("first", &7u32)?;
                Err(bad())
            }
            BadKind::InternThenFail => {
                let mut st = s.serialize_struct("BadIntern", 2)?;
                st.serialize_field("text", &self.text)?;
                Err(bad())
            }
            BadKind::Deep => {
                let mut q = s.serialize_seq(Some(2))?;
                q.serialize_element(&Bad {
                    kind: BadKind::SeqHalf,
                    text: String::new(),
                })?;
                q.end()
            }
        }
    }
}

/// Where a [`Swallow`] ignores its inner error.
#[derive(Debug, Clone, Copy)]
pub enum SwallowIn {
    /// `serialize_field("x", &Bad)` ignored, then `serialize_field("y", ..)` (issue #16.3).
    Struct,
    /// A 2-element sequence: the `Bad` element ignored, then a second element.
    Seq,
    /// A map: the entry `("x", Bad)` ignored, then `("y", ..)`.
    Map,
    /// A tuple struct.
    TupleStruct,
    /// A struct variant.
    StructVariant,
}

/// A value whose `Serialize` ignores the error of an inner value and goes on.
#[derive(Debug, Clone)]
pub struct Swallow {
    /// The compound that ignores the error.
    pub at: SwallowIn,
    /// The inner failure; `None`: nothing fails (the same shape, written correctly).
    pub bad: Option<Bad>,
    /// The value written after it.
    pub after: u8,
}

impl Serialize for Swallow {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        macro_rules! inner {
            ($write:expr, $ok:expr) => {
                match &self.bad {
                    Some(b) => {
                        let _ = $write(b);
                    }
                    None => $ok?,
                }
            };
        }
        match self.at {
            SwallowIn::Struct => {
                let mut st = s.serialize_struct("Swallow", 2)?;
                inner!(
                    |b| st.serialize_field("x", b),
                    st.serialize_field("x", &0u8)
                );
                st.serialize_field("y", &self.after)?;
                st.end()
            }
            SwallowIn::Seq => {
                let mut q = s.serialize_seq(Some(2))?;
                inner!(|b| q.serialize_element(b), q.serialize_element(&0u8));
                q.serialize_element(&self.after)?;
                q.end()
            }
            SwallowIn::Map => {
                let mut m = s.serialize_map(Some(2))?;
                inner!(|b| m.serialize_entry("x", b), m.serialize_entry("x", &0u8));
                m.serialize_entry("y", &self.after)?;
                m.end()
            }
            SwallowIn::TupleStruct => {
                let mut t = s.serialize_tuple_struct("SwallowT", 2)?;
                inner!(|b| t.serialize_field(b), t.serialize_field(&0u8));
                t.serialize_field(&self.after)?;
                t.end()
            }
            SwallowIn::StructVariant => {
                let mut v = s.serialize_struct_variant("SwallowE", 1, "V", 2)?;
                inner!(|b| v.serialize_field("x", b), v.serialize_field("x", &0u8));
                v.serialize_field("y", &self.after)?;
                v.end()
            }
        }
    }
}

/// A row with a swallowing field, for batches (the columnar capture's guard).
#[derive(Serialize, Debug, Clone)]
pub struct SwallowRow {
    /// Flat fields.
    pub id: u32,
    /// A string.
    pub name: String,
    /// The swallowing value.
    pub sw: Swallow,
}

/// Values whose `Serialize` ignores an inner error (issue #16.3).
#[derive(Serialize, Debug, Clone)]
pub struct Swallows {
    /// Rows before.
    pub rows: Vec<Row>,
    /// One swallowing value.
    pub one: Swallow,
    /// A batch with swallowing fields.
    pub batch: Vec<SwallowRow>,
}

/// A batch of rows of which one fails (its error is returned): the encoder must refuse it.
#[derive(Debug, Clone)]
pub struct Failing {
    /// The rows.
    pub rows: Vec<Row>,
    /// The index of the failing element (may be past the end: then after the last row).
    pub at: usize,
    /// How it fails.
    pub bad: Bad,
}

impl Serialize for Failing {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let at = self.at.min(self.rows.len());
        let mut q = s.serialize_seq(Some(self.rows.len() + 1))?;
        for (i, r) in self.rows.iter().enumerate() {
            if i == at {
                q.serialize_element(&self.bad)?;
            }
            q.serialize_element(r)?;
        }
        if at == self.rows.len() {
            q.serialize_element(&self.bad)?;
        }
        q.end()
    }
}

/// One generated message.
#[derive(Debug, Clone)]
pub enum Msg {
    /// Anything, typed.
    Node(Node),
    /// A batch of flat rows.
    Rows(Vec<Row>),
    /// A batch of wide rows.
    Wides(Vec<Wide>),
    /// Long repeated strings (issue #16.1's `vec!["x".repeat(1100); 1000]`).
    Texts(Vec<String>),
    /// Records with a long repeated string (issue #16.1's second case).
    IdStrs(Vec<IdStr>),
    /// Integers read as floats (issue #16.5).
    IntFloat(IntFloat),
    /// Nulls read as options (issue #16.2).
    Nulls(Nulls),
    /// Swallowed inner errors (issue #16.3).
    Swallows(Swallows),
    /// A failing `Serialize`.
    Failing(Failing),
}

impl Serialize for Msg {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Msg::Node(v) => v.serialize(s),
            Msg::Rows(v) => v.serialize(s),
            Msg::Wides(v) => v.serialize(s),
            Msg::Texts(v) => v.serialize(s),
            Msg::IdStrs(v) => v.serialize(s),
            Msg::IntFloat(v) => v.serialize(s),
            Msg::Nulls(v) => v.serialize(s),
            Msg::Swallows(v) => v.serialize(s),
            Msg::Failing(v) => v.serialize(s),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Generation.

/// Bytes of strings, byte strings and rows one input may build (the whole set of messages),
/// so an input stays a few milliseconds of work; enough for issue #16.1's 1.1 MB case.
const BUILD_BUDGET: usize = 2 << 20;

/// Strings the generator starts from: the empty string, short ones (under the intern
/// minimum), long ones, non-ASCII, look-alikes of tags.
const TEXTS: &[&str] = &[
    "",
    "x",
    "ab",
    "web-1",
    "common",
    "GET /api/v1/items",
    "é",
    "🦀 crab",
    "\u{0}",
    "null",
    "a string longer than thirty-one bytes, for str8",
];

struct Gen<'a, 'b> {
    u: &'b mut Unstructured<'a>,
    /// What is left of [`BUILD_BUDGET`].
    budget: usize,
    /// Strings made so far: later strings reuse them (repeats across rows and frames).
    pool: Vec<String>,
}

impl Gen<'_, '_> {
    fn charge(&mut self, n: usize) -> usize {
        let n = n.min(self.budget);
        self.budget -= n;
        n
    }

    fn pick(&mut self, n: u32) -> ArbResult<u32> {
        self.u.int_in_range(0..=n - 1)
    }

    fn text(&mut self) -> ArbResult<String> {
        let s = match self.pick(6)? {
            0 => (*self.u.choose(TEXTS)?).to_owned(),
            1 if !self.pool.is_empty() => self.u.choose(&self.pool)?.clone(),
            2 => {
                let s: String = self.u.arbitrary()?;
                s.chars().take(40).collect()
            }
            3 => {
                // A long repeated string (interned once, decoded many times).
                let piece = (*self.u.choose(TEXTS)?).to_owned();
                let piece = if piece.is_empty() {
                    "x".to_owned()
                } else {
                    piece
                };
                let n = match self.pick(4)? {
                    0 => 1100 / piece.len(),
                    1 => 4367 / piece.len(),
                    _ => self.u.int_in_range(0..=1500usize)?,
                };
                let n = self.charge(n * piece.len()) / piece.len();
                piece.repeat(n)
            }
            4 => format!(
                "{}-{}",
                self.u.choose(TEXTS)?,
                self.u.int_in_range(0..=999u32)?
            ),
            _ => (*self.u.choose(TEXTS)?).to_owned(),
        };
        if self.pool.len() < 16 {
            self.pool.push(s.clone());
        }
        Ok(s)
    }

    fn blob(&mut self) -> ArbResult<Blob> {
        Ok(Blob(match self.pick(3)? {
            0 => Vec::new(),
            1 => {
                let n = self.u.int_in_range(0..=48usize)?.min(self.u.len());
                self.u.bytes(n)?.to_vec()
            }
            _ => {
                let b: u8 = self.u.arbitrary()?;
                let n = self.u.int_in_range(0..=1200usize)?;
                vec![b; self.charge(n)]
            }
        }))
    }

    fn f64(&mut self) -> ArbResult<F64b> {
        const SPECIAL: &[u64] = &[
            0,
            0x8000_0000_0000_0000, // -0.0
            0x7FF8_0000_0000_0000, // NaN
            0x7FF0_0000_0000_0001, // signalling NaN
            0xFFF8_0000_0000_00FF, // negative NaN with a payload
            0x7FF0_0000_0000_0000, // inf
            0xFFF0_0000_0000_0000, // -inf
            0x0000_0000_0000_0001, // smallest subnormal
            0x0010_0000_0000_0000, // MIN_POSITIVE
            0x7FEF_FFFF_FFFF_FFFF, // MAX
            0x4340_0000_0000_0000, // 2^53
            0x3FB9_9999_9999_999A, // 0.1
        ];
        Ok(F64b(match self.pick(5)? {
            0 => f64::from_bits(*self.u.choose(SPECIAL)?),
            1 => f64::from_bits(self.u.arbitrary()?),
            2 => f64::from(self.u.arbitrary::<i32>()?) / 100.0,
            3 => f64::from(self.u.arbitrary::<i16>()?),
            _ => f64::from(self.u.arbitrary::<f32>()?),
        }))
    }

    fn f32(&mut self) -> ArbResult<F32b> {
        const SPECIAL: &[u32] = &[
            0,
            0x8000_0000, // -0.0
            0x7FC0_0000, // NaN
            0x7F80_0001, // signalling NaN
            0xFFC0_00FF, // negative NaN with a payload
            0x7F80_0000, // inf
            0xFF80_0000, // -inf
            0x0000_0001, // smallest subnormal
            0x7F7F_FFFF, // MAX
            0x4B80_0000, // 2^24
        ];
        Ok(F32b(match self.pick(4)? {
            0 => f32::from_bits(*self.u.choose(SPECIAL)?),
            1 => f32::from_bits(self.u.arbitrary()?),
            2 => f32::from(self.u.arbitrary::<i16>()?) / 10.0,
            _ => f32::from(self.u.arbitrary::<i8>()?),
        }))
    }

    /// A number of rows: often none or a few, often around the columnar minimum of 16, now and
    /// then many (1 in 32: the output-budget cases, which cost tens of milliseconds).
    fn count(&mut self) -> ArbResult<usize> {
        Ok(match self.pick(32)? {
            0..=3 => 0,
            4..=9 => self.u.int_in_range(1..=15)?,
            10..=11 => 15,
            12..=14 => 16,
            15..=16 => 17,
            17..=26 => self.u.int_in_range(16..=80)?,
            27..=30 => self.u.int_in_range(80..=400)?,
            _ => self.u.int_in_range(900..=1100)?,
        })
    }

    /// `n` integers of a column in `lo..=hi`: constant, a progression, cycling, or per row.
    fn ints(&mut self, n: usize, lo: i128, hi: i128) -> ArbResult<Vec<i128>> {
        let span = hi - lo + 1;
        let fit = |x: i128| lo + (x - lo).rem_euclid(span);
        let start: i64 = self.u.arbitrary()?;
        let mode = self.pick(5)?;
        let step = i128::from(self.u.int_in_range(-3i8..=20)?);
        let cycle: Vec<i64> = (0..self.u.int_in_range(1..=4usize)?)
            .map(|_| self.u.arbitrary())
            .collect::<ArbResult<_>>()?;
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            let i = i as i128;
            out.push(fit(match mode {
                0 => i128::from(start),
                1 => i128::from(start) + i * step,
                2 => i128::from(cycle[i as usize % cycle.len()]),
                3 => i128::from(self.u.arbitrary::<i64>()?),
                _ => {
                    i128::from(start % 1000) + i * step + i128::from(self.u.int_in_range(0..=3u8)?)
                }
            }));
        }
        Ok(out)
    }

    fn floats(&mut self, n: usize) -> ArbResult<Vec<F64b>> {
        let base = self.f64()?;
        Ok(match self.pick(4)? {
            0 => vec![base; n],
            1 => (0..n).map(|i| F64b(base.0 + i as f64 * 0.25)).collect(),
            2 => (0..n)
                .map(|i| F64b(((i as f64) * 1.37 + base.0).round() / 100.0))
                .collect(),
            _ => (0..n).map(|_| self.f64()).collect::<ArbResult<_>>()?,
        })
    }

    fn rows(&mut self) -> ArbResult<Vec<Row>> {
        let n = self.count()?;
        let names: Vec<String> = (0..self.u.int_in_range(1..=4usize)?)
            .map(|_| self.text())
            .collect::<ArbResult<_>>()?;
        let widest = names.iter().map(String::len).max().unwrap_or(0) + 64;
        let n = self.charge(n * widest) / widest;
        let id = self.ints(n, 0, u32::MAX.into())?;
        let delta = self.ints(n, i64::MIN.into(), i64::MAX.into())?;
        let small = self.ints(n, 0, 255)?;
        let took = self.floats(n)?;
        let ratio = self.f32()?;
        let tags = self.pick(3)?;
        let nulls = self.pick(3)?;
        let mut rows = Vec::with_capacity(n);
        for i in 0..n {
            rows.push(Row {
                id: id[i] as u32,
                delta: delta[i] as i64,
                small: small[i] as u8,
                flag: i % 3 == 0,
                name: names[i % names.len()].clone(),
                took: took[i],
                ratio: F32b(ratio.0 * (i % 4) as f32),
                tag: match tags {
                    0 => None,
                    1 => (i % 5 == 1).then(|| names[0].clone()),
                    _ => Some(names[names.len() - 1].clone()),
                },
                maybe: match nulls {
                    0 => None,
                    1 => (i % 2 == 0).then_some(i as i16),
                    _ => Some(-(i as i16)),
                },
            });
        }
        Ok(rows)
    }

    fn row(&mut self) -> ArbResult<Row> {
        Ok(Row {
            id: self.u.arbitrary()?,
            delta: self.u.arbitrary()?,
            small: self.u.arbitrary()?,
            flag: self.u.arbitrary()?,
            name: self.text()?,
            took: self.f64()?,
            ratio: self.f32()?,
            tag: if self.u.arbitrary()? {
                Some(self.text()?)
            } else {
                None
            },
            maybe: self.u.arbitrary()?,
        })
    }

    fn node(&mut self, depth: u32) -> ArbResult<Node> {
        // Leaves first: an exhausted input picks variant 0.
        const LEAVES: u32 = 21;
        let k = self.pick(if depth == 0 { LEAVES } else { LEAVES + 9 })?;
        let u = &mut *self.u;
        Ok(match k {
            0 => Node::Empty,
            1 => Node::Unit(()),
            2 => Node::UnitStruct(UnitS),
            3 => Node::New(NewS(u.arbitrary()?)),
            4 => Node::Tup(TupS(u.arbitrary()?, self.text()?, self.u.arbitrary()?)),
            5 => Node::Bool(u.arbitrary()?),
            6 => Node::U8(u.arbitrary()?),
            7 => Node::U16(u.arbitrary()?),
            8 => Node::U32(u.arbitrary()?),
            9 => Node::U64(u.arbitrary()?),
            10 => Node::U128(u.arbitrary()?),
            11 => Node::I8(u.arbitrary()?),
            12 => Node::I16(u.arbitrary()?),
            13 => Node::I32(u.arbitrary()?),
            14 => Node::I64(u.arbitrary()?),
            15 => Node::I128(u.arbitrary()?),
            16 => Node::F32(self.f32()?),
            17 => Node::F64(self.f64()?),
            18 => Node::Char(u.arbitrary()?),
            19 => Node::Str(self.text()?),
            20 => Node::Bytes(self.blob()?),
            21 => Node::Opt(match self.pick(2)? {
                0 => None,
                _ => Some(Box::new(self.node(depth - 1)?)),
            }),
            22 => Node::OptOpt(*u.choose(&[None, Some(None), Some(Some(()))])?),
            23 => {
                let n = self.u.int_in_range(0..=6usize)?;
                Node::Seq(
                    (0..n)
                        .map(|_| self.node(depth - 1))
                        .collect::<ArbResult<_>>()?,
                )
            }
            24 => Node::Pair(u.arbitrary()?, self.text()?),
            25 => Node::Rec {
                a: Box::new(self.node(depth - 1)?),
                b: {
                    let n = self.count()?;
                    self.ints(n, 0, 255)?.into_iter().map(|x| x as u8).collect()
                },
                c: self.text()?,
            },
            26 => {
                let n = self.u.int_in_range(0..=5usize)?;
                let mut m = BTreeMap::new();
                for _ in 0..n {
                    let k = self.text()?;
                    m.insert(k, self.node(depth - 1)?);
                }
                Node::Map(m)
            }
            27 => {
                let n = self.u.int_in_range(0..=4usize)?;
                let mut m = Vec::new();
                for _ in 0..n {
                    m.push((self.node(depth - 1)?, self.node(depth - 1)?));
                }
                Node::AnyMap(Ordered(m))
            }
            // Batches only from two levels up: a depth-1 node may be cloned into many rows.
            28 if depth >= 2 => Node::Rows(self.rows()?),
            _ if depth >= 2 => Node::Nums(Box::new(self.nums()?)),
            _ => Node::Empty,
        })
    }

    fn nums(&mut self) -> ArbResult<Nums> {
        let n = self.count()?.min(300);
        let i = self.ints(n, i64::MIN.into(), i64::MAX.into())?;
        let u = self.ints(n, 0, u32::MAX.into())?;
        let s = self.ints(n, i8::MIN.into(), i8::MAX.into())?;
        let f = self.floats(n)?;
        let g0 = self.f32()?;
        let bools = self.ints(n, 0, 1)?;
        Ok(Nums {
            i: i.into_iter().map(|x| x as i64).collect(),
            u: u.into_iter().map(|x| x as u32).collect(),
            f,
            g: (0..n).map(|k| F32b(g0.0 + k as f32)).collect(),
            b: bools.into_iter().map(|x| x == 1).collect(),
            s: s.into_iter().map(|x| x as i8).collect(),
        })
    }

    fn wides(&mut self) -> ArbResult<Vec<Wide>> {
        let n = self.count()?.min(64);
        let mut out = Vec::with_capacity(n);
        let node = self.node(1)?;
        for i in 0..n {
            let row = if self.u.ratio(1, 3)? {
                Some(Box::new(self.row()?))
            } else {
                None
            };
            out.push(Wide {
                big: self.u.arbitrary::<u128>()? | (i as u128),
                neg: self.u.arbitrary()?,
                ch: self.u.arbitrary()?,
                unit: (),
                oo: *self.u.choose(&[None, Some(None), Some(Some(()))])?,
                bytes: self.blob()?,
                s: self.text()?,
                node: if i % 4 == 0 {
                    self.node(2)?
                } else {
                    node.clone()
                },
                list: (0..i % 5).map(|k| k as u16).collect(),
                row,
            });
        }
        Ok(out)
    }

    fn bad(&mut self) -> ArbResult<Bad> {
        use BadKind::*;
        Ok(Bad {
            kind: *self
                .u
                .choose(&[Now, SeqHalf, MapHalf, StructHalf, InternThenFail, Deep])?,
            text: format!("fresh-{}", self.u.arbitrary::<u32>()?),
        })
    }

    fn swallow(&mut self) -> ArbResult<Swallow> {
        use SwallowIn::*;
        Ok(Swallow {
            at: *self
                .u
                .choose(&[Struct, Seq, Map, TupleStruct, StructVariant])?,
            bad: if self.u.ratio(3, 4)? {
                Some(self.bad()?)
            } else {
                None
            },
            after: self.u.arbitrary()?,
        })
    }

    fn int_row(&mut self, i: usize, mode: u32) -> ArbResult<IntsRow> {
        // Exact in a float, or not: 2^53 + 1, u64::MAX, 2^24 + 1 and what the input gives.
        Ok(match mode {
            0 => IntsRow {
                a: i as i64,
                b: (i as u64) << 20,
                c: i as u32,
                d: i as i16,
            },
            1 => IntsRow {
                a: (1 << 53) + 1,
                b: u64::MAX,
                c: (1 << 24) + 1,
                d: i16::MIN,
            },
            _ => IntsRow {
                a: self.u.arbitrary()?,
                b: self.u.arbitrary()?,
                c: self.u.arbitrary()?,
                d: self.u.arbitrary()?,
            },
        })
    }

    fn msg(&mut self) -> ArbResult<Msg> {
        Ok(match self.pick(10)? {
            0 | 1 => Msg::Node(self.node(4)?),
            2 => Msg::Rows(self.rows()?),
            3 => Msg::Wides(self.wides()?),
            4 => {
                let n = self.count()?;
                let t = self.text()?;
                let n = self.charge(n * (t.len() + 24)) / (t.len() + 24);
                Msg::Texts(if self.u.ratio(1, 2)? {
                    vec![t; n]
                } else {
                    (0..n)
                        .map(|i| {
                            if i % 3 == 0 {
                                t.clone()
                            } else {
                                format!("{i}")
                            }
                        })
                        .collect()
                })
            }
            5 => {
                let n = self.count()?;
                let t = self.text()?;
                let n = self.charge(n * (t.len() + 24)) / (t.len() + 24);
                let ids = self.ints(n, 0, u32::MAX.into())?;
                Msg::IdStrs(
                    ids.into_iter()
                        .map(|id| IdStr {
                            id: id as u32,
                            s: t.clone(),
                        })
                        .collect(),
                )
            }
            6 => {
                let mode = self.pick(3)?;
                let n = self.count()?.min(200);
                let rows = (0..n)
                    .map(|i| self.int_row(i, mode))
                    .collect::<ArbResult<_>>()?;
                let packed_n = self.count()?.min(200);
                let one_mode = self.pick(3)?;
                Msg::IntFloat(IntFloat {
                    one: self.int_row(0, one_mode)?,
                    rows,
                    packed: self
                        .ints(packed_n, i64::MIN.into(), i64::MAX.into())?
                        .into_iter()
                        .map(|x| x as i64)
                        .collect(),
                    packed32: self
                        .ints(packed_n, 0, u32::MAX.into())?
                        .into_iter()
                        .map(|x| x as u32)
                        .collect(),
                })
            }
            7 => {
                let n = self.count()?.min(200);
                let t = self.text()?;
                let nulls = self.pick(3)?;
                let row = |i: usize| NullRow {
                    a: NullOr(
                        (nulls == 1 || (nulls == 2 && i.is_multiple_of(2))).then_some(i as u64),
                    ),
                    b: NullOr((nulls != 1 && i.is_multiple_of(3)).then(|| t.clone())),
                    c: i as u8,
                };
                Msg::Nulls(Nulls {
                    one: row(self.u.arbitrary::<u8>()?.into()),
                    rows: (0..n).map(row).collect(),
                    bare: NullOr(self.u.arbitrary()?),
                })
            }
            8 => {
                let rows = self.rows()?;
                let one = self.swallow()?;
                let n = self.count()?.min(64);
                let sw = self.swallow()?;
                let at = self.u.int_in_range(0..=n)?;
                let name = self.text()?;
                Msg::Swallows(Swallows {
                    rows,
                    one,
                    batch: (0..n)
                        .map(|i| SwallowRow {
                            id: i as u32,
                            name: name.clone(),
                            sw: Swallow {
                                bad: if i == at { sw.bad.clone() } else { None },
                                ..sw.clone()
                            },
                        })
                        .collect(),
                })
            }
            _ => {
                let rows = self.rows()?;
                let at = self.u.int_in_range(0..=rows.len())?;
                Msg::Failing(Failing {
                    rows,
                    at,
                    bad: self.bad()?,
                })
            }
        })
    }
}

/// The option sets every message goes through: the three tiers, Balanced with map key-set
/// shapes, and Compression with map shapes and small caps taken from the input (the cap
/// paths: interning stops, shapes run out).
pub fn option_sets(u: &mut Unstructured<'_>) -> ArbResult<Vec<(&'static str, Options)>> {
    let tight = Options::compression()
        .features(Features::COMPRESSION.with(Features::MAP_SHAPE))
        .min_intern(u.int_in_range(0..=8)?)
        .max_intern_entries(u.int_in_range(0..=8)?)
        .max_intern_bytes(u.int_in_range(0..=256)?)
        .max_shapes(u.int_in_range(0..=4)?);
    Ok(vec![
        ("Speed", Options::speed()),
        ("Balanced", Options::balanced()),
        ("Compression", Options::compression()),
        (
            "Balanced+MAP_SHAPE",
            Options::balanced().features(Features::BALANCED.with(Features::MAP_SHAPE)),
        ),
        ("Compression+MAP_SHAPE, small caps", tight),
    ])
}

/// What one fuzz input builds: its option sets and 1 to 4 messages.
#[derive(Debug)]
pub struct Input {
    /// Name and options of each option set.
    pub opts: Vec<(&'static str, Options)>,
    /// The messages (frames of the sessions, twice over).
    pub msgs: Vec<Msg>,
}

impl Input {
    /// Builds the input from fuzz bytes; once they run out, every choice is its first (the
    /// smallest) one.
    pub fn build(data: &[u8]) -> ArbResult<Input> {
        let mut u = Unstructured::new(data);
        let opts = option_sets(&mut u)?;
        let n = u.int_in_range(1..=4)?;
        let mut g = Gen {
            u: &mut u,
            budget: BUILD_BUDGET,
            pool: Vec::new(),
        };
        let msgs = (0..n).map(|_| g.msg()).collect::<ArbResult<_>>()?;
        Ok(Input { opts, msgs })
    }
}

// ---------------------------------------------------------------------------------------------
// The checks.

/// What reading a message gave, compared with what was written.
enum Outcome {
    /// Equal (or, for cross-type reads, an accepted refusal).
    Fine,
    /// A failure, described.
    Wrong(String),
}

/// A source of typed decodes: one message, or the next frame of a session.
trait Source {
    fn decode<T: DeserializeOwned>(&mut self) -> Result<T, Error>;
}

struct OneMessage<'a> {
    bytes: &'a [u8],
    opts: Options,
}

impl Source for OneMessage<'_> {
    fn decode<T: DeserializeOwned>(&mut self) -> Result<T, Error> {
        qdf_core::from_slice_with(self.bytes, self.opts)
    }
}

struct NextFrame<'a, 'b> {
    dec: &'b mut DecoderSession,
    rest: &'a [u8],
    /// Bytes the frame took, once decoded.
    took: Option<usize>,
}

impl Source for NextFrame<'_, '_> {
    fn decode<T: DeserializeOwned>(&mut self) -> Result<T, Error> {
        match self.dec.decode_frame::<T>(self.rest)? {
            Some((v, n)) => {
                self.took = Some(n);
                Ok(v)
            }
            None => panic!("a frame the encoder wrote is incomplete on the decoder side"),
        }
    }
}

fn exact<T: DeserializeOwned + PartialEq + Debug>(v: &T, src: &mut impl Source) -> Outcome {
    match src.decode::<T>() {
        Ok(back) if back == *v => Outcome::Fine,
        Ok(back) => Outcome::Wrong(format!(
            "typed decode differs: {}",
            short(&format!("{back:?}"))
        )),
        Err(e) => Outcome::Wrong(format!("typed decode: {e}")),
    }
}

/// `x` as a float of `mantissa` bits, if exact.
fn exact_float(x: i128, mantissa: u32) -> bool {
    let m = x.unsigned_abs();
    m == 0 || (m >> m.trailing_zeros()) < (1u128 << mantissa)
}

fn int_float_expect(v: &IntFloat) -> (IntFloatTarget, bool) {
    let row = |r: &IntsRow| FloatsRow {
        a: F64b(r.a as f64),
        b: F64b(r.b as f64),
        c: F32b(r.c as f32),
        d: F32b(f32::from(r.d)),
    };
    let row_exact = |r: &IntsRow| {
        exact_float(r.a.into(), 53) && exact_float(r.b.into(), 53) && exact_float(r.c.into(), 24)
    };
    let all_exact = row_exact(&v.one)
        && v.rows.iter().all(row_exact)
        && v.packed.iter().all(|&x| exact_float(x.into(), 53))
        && v.packed32.iter().all(|&x| exact_float(x.into(), 24));
    let t = IntFloatTarget {
        one: row(&v.one),
        rows: v.rows.iter().map(row).collect(),
        packed: v.packed.iter().map(|&x| F64b(x as f64)).collect(),
        packed32: v.packed32.iter().map(|&x| F32b(x as f32)).collect(),
    };
    (t, all_exact)
}

fn nulls_expect(v: &Nulls) -> NullsTarget {
    let row = |r: &NullRow| OptRow {
        a: r.a.0,
        b: r.b.0.clone(),
        c: r.c,
    };
    NullsTarget {
        one: row(&v.one),
        rows: v.rows.iter().map(row).collect(),
        bare: v.bare.0,
    }
}

/// Reads `msg` back from `src` into its typed target and compares.
fn typed(msg: &Msg, src: &mut impl Source) -> Outcome {
    match msg {
        Msg::Node(v) => exact(v, src),
        Msg::Rows(v) => exact(v, src),
        Msg::Wides(v) => exact(v, src),
        Msg::Texts(v) => exact(v, src),
        Msg::IdStrs(v) => exact(v, src),
        Msg::IntFloat(v) => {
            let (want, all_exact) = int_float_expect(v);
            match src.decode::<IntFloatTarget>() {
                Ok(got) if all_exact && got == want => Outcome::Fine,
                Ok(got) if all_exact => Outcome::Wrong(format!(
                    "integers read as floats differ: {}",
                    short(&format!("{got:?}"))
                )),
                Ok(_) => {
                    Outcome::Wrong("an integer no float holds exactly was read into a float".into())
                }
                Err(e) if !all_exact && e.classify() == Category::Data => Outcome::Fine,
                Err(e) => Outcome::Wrong(format!("exact integers into floats: {e}")),
            }
        }
        Msg::Nulls(v) => match src.decode::<NullsTarget>() {
            Ok(got) if got == nulls_expect(v) => Outcome::Fine,
            Ok(got) => Outcome::Wrong(format!(
                "nulls read as options differ: {}",
                short(&format!("{got:?}"))
            )),
            Err(e) => Outcome::Wrong(format!("nulls into options: {e}")),
        },
        // No typed target: the bytes must decode, nothing more is known of them.
        Msg::Swallows(_) | Msg::Failing(_) => match src.decode::<Value>() {
            Ok(_) => Outcome::Fine,
            Err(e) => Outcome::Wrong(format!("decode: {e}")),
        },
    }
}

/// Whether the encoder may refuse `msg` with `e`: a value whose `Serialize` fails or
/// swallows an inner error, any error; anything else, only a limit (depth, a cap, a budget
/// the encoder enforces).
fn refusal_allowed(msg: &Msg, e: &Error) -> bool {
    matches!(msg, Msg::Swallows(_) | Msg::Failing(_)) || e.classify() == Category::Limit
}

fn short(s: &str) -> String {
    if s.len() <= 600 {
        return s.to_owned();
    }
    let mut end = 600;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes)", &s[..end], s.len())
}

fn fail(what: &str, tier: &str, msg: &Msg, detail: &str) -> ! {
    panic!(
        "{what} [{tier}]: {detail}\n  message: {}",
        short(&format!("{msg:?}"))
    )
}

/// The `Value` of the Speed encoding, to compare the other tiers' `Value`s with (`None` for
/// a value with no fixed meaning, or one Speed refuses).
fn reference(msg: &Msg) -> Option<Value> {
    if matches!(msg, Msg::Swallows(_) | Msg::Failing(_)) {
        return None;
    }
    let bytes = qdf_core::to_vec_with(msg, Options::speed()).ok()?;
    qdf_core::from_slice_with(&bytes, Options::speed()).ok()
}

/// Re-encodes a decoded `Value` in the tier and reads it back into the typed target.
fn value_round_trip(msg: &Msg, v: &Value, opts: Options) -> Outcome {
    let bytes = match qdf_core::to_vec_with(v, opts) {
        Ok(b) => b,
        Err(e) if e.classify() == Category::Limit => return Outcome::Fine,
        Err(e) => return Outcome::Wrong(format!("re-encoding the Value: {e}")),
    };
    match typed(
        msg,
        &mut OneMessage {
            bytes: &bytes,
            opts,
        },
    ) {
        Outcome::Wrong(d) => Outcome::Wrong(format!("after a Value re-encoding: {d}")),
        fine => fine,
    }
}

/// One message through `to_vec_with` and back.
fn check_message(msg: &Msg, reference: Option<&Value>, tier: &str, opts: Options) {
    let bytes = match qdf_core::to_vec_with(msg, opts) {
        Ok(b) => b,
        Err(e) if refusal_allowed(msg, &e) => return,
        Err(e) => fail("refused a valid value", tier, msg, &e.to_string()),
    };
    if matches!(msg, Msg::Failing(_)) {
        fail("accepted a failing Serialize", tier, msg, "Ok");
    }
    let value = qdf_core::from_slice_with::<Value>(&bytes, opts);
    let ignored = qdf_core::from_slice_with::<serde::de::IgnoredAny>(&bytes, opts);
    match (&value, reference) {
        (Err(e), _) => {
            fail(
                "accepted bytes that do not decode as Value",
                tier,
                msg,
                &e.to_string(),
            );
        }
        (Ok(v), Some(r)) if v != r => fail(
            "Value differs from the Speed encoding's",
            tier,
            msg,
            &short(&v.to_string()),
        ),
        _ => {}
    }
    if let Err(e) = ignored {
        fail(
            "decodes as Value, not as IgnoredAny",
            tier,
            msg,
            &e.to_string(),
        );
    }
    for outcome in [
        typed(
            msg,
            &mut OneMessage {
                bytes: &bytes,
                opts,
            },
        ),
        value_round_trip(msg, value.as_ref().unwrap(), opts),
    ] {
        if let Outcome::Wrong(d) = outcome {
            fail("accepted bytes that do not read back", tier, msg, &d);
        }
    }
}

/// The messages, twice over, as the frames of one session per option set.
fn check_session(msgs: &[Msg], refs: &[Option<Value>], tier: &str, opts: Options) {
    let mut enc = EncoderSession::new(opts);
    let mut wire = Vec::new();
    let mut sent = Vec::new();
    for (i, msg) in msgs.iter().chain(msgs).enumerate() {
        let before = wire.len();
        match enc.encode_frame(msg, &mut wire) {
            Ok(()) => {
                if matches!(msg, Msg::Failing(_)) {
                    fail("a session accepted a failing Serialize", tier, msg, "Ok");
                }
                sent.push(i % msgs.len());
            }
            Err(e) => {
                if wire.len() != before {
                    fail(
                        "a refused frame changed the output",
                        tier,
                        msg,
                        &e.to_string(),
                    );
                }
                if !refusal_allowed(msg, &e) {
                    fail("a session refused a valid value", tier, msg, &e.to_string());
                }
            }
        }
    }
    let mut typed_dec = DecoderSession::new(opts);
    let mut value_dec = DecoderSession::new(opts);
    let (mut rest_t, mut rest_v) = (&wire[..], &wire[..]);
    for (n, &k) in sent.iter().enumerate() {
        let msg = &msgs[k];
        let mut src = NextFrame {
            dec: &mut typed_dec,
            rest: rest_t,
            took: None,
        };
        match typed(msg, &mut src) {
            Outcome::Fine => {}
            Outcome::Wrong(d) => fail(
                &format!("session frame {n} does not read back"),
                tier,
                msg,
                &d,
            ),
        }
        // A typed refusal the check expects (an integer no float holds, into a float
        // target) leaves the frame unread and a Dense decoder broken: nothing later is known.
        let Some(took) = src.took else {
            return;
        };
        rest_t = &rest_t[took..];
        match value_dec.decode_frame::<Value>(rest_v) {
            Ok(Some((v, m))) => {
                if refs[k].as_ref().is_some_and(|r| v != *r) {
                    fail(
                        &format!("session frame {n}: Value differs from Speed's"),
                        tier,
                        msg,
                        &short(&v.to_string()),
                    );
                }
                assert_eq!(
                    m, took,
                    "[{tier}] frame {n}: typed and Value lengths differ"
                );
                rest_v = &rest_v[m..];
            }
            Ok(None) => unreachable!("the typed session read a whole frame"),
            Err(e) => fail(
                &format!("session frame {n} as Value"),
                tier,
                msg,
                &e.to_string(),
            ),
        }
    }
    assert!(rest_t.is_empty(), "[{tier}] bytes after the last frame");
    typed_dec.check_end(rest_t).expect("stream end");
}

/// The `encode_round_trip` fuzz target: see the module docs.
pub fn encode_round_trip(data: &[u8]) {
    let Ok(input) = Input::build(data) else {
        return;
    };
    let refs: Vec<Option<Value>> = input.msgs.iter().map(reference).collect();
    for &(tier, opts) in &input.opts {
        for (msg, r) in input.msgs.iter().zip(&refs) {
            check_message(msg, r.as_ref(), tier, opts);
        }
        check_session(&input.msgs, &refs, tier, opts);
    }
}
