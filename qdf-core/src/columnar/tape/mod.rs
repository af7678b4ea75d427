//! A faithful capture of any serde value, for the columnar collector (`crate::columnar`):
//! a [`Tape`] records the serde calls a `Serialize` impl made as one flat list of [`Ev`]
//! events (strings and wide integers in one byte arena, `&'static str` names in a side
//! table), and [`EvRef`] replays exactly those calls. So a value captured now and replayed
//! into the real serializer later produces the bytes direct serialization would have
//! produced. One tape holds a whole batch: capturing a value allocates nothing per value.
//!
//! [`CellSer`] is the entry point for one struct field: primitives become a compact
//! [`Cell`] (strings go into the arena), anything else events on the tape. Both
//! serializers count depth like the real one (one level per container, `Some` and variant
//! with a payload; two for tuple and struct variants) and refuse at the same limit, so a
//! value the real serializer would refuse is never captured. They also refuse what the
//! real serializer refuses in every case (a map key without its value, a value without its
//! key), so the caller serializes such a value directly and gets the real error.
mod capture;
mod replay;
#[cfg(test)]
mod tests;

pub(crate) use capture::CellSer;
pub(crate) use replay::{CellRef, EvRef};

use crate::error::{Error, ErrorCode, Result};
use crate::short::{SHORT, as_uninit, copy_short};

/// An announced length; [`NO_LEN`] stands for `None`.
type Len = u64;
/// Most bytes reserved ahead from a batch's announced length ([`Tape::reserve_like`]).
pub(crate) const MAX_RESERVE: usize = 1 << 20;
/// The `None` of an announced [`Len`] (a real `usize::MAX` length is refused when captured).
const NO_LEN: Len = u64::MAX;

/// How a compound was opened (the arguments of the `serialize_*` call); names and variants
/// are indices into [`Tape::names`] and [`Tape::variants`].
#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) enum Open {
    Seq(Len),
    Tuple(Len),
    TupleStruct(u32, Len),
    TupleVariant(u32, Len),
    Map(Len),
    Struct(u32, Len),
    StructVariant(u32, Len),
}

