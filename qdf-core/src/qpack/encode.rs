//! Packing of sequences of one primitive type (Balanced, [`Features::QPACK`]): a sequence,
//! tuple or array whose elements are all integers, all `f32`, all `f64` or all `bool` is
//! written as one QPack value (`docs/SPEC.md` §19) instead of an array, when it has at
//! least [`MIN_PACK`] elements and the packed form is strictly smaller.
//!
//! The sequence collector offers each element to the primitive probe ([`crate::sink::prim`]).
//! Elements are buffered (nothing is written after the array header) while they fit one
//! class; when one does not, the buffer is written as plain elements after the header and the
//! sequence continues plain, so nothing already written changes. At the end the header is
//! either kept (plain) or cut off and replaced by the packed value.
//!
//! The element kind on the wire depends only on the values, never on the Rust type: unsigned
//! when no value is negative, else signed, at the narrowest width that holds every value. So a
//! `Vec<i32>` and the `Value` decoded from it encode to the same bytes.

use serde::Serialize;

use crate::codec::{self, Kind, pick};
use crate::error::Result;
use crate::options::{Features, Options};
use crate::sink::prim::{Prim, probe};
use crate::sink::{Header, Sink};
use crate::wire::form::{Form, header_bytes, int_len};
pub(crate) use Class as PackClass;

/// Sequences shorter than this stay plain arrays.
pub(crate) const MIN_PACK: usize = 8;

/// The class a buffer holds.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    Bool,
    Int,
    F32,
    F64,
}

/// The buffered elements of a sequence that may still be packed.
#[derive(Debug, Default)]
pub(crate) struct PackBuf {
    class: Option<Class>,
    /// Bits of every element (bools as 0/1, floats as IEEE-754 bits).
    vals: Vec<u64>,
    /// Some integer is negative.
    neg: bool,
    /// Some integer is above `i64::MAX` (so it cannot share a signed kind with a negative).
    big: bool,
}

impl PackBuf {
    /// A buffer holding `vals` (bits as [`PackBuf::offer`] stores them) of `class`; `neg`:
    /// some integer is negative.
    pub(crate) fn of(class: Class, vals: Vec<u64>, neg: bool) -> PackBuf {
        let big = class == Class::Int && !neg && vals.iter().any(|&v| v > i64::MAX as u64);
        PackBuf {
            class: Some(class),
            vals,
            neg,
            big,
        }
    }

    /// The bytes Balanced writes for a sequence of these elements: the packed value when it
    /// is strictly smaller, else the plain array. Uses no Dense state.
    pub(crate) fn encode_seq(self, opts: &Options) -> Result<Vec<u8>> {
        // The caller wraps the whole body in an entropy-coded block if it pays.
        let feats = opts
            .feature_bits()
            .without(Features::DENSE)
            .without(Features::ENTROPY);
        // What `finish` leaves after a header at 0, without a sink for the packed case.
        if let Some(packed) = self.packed(feats)? {
            return Ok(packed);
        }
        let mut s = Sink::new(Vec::new(), opts.features(feats));
        s.write_header(Header::Array, self.vals.len())?;
        self.write_plain(&mut s);
        Ok(s.into_inner())
    }

    /// Buffers `value` if it is a primitive of the buffer's class; `false` if it is not (the
    /// caller then writes the buffer plain with [`PackBuf::write_plain`] and continues plain).
    pub(crate) fn offer<T: ?Sized + Serialize>(&mut self, value: &T) -> bool {
        let Some(p) = probe(value) else {
            return false;
        };
        let (class, bits) = match p {
            Prim::Bool(b) => (Class::Bool, b as u64),
            Prim::Int(v, neg) => {
                let big = !neg && v > i64::MAX as u64;
                if (neg && self.big) || (big && self.neg) {
                    return false;
                }
                self.neg |= neg;
                self.big |= big;
                (Class::Int, v)
            }
            Prim::F32(f) => (Class::F32, f.to_bits() as u64),
            Prim::F64(f) => (Class::F64, f.to_bits()),
        };
        if *self.class.get_or_insert(class) != class {
            return false;
        }
        self.vals.push(bits);
        true
    }

    /// Writes the buffered elements as plain values, in their Speed forms.
    pub(crate) fn write_plain(self, sink: &mut Sink) {
        for &v in &self.vals {
            sink.write_form(match self.class {
                Some(Class::Bool) => Form::bool(v == 1),
                Some(Class::Int) if self.neg => Form::i64(v as i64),
                Some(Class::Int) => Form::u64(v),
                Some(Class::F32) => Form::f32(f32::from_bits(v as u32)),
                Some(Class::F64) | None => Form::f64(f64::from_bits(v)),
            });
        }
    }

