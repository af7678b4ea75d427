//! The column plan of a batch being collected: rows are captured one by one (a struct's
//! fields as [`Cell`]s), their field names matched in order against the plan, and at the end
//! each column gets a class from its values.
//!
//! Plan rule (one cursor per row): a key found at or after the cursor moves the cursor past
//! it (columns skipped on the way are absent in this row); a key not in the plan is inserted
//! at the cursor (absent in every earlier row); a key found *before* the cursor (reordered or
//! duplicate fields) cannot be a column of one order, so the batch gives up.

use serde::Serialize;
use serde::ser::{self, Impossible};

use super::Class;
use crate::error::{Error, ErrorCode, Result};
use crate::ser::capture::{Cell, CellSer, Depth, MAX_RESERVE, Tape};
use crate::wire::ext::magic;

/// One captured row (struct element).
#[derive(Debug)]
pub(crate) struct Row {
    /// The struct name and announced field count, for replay.
    pub(crate) name: &'static str,
    pub(crate) len: usize,
    /// One past the row's last field in [`Batch::cells`].
    pub(crate) end: u32,
}

/// One captured field.
#[derive(Debug)]
pub(crate) struct Field {
    pub(crate) key: &'static str,
    /// Column id (index into [`Batch::cols`]).
    pub(crate) col: u32,
    pub(crate) cell: Cell,
}

/// The rows of a sequence of structs, captured while they may still become a columnar
/// container.
#[derive(Debug, Default)]
pub(crate) struct Batch {
    pub(crate) rows: Vec<Row>,
    pub(crate) cells: Vec<Field>,
    /// String cells' bytes and every value that is not a primitive cell.
    pub(crate) tape: Tape,
    /// Column names by id.
    pub(crate) cols: Vec<&'static str>,
    /// Column ids in plan order.
    pub(crate) order: Vec<u32>,
    /// `pos[id]`: the plan position of column `id`.
    pos: Vec<u32>,
    /// The sequence's announced length, capped (what to reserve for).
    hint: usize,
}

/// What became of an offered element.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Offer {
    /// Captured as a row of the plan.
    Taken,
    /// Captured, but its fields contradict the plan's order: the batch gives up, and the
    /// row is replayed with the others.
    Conflict,
    /// Not a struct (or its `Serialize` failed): nothing of it is kept; the caller replays
    /// the batch and serializes the element itself.
    Refused,
}

impl Batch {
    /// An empty batch of a sequence that announced `len` elements (`usize::MAX`: none).
    pub(crate) fn new(len: usize) -> Batch {
        let mut b = Batch {
            hint: len.min(MAX_RESERVE / std::mem::size_of::<Row>()),
            ..Batch::default()
        };
        b.rows.reserve(b.hint);
        b
    }

    /// Offers one element; `depth` is the serializer's depth at the sequence.
    pub(crate) fn offer<T: ?Sized + Serialize>(&mut self, value: &T, depth: Depth) -> Offer {
        let start = self.cells.len();
        let mark = self.tape.mark();
        match value.serialize(RowProbe { batch: self, depth }) {
            Ok(()) if self.commit(start) => {
                if self.rows.len() == 1 && self.hint > 1 {
                    // The first row tells what the announced others will take.
                    let more = self.hint - 1;
                    let cells = self.cells.len() * more;
                    self.cells
                        .reserve(cells.min(MAX_RESERVE / std::mem::size_of::<Field>()));
                    self.tape.reserve_like(1, more);
                }
                Offer::Taken
            }
            Ok(()) => Offer::Conflict,
            Err(_) => {
                self.cells.truncate(start);
                self.tape.rewind(mark);
                Offer::Refused
            }
        }
    }

