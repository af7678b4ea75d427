//! [`Value`] (owned or borrowed) as a serde `Deserializer`, and [`from_value`] / [`to_value`].
//!
//! Shaped like `serde_json::Value`'s: every variant is handed to the visitor method of its
//! kind (`Nil` → `visit_none`, `Some(x)` → `visit_some`, `Array` → `visit_seq`, `Map` →
//! `visit_map`, `Variant` → `visit_enum`, a `Str` asked for an enum → a unit variant). A
//! `Value` target reads every variant back exactly, timestamps and variant kinds included.
//! Errors carry no byte offset: there is no input.

use serde::de::value::{MapDeserializer, SeqDeserializer};
use serde::de::{
    self, DeserializeOwned, DeserializeSeed, EnumAccess, IntoDeserializer, Unexpected,
    VariantAccess, Visitor,
};
use serde::{Deserializer, Serialize, forward_to_deserialize_any};

use super::{Value, VariantKind};
use crate::error::{Error, Result};
use crate::wire::ext::{self, magic};
use crate::wire::tags::TIMESTAMP;

/// Converts `value` to a [`Value`], losslessly: `from_value::<T>(to_value(&t)?)` gives back
/// `t`, as `T → bytes → Value` does (the value is encoded with the Speed tier and decoded,
/// so the default [`Limits`](crate::Limits) apply: nesting deeper than 128 is a `Limit`
/// error).
///
/// ```
/// use qdf_core::{Value, to_value};
/// let v = to_value(&("a", 3u8))?;
/// assert_eq!(v, Value::Array(vec![Value::from("a"), Value::from(3u8)]));
/// # Ok::<(), qdf_core::Error>(())
/// ```
pub fn to_value<T: ?Sized + Serialize>(value: &T) -> Result<Value> {
    let opts = crate::Options::speed();
    crate::from_slice_with(&crate::to_vec_with(value, opts)?, opts)
}

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

