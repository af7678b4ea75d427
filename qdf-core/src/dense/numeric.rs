//! Per-field numeric state of a session (`docs/SPEC.md` §15.2): for every field of every
//! struct (or map key-set) shape, the last number its reuses carried, so the next message can
//! write that field as "the predicted value" (`F0`), a delta or delta-of-delta (`F1`), or a
//! float as a decimal step or an XOR against the last one (`FD`).
//!
//! A *slot* is one field of one shape, named by its stored-name index in the shape table
//! (each field of each shape has its own, [`ShapeTable::name_range`](super::ShapeTable)).
//! Only the values a reuse presents without names have a slot: the fields before an escape,
//! and all of an open reuse's shape fields; declarations and the pairs after an escape have
//! none. Both sides apply [`NumSlots::next`] after every slotted value that is a number
//! (plain or predicted), and nothing else touches a slot, so they mirror by construction.
//!
//! Memory: 24 bytes per slot, grown up to the highest slot a reuse used (at most one per
//! stored shape name, so bounded by the shape caps of §16.1), plus the encoder's undo log.

use crate::error::{Error, ErrorCode, Result};
use crate::wire::tags;
use crate::wire::varint::{read_uvarint, unzigzag, uvarint_len, zigzag};

/// The largest decimal exponent of the decimal forms: `10^15` is exact in `f64`, and a
/// value with more decimals rarely repeats its step.
pub(crate) const MAX_EXP: u8 = 15;

/// `FD` mode bytes at and above this are XOR forms: `XOR_MODE + tz`.
pub(crate) const XOR_MODE: u8 = 0x40;

/// Decimal steps stay within ±2^53, where every integer is an exact `f64`.
const MAX_STEP_INT: f64 = 9_007_199_254_740_992.0;

/// `10^e` for `e ≤ MAX_EXP`, each exact.
const POW10: [f64; MAX_EXP as usize + 1] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
];

/// Undo-log entries kept allocated after a commit.
const UNDO_KEEP: usize = 1024;

/// A number as a slot sees it: an integer in `[-2^63, 2^64)`, or a float's raw bits.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum NumVal {
    /// An integer of the 64-bit forms (`00`–`7F`, `C3`–`CA`, `D8`–`DF`).
    Int(i128),
    /// An `f32` (`CB`), its bits.
    F32(u32),
    /// An `f64` (`CC`), its bits.
    F64(u64),
}

#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
#[repr(u8)]
enum SlotKind {
    #[default]
    Empty,
    /// `x` is the value, non-negative.
    UInt,
    /// `x as i64` is the value, negative.
    NInt,
    /// `x` holds the bits.
    F32,
    F64,
}

/// One field's state: the last value, the last integer step `d` (`v − previous v`, 0 when
/// it did not fit an `i64`), and the decimal exponent `e` of the float forms.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Slot {
    x: u64,
    d: i64,
    kind: SlotKind,
    e: u8,
}

impl Slot {
    fn int(&self) -> Option<(i128, i64)> {
        match self.kind {
            SlotKind::UInt => Some((self.x as i128, self.d)),
            SlotKind::NInt => Some((self.x as i64 as i128, self.d)),
            _ => None,
        }
    }

    /// `(bits, wide, e)` of a float slot.
    fn float(&self) -> Option<(u64, bool, u8)> {
        match self.kind {
            SlotKind::F32 => Some((self.x, false, self.e)),
            SlotKind::F64 => Some((self.x, true, self.e)),
            _ => None,
        }
    }

    /// The step from this slot's integer to `v`, if the slot holds one and the step fits
    /// an `i64`.
    #[inline(always)]
    fn step_to(&self, v: i128) -> Option<i64> {
        self.int()
            .and_then(|(last, _)| i64::try_from(v - last).ok())
    }

    /// The slot of integer `v` reached by `step` (`None`: no step, `d` = 0).
    #[inline(always)]
    fn of_int(v: i128, step: Option<i64>) -> Slot {
        Slot {
            x: v as u64,
            d: step.unwrap_or(0),
            kind: if v < 0 {
                SlotKind::NInt
            } else {
                SlotKind::UInt
            },
            e: 0,
        }
    }

