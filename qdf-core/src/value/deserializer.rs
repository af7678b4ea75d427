//! [`Value`] (owned or borrowed) as a serde `Deserializer`, and [`from_value`].
//!
//! Shaped like `serde_json::Value`'s: every variant is handed to the visitor method of its
//! kind (`Nil` → `visit_none`, `Some(x)` → `visit_some`, `Array` → `visit_seq`, `Map` →
//! `visit_map`, `Variant` → `visit_enum`, a `Str` asked for an enum → a unit variant). A
//! `Value` target reads every variant back exactly, timestamps and variant kinds included.
//! Errors carry no byte offset: there is no input.

use std::borrow::Cow;
use std::fmt;

use serde::de::{
    self, DeserializeOwned, DeserializeSeed, EnumAccess, IntoDeserializer, MapAccess, SeqAccess,
    Unexpected, VariantAccess, Visitor,
};
use serde::{Deserializer, forward_to_deserialize_any};

use super::{Value, VariantKind};
use crate::error::{Error, ErrorCode, Result};
use crate::wire::ext::{self, magic};
use crate::wire::tags::TIMESTAMP;

/// Deserializes a `T` from `value` (consumed; strings move into `T`). Type errors are
/// `Data` errors in serde's words (`expected u8, found string "x"`), without an offset.
///
/// ```
/// use qdf_core::{Value, from_value};
/// let v = Value::Array(vec![Value::from(1u8), Value::from(-2i8)]);
/// assert_eq!(from_value::<(u8, i8)>(v)?, (1, -2));
/// # Ok::<(), qdf_core::Error>(())
/// ```
pub fn from_value<T: DeserializeOwned>(value: Value) -> Result<T> {
    T::deserialize(value)
}

impl Value {
    /// What serde's error messages call this value.
    fn unexpected(&self) -> Unexpected<'_> {
        match self {
            Value::Nil => Unexpected::Option,
            Value::Unit | Value::UnitStruct => Unexpected::Unit,
            Value::Bool(b) => Unexpected::Bool(*b),
            Value::U64(v) => Unexpected::Unsigned(*v),
            Value::I64(v) => Unexpected::Signed(*v),
            Value::U128(_) | Value::I128(_) => Unexpected::Other("128-bit integer"),
            Value::F32(v) => Unexpected::Float(f64::from(*v)),
            Value::F64(v) => Unexpected::Float(*v),
            Value::Char(c) => Unexpected::Char(*c),
            Value::Str(s) => Unexpected::Str(s),
            Value::Bytes(b) => Unexpected::Bytes(b),
            Value::Array(_) => Unexpected::Seq,
            Value::Map(_) => Unexpected::Map,
            Value::Some(_) => Unexpected::Option,
            Value::Variant(_) => Unexpected::Enum,
            Value::Timestamp { .. } => Unexpected::Other("timestamp"),
        }
    }
}

/// The nesting levels a `Value` deserializer descends before it stops with `DepthLimit`:
/// the default [`Limits::max_depth`](crate::options::Limits::max_depth), as the byte decoder. A
/// `Value` built by hand can be deeper than any decoded one; this keeps its deserialization
/// off the end of the stack.
const MAX_DEPTH: u32 = crate::options::Limits::DEFAULT.max_depth;

/// A value being deserialized, owned (`Value`: strings and children move out) or borrowed
/// (`&'de Value`): the two differ only in how a level is taken apart.
trait Walk<'de>: Sized {
    /// A string as handed to the visitor.
    type Str;
    /// A byte string as handed to the visitor.
    type Bytes;
    /// The elements of an array.
    type Seq: ExactSizeIterator<Item = Self>;
    /// The entries of a map.
    type Map: ExactSizeIterator<Item = (Self, Self)>;

    /// The value, to look at without taking it apart.
    fn value(&self) -> &Value;
    /// Takes one level apart.
    fn take(self) -> Node<'de, Self>;
    fn visit_str<V: Visitor<'de>>(s: Self::Str, visitor: V) -> Result<V::Value>;
    fn visit_bytes<V: Visitor<'de>>(b: Self::Bytes, visitor: V) -> Result<V::Value>;
}

