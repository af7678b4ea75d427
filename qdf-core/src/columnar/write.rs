//! Writing a captured [`Batch`]: per column the codec and its exact size, the size gate
//! against the row form, then the container (`docs/SPEC.md` §22), or a
//! replay of the rows through the real serializer when the batch does not qualify.
//!
//! Column bodies are what Balanced writes for a `Vec` of the column's values: integers,
//! floats and bools through the QPack packer when it is smaller, else a plain array; strings
//! as a string block (`codec::strings::pick`) or, when that is not smaller, as per-value
//! strings through the intern table. With the column index no column is per-value, so an
//! indexed column never touches the Dense state and a reader may jump over it.
//!
//! The gate (an estimate): a column stays a column only if its masks and body are not larger
//! than its cells in row mode (numbers in their Speed forms, strings by the per-value
//! estimate); other columns become residual. The batch is written as a container when at
//! least one column remains and the column-shape table can take its shape.

use serde::Serialize;
use serde::ser::SerializeStruct;

use super::plan::Batch;
use super::tape::{Cell, CellRef, Ev, EvRef, Tape};
use super::{Class, MIN_ROWS, NULLABLE, OPTIONAL, mask_len};
use crate::codec;
use crate::codec::cursor::ELEMENT_CHARGE;
use crate::codec::strings::{self, Census, Pick};
use crate::dense::col_shape_key;
use crate::error::Result;
use crate::options::Features;
use crate::ser::Serializer;
use crate::ser::qpack::{PackBuf, PackClass};
use crate::wire::form::Header;
use crate::wire::tags;
use crate::wire::varint::write_uvarint;

/// The encoding of one column's values.
enum Body {
    /// Residual: the values stay in the rows.
    Rows,
    /// Pre-encoded bytes (a QPack value, a plain array, or a string block).
    Bytes(Vec<u8>),
    /// Per-value strings through the intern table, written when the container is.
    PerValue,
}

/// One column of the container being planned.
struct ColPlan {
    name: &'static str,
    class: Class,
    optional: bool,
    nullable: bool,
    body: Body,
    /// Decoded output the decoder charges for a [`Body::Bytes`] body (`docs/SPEC.md` §13);
    /// per-value strings and residual cells are counted as they are written.
    units: u64,
}

impl ColPlan {
    fn kind(&self) -> u8 {
        let mut k = self.class.nibble();
        if self.optional {
            k |= OPTIONAL;
        }
        if self.nullable {
            k |= NULLABLE;
        }
        k
    }
}

/// An LSB-first bit mask of `n` bits with the bits of `set` on.
fn mask(n: usize, set: impl Iterator<Item = usize>) -> Vec<u8> {
    let mut m = vec![0u8; mask_len(n)];
    for i in set {
        m[i / 8] |= 1 << (i % 8);
    }
    m
}

impl Serializer {
    /// Writes a residual cell as its replay would ([`CellRef`]), a captured map (labels,
    /// attributes) without the replay's serde calls: the bytes of `Compound` for a map
    /// without map shapes, its header with the entry count, then each key and value, strings
    /// straight through the string hook.
    fn write_residual(&mut self, cell: &Cell, tape: &Tape) -> Result<()> {
        if let Cell::Other(at) = *cell
            && !self.map_shapes()
            && !self.variant_pending()
            && let Some((announced, n, first)) = tape.map_at(at)
            && announced.is_none_or(|l| l == n)
        {
            self.enter()?;
            self.write_header(Header::Map, n)?;
            self.count_output(n as u64);
            let mut i = first;
            for _ in 0..2 * n {
                i = match tape.evs[i] {
                    Ev::Str(a, e) => {
                        self.write_str(tape.str(a, e))?;
                        i + 1
                    }
                    _ => {
                        EvRef { tape, at: i as u32 }.serialize(&mut *self)?;
                        tape.next(i)
                    }
                };
            }
            self.leave(1);
            return Ok(());
        }
        CellRef { cell, tape }.serialize(&mut *self)
    }

    /// Ends the sequence of captured rows `b` whose array header starts at `start`: writes
    /// the columnar container in place of the header and returns `true`, or replays the rows
    /// after the header (row mode) and returns `false`.
    pub(crate) fn finish_batch(&mut self, b: &Batch, start: usize) -> Result<bool> {
        let cols = b.columns();
        let Some((plans, shape)) = self.plan_container(b, &cols)? else {
            self.replay_rows(b)?;
            return Ok(false);
        };
        self.out.truncate(start);
        self.write_container(b, &cols, &plans, shape)?;
        Ok(true)
    }