    /// The slot after value `v`; `e`: the exponent of a decimal form, if `v` came as one.
    #[inline]
    fn next(self, v: NumVal, e: Option<u8>) -> Slot {
        match v {
            NumVal::Int(v) => Slot::of_int(v, self.step_to(v)),
            NumVal::F32(b) => self.next_float(b as u64, SlotKind::F32, e),
            NumVal::F64(b) => self.next_float(b, SlotKind::F64, e),
        }
    }

    fn next_float(self, bits: u64, kind: SlotKind, e: Option<u8>) -> Slot {
        let kept = if self.kind == kind { self.e } else { 0 };
        Slot {
            x: bits,
            d: 0,
            kind,
            e: e.unwrap_or(kept),
        }
    }
}

/// The per-field slots of one side, with the encoder's undo log.
#[derive(Clone, Debug, Default)]
pub(crate) struct NumSlots {
    slots: Vec<Slot>,
    /// `(slot, old value)` of every write while a checkpoint is open.
    undo: Vec<(u32, Slot)>,
    logging: bool,
}

/// How one value goes on the wire.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Pick {
    /// The plain token, as written.
    Plain,
    /// `F0`.
    Same,
    /// `F1 uvarint(payload)`; `e`: a float's decimal exponent.
    Delta(u64, Option<u8>),
    /// `FD mode uvarint(payload)`; `e`: the decimal exponent (`None`: an XOR form).
    Float(u8, u64, Option<u8>),
}

impl Pick {
    fn cost(self, plain: usize) -> usize {
        match self {
            Pick::Plain => plain,
            Pick::Same => 1,
            Pick::Delta(p, _) => 1 + uvarint_len(p),
            Pick::Float(_, p, _) => 2 + uvarint_len(p),
        }
    }
}

/// Whether `v` is an integer of the 64-bit forms.
#[inline]
fn int_in_range(v: i128) -> bool {
    (i64::MIN as i128..=u64::MAX as i128).contains(&v)
}

/// `round(last · 10^e)`, the decimal step's base, if it is within ±2^53.
fn decimal_base(last: u64, wide: bool, e: u8) -> Option<i64> {
    let last = if wide {
        f64::from_bits(last)
    } else {
        f32::from_bits(last as u32) as f64
    };
    let n = (last * POW10[e as usize]).round_ties_even();
    // NaN fails the comparison.
    (n.abs() <= MAX_STEP_INT).then_some(n as i64)
}

/// The bits of `(n0 + step) / 10^e` (rounded to `f32` if not `wide`), if `n0 + step` is
/// within ±2^53.
fn decimal_bits(n0: i64, step: i64, wide: bool, e: u8) -> Option<u64> {
    let n = n0.checked_add(step)?;
    if n.unsigned_abs() > MAX_STEP_INT as u64 {
        return None;
    }
    let v = n as f64 / POW10[e as usize];
    Some(if wide {
        v.to_bits()
    } else {
        (v as f32).to_bits() as u64
    })
}

/// The step from `last` to the float `bits` at exponent `e`, if the decimal form at `e`
/// gives `bits` back exactly.
fn decimal_step(last: u64, bits: u64, wide: bool, e: u8) -> Option<i64> {
    let n0 = decimal_base(last, wide, e)?;
    let v = if wide {
        f64::from_bits(bits)
    } else {
        f32::from_bits(bits as u32) as f64
    };
    let n = (v * POW10[e as usize]).round_ties_even();
    if n.is_nan() || n.abs() > MAX_STEP_INT {
        return None;
    }
    let step = (n as i64).checked_sub(n0)?;
    (decimal_bits(n0, step, wide, e) == Some(bits)).then_some(step)
}

