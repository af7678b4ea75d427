//! References between hex-text sibling columns (hex flag `04`, `docs/SPEC.md` §22.1): a
//! span's `parentSpanId` is, most of the time, the `spanId` of another span of the same
//! batch, 8 random bytes that no codec of one column shrinks. A hex column with flag `04`
//! names a sibling hex column `c` of its length and case that has no references itself, and
//! writes for each non-empty value an integer: `k ≥ 1` for the sibling's value `k − 1` (its
//! slot), or 0 for the next literal.
//!
//! ```text
//! flags uvarint(L) [empty mask] uvarint(c) refs (V − E − R) × L bytes
//! refs: V − E unsigned integers as a decimal column writes them (a QPack value or a plain
//!       array); R of them are not 0
//! ```
//!
//! The sibling may come before or after the column (Zipkin's `parentId` precedes `id`), so
//! the reader keeps a body with references [`Pending`] until every sibling is read, then
//! [`resolve`]s it; the sibling has no references, so nothing chains.

use hashbrown::HashMap;

use super::bad;
use super::decimal::{int_body, read_ints};
use super::hex::{HexShape, REFS, head, lens};
use crate::codec::strings::CheckedStrs;
use crate::columnar::mask_len;
use crate::error::Result;
use crate::options::Options;
use crate::source::Source;
use crate::wire::varint::{uvarint_len, write_uvarint};

/// A hex-text column as the encoder planned it: its shape and values (borrowed, empty ones
/// included), so that a sibling may refer to it, or it to a sibling.
pub(crate) struct HexCol<'a> {
    shape: HexShape,
    strs: Vec<&'a [u8]>,
}

impl<'a> HexCol<'a> {
    /// The shape of the strings `strs` when every value is empty or canonical hex text of one
    /// length and case (`docs/SPEC.md` §22.1), at least one not empty.
    pub(crate) fn shape_of(strs: &[&[u8]]) -> Option<HexShape> {
        let sh = super::hex::shape(strs)?;
        Some(HexShape {
            len: (sh.chars / 2) as u64,
            upper: sh.upper,
        })
    }

    /// The shape a hex body without references (its first bytes, flags and `L`) says.
    pub(crate) fn shape_of_body(body: &[u8]) -> Option<HexShape> {
        let (&flags, rest) = body.split_first()?;
        let (len, _) = crate::wire::varint::read_uvarint(rest).ok()?;
        (flags & REFS == 0).then_some(HexShape {
            len,
            upper: flags & super::hex::UPPER != 0,
        })
    }

