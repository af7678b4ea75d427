//! Writing a captured [`Batch`](super::plan::Batch): per column the codec and its exact size, the size gate
//! against the row form, then the container (`docs/SPEC.md` §22), or a
//! replay of the rows through the real serializer when the batch does not qualify.
//!
//! It writes through the encoder's [`Sink`] and serializes captured values through a
//! [`ValueWriter`], which the serializer implements: columnar does not depend on `ser`.
//!
//! Column bodies are what Balanced writes for a `Vec` of the column's values: integers,
//! floats and bools through the QPack packer when it is smaller, else a plain array; strings
//! as a string block (`codec::strings::pick`) or, when that is not smaller, as per-value
//! strings through the intern table; a column of canonical decimal or hex text as integers or
//! packed bytes (`numtext`) when that is smaller than both. With the column index no column is per-value, so an
//! indexed column never touches the Dense state and a reader may jump over it.
//!
//! The gate (an estimate): a column stays a column only if its masks and body are not larger
//! than its cells in row mode (numbers in their Speed forms, strings by the per-value
//! estimate); other columns become residual. The batch is written as a container when at
//! least one column remains and the column-shape table can take its shape. Below 16 rows
//! (`NESTED_COLUMNS`) only a batch with a kept struct or list column is a candidate, and it
//! becomes a container only when that is strictly smaller than its rows by exact cost
//! ([`Sink::trial`]: the rows are written, measured and taken back).

use serde::Serialize;

use std::borrow::Cow;

use super::body::{Body, StrForms, hex_refs, hex_shape, leaf_body};
use super::nested::{self, shape_entries};
use super::numtext::{Form, HexCol};
use super::plan::Rows;
use super::tape::{Cell, CellRef, Ev, EvRef, Open, Tape};
use super::{Class, Decl, MIN_ROWS, NULLABLE, OPTIONAL, mask, mask_len, nested_enabled};
use crate::codec::cursor::ELEMENT_CHARGE;
use crate::codec::strings::Census;
use crate::dense::col_shape_key;
use crate::error::Result;
use crate::options::Features;
use crate::sink::{Header, Sink};
use crate::wire::form::header_bytes;
use crate::wire::tags;

