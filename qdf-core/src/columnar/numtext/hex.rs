//! Hex-text columns (kind bit `20`, `docs/SPEC.md` §22.1): every value is empty or a hex
//! string of one even length over the column, letters in one case (`4bf92f35…`, OTLP's
//! trace and span ids in the JSON mapping, where a root span's parent id is `""`).
//!
//! ```text
//! flags uvarint(L) [⌈V/8⌉ empty mask] [uvarint(c) refs] (V − E − R) × L bytes
//! flags: 01 letters uppercase, 02 the empty mask follows (E = its popcount ≥ 1),
//!        04 references to sibling column c follow (`super::hexref`)
//! ```
//!
//! `L` is the length in bytes (half the characters), so an odd length cannot be written;
//! each byte prints as two digits, high nibble first.

use super::hexref::{self, Pending};
use super::{Body, Form, bad};
use crate::codec::strings::CheckedStrs;
use crate::columnar::mask_len;
use crate::error::Result;
use crate::source::Source;
use crate::wire::varint::{uvarint_len, write_uvarint};

/// Flag: letters are uppercase.
pub(super) const UPPER: u8 = 0x01;
/// Flag: an empty-string mask follows the length.
pub(super) const EMPTIES: u8 = 0x02;
/// Flag: references to a sibling hex column follow the mask (`super::hexref`).
pub(super) const REFS: u8 = 0x04;

/// A hex column's length and case, which a sibling referring to it must share.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct HexShape {
    /// Bytes per non-empty value (`L`).
    pub(crate) len: u64,
    /// Letters `A`–`F`.
    pub(crate) upper: bool,
}

/// Character classes for [`shape`]: a digit, a lowercase or an uppercase hex letter, other.
const DIGIT: u8 = 1;
const LOWER: u8 = 2;
const UPPER_CASE: u8 = 4;
const OTHER: u8 = 8;
const CLASS: [u8; 256] = {
    let mut t = [OTHER; 256];
    let mut c = 0;
    while c < 256 {
        t[c] = match c as u8 {
            b'0'..=b'9' => DIGIT,
            b'a'..=b'f' => LOWER,
            b'A'..=b'F' => UPPER_CASE,
            _ => OTHER,
        };
        c += 1;
    }
    t
};

/// A canonical hex column: characters per non-empty value, case, empty values.
pub(super) struct Shape {
    pub(super) chars: usize,
    pub(super) upper: bool,
    pub(super) empties: usize,
}

/// The shape of `strs` when every value is empty or canonical hex of one length and case,
/// at least one not empty.
pub(super) fn shape(strs: &[&[u8]]) -> Option<Shape> {
    let mut chars = 0;
    let mut seen = 0u8;
    let mut empties = 0;
    for s in strs {
        if s.is_empty() {
            empties += 1;
            continue;
        }
        if chars == 0 {
            chars = s.len();
        }
        if s.len() != chars {
            return None;
        }
        for &c in s.iter() {
            seen |= CLASS[c as usize];
        }
        // Checked a value at a time, so a text column fails on its first value.
        if seen & OTHER != 0 || seen & (LOWER | UPPER_CASE) == LOWER | UPPER_CASE {
            return None;
        }
    }
    (chars > 0 && chars.is_multiple_of(2)).then_some(Shape {
        chars,
        upper: seen & UPPER_CASE != 0,
        empties,
    })
}

/// Writes the flag byte (`UPPER` when `upper`, `more` flags), `L` and the empty-string mask
/// of `v` values, `empty` the empty ones (in order, `e` of them).
pub(super) fn head(
    out: &mut Vec<u8>,
    upper: bool,
    l: u64,
    v: usize,
    e: usize,
    empty: impl Iterator<Item = usize>,
    more: u8,
) {
    out.push(if upper { UPPER } else { 0 } | if e > 0 { EMPTIES } else { 0 } | more);
    write_uvarint(out, l);
    if e > 0 {
        let at = out.len();
        out.resize(at + mask_len(v), 0);
        for i in empty {
            out[at + i / 8] |= 1 << (i % 8);
        }
    }
}

/// The hex body of `strs` when every value is canonical and it is strictly smaller than
/// `beat` bytes.
pub(super) fn encode(strs: &[&[u8]], beat: usize) -> Option<Body> {
    let sh = shape(strs)?;
    let v = strs.len();
    let l = sh.chars / 2;
    let mask = if sh.empties > 0 { mask_len(v) } else { 0 };
    let cost = 1 + uvarint_len(l as u64) + mask + (v - sh.empties) * l;
    if cost >= beat {
        return None;
    }
    let mut out = Vec::with_capacity(cost);
    let empty = strs.iter().enumerate().filter(|(_, s)| s.is_empty());
    head(
        &mut out,
        sh.upper,
        l as u64,
        v,
        sh.empties,
        empty.map(|(i, _)| i),
        0,
    );
    for s in strs {
        out.extend(crate::wire::hex::packed(s));
    }
    debug_assert_eq!(out.len(), cost);
    Some(Body {
        text: Form::Hex,
        bytes: out,
        units: ((v - sh.empties) * sh.chars) as u64,
    })
}

