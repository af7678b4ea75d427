//! A faithful capture of any serde value, for the columnar collector (`crate::columnar`):
//! a [`Tape`] records the serde calls a `Serialize` impl made as one flat list of [`Ev`]
//! events (strings and wide integers in one byte arena, `&'static str` names in a side
//! table), and [`EvRef`] replays exactly those calls. So a value captured now and replayed
//! into the real serializer later produces the bytes direct serialization would have
//! produced. One tape holds a whole batch: capturing a value allocates nothing per value.
//!
//! [`CellSer`] is the entry point for one struct field: primitives become a compact
//! [`Cell`] (strings go into the arena), anything else events on the tape. Both
//! serializers count depth like the real one (one level per container, `Some` and variant
//! with a payload; two for tuple and struct variants) and refuse at the same limit, so a
//! value the real serializer would refuse is never captured. They also refuse what the
//! real serializer refuses in every case (a map key without its value, a value without its
//! key), so the caller serializes such a value directly and gets the real error.

use serde::Serialize;
use serde::ser::{self, SerializeMap as _, SerializeSeq as _, SerializeStruct as _};
use serde::ser::{
    SerializeStructVariant as _, SerializeTuple as _, SerializeTupleStruct as _,
    SerializeTupleVariant as _,
};

use crate::error::{Error, ErrorCode, Result};
use crate::short::{SHORT, as_uninit, copy_short};
use crate::wire::ext::magic;

/// An announced length; [`NO_LEN`] stands for `None`.
type Len = u64;
/// Most bytes reserved ahead from a batch's announced length ([`Tape::reserve_like`]).
pub(crate) const MAX_RESERVE: usize = 1 << 20;
/// The `None` of an announced [`Len`] (a real `usize::MAX` length is refused when captured).
const NO_LEN: Len = u64::MAX;

/// How a compound was opened (the arguments of the `serialize_*` call); names and variants
/// are indices into [`Tape::names`] and [`Tape::variants`].
#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) enum Open {
    Seq(Len),
    Tuple(Len),
    TupleStruct(u32, Len),
    TupleVariant(u32, Len),
    Map(Len),
    Struct(u32, Len),
    StructVariant(u32, Len),
}

/// One serde call. A value is one event, or a wrapper event (`Some`, newtypes) followed by
/// its payload, or an `Open` followed by its items and closed by `End`.
#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) enum Ev {
    Bool(bool),
    I64(i64),
    U64(u64),
    /// 16 little-endian bytes at `arena[at..]`.
    I128(u32),
    /// 16 little-endian bytes at `arena[at..]`.
    U128(u32),
    /// IEEE-754 bits.
    F32(u32),
    /// IEEE-754 bits.
    F64(u64),
    Char(char),
    /// `arena[start..end]`, bytes of a `&str`.
    Str(u32, u32),
    /// `arena[start..end]`.
    Bytes(u32, u32),
    None,
    /// The payload follows.
    Some,
    Unit,
    UnitStruct(u32),
    UnitVariant(u32),
    /// The payload follows.
    NewtypeStruct(u32),
    /// The payload follows.
    NewtypeVariant(u32),
    /// Items follow up to the `End` at `end`: values of a sequence-like compound, keys and
    /// values alternating in a map, `Field` (then the value) or `Skip` in a struct.
    Open(Open, u32),
    /// `serialize_field(name, …)`; the value follows.
    Field(u32),
    /// `skip_field(name)`.
    Skip(u32),
    /// The end of a compound, with the number of values captured in it (a map's keys and
    /// values each count, so its entries are half of it, without a walk over its items).
    End(u32),
}

/// The captured values of one batch.
#[derive(Debug, Default)]
pub(crate) struct Tape {
    pub(crate) evs: Vec<Ev>,
    /// Bytes of every captured string, byte string and 128-bit integer.
    pub(crate) arena: Vec<u8>,
    names: Vec<&'static str>,
    /// `(enum name, variant index, variant name)`.
    variants: Vec<(&'static str, u32, &'static str)>,
}

