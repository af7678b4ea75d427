//! A faithful capture of any serde value, for the columnar collector (`crate::columnar`):
//! a [`Captured`] tree records the serde calls a `Serialize` impl made, with their original
//! `&'static str` names and announced lengths, and its own `Serialize` impl replays exactly
//! those calls. So a value captured now and replayed into the real serializer later produces
//! the bytes direct serialization would have produced.
//!
//! [`CellSer`] is the entry point for one struct field: primitives become a compact
//! [`Cell`] (strings go into one shared arena, no allocation per value), anything else a
//! boxed [`Captured`] tree. Both serializers count depth like the real one (one level per
//! container, `Some` and variant with a payload; two for tuple and struct variants) and
//! refuse at the same limit, so a value the real serializer would refuse is never captured.

use serde::Serialize;
use serde::ser::{self, SerializeMap as _, SerializeSeq as _, SerializeStruct as _};
use serde::ser::{
    SerializeStructVariant as _, SerializeTuple as _, SerializeTupleStruct as _,
    SerializeTupleVariant as _,
};

use crate::error::{Error, ErrorCode, Result};
use crate::wire::ext::magic;

/// One serde value as the `Serialize` impl produced it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Captured {
    Bool(bool),
    I64(i64),
    U64(u64),
    I128(i128),
    U128(u128),
    F32(f32),
    F64(f64),
    Char(char),
    Str(Box<str>),
    Bytes(Box<[u8]>),
    None,
    Some(Box<Captured>),
    Unit,
    UnitStruct(&'static str),
    UnitVariant(&'static str, u32, &'static str),
    NewtypeStruct(&'static str, Box<Captured>),
    NewtypeVariant(&'static str, u32, &'static str, Box<Captured>),
    /// A compound: how it was opened, and its items in call order.
    Compound(Open, Vec<Item>),
}

/// How a compound was opened (the arguments of the `serialize_*` call).
#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) enum Open {
    Seq(Option<usize>),
    Tuple(usize),
    TupleStruct(&'static str, usize),
    TupleVariant(&'static str, u32, &'static str, usize),
    Map(Option<usize>),
    Struct(&'static str, usize),
    StructVariant(&'static str, u32, &'static str, usize),
}

/// One call on an open compound.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Item {
    /// `serialize_element` / `serialize_field` of a sequence-like compound.
    Elem(Captured),
    /// `serialize_key`.
    Key(Captured),
    /// `serialize_value`.
    Value(Captured),
    /// `serialize_field` of a struct or struct variant.
    Field(&'static str, Captured),
    /// `skip_field` of a struct or struct variant.
    Skip(&'static str),
}

/// A struct field's value: a primitive inline, anything else captured.
#[derive(Clone, Debug, PartialEq)]
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
    /// Anything else.
    Other(Box<Captured>),
}

impl From<Captured> for Cell {
    fn from(c: Captured) -> Cell {
        Cell::Other(Box::new(c))
    }
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

/// A serializer that captures any value as a [`Captured`] tree.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Capture(pub(crate) Depth);

/// An open compound being captured; `O` is what `end` returns.
pub(crate) struct CapCompound<O> {
    open: Open,
    items: Vec<Item>,
    inner: Depth,
    _out: std::marker::PhantomData<O>,
}

impl<O: From<Captured>> CapCompound<O> {
    fn new(open: Open, at: Depth, levels: u32, hint: usize) -> Result<Self> {
        Ok(CapCompound {
            open,
            items: Vec::with_capacity(hint.min(64)),
            inner: at.enter(levels)?,
            _out: std::marker::PhantomData,
        })
    }

    fn capture<T: ?Sized + Serialize>(&self, v: &T) -> Result<Captured> {
        v.serialize(Capture(self.inner))
    }

    fn finish(self) -> Result<O> {
        Ok(Captured::Compound(self.open, self.items).into())
    }
}

macro_rules! prim {
    ($($m:ident($t:ty) => $e:expr;)*) => {$(
        fn $m(self, v: $t) -> Result<Self::Ok> {
            #[allow(clippy::redundant_closure_call)]
            Ok(($e)(v).into())
        }
    )*};
}

/// The compound-opening methods, common to [`Capture`] and [`CellSer`]: `$d` is the depth.
macro_rules! compounds {
    ($d:tt) => {
        fn serialize_newtype_variant<T: ?Sized + Serialize>(
            self,
            name: &'static str,
            index: u32,
            variant: &'static str,
            value: &T,
        ) -> Result<Self::Ok> {
            let inner = value.serialize(Capture(self.$d.enter(1)?))?;
            Ok(Captured::NewtypeVariant(name, index, variant, Box::new(inner)).into())
        }
        fn serialize_seq(self, len: Option<usize>) -> Result<CapCompound<Self::Ok>> {
            CapCompound::new(Open::Seq(len), self.$d, 1, len.unwrap_or(0))
        }
        fn serialize_tuple(self, len: usize) -> Result<CapCompound<Self::Ok>> {
            CapCompound::new(Open::Tuple(len), self.$d, 1, len)
        }
        fn serialize_tuple_struct(
            self,
            name: &'static str,
            len: usize,
        ) -> Result<CapCompound<Self::Ok>> {
            CapCompound::new(Open::TupleStruct(name, len), self.$d, 1, len)
        }
        fn serialize_tuple_variant(
            self,
            name: &'static str,
            index: u32,
            variant: &'static str,
            len: usize,
        ) -> Result<CapCompound<Self::Ok>> {
            let open = Open::TupleVariant(name, index, variant, len);
            CapCompound::new(open, self.$d, 2, len)
        }
        fn serialize_map(self, len: Option<usize>) -> Result<CapCompound<Self::Ok>> {
            CapCompound::new(Open::Map(len), self.$d, 1, len.unwrap_or(0))
        }
        fn serialize_struct(self, name: &'static str, len: usize) -> Result<CapCompound<Self::Ok>> {
            CapCompound::new(Open::Struct(name, len), self.$d, 1, len)
        }
        fn serialize_struct_variant(
            self,
            name: &'static str,
            index: u32,
            variant: &'static str,
            len: usize,
        ) -> Result<CapCompound<Self::Ok>> {
            let open = Open::StructVariant(name, index, variant, len);
            CapCompound::new(open, self.$d, 2, len)
        }
    };
}

impl ser::Serializer for Capture {
    type Ok = Captured;
    type Error = Error;
    type SerializeSeq = CapCompound<Captured>;
    type SerializeTuple = CapCompound<Captured>;
    type SerializeTupleStruct = CapCompound<Captured>;
    type SerializeTupleVariant = CapCompound<Captured>;
    type SerializeMap = CapCompound<Captured>;
    type SerializeStruct = CapCompound<Captured>;
    type SerializeStructVariant = CapCompound<Captured>;

    fn is_human_readable(&self) -> bool {
        false
    }

    prim! {
        serialize_bool(bool) => Captured::Bool;
        serialize_i8(i8) => |v| Captured::I64(v as i64);
        serialize_i16(i16) => |v| Captured::I64(v as i64);
        serialize_i32(i32) => |v| Captured::I64(v as i64);
        serialize_i64(i64) => Captured::I64;
        serialize_i128(i128) => Captured::I128;
        serialize_u8(u8) => |v| Captured::U64(v as u64);
        serialize_u16(u16) => |v| Captured::U64(v as u64);
        serialize_u32(u32) => |v| Captured::U64(v as u64);
        serialize_u64(u64) => Captured::U64;
        serialize_u128(u128) => Captured::U128;
        serialize_f32(f32) => Captured::F32;
        serialize_f64(f64) => Captured::F64;
        serialize_char(char) => Captured::Char;
        serialize_str(&str) => |v: &str| Captured::Str(v.into());
        serialize_bytes(&[u8]) => |v: &[u8]| Captured::Bytes(v.into());
        serialize_unit_struct(&'static str) => Captured::UnitStruct;
    }
    fn serialize_none(self) -> Result<Captured> {
        Ok(Captured::None)
    }
    fn serialize_some<T: ?Sized + Serialize>(self, v: &T) -> Result<Captured> {
        let inner = v.serialize(Capture(self.0.enter(1)?))?;
        Ok(Captured::Some(Box::new(inner)))
    }
    fn serialize_unit(self) -> Result<Captured> {
        Ok(Captured::Unit)
    }
    fn serialize_unit_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
    ) -> Result<Captured> {
        Ok(Captured::UnitVariant(name, index, variant))
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        v: &T,
    ) -> Result<Captured> {
        Ok(Captured::NewtypeStruct(name, Box::new(v.serialize(self)?)))
    }
    compounds!(0);
}

/// The serializer for one struct field's value: primitives to [`Cell`]s, the rest captured.
pub(crate) struct CellSer<'a> {
    pub(crate) arena: &'a mut Vec<u8>,
    pub(crate) depth: Depth,
}

impl<'a> ser::Serializer for CellSer<'a> {
    type Ok = Cell;
    type Error = Error;
    type SerializeSeq = CapCompound<Cell>;
    type SerializeTuple = CapCompound<Cell>;
    type SerializeTupleStruct = CapCompound<Cell>;
    type SerializeTupleVariant = CapCompound<Cell>;
    type SerializeMap = CapCompound<Cell>;
    type SerializeStruct = CapCompound<Cell>;
    type SerializeStructVariant = CapCompound<Cell>;

    fn is_human_readable(&self) -> bool {
        false
    }

    fn serialize_bool(self, v: bool) -> Result<Cell> {
        Ok(Cell::Bool(v))
    }
    fn serialize_i8(self, v: i8) -> Result<Cell> {
        self.serialize_i64(v as i64)
    }
    fn serialize_i16(self, v: i16) -> Result<Cell> {
        self.serialize_i64(v as i64)
    }
    fn serialize_i32(self, v: i32) -> Result<Cell> {
        self.serialize_i64(v as i64)
    }
    fn serialize_i64(self, v: i64) -> Result<Cell> {
        Ok(Cell::Int(v as u64, v < 0))
    }
    fn serialize_i128(self, v: i128) -> Result<Cell> {
        Ok(match (u64::try_from(v), i64::try_from(v)) {
            (Ok(u), _) => Cell::Int(u, false),
            (_, Ok(i)) => Cell::Int(i as u64, true),
            _ => Captured::I128(v).into(),
        })
    }
    fn serialize_u8(self, v: u8) -> Result<Cell> {
        self.serialize_u64(v as u64)
    }
    fn serialize_u16(self, v: u16) -> Result<Cell> {
        self.serialize_u64(v as u64)
    }
    fn serialize_u32(self, v: u32) -> Result<Cell> {
        self.serialize_u64(v as u64)
    }
    fn serialize_u64(self, v: u64) -> Result<Cell> {
        Ok(Cell::Int(v, false))
    }
    fn serialize_u128(self, v: u128) -> Result<Cell> {
        Ok(match u64::try_from(v) {
            Ok(u) => Cell::Int(u, false),
            Err(_) => Captured::U128(v).into(),
        })
    }
    fn serialize_f32(self, v: f32) -> Result<Cell> {
        Ok(Cell::F32(v.to_bits()))
    }
    fn serialize_f64(self, v: f64) -> Result<Cell> {
        Ok(Cell::F64(v.to_bits()))
    }
    fn serialize_char(self, v: char) -> Result<Cell> {
        Ok(Captured::Char(v).into())
    }
    fn serialize_str(self, v: &str) -> Result<Cell> {
        let start = self.arena.len();
        let end = start + v.len();
        if end > u32::MAX as usize {
            // The arena addresses 4 GiB; a batch this large stays captured.
            return Ok(Captured::Str(v.into()).into());
        }
        self.arena.extend_from_slice(v.as_bytes());
        Ok(Cell::Str(start as u32, end as u32))
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<Cell> {
        Ok(Captured::Bytes(v.into()).into())
    }
    fn serialize_none(self) -> Result<Cell> {
        Ok(Cell::Null)
    }
    /// `Some(x)` of a primitive is the primitive (the row writer writes `x` unwrapped); any
    /// other `x` keeps its `Some`.
    fn serialize_some<T: ?Sized + Serialize>(self, v: &T) -> Result<Cell> {
        let depth = self.depth.enter(1)?;
        let inner = v.serialize(CellSer {
            arena: self.arena,
            depth,
        })?;
        Ok(match inner {
            Cell::Null => Captured::Some(Box::new(Captured::None)).into(),
            Cell::Other(c) => Captured::Some(c).into(),
            prim => prim,
        })
    }
    fn serialize_unit(self) -> Result<Cell> {
        Ok(Captured::Unit.into())
    }
    fn serialize_unit_struct(self, name: &'static str) -> Result<Cell> {
        Ok(Captured::UnitStruct(name).into())
    }
    fn serialize_unit_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
    ) -> Result<Cell> {
        Ok(Captured::UnitVariant(name, index, variant).into())
    }
    /// Transparent like the real serializer, except `Value`'s private carrier names.
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        v: &T,
    ) -> Result<Cell> {
        if magic::variant_kind(name).is_some() {
            return Ok(Capture(self.depth)
                .serialize_newtype_struct(name, v)?
                .into());
        }
        v.serialize(self)
    }
    compounds!(depth);
}

impl<O: From<Captured>> ser::SerializeSeq for CapCompound<O> {
    type Ok = O;
    type Error = Error;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<()> {
        let c = self.capture(v)?;
        self.items.push(Item::Elem(c));
        Ok(())
    }
    fn end(self) -> Result<O> {
        self.finish()
    }
}

macro_rules! elem_like {
    ($tr:ident, $m:ident) => {
        impl<O: From<Captured>> ser::$tr for CapCompound<O> {
            type Ok = O;
            type Error = Error;
            fn $m<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<()> {
                ser::SerializeSeq::serialize_element(self, v)
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

impl<O: From<Captured>> ser::SerializeMap for CapCompound<O> {
    type Ok = O;
    type Error = Error;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, k: &T) -> Result<()> {
        let c = self.capture(k)?;
        self.items.push(Item::Key(c));
        Ok(())
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<()> {
        let c = self.capture(v)?;
        self.items.push(Item::Value(c));
        Ok(())
    }
    fn end(self) -> Result<O> {
        self.finish()
    }
}

macro_rules! field_like {
    ($tr:ident) => {
        impl<O: From<Captured>> ser::$tr for CapCompound<O> {
            type Ok = O;
            type Error = Error;
            fn serialize_field<T: ?Sized + Serialize>(
                &mut self,
                key: &'static str,
                v: &T,
            ) -> Result<()> {
                let c = self.capture(v)?;
                self.items.push(Item::Field(key, c));
                Ok(())
            }
            fn skip_field(&mut self, key: &'static str) -> Result<()> {
                self.items.push(Item::Skip(key));
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

/// Replays the captured calls.
impl Serialize for Captured {
    fn serialize<S: ser::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            Captured::Bool(v) => s.serialize_bool(*v),
            Captured::I64(v) => s.serialize_i64(*v),
            Captured::U64(v) => s.serialize_u64(*v),
            Captured::I128(v) => s.serialize_i128(*v),
            Captured::U128(v) => s.serialize_u128(*v),
            Captured::F32(v) => s.serialize_f32(*v),
            Captured::F64(v) => s.serialize_f64(*v),
            Captured::Char(v) => s.serialize_char(*v),
            Captured::Str(v) => s.serialize_str(v),
            Captured::Bytes(v) => s.serialize_bytes(v),
            Captured::None => s.serialize_none(),
            Captured::Some(v) => s.serialize_some(&**v),
            Captured::Unit => s.serialize_unit(),
            Captured::UnitStruct(n) => s.serialize_unit_struct(n),
            Captured::UnitVariant(n, i, v) => s.serialize_unit_variant(n, *i, v),
            Captured::NewtypeStruct(n, v) => s.serialize_newtype_struct(n, &**v),
            Captured::NewtypeVariant(n, i, var, v) => s.serialize_newtype_variant(n, *i, var, &**v),
            Captured::Compound(open, items) => replay_compound(*open, items, s),
        }
    }
}

fn replay_compound<S: ser::Serializer>(
    open: Open,
    items: &[Item],
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    use serde::ser::Error as _;
    let misplaced = || S::Error::custom("captured item does not fit its compound");
    macro_rules! elems {
        ($c:expr, $m:ident) => {{
            let mut c = $c;
            for it in items {
                match it {
                    Item::Elem(v) => c.$m(v)?,
                    _ => return Err(misplaced()),
                }
            }
            c.end()
        }};
    }
    macro_rules! fields {
        ($c:expr) => {{
            let mut c = $c;
            for it in items {
                match it {
                    Item::Field(k, v) => c.serialize_field(k, v)?,
                    Item::Skip(k) => c.skip_field(k)?,
                    _ => return Err(misplaced()),
                }
            }
            c.end()
        }};
    }
    match open {
        Open::Seq(len) => elems!(s.serialize_seq(len)?, serialize_element),
        Open::Tuple(len) => elems!(s.serialize_tuple(len)?, serialize_element),
        Open::TupleStruct(n, len) => elems!(s.serialize_tuple_struct(n, len)?, serialize_field),
        Open::TupleVariant(n, i, v, len) => {
            elems!(s.serialize_tuple_variant(n, i, v, len)?, serialize_field)
        }
        Open::Map(len) => {
            let mut c = s.serialize_map(len)?;
            for it in items {
                match it {
                    Item::Key(k) => c.serialize_key(k)?,
                    Item::Value(v) => c.serialize_value(v)?,
                    _ => return Err(misplaced()),
                }
            }
            c.end()
        }
        Open::Struct(n, len) => fields!(s.serialize_struct(n, len)?),
        Open::StructVariant(n, i, v, len) => fields!(s.serialize_struct_variant(n, i, v, len)?),
    }
}

/// Replays a [`Cell`]: the primitive's serde call, or the captured tree.
pub(crate) struct CellRef<'a> {
    pub(crate) cell: &'a Cell,
    pub(crate) arena: &'a [u8],
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
            Cell::Str(a, b) => {
                let bytes = &self.arena[a as usize..b as usize];
                // The arena holds only what `serialize_str` was given.
                match std::str::from_utf8(bytes) {
                    Ok(v) => s.serialize_str(v),
                    Err(_) => Err(serde::ser::Error::custom("arena string is not UTF-8")),
                }
            }
            Cell::Other(ref c) => c.serialize(s),
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
    }

    /// Replaying a capture writes exactly the bytes of direct serialization.
    #[test]
    fn replay_is_byte_identical() {
        let mut m = BTreeMap::new();
        m.insert("k".to_string(), (i128::MIN, u128::MAX));
        let v = Deep {
            c: '€',
            b: serde_bytes::ByteBuf::from(vec![0, 1]),
            e: vec![E::U, E::N(3), E::T(1, "x".into()), E::S { a: Some(None) }],
            m,
            u: (),
            o: Some(None),
        };
        let d = Depth {
            depth: 0,
            limit: 128,
        };
        let cap = v.serialize(Capture(d)).unwrap();
        for opts in [crate::Options::speed(), crate::Options::balanced()] {
            assert_eq!(
                crate::to_vec_with(&cap, opts).unwrap(),
                crate::to_vec_with(&v, opts).unwrap()
            );
        }
        let shallow = Depth { depth: 0, limit: 2 };
        assert!(matches!(
            v.serialize(Capture(shallow)).unwrap_err().code(),
            ErrorCode::DepthLimit(2)
        ));
    }

    #[test]
    fn cells_of_primitives_and_some() {
        let mut arena = Vec::new();
        let d = Depth {
            depth: 0,
            limit: 128,
        };
        let mut cell = |v: &dyn erased::Ser| v.cell(&mut arena, d);
        assert_eq!(cell(&Some(5u8)), Cell::Int(5, false));
        assert_eq!(cell(&-3i16), Cell::Int(-3i64 as u64, true));
        assert_eq!(cell(&Some("ab")), Cell::Str(0, 2));
        assert_eq!(cell(&None::<u8>), Cell::Null);
        assert_eq!(
            cell(&Some(None::<u8>)),
            Captured::Some(Box::new(Captured::None)).into()
        );
        assert_eq!(cell(&1.5f32), Cell::F32(1.5f32.to_bits()));
        assert_eq!(cell(&u128::MAX), Captured::U128(u128::MAX).into());
        assert_eq!(cell(&'x'), Captured::Char('x').into());
    }

    mod erased {
        use super::*;
        pub(super) trait Ser {
            fn cell(&self, arena: &mut Vec<u8>, d: Depth) -> Cell;
        }
        impl<T: Serialize> Ser for T {
            fn cell(&self, arena: &mut Vec<u8>, d: Depth) -> Cell {
                self.serialize(CellSer { arena, depth: d }).unwrap()
            }
        }
    }
}
