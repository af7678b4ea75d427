//! Struct, list and tagged columns on the encoder side (`docs/SPEC.md` §22.2, §22.3,
//! feature `NESTED_COLUMNS`): a column whose values are all structs becomes a struct column
//! whose child columns hold the structs' fields; a column whose values are all sequences
//! (tuples and tuple structs too: row mode writes each as an array) becomes a list column, a
//! lengths column and one element column over the concatenated elements; a column whose
//! values are all enum variants, or all one-entry maps with a string key, becomes a tagged
//! column, a tag column and one child column per variant over its payloads (a tuple or
//! struct variant's fields as a list or struct column); a column of other maps becomes a map
//! column, a lengths column, then a key column and a value column over the concatenated
//! entries. Children are planned the same way, recursively, and a leaf child picks its codec
//! as a top-level column does ([`leaf_body`]).
//!
//! The captured values are walked on the [`Tape`]: a struct's fields are taken from its
//! events as the rows of a [`Batch`] of their own (so a child's plan follows the same order
//! rule as the top level), a sequence's items and a map's keys and values are read in
//! place, a variant's payload or a one-entry map's value is a child cell. A value that is
//! none of these (`Some(None)`, a field order that contradicts the plan, an item kind that
//! differs) leaves the whole top-level column residual: the fallback is exact.
//!
//! A child column is pre-encoded when it is planned (masks and body), so its bytes are
//! known: the caller keeps the column only when these bytes are not more than an estimate
//! of its values in row mode. A child string column is a block, except where strings go
//! through an intern table that outlives the message (a session's, a dictionary's): there it
//! may be per-value strings, left out of the bytes as a [`Deferred`] run and written with
//! the container, and counted at the census's estimate, which sees the strings the table
//! already holds as references.

use std::borrow::Cow;

use super::body::{Body, Deferred, Leaf, StrForms, hex_refs, hex_shape, leaf_body};
use super::numtext::{self, Form, HexCol};
use super::plan::{Batch, Offer, Rows, same_name, scan_cells};
use super::tape::{Cell, Ev, Open, Tape};
use super::{
    Class, Decl, KEY_SETS, MAP_FORM, MIN_ROWS, NULLABLE, OPTIONAL, RESIDUAL, VARIANT_FIELDS,
    WRAPPED, mask,
};
use crate::codec::cursor::ELEMENT_CHARGE;
use crate::codec::strings::{Census, Known};
use crate::error::Result;
use crate::options::Features;
use crate::sink::Sink;
use crate::wire::tags;
use crate::wire::varint::write_uvarint;

/// Row-mode bytes of a struct value beyond its fields (a shape reference, estimated).
const STRUCT_OVERHEAD: usize = 2;

/// A planned struct, list or tagged column's values (its present, non-null values; the
/// caller writes its masks).
pub(crate) struct Nested {
    pub(crate) class: Class,
    /// A tagged column's kind bits ([`MAP_FORM`], [`WRAPPED`]).
    pub(crate) flags: u8,
    /// The declaration of its child columns.
    pub(crate) children: Vec<Decl>,
    /// The lengths column (lists) and the children's masks and bodies.
    pub(crate) body: Vec<u8>,
    /// The per-value strings left out of `body`, by offset.
    pub(crate) strs: Vec<Deferred>,
    /// Estimated bytes of `strs` once written.
    pub(crate) strs_cost: usize,
    /// Decoded output the decoder charges for the body (§13).
    pub(crate) units: u64,
    /// Estimated bytes of the same values in row mode.
    pub(crate) row_cost: usize,
    /// Some leaf body is an entropy-coded block (header flag `04`).
    pub(crate) entropy: bool,
}

/// One planned child column.
struct Child<'t> {
    decl: Decl,
    bytes: Vec<u8>,
    /// Where a leaf's body starts in `bytes` (after its masks).
    body_at: usize,
    /// A leaf of hex text, which may refer to a sibling, and whether a sibling may refer to
    /// it.
    hex: Option<(HexCol<'t>, bool)>,
    strs: Vec<Deferred>,
    strs_cost: usize,
    units: u64,
    row_cost: usize,
    entropy: bool,
}

/// Plans the struct, list, map or tagged column of top-level column `present` (its
/// `(row, cell)` list) of batch `b`: `None` when its values are not all structs, all
/// sequences, all maps or all variants of one planned shape (the column stays residual).
pub(crate) fn plan_top(
    sink: &Sink,
    b: &Rows<'_>,
    present: &[(u32, u32)],
) -> Result<Option<Nested>> {
    // Sized up front: a filtered `collect` grows from nothing, copying as it goes.
    let mut vals = Vec::with_capacity(present.len());
    vals.extend(
        present
            .iter()
            .map(|&(_, i)| b.cells[i as usize].cell)
            .filter(|c| *c != Cell::Null),
    );
    nested(sink, b.tape, &vals, 0)
}

/// The value a wrapper event stands for: `Some` and plain newtypes are transparent in row
/// mode (a `Some` around a value that starts with nil keeps a wrapper there, so it is
/// refused: `None`).
// Inline: out of line (it has callers in `Batch::rows_of` too) it cost Mesh encode 4 %.
#[inline(always)]
fn unwrap(tape: &Tape, mut at: usize) -> Option<usize> {
    let mut some = false;
    loop {
        match tape.evs[at] {
            Ev::Some => some = true,
            Ev::NewtypeStruct(n) if tape.plain_newtype(n) => {}
            Ev::None | Ev::Unit | Ev::UnitStruct(_) if some => return None,
            _ => return Some(at),
        }
        at += 1;
    }
}

