//! Primitive elements of sequences: a probe serializer that accepts one number or bool and
//! refuses everything else, used by QPack's packing ([`crate::qpack::encode`]) and by the
//! plain (Speed) sequence path, [`Sink::write_prims`].

use std::fmt;

use serde::Serialize;
use serde::ser::{self, Impossible};

use super::Sink;
use super::write::Form;
use crate::refuse::refuse;
use crate::short::as_uninit;
use crate::wire::ext::magic;

/// `value` as a primitive, or `None` if it serializes as anything else (its first serializer
/// call is refused, so nothing of it has been written anywhere).
#[inline(always)]
pub(crate) fn probe<T: ?Sized + Serialize>(value: &T) -> Option<Prim> {
    value.serialize(Probe).ok()
}

impl Prim {
    /// The form the real serializer writes for this value (`serialize_bool`, the integer
    /// methods, `serialize_f32`, `serialize_f64`).
    #[inline(always)]
    pub(crate) fn form(self) -> Form {
        match self {
            Prim::Bool(b) => Form::bool(b),
            Prim::Int(v, true) => Form::i64(v as i64),
            Prim::Int(v, false) => Form::u64(v),
            Prim::F32(f) => Form::f32(f),
            Prim::F64(f) => Form::f64(f),
        }
    }
}

impl Sink {
    /// Writes items of `iter` while each is a primitive, in the forms the element-by-element
    /// path writes; returns how many it wrote, the first item that is not a primitive
    /// (`None`: the iterator ended; that item is not written) and the iterator.
    ///
    /// The plain path of sequences (`Compound::elements` in the serializer): per element one
    /// probe, one capacity comparison and one constant-size copy into the spare capacity,
    /// with the write position (and the iterator) kept in locals, so the `Vec`'s length is
    /// stored once per refill instead of loaded and stored for every element.
    #[inline]
    pub(crate) fn write_prims<I>(&mut self, mut iter: I) -> (usize, Option<I::Item>, I)
    where
        I: Iterator,
        I::Item: Serialize,
    {
        let mut written = 0;
        loop {
            let len = self.out.len();
            let spare = self.out.spare_capacity_mut();
            let room = spare.len();
            let mut rest = spare;
            let stop = loop {
                if rest.len() < Form::MAX {
                    break None;
                }
                let Some(item) = iter.next() else {
                    break Some(None);
                };
                let Some(p) = probe(&item) else {
                    break Some(Some(item));
                };
                let f = p.form();
                rest[..Form::MAX].copy_from_slice(as_uninit(&f.buf));
                rest = &mut rest[f.len.min(Form::MAX)..];
                written += 1;
            };
            let pos = room - rest.len();
            // SAFETY: the `pos` bytes after the old length, the front of the spare capacity
            // that `rest` no longer covers, were written above (each form before `rest`
            // moved past it).
            unsafe { self.out.set_len(len + pos) };
            match stop {
                Some(rest) => return (written, rest, iter),
                // Each remaining element takes at least one byte. The lower bound is only a
                // hint (a buggy iterator may claim `usize::MAX`): capped, so that a lie costs
                // at most [`RESERVE_CAP`] spare bytes, never a capacity overflow or an abort.
                None => self
                    .out
                    .reserve(Form::MAX.max(iter.size_hint().0.min(RESERVE_CAP))),
            }
        }
    }
}

/// The most [`Sink::write_prims`] reserves ahead on the word of `size_hint` (the
/// `Vec` still grows by doubling past it).
const RESERVE_CAP: usize = 1 << 16;

/// One element as the probe saw it.
#[derive(Copy, Clone, Debug)]
pub(crate) enum Prim {
    Bool(bool),
    /// Two's-complement bits, and whether the value is negative.
    Int(u64, bool),
    F32(f32),
    F64(f64),
}

/// The probe's refusal: the element is not a primitive.
#[derive(Debug)]
pub(crate) struct NotPrim;

impl fmt::Display for NotPrim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not a packable primitive")
    }
}

impl std::error::Error for NotPrim {}

impl ser::Error for NotPrim {
    fn custom<T: fmt::Display>(_msg: T) -> Self {
        NotPrim
    }
}

/// A serializer that accepts one primitive and refuses everything else.
struct Probe;

type No = Impossible<Prim, NotPrim>;

impl Probe {
    fn no(self) -> NotPrim {
        NotPrim
    }
}

impl ser::Serializer for Probe {
    type Ok = Prim;
    type Error = NotPrim;
    type SerializeSeq = No;
    type SerializeTuple = No;
    type SerializeTupleStruct = No;
    type SerializeTupleVariant = No;
    type SerializeMap = No;
    type SerializeStruct = No;
    type SerializeStructVariant = No;

    fn is_human_readable(&self) -> bool {
        false
    }
    fn serialize_bool(self, v: bool) -> std::result::Result<Prim, NotPrim> {
        Ok(Prim::Bool(v))
    }
    fn serialize_i8(self, v: i8) -> std::result::Result<Prim, NotPrim> {
        self.serialize_i64(v as i64)
    }
    fn serialize_i16(self, v: i16) -> std::result::Result<Prim, NotPrim> {
        self.serialize_i64(v as i64)
    }
    fn serialize_i32(self, v: i32) -> std::result::Result<Prim, NotPrim> {
        self.serialize_i64(v as i64)
    }
    fn serialize_i64(self, v: i64) -> std::result::Result<Prim, NotPrim> {
        Ok(Prim::Int(v as u64, v < 0))
    }
    fn serialize_i128(self, v: i128) -> std::result::Result<Prim, NotPrim> {
        match (u64::try_from(v), i64::try_from(v)) {
            (Ok(u), _) => Ok(Prim::Int(u, false)),
            (_, Ok(i)) => Ok(Prim::Int(i as u64, true)),
            _ => Err(NotPrim),
        }
    }
    fn serialize_u8(self, v: u8) -> std::result::Result<Prim, NotPrim> {
        self.serialize_u64(v as u64)
    }
    fn serialize_u16(self, v: u16) -> std::result::Result<Prim, NotPrim> {
        self.serialize_u64(v as u64)
    }
    fn serialize_u32(self, v: u32) -> std::result::Result<Prim, NotPrim> {
        self.serialize_u64(v as u64)
    }
    fn serialize_u64(self, v: u64) -> std::result::Result<Prim, NotPrim> {
        Ok(Prim::Int(v, false))
    }
    fn serialize_u128(self, v: u128) -> std::result::Result<Prim, NotPrim> {
        u64::try_from(v)
            .map(|u| Prim::Int(u, false))
            .map_err(|_| NotPrim)
    }
    fn serialize_f32(self, v: f32) -> std::result::Result<Prim, NotPrim> {
        Ok(Prim::F32(v))
    }
    fn serialize_f64(self, v: f64) -> std::result::Result<Prim, NotPrim> {
        Ok(Prim::F64(v))
    }
    /// Transparent like the real serializer, except `Value`'s private carrier names.
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        value: &T,
    ) -> std::result::Result<Prim, NotPrim> {
        if magic::variant_kind(name).is_some() {
            return Err(NotPrim);
        }
        value.serialize(self)
    }
    refuse! {
        Probe::no; serialize_char serialize_str serialize_bytes serialize_none serialize_unit
        serialize_unit_struct serialize_unit_variant serialize_some serialize_newtype_variant
        compounds
    }
}
