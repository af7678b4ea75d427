//! serde access types: array elements, map entries, enum variants.

use serde::de::{self, DeserializeSeed, IntoDeserializer, Visitor};

use super::Deserializer;
use crate::error::{Error, Result};
use crate::wire::ext::{self, magic};
use crate::wire::read::{Reference, Text};
use crate::wire::tags::{BIN8, BIN16, BIN32, TIMESTAMP};

/// Internal enum kind: a 1-entry map `{name: payload}` (what serde's buffered `Content` and
/// other formats' values produce), accepted for any variant kind.
pub(crate) const MAP_FORM: u8 = 0xFF;

/// The elements of an array; `left` never exceeds what the remaining input can hold.
pub(crate) struct SeqAccess<'a, 'de> {
    pub(crate) de: &'a mut Deserializer<'de>,
    pub(crate) left: usize,
}

impl<'de> de::SeqAccess<'de> for SeqAccess<'_, 'de> {
    type Error = Error;
    #[inline]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        seed.deserialize(&mut *self.de).map(Some)
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.left)
    }
}

/// The entries of a map.
pub(crate) struct MapAccess<'a, 'de> {
    pub(crate) de: &'a mut Deserializer<'de>,
    pub(crate) left: usize,
}

impl<'de> de::MapAccess<'de> for MapAccess<'_, 'de> {
    type Error = Error;
    #[inline]
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        seed.deserialize(&mut *self.de).map(Some)
    }
    #[inline]
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        seed.deserialize(&mut *self.de)
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.left)
    }
}

impl super::dupkeys::KeyAt for MapAccess<'_, '_> {
    fn key_at(&self) -> u64 {
        self.de.src.offset()
    }
}

/// An enum variant: `kind` is the extension subtype (or [`MAP_FORM`]); the name is the next
/// string in the input (none for a unit struct).
pub(crate) struct Enum<'a, 'de> {
    pub(crate) de: &'a mut Deserializer<'de>,
    pub(crate) kind: u8,
}

impl<'de> de::EnumAccess<'de> for Enum<'_, 'de> {
    type Error = Error;
    type Variant = Self;
    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self)> {
        let v = seed.deserialize(VariantName {
            de: &mut *self.de,
            kind: self.kind,
        })?;
        Ok((v, self))
    }
}

impl<'de> Enum<'_, 'de> {
    #[cold]
    fn wrong_kind(&self, expected: &'static str) -> Error {
        Error::mismatch(expected, ext::subtype_name(self.kind))
    }
}

impl<'de> de::VariantAccess<'de> for Enum<'_, 'de> {
    type Error = Error;
    fn unit_variant(self) -> Result<()> {
        match self.kind {
            ext::UNIT_VARIANT | ext::UNIT_STRUCT => Ok(()),
            MAP_FORM => de::Deserialize::deserialize(&mut *self.de),
            _ => Err(self.wrong_kind("a unit variant")),
        }
    }
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        match self.kind {
            ext::NEWTYPE_VARIANT | MAP_FORM => seed.deserialize(&mut *self.de),
            TIMESTAMP => {
                let (secs, nanos) = self.de.src.read_timestamp()?;
                seed.deserialize(de::value::SeqAccessDeserializer::new(TimestampSeq::new(
                    secs, nanos,
                )))
            }
            _ => Err(self.wrong_kind("a newtype variant")),
        }
    }
    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value> {
        match self.kind {
            ext::TUPLE_VARIANT | MAP_FORM => {
                self.de.src.check_payload(self.kind)?;
                de::Deserializer::deserialize_tuple(&mut *self.de, len, visitor)
            }
            _ => Err(self.wrong_kind("a tuple variant")),
        }
    }
    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        match self.kind {
            ext::STRUCT_VARIANT | MAP_FORM => {
                self.de.src.check_payload(self.kind)?;
                de::Deserializer::deserialize_struct(&mut *self.de, "", fields, visitor)
            }
            _ => Err(self.wrong_kind("a struct variant")),
        }
    }
}

/// Deserializes a variant name (a string in the input). Asked for the private
/// `magic::KIND` tuple struct (only `Value` does), it yields `(subtype, name)` instead.
pub(crate) struct VariantName<'a, 'de> {
    pub(crate) de: &'a mut Deserializer<'de>,
    pub(crate) kind: u8,
}