    /// Ends the sequence whose header starts at `start`: replaces the header by the packed
    /// value and returns `true` when that is strictly smaller than the plain array, else
    /// writes the elements plain and returns `false`.
    pub(crate) fn finish(self, sink: &mut Sink, start: usize) -> Result<bool> {
        let n = self.vals.len();
        let Some(packed) = self.packed(sink.opts().feature_bits())? else {
            self.write_plain(sink);
            return Ok(false);
        };
        let packed = sink.entropy_wrap(packed);
        sink.truncate(start);
        sink.extend(&packed);
        sink.note_codec_tag();
        // The decoder charges a packed element its width, 8 units (§19).
        sink.count_output((n as u64).saturating_mul(crate::codec::cursor::ELEMENT_CHARGE));
        Ok(true)
    }

    /// The packed value under `feats` when it is strictly smaller than the plain array
    /// (before any entropy stage), else `None`. Allocated at its exact size: the pickers
    /// cost exactly.
    fn packed(&self, feats: Features) -> Result<Option<Vec<u8>>> {
        let n = self.vals.len();
        let (Some(class), true) = (self.class, n >= MIN_PACK) else {
            return Ok(None);
        };
        let plain = header_bytes(Header::Array, n)?.as_slice().len() + self.plain_len();
        let mut packed = Vec::new();
        match class {
            Class::Bool => {
                let cost = codec::bools::cost(n);
                if cost < plain {
                    let b: Vec<bool> = self.vals.iter().map(|&v| v == 1).collect();
                    packed.reserve_exact(cost);
                    codec::encode_bools(&b, &mut packed);
                }
            }
            Class::Int => {
                let kind = self.int_kind();
                let (choice, cost) = pick::choose_int(&self.vals, kind);
                if cost < plain {
                    packed.reserve_exact(cost);
                    pick::write_int(&self.vals, kind, choice, &mut packed);
                }
            }
            Class::F32 => {
                let f: Vec<f32> = self
                    .vals
                    .iter()
                    .map(|&v| f32::from_bits(v as u32))
                    .collect();
                let (choice, cost) = pick::choose_f32(&f, feats);
                if cost < plain {
                    packed.reserve_exact(cost);
                    pick::write_f32(&f, choice, &mut packed);
                }
            }
            Class::F64 => {
                let f: Vec<f64> = self.vals.iter().map(|&v| f64::from_bits(v)).collect();
                let (choice, cost) = pick::choose_f64(&f, feats);
                if cost < plain {
                    packed.reserve_exact(cost);
                    pick::write_f64(&f, choice, &mut packed);
                }
            }
        }
        Ok((!packed.is_empty()).then_some(packed))
    }

    /// The narrowest kind holding every buffered integer: signed if any is negative.
    fn int_kind(&self) -> Kind {
        let fits = |lo: i64, hi: u64| {
            self.vals.iter().all(|&v| {
                if self.neg {
                    (v as i64) >= lo && (v as i64) <= hi as i64
                } else {
                    v <= hi
                }
            })
        };
        let kinds: [(Kind, i64, u64); 3] = if self.neg {
            [
                (Kind::I8, i8::MIN as i64, i8::MAX as u64),
                (Kind::I16, i16::MIN as i64, i16::MAX as u64),
                (Kind::I32, i32::MIN as i64, i32::MAX as u64),
            ]
        } else {
            [
                (Kind::U8, 0, u8::MAX as u64),
                (Kind::U16, 0, u16::MAX as u64),
                (Kind::U32, 0, u32::MAX as u64),
            ]
        };
        let wide = if self.neg { Kind::I64 } else { Kind::U64 };
        kinds
            .iter()
            .find(|&&(_, lo, hi)| fits(lo, hi))
            .map_or(wide, |&(k, _, _)| k)
    }

    /// Bytes of the elements in their Speed forms (`docs/SPEC.md` §3).
    fn plain_len(&self) -> usize {
        match self.class {
            Some(Class::Bool) => self.vals.len(),
            Some(Class::Int) => self
                .vals
                .iter()
                .map(|&v| int_len(v, self.neg && (v as i64) < 0))
                .sum(),
            Some(Class::F32) => 5 * self.vals.len(),
            Some(Class::F64) | None => 9 * self.vals.len(),
        }
    }
}

/// True if an encoder with `opts` packs sequences.
#[inline]
pub(crate) fn packs(opts: &Options) -> bool {
    opts.has(Features::QPACK)
}

#[cfg(test)]
mod tests;