/// What each tag byte starts, for the slot tests: `1..=9`, a plain number a slot keeps
/// (the 64-bit integer forms, `f32`, `f64`) of that many bytes with its tag; [`PREDICTED`],
/// a predicted form (`F0`, `F1`, `FD`); 0, anything else. One load answers each test.
const TAG_CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i <= tags::FIXINT_MAX as usize {
        t[i] = 1;
        i += 1;
    }
    let mut i = tags::NEGFIXINT as usize;
    while i <= tags::NEGFIXINT_MAX as usize {
        t[i] = 1;
        i += 1;
    }
    t[tags::U8 as usize] = 2;
    t[tags::I8 as usize] = 2;
    t[tags::U16 as usize] = 3;
    t[tags::I16 as usize] = 3;
    t[tags::U32 as usize] = 5;
    t[tags::I32 as usize] = 5;
    t[tags::F32 as usize] = 5;
    t[tags::U64 as usize] = 9;
    t[tags::I64 as usize] = 9;
    t[tags::F64 as usize] = 9;
    t[tags::NUM_SAME as usize] = PREDICTED;
    t[tags::NUM_DELTA as usize] = PREDICTED;
    t[tags::NUM_FLOAT as usize] = PREDICTED;
    // The starts of values a text slot follows (`docs/SPEC.md` §15.3): inline strings, the
    // string definition, and `F2` (the prefix form and hex text among the extensions); a
    // reference leaves the text, so it is no class and costs a slot nothing.
    let mut i = tags::FIXSTR as usize;
    while i <= tags::FIXSTR_MAX as usize {
        t[i] = TEXT;
        i += 1;
    }
    t[tags::STR8 as usize] = TEXT;
    t[tags::STR16 as usize] = TEXT;
    t[tags::STR32 as usize] = TEXT;
    t[tags::INTERN_STR as usize] = TEXT;
    t[tags::EXT as usize] = TEXT;
    t
};

/// [`TAG_CLASS`] of the values a text slot follows.
pub(crate) const TEXT: u8 = 0x40;

/// [`slot_class`] bits a shape access tests: numbers (plain and predicted), and with
/// per-field strings also [`TEXT`].
pub(crate) const NUM_CLASSES: u8 = 0x8F;

/// The class of a value starting with `tag` for the slot tests: 1..=9 a plain number,
/// [`PREDICTED`], [`TEXT`], or 0.
#[inline(always)]
pub(crate) fn slot_class(tag: u8) -> u8 {
    TAG_CLASS[tag as usize]
}

/// [`TAG_CLASS`] of the predicted forms.
pub(crate) const PREDICTED: u8 = 0x80;

/// The number the plain token at the front of `b` holds, if `b` starts with one (the
/// 64-bit integer forms, `f32`, `f64`; minimality is the reader's business).
#[inline]
pub(crate) fn plain_num(b: &[u8]) -> Option<NumVal> {
    let (&tag, rest) = b.split_first()?;
    if tag <= tags::FIXINT_MAX {
        return Some(NumVal::Int(tag as i128));
    }
    fn le<const N: usize>(rest: &[u8]) -> Option<u64> {
        let b: [u8; N] = rest.get(..N)?.try_into().ok()?;
        let mut a = [0u8; 8];
        a[..N].copy_from_slice(&b);
        Some(u64::from_le_bytes(a))
    }
    Some(match tag {
        tags::NEGFIXINT..=tags::NEGFIXINT_MAX => NumVal::Int(-((tag & 7) as i128) - 1),
        tags::U8 => NumVal::Int(*rest.first()? as i128),
        tags::U16 => NumVal::Int(le::<2>(rest)? as i128),
        tags::U32 => NumVal::Int(le::<4>(rest)? as i128),
        tags::U64 => NumVal::Int(le::<8>(rest)? as i128),
        tags::I8 => NumVal::Int(*rest.first()? as i8 as i128),
        tags::I16 => NumVal::Int(le::<2>(rest)? as u16 as i16 as i128),
        tags::I32 => NumVal::Int(le::<4>(rest)? as u32 as i32 as i128),
        tags::I64 => NumVal::Int(le::<8>(rest)? as i64 as i128),
        tags::F32 => NumVal::F32(le::<4>(rest)? as u32),
        tags::F64 => NumVal::F64(le::<8>(rest)?),
        _ => return None,
    })
}