/// One level of a value, its children as `W`.
enum Node<'de, W: Walk<'de>> {
    Nil,
    Unit,
    Bool(bool),
    U64(u64),
    I64(i64),
    U128(u128),
    I128(i128),
    F32(f32),
    F64(f64),
    Char(char),
    Str(W::Str),
    Bytes(W::Bytes),
    Array(W::Seq),
    Map(W::Map),
    Some(W),
    Variant(VariantKind, Cow<'de, str>, W),
    Timestamp(i64, u32),
}

/// The level of a value without children or text, the same for an owned or a borrowed walk;
/// `None` for strings, byte strings and containers.
fn scalar<'de, W: Walk<'de>>(v: &Value) -> Option<Node<'de, W>> {
    Some(match *v {
        Value::Nil => Node::Nil,
        Value::Unit | Value::UnitStruct => Node::Unit,
        Value::Bool(b) => Node::Bool(b),
        Value::U64(x) => Node::U64(x),
        Value::I64(x) => Node::I64(x),
        Value::U128(x) => Node::U128(x),
        Value::I128(x) => Node::I128(x),
        Value::F32(x) => Node::F32(x),
        Value::F64(x) => Node::F64(x),
        Value::Char(c) => Node::Char(c),
        Value::Timestamp { secs, nanos } => Node::Timestamp(secs, nanos),
        Value::Str(_)
        | Value::Bytes(_)
        | Value::Array(_)
        | Value::Map(_)
        | Value::Some(_)
        | Value::Variant(_) => return None,
    })
}

impl<'de> Walk<'de> for Value {
    type Str = String;
    type Bytes = Vec<u8>;
    type Seq = std::vec::IntoIter<Value>;
    type Map = std::vec::IntoIter<(Value, Value)>;

    fn value(&self) -> &Value {
        self
    }

    // `Drop` forbids moving fields out by pattern, so they are taken.
    fn take(mut self) -> Node<'de, Value> {
        if let Some(n) = scalar(&self) {
            return n;
        }
        match &mut self {
            Value::Str(s) => Node::Str(std::mem::take(s)),
            Value::Bytes(b) => Node::Bytes(std::mem::take(b)),
            Value::Array(a) => Node::Array(std::mem::take(a).into_iter()),
            Value::Map(m) => Node::Map(std::mem::take(m).into_iter()),
            Value::Some(x) => Node::Some(std::mem::take(&mut **x)),
            Value::Variant(v) => Node::Variant(
                v.kind,
                Cow::Owned(std::mem::take(&mut v.name)),
                std::mem::take(&mut v.value),
            ),
            _ => unreachable!("scalars are taken above"),
        }
    }

    fn visit_str<V: Visitor<'de>>(s: String, visitor: V) -> Result<V::Value> {
        visitor.visit_string(s)
    }

    fn visit_bytes<V: Visitor<'de>>(b: Vec<u8>, visitor: V) -> Result<V::Value> {
        visitor.visit_byte_buf(b)
    }
}

/// A borrowed map entry, and the entries of a borrowed map.
type RefEntry<'de> = (&'de Value, &'de Value);
type RefEntries<'de> =
    std::iter::Map<std::slice::Iter<'de, (Value, Value)>, fn(&'de (Value, Value)) -> RefEntry<'de>>;

fn ref_entry<'de>((k, v): &'de (Value, Value)) -> RefEntry<'de> {
    (k, v)
}

