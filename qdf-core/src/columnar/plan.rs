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
use super::tape::{Cell, CellSer, Depth, Ev, MAX_RESERVE, Open, Tape};
use crate::error::{Error, ErrorCode, Result};
use crate::refuse::refuse;
use crate::wire::ext::magic;
use crate::wire::form::int_len;

/// Most bytes of vectors a recycled [`Batch`] keeps ([`Batch::recycle`]).
const MAX_KEPT: usize = 64 << 10;

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
    /// Column id (index into [`Batch::cols`]); `u32::MAX` from an order conflict on.
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
    /// `present[id]`: the `(row, cell index)` of every row that carries column `id`, in row
    /// order (filled while the rows are captured, so the columns need no gathering pass).
    present: Vec<Vec<(u32, u32)>>,
    /// The row being captured contradicts the plan's order ([`Offer::Conflict`]).
    conflict: bool,
    /// The sequence's announced length, capped (what to reserve for).
    hint: usize,
    /// Emptied column lists kept from an earlier use of this batch ([`Batch::recycle`]).
    spare_present: Vec<Vec<(u32, u32)>>,
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
    pub(crate) fn new(len: usize, check_keys: bool) -> Batch {
        let mut b = Batch {
            hint: len.min(MAX_RESERVE / std::mem::size_of::<Row>()),
            ..Batch::default()
        };
        b.tape.check_keys = check_keys;
        b.rows.reserve(b.hint);
        b
    }

    /// Empties the batch for another sequence, keeping its vectors' capacity (a sequence
    /// of small batches, such as the inner lists of residual cells, then allocates once);
    /// `false` when its vectors hold more than [`MAX_KEPT`] bytes, which are not worth keeping
    /// alive (the caller drops it).
    pub(crate) fn recycle(&mut self) -> bool {
        if self.footprint() > MAX_KEPT {
            return false;
        }
        self.rows.clear();
        self.cells.clear();
        self.tape.clear();
        self.cols.clear();
        self.order.clear();
        self.pos.clear();
        for mut p in self.present.drain(..) {
            p.clear();
            self.spare_present.push(p);
        }
        self.conflict = false;
        true
    }

    /// A batch emptied by [`recycle`](Self::recycle) as [`Batch::new`] makes it.
    pub(crate) fn reuse(&mut self, len: usize, check_keys: bool) {
        self.hint = len.min(MAX_RESERVE / std::mem::size_of::<Row>());
        self.tape.check_keys = check_keys;
        self.rows.reserve(self.hint);
    }

    /// Bytes the batch's vectors hold (their capacity).
    fn footprint(&self) -> usize {
        use std::mem::size_of;
        let lists = self.present.iter().chain(&self.spare_present);
        self.rows.capacity() * size_of::<Row>()
            + self.cells.capacity() * size_of::<Field>()
            + self.tape.footprint()
            + lists.map(Vec::capacity).sum::<usize>() * size_of::<(u32, u32)>()
    }

    /// Offers one element; `depth` is the serializer's depth at the sequence.
    pub(crate) fn offer<T: ?Sized + Serialize>(&mut self, value: &T, depth: Depth) -> Offer {
        let start = self.cells.len();
        let mark = self.tape.mark();
        let known = self.cols.len();
        self.conflict = false;
        match value.serialize(RowProbe { batch: self, depth }) {
            Ok(()) if !self.conflict => {
                if let Some(more) = self.after_first() {
                    self.tape.reserve_like(1, more);
                }
                Offer::Taken
            }
            Ok(()) => Offer::Conflict,
            Err(_) => {
                self.unassign(start, known);
                self.cells.truncate(start);
                self.tape.rewind(mark);
                Offer::Refused
            }
        }
    }

    /// After the first row of several announced: reserves cells and column lists for the
    /// others like it, and returns how many others (`None` on any other row).
    fn after_first(&mut self) -> Option<usize> {
        if self.rows.len() != 1 || self.hint <= 1 {
            return None;
        }
        // The first row tells what the announced others will take.
        let more = self.hint - 1;
        let cells = self.cells.len() * more;
        self.cells
            .reserve(cells.min(MAX_RESERVE / std::mem::size_of::<Field>()));
        let each = more.min(MAX_RESERVE / std::mem::size_of::<(u32, u32)>());
        for p in &mut self.present {
            p.reserve(each);
        }
        Some(more)
    }

    /// Starts a row whose fields are already captured (a struct on a tape: the child rows
    /// of a struct column, `columnar::nested`), given to [`field`](Self::field) in order
    /// with the same `cursor`, then ended by [`end_row`](Self::end_row): the plan that
    /// [`offer`](Self::offer) would build from the struct's replay, without its serde calls
    /// or a second capture. The cells refer to the tape they were captured on, not to
    /// [`Batch::tape`].
    pub(crate) fn start_row(&mut self) -> usize {
        self.conflict = false;
        0
    }

    /// Field `key` with `cell` of the row being captured, `cursor` its plan cursor: assigned
    /// a column ([`Offer::Conflict`] at the row's end if the plan's order forbids it).
    /// Always inline: once per captured field, in the row probe's `serialize_field`.
    #[inline(always)]
    pub(crate) fn field(&mut self, key: &'static str, cell: Cell, cursor: &mut usize) {
        let at = self.cells.len() as u32;
        let col = match self.conflict {
            false => self.assign(key, cursor),
            true => None,
        };
        let col = match col {
            Some(id) => {
                self.present[id as usize].push((self.rows.len() as u32, at));
                id
            }
            None => {
                self.conflict = true;
                u32::MAX
            }
        };
        self.cells.push(Field { key, col, cell });
    }

    /// Ends the row started by [`start_row`](Self::start_row), a struct `name` announced
    /// with `len` fields: [`Offer::Taken`], or [`Offer::Conflict`] when its fields
    /// contradicted the plan's order.
    pub(crate) fn end_row(&mut self, name: &'static str, len: usize) -> Offer {
        self.rows.push(Row {
            name,
            len,
            end: self.cells.len() as u32,
        });
        if self.conflict {
            return Offer::Conflict;
        }
        self.after_first();
        Offer::Taken
    }

    /// The column id of field `key` of the row being captured, `cursor` its plan cursor;
    /// `None` on an order conflict. The common case (the next column of the plan, the same
    /// `&'static str` as in the rows before) inline.
    #[inline(always)]
    fn assign(&mut self, key: &'static str, cursor: &mut usize) -> Option<u32> {
        if let Some(&id) = self.order.get(*cursor)
            && same_name(self.cols[id as usize], key)
        {
            *cursor += 1;
            return Some(id);
        }
        self.assign_other(key, cursor)
    }

    /// [`assign`](Self::assign) of a key found later in the plan, or not yet in it.
    #[inline(never)]
    fn assign_other(&mut self, key: &'static str, cursor: &mut usize) -> Option<u32> {
        if let Some(id) = self.cols.iter().position(|&c| c == key) {
            let p = self.pos[id] as usize;
            if p < *cursor {
                return None;
            }
            *cursor = p + 1;
            return Some(id as u32);
        }
        let id = self.cols.len() as u32;
        self.cols.push(key);
        self.present
            .push(self.spare_present.pop().unwrap_or_default());
        self.order.insert(*cursor, id);
        self.pos.push(0);
        self.renumber(*cursor);
        *cursor += 1;
        Some(id)
    }

    /// Sets `pos` from plan position `from` on.
    fn renumber(&mut self, from: usize) {
        for (p, &c) in self.order.iter().enumerate().skip(from) {
            self.pos[c as usize] = p as u32;
        }
    }

    /// Undoes the column assignments of a refused row (`cells[start..]`) and drops the
    /// columns it added (ids from `known` on), so the plan is as before the row.
    fn unassign(&mut self, start: usize, known: usize) {
        for f in &self.cells[start..] {
            if let Some(p) = self.present.get_mut(f.col as usize) {
                p.pop();
            }
        }
        if self.cols.len() > known {
            self.cols.truncate(known);
            self.present.truncate(known);
            self.pos.truncate(known);
            self.order.retain(|&id| (id as usize) < known);
            self.renumber(0);
        }
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

    /// Per plan position, the `(row, cell index)` of every row that carries the column, in
    /// row order.
    pub(crate) fn columns(&self) -> Vec<&[(u32, u32)]> {
        self.order
            .iter()
            .map(|&id| &self.present[id as usize][..])
            .collect()
    }

    /// One pass over the cells of a column (`present`): see [`scan_cells`].
    #[cfg(test)]
    pub(crate) fn scan(&self, present: &[(u32, u32)]) -> Scan<'_> {
        Rows::own(self).scan(present)
    }

    /// The rows of the sequence of structs at event `at` of `src` (its cells refer to
    /// `src`): what [`offer`](Self::offer) captures from the replay of each element, without
    /// the replay or a second capture; returns the events that capture would put on its tape
    /// (for [`Rows::of`]; not kept in the batch, whose size the encoder's heap use follows).
    /// `None` (the batch is then to be recycled) when the replay could go otherwise: an
    /// element that is no struct, a field order the plan refuses, a newtype anywhere (the
    /// capture drops plain ones, so the cells would differ from the events), or a value
    /// nested so deep that a capture at `depth` (the serializer's inside the sequence) could
    /// be refused.
    pub(crate) fn rows_of(&mut self, src: &Tape, at: usize, depth: Depth) -> Option<usize> {
        let Ev::Open(Open::Seq(_), end) = src.evs[at] else {
            return None;
        };
        let mut events = 0;
        let mut i = at + 1;
        while i < end as usize {
            let Ev::Open(Open::Struct(name, len), row_end) = src.evs[i] else {
                return None;
            };
            let row_end = row_end as usize;
            let deep = nesting(src, i, row_end + 1);
            if deep.is_none_or(|d| depth.depth.saturating_add(d) >= depth.limit) {
                return None;
            }
            let mut cursor = self.start_row();
            let mut f = i + 1;
            while f < row_end {
                match src.evs[f] {
                    Ev::Field(key) => {
                        let (cell, next) = super::nested::field_cell_next(src, f + 1);
                        if let Cell::Other(a) = cell {
                            events += next - a as usize;
                        }
                        self.field(key, cell, &mut cursor);
                        f = next;
                    }
                    // The replay's `skip_field`, which the row probe ignores.
                    Ev::Skip(_) => f += 1,
                    _ => return None,
                }
            }
            let len = usize::try_from(len).unwrap_or(usize::MAX);
            if self.end_row(src.name_at(name), len) != Offer::Taken {
                return None;
            }
            i = row_end + 1;
        }
        (!self.rows.is_empty()).then_some(events)
    }
}

