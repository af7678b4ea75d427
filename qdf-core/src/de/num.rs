//! A predicted number (`docs/SPEC.md` §15.2) handed to serde: the value a field's numeric
//! state resolved, presented exactly as the plain token of that number would be (any target
//! that reads the plain number reads this one, with the same checks).

use serde::de::{self, Visitor};
use serde::forward_to_deserialize_any;

use super::serde_impl::visit_num;
use crate::error::{Error, Result};
use crate::source::Num;

/// One resolved number; `at` is the offset of its predicted form (for errors).
pub(crate) struct NumDe {
    num: Num,
    at: u64,
}

impl NumDe {
    /// The number `num`, read at offset `at`.
    pub(crate) fn new(num: Num, at: u64) -> Self {
        NumDe { num, at }
    }

    /// A float target (`f32` when `narrow`): integers only when exact, as for plain ones.
    fn float<'de, V: Visitor<'de>>(self, visitor: V, narrow: bool) -> Result<V::Value> {
        self.num
            .check_float_target(narrow)
            .map_err(|e| e.with_offset(self.at))?;
        visit_num(self.num, visitor).map_err(|e| e.with_offset(self.at))
    }
}

impl<'de> de::Deserializer<'de> for NumDe {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let at = self.at;
        visit_num(self.num, visitor).map_err(|e| e.with_offset(at))
    }

    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.float(visitor, true)
    }

    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.float(visitor, false)
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

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_unit()
    }

    fn is_human_readable(&self) -> bool {
        false
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 char str string bytes byte_buf unit
        unit_struct seq tuple tuple_struct map struct enum identifier
    }
}