impl<'de> Walk<'de> for &'de Value {
    type Str = &'de str;
    type Bytes = &'de [u8];
    type Seq = std::slice::Iter<'de, Value>;
    type Map = RefEntries<'de>;

    fn value(&self) -> &Value {
        self
    }

    fn take(self) -> Node<'de, &'de Value> {
        if let Some(n) = scalar(self) {
            return n;
        }
        match self {
            Value::Str(s) => Node::Str(s.as_str()),
            Value::Bytes(b) => Node::Bytes(b.as_slice()),
            Value::Array(a) => Node::Array(a.iter()),
            Value::Map(m) => Node::Map(m.iter().map(ref_entry as fn(_) -> _)),
            Value::Some(x) => Node::Some(x),
            Value::Variant(v) => Node::Variant(v.kind, Cow::Borrowed(&v.name), &v.value),
            _ => unreachable!("scalars are taken above"),
        }
    }

    fn visit_str<V: Visitor<'de>>(s: &'de str, visitor: V) -> Result<V::Value> {
        visitor.visit_borrowed_str(s)
    }

    fn visit_bytes<V: Visitor<'de>>(b: &'de [u8], visitor: V) -> Result<V::Value> {
        visitor.visit_borrowed_bytes(b)
    }
}

/// A value with the nesting levels still allowed below it.
struct De<W> {
    w: W,
    left: u32,
}

impl<W> De<W> {
    /// A value at the top: [`MAX_DEPTH`] levels below it.
    fn root(w: W) -> Self {
        De { w, left: MAX_DEPTH }
    }

    /// The levels left to a child, or `DepthLimit` when there are none.
    fn child_levels(&self) -> Result<u32> {
        self.left
            .checked_sub(1)
            .ok_or_else(|| Error::new(ErrorCode::DepthLimit(MAX_DEPTH)))
    }
}