/// One serde call. A value is one event, or a wrapper event (`Some`, newtypes) followed by
/// its payload, or an `Open` followed by its items and closed by `End`.
#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) enum Ev {
    Bool(bool),
    I64(i64),
    U64(u64),
    /// 16 little-endian bytes at `arena[at..]`.
    I128(u32),
    /// 16 little-endian bytes at `arena[at..]`.
    U128(u32),
    /// IEEE-754 bits.
    F32(u32),
    /// IEEE-754 bits.
    F64(u64),
    Char(char),
    /// `arena[start..end]`, bytes of a `&str`.
    Str(u32, u32),
    /// `arena[start..end]`.
    Bytes(u32, u32),
    None,
    /// The payload follows.
    Some,
    Unit,
    UnitStruct(u32),
    UnitVariant(u32),
    /// The payload follows.
    NewtypeStruct(u32),
    /// The payload follows.
    NewtypeVariant(u32),
    /// Items follow up to the `End` at `end`: values of a sequence-like compound, keys and
    /// values alternating in a map, `Field` (then the value) or `Skip` in a struct.
    Open(Open, u32),
    /// `serialize_field(name, …)`; the value follows. The name itself, not an index into
    /// [`Tape::names`]: a struct field is the most frequent event, and the name costs no
    /// push of its own (the event stays 24 bytes).
    Field(&'static str),
    /// `skip_field(name)`.
    Skip(&'static str),
    /// The end of a compound, with the number of values captured in it (a map's keys and
    /// values each count, so its entries are half of it, without a walk over its items).
    End(u32),
}

// A name in the event does not make it larger than the `Open` it already holds.
const _: () = assert!(std::mem::size_of::<Ev>() <= 24);

/// The captured values of one batch.
#[derive(Debug, Default)]
pub(crate) struct Tape {
    pub(crate) evs: Vec<Ev>,
    /// Bytes of every captured string, byte string and 128-bit integer.
    pub(crate) arena: Vec<u8>,
    names: Vec<&'static str>,
    /// `(enum name, variant index, variant name)`.
    variants: Vec<(&'static str, u32, &'static str)>,
    /// `Options::deny_duplicate_keys`: a captured map refuses a key that may equal
    /// an earlier one ([`Tape::key_record`]), and the row goes the direct path, whose
    /// serializer checks keys exactly.
    pub(crate) check_keys: bool,
    /// The key records of the captured maps still open, under `check_keys`.
    pub(crate) key_sets: Vec<std::collections::HashSet<Vec<u8>>>,
}

/// An announced length back as serde's.
pub(crate) fn len_back(l: Len) -> Option<usize> {
    // Captured from a `usize`, so it fits.
    (l != NO_LEN).then_some(l as usize)
}

/// Lengths of a [`Tape`]'s parts, to drop what a failed capture left.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Mark([usize; 4]);

impl Tape {
    /// The current lengths.
    pub(crate) fn mark(&self) -> Mark {
        Mark([
            self.evs.len(),
            self.arena.len(),
            self.names.len(),
            self.variants.len(),
        ])
    }

    /// Drops everything captured (the capacity stays); `check_keys` as it was.
    pub(crate) fn clear(&mut self) {
        self.evs.clear();
        self.arena.clear();
        self.names.clear();
        self.variants.clear();
        self.key_sets.clear();
    }

    /// Bytes the tape's vectors hold (their capacity; the key sets not counted).
    pub(crate) fn footprint(&self) -> usize {
        use std::mem::size_of;
        self.evs.capacity() * size_of::<Ev>()
            + self.arena.capacity()
            + self.names.capacity() * size_of::<&str>()
            + self.variants.capacity() * size_of::<(&str, u32, &str)>()
    }

    /// Drops everything captured after `m`.
    pub(crate) fn rewind(&mut self, m: Mark) {
        self.evs.truncate(m.0[0]);
        self.arena.truncate(m.0[1]);
        self.names.truncate(m.0[2]);
        self.variants.truncate(m.0[3]);
    }

    /// Appends bytes to the arena: their range, or an error past the 4 GiB it addresses.
    /// Short strings (ids, enum-like values) are copied without a `memcpy` call.
    /// Inline: a call costs about as much as the copy of a short string.
    #[inline(always)]
    fn bytes(&mut self, b: &[u8]) -> Result<(u32, u32)> {
        let start = self.arena.len();
        let Ok(end) = u32::try_from(start + b.len()) else {
            return Err(too_many_bytes());
        };
        if b.len() <= SHORT {
            self.arena.reserve(SHORT);
            copy_short(&mut self.arena.spare_capacity_mut()[..SHORT], as_uninit(b));
            // SAFETY: the `b.len() <= SHORT` bytes after the old length were written just
            // above, inside the capacity `reserve` guaranteed.
            unsafe { self.arena.set_len(end as usize) };
        } else {
            self.arena.extend_from_slice(b);
        }
        Ok((start as u32, end))
    }

    /// Reserves room for about `more` values like the `done` captured so far (all of the
    /// tape), at most [`MAX_RESERVE`] bytes each of events and arena.
    pub(crate) fn reserve_like(&mut self, done: usize, more: usize) {
        if done == 0 {
            return;
        }
        let evs = self.evs.len() / done * more;
        let bytes = self.arena.len() / done * more;
        self.evs
            .reserve(evs.min(MAX_RESERVE / std::mem::size_of::<Ev>()));
        self.arena.reserve(bytes.min(MAX_RESERVE));
    }

    /// The index of name `n`: the last one again when it is the same `&'static str` (a
    /// batch of one derived struct names it once, not once a value).
    fn name(&mut self, n: &'static str) -> u32 {
        if let Some(&last) = self.names.last()
            && std::ptr::eq(last, n)
        {
            return (self.names.len() - 1) as u32;
        }
        self.names.push(n);
        (self.names.len() - 1) as u32
    }

    fn variant(&mut self, name: &'static str, index: u32, variant: &'static str) -> u32 {
        self.variants.push((name, index, variant));
        (self.variants.len() - 1) as u32
    }

    #[inline]
    fn push(&mut self, e: Ev) -> u32 {
        self.evs.push(e);
        (self.evs.len() - 1) as u32
    }

    /// The map that starts at event `at`, if the value there is one whose keys and values
    /// alternate: its announced length, its entry count and the event of its first item
    /// (walk the items with [`Tape::next`]).
    pub(crate) fn map_at(&self, at: u32) -> Option<(Option<usize>, usize, usize)> {
        let at = at as usize;
        let Ev::Open(Open::Map(l), end) = *self.evs.get(at)? else {
            return None;
        };
        let Ev::End(items) = *self.evs.get(end as usize)? else {
            return None;
        };
        (items % 2 == 0).then_some((len_back(l), items as usize / 2, at + 1))
    }

    /// The event after the value that starts at `at`.
    pub(crate) fn next(&self, mut at: usize) -> usize {
        loop {
            match self.evs[at] {
                Ev::Open(_, end) => return end as usize + 1,
                Ev::Some | Ev::NewtypeStruct(_) | Ev::NewtypeVariant(_) => at += 1,
                _ => return at + 1,
            }
        }
    }

    /// A loose record of the key captured at event `at`, for [`Tape::check_keys`]: keys that
    /// a decoder finds equal (`de/dupkeys.rs`) have equal records — strings, chars, byte
    /// strings and unit variants by their bytes, integers by value whatever their width,
    /// floats by bits, unit-like values alike, `Some` and newtypes seen through. Looser than
    /// the decoder, never stricter: a false repeat only sends the row to the direct path.
    /// `None` for a key holding a container or a variant with a payload (left to the direct
    /// path too).
    pub(crate) fn key_record(&self, mut at: usize) -> Option<Vec<u8>> {
        let mut rec = Vec::with_capacity(24);
        let int = |rec: &mut Vec<u8>, v: i128| {
            rec.extend_from_slice(&[b'i', (v < 0) as u8]);
            rec.extend_from_slice(&v.to_le_bytes());
        };
        let wide = |a: u32| {
            let mut b = [0u8; 16];
            b.copy_from_slice(&self.arena[a as usize..a as usize + 16]);
            b
        };
        loop {
            match self.evs[at] {
                Ev::Some | Ev::NewtypeStruct(_) => {
                    at += 1;
                    continue;
                }
                Ev::Str(a, b) | Ev::Bytes(a, b) => {
                    rec.push(b's');
                    rec.extend_from_slice(&self.arena[a as usize..b as usize]);
                }
                Ev::Char(c) => {
                    rec.push(b's');
                    rec.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                }
                Ev::UnitVariant(v) => {
                    rec.push(b's');
                    rec.extend_from_slice(self.variants[v as usize].2.as_bytes());
                }
                Ev::Bool(v) => rec.extend_from_slice(&[b'b', v as u8]),
                Ev::I64(v) => int(&mut rec, i128::from(v)),
                Ev::U64(v) => int(&mut rec, i128::from(v)),
                Ev::I128(a) => int(&mut rec, i128::from_le_bytes(wide(a))),
                Ev::U128(a) => {
                    // Above `i128::MAX` only a `u128` holds it: its own tag.
                    let v = u128::from_le_bytes(wide(a));
                    match i128::try_from(v) {
                        Ok(v) => int(&mut rec, v),
                        Err(_) => {
                            rec.push(b'U');
                            rec.extend_from_slice(&v.to_le_bytes());
                        }
                    }
                }
                Ev::F32(v) => {
                    rec.push(b'f');
                    rec.extend_from_slice(&v.to_le_bytes());
                }
                Ev::F64(v) => {
                    rec.push(b'd');
                    rec.extend_from_slice(&v.to_le_bytes());
                }
                Ev::None | Ev::Unit | Ev::UnitStruct(_) => rec.push(b'u'),
                _ => return None,
            }
            return Some(rec);
        }
    }

    /// Whether the newtype struct named by name index `n` is transparent in row mode (not
    /// one of `Value`'s private carriers).
    pub(crate) fn plain_newtype(&self, n: u32) -> bool {
        crate::wire::ext::magic::variant_kind(self.names[n as usize]).is_none()
    }

    /// The variant name at variant index `v` (of a variant event of this tape).
    pub(crate) fn variant_name(&self, v: u32) -> &'static str {
        self.variants[v as usize].2
    }

    /// The name at name index `n` (of an [`Open`] or a wrapper event of this tape).
    pub(crate) fn name_at(&self, n: u32) -> &'static str {
        self.names[n as usize]
    }

    /// The 16 little-endian bytes of the [`Ev::I128`] or [`Ev::U128`] at `arena[a..]`.
    pub(crate) fn wide(&self, a: u32) -> [u8; 16] {
        let mut b = [0u8; 16];
        b.copy_from_slice(&self.arena[a as usize..a as usize + 16]);
        b
    }

    /// The string at `arena[a..b]`, the range of a [`Ev::Str`] or [`Cell::Str`] of this tape.
    #[inline]
    pub(crate) fn str(&self, a: u32, b: u32) -> &str {
        let bytes = &self.arena[a as usize..b as usize];
        // SAFETY: `Ev::Str` and `Cell::Str` ranges are made only by `serialize_str`, from the
        // bytes of a `&str` appended at that range ([`Tape::bytes`]); the arena only grows,
        // or is truncated by [`Tape::rewind`] together with the events and cells captured
        // after the mark, so a range that is still referenced still holds those bytes.
        // Valid UTF-8 is never split: a range covers exactly one appended `&str`.
        debug_assert!(std::str::from_utf8(bytes).is_ok());
        unsafe { std::str::from_utf8_unchecked(bytes) }
    }
}