/// What a number-text body read: its values printed (with a hex column's shape), or (hex
/// flag `04`) references still to resolve against a sibling column once every sibling is
/// read ([`hexref::resolve`]).
pub(crate) enum Read<'de> {
    Values(CheckedStrs<'de>, Option<HexShape>),
    Refs(Box<Pending<'de>>),
}

/// Reads a hex body of `v` values. `indexed`: under the column index, where a reader may skip
/// a sibling unread, a body with references is an error.
pub(super) fn read<'de>(src: &mut Source<'de>, v: usize, indexed: bool) -> Result<Read<'de>> {
    let at = src.offset();
    let flags = src.next("a hex column's flag byte")?;
    if flags & !(UPPER | EMPTIES | REFS) != 0 {
        return Err(bad(at, "hex column flag bits other than 01, 02 and 04 set"));
    }
    if flags & REFS != 0 && indexed {
        return Err(bad(at, "hex column references under the column index"));
    }
    let len_at = src.offset();
    let l = src.uvarint()?;
    if l == 0 {
        return Err(bad(len_at, "a hex column's value length is 0 bytes"));
    }
    let shape = HexShape {
        len: l,
        upper: flags & UPPER != 0,
    };
    let (mask, empties) = if flags & EMPTIES != 0 {
        let mask_at = src.offset();
        let n = mask_len(v);
        let mask = src.take(n, "a hex column's empty-string mask")?;
        if !v.is_multiple_of(8) && mask[n - 1] >> (v % 8) != 0 {
            return Err(bad(
                mask_at + n as u64 - 1,
                "mask padding bits must be zero",
            ));
        }
        let e: usize = mask.iter().map(|b| b.count_ones() as usize).sum();
        if e == 0 {
            return Err(bad(
                mask_at,
                "a hex column's empty-string mask has no bit set",
            ));
        }
        if e == v {
            return Err(bad(
                mask_at,
                "a hex column's empty-string mask has every bit set",
            ));
        }
        (mask, e)
    } else {
        (&[][..], 0)
    };
    if flags & REFS != 0 {
        return hexref::read(src, at, shape, v, mask, empties).map(|p| Read::Refs(Box::new(p)));
    }
    let k = v - empties;
    src.check_count(k as u64, l)?;
    // Fits: k·l bytes are in the input (and l is unused when k is 0).
    let l = usize::try_from(l).unwrap_or(usize::MAX);
    let bytes = src.take(k.saturating_mul(l), "a hex column's bytes")?;
    let chars = 2 * bytes.len();
    src.charge(chars as u64)?;
    let mut store = Vec::with_capacity(chars);
    store.extend(crate::wire::hex::digits(bytes, shape.upper));
    let strs = CheckedStrs::rebuilt(store, lens(v, 2 * l, mask)).map_err(|e| e.with_offset(at))?;
    Ok(Read::Values(strs, Some(shape)))
}

/// The lengths of `v` values: 0 where `mask` (empty: none) has the value's bit, else `chars`.
pub(super) fn lens(v: usize, chars: usize, mask: &[u8]) -> impl Iterator<Item = usize> + '_ {
    let empty = move |i: usize| !mask.is_empty() && mask[i / 8] >> (i % 8) & 1 == 1;
    (0..v).map(move |i| if empty(i) { 0 } else { chars })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape_of(strs: &[&str]) -> Option<(usize, bool, usize)> {
        let b: Vec<&[u8]> = strs.iter().map(|s| s.as_bytes()).collect();
        shape(&b).map(|s| (s.chars, s.upper, s.empties))
    }

    #[test]
    fn shape_takes_one_length_and_one_case() {
        assert_eq!(shape_of(&["4bf9", "", "00a1"]), Some((4, false, 1)));
        assert_eq!(shape_of(&["4BF9", "0011"]), Some((4, true, 0)));
        assert_eq!(shape_of(&["0123", "4567"]), Some((4, false, 0)));
        assert_eq!(shape_of(&["4bF9"]), None);
        assert_eq!(shape_of(&["4b", "F9"]), None);
        assert_eq!(shape_of(&["abc"]), None);
        assert_eq!(shape_of(&["ab", "abcd"]), None);
        assert_eq!(shape_of(&["ag"]), None);
        assert_eq!(shape_of(&["", ""]), None);
        assert_eq!(shape_of(&[]), None);
    }
}
