//! The string column picker (`docs/SPEC.md` §20): which block, if any, writes a column.
//!
//! Order and gates:
//! 1. **F9 constant** when every value is equal. (Go tries it only without Dense; no other
//!    block is smaller on such a column, so trying it first only saves work.)
//! 2. **Dictionary family**, when `n ≥ 16`, at most 70 % of the first 64 values are
//!    distinct, `2 ≤ d ≤ 256`, and the flat index is smaller than one byte a row
//!    (`1 + uvl(d) + uvl(n) + ⌈n·⌈log2 d⌉/8⌉ < n`): **FA** when all distinct values share a
//!    prefix of at least 2 bytes and front coding shrinks the table, else **FC** when the
//!    QPack integer block of the index is smaller than the flat index, else **F5**.
//! 3. Otherwise the smallest of **F6 FSST** (only with [`Features::FSST`]; must beat
//!    `Σlen + n`), **FB alphabet** (more than 70 % of the first 64 distinct, 2–64 distinct
//!    bytes, must beat F8) and **F8 slab**, all only for `n ≥ 16`. Go takes the first that
//!    qualifies; taking the smallest never loses bytes.
//!
//! With Dense a block is chosen only when its exact size is strictly below the size of
//! writing the values one by one (intern refs included): the caller's estimate for
//! [`pick()`], the census's count for [`pick_with`], which counts only as many rows as the
//! comparison needs. Only the smallest candidate of step 3 is compared (if it is not below,
//! none is); otherwise the answer is [`Pick::PerValue`]. Without Dense there is no per-value
//! form inside a column: the fallback is F9 when all values are equal, else a forced F8.

use super::MIN_ROWS;
use super::alpha::Alphabet;
use super::census::Census;
use super::front::Front;
use super::fsst::FsstPlan;
use super::slab::{const_cost, encode_const, encode_slab, slab_cost};
use super::table::Dict;
use super::{bits, dict, dictq};
use crate::options::Features;
#[cfg(test)]
use crate::wire::tags;
use crate::wire::varint::uvarint_len;

/// A chosen string block, with everything needed to write it.
pub(crate) enum StrBlock<'v> {
    /// F5 flat dictionary.
    Dict(Dict<'v>),
    /// FA front-coded dictionary (the dictionary supplies the index size).
    Front(Dict<'v>, Front<'v>),
    /// FC: dictionary table and the QPack block of its index.
    DictQ(Dict<'v>, Vec<u8>),
    /// F6 FSST.
    Fsst(FsstPlan),
    /// FB alphabet packing.
    Alpha(Alphabet<'v>),
    /// F8 raw slab.
    Slab(&'v [&'v [u8]]),
    /// F9: `n` copies of `value`.
    Const {
        /// The value.
        value: &'v [u8],
        /// Row count.
        n: usize,
    },
}

/// The codec tests check a block's tag against its bytes; the writer never asks for it.
#[cfg(test)]
impl StrBlock<'_> {
    /// The block's tag byte.
    pub(crate) fn tag(&self) -> u8 {
        match self {
            StrBlock::Dict(_) => tags::COL_STR_DICT,
            StrBlock::Front(..) => tags::COL_STR_FRONT,
            StrBlock::DictQ(..) => tags::COL_STR_DICTQ,
            StrBlock::Fsst(_) => tags::COL_STR_FSST,
            StrBlock::Alpha(_) => tags::COL_STR_ALPHA,
            StrBlock::Slab(_) => tags::COL_STR_SLAB,
            StrBlock::Const { .. } => tags::COL_STR_CONST,
        }
    }
}