/// The refusal of a batch whose arena would pass the 4 GiB its `u32` ranges address.
#[cold]
fn too_many_bytes() -> Error {
    Error::new(ErrorCode::Unsupported(
        "a columnar batch of more than 4 GiB of strings",
    ))
}

/// A struct field's value: a primitive inline, anything else on the tape.
#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) enum Cell {
    /// `None` (`C0`).
    Null,
    Bool(bool),
    /// Two's-complement bits and whether the value is negative (value-based, as the row
    /// writer normalises integers).
    Int(u64, bool),
    /// IEEE-754 bits.
    F32(u32),
    /// IEEE-754 bits.
    F64(u64),
    /// A string: `arena[start..end]`.
    Str(u32, u32),
    /// Anything else: the value starting at this event of the tape.
    Other(u32),
}

/// Depth bookkeeping shared by the capturing serializers: the real serializer's count.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Depth {
    pub(crate) depth: u32,
    pub(crate) limit: u32,
}

impl Depth {
    /// `levels` levels deeper, refused exactly where the real serializer refuses (it
    /// enters one level at a time and refuses a level at `depth >= limit`). One compare,
    /// not a loop: it runs for every captured compound.
    #[inline(always)]
    pub(crate) fn enter(self, levels: u32) -> Result<Depth> {
        if levels > self.limit.saturating_sub(self.depth) {
            return Err(depth_limit(self.limit));
        }
        Ok(Depth {
            depth: self.depth + levels,
            limit: self.limit,
        })
    }
}

/// The refusal of a capture past the depth limit (the real serializer's error).
#[cold]
fn depth_limit(limit: u32) -> Error {
    Error::new(ErrorCode::DepthLimit(limit))
}

/// What a capturing serializer returns for a value that went onto the tape.
pub(crate) trait FromTape {
    /// The value starting at event `at`.
    fn at(at: u32) -> Self;
}

impl FromTape for () {
    fn at(_: u32) {}
}

impl FromTape for Cell {
    fn at(at: u32) -> Cell {
        Cell::Other(at)
    }
}