/// The cell of the value at event `at` (an item of a captured sequence): primitives as
/// [`CellSer`](super::tape::CellSer) makes them, anything else [`Cell::Other`].
fn cell_at(tape: &Tape, at: usize) -> Cell {
    let Some(i) = unwrap(tape, at) else {
        return Cell::Other(at as u32);
    };
    match tape.evs[i] {
        // Only a bare `None` is a null; `Some(None)` was refused above.
        Ev::None if i != at => Cell::Other(at as u32),
        ev => prim_cell(ev).unwrap_or(Cell::Other(at as u32)),
    }
}

/// The cell of a struct field's value at event `at`, as [`CellSer`](super::tape::CellSer)
/// makes it when it captures the field: [`cell_at`]'s, except that a 128-bit integer that
/// fits 64 bits is a [`Cell::Int`] and a `None` behind plain newtypes (no `Some`) is
/// [`Cell::Null`].
fn field_cell(tape: &Tape, at: usize) -> Cell {
    if let Some(i) = unwrap(tape, at) {
        match tape.evs[i] {
            // `unwrap` refuses a `None` inside a `Some`: this one is behind newtypes only.
            Ev::None => return Cell::Null,
            Ev::I128(a) => {
                let v = i128::from_le_bytes(tape.wide(a));
                match (u64::try_from(v), i64::try_from(v)) {
                    (Ok(u), _) => return Cell::Int(u, false),
                    (_, Ok(v)) => return Cell::Int(v as u64, true),
                    _ => {}
                }
            }
            Ev::U128(a) => {
                if let Ok(u) = u64::try_from(u128::from_le_bytes(tape.wide(a))) {
                    return Cell::Int(u, false);
                }
            }
            _ => {}
        }
    }
    cell_at(tape, at)
}

/// Average items a list of structs from which each list stays a container of its own.
const LONG_STRUCT_LISTS: usize = 64;

/// Nesting levels of child columns planned at most (a deeper value stays residual; the
/// decoder's depth limit bounds what it accepts).
const MAX_LEVELS: u32 = 32;

/// The struct, list, map or tagged column of `vals` (non-null [`Cell::Other`] values on
/// `tape`), or `None`.
fn nested(sink: &Sink, tape: &Tape, vals: &[Cell], level: u32) -> Result<Option<Nested>> {
    if vals.is_empty() || level >= MAX_LEVELS {
        return Ok(None);
    }
    let mut ats = Vec::with_capacity(vals.len());
    for c in vals {
        let Cell::Other(at) = *c else {
            return Ok(None);
        };
        let Some(i) = unwrap(tape, at as usize) else {
            return Ok(None);
        };
        ats.push(i);
    }
    match tape.evs[ats[0]] {
        Ev::Open(Open::Struct(..), _) => structs(sink, tape, &ats, level, false),
        // Row mode writes a sequence, a tuple and a tuple struct alike: an array.
        Ev::Open(Open::Seq(_) | Open::Tuple(_) | Open::TupleStruct(..), _) => {
            lists(sink, tape, &ats, level, false)
        }
        Ev::Open(Open::Map(_), _) => match tagged(sink, tape, vals, &ats, level, true)? {
            Some(t) => Ok(Some(t)),
            None => maps(sink, tape, &ats, level),
        },
        // Where the intern table outlives the message the rows refer to it for variant
        // names and payloads: tagged columns of variants measured larger there (§22.3).
        // (Maps, above, try the map form of a tagged column everywhere.)
        _ if sink.carried() => Ok(None),
        Ev::UnitVariant(_)
        | Ev::NewtypeVariant(_)
        | Ev::Open(Open::TupleVariant(..) | Open::StructVariant(..), _) => {
            tagged(sink, tape, vals, &ats, level, false)
        }
        _ => Ok(None),
    }
}

/// The end event of the struct opened at `ev` (`variant`: of the struct variant), or
/// `None` for any other event.
#[inline(always)]
fn struct_end(ev: Ev, variant: bool) -> Option<u32> {
    match ev {
        Ev::Open(Open::Struct(..), end) if !variant => Some(end),
        Ev::Open(Open::StructVariant(..), end) if variant => Some(end),
        _ => None,
    }
}

/// A struct column over the structs at events `ats` (`variant`: the fields of struct
/// variants): their fields taken from the tape as the rows of a batch (the plan a replay
/// of each struct into [`Batch::offer`] would give, without the replay or a second capture:
/// the cells refer to `tape`), one child column per planned field.
fn structs(
    sink: &Sink,
    tape: &Tape,
    ats: &[usize],
    level: u32,
    variant: bool,
) -> Result<Option<Nested>> {
    let n = ats.len();
    let struct_column = |children| Nested {
        class: Class::Struct,
        flags: 0,
        children: Vec::with_capacity(children),
        body: Vec::new(),
        strs: Vec::new(),
        strs_cost: 0,
        units: 0,
        row_cost: n * STRUCT_OVERHEAD,
        entropy: false,
    };
    if let Some(names) = flat(tape, ats, variant) {
        // Each child column reads its cells off the tape in place: no list of them.
        let mut kids = Vec::with_capacity(names.len());
        for (k, name) in names.into_iter().enumerate() {
            let cells = FlatField { tape, ats, k };
            let Some(c) = child(sink, tape, name.into(), n, None, cells, level + 1)? else {
                return Ok(None);
            };
            kids.push(c);
        }
        return siblings(sink, struct_column(kids.len()), kids).map(Some);
    }
    let Some((names, cols)) =
        uniform(tape, ats, variant).map_or_else(|| planned(tape, ats, variant), Some)
    else {
        return Ok(None);
    };
    let mut kids = Vec::with_capacity(names.len());
    for (name, (rows, cells)) in names.into_iter().zip(cols) {
        let Some(c) = child(
            sink,
            tape,
            name.into(),
            n,
            rows.as_deref(),
            cells,
            level + 1,
        )?
        else {
            return Ok(None);
        };
        kids.push(c);
    }
    siblings(sink, struct_column(kids.len()), kids).map(Some)
}