impl StrBlock<'_> {
    /// Exact encoded size in bytes, tag included.
    pub(crate) fn cost(&self) -> usize {
        match self {
            StrBlock::Dict(d) => dict::cost(d),
            StrBlock::Front(d, f) => f.cost(d),
            StrBlock::DictQ(d, idx) => dictq::cost(d, idx),
            StrBlock::Fsst(p) => p.cost(),
            StrBlock::Alpha(a) => a.cost(),
            StrBlock::Slab(v) => slab_cost(v),
            StrBlock::Const { value, n } => const_cost(value, *n),
        }
    }

    /// The decoded output [`decode_block`](super::decode_block) charges for this block
    /// (`docs/SPEC.md` §13): the bytes of every row, plus the rebuilt table of FA and 8 units
    /// per row of FC's QPack index.
    pub(crate) fn decoded_units(&self) -> u64 {
        let rows = |d: &Dict<'_>| -> u64 {
            d.index
                .iter()
                .map(|&k| d.entries[k as usize].len() as u64)
                .sum()
        };
        match self {
            StrBlock::Dict(d) => rows(d),
            StrBlock::Front(d, f) => rows(d) + f.table_bytes(),
            StrBlock::DictQ(d, _) => {
                rows(d)
                    + (d.index.len() as u64).saturating_mul(crate::codec::cursor::ELEMENT_CHARGE)
            }
            StrBlock::Fsst(p) => p.total() as u64,
            StrBlock::Alpha(a) => a.chars() as u64,
            StrBlock::Slab(v) => v.iter().map(|s| s.len() as u64).sum(),
            StrBlock::Const { value, n } => (value.len() as u64).saturating_mul(*n as u64),
        }
    }

    /// Appends the block, tag first.
    pub(crate) fn encode(&self, out: &mut Vec<u8>) {
        match self {
            StrBlock::Dict(d) => dict::encode(d, out),
            StrBlock::Front(_, f) => f.encode(out),
            StrBlock::DictQ(d, idx) => dictq::encode(d, idx, out),
            StrBlock::Fsst(p) => p.encode(out),
            StrBlock::Alpha(a) => a.encode(out),
            StrBlock::Slab(v) => encode_slab(v, out),
            StrBlock::Const { value, n } => encode_const(value, *n, out),
        }
    }
}

/// The picker's answer.
pub(crate) enum Pick<'v> {
    /// Write this block.
    Block(StrBlock<'v>),
    /// Write the values one by one (Dense per-value strings): no block is smaller.
    PerValue,
}