impl<'de, W: Walk<'de>> Deserializer<'de> for De<W> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let left = match self.w.value() {
            Value::Array(_) | Value::Map(_) | Value::Some(_) | Value::Variant(_) => {
                self.child_levels()?
            }
            _ => self.left,
        };
        match self.w.take() {
            Node::Nil => visitor.visit_none(),
            Node::Unit => visitor.visit_unit(),
            Node::Bool(b) => visitor.visit_bool(b),
            Node::U64(v) => visitor.visit_u64(v),
            Node::I64(v) => visitor.visit_i64(v),
            Node::U128(v) => visitor.visit_u128(v),
            Node::I128(v) => visitor.visit_i128(v),
            Node::F32(v) => visitor.visit_f32(v),
            Node::F64(v) => visitor.visit_f64(v),
            Node::Char(c) => visitor.visit_char(c),
            Node::Str(s) => W::visit_str(s, visitor),
            Node::Bytes(b) => W::visit_bytes(b, visitor),
            Node::Array(items) => visit_items(items, left, visitor),
            Node::Map(entries) => {
                let mut map = MapDe {
                    entries,
                    value: None,
                    left,
                    taken: 0,
                };
                let v = visitor.visit_map(&mut map)?;
                map.end()?;
                Ok(v)
            }
            Node::Some(w) => visitor.visit_some(De { w, left }),
            Node::Variant(kind, name, payload) => visitor.visit_enum(VariantDe {
                kind,
                name,
                payload: De { w: payload, left },
            }),
            Node::Timestamp(secs, nanos) => visit_items(
                [Value::from(secs), Value::from(nanos)].into_iter(),
                0,
                visitor,
            ),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.w.value() {
            Value::Nil => visitor.visit_none(),
            Value::Some(_) => self.deserialize_any(visitor),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        match self.w.value() {
            Value::Variant(_) => self.deserialize_any(visitor),
            Value::Str(s) => visitor.visit_enum(s.as_str().into_deserializer()),
            other => Err(de::Error::invalid_type(other.unexpected(), &"an enum")),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        // A `Value` target: kinds that `deserialize_any` cannot tell apart go through the
        // identifiers the qdf deserializer gives (see `value/de.rs`).
        if name == magic::VALUE {
            match self.w.value() {
                Value::UnitStruct => {
                    return visitor.visit_enum(SpecialDe {
                        sub: ext::UNIT_STRUCT,
                        payload: None,
                    });
                }
                Value::Timestamp { secs, nanos } => {
                    return visitor.visit_enum(SpecialDe {
                        sub: TIMESTAMP,
                        payload: Some(Value::Array(vec![Value::from(*secs), Value::from(*nanos)])),
                    });
                }
                _ => {}
            }
        }
        visitor.visit_newtype_struct(self)
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map struct
        identifier ignored_any
    }
}

/// Visits `items` as a sequence whose elements have `left` levels below them.
fn visit_items<'de, W, I, V>(items: I, left: u32, visitor: V) -> Result<V::Value>
where
    W: Walk<'de>,
    I: ExactSizeIterator<Item = W>,
    V: Visitor<'de>,
{
    let mut seq = SeqDe {
        items,
        left,
        taken: 0,
    };
    let v = visitor.visit_seq(&mut seq)?;
    match seq.items.len() {
        0 => Ok(v),
        // Elements the visitor left unread (as serde's own `SeqDeserializer`).
        rest => Err(de::Error::invalid_length(
            seq.taken + rest,
            &ExpectedIn(seq.taken, "sequence"),
        )),
    }
}

/// The elements of an array being visited.
struct SeqDe<I> {
    items: I,
    left: u32,
    taken: usize,
}

impl<'de, W: Walk<'de>, I: ExactSizeIterator<Item = W>> SeqAccess<'de> for SeqDe<I> {
    type Error = Error;

    fn next_element_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<Option<S::Value>> {
        match self.items.next() {
            Some(w) => {
                self.taken += 1;
                seed.deserialize(De { w, left: self.left }).map(Some)
            }
            None => Ok(None),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

/// The entries of a map being visited (`value`: the value of the key just handed out).
struct MapDe<I, W> {
    entries: I,
    value: Option<W>,
    left: u32,
    taken: usize,
}

impl<'de, W: Walk<'de>, I: ExactSizeIterator<Item = (W, W)>> MapAccess<'de> for MapDe<I, W> {
    type Error = Error;

    fn next_key_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<Option<S::Value>> {
        match self.entries.next() {
            Some((k, v)) => {
                self.taken += 1;
                self.value = Some(v);
                let left = self.left;
                seed.deserialize(De { w: k, left }).map(Some)
            }
            None => Ok(None),
        }
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value> {
        match self.value.take() {
            Some(w) => seed.deserialize(De { w, left: self.left }),
            None => Err(de::Error::custom("a map value asked for before its key")),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
    }
}

impl<I: ExactSizeIterator, W> MapDe<I, W> {
    /// Entries the visitor left unread are an `invalid_length` error (as serde's own
    /// `MapDeserializer`).
    fn end(&self) -> Result<()> {
        match self.entries.len() {
            0 => Ok(()),
            rest => Err(de::Error::invalid_length(
                self.taken + rest,
                &ExpectedIn(self.taken, "map"),
            )),
        }
    }
}

/// "`n` elements in sequence" / "`n` elements in map", serde's words for a length error.
struct ExpectedIn(usize, &'static str);

impl de::Expected for ExpectedIn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            1 => write!(f, "1 element in {}", self.1),
            n => write!(f, "{n} elements in {}", self.1),
        }
    }
}

/// `Deserializer` and `IntoDeserializer` for a public value type: every method goes to the
/// walker at the top level.
macro_rules! root_deserializer {
    ($ty:ty) => {
        impl<'de> Deserializer<'de> for $ty {
            type Error = Error;

            fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
                De::root(self).deserialize_any(visitor)
            }

            fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
                De::root(self).deserialize_option(visitor)
            }

            fn deserialize_enum<V: Visitor<'de>>(
                self,
                name: &'static str,
                variants: &'static [&'static str],
                visitor: V,
            ) -> Result<V::Value> {
                De::root(self).deserialize_enum(name, variants, visitor)
            }

            fn deserialize_newtype_struct<V: Visitor<'de>>(
                self,
                name: &'static str,
                visitor: V,
            ) -> Result<V::Value> {
                De::root(self).deserialize_newtype_struct(name, visitor)
            }

            forward_to_deserialize_any! {
                bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
                bytes byte_buf unit unit_struct seq tuple tuple_struct map struct
                identifier ignored_any
            }
        }

        impl<'de> IntoDeserializer<'de, Error> for $ty {
            type Deserializer = Self;
            fn into_deserializer(self) -> Self {
                self
            }
        }
    };
}