    /// Assigns the columns of the last row's fields (`cells[start..]`); `false` on an order
    /// conflict.
    fn commit(&mut self, start: usize) -> bool {
        let mut cursor = 0usize;
        for i in start..self.cells.len() {
            let key = self.cells[i].key;
            let id = if self
                .order
                .get(cursor)
                .is_some_and(|&id| same_name(self.cols[id as usize], key))
            {
                let id = self.order[cursor];
                cursor += 1;
                id
            } else if let Some(id) = self.cols.iter().position(|&c| c == key) {
                let p = self.pos[id] as usize;
                if p < cursor {
                    return false;
                }
                cursor = p + 1;
                id as u32
            } else {
                let id = self.cols.len() as u32;
                self.cols.push(key);
                self.order.insert(cursor, id);
                self.pos.push(0);
                for (p, &c) in self.order.iter().enumerate().skip(cursor) {
                    self.pos[c as usize] = p as u32;
                }
                cursor += 1;
                id
            };
            self.cells[i].col = id;
        }
        true
    }

    /// The fields of row `r`.
    pub(crate) fn row_fields(&self, r: usize) -> &[Field] {
        let start = if r == 0 {
            0
        } else {
            self.rows[r - 1].end as usize
        };
        &self.cells[start..self.rows[r].end as usize]
    }

    /// The plan position of column `id`.
    pub(crate) fn position(&self, id: u32) -> usize {
        self.pos[id as usize] as usize
    }

    /// Per plan position, the `(row, cell index)` of every row that carries the column, in
    /// row order.
    pub(crate) fn columns(&self) -> Vec<Vec<(u32, u32)>> {
        let mut counts = vec![0usize; self.order.len()];
        for f in &self.cells {
            counts[self.position(f.col)] += 1;
        }
        let mut cols: Vec<Vec<(u32, u32)>> = counts.into_iter().map(Vec::with_capacity).collect();
        let mut r = 0usize;
        for (i, f) in self.cells.iter().enumerate() {
            while self.rows[r].end as usize <= i {
                r += 1;
            }
            cols[self.position(f.col)].push((r as u32, i as u32));
        }
        cols
    }

    /// The class of a column from its non-null cells: one primitive kind, else residual.
    pub(crate) fn classify(&self, present: &[(u32, u32)]) -> Class {
        let (mut neg, mut big) = (false, false);
        let mut class: Option<Class> = None;
        for &(_, i) in present {
            let c = match self.cells[i as usize].cell {
                Cell::Null => continue,
                Cell::Int(v, n) => {
                    neg |= n;
                    big |= !n && v > i64::MAX as u64;
                    Class::Int { neg: false }
                }
                Cell::F64(_) => Class::F64,
                Cell::F32(_) => Class::F32,
                Cell::Bool(_) => Class::Bool,
                Cell::Str(..) => Class::Str,
                Cell::Other(_) => return Class::Residual,
            };
            if *class.get_or_insert(c) != c {
                return Class::Residual;
            }
        }
        match class {
            Some(Class::Int { .. }) if neg && big => Class::Residual,
            Some(Class::Int { .. }) => Class::Int { neg },
            Some(c) => c,
            // Only nulls: an empty integer column.
            None => Class::Int { neg: false },
        }
    }
}

/// `a == b` for field names, first by address: a derived `Serialize` passes the same
/// `&'static str` for a field in every row.
#[inline(always)]
fn same_name(a: &str, b: &str) -> bool {
    std::ptr::eq(a, b) || a == b
}

/// The refusal of an element that is not a struct.
fn not_a_struct() -> Error {
    Error::new(ErrorCode::Unsupported("a columnar row must be a struct"))
}

/// A serializer that accepts one struct and captures its fields into a [`Batch`].
struct RowProbe<'b> {
    batch: &'b mut Batch,
    depth: Depth,
}

/// The struct being captured.
struct RowFields<'b> {
    batch: &'b mut Batch,
    name: &'static str,
    len: usize,
    inner: Depth,
    /// A field failed and the struct's `Serialize` went on: the row is refused (the tape may
    /// hold its partial capture), so the element is serialized directly.
    failed: bool,
}

impl ser::SerializeStruct for RowFields<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, key: &'static str, v: &T) -> Result<()> {
        let cell = v
            .serialize(CellSer {
                tape: &mut self.batch.tape,
                depth: self.inner,
            })
            .inspect_err(|_| self.failed = true)?;
        self.batch.cells.push(Field {
            key,
            col: u32::MAX,
            cell,
        });
        Ok(())
    }
    fn end(self) -> Result<()> {
        if self.failed {
            return Err(Error::new(ErrorCode::Unsupported(
                "a row field failed and its error was ignored",
            )));
        }
        self.batch.rows.push(Row {
            name: self.name,
            len: self.len,
            end: self.batch.cells.len() as u32,
        });
        Ok(())
    }
}

