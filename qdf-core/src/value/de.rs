//! `impl Deserialize for Value`.
//!
//! `Value` asks for a private newtype name (`wire::ext::magic::VALUE`); the qdf deserializer
//! then reports enum variants and unit structs through `visit_enum` with a `(subtype, name)`
//! identifier, which is how `Value` learns the variant kind. Other deserializers see a plain
//! newtype struct and deliver their own self-described data.

use std::fmt;

use serde::de::{
    self, Deserialize, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess,
    VariantAccess, Visitor,
};

use super::{Value, Variant, VariantKind};
use crate::wire::ext::{self, magic};
use crate::wire::tags::TIMESTAMP;

/// Preallocation cap for containers (the real count is still honoured, growing as needed).
const MAX_PREALLOC: usize = 4096;

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
        d.deserialize_newtype_struct(magic::VALUE, ValueVisitor)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any qdf value")
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(ValueVisitor)
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(if v >= 0 {
            Value::U64(v as u64)
        } else {
            Value::I64(v)
        })
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::U64(v))
    }
    fn visit_i128<E>(self, v: i128) -> Result<Value, E> {
        Ok(if let Ok(u) = u64::try_from(v) {
            Value::U64(u)
        } else if let Ok(u) = u128::try_from(v) {
            Value::U128(u)
        } else if let Ok(i) = i64::try_from(v) {
            Value::I64(i)
        } else {
            Value::I128(v)
        })
    }
    fn visit_u128<E>(self, v: u128) -> Result<Value, E> {
        Ok(match u64::try_from(v) {
            Ok(u) => Value::U64(u),
            Err(_) => Value::U128(v),
        })
    }
    fn visit_f32<E>(self, v: f32) -> Result<Value, E> {
        Ok(Value::F32(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::F64(v))
    }
    fn visit_char<E>(self, v: char) -> Result<Value, E> {
        Ok(Value::Char(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::Str(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::Str(v))
    }
    fn visit_bytes<E>(self, v: &[u8]) -> Result<Value, E> {
        Ok(Value::Bytes(v.to_vec()))
    }
    fn visit_byte_buf<E>(self, v: Vec<u8>) -> Result<Value, E> {
        Ok(Value::Bytes(v))
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Nil)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Value::deserialize(d).map(Value::some)
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Unit)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(MAX_PREALLOC));
        while let Some(v) = seq.next_element()? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Vec::with_capacity(map.size_hint().unwrap_or(0).min(MAX_PREALLOC));
        while let Some(kv) = map.next_entry()? {
            out.push(kv);
        }
        Ok(Value::Map(out))
    }
    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<Value, A::Error> {
        let ((sub, name), access) = data.variant_seed(KindSeed)?;
        let (kind, value) = match sub {
            ext::UNIT_STRUCT => {
                access.unit_variant()?;
                return Ok(Value::UnitStruct);
            }
            TIMESTAMP => {
                let (secs, nanos): (i64, u32) = access.newtype_variant()?;
                return Ok(Value::Timestamp { secs, nanos });
            }
            ext::UNIT_VARIANT => {
                access.unit_variant()?;
                (VariantKind::Unit, Value::Unit)
            }
            ext::TUPLE_VARIANT => (VariantKind::Tuple, access.tuple_variant(0, ValueVisitor)?),
            ext::STRUCT_VARIANT => (
                VariantKind::Struct,
                access.struct_variant(&[], ValueVisitor)?,
            ),
            // NEWTYPE_VARIANT, and the plain names other formats give.
            _ => (VariantKind::Newtype, access.newtype_variant::<Value>()?),
        };
        Ok(Value::Variant(Box::new(Variant { kind, name, value })))
    }
}

/// The variant identifier: `(subtype, name)` from qdf, `(NEWTYPE_VARIANT, name)` elsewhere.
struct KindSeed;

impl<'de> DeserializeSeed<'de> for KindSeed {
    type Value = (u8, String);
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(u8, String), D::Error> {
        d.deserialize_tuple_struct(magic::KIND, 2, KindVisitor)
    }
}

struct KindVisitor;

impl<'de> Visitor<'de> for KindVisitor {
    type Value = (u8, String);
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a variant name")
    }
    fn visit_str<E>(self, v: &str) -> Result<(u8, String), E> {
        Ok((ext::NEWTYPE_VARIANT, v.to_owned()))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(u8, String), A::Error> {
        let kind: u8 = seq
            .next_element()?
            .ok_or_else(|| de::Error::invalid_length(0, &self))?;
        let name: String = seq
            .next_element()?
            .ok_or_else(|| de::Error::invalid_length(1, &self))?;
        Ok((kind, name))
    }
}
