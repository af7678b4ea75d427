//! A leaf column's body (`docs/SPEC.md` §22): what Balanced writes for a `Vec` of the
//! column's values, chosen by exact cost. Integers, floats and bools go through the QPack
//! packer when it is smaller, else a plain array; strings as a string block
//! (`codec::strings::pick`) or, when that is not smaller and the caller allows it, as
//! per-value strings through the intern table, or as number text (`docs/SPEC.md` §22.1) when
//! that is strictly smaller. Under the entropy stage (Compression) a body is tANS-coded when
//! that is smaller. Top-level columns ([`super::write`]) and child
//! columns ([`super::nested`]) pick their codecs here, so both choose alike.

use super::Class;
use super::numtext::{self, Form, HexCol, HexShape, Refs};
use super::tape::Cell;
use crate::codec;
use crate::codec::cursor::ELEMENT_CHARGE;
use crate::codec::strings::{self, Census, Pick};
use crate::error::Result;
use crate::options::Features;
use crate::qpack::encode::{PackBuf, PackClass};
use crate::sink::Sink;
use crate::wire::tags;

/// The encoding of one column's values.
pub(crate) enum Body {
    /// Residual: the values stay in the rows.
    Rows,
    /// Pre-encoded bytes (a QPack value, a plain array, a string block, or a struct or list
    /// column's children).
    Bytes(Vec<u8>),
    /// Per-value strings through the intern table, written when the container is.
    PerValue,
    /// A struct, list, map or tagged column's pre-encoded bytes with the per-value strings
    /// of some child string columns left out: each [`Deferred`] run goes in at its offset
    /// when the container is written (the Dense state steps there, as the decoder's does).
    Mixed(Vec<u8>, Vec<Deferred>),
}

/// The per-value strings of one child string column (present, non-null values in slot
/// order), to be written through the intern table at byte `at` of its column's body.
pub(crate) struct Deferred {
    pub(crate) at: usize,
    pub(crate) cells: Vec<Cell>,
}

/// The forms a leaf string column may take (`docs/SPEC.md` §20.8, §22.2).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum StrForms {
    /// A string block only (no string column: lengths and tags; a child column of a one-shot
    /// Compression message, whose blocks the entropy stage codes).
    Blocks,
    /// A block, or per-value strings when no block is smaller, the dictionary family gated
    /// by the column's head (§20.8 step 2): a top-level column, or a child column where the
    /// intern table outlives the message.
    PerValue,
    /// As [`StrForms::PerValue`], the dictionary family also competing on its size alone
    /// (§20.8 step 3): a child column of a one-shot message, whose values interleave (a
    /// map's values under several keys, a list's elements), so its head looks distinct.
    PerValueAnyDict,
}

/// A leaf column's body as [`leaf_body`] chose it.
pub(crate) struct Leaf {
    pub(crate) body: Body,
    /// Decoded output a decoder charges for a [`Body::Bytes`] body (§13).
    pub(crate) units: u64,
    /// A string column's number-text form (kind bits `10`/`20`).
    pub(crate) text: Form,
}

/// The hex shape of a string column (the strings `strs`, its body in `leaf`) whose values may
/// refer to a sibling's (`docs/SPEC.md` §22.1), and whether a sibling may refer to it (its
/// body is hex text without references): `None` unless every value is hex text, and under
/// the column index, where a reader may skip the sibling unread.
pub(crate) fn hex_shape(sink: &Sink, strs: &[&[u8]], leaf: &Leaf) -> Option<(HexShape, bool)> {
    let indexed =
        sink.col_index_allowed() && sink.opts().feature_bits().contains(Features::COLUMN_INDEX);
    if indexed || sink.opts().keeps_strings_borrowable() {
        return None;
    }
    match &leaf.body {
        // Its body says the shape (the strings were checked for it).
        Body::Bytes(b) if leaf.text == Form::Hex => HexCol::shape_of_body(b).map(|sh| (sh, true)),
        _ => HexCol::shape_of(strs).map(|sh| (sh, false)),
    }
}

