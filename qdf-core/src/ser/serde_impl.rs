//! `impl serde::Serializer for &mut Serializer`: maps each serde kind to its wire form
//! (`docs/SPEC.md` §8).

use serde::Serialize;

use super::Serializer;
use super::compound::Compound;
use crate::error::{Error, Result};
use crate::sink::Header;
use crate::wire::ext::{self, magic};
use crate::wire::form::Form;
use crate::wire::tags::*;

impl Serializer {
    /// `serialize_str` after a `Value` variant's private newtype name: a timestamp's text, or
    /// a unit variant's name after its `F2` tag.
    #[cold]
    #[inline(never)]
    fn serialize_variant_str(&mut self, v: &str) -> Result<()> {
        let Some(kind) = self.pending_variant.take() else {
            return self.sink.write_str_value(v);
        };
        if kind == TIMESTAMP {
            return self.sink.write_timestamp_text(v);
        }
        // A `Value` unit variant: the carried string is the name.
        debug_assert_eq!(kind, ext::UNIT_VARIANT);
        self.sink.write_ext(kind);
        self.sink.write_str(v)
    }
}

impl<'a> serde::Serializer for &'a mut Serializer {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Compound<'a>;
    type SerializeTuple = Compound<'a>;
    type SerializeTupleStruct = Compound<'a>;
    type SerializeTupleVariant = Compound<'a>;
    type SerializeMap = Compound<'a>;
    type SerializeStruct = Compound<'a>;
    type SerializeStructVariant = Compound<'a>;

    fn is_human_readable(&self) -> bool {
        false
    }