    /// Writes the captured rows as plain elements, through the same serde calls the
    /// elements made (so the bytes equal direct serialization).
    pub(crate) fn replay_rows(&mut self, b: &Batch) -> Result<()> {
        for (r, row) in b.rows.iter().enumerate() {
            let mut s = serde::Serializer::serialize_struct(&mut *self, row.name, row.len)?;
            for f in b.row_fields(r) {
                let cell = CellRef {
                    cell: &f.cell,
                    tape: &b.tape,
                };
                s.serialize_field(f.key, &cell)?;
            }
            s.end()?;
        }
        Ok(())
    }

    /// The bytes of string block `blk` under the entropy stage, and the output units a decoder
    /// charges for them: the block, or the smallest entropy-coded block among it and the F8 slab
    /// of the same values (a slab often codes smaller than an FSST or alphabet block), by exact
    /// cost.
    fn entropy_block(census: &Census<'_>, blk: strings::StrBlock<'_>) -> (Vec<u8>, u64) {
        let mut best = Vec::with_capacity(blk.cost());
        blk.encode(&mut best);
        let mut units = blk.decoded_units();
        if let Some(w) = codec::entropy::wrap(&best) {
            units += best.len() as u64;
            best = w;
        }
        if matches!(
            blk,
            strings::StrBlock::Fsst(_) | strings::StrBlock::Alpha(_)
        ) {
            let slab = strings::StrBlock::Slab(census.values());
            let mut raw = Vec::with_capacity(slab.cost());
            slab.encode(&mut raw);
            if let Some(w) = codec::entropy::wrap(&raw)
                && w.len() < best.len()
            {
                units = slab.decoded_units() + raw.len() as u64;
                best = w;
            }
        }
        (best, units)
    }

    /// The column plans and the shape id to reuse (`None`: declare), or `None` when the
    /// batch stays in row mode.
    #[allow(clippy::type_complexity)]
    fn plan_container(
        &self,
        b: &Batch,
        cols: &[&[(u32, u32)]],
    ) -> Result<Option<(Vec<ColPlan>, Option<u32>)>> {
        let m = b.rows.len();
        let Some(dense) = self.state.dense.as_deref() else {
            return Ok(None);
        };
        if m < MIN_ROWS {
            return Ok(None);
        }
        let feats = self.opts.feature_bits();
        let indexed = self.col_index.allowed && feats.contains(Features::COLUMN_INDEX);
        let min_intern = self.opts.intern_min_len() as usize;
        let mut plans = Vec::with_capacity(b.order.len());
        for (j, &present) in cols.iter().enumerate() {
            let name = b.cols[b.order[j] as usize];
            let optional = present.len() < m;
            let scan = b.scan(present);
            let mut class = scan.class;
            let mut census = None;
            let mut units = 0;
            let mut body = match class {
                Class::Residual => Body::Rows,
                Class::Str => {
                    let census = census.insert(Census::new(&scan.strs, min_intern));
                    let pick = if self.opts.keeps_strings_borrowable() {
                        strings::pick_borrowable(census)
                    } else if indexed {
                        strings::pick_with(census, feats.without(Features::DENSE), |_, _| true)
                    } else {
                        strings::pick_with(census, feats, |c, cost| c.per_value_exceeds(cost))
                    };
                    // An FE block's strings are rebuilt on decode, so never for
                    // borrowable strings.
                    let entropy =
                        feats.contains(Features::ENTROPY) && !self.opts.keeps_strings_borrowable();
                    match pick {
                        Pick::Block(blk) if entropy => {
                            let (bytes, u) = Self::entropy_block(census, blk);
                            units = u;
                            Body::Bytes(bytes)
                        }
                        Pick::Block(blk) => {
                            let mut out = Vec::with_capacity(blk.cost());
                            blk.encode(&mut out);
                            units = blk.decoded_units();
                            Body::Bytes(out)
                        }
                        // With the entropy stage a block can beat the per-value form once
                        // coded: try the block the picker would write without Dense.
                        Pick::PerValue if entropy => {
                            let forced = strings::pick_with(census, feats, |_, _| true);
                            match forced {
                                Pick::Block(blk) => {
                                    let (bytes, u) = Self::entropy_block(census, blk);
                                    if bytes[0] == tags::ENTROPY
                                        && census.per_value_exceeds(bytes.len())
                                    {
                                        units = u;
                                        Body::Bytes(bytes)
                                    } else {
                                        Body::PerValue
                                    }
                                }
                                Pick::PerValue => Body::PerValue,
                            }
                        }
                        Pick::PerValue => Body::PerValue,
                    }
                }
                _ => {
                    let (pc, neg) = match class {
                        Class::Int { neg } => (PackClass::Int, neg),
                        Class::F64 => (PackClass::F64, false),
                        Class::F32 => (PackClass::F32, false),
                        _ => (PackClass::Bool, false),
                    };
                    let v = scan.vals.len() as u64;
                    let bytes = PackBuf::of(pc, scan.vals, neg).encode_seq(&self.opts)?;
                    // A QPack body is charged 8 units a value; a plain array its count, then
                    // 8 units a value (`read_nums`).
                    let packed = bytes.first().is_some_and(|&t| codec::is_qpack_tag(t));
                    units = v.saturating_mul(ELEMENT_CHARGE + u64::from(!packed));
                    Body::Bytes(bytes)
                }
            };
            // The Compression tier codes a QPack body's bytes with tANS when that is smaller
            // (string blocks were tried above); the decoder charges the decoded bytes on top
            // of the block's own units.
            if let Body::Bytes(v) = &mut body
                && feats.contains(Features::ENTROPY)
                && class != Class::Str
                && v.first().is_some_and(|&t| codec::is_qpack_tag(t))
                && let Some(w) = codec::entropy::wrap(v)
            {
                units = units.saturating_add(v.len() as u64);
                *v = w;
            }
            let mut plan = ColPlan {
                name,
                class,
                optional,
                nullable: scan.nulls > 0 && class != Class::Residual,
                body,
                units,
            };
            let body_cost = match &plan.body {
                Body::Rows => 0,
                Body::Bytes(v) => v.len(),
                Body::PerValue => census.as_mut().map_or(0, Census::per_value),
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
                plan.nullable = false;
                plan.body = Body::Rows;
                plan.units = 0;
            }
            plans.push(plan);
        }
        if plans.iter().all(|p| p.class == Class::Residual) {
            return Ok(None);
        }
        let list: Vec<(&[u8], u8)> = plans
            .iter()
            .map(|p| (p.name.as_bytes(), p.kind()))
            .collect();
        let shape = dense.col_shapes().find(&col_shape_key(&list));
        if shape.is_none() && !dense.may_declare_col_shape() {
            return Ok(None);
        }
        Ok(Some((plans, shape)))
    }