/// An upper bound of the depth levels the value at event `at` of `tape` (ending before
/// event `end`) enters: two a compound at its deepest nesting, plus one for every wrapper
/// (`Some`, a newtype variant) anywhere in it, in one pass. `None` when it holds a newtype
/// struct.
fn nesting(tape: &Tape, at: usize, end: usize) -> Option<u32> {
    let (mut open, mut deepest, mut wrappers) = (0u32, 0u32, 0u32);
    for ev in &tape.evs[at..end] {
        match ev {
            Ev::Open(..) => {
                open += 1;
                deepest = deepest.max(open);
            }
            Ev::End(_) => open = open.saturating_sub(1),
            Ev::Some | Ev::NewtypeVariant(_) => wrappers += 1,
            Ev::NewtypeStruct(_) => return None,
            _ => {}
        }
    }
    Some(deepest.saturating_mul(2).saturating_add(wrappers))
}

/// The rows of a [`Batch`] with the tape their cells refer to: the batch's own, or the tape
/// of an outer batch ([`Batch::rows_of`]). What the columnar writer reads.
pub(crate) struct Rows<'a> {
    pub(crate) b: &'a Batch,
    /// The batch's rows and cells, held here (not only through `b`) so that the writer's
    /// loops load them once: through two references they were reloaded after every write.
    pub(crate) rows: &'a [Row],
    pub(crate) cells: &'a [Field],
    pub(crate) tape: &'a Tape,
    /// Events the rows' values take on a tape of their own (the small-batch bound).
    pub(crate) events: usize,
}