/// A struct column `out` with the child columns `kids`, a hex child's values as references
/// to a sibling's where that is smaller (`docs/SPEC.md` §22.1).
fn siblings(sink: &Sink, mut out: Nested, mut kids: Vec<Child<'_>>) -> Result<Nested> {
    if kids.iter().filter(|c| c.hex.is_some()).count() >= 2 {
        // A child's body: its bytes after the masks, or its per-value strings.
        let beat: Vec<usize> = kids
            .iter()
            .map(|c| c.bytes.len() - c.body_at + c.strs_cost)
            .collect();
        let hex = kids.iter_mut().map(|c| c.hex.take()).collect();
        for (i, r) in hex_refs(sink, hex, &beat)? {
            let c = &mut kids[i];
            c.bytes.truncate(c.body_at);
            c.bytes.extend_from_slice(&r.body);
            c.strs = Vec::new();
            c.strs_cost = 0;
            c.units = r.units;
            c.entropy = false;
            // Hex text now, whatever form the column had.
            c.decl.kind = c.decl.kind & !(numtext::DECIMAL | numtext::HEX) | numtext::HEX;
        }
    }
    for c in kids {
        out.add(c);
    }
    Ok(out)
}

/// A planned struct column's fields: their names and, per field, the rows that carry it
/// (`None`: every row) and its cells in row order.
type Fields = (Vec<&'static str>, Vec<(Option<Vec<u32>>, Vec<Cell>)>);

/// The names of the fields of the structs at events `ats` when every one is a struct of
/// primitives with the first one's fields (distinct, same order, none skipped): each
/// `2 × fields + 2` events (`Open`, then `Field` and one primitive value event per field,
/// `End`), so field `k`'s value of the struct at `at` is event `at + 2 + 2k`. `None` for
/// any other batch. One pass over the events, nothing gathered.
fn flat(tape: &Tape, ats: &[usize], variant: bool) -> Option<Vec<&'static str>> {
    let &first = ats.first()?;
    let end = struct_end(tape.evs[first], variant)?;
    let mut names = Vec::new();
    for ev in tape.evs.get(first + 1..end as usize)?.chunks(2) {
        let [Ev::Field(key), value] = ev else {
            return None;
        };
        if names.contains(key) || prim_cell(*value).is_none() {
            return None;
        }
        names.push(*key);
    }
    if names.is_empty() {
        return None;
    }
    let span = 2 * names.len() + 2;
    for &at in ats {
        let evs = tape.evs.get(at..at + span)?;
        if struct_end(evs[0], variant)? as usize != at + span - 1 {
            return None;
        }
        for (&name, ev) in names.iter().zip(evs[1..].chunks_exact(2)) {
            match ev[0] {
                Ev::Field(key) if same_name(name, key) && prim_cell(ev[1]).is_some() => {}
                _ => return None,
            }
        }
    }
    Some(names)
}

/// The common case of [`planned`] without its per-field plan bookkeeping: every struct has
/// the first one's fields, distinct, in the same order and none skipped, so each field is a
/// column present in every row (what the plan gives them). `None` for any other batch.
fn uniform(tape: &Tape, ats: &[usize], variant: bool) -> Option<Fields> {
    let &first = ats.first()?;
    let end = struct_end(tape.evs[first], variant)?;
    let mut names = Vec::new();
    let mut i = first + 1;
    while i < end as usize {
        let Ev::Field(key) = tape.evs[i] else {
            return None;
        };
        if names.contains(&key) {
            return None;
        }
        names.push(key);
        i = tape.next(i + 1);
    }
    if names.is_empty() {
        return None;
    }
    let mut cols: Vec<Vec<Cell>> = names
        .iter()
        .map(|_| Vec::with_capacity(ats.len()))
        .collect();
    for &at in ats {
        let end = struct_end(tape.evs[at], variant)?;
        let mut i = at + 1;
        for (&name, col) in names.iter().zip(&mut cols) {
            match tape.evs.get(i) {
                Some(&Ev::Field(key)) if i < end as usize && same_name(name, key) => {}
                _ => return None,
            }
            let (cell, next) = field_cell_next(tape, i + 1);
            col.push(cell);
            i = next;
        }
        if i != end as usize {
            return None;
        }
    }
    Some((names, cols.into_iter().map(|c| (None, c)).collect()))
}

/// The fields of the structs at events `ats` as [`Batch::offer`] would plan them (the
/// order rule, fields absent in some rows), or `None` when the plan refuses them.
fn planned(tape: &Tape, ats: &[usize], variant: bool) -> Option<Fields> {
    let mut sub = Batch::new(ats.len(), tape.check_keys);
    for &at in ats {
        let (name, len, end) = match tape.evs[at] {
            Ev::Open(Open::Struct(n, len), end) if !variant => (tape.name_at(n), len, end),
            Ev::Open(Open::StructVariant(v, len), end) if variant => {
                (tape.variant_name(v), len, end)
            }
            _ => return None,
        };
        let mut cursor = sub.start_row();
        let mut i = at + 1;
        while i < end as usize {
            match tape.evs[i] {
                Ev::Field(key) => {
                    let (cell, next) = field_cell_next(tape, i + 1);
                    sub.field(key, cell, &mut cursor);
                    i = next;
                }
                // The replay's `skip_field`, which the row probe ignores.
                Ev::Skip(_) => i += 1,
                _ => return None,
            }
        }
        let len = usize::try_from(len).unwrap_or(usize::MAX);
        if sub.end_row(name, len) != Offer::Taken {
            return None;
        }
    }
    if sub.order.is_empty() {
        return None;
    }
    let names = sub.order.iter().map(|&id| sub.cols[id as usize]).collect();
    let cols = sub
        .columns()
        .into_iter()
        .map(|present| {
            let rows =
                (present.len() < ats.len()).then(|| present.iter().map(|&(r, _)| r).collect());
            let cells = present
                .iter()
                .map(|&(_, i)| sub.cells[i as usize].cell)
                .collect();
            (rows, cells)
        })
        .collect();
    Some((names, cols))
}