impl<'de> de::Deserializer<'de> for VariantName<'_, 'de> {
    type Error = Error;
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.kind == ext::UNIT_STRUCT || self.kind == TIMESTAMP {
            // No name on the wire.
            return visitor.visit_borrowed_str("");
        }
        let at = self.de.src.offset();
        let tag = self.de.src.next_tag()?;
        // A name is a string (SPEC §9): an inline byte string is refused, else a `Value`
        // would re-encode it as a string, a second encoding of the same value. A Dense
        // bytes entry is accepted when UTF-8 (SPEC §14), and then visited as a string, so
        // every target (`Value`, `IgnoredAny`, an enum) accepts and refuses the same names.
        if matches!(tag, BIN8 | BIN16 | BIN32) {
            return Err(self.de.src.unexpected(tag, "a variant name"));
        }
        let text = match self.de.src.read_text(tag)? {
            Some(t) => t,
            None => return Err(self.de.src.unexpected(tag, "a variant name")),
        };
        let not_utf8 =
            || Error::mismatch("a variant name", "a byte string that is not UTF-8").with_offset(at);
        match text {
            Text::Bytes(Reference::Borrowed(b)) => {
                visitor.visit_borrowed_str(crate::utf8::utf8(b).map_err(|_| not_utf8())?)
            }
            Text::Bytes(Reference::Copied(b)) => {
                visitor.visit_str(crate::utf8::utf8(b).map_err(|_| not_utf8())?)
            }
            t => super::visit_text(t, visitor),
        }
    }
    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value> {
        if name == magic::KIND {
            return visitor.visit_seq(KindSeq {
                name: Some(self),
                sent_kind: false,
            });
        }
        self.deserialize_any(visitor)
    }
    fn is_human_readable(&self) -> bool {
        false
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple map struct enum identifier ignored_any
    }
}

/// `(subtype, name)` for `Value`'s variant seed.
struct KindSeq<'a, 'de> {
    name: Option<VariantName<'a, 'de>>,
    sent_kind: bool,
}

impl<'de> de::SeqAccess<'de> for KindSeq<'_, 'de> {
    type Error = Error;
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if !self.sent_kind {
            self.sent_kind = true;
            let kind = self.name.as_ref().map_or(0, |n| n.kind);
            let d: de::value::U8Deserializer<Error> = kind.into_deserializer();
            return seed.deserialize(d).map(Some);
        }
        match self.name.take() {
            Some(n) => seed.deserialize(n).map(Some),
            None => Ok(None),
        }
    }
}

/// An enum variant seen by `deserialize_any` outside value mode: a 1-entry map
/// `{name: payload}`, the shape serde's `Content` and externally tagged enums understand.
pub(crate) struct VariantMap<'a, 'de> {
    pub(crate) de: &'a mut Deserializer<'de>,
    pub(crate) kind: u8,
    pub(crate) done: bool,
}

impl<'de> de::MapAccess<'de> for VariantMap<'_, 'de> {
    type Error = Error;
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        if self.done {
            return Ok(None);
        }
        self.done = true;
        seed.deserialize(VariantName {
            de: &mut *self.de,
            kind: self.kind,
        })
        .map(Some)
    }
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        self.de.src.check_payload(self.kind)?;
        seed.deserialize(&mut *self.de)
    }
    fn size_hint(&self) -> Option<usize> {
        Some(usize::from(!self.done))
    }
}

/// A timestamp `(seconds: i64, nanoseconds: u32)` as a 2-element sequence.
pub(crate) struct TimestampSeq {
    secs: i64,
    nanos: u32,
    next: u8,
}

impl TimestampSeq {
    pub(crate) fn new(secs: i64, nanos: u32) -> Self {
        TimestampSeq {
            secs,
            nanos,
            next: 0,
        }
    }
}

impl<'de> de::SeqAccess<'de> for TimestampSeq {
    type Error = Error;
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        self.next += 1;
        match self.next {
            1 => seed.deserialize(self.secs.into_deserializer()).map(Some),
            2 => seed.deserialize(self.nanos.into_deserializer()).map(Some),
            _ => Ok(None),
        }
    }
    fn size_hint(&self) -> Option<usize> {
        Some(2usize.saturating_sub(self.next as usize))
    }
}