/// Whether `tag` starts a predicted number (`F0`, `F1`, `FD`).
#[inline(always)]
pub(crate) fn is_predicted(tag: u8) -> bool {
    TAG_CLASS[tag as usize] == PREDICTED
}

#[cold]
fn bad(what: &'static str) -> Error {
    Error::new(ErrorCode::BadCodec(what))
}

impl NumSlots {
    /// Slot `k`, the slots grown to hold it (a slot beyond the ones used so far is empty).
    #[inline(always)]
    fn slot_mut(&mut self, k: usize) -> &mut Slot {
        if k >= self.slots.len() {
            self.grow(k);
        }
        &mut self.slots[k]
    }

    /// Grows the slots to hold slot `k`.
    #[cold]
    #[inline(never)]
    fn grow(&mut self, k: usize) {
        self.slots.resize(k + 1, Slot::default());
    }

    #[inline]
    fn get(&mut self, k: usize) -> Slot {
        *self.slot_mut(k)
    }

    /// Writes slot `k`, logging its old value while a checkpoint is open.
    #[inline(always)]
    fn set(&mut self, k: usize, s: Slot) {
        let logging = self.logging;
        let old = std::mem::replace(self.slot_mut(k), s);
        if logging {
            self.undo.push((k as u32, old));
        }
    }

    /// Replaces slot `k` by what `f` makes of it, with one lookup, logging the old value
    /// while a checkpoint is open; returns `f`'s other result.
    #[inline(always)]
    fn update<R>(&mut self, k: usize, f: impl FnOnce(Slot) -> (Slot, R)) -> R {
        if k >= self.slots.len() {
            self.grow(k);
        }
        let slot = &mut self.slots[k];
        let old = *slot;
        let (next, r) = f(old);
        *slot = next;
        if self.logging {
            self.undo.push((k as u32, old));
        }
        r
    }

    /// Decoder: a plain number `v` was read as the value of slot `k`.
    #[inline]
    pub(crate) fn observe(&mut self, k: usize, v: NumVal) {
        self.update(k, |s| (s.next(v, None), ()));
    }

    /// Encoder: the value of slot `k` was just written plain at `out[at..]`. If it is a
    /// number, updates the slot and replaces the token by a predicted form when that is
    /// shorter (ties keep the plain token).
    #[inline(never)]
    pub(crate) fn encode(&mut self, out: &mut Vec<u8>, at: usize, k: usize) {
        let Some(v) = out.get(at..).and_then(plain_num) else {
            return;
        };
        let plain = out.len() - at;
        // Integers (most numbers) without the float machinery of `best`, and the step
        // computed once for the pick and the slot.
        let NumVal::Int(v) = v else {
            return self.encode_float(out, at, k, v);
        };
        let pick = self.update(k, |slot| {
            let step = slot.step_to(v);
            (Slot::of_int(v, step), int_pick(step, slot.d, plain))
        });
        match pick {
            Pick::Same => {
                out[at] = tags::NUM_SAME;
                out.truncate(at + 1);
            }
            Pick::Delta(p, _) => {
                out[at] = tags::NUM_DELTA;
                // Shorter than the token it replaces, so written in place.
                let n = put_uvarint(&mut out[at + 1..], p);
                out.truncate(at + 1 + n);
            }
            Pick::Plain | Pick::Float(..) => {}
        }
    }