/// Generates the `Deserializer` impl for `Value` and `&'de Value`: `$take` turns `&mut Value`
/// into the `$elem` handed to children, `$str`/`$bytes` visit a string/byte string.
macro_rules! value_deserializer {
    ($ty:ty, $this:ident, $elem:ty, $take:ident, $str:ident, $bytes:ident) => {
        impl<'de> Deserializer<'de> for $ty {
            type Error = Error;

            fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
                #[allow(unused_mut)]
                let mut $this = self;
                match $take(&mut $this) {
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
                    Node::Str(s) => visitor.$str(s),
                    Node::Bytes(b) => visitor.$bytes(b),
                    Node::Array(a) => visit_seq(a, visitor),
                    Node::Map(m) => visit_map(m, visitor),
                    Node::Some(x) => visitor.visit_some(x),
                    Node::Variant(kind, name, payload) => visitor.visit_enum(VariantDe {
                        kind,
                        name,
                        payload,
                    }),
                    Node::Timestamp(secs, nanos) => {
                        visit_seq(vec![Value::from(secs), Value::from(nanos)], visitor)
                    }
                }
            }

            fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
                match &self {
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
                match &self {
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
                // A `Value` target: kinds that `deserialize_any` cannot tell apart go through
                // the identifiers the qdf deserializer gives (see `value/de.rs`).
                if name == magic::VALUE {
                    match &self {
                        Value::UnitStruct => {
                            return visitor.visit_enum(SpecialDe {
                                sub: ext::UNIT_STRUCT,
                                payload: None,
                            });
                        }
                        Value::Timestamp { secs, nanos } => {
                            return visitor.visit_enum(SpecialDe {
                                sub: TIMESTAMP,
                                payload: Some(Value::Array(vec![
                                    Value::from(*secs),
                                    Value::from(*nanos),
                                ])),
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

        impl<'de> IntoDeserializer<'de, Error> for $ty {
            type Deserializer = Self;
            fn into_deserializer(self) -> Self {
                self
            }
        }

        impl<'de> EnumAccess<'de> for VariantDe<$elem> {
            type Error = Error;
            type Variant = Self;

            fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, Self)> {
                let id = seed.deserialize(VariantId {
                    sub: subtype(self.kind),
                    name: self.name.as_str(),
                })?;
                Ok((id, self))
            }
        }

        impl<'de> VariantAccess<'de> for VariantDe<$elem> {
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
    };
}

/// One level of a value, its children as `E` (`Value` moved out, or `&Value`).
enum Node<S, B, E> {
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
    Str(S),
    Bytes(B),
    Array(Vec<E>),
    Map(Vec<(E, E)>),
    Some(E),
    Variant(VariantKind, String, E),
    Timestamp(i64, u32),
}

/// `Value` itself (`Drop` forbids moving fields out by pattern, so they are taken).
fn take_owned(v: &mut Value) -> Node<String, Vec<u8>, Value> {
    match v {
        Value::Nil => Node::Nil,
        Value::Unit | Value::UnitStruct => Node::Unit,
        Value::Bool(b) => Node::Bool(*b),
        Value::U64(x) => Node::U64(*x),
        Value::I64(x) => Node::I64(*x),
        Value::U128(x) => Node::U128(*x),
        Value::I128(x) => Node::I128(*x),
        Value::F32(x) => Node::F32(*x),
        Value::F64(x) => Node::F64(*x),
        Value::Char(c) => Node::Char(*c),
        Value::Str(s) => Node::Str(std::mem::take(s)),
        Value::Bytes(b) => Node::Bytes(std::mem::take(b)),
        Value::Array(a) => Node::Array(std::mem::take(a)),
        Value::Map(m) => Node::Map(std::mem::take(m)),
        Value::Some(x) => Node::Some(x.take()),
        Value::Variant(v) => Node::Variant(v.kind, std::mem::take(&mut v.name), v.value.take()),
        Value::Timestamp { secs, nanos } => Node::Timestamp(*secs, *nanos),
    }
}

/// `&'de Value`: children borrowed.
fn take_ref<'de>(v: &mut &'de Value) -> Node<&'de str, &'de [u8], &'de Value> {
    let v: &'de Value = v;
    match v {
        Value::Nil => Node::Nil,
        Value::Unit | Value::UnitStruct => Node::Unit,
        Value::Bool(b) => Node::Bool(*b),
        Value::U64(x) => Node::U64(*x),
        Value::I64(x) => Node::I64(*x),
        Value::U128(x) => Node::U128(*x),
        Value::I128(x) => Node::I128(*x),
        Value::F32(x) => Node::F32(*x),
        Value::F64(x) => Node::F64(*x),
        Value::Char(c) => Node::Char(*c),
        Value::Str(s) => Node::Str(s),
        Value::Bytes(b) => Node::Bytes(b),
        Value::Array(a) => Node::Array(a.iter().collect()),
        Value::Map(m) => Node::Map(m.iter().map(|(k, v)| (k, v)).collect()),
        Value::Some(x) => Node::Some(x),
        Value::Variant(v) => Node::Variant(v.kind, v.name.clone(), &v.value),
        Value::Timestamp { secs, nanos } => Node::Timestamp(*secs, *nanos),
    }
}

fn visit_seq<'de, E, V>(items: Vec<E>, visitor: V) -> Result<V::Value>
where
    E: IntoDeserializer<'de, Error>,
    V: Visitor<'de>,
{
    let mut seq = SeqDeserializer::new(items.into_iter());
    let v = visitor.visit_seq(&mut seq)?;
    seq.end()?;
    Ok(v)
}

fn visit_map<'de, E, V>(entries: Vec<(E, E)>, visitor: V) -> Result<V::Value>
where
    E: IntoDeserializer<'de, Error>,
    V: Visitor<'de>,
{
    let mut map = MapDeserializer::new(entries.into_iter());
    let v = visitor.visit_map(&mut map)?;
    map.end()?;
    Ok(v)
}

/// An enum variant being deserialized: its `wire::ext` subtype, name and payload `E`.
struct VariantDe<E> {
    kind: VariantKind,
    name: String,
    payload: E,
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
        visit_seq(vec![Value::from(self.sub), Value::from(self.name)], visitor)
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

value_deserializer!(Value, this, Value, take_owned, visit_string, visit_byte_buf);
value_deserializer!(
    &'de Value,
    this,
    &'de Value,
    take_ref,
    visit_borrowed_str,
    visit_borrowed_bytes
);
