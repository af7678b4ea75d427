//! Hex-text columns (kind bit `20`, `docs/SPEC.md` §22.1): every value is empty or a hex
//! string of one even length over the column, letters in one case (`4bf92f35…`, OTLP's
//! trace and span ids in the JSON mapping, where a root span's parent id is `""`).
//!
//! ```text
//! flags uvarint(L) [⌈V/8⌉ empty mask] (V − E) × L bytes
//! flags: 01 letters uppercase, 02 the empty mask follows (E = its popcount ≥ 1)
//! ```
//!
//! `L` is the length in bytes (half the characters), so an odd length cannot be written;
//! each byte prints as two digits, high nibble first.

use super::{Body, Form, bad};
use crate::codec::strings::CheckedStrs;
use crate::columnar::mask_len;
use crate::error::Result;
use crate::source::Source;
use crate::wire::varint::{uvarint_len, write_uvarint};

/// Flag: letters are uppercase.
const UPPER: u8 = 0x01;
/// Flag: an empty-string mask follows the length.
const EMPTIES: u8 = 0x02;

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
struct Shape {
    chars: usize,
    upper: bool,
    empties: usize,
}

/// The shape of `strs` when every value is empty or canonical hex of one length and case,
/// at least one not empty.
fn shape(strs: &[&[u8]]) -> Option<Shape> {
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
    out.push(if sh.upper { UPPER } else { 0 } | if mask > 0 { EMPTIES } else { 0 });
    write_uvarint(&mut out, l as u64);
    if mask > 0 {
        let at = out.len();
        out.resize(at + mask, 0);
        for (i, s) in strs.iter().enumerate() {
            if s.is_empty() {
                out[at + i / 8] |= 1 << (i % 8);
            }
        }
    }
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

/// Reads a hex body of `v` values and prints them.
pub(super) fn read<'de>(src: &mut Source<'de>, v: usize) -> Result<CheckedStrs<'de>> {
    let at = src.offset();
    let flags = src.next("a hex column's flag byte")?;
    if flags & !(UPPER | EMPTIES) != 0 {
        return Err(bad(at, "hex column flag bits other than 01 and 02 set"));
    }
    let len_at = src.offset();
    let l = src.uvarint()?;
    if l == 0 {
        return Err(bad(len_at, "a hex column's value length is 0 bytes"));
    }
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
    let k = v - empties;
    src.check_count(k as u64, l)?;
    // Fits: k·l bytes are in the input (and l is unused when k is 0).
    let l = usize::try_from(l).unwrap_or(usize::MAX);
    let bytes = src.take(k.saturating_mul(l), "a hex column's bytes")?;
    let chars = 2 * bytes.len();
    src.charge(chars as u64)?;
    let mut store = Vec::with_capacity(chars);
    store.extend(crate::wire::hex::digits(bytes, flags & UPPER != 0));
    let empty = |i: usize| empties > 0 && mask[i / 8] >> (i % 8) & 1 == 1;
    let lens = (0..v).map(|i| if empty(i) { 0 } else { 2 * l });
    CheckedStrs::rebuilt(store, lens).map_err(|e| e.with_offset(at))
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