/// [`field_cell`] of the value at event `at` and the event after it; a primitive that is
/// its own value (no `Some` or newtype around it, the common case) without the walk.
#[inline(always)]
pub(crate) fn field_cell_next(tape: &Tape, at: usize) -> (Cell, usize) {
    match prim_cell(tape.evs[at]) {
        Some(cell) => (cell, at + 1),
        None => (field_cell(tape, at), tape.next(at)),
    }
}

/// The cell of a struct field's value that is this one event (what [`field_cell`] gives
/// it), or `None` for an event that wraps or opens a value or is not a primitive cell.
#[inline(always)]
fn prim_cell(ev: Ev) -> Option<Cell> {
    Some(match ev {
        Ev::Bool(v) => Cell::Bool(v),
        Ev::I64(v) => Cell::Int(v as u64, v < 0),
        Ev::U64(v) => Cell::Int(v, false),
        Ev::F32(v) => Cell::F32(v),
        Ev::F64(v) => Cell::F64(v),
        Ev::Str(a, e) => Cell::Str(a, e),
        Ev::None => Cell::Null,
        _ => return None,
    })
}

/// A list column over the sequences, tuples and tuple structs at events `ats` (`variant`:
/// the fields of tuple variants): their lengths, then one element column over all their
/// items.
fn lists(
    sink: &Sink,
    tape: &Tape,
    ats: &[usize],
    level: u32,
    variant: bool,
) -> Result<Option<Nested>> {
    let mut lens = Vec::with_capacity(ats.len());
    let mut items = Vec::new();
    let mut row_cost = 0;
    for &at in ats {
        let end = match tape.evs[at] {
            Ev::Open(Open::Seq(_) | Open::Tuple(_) | Open::TupleStruct(..), end) if !variant => end,
            Ev::Open(Open::TupleVariant(..), end) if variant => end,
            _ => return Ok(None),
        };
        let Ev::End(n) = tape.evs[end as usize] else {
            return Ok(None);
        };
        lens.push(u64::from(n));
        // An array header: one byte up to 15 items, else three (estimated).
        row_cost += if n < 16 { 1 } else { 3 };
        let mut i = at + 1;
        for _ in 0..n {
            items.push(cell_at(tape, i));
            i = tape.next(i);
        }
    }
    // Lists as long as a container on average are coded one by one in row mode (a
    // container, or a packed sequence with its own codec, often smaller than one column
    // over all of them, which the row estimate cannot see): they stay residual. Lists of
    // structs below [`LONG_STRUCT_LISTS`] items on average are one column set instead: a
    // container per list pays its declaration and codec headers each time, which at these
    // lengths outweighs what a list's own codecs gain (`docs/SPEC.md` §22.2 has the
    // measurements).
    let structs = match items.first() {
        Some(&Cell::Other(at)) => unwrap(tape, at as usize)
            .is_some_and(|i| matches!(tape.evs[i], Ev::Open(Open::Struct(..), _))),
        _ => false,
    };
    let bound = if structs { LONG_STRUCT_LISTS } else { MIN_ROWS };
    if items.len() >= bound * ats.len() {
        return Ok(None);
    }
    let n = items.len();
    let Some(mut out) = lengths_column(sink, Class::List, lens, n, row_cost)? else {
        return Ok(None);
    };
    let Some(c) = child(sink, tape, "".into(), n, None, items, level + 1)? else {
        return Ok(None);
    };
    out.add(c);
    Ok(Some(out))
}

/// A map column over the maps at events `ats`: their entry counts, then a key column and a
/// value column over all their entries (in entry order); or their key sets (kind bit
/// [`KEY_SETS`]): each distinct key sequence once, each map naming its set, the key column
/// over the sets' keys; taken when the sets hold at most a quarter of the keys, else where
/// smaller by exact cost. A map whose keys and values do
/// not alternate (not what serde's `SerializeMap` writes) leaves the column as it was.
fn maps(sink: &Sink, tape: &Tape, ats: &[usize], level: u32) -> Result<Option<Nested>> {
    let mut lens = Vec::with_capacity(ats.len());
    let mut keys = Vec::new();
    let mut vals = Vec::new();
    let mut row_cost = 0;
    for &at in ats {
        let Some((_, n, mut i)) = tape.map_at(at as u32) else {
            return Ok(None);
        };
        lens.push(n as u64);
        // A map header: one byte up to 15 entries, else three (estimated).
        row_cost += if n < 16 { 1 } else { 3 };
        for _ in 0..n {
            keys.push(cell_at(tape, i));
            i = tape.next(i);
            vals.push(cell_at(tape, i));
            i = tape.next(i);
        }
    }
    let n = keys.len();
    let sets = KeySets::of(tape, &lens, &keys);
    // Sets that hold at most a quarter of the keys are taken without pricing the lengths
    // form: its key column is the costly one to build, and the larger one there.
    let (decisive, priced) = match sets {
        Some(s) if s.keys.len() * 4 <= n => (Some(s), None),
        s => (None, s),
    };
    let key_sets = match decisive {
        Some(sets) => sets.columns(sink, tape, n, level)?,
        None => None,
    };
    let (mut out, key_col) = match key_sets {
        Some((head, c)) => (Nested { row_cost, ..head }, c),
        None => {
            let Some(out) = lengths_column(sink, Class::Map, lens, n, row_cost)? else {
                return Ok(None);
            };
            let Some(key_col) = child(sink, tape, "".into(), n, None, keys, level + 1)? else {
                return Ok(None);
            };
            match priced {
                Some(sets) => sets.cheaper(sink, tape, n, level, (out, key_col))?,
                None => (out, key_col),
            }
        }
    };
    out.add(key_col);
    let Some(c) = child(sink, tape, "".into(), n, None, vals, level + 1)? else {
        return Ok(None);
    };
    out.add(c);
    Ok(Some(out))
}

