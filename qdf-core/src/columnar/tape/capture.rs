//! The capturing serializers: [`TapeSer`] records any value, [`CellSer`] one struct field.

use std::collections::HashSet;

use serde::Serialize;
use serde::ser;

use super::*;
use crate::error::{Error, ErrorCode, Result};
use crate::wire::ext::magic;

/// A serializer that captures any value onto a [`Tape`].
pub(crate) struct TapeSer<'a> {
    pub(crate) tape: &'a mut Tape,
    pub(crate) depth: Depth,
}

/// An open compound being captured; `O` is what `end` returns.
pub(crate) struct TapeCompound<'a, O> {
    tape: &'a mut Tape,
    /// The compound's `Open` event.
    open: u32,
    inner: Depth,
    /// In a map: a key was captured and its value not yet.
    key_open: bool,
    /// Values captured (the count of the `End` event).
    values: u32,
    /// An item failed (its error swallowed by the caller's `Serialize`): the items may be
    /// partial (an `Open` without its `End`, a `Field` without its value), so `end`
    /// refuses the whole capture and the caller serializes the value directly.
    failed: bool,
    /// Under [`Tape::check_keys`] (maps): the index in [`Tape::key_sets`] of the
    /// records of this compound's keys so far ([`Tape::key_record`]).
    keys: Option<u32>,
    _out: std::marker::PhantomData<O>,
}

/// The refusal of a map whose key may repeat an earlier one, under
/// `Options::deny_duplicate_keys`: the row goes the direct path, which checks exactly.
fn maybe_repeated() -> Error {
    Error::new(ErrorCode::Unsupported(
        "a key that may repeat an earlier key of its map (captured)",
    ))
}

/// The refusal of a map whose keys and values do not alternate (the real serializer
/// refuses it too, with its own error, when the value is serialized directly).
pub(super) fn misordered() -> Error {
    Error::new(ErrorCode::Unsupported(
        "map keys and values out of order (captured)",
    ))
}

impl<'a, O: FromTape> TapeCompound<'a, O> {
    // Inline, as `finish`, with the checked-keys work out of line: once per captured
    // compound (every struct of a row), where a call cost as much as the work (six
    // registers saved, the compound returned through memory).
    #[inline(always)]
    fn new(tape: &'a mut Tape, open: Open, at: Depth, levels: u32) -> Result<Self> {
        let inner = at.enter(levels)?;
        let keys = match open {
            Open::Map(_) if tape.check_keys => Some(open_key_set(tape)),
            _ => None,
        };
        let open = tape.push(Ev::Open(open, 0));
        Ok(TapeCompound {
            tape,
            open,
            inner,
            key_open: false,
            values: 0,
            failed: false,
            keys,
            _out: std::marker::PhantomData,
        })
    }

    /// Records a key under [`Tape::check_keys`]: `rec` its record, `None` for one that
    /// cannot be compared here. Out of line: the option is rare.
    #[cold]
    #[inline(never)]
    fn check_key(&mut self, rec: Option<Vec<u8>>) -> Result<()> {
        if let Some(i) = self.keys
            && !rec.is_some_and(|r| self.tape.key_sets[i as usize].insert(r))
        {
            self.failed = true;
            return Err(maybe_repeated());
        }
        Ok(())
    }

    fn capture<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<()> {
        let r = v.serialize(TapeSer {
            tape: self.tape,
            depth: self.inner,
        });
        self.failed |= r.is_err();
        self.values = self.values.wrapping_add(1);
        r
    }

    /// The `End` event; the rare cases (checked keys, a failed item, a key without its
    /// value) out of line.
    #[inline(always)]
    fn finish(self) -> Result<O> {
        if self.keys.is_some() || self.failed || self.key_open {
            return self.finish_other();
        }
        Ok(self.end())
    }

    #[cold]
    #[inline(never)]
    fn finish_other(self) -> Result<O> {
        if let Some(i) = self.keys {
            self.tape.key_sets.truncate(i as usize);
        }
        if self.failed {
            return Err(swallowed());
        }
        if self.key_open {
            return Err(misordered());
        }
        Ok(self.end())
    }