/// Lengths of a [`Tape`]'s parts, to drop what a failed capture left.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Mark([usize; 4]);

impl Tape {
    /// The current lengths.
    pub(crate) fn mark(&self) -> Mark {
        Mark([
            self.evs.len(),
            self.arena.len(),
            self.names.len(),
            self.variants.len(),
        ])
    }

    /// Drops everything captured after `m`.
    pub(crate) fn rewind(&mut self, m: Mark) {
        self.evs.truncate(m.0[0]);
        self.arena.truncate(m.0[1]);
        self.names.truncate(m.0[2]);
        self.variants.truncate(m.0[3]);
    }

    /// Appends bytes to the arena: their range, or an error past the 4 GiB it addresses.
    /// Short strings (ids, enum-like values) are copied without a `memcpy` call.
    /// Inline: a call costs about as much as the copy of a short string.
    #[inline(always)]
    fn bytes(&mut self, b: &[u8]) -> Result<(u32, u32)> {
        let start = self.arena.len();
        let Ok(end) = u32::try_from(start + b.len()) else {
            return Err(too_many_bytes());
        };
        if b.len() <= SHORT {
            self.arena.reserve(SHORT);
            copy_short(&mut self.arena.spare_capacity_mut()[..SHORT], as_uninit(b));
            // SAFETY: the `b.len() <= SHORT` bytes after the old length were written just
            // above, inside the capacity `reserve` guaranteed.
            unsafe { self.arena.set_len(end as usize) };
        } else {
            self.arena.extend_from_slice(b);
        }
        Ok((start as u32, end))
    }

    /// Reserves room for about `more` values like the `done` captured so far (all of the
    /// tape), at most [`MAX_RESERVE`] bytes each of events and arena.
    pub(crate) fn reserve_like(&mut self, done: usize, more: usize) {
        if done == 0 {
            return;
        }
        let evs = self.evs.len() / done * more;
        let bytes = self.arena.len() / done * more;
        self.evs
            .reserve(evs.min(MAX_RESERVE / std::mem::size_of::<Ev>()));
        self.arena.reserve(bytes.min(MAX_RESERVE));
    }

    fn name(&mut self, n: &'static str) -> u32 {
        self.names.push(n);
        (self.names.len() - 1) as u32
    }

    fn variant(&mut self, name: &'static str, index: u32, variant: &'static str) -> u32 {
        self.variants.push((name, index, variant));
        (self.variants.len() - 1) as u32
    }

    #[inline]
    fn push(&mut self, e: Ev) -> u32 {
        self.evs.push(e);
        (self.evs.len() - 1) as u32
    }

    /// The map that starts at event `at`, if the value there is one whose keys and values
    /// alternate: its announced length, its entry count and the event of its first item
    /// (walk the items with [`Tape::next`]).
    pub(crate) fn map_at(&self, at: u32) -> Option<(Option<usize>, usize, usize)> {
        let at = at as usize;
        let Ev::Open(Open::Map(l), end) = *self.evs.get(at)? else {
            return None;
        };
        let Ev::End(items) = *self.evs.get(end as usize)? else {
            return None;
        };
        (items % 2 == 0).then_some((len_back(l), items as usize / 2, at + 1))
    }

    /// The event after the value that starts at `at`.
    pub(crate) fn next(&self, mut at: usize) -> usize {
        loop {
            match self.evs[at] {
                Ev::Open(_, end) => return end as usize + 1,
                Ev::Some | Ev::NewtypeStruct(_) | Ev::NewtypeVariant(_) => at += 1,
                _ => return at + 1,
            }
        }
    }

    /// The string at `arena[a..b]`, the range of a [`Ev::Str`] or [`Cell::Str`] of this tape.
    pub(crate) fn str(&self, a: u32, b: u32) -> &str {
        let bytes = &self.arena[a as usize..b as usize];
        // SAFETY: `Ev::Str` and `Cell::Str` ranges are made only by `serialize_str`, from the
        // bytes of a `&str` appended at that range ([`Tape::bytes`]); the arena only grows,
        // or is truncated by [`Tape::rewind`] together with the events and cells captured
        // after the mark, so a range that is still referenced still holds those bytes.
        // Valid UTF-8 is never split: a range covers exactly one appended `&str`.
        debug_assert!(std::str::from_utf8(bytes).is_ok());
        unsafe { std::str::from_utf8_unchecked(bytes) }
    }
}