/// References between the hex columns of one struct (or container), `docs/SPEC.md` §22.1:
/// `cols[i]` is sibling `i`'s [`HexCol`] and whether a sibling may refer to it, `beat[i]`
/// the size its body with references must be below. Each pair's body is made once; then,
/// greedy by bytes saved, the column that saves most refers to its sibling, which keeps its
/// values (nothing chains), until no column saves a byte. Returns each converted column
/// with its body.
pub(crate) fn hex_refs(
    sink: &Sink,
    cols: Vec<Option<(HexCol<'_>, bool)>>,
    beat: &[usize],
) -> Result<Vec<(usize, Refs)>> {
    let mut out = Vec::new();
    if cols.iter().flatten().count() < 2 {
        return Ok(out);
    }
    // Every pair (i refers to j) that saves a byte: (saved, i, body).
    let mut pairs: Vec<(usize, usize, Refs)> = Vec::new();
    for (i, me) in cols.iter().enumerate() {
        let Some((me, _)) = me else {
            continue;
        };
        for (j, r) in cols.iter().enumerate() {
            // Only a column written as hex text without references is referred to.
            let Some((r, true)) = r else {
                continue;
            };
            if i == j {
                continue;
            }
            if let Some(refs) = numtext::refer(me, j as u64, r, sink.opts())?
                && refs.body.len() < beat[i]
            {
                pairs.push((beat[i] - refs.body.len(), i, refs));
            }
        }
    }
    // Largest saving first; a column refers once, and one referred to never refers.
    pairs.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut done = vec![false; cols.len()];
    let mut pinned = vec![false; cols.len()];
    for (_, i, refs) in pairs {
        let j = refs.col as usize;
        if done[i] || pinned[i] || done[j] {
            continue;
        }
        done[i] = true;
        pinned[j] = true;
        out.push((i, refs));
    }
    Ok(out)
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

/// The body of a leaf column of `class` (not residual) and the decoded output a decoder
/// charges for it (§13): `vals` the numbers' bits (number and bool columns), `strs` and
/// `census` the strings (string columns). `forms`: whether per-value strings are allowed
/// (never under the column index) and how the dictionary family competes.
pub(crate) fn leaf_body(
    sink: &Sink,
    class: Class,
    vals: Vec<u64>,
    strs: &[&[u8]],
    census: Option<&mut Census<'_>>,
    forms: StrForms,
) -> Result<Leaf> {
    let feats = sink.opts().feature_bits();
    let indexed = sink.col_index_allowed() && feats.contains(Features::COLUMN_INDEX);
    let mut units = 0;
    let mut text = Form::Plain;
    let any_dict = forms == StrForms::PerValueAnyDict;
    let mut body = match (class, census) {
        (Class::Str, Some(census)) => {
            let pick = if sink.opts().keeps_strings_borrowable() {
                strings::pick_borrowable(census)
            } else if indexed || forms == StrForms::Blocks {
                // Always a block: below 16 values the slab (or the constant) when no
                // other form applies, as without Dense.
                strings::pick_with(census, feats.without(Features::DENSE), false, |_, _| true)
            } else {
                strings::pick_with(census, feats, any_dict, |c, cost| c.per_value_exceeds(cost))
            };
            // An FE block's strings are rebuilt on decode, so never for
            // borrowable strings.
            let entropy =
                feats.contains(Features::ENTROPY) && !sink.opts().keeps_strings_borrowable();
            let body = match pick {
                Pick::Block(blk) if entropy => {
                    let (bytes, u) = entropy_block(census, blk);
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
                    let forced = strings::pick_with(census, feats, any_dict, |_, _| true);
                    match forced {
                        Pick::Block(blk) => {
                            let (bytes, u) = entropy_block(census, blk);
                            if bytes[0] == tags::ENTROPY && census.per_value_exceeds(bytes.len()) {
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
            };
            // Canonical decimal, hex or date-time text as numbers or bytes, when strictly smaller
            // (its values are rebuilt on decode, so never for borrowable strings).
            let cost = match &body {
                Body::Bytes(v) => v.len(),
                _ => census.per_value(),
            };
            let num = if sink.opts().keeps_strings_borrowable() {
                None
            } else {
                numtext::encode(strs, sink.opts(), cost)?
            };
            match num {
                Some(t) => {
                    units = t.units;
                    text = t.text;
                    Body::Bytes(t.bytes)
                }
                None => body,
            }
        }
        (Class::Str | Class::Residual, _)
        | (Class::Struct | Class::List | Class::Map | Class::Tagged, _) => Body::Rows,
        _ => {
            let (pc, neg) = match class {
                Class::Int { neg } => (PackClass::Int, neg),
                Class::F64 => (PackClass::F64, false),
                Class::F32 => (PackClass::F32, false),
                _ => (PackClass::Bool, false),
            };
            let v = vals.len() as u64;
            let bytes = PackBuf::of(pc, vals, neg).encode_seq(sink.opts())?;
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
    Ok(Leaf { body, units, text })
}