    /// Pushes the `End` event and points the `Open` at it.
    #[inline(always)]
    fn end(self) -> O {
        let end = self.tape.push(Ev::End(self.values));
        if let Ev::Open(_, e) = &mut self.tape.evs[self.open as usize] {
            *e = end;
        }
        O::at(self.open)
    }
}

/// A new key set for a captured map under [`Tape::check_keys`]: its index.
#[cold]
#[inline(never)]
fn open_key_set(tape: &mut Tape) -> u32 {
    tape.key_sets.push(HashSet::new());
    (tape.key_sets.len() - 1) as u32
}

/// The refusal of a compound one of whose items failed and whose `Serialize` went on: a
/// replay of what is on the tape could loop or misplace items, so it is not captured.
fn swallowed() -> Error {
    Error::new(ErrorCode::Unsupported(
        "a compound item failed and its error was ignored (captured)",
    ))
}

/// A length as captured; `usize::MAX` itself is refused (it would read as `None`).
fn len_of(len: Option<usize>) -> Result<Len> {
    match len {
        None => Ok(NO_LEN),
        Some(n) => match Len::try_from(n) {
            Ok(l) if l != NO_LEN => Ok(l),
            _ => Err(Error::new(ErrorCode::Unsupported(
                "an announced length of usize::MAX (captured)",
            ))),
        },
    }
}

/// The compound-opening methods, common to [`TapeSer`] and [`CellSer`].
macro_rules! compounds {
    () => {
        fn serialize_newtype_variant<T: ?Sized + Serialize>(
            self,
            name: &'static str,
            index: u32,
            variant: &'static str,
            value: &T,
        ) -> Result<Self::Ok> {
            let inner = self.depth.enter(1)?;
            let var = self.tape.variant(name, index, variant);
            let at = self.tape.push(Ev::NewtypeVariant(var));
            value.serialize(TapeSer {
                tape: self.tape,
                depth: inner,
            })?;
            Ok(FromTape::at(at))
        }
        fn serialize_seq(self, len: Option<usize>) -> Result<TapeCompound<'a, Self::Ok>> {
            TapeCompound::new(self.tape, Open::Seq(len_of(len)?), self.depth, 1)
        }
        fn serialize_tuple(self, len: usize) -> Result<TapeCompound<'a, Self::Ok>> {
            TapeCompound::new(self.tape, Open::Tuple(len_of(Some(len))?), self.depth, 1)
        }
        fn serialize_tuple_struct(
            self,
            name: &'static str,
            len: usize,
        ) -> Result<TapeCompound<'a, Self::Ok>> {
            let open = Open::TupleStruct(self.tape.name(name), len_of(Some(len))?);
            TapeCompound::new(self.tape, open, self.depth, 1)
        }
        fn serialize_tuple_variant(
            self,
            name: &'static str,
            index: u32,
            variant: &'static str,
            len: usize,
        ) -> Result<TapeCompound<'a, Self::Ok>> {
            let var = self.tape.variant(name, index, variant);
            let open = Open::TupleVariant(var, len_of(Some(len))?);
            TapeCompound::new(self.tape, open, self.depth, 2)
        }
        fn serialize_map(self, len: Option<usize>) -> Result<TapeCompound<'a, Self::Ok>> {
            TapeCompound::new(self.tape, Open::Map(len_of(len)?), self.depth, 1)
        }
        fn serialize_struct(
            self,
            name: &'static str,
            len: usize,
        ) -> Result<TapeCompound<'a, Self::Ok>> {
            let open = Open::Struct(self.tape.name(name), len_of(Some(len))?);
            TapeCompound::new(self.tape, open, self.depth, 1)
        }
        fn serialize_struct_variant(
            self,
            name: &'static str,
            index: u32,
            variant: &'static str,
            len: usize,
        ) -> Result<TapeCompound<'a, Self::Ok>> {
            let var = self.tape.variant(name, index, variant);
            let open = Open::StructVariant(var, len_of(Some(len))?);
            TapeCompound::new(self.tape, open, self.depth, 2)
        }
        fn serialize_unit(self) -> Result<Self::Ok> {
            Ok(FromTape::at(self.tape.push(Ev::Unit)))
        }
        fn serialize_unit_struct(self, name: &'static str) -> Result<Self::Ok> {
            let n = self.tape.name(name);
            Ok(FromTape::at(self.tape.push(Ev::UnitStruct(n))))
        }
        fn serialize_unit_variant(
            self,
            name: &'static str,
            index: u32,
            variant: &'static str,
        ) -> Result<Self::Ok> {
            let var = self.tape.variant(name, index, variant);
            Ok(FromTape::at(self.tape.push(Ev::UnitVariant(var))))
        }
        fn serialize_char(self, v: char) -> Result<Self::Ok> {
            Ok(FromTape::at(self.tape.push(Ev::Char(v))))
        }
        fn serialize_bytes(self, v: &[u8]) -> Result<Self::Ok> {
            let (a, b) = self.tape.bytes(v)?;
            Ok(FromTape::at(self.tape.push(Ev::Bytes(a, b))))
        }
    };
}