/// A map column's head and key column.
type MapHead<'t> = (Nested, Child<'t>);

/// The key sets of a map column's maps (`docs/SPEC.md` §22.2): each distinct key
/// sequence once, in the order first seen, and each map's set.
struct KeySets {
    /// Per set, its length.
    lens: Vec<u64>,
    /// Per map, its set.
    of_map: Vec<u64>,
    /// The sets' keys, set after set (the key column's cells).
    keys: Vec<Cell>,
    /// Bytes of the string keys of all entries (the decoder charges them once the keys are
    /// repeated per entry).
    key_bytes: u64,
}

impl KeySets {
    /// The key sets of maps of `lens` entries whose keys are `keys` (all maps' in order);
    /// `None` when a key is not a string, an integer or a bool (a null, a float, a compound)
    /// or the sets hold as many keys as the maps (nothing to save).
    fn of(tape: &Tape, lens: &[u64], keys: &[Cell]) -> Option<KeySets> {
        #[derive(Hash, PartialEq, Eq)]
        enum Id<'a> {
            Str(&'a [u8]),
            Int(u64, bool),
            Bool(bool),
        }
        if lens.len() < 2 {
            return None;
        }
        let mut ids = hashbrown::HashMap::<Id<'_>, u32>::new();
        let mut seq = Vec::with_capacity(keys.len());
        let mut key_bytes = 0u64;
        for &k in keys {
            let id = match k {
                Cell::Str(a, b) => {
                    key_bytes += u64::from(b - a);
                    Id::Str(tape.arena.get(a as usize..b as usize)?)
                }
                Cell::Int(v, neg) => Id::Int(v, neg),
                Cell::Bool(b) => Id::Bool(b),
                _ => return None,
            };
            let next = ids.len() as u32;
            seq.push(*ids.entry(id).or_insert(next));
        }
        let mut sets = hashbrown::HashMap::<&[u32], u64>::new();
        let mut out = KeySets {
            lens: Vec::new(),
            of_map: Vec::with_capacity(lens.len()),
            keys: Vec::new(),
            key_bytes,
        };
        let mut at = 0;
        for &l in lens {
            let end = at + l as usize;
            let next = sets.len() as u64;
            let set = *sets.entry(&seq[at..end]).or_insert_with(|| {
                out.lens.push(l);
                out.keys.extend_from_slice(&keys[at..end]);
                next
            });
            out.of_map.push(set);
            at = end;
        }
        (out.keys.len() < keys.len()).then_some(out)
    }

    /// The map column of `entries` entries in all before its key column (`uvarint(S)`,
    /// the sets' lengths, the maps' sets), and its key column over the sets' keys; `None`
    /// when a column cannot be written so.
    fn columns<'t>(
        self,
        sink: &Sink,
        tape: &'t Tape,
        entries: usize,
        level: u32,
    ) -> Result<Option<MapHead<'t>>> {
        let mut body = Vec::new();
        write_uvarint(&mut body, self.lens.len() as u64);
        let n = self.keys.len();
        // The decoder charges every key of the sets, then every entry of the maps and its
        // key's bytes.
        let mut units = ((n + entries) as u64)
            .saturating_mul(ELEMENT_CHARGE)
            .saturating_add(self.key_bytes);
        let mut entropy = false;
        for vals in [self.lens, self.of_map] {
            let leaf = uint_body(sink, vals)?;
            let Body::Bytes(b) = leaf.body else {
                return Ok(None);
            };
            entropy |= b.first() == Some(&tags::ENTROPY);
            units = units.saturating_add(leaf.units);
            body.extend_from_slice(&b);
        }
        let Some(mut c) = child(sink, tape, "".into(), n, None, self.keys, level + 1)? else {
            return Ok(None);
        };
        // Row mode writes every key, a repeated one as a reference of a byte or more.
        c.row_cost += entries - n;
        let head = Nested {
            class: Class::Map,
            flags: KEY_SETS,
            children: Vec::with_capacity(2),
            body,
            strs: Vec::new(),
            strs_cost: 0,
            units,
            row_cost: 0,
            entropy,
        };
        Ok(Some((head, c)))
    }

    /// The lengths form `lengths` (the lengths column and the key column over `entries`
    /// entries) or these sets, whichever is smaller by exact bytes (the value column is the
    /// same in both); the row-mode estimate stays the lengths form's.
    fn cheaper<'t>(
        self,
        sink: &Sink,
        tape: &'t Tape,
        entries: usize,
        level: u32,
        lengths: MapHead<'t>,
    ) -> Result<MapHead<'t>> {
        let (out, key_col) = lengths;
        let Some((head, c)) = self.columns(sink, tape, entries, level)? else {
            return Ok((out, key_col));
        };
        if head.body.len() + c.bytes.len() + c.strs_cost
            >= out.body.len() + key_col.bytes.len() + key_col.strs_cost
        {
            return Ok((out, key_col));
        }
        let head = Nested {
            row_cost: out.row_cost,
            ..head
        };
        let c = Child {
            row_cost: key_col.row_cost,
            ..c
        };
        Ok((head, c))
    }
}

