//! QPack's decode half (`docs/SPEC.md` §19): a body is decoded by [`codec::decode_body`]
//! ([`read_packed`], also for columnar columns), and where the data model expects a sequence
//! its elements are handed to the visitor one by one as plain numbers or booleans
//! ([`visit_packed`]).
//!
//! Integers are visited as `u64` (unsigned kinds) or `i64` (signed kinds); serde's primitive
//! visitors range-check narrower targets, so a value that does not fit is a `Data` error.
//! Floats are visited as `f32`/`f64` by kind, bit-exact. The decoded elements are charged to
//! the output budget, `codec::cursor::ELEMENT_CHARGE` (8) units per element, before anything is
//! allocated.

use serde::de::{self, DeserializeSeed, Visitor};

use crate::codec::{self, Packed};
use crate::error::{Error, Result};
use crate::source::{Num, Source};

/// Decodes the QPack body after tag `tag` (just read), charging its elements to the budget.
#[inline]
pub(crate) fn read_packed(src: &mut Source<'_>, tag: u8) -> Result<Packed> {
    src.decode_with("a QPack body", |rest, base, left| {
        codec::decode_body(tag, rest, base, left)
    })
}

/// Visits the QPack value whose tag `tag` was just read, as a sequence.
pub(crate) fn visit_packed<'de, V: Visitor<'de>>(
    src: &mut Source<'de>,
    tag: u8,
    visitor: V,
) -> Result<V::Value> {
    let packed = read_packed(src, tag)?;
    src.enter()?;
    let n = packed.len();
    let mut seq = PackedSeq { packed, next: 0 };
    let v = visitor.visit_seq(&mut seq).map_err(|e| src.locate(e))?;
    src.leave();
    if seq.next != n {
        return Err(Error::mismatch(
            format!("{} elements", seq.next),
            format!("a packed sequence of {n} elements"),
        ));
    }
    Ok(v)
}

/// A decoded QPack body as a serde sequence.
struct PackedSeq {
    packed: Packed,
    next: usize,
}

impl<'de> de::SeqAccess<'de> for PackedSeq {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        let i = self.next;
        let elem = match &self.packed {
            Packed::Bools(v) => v.get(i).map(|&b| Elem::Bool(b)),
            Packed::Ints(k, v) if k.is_signed() => v.get(i).map(|&x| Elem::I64(x as i64)),
            Packed::Ints(_, v) => v.get(i).map(|&x| Elem::U64(x)),
            Packed::F32s(v) => v.get(i).map(|&f| Elem::F32(f)),
            Packed::F64s(v) => v.get(i).map(|&f| Elem::F64(f)),
        };
        let Some(elem) = elem else {
            return Ok(None);
        };
        self.next += 1;
        seed.deserialize(elem).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.packed.len() - self.next)
    }
}

/// One element of a packed sequence.
#[derive(Copy, Clone, Debug)]
enum Elem {
    Bool(bool),
    U64(u64),
    I64(i64),
    F32(f32),
    F64(f64),
}

impl Elem {
    /// [`Num::check_float_target`] for an integer element; floats and bools pass (serde's
    /// float visitors refuse a bool themselves).
    fn check_float(self, narrow: bool) -> Result<()> {
        match self {
            Elem::U64(v) => Num::U64(v).check_float_target(narrow),
            Elem::I64(v) => Num::I64(v).check_float_target(narrow),
            Elem::Bool(_) | Elem::F32(_) | Elem::F64(_) => Ok(()),
        }
    }
}

impl<'de> de::Deserializer<'de> for Elem {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self {
            Elem::Bool(b) => visitor.visit_bool(b),
            Elem::U64(v) => visitor.visit_u64(v),
            Elem::I64(v) => visitor.visit_i64(v),
            Elem::F32(v) => visitor.visit_f32(v),
            Elem::F64(v) => visitor.visit_f64(v),
        }
    }

    /// An integer element only when the float holds it exactly, as in the row form.
    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.check_float(true)?;
        self.deserialize_any(visitor)
    }

    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.check_float(false)?;
        self.deserialize_any(visitor)
    }

    /// A bare value is `Some(value)`, as in the row form.
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

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}