    fn write_container(
        &mut self,
        b: &Batch,
        cols: &[&[(u32, u32)]],
        plans: &[ColPlan],
        shape: Option<u32>,
    ) -> Result<()> {
        let m = b.rows.len();
        let hybrid = plans.iter().any(|p| p.class == Class::Residual);
        self.note_codec_tag();
        self.out
            .push(if hybrid { tags::HYBRID } else { tags::COLUMNAR });
        write_uvarint(&mut self.out, m as u64);
        // The decoder charges 8 units a row at the header, then each column body (§13).
        let units = plans
            .iter()
            .fold(0u64, |acc, p| acc.saturating_add(p.units));
        self.count_output(
            (m as u64)
                .saturating_mul(ELEMENT_CHARGE)
                .saturating_add(units),
        );
        match shape {
            Some(id) => write_uvarint(&mut self.out, id as u64),
            None => {
                self.out.push(0);
                write_uvarint(&mut self.out, plans.len() as u64);
                for p in plans {
                    self.write_str(p.name)?;
                    self.out.push(p.kind());
                }
                let list: Vec<(&[u8], u8)> = plans
                    .iter()
                    .map(|p| (p.name.as_bytes(), p.kind()))
                    .collect();
                let dense = self
                    .state
                    .dense
                    .as_deref_mut()
                    .expect("columnar containers need Dense state");
                dense.define_col_shape(&list, true)?;
            }
        }
        let indexed = !hybrid && self.col_index.allowed && self.opts.has(Features::COLUMN_INDEX);
        let index_at = self.out.len();
        if indexed {
            self.out.resize(index_at + 4 * plans.len(), 0);
            self.col_index.written = true;
        }
        for (j, (p, &present)) in plans.iter().zip(cols).enumerate() {
            let start = self.out.len();
            if p.optional {
                let bits = mask(m, present.iter().map(|&(r, _)| r as usize));
                self.out.extend_from_slice(&bits);
            }
            let cell = |i: u32| &b.cells[i as usize].cell;
            if p.nullable {
                let non_null = present
                    .iter()
                    .enumerate()
                    .filter(|(_, (_, i))| *cell(*i) != Cell::Null)
                    .map(|(k, _)| k);
                let bits = mask(present.len(), non_null);
                self.out.extend_from_slice(&bits);
            }
            match &p.body {
                Body::Rows => {}
                Body::Bytes(v) => {
                    if v.first() == Some(&tags::ENTROPY) {
                        self.note_entropy();
                    }
                    self.out.extend_from_slice(v)
                }
                Body::PerValue => {
                    for &(_, i) in present {
                        if let Cell::Str(s, e) = *cell(i) {
                            self.write_str(b.tape.str(s, e))?;
                        }
                    }
                }
            }
            if indexed {
                let len = (self.out.len() - start) as u32;
                self.out[index_at + 4 * j..index_at + 4 * j + 4]
                    .copy_from_slice(&len.to_le_bytes());
            }
        }
        if hybrid {
            self.enter()?;
            let residual: Vec<&[(u32, u32)]> = plans
                .iter()
                .zip(cols)
                .filter(|(p, _)| p.class == Class::Residual)
                .map(|(_, &present)| present)
                .collect();
            self.write_residuals(b, residual)?;
            self.leave(1);
        }
        Ok(())
    }