    /// [`encode`](Self::encode) of a float `v`.
    #[inline(never)]
    fn encode_float(&mut self, out: &mut Vec<u8>, at: usize, k: usize, v: NumVal) {
        let plain = out.len() - at;
        let pick = self.update(k, |slot| {
            let pick = best(slot, v, plain);
            let e = match pick {
                Pick::Delta(_, e) | Pick::Float(_, _, e) => e,
                Pick::Plain | Pick::Same => None,
            };
            (slot.next(v, e), pick)
        });
        let len = match pick {
            Pick::Plain => return,
            Pick::Same => {
                out[at] = tags::NUM_SAME;
                1
            }
            Pick::Delta(p, _) => {
                out[at] = tags::NUM_DELTA;
                1 + put_uvarint(&mut out[at + 1..], p)
            }
            Pick::Float(mode, p, _) => {
                out[at] = tags::NUM_FLOAT;
                out[at + 1] = mode;
                2 + put_uvarint(&mut out[at + 2..], p)
            }
        };
        // The form is shorter than the token it replaces, so it was written in place.
        out.truncate(at + len);
    }

    /// Decoder: the predicted form `tag` (consumed) whose payload starts `buf`, as the value
    /// of slot `k`: the value and the payload bytes used. Errors (offsets relative to `buf`):
    /// [`ErrorCode::BadCodec`] for a form the slot cannot take (an empty slot, a float form
    /// on an integer), a result outside the 64-bit integers or ±2^53 steps, a non-canonical
    /// XOR, an unknown `FD` mode; varint errors.
    pub(crate) fn decode(&mut self, k: usize, tag: u8, buf: &[u8]) -> Result<(NumVal, usize)> {
        let slot = self.get(k);
        // Integers first (most slots): the step is known, so the next slot is the value and
        // that step (what `Slot::next` would compute again in `i128`).
        if let Some((last, d)) = slot.int() {
            let (step, used) = match tag {
                tags::NUM_SAME => (d, 0),
                tags::NUM_DELTA => {
                    let (z, used) = read_uvarint(buf)?;
                    let x = unzigzag(z >> 1);
                    let step = if z & 1 == 0 {
                        x
                    } else {
                        d.checked_add(x)
                            .ok_or_else(|| bad("delta-of-delta overflows"))?
                    };
                    (step, used)
                }
                _ => {
                    return Err(bad(
                        "a float form in a field whose last number is an integer",
                    ));
                }
            };
            let v = last + step as i128;
            if !int_in_range(v) {
                return Err(int_range());
            }
            self.set(k, Slot::of_int(v, Some(step)));
            return Ok((NumVal::Int(v), used));
        }
        let (v, e, used) = match (tag, slot.float()) {
            (tags::NUM_SAME, Some((bits, wide, _))) => (float_val(bits, wide), None, 0),
            (tags::NUM_DELTA, Some((last, wide, e))) => {
                let (z, used) = read_uvarint(buf)?;
                (decimal(last, wide, e, unzigzag(z))?, Some(e), used)
            }
            (tags::NUM_FLOAT, Some((last, wide, _))) => {
                let &mode = buf.first().ok_or_else(|| {
                    Error::new(ErrorCode::UnexpectedEof {
                        expected: "a float form's mode",
                    })
                })?;
                let (p, used) = read_uvarint(&buf[1..]).map_err(|e| e.with_offset(1))?;
                match mode {
                    0..=MAX_EXP => (
                        decimal(last, wide, mode, unzigzag(p))?,
                        Some(mode),
                        1 + used,
                    ),
                    _ => (xor(last, wide, mode, p)?, None, 1 + used),
                }
            }
            (tags::NUM_SAME | tags::NUM_DELTA, None) => {
                return Err(bad("a predicted number in a field with no number yet"));
            }
            _ => {
                return Err(bad(
                    "a float form in a field whose last number is an integer",
                ));
            }
        };
        self.set(k, slot.next(v, e));
        Ok((v, used))
    }

    /// The decimal exponent slot `k` keeps (0 for a slot beyond the ones used).
    pub(crate) fn exp(&self, k: usize) -> u8 {
        self.slots.get(k).map_or(0, |s| s.e)
    }

    /// Starts logging for an encoder checkpoint.
    pub(crate) fn mark(&mut self) {
        self.undo.clear();
        self.logging = true;
    }