/// The serializer as the columnar writer sees it: its sink, and the serde path for a captured
/// value (a residual cell, a replayed row). Static dispatch: the writer is generic over it.
pub(crate) trait ValueWriter {
    /// The encoder's output.
    fn sink(&mut self) -> &mut Sink;
    /// Serializes `v` as the serializer would at this point of the output.
    fn write_value<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<()>;
    /// A `Value` variant's payload is expected next (the serializer holds a pending kind
    /// that the next string or map consumes), so a captured map is not written directly.
    fn variant_pending(&self) -> bool;
    /// Writes the captured sequence at event `at` of `tape` as its replay through serde
    /// would, when its elements are structs whose rows can be read off `tape` (no second
    /// capture, [`Batch::rows_of`](super::plan::Batch::rows_of)); `false`, with nothing
    /// written, when the replay has to go through serde.
    fn write_struct_seq(&mut self, tape: &Tape, at: usize) -> Result<bool>;
    /// Writes row `r` of `b` as its replay through serde would (`serialize_struct`, each
    /// field's captured value, `end`), its lists of structs read off the tape where
    /// [`write_struct_seq`](Self::write_struct_seq) takes them.
    fn write_row(&mut self, b: &Rows<'_>, r: usize) -> Result<()>;
}

/// One column of the container being planned.
struct ColPlan {
    name: &'static str,
    class: Class,
    /// A string column's number-text form (kind bits `10`/`20`).
    text: Form,
    optional: bool,
    nullable: bool,
    body: Body,
    /// Decoded output the decoder charges for a [`Body::Bytes`] body (`docs/SPEC.md` §13);
    /// per-value strings and residual cells are counted as they are written.
    units: u64,
    /// A struct, list or tagged column's child columns (their declaration).
    children: Vec<Decl>,
    /// A tagged column's kind bits `10`/`20` (`docs/SPEC.md` §22.3).
    flags: u8,
    /// A struct or list column's body holds an entropy-coded block.
    entropy: bool,
}

impl ColPlan {
    fn kind(&self) -> u8 {
        let mut k = self.class.nibble() | self.text.bits() | self.flags;
        if self.optional {
            k |= OPTIONAL;
        }
        if self.nullable {
            k |= NULLABLE;
        }
        k
    }
}

/// Writes a residual cell as its replay would ([`CellRef`]), a captured map (labels,
/// attributes) without the replay's serde calls: the bytes of `Compound` for a map without
/// map shapes, its header with the entry count, then each key and value, strings straight
/// through the string hook.
pub(crate) fn write_residual<W: ValueWriter>(w: &mut W, cell: &Cell, tape: &Tape) -> Result<()> {
    if let Cell::Other(at) = *cell
        && !w.sink().map_shapes()
        && !w.variant_pending()
        && let Some((announced, n, first)) = tape.map_at(at)
        && announced.is_none_or(|l| l == n)
    {
        let sink = w.sink();
        sink.enter()?;
        sink.write_header(Header::Map, n)?;
        sink.count_output(n as u64);
        let mut i = first;
        for _ in 0..2 * n {
            i = match tape.evs[i] {
                Ev::Str(a, e) => {
                    w.sink().write_str_value(tape.str(a, e))?;
                    i + 1
                }
                _ => {
                    w.write_value(&EvRef { tape, at: i as u32 })?;
                    tape.next(i)
                }
            };
        }
        w.sink().leave(1);
        return Ok(());
    }
    // A list of structs (an inner `Vec` of rows): its rows read in place.
    if let Cell::Other(at) = *cell
        && matches!(tape.evs[at as usize], Ev::Open(Open::Seq(_), _))
        && w.write_struct_seq(tape, at as usize)?
    {
        return Ok(());
    }
    w.write_value(&CellRef { cell, tape })
}

/// Ends the sequence of captured rows `b` whose array header starts at `start` and takes
/// `header_len` bytes: writes the columnar container in place of the header and returns
/// `true`, or replays the rows after the header (row mode) and returns `false`.
pub(crate) fn finish_batch<W: ValueWriter>(
    w: &mut W,
    b: &Rows<'_>,
    start: usize,
    header_len: usize,
) -> Result<bool> {
    let cols = b.columns();
    let Some((plans, shape)) = plan_container(w.sink(), b, &cols)? else {
        replay_rows(w, b)?;
        return Ok(false);
    };
    if b.rows.len() < MIN_ROWS {
        // Each open trial writes what is inside it once more: past a few nested levels the
        // batch stays rows (never larger), so deep trees encode in linear time.
        if w.sink().trials_open() >= MAX_NESTED_TRIALS {
            replay_rows(w, b)?;
            return Ok(false);
        }
        return by_exact_cost(w, b, start, header_len, &cols, &plans, shape);
    }
    w.sink().truncate(start);
    write_container(w, b, &cols, &plans, shape)?;
    Ok(true)
}

/// Trials (small batches being measured) that may be open around another one.
const MAX_NESTED_TRIALS: u32 = 2;

/// Captured events above which a batch below 16 rows stays rows untried where the Dense
/// state outlives the message (a session, a pre-shared dictionary). There a whole message's
/// resource list as one container is smaller by the message's exact cost, but its child
/// string blocks leave fewer strings in the intern table for the messages after it (the OTLP
/// trace stream of batch 100 grew 10.5 %, logs 6.7 %). A one-shot message tries every small
/// batch, bounded by [`MAX_NESTED_TRIALS`]: that is what makes issue #27's 40-span trace one
/// container (Balanced 7 812 → 5 636 bytes) at 2.2 % more instructions on OTLP 4×512.
/// Above it a small batch whose only column of children is a map column stays rows untried
/// everywhere (`plan_container`).
const MAX_SMALL_EVENTS: usize = 4096;

/// A batch below 16 rows (`docs/SPEC.md` §22.2) becomes a container only when that is
/// strictly smaller than its rows, by exact cost: the rows are written, measured and taken
/// back (bytes and session state, [`Sink::trial`]), then the container is written in place
/// of the header; when it is not smaller it is taken back and the rows written again.
fn by_exact_cost<W: ValueWriter>(
    w: &mut W,
    b: &Rows<'_>,
    start: usize,
    header_len: usize,
    cols: &[&[(u32, u32)]],
    plans: &[ColPlan],
    shape: Option<u32>,
) -> Result<bool> {
    let header = header_bytes(Header::Array, b.rows.len())?.as_slice().len();
    let trial = w.sink().trial(start);
    // On an error the trial is closed too (the error goes up; the count stays right).
    if let Err(e) = replay_rows(w, b) {
        w.sink().trial_rollback(trial);
        return Err(e);
    }
    // The header as the sequence's end leaves it: the true count in its smallest form.
    let rows = w.sink().len() - start - header_len + header;
    w.sink().trial_rollback(trial);
    let trial = w.sink().trial(start);
    w.sink().truncate(start);
    if let Err(e) = write_container(w, b, cols, plans, shape) {
        w.sink().trial_rollback(trial);
        return Err(e);
    }
    if w.sink().len() - start < rows {
        w.sink().trial_keep(trial);
        return Ok(true);
    }
    w.sink().trial_rollback(trial);
    replay_rows(w, b)?;
    Ok(false)
}

/// Writes the captured rows as plain elements, each as the serde calls it made would write
/// it (so the bytes equal direct serialization), its lists of structs read off the tape.
pub(crate) fn replay_rows<W: ValueWriter>(w: &mut W, b: &Rows<'_>) -> Result<()> {
    for r in 0..b.rows.len() {
        w.write_row(b, r)?;
    }
    Ok(())
}

/// The column plans and the shape id to reuse (`None`: declare), or `None` when the
/// batch stays in row mode.
#[allow(clippy::type_complexity)]
fn plan_container(
    sink: &Sink,
    b: &Rows<'_>,
    cols: &[&[(u32, u32)]],
) -> Result<Option<(Vec<ColPlan>, Option<u32>)>> {
    let m = b.rows.len();
    let Some(dense) = sink.dense() else {
        return Ok(None);
    };
    let nested_on = nested_enabled(sink.opts());
    // Below 16 rows only a batch with a struct or list column may be a container
    // (`docs/SPEC.md` §22.2): a column whose cells are all captured values is the candidate.
    let small = m < MIN_ROWS;
    if small
        && ((b.events > MAX_SMALL_EVENTS && sink.carried())
            || !(nested_on && cols.iter().any(|c| all_other(b, c))))
    {
        return Ok(None);
    }
    let min_intern = sink.opts().intern_min_len() as usize;
    // In a session a value the table holds from earlier messages is a reference on its
    // first sight in the column (a one-shot message does not ask: its table holds only
    // what came before in the message, rarely a column's values, and asking costs a hash
    // of each distinct value).
    let known = |s: &[u8]| dense.interned(s);
    let known: Option<crate::codec::strings::Known<'_>> =
        (sink.carried() && dense.entries() > 0).then_some(&known);
    let mut plans = Vec::with_capacity(b.order.len());
    // Each column's hex text (a column left in the rows may still refer to a sibling), the
    // size a body with references must be below, and its nulls.
    let mut hex = Vec::with_capacity(b.order.len());
    let mut beat = Vec::with_capacity(b.order.len());
    let mut nullable = Vec::with_capacity(b.order.len());
    for (j, &present) in cols.iter().enumerate() {
        let name = b.cols[b.order[j] as usize];
        let optional = present.len() < m;
        let mut scan = b.scan(present);
        let mut class = scan.class;
        let mut census =
            (class == Class::Str).then(|| Census::with_known(&scan.strs, min_intern, known));
        let leaf = leaf_body(
            sink,
            class,
            scan.vals,
            &scan.strs,
            census.as_mut(),
            StrForms::PerValue,
        )?;
        let hexc = hex_shape(sink, &scan.strs, &leaf);
        if class == Class::Residual
            && nested_on
            && let Some(n) = nested::plan_top(sink, b, present)?
        {
            // A struct or list column: kept when its masks and body are not larger than
            // its values in row mode (an estimate), else residual as before.
            let nulls = present
                .iter()
                .filter(|&&(_, i)| b.cells[i as usize].cell == Cell::Null)
                .count();
            let masks = if optional { mask_len(m) } else { 0 }
                + if nulls > 0 {
                    mask_len(present.len())
                } else {
                    0
                };
            if masks + n.body.len() + n.strs_cost <= n.row_cost + nulls {
                plans.push(ColPlan {
                    name,
                    class: n.class,
                    text: Form::Plain,
                    optional,
                    nullable: nulls > 0,
                    body: if n.strs.is_empty() {
                        Body::Bytes(n.body)
                    } else {
                        Body::Mixed(n.body, n.strs)
                    },
                    units: n.units,
                    children: n.children,
                    flags: n.flags,
                    entropy: n.entropy,
                });
                hex.push(None);
                beat.push(0);
                nullable.push(false);
                continue;
            }
        }
        let mut plan = ColPlan {
            name,
            class,
            text: leaf.text,
            optional,
            nullable: scan.nulls > 0 && class != Class::Residual,
            body: leaf.body,
            units: leaf.units,
            children: Vec::new(),
            flags: 0,
            entropy: false,
        };
        let body_cost = match &plan.body {
            Body::Rows => 0,
            Body::Bytes(v) => v.len(),
            Body::PerValue => census.as_mut().map_or(0, Census::per_value),
            // A leaf's body is never mixed (a nested column's was kept above).
            Body::Mixed(v, _) => v.len(),
        };
        let masks = if optional { mask_len(m) } else { 0 }
            + if plan.nullable {
                mask_len(present.len())
            } else {
                0
            };
        // The row cost: the numbers' forms, plus the strings' per-value size, counted
        // only as far as the comparison needs.
        let need = masks + body_cost;
        let fits = need <= scan.num_cost
            || census
                .as_mut()
                .is_some_and(|c| c.per_value_exceeds(need - scan.num_cost - 1));
        if class != Class::Residual && !fits {
            class = Class::Residual;
            plan.class = class;
            plan.text = Form::Plain;
            plan.nullable = false;
            plan.body = Body::Rows;
            plan.units = 0;
        }
        // A body with references must be smaller than this one, or (left in the rows) not
        // larger than the rows.
        beat.push(match (&hexc, class) {
            (None, _) => 0,
            (Some(_), Class::Residual) => {
                let rows = scan.num_cost + census.as_mut().map_or(0, Census::per_value);
                (rows + 1).saturating_sub(masks)
            }
            _ => body_cost,
        });
        let strs = std::mem::take(&mut scan.strs);
        hex.push(
            hexc.map(|(sh, referable)| {
                (HexCol::new(sh, strs), referable && class != Class::Residual)
            }),
        );
        nullable.push(scan.nulls > 0);
        plans.push(plan);
    }
    for (i, r) in hex_refs(sink, hex, &beat)? {
        let p = &mut plans[i];
        if p.class == Class::Residual {
            p.class = Class::Str;
            p.nullable = nullable[i];
        }
        p.text = Form::Hex;
        p.body = Body::Bytes(r.body);
        p.units = r.units;
    }
    // A small batch whose only kept column of children is a map column is tried only below
    // MAX_SMALL_EVENTS captured events: the trial writes the whole batch twice, and OTLP
    // 4×512's four resource maps (20 bytes smaller as key sets in a container) over 2 048
    // spans in the rows had doubled its encode.
    let tried =
        |p: &ColPlan| p.class.nested() && (p.class != Class::Map || b.events <= MAX_SMALL_EVENTS);
    if plans.iter().all(|p| p.class == Class::Residual) || (small && !plans.iter().any(tried)) {
        return Ok(None);
    }
    let entries = shape_list(&plans);
    let list: Vec<(&[u8], u8)> = entries.iter().map(|(n, k)| (&n[..], *k)).collect();
    let shape = dense.col_shapes().find(&col_shape_key(&list));
    if shape.is_none() && !dense.may_declare_col_shape() {
        return Ok(None);
    }
    Ok(Some((plans, shape)))
}

/// Whether every cell of column `present` is a captured value (a struct, a sequence, …) or
/// `None`, and one is not `None`: the column may become a struct or list column.
fn all_other(b: &Rows<'_>, present: &[(u32, u32)]) -> bool {
    let mut any = false;
    for &(_, i) in present {
        match b.cells[i as usize].cell {
            Cell::Other(_) => any = true,
            Cell::Null => {}
            _ => return false,
        }
    }
    any
}

/// The column-shape table entries of `plans` (their children included, see
/// [`shape_entries`]).
fn shape_list(plans: &[ColPlan]) -> Vec<(Cow<'_, [u8]>, u8)> {
    let mut out = Vec::with_capacity(plans.len());
    for p in plans {
        shape_entries(p.name, p.kind(), &p.children, &mut out);
    }
    out
}

/// The declaration of a struct, list, map or tagged column's children after its kind byte:
/// a struct's child count (a tagged column's variant count), then each child's name
/// (through the Dense rules) and kind byte; a list's element kind byte alone, a map's key
/// and value kind bytes alone; each followed by its own children.
fn write_children(sink: &mut Sink, kind: u8, children: &[Decl]) -> Result<()> {
    let list = match Class::from_nibble(kind & 0x0F) {
        Some(c) if c.lengths() => true,
        Some(Class::Struct | Class::Tagged) => false,
        _ => return Ok(()),
    };
    if !list {
        sink.write_uvarint(children.len() as u64);
    }
    for c in children {
        if !list {
            sink.write_str(&c.name)?;
        }
        sink.push(c.kind);
        write_children(sink, c.kind, &c.children)?;
    }
    Ok(())
}

fn write_container<W: ValueWriter>(
    w: &mut W,
    b: &Rows<'_>,
    cols: &[&[(u32, u32)]],
    plans: &[ColPlan],
    shape: Option<u32>,
) -> Result<()> {
    let m = b.rows.len();
    let hybrid = plans.iter().any(|p| p.class == Class::Residual);
    let sink = w.sink();
    sink.note_codec_tag();
    sink.push(if hybrid { tags::HYBRID } else { tags::COLUMNAR });
    sink.write_uvarint(m as u64);
    // The decoder charges 8 units a row at the header, then each column body (§13).
    let units = plans
        .iter()
        .fold(0u64, |acc, p| acc.saturating_add(p.units));
    sink.count_output(
        (m as u64)
            .saturating_mul(ELEMENT_CHARGE)
            .saturating_add(units),
    );
    match shape {
        Some(id) => sink.write_uvarint(id as u64),
        None => {
            sink.push(0);
            sink.write_uvarint(plans.len() as u64);
            for p in plans {
                sink.write_str(p.name)?;
                sink.push(p.kind());
                write_children(sink, p.kind(), &p.children)?;
            }
            let entries = shape_list(plans);
            let list: Vec<(&[u8], u8)> = entries.iter().map(|(n, k)| (&n[..], *k)).collect();
            let dense = sink
                .dense_mut()
                .expect("columnar containers need Dense state");
            dense.define_col_shape(&list, true)?;
        }
    }
    let indexed = !hybrid && sink.col_index_allowed() && sink.has(Features::COLUMN_INDEX);
    let index_at = sink.len();
    if indexed {
        sink.zeros(4 * plans.len());
        sink.note_col_index();
    }
    for (j, (p, &present)) in plans.iter().zip(cols).enumerate() {
        let start = sink.len();
        if p.optional {
            let bits = mask(m, present.iter().map(|&(r, _)| r as usize));
            sink.extend(&bits);
        }
        let cell = |i: u32| &b.cells[i as usize].cell;
        if p.nullable {
            let non_null = present
                .iter()
                .enumerate()
                .filter(|(_, (_, i))| *cell(*i) != Cell::Null)
                .map(|(k, _)| k);
            let bits = mask(present.len(), non_null);
            sink.extend(&bits);
        }
        match &p.body {
            Body::Rows => {}
            Body::Bytes(v) => {
                if p.entropy || v.first() == Some(&tags::ENTROPY) {
                    sink.note_entropy();
                }
                sink.extend(v)
            }
            Body::PerValue => {
                for &(_, i) in present {
                    if let Cell::Str(s, e) = *cell(i) {
                        sink.write_str(b.tape.str(s, e))?;
                    }
                }
            }
            Body::Mixed(v, strs) => {
                if p.entropy {
                    sink.note_entropy();
                }
                let mut from = 0;
                for d in strs {
                    sink.extend(&v[from..d.at]);
                    from = d.at;
                    for &c in &d.cells {
                        if let Cell::Str(s, e) = c {
                            sink.write_str(b.tape.str(s, e))?;
                        }
                    }
                }
                sink.extend(&v[from..]);
            }
        }
        if indexed {
            let len = (sink.len() - start) as u32;
            sink.patch(index_at + 4 * j, &len.to_le_bytes());
        }
    }
    if hybrid {
        sink.enter()?;
        let residual: Vec<&[(u32, u32)]> = plans
            .iter()
            .zip(cols)
            .filter(|(p, _)| p.class == Class::Residual)
            .map(|(_, &present)| present)
            .collect();
        write_residuals(w, b, residual)?;
        w.sink().leave(1);
    }
    Ok(())
}

/// Writes the residual cells in row order, each row's in field order, visiting only the
/// residual columns: `cols` are their `(row, cell index)` lists, and cell indices grow
/// with the row and the field, so the cells come out in order of their indices.
fn write_residuals<W: ValueWriter>(
    w: &mut W,
    b: &Rows<'_>,
    mut cols: Vec<&[(u32, u32)]>,
) -> Result<()> {
    if let [only] = cols[..] {
        for &(_, i) in only {
            write_residual(w, &b.cells[i as usize].cell, b.tape)?;
        }
        return Ok(());
    }
    // A merge by cell index over the few residual columns.
    loop {
        let next = cols
            .iter()
            .enumerate()
            .filter_map(|(k, c)| c.first().map(|&(_, i)| (i, k)))
            .min();
        let Some((i, k)) = next else {
            return Ok(());
        };
        cols[k] = &cols[k][1..];
        write_residual(w, &b.cells[i as usize].cell, b.tape)?;
    }
}
