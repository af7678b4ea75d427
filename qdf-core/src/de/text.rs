//! A slotted string written as a prefix form (`docs/SPEC.md` §15.3) handed to serde: the
//! string is rebuilt from the field's last string, so it is presented owned (`visit_string`),
//! as number-text columns present theirs (§22.1): a borrowed `&str` target is a `Data`
//! error, a `Cow<str>` comes out owned.

use serde::de::value::StringDeserializer;
use serde::de::{self, Visitor};
use serde::forward_to_deserialize_any;

use crate::error::{Error, Result};

/// One rebuilt string; `at` is the offset of its prefix form (for errors).
pub(crate) struct StrDe {
    s: String,
    at: u64,
}

impl StrDe {
    /// The string `s`, read at offset `at`.
    pub(crate) fn new(s: String, at: u64) -> Self {
        StrDe { s, at }
    }
}

impl<'de> de::Deserializer<'de> for StrDe {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let at = self.at;
        visitor
            .visit_string::<Error>(self.s)
            .map_err(|e: Error| e.with_offset(at))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_newtype_struct(self)
    }

    /// A bare string is a unit variant (`docs/SPEC.md` §8).
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        let at = self.at;
        visitor
            .visit_enum(StringDeserializer::<Error>::new(self.s))
            .map_err(|e: Error| e.with_offset(at))
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_unit()
    }

    fn is_human_readable(&self) -> bool {
        false
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct seq tuple tuple_struct map struct identifier
    }
}