/// The body of a uint column of `vals` (a list's or map's lengths, a tagged column's tags).
fn uint_body(sink: &Sink, vals: Vec<u64>) -> Result<Leaf> {
    leaf_body(
        sink,
        Class::Int { neg: false },
        vals,
        &[],
        None,
        StrForms::Blocks,
    )
}

/// A list or map column (`class`) before its element columns: the lengths column of
/// `lens` (one per value), `total` elements or entries in all.
fn lengths_column(
    sink: &Sink,
    class: Class,
    lens: Vec<u64>,
    total: usize,
    row_cost: usize,
) -> Result<Option<Nested>> {
    let lengths = uint_body(sink, lens)?;
    let (Body::Bytes(lengths), units) = (lengths.body, lengths.units) else {
        return Ok(None);
    };
    let entropy = lengths.first() == Some(&tags::ENTROPY);
    Ok(Some(Nested {
        class,
        flags: 0,
        children: Vec::with_capacity(2),
        body: lengths,
        strs: Vec::new(),
        strs_cost: 0,
        // The decoder charges every element (entry) when it reads the lengths.
        units: units.saturating_add((total as u64).saturating_mul(ELEMENT_CHARGE)),
        row_cost,
        entropy,
    }))
}

/// A tagged column (`docs/SPEC.md` §22.3) over the values at events `ats` (`vals`: their
/// cells, which point where each value's events start, `Some`s and newtypes included):
/// one-entry maps with a string key (`map`), else unit, newtype, tuple and struct variants
/// each behind the same number of `Some`s (none or one: kind bit [`WRAPPED`]). A variant per
/// distinct name in order of first use, a tag per value, then one child column per variant
/// with a payload; `None` for anything else (the column stays as it was).
fn tagged(
    sink: &Sink,
    tape: &Tape,
    vals: &[Cell],
    ats: &[usize],
    level: u32,
    map: bool,
) -> Result<Option<Nested>> {
    let min_intern = sink.opts().intern_min_len() as usize;
    // Row mode writes a name inline below the intern length, else at best a 1-byte
    // reference: the estimate stays below the real bytes.
    let name_cost = |s: &str| if s.len() < min_intern { 1 + s.len() } else { 1 };
    // hashbrown's default hasher, as the Dense tables use: std's SipHash was most of the
    // lookup in a batch of a few variants.
    let mut ids: hashbrown::HashMap<&str, u32> = hashbrown::HashMap::new();
    let mut names: Vec<Cow<'static, str>> = Vec::new();
    let mut forms: Vec<Payload> = Vec::new();
    let mut payloads: Vec<Vec<Cell>> = Vec::new();
    let mut tag_vals = Vec::with_capacity(ats.len());
    let mut somes = None;
    let mut row_cost = 0usize;
    for (c, &i) in vals.iter().zip(ats) {
        let Cell::Other(from) = *c else {
            return Ok(None);
        };
        // The name, the `&'static str` serde passed for a variant's, the payload's form and
        // event and the row-mode bytes around the name and payload.
        let (name, fixed, form, payload, around): (&str, _, _, Option<usize>, usize) = if map {
            // A map header before the key (a `Some` around a map has no wrapper).
            match tape.map_at(i as u32) {
                Some((announced, 1, first)) if announced.is_none_or(|l| l == 1) => {
                    match tape.evs[first] {
                        Ev::Str(a, e) => (tape.str(a, e), None, Payload::Value, Some(first + 1), 1),
                        _ => return Ok(None),
                    }
                }
                _ => return Ok(None),
            }
        } else {
            // Row mode writes `F2 05` before a variant inside a `Some`: one at most, and
            // the same on every value (the kind bit says it for the whole column).
            let n = tape.evs[from as usize..i]
                .iter()
                .filter(|e| matches!(e, Ev::Some))
                .count();
            if n > 1 || somes.is_some_and(|s| s != n) {
                return Ok(None);
            }
            somes = Some(n);
            // `F2 06 name`, `F2 07 name payload`, `F2 08 name array` or `F2 09 name
            // map`, after the wrapper; the fields of a tuple or struct variant are the
            // compound its `Open` starts.
            let (v, form, payload) = match tape.evs[i] {
                Ev::UnitVariant(v) => (v, Payload::Unit, None),
                Ev::NewtypeVariant(v) => (v, Payload::Value, Some(i + 1)),
                Ev::Open(Open::TupleVariant(v, _), _) => (v, Payload::Tuple, Some(i)),
                Ev::Open(Open::StructVariant(v, _), _) => (v, Payload::Struct, Some(i)),
                _ => return Ok(None),
            };
            let name = tape.variant_name(v);
            (name, Some(name), form, payload, 2 + 2 * n)
        };
        let id = match ids.get(name) {
            Some(&id) => id,
            None => {
                let id = names.len() as u32;
                ids.insert(name, id);
                names.push(fixed.map_or_else(|| Cow::Owned(name.to_owned()), Cow::Borrowed));
                forms.push(form);
                payloads.push(Vec::new());
                id
            }
        };
        let k = id as usize;
        // A name used as two kinds of variant cannot be one variant.
        if forms[k] != form {
            return Ok(None);
        }
        match (form, payload) {
            (Payload::Value, Some(p)) => payloads[k].push(field_cell(tape, p)),
            (_, Some(p)) => payloads[k].push(Cell::Other(p as u32)),
            (_, None) => {}
        }
        tag_vals.push(u64::from(id));
        row_cost += around + name_cost(name);
    }
    // Each variant declares a name and a kind byte and its own column: the layout pays
    // when names repeat. Fewer than two values a variant (one-entry maps that happen to be
    // alone in a short batch, RTB's `ext`) stay as they were: the exact cost of a short
    // batch sees the declaration, not what the rows would have left in the session state.
    if tag_vals.len() < 2 * names.len() {
        return Ok(None);
    }
    let tags = uint_body(sink, tag_vals)?;
    let (Body::Bytes(body), units) = (tags.body, tags.units) else {
        return Ok(None);
    };
    let entropy = body.first() == Some(&tags::ENTROPY);
    let flags = match (map, somes) {
        (true, _) => MAP_FORM,
        (false, Some(1)) => WRAPPED,
        _ => 0,
    };
    let mut out = Nested {
        class: Class::Tagged,
        flags,
        children: Vec::with_capacity(names.len()),
        body,
        strs: Vec::new(),
        strs_cost: 0,
        units,
        row_cost,
        entropy,
    };
    for ((name, form), cells) in names.into_iter().zip(forms).zip(payloads) {
        let c = match form {
            Payload::Unit => {
                out.children.push(Decl {
                    name,
                    kind: RESIDUAL,
                    children: Vec::new(),
                });
                continue;
            }
            Payload::Value => child(sink, tape, name, cells.len(), None, cells, level + 1)?,
            Payload::Tuple | Payload::Struct => {
                variant_fields(sink, tape, name, &cells, level + 1)?
            }
        };
        let Some(c) = c else {
            return Ok(None);
        };
        out.add(c);
    }
    Ok(Some(out))
}