    #[inline]
    fn serialize_bool(self, v: bool) -> Result<()> {
        self.sink.push(if v { TRUE } else { FALSE });
        Ok(())
    }
    #[inline]
    fn serialize_i8(self, v: i8) -> Result<()> {
        self.sink.write_i64(v as i64);
        Ok(())
    }
    #[inline]
    fn serialize_i16(self, v: i16) -> Result<()> {
        self.sink.write_i64(v as i64);
        Ok(())
    }
    #[inline]
    fn serialize_i32(self, v: i32) -> Result<()> {
        self.sink.write_i64(v as i64);
        Ok(())
    }
    #[inline]
    fn serialize_i64(self, v: i64) -> Result<()> {
        self.sink.write_i64(v);
        Ok(())
    }
    fn serialize_i128(self, v: i128) -> Result<()> {
        self.sink.write_i128(v);
        Ok(())
    }
    #[inline]
    fn serialize_u8(self, v: u8) -> Result<()> {
        self.sink.write_u64(v as u64);
        Ok(())
    }
    #[inline]
    fn serialize_u16(self, v: u16) -> Result<()> {
        self.sink.write_u64(v as u64);
        Ok(())
    }
    #[inline]
    fn serialize_u32(self, v: u32) -> Result<()> {
        self.sink.write_u64(v as u64);
        Ok(())
    }
    #[inline]
    fn serialize_u64(self, v: u64) -> Result<()> {
        self.sink.write_u64(v);
        Ok(())
    }
    fn serialize_u128(self, v: u128) -> Result<()> {
        self.sink.write_u128(v);
        Ok(())
    }
    /// Never narrowed: raw IEEE-754 bits, so −0.0, NaN payloads and subnormals survive.
    #[inline]
    fn serialize_f32(self, v: f32) -> Result<()> {
        self.sink.write_form(Form::f32(v));
        Ok(())
    }
    #[inline]
    fn serialize_f64(self, v: f64) -> Result<()> {
        self.sink.write_form(Form::f64(v));
        Ok(())
    }
    fn serialize_char(self, v: char) -> Result<()> {
        self.sink.write_char(v);
        Ok(())
    }
    /// The `Value` variant case is a tail call out of line, so the common path makes no call
    /// that values must survive: serde's `String::serialize` around this body is too big for
    /// LLVM to inline into `Compound::serialize_field` unless it is the only caller in its
    /// codegen unit, and out of line it is then a leaf without a stack frame.
    #[inline]
    fn serialize_str(self, v: &str) -> Result<()> {
        if self.pending_variant.is_some() {
            return self.serialize_variant_str(v);
        }
        self.sink.write_str_value(v)
    }
    #[inline]
    fn serialize_bytes(self, v: &[u8]) -> Result<()> {
        self.sink.write_bytes(v)
    }
    fn serialize_none(self) -> Result<()> {
        self.sink.push(NIL);
        Ok(())
    }
    /// `Some(x)` is `x`, unless `x`'s encoding starts with `C0` or `F2` (but not a string
    /// form: hex text `F2 0B`/`F2 0C`, or a slotted prefix form `F2 0D`, `docs/SPEC.md` §15.3,
    /// which the decoder resolves before the target sees it): then `F2 05` is inserted before
    /// it. One depth level either way (the decoder counts `Some` the same way).
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<()> {
        self.sink.enter()?;
        let pos = self.sink.len();
        value.serialize(&mut *self)?;
        self.sink.leave(1);
        if let Some(first) = self.sink.byte_at(pos)
            && ext::some_needs_wrapper(first, self.sink.byte_at(pos + 1))
        {
            self.sink.splice(pos..pos, &[EXT, ext::SOME]);
        }
        Ok(())
    }
    fn serialize_unit(self) -> Result<()> {
        self.sink.write_ext(ext::UNIT);
        Ok(())
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<()> {
        self.sink.write_ext(ext::UNIT_STRUCT);
        Ok(())
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<()> {
        self.sink.write_ext(ext::UNIT_VARIANT);
        self.sink.write_str(variant)
    }
    /// Transparent: `struct Meters(u32)` is written as its `u32`.
    #[inline]
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<()> {
        if let Some(kind) = magic::variant_kind(name) {
            self.pending_variant = Some(kind);
            let r = value.serialize(&mut *self);
            self.pending_variant = None;
            return r;
        }
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<()> {
        self.sink.enter()?;
        self.sink.write_ext(ext::NEWTYPE_VARIANT);
        self.sink.write_str(variant)?;
        value.serialize(&mut *self)?;
        self.sink.leave(1);
        Ok(())
    }
    /// An array of the elements.
    ///
    /// Hook: QPack writes packed numeric sequences (E3–E7, EB, ED, EE, F4) here.
    #[inline]
    fn serialize_seq(self, len: Option<usize>) -> Result<Compound<'a>> {
        Compound::open(self, Header::Array, len, 1)
    }
    /// serde's default (`serialize_seq` with the exact size hint, each element, `end`), with
    /// the elements written by `Compound::elements`: `Vec`, slices, sets and other
    /// collections come here.
    #[inline]
    fn collect_seq<I>(self, iter: I) -> Result<()>
    where
        I: IntoIterator,
        I::Item: Serialize,
    {
        let iter = iter.into_iter();
        let len = match iter.size_hint() {
            (lo, Some(hi)) if lo == hi => Some(lo),
            _ => None,
        };
        let mut seq = Compound::open(self, Header::Array, len, 1)?;
        seq.elements(iter)?;
        serde::ser::SerializeSeq::end(seq)
    }
    #[inline]
    fn serialize_tuple(self, len: usize) -> Result<Compound<'a>> {
        Compound::open(self, Header::Array, Some(len), 1)
    }
    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<Compound<'a>> {
        Compound::open(self, Header::Array, Some(len), 1)
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Compound<'a>> {
        self.sink.enter()?;
        self.sink.write_ext(ext::TUPLE_VARIANT);
        self.sink.write_str(variant)?;
        self.plain_array = true;
        Compound::open(self, Header::Array, Some(len), 2)
    }
    fn serialize_map(self, len: Option<usize>) -> Result<Compound<'a>> {
        if let Some(kind) = self.pending_variant.take() {
            self.sink.enter()?;
            self.sink.write_ext(kind);
            return Ok(Compound::carrier(self, kind));
        }
        Compound::open_map(self, len)
    }
    /// A map of field name → value, in declaration order (skipped fields are left out).
    ///
    /// Hook: the Dense dialect writes struct shapes (tag EC) here.
    #[inline]
    fn serialize_struct(self, name: &'static str, len: usize) -> Result<Compound<'a>> {
        Compound::open_struct(self, name, len, 1)
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Compound<'a>> {
        self.sink.enter()?;
        self.sink.write_ext(ext::STRUCT_VARIANT);
        self.sink.write_str(variant)?;
        Compound::open_struct(self, variant, len, 2)
    }
}