impl TapeSer<'_> {
    fn wide(self, le: [u8; 16], unsigned: bool) -> Result<()> {
        let (a, _) = self.tape.bytes(&le)?;
        self.tape
            .push(if unsigned { Ev::U128(a) } else { Ev::I128(a) });
        Ok(())
    }
}

impl<'a> ser::Serializer for TapeSer<'a> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = TapeCompound<'a, ()>;
    type SerializeTuple = TapeCompound<'a, ()>;
    type SerializeTupleStruct = TapeCompound<'a, ()>;
    type SerializeTupleVariant = TapeCompound<'a, ()>;
    type SerializeMap = TapeCompound<'a, ()>;
    type SerializeStruct = TapeCompound<'a, ()>;
    type SerializeStructVariant = TapeCompound<'a, ()>;

    fn is_human_readable(&self) -> bool {
        false
    }

    #[inline]
    fn serialize_bool(self, v: bool) -> Result<()> {
        self.tape.push(Ev::Bool(v));
        Ok(())
    }
    #[inline]
    fn serialize_i8(self, v: i8) -> Result<()> {
        self.serialize_i64(v as i64)
    }
    #[inline]
    fn serialize_i16(self, v: i16) -> Result<()> {
        self.serialize_i64(v as i64)
    }
    #[inline]
    fn serialize_i32(self, v: i32) -> Result<()> {
        self.serialize_i64(v as i64)
    }
    #[inline]
    fn serialize_i64(self, v: i64) -> Result<()> {
        self.tape.push(Ev::I64(v));
        Ok(())
    }
    fn serialize_i128(self, v: i128) -> Result<()> {
        self.wide(v.to_le_bytes(), false)
    }
    #[inline]
    fn serialize_u8(self, v: u8) -> Result<()> {
        self.serialize_u64(v as u64)
    }
    #[inline]
    fn serialize_u16(self, v: u16) -> Result<()> {
        self.serialize_u64(v as u64)
    }
    #[inline]
    fn serialize_u32(self, v: u32) -> Result<()> {
        self.serialize_u64(v as u64)
    }
    #[inline]
    fn serialize_u64(self, v: u64) -> Result<()> {
        self.tape.push(Ev::U64(v));
        Ok(())
    }
    fn serialize_u128(self, v: u128) -> Result<()> {
        self.wide(v.to_le_bytes(), true)
    }
    #[inline]
    fn serialize_f32(self, v: f32) -> Result<()> {
        self.tape.push(Ev::F32(v.to_bits()));
        Ok(())
    }
    #[inline]
    fn serialize_f64(self, v: f64) -> Result<()> {
        self.tape.push(Ev::F64(v.to_bits()));
        Ok(())
    }
    #[inline]
    fn serialize_str(self, v: &str) -> Result<()> {
        let (a, b) = self.tape.bytes(v.as_bytes())?;
        self.tape.push(Ev::Str(a, b));
        Ok(())
    }
    #[inline]
    fn serialize_none(self) -> Result<()> {
        self.tape.push(Ev::None);
        Ok(())
    }
    fn serialize_some<T: ?Sized + Serialize>(self, v: &T) -> Result<()> {
        let depth = self.depth.enter(1)?;
        self.tape.push(Ev::Some);
        v.serialize(TapeSer {
            tape: self.tape,
            depth,
        })
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        v: &T,
    ) -> Result<()> {
        let n = self.tape.name(name);
        self.tape.push(Ev::NewtypeStruct(n));
        v.serialize(self)
    }
    compounds!();
}