impl<'a> Rows<'a> {
    /// A batch with its own tape.
    pub(crate) fn own(b: &'a Batch) -> Rows<'a> {
        Rows::of(b, &b.tape, b.tape.evs.len())
    }

    /// A batch from [`Batch::rows_of`] over `src`, with the event count it returned.
    pub(crate) fn of(b: &'a Batch, src: &'a Tape, events: usize) -> Rows<'a> {
        Rows {
            b,
            rows: &b.rows,
            cells: &b.cells,
            tape: src,
            events,
        }
    }

    /// One pass over the cells of a column (`present`): see [`scan_cells`].
    pub(crate) fn scan(&self, present: &[(u32, u32)]) -> Scan<'a> {
        let cells = self.cells;
        scan_cells(
            present.iter().map(|&(_, i)| cells[i as usize].cell),
            present.len(),
            &self.tape.arena,
        )
    }
}

impl std::ops::Deref for Rows<'_> {
    type Target = Batch;
    fn deref(&self) -> &Batch {
        self.b
    }
}

/// One pass over the `n` cells of a column (their strings in `arena`): its class from the
/// non-null cells (one primitive kind, else residual), and for a column that is not
/// residual the null count, the row-mode bytes of the numbers and nulls, and the values.
/// Generic over the iterator: a top-level column reads its cells in place, a child column
/// from its own list (`columnar::nested`).
// Out of line (once per column): inlined, its cell loop's code followed that of the caller.
#[inline(never)]
pub(crate) fn scan_cells<'b, I>(cells: I, n: usize, arena: &'b [u8]) -> Scan<'b>
where
    I: Iterator<Item = Cell> + Clone,
{
    const INT: u8 = 1;
    const F64: u8 = 2;
    const F32: u8 = 4;
    const BOOL: u8 = 8;
    const STR: u8 = 16;
    let mut s = Scan {
        class: Class::Residual,
        nulls: 0,
        num_cost: 0,
        strs: Vec::new(),
        vals: Vec::new(),
    };
    // Room for every value in the vector the first non-null cell's kind fills.
    let first = cells.clone().find(|c| *c != Cell::Null);
    match first {
        Some(Cell::Str(..)) => {
            s.strs.reserve_exact(n);
            // The common case, a column of strings only, in a loop of its own.
            if strs_only(cells.clone(), arena, &mut s.strs) {
                s.class = Class::Str;
                return s;
            }
            s.strs.clear();
        }
        Some(Cell::Other(_)) => return Scan::residual(),
        Some(first @ (Cell::F32(_) | Cell::F64(_))) => {
            s.vals.reserve_exact(n);
            // The common case, a column of one float kind without nulls (coordinates,
            // measurements), in a loop of its own.
            let f64s = matches!(first, Cell::F64(_));
            if floats_only(cells.clone(), f64s, &mut s.vals) {
                s.class = if f64s { Class::F64 } else { Class::F32 };
                s.num_cost = s.vals.len() * if f64s { 9 } else { 5 };
                return s;
            }
            s.vals.clear();
        }
        Some(_) => s.vals.reserve_exact(n),
        None => {}
    }
    let (mut kinds, mut neg, mut big) = (0u8, false, false);
    for c in cells {
        match c {
            Cell::Null => {
                s.nulls += 1;
                s.num_cost += 1;
            }
            Cell::Int(v, n) => {
                kinds |= INT;
                neg |= n;
                big |= !n && v > i64::MAX as u64;
                s.num_cost += int_len(v, n);
                s.vals.push(v);
            }
            Cell::F64(v) => {
                kinds |= F64;
                s.num_cost += 9;
                s.vals.push(v);
            }
            Cell::F32(v) => {
                kinds |= F32;
                s.num_cost += 5;
                s.vals.push(v as u64);
            }
            Cell::Bool(v) => {
                kinds |= BOOL;
                s.num_cost += 1;
                s.vals.push(v as u64);
            }
            Cell::Str(a, e) => {
                kinds |= STR;
                s.strs.push(&arena[a as usize..e as usize]);
            }
            Cell::Other(_) => return Scan::residual(),
        }
    }
    s.class = match kinds {
        INT if neg && big => return Scan::residual(),
        INT => Class::Int { neg },
        F64 => Class::F64,
        F32 => Class::F32,
        BOOL => Class::Bool,
        STR => Class::Str,
        // Only nulls: an empty integer column.
        0 => Class::Int { neg: false },
        _ => return Scan::residual(),
    };
    s
}