/// What a tagged column's variant carries.
#[derive(Copy, Clone, PartialEq)]
enum Payload {
    /// Nothing (a unit variant).
    Unit,
    /// One value (a newtype variant, a one-entry map's value).
    Value,
    /// The fields of a tuple variant.
    Tuple,
    /// The fields of a struct variant.
    Struct,
}

/// The child column of a tuple or struct variant (`docs/SPEC.md` §22.3, kind bit
/// [`VARIANT_FIELDS`]): the fields of the variants opened at `cells` (never null, so no
/// masks) as a list column (a tuple variant's) or a struct column (a struct variant's).
fn variant_fields(
    sink: &Sink,
    tape: &Tape,
    name: Cow<'static, str>,
    cells: &[Cell],
    level: u32,
) -> Result<Option<Child<'static>>> {
    if level >= MAX_LEVELS {
        return Ok(None);
    }
    let mut ats = Vec::with_capacity(cells.len());
    for c in cells {
        let Cell::Other(at) = *c else {
            return Ok(None);
        };
        ats.push(at as usize);
    }
    let Some(&first) = ats.first() else {
        return Ok(None);
    };
    let n = match tape.evs[first] {
        Ev::Open(Open::TupleVariant(..), _) => lists(sink, tape, &ats, level, true)?,
        Ev::Open(Open::StructVariant(..), _) => structs(sink, tape, &ats, level, true)?,
        _ => None,
    };
    Ok(n.map(|n| Child {
        decl: Decl {
            name,
            kind: n.class.nibble() | VARIANT_FIELDS,
            children: n.children,
        },
        bytes: n.body,
        body_at: 0,
        hex: None,
        strs: n.strs,
        strs_cost: n.strs_cost,
        units: n.units,
        row_cost: n.row_cost,
        entropy: n.entropy,
    }))
}

impl Nested {
    fn add(&mut self, c: Child<'_>) {
        append_body(&mut self.body, &mut self.strs, c.bytes, c.strs);
        self.strs_cost += c.strs_cost;
        self.units = self.units.saturating_add(c.units);
        self.row_cost += c.row_cost;
        self.entropy |= c.entropy;
        self.children.push(c.decl);
    }
}

/// The present cells of a child column, in slot order: read more than once (the scan, the
/// null count and mask), then, for a column that is not a leaf, its non-null cells.
trait Cells {
    fn len(&self) -> usize;
    fn iter(&self) -> impl Iterator<Item = Cell> + Clone + '_;
    fn non_null(self) -> Vec<Cell>;
}

impl Cells for Vec<Cell> {
    fn len(&self) -> usize {
        self.len()
    }
    fn iter(&self) -> impl Iterator<Item = Cell> + Clone + '_ {
        self.as_slice().iter().copied()
    }
    /// In place: no second list while the first is alive (the encoder's peak memory).
    fn non_null(mut self) -> Vec<Cell> {
        self.retain(|c| *c != Cell::Null);
        self
    }
}

/// Field `k` of the structs at events `ats`, which [`flat`] took: read off the tape in
/// place, no list of them.
struct FlatField<'a> {
    tape: &'a Tape,
    ats: &'a [usize],
    k: usize,
}

impl Cells for FlatField<'_> {
    fn len(&self) -> usize {
        self.ats.len()
    }
    fn iter(&self) -> impl Iterator<Item = Cell> + Clone + '_ {
        let (evs, k) = (&self.tape.evs, self.k);
        self.ats.iter().map(move |&at| {
            let v = at + 2 + 2 * k;
            // `flat` checked that every value there is one primitive event (an `Other`
            // would only leave the column residual).
            prim_cell(evs[v]).unwrap_or(Cell::Other(v as u32))
        })
    }
    fn non_null(self) -> Vec<Cell> {
        self.iter().filter(|c| *c != Cell::Null).collect()
    }
}