/// The serializer for one struct field's value: primitives to [`Cell`]s, the rest onto the
/// tape.
pub(crate) struct CellSer<'a> {
    pub(crate) tape: &'a mut Tape,
    pub(crate) depth: Depth,
}

impl<'a> CellSer<'a> {
    fn tape(self) -> TapeSer<'a> {
        TapeSer {
            tape: self.tape,
            depth: self.depth,
        }
    }

    /// A value that is no [`Cell`] primitive, captured by `f` onto the tape.
    fn other(self, f: impl FnOnce(TapeSer<'_>) -> Result<()>) -> Result<Cell> {
        let at = self.tape.evs.len() as u32;
        f(self.tape())?;
        Ok(Cell::Other(at))
    }
}

impl<'a> ser::Serializer for CellSer<'a> {
    type Ok = Cell;
    type Error = Error;
    type SerializeSeq = TapeCompound<'a, Cell>;
    type SerializeTuple = TapeCompound<'a, Cell>;
    type SerializeTupleStruct = TapeCompound<'a, Cell>;
    type SerializeTupleVariant = TapeCompound<'a, Cell>;
    type SerializeMap = TapeCompound<'a, Cell>;
    type SerializeStruct = TapeCompound<'a, Cell>;
    type SerializeStructVariant = TapeCompound<'a, Cell>;

    fn is_human_readable(&self) -> bool {
        false
    }

    #[inline]
    fn serialize_bool(self, v: bool) -> Result<Cell> {
        Ok(Cell::Bool(v))
    }
    #[inline]
    fn serialize_i8(self, v: i8) -> Result<Cell> {
        self.serialize_i64(v as i64)
    }
    #[inline]
    fn serialize_i16(self, v: i16) -> Result<Cell> {
        self.serialize_i64(v as i64)
    }
    #[inline]
    fn serialize_i32(self, v: i32) -> Result<Cell> {
        self.serialize_i64(v as i64)
    }
    #[inline]
    fn serialize_i64(self, v: i64) -> Result<Cell> {
        Ok(Cell::Int(v as u64, v < 0))
    }
    fn serialize_i128(self, v: i128) -> Result<Cell> {
        Ok(match (u64::try_from(v), i64::try_from(v)) {
            (Ok(u), _) => Cell::Int(u, false),
            (_, Ok(i)) => Cell::Int(i as u64, true),
            _ => return self.other(|t| t.serialize_i128(v)),
        })
    }
    #[inline]
    fn serialize_u8(self, v: u8) -> Result<Cell> {
        self.serialize_u64(v as u64)
    }
    #[inline]
    fn serialize_u16(self, v: u16) -> Result<Cell> {
        self.serialize_u64(v as u64)
    }
    #[inline]
    fn serialize_u32(self, v: u32) -> Result<Cell> {
        self.serialize_u64(v as u64)
    }
    #[inline]
    fn serialize_u64(self, v: u64) -> Result<Cell> {
        Ok(Cell::Int(v, false))
    }
    fn serialize_u128(self, v: u128) -> Result<Cell> {
        match u64::try_from(v) {
            Ok(u) => Ok(Cell::Int(u, false)),
            Err(_) => self.other(|t| t.serialize_u128(v)),
        }
    }
    #[inline]
    fn serialize_f32(self, v: f32) -> Result<Cell> {
        Ok(Cell::F32(v.to_bits()))
    }
    #[inline]
    fn serialize_f64(self, v: f64) -> Result<Cell> {
        Ok(Cell::F64(v.to_bits()))
    }
    #[inline]
    fn serialize_str(self, v: &str) -> Result<Cell> {
        let (a, b) = self.tape.bytes(v.as_bytes())?;
        Ok(Cell::Str(a, b))
    }
    #[inline]
    fn serialize_none(self) -> Result<Cell> {
        Ok(Cell::Null)
    }
    /// `Some(x)` of a primitive is the primitive (the row writer writes `x` unwrapped); any
    /// other `x` keeps its `Some`.
    fn serialize_some<T: ?Sized + Serialize>(self, v: &T) -> Result<Cell> {
        let depth = self.depth.enter(1)?;
        // Pushed first so that a payload on the tape follows it; dropped if `x` is a
        // primitive (which leaves no event).
        let at = self.tape.push(Ev::Some);
        let inner = v.serialize(CellSer {
            tape: &mut *self.tape,
            depth,
        })?;
        Ok(match inner {
            Cell::Null => {
                self.tape.push(Ev::None);
                Cell::Other(at)
            }
            Cell::Other(_) => Cell::Other(at),
            prim => {
                self.tape.evs.truncate(at as usize);
                prim
            }
        })
    }
    /// Transparent like the real serializer, except `Value`'s private carrier names.
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        v: &T,
    ) -> Result<Cell> {
        if magic::variant_kind(name).is_some() {
            return self.other(|t| t.serialize_newtype_struct(name, v));
        }
        v.serialize(self)
    }
    compounds!();
}