/// Pushes the bytes of every cell of `cells` onto `strs` while they are strings; `false`
/// at the first that is not.
fn strs_only<'b>(
    cells: impl Iterator<Item = Cell>,
    arena: &'b [u8],
    strs: &mut Vec<&'b [u8]>,
) -> bool {
    for c in cells {
        let Cell::Str(a, e) = c else {
            return false;
        };
        strs.push(&arena[a as usize..e as usize]);
    }
    true
}

/// Pushes the bits of every cell of `cells` onto `vals` while they are floats of one kind
/// (`f64s`: `f64`, else `f32`), as the general loop of [`scan_cells`] stores them; `false`
/// at the first that is not.
fn floats_only(cells: impl Iterator<Item = Cell>, f64s: bool, vals: &mut Vec<u64>) -> bool {
    for c in cells {
        match (c, f64s) {
            (Cell::F32(v), false) => vals.push(v as u64),
            (Cell::F64(v), true) => vals.push(v),
            _ => return false,
        }
    }
    true
}

/// What [`Batch::scan`] found in a column.
#[derive(Debug)]
pub(crate) struct Scan<'b> {
    pub(crate) class: Class,
    /// `None` cells.
    pub(crate) nulls: usize,
    /// Bytes in row mode of the nulls, numbers and bools (Speed forms; strings not counted).
    pub(crate) num_cost: usize,
    /// The strings of a string column, in row order.
    pub(crate) strs: Vec<&'b [u8]>,
    /// The bits of the numbers of a number or bool column (as [`Cell`] holds them).
    pub(crate) vals: Vec<u64>,
}

