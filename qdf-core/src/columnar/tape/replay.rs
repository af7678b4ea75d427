//! Replay of captured values: the serde calls they were captured from, in order.

use serde::Serialize;
use serde::ser::{self, SerializeMap as _, SerializeSeq as _, SerializeStruct as _};
use serde::ser::{
    SerializeStructVariant as _, SerializeTuple as _, SerializeTupleStruct as _,
    SerializeTupleVariant as _,
};

use super::*;

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
                        Ev::Field(key) => {
                            c.serialize_field(key, &self.child(i + 1))?;
                            i = t.next(i + 1);
                        }
                        Ev::Skip(key) => {
                            c.skip_field(key)?;
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