root_deserializer!(Value);
root_deserializer!(&'de Value);

/// An enum variant being deserialized: its kind, name and payload.
struct VariantDe<'de, W> {
    kind: VariantKind,
    name: Cow<'de, str>,
    payload: De<W>,
}

impl<'de, W: Walk<'de>> EnumAccess<'de> for VariantDe<'de, W> {
    type Error = Error;
    type Variant = Self;

    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, Self)> {
        let id = seed.deserialize(VariantId {
            sub: subtype(self.kind),
            name: &self.name,
        })?;
        Ok((id, self))
    }
}

impl<'de, W: Walk<'de>> VariantAccess<'de> for VariantDe<'de, W> {
    type Error = Error;

    fn unit_variant(self) -> Result<()> {
        match self.kind {
            VariantKind::Unit => Ok(()),
            _ => Err(de::Error::invalid_type(
                Unexpected::NewtypeVariant,
                &"a unit variant",
            )),
        }
    }

    fn newtype_variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<S::Value> {
        match self.kind {
            VariantKind::Newtype => seed.deserialize(self.payload),
            _ => Err(de::Error::invalid_type(
                Unexpected::UnitVariant,
                &"a newtype variant",
            )),
        }
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        match self.kind {
            VariantKind::Tuple => self.payload.deserialize_any(visitor),
            _ => Err(de::Error::invalid_type(
                Unexpected::UnitVariant,
                &"a tuple variant",
            )),
        }
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        match self.kind {
            VariantKind::Struct => self.payload.deserialize_any(visitor),
            _ => Err(de::Error::invalid_type(
                Unexpected::UnitVariant,
                &"a struct variant",
            )),
        }
    }
}

/// The wire subtype of a variant kind.
fn subtype(kind: VariantKind) -> u8 {
    match kind {
        VariantKind::Unit => ext::UNIT_VARIANT,
        VariantKind::Newtype => ext::NEWTYPE_VARIANT,
        VariantKind::Tuple => ext::TUPLE_VARIANT,
        VariantKind::Struct => ext::STRUCT_VARIANT,
    }
}

/// A variant's identifier: its name, or `(subtype, name)` for a `Value` target, which asks
/// for it as a tuple struct named `magic::KIND`.
struct VariantId<'a> {
    sub: u8,
    name: &'a str,
}

impl<'de> Deserializer<'de> for VariantId<'_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_str(self.name)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value> {
        if name != magic::KIND {
            return visitor.visit_str(self.name);
        }
        visit_items(
            [Value::from(self.sub), Value::from(self.name)].into_iter(),
            0,
            visitor,
        )
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple map struct enum
        identifier ignored_any
    }
}

/// A unit struct (`payload` `None`) or a timestamp (`Some((secs, nanos))`) for a `Value`
/// target, given as the qdf deserializer gives them: an enum with subtype `sub`.
struct SpecialDe {
    sub: u8,
    payload: Option<Value>,
}

impl<'de> EnumAccess<'de> for SpecialDe {
    type Error = Error;
    type Variant = Self;

    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, Self)> {
        let id = seed.deserialize(VariantId {
            sub: self.sub,
            name: "",
        })?;
        Ok((id, self))
    }
}

impl<'de> VariantAccess<'de> for SpecialDe {
    type Error = Error;

    fn unit_variant(self) -> Result<()> {
        Ok(())
    }

    fn newtype_variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<S::Value> {
        seed.deserialize(self.payload.unwrap_or_default())
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, _visitor: V) -> Result<V::Value> {
        Err(de::Error::invalid_type(
            Unexpected::Other("timestamp"),
            &"a tuple variant",
        ))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value> {
        Err(de::Error::invalid_type(
            Unexpected::Other("timestamp"),
            &"a struct variant",
        ))
    }
}