/// The refusal of a batch whose arena would pass the 4 GiB its `u32` ranges address.
#[cold]
fn too_many_bytes() -> Error {
    Error::new(ErrorCode::Unsupported(
        "a columnar batch of more than 4 GiB of strings",
    ))
}

/// A struct field's value: a primitive inline, anything else on the tape.
#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) enum Cell {
    /// `None` (`C0`).
    Null,
    Bool(bool),
    /// Two's-complement bits and whether the value is negative (value-based, as the row
    /// writer normalises integers).
    Int(u64, bool),
    /// IEEE-754 bits.
    F32(u32),
    /// IEEE-754 bits.
    F64(u64),
    /// A string: `arena[start..end]`.
    Str(u32, u32),
    /// Anything else: the value starting at this event of the tape.
    Other(u32),
}

/// Depth bookkeeping shared by the capturing serializers: the real serializer's count.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Depth {
    pub(crate) depth: u32,
    pub(crate) limit: u32,
}

impl Depth {
    /// One level deeper, refused exactly where the real serializer refuses.
    pub(crate) fn enter(self, levels: u32) -> Result<Depth> {
        let mut d = self;
        for _ in 0..levels {
            if d.depth >= d.limit {
                return Err(Error::new(ErrorCode::DepthLimit(d.limit)));
            }
            d.depth += 1;
        }
        Ok(d)
    }
}

/// What a capturing serializer returns for a value that went onto the tape.
pub(crate) trait FromTape {
    /// The value starting at event `at`.
    fn at(at: u32) -> Self;
}

impl FromTape for () {
    fn at(_: u32) {}
}

impl FromTape for Cell {
    fn at(at: u32) -> Cell {
        Cell::Other(at)
    }
}

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
    _out: std::marker::PhantomData<O>,
}

/// The refusal of a map whose keys and values do not alternate (the real serializer
/// refuses it too, with its own error, when the value is serialized directly).
fn misordered() -> Error {
    Error::new(ErrorCode::Unsupported(
        "map keys and values out of order (captured)",
    ))
}

impl<'a, O: FromTape> TapeCompound<'a, O> {
    fn new(tape: &'a mut Tape, open: Open, at: Depth, levels: u32) -> Result<Self> {
        let inner = at.enter(levels)?;
        let open = tape.push(Ev::Open(open, 0));
        Ok(TapeCompound {
            tape,
            open,
            inner,
            key_open: false,
            values: 0,
            failed: false,
            _out: std::marker::PhantomData,
        })
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

    fn finish(self) -> Result<O> {
        if self.failed {
            return Err(swallowed());
        }
        if self.key_open {
            return Err(misordered());
        }
        let end = self.tape.push(Ev::End(self.values));
        if let Ev::Open(_, e) = &mut self.tape.evs[self.open as usize] {
            *e = end;
        }
        Ok(O::at(self.open))
    }
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
        self.capture(k)
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
                let n = self.tape.name(key);
                self.tape.push(Ev::Field(n));
                self.capture(v)
            }
            fn skip_field(&mut self, key: &'static str) -> Result<()> {
                let n = self.tape.name(key);
                self.tape.push(Ev::Skip(n));
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

/// Replays the value that starts at event `at` of `tape`: the serde calls it was captured
/// from, in order.
#[derive(Copy, Clone)]
pub(crate) struct EvRef<'a> {
    pub(crate) tape: &'a Tape,
    pub(crate) at: u32,
}

impl EvRef<'_> {
    fn child(&self, at: usize) -> Self {
        EvRef {
            tape: self.tape,
            at: at as u32,
        }
    }
}