/// Chooses how to write the string column `values` (see the module doc for the order).
/// `per_value` is the caller's size estimate of the per-value form; it is ignored without
/// [`Features::DENSE`], where some block is always returned.
/// (Tests only: the columnar writer has its census already and calls [`pick_with`].)
#[cfg(test)]
pub(crate) fn pick<'v>(values: &'v [&'v [u8]], features: Features, per_value: usize) -> Pick<'v> {
    pick_with(&mut Census::new(values, 0), features, false, |_, cost| {
        cost < per_value
    })
}

/// [`pick()`] of the column `census` counts; `beats(census, cost)` tells whether a block of
/// `cost` bytes is smaller than the per-value form (asked with Dense only, and only of the
/// candidate that can win). `any_dict`: the dictionary family also competes in step 3 on
/// its size alone under Dense, as it always does without (a one-shot message's child
/// column, whose head interleaves several fields' values).
pub(crate) fn pick_with<'v>(
    census: &mut Census<'v>,
    features: Features,
    any_dict: bool,
    mut beats: impl FnMut(&mut Census<'v>, usize) -> bool,
) -> Pick<'v> {
    let values = census.values();
    let dense = features.contains(Features::DENSE);
    let mut beats = |c: &mut Census<'v>, b: &StrBlock<'_>| !dense || beats(c, b.cost());
    let n = values.len();
    // More than 70 % of the first 64 values are distinct (§20.8).
    let k = n.min(64);
    let mostly_distinct = census.distinct_in_head(k) * 10 > k * 7;
    if n > 0 && census.distinct_in_head(k) == 1 && census.finish().distinct() == 1 {
        let block = StrBlock::Const {
            value: values[0],
            n,
        };
        return if beats(census, &block) {
            Pick::Block(block)
        } else {
            Pick::PerValue
        };
    }
    if n >= MIN_ROWS {
        if !mostly_distinct
            && let Some(block) = dict_family(census.finish(), true)
            && beats(census, &block)
        {
            return Pick::Block(block);
        }
        // The smallest candidate; only it can be smaller than the per-value form if any is.
        let mut best: Option<(StrBlock<'v>, usize)> = None;
        let mut consider = |b: StrBlock<'v>| {
            let cost = b.cost();
            if best.as_ref().is_none_or(|cur| cost < cur.1) {
                best = Some((b, cost));
            }
        };
        let slab = slab_cost(values);
        if features.contains(Features::FSST) {
            let plan = FsstPlan::train(values);
            let raw: usize = values.iter().map(|v| v.len() + 1).sum();
            if plan.cost() < raw {
                consider(StrBlock::Fsst(plan));
            }
        }
        if mostly_distinct
            && let Some(a) = Alphabet::build(values)
            && a.cost() < slab
        {
            consider(StrBlock::Alpha(a));
        }
        // Without Dense (child and indexed columns) a block is the only form, so the
        // dictionary competes on its size alone: 8-bit codes into a few long values beat a
        // slab of them, and a head of interleaved keys' values looks distinct. So does it in
        // a one-shot message's child column (`any_dict`), against per-value strings.
        if (!dense || any_dict)
            && let Some(b) = dict_family(census.finish(), false)
        {
            consider(b);
        }
        consider(StrBlock::Slab(values));
        if let Some((b, _)) = best
            && beats(census, &b)
        {
            return Pick::Block(b);
        }
    }
    if dense {
        Pick::PerValue
    } else {
        // A column of fewer than 16 distinct-valued rows without Dense: F8 is the only form.
        Pick::Block(StrBlock::Slab(values))
    }
}

/// The block for `Options::borrowable_strings`: one whose rows the decoder lends out of the
/// input (F9 when all values are equal, else F5 when the §20.8 dictionary gates pass, else
/// F8), never the per-value form (whose repeats are intern references) nor a block the
/// decoder rebuilds (FA, FB, FC, F6).
pub(crate) fn pick_borrowable<'v>(census: &mut Census<'v>) -> Pick<'v> {
    let values = census.values();
    let n = values.len();
    let census = census.finish();
    if n > 0 && census.distinct() == 1 {
        return Pick::Block(StrBlock::Const {
            value: values[0],
            n,
        });
    }
    if n >= MIN_ROWS
        && let Some(dict) = census.dict()
        && let Some(index) = bits::packed_len(n, dict.width())
        && dict.entries.len() >= super::MIN_DICT
        && 1 + uvarint_len(dict.entries.len() as u64) + uvarint_len(n as u64) + index < n
    {
        return Pick::Block(StrBlock::Dict(dict));
    }
    Pick::Block(StrBlock::Slab(values))
}

/// The dictionary block of the column `census` counted, if the §20.8 gates pass (2 to 256
/// distinct values; `gated`: also the index smaller than one byte a value).
fn dict_family<'v>(census: &Census<'v>, gated: bool) -> Option<StrBlock<'v>> {
    let dict = census.dict()?;
    let d = dict.entries.len();
    let n = census.values().len();
    let index = bits::packed_len(n, dict.width())?;
    if d < super::MIN_DICT
        || (gated && 1 + uvarint_len(d as u64) + uvarint_len(n as u64) + index >= n)
    {
        return None;
    }
    if let Some(front) = Front::build(&dict)
        && front.table_cost() < dict.table_cost()
    {
        return Some(StrBlock::Front(dict, front));
    }
    if let Some(idx) = dictq::index_block(&dict) {
        return Some(StrBlock::DictQ(dict, idx));
    }
    Some(StrBlock::Dict(dict))
}