    /// The column of the strings `strs`, of the shape [`HexCol::shape_of`] gave.
    pub(crate) fn new(shape: HexShape, strs: Vec<&'a [u8]>) -> HexCol<'a> {
        HexCol { shape, strs }
    }

    /// The non-empty values with their slots.
    fn values(&self) -> impl Iterator<Item = (u32, &'a [u8])> + '_ {
        self.strs
            .iter()
            .enumerate()
            .filter(|(_, s)| !s.is_empty())
            .map(|(i, s)| (i as u32, *s))
    }
}

/// A body with references ([`refer`]): the sibling it names, its bytes and the output units
/// a reader charges for it.
pub(crate) struct Refs {
    pub(crate) col: u64,
    pub(crate) body: Vec<u8>,
    pub(crate) units: u64,
}

/// The body of `me` with references to its sibling `r` at position `col`, when `r` has its
/// length and case and holds some of its values.
pub(crate) fn refer(
    me: &HexCol<'_>,
    col: u64,
    r: &HexCol<'_>,
    opts: &Options,
) -> Result<Option<Refs>> {
    let l = me.shape.len as usize;
    let v = me.strs.len();
    let k = me.values().count();
    if r.shape != me.shape || !may_pay(me, r, k) {
        return Ok(None);
    }
    let mut at: HashMap<&[u8], u32> = HashMap::with_capacity(r.strs.len());
    for (slot, s) in r.values() {
        at.entry(s).or_insert(slot);
    }
    let mut refs = Vec::with_capacity(k);
    // Absolute slots: relative ones (zigzag of the distance) measured larger on the OTLP
    // demo batch of 1 000 spans (+118 B) and on Zipkin (+152 B in Compression).
    for (_, s) in me.values() {
        refs.push(at.get(s).map_or(0, |&slot| u64::from(slot) + 1));
    }
    let literals = refs.iter().filter(|&&x| x == 0).count();
    if literals == k {
        return Ok(None);
    }
    let (ints, units) = int_body(refs, false, opts)?;
    let e = v - k;
    let mask = if e > 0 { mask_len(v) } else { 0 };
    let cost = 1 + uvarint_len(l as u64) + mask + uvarint_len(col) + ints.len() + literals * l;
    let mut out = Vec::with_capacity(cost);
    let empty = me.strs.iter().enumerate().filter(|(_, s)| s.is_empty());
    head(
        &mut out,
        me.shape.upper,
        l as u64,
        v,
        e,
        empty.map(|(i, _)| i),
        REFS,
    );
    write_uvarint(&mut out, col);
    out.extend_from_slice(&ints);
    for (_, s) in me.values().filter(|(_, s)| !at.contains_key(*s)) {
        out.extend(crate::wire::hex::packed(s));
    }
    debug_assert_eq!(out.len(), cost);
    Ok(Some(Refs {
        col,
        body: out,
        units: units + (k * 2 * l) as u64,
    }))
}

/// Whether an eighth of `me`'s `k` non-empty values may be values of `r`, by one probe each of
/// a bit set of `r`'s values (8 bits a value, a value's first 8 characters hashed): a column
/// that names few of a sibling's values saves little, and the test costs a few instructions a
/// value where the exact count costs a hash table.
fn may_pay(me: &HexCol<'_>, r: &HexCol<'_>, k: usize) -> bool {
    let n = r.strs.len().max(1);
    let bits = (8 * n).next_power_of_two().max(64);
    let shift = 64 - bits.trailing_zeros();
    let slot = |s: &[u8]| {
        let w = match s.first_chunk::<8>() {
            Some(w) => u64::from_le_bytes(*w),
            // Shorter values: their bytes, one a time (no copy call).
            None => s.iter().fold(0u64, |h, &c| h << 8 | u64::from(c)),
        };
        (w.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> shift) as usize
    };
    let mut set = vec![0u64; bits / 64];
    for (_, s) in r.values() {
        let b = slot(s);
        set[b / 64] |= 1 << (b % 64);
    }
    let maybe = me
        .values()
        .filter(|(_, s)| {
            let b = slot(s);
            set[b / 64] >> (b % 64) & 1 == 1
        })
        .count();
    8 * maybe >= k
}

/// A hex body with references, read but not resolved: the sibling it names may come after
/// it.
pub(crate) struct Pending<'de> {
    /// The body's first byte (its flag byte), and where `c` and the references start.
    at: u64,
    col_at: u64,
    refs_at: u64,
    pub(crate) col: u64,
    shape: HexShape,
    v: usize,
    mask: &'de [u8],
    refs: Vec<u64>,
    literals: &'de [u8],
}

/// Reads the rest of a hex body with references (its flag byte at `at`, `L`, the mask of
/// `empties` empty values of `v` read): `c`, the references and the literals; charges the
/// printed text to the output budget.
///
/// Errors (`BadCodec` at the references): signed integers or a count other than `V − E`;
/// the literal bytes cut short (`Eof`, `LengthOverrun`); the output limit.
pub(super) fn read<'de>(
    src: &mut Source<'de>,
    at: u64,
    shape: HexShape,
    v: usize,
    mask: &'de [u8],
    empties: usize,
) -> Result<Pending<'de>> {
    let col_at = src.offset();
    let col = src.uvarint()?;
    let refs_at = src.offset();
    let k = v - empties;
    let (refs, signed) = read_ints(src, k)?;
    if signed || refs.len() != k {
        return Err(bad(
            refs_at,
            "hex references must be V - E unsigned integers",
        ));
    }
    let literals = refs.iter().filter(|&&r| r == 0).count();
    src.check_count(literals as u64, shape.len)?;
    // Fits: the literals' bytes are in the input.
    let l = usize::try_from(shape.len).unwrap_or(usize::MAX);
    let literals = src.take(literals.saturating_mul(l), "a hex column's bytes")?;
    // A reference copies a sibling's value of 2L characters, which is in memory.
    src.charge((k as u64).saturating_mul(shape.len.saturating_mul(2)))?;
    Ok(Pending {
        at,
        col_at,
        refs_at,
        col,
        shape,
        v,
        mask,
        refs,
        literals,
    })
}

/// Prints the values of `p` with `sibling`, the column `p.col` when it is a hex column
/// without references (`None` otherwise) and its shape.
///
/// Errors (`BadCodec`): `c` names the column itself, or no sibling hex column without
/// references of its length and case (at `c`); a reference past the sibling's values or to an
/// empty one (at the references).
pub(crate) fn resolve<'de>(
    p: &Pending<'de>,
    sibling: Option<(HexShape, &CheckedStrs<'_>)>,
) -> Result<CheckedStrs<'de>> {
    let strs = match sibling {
        Some((sh, strs)) if sh == p.shape => strs,
        _ => {
            return Err(bad(
                p.col_at,
                "hex references name no other sibling hex column without references of their length and case",
            ));
        }
    };
    let l = p.shape.len as usize;
    let mut store = Vec::with_capacity(p.refs.len() * 2 * l);
    let mut lit = p.literals.chunks_exact(l);
    for &r in &p.refs {
        if r == 0 {
            // `read` took one literal for each 0.
            store.extend(crate::wire::hex::digits(
                lit.next().unwrap_or(&[]),
                p.shape.upper,
            ));
            continue;
        }
        let text = usize::try_from(r - 1)
            .ok()
            .and_then(|i| strs.row(i))
            .map(|t| t.unwrap_or_else(|t| t))
            .filter(|t| !t.is_empty())
            .ok_or_else(|| {
                bad(
                    p.refs_at,
                    "a hex reference past its sibling's values or to an empty one",
                )
            })?;
        store.extend_from_slice(text.as_bytes());
    }
    CheckedStrs::rebuilt(store, lens(p.v, 2 * l, p.mask)).map_err(|e| e.with_offset(p.at))
}