    /// Keeps the changes since [`mark`](Self::mark).
    pub(crate) fn commit(&mut self) {
        self.undo.clear();
        self.logging = false;
        if self.undo.capacity() > UNDO_KEEP {
            self.undo.shrink_to(UNDO_KEEP);
        }
    }

    /// Restores the slots of the last [`mark`](Self::mark).
    pub(crate) fn rollback(&mut self) {
        while let Some((k, old)) = self.undo.pop() {
            self.slots[k as usize] = old;
        }
        self.logging = false;
    }

    /// Starts a trial: the undo log's length and whether a checkpoint logs.
    pub(crate) fn trial(&mut self) -> (usize, bool) {
        let t = (self.undo.len(), self.logging);
        self.logging = true;
        t
    }

    /// Keeps the changes of trial `t` (inside a checkpoint, for its rollback).
    pub(crate) fn trial_keep(&mut self, t: (usize, bool)) {
        if !t.1 {
            self.undo.clear();
            self.logging = false;
        }
    }

    /// Restores the slots of trial `t`.
    pub(crate) fn trial_rollback(&mut self, t: (usize, bool)) {
        while self.undo.len() > t.0 {
            let (k, old) = self.undo.pop().expect("longer than the mark");
            self.slots[k as usize] = old;
        }
        self.logging = t.1;
    }

    /// Empties every slot, keeping the allocation (a renewal).
    pub(crate) fn clear(&mut self) {
        self.slots.clear();
        self.undo.clear();
        self.logging = false;
    }

    /// Heap bytes held: slots and undo log, by capacity.
    pub(crate) fn heap_bytes(&self) -> u64 {
        (self.slots.capacity() * std::mem::size_of::<Slot>()
            + self.undo.capacity() * std::mem::size_of::<(u32, Slot)>()) as u64
    }
}

/// Writes `v` as a uvarint at the front of `buf`, which has room for it; returns its length.
#[inline]
pub(crate) fn put_uvarint(buf: &mut [u8], mut v: u64) -> usize {
    let mut n = 0;
    while v >= 0x80 {
        buf[n] = v as u8 | 0x80;
        v >>= 7;
        n += 1;
    }
    buf[n] = v as u8;
    n + 1
}

/// [`best`] for an integer whose plain token takes `plain` bytes: `step` is its distance
/// from the slot's integer (`None`: no integer, or a step beyond `i64`), `d` the slot's step.
#[inline(always)]
fn int_pick(step: Option<i64>, d: i64, plain: usize) -> Pick {
    let Some(x) = step else {
        return Pick::Plain;
    };
    // Nothing is shorter than a 1-byte token, and only `F0` than a 2-byte one.
    if x == d {
        return if plain > 1 { Pick::Same } else { Pick::Plain };
    }
    if plain <= 2 {
        return Pick::Plain;
    }
    // The shorter of delta and delta of delta (a tie keeps the delta), if shorter than plain.
    let cost = |p: Option<u64>| p.map_or(usize::MAX, |p| 1 + uvarint_len(p));
    let delta = int_step(x, 0);
    let dod = x.checked_sub(d).and_then(|y| int_step(y, 1));
    let (p, c) = if cost(dod) < cost(delta) {
        (dod, cost(dod))
    } else {
        (delta, cost(delta))
    };
    match p {
        Some(p) if c < plain => Pick::Delta(p, None),
        _ => Pick::Plain,
    }
}

#[cold]
fn int_range() -> Error {
    bad("a predicted integer outside the 64-bit forms")
}

fn float_val(bits: u64, wide: bool) -> NumVal {
    if wide {
        NumVal::F64(bits)
    } else {
        NumVal::F32(bits as u32)
    }
}

fn decimal(last: u64, wide: bool, e: u8, step: i64) -> Result<NumVal> {
    decimal_base(last, wide, e)
        .and_then(|n0| decimal_bits(n0, step, wide, e))
        .map(|b| float_val(b, wide))
        .ok_or_else(|| {
            let finite = if wide {
                f64::from_bits(last).is_finite()
            } else {
                f32::from_bits(last as u32).is_finite()
            };
            bad(if finite {
                "a decimal step beyond 2^53"
            } else {
                "a decimal step from a NaN or infinite number"
            })
        })
}