/// An announced length back as serde's.
fn len_back(l: Len) -> Option<usize> {
    // Captured from a `usize`, so it fits.
    (l != NO_LEN).then_some(l as usize)
}

impl Serialize for EvRef<'_> {
    fn serialize<S: ser::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::Error as _;
        let t = self.tape;
        let at = self.at as usize;
        let wide = |a: u32| {
            let mut b = [0u8; 16];
            b.copy_from_slice(&t.arena[a as usize..a as usize + 16]);
            b
        };
        match t.evs[at] {
            Ev::Bool(v) => s.serialize_bool(v),
            Ev::I64(v) => s.serialize_i64(v),
            Ev::U64(v) => s.serialize_u64(v),
            Ev::I128(a) => s.serialize_i128(i128::from_le_bytes(wide(a))),
            Ev::U128(a) => s.serialize_u128(u128::from_le_bytes(wide(a))),
            Ev::F32(v) => s.serialize_f32(f32::from_bits(v)),
            Ev::F64(v) => s.serialize_f64(f64::from_bits(v)),
            Ev::Char(v) => s.serialize_char(v),
            Ev::Str(a, b) => s.serialize_str(t.str(a, b)),
            Ev::Bytes(a, b) => s.serialize_bytes(&t.arena[a as usize..b as usize]),
            Ev::None => s.serialize_none(),
            Ev::Some => s.serialize_some(&self.child(at + 1)),
            Ev::Unit => s.serialize_unit(),
            Ev::UnitStruct(n) => s.serialize_unit_struct(t.names[n as usize]),
            Ev::UnitVariant(v) => {
                let (n, i, var) = t.variants[v as usize];
                s.serialize_unit_variant(n, i, var)
            }
            Ev::NewtypeStruct(n) => {
                s.serialize_newtype_struct(t.names[n as usize], &self.child(at + 1))
            }
            Ev::NewtypeVariant(v) => {
                let (n, i, var) = t.variants[v as usize];
                s.serialize_newtype_variant(n, i, var, &self.child(at + 1))
            }
            Ev::Open(open, end) => self.replay_compound(open, at + 1, end as usize, s),
            Ev::Field(_) | Ev::Skip(_) | Ev::End(_) => {
                Err(S::Error::custom("captured item does not fit its compound"))
            }
        }
    }
}

impl EvRef<'_> {
    /// The items at `first..end` of a compound opened by `open`.
    fn replay_compound<S: ser::Serializer>(
        &self,
        open: Open,
        first: usize,
        end: usize,
        s: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::Error as _;
        let t = self.tape;
        let misplaced = || S::Error::custom("captured item does not fit its compound");
        macro_rules! elems {
            ($c:expr, $m:ident) => {{
                let mut c = $c;
                let mut i = first;
                while i < end {
                    c.$m(&self.child(i))?;
                    i = t.next(i);
                }
                c.end()
            }};
        }
        macro_rules! fields {
            ($c:expr) => {{
                let mut c = $c;
                let mut i = first;
                while i < end {
                    match t.evs[i] {
                        Ev::Field(n) => {
                            c.serialize_field(t.names[n as usize], &self.child(i + 1))?;
                            i = t.next(i + 1);
                        }
                        Ev::Skip(n) => {
                            c.skip_field(t.names[n as usize])?;
                            i += 1;
                        }
                        _ => return Err(misplaced()),
                    }
                }
                c.end()
            }};
        }
        let len = |l: Len| len_back(l).unwrap_or(0);
        match open {
            Open::Seq(l) => elems!(s.serialize_seq(len_back(l))?, serialize_element),
            Open::Tuple(l) => elems!(s.serialize_tuple(len(l))?, serialize_element),
            Open::TupleStruct(n, l) => elems!(
                s.serialize_tuple_struct(t.names[n as usize], len(l))?,
                serialize_field
            ),
            Open::TupleVariant(v, l) => {
                let (n, i, var) = t.variants[v as usize];
                elems!(
                    s.serialize_tuple_variant(n, i, var, len(l))?,
                    serialize_field
                )
            }
            Open::Map(l) => {
                let mut c = s.serialize_map(len_back(l))?;
                let mut i = first;
                while i < end {
                    c.serialize_key(&self.child(i))?;
                    i = t.next(i);
                    if i >= end {
                        return Err(misplaced());
                    }
                    c.serialize_value(&self.child(i))?;
                    i = t.next(i);
                }
                c.end()
            }
            Open::Struct(n, l) => fields!(s.serialize_struct(t.names[n as usize], len(l))?),
            Open::StructVariant(v, l) => {
                let (n, i, var) = t.variants[v as usize];
                fields!(s.serialize_struct_variant(n, i, var, len(l))?)
            }
        }
    }
}