impl<O: FromTape> ser::SerializeSeq for TapeCompound<'_, O> {
    type Ok = O;
    type Error = Error;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<()> {
        self.capture(v)
    }
    fn end(self) -> Result<O> {
        self.finish()
    }
}

macro_rules! elem_like {
    ($tr:ident, $m:ident) => {
        impl<O: FromTape> ser::$tr for TapeCompound<'_, O> {
            type Ok = O;
            type Error = Error;
            fn $m<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<()> {
                self.capture(v)
            }
            fn end(self) -> Result<O> {
                self.finish()
            }
        }
    };
}
elem_like!(SerializeTuple, serialize_element);
elem_like!(SerializeTupleStruct, serialize_field);
elem_like!(SerializeTupleVariant, serialize_field);

impl<O: FromTape> ser::SerializeMap for TapeCompound<'_, O> {
    type Ok = O;
    type Error = Error;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, k: &T) -> Result<()> {
        if std::mem::replace(&mut self.key_open, true) {
            self.failed = true;
            return Err(misordered());
        }
        let at = self.tape.evs.len();
        self.capture(k)?;
        if self.keys.is_some() {
            let rec = self.tape.key_record(at);
            self.check_key(rec)?;
        }
        Ok(())
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<()> {
        if !std::mem::replace(&mut self.key_open, false) {
            self.failed = true;
            return Err(misordered());
        }
        self.capture(v)
    }
    fn end(self) -> Result<O> {
        self.finish()
    }
}

macro_rules! field_like {
    ($tr:ident) => {
        impl<O: FromTape> ser::$tr for TapeCompound<'_, O> {
            type Ok = O;
            type Error = Error;
            fn serialize_field<T: ?Sized + Serialize>(
                &mut self,
                key: &'static str,
                v: &T,
            ) -> Result<()> {
                self.tape.push(Ev::Field(key));
                self.capture(v)
            }
            fn skip_field(&mut self, key: &'static str) -> Result<()> {
                self.tape.push(Ev::Skip(key));
                Ok(())
            }
            fn end(self) -> Result<O> {
                self.finish()
            }
        }
    };
}
field_like!(SerializeStruct);
field_like!(SerializeStructVariant);