    /// Writes the residual cells in row order, each row's in field order, visiting only the
    /// residual columns: `cols` are their `(row, cell index)` lists, and cell indices grow
    /// with the row and the field, so the cells come out in order of their indices.
    fn write_residuals(&mut self, b: &Batch, mut cols: Vec<&[(u32, u32)]>) -> Result<()> {
        if let [only] = cols[..] {
            for &(_, i) in only {
                self.write_residual(&b.cells[i as usize].cell, &b.tape)?;
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
            self.write_residual(&b.cells[i as usize].cell, &b.tape)?;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde::ser::SerializeMap;

    use super::*;
    use crate::columnar::tape::{CellSer, Depth};
    use crate::options::Options;

    /// A map that announces `announce` entries and writes `entries`.
    struct Announced {
        announce: Option<usize>,
        entries: Vec<(&'static str, &'static str)>,
    }

    impl Serialize for Announced {
        fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
            let mut m = s.serialize_map(self.announce)?;
            for (k, v) in &self.entries {
                m.serialize_entry(k, v)?;
            }
            m.end()
        }
    }

    /// The direct writing of a captured map is byte for byte its replay through serde, and
    /// leaves the Dense state where the replay leaves it (the later values' references
    /// agree): string and other items, nested values, unannounced and misannounced lengths,
    /// and values that are no map.
    #[test]
    fn residual_maps_write_the_bytes_of_their_replay() {
        let labels: BTreeMap<String, String> = [("region", "eu-west-1"), ("env", "prod")]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect();
        let ints: BTreeMap<&str, i64> = [("a", 1), ("bbbb", -300)].into();
        let nested: BTreeMap<&str, Vec<u8>> = [("list", vec![1, 2, 3])].into();
        let int_keys: BTreeMap<u32, &str> = [(7, "prod"), (9, "x")].into();
        let mut tape = Tape::default();
        let depth = Depth {
            depth: 1,
            limit: 128,
        };
        let mut cell = |v: &dyn erased::Ser| v.cell(&mut tape, depth);
        let cells = [
            cell(&labels),
            cell(&labels),
            cell(&ints),
            cell(&nested),
            cell(&int_keys),
            cell(&Announced {
                announce: None,
                entries: vec![("k1", "v"), ("region", "vvvv")],
            }),
            cell(&Announced {
                announce: Some(5),
                entries: vec![("k1", "v")],
            }),
            cell(&BTreeMap::<String, String>::new()),
            cell(&Some(labels.clone())),
            cell(&labels),
        ];
        let balanced = Options::balanced();
        let map_shapes = balanced.features(balanced.feature_bits().with(Features::MAP_SHAPE));
        for opts in [balanced, map_shapes] {
            let mut direct = Serializer::new(opts);
            let mut replay = Serializer::new(opts);
            for c in &cells {
                direct.write_residual(c, &tape).unwrap();
                CellRef {
                    cell: c,
                    tape: &tape,
                }
                .serialize(&mut replay)
                .unwrap();
            }
            assert_eq!(direct.into_inner(), replay.into_inner());
        }
    }

    mod erased {
        use super::*;
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