type No = Impossible<(), Error>;

macro_rules! refuse {
    ($($m:ident($($a:ty),*))*) => {$(
        fn $m(self, $(_: $a),*) -> Result<()> {
            Err(not_a_struct())
        }
    )*};
}

impl<'b> ser::Serializer for RowProbe<'b> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = No;
    type SerializeTuple = No;
    type SerializeTupleStruct = No;
    type SerializeTupleVariant = No;
    type SerializeMap = No;
    type SerializeStruct = RowFields<'b>;
    type SerializeStructVariant = No;

    fn is_human_readable(&self) -> bool {
        false
    }
    fn serialize_struct(self, name: &'static str, len: usize) -> Result<RowFields<'b>> {
        let inner = self.depth.enter(1)?;
        Ok(RowFields {
            batch: self.batch,
            name,
            len,
            inner,
            failed: false,
        })
    }
    /// Transparent like the real serializer (a newtype around a struct is that struct).
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<()> {
        if magic::variant_kind(name).is_some() {
            return Err(not_a_struct());
        }
        value.serialize(self)
    }
    refuse! {
        serialize_bool(bool) serialize_i8(i8) serialize_i16(i16) serialize_i32(i32)
        serialize_i64(i64) serialize_i128(i128) serialize_u8(u8) serialize_u16(u16)
        serialize_u32(u32) serialize_u64(u64) serialize_u128(u128) serialize_f32(f32)
        serialize_f64(f64) serialize_char(char) serialize_str(&str) serialize_bytes(&[u8])
        serialize_none() serialize_unit() serialize_unit_struct(&'static str)
        serialize_unit_variant(&'static str, u32, &'static str)
    }
    fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<()> {
        Err(not_a_struct())
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<()> {
        Err(not_a_struct())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<No> {
        Err(not_a_struct())
    }
    fn serialize_tuple(self, _: usize) -> Result<No> {
        Err(not_a_struct())
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<No> {
        Err(not_a_struct())
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<No> {
        Err(not_a_struct())
    }
    fn serialize_map(self, _: Option<usize>) -> Result<No> {
        Err(not_a_struct())
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<No> {
        Err(not_a_struct())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Ab {
        a: u8,
        #[serde(skip_serializing_if = "Option::is_none")]
        b: Option<&'static str>,
        c: i32,
    }

    fn d() -> Depth {
        Depth {
            depth: 1,
            limit: 128,
        }
    }

    #[test]
    fn plan_inserts_at_the_cursor_and_detects_conflicts() {
        let mut b = Batch::default();
        assert_eq!(
            b.offer(
                &Ab {
                    a: 1,
                    b: None,
                    c: -2
                },
                d()
            ),
            Offer::Taken
        );
        assert_eq!(
            b.offer(
                &Ab {
                    a: 2,
                    b: Some("x"),
                    c: 3
                },
                d()
            ),
            Offer::Taken
        );
        let names: Vec<_> = b.order.iter().map(|&i| b.cols[i as usize]).collect();
        assert_eq!(names, ["a", "b", "c"]);
        let cols = b.columns();
        assert_eq!(cols[1], [(1, 3)]);
        assert_eq!(b.classify(&cols[0]), Class::Int { neg: false });
        assert_eq!(b.classify(&cols[2]), Class::Int { neg: true });
        assert_eq!(b.classify(&cols[1]), Class::Str);
        assert_eq!(b.offer(&5u8, d()), Offer::Refused);
        assert_eq!(b.cells.len(), 5);
        let mut m = std::collections::BTreeMap::new();
        m.insert("c", 1);
        assert_eq!(b.offer(&m, d()), Offer::Refused);
        #[derive(Serialize)]
        struct Ca {
            c: u8,
            a: u8,
        }
        assert_eq!(b.offer(&Ca { c: 1, a: 2 }, d()), Offer::Conflict);
        assert_eq!(b.rows.len(), 3, "the conflicting row is kept for replay");
    }
}