/// Replays a [`Cell`]: the primitive's serde call, or the captured value.
pub(crate) struct CellRef<'a> {
    pub(crate) cell: &'a Cell,
    pub(crate) tape: &'a Tape,
}

impl Serialize for CellRef<'_> {
    fn serialize<S: ser::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match *self.cell {
            Cell::Null => s.serialize_none(),
            Cell::Bool(b) => s.serialize_bool(b),
            Cell::Int(v, true) => s.serialize_i64(v as i64),
            Cell::Int(v, false) => s.serialize_u64(v),
            Cell::F32(b) => s.serialize_f32(f32::from_bits(b)),
            Cell::F64(b) => s.serialize_f64(f64::from_bits(b)),
            Cell::Str(a, b) => s.serialize_str(self.tape.str(a, b)),
            Cell::Other(at) => EvRef {
                tape: self.tape,
                at,
            }
            .serialize(s),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Serialize;
    use std::collections::BTreeMap;

    #[derive(Serialize)]
    enum E {
        U,
        N(u8),
        T(u8, String),
        S { a: Option<Option<u8>> },
    }

    #[derive(Serialize)]
    struct Deep {
        c: char,
        b: serde_bytes::ByteBuf,
        e: Vec<E>,
        m: BTreeMap<String, (i128, u128)>,
        u: (),
        o: Option<Option<()>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        skipped: Option<u8>,
        n: Nt,
        us: Us,
        ts: Ts,
    }

    #[derive(Serialize)]
    struct Nt(i8);
    #[derive(Serialize)]
    struct Us;
    #[derive(Serialize)]
    struct Ts(f32, f64, bool);

    fn deep() -> Deep {
        let mut m = BTreeMap::new();
        m.insert("k".to_string(), (i128::MIN, u128::MAX));
        m.insert("l".to_string(), (-1, 2));
        Deep {
            c: '€',
            b: serde_bytes::ByteBuf::from(vec![0, 1]),
            e: vec![E::U, E::N(3), E::T(1, "x".into()), E::S { a: Some(None) }],
            m,
            u: (),
            o: Some(None),
            skipped: None,
            n: Nt(-4),
            us: Us,
            ts: Ts(1.5, -2.25, true),
        }
    }

    fn d(limit: u32) -> Depth {
        Depth { depth: 0, limit }
    }

    /// Replaying a capture writes exactly the bytes of direct serialization, for a value
    /// and for a second value after it on the same tape.
    #[test]
    fn replay_is_byte_identical() {
        let v = deep();
        let mut tape = Tape::default();
        let first = tape.evs.len() as u32;
        v.serialize(TapeSer {
            tape: &mut tape,
            depth: d(128),
        })
        .unwrap();
        let second = tape.evs.len() as u32;
        (7u8, "s")
            .serialize(TapeSer {
                tape: &mut tape,
                depth: d(128),
            })
            .unwrap();
        assert_eq!(tape.next(first as usize), second as usize);
        for opts in [crate::Options::speed(), crate::Options::balanced()] {
            let at = |at| EvRef { tape: &tape, at };
            assert_eq!(
                crate::to_vec_with(&at(first), opts).unwrap(),
                crate::to_vec_with(&v, opts).unwrap()
            );
            assert_eq!(
                crate::to_vec_with(&at(second), opts).unwrap(),
                crate::to_vec_with(&(7u8, "s"), opts).unwrap()
            );
        }
        let mut shallow = Tape::default();
        let err = v
            .serialize(TapeSer {
                tape: &mut shallow,
                depth: d(2),
            })
            .unwrap_err();
        assert!(matches!(err.code(), ErrorCode::DepthLimit(2)));
    }

    /// A rewind drops a failed capture; the tape goes on as if it never happened.
    #[test]
    fn rewind_drops_a_failed_capture() {
        let mut tape = Tape::default();
        (1u8, "a")
            .serialize(TapeSer {
                tape: &mut tape,
                depth: d(128),
            })
            .unwrap();
        let mark = tape.mark();
        let before = (tape.evs.clone(), tape.arena.clone());
        deep()
            .serialize(TapeSer {
                tape: &mut tape,
                depth: d(3),
            })
            .unwrap_err();
        tape.rewind(mark);
        assert_eq!((tape.evs.clone(), tape.arena.clone()), before);
        assert_eq!(tape.names.len(), 0);
        assert_eq!(tape.variants.len(), 0);
    }

    /// Keys and values that do not alternate are refused, as the real serializer refuses
    /// them.
    #[test]
    fn misordered_maps_are_refused() {
        struct Keys(bool);
        impl Serialize for Keys {
            fn serialize<S: ser::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
                let mut m = s.serialize_map(None)?;
                m.serialize_key("a")?;
                if self.0 {
                    m.serialize_key("b")?;
                }
                m.end()
            }
        }
        for twice in [false, true] {
            let mut tape = Tape::default();
            let cap = Keys(twice).serialize(TapeSer {
                tape: &mut tape,
                depth: d(128),
            });
            assert_eq!(cap.unwrap_err().code(), misordered().code());
            assert!(crate::to_vec(&Keys(twice)).is_err());
        }
    }

    #[test]
    fn cells_of_primitives_and_some() {
        let mut tape = Tape::default();
        let mut cell = |v: &dyn erased::Ser| v.cell(&mut tape, d(128));
        assert_eq!(cell(&Some(5u8)), Cell::Int(5, false));
        assert_eq!(cell(&-3i16), Cell::Int(-3i64 as u64, true));
        assert_eq!(cell(&Some("ab")), Cell::Str(0, 2));
        assert_eq!(cell(&None::<u8>), Cell::Null);
        assert_eq!(cell(&Some(None::<u8>)), Cell::Other(0));
        assert_eq!(cell(&1.5f32), Cell::F32(1.5f32.to_bits()));
        assert_eq!(cell(&u128::MAX), Cell::Other(2));
        assert_eq!(cell(&'x'), Cell::Other(3));
        assert_eq!(cell(&Some(vec![1u8])), Cell::Other(4));
        assert_eq!(
            tape.evs,
            [
                Ev::Some,
                Ev::None,
                Ev::U128(2),
                Ev::Char('x'),
                Ev::Some,
                Ev::Open(Open::Seq(1), 7),
                Ev::U64(1),
                Ev::End(1)
            ]
        );
        let speed = |v: &dyn erased::Enc| v.enc();
        assert_eq!(
            speed(&EvRef { tape: &tape, at: 0 }),
            speed(&Some(None::<u8>))
        );
        assert_eq!(
            speed(&EvRef { tape: &tape, at: 4 }),
            speed(&Some(vec![1u8]))
        );
    }

    mod erased {
        use super::*;
        pub(super) trait Enc {
            fn enc(&self) -> Vec<u8>;
        }
        impl<T: Serialize> Enc for T {
            fn enc(&self) -> Vec<u8> {
                crate::to_vec_with(self, crate::Options::speed()).unwrap()
            }
        }
        pub(super) trait Ser {
            fn cell(&self, tape: &mut Tape, d: Depth) -> Cell;
        }
        impl<T: Serialize> Ser for T {
            fn cell(&self, tape: &mut Tape, depth: Depth) -> Cell {
                self.serialize(CellSer { tape, depth }).unwrap()
            }
        }
    }
}