impl Scan<'_> {
    fn residual() -> Self {
        Scan {
            class: Class::Residual,
            nulls: 0,
            num_cost: 0,
            strs: Vec::new(),
            vals: Vec::new(),
        }
    }
}

/// `a == b` for field names, first by address: a derived `Serialize` passes the same
/// `&'static str` for a field in every row.
#[inline(always)]
pub(crate) fn same_name(a: &str, b: &str) -> bool {
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
    /// The plan position after the last field assigned (see the module doc).
    cursor: usize,
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
        self.batch.field(key, cell, &mut self.cursor);
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

impl RowProbe<'_> {
    fn no(self) -> Error {
        not_a_struct()
    }
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
            cursor: 0,
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
        Self::no; serialize_bool serialize_i8 serialize_i16 serialize_i32 serialize_i64
        serialize_i128 serialize_u8 serialize_u16 serialize_u32 serialize_u64 serialize_u128
        serialize_f32 serialize_f64 serialize_char serialize_str serialize_bytes serialize_none
        serialize_unit serialize_unit_struct serialize_unit_variant serialize_some
        serialize_newtype_variant serialize_seq serialize_tuple serialize_tuple_struct
        serialize_tuple_variant serialize_map serialize_struct_variant
    }
}

#[cfg(test)]
mod tests;