/// A child column `name` over `n` slots: `present` the cells of the slots that carry it,
/// in slot order, and `rows` those slots (`None`: every slot); its masks, then a leaf body
/// or its own children.
fn child<'t>(
    sink: &Sink,
    tape: &'t Tape,
    name: Cow<'static, str>,
    n: usize,
    rows: Option<&[u32]>,
    present: impl Cells,
    level: u32,
) -> Result<Option<Child<'t>>> {
    let len = present.len();
    let optional = len < n;
    let mut scan = scan_cells(present.iter(), len, &tape.arena);
    // The scan counts the nulls of a leaf column.
    let nulls = match scan.class {
        Class::Residual => present.iter().filter(|c| *c == Cell::Null).count(),
        _ => scan.nulls,
    };
    let mut bytes = Vec::new();
    if let Some(rows) = rows.filter(|_| optional) {
        bytes.extend_from_slice(&mask(n, rows.iter().map(|&r| r as usize)));
    }
    if nulls > 0 {
        let set = present.iter().enumerate().filter(|(_, c)| *c != Cell::Null);
        bytes.extend_from_slice(&mask(len, set.map(|(k, _)| k)));
    }
    let min_intern = sink.opts().intern_min_len() as usize;
    let mut text = Form::Plain;
    let mut flags = 0;
    let mut strs = Vec::new();
    let mut strs_cost = 0;
    let mut body_at = 0;
    let mut hex = None;
    let (class, children, units, row_cost, entropy) = if scan.class != Class::Residual {
        // Where the intern table outlives the message, strings may be per-value, and a
        // string the table holds is a reference on first sight (as for a top-level column).
        // In a one-shot message they may be per-value too (the strings they define are
        // references for the columns and rows after them), the dictionary competing on its
        // size alone, except under the entropy stage, which codes blocks and not per-value
        // strings (OTLP demo 1000 Compression grew 21 bytes with them). In a session the
        // dictionary stays gated by the column's head: a block chosen for this message
        // leaves its values out of the intern table for the next (the OTLP log stream of
        // batch 1000 grew 4.3 % without the gate).
        let carried = sink.carried();
        let known = |s: &[u8]| sink.dense().is_some_and(|d| d.interned(s));
        let known: Option<Known<'_>> =
            (carried && sink.dense().is_some_and(|d| d.entries() > 0)).then_some(&known);
        let mut census =
            (scan.class == Class::Str).then(|| Census::with_known(&scan.strs, min_intern, known));
        let forms = if carried {
            StrForms::PerValue
        } else if sink.opts().feature_bits().contains(Features::ENTROPY) {
            StrForms::Blocks
        } else {
            StrForms::PerValueAnyDict
        };
        let leaf = leaf_body(
            sink,
            scan.class,
            scan.vals,
            &scan.strs,
            census.as_mut(),
            forms,
        )?;
        text = leaf.text;
        body_at = bytes.len();
        let shape = hex_shape(sink, &scan.strs, &leaf);
        let per_value = census.as_mut().map_or(0, Census::per_value);
        let entropy = match leaf.body {
            Body::Bytes(body) => {
                let entropy = body.first() == Some(&tags::ENTROPY);
                append(&mut bytes, body);
                entropy
            }
            Body::PerValue => {
                let cells = present.iter().filter(|c| *c != Cell::Null).collect();
                strs.push(Deferred {
                    at: bytes.len(),
                    cells,
                });
                strs_cost = per_value;
                false
            }
            Body::Rows | Body::Mixed(..) => return Ok(None),
        };
        drop(census);
        hex = shape
            .map(|(sh, referable)| (HexCol::new(sh, std::mem::take(&mut scan.strs)), referable));
        (
            scan.class,
            Vec::new(),
            leaf.units,
            scan.num_cost + per_value,
            entropy,
        )
    } else {
        let vals = present.non_null();
        let Some(n) = nested(sink, tape, &vals, level)? else {
            return Ok(None);
        };
        append_body(&mut bytes, &mut strs, n.body, n.strs);
        strs_cost = n.strs_cost;
        flags = n.flags;
        (n.class, n.children, n.units, n.row_cost + nulls, n.entropy)
    };
    let mut kind = class.nibble() | text.bits() | flags;
    if optional {
        kind |= OPTIONAL;
    }
    if nulls > 0 {
        kind |= NULLABLE;
    }
    Ok(Some(Child {
        decl: Decl {
            name,
            kind,
            children,
        },
        bytes,
        body_at,
        hex,
        strs,
        strs_cost,
        units,
        row_cost,
        entropy,
    }))
}

/// [`append`]s `more` and its deferred strings `more_strs` (offsets into `more`) to `out`
/// and `strs`.
fn append_body(
    out: &mut Vec<u8>,
    strs: &mut Vec<Deferred>,
    more: Vec<u8>,
    more_strs: Vec<Deferred>,
) {
    let shift = out.len();
    strs.extend(more_strs.into_iter().map(|d| Deferred {
        at: d.at + shift,
        cells: d.cells,
    }));
    append(out, more);
}

/// Appends `more` to `out`: moved when `out` is empty (a child without masks, a struct's
/// first child), so a column's bytes are not copied once more at each level.
fn append(out: &mut Vec<u8>, more: Vec<u8>) {
    if out.is_empty() {
        *out = more;
    } else {
        out.extend_from_slice(&more);
    }
}

/// The column-shape table entries of a declared column and its children, in declaration
/// order: a struct or tagged column's entry is `uvarint(child count)` then its name (the
/// count makes the flat list a tree again), a list's element entry has an empty name.
pub(crate) fn shape_entries<'n>(
    name: &'n str,
    kind: u8,
    children: &'n [Decl],
    out: &mut Vec<(Cow<'n, [u8]>, u8)>,
) {
    if matches!(
        Class::from_nibble(kind & 0x0F),
        Some(Class::Struct | Class::Tagged)
    ) {
        let mut e = Vec::with_capacity(name.len() + 1);
        write_uvarint(&mut e, children.len() as u64);
        e.extend_from_slice(name.as_bytes());
        out.push((Cow::Owned(e), kind));
    } else {
        out.push((Cow::Borrowed(name.as_bytes()), kind));
    }
    for c in children {
        shape_entries(&c.name, c.kind, &c.children, out);
    }
}

#[cfg(test)]
mod tests;