fn xor(last: u64, wide: bool, mode: u8, p: u64) -> Result<NumVal> {
    let width = if wide { 64 } else { 32 };
    let tz = mode.wrapping_sub(XOR_MODE) as u32;
    if mode < XOR_MODE || tz >= width {
        return Err(bad("an unknown float form mode"));
    }
    // Canonical: the lowest set bit of the XOR is bit `tz`, and nothing is shifted out.
    if p & 1 == 0 || (p << tz) >> tz != p || (width == 32 && (p << tz) >> 32 != 0) {
        return Err(bad("a float XOR that is not canonical"));
    }
    Ok(float_val(last ^ (p << tz), wide))
}

/// The shortest form so far of one value whose plain token takes `plain` bytes.
struct Best {
    pick: Pick,
    plain: usize,
}

impl Best {
    fn cost(&self) -> usize {
        self.pick.cost(self.plain)
    }

    /// Takes `p` if it is strictly shorter, so a tie keeps the earlier candidate.
    fn consider(&mut self, p: Pick) {
        if p.cost(self.plain) < self.cost() {
            self.pick = p;
        }
    }
}

/// The shortest form of `v` in `slot`: plain, unless a form is strictly shorter; candidates
/// in the order same, delta, delta-of-delta (integers) or same, decimal step, XOR, decimal
/// at another exponent (floats), and a tie between forms keeps the earlier.
fn best(slot: Slot, v: NumVal, plain: usize) -> Pick {
    let mut b = Best {
        pick: Pick::Plain,
        plain,
    };
    match v {
        NumVal::Int(v) => {
            // Steps that do not fit an i64 have no form.
            if let Some((last, d)) = slot.int()
                && let Ok(x) = i64::try_from(v - last)
            {
                if x == d {
                    b.consider(Pick::Same);
                } else {
                    if let Some(p) = int_step(x, 0) {
                        b.consider(Pick::Delta(p, None));
                    }
                    if let Some(p) = x.checked_sub(d).and_then(|y| int_step(y, 1)) {
                        b.consider(Pick::Delta(p, None));
                    }
                }
            }
        }
        NumVal::F32(bits) => float_forms(slot, bits as u64, false, &mut b),
        NumVal::F64(bits) => float_forms(slot, bits, true, &mut b),
    }
    b.pick
}

/// `F1`'s payload for integer step `x` with mode bit `mode`, if `x` fits ±2^62.
#[inline]
fn int_step(x: i64, mode: u64) -> Option<u64> {
    if !(-(1i64 << 62)..(1i64 << 62)).contains(&x) {
        return None;
    }
    Some(zigzag(x) << 1 | mode)
}

/// The float candidates of [`best`] (a slot of the other width or kind takes none).
fn float_forms(slot: Slot, bits: u64, wide: bool, b: &mut Best) {
    let Some((last, slot_wide, e)) = slot.float() else {
        return;
    };
    if slot_wide != wide {
        return;
    }
    if bits == last {
        b.consider(Pick::Same);
        return;
    }
    if let Some(step) = decimal_step(last, bits, wide, e) {
        b.consider(Pick::Delta(zigzag(step), Some(e)));
    }
    let x = bits ^ last;
    let tz = x.trailing_zeros();
    b.consider(Pick::Float(XOR_MODE + tz as u8, x >> tz, None));
    // A decimal form at another exponent costs at least 3 bytes.
    if b.cost() > 3
        && let Some((e2, step)) = (0..=MAX_EXP)
            .filter(|&e2| e2 != e)
            .find_map(|e2| decimal_step(last, bits, wide, e2).map(|s| (e2, s)))
    {
        b.consider(Pick::Float(e2, zigzag(step), Some(e2)));
    }
}

#[cfg(test)]
mod tests;
